// Semantic model of one Python file, part: what a default launch runs: branches on flags and
// options switched off by their defaults, parameter and attribute defaults, step switches.
#include "parser/model/impl.hpp"

#include <cctype>
#include <map>
#include <unordered_set>

namespace perflint {

bool Model::Impl::flag_off(const Frame& f, TSNode function) const {
  // `if args.visdom:` with `--visdom` defaulting to False: the branch does not run as the script is
  // launched by default (in an else branch, the flag defaulting to True).
  // An elif's own condition too (`elif args.loss_function == "wbce":` with the default "mse"; DLRM's
  // loss_fn_wrap, held-out round 16); what it follows is the if's else frame.
  if (f.kind != Frame::Kind::Condition || !(is(f.node, "if_statement") || (is(f.node, "elif_clause") && !null(f.condition))))
    return false;
  auto it = flag_off_cache.find(key(f.node));
  if (it != flag_off_cache.end()) return null(f.condition) ? it->second.second : it->second.first;
  const Value v = eval(field(f.node, "condition"), function, 0);
  // An option of this file's parser, or of another file's (`args = get_args()` from arguments.py:
  // a2c-ppo-acktr-gail's `if args.gail:`, off by default).
  int truth = -1;  // -1 unknown, else 0 / 1
  if (v.from_option || v.from_imported_option)
    if (const std::optional<bool> tv = v.truthy()) truth = *tv ? 1 : 0;
  // `if self.training:` in a forward() the step runs: true there; its else branch is the eval path
  // (retinanet's ResNet.forward returns the loss in training and decodes boxes otherwise).
  {
    TSNode c = unparenthesized(field(f.node, "condition"));
    bool negated = false;
    if (is(c, "not_operator")) c = unparenthesized(field(c, "argument")), negated = true;
    if (is(c, "attribute") && t(field(c, "attribute")) == "training" && is(field(c, "object"), "identifier") &&
        t(field(c, "object")) == "self")
      truth = negated ? 0 : 1;
  }
  // A device switch (`-gpu`, `--cuda`, `--use_cuda`): the CUDA configuration is the one judged, as
  // the README runs it, whatever the flag's default.
  if ((v.from_option && names_device(v.from_option->dest)) ||
      (v.from_imported_option && names_device(t(field(f.node, "condition")))))
    truth = -1;
  if (truth != -1 && !step_switches.empty()) {
    const std::string k = switch_key(field(f.node, "condition"), v);
    if (!k.empty() && std::any_of(step_switches.begin(), step_switches.end(),
                                  [&](const StepSwitch& s) { return s.key == k; }))
      truth = -1;
  }
  // A name the script binds once, to True or False, as its own setting (`distributed = False` in
  // bubbliiiing's train.py, held-out round 19): constant for the run as written.
  if (truth == -1) truth = constant_truth(field(f.node, "condition"), function);
  bool off_then = truth == 0, off_else = truth == 1;
  // `if args.augment and args.augment_p == 0:` (stylegan2's adaptive augmentation, `--augment`
  // off by default): one operand of an `and` that a flag's default switches off switches the branch
  // off (its else branch stays unknown).
  if (truth == -1) {
    std::vector<TSNode> operands{unparenthesized(field(f.node, "condition"))};
    for (size_t i = 0; i < operands.size() && i < 16 && !off_then; ++i) {
      const TSNode c = operands[i];
      if (is(c, "boolean_operator") && t(ts_node_child(c, 1)) == "and") {
        operands.push_back(unparenthesized(field(c, "left")));
        operands.push_back(unparenthesized(field(c, "right")));
        continue;
      }
      if (i == 0) break;  // not an `and`: the whole condition was judged above
      // `self.visdom_epoch`, set in the constructor from an option or a parameter that is off by
      // default (attribute_default_truth).
      if (is(c, "attribute") && t(field(c, "object")) == "self" && attribute_default_truth(c) == std::optional<bool>(false)) {
        if (!names_device(t(c))) off_then = true;
        continue;
      }
      if (constant_truth(c, function) == 0) {
        off_then = true;
        continue;
      }
      const Value ov = eval(c, function, 0);
      if (!(ov.from_option || ov.from_imported_option) || ov.truthy() != std::optional<bool>(false)) continue;
      const bool device = (ov.from_option && names_device(ov.from_option->dest)) ||
                          (ov.from_imported_option && names_device(t(c)));
      const std::string k = switch_key(c, ov);
      const bool step_switch = !k.empty() && std::any_of(step_switches.begin(), step_switches.end(),
                                                          [&](const StepSwitch& s) { return s.key == k; });
      if (!device && !step_switch) off_then = true;
    }
  }
  flag_off_cache.emplace(key(f.node), std::make_pair(off_then, off_else));
  return null(f.condition) ? off_else : off_then;
}

int Model::Impl::constant_truth(TSNode condition, TSNode function) const {
  TSNode c = unparenthesized(condition);
  bool negated = false;
  if (is(c, "not_operator")) c = unparenthesized(field(c, "argument")), negated = true;
  if (!is(c, "identifier") || names_device(t(c))) return -1;
  const Bindings& b = bindings();
  for (TSNode scope : {function, TSNode{}}) {
    const ScopeName sk = scope_key(scope, t(c));
    if (b.opaque.count(sk)) return -1;
    const auto it = b.assigns.find(sk);
    if (it == b.assigns.end()) continue;
    if (it->second.size() != 1) return -1;
    const TSNode v = unparenthesized(all_assigns[it->second.front()].value);
    if (!is(v, "true") && !is(v, "false")) return -1;
    return (is(v, "true") != negated) ? 1 : 0;
  }
  return -1;
}

std::string Model::Impl::switch_key(TSNode condition, const Value& v) const {
  TSNode c = unparenthesized(condition);
  if (is(c, "not_operator")) c = unparenthesized(field(c, "argument"));
  if (v.from_option) return "--" + v.from_option->dest;
  if (v.from_imported_option && is(c, "attribute")) return std::string(t(c));
  return {};
}

void Model::Impl::find_step_switches() {
  if (step_loop_nodes.empty()) return;
  // Every step loop must sit under a branch the defaults switch off: one step that runs by default
  // (`if args.amp: <amp loop> else: <fp32 loop>`) makes the flag a choice between two steps.
  std::vector<StepSwitch> found;
  for (const Loop& l : loops) {
    if (!l.step) continue;
    bool off = false;
    for (const Frame& f : l.ctx.frames) {
      // flag_off without the switches here: step_switches is still empty.
      if (!flag_off(f, l.ctx.function)) continue;
      const TSNode cond = field(f.node, "condition");
      const std::string k = switch_key(cond, eval(cond, l.ctx.function, 0));
      if (k.empty()) return;
      off = true;
      if (std::none_of(found.begin(), found.end(), [&](const StepSwitch& s) { return s.key == k; }))
        found.push_back({k, f.node});
    }
    if (!off) return;
  }
  step_switches = std::move(found);
  flag_off_cache.clear();
}

namespace {

// What a branch of an `if` (or an `elif`) knows about a name it tests: `if p:` / `if not p:` (the
// truth p has there: `value` empty), or `if p == X:` / `if p != X:` with X a constant spelling (a
// string, a number, `LoopPhase.TRAIN`): whether p equals X there (`equal`).
struct NameTest {
  std::string_view name, value;
  bool equal = false;  // for a truth test: p is true there
};

std::optional<NameTest> tested_name(const Frame& f, std::string_view src) {
  if (f.kind != Frame::Kind::Condition) return std::nullopt;
  const bool elif = is(f.node, "elif_clause");
  if (!is(f.node, "if_statement") && !(elif && !null(f.condition))) return std::nullopt;
  TSNode c = unparenthesized(field(f.node, "condition"));
  bool negated = false;
  if (is(c, "not_operator")) {
    negated = true;
    c = unparenthesized(field(c, "argument"));
  }
  // In the consequence the condition holds; in an elif/else branch of the if it does not.
  const bool holds = !null(f.condition) != negated;
  if (is(c, "identifier")) return NameTest{ts::text(c, src), {}, holds};
  if (!is(c, "comparison_operator") || ts_node_named_child_count(c) != 2) return std::nullopt;
  const TSNode left = ts_node_named_child(c, 0), right = ts_node_named_child(c, 1);
  const std::string_view op = ts::text(ts_node_child(c, 1), src);
  if ((op != "==" && op != "!=") || !is(left, "identifier")) return std::nullopt;
  if (!is(right, "string") && !is(right, "integer") && !is(right, "attribute")) return std::nullopt;
  return NameTest{ts::text(left, src), ts::text(right, src), holds == (op == "==")};
}

// Whether no value of the name lets both branches run: opposite truths, or `p == A` against `p ==
// B` (A and B spelled differently) or against `p != A`.
bool exclusive(const NameTest& a, const NameTest& b) {
  if (a.name != b.name || a.value.empty() != b.value.empty()) return false;
  if (a.value.empty() || a.value == b.value) return a.equal != b.equal;
  return a.equal && b.equal;
}

}  // namespace

// A branch of a step loop that tests a parameter of the loop's function which nothing rebinds, on
// the side opposite to every training-step call of the loop (`if is_train: loss.backward(); ...`
// then `else: writer.add_scalar("val_loss", loss.item())`: pytorch-original-transformer's
// train_val_loop, held-out round 27): the function runs either as the training step or as the other
// pass, never both, so the branch does not run with the step.
bool Model::Impl::opposite_to_markers(const Frame& f, TSNode loop) const {
  const std::optional<NameTest> test = tested_name(f, text);
  if (!test) return false;
  const std::string_view name = test->name;
  const TSNode fn = function_containing(loop);
  if (null(fn)) return false;
  const size_t fi = function_index(fn);
  if (fi == SIZE_MAX) return false;
  const auto& params = functions[fi].params;
  if (std::find(params.begin(), params.end(), name) == params.end()) return false;
  const Bindings& b = bindings();
  const ScopeName k = scope_key(fn, name);
  if (b.assigns.count(k) || b.opaque_again.count(k)) return false;
  const uint32_t lo = ts_node_start_byte(loop), hi = ts_node_end_byte(loop);
  bool any = false;
  // Only the loop's calls (the model's calls are in document order).
  const auto first = std::lower_bound(calls.begin(), calls.end(), lo,
                                      [](const CallInfo& c, uint32_t at) { return ts_node_start_byte(c.node) < at; });
  for (size_t ci = static_cast<size_t>(first - calls.begin());
       ci < calls.size() && ci < marker_calls.size() && ts_node_start_byte(calls[ci].node) < hi; ++ci) {
    if (!marker_calls[ci]) continue;
    bool opposite = false;
    for (const Frame& g : call_ctx[ci].frames)
      if (const std::optional<NameTest> other = tested_name(g, text); other && exclusive(*test, *other)) opposite = true;
    if (!opposite) return false;
    any = true;
  }
  return any;
}

bool Model::Impl::off_by_default(size_t fi, const Context& ctx) const {
  for (const Frame& f : ctx.frames) {
    if (f.kind != Frame::Kind::Condition || !is(f.node, "if_statement")) continue;
    // In the consequence the condition holds; in an elif/else branch the if's condition is false.
    const bool wanted = !null(f.condition);
    TSNode cond = unparenthesized(wanted ? f.condition : field(f.node, "condition"));
    bool negated = false;
    if (is(cond, "not_operator")) {
      negated = true;
      cond = unparenthesized(field(cond, "argument"));
    }
    const auto truth_of = [&](TSNode c) -> std::optional<bool> {
      if (is(c, "comparison_operator")) return none_test_truth(fi, c);
      if (is(c, "identifier")) return parameter_default_truth(fi, t(c));
      if (is(c, "attribute") && t(field(c, "object")) == "self") return attribute_default_truth(c);
      return std::nullopt;
    };
    std::optional<bool> by_default = truth_of(cond);
    // `if self.visdom_epoch and not cross_valid:` (Speech-Transformer's solver): an operand of an
    // `and` that is false by default makes the branch off (its else branch stays unknown).
    if (!by_default && !negated && wanted && is(cond, "boolean_operator") && t(ts_node_child(cond, 1)) == "and") {
      std::vector<TSNode> operands{cond};
      for (size_t i = 0; i < operands.size() && i < 16; ++i) {
        const TSNode c = unparenthesized(operands[i]);
        if (is(c, "boolean_operator") && t(ts_node_child(c, 1)) == "and") {
          operands.push_back(field(c, "left"));
          operands.push_back(field(c, "right"));
        } else if (truth_of(c) == std::optional<bool>(false)) {
          return true;
        }
      }
    }
    if (!by_default) continue;
    if ((*by_default != negated) != wanted) return true;
  }
  return false;
}

long Model::Impl::call_position(const Function& fn, std::string_view param) {
  const auto p = std::find(fn.params.begin(), fn.params.end(), param);
  if (p == fn.params.end()) return -1;
  const bool method = !fn.params.empty() && fn.params.front() == "self";
  return static_cast<long>(p - fn.params.begin()) - (method ? 1 : 0);
}

bool Model::Impl::binds(const std::vector<uint32_t>& positions, const std::vector<std::string>& keywords,
                        const Function& fn, std::string_view param) {
  if (std::find(keywords.begin(), keywords.end(), param) != keywords.end()) return true;
  const long index = call_position(fn, param);
  return index >= 0 && std::find(positions.begin(), positions.end(), static_cast<uint32_t>(index)) != positions.end();
}

bool Model::Impl::assigned_between(TSNode fn, std::string_view name, uint32_t lo, uint32_t hi) const {
  auto it = std::lower_bound(all_assigns.begin(), all_assigns.end(), lo,
                             [](const Assign& a, uint32_t at) { return ts_node_start_byte(a.statement) < at; });
  std::vector<std::string_view> names;
  for (; it != all_assigns.end() && ts_node_start_byte(it->statement) < hi; ++it) {
    if (!ts::same(it->ctx.function, fn) && !(null(it->ctx.function) && null(fn))) continue;
    names.clear();
    bound_names(it->target, text, names);
    if (std::find(names.begin(), names.end(), name) != names.end()) return true;
  }
  return false;
}

std::optional<bool> Model::Impl::none_test_truth(size_t fi, TSNode cond) const {
  // `p is None` / `p is not None` on a parameter `p`.
  if (ts_node_named_child_count(cond) != 2 || ts_node_child_count(cond) < 3) return std::nullopt;
  const TSNode left = ts_node_named_child(cond, 0), right = ts_node_named_child(cond, 1);
  if (!is(left, "identifier") || !is(right, "none")) return std::nullopt;
  std::string op;
  for (uint32_t i = 0; i < ts_node_child_count(cond); ++i)
    if (const TSNode c = ts_node_child(cond, i); !ts_node_is_named(c)) op += (op.empty() ? "" : " ") + std::string(t(c));
  if (op != "is" && op != "is not") return std::nullopt;
  const Function& fn = functions[fi];
  // `imgs = kwargs.get("imgs", None)` ... `if imgs is not None:` (EfficientDet's FocalLoss, held-out
  // round 23): the key of the function's **kwargs, passed by keyword only.
  const std::string key = kwargs_key(fi, left, cond);
  const std::string_view param = key.empty() ? t(left) : std::string_view(key);
  if (key.empty() && (call_position(fn, param) < 0 || param == kwargs_param(fi) ||
                      assigned_between(fn.node, param, ts_node_start_byte(fn.node), ts_node_start_byte(cond))))
    return std::nullopt;  // not a parameter, or rebound in the function before the test
  // Left at its default of None by every call that runs with a step (the debug-only call that
  // passes it sits in a branch that is off by default): `p is None`.
  if (!key.empty() || is(parameter_default(fi, param), "none")) {
    if (never_passed_by_steps(fi, param, !key.empty())) return op == "is";
    if (!key.empty()) return std::nullopt;
  }
  const StepEntry* e = entry_of(fi);
  if (!e) return std::nullopt;
  // Only other files' steps run it, and every one of their calls passes a value certainly not None
  // (glow-tts' commons.squeeze(x, x_mask, ...) with the decoder's mask): `p is None` is false.
  for (size_t i : callers[fi])
    if (step_where(call_ctx[i], 1).in()) return std::nullopt;
  if (e->opaque_args || !binds(e->non_none_positional, e->non_none_keywords, fn, param)) return std::nullopt;
  return op == "is not";
}

std::string_view Model::Impl::kwargs_param(size_t fi) const {
  for (TSNode p : ts::named_children(field(functions[fi].node, "parameters"))) {
    if (is(p, "typed_parameter")) p = ts_node_named_child(p, 0);
    if (is(p, "dictionary_splat_pattern") && is(ts_node_named_child(p, 0), "identifier"))
      return t(ts_node_named_child(p, 0));
  }
  return {};
}

std::string Model::Impl::kwargs_key(size_t fi, TSNode name, TSNode before) const {
  // `name = kwargs.get("key"[, None])` or `.pop(...)`, its only binding in the function, before
  // `before`; `kwargs` the function's ** parameter, never rebound or updated.
  const std::string_view splat = kwargs_param(fi);
  const TSNode fn = functions[fi].node;
  if (splat.empty() || !is(name, "identifier") || bindings().assigns.count(scope_key(fn, splat)) ||
      !update_calls(splat).empty())
    return {};
  const ScopeName k = scope_key(fn, t(name));
  const auto a = bindings().assigns.find(k);
  if (a == bindings().assigns.end() || bindings().opaque.count(k)) return {};
  // One binding before the test; later ones (`imgs = imgs.permute(...).cpu()` in the branch) only
  // where no loop of the function brings them round to the test again.
  const Assign* only = nullptr;
  for (size_t ai : a->second) {
    const Assign& x = all_assigns[ai];
    if (ts_node_start_byte(x.statement) > ts_node_start_byte(before)) continue;
    if (only) return {};
    only = &x;
  }
  if (!only || a->second.size() > 1)
    for (TSNode up = ts::parent(before); !null(up) && !ts::same(up, fn); up = ts::parent(up))
      if (is(up, "for_statement") || is(up, "while_statement")) return {};
  if (!only) return {};
  const Assign& as = *only;
  if (!is(as.target, "identifier")) return {};
  const TSNode v = unparenthesized(as.value);
  const TSNode f = is(v, "call") ? field(v, "function") : TSNode{};
  if (!is(f, "attribute") || t(field(f, "object")) != splat ||
      (t(field(f, "attribute")) != "get" && t(field(f, "attribute")) != "pop"))
    return {};
  const auto args = ts::named_children(field(v, "arguments"));
  if (args.empty() || args.size() > 2 || (args.size() == 2 && !is(args[1], "none"))) return {};
  const Value key = eval(args[0], fn, 0);
  return key.kind == Value::Kind::String ? key.s : std::string();
}

bool Model::Impl::never_passed_by_steps(size_t fi, std::string_view param, bool keyword_only) const {
  // Every call that can run `fi` with a step count (this file's, and other files' steps through its
  // entry) leaves `param` out; at least one such call is known.
  const Function& fn = functions[fi];
  const long index = keyword_only ? -1 : call_position(fn, param);
  bool any = false;
  for (size_t i : callers[fi]) {
    if (fn.name != "__init__" && !step_where(call_ctx[i], 1).in()) continue;
    const CallInfo& c = calls[i];
    if (c.star_args || c.unresolved_kwargs || c.keyword(param) ||
        (index >= 0 && static_cast<long>(c.positional.size()) > index))
      return false;
    any = true;
  }
  if (const StepEntry* e = entry_of(fi)) {
    if (e->opaque_args || std::find(e->keywords.begin(), e->keywords.end(), param) != e->keywords.end() ||
        (index >= 0 && static_cast<long>(e->positional) > index))
      return false;
    any = true;
  }
  return any;
}

TSNode Model::Impl::parameter_default(size_t fi, std::string_view param) const {
  TSNode dflt{};
  for (TSNode c : ts::named_children(field(functions[fi].node, "parameters")))
    if ((is(c, "default_parameter") || is(c, "typed_default_parameter")) && t(field(c, "name")) == param)
      dflt = field(c, "value");
  return dflt;
}

bool Model::Impl::constructor_calls_pass(size_t init, std::string_view param,
                                         const std::function<bool(TSNode, TSNode)>& ok) const {
  const TSNode cls = functions[init].cls;
  if (null(cls)) return false;
  const std::string_view cls_name = t(field(cls, "name"));
  const auto& params = functions[init].params;
  const long index = static_cast<long>(std::find(params.begin(), params.end(), param) - params.begin()) - 1;
  for (size_t i = 0; i < calls.size(); ++i) {
    const CallInfo& c = calls[i];
    if (!is(c.function, "identifier") || t(c.function) != cls_name) continue;
    if (c.star_args || c.unresolved_kwargs) return false;
    TSNode passed{};
    if (const Argument* a = c.keyword(param)) passed = a->value;
    else if (index >= 0 && static_cast<long>(c.positional.size()) > index) passed = c.positional[static_cast<size_t>(index)];
    if (!null(passed) && !ok(passed, call_ctx[i].function)) return false;
  }
  return true;
}

std::optional<bool> Model::Impl::parameter_default_truth(size_t fi, std::string_view param) const {
  // The truth of the parameter's default, unless a call that can run it passes another; or, without
  // a default, the truth every call running with a step passes (`agent.select_action(s,
  // deterministic=False)` in the training loop; the evaluation helper's `deterministic=True` runs
  // behind its interval guard: DRL-Pytorch, held-out round 31). Not a constructor's without a
  // default: its other callers are not known.
  // A function that calls itself under a test of the parameter (Speech-Backbones' monotonic_align,
  // round 26): the recursive call's step_where asks the same question again. Not known there.
  const std::pair<size_t, std::string_view> question{fi, param};
  if (std::find(default_truths_asked_.begin(), default_truths_asked_.end(), question) != default_truths_asked_.end())
    return std::nullopt;
  default_truths_asked_.push_back(question);
  const std::optional<bool> truth = parameter_default_truth_unguarded(fi, param);
  default_truths_asked_.pop_back();
  return truth;
}

std::optional<bool> Model::Impl::parameter_default_truth_unguarded(size_t fi, std::string_view param) const {
  const Function& fn = functions[fi];
  const TSNode dflt = parameter_default(fi, param);
  std::optional<bool> truth;
  if (!null(dflt)) {
    truth = eval(dflt, TSNode{}, 0).truthy();
    if (!truth) return std::nullopt;
  } else if (fn.name == "__init__") {
    return std::nullopt;
  }
  const bool has_default = truth.has_value();
  const auto agree = [&truth](std::optional<bool> v) {
    if (!v || (truth && *truth != *v)) return false;
    truth = v;
    return true;
  };
  // Passed by any call that can run it: in this file (every caller), or by another file's step.
  const long index = call_position(fn, param);
  for (size_t i : callers[fi]) {
    const CallInfo& c = calls[i];
    // A call of the function in itself that hands the parameter on as it came (`visit(child, deep,
    // step)`): the value the outer calls gave it.
    const bool recursive = ts::same(call_ctx[i].function, fn.node);
    if (recursive && !c.star_args && !c.unresolved_kwargs)
      if (const TSNode on = c.arg(param, static_cast<int>(index)); is(on, "identifier") && t(on) == param) continue;
    // Only calls that run with a step count (an inference path may pass it).
    if (fn.name != "__init__" && !step_where(call_ctx[i], 1).in()) continue;
    if (c.star_args || c.unresolved_kwargs) return std::nullopt;
    TSNode passed{};
    if (const Argument* a = c.keyword(param)) {
      // Passed the default's own value (`model(x, gen=False)`): still off.
      passed = a->value;
    } else if (index >= 0 && static_cast<long>(c.positional.size()) > index) {
      if (has_default) return std::nullopt;
      passed = c.positional[static_cast<size_t>(index)];
    }
    if (null(passed)) {
      if (!has_default) return std::nullopt;
      continue;
    }
    if (!agree(eval(passed, call_ctx[i].function, 0).truthy())) return std::nullopt;
  }
  if (const StepEntry* e = entry_of(fi)) {
    if (e->opaque_args || (index >= 0 && static_cast<long>(e->positional) > index)) return std::nullopt;
    // Passed by another file's step: only the same known value, by every call (glow-tts'
    // `generator(x, ..., gen=False)` for `def forward(..., gen=False)`).
    if (!has_default || std::find(e->keywords.begin(), e->keywords.end(), param) != e->keywords.end()) {
      const auto passed = std::find_if(e->keyword_truths.begin(), e->keyword_truths.end(),
                                       [&](const auto& kt) { return kt.first == param; });
      if (passed == e->keyword_truths.end() || !agree(passed->second)) return std::nullopt;
    }
  }
  return truth;
}

bool Model::Impl::step_counter(TSNode name) const {
  if (!is(name, "identifier")) return false;
  const int li = batch_loop(name);
  if (li < 0) return false;
  const TSNode loop = loops[static_cast<size_t>(li)].node;
  if (!is(loop, "for_statement") || !is(field(loop, "left"), "identifier") || t(field(loop, "left")) != t(name)) return false;
  const TSNode right = unparenthesized(field(loop, "right"));
  return is(right, "call") && is(field(right, "function"), "identifier") && t(field(right, "function")) == "range";
}

bool Model::Impl::attribute_default_is_one(TSNode attr) const {
  if (!is(attr, "attribute") || !is(field(attr, "object"), "identifier") || t(field(attr, "object")) != "self") return false;
  const auto found = bindings().by_attribute.find(t(attr));
  if (found == bindings().by_attribute.end() || found->second.empty()) return false;
  const auto is_one = [&](TSNode v, TSNode fn) {
    const Value x = eval(v, fn, 0);
    return x.kind == Value::Kind::Int && x.i == 1;
  };
  for (size_t ai : found->second) {
    const Assign& a = all_assigns[ai];
    const size_t init = null(a.ctx.function) ? SIZE_MAX : function_index(a.ctx.function);
    if (init == SIZE_MAX || functions[init].name != "__init__" || !is(a.value, "identifier")) return false;
    const std::string_view param = t(a.value);
    const TSNode dflt = parameter_default(init, param);
    if (null(dflt) || !is_one(dflt, TSNode{})) return false;
    // Not rebound in the constructor before it is stored.
    if (assigned_between(a.ctx.function, param, ts_node_start_byte(a.ctx.function), ts_node_start_byte(a.target)))
      return false;
    // This file's constructor calls pass 1 or nothing.
    if (!constructor_calls_pass(init, param, is_one)) return false;
  }
  return true;
}

std::optional<bool> Model::Impl::attribute_default_truth(TSNode attr) const {
  // Every `self.flag = ...` of the file is `self.flag = flag` in an __init__ whose `flag` has a
  // literal default that no constructor call of this file passes (those of other files are not
  // known: the default is assumed).
  // (value, function) of each assignment to the attribute, one target of a tuple assignment too
  // (`self.gr, self.autobalance = model.gr, autobalance`).
  if (!tuple_attribute_assigns_) {
    tuple_attribute_assigns_.emplace();
    for (const Assign& a : all_assigns) {
      if (!is(a.target, "pattern_list") && !is(a.target, "tuple_pattern")) continue;
      const auto targets = ts::named_children(a.target), values = ts::named_children(a.value);
      if (!is(a.value, "expression_list") && !is(a.value, "tuple")) {
        for (TSNode tg : targets)
          if (is(tg, "attribute")) (*tuple_attribute_assigns_)[t(tg)].push_back({TSNode{}, a.ctx.function});
        continue;
      }
      for (size_t k = 0; k < targets.size(); ++k)
        if (is(targets[k], "attribute"))
          (*tuple_attribute_assigns_)[t(targets[k])].push_back(
              {k < values.size() && targets.size() == values.size() ? values[k] : TSNode{}, a.ctx.function});
    }
  }
  std::vector<std::pair<TSNode, TSNode>> sites;
  if (const auto found = bindings().by_attribute.find(t(attr)); found != bindings().by_attribute.end())
    for (size_t ai : found->second) sites.push_back({all_assigns[ai].value, all_assigns[ai].ctx.function});
  if (const auto found = tuple_attribute_assigns_->find(t(attr)); found != tuple_attribute_assigns_->end())
    sites.insert(sites.end(), found->second.begin(), found->second.end());
  if (sites.empty()) return std::nullopt;
  std::optional<bool> truth;
  for (const auto& [value, function] : sites) {
    // `self.visdom_epoch = args.visdom_epoch` in a constructor the importing scripts call with their
    // parsed options (caller_option): that option's default.
    if (is(value, "attribute") && !null(function) && is(field(value, "object"), "identifier")) {
      const Value v = caller_option(function, t(field(value, "object")), t(field(value, "attribute")));
      const std::optional<bool> tv = v.known() ? v.truthy() : std::nullopt;
      if (!tv || (truth && *truth != *tv)) return std::nullopt;
      truth = tv;
      continue;
    }
    if (!is(value, "identifier") || null(function)) return std::nullopt;
    const std::optional<bool> v = constructor_parameter_truth(function, t(value), 0);
    if (!v || (truth && *truth != *v)) return std::nullopt;
    truth = v;
  }
  return truth;
}

std::optional<bool> Model::Impl::constructor_parameter_truth(TSNode init_node, std::string_view param, int depth) const {
  const size_t init = function_index(init_node);
  if (depth > 4 || init == SIZE_MAX || functions[init].name != "__init__") return std::nullopt;
  const std::optional<bool> truth = parameter_default_truth(init, param);
  if (!truth) return std::nullopt;
  // Constructor calls in this file: `Loss(model, autobalance=True)` passes another value; one that
  // passes the parameter of its own __init__ (`PointNetfeat(feature_transform=feature_transform)` in
  // PointNetCls.__init__, pointnet: held-out round 13) passes what that one's calls pass. Calls of
  // other files are not known: the default is assumed.
  const TSNode block = ts::parent(init_node);
  const TSNode cls = null(block) ? TSNode{} : ts::parent(block);
  if (null(cls) || !is(cls, "class_definition")) return std::nullopt;
  const bool agree = constructor_calls_pass(init, param, [&](TSNode passed, TSNode caller) {
    std::optional<bool> v = eval(passed, caller, 0).truthy();
    if (!v && is(passed, "identifier") && !null(caller)) v = constructor_parameter_truth(caller, t(passed), depth + 1);
    return v == truth;
  });
  return agree ? truth : std::nullopt;
}

std::string Model::assumed_switch(TSNode node) const {
  for (const Impl::StepSwitch& s : impl_->step_switches) {
    if (ts_node_start_byte(node) < ts_node_start_byte(s.statement) || ts_node_end_byte(node) > ts_node_end_byte(s.statement))
      continue;
    const TSNode cond = field(s.statement, "condition");
    return "`if " + std::string(impl_->t(cond)) + ":` (line " + std::to_string(ts_node_start_point(s.statement).row + 1) + ")";
  }
  return {};
}

}  // namespace perflint
