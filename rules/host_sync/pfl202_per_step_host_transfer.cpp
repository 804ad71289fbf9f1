// PFL202 per-step-host-transfer: a tensor copied to the host on every training step (`.cpu()`,
// `.tolist()`, `float(t)`, `print(t)`): each copy waits for the GPU queue to drain first.
// `.item()` is PFL201's; a chain such as `x.detach().cpu().numpy()` is reported once, at `.cpu()`.
#include <cctype>
#include <string>

#include "parser/model.hpp"
#include "parser/ts.hpp"
#include "rules/all.hpp"
#include "rules/host_sync/tensor_util.hpp"

namespace perflint {
namespace {

constexpr std::string_view kWaits = "it waits for all queued GPU work to finish";

// A string-valued expression that can be a `%` format: a literal, or literals joined and repeated
// (`('%10s' * 2 + '%10.4g' * 6)`).
bool is_format_string(TSNode n) {
  for (int guard = 0; guard < 32; ++guard) {
    if (ts::is(n, "string") || ts::is(n, "concatenated_string")) return true;
    if (ts::is(n, "parenthesized_expression") && ts_node_named_child_count(n) > 0) {
      n = ts_node_named_child(n, 0);
      continue;
    }
    if (!ts::is(n, "binary_operator")) return false;
    TSNode op = ts::field(n, "operator");
    if (ts_node_is_null(op) || (ts::kind(op) != "+" && ts::kind(op) != "*")) return false;
    // `'%10s' * 2`: the string is on the left; `a + b`: both are strings, the left one decides.
    n = ts::field(n, "left");
  }
  return false;
}

// The values a `fmt % args` formats: the tuple's elements, `*t` standing for the elements of `t`
// (each one is converted: `'%g' % (*mloss,)` reads every element of a tensor).
std::vector<TSNode> percent_operands(TSNode right) {
  std::vector<TSNode> out;
  if (ts::is(right, "tuple")) {
    for (TSNode e : ts::named_children(right))
      out.push_back(ts::is(e, "list_splat") && ts_node_named_child_count(e) > 0 ? ts_node_named_child(e, 0) : e);
  } else {
    out.push_back(right);
  }
  return out;
}

// A `%` whose left side is a format string: the operator node's right side, or null.
TSNode percent_arguments(TSNode n) {
  if (!ts::is(n, "binary_operator")) return {};
  TSNode op = ts::field(n, "operator");
  if (ts_node_is_null(op) || ts::kind(op) != "%" || !is_format_string(ts::field(n, "left"))) return {};
  return ts::field(n, "right");
}

// TensorBoard's `SummaryWriter` (torch.utils.tensorboard or tensorboardX).
bool is_summary_writer_call(const CallInfo& c) {
  return c.qualname == "torch.utils.tensorboard.SummaryWriter" ||
         c.qualname == "torch.utils.tensorboard.writer.SummaryWriter" || c.qualname == "tensorboardX.SummaryWriter" ||
         c.qualname == "tensorboardX.writer.SummaryWriter";
}

// `writer`, `self.writer`: every assignment of that spelling in the file is a SummaryWriter(...)
// (or None, for `writer = None` before an `if`), and at least one is.
bool is_summary_writer(const Model& model, TSNode receiver) {
  if (!ts::is(receiver, "identifier") && !ts::is(receiver, "attribute")) return false;
  bool found = false;
  for (TSNode v : model.assigned_values(model.text(receiver))) {
    if (ts::is(v, "none")) continue;
    const CallInfo* c = ts::is(v, "call") ? model.call(v) : nullptr;
    if (!c || !is_summary_writer_call(*c)) return false;
    found = true;
  }
  return found;
}

// The tensor a `writer.add_scalar(tag, value, step)` / `add_scalars(tag, {k: value}, step)` logs:
// TensorBoard turns it into a Python number on the host (a sync and a copy). Null when none.
TSNode logged_tensor(const Model& model, const CallInfo& call, const std::vector<std::string>& losses) {
  if (call.star_args || !is_summary_writer(model, call.receiver)) return {};
  std::vector<TSNode> values;
  if (call.method == "add_scalar") {
    values.push_back(call.arg("scalar_value", 1));
  } else {
    TSNode dict = call.arg("tag_scalar_dict", 1);
    if (ts::is(dict, "dictionary"))
      for (TSNode pair : ts::named_children(dict))
        if (ts::is(pair, "pair")) values.push_back(ts::field(pair, "value"));
  }
  for (TSNode v : values)
    if (!ts_node_is_null(v) && is_tensor_like(model, v, losses)) return v;
  return {};
}

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
    if (TSNode args = percent_arguments(n); !ts_node_is_null(args)) {
      // "loss %.4f" % loss, "%g %g" % (*losses,)
      for (TSNode o : percent_operands(args)) todo.push_back(o);
      continue;
    }
    if (is_tensor_like(model, n, losses)) return n;
  }
  return TSNode{};
}

