// Semantic model of one Python file, part: Calls: callee, arguments (keywords resolved through literal **dicts), CUDA evidence, look-up by node.
#include "parser/model/impl.hpp"

namespace perflint {

void Model::Impl::record_call(TSNode n, Context ctx) {
  CallInfo ci;
  ci.node = n;
  calls.push_back(std::move(ci));
  call_ctx.push_back(std::move(ctx));
}

void Model::Impl::finish_calls() {
  for (auto& c : calls) {
    c.qualname = qualname_of(c.function);
    if (!null(cuda_node) && ts_node_start_byte(cuda_node) < ts_node_start_byte(c.node)) continue;
    const std::string_view q = c.qualname;  // compared as a view: no out-of-line std::string::compare
    if (c.method == "cuda" || q == "torch.cuda.set_device" || q == "torch.cuda.synchronize" ||
        q == "torch.cuda.current_device" || c.qualname.rfind("torch.cuda.amp.", 0) == 0 ||
        // torch>=2.6's device-generic API (pytorch/examples uses it throughout): on an NVIDIA
        // machine `torch.accelerator.current_accelerator()` is the CUDA device.
        c.qualname.rfind("torch.accelerator.", 0) == 0 ||
        // Hugging Face Accelerate places the model and batches on the GPU when there is one: its
        // scripts are GPU scripts (`accelerate launch` on a CUDA machine is what they are for).
        q == "accelerate.Accelerator" || q == "accelerate.accelerator.Accelerator" || lightning_gpu_trainer(c) ||
        // `torch.set_default_tensor_type("torch.cuda.FloatTensor")` (or the class itself): every
        // tensor the script builds from then on is a CUDA tensor.
        (q == "torch.set_default_tensor_type" && !c.positional.empty() &&
         t(c.positional.front()).find("cuda.") != std::string_view::npos))
      cuda_node = c.node;
  }
}

bool Model::Impl::returns_cuda_device(size_t fi) const {
  const TSNode fn = functions[fi].node;
  // A device built from a CUDA literal: `torch.device("cuda" if ... else "cpu")`, `"cuda:0"`.
  const auto names_cuda = [&](TSNode e) {
    bool literal = false;
    ts::walk(e, [&](TSNode n) {
      if (is(n, "string") && is_cuda_literal(t(n))) literal = true;
      return !literal;
    });
    return literal;
  };
  const auto cuda_device = [&](TSNode v) {
    v = unparenthesized(v);
    if (is(v, "string") || is(v, "conditional_expression")) return names_cuda(v);
    const CallInfo* c = is(v, "call") ? call_info(v) : nullptr;
    return c && c->qualname == "torch.device" && !c->positional.empty() && names_cuda(c->positional.front());
  };
  for (TSNode ret : returns_of(fn)) {
    const TSNode v = unparenthesized(ts_node_named_child(ret, 0));
    if (null(v)) continue;
    if (cuda_device(v)) return true;
    if (!is(v, "identifier")) continue;
    // `device = torch.device(...)` in the function, then `return device`.
    if (const auto a = bindings().assigns.find(scope_key(fn, t(v))); a != bindings().assigns.end())
      for (size_t ai : a->second)
        if (cuda_device(all_assigns[ai].value)) return true;
  }
  return false;
}

void Model::Impl::find_cuda_device_call() {
  if (!project || !null(cuda_node)) return;
  for (size_t i = 0; i < calls.size(); ++i) {
    // Only functions named for a device (`get_device`, `setup_gpu`, `init_cuda`): a look-up of the
    // callee's module for every call of every file would parse half the project.
    const CallInfo& c = calls[i];
    if (!names_device(last_component(c.qualname)) || !project_qualname(c.qualname)) continue;
    const ModuleSummary* module = nullptr;
    const FunctionSummary* f = project->project_function(src.path(), c.qualname, &module);
    if (f && f->returns_cuda_device && !switched_off(call_ctx[i])) {
      cuda_node = c.node;
      return;
    }
  }
}

bool Model::Impl::lightning_gpu_trainer(const CallInfo& c) const {
  // `pl.Trainer(accelerator="gpu", devices=1)`, `Trainer(gpus=2)` (Lightning before 2.0): Lightning's
  // "gpu" accelerator is CUDA on an NVIDIA machine.
  const std::string_view q = c.qualname;
  if (!(q.starts_with("pytorch_lightning.") || q.starts_with("lightning.")) || !q.ends_with("Trainer")) return false;
  for (const Argument& k : c.keywords) {
    const std::string_view v = t(k.value);
    if (k.name == "accelerator" && (v == "\"gpu\"" || v == "'gpu'")) return true;
    if (k.name == "gpus" && is(k.value, "integer") && v != "0") return true;
  }
  return false;
}

bool Model::Impl::is_cuda_literal(std::string_view lit) {
  const size_t q = lit.find_first_of("'\"");
  if (q == std::string_view::npos) return false;
  size_t quotes = 1;
  if (lit.size() >= q + 3 && lit[q + 1] == lit[q] && lit[q + 2] == lit[q]) quotes = 3;
  if (lit.size() < q + 2 * quotes) return false;
  const std::string_view content = lit.substr(q + quotes, lit.size() - q - 2 * quotes);
  return content == "cuda" || content.rfind("cuda:", 0) == 0;
}

void Model::Impl::note_cuda_string(TSNode string) {
  // The whole string must start with it (f"cuda:{rank}" counts, "use cuda" does not).
  if (null(cuda_node) && is_cuda_literal(t(string))) cuda_node = string;
}

bool Model::Impl::needs_context(Sym k) {
  switch (k) {
    case Sym::Call: case Sym::Import: case Sym::ImportFrom: case Sym::Assignment: case Sym::Return:
    case Sym::AugmentedAssignment: case Sym::For: case Sym::While: case Sym::Function: case Sym::With:
      return true;
    default:
      return false;
  }
}

const std::vector<size_t>& Model::Impl::update_calls(std::string_view name) const {
  if (!update_calls_) {
    update_calls_.emplace();
    for (size_t i = 0; i < calls.size(); ++i)
      if (calls[i].method == "update" && is(calls[i].receiver, "identifier"))
        (*update_calls_)[t(calls[i].receiver)].push_back(i);
  }
  static const std::vector<size_t> none;
  auto it = update_calls_->find(name);
  return it == update_calls_->end() ? none : it->second;
}

// A test of CUDA being on, as a plain name or attribute (`args.cuda`, `use_gpu`, `self.on_gpu`)
// or `torch.cuda.is_available()`; not a negative switch (`args.no_cuda`, `args.cpu`).
bool Model::Impl::device_test(TSNode cond) const {
  if (is(cond, "call")) {
    const TSNode args = field(cond, "arguments");
    return t(field(cond, "function")).ends_with("cuda.is_available") && !null(args) &&
           ts_node_named_child_count(args) == 0;
  }
  if (!is(cond, "identifier") && !is(cond, "attribute")) return false;
  const std::string_view name = last_component(t(cond));
  if (!names_device(name) || icontains(name, "cpu") || icontains(name, "disable") || name.starts_with("no_") ||
      name.starts_with("not_"))
    return false;
  return true;
}

bool Model::Impl::dict_entries(TSNode expr, TSNode function, std::vector<Argument>& out, int depth) const {
  if (depth > 4 || null(expr)) return false;
  const std::string_view k = kind(expr);
  if (k == "dictionary") {
    for (TSNode p : ts::named_children(expr)) {
      if (is(p, "pair")) {
        TSNode kn = field(p, "key");
        if (!is(kn, "string") || ts_node_named_child_count(kn) != 3) return false;
        out.push_back({t(ts_node_named_child(kn, 1)), field(p, "value"), {}, p});
      } else if (is(p, "dictionary_splat")) {
        if (!dict_entries(ts_node_named_child(p, 0), function, out, depth + 1)) return false;
      } else if (!is(p, "comment")) {
        return false;
      }
    }
    return true;
  }
  // `{'num_workers': 1, 'pin_memory': True} if args.cuda else {}` (PyTorch's MNIST example and its
  // forks; network-slimming, held-out round 34): the arm the condition picks. A device test
  // (`args.cuda`, `use_gpu`, `torch.cuda.is_available()`) picks the CUDA arm, the configuration
  // judged, whatever the flag's default (as flag_off does); anything else that is not known leaves
  // the entries unknown.
  if (k == "conditional_expression") {
    const TSNode then = ts_node_named_child(expr, 0), other = ts_node_named_child(expr, 2);
    const TSNode cond = unparenthesized(ts_node_named_child(expr, 1));
    std::optional<bool> pick;
    if (device_test(cond)) pick = true;
    else pick = eval(cond, function, 0).truthy();
    if (!pick) return false;
    return dict_entries(*pick ? then : other, function, out, depth + 1);
  }
  if (k == "call" && t(field(expr, "function")) == "dict") {
    TSNode args = field(expr, "arguments");
    for (TSNode a : ts::named_children(args)) {
      if (is(a, "keyword_argument")) out.push_back({t(field(a, "name")), field(a, "value"), {}, a});
      else if (is(a, "dictionary_splat")) {
        if (!dict_entries(ts_node_named_child(a, 0), function, out, depth + 1)) return false;
      } else if (!is(a, "comment")) {
        if (!dict_entries(a, function, out, depth + 1)) return false;
      }
    }
    return true;
  }
  if (k == "identifier") {
    const std::string_view name = t(expr);
    // Function scope first, then module scope.
    for (TSNode scope : {function, TSNode{}}) {
      const ScopeName sk = scope_key(scope, name);
      const Bindings& b = bindings();
      if (b.opaque.count(sk)) return false;
      auto it = b.assigns.find(sk);
      if (it == b.assigns.end()) {
        if (null(scope)) return false;
        continue;
      }
      if (it->second.size() != 1) return false;
      if (!dict_entries(all_assigns[it->second.front()].value, scope, out, depth + 1)) return false;
      // Mutations in the same scope: name.update(...), name["k"] = v.
      for (size_t i : update_calls(name)) {
        const CallInfo& c = calls[i];
        if (!ts::same(call_ctx[i].function, scope) && !(null(call_ctx[i].function) && null(scope))) continue;
        for (const auto& kw : c.keywords) {
          if (kw.name == "**") {
            if (!dict_entries(ts_node_named_child(kw.value, 0), scope, out, depth + 1)) return false;
          } else {
            out.push_back({kw.name, kw.value, {}, kw.value});
          }
        }
        for (TSNode p : c.positional)
          if (!dict_entries(p, scope, out, depth + 1)) return false;
      }
      const auto& subscripted = bindings().by_subscripted;
      const auto entries = subscripted.find(name);
      if (entries == subscripted.end()) return true;
      for (size_t ai : entries->second) {
        const Assign& a = all_assigns[ai];
        TSNode sub = field(a.target, "subscript");
        if (!is(sub, "string") || ts_node_named_child_count(sub) != 3) return false;
        out.push_back({t(ts_node_named_child(sub, 1)), a.value, {}, a.statement});
      }
      return true;
    }
    return false;
  }
  return false;
}

void Model::Impl::resolve_kwargs() {
  for (size_t i = 0; i < calls.size(); ++i) {
    CallInfo& c = calls[i];
    if (std::none_of(c.keywords.begin(), c.keywords.end(), [](const Argument& a) { return a.name == "**"; })) continue;
    std::vector<Argument> resolved;
    bool any = false;
    for (auto& kw : c.keywords) {
      if (kw.name != "**") {
        resolved.push_back(kw);
        continue;
      }
      any = true;
      std::vector<Argument> entries;
      if (dict_entries(ts_node_named_child(kw.value, 0), call_ctx[i].function, entries, 0)) {
        for (auto& e : entries) {
          e.via_dict = kw.value;
          resolved.push_back(e);
        }
      } else {
        c.unresolved_kwargs = true;
      }
    }
    if (any) {
      // Later entries win (dict semantics); explicit keywords cannot collide at run time.
      std::vector<Argument> dedup;
      for (auto it = resolved.rbegin(); it != resolved.rend(); ++it)
        if (std::none_of(dedup.begin(), dedup.end(), [&](const Argument& a) { return a.name == it->name; }))
          dedup.push_back(*it);
      std::reverse(dedup.begin(), dedup.end());
      c.keywords = std::move(dedup);
    }
  }
}

size_t Model::Impl::find_call(TSNode n) const {
  // Rules are handed calls in document order: the next one is usually right after the last.
  for (size_t i = call_hint; i < calls.size() && i < call_hint + 2; ++i)
    if (ts::same(calls[i].node, n)) return call_hint = i;
  const uint32_t start = ts_node_start_byte(n);
  auto it = std::lower_bound(calls.begin(), calls.end(), start,
                             [](const CallInfo& c, uint32_t s) { return ts_node_start_byte(c.node) < s; });
  for (; it != calls.end() && ts_node_start_byte(it->node) == start; ++it)
    if (ts::same(it->node, n)) return call_hint = static_cast<size_t>(it - calls.begin());
  return SIZE_MAX;
}

const CallInfo* Model::Impl::call_info(TSNode n) const {
  const size_t i = find_call(n);
  return i == SIZE_MAX ? nullptr : &calls[i];
}

const Context* Model::Impl::call_context(TSNode n) const {
  const size_t i = find_call(n);
  return i == SIZE_MAX ? nullptr : &call_ctx[i];
}

}  // namespace perflint
