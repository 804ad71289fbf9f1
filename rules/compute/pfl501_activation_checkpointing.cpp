// PFL501 activation-checkpointing: activations are dropped in forward and recomputed in backward.
// That trades step time for memory; statically we can only say it is on. The probe compares the
// peak memory with the device's capacity to tell whether the trade is needed.
#include <algorithm>

#include "parser/model.hpp"
#include "parser/project.hpp"
#include "parser/ts.hpp"
#include "rules/all.hpp"
#include "rules/attention/attention_util.hpp"
#include "rules/fix_util.hpp"
#include "rules/common.hpp"

namespace perflint {
namespace {

constexpr std::string_view kMessage =
    "activation checkpointing is on: activations are recomputed during backward (typically +20-30% step time); the "
    "probe can tell whether the model fits in memory without it";
constexpr std::string_view kHint =
    "if the model fits without it, remove the checkpoint wrapper (`perflint --probe` measures the peak memory)";

bool is_checkpoint_function(std::string_view q) {
  if (q == "torch.utils.checkpoint.checkpoint" || q == "torch.utils.checkpoint.checkpoint_sequential") return true;
  // FSDP / torch.distributed wrappers, wherever they are imported from.
  if (q.starts_with("torch.distributed.") &&
      (q.ends_with(".checkpoint_wrapper") || q.ends_with(".apply_activation_checkpointing")))
    return true;
  // timm's `checkpoint_seq(self.blocks, x)` (timm.models.helpers / _manipulate / timm.models).
  if (q.starts_with("timm.") && q.ends_with(".checkpoint_seq")) return true;
  // DeepSpeed and fairscale activation checkpointing.
  return q == "deepspeed.checkpointing.checkpoint" || q == "fairscale.nn.checkpoint_wrapper" ||
         q == "fairscale.nn.checkpoint.checkpoint_wrapper";
}

// timm: `model.set_grad_checkpointing()` / `(True)` / `(enable=args.grad_checkpointing)`: the
// enable argument (null when absent: the default is True).
bool is_set_grad_checkpointing(const CallInfo& call) { return call.method == "set_grad_checkpointing"; }

// `name` is a parameter of the function around `at` that is off unless its caller turns it on: no
// default, or a default of False or None (`use_checkpoint=True` is on by default: not this).
bool is_parameter_here(const Model& model, TSNode at, std::string_view name) {
  const TSNode def = model.enclosing(at, "function_definition");
  if (ts_node_is_null(def)) return false;
  for (TSNode p : ts::named_children(ts::field(def, "parameters"))) {
    TSNode id = ts::is(p, "identifier") ? p : ts::is(p, "typed_parameter") ? ts_node_named_child(p, 0) : ts::field(p, "name");
    if (!ts::is(id, "identifier") || model.text(id) != name) continue;
    const TSNode value = ts::field(p, "value");
    return ts_node_is_null(value) || ts::is(value, "false") || ts::is(value, "none");
  }
  return false;
}

// Methods that only forward the switch to submodules (timm's and open_clip's set_grad_checkpointing,
// Hugging Face's gradient_checkpointing_enable), and the checkpointing helpers themselves (timm's
// `checkpoint(function, *args)` and `checkpoint_seq(...)` wrap torch's): the caller of the outermost
// one turns it on, and is reported there.
bool in_forwarding_method(const Model& model, TSNode node) {
  const TSNode def = model.enclosing(node, "function_definition");
  if (ts_node_is_null(def)) return false;
  const std::string_view name = model.text(ts::field(def, "name"));
  return name == "set_grad_checkpointing" || name == "gradient_checkpointing_enable" ||
         name == "enable_gradient_checkpointing" || name == "_set_gradient_checkpointing" ||
         name.find("checkpoint") != std::string_view::npos;
}

// A switch its caller sets, off unless the caller turns it on: a parameter of the enclosing
// function (`set_grad_checkpointing(self, enable)` forwarding `enable`), or an attribute every
// assignment of which in the file is False or such a parameter (`self.grad_checkpointing = False` in
// __init__, `= enable` in set_grad_checkpointing; `self.use_checkpoint = use_checkpoint`); in an
// `and`, any operand. A library's model code: where it is turned on is the caller's business.
bool decided_by_caller(const Model& model, TSNode expr, int depth = 0) {
  expr = unparen(expr);
  if (ts_node_is_null(expr) || depth > 4) return false;
  if (ts::is(expr, "identifier")) return is_parameter_here(model, expr, model.text(expr));
  if (ts::is(expr, "boolean_operator") && model.text(ts::field(expr, "operator")) == "and")
    return decided_by_caller(model, ts::field(expr, "left"), depth + 1) ||
           decided_by_caller(model, ts::field(expr, "right"), depth + 1);
  if (!ts::is(expr, "attribute")) return false;
  // `self.x` of this class: assignments in other classes of the file are other attributes.
  const TSNode cls = model.enclosing(expr, "class_definition");
  const auto in_class = [&](TSNode v) {
    return ts_node_is_null(cls) ||
           (ts_node_start_byte(cls) <= ts_node_start_byte(v) && ts_node_end_byte(v) <= ts_node_end_byte(cls));
  };
  std::vector<TSNode> values = model.assigned_values(model.text(expr));
  values.erase(std::remove_if(values.begin(), values.end(), [&](TSNode v) { return !in_class(v); }), values.end());
  if (values.empty()) return false;
  for (TSNode v : values) {
    v = unparen(v);
    if (ts::is(v, "false")) continue;
    // `self.grad_checkpointing = enable` in set_grad_checkpointing(self, enable=True): the method's
    // caller decides, whatever the default of a method meant to turn it on.
    if (ts::is(v, "identifier") && (in_forwarding_method(model, v) || is_parameter_here(model, v, model.text(v))))
      continue;
    return false;
  }
  return true;
}

bool in_test_file(const Model& model) { return is_test_path(model.source().path()); }

// `checkpoint(block, x) if self.grad_ckpt else block(x)`: the condition guarding `node`, when it is
// the value taken when the condition holds.
TSNode ternary_condition(TSNode node) {
  TSNode child = node;
  for (TSNode p = ts::parent(node); !ts_node_is_null(p); child = p, p = ts::parent(p)) {
    if (ts::is(p, "conditional_expression"))
      return ts::same(ts_node_named_child(p, 0), child) ? ts_node_named_child(p, 1) : TSNode{};
    if (ts::kind(p).ends_with("statement") || ts::is(p, "block")) break;
  }
  return TSNode{};
}

// Unsafe (memory use changes): `checkpoint(fn, a, b, use_reentrant=False)` -> `fn(a, b)`, and
// `m.gradient_checkpointing_enable()` -> `m.gradient_checkpointing_disable()` (same line count).
// Nothing when the call passes anything we cannot carry over exactly (*args, **kwargs, other keywords).
std::optional<Fix> remove_checkpointing(const Model& model, const CallInfo& call) {
  if (call.method == "gradient_checkpointing_enable") {
    TSNode attr = ts::field(call.function, "attribute");
    if (ts_node_is_null(attr)) return std::nullopt;
    return Fix{"Call `gradient_checkpointing_disable()` instead", false,
               {fixes::replace_node(model.source(), attr, "gradient_checkpointing_disable")}};
  }
  if (call.qualname != "torch.utils.checkpoint.checkpoint" || call.star_args || call.unresolved_kwargs ||
      call.positional.empty())
    return std::nullopt;
  static constexpr std::string_view own[] = {"use_reentrant", "preserve_rng_state", "context_fn", "determinism_check",
                                             "debug"};
  for (const auto& k : call.keywords)
    if (!ts_node_is_null(k.via_dict) || std::find(std::begin(own), std::end(own), k.name) == std::end(own))
      return std::nullopt;
  std::string text(model.text(call.positional.front()));
  text += "(";
  for (size_t i = 1; i < call.positional.size(); ++i) {
    if (i > 1) text += ", ";
    text += model.text(call.positional[i]);
  }
  text += ")";
  return Fix{"Call the function directly, without checkpointing", false,
             {fixes::replace_node(model.source(), call.node, std::move(text))}};
}

class RulePFL501 final : public Rule {
 public:
  const RuleInfo& info() const override {
    static const RuleInfo i{"PFL501", "activation-checkpointing", "compute", Severity::Info,
                            "Activation checkpointing is on: it recomputes activations in the backward pass", false, {}};
    return i;
  }
  std::vector<std::string_view> kinds() const override { return {"call"}; }
  bool wants(const CallInfo& call) const override {
    return is_checkpoint_function(call.qualname) || call.method == "gradient_checkpointing_enable" ||
           is_set_grad_checkpointing(call) || call.keyword("gradient_checkpointing");
  }

