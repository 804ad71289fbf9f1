// PFL105 workers-not-persistent: a DataLoader with worker processes that is iterated once per epoch
// without persistent_workers=True, so the workers are torn down and re-forked every epoch.
#include "parser/model.hpp"
#include "parser/ts.hpp"
#include "rules/all.hpp"
#include "rules/data_loading/loader_util.hpp"
#include "rules/fix_util.hpp"

namespace perflint {
namespace {

using namespace data_loading;

class RulePFL105 final : public Rule {
 public:
  const RuleInfo& info() const override {
    static const RuleInfo i{"PFL105", "workers-not-persistent", "data-loading", Severity::Warning,
                            "DataLoader workers restarted every epoch (no persistent_workers=True)", false, {}};
    return i;
  }
  std::vector<std::string_view> kinds() const override { return {"call"}; }
  bool wants(const CallInfo& call) const override { return is_dataloader_call(call); }

  void check(TSNode node, const Model& model, Emitter& out) const override {
    const CallInfo* call = model.call(node);
    if (!call) return;
    const DataLoaderInfo* loader = training_loader(model, *call);
    if (!loader || !loader->repeated) return;
    // `for epoch in range(args.epochs)` with `--epochs` 1 by default: one pass, nothing restarts.
    if (ts_node_is_null(loader->reiterated_by) && !ts_node_is_null(single_pass_repetition(model, loader->step_loop)))
      return;
    const std::optional<LoaderArg> workers = loader_arg(model, *call, "num_workers");
    if (!workers || !workers->present) return;
    // A known count, or one that is at least 1 on any machine (`os.cpu_count()`).
    std::string count;
    if (const std::optional<long long> n = workers->value.as_int()) {
      if (*n <= 0) return;
      count = std::to_string(*n);
    } else if (auto cpus = workers->value.known() ? std::nullopt : cpu_count_expression(model, workers->node)) {
      count = *cpus;
    } else {
      return;
    }
    const std::optional<Flag> persistent = loader_flag(model, *call, "persistent_workers");
    if (!persistent || persistent->value) return;

    // Safe only when it holds for every num_workers the script may run with (`--workers 0`).
    const std::optional<std::string> holds = persistent_workers_value(model, *call, *workers);
    const std::string value = holds.value_or("True");
    Finding& f = out.report(argument_span(out, *call, "persistent_workers", persistent->arg),
                            "DataLoader with num_workers=" + count +
                                " restarts its worker processes at the start of every epoch",
                            "pass `persistent_workers=" + value + "`");
    add_value_notes(model, out, *call, "num_workers", *workers, f);
    add_value_notes(model, out, *call, "persistent_workers", persistent->arg, f);
    const std::string why = repetition_text(model, out, loader->step_loop);
    std::string assumes = "assumes the loader is iterated once per epoch" + (why.empty() ? std::string() : " (" + why + ")");
    if (!ts_node_is_null(loader->reiterated_by))
      f.notes.push_back(out.note(loader->reiterated_by, "`" + std::string(model.text(ts::field(loader->reiterated_by, "name"))) +
                                                            "()` iterates the loader again on every pass: each pass starts new workers"));
    else if (ts_node_is_null(loader->step_loop)) f.notes.push_back(Note{std::move(assumes), std::nullopt});
    else f.notes.push_back(out.note(loader->step_loop, std::move(assumes)));
    if (auto note = assumed_note(out, *loader)) f.notes.push_back(std::move(*note));
    std::optional<Edit> e;
    if (!persistent->arg.present) e = fixes::add_keywords(model, *call, {{"persistent_workers", value}});
    else if (TSNode lit = fixes::literal_argument(*call, persistent->arg.node, "false"); !ts_node_is_null(lit))
      e = fixes::replace_node(model.source(), lit, value);
    if (e) f.fix = Fix{"Pass `persistent_workers=" + value + "`", holds.has_value(), {std::move(*e)}};
  }
};

}  // namespace

std::unique_ptr<Rule> make_pfl105() { return std::make_unique<RulePFL105>(); }

}  // namespace perflint
