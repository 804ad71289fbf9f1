// PFL104 non-blocking-without-pinned: `.to(..., non_blocking=True)` on a batch from a DataLoader that
// does not pin memory: the copy from pageable memory is synchronous anyway, so the flag misleads.
#include "parser/model.hpp"
#include "rules/all.hpp"
#include "rules/data_loading/loader_util.hpp"

namespace perflint {
namespace {

using namespace data_loading;

class RulePFL104 final : public Rule {
 public:
  const RuleInfo& info() const override {
    static const RuleInfo i{"PFL104", "non-blocking-without-pinned", "data-loading", Severity::Warning,
                            "non_blocking=True on batches from an unpinned DataLoader (silently synchronous)", true, {}};
    return i;
  }
  std::vector<std::string_view> kinds() const override { return {"call"}; }
  bool wants(const CallInfo& call) const override {
    return is_device_copy_method(call.method) || may_be_legacy_copy(call);
  }

  void check(TSNode node, const Model& model, Emitter& out) const override {
    if (!model.step_context(node).in_step) return;  // first: a call's context is known, the batch look-up is not cheap
    std::optional<Copy> copy = batch_device_copy(model, node);
    if (!copy) copy = legacy_batch_copy(model, node);
    if (!copy || !copy->non_blocking || !*copy->non_blocking) return;
    const DataLoaderInfo* loader = ts_node_is_null(copy->batch) ? nullptr : model.loader_of_batch(copy->batch);
    // A batch of a loader an Accelerator prepared is on the device already: its `.to(device)` copies
    // nothing (accelerate's own copy is the loader's, PFL102).
    if (loader && loader->device_placed) return;
    if (!loader) return;
    const std::optional<Flag> pin = loader_flag(model, *loader->call, "pin_memory");
    if (!pin || pin->value) return;  // pinned, or not knowable

    const std::string line = std::to_string(line_of(out, loader->call->node));
    std::string fix = enable_flag_hint(pin->arg.value, "pin_memory");
    fix = fix.empty() ? "add `pin_memory=True` to the DataLoader at line " + line
                      : fix + " to the DataLoader at line " + line;
    Finding& f = out.report(node,
                            "non_blocking=True has no effect here: the batch comes from the DataLoader at line " + line +
                                ", which does not pin memory, so the copy is synchronous",
                            std::move(fix));
    f.notes.push_back(out.note(loader->call->node, pin->arg.present ? "pin_memory is False here"
                                                                    : "pin_memory is not set here (default False)"));
    if (auto n = origin_note(out, "pin_memory", pin->arg.value); n && pin->arg.present) f.notes.push_back(std::move(*n));
    if (auto n = via_dict_note(model, out, *loader->call, "pin_memory")) f.notes.push_back(std::move(*n));
    if (auto n = assumed_note(out, *loader)) f.notes.push_back(std::move(*n));
    if (copy->legacy_async)
      f.notes.push_back(out.note(copy->non_blocking_node,
                                 "`async=` is the pre-0.4 name of `non_blocking=`; it no longer parses on Python >= 3.7 "
                                 "(async is a keyword): rename it"));
  }
};

}  // namespace

std::unique_ptr<Rule> make_pfl104() { return std::make_unique<RulePFL104>(); }

}  // namespace perflint
