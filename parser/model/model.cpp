// Semantic model of one Python file (see model.hpp): the public API over Model::Impl, whose parts
// live in parser/model/. One iterative walk records imports, calls, assignments, loops and the
// ancestor frames of each; the rest is derived after the walk.
#include <set>

#include "parser/model/impl.hpp"

namespace perflint {


// ---- Value / CallInfo -----------------------------------------------------------------------

std::optional<bool> Value::truthy() const {
  switch (kind) {
    case Kind::Unknown: return std::nullopt;
    case Kind::None: return false;
    case Kind::Bool: return b;
    case Kind::Int: return i != 0;
    case Kind::Float: return f != 0.0;
    case Kind::String: return !s.empty();
  }
  return std::nullopt;
}

std::optional<long long> Value::as_int() const {
  if (kind == Kind::Int) return i;
  if (kind == Kind::Bool) return b ? 1 : 0;
  return std::nullopt;
}

std::string Value::repr() const {
  switch (kind) {
    case Kind::Unknown: return "?";
    case Kind::None: return "None";
    case Kind::Bool: return b ? "True" : "False";
    case Kind::Int: return std::to_string(i);
    case Kind::Float: {
      std::string s = std::to_string(f);
      while (s.size() > 1 && s.back() == '0' && s[s.size() - 2] != '.') s.pop_back();
      return s;
    }
    case Kind::String: return "'" + s + "'";
  }
  return "?";
}

const Argument* CallInfo::keyword(std::string_view name) const {
  for (const auto& k : keywords)
    if (k.name == name) return &k;
  return nullptr;
}

TSNode CallInfo::arg(std::string_view name, int index) const {
  if (const Argument* k = keyword(name)) return k->value;
  if (index >= 0 && !star_args && static_cast<size_t>(index) < positional.size()) return positional[index];
  return TSNode{};
}

// ---- Model ------------------------------------------------------------------------------------

Model::Model(const SourceFile& source, TSNode root, const std::vector<std::string>& wanted, ProjectContext* project)
    : impl_(std::make_unique<Impl>(source)) {
  impl_->project = project;
  impl_->parents.emplace(root.tree);
  impl_->build(root, wanted);
}
Model::~Model() = default;

const SourceFile& Model::source() const { return impl_->src; }
std::string_view Model::text(TSNode n) const { return impl_->t(n); }

const std::vector<TSNode>& Model::nodes_of_kind(std::string_view kind) const {
  static const std::vector<TSNode> none;
  const auto& names = impl_->by_kind_names;
  auto it = std::find(names.begin(), names.end(), kind);
  return it == names.end() ? none : impl_->by_kind_lists[static_cast<size_t>(it - names.begin())];
}

std::string Model::qualname(TSNode expr) const { return impl_->qualname_of(expr); }
const CallInfo* Model::call(TSNode call_node) const { return impl_->call_info(call_node); }
const std::vector<CallInfo>& Model::calls() const { return impl_->calls; }

TSNode Model::returned_by(const CallInfo& c) const {
  const size_t i = static_cast<size_t>(&c - impl_->calls.data());
  if (i >= impl_->calls.size() || impl_->call_callees[i].size() != 1) return {};
  const TSNode fn = impl_->functions[impl_->call_callees[i].front()].node;
  TSNode found{};
  for (const auto& [f, ret] : impl_->returns) {
    if (!ts::same(f, fn)) continue;
    if (!ts_node_is_null(found) || ts_node_named_child_count(ret) != 1) return {};  // several, or a bare return
    found = ts_node_named_child(ret, 0);
  }
  return found;
}

Value Model::evaluate(TSNode expr) const {
  // A missing operand (error recovery can leave `a = b: T` without a right side) is unknown.
  if (ts_node_is_null(expr)) return Value{};
  const Context* ctx = impl_->call_context(expr);
  return impl_->eval(expr, ctx ? ctx->function : impl_->function_containing(expr), 0);
}

const ArgOption* Model::arg_option(std::string_view dest) const { return impl_->find_option(dest); }

std::vector<TSNode> Model::assigned_values(std::string_view name) const {
  std::vector<TSNode> out;
  const auto& bindings = impl_->bindings();
  const auto& by_name = name.find('.') == std::string_view::npos ? bindings.by_name : bindings.by_attribute;
  const auto assigned = by_name.find(name);
  if (assigned == by_name.end()) return out;
  out.reserve(assigned->second.size());
  for (size_t ai : assigned->second) out.push_back(impl_->all_assigns[ai].value);
  return out;
}

std::string Model::copies_argument(const CallInfo& call, size_t index) const {
  if (call.star_args || !is(call.function, "identifier")) return {};
  // Of this file: the one module-level function of that name.
  if (auto it = impl_->functions_by_name.find(impl_->t(call.function)); it != impl_->functions_by_name.end()) {
    if (it->second.size() != 1 || !null(impl_->functions[it->second.front()].cls)) return {};
    const size_t fi = it->second.front();
    const auto copied = impl_->copied_params(fi);
    if (std::find(copied.begin(), copied.end(), static_cast<int>(index)) == copied.end()) return {};
    return "line " + std::to_string(impl_->src.position(ts_node_start_byte(impl_->functions[fi].node)).line);
  }
  if (!impl_->project || !Impl::project_qualname(call.qualname)) return {};
  const ModuleSummary* module = nullptr;
  const FunctionSummary* f = impl_->project->project_function(impl_->src.path(), call.qualname, &module);
  if (!f || !module || f->qualified != f->name ||  // a plain function, not a method
      std::find(f->copied_params.begin(), f->copied_params.end(), static_cast<int>(index)) == f->copied_params.end())
    return {};
  return std::filesystem::path(module->path).filename().string() + ":" + std::to_string(f->line);
}

bool Model::run_mentions(std::string_view word) const {
  if (names_word(impl_->src.text(), word)) return true;
  return !impl_->project || impl_->project->run_mentions(impl_->src.path(), word);
}

bool Model::importer_side_mentions(std::string_view word) const {
  return impl_->project && impl_->project->importer_side_mentions(impl_->src.path(), word);
}

bool Model::importer_side_assigns(std::string_view attribute) const {
  return impl_->project && impl_->project->importer_side_assigns(impl_->src.path(), attribute);
}

std::vector<TSNode> Model::visible_values(TSNode use, std::string_view name) const {
  std::vector<TSNode> out;
  const auto& b = impl_->bindings();
  auto it = b.assigns.find(Impl::scope_key(impl_->function_containing(use), name));
  if (it == b.assigns.end()) it = b.assigns.find(Impl::scope_key(TSNode{}, name));
  if (it == b.assigns.end()) return out;
  out.reserve(it->second.size());
  for (size_t ai : it->second) out.push_back(impl_->all_assigns[ai].value);
  return out;
}

bool Model::only_plainly_assigned(TSNode use, std::string_view name) const {
  const auto& b = impl_->bindings();
  auto key = Impl::scope_key(impl_->function_containing(use), name);
  auto it = b.assigns.find(key);
  if (it == b.assigns.end()) {
    // visible_values falls back to the module's bindings only when the function binds nothing.
    if (b.opaque.count(key)) return false;
    key = Impl::scope_key(TSNode{}, name);
    it = b.assigns.find(key);
  }
  return it != b.assigns.end() && !it->second.empty() && !b.opaque.count(key);
}

bool Model::imports(std::string_view module) const {
  for (const auto& m : impl_->imported_modules)
    if (m == module || (m.size() > module.size() && m.compare(0, module.size(), module) == 0 && m[module.size()] == '.'))
      return true;
  return false;
}

TSNode Model::last_import() const { return impl_->last_import; }

TSNode Model::first_import_of(std::string_view module) const {
  for (const auto& [m, n] : impl_->import_nodes)
    if (m == module || (m.size() > module.size() && m.compare(0, module.size(), module) == 0 && m[module.size()] == '.'))
      return n;
  return TSNode{};
}

bool Model::has_step_loop() const { return !impl_->step_loop_nodes.empty(); }
const std::vector<std::pair<const ModuleSummary*, TSNode>>& Model::step_siblings() const {
  return impl_->step_siblings;
}
const std::vector<TSNode>& Model::step_loops() const { return impl_->step_loop_nodes; }

bool Model::step_loops_run_by_other_files() const {
  if (impl_->step_loop_nodes.empty()) return false;
  // Whether the file's own top level runs function `fi` (directly, or through the functions that call
  // it, a few levels: `if __name__ == "__main__": train(get_args())`): then the file is a script of
  // its own, whoever else imports it (pytorch-GAT's training_script_cora.py, which playground.py
  // also runs; held-out round 44).
  const auto run_here = [&](size_t fi) {
    std::vector<size_t> todo{fi};
    std::set<size_t> seen;
    for (int level = 0; level < 4 && !todo.empty(); ++level) {
      std::vector<size_t> next;
      for (size_t f : todo) {
        if (f >= impl_->callers.size() || !seen.insert(f).second) continue;
        for (size_t ci : impl_->callers[f]) {
          const TSNode caller = impl_->call_ctx[ci].function;
          if (ts_node_is_null(caller)) return true;
          if (const size_t up = impl_->function_index(caller); up != SIZE_MAX) next.push_back(up);
        }
      }
      todo = std::move(next);
    }
    return false;
  };
  for (TSNode loop : impl_->step_loop_nodes) {
    const TSNode fn = impl_->function_containing(loop);
    if (ts_node_is_null(fn)) return false;
    const size_t fi = impl_->function_index(fn);
    if (!impl_->entry_of(fi) || run_here(fi)) return false;
  }
  return true;
}

bool Model::step_loops_are_foreign_rollouts() const {
  if (impl_->step_loop_nodes.empty()) return false;
  for (TSNode loop : impl_->step_loop_nodes)
    if (!impl_->foreign_rollouts.count(key(loop))) return false;
  return true;
}

StepContext Model::step_context(TSNode node) const {
  if (!impl_->any_step) return {};
  const Context* known = impl_->call_context(node);
  Context climbed;
  if (!known) {
    climbed = impl_->context_by_climbing(node);
    known = &climbed;
  }
  Impl::StepWhere w = impl_->step_where(*known);
  StepContext sc;
  if (!w.in()) return sc;
  sc.in_step = true;
  if (w.loop >= 0) sc.loop = impl_->loops[w.loop].node;
  if (w.external >= 0) sc.reached_from = impl_->external[w.external].path;
  if (w.via_call >= 0) sc.via = impl_->calls[static_cast<size_t>(w.via_call)].node;
  if (w.guard) {
    impl_->guards.push_back(Guard{w.guard->condition});
    sc.guard = &impl_->guards.back();
  }
  return sc;
}

std::vector<TSNode> Model::step_arguments(TSNode name, bool rebound) const {
  std::vector<TSNode> out;
  if (!is(name, "identifier")) return out;
  const TSNode fn = impl_->function_containing(name);
  if (ts_node_is_null(fn)) return out;
  const size_t fi = impl_->function_index(fn);
  if (fi == SIZE_MAX) return out;
  const auto& params = impl_->functions[fi].params;
  const auto p = std::find(params.begin(), params.end(), impl_->t(name));
  if (p == params.end()) return out;
  // Rebound in the function: not the caller's value any more.
  const auto& b = impl_->bindings();
  if (!rebound && b.assigns.count(Impl::scope_key(fn, impl_->t(name)))) return out;
  for (size_t i : impl_->callers[fi]) {
    if (!impl_->step_where(impl_->call_ctx[i]).in()) continue;
    const CallInfo& c = impl_->calls[i];
    if (c.star_args || c.unresolved_kwargs) return {};
    int index = static_cast<int>(p - params.begin());
    if (!params.empty() && params.front() == "self" && is(c.function, "attribute")) --index;
    const TSNode arg = c.arg(impl_->t(name), index);
    if (ts_node_is_null(arg)) return {};
    out.push_back(arg);
  }
  return out;
}

bool Model::run_by_other_file(TSNode node) const {
  const TSNode fn = impl_->function_containing(node);
  return !ts_node_is_null(fn) && impl_->entry_of(impl_->function_index(fn)) != nullptr;
}

bool Model::parameter_rebound_opaquely(TSNode use) const {
  return impl_->bindings().opaque_again.count(Impl::scope_key(impl_->function_containing(use), impl_->t(use))) > 0;
}

bool Model::bound_to_step_loss(TSNode name) const {
  if (!is(name, "identifier")) return false;
  const TSNode fn = impl_->function_containing(name);
  if (ts_node_is_null(fn)) return false;
  const size_t fi = impl_->function_index(fn);
  const StepEntry* e = impl_->entry_of(fi);
  if (!e || e->opaque_args) return false;
  const Impl::Function& f = impl_->functions[fi];
  const std::string_view param = impl_->t(name);
  if (Impl::call_position(f, param) < 0 || impl_->bindings().assigns.count(Impl::scope_key(fn, param))) return false;
  return Impl::binds(e->loss_positional, e->loss_keywords, f, param);
}

bool Model::is_batch_expression(TSNode expr) const {
  const int li = impl_->batch_loop(expr);
  return li >= 0 || li == Impl::kExternalBatch;
}

const DataLoaderInfo* Model::loader_of_batch(TSNode expr) const {
  const int li = impl_->batch_loop(expr);
  if (li < 0) return nullptr;
  const auto& l = impl_->loops[li];
  if (l.loader >= 0) return &impl_->loaders[l.loader];
  // The loader assumed to feed this loop.
  for (const auto& d : impl_->loaders)
    if (d.assumed_step && ts::same(d.step_loop, l.node)) return &d;
  return nullptr;
}

const std::vector<DataLoaderInfo>& Model::dataloaders() const { return impl_->loaders; }

const DataLoaderInfo* Model::dataloader(TSNode call_node) const {
  for (const auto& d : impl_->loaders)
    if (ts::same(d.call->node, call_node)) return &d;
  return nullptr;
}

bool Model::uses_cuda() const { return !null(impl_->cuda_node); }

bool Model::default_device_from_step() const {
  return std::any_of(impl_->external.begin(), impl_->external.end(), [](const StepEntry& e) { return e.default_device; });
}

const ModuleSummary* Model::cuda_importer() const {
  if (impl_->importer) return impl_->importer;
  return impl_->cuda_imported ? impl_->cuda_imported : impl_->cuda_by_step;
}

const ModuleSummary* Model::cuda_imported() const {
  if (impl_->importer) return nullptr;
  return impl_->cuda_imported ? impl_->cuda_imported : impl_->cuda_by_step;
}

bool Model::called_only_conditionally_elsewhere(std::string_view name) const {
  return impl_->project && impl_->project->called_only_conditionally_elsewhere(impl_->src.path(), name);
}

std::string Model::project_assigns(std::string_view attribute) const {
  return impl_->project ? impl_->project->project_assigns(impl_->src.path(), attribute) : std::string();
}

std::string Model::cuda_where() const {
  if (!null(impl_->cuda_node))
    return "at line " + std::to_string(impl_->src.position(ts_node_start_byte(impl_->cuda_node)).line);
  // The other file as seen from this one's folder (`config/train.py`, not a bare `train.py` that
  // reads as this file: diffusion-ddpm, held-out round 28), and the line in that file.
  const auto other = [&](const std::string& path) {
    std::error_code ec;
    const std::filesystem::path here = std::filesystem::absolute(impl_->src.path(), ec).lexically_normal().parent_path();
    const std::filesystem::path rel = std::filesystem::absolute(path, ec).lexically_normal().lexically_relative(here);
    const std::string shown = rel.empty() || rel.begin()->string() == ".." ? std::filesystem::path(path).filename().string()
                                                                           : rel.generic_string();
    return shown;
  };
  if (impl_->importer)
    return "in " + other(impl_->importer->path) + " (its line " + std::to_string(impl_->importer->cuda_line) +
           "), which imports this file";
  if (impl_->cuda_imported)
    return "in " + other(impl_->cuda_imported->path) + " (its line " + std::to_string(impl_->cuda_imported->cuda_line) +
           "), which this file imports";
  if (impl_->cuda_by_step)
    return "in " + other(impl_->cuda_by_step->path) + " (its line " + std::to_string(impl_->cuda_by_step->cuda_line) +
           "), for the model whose step method the training loop calls";
  if (const std::string path = cuda_step_path(); !path.empty())
    return "in the CUDA training step that runs this file's code (" + path + ")";
  return {};
}

namespace {

// The bases of class `cls` written as plain names (`class B(A, nn.Module)`: A).
std::vector<std::string_view> named_bases(TSNode cls, std::string_view text) {
  std::vector<std::string_view> out;
  const TSNode supers = null(cls) ? TSNode{} : field(cls, "superclasses");
  if (!null(supers))
    for (TSNode b : ts::named_children(supers))
      if (is(b, "identifier")) out.push_back(ts::text(b, text));
  return out;
}

// The class a function is a method of, or null.
TSNode enclosing_class(TSNode fn) {
  // A decorated method (`@staticmethod`: KnowledgeGraphEmbedding's `KGEModel.train_step`, held-out
  // round 32) sits one level lower, in its decorated_definition.
  TSNode def = fn;
  if (const TSNode up = ts::parent(fn); is(up, "decorated_definition")) def = up;
  const TSNode block = ts::parent(def);
  const TSNode cls = null(block) ? TSNode{} : ts::parent(block);
  return !null(cls) && is(cls, "class_definition") ? cls : TSNode{};
}

}  // namespace

// What a step loop iterates, as written: its iterable through enumerate/tqdm/zip wrappers, or, for a
// local name assigned once in the loop's function from such a wrapper (`data_iter =
// tqdm.tqdm(enumerate(data_loader))`; `for i, data in data_iter:`), what that wraps.
TSNode Model::Impl::loop_source(const Loop& l, bool* enumerated) const {
  if (!is(l.node, "for_statement")) {
    // `while ...: batch, cond = next(self.data)`: what the loop draws its batches from.
    TSNode drawn{};
    for_each_next_source(l, [&](TSNode it) { return drawn = it, true; });
    return drawn;
  }
  TSNode base = iterable_base(field(l.node, "right"), nullptr);
  if (!is(base, "identifier") || null(l.ctx.function)) return base;
  const auto& b = bindings();
  const auto it = b.assigns.find(scope_key(l.ctx.function, t(base)));
  if (it == b.assigns.end() || it->second.size() != 1) return base;
  const Assign& a = all_assigns[it->second.front()];
  // `data_loader = self.tr_loader if not cross_valid else self.cv_loader` in
  // `_run_one_epoch(self, epoch, cross_valid=False)`: the branch the parameter's default takes, when
  // no step call passes it (Speech-Transformer's solver; the other branch is the validation pass).
  if (is(a.value, "conditional_expression") && ts_node_named_child_count(a.value) == 3) {
    TSNode cond = unparenthesized(ts_node_named_child(a.value, 1));
    bool negated = false;
    if (is(cond, "not_operator")) cond = unparenthesized(field(cond, "argument")), negated = true;
    const size_t fi = function_index(l.ctx.function);
    if (!is(cond, "identifier") || fi == SIZE_MAX) return base;
    const std::optional<bool> truth = parameter_default_truth(fi, t(cond));
    if (!truth) return base;
    return iterable_base(ts_node_named_child(a.value, *truth != negated ? 0 : 2), nullptr);
  }
  if (!is(a.value, "call")) return base;
  TSNode wrapped = iterable_base(a.value, enumerated);
  return ts::same(wrapped, a.value) ? base : wrapped;
}

namespace {

// A def whose body does nothing: `pass`, `...`, docstrings, `raise NotImplementedError(...)`.
bool does_nothing(TSNode def, std::string_view text) {
  for (TSNode st : ts::named_children(field(def, "body"))) {
    const std::string_view k = ts::kind(st);
    if (k == "pass_statement" || k == "comment") continue;
    if (k == "expression_statement" && ts_node_named_child_count(st) == 1) {
      const std::string_view e = ts::kind(ts_node_named_child(st, 0));
      if (e == "string" || e == "ellipsis" || e == "concatenated_string") continue;
    }
    if (k == "raise_statement") {
      const TSNode what = ts_node_named_child(st, 0);
      const TSNode callee = is(what, "call") ? field(what, "function") : what;
      if (is(callee, "identifier") && ts::text(callee, text).starts_with("NotImplemented")) continue;
    }
    return false;
  }
  return true;
}

}  // namespace

std::vector<FunctionSummary> Model::function_summaries() const {
  std::vector<FunctionSummary> out;
  // Per class: the attributes (`self.train_data`) a step loop of one of its methods iterates, directly
  // or as the argument of a `self.method(...)` call that binds an iterated parameter.
  std::set<std::pair<uint32_t, std::string>> iterated_attribute;  // (class start, "self.x")
  // Those whose step loop starts again and again: inside another loop, or in a method the class
  // calls from a loop (`for epoch in ...: self._run_one_epoch(epoch)`): a loader there is re-iterated.
  std::set<std::pair<uint32_t, std::string>> repeated_attribute;
  const auto called_in_loop = [&](TSNode cls, std::string_view method) {
    for (size_t ci = 0; ci < impl_->calls.size(); ++ci) {
      const CallInfo& c = impl_->calls[ci];
      if (c.method != method || !is(c.receiver, "identifier") || impl_->t(c.receiver) != "self") continue;
      const TSNode caller = impl_->call_ctx[ci].function;
      if (!null(caller) && ts::same(enclosing_class(caller), cls) && Impl::frames_have_loop(impl_->call_ctx[ci])) return true;
    }
    return false;
  };
  for (size_t fi = 0; fi < impl_->functions.size(); ++fi) {
    const auto& f = impl_->functions[fi];
    FunctionSummary s;
    s.name = impl_->t(field(f.node, "name"));
    s.qualified = s.name;
    const TSNode cls = enclosing_class(f.node);
    if (!null(cls)) s.qualified = std::string(impl_->t(field(cls, "name"))) + "." + s.name;
    s.params = f.params;
    s.step_fn = f.step_fn;
    s.trivial = does_nothing(f.node, impl_->text);
    if (s.name == "__init__" && !null(cls)) s.forwards_to_dataloader = impl_->forwards_to_dataloader(cls);
    s.copied_params = impl_->copied_params(fi);
    s.syncs = impl_->function_syncs(fi, 0);
    for (size_t ci : impl_->calls_in(fi)) {
      const CallInfo& c = impl_->calls[ci];
      s.delegates = s.delegates || (c.method == s.name && !(is(c.receiver, "identifier") && impl_->t(c.receiver) == "self"));
      const std::string& q = c.qualname;
      if (Impl::project_qualname(q) &&
          std::find(s.calls_out.begin(), s.calls_out.end(), q) == s.calls_out.end())
        s.calls_out.push_back(q);
    }
    // What its returns build: the value, and each element of the tuples it returns (up to 8).
    size_t widest = 0;
    bool plain = false;
    for (TSNode ret : impl_->returns_of(f.node)) {
      const TSNode v = unparenthesized(ts_node_named_child(ret, 0));
      if (is(v, "expression_list") || is(v, "tuple")) widest = std::max<size_t>(widest, ts_node_named_child_count(v));
      else if (!null(v)) plain = true;
    }
    for (int index = plain ? -1 : 0; index < static_cast<int>(std::min<size_t>(widest, 8)); ++index)
      if (std::string c = impl_->returned_class(fi, index); !c.empty()) s.returned_classes.emplace_back(index, std::move(c));
    s.line = impl_->src.position(ts_node_start_byte(f.node)).line;
    s.returns_cuda_device = impl_->returns_cuda_device(fi);
    s.returns_tensor = impl_->returns_torch_op(fi, 0);
    const auto& in_fi = impl_->calls_in(fi);
    if (std::any_of(in_fi.begin(), in_fi.end(), [&](size_t ci) { return impl_->host_copy_call(impl_->calls[ci]); }))
      for (int index = plain ? -1 : 0; index < static_cast<int>(std::min<size_t>(widest, 8)); ++index)
        if ((impl_->host_steps_ = 0, impl_->returns_host(fi, index, 0))) s.returned_host.push_back(index);
    for (const auto& l : impl_->loops) {
      if (!l.step || !ts::same(l.ctx.function, f.node)) continue;
      s.has_step_loop = true;
      TSNode base = impl_->loop_source(l);
      if (is(base, "attribute") && !null(cls)) {
        iterated_attribute.emplace(ts_node_start_byte(cls), impl_->t(base));
        if (Impl::frames_have_loop(l.ctx) || called_in_loop(cls, s.name))
          repeated_attribute.emplace(ts_node_start_byte(cls), impl_->t(base));
      }
      if (!is(base, "identifier")) continue;
      auto p = std::find(f.params.begin(), f.params.end(), impl_->t(base));
      if (p != f.params.end()) s.iterated_params.push_back(static_cast<int>(p - f.params.begin()));
      // `for epoch in ...: for x in loader:` in the function itself: iterated again every epoch.
      if (p != f.params.end() && Impl::frames_have_loop(l.ctx))
        s.repeated_params.push_back(static_cast<int>(p - f.params.begin()));
    }
    out.push_back(std::move(s));
  }
  // A module-level function that hands its parameter to one of this module's functions whose step
  // loop iterates it (`def train(train_loader, ...): for epoch in ...: epoch_train(train_loader, ...)`:
  // CLUENER2020, held-out round 34) iterates it too; again every epoch when it calls from a loop. A
  // few rounds (a chain of helpers), not from an evaluation function.
  for (int round = 0; round < 4; ++round) {
    bool changed = false;
    for (size_t fi = 0; fi < impl_->functions.size(); ++fi) {
      const auto& f = impl_->functions[fi];
      // (`train_and_evaluate(model, train_loader, val_loader, ...)` trains too: Teacher-free-KD, held-out
      // round 41.)
      if (!null(f.cls) || (Impl::evaluation_name(out[fi].name) && !icontains(out[fi].name, "train"))) continue;
      for (size_t ci : impl_->calls_in(fi)) {
        const CallInfo& c = impl_->calls[ci];
        if (!is(c.function, "identifier")) continue;
        const auto named = impl_->functions_by_name.find(impl_->t(c.function));
        if (named == impl_->functions_by_name.end()) continue;
        for (size_t gi : named->second) {
          if (gi == fi || !null(impl_->functions[gi].cls)) continue;
          for (int idx : out[gi].iterated_params) {
            const TSNode arg = c.arg(out[gi].params[static_cast<size_t>(idx)], idx);
            if (!is(arg, "identifier")) continue;
            const auto p = std::find(f.params.begin(), f.params.end(), impl_->t(arg));
            if (p == f.params.end()) continue;
            const int mine = static_cast<int>(p - f.params.begin());
            auto& it = out[fi].iterated_params;
            if (std::find(it.begin(), it.end(), mine) == it.end()) it.push_back(mine), changed = true;
            const bool again = Impl::frames_have_loop(impl_->call_ctx[ci]) ||
                               std::find(out[gi].repeated_params.begin(), out[gi].repeated_params.end(), idx) !=
                                   out[gi].repeated_params.end();
            auto& rp = out[fi].repeated_params;
            if (again && std::find(rp.begin(), rp.end(), mine) == rp.end()) rp.push_back(mine), changed = true;
          }
        }
      }
    }
    if (!changed) break;
  }
  // A factory that returns an inner def: calling its result runs the closure (`train =
  // GAN_training_function(...)`, `train(x, y)`), summarised again as "factory.__call__".
  for (size_t fi = 0; fi < impl_->functions.size(); ++fi) {
    // (returned_closure finds the one module-level function of that name: this one.)
    const size_t inner = impl_->returned_closure(out[fi].name);
    if (inner == SIZE_MAX) continue;
    FunctionSummary twin = out[inner];
    twin.qualified = out[fi].name + ".__call__";
    out.push_back(std::move(twin));
  }
  // The classes of this module that derive from `name`, directly or not (up to 5 levels), `name` first.
  const auto with_subclasses = [&](const std::string& name) {
    std::vector<std::string> family{name};
    for (size_t k = 0; k < family.size() && k < 16; ++k)
      for (const auto& [sub, node] : impl_->class_nodes) {
        if (std::find(family.begin(), family.end(), sub) != family.end()) continue;
        const auto bases = named_bases(node, impl_->text);
        if (std::find(bases.begin(), bases.end(), family[k]) != bases.end()) family.push_back(sub);
      }
    return family;
  };
  // `self.iteration(epoch, self.train_data)` binds an iterated parameter of a method of the class, or
  // of a subclass's override of it (S3Rec's Trainer.train runs FinetuneTrainer.iteration: held-out
  // round 25). Not from an evaluation method, nor with `train=False`: that pass skips the step.
  for (size_t ci = 0; ci < impl_->calls.size(); ++ci) {
    const CallInfo& c = impl_->calls[ci];
    if (!is(c.function, "attribute") || !is(c.receiver, "identifier") || impl_->t(c.receiver) != "self") continue;
    const TSNode caller = impl_->call_ctx[ci].function;
    const TSNode cls = null(caller) ? TSNode{} : enclosing_class(caller);
    if (null(cls) || Impl::evaluation_name(impl_->t(field(caller, "name")))) continue;
    if (std::any_of(c.keywords.begin(), c.keywords.end(), [&](const Argument& a) {
          return is(a.value, "false") && (a.name == "train" || a.name == "training" || a.name == "is_train" ||
                                          a.name == "is_training");
        }))
      continue;
    std::vector<std::string> methods;
    for (const std::string& k : with_subclasses(std::string(impl_->t(field(cls, "name")))))
      methods.push_back(k + "." + std::string(c.method));
    for (const FunctionSummary& m : out) {
      if (std::find(methods.begin(), methods.end(), m.qualified) == methods.end()) continue;
      for (int idx : m.iterated_params) {
        TSNode arg = c.arg(m.params[static_cast<size_t>(idx)], idx - 1);  // `self` is not passed
        if (is(arg, "attribute")) iterated_attribute.emplace(ts_node_start_byte(cls), impl_->t(arg));
      }
    }
  }
  // A constructor parameter stored in such an attribute (`self.train_data = train_dataloader`) is
  // iterated by the class's training step: callers that pass a loader feed the step.
  if (!iterated_attribute.empty())
    for (size_t fi = 0; fi < impl_->functions.size(); ++fi) {
      const auto& f = impl_->functions[fi];
      if (out[fi].name != "__init__") continue;
      const TSNode cls = enclosing_class(f.node);
      if (null(cls)) continue;
      for (const auto& a : impl_->all_assigns) {
        if (!ts::same(a.ctx.function, f.node) || !is(a.target, "attribute")) continue;
        if (!iterated_attribute.count({ts_node_start_byte(cls), std::string(impl_->t(a.target))})) continue;
        const bool repeated = repeated_attribute.count({ts_node_start_byte(cls), std::string(impl_->t(a.target))}) > 0;
        if (is(a.value, "identifier")) {
          auto p = std::find(f.params.begin(), f.params.end(), impl_->t(a.value));
          if (p != f.params.end()) out[fi].iterated_params.push_back(static_cast<int>(p - f.params.begin()));
          if (p != f.params.end() && repeated) out[fi].repeated_params.push_back(static_cast<int>(p - f.params.begin()));
        } else if (is(a.value, "subscript")) {
          // `self.tr_loader = data['tr_loader']`: the caller's dict holds the loader under that key.
          const TSNode of = field(a.value, "value"), key = field(a.value, "subscript");
          if (!is(of, "identifier") || !is(key, "string")) continue;
          const Value k = impl_->eval(key, TSNode{}, 0);
          if (k.kind != Value::Kind::String) continue;
          auto p = std::find(f.params.begin(), f.params.end(), impl_->t(of));
          if (p != f.params.end()) out[fi].iterated_param_keys.emplace_back(static_cast<int>(p - f.params.begin()), k.s);
          if (p != f.params.end() && repeated) out[fi].repeated_params.push_back(static_cast<int>(p - f.params.begin()));
        }
      }
    }
  // A constructor that hands a parameter on to its base's (`super().__init__(model, train_dataloader,
  // ...)`, `super(Sub, self).__init__(...)`, `Base.__init__(self, ...)`), where the base stores it
  // for its step: the subclass's parameter is iterated too (S3Rec's FinetuneTrainer: round 25).
  for (int pass = 0; pass < 3; ++pass) {
    bool changed = false;
    for (size_t fi = 0; fi < impl_->functions.size(); ++fi) {
      const auto& f = impl_->functions[fi];
      if (out[fi].name != "__init__") continue;
      const auto bases = named_bases(f.cls, impl_->text);
      if (bases.empty()) continue;
      for (size_t ci : impl_->calls_in(fi)) {
        const CallInfo& c = impl_->calls[ci];
        if (c.method != "__init__" || !is(c.function, "attribute") || c.star_args) continue;
        std::string base;
        int shift = 1;  // `self` is not passed to super().__init__
        if (is(c.receiver, "call") && impl_->t(field(c.receiver, "function")) == "super") {
          base = bases.front();
        } else if (is(c.receiver, "identifier") &&
                   std::find(bases.begin(), bases.end(), impl_->t(c.receiver)) != bases.end()) {
          base = impl_->t(c.receiver);
          shift = 0;
        }
        if (base.empty()) continue;
        const std::string base_init = base + ".__init__";
        const auto b = std::find_if(out.begin(), out.end(), [&](const FunctionSummary& m) { return m.qualified == base_init; });
        if (b == out.end()) continue;
        const FunctionSummary from = *b;  // out may grow below: no reference into it
        for (int idx : from.iterated_params) {
          if (idx < 1 || static_cast<size_t>(idx) >= from.params.size()) continue;
          const TSNode arg = c.arg(from.params[static_cast<size_t>(idx)], idx - shift);
          if (!is(arg, "identifier")) continue;
          const auto p = std::find(f.params.begin(), f.params.end(), impl_->t(arg));
          if (p == f.params.end()) continue;
          const int mine = static_cast<int>(p - f.params.begin());
          auto& own_params = out[fi].iterated_params;
          if (std::find(own_params.begin(), own_params.end(), mine) != own_params.end()) continue;
          own_params.push_back(mine);
          if (std::find(from.repeated_params.begin(), from.repeated_params.end(), idx) != from.repeated_params.end())
            out[fi].repeated_params.push_back(mine);
          changed = true;
        }
      }
    }
    if (!changed) break;
  }
  // A method a class inherits from a class of this module is its method too (XLM's `trainer =
  // SingleTrainer(...)`, then `trainer.mlm_step(...)`, defined in the base Trainer): summarised again
  // under the subclass's name, so that another file's call of it finds the step.
  std::unordered_map<std::string, std::vector<size_t>> methods_of;  // class name -> summaries
  for (size_t i = 0; i < out.size(); ++i)
    if (const size_t dot = out[i].qualified.find('.'); dot != std::string::npos && out[i].qualified.find('.', dot + 1) == std::string::npos)
      methods_of[out[i].qualified.substr(0, dot)].push_back(i);
  const size_t own = out.size();
  for (const auto& [name, node] : impl_->class_nodes) {
    std::set<std::string> defined;
    if (auto m = methods_of.find(name); m != methods_of.end())
      for (size_t i : m->second) defined.insert(out[i].name);
    std::vector<std::string> bases{name};
    for (size_t b = 0; b < bases.size() && b < 5; ++b) {
      const auto c = impl_->class_nodes.find(bases[b]);
      if (c == impl_->class_nodes.end()) continue;
      const TSNode supers = field(c->second, "superclasses");
      if (null(supers)) continue;
      for (TSNode base : ts::named_children(supers)) {
        if (!is(base, "identifier")) continue;
        const std::string bn(impl_->t(base));
        if (bn == name || std::find(bases.begin(), bases.end(), bn) != bases.end()) continue;
        bases.push_back(bn);
        const auto m = methods_of.find(bn);
        if (m == methods_of.end()) continue;
        for (size_t i : m->second) {
          if (i >= own || !defined.insert(out[i].name).second) continue;
          FunctionSummary twin = out[i];
          twin.qualified = name + "." + twin.name;
          out.push_back(std::move(twin));
        }
      }
    }
  }
  return out;
}

namespace {

// Where `name` sits in an assignment's target: -1 for the target itself (`name = ...`,
// `self.name = ...` spelled in full), k for the k-th name of an unpacking (`a, name = ...`), -2 when
// it is not there.
int position_in_target(TSNode target, std::string_view name, std::string_view text) {
  if ((is(target, "identifier") || is(target, "attribute")) && ts::text(target, text) == name) return -1;
  int index = -2;
  if (is(target, "pattern_list") || is(target, "tuple_pattern")) {
    const auto names = ts::named_children(target);
    for (size_t k = 0; k < names.size(); ++k)
      if (is(names[k], "identifier") && ts::text(names[k], text) == name) index = static_cast<int>(k);
  }
  return index;
}

}  // namespace

std::vector<SteppedResult> Model::stepped_results(const std::vector<FunctionSummary>* own) const {
  std::vector<SteppedResult> out;
  // `data = load_data(...)` handed to a class of another file whose training step iterates that
  // constructor parameter (`TrainLoop(..., data=data).run_loop()`, guided-diffusion): that step
  // iterates what load_data returns.
  // Also a function of another file whose step loop iterates that parameter (RepDistiller's
  // `train_loader, val_loader, n_data = get_cifar100_dataloaders(...)`, then `train(epoch,
  // train_loader, ...)` with helper/loops.py's train_distill: held-out round 24), at the position the
  // name has in the unpacked result; repeated when the call or the callee's loop sits in a loop.
  // Or a module-level function of this file (pytorch-vqa's `run(net, train_loader, optimizer,
  // tracker, train=True)` every epoch, with `train_loader = data.get_loader(train=True)`: held-out
  // round 37): those whose step loop iterates a parameter, by name (the last of a name wins).
  std::unordered_map<std::string_view, const FunctionSummary*> local_steps;
  if (own)
    for (const FunctionSummary& f : *own)
      if (f.has_step_loop && !f.iterated_params.empty()) local_steps[f.qualified] = &f;
  if (impl_->project)
    for (const CallInfo& c : impl_->calls) {
      if ((c.keywords.empty() && c.positional.empty()) || c.star_args) continue;
      const FunctionSummary* local = nullptr;
      if (c.qualname.empty()) {
        if (!is(c.function, "identifier")) continue;
        const auto found = local_steps.find(impl_->t(c.function));
        if (found == local_steps.end()) continue;
        local = found->second;
      }
      const std::string target = local ? local->qualified : impl_->outgoing_target(c);  // empty for a library's class
      if (target.empty()) continue;
      const bool cls = !local && class_by_name(target);
      const FunctionSummary* callee =
          local ? local : impl_->project->project_function(impl_->src.path(), cls ? target + ".__init__" : target, nullptr);
      if (!callee || callee->iterated_params.empty()) continue;
      const bool method = !callee->params.empty() && callee->params.front() == "self";
      // (A function whose step loop iterates the parameter, or hands it to one: iterated_params.)
      if (!cls && method) continue;
      const size_t ci = static_cast<size_t>(&c - impl_->calls.data());
      const TSNode scope = impl_->call_ctx[ci].function;
      for (int idx : callee->iterated_params) {
        const int first = method ? 1 : 0;
        if (idx < first || static_cast<size_t>(idx) >= callee->params.size()) continue;
        const TSNode arg = c.arg(callee->params[static_cast<size_t>(idx)], idx - first);
        if (null(arg) || !is(arg, "identifier")) continue;
        // Its bindings in the caller's scope: `name = f(...)`, and for a function `a, name, c = f(...)`
        // (an unpacking, which the name index leaves out).
        std::vector<size_t> sites;
        if (const auto bound = impl_->bindings().assigns.find(Impl::scope_key(scope, impl_->t(arg)));
            bound != impl_->bindings().assigns.end())
          sites = bound->second;
        if (!cls)
          for (size_t ai = 0; ai < impl_->all_assigns.size(); ++ai) {
            const auto& a = impl_->all_assigns[ai];
            if ((is(a.target, "pattern_list") || is(a.target, "tuple_pattern")) && ts::same(a.ctx.function, scope) &&
                binds_name(a.target, impl_->text, impl_->t(arg)))
              sites.push_back(ai);
          }
        const bool repeated = !cls && (Impl::frames_have_loop(impl_->call_ctx[ci]) ||
                                       std::find(callee->repeated_params.begin(), callee->repeated_params.end(),
                                                 idx) != callee->repeated_params.end());
        for (size_t ai : sites) {
          const auto& a = impl_->all_assigns[ai];
          if (!is(a.value, "call")) continue;
          const int index = position_in_target(a.target, impl_->t(arg), impl_->text);
          if (index == -2 || (cls && index >= 0)) continue;
          // `pkg.image_datasets.load_data`: the module is the file's stem, as step_importer asks.
          const std::string q = impl_->qualname_of(field(a.value, "function"));
          if (const auto sf = stem_function(q))
            out.push_back({std::string(sf->first), std::string(sf->second), index,
                           impl_->src.position(ts_node_start_byte(c.node)).line, repeated, {}});
        }
      }
    }
  for (const auto& l : impl_->loops) {
    if (!l.step || !is(l.node, "for_statement")) continue;
    // `for x in loader:`, `for i, (x, _) in enumerate(self.data_loader):`, and through a name
    // bound once to a wrapper (`pbar = tqdm(dataloader)`, then `for i, (x, _) in enumerate(pbar):`).
    TSNode base = impl_->loop_source(l);
    if (!is(base, "identifier") && !is(base, "attribute")) continue;
    const std::string_view name = impl_->t(base);
    for (const auto& a : impl_->all_assigns) {
      if (!is(a.value, "call")) continue;
      const int index = position_in_target(a.target, name, impl_->text);
      if (index == -2) continue;
      const TSNode callee = field(a.value, "function");
      const std::string q = impl_->qualname_of(callee);
      const uint32_t line = impl_->src.position(ts_node_start_byte(l.node)).line;
      // `from utils.data_utils import get_loader` (ViT-pytorch, held-out round 12): the module by its
      // file's stem, as step_importer asks (it also checks that this file imports that one).
      if (const auto mf = impl_->project ? stem_function(q) : module_function(q))
        out.push_back({std::string(mf->first), std::string(mf->second), index, line, l.repeated, {}});
      // Through a function or a `self.` method of this file that returns what another module's
      // function returned (iTransformer's `train_data, train_loader = self._get_data(flag='train')`,
      // with `data_set, data_loader = data_provider(self.args, flag); return data_set, data_loader`:
      // held-out round 33).
      if (impl_->project)
        for (const auto& [made_q, inner] : impl_->forwarded_results(callee, a.ctx.function, index))
          if (const auto mf = stem_function(made_q))
            out.push_back({std::string(mf->first), std::string(mf->second), inner, line, l.repeated, {}});
      // What a method of another module's result returns: `data_loader = CreateDataLoader(opt)`, then
      // `dataset = data_loader.load_data()` (pix2pixHD), or `CreateDataLoader(opt).load_data()`.
      if (index != -1 || !impl_->project || !is(callee, "attribute")) continue;
      TSNode made = field(callee, "object");
      if (is(made, "identifier")) {
        // Bound once, to a call (bound twice: which one is iterated is not known).
        const auto& by_name = impl_->bindings().by_name;
        const auto bound = by_name.find(impl_->t(made));
        made = bound != by_name.end() && bound->second.size() == 1 ? impl_->all_assigns[bound->second.front()].value
                                                                   : TSNode{};
      }
      if (!is(made, "call")) continue;
      const std::string made_q = impl_->qualname_of(field(made, "function"));
      if (const auto mf = stem_function(made_q))
        out.push_back({std::string(mf->first), std::string(mf->second), -1, line, l.repeated,
                       std::string(impl_->t(field(callee, "attribute")))});
    }
  }
  return out;
}

void set_default(OptionDefault& d, const Value& v) {
  switch (v.kind) {
    case Value::Kind::None: d.kind = OptionDefault::Kind::None; break;
    case Value::Kind::Bool: d.kind = OptionDefault::Kind::Bool; d.b = v.b; break;
    case Value::Kind::Int: d.kind = OptionDefault::Kind::Int; d.i = v.i; break;
    case Value::Kind::Float: d.kind = OptionDefault::Kind::Float; d.f = v.f; break;
    case Value::Kind::String: d.kind = OptionDefault::Kind::String; d.s = v.s; break;
    default: d.kind = OptionDefault::Kind::Unknown; break;
  }
}


// The known module-level values of `named` (key -> value expression), as option defaults.
std::vector<OptionDefault> Model::known_defaults(const std::unordered_map<std::string, TSNode>& named) const {
  std::vector<OptionDefault> out;
  for (const auto& [key, value] : named) {
    OptionDefault d;
    d.dest = key;
    d.flag = key;
    d.line = impl_->src.position(ts_node_start_byte(value)).line;
    set_default(d, impl_->eval(value, TSNode{}, 0));
    if (d.kind != OptionDefault::Kind::Unknown) out.push_back(std::move(d));
  }
  return out;
}

std::vector<OptionDefault> Model::config_tree_defaults() const { return known_defaults(impl_->config_tree()); }

std::vector<OptionDefault> Model::module_constant_defaults() const { return known_defaults(impl_->module_constants()); }

std::vector<OptionDefault> Model::option_defaults() const {
  std::vector<OptionDefault> out;
  for (const ArgOption& o : impl_->options) {
    OptionDefault d;
    d.dest = o.dest;
    d.flag = o.flag;
    d.line = o.line;
    Value resolved = impl_->eval(o.default_value, TSNode{}, 0);
    if (ts_node_is_null(o.default_value)) {
      // No default=: store_true/store_false imply one; anything else defaults to None.
      resolved = Value{};
      const CallInfo* c = impl_->call_info(o.call);
      const Argument* action = c ? c->keyword("action") : nullptr;
      const Value a = action ? impl_->eval(action->value, TSNode{}, 0) : Value{};
      if (a.kind == Value::Kind::String && a.s == "store_true") resolved.kind = Value::Kind::Bool, resolved.b = false;
      else if (a.kind == Value::Kind::String && a.s == "store_false") resolved.kind = Value::Kind::Bool, resolved.b = true;
      else if (!action) resolved.kind = Value::Kind::None;
    }
    set_default(d, resolved);
    out.push_back(std::move(d));
  }
  return out;
}

std::vector<std::string> Model::args_functions() const {
  std::vector<std::string> out;
  if (impl_->options.empty()) return out;
  // `return parser.parse_args()`, or `args = parser.parse_args(); ...; return args`.
  for (const auto& [fn, ret] : impl_->returns) {
    const TSNode v = ts_node_named_child(ret, 0);
    if (ts_node_is_null(v)) continue;
    const std::string_view txt = impl_->t(v);
    const bool parsed = txt.find("parse_args(") != std::string_view::npos ||
                        txt.find("parse_known_args(") != std::string_view::npos ||
                        std::find(impl_->args_names.begin(), impl_->args_names.end(), txt) != impl_->args_names.end();
    if (parsed) out.emplace_back(impl_->t(field(fn, "name")));
  }
  return out;
}

std::vector<std::string> Model::parser_functions() const {
  std::vector<std::string> out;
  if (impl_->options.empty()) return out;
  for (const auto& [fn, ret] : impl_->returns) {
    TSNode v = unparenthesized(ts_node_named_child(ret, 0));
    if (is(v, "identifier")) {
      const auto& b = impl_->bindings();
      auto it = b.assigns.find(Impl::scope_key(fn, impl_->t(v)));
      if (it == b.assigns.end() || it->second.size() != 1) continue;
      v = impl_->all_assigns[it->second.front()].value;
    }
    if (is(v, "call") && last_component(impl_->t(field(v, "function"))) == "ArgumentParser")
      out.emplace_back(impl_->t(field(fn, "name")));
  }
  // A module-level parser that scripts import and parse themselves (TSM's opts.py: `parser =
  // argparse.ArgumentParser(...)`, then `from opts import parser; args = parser.parse_args()`).
  for (const auto& a : impl_->all_assigns)
    if (ts_node_is_null(a.ctx.function) && is(a.target, "identifier") && is(a.value, "call") &&
        last_component(impl_->t(field(a.value, "function"))) == "ArgumentParser")
      out.emplace_back(impl_->t(a.target));
  return out;
}

std::vector<std::string> Model::args_variables(bool any_scope) const {
  std::vector<std::string> out;
  if (impl_->options.empty()) return out;
  for (const auto& a : impl_->all_assigns) {
    if ((!any_scope && !ts_node_is_null(a.ctx.function)) || !is(a.target, "identifier") || !is(a.value, "call")) continue;
    const std::string_view fn = last_component(impl_->t(field(a.value, "function")));
    if ((fn == "parse_args" || fn == "parse_known_args") &&
        std::find(out.begin(), out.end(), impl_->t(a.target)) == out.end())
      out.emplace_back(impl_->t(a.target));
  }
  return out;
}

std::vector<std::string> Model::imported_module_names() const {
  std::vector<std::string> out;
  for (const auto& m : impl_->imported_modules) {
    std::string first = m.substr(0, m.find('.'));
    if (std::find(out.begin(), out.end(), first) == out.end()) out.push_back(std::move(first));
  }
  return out;
}
TSNode Model::cuda_evidence() const { return impl_->cuda_node; }

bool Model::cuda_evidence_is_setting() const {
  TSNode n = impl_->cuda_node;
  if (ts_node_is_null(n) || !ts::is(n, "string")) return false;
  for (int guard = 0; guard < 8; ++guard) {
    const TSNode up = ts::parent(n);
    if (ts_node_is_null(up)) return false;
    const std::string_view k = ts::kind(up);
    if (k == "assignment") {
      if (!ts::same(ts::field(up, "right"), n)) return false;
      const TSNode left = ts::field(up, "left");
      if (ts::is(left, "identifier")) return true;
      return ts::is(left, "attribute") && impl_->t(ts::field(left, "object")) == "self";
    }
    if (k == "call") {
      const CallInfo* c = impl_->call_info(up);
      if (!c || c->qualname != "torch.device") return false;
    } else if (k != "conditional_expression" && k != "parenthesized_expression" && k != "argument_list") {
      return false;
    }
    n = up;
  }
  return false;
}

const void* Model::find_derived(void (*key)()) const {
  for (const auto& [k, v] : impl_->derived)
    if (k == key) return v.get();
  return nullptr;
}

void Model::keep_derived(void (*key)(), std::shared_ptr<const void> value) const {
  impl_->derived.emplace_back(key, std::move(value));
}

TSNode Model::enclosing(TSNode node, std::string_view kind_name) const {
  if (kind_name == "function_definition") return impl_->function_containing(node);
  for (TSNode p = ts::parent(node); !null(p); p = ts::parent(p))
    if (kind(p) == kind_name) return p;
  return TSNode{};
}

bool Model::switched_off(TSNode node) const { return impl_->switched_off(impl_->context_by_climbing(node)); }

bool Model::off_by_constant(TSNode node) const {
  const Context ctx = impl_->context_by_climbing(node);
  for (const Frame& f : ctx.frames) {
    if (f.kind != Frame::Kind::Condition || !is(f.node, "if_statement")) continue;
    const int truth = impl_->constant_truth(field(f.node, "condition"), ctx.function);
    if ((!null(f.condition) && truth == 0) || (null(f.condition) && truth == 1)) return true;
  }
  return false;
}

bool Model::under_condition(TSNode node, TSNode* condition) const { return condition_over(node, condition, false); }

bool Model::under_condition_not_on(TSNode node) const { return condition_over(node, nullptr, true); }

bool Model::condition_over(TSNode node, TSNode* condition, bool skip_on) const {
  Context ctx = impl_->context_by_climbing(node);
  // Module-level `if __name__ == "__main__":` is not a condition; functions are entered via calls.
  for (const auto& f : ctx.frames) {
    if (f.kind != Frame::Kind::Condition && f.kind != Frame::Kind::Guard) continue;
    if (!null(f.condition) && impl_->t(f.condition).find("__name__") != std::string_view::npos) continue;
    // The body of an `if` whose test the defaults make true (`if args.seed is not None:` with
    // `--seed` 1 by default: SpCL, held-out round 53) runs in a default launch.
    if (skip_on && f.kind == Frame::Kind::Condition && is(f.node, "if_statement") &&
        ts::same(ts::field(f.node, "condition"), f.condition)) {
      const TSNode body = ts::field(f.node, "consequence");
      if (!null(body) && ts_node_start_byte(node) >= ts_node_start_byte(body) &&
          ts_node_end_byte(node) <= ts_node_end_byte(body) && evaluate(f.condition).truthy() == true)
        continue;
    }
    if (condition) *condition = f.condition;
    return true;
  }
  return false;
}

}  // namespace perflint