// True inside the arguments of a `print(...)` call: print() is judged as a whole (once).
bool inside_print(const Model& model, TSNode n) {
  for (TSNode p = ts::parent(n); !ts_node_is_null(p); p = ts::parent(p)) {
    if (ts::is(p, "call")) {
      TSNode f = ts::field(p, "function");
      if (ts::is(f, "identifier") && model.text(f) == "print") return true;
    }
    if (ts::is(p, "expression_statement") || ts::is(p, "block") || ts::is(p, "function_definition")) break;
  }
  return false;
}

// A tensor made by a torch factory without `device=` (on the host), through shape and dtype calls:
// `torch.Tensor([a, b]).unsqueeze(0)`, `torch.ones((1, 3))`. Not when the file makes the GPU the
// default device (`torch.set_default_tensor_type('torch.cuda.FloatTensor')`): factories build there.
bool built_on_host(const Model& model, TSNode expr) {
  if (factories_may_build_on_gpu(model)) return false;
  for (int hop = 0; hop < 8; ++hop) {
    while (ts::is(expr, "parenthesized_expression") && ts_node_named_child_count(expr) == 1)
      expr = ts_node_named_child(expr, 0);
    // `tokenizer(text, return_tensors="pt")["input_ids"][0]`: an element of what is built here.
    if (ts::is(expr, "subscript")) {
      expr = ts::field(expr, "value");
      continue;
    }
    if (!ts::is(expr, "call")) return false;
    const CallInfo* c = model.call(expr);
    if (!c) return false;
    // A tokenizer's output (`tokenizer(...)`, `self.tokenizer.encode(...)`): tensors on the host
    // (minimind's agent trainer, held-out round 22).
    if (const std::string_view callee = model.text(c->function);
        callee.ends_with("tokenizer") || callee.ends_with("tokenizer.encode") ||
        callee.ends_with("tokenizer.apply_chat_template") || callee.ends_with("tokenizer.batch_encode_plus") ||
        callee.ends_with("tokenizer.encode_plus"))
      return true;
    if (!c->qualname.empty()) {  // `torch.ones(...)` (the method is `ones` too: test the name first)
      const std::string_view q = c->qualname;
      if (!q.starts_with("torch.") || c->keyword("device")) return false;
      const std::string_view f = q.substr(6);
      for (std::string_view factory : {"zeros", "ones", "empty", "full", "tensor", "arange", "rand", "randn", "randint",
                                       "randperm", "eye", "linspace", "from_numpy", "as_tensor", "Tensor", "FloatTensor",
                                       "LongTensor", "IntTensor", "DoubleTensor", "BoolTensor", "ByteTensor"})
        if (f == factory) return true;
      return false;
    }
    for (std::string_view m : {"unsqueeze", "squeeze", "view", "reshape", "float", "long", "int", "double", "t",
                               "transpose", "permute", "contiguous", "flatten"})
      if (c->method == m) {
        expr = c->receiver;
        goto next;
      }
    return false;
  next:;
  }
  return false;
}

// The tensor formatted by an f-string, a `"..." % t` or a `"...".format(t)` outside print: null
// when there is none.
TSNode formatted_tensor(const Model& model, TSNode node, const std::vector<std::string>& losses) {
  std::vector<TSNode> operands;
  if (ts::is(node, "string")) {
    for (TSNode part : ts::named_children(node))
      if (ts::is(part, "interpolation") && ts_node_named_child_count(part) > 0)
        operands.push_back(ts_node_named_child(part, 0));
  } else if (ts::is(node, "binary_operator")) {
    TSNode args = percent_arguments(node);
    if (ts_node_is_null(args)) return {};
    operands = percent_operands(args);
  } else if (const CallInfo* c = model.call(node); c && c->method == "format" && ts::is(c->receiver, "string")) {
    operands = c->positional;
    for (const auto& k : c->keywords) operands.push_back(k.value);
  }
  for (TSNode o : operands)
    if (is_tensor_like(model, o, losses)) return o;
  return {};
}

// `if t:`, `if (t > 0).any():`, `while not done.all():` on a device tensor: Python asks the tensor
// for a bool, which copies it to the host. The condition's tensor, or null.
TSNode tested_tensor(const Model& model, TSNode stmt, const std::vector<std::string>& losses) {
  TSNode cond = ts::field(stmt, "condition");
  if (ts_node_is_null(cond)) return {};
  // `if loss is not None:`, `if key in batch:` never ask a tensor for its value.
  if (identity_or_membership_test(cond)) return {};
  return is_tensor_like(model, cond, losses) ? cond : TSNode{};
}

