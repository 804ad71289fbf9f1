// PFL302 profiler-left-on: a profiler entered around the training loop (`with profile(...):` or
// `prof.start()` before it) records every operator, and with CUDA activities every kernel, for the
// whole run.
#include <string>

#include "parser/model.hpp"
#include "parser/ts.hpp"
#include "rules/all.hpp"
#include "rules/common.hpp"
#include "rules/debug/debug_util.hpp"

namespace perflint {
namespace {

bool is_profiler(std::string_view q) {
  return q == "torch.profiler.profile" || q == "torch.profiler.profiler.profile" ||
         q == "torch.autograd.profiler.profile" || q == "torch.autograd.profiler.emit_nvtx" ||
         q == "torch.cuda.profiler.profile" || q == "torch.autograd.profiler_legacy.profile";
}

constexpr std::string_view kMessage =
    "the profiler wraps the training loop: it records every operator (and CUDA activity) for the whole run";
constexpr std::string_view kHint = "profile a few steps behind a flag (e.g. `if args.profile:`), or remove it";
constexpr std::string_view kScheduleMessage =
    "the profiler wraps the training loop: its `schedule=` limits full recording to the active steps, but it stays "
    "attached (operator callbacks, trace handling) to every step of the run";

std::string message(const CallInfo& profiler) {
  return std::string(profiler.keyword("schedule") ? kScheduleMessage : kMessage);
}

class RulePFL302 final : public Rule {
 public:
  const RuleInfo& info() const override {
    static const RuleInfo i{"PFL302", "profiler-left-on", "debug-left-on", Severity::Warning,
                            "Profiler wrapping the training loop", false, {}};
    return i;
  }
  std::vector<std::string_view> kinds() const override { return {"with_statement", "call"}; }
  // A Lightning Trainer (its profiler= argument), or `prof.start()`.
  bool wants(const CallInfo& call) const override {
    return is_lightning_trainer(call.qualname) || call.method == "start";
  }

  void check(TSNode node, const Model& model, Emitter& out) const override {
    if (ts::is(node, "with_statement")) return check_with(node, model, out);
    if (const CallInfo* c = model.call(node); c && is_lightning_trainer(c->qualname))
      return check_lightning(*c, model, out);
    check_start(node, model, out);
  }

 private:
  // A Lightning profiler object: `PyTorchProfiler(...)`, `SimpleProfiler()`, `AdvancedProfiler()`
  // (PassThroughProfiler does nothing).
  static bool profiler_constructor(const Model& model, TSNode n) {
    if (!ts::is(n, "call")) return false;
    const CallInfo* c = model.call(n);
    if (!c) return false;
    std::string_view name = model.text(c->function);
    if (const auto dot = name.rfind('.'); dot != std::string_view::npos) name = name.substr(dot + 1);
    return name.size() > 8 && name.substr(name.size() - 8) == "Profiler" && name != "PassThroughProfiler";
  }

  // Lightning: `Trainer(profiler="simple")` / `Trainer(profiler=PyTorchProfiler())` profiles the
  // whole fit. None, False, or a value perflint cannot read (`profiler=args.profiler`): silent.
  static void check_lightning(const CallInfo& call, const Model& model, Emitter& out) {
    const Argument* a = call.keyword("profiler");
    if (!a) return;
    if (model.under_condition(call.node) || only_called_conditionally(model, call.node)) return;
    const Value v = model.evaluate(a->value);
    std::string what;
    TSNode made{};
    if (v.kind == Value::Kind::String) {
      if (v.s.empty()) return;
      what = "profiler=" + v.repr();
    } else if (v.known()) {
      return;  // None / False
    } else if (profiler_constructor(model, a->value)) {
      made = a->value;
    } else if (ts::is(a->value, "identifier")) {
      // `profiler = PyTorchProfiler(...)` earlier: every assignment must make one (a conditional
      // `profiler = None` elsewhere keeps it opt-in).
      const std::vector<TSNode> values = model.assigned_values(model.text(a->value));
      if (values.empty()) return;
      for (TSNode val : values)
        if (!profiler_constructor(model, val) || model.under_condition(val)) return;
      made = values.front();
    } else {
      return;
    }
    if (!ts_node_is_null(made)) {
      const CallInfo* m = model.call(made);
      if (!m || m->unresolved_kwargs) return;
      what = "profiler=" + std::string(model.text(m->function)) + "(...)";
    }
    TSNode site = ts::parent(a->value);
    if (!ts::is(site, "keyword_argument") || !ts_node_is_null(a->via_dict)) site = call.function;
    Finding& f = out.report(site,
                            "Lightning's Trainer profiles the whole fit (" + what +
                                "): the profiler records every training step (and every operator with the PyTorch "
                                "profiler) for the whole run",
                            "pass `profiler=None` unless profiling (e.g. `profiler=args.profiler`), or profile a few "
                            "steps with `max_steps`/`limit_train_batches`");
    if (auto n = origin_note(out, "profiler", v)) f.notes.push_back(*n);
    if (auto n = via_dict_note(model, out, call, "profiler")) f.notes.push_back(*n);
    if (!ts_node_is_null(made) && !ts::same(made, a->value)) f.notes.push_back(out.note(made, "the profiler is made here"));
  }