  void check(TSNode node, const Model& model, Emitter& out) const override {
    const CallInfo* call = model.call(node);
    if (!call || !wants(*call)) return;
    if (model.derived(in_test_file)) return;
    std::optional<Note> enable_note;
    // Behind a command-line flag that is off by default: info that names the flag (issue 10).
    const ArgOption* gate = nullptr;
    std::optional<Note> gate_note;
    if (in_forwarding_method(model, node)) return;
    if (is_set_grad_checkpointing(*call)) {
      if (call->star_args || call->unresolved_kwargs) return;
      TSNode enable = call->arg("enable", 0);
      if (!ts_node_is_null(enable)) {
        const Value v = model.evaluate(enable);
        if (!v.known() && decided_by_caller(model, enable)) return;
        if (v.truthy() != true) {
          if (v.known() && !(gate = off_by_default_flag(v))) return;  // set_grad_checkpointing(False)
          if (gate) gate_note = origin_note(out, "enable", v);
          else enable_note = out.note(enable, "only when `" + std::string(model.text(enable)) + "` is true");
        } else if (auto n = origin_note(out, "enable", v)) {
          enable_note = n;
        }
      }
    }
    if (is_checkpoint_function(call->qualname) || call->method == "gradient_checkpointing_enable" ||
        is_set_grad_checkpointing(*call)) {
      // Under `if args.grad_ckpt:` the user decides at run time: silent when that defaults off.
      TSNode cond{};
      std::optional<Note> cond_note;
      if (model.under_condition(node, &cond) && ts_node_is_null(cond)) cond = ternary_condition(node);
      if (!ts_node_is_null(cond)) {
        const Value v = model.evaluate(cond);
        if (!v.known() && decided_by_caller(model, cond)) return;
        if (v.truthy() == false) {
          if (!(gate = off_by_default_flag(v))) return;
          gate_note = origin_note(out, std::string(model.text(cond)), v);
        } else if (!v.known())
          cond_note = out.note(cond, "only when `" + std::string(model.text(cond)) + "` is true");
        else if (auto n = origin_note(out, std::string(model.text(cond)), v))
          cond_note = n;
      }
      if (gate) {
        Finding& f = out.report(node,
                                "activation checkpointing behind `" + gate->flag +
                                    "`, off by default: when it is given, activations are recomputed during backward "
                                    "(typically +20-30% step time)",
                                "give `" + gate->flag + "` only when the model does not fit without it (`perflint "
                                "--probe` with the flag measures the step time and the peak memory)");
        if (gate_note) f.notes.push_back(*gate_note);
        return;
      }
      Finding& f = out.report(node, std::string(kMessage), std::string(kHint));
      if (cond_note) f.notes.push_back(*cond_note);
      if (enable_note) f.notes.push_back(*enable_note);
      f.fix = remove_checkpointing(model, *call);
      return;
    }
    const Argument* kw = call->keyword("gradient_checkpointing");
    if (!kw) return;
    const Value v = model.evaluate(kw->value);
    if (v.truthy() != true) return;  // False, or not known statically
    const bool via_dict = !ts_node_is_null(kw->via_dict);
    Finding& f = out.report(via_dict ? node : ts::parent(kw->value), std::string(kMessage),
                            "if the model fits without it, pass `gradient_checkpointing=False` (`perflint --probe` "
                            "measures the peak memory)");
    if (auto n = origin_note(out, "gradient_checkpointing", v)) f.notes.push_back(*n);
    if (TSNode lit = fixes::literal_argument(*call, kw->value, "true"); !ts_node_is_null(lit))
      f.fix = Fix{"Pass `gradient_checkpointing=False`", false, {fixes::replace_node(model.source(), lit, "False")}};
    if (auto n = via_dict_note(model, out, *call, "gradient_checkpointing")) f.notes.push_back(*n);
  }
};

}  // namespace

std::unique_ptr<Rule> make_pfl501() { return std::make_unique<RulePFL501>(); }

}  // namespace perflint