// A NaN/inf guard (`if torch.isnan(loss):`, `if not torch.isfinite(loss).all():`): a deliberate
// check whose sync the user accepts to stop a diverging run.
bool is_nan_guard(const Model& model, TSNode cond) {
  std::string t(model.text(cond));
  for (char& ch : t) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return t.find("isnan") != std::string::npos || t.find("isinf") != std::string::npos ||
         t.find("isfinite") != std::string::npos || t.find("nan") != std::string::npos;
}

class RulePFL202 final : public Rule {
 public:
  const RuleInfo& info() const override {
    static const RuleInfo i{"PFL202", "per-step-host-transfer", "host-sync", Severity::Warning,
                            "Tensor copied to the host every training step (.cpu(), .tolist(), float(t), print(t))", true, {}};
    return i;
  }
  std::vector<std::string_view> kinds() const override {
    return {"call", "string", "binary_operator", "if_statement", "elif_clause", "while_statement"};
  }

  // A copy method other than .item() (PFL201's), a builtin such as `float(t)` (no method, and a
  // name not resolved through an import), or `"...".format(t)`.
  // `math.isnan(loss)`: Python converts the tensor to a float first (SlowFast's check_nan_losses).
  static bool math_test(const CallInfo& call) {
    return call.qualname == "math.isnan" || call.qualname == "math.isinf" || call.qualname == "math.isfinite";
  }
  bool wants(const CallInfo& call) const override {
    if (call.method == "format") return ts::is(call.receiver, "string");
    if (math_test(call)) return true;
    if (call.method == "add_scalar" || call.method == "add_scalars") return true;
    return call.method.empty() ? call.qualname.empty() : call.method != "item" && is_host_copy_method(call.method);
  }

