// Semantic model of one Python file, part: values computed on the host. A tensor copied to the host
// (`.cpu()`, `.to("cpu")`, `.numpy()`, `.item()`), and everything computed from such a copy without a
// move back to the GPU, lives in host memory: reading it (`.item()`, `float(x)`, `print(x)`) waits for
// nothing. Model::host_derived answers that for an expression, across names, same-file helpers and,
// through FunctionSummary::returned_host, the returns of other files' functions.
#include "parser/model/impl.hpp"
#include "parser/torch_names.hpp"

namespace perflint {

namespace {

// Names followed to their bindings and functions followed to their returns, at most; and the
// expressions looked at for one question (a file of long chains of helpers stays linear).
constexpr int kHostDepth = 16;
constexpr int kHostBudget = 4000;

bool host_target(const Value& v) { return v.kind == Value::Kind::String && (v.s == "cpu" || v.s.starts_with("cpu:")); }

}  // namespace

bool Model::Impl::to_cpu(const CallInfo& c) const {
  if (c.method != "to") return false;
  const Argument* kw = c.keyword("device");
  const TSNode where = kw ? kw->value : c.positional.empty() ? TSNode{} : c.positional.front();
  return !null(where) && host_target(eval(where, function_containing(c.node), 0));
}

bool Model::Impl::host_copy_call(const CallInfo& c) const {
  if (null(c.receiver)) return false;
  if (c.method == "cpu" || c.method == "numpy" || c.method == "item" || c.method == "tolist") return true;
  return to_cpu(c);
}

bool Model::Impl::moves_nothing_to_device(size_t fi) const {
  for (size_t ci : calls_in(fi)) {
    const CallInfo& c = calls[ci];
    if (moves_to_device(c)) return false;
    // A factory told where to build (`torch.zeros(n, device=x.device)`): maybe on the GPU.
    if (const Argument* d = c.keyword("device"); d && !host_target(eval(d->value, functions[fi].node, 0))) return false;
  }
  return true;
}

bool Model::Impl::all_host(const std::vector<TSNode>& values, int depth) const {
  if (values.empty()) return false;
  for (TSNode v : values)
    if (!host_derived(v, depth)) return false;
  return true;
}

bool Model::Impl::returns_host(size_t fi, int index, int depth) const {
  if (depth > kHostDepth) return false;
  bool any = false;
  for (TSNode ret : returns_of(functions[fi].node)) {
    const TSNode v = unparenthesized(ts_node_named_child(ret, 0));
    if (null(v) || is(v, "none")) continue;  // an early exit
    const bool tuple = is(v, "expression_list") || is(v, "tuple");
    if (tuple != (index >= 0)) return false;  // returns of another shape: not known
    const TSNode e = tuple ? ts_node_named_child(v, static_cast<uint32_t>(index)) : v;
    if (null(e) || !host_derived(e, depth)) return false;
    any = true;
  }
  return any;
}

bool Model::Impl::call_returns_host(const CallInfo& c, int index, int depth) const {
  if (depth > kHostDepth) return false;
  const size_t ci = static_cast<size_t>(&c - calls.data());
  if (ci < call_callees.size() && call_callees[ci].size() == 1) return returns_host(call_callees[ci].front(), index, depth + 1);
  if (!project || (ci < call_callees.size() && !call_callees[ci].empty())) return false;
  const std::string target = outgoing_target(c);
  return !target.empty() && project->returned_host(src.path(), target, index);
}

bool Model::Impl::host_derived(TSNode e, int depth) const {
  e = unparenthesized(e);
  if (null(e) || depth > kHostDepth || ++host_steps_ > kHostBudget) return false;
  const std::string_view k = ts::kind(e);
  if (k == "call") {
    const CallInfo* c = call_info(e);
    if (!c) return false;
    if (host_copy_call(*c)) return true;
    if (moves_to_device(*c)) return false;
    if (const Argument* d = c->keyword("device"); d && !host_target(eval(d->value, function_containing(e), 0)))
      return false;
    const std::string_view q = c->qualname;
    // NumPy's results live on the host whatever they are given.
    if (q.starts_with("numpy.")) return true;
    // A torch function over host values only (`torch.unique(target_cpu)`, `F.log_softmax(-dists, 1)`;
    // not `torch.clamp(scale * action, -m, m)`, where a Python float meets a device tensor).
    if (q.starts_with("torch.")) return all_host(c->positional, depth);
    // A Python number read from anything (`float(x)`, `len(xs)`).
    if (is(c->function, "identifier") && q.empty()) {
      const std::string_view f = t(c->function);
      if (f == "float" || f == "int" || f == "bool" || f == "len") return true;
    }
    // A tensor method on a host tensor (`target_cpu.eq(c).sum()`, `log_p_y.max(2)`).
    if (!c->method.empty() && !null(c->receiver) && q.empty() && host_derived(c->receiver, depth)) return true;
    // A function of this file that moves nothing to the GPU, handed a host tensor
    // (`euclidean_dist(query_cpu, prototypes)`), or one whose every return is on the host.
    const size_t ci = static_cast<size_t>(c - calls.data());
    if (ci < call_callees.size() && call_callees[ci].size() == 1) {
      const size_t fi = call_callees[ci].front();
      if (moves_nothing_to_device(fi) && all_host(c->positional, depth)) return true;
    }
    return call_returns_host(*c, -1, depth);
  }
  if (k == "identifier") {
    const Reaching r = reaching(e);
    if (!null(r.value)) return host_derived(r.value, depth + 1);
    return host_bindings(e, depth + 1);
  }
  if (k == "subscript") return host_derived(field(e, "value"), depth);
  if (k == "attribute") {
    const std::string_view a = t(field(e, "attribute"));
    return (a == "data" || a == "T" || a == "mT" || a == "real" || a == "imag") && host_derived(field(e, "object"), depth);
  }
  if (k == "unary_operator") return host_derived(field(e, "argument"), depth);
  // Every operand on the host: a device tensor times a Python number (`loss / len(xs)`,
  // `max_action * action`) stays on the device, and so does one combined with a 0-dim CPU tensor.
  if (k == "binary_operator") return host_derived(field(e, "left"), depth) && host_derived(field(e, "right"), depth);
  if (k == "comparison_operator" || k == "boolean_operator") {
    for (TSNode x : ts::named_children(e))
      if (!host_derived(x, depth)) return false;
    return true;
  }
  // Python literals live on the host.
  if (k == "integer" || k == "float" || k == "true" || k == "false" || k == "string") return true;
  if (k == "conditional_expression") {
    // `a if cond else b`: both branches.
    const TSNode body = ts_node_named_child(e, 0), other = ts_node_named_child(e, 2);
    return host_derived(body, depth) && host_derived(other, depth);
  }
  if (k == "list" || k == "tuple") {
    bool any = false;
    for (TSNode x : ts::named_children(e)) {
      if (!host_derived(x, depth)) return false;
      any = true;
    }
    return any;
  }
  if (k == "list_comprehension" || k == "generator_expression") return host_derived(field(e, "body"), depth);
  return false;
}

bool Model::Impl::host_bindings(TSNode use, int depth) const {
  // Every binding of the name in its function is a plain assignment or a tuple unpacking
  // (`loss, acc = loss_fn(out, y)`, `_, y_hat = log_p.max(2)`), and each one is on the host.
  const std::string_view name = t(use);
  const TSNode fn = function_containing(use);
  const Bindings& b = bindings();
  const ScopeName key = scope_key(fn, name);
  std::vector<std::pair<size_t, int>> mine;
  if (const auto u = b.by_unpacked.find(name); u != b.by_unpacked.end())
    for (const auto& [ai, pos] : u->second)
      if (ts::same(all_assigns[ai].ctx.function, fn)) mine.emplace_back(ai, pos);
  const size_t unpacked = mine.size();
  // The opaque bindings of the name in this scope must all be those unpackings (no parameter, loop
  // target, `with ... as` or augmented assignment).
  size_t opaque = 0;
  for (const ScopeName& s : opaque_names) opaque += s == key;
  if (opaque != unpacked) return false;
  auto plain = b.assigns.find(key);
  // A name the function does not bind at all: the module's (`ignore_thresh = 0.5` at the top).
  if (unpacked == 0 && opaque == 0 && plain == b.assigns.end() && !null(fn)) {
    const ScopeName module_key = scope_key(TSNode{}, name);
    if (b.opaque.count(module_key)) return false;
    plain = b.assigns.find(module_key);
  }
  if (unpacked == 0 && plain == b.assigns.end()) return false;
  if (plain != b.assigns.end())
    for (size_t ai : plain->second)
      if (!host_derived(all_assigns[ai].value, depth)) return false;
  for (const auto& [ai, pos] : mine) {
    const TSNode v = unparenthesized(all_assigns[ai].value);
    if (is(v, "expression_list") || is(v, "tuple")) {
      if (!host_derived(ts_node_named_child(v, static_cast<uint32_t>(pos)), depth)) return false;
      continue;
    }
    if (host_derived(v, depth)) continue;  // unpacking a host value (`_, y_hat = log_p.max(2)`)
    const CallInfo* c = is(v, "call") ? call_info(v) : nullptr;
    if (!c || !call_returns_host(*c, pos, depth)) return false;
  }
  return true;
}

bool Model::host_derived(TSNode expr) const {
  impl_->host_steps_ = 0;
  return impl_->host_derived(expr, 0);
}

namespace {

// A torch function that computes a tensor from tensors (`torch.mean`, `torch.sqrt`,
// `torch.nn.functional.mse_loss`): a function of torch itself or of torch.nn.functional, neither a
// factory (`torch.zeros`, `torch.tensor`, `torch.load`) nor one that returns something else.
bool torch_operation(std::string_view q) {
  if (!q.starts_with("torch.") || torch_non_tensor(q) || torch_host_factory(q)) return false;
  std::string_view rest = q.substr(6);
  if (rest.starts_with("nn.functional.")) rest = rest.substr(14);
  if (rest.empty() || rest.find('.') != std::string_view::npos) return false;
  // `torch.set_default_dtype`, `torch.Generator`: no tensor.
  return !rest.starts_with("set_") && !(rest.front() >= 'A' && rest.front() <= 'Z');
}

}  // namespace

bool Model::Impl::returns_torch_op(size_t fi, int depth) const {
  if (fi >= functions.size() || depth > 2) return false;
  bool any = false;
  for (TSNode ret : returns_of(functions[fi].node)) {
    const TSNode v = unparenthesized(ts_node_named_child(ret, 0));
    const CallInfo* c = is(v, "call") ? call_info(v) : nullptr;
    if (!c) return false;
    if (!torch_operation(c->qualname)) {
      const size_t ci = static_cast<size_t>(c - calls.data());
      if (ci >= call_callees.size() || call_callees[ci].size() != 1 || !returns_torch_op(call_callees[ci].front(), depth + 1))
        return false;
    }
    any = true;
  }
  return any;
}

bool Model::returns_tensor(const CallInfo& c) const {
  const size_t ci = static_cast<size_t>(&c - impl_->calls.data());
  if (ci >= impl_->calls.size()) return false;
  if (ci < impl_->call_callees.size() && !impl_->call_callees[ci].empty())
    return impl_->call_callees[ci].size() == 1 && impl_->returns_torch_op(impl_->call_callees[ci].front(), 0);
  if (!impl_->project) return false;
  const std::string target = impl_->outgoing_target(c);
  return !target.empty() && impl_->project->returns_tensor(impl_->src.path(), target);
}

}  // namespace perflint
