// PFL201 per-step-item: `.item()` on every training step waits for the GPU and copies a scalar to
// the host, so the host cannot queue the next step's kernels while the GPU drains.
#include "parser/model.hpp"
#include "parser/ts.hpp"
#include "rules/all.hpp"
#include "rules/host_sync/tensor_util.hpp"

namespace perflint {
namespace {

class RulePFL201 final : public Rule {
 public:
  const RuleInfo& info() const override {
    static const RuleInfo i{"PFL201", "per-step-item", "host-sync", Severity::Warning,
                            ".item() every training step forces a host-device sync", true, {}};
    return i;
  }
  std::vector<std::string_view> kinds() const override { return {"call"}; }

  bool wants(const CallInfo& call) const override { return call.method == "item"; }

  void check(TSNode node, const Model& model, Emitter& out) const override {
    const CallInfo* call = model.call(node);
    if (!call || !wants(*call) || ts_node_is_null(call->receiver)) return;
    if (!call->positional.empty() || !call->keywords.empty() || call->star_args) return;
    // `np.float32(x).item()`, `np.mean(a).item()`: a NumPy scalar, no device involved. Not a project
    // helper that returns a torch operation's result on the step's tensors (`util.masked_mape(pred,
    // real, 0.0).item()`: Graph-WaveNet, held-out round 29).
    const CallInfo* inner_call = ts::is(call->receiver, "call") ? model.call(call->receiver) : nullptr;
    bool helper_tensor = inner_call && model.returns_tensor(*inner_call) && !inner_call->positional.empty();
    if (helper_tensor)  // given host values (`accuracy(out.cpu(), y.cpu())`), it computes on the host
      for (TSNode a : inner_call->positional)
        if (chain_has_host_copy(model, a) || rooted_in_host_copy(model, a)) helper_tensor = false;
    if (!helper_tensor && rooted_in_other_library(model, call->receiver)) return;
    // A copy further down the chain (`x.cpu().item()`) is PFL202's finding; this one is then free.
    if (chain_has_host_copy(model, call->receiver)) return;
    // `correct = pred.eq(target).cpu().sum()`, then `correct.item()` (pointnet.pytorch, round 13).
    if (rooted_in_host_copy(model, call->receiver)) return;
    // Computed from host copies (`classes = torch.unique(target.to('cpu'))`, then `classes[0].item()`;
    // `loss, acc = loss_fn(...)` where loss_fn computes both on the CPU: Prototypical Networks).
    if (model.host_derived(call->receiver)) return;
    const StepContext sc = model.step_context(node);
    if (!sc.per_step()) return;
    if (batch_stays_on_host(model, call->receiver, sc.loop, sc.via)) return;
    const std::string recv = short_text(model, call->receiver);
    Finding& f = out.report(node,
                            "`" + recv + ".item()` runs every training step: it waits for all queued GPU work to "
                            "finish and copies the value to the host",
                            "accumulate on the device (`total += loss.detach()`) and call `.item()` only when "
                            "logging (e.g. under `if step % log_every == 0:`)");
    f.notes.push_back(step_loop_note(model, out, sc));
  }
};

}  // namespace

std::unique_ptr<Rule> make_pfl201() { return std::make_unique<RulePFL201>(); }

}  // namespace perflint
