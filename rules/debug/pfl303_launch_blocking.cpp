// PFL303 launch-blocking: the script sets CUDA_LAUNCH_BLOCKING=1, so every kernel launch waits for
// the kernel to finish and the host can never queue work ahead of the GPU.
#include <string>

#include "parser/model.hpp"
#include "parser/ts.hpp"
#include "rules/all.hpp"
#include "rules/common.hpp"
#include "rules/debug/debug_util.hpp"

namespace perflint {
namespace {

constexpr std::string_view kVar = "CUDA_LAUNCH_BLOCKING";

bool is_key(const Model& model, TSNode n) {
  const Value v = model.evaluate(n);
  return v.kind == Value::Kind::String && v.s == kVar;
}

// The values the CUDA runtime and users treat as "on"; anything else ("0", unknown) is left alone.
bool is_on(const Value& v) {
  if (v.kind == Value::Kind::String) return v.s == "1" || v.s == "true" || v.s == "True" || v.s == "TRUE";
  if (v.kind == Value::Kind::Int) return v.i == 1;
  return false;
}

class RulePFL303 final : public Rule {
 public:
  const RuleInfo& info() const override {
    static const RuleInfo i{"PFL303", "launch-blocking", "debug-left-on", Severity::Warning,
                            "CUDA_LAUNCH_BLOCKING=1 set from the script: every kernel launch is synchronous", true, {}};
    return i;
  }
  std::vector<std::string_view> kinds() const override { return {"assignment", "call"}; }
  bool wants(const CallInfo& call) const override {
    const std::string_view q = call.qualname;  // compared as a view: no out-of-line std::string::compare
    return q == "os.environ.setdefault" || q == "os.putenv" || q == "os.environ.update";
  }

  void check(TSNode node, const Model& model, Emitter& out) const override {
    TSNode value{};
    if (ts::is(node, "assignment")) {
      // os.environ["CUDA_LAUNCH_BLOCKING"] = "1"
      TSNode left = ts::field(node, "left");
      if (!ts::is(left, "subscript") || model.qualname(ts::field(left, "value")) != "os.environ") return;
      if (!is_key(model, ts::field(left, "subscript"))) return;
      value = ts::field(node, "right");
    } else {
      const CallInfo* call = model.call(node);
      if (!call) return;
      if (call->qualname == "os.environ.setdefault" || call->qualname == "os.putenv") {
        if (call->positional.size() < 2 || !is_key(model, call->positional[0])) return;
        value = call->positional[1];
      } else if (call->qualname == "os.environ.update") {
        // update({"CUDA_LAUNCH_BLOCKING": "1"}) or update(CUDA_LAUNCH_BLOCKING="1")
        if (const Argument* a = call->keyword(kVar)) value = a->value;
        for (TSNode p : call->positional) {
          if (!ts::is(p, "dictionary")) continue;
          for (TSNode pair : ts::named_children(p))
            if (ts::is(pair, "pair") && is_key(model, ts::field(pair, "key"))) value = ts::field(pair, "value");
        }
      } else {
        return;
      }
    }
    if (ts_node_is_null(value)) return;
    const Value v = model.evaluate(value);
    if (!is_on(v)) return;
    if (model.under_condition(node) || only_called_conditionally(model, node)) return;  // `if args.debug:`: opt-in while debugging
    const std::string shown = v.kind == Value::Kind::String ? v.s : v.repr();
    Finding& f = out.report(node,
                            "CUDA_LAUNCH_BLOCKING=" + shown +
                                " makes every kernel launch wait for the kernel to finish: the host cannot run ahead "
                                "of the GPU",
                            "remove it (set it in the shell only while debugging a CUDA error)");
    if (auto n = origin_note(out, kVar, v)) f.notes.push_back(*n);
  }
};

}  // namespace

std::unique_ptr<Rule> make_pfl303() { return std::make_unique<RulePFL303>(); }

}  // namespace perflint
