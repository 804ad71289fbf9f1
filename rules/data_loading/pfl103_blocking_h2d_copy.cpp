// PFL103 blocking-h2d-copy: a batch copied to the GPU every step without non_blocking=True, so the
// host waits for each copy to finish before it can queue the forward pass.
#include "parser/model.hpp"
#include "rules/all.hpp"
#include "rules/data_loading/loader_util.hpp"
#include "rules/fix_util.hpp"
#include "rules/host_sync/tensor_util.hpp"

namespace perflint {
namespace {

using namespace data_loading;

class RulePFL103 final : public Rule {
 public:
  const RuleInfo& info() const override {
    static const RuleInfo i{"PFL103", "blocking-h2d-copy", "data-loading", Severity::Warning,
                            "Batch copied to the GPU without non_blocking=True", true, {}};
    return i;
  }
  std::vector<std::string_view> kinds() const override { return {"call"}; }
  bool wants(const CallInfo& call) const override {
    return is_device_copy_method(call.method) || may_be_legacy_copy(call);
  }

  void check(TSNode node, const Model& model, Emitter& out) const override {
    if (!model.step_context(node).per_step()) return;  // first: a call's context is known, the batch look-up is not cheap
    std::optional<Copy> copy = batch_device_copy(model, node);
    if (!copy) copy = legacy_batch_copy(model, node);
    if (!copy || !copy->non_blocking || *copy->non_blocking) return;
    const CallInfo* call = copy->call;

    const DataLoaderInfo* loader =
        ts_node_is_null(copy->batch) ? nullptr : model.loader_of_batch(copy->batch);
    // A batch of a loader an Accelerator prepared is on the device already: its `.to(device)` copies
    // nothing (accelerate's own copy is the loader's, PFL102).
    if (loader && loader->device_placed) return;
    std::optional<Flag> pin;
    if (loader) pin = loader_flag(model, *loader->call, "pin_memory");
    std::string fix;
    if (pin && !pin->value) {
      fix = "pass `non_blocking=True` and add `pin_memory=True` to the DataLoader at line " +
            std::to_string(line_of(out, loader->call->node)) +
            " (non_blocking alone does nothing from pageable memory)";
    } else if (pin) {
      fix = "pass `non_blocking=True`";
    } else if (!copy->host_source.empty()) {
      fix = "pin the host data once (`.pin_memory()` when it is built) and pass `non_blocking=True`";
    } else {
      fix = "pass `non_blocking=True` (it overlaps only when the DataLoader has `pin_memory=True`)";
    }
    // `torch.from_numpy(batch)`: NumPy arrays are not what the DataLoader pins.
    const bool converted = !ts_node_is_null(copy->batch) && !ts_node_is_null(converted_batch(model, call->receiver));
    if (converted)
      fix = "return tensors from the Dataset or collate_fn (the DataLoader pins tensors with `pin_memory=True`, "
            "not NumPy arrays), then pass `non_blocking=True`";
    // `torch.cuda.FloatTensor(x)` takes no non_blocking: the fix is another spelling.
    const bool constructor = call->method.empty();
    if (constructor)
      fix = "copy with `x.to(device, dtype=torch.float32, non_blocking=True)` instead of `" +
            std::string(model.text(call->function)) + "(x)` (it overlaps only from pinned memory)";
    std::string message = copy->host_source.empty() ? "batch copied to the GPU with a blocking `"
                                                     : "host data copied to the GPU with a blocking `";
    message.append(model.text(call->function)).append("(...)`");
    if (copy->non_blocking_node.id) message.append(" (non_blocking=False)");
    message.append(" every step: the host waits for the copy before it can queue the forward pass");
    Finding& f = out.report(node, std::move(message), std::move(fix));
    if (copy->device_is_variable) {
      // Point at what made us think so (the script's CUDA use), not at the copy itself.
      std::string note = "assumes `";
      note.append(model.text(copy->device)).append("` is a CUDA device (the script uses CUDA ");
      note.append(model.cuda_where()).append(")");
      f.notes.push_back(Note{std::move(note), std::nullopt});
    }
    if (pin && !pin->value)
      f.notes.push_back(out.note(loader->call->node, "the batch comes from this DataLoader, which does not pin memory"));
    // The batch of another file's step, handed to this function: the calls that lead here.
    if (const StepContext sc = model.step_context(node); ts_node_is_null(sc.loop) && !sc.reached_from.empty())
      f.notes.push_back(step_loop_note(model, out, sc));
    if (!copy->host_source.empty())
      f.notes.push_back(out.note(copy->host_source_site, "the copied value is " + copy->host_source +
                                                             ", in host memory every step"));
    // Only from pinned memory does non_blocking=True overlap anything: elsewhere the fix is noise.
    if (pin && pin->value && !constructor && !converted) {
      std::optional<Edit> e;
      if (ts_node_is_null(copy->non_blocking_node)) e = fixes::add_keywords(model, *call, {{"non_blocking", "True"}});
      else if (TSNode lit = fixes::literal_argument(*call, copy->non_blocking_node, "false"); !ts_node_is_null(lit))
        e = fixes::replace_node(model.source(), lit, "True");
      if (e) f.fix = Fix{"Pass `non_blocking=True`", true, {std::move(*e)}};
    }
  }
};

}  // namespace

std::unique_ptr<Rule> make_pfl103() { return std::make_unique<RulePFL103>(); }

}  // namespace perflint
