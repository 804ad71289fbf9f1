// PFL202 per-step-host-transfer: a tensor copied to the host on every training step (`.cpu()`,
// `.tolist()`, `float(t)`, `print(t)`): each copy waits for the GPU queue to drain first.
// `.item()` is PFL201's; a chain such as `x.detach().cpu().numpy()` is reported once, at `.cpu()`.
#include "parser/model.hpp"
#include "parser/ts.hpp"
#include "rules/all.hpp"
#include "rules/host_sync/tensor_util.hpp"

namespace perflint {
namespace {

constexpr std::string_view kWaits = "it waits for all queued GPU work to finish";

// The first tensor-like argument of print(...): a plain argument, a `%`/`.format` operand, or an
// f-string interpolation. Null when there is none.
TSNode printed_tensor(const Model& model, const CallInfo& call, const std::vector<std::string>& losses) {
  std::vector<TSNode> todo(call.positional.rbegin(), call.positional.rend());
  for (int budget = 0; !todo.empty() && budget < 64; ++budget) {
    TSNode n = todo.back();
    todo.pop_back();
    if (ts::is(n, "string")) {
      for (TSNode part : ts::named_children(n))
        if (ts::is(part, "interpolation") && ts_node_named_child_count(part) > 0)
          todo.push_back(ts_node_named_child(part, 0));
      continue;
    }
    if (ts::is(n, "concatenated_string")) {
      for (TSNode s : ts::named_children(n)) todo.push_back(s);
      continue;
    }
    if (ts::is(n, "call")) {
      const CallInfo* c = model.call(n);
      if (c && c->method == "format" && ts::is(c->receiver, "string")) {
        for (TSNode a : c->positional) todo.push_back(a);
        for (const auto& k : c->keywords) todo.push_back(k.value);
        continue;
      }
    }
    if (ts::is(n, "binary_operator")) {
      // "loss %.4f" % loss
      TSNode left = ts::field(n, "left");
      if (ts::is(left, "string")) {
        todo.push_back(ts::field(n, "right"));
        continue;
      }
    }
    if (is_tensor_like(model, n, losses)) return n;
  }
  return TSNode{};
}

class RulePFL202 final : public Rule {
 public:
  const RuleInfo& info() const override {
    static const RuleInfo i{"PFL202", "per-step-host-transfer", "host-sync", Severity::Warning,
                            "Tensor copied to the host every training step (.cpu(), .tolist(), float(t), print(t))", true, {}};
    return i;
  }
  std::vector<std::string_view> kinds() const override { return {"call"}; }

  // A copy method other than .item() (PFL201's), or a builtin such as `float(t)`: no method, and a
  // name not resolved through an import.
  bool wants(const CallInfo& call) const override {
    return call.method.empty() ? call.qualname.empty() : call.method != "item" && is_host_copy_method(call.method);
  }

  void check(TSNode node, const Model& model, Emitter& out) const override {
    const CallInfo* call = model.call(node);
    if (!call || !wants(*call)) return;
    std::string message;
    std::string hint =
        "keep the tensor on the device (accumulate with `total += x.detach()`) and copy it only when logging, under "
        "`if step % log_every == 0:`";
    if (!call->method.empty()) {
      if (call->method == "item" || !is_host_copy(model, *call)) return;
      // `model.cpu()` moves parameters (a one-off, usually at save time), not a step's tensor.
      if (looks_like_module(model, call->receiver)) return;
      if (rooted_in_other_library(model, call->receiver)) return;
      if (chain_has_host_copy(model, call->receiver)) return;
      const std::string site = short_text(model, node, 70);
      if (call->method == "tolist")
        message = "`" + site + "` copies a tensor into a Python list every training step: " + std::string(kWaits) +
                  ", then converts it element by element";
      else
        message = "`" + site + "` copies a tensor to the host every training step: " + std::string(kWaits) +
                  " before the copy starts";
    } else if (ts::is(call->function, "identifier") && call->qualname.empty()) {
      const std::string_view fn = model.text(call->function);
      if (fn != "float" && fn != "int" && fn != "bool" && fn != "print") return;
      if (!model.step_context(node).per_step()) return;  // before the file-wide loss scan
      const std::vector<std::string> losses = loss_names(model);
      if (fn == "float" || fn == "int" || fn == "bool") {
        if (call->positional.size() != 1 || !call->keywords.empty() || call->star_args) return;
        if (!is_tensor_like(model, call->positional.front(), losses)) return;
        message = "`" + std::string(fn) + "(" + short_text(model, call->positional.front()) +
                  ")` reads a tensor's value on the host every training step: " + std::string(kWaits) +
                  " and copies the value";
      } else if (fn == "print") {
        TSNode t = printed_tensor(model, *call, losses);
        if (ts_node_is_null(t)) return;
        message = "`print` formats the tensor `" + short_text(model, t) + "` every training step: " +
                  std::string(kWaits) + " and copies the tensor to the host";
        hint = "print under a logging guard (`if step % log_every == 0:`), or accumulate on the device and print the "
               "aggregate";
      } else {
        return;
      }
    } else {
      return;
    }
    const StepContext sc = model.step_context(node);
    if (!sc.per_step()) return;
    if (!call->method.empty() && batch_stays_on_host(model, call->receiver, sc.loop)) return;
    Finding& f = out.report(node, std::move(message), std::move(hint));
    f.notes.push_back(step_loop_note(model, out, sc.loop));
  }
};

}  // namespace

std::unique_ptr<Rule> make_pfl202() { return std::make_unique<RulePFL202>(); }

}  // namespace perflint