  // accelerate: `with accelerator.profile() as prof:` on an `Accelerator(...)` instance: the
  // PyTorch profiler, configured by a ProfileKwargs handler (no schedule unless it sets one).
  static bool is_accelerate_profile(const Model& model, const CallInfo& c) {
    if (c.method != "profile" || !c.qualname.empty() || ts_node_is_null(c.receiver)) return false;
    if (!ts::is(c.receiver, "identifier") && !ts::is(c.receiver, "attribute")) return false;
    for (TSNode v : model.assigned_values(model.text(c.receiver))) {
      const CallInfo* made = ts::is(v, "call") ? model.call(v) : nullptr;
      if (made && (made->qualname == "accelerate.Accelerator" || made->qualname == "accelerate.accelerator.Accelerator"))
        return true;
    }
    return false;
  }

  // `enabled=`, or the autograd profiler's first positional argument, which is `enabled`
  // (`profile(args.enable_profiling, use_cuda=...)`: DLRM, held-out round 16); null when not given.
  static TSNode enabled_arg(const CallInfo& c) {
    if (const Argument* en = c.keyword("enabled")) return en->value;
    if ((c.qualname == "torch.autograd.profiler.profile" || c.qualname == "torch.autograd.profiler_legacy.profile" ||
         c.qualname == "torch.autograd.profiler.emit_nvtx") &&
        !c.positional.empty() && !c.star_args)
      return c.positional.front();
    return {};
  }

  static void check_with(TSNode with, const Model& model, Emitter& out) {
    TSNode profiler{};
    // `with_clause` holds the `with_item`s; each item's value may be `call as name`.
    ts::walk(with, [&](TSNode n) {
      if (!ts_node_is_null(profiler) || ts::is(n, "block")) return false;
      if (!ts::is(n, "call")) return true;
      const CallInfo* c = model.call(n);
      if (c && (is_profiler(c->qualname) || is_accelerate_profile(model, *c))) profiler = n;
      return false;
    });
    if (ts_node_is_null(profiler)) return;
    // Behind a flag that is off by default (`if args.profile:` or `enabled=args.profile`): info that
    // names the flag, because when it is given the whole run is profiled (issue 10).
    const ArgOption* gate = nullptr;
    std::optional<Note> gate_note;
    if (TSNode cond{}; model.under_condition(with, &cond)) {
      if (ts_node_is_null(cond)) return;
      const Value v = model.evaluate(cond);
      if (!(gate = off_by_default_flag(v))) return;
      gate_note = origin_note(out, model.text(cond), v);
    }
    if (only_called_conditionally(model, with)) return;
    const CallInfo* c = model.call(profiler);
    if (const TSNode en = enabled_arg(*c); !ts_node_is_null(en)) {
      const Value v = model.evaluate(en);
      if (v.truthy() != true) {
        if (gate || !(gate = off_by_default_flag(v))) return;  // False, or unknown: switched off
        gate_note = origin_note(out, "enabled", v);
      }
    }
    if (c->unresolved_kwargs) return;  // may carry `enabled=False`
    TSNode body = ts::field(with, "body");
    TSNode site = first_step_site(model, body);
    if (ts_node_is_null(site)) return;
    if (gate && c->keyword("schedule")) return;  // a scheduled profiler behind a flag: the recommended shape
    if (gate) {
      Finding& f = out.report(profiler, "behind `" + gate->flag + "`, off by default: when it is given, " + message(*c),
                              "when `" + gate->flag + "` is given, profile a few steps (a `schedule=` or a step limit)");
      f.severity = Severity::Info;
      if (gate_note) f.notes.push_back(*gate_note);
      f.notes.push_back(out.note(site, "the training loop runs inside it here"));
      return;
    }
    Finding& f = out.report(profiler, message(*c), std::string(kHint));
    f.notes.push_back(out.note(site, "the training loop runs inside it here"));
  }

  // `prof = torch.profiler.profile(...); prof.start()` followed by the step loop in the same body.
  static void check_start(TSNode node, const Model& model, Emitter& out) {
    const CallInfo* call = model.call(node);
    if (!call || call->method != "start" || !call->positional.empty() || !call->keywords.empty()) return;
    const std::string_view recv = model.text(call->receiver);
    if (!ts::is(call->receiver, "identifier") && !ts::is(call->receiver, "attribute")) return;
    const CallInfo* made = nullptr;
    for (const auto& c : model.calls()) {
      if (!is_profiler(c.qualname)) continue;
      TSNode parent = ts::parent(c.node);
      if (ts::is(parent, "assignment") && model.text(ts::field(parent, "left")) == recv) {
        made = &c;
        break;
      }
    }
    if (!made || made->unresolved_kwargs) return;
    if (const TSNode en = enabled_arg(*made); !ts_node_is_null(en) && model.evaluate(en).truthy() != true) return;
    if (model.under_condition(node) || only_called_conditionally(model, node)) return;
    // The loop must follow in the same function body (or module), before any `prof.stop()`.
    TSNode scope = model.enclosing(node, "function_definition");
    if (ts_node_is_null(scope)) scope = ts_tree_root_node(node.tree);
    TSNode site = first_step_site(model, scope, ts_node_end_byte(node));
    if (ts_node_is_null(site)) return;
    for (const auto& c : model.calls())
      if (c.method == "stop" && model.text(c.receiver) == recv && ts_node_start_byte(c.node) > ts_node_end_byte(node) &&
          ts_node_end_byte(c.node) <= ts_node_start_byte(site))
        return;
    Finding& f = out.report(node, message(*made), std::string(kHint));
    f.notes.push_back(out.note(site, "the training loop runs after `" + std::string(recv) + ".start()` here"));
  }
};

}  // namespace

std::unique_ptr<Rule> make_pfl302() { return std::make_unique<RulePFL302>(); }

}  // namespace perflint
