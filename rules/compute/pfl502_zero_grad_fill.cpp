// PFL502 zero-grad-fill: `zero_grad(set_to_none=False)` writes zeros into every gradient each step
// (one memset per parameter) instead of dropping the tensors.
#include <string>

#include "parser/model.hpp"
#include "parser/ts.hpp"
#include "rules/all.hpp"
#include "rules/common.hpp"
#include "rules/fix_util.hpp"
#include "rules/host_sync/tensor_util.hpp"

namespace perflint {
namespace {

class RulePFL502 final : public Rule {
 public:
  const RuleInfo& info() const override {
    static const RuleInfo i{"PFL502", "zero-grad-fill", "compute", Severity::Warning,
                            "zero_grad(set_to_none=False) fills every gradient with zeros each step", false, {}};
    return i;
  }
  std::vector<std::string_view> kinds() const override { return {"call"}; }

  bool wants(const CallInfo& call) const override { return call.method == "zero_grad"; }

  void check(TSNode node, const Model& model, Emitter& out) const override {
    const CallInfo* call = model.call(node);
    if (!call || !wants(*call) || ts_node_is_null(call->receiver)) return;
    // Optimizer.zero_grad(set_to_none) and Module.zero_grad(set_to_none) share the position.
    TSNode arg = call->arg("set_to_none", 0);
    if (ts_node_is_null(arg)) return;  // bare zero_grad(): the default depends on the torch version
    const Value v = model.evaluate(arg);
    if (v.truthy() != false) return;  // True, or not known statically
    // `None`/`0` are falsy too, but only a literal False (or a default False) says what was meant.
    if (v.kind != Value::Kind::Bool) return;
    const std::string recv = short_text(model, call->receiver);
    Finding& f = out.report(node,
                            "`" + short_text(model, node) +
                                "` passes set_to_none=False: it writes zeros into every gradient tensor each step (a "
                                "memset per parameter) instead of dropping them",
                            "call `" + recv + ".zero_grad()` (set_to_none=True is the default since PyTorch 2.0) or `" +
                                recv + ".zero_grad(set_to_none=True)`");
    if (auto n = origin_note(out, "set_to_none", v)) f.notes.push_back(*n);
    if (auto n = via_dict_note(model, out, *call, "set_to_none")) f.notes.push_back(*n);
    const StepContext sc = model.step_context(node);
    if (sc.in_step) f.notes.push_back(step_loop_note(model, out, sc));
    if (TSNode lit = fixes::literal_argument(*call, arg, "false"); !ts_node_is_null(lit))
      f.fix = Fix{"Pass `set_to_none=True`", true, {fixes::replace_node(model.source(), lit, "True")}};
  }
};

}  // namespace

std::unique_ptr<Rule> make_pfl502() { return std::make_unique<RulePFL502>(); }

}  // namespace perflint
