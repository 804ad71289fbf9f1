// PFL301 anomaly-detection-on: autograd anomaly mode left on. It records a Python traceback for
// every op in forward and checks every backward output for NaN, which syncs with the GPU per op.
#include <algorithm>

#include "parser/model.hpp"
#include "parser/ts.hpp"
#include "rules/all.hpp"
#include "rules/common.hpp"
#include "rules/debug/debug_util.hpp"
#include "rules/fix_util.hpp"

namespace perflint {
namespace {

bool contains(TSNode outer, TSNode n) {
  return ts_node_start_byte(outer) <= ts_node_start_byte(n) && ts_node_end_byte(n) <= ts_node_end_byte(outer);
}

// Does `region` (a `with` body or a decorated function) run training? True when it contains a step
// loop or a backward/optimizer step, or calls a same-file function that does (a few levels deep).
bool region_runs_training(const Model& model, TSNode region) {
  for (TSNode loop : model.step_loops())
    if (contains(region, loop)) return true;
  // Functions that run training: those holding a step loop, then their callers (bounded).
  std::vector<std::string> names;
  for (TSNode loop : model.step_loops()) {
    TSNode fn = model.enclosing(loop, "function_definition");
    if (!ts_node_is_null(fn)) names.emplace_back(model.text(ts::field(fn, "name")));
  }
  auto callee = [&](const CallInfo& c) -> std::string_view {
    if (ts::is(c.function, "identifier")) return model.text(c.function);
    if (ts::is(c.receiver, "identifier") && model.text(c.receiver) == "self") return c.method;
    return {};
  };
  for (int round = 0; round < 4; ++round) {
    bool grew = false;
    for (const auto& c : model.calls()) {
      const std::string_view name = callee(c);
      if (name.empty() || std::find(names.begin(), names.end(), name) == names.end()) continue;
      if (contains(region, c.node)) return true;
      TSNode fn = model.enclosing(c.node, "function_definition");
      if (ts_node_is_null(fn)) continue;
      std::string caller(model.text(ts::field(fn, "name")));
      if (std::find(names.begin(), names.end(), caller) == names.end()) {
        names.push_back(std::move(caller));
        grew = true;
      }
    }
    if (!grew) break;
  }
  for (const auto& c : model.calls())
    if ((c.method == "backward" || c.qualname == "torch.autograd.backward") && contains(region, c.node)) return true;
  return false;
}

class RulePFL301 final : public Rule {
 public:
  const RuleInfo& info() const override {
    static const RuleInfo i{"PFL301", "anomaly-detection-on", "debug-left-on", Severity::Warning,
                            "Autograd anomaly detection left on during training", false, {}};
    return i;
  }
  std::vector<std::string_view> kinds() const override { return {"call", "decorator"}; }
  bool wants(const CallInfo& call) const override {
    return is_lightning_trainer(call.qualname) || is_detect_anomaly(call.qualname) ||
           is_set_detect_anomaly(call.qualname);
  }

  void check(TSNode node, const Model& model, Emitter& out) const override {
    if (ts::is(node, "decorator")) {
      // `@torch.autograd.detect_anomaly` without parentheses (the call form arrives as a call).
      TSNode e = ts_node_named_child(node, 0);
      if (!ts::is(e, "attribute") && !ts::is(e, "identifier")) return;
      if (!is_detect_anomaly(model.qualname(e))) return;
      scoped(node, ts::parent(node), model, out, "@" + std::string(model.text(e)));
      return;
    }
    const CallInfo* call = model.call(node);
    if (!call) return;
    if (is_lightning_trainer(call->qualname)) return check_lightning(*call, model, out);
    if (is_detect_anomaly(call->qualname)) {
      TSNode parent = ts::parent(node);
      if (ts::is(parent, "decorator")) {
        scoped(node, ts::parent(parent), model, out, "@" + std::string(model.text(node)));
        return;
      }
      TSNode with = with_statement_of(node);
      if (ts_node_is_null(with)) return;  // created but not entered: nothing is switched on here
      scoped(node, ts::field(with, "body"), model, out, "with " + std::string(model.text(node)));
      return;
    }
    if (!is_set_detect_anomaly(call->qualname)) return;
    TSNode mode = call->arg("mode", 0);
    if (ts_node_is_null(mode) || call->unresolved_kwargs) return;
    const Value v = model.evaluate(mode);
    if (v.truthy() != true) return;  // False, or not known statically: the user may be switching it off
    if (model.under_condition(node)) return;
    TSNode with = with_statement_of(node);
    const bool scoped_with = !ts_node_is_null(with);
    if (scoped_with && !region_runs_training_or_unknown(model, ts::field(with, "body"))) return;
    Finding& f = out.report(
        node,
        std::string(scoped_with ? "autograd anomaly detection is on inside this `with` block"
                                : "autograd anomaly detection is on for the whole run") +
            ": every op records a Python traceback in forward and every backward op checks its output for NaN",
        "remove it, or enable it only while debugging (e.g. `torch.autograd.set_detect_anomaly(args.debug)`)");
    if (auto n = origin_note(out, "mode", v)) f.notes.push_back(*n);
    if (auto n = via_dict_note(model, out, *call, "mode")) f.notes.push_back(*n);
    // True -> False in place (the call stays, so line numbers and an explicit switch remain).
    if (TSNode lit = fixes::literal_argument(*call, mode, "true"); !ts_node_is_null(lit))
      f.fix = Fix{"Turn anomaly detection off (`set_detect_anomaly(False)`)", true,
                  {fixes::replace_node(model.source(), lit, "False")}};
  }