  void check(TSNode node, const Model& model, Emitter& out) const override {
    if (!ts::is(node, "call")) return check_implicit(node, model, out);
    if (const CallInfo* c = model.call(node); c && c->method == "format") return check_implicit(node, model, out);
    const CallInfo* call = model.call(node);
    if (!call || !wants(*call)) return;
    std::string message;
    std::string hint =
        "keep the tensor on the device (accumulate with `total += x.detach()`) and copy it only when logging, under "
        "`if step % log_every == 0:`";
    if (call->method == "add_scalar" || call->method == "add_scalars") {
      if (!model.step_context(node).per_step()) return;  // before the file-wide loss scan
      TSNode t = logged_tensor(model, *call, model.derived(loss_names));
      if (ts_node_is_null(t)) return;
      message = "`" + std::string(model.text(call->function)) + "` is given the tensor `" + short_text(model, t) +
                "` every training step: TensorBoard converts it to a Python number on the host, so " +
                std::string(kWaits) + " and copies the value";
      hint = "log it under a logging guard (`if step % log_every == 0:`), or accumulate on the device and log the "
             "aggregate";
    } else if (math_test(*call)) {
      if (!model.step_context(node).per_step()) return;  // before the file-wide loss scan
      const TSNode t = sole_tensor_argument(model, *call);
      if (ts_node_is_null(t)) return;
      message = "`" + std::string(model.text(call->function)) + "(" + short_text(model, t) + ")` converts a tensor to a Python float every training step: " + std::string(kWaits) +
                " and copies the value";
      hint = "test on the device (`torch.isnan(loss)`, `torch.isfinite(loss).all()`) and read the result only when "
             "logging, or check under a logging guard";
    } else if (!call->method.empty()) {
      if (call->method == "item" || !is_host_copy(model, *call)) return;
      // `model.cpu()` moves parameters (a one-off, usually at save time), not a step's tensor.
      if (looks_like_module(model, call->receiver)) return;
      if (rooted_in_other_library(model, call->receiver)) return;
      // `torch.ones((1, 3)).cpu()`: built on the host a moment ago, no device involved.
      if (built_on_host(model, call->receiver)) return;
      if (chain_has_host_copy(model, call->receiver)) return;
      // Already on the host (`target_cpu.cpu()`, a value a helper computed from host copies).
      if (model.host_derived(call->receiver)) return;
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
      const auto& losses = model.derived(loss_names);
      if (fn == "float" || fn == "int" || fn == "bool") {
        const TSNode t = sole_tensor_argument(model, *call);
        if (ts_node_is_null(t)) return;
        message = "`" + std::string(fn) + "(" + short_text(model, t) + ")` reads a tensor's value on the host every training step: " + std::string(kWaits) +
                  " and copies the value";
      } else if (fn == "print") {
        TSNode t = printed_tensor(model, *call, losses);
        if (ts_node_is_null(t)) return;
        // `if torch.min(y) < -1.: print(...)`: the print runs only when the test (reported on its
        // own) finds something wrong, not every step.
        for (TSNode p = ts::parent(node); !ts_node_is_null(p) && !ts::is(p, "function_definition");
             p = ts::parent(p))
          if ((ts::is(p, "if_statement") || ts::is(p, "elif_clause")) &&
              ts_node_start_byte(node) >= ts_node_start_byte(ts::field(p, "consequence")) &&
              ts_node_end_byte(node) <= ts_node_end_byte(ts::field(p, "consequence")) &&
              !ts_node_is_null(tested_tensor(model, p, losses)))
            return;
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
    if (!call->method.empty() && is_host_copy_method(call->method) &&
        batch_stays_on_host(model, call->receiver, sc.loop, sc.via))
      return;
    Finding& f = out.report(node, std::move(message), std::move(hint));
    f.notes.push_back(step_loop_note(model, out, sc));
  }

 private:
  // The one plain argument of a conversion (`float(x)`, `math.isnan(x)`) when it is a tensor, else null.
  static TSNode sole_tensor_argument(const Model& model, const CallInfo& call) {
    if (call.positional.size() != 1 || !call.keywords.empty() || call.star_args) return TSNode{};
    return is_tensor_like(model, call.positional.front(), model.derived(loss_names)) ? call.positional.front()
                                                                                     : TSNode{};
  }
  // Conversions Python makes without a call: a tensor formatted into a string outside print
  // (`logger.info(f"loss {loss:.3f}")`, `"%f" % loss`, `"{}".format(loss)`), a tensor used as a
  // condition (`if loss > 10:`, `if (t > 0).any():`).
  static void check_implicit(TSNode node, const Model& model, Emitter& out) {
    const bool condition = ts::is(node, "if_statement") || ts::is(node, "elif_clause") || ts::is(node, "while_statement");
    // Cheap syntactic tests first, then the step context; the climb out of print() and the
    // file-wide loss scan last.
    if (ts::is(node, "string")) {
      bool interpolates = false;
      for (TSNode part : ts::named_children(node)) interpolates = interpolates || ts::is(part, "interpolation");
      if (!interpolates) return;
    }
    if (ts::is(node, "binary_operator") && ts_node_is_null(percent_arguments(node))) return;
    const StepContext sc = model.step_context(node);
    if (!sc.per_step()) return;
    if (!condition && inside_print(model, node)) return;
    const auto& losses = model.derived(loss_names);
    if (condition) {
      TSNode t = tested_tensor(model, node, losses);
      if (ts_node_is_null(t)) return;
      // A flag tested here (`bad = torch.isnan(loss).any()` ... `if bad:`): name what it holds.
      TSNode held = ts::is(t, "identifier") ? model.reaching_value(t).value : TSNode{};
      if (!ts_node_is_null(held) && (ts::is(held, "identifier") || !is_tensor_like(model, held, losses))) held = TSNode{};
      const bool guard = is_nan_guard(model, t) || (!ts_node_is_null(held) && is_nan_guard(model, held));
      const std::string what =
          ts_node_is_null(held) ? "`" + short_text(model, t) + "`"
                                : "`" + short_text(model, t) + "` (`" + short_text(model, held) + "`, line " +
                                      std::to_string(model.source().position(ts_node_start_byte(held)).line) + ")";
      Finding& f = out.report(
          t,
          what + " tests a device tensor as a Python bool every training step: it is a sync (" +
              std::string(kWaits) + ") and a copy to the host" + (guard ? "; a NaN/inf guard is a deliberate one" : ""),
          guard ? "keep it if stopping a diverging run matters more than the sync; or check every N steps, or use "
                  "`torch.nan_to_num`/a device-side flag read when logging"
                : "keep the comparison on the device (`torch.where`, masks) or test it only when logging");
      if (guard) f.severity = Severity::Info;
      f.notes.push_back(step_loop_note(model, out, sc));
      return;
    }
    TSNode t = formatted_tensor(model, node, losses);
    if (ts_node_is_null(t)) return;
    Finding& f = out.report(node,
                            "formatting the tensor `" + short_text(model, t) +
                                "` into a string every training step copies it to the host: " + std::string(kWaits),
                            "format it only when logging (`if step % log_every == 0:`), or accumulate on the device and "
                            "format the aggregate");
    f.notes.push_back(step_loop_note(model, out, sc));
  }
};

}  // namespace

std::unique_ptr<Rule> make_pfl202() { return std::make_unique<RulePFL202>(); }

}  // namespace perflint
