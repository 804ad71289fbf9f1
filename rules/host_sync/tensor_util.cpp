// Shared host-sync judgements (see tensor_util.hpp). All tests lean towards "not a tensor": a
// missed per-step copy costs less trust than a warning on a Python float.
#include "rules/host_sync/tensor_util.hpp"

#include <algorithm>
#include <array>
#include <optional>

#include "parser/torch_names.hpp"
#include "parser/ts.hpp"

namespace perflint {
namespace {

using ts::field;
using ts::is;

TSNode unparen(TSNode n) {
  while (is(n, "parenthesized_expression") && ts_node_named_child_count(n) > 0) n = ts_node_named_child(n, 0);
  return n;
}

// The object a call, attribute or subscript works on; null for anything else.
TSNode inner(TSNode n) {
  n = unparen(n);
  if (is(n, "call")) {
    TSNode f = field(n, "function");
    return is(f, "attribute") ? field(f, "object") : TSNode{};
  }
  if (is(n, "attribute")) return field(n, "object");
  if (is(n, "subscript")) return field(n, "value");
  return TSNode{};
}

TSNode root_name(TSNode n) {
  for (int guard = 0; guard < 256 && !ts_node_is_null(n); ++guard) {
    n = unparen(n);
    if (is(n, "identifier")) return n;
    n = inner(n);
  }
  return TSNode{};
}

template <size_t N>
bool one_of(std::string_view s, const std::array<std::string_view, N>& set) {
  return std::find(set.begin(), set.end(), s) != set.end();
}

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// Tensor methods whose result is still a tensor on the same device.
constexpr std::array<std::string_view, 36> kTensorMethods = {
    "sum",   "mean",    "max",    "min",     "norm",    "detach",   "argmax",  "argmin", "abs",
    "float", "double",  "half",   "bfloat16", "long",   "int",      "bool",    "clone",  "squeeze",
    "view",  "reshape", "flatten", "sqrt",   "exp",     "log",      "pow",     "std",    "var",
    "eq",    "ne",      "gt",     "lt",      "softmax", "sigmoid",  "amax",    "amin",   "prod"};

// Methods that do not read data (metadata only) or that are not tensor-valued.
constexpr std::array<std::string_view, 14> kMetadataMethods = {
    "size", "dim", "numel", "nelement", "element_size", "is_contiguous", "data_ptr",
    "get_device", "stride", "ndimension", "type", "__len__", "storage_offset", "is_floating_point"};


bool is_cpu_literal(const Model& model, TSNode n) {
  if (ts_node_is_null(n)) return false;
  n = unparen(n);
  if (is(n, "call") && model.qualname(field(n, "function")) == "torch.device") {
    TSNode args = field(n, "arguments");
    if (ts_node_named_child_count(args) == 0) return false;
    n = ts_node_named_child(args, 0);
  }
  if (!is(n, "string")) return false;
  const Value v = model.evaluate(n);
  return v.kind == Value::Kind::String && v.s == "cpu";
}

}  // namespace

std::vector<std::string> loss_names(const Model& model) {
  std::vector<std::string> out;
  auto add = [&](TSNode n) {
    n = unparen(n);
    if (is(n, "identifier")) {
      std::string s(model.text(n));
      if (std::find(out.begin(), out.end(), s) == out.end()) out.push_back(std::move(s));
    }
  };
  for (const auto& c : model.calls()) {
    if (c.method == "backward") {
      TSNode r = unparen(c.receiver);
      const CallInfo* scale = is(r, "call") ? model.call(r) : nullptr;
      if (!c.positional.empty()) add(c.positional.front());  // accelerator.backward(loss)
      else if (scale && scale->method == "scale" && !scale->positional.empty())
        add(scale->positional.front());  // scaler.scale(loss).backward()
      else add(r);                        // loss.backward()
    } else if (c.qualname == "torch.autograd.backward" && !c.positional.empty()) {
      add(c.positional.front());
    }
  }
  // The loss's additive parts are tensors of its graph: `loss = classification_loss + regression_loss`
  // (retinanet's `float(classification_loss)` in the step's print, held-out round 12). Not a part that
  // is ever bound to a number (`reg = 0.0` when the penalty is off).
  const auto numeric = [&](TSNode v) {
    v = unparen(v);
    return is(v, "integer") || is(v, "float") || is(v, "unary_operator") || is(v, "none");
  };
  const size_t backward_targets = out.size();
  for (size_t i = 0; i < backward_targets; ++i)
    for (TSNode value : model.assigned_values(out[i])) {
      std::vector<std::pair<TSNode, int>> todo{{value, 0}};
      while (!todo.empty()) {
        auto [n, depth] = todo.back();
        todo.pop_back();
        n = unparen(n);
        if (depth > 3 || ts_node_is_null(n)) continue;
        if (is(n, "binary_operator")) {
          const std::string_view op = ts::kind(ts::field(n, "operator"));
          if (op != "+" && op != "-") continue;
          todo.emplace_back(ts::field(n, "left"), depth + 1);
          todo.emplace_back(ts::field(n, "right"), depth + 1);
        } else if (depth > 0 && is(n, "identifier") && model.text(n) != out[i]) {
          const std::vector<TSNode> values = model.assigned_values(model.text(n));
          if (std::none_of(values.begin(), values.end(), numeric)) add(n);
        }
      }
    }
  return out;
}

const CallInfo* default_device_call(const Model& model) {
  for (const auto& c : model.calls()) {
    if (c.qualname == "torch.set_default_device") {
      const Value v = model.evaluate(c.arg("device", 0));
      if (!v.known() || (v.kind == Value::Kind::String && v.s.starts_with("cuda")) || v.kind == Value::Kind::Int)
        return &c;
    } else if (c.qualname == "torch.set_default_tensor_type") {
      TSNode t = c.arg("t", 0);
      const Value v = model.evaluate(t);
      if (v.kind == Value::Kind::String ? v.s.find("cuda") != std::string::npos
                                        : model.text(t).find("cuda") != std::string_view::npos ||
                                              !model.qualname(t).starts_with("torch."))
        return &c;
    }
  }
  return nullptr;
}

bool factories_may_build_on_gpu(const Model& model) {
  return model.derived(default_device_call) != nullptr || model.default_device_from_step();
}

bool rooted_in_other_library(const Model& model, TSNode expr) {
  TSNode r = root_name(expr);
  if (ts_node_is_null(r)) return false;
  const std::string q = model.qualname(r);
  return !q.empty() && q != "torch" && !starts_with(q, "torch.");
}

bool is_host_copy_method(std::string_view method) {
  return method == "cpu" || method == "tolist" || method == "item" || method == "numpy" || method == "to";
}

bool is_host_copy(const Model& model, const CallInfo& call) {
  if (!is_host_copy_method(call.method) || ts_node_is_null(call.receiver)) return false;
  if (call.method == "cpu" || call.method == "tolist" || call.method == "item") return true;
  if (call.method == "numpy") {
    const Argument* force = call.keyword("force");
    return force && model.evaluate(force->value).truthy() == true;
  }
  if (call.method == "to") {
    TSNode dev = call.arg("device", 0);
    return is_cpu_literal(model, dev);
  }
  return false;
}

bool chain_has_host_copy(const Model& model, TSNode expr) {
  for (TSNode n = unparen(expr); !ts_node_is_null(n); n = unparen(inner(n))) {
    if (!is(n, "call")) continue;
    const CallInfo* c = model.call(n);
    if (c && is_host_copy(model, *c)) return true;
    // `.numpy()` only works on host tensors: whatever it reads is already there.
    if (c && c->method == "numpy") return true;
  }
  return false;
}

bool rooted_in_host_copy(const Model& model, TSNode expr) {
  TSNode root = unparen(expr);
  for (TSNode n = root; !ts_node_is_null(n); n = inner(n)) root = n;
  if (!is(root, "identifier")) return false;
  // The binding that reaches the use, when one certainly does (Pointnet's train_partseg.py binds
  // `correct` to a NumPy sum in its evaluation loop too: held-out round 20).
  if (const TSNode v = model.reaching_value(root).value; !ts_node_is_null(v)) return chain_has_host_copy(model, v);
  const std::string_view name = model.text(root);
  if (!model.only_plainly_assigned(root, name)) return false;
  const std::vector<TSNode> values = model.visible_values(root, name);
  return !values.empty() &&
         std::all_of(values.begin(), values.end(), [&](TSNode v) { return chain_has_host_copy(model, v); });
}

bool is_device_tensor_name(const Model& model, TSNode ident) {
  ident = unparen(ident);
  if (!is(ident, "identifier")) return false;
  const std::string_view name = model.text(ident);
  if (!model.only_plainly_assigned(ident, name)) return false;
  // Arithmetic that has the name itself among its operands: a tensor stays where it is.
  const auto updates_itself = [&](TSNode v) {
    std::vector<TSNode> todo{v};
    for (int budget = 0; !todo.empty() && budget < 64; ++budget) {
      TSNode n = unparen(todo.back());
      todo.pop_back();
      if (is(n, "identifier") && model.text(n) == name) return true;
      if (is(n, "binary_operator") || is(n, "unary_operator"))
        for (TSNode c : ts::named_children(n)) todo.push_back(c);
    }
    return false;
  };
  const auto placed_on_gpu = [&](TSNode v) {
    v = unparen(v);
    const CallInfo* c = is(v, "call") ? model.call(v) : nullptr;
    if (!c) return false;
    if (c->method == "cuda") return true;
    const std::string_view q = c->qualname;
    const bool factory = starts_with(q, "torch.") && (!torch_non_tensor(q) || q == "torch.tensor" || q == "torch.as_tensor");
    if (!factory) return false;
    const Argument* d = c->keyword("device");
    if (!d) return false;
    const Value dv = model.evaluate(d->value);
    if (dv.kind == Value::Kind::String) return starts_with(dv.s, "cuda");
    return !dv.known() && !is_cpu_literal(model, d->value) && !is(unparen(d->value), "string");
  };
  bool placed = false;
  for (TSNode v : model.visible_values(ident, name)) {
    if (placed_on_gpu(v)) placed = true;
    else if (!updates_itself(v)) return false;
  }
  return placed;
}

bool identity_or_membership_test(TSNode cond) {
  bool identity = false;
  ts::walk(cond, [&](TSNode n) {
    if (identity) return false;
    if (is(n, "comparison_operator"))
      for (uint32_t i = 0; i < ts_node_child_count(n); ++i) {
        const std::string_view k = ts::kind(ts_node_child(n, i));
        if (k == "is" || k == "in" || k == "is not" || k == "not in") identity = true;
      }
    return !identity;
  });
  return identity;
}

namespace {

bool clip_grad_norm(std::string_view q) {
  return q == "torch.nn.utils.clip_grad_norm_" || q == "torch.nn.utils.clip_grad_norm" ||
         q == "torch.nn.utils.clip_grad.clip_grad_norm_";
}

// A call that may bind a device value (bound_to_device_value's cheap first test).
bool device_value_candidate(const Model& model, TSNode v) {
  v = unparen(v);
  if (ts_node_is_null(v) || !is(v, "call")) return false;
  const CallInfo* c = model.call(v);
  return c && (clip_grad_norm(c->qualname) || (!c->method.empty() && one_of(c->method, kTensorMethods)));
}

// What a name is bound to where it is read, when that is certainly a tensor on the device that the
// step computed: the gradient norm `clip_grad_norm_` returns (`norm = clip_grad_norm_(...)`), or
// tensor methods on the loss (`l = loss.detach()`, `avg = loss.mean()`), no host copy on the way.
// Other bindings (a factory without a device, a library's value) are not judged here.
bool bound_to_device_value(const Model& model, TSNode use, const std::vector<std::string>& losses) {
  // Cheap first: some assignment of the name is such a call (reaching_value walks statements).
  const std::vector<TSNode> values = model.assigned_values(model.text(use));
  if (std::none_of(values.begin(), values.end(), [&](TSNode v) { return device_value_candidate(model, v); }))
    return false;
  const Model::Reaching r = model.reaching_value(use);
  TSNode v = unparen(r.value);
  if (ts_node_is_null(v) || !is(v, "call")) return false;
  const CallInfo* c = model.call(v);
  if (!c) return false;
  if (clip_grad_norm(c->qualname)) return true;
  if (chain_has_host_copy(model, v)) return false;
  for (TSNode n = v; !ts_node_is_null(n);) {
    n = unparen(n);
    if (is(n, "identifier")) return std::find(losses.begin(), losses.end(), model.text(n)) != losses.end();
    if (!is(n, "call")) return false;
    const CallInfo* m = model.call(n);
    if (!m || m->method.empty() || !one_of(m->method, kTensorMethods)) return false;
    n = m->receiver;
  }
  return false;
}

// A torch function whose result is a tensor computed from its arguments (`torch.sum(a == b)`,
// `torch.mean(x)`), as is_tensor_like reads a direct call; not a factory making a host tensor
// (`torch.zeros(n)`, `torch.arange(k)` without device=: where it lives is not the step's).
bool torch_tensor_result(const Model& model, TSNode v) {
  v = unparen(v);
  if (ts_node_is_null(v) || !is(v, "call")) return false;
  const CallInfo* c = model.call(v);
  if (!c || !starts_with(c->qualname, "torch.") || torch_non_tensor(c->qualname)) return false;
  // Factories and loaders: host tensors unless told otherwise (`torch.from_file(path, ...)` reading a
  // data shard's header: modded-nanogpt's loader; `torch.tensor(ids)`, `torch.load(f)`).
  if (torch_host_factory(c->qualname)) return false;
  return !c->positional.empty() || !c->keywords.empty();
}

}  // namespace

namespace {

// A comparison, a boolean operation, or a call that tests values (`torch.isnan(x)`, `x.any()`,
// `t.isfinite().all()`): what a flag is bound to before `if flag:`. Whether its operands are device
// tensors is is_tensor_like's question.
bool is_tensor_test(const Model& model, TSNode v) {
  if (ts_node_is_null(v)) return false;
  const std::string_view k = ts::kind(v);
  // (Not `not t`, nor `a and b`: those convert to a Python bool where they are computed, and the
  // name holds a bool.)
  if (k == "comparison_operator") return !identity_or_membership_test(v);
  if (k != "call") return false;
  const CallInfo* c = model.call(v);
  if (!c) return false;
  for (std::string_view test : {"isnan", "isinf", "isfinite", "isposinf", "isneginf", "any", "all"})
    if (c->method == test || c->qualname == std::string("torch.").append(test)) return true;
  return false;
}

}  // namespace

namespace {
bool tensor_like_from(const Model& model, TSNode expr, const std::vector<std::string>& losses, int start);
}  // namespace

namespace {

// `x.item()`, `x.tolist()`, `float(x)`, `int(x)`: a Python value read back from a tensor.
bool host_read_back(const Model& model, TSNode v) {
  if (!is(v, "call")) return false;
  const CallInfo* c = model.call(v);
  if (!c) return false;
  if (!ts_node_is_null(c->receiver) && (c->method == "item" || c->method == "tolist")) return true;
  const std::string_view f = model.text(c->function);
  return is(c->function, "identifier") && (f == "float" || f == "int" || f == "bool");
}

}  // namespace

bool is_tensor_like(const Model& model, TSNode expr, const std::vector<std::string>& losses) {
  return tensor_like_from(model, expr, losses, 0);
}

namespace {

// is_tensor_like from depth `start`: a step argument followed into the caller keeps counting, so a
// function that calls itself with its own parameter (or a damaged file that seems to) ends.
bool tensor_like_from(const Model& model, TSNode expr, const std::vector<std::string>& losses, int start) {
  // Bounded iterative descent over operators; chains are followed by chain_has_host_copy.
  // `strict`: under a name's binding (below), a tensor method counts only on a tensor-like receiver.
  struct Item {
    TSNode node;
    int depth;
    bool strict;
  };
  std::vector<Item> todo{{expr, start, false}};
  while (!todo.empty()) {
    auto [n, depth, strict] = todo.back();
    todo.pop_back();
    n = unparen(n);
    if (ts_node_is_null(n) || depth > 16) continue;
    const std::string_view k = ts::kind(n);
    if (k == "identifier") {
      // What the name is bound to where it is read (below): its assignments are looked at once, and
      // reaching_value walks back over the statements at most once, only when some assignment has
      // the form asked about.
      const TSNode name = n;  // (captured below: clang before 16 cannot capture a structured binding)
      std::vector<TSNode> values;
      if (depth < 4) values = model.assigned_values(model.text(name));
      std::optional<TSNode> reached;
      const auto bound_to = [&](auto&& form) {
        if (std::none_of(values.begin(), values.end(), [&](TSNode v) { return form(unparen(v)); })) return false;
        if (!reached) reached = unparen(model.reaching_value(name).value);
        return static_cast<bool>(form(*reached));
      };
      // A value already on the host (`loss = loss.item()` a line above, then `math.isfinite(loss)`:
      // SparK, held-out round 19).
      if (bound_to([&](TSNode v) { return host_read_back(model, v); })) continue;
      // Computed on the host from host copies (a loss a helper builds from `.to('cpu')` copies).
      if (depth < 4 && model.host_derived(n)) continue;
      if (std::find(losses.begin(), losses.end(), model.text(n)) != losses.end()) return true;
      if (is_device_tensor_name(model, n)) return true;
      if (depth < 4 && bound_to_device_value(model, n, losses)) return true;
      // The loss another file's step hands over (`misc.check_nan_losses(loss)`).
      if (model.bound_to_step_loss(n)) return true;
      // A test of tensors (`bad = torch.isnan(loss).any()`, `big = loss > 10`, `ok = not
      // torch.isfinite(grad_norm)`): the test's operands decide.
      if (bound_to([&](TSNode v) { return is_tensor_test(model, v); })) todo.push_back({*reached, depth + 1, strict});
      // A torch function's tensor (`corr = torch.sum(SR == GT)` then `float(corr)`): read as the call
      // itself would be.
      if (bound_to([&](TSNode v) { return torch_tensor_result(model, v); })) todo.push_back({*reached, depth + 1, strict});
      // A parameter of a function the step calls: what every per-step call binds to it
      // (`log_metrics(loss, step)` makes `value` the loss inside log_metrics).
      if (depth < 4) {
        const std::vector<TSNode> bound = model.step_arguments(n);
        bool all = !bound.empty();
        for (TSNode b : bound) all = all && tensor_like_from(model, b, losses, depth + 1);
        if (all) return true;
      }
      // Arithmetic or tensor methods on tensors (`accuracy = (torch.max(scores, 1)[1] ==
      // labels).float().sum() / n`, then `"{}".format(accuracy)`: honk, held-out round 39): read as its
      // value, strictly (`(pred == y).mean()` on NumPy arrays is not).
      const auto arithmetic = [&](TSNode v) {
        if (is(v, "binary_operator")) return true;
        const CallInfo* c = is(v, "call") ? model.call(v) : nullptr;
        return c && c->qualname.empty() && !c->method.empty() && one_of(c->method, kTensorMethods);
      };
      if (bound_to(arithmetic)) todo.push_back({*reached, depth + 1, true});
    } else if (k == "call") {
      if (chain_has_host_copy(model, n)) continue;
      const CallInfo* c = model.call(n);
      if (!c) continue;
      if (!c->qualname.empty()) {
        if (starts_with(c->qualname, "torch.") && !torch_non_tensor(c->qualname)) return true;
        // A helper that returns a torch operation's result (`util.masked_mape(pred, real, 0.0)`,
        // Graph-WaveNet; held-out round 29): a device tensor when one of its arguments is.
        if (depth < 4 && model.returns_tensor(*c)) {
          for (TSNode a : c->positional) todo.push_back({a, depth + 1, strict});
          for (const Argument& a : c->keywords) todo.push_back({a.value, depth + 1, strict});
        }
        continue;
      }
      if (c->method.empty() || one_of(c->method, kMetadataMethods)) continue;
      if (rooted_in_other_library(model, c->receiver)) continue;
      // A method on a host value (`iou_mask.sum()` where iou_mask compares a NumPy IoU: YOLOv2's
      // gt_creator, held-out round 28): no device tensor.
      if (one_of(c->method, kTensorMethods) && !strict) return !(depth < 4 && model.host_derived(n));
      if (strict && depth < 4 && model.host_derived(n)) continue;
      todo.push_back({c->receiver, depth + 1, strict});  // other methods on a tensor: `loss.to(x)`
    } else if (k == "attribute") {
      const std::string_view attr = model.text(field(n, "attribute"));
      if (attr == "data" || attr == "grad" || attr == "T" || attr == "mT" || attr == "real")
        todo.push_back({field(n, "object"), depth + 1, strict});
    } else if (k == "subscript") {
      todo.push_back({field(n, "value"), depth + 1, strict});
    } else if (k == "binary_operator" || k == "comparison_operator" || k == "boolean_operator" ||
               k == "unary_operator" || k == "not_operator") {
      for (TSNode c : ts::named_children(n)) todo.push_back({c, depth + 1, strict});
    }
  }
  return false;
}

}  // namespace

namespace {

// True when every tensor `e` computes from is a batch that another file's step hands to this helper
// before copying it (XLM's `truncate(x, lengths, ...)` and `concat_batches(...)` run on the loader's
// batch, then `to_cuda(x, y, lengths)`): such a parameter, or a local computed from one by
// arithmetic, comparisons, indexing and tensor methods other than a device move (`x1.new(n, bs)`,
// `len1 + len2`). Anything else (a number, a call of a function, a global, a device move) is not known
// to be a host tensor.
bool host_batch_derived(const Model& model, TSNode e, int depth, std::vector<std::pair<uint32_t, std::string_view>>& resolving) {
  e = unparen(e);
  if (ts_node_is_null(e) || depth > 4) return false;
  if (is(e, "identifier")) {
    if (model.is_batch_expression(e) || model.copied_later(e)) return true;
    // The name in its function (the same name in a caller is another variable).
    uint32_t scope = 0;
    for (TSNode p = ts::parent(e); !ts_node_is_null(p); p = ts::parent(p))
      if (is(p, "function_definition")) {
        scope = ts_node_start_byte(p);
        break;
      }
    const std::pair<uint32_t, std::string_view> name{scope, model.text(e)};
    // Met again while its own values are judged (`lengths = lengths[idx]`): it keeps what the others say.
    if (std::find(resolving.begin(), resolving.end(), name) != resolving.end()) return true;
    if (depth >= 3) return false;
    resolving.push_back(name);
    // A parameter of a helper that this file's step calls with host tensors only (XLM's
    // `self.mask_out(x, lengths)` before `to_cuda`), and whatever the helper assigns it again.
    std::vector<TSNode> values;
    if (!model.run_by_other_file(e) && !model.parameter_rebound_opaquely(e)) values = model.step_arguments(e, true);
    const bool parameter = !values.empty();
    if (model.only_plainly_assigned(e, name.second) || parameter) {
      for (TSNode v : model.visible_values(e, name.second)) values.push_back(v);
    } else {
      values.clear();
    }
    const bool host = !values.empty() && std::all_of(values.begin(), values.end(), [&](TSNode v) {
      return host_batch_derived(model, v, depth + 1, resolving);
    });
    resolving.pop_back();
    return host;
  }
  // Arithmetic and comparisons with a host batch tensor stay on the host: PyTorch refuses to mix a CPU
  // tensor of one or more dimensions (a batch) with a CUDA one, so the other side is a number or a
  // host tensor too (`x == pad_index`, `len1 + len2`).
  if (is(e, "binary_operator") || is(e, "comparison_operator")) {
    for (TSNode c : ts::named_children(e))
      if (host_batch_derived(model, c, depth + 1, resolving)) return true;
    return false;
  }
  if (is(e, "unary_operator")) return host_batch_derived(model, field(e, "argument"), depth + 1, resolving);
  if (is(e, "subscript") || is(e, "attribute")) return host_batch_derived(model, inner(e), depth, resolving);
  if (is(e, "call")) {
    const CallInfo* c = model.call(e);
    if (!c) return false;
    // NumPy's values live on the host; so do torch's factories without device= (while no default
    // device says otherwise): `torch.from_numpy(mask)`, `torch.zeros(n, dtype=torch.uint8)`.
    const TSNode r = root_name(e);
    if (!ts_node_is_null(r) && (model.qualname(r) == "numpy" || starts_with(model.qualname(r), "numpy."))) return true;
    if (starts_with(c->qualname, "torch.") && !c->keyword("device") && !factories_may_build_on_gpu(model)) {
      const std::string_view f = std::string_view(c->qualname).substr(6);
      for (std::string_view h : {"from_numpy", "zeros", "ones", "empty", "full", "arange", "randperm", "rand", "randn",
                                 "randint", "LongTensor", "FloatTensor", "ByteTensor", "BoolTensor", "IntTensor"})
        if (f == h) return true;
    }
    if (ts_node_is_null(c->receiver)) return false;
    if (c->method == "cuda" || c->method == "to" || c->method == "pin_memory" || c->method == "type") return false;
    return host_batch_derived(model, c->receiver, depth, resolving);
  }
  return false;
}

}  // namespace

namespace {

// The nearest statement in `loop` before `use` (an identifier) that binds its name, when it is
// `a, name, ... = other` or `name = other[...]`/`name = other` with `other` a plain name: that
// right-hand side. Null otherwise (no such statement, or the name bound by anything else first).
TSNode unpacked_from(const Model& model, TSNode use, TSNode loop) {
  const std::string_view name = model.text(use);
  TSNode stmt = use;
  while (!ts_node_is_null(stmt) && !is(ts::parent(stmt), "block")) stmt = ts::parent(stmt);
  for (int up = 0; up < 16 && !ts_node_is_null(stmt); ++up) {
    for (TSNode s = ts_node_prev_named_sibling(stmt); !ts_node_is_null(s); s = ts_node_prev_named_sibling(s)) {
      if (!is(s, "expression_statement") || ts_node_named_child_count(s) != 1) continue;
      const TSNode a = ts_node_named_child(s, 0);
      if (!is(a, "assignment")) continue;
      const TSNode left = field(a, "left");
      bool binds = false;
      ts::walk(left, [&](TSNode n) {
        if (is(n, "identifier") && model.text(n) == name) binds = true;
        return !binds;
      });
      if (!binds) continue;
      TSNode right = unparen(field(a, "right"));
      const bool unpacks = is(left, "pattern_list") || is(left, "tuple_pattern");
      if (is(right, "subscript") && !unpacks) right = unparen(field(right, "value"));
      return is(right, "identifier") && model.text(right) != name ? right : TSNode{};
    }
    // Out to the statement that holds this block, while still inside the loop's body.
    TSNode holder = ts::parent(ts::parent(stmt));
    if (ts_node_is_null(holder) || ts::same(holder, loop) || ts_node_start_byte(holder) < ts_node_start_byte(loop)) return {};
    while (!ts_node_is_null(holder) && !is(ts::parent(holder), "block")) holder = ts::parent(holder);
    if (ts_node_is_null(holder) || ts_node_start_byte(holder) <= ts_node_start_byte(loop)) return {};
    stmt = holder;
  }
  return {};
}

}  // namespace

bool batch_stays_on_host(const Model& model, TSNode expr, TSNode loop, TSNode via) {
  // A device move along the chain itself (`y.to(device).tolist()`) settles it.
  for (TSNode n = unparen(expr); !ts_node_is_null(n); n = unparen(inner(n))) {
    if (!is(n, "call")) continue;
    const CallInfo* c = model.call(n);
    if (c && (c->method == "cuda" || (c->method == "to" && !is_host_copy(model, *c)))) return false;
  }
  // A host tensor that this function copies to the GPU later; in a helper another file's step calls
  // with its batch (no loop of this file runs it), what it computes from that batch.
  std::vector<std::pair<uint32_t, std::string_view>> resolving;
  if (const TSNode r = root_name(expr); !ts_node_is_null(r) && model.copied_later(r)) return true;
  // The variable of a comprehension around the use, over an element of what it iterates
  // (`[label.tolist() for label in targets]`: YOLOv2's train.py, held-out round 28): that iterable.
  if (const TSNode r = root_name(expr); !ts_node_is_null(r)) {
    const std::string_view name = model.text(r);
    for (TSNode p = ts::parent(r); !ts_node_is_null(p) && !is(p, "function_definition"); p = ts::parent(p)) {
      const std::string_view k = ts::kind(p);
      if (k != "list_comprehension" && k != "generator_expression" && k != "set_comprehension") continue;
      for (TSNode clause : ts::named_children(p)) {
        if (!is(clause, "for_in_clause")) continue;
        const TSNode left = field(clause, "left");
        const TSNode right = field(clause, "right");
        const bool inside = ts_node_start_byte(r) >= ts_node_start_byte(right) && ts_node_end_byte(r) <= ts_node_end_byte(right);
        if (is(left, "identifier") && model.text(left) == name && !inside) return batch_stays_on_host(model, right, loop, via);
      }
    }
  }
  if (ts_node_is_null(loop)) return host_batch_derived(model, expr, 0, resolving);
  TSNode root = root_name(expr);
  if (ts_node_is_null(root) || ts_node_is_null(loop) || !model.is_batch_expression(root)) return false;
  const std::string_view name = model.text(root);
  const uint32_t lo = ts_node_start_byte(loop), hi = ts_node_end_byte(loop);
  // A parameter of a helper the loop calls (`target.to('cpu')` in a loss function handed `y` after
  // `y = y.to(device)`: Prototypical Networks, held-out round 27): what the loop's calls pass, where
  // they pass it.
  if ((ts_node_start_byte(root) < lo || ts_node_start_byte(root) >= hi) && !ts_node_is_null(via)) {
    const std::vector<TSNode> passed = model.step_arguments(root);
    const bool in_loop = !passed.empty() && std::all_of(passed.begin(), passed.end(), [&](TSNode a) {
      return ts_node_start_byte(a) >= lo && ts_node_end_byte(a) <= hi;
    });
    if (in_loop)
      return std::all_of(passed.begin(), passed.end(),
                         [&](TSNode a) { return batch_stays_on_host(model, a, loop); });
  }
  // Unpacked (or taken) from another name of the batch in the loop before the use (`input_ids, mask,
  // label_ids = batch` after `batch = tuple(t.to(device) for t in batch)`: the BERT fine-tuning
  // loops, held-out round 28): where that name stands at the unpacking.
  if (ts_node_start_byte(root) >= lo && ts_node_start_byte(root) < hi) {
    if (const TSNode from = unpacked_from(model, root, loop); !ts_node_is_null(from))
      return batch_stays_on_host(model, from, loop);
  }
  // Rebound from a device move inside the loop: `x = x.to(device)`, `x, y = x.cuda(), y.cuda()`,
  // `batch = {k: v.to(device) for k, v in batch.items()}`.
  // The calls in the loop (the model's calls are in document order).
  const auto& calls = model.calls();
  const auto first = std::lower_bound(calls.begin(), calls.end(), lo,
                                      [](const CallInfo& c, uint32_t at) { return ts_node_start_byte(c.node) < at; });
  // Only a rebinding before the use counts: the loop binds the batch afresh each iteration, so a copy
  // later in the body (`assert images.max().item() <= 1` first, then `images = images.to(device)`:
  // minimal-diffusion, held-out round 16) leaves the use on the host batch.
  const uint32_t use = ts_node_start_byte(expr);
  for (auto it = first; it != calls.end() && ts_node_start_byte(it->node) < hi; ++it) {
    const CallInfo& c = *it;
    if (c.method != "to" && c.method != "cuda") continue;
    if (ts_node_end_byte(c.node) > hi) continue;
    TSNode a = ts::parent(c.node);
    for (int up = 0; up < 8 && !ts_node_is_null(a) && !is(a, "assignment"); ++up) a = ts::parent(a);
    if (!is(a, "assignment")) continue;
    if (ts_node_start_byte(a) > use) continue;
    bool binds = false;
    ts::walk(field(a, "left"), [&](TSNode n) {
      if (is(n, "identifier") && model.text(n) == name) binds = true;
      return !binds;
    });
    if (binds) return false;
  }
  return true;
}


bool looks_like_module(const Model& model, TSNode expr) {
  TSNode n = unparen(expr);
  std::string_view name;
  if (is(n, "identifier")) name = model.text(n);
  else if (is(n, "attribute")) name = model.text(field(n, "attribute"));
  else return false;
  if (name == "self") return true;
  // A last word that names a result: `policy_loss` (recurrent-ppo, held-out round 18), `model_output`,
  // `critic_values` are tensors, whatever module their first word names.
  if (const size_t us = name.find_last_of('_'); us != std::string_view::npos)
    for (std::string_view w : {"loss", "losses", "out", "output", "outputs", "logits", "pred", "preds", "value",
                               "values", "score", "scores", "prob", "probs", "grad", "grads", "acc", "entropy"})
      if (name.substr(us + 1) == w) return false;
  std::string lower(name);
  for (auto& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  for (std::string_view w : {"model", "net", "module", "encoder", "decoder", "backbone", "head", "classifier",
                             "teacher", "student", "ema", "critic", "actor", "policy", "generator",
                             "discriminator", "layer", "block"})
    if (lower.find(w) != std::string::npos) return true;
  return false;
}

std::string short_text(const Model& model, TSNode node, size_t max) {
  std::string out;
  bool space = false;
  for (char ch : model.text(node)) {
    if (ch == '\n' || ch == '\r' || ch == '\t' || ch == ' ') {
      space = true;
      continue;
    }
    if (space && !out.empty()) out += ' ';
    space = false;
    out += ch;
  }
  if (out.size() > max) out = out.substr(0, max) + "...";
  return out;
}

Note step_loop_note(const Model& model, const Emitter& out, const StepContext& sc) {
  if (ts_node_is_null(sc.loop) && !sc.reached_from.empty()) {
    // Run by a step in another file: the path of calls from there.
    std::string path = "runs every step: " + sc.reached_from;
    std::optional<Span> at;
    if (!ts_node_is_null(sc.via)) {
      const Span call = out.span(ts_node_start_byte(sc.via), ts_node_start_byte(sc.via));
      path += " → line " + std::to_string(call.start.line);
      at = call;
    }
    return Note{path + " → here", at};
  }
  Note n = step_loop_note(model, out, sc.loop);
  if (ts_node_is_null(sc.via)) return n;
  // Reached through a call: the path, from the loop's call to here.
  const Span call = out.span(ts_node_start_byte(sc.via), ts_node_start_byte(sc.via));
  return Note{"runs every step: called from the training loop at line " + std::to_string(call.start.line) + " (" +
                  std::string(model.text(sc.via).substr(0, std::min<size_t>(60, model.text(sc.via).find('\n')))) +
                  "), " + n.message.substr(4),
              call};
}

Note step_loop_note(const Model& model, const Emitter& out, TSNode loop) {
  const uint32_t start = ts_node_start_byte(loop);
  const std::string_view text = model.source().text();
  uint32_t end = start;
  while (end < ts_node_end_byte(loop) && end < text.size() && text[end] != '\n' && text[end] != '\r') ++end;
  Span sp = out.span(start, end);
  std::string message = "the training loop starts at line " + std::to_string(sp.start.line);
  // Its only step is under a default-off flag: say that the flag is assumed given.
  if (const std::string sw = model.assumed_switch(loop); !sw.empty())
    message += "; it runs only under " + sw + ", whose flag is off by default: assumed given, as the file trains only with it";
  return Note{message, sp};
}

}  // namespace perflint