 private:
  // Lightning: `Trainer(detect_anomaly=True)` runs the whole fit under anomaly mode.
  static void check_lightning(const CallInfo& call, const Model& model, Emitter& out) {
    const Argument* a = call.keyword("detect_anomaly");
    if (!a) return;
    const Value v = model.evaluate(a->value);
    if (v.truthy() != true) return;  // False, or not known statically (`detect_anomaly=args.debug`)
    if (model.under_condition(call.node) || only_called_conditionally(model, call.node)) return;
    TSNode site = ts::parent(a->value);
    if (!ts::is(site, "keyword_argument") || !ts_node_is_null(a->via_dict)) site = call.function;
    Finding& f = out.report(
        site,
        "Lightning's Trainer runs the whole fit with autograd anomaly detection on (detect_anomaly=" + v.repr() +
            "): every op records a Python traceback in forward and every backward op checks its output for NaN",
        "remove it, or enable it only while debugging (e.g. `detect_anomaly=args.debug`)");
    if (auto n = origin_note(out, "detect_anomaly", v)) f.notes.push_back(*n);
    if (auto n = via_dict_note(model, out, call, "detect_anomaly")) f.notes.push_back(*n);
    if (TSNode lit = fixes::literal_argument(call, a->value, "true"); !ts_node_is_null(lit))
      f.fix = Fix{"Turn anomaly detection off (`detect_anomaly=False`)", true,
                  {fixes::replace_node(model.source(), lit, "False")}};
  }

  static bool is_detect_anomaly(std::string_view q) {
    return q == "torch.autograd.detect_anomaly" || q == "torch.autograd.anomaly_mode.detect_anomaly";
  }
  static bool is_set_detect_anomaly(std::string_view q) {
    return q == "torch.autograd.set_detect_anomaly" || q == "torch.autograd.anomaly_mode.set_detect_anomaly";
  }

  // The `with` statement whose item is `call` (`with a(), torch.autograd.detect_anomaly():`).
  static TSNode with_statement_of(TSNode call) {
    TSNode p = ts::parent(call);
    if (ts::is(p, "as_pattern")) p = ts::parent(p);
    if (!ts::is(p, "with_item")) return TSNode{};
    for (TSNode q = ts::parent(p); !ts_node_is_null(q); q = ts::parent(q))
      if (ts::is(q, "with_statement")) return q;
    return TSNode{};
  }

  // With no training loop in sight the region may still be the training (a step function called
  // from another file): report, since anomaly mode has no other use than debugging.
  static bool region_runs_training_or_unknown(const Model& model, TSNode region) {
    return !model.has_step_loop() || region_runs_training(model, region);
  }

  // `with detect_anomaly():` or `@detect_anomaly()`: on only inside `region`.
  static void scoped(TSNode site, TSNode region, const Model& model, Emitter& out, const std::string& what) {
    if (model.under_condition(site)) return;
    if (ts::is(region, "decorated_definition")) region = ts::field(region, "definition");
    if (ts_node_is_null(region) || !region_runs_training_or_unknown(model, region)) return;
    out.report(site,
               "autograd anomaly detection is on around training (`" + what +
                   "`): every op records a Python traceback in forward and every backward op checks its output "
                   "for NaN",
               "remove it, or enable it only while debugging (e.g. `with torch.autograd.set_detect_anomaly(args.debug):`)");
  }
};

}  // namespace

std::unique_ptr<Rule> make_pfl301() { return std::make_unique<RulePFL301>(); }

}  // namespace perflint
