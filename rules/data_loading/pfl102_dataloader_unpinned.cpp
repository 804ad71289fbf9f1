// PFL102 dataloader-unpinned: a DataLoader feeding a CUDA training loop without pin_memory=True, so
// each host-to-device copy is staged through a pinned bounce buffer and cannot overlap compute.
#include "parser/model.hpp"
#include "rules/all.hpp"
#include "rules/data_loading/loader_util.hpp"
#include "rules/fix_util.hpp"

namespace perflint {
namespace {

using namespace data_loading;

class RulePFL102 final : public Rule {
 public:
  const RuleInfo& info() const override {
    static const RuleInfo i{"PFL102", "dataloader-unpinned", "data-loading", Severity::Warning,
                            "DataLoader feeding a CUDA training loop without pin_memory=True", true, {}};
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
    if (index_range_loader(model, *call)) return;  // indices into data the step holds: nothing to pin
    if (collate_on_gpu(model, *call)) return;  // a CUDA batch: no workers, nothing to pin
    const std::optional<Flag> pin = loader_flag(model, *call, "pin_memory");
    if (!pin || pin->value) return;  // pinned, or not knowable (unresolved **kwargs, a runtime value)

    std::string fix = enable_flag_hint(pin->arg.value, "pin_memory");
    fix = (fix.empty() ? "pass `pin_memory=True`" : fix) + " (and copy with `.to(device, non_blocking=True)`)";
    Finding& f = out.report(argument_span(out, *call, "pin_memory", pin->arg),
                            std::string("batches from this DataLoader are in pageable memory") +
                                (pin->arg.present ? " (pin_memory=" + pin->arg.value.repr() + ")" : std::string()) +
                                ": each copy to the GPU is staged through a pinned buffer and cannot overlap compute",
                            std::move(fix));
    add_value_notes(model, out, *call, "pin_memory", pin->arg, f);
    if (auto n = assumed_note(out, *loader)) f.notes.push_back(std::move(*n));
    if (auto e = pin_edit(model, *call, pin->arg)) f.fix = Fix{"Pass `pin_memory=True`", true, {std::move(*e)}};
  }

 private:
  // Hugging Face: `TrainingArguments(dataloader_pin_memory=False)` switches off the Trainer's
  // pinning (its default is True). Training on the CPU (`use_cpu=True`, `no_cuda=True`): silent.
  static void check_hf(const Model& model, const CallInfo& call, Emitter& out) {
    const std::optional<LoaderArg> pin = hf_arg(model, call, "dataloader_pin_memory");
    if (!pin || !pin->present || pin->value.truthy() != false) return;
    if (call.unresolved_kwargs || call.star_args) return;  // may carry `use_cpu=True`
    for (std::string_view cpu : {"use_cpu", "no_cuda"}) {
      const std::optional<LoaderArg> a = hf_arg(model, call, cpu);
      if (a && a->present && a->value.truthy() != false) return;  // True, or not known
    }
    std::string fix = enable_flag_hint(pin->value, "dataloader_pin_memory");
    if (fix.empty()) fix = "pass `dataloader_pin_memory=True`, or remove the argument (True is the default)";
    Finding& f = out.report(argument_span(out, call, "dataloader_pin_memory", *pin),
                            "the Trainer's batches are in pageable memory (dataloader_pin_memory=" + pin->value.repr() +
                                "): each copy to the GPU is staged through a pinned buffer and cannot overlap compute",
                            std::move(fix));
    add_value_notes(model, out, call, "dataloader_pin_memory", *pin, f);
    if (TSNode lit = fixes::literal_argument(call, pin->node, "false"); !ts_node_is_null(lit))
      f.fix = Fix{"Pass `dataloader_pin_memory=True`", true, {fixes::replace_node(model.source(), lit, "True")}};
  }

  // Absent: add it; a literal False written in the call: make it True. A value from a variable,
  // an argparse option or a **dict is the user's switch: no fix.
  static std::optional<Edit> pin_edit(const Model& model, const CallInfo& call, const LoaderArg& arg) {
    if (!arg.present) return fixes::add_keywords(model, call, {{"pin_memory", "True"}});
    TSNode lit = fixes::literal_argument(call, arg.node, "false");
    if (ts_node_is_null(lit)) return std::nullopt;
    return fixes::replace_node(model.source(), lit, "True");
  }
};

}  // namespace

std::unique_ptr<Rule> make_pfl102() { return std::make_unique<RulePFL102>(); }

}  // namespace perflint
