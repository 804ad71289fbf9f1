// Semantic model of one Python file, part: step detection: markers, the classes calls construct, the same-file call graph, step functions, step loops and rollout loops.
#include "parser/model/impl.hpp"

#include <map>
#include <cctype>
#include <unordered_set>

namespace perflint {

namespace {

bool starts_with_word(std::string_view name, std::string_view word) {
  return name.size() >= word.size() && name.substr(0, word.size()) == word &&
         (name.size() == word.size() || name[word.size()] == '_' || std::isdigit(static_cast<unsigned char>(name[word.size()])));
}

}  // namespace

bool Model::Impl::evaluation_name(std::string_view raw) {
  std::string name(raw);
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const std::string_view n = name;
  for (std::string_view w : {"test", "eval", "evaluate", "val", "valid", "validate", "validation", "inference", "predict"})
    if (starts_with_word(n, w)) return true;
  return n.find("evaluat") != std::string_view::npos || n.find("validat") != std::string_view::npos ||
         n.find("_eval") != std::string_view::npos || n.find("_test") != std::string_view::npos;
}

bool Model::Impl::evaluation_pass(size_t fi) const {
  if (!evaluation_name(functions[fi].name)) return false;
  const TSNode fn = functions[fi].node;
  if (std::any_of(loops.begin(), loops.end(), [&](const Loop& l) { return ts::same(l.ctx.function, fn); })) return true;
  // or running a model for evaluation: without gradients, or in eval mode.
  const std::string_view body = t(fn);
  return body.find("no_grad") != std::string_view::npos || body.find("inference_mode") != std::string_view::npos ||
         body.find(".eval()") != std::string_view::npos;
}

bool Model::Impl::optimizer_like(TSNode recv) const {
  if (null(recv)) return false;
  if (!is(recv, "identifier") && !is(recv, "attribute")) return optimizer_like_uncached(recv);
  const std::string_view text_of = t(recv);
  if (auto hit = optimizer_memo_.find(text_of); hit != optimizer_memo_.end()) return hit->second;
  const bool yes = optimizer_like_uncached(recv);
  optimizer_memo_.emplace(text_of, yes);
  return yes;
}

bool Model::Impl::optimizer_like_uncached(TSNode recv) const {
  const std::string_view name = last_component(t(recv));
  // "opt" (which "optim" contains) first: most arguments have none, and only a name can still be
  // an optimizer without it (assigned from torch.optim below).
  const bool opt = icontains(name, "opt");
  if (!opt && !is(recv, "identifier")) return false;
  if (icontains(name, "sched") || icontains(name, "lr_") || icontains(name, "scaler")) return false;
  if (opt) return true;
  // Assigned from torch.optim.X(...).
  if (is(recv, "identifier")) {
    const auto& by_name = bindings().by_name;
    const auto assigned = by_name.find(t(recv));
    if (assigned == by_name.end()) return false;
    for (size_t ai : assigned->second) {
      const Assign& a = all_assigns[ai];
      if (!is(a.value, "call")) continue;
      const std::string q = qualname_of(field(a.value, "function"));
      if (q.rfind("torch.optim.", 0) == 0 && q.find("lr_scheduler") == std::string::npos) return true;
    }
  }
  return false;
}

bool Model::Impl::is_marker(const CallInfo& c) const {
  if (c.method == "backward") return true;
  if (std::string_view(c.qualname) == "torch.autograd.backward") return true;
  if (c.method == "step") {
    if (optimizer_like(c.receiver)) return true;
    // scaler.step(optimizer)
    if (!c.positional.empty() && optimizer_like(c.positional.front())) return true;
  }
  // A mixed-precision trainer's optimizer step (`self.mp_trainer.optimize(self.opt)`: guided-
  // diffusion, consistency_models), after a backward in a micro-batch loop of another function.
  // (`opt`, `self.opt`, `optimizer`: not `opts`/`options`, which optimizer_like's "opt" would take.)
  if (c.method == "optimize" && !c.positional.empty() && optimizer_like(c.positional.front())) {
    const std::string_view arg = last_component(t(c.positional.front()));
    return arg == "opt" || icontains(arg, "optim");
  }
  return false;
}

// `model = Net()`, `model = DDP(Net().cuda(), ...)`, `self.enc = Encoder(cfg)`: the same-file class
// whose instance `callee` is; wrappers that call the module they wrap are seen through.
std::string_view Model::Impl::instance_class(TSNode callee, int depth) const {
  if (null(callee) || depth > 4) return {};
  if (!is(callee, "identifier") && !is(callee, "attribute")) return {};
  // Per name: a name assigned in every one of many copies of a script is resolved once.
  if (depth == 0)
    if (auto hit = instance_class_memo_.find(t(callee)); hit != instance_class_memo_.end()) return hit->second;
  const std::string_view found_class = instance_class_uncached(callee, depth);
  if (depth == 0) instance_class_memo_.emplace(t(callee), found_class);
  return found_class;
}

TSNode Model::Impl::constructed_class(TSNode call) const {
  const TSNode fn = field(call, "function");
  // A class picked under another name first (random-network-distillation's `agent = RNDAgent`,
  // then `agent = agent(...)`): the class the name is bound to, when every such binding names the
  // same one.
  if (is(fn, "identifier")) {
    const Bindings& b = bindings();
    TSNode alias{};
    if (const auto found = b.by_name.find(t(fn)); found != b.by_name.end())
      for (size_t ai : found->second) {
        const TSNode v = unparenthesized(all_assigns[ai].value);
        if (!is(v, "identifier") && !is(v, "attribute")) continue;
        if (t(v) == t(fn) || (!null(alias) && t(alias) != t(v))) return fn;
        alias = v;
      }
    return null(alias) ? fn : alias;
  }
  if (!is(fn, "attribute")) return fn;
  const std::string_view method = t(field(fn, "attribute"));
  if (method.starts_with("from_") || method == "load_from_checkpoint") return field(fn, "object");
  return fn;
}

std::string_view Model::Impl::instance_class_uncached(TSNode callee, int depth) const {
  std::string_view found;
  const auto from_value = [&](TSNode v) {
    const TSNode fn = is(v, "call") ? constructed_class(v) : TSNode{};
    if (!null(fn) && is(fn, "identifier") && class_methods.count(std::string(t(fn)) + ".forward")) {
      found = t(fn);
    } else if (!null(fn) && is(fn, "identifier")) {
      // `net = build_net(args)`, a factory of this file returning `Net(...)`.
      const std::string made = factory_made_class(v);
      if (made.starts_with(".") && class_methods.count(made.substr(1) + ".forward"))
        if (const auto c = class_nodes.find(made.substr(1)); c != class_nodes.end()) found = t(field(c->second, "name"));
    } else if ((is(v, "identifier") || is(v, "attribute")) && t(v) != t(callee)) {
      // `net = model`: follow the other name.
      found = instance_class(v, depth + 1);
    }
    return !found.empty();
  };
  for_each_built_from(callee, from_value);
  // A parameter, `def train(model, ...)`: what the file's calls of the function hand it
  // (`net = GraphNet(...)`, `train(net, opt, loader)`).
  if (found.empty() && is(callee, "identifier"))
    for_each_bound_argument(t(callee), [&](TSNode a) { return from_value(past_moves_and_wrappers(a)); });
  // A loop over a container of modules (glow's `for flow in self.flows: out = flow(out)`, held-out
  // round 47).
  if (found.empty() && is(callee, "identifier")) for_each_element_of(looped_container(callee), from_value);
  return found;
}

std::string_view Model::Impl::element_class(TSNode subscript) const {
  // `self.cells[i](x)`: an element of a container of modules of this file (a ModuleList filled with
  // one class).
  if (!is(subscript, "subscript") || is(field(subscript, "subscript"), "slice")) return {};
  std::string_view found;
  for_each_element_of(field(subscript, "value"), [&](TSNode v) {
    const TSNode fn = is(v, "call") ? constructed_class(v) : TSNode{};
    if (!null(fn) && is(fn, "identifier") && class_methods.count(std::string(t(fn)) + ".forward")) found = t(fn);
    return !found.empty();
  });
  return found;
}

TSNode Model::Impl::looped_container(TSNode callee) const {
  const std::string_view name = t(callee);
  // The innermost enclosing `for` of this function that binds the name (alone, or as the second of
  // `for i, block in enumerate(...)`).
  TSNode over{};
  for (TSNode up = ts::parent(callee); !null(up) && null(over); up = ts::parent(up)) {
    if (is(up, "function_definition") || is(up, "class_definition")) return {};
    if (!is(up, "for_statement")) continue;
    const TSNode left = field(up, "left");
    TSNode right = unparenthesized(field(up, "right"));
    const std::string_view wrapper = is(right, "call") ? t(field(right, "function")) : std::string_view{};
    const bool enumerated = wrapper == "enumerate";
    if (enumerated || wrapper == "reversed") {
      const TSNode args = field(right, "arguments");
      right = ts_node_named_child_count(args) >= 1 ? ts_node_named_child(args, 0) : TSNode{};
    }
    if (is(left, "identifier") && !enumerated && t(left) == name) {
      over = right;
    } else if (enumerated && (is(left, "pattern_list") || is(left, "tuple_pattern")) &&
               ts_node_named_child_count(left) == 2 && t(ts_node_named_child(left, 1)) == name) {
      over = right;
    }
  }
  return over;
}

void Model::Impl::for_each_element_of(TSNode over, const std::function<bool(TSNode)>& visit) const {
  // `self.flows[::-1]`: the same elements.
  if (is(over, "subscript") && is(field(over, "subscript"), "slice")) over = field(over, "value");
  if (!is(over, "identifier") && !is(over, "attribute")) return;
  const std::string_view container = t(over);
  const Bindings& b = bindings();
  const auto& index = is(over, "identifier") ? b.by_name : b.by_attribute;
  // Built whole: `nn.ModuleList([Block(...) for _ in range(n)])`, `nn.Sequential(A(), B())`, `[A(), B()]`.
  if (const auto found = index.find(container); found != index.end())
    for (size_t ai : found->second) {
      TSNode v = unparenthesized(all_assigns[ai].value);
      if (is(v, "call")) {
        const std::string_view kind = last_component(t(field(v, "function")));
        if (kind != "ModuleList" && kind != "Sequential" && kind != "list") continue;
        const TSNode args = field(v, "arguments");
        if (null(args) || ts_node_named_child_count(args) == 0) continue;
        v = ts_node_named_child(args, 0);
        if (kind == "Sequential" && is(v, "call")) {
          if (visit(v)) return;
          continue;
        }
      }
      if (is(v, "list_comprehension") && visit(unparenthesized(field(v, "body")))) return;
      if (is(v, "list"))
        for (TSNode e : ts::named_children(v))
          if (is(e, "call") && visit(e)) return;
    }
  // Filled one by one: `self.flows.append(Flow(...))`.
  for (const CallInfo& c : calls)
    if (c.method == "append" && !null(c.receiver) && t(c.receiver) == container && c.positional.size() == 1 &&
        is(c.positional.front(), "call") && visit(c.positional.front()))
      return;
}

std::string_view Model::Impl::object_class(TSNode receiver) const {
  if (class_nodes.empty()) return {};
  if (auto hit = object_class_memo_.find(t(receiver)); hit != object_class_memo_.end()) return hit->second;
  std::string_view found;
  const auto from_value = [&](TSNode v) {
    const TSNode fn = is(v, "call") ? constructed_class(v) : TSNode{};
    if (!null(fn) && is(fn, "identifier") && class_nodes.count(std::string(t(fn)))) {
      found = t(fn);
    } else if (!null(fn) && is(fn, "identifier")) {
      // `agent = make_agent(args)`, a factory of this file returning `Agent(...)`.
      const std::string made = factory_made_class(v);
      if (made.starts_with("."))
        if (const auto c = class_nodes.find(made.substr(1)); c != class_nodes.end()) found = t(field(c->second, "name"));
    }
    return !found.empty();
  };
  for_each_built_from(receiver, from_value);
  if (found.empty() && is(receiver, "identifier"))
    for_each_bound_argument(t(receiver), [&](TSNode a) { return from_value(past_moves_and_wrappers(a)); });
  object_class_memo_.emplace(t(receiver), found);
  return found;
}

std::string Model::Impl::factory_made_class(TSNode call) const {
  const TSNode fn = field(call, "function");
  if (!is(fn, "identifier") || class_nodes.count(std::string(t(fn)))) return {};
  const auto f = functions_by_name.find(t(fn));
  if (f == functions_by_name.end() || f->second.size() != 1 || !null(functions[f->second.front()].cls)) return {};
  return returned_class(f->second.front(), -1);
}

void Model::Impl::for_each_bound_argument(std::string_view name, const std::function<bool(TSNode)>& visit) const {
  if (name == "self" || name == "cls") return;
  const std::vector<size_t>& having = functions_with_param(name);
  if (having.empty()) return;
  if (!calls_by_callee_name_) {
    auto& index = calls_by_callee_name_.emplace();
    for (size_t i = 0; i < calls.size(); ++i) {
      const CallInfo& c = calls[i];
      if (is(c.function, "identifier")) index[t(c.function)].push_back(i);
      else if (is(c.function, "attribute") && is(c.receiver, "identifier") && t(c.receiver) == "self" && !c.method.empty())
        index[c.method].push_back(i);
    }
  }
  for (const size_t fi : having) {
    const Function& f = functions[fi];
    const auto callers_of = calls_by_callee_name_->find(f.name);
    if (callers_of == calls_by_callee_name_->end()) continue;
    // Its position as written; -1 (keyword only) after a `*args`, `*` or `**kw`.
    int index = -1, at = 0;
    bool positional = true;
    for (TSNode p : ts::named_children(field(f.node, "parameters"))) {
      if (is(p, "list_splat_pattern") || is(p, "dictionary_splat_pattern") || is(p, "keyword_separator")) {
        positional = false;
        continue;
      }
      if (is(p, "positional_separator")) continue;
      TSNode id = is(p, "identifier") ? p : is(p, "typed_parameter") ? ts_node_named_child(p, 0) : field(p, "name");
      if (is(id, "identifier") && t(id) == name) {
        index = positional ? at : -1;
        break;
      }
      ++at;
    }
    const bool method = !null(f.cls);
    if (method && index >= 0) --index;  // `self` is bound by the call's receiver
    for (size_t ci : callers_of->second) {
      const CallInfo& c = calls[ci];
      if (method != is(c.function, "attribute") || c.unresolved_kwargs) continue;
      // A method's call from its own class (`self.train_epoch(model)` in another method of it).
      if (method) {
        const size_t from = null(call_ctx[ci].function) ? SIZE_MAX : function_index(call_ctx[ci].function);
        if (from == SIZE_MAX || !ts::same(functions[from].cls, f.cls)) continue;
      }
      const TSNode a = c.arg(name, index);
      if (!null(a) && visit(a)) return;
    }
  }
}

// `class F(Function):`, `class F(torch.autograd.Function):`: a custom autograd function, whose
// forward() and backward() are static methods run through `F.apply(...)`.
bool Model::Impl::autograd_function(TSNode cls) const {
  const TSNode bases = field(cls, "superclasses");
  if (null(bases)) return false;
  for (TSNode b : ts::named_children(bases)) {
    const std::string q = qualname_of(b);
    if (q == "torch.autograd.Function" || q == "torch.autograd.function.Function" || t(b) == "Function" ||
        t(b).ends_with("autograd.Function"))
      return true;
  }
  return false;
}

std::vector<size_t> Model::Impl::callees(const CallInfo& c) const {
  std::string_view name;
  if (is(c.function, "identifier")) name = t(c.function);
  else if (is(c.function, "attribute") && is(c.receiver, "identifier") && t(c.receiver) == "self") name = c.method;
  std::vector<size_t> out;
  if (!name.empty())
    if (auto it = functions_by_name.find(name); it != functions_by_name.end()) out = it->second;
  // `self.build_targets(...)` inside a class that defines build_targets: that method, not every
  // method of the file with the name (several loss classes each have their own).
  if (is(c.function, "attribute") && out.size() > 1) {
    const Context& ctx = call_ctx[static_cast<size_t>(&c - calls.data())];
    const size_t fn = null(ctx.function) ? SIZE_MAX : function_index(ctx.function);
    const TSNode cls = fn == SIZE_MAX ? TSNode{} : functions[fn].cls;
    if (!null(cls))
      if (auto m = class_methods.find(std::string(t(field(cls, "name"))) + "." + std::string(name)); m != class_methods.end())
        out = {m->second};
  }
  // A function of this file handed to a call as a closure runs with it: `gpu_timer(train_step)`
  // (I-JEPA times its whole step this way), `optimizer.step(closure)`, `checkpoint(block, x)`.
  // (A bare name is never a method: `len(caption) for caption in captions` next to a `def caption(self,
  // ...)` of the class hands over the loop's variable; Show-Attend-and-Tell, held-out round 40.)
  for (TSNode a : c.positional)
    if (is(a, "identifier"))
      if (auto it = functions_by_name.find(t(a)); it != functions_by_name.end() && it->second.size() == 1 &&
                                                  null(functions[it->second.front()].cls) &&
                                                  std::find(out.begin(), out.end(), it->second.front()) == out.end())
        out.push_back(it->second.front());
  // A function of this file kept in an attribute, `self.act = gelu` or `self.head = ProtoNetHead`,
  // then `self.head(query, ...)`: the function the attribute is bound to, when the branches the
  // defaults leave on bind it to one (MetaOptNet's ClassificationHead picks one of six heads by a
  // constructor argument that each launch sets: not followed, as no single head is known to run;
  // held-out round 48).
  if (out.empty() && is(c.function, "attribute") && is(c.receiver, "identifier") && t(c.receiver) == "self" &&
      !c.method.empty())
    if (const auto found = bindings().by_attribute.find(t(c.function)); found != bindings().by_attribute.end()) {
      std::optional<size_t> bound;
      bool known = true;
      for (size_t ai : found->second) {
        if (switched_off(all_assigns[ai].ctx)) continue;
        const TSNode v = unparenthesized(all_assigns[ai].value);
        const auto it = is(v, "identifier") ? functions_by_name.find(t(v)) : functions_by_name.end();
        // Something else, or a second function: not known.
        known = it != functions_by_name.end() && it->second.size() == 1 && null(functions[it->second.front()].cls) &&
                (!bound || *bound == it->second.front());
        if (!known) break;
        bound = it->second.front();
      }
      if (known && bound) out.push_back(*bound);
    }
  // `diffusion.sample_timesteps(n)` with `diffusion = Diffusion(...)`, a class of this file.
  if (out.empty() && is(c.function, "attribute") && !c.method.empty() && method_names.count(c.method) &&
      (is(c.receiver, "identifier") || is(c.receiver, "attribute")) && t(c.receiver) != "self")
    if (const std::string_view cls = object_class(c.receiver); !cls.empty())
      if (auto m = class_methods.find(std::string(cls) + "." + std::string(c.method)); m != class_methods.end())
        out.push_back(m->second);
  // A custom autograd Function of this file: `NCEFunction.apply(x, ...)` runs its forward() there
  // and its backward() in the step's backward pass (lemniscate's NCEAverage; held-out round 14).
  if (c.method == "apply" && is(c.receiver, "identifier") && method_names.count("forward"))
    if (auto cls = class_nodes.find(std::string(t(c.receiver))); cls != class_nodes.end() && autograd_function(cls->second))
      for (const char* m : {".forward", ".backward"})
        if (auto f = class_methods.find(cls->first + m); f != class_methods.end())
          if (std::find(out.begin(), out.end(), f->second) == out.end()) out.push_back(f->second);
  // `cls.method` of this file, once.
  const auto add_method = [&](std::string_view cls, std::string_view method) {
    if (cls.empty()) return;
    if (auto m = class_methods.find(std::string(cls) + "." + std::string(method)); m != class_methods.end())
      if (std::find(out.begin(), out.end(), m->second) == out.end()) out.push_back(m->second);
  };
  // Calling a module runs its forward(): `model(x)`, `self.encoder(h)`, `criterion(out, y)`. Only
  // a class of the file with a forward() can be found (most files, library code, have none).
  if ((out.empty() || is(c.function, "attribute")) && method_names.count("forward"))
    add_method(instance_class(c.function), "forward");
  if (out.empty() && is(c.function, "subscript") && method_names.count("forward"))
    add_method(element_class(c.function), "forward");
  // Calling an instance of another class of the file runs its __call__ (`metric(logits, labels,
  // loss)` with `metric = SFTMetric(...)`: MOSS's fine-tuning loop, held-out round 26).
  if (out.empty() && method_names.count("__call__") && (is(c.function, "identifier") || is(c.function, "attribute")))
    add_method(object_class(c.function), "__call__");
  return out;
}

size_t Model::Impl::function_index(TSNode fn) const {
  auto it = fn_index.find(key(fn));
  return it == fn_index.end() ? SIZE_MAX : it->second;
}

void Model::Impl::link_calls() {
  for (size_t f = 0; f < functions.size(); ++f) {
    // def inside `class X:` (its block): a method of X.
    if (const TSNode cls = functions[f].cls; !null(cls)) {
      class_methods.emplace(std::string(t(field(cls, "name"))) + "." + functions[f].name, f);
      class_nodes[std::string(t(field(cls, "name")))] = cls;
      method_names.insert(t(field(functions[f].node, "name")));
    }
  }
  call_callees.resize(calls.size());
  callers.assign(functions.size(), {});
  dispatched_base.assign(calls.size(), SIZE_MAX);
  // Only step code asks the project about subclasses (library files with many importers do not).
  const bool step_text = project && !class_methods.empty() &&
                         (text.find("backward(") != std::string_view::npos || text.find(".step(") != std::string_view::npos);
  for (size_t i = 0; i < calls.size(); ++i) {
    call_callees[i] = callees(calls[i]);
    if (step_text) dispatch_overrides(i);
    for (size_t f : call_callees[i]) callers[f].push_back(i);
  }
}

void Model::Impl::dispatch_overrides(size_t i) {
  const CallInfo& c = calls[i];
  if (c.method.empty() || !is(c.function, "attribute") || !is(c.receiver, "identifier") || t(c.receiver) != "self")
    return;
  const TSNode caller = call_ctx[i].function;
  const size_t fn = null(caller) ? SIZE_MAX : function_index(caller);
  if (fn == SIZE_MAX || null(functions[fn].cls)) return;
  const std::string cls(t(field(functions[fn].cls, "name")));
  const auto base = class_methods.find(cls + "." + std::string(c.method));
  if (base == class_methods.end()) return;
  std::vector<size_t>& out = call_callees[i];
  if (std::find(out.begin(), out.end(), base->second) == out.end()) return;
  bool unreached = false;
  const auto overrides = project->method_overrides(src.path(), cls, c.method, &unreached);
  // Which of several subclasses the run builds is not known here (decision-transformer's
  // SequenceTrainer or ActTrainer by --model_type, sac-discrete's SacdAgent or SharedSacdAgent by
  // --shared): only a single override is followed.
  for (auto& [file, method] : overrides) {
    if (!file.empty()) calls_with_foreign_overrides.insert(i);
    if (overrides.size() != 1) continue;
    if (!file.empty()) {
      foreign_overrides[i].emplace_back(file, method);
      continue;
    }
    // A subclass of this file: its override runs too.
    if (auto m = class_methods.find(method); m != class_methods.end() && std::find(out.begin(), out.end(), m->second) == out.end())
      out.push_back(m->second);
  }
  if (unreached) {
    out.erase(std::find(out.begin(), out.end(), base->second));
    dispatched_base[i] = base->second;
  }
}

const Frame* Model::Impl::innermost_loop(const Context& ctx) {
  for (size_t k = ctx.frames.size(); k-- > 0;)
    if (ctx.frames[k].kind == Frame::Kind::Loop) return &ctx.frames[k];
  return nullptr;
}

bool Model::Impl::frames_have_loop(const Context& ctx) {
  return std::any_of(ctx.frames.begin(), ctx.frames.end(), [](const Frame& f) { return f.kind == Frame::Kind::Loop; });
}

void Model::Impl::find_steps() {
  if (is_test_path(src.path())) return;  // a test's few steps are not a training run
  // Step functions: a marker outside any loop of the function, directly or through a call to
  // another step function (fixpoint; bounded by the number of functions).
  std::vector<size_t> call_fn(calls.size(), SIZE_MAX);
  for (size_t i = 0; i < calls.size(); ++i)
    if (!null(call_ctx[i].function)) call_fn[i] = function_index(call_ctx[i].function);
  std::vector<bool> marker(calls.size());
  // (function start, receiver) -> the classes a step method called on the receiver by name runs in.
  std::map<std::pair<uint32_t, std::string_view>, std::vector<std::pair<const ModuleSummary*, std::string>>> typed_by_step;
  for (size_t i = 0; i < calls.size(); ++i) {
    marker[i] = is_marker(calls[i]);
    // A call into another file of the project that does the backward and the optimizer step
    // (`loss_scaler(loss, optimizer, ...)`, `trainer.train_step(batch)`): a marker too.
    // Asked only of calls that hand over an optimizer or are named for a step (a cheap filter:
    // resolving every call of a large file is not).
    if (marker[i]) continue;
    const CallInfo& c = calls[i];
    // A callable handed the loss and the optimizer does the backward and the step with them
    // (`loss_scaler(loss, optimizer, clip_grad=...)`, timm/DeiT/MAE's NativeScaler): a step.
    // The loss is a value computed in the same loop (`loss = criterion(...)` in its body), not a
    // loss module built before it (`train_one_epoch(model, dino_loss, loader, optimizer)`); and a
    // callee of this file is judged by its own body (find_steps' fixpoint below).
    const Frame* loop = innermost_loop(call_ctx[i]);
    const bool local_callee = is(c.function, "identifier") && functions_by_name.count(t(c.function));
    if (loop && !local_callee && (!is(c.function, "attribute") || c.method != "step")) {
      bool optimizer = false, loss = false;
      auto assigned_in_loop = [&](TSNode name) {  // also as one target of `loss, _, _ = model(x)`
        for (const Assign& a : all_assigns) {
          const uint32_t at = ts_node_start_byte(a.statement);
          if (at < ts_node_start_byte(loop->node) || at >= ts_node_end_byte(loop->node)) continue;
          std::vector<std::string_view> names;
          bound_names(a.target, text, names);
          if (std::find(names.begin(), names.end(), t(name)) != names.end()) return true;
        }
        return false;
      };
      auto look = [&](TSNode a) {
        optimizer = optimizer || optimizer_like(a);
        loss = loss || (is(a, "identifier") && icontains(t(a), "loss") && assigned_in_loop(a));
      };
      // A loss-named argument first (a text test): most calls in a loop hand over none.
      bool loss_named = false;
      for (TSNode a : c.positional) loss_named = loss_named || (is(a, "identifier") && icontains(t(a), "loss"));
      for (const Argument& a : c.keywords)
        loss_named = loss_named || (a.name != "**" && is(a.value, "identifier") && icontains(t(a.value), "loss"));
      if (loss_named) {
        for (TSNode a : c.positional) look(a);
        for (const Argument& a : c.keywords)
          if (a.name != "**") look(a.value);
      }
      if (optimizer && loss) {
        marker[i] = true;
        continue;
      }
    }
    if (!project) continue;
    bool candidate = icontains(c.method, "step") || icontains(t(c.function), "train_step");
    // In a loop, a call named for training (`policy.train(replay_buffer, batch_size)`: TD3,
    // `dqn.learn(mem)`: Rainbow, `agent.update_parameters(...)`) that runs a step method of another
    // file of the project.
    if (!candidate && loop) {
      const std::string_view callee = is(c.function, "attribute") ? std::string_view(c.method) : t(c.function);
      for (std::string_view w : {"train", "learn", "update", "optimi", "fit"}) candidate = candidate || icontains(callee, w);
    }
    for (TSNode a : c.positional) candidate = candidate || optimizer_like(a);
    for (const Argument& a : c.keywords) candidate = candidate || (a.name != "**" && optimizer_like(a.value));
    // In a loop, calling an instance of a project module whose forward() does the whole step
    // (MAML's `accs = maml(x_spt, y_spt, x_qry, y_qry)`, Meta.forward ending in backward and
    // meta_optim.step(): held-out round 36).
    // (Only a name this file binds, `maml = Meta(...)`, or an attribute of self: most calls in a
    // loop are methods of tensors and library functions, and resolving each costs time.)
    const bool module_like =
        c.qualname.empty() &&
        ((is(c.function, "identifier") && bindings().by_name.count(t(c.function))) ||
         (is(c.function, "attribute") && t(field(c.function, "object")) == "self"));
    if (!candidate && loop && module_like)
      if (const std::string target = outgoing_target(c); target.ends_with(".__call__"))
        // Its forward(), not a class's own __call__ (GradCAM's).
        if (const ModuleSummary* holder =
                project->step_function(src.path(), target.substr(0, target.size() - 9) + ".forward")) {
          marker[i] = true;
          step_siblings.emplace_back(holder, c.node);
          continue;
        }
    // `retry_call(model.train, tries=3)`: a step method of another file handed to a call that runs
    // it (lightweight-gan's cli.py, held-out round 12).
    const std::string referenced = loop ? referenced_target(c) : std::string();
    if (!candidate && referenced.empty()) continue;
    const std::string own = candidate ? outgoing_target(c) : std::string();
    for (const std::string& target : {own, referenced}) {
      if (target.empty()) continue;
      if (const ModuleSummary* holder = project->step_function(src.path(), target)) {
        marker[i] = true;
        step_siblings.emplace_back(holder, c.node);  // its precision is the step's
        break;
      }
    }
    // In a loop, a method named for training on a receiver this file cannot type (`loss_dict =
    // model.train_a_batch(x, y)` on a parameter: continual-learning, held-out round 36;
    // `model.optimize_parameters()` on what `create_model(opt)` picks by name: the pix2pix/CycleGAN
    // family) runs the step when the project defines the method only as steps. Not names that
    // library objects share (`pbar.update(1)`, `model.train()`, `env.step(a)`, `clf.fit(X)`).
    if (!marker[i] && candidate && loop && is(c.function, "attribute") && c.qualname.empty() &&
        is(c.receiver, "identifier") && t(c.receiver) != "self" && distinctive_step_method(c.method) &&
        // Not a method of the same name handing the batch on (`for m in self.members:
        // m.optimize_parameters()` in an ensemble's optimize_parameters): its caller's loop is the step.
        (null(call_ctx[i].function) || t(field(call_ctx[i].function, "name")) != c.method) &&
        (own.empty() || !project->project_function(src.path(), own, nullptr))) {
      auto methods = project->step_methods_named(src.path(), c.method);
      if (!methods.empty()) {
        marker[i] = true;
        // Each class may be the one the run builds: the precision rules ask all of them.
        for (const auto& m : methods)
          if (std::none_of(step_siblings.begin(), step_siblings.end(),
                           [&](const auto& s) { return s.first == m.first && ts::same(s.second, c.node); }))
            step_siblings.emplace_back(m.first, c.node);
        calls_with_foreign_overrides.insert(i);
        auto& classes = typed_by_step[{null(call_ctx[i].function) ? 0 : ts_node_start_byte(call_ctx[i].function), t(c.receiver)}];
        for (auto& [holder, qualified] : methods) {
          classes.emplace_back(holder, qualified.substr(0, qualified.rfind('.')));
          foreign_overrides[i].emplace_back(holder->path, std::move(qualified));
        }
      }
    }
  }
  // The receiver's other methods called in the loop run in the same classes (`model.set_input(data)`
  // before `model.optimize_parameters()`): followed there when the class defines them.
  if (!typed_by_step.empty())
    for (size_t i = 0; i < calls.size(); ++i) {
      const CallInfo& c = calls[i];
      if (marker[i] || !is(c.function, "attribute") || !is(c.receiver, "identifier") || !innermost_loop(call_ctx[i]))
        continue;
      const auto typed =
          typed_by_step.find({null(call_ctx[i].function) ? 0 : ts_node_start_byte(call_ctx[i].function), t(c.receiver)});
      if (typed == typed_by_step.end()) continue;
      for (const auto& [holder, cls] : typed->second) {
        const std::string qualified = cls + "." + std::string(c.method);
        for (const FunctionSummary& f : holder->functions)
          if (f.qualified == qualified) {
            foreign_overrides[i].emplace_back(holder->path, qualified);
            calls_with_foreign_overrides.insert(i);
            break;
          }
      }
    }
  // `for optimizer in optimizers: optimizer.step()` (CSAIL's segmentation trainer): a loop over the
  // optimizers of one step, not over steps; the loop around it is the step loop.
  // So is `for classifier, optimizer in zip(classifiers, optimizers):` (iBOT's linear evaluation of
  // several heads on one batch; held-out round 16).
  auto over_optimizers = [&](const Frame& fr, size_t call) {
    if (!marker[call] || calls[call].method != "step" || !is(fr.node, "for_statement")) return false;
    std::vector<std::string_view> names;
    bound_names(field(fr.node, "left"), text, names);
    const CallInfo& c = calls[call];
    return std::any_of(names.begin(), names.end(), [&](std::string_view n) {
      return n == t(c.receiver) || (!c.positional.empty() && n == t(c.positional.front()));
    });
  };
  // A function whose loop over data takes optimizer steps, with one more after the loop (minimind's
  // `if last_step % accumulation_steps != 0: scaler.step(optimizer)`, the flush of a last partial
  // accumulation) is an epoch, not a step: a loop calling it is not the step loop. (Not a loop over
  // the optimizers of one step: `loss.backward()` then `for opt in opts: opt.step()` is a step.)
  std::unordered_set<size_t> loops_stepping;
  for (size_t i = 0; i < calls.size(); ++i) {
    if (!marker[i] || calls[i].method != "step" || call_fn[i] == SIZE_MAX) continue;
    const Frame* fr = innermost_loop(call_ctx[i]);
    if (!fr || !is(fr->node, "for_statement") || over_optimizers(*fr, i)) continue;
    // A loop over data, not `for _ in range(num_D_steps):` (BigGAN's several discriminator steps on
    // one batch, inside a step function).
    const TSNode over = iterable_base(field(fr->node, "right"), nullptr);
    if (is(over, "call") && t(field(over, "function")) == "range") continue;
    if (ts::same(function_containing(fr->node), call_ctx[i].function)) loops_stepping.insert(call_fn[i]);
  }
  for (size_t i = 0; i < calls.size(); ++i)
    if (marker[i] && call_fn[i] != SIZE_MAX && !frames_have_loop(call_ctx[i]) && !loops_stepping.count(call_fn[i]))
      functions[call_fn[i]].step_fn = true;
  for (size_t round = 0; round < functions.size() + 1; ++round) {
    bool changed = false;
    for (size_t i = 0; i < calls.size(); ++i) {
      if (call_fn[i] == SIZE_MAX || functions[call_fn[i]].step_fn || frames_have_loop(call_ctx[i])) continue;
      for (size_t f : call_callees[i])
        if (functions[f].step_fn && f != call_fn[i]) { functions[call_fn[i]].step_fn = true; changed = true; }
      // The overrides of a dispatched base method do its step (they are not all of this file).
      if (const size_t b = dispatched_base[i]; b != SIZE_MAX && functions[b].step_fn && !functions[call_fn[i]].step_fn) {
        functions[call_fn[i]].step_fn = true;
        changed = true;
      }
    }
    if (!changed) break;
  }
  // Loops that contain a step directly (a marker or a call to a step function in their body).
  auto mark_loops = [&](size_t call) {
    for (const auto& fr : call_ctx[call].frames)
      if (fr.kind == Frame::Kind::Loop && !over_optimizers(fr, call)) {
        auto it = loop_index.find(key(fr.node));
        if (it != loop_index.end()) loops[it->second].direct_step = true;
      }
  };
  for (size_t i = 0; i < calls.size(); ++i) {
    bool step = marker[i];
    if (!step)
      for (size_t f : call_callees[i]) step = step || functions[f].step_fn;
    step = step || (dispatched_base[i] != SIZE_MAX && functions[dispatched_base[i]].step_fn);
    if (step) mark_loops(i);
    // `optimizer.step()` / `scaler.step(opt)` whose innermost loop is this one.
    if (marker[i] && calls[i].method == "step")
      for (size_t k = call_ctx[i].frames.size(); k-- > 0;)
        if (call_ctx[i].frames[k].kind == Frame::Kind::Loop && !over_optimizers(call_ctx[i].frames[k], i)) {
          if (auto it = loop_index.find(key(call_ctx[i].frames[k].node)); it != loop_index.end())
            loops[it->second].own_optimizer_step = true;
          break;
        }
  }
  // Step loops: the innermost loops that contain a step, and a loop with its own optimizer step
  // around an inner one that only accumulates gradients (`for micro_step in range(accum): ...
  // loss.backward()`, then `optimizer.step()`): once per optimizer step is every step.
  for (auto& l : loops) l.step = l.direct_step;
  for (auto& l : loops) {
    if (!l.direct_step) continue;
    for (const auto& fr : l.ctx.frames) {
      if (fr.kind != Frame::Kind::Loop) continue;
      auto it = loop_index.find(key(fr.node));
      if (it != loop_index.end() && !loops[it->second].own_optimizer_step) loops[it->second].step = false;
    }
  }
  // A step loop that only repeats the update (`for _ in range(num_updates): agent.update(...)`: curl,
  // SAC-style off-policy RL; its variable unused, no batch taken in it) directly inside a loop of the
  // same function: the outer loop is the one that steps (through the environment or the data), and
  // what runs there (acting, copies, logging) runs every step.
  for (auto& l : loops) {
    if (!l.step || !is(l.node, "for_statement")) continue;
    const TSNode right = field(l.node, "right"), left = field(l.node, "left");
    if (!is(right, "call") || t(field(right, "function")) != "range" || !is(left, "identifier")) continue;
    const TSNode body = field(l.node, "body");
    const std::string_view var = t(left), inside = t(body);
    bool used = false;
    for (size_t at = inside.find(var); at != std::string_view::npos && !used; at = inside.find(var, at + 1)) {
      const auto word = [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_'; };
      used = (at == 0 || !word(inside[at - 1])) && (at + var.size() >= inside.size() || !word(inside[at + var.size()]));
    }
    if (used || inside.find("next(") != std::string_view::npos) continue;
    const Frame* outer = innermost_loop(l.ctx);
    if (!outer || !ts::same(function_containing(outer->node), function_containing(l.node))) continue;
    const auto it = loop_index.find(key(outer->node));
    if (it == loop_index.end()) continue;
    l.step = false;
    loops[it->second].step = true;
  }
  // A training loop in a module-level function that nothing can call is dead code: not this file
  // (no call, not named as a value: `fire.Fire(train)`, `target=train`), and every project file that
  // imports the module takes other names from it (LTSF-Linear's FEDformer/layers/utils.py `train()`,
  // imported only for get_filter: held-out round 24). A decorated function may be registered or run
  // by its decorator: left alone.
  if (project)
    for (auto& l : loops) {
      if (!l.step || null(l.ctx.function)) continue;
      const size_t f = function_index(l.ctx.function);
      if (f == SIZE_MAX || !callers[f].empty() || !is(ts::parent(functions[f].node), "module")) continue;
      const std::string& name = functions[f].name;
      // The project's answer first: most modules have no importer (a script), and the scan below
      // reads the whole file.
      if (!project->importers_cannot_name(src.path(), name)) continue;
      bool named = false;
      for (size_t at = text.find(name); at != std::string_view::npos && !named; at = text.find(name, at + 1)) {
        if ((at > 0 && is_ascii_name_byte(text[at - 1])) ||
            (at + name.size() < text.size() && is_ascii_name_byte(text[at + name.size()])))
          continue;
        if (at == ts_node_start_byte(field(functions[f].node, "name"))) continue;  // its def
        size_t b = at;
        while (b > 0 && (text[b - 1] == ' ' || text[b - 1] == '\t')) --b;
        named = !(b > 0 && text[b - 1] == '.');  // `model.train()` is another name
      }
      if (!named) l.step = false;
    }
  for (auto& l : loops)
    if (l.step) {
      step_loop_nodes.push_back(l.node);
      if (!null(l.ctx.function)) {
        const size_t f = function_index(l.ctx.function);
        if (f != SIZE_MAX) functions[f].has_step_loop = true;
      }
    }
  find_rollout_loops();
  marker_calls = std::move(marker);
  // Repeated: an outer loop around the step loop, or its function is called inside a loop.
  for (auto& l : loops) {
    if (!l.step) continue;
    l.repeated = frames_have_loop(l.ctx);
    if (!l.repeated && !null(l.ctx.function)) {
      const size_t f = function_index(l.ctx.function);
      if (f != SIZE_MAX)
        for (size_t i : callers[f])
          if (frames_have_loop(call_ctx[i])) l.repeated = true;
    }
  }
}

// `obs, reward, done, info = envs.step(action)`: a reinforcement-learning environment's step (gym's
// API), not an optimizer's, scheduler's or scaler's: the receiver is named for an environment, or
// the call's result is unpacked into four names or more.
bool Model::Impl::environment_step(const CallInfo& c) const {
  // An action sent to an environment that a worker process steps (random-network-distillation's
  // `parent_conn.send(action)` over a multiprocessing Pipe; `envs.step_async(actions)`).
  // So is `("step", action)` sent over the Pipe (Super-mario-bros-PPO, recurrent-ppo's workers).
  if ((c.method == "send" || c.method == "step_async") && c.positional.size() == 1 && c.keywords.empty()) {
    const TSNode a = c.positional.front();
    if (is(a, "identifier") && icontains(t(a), "action")) return true;
    if (is(a, "tuple") && ts_node_named_child_count(a) == 2) {
      const std::string_view first = t(ts_node_named_child(a, 0));
      if (first == "\"step\"" || first == "'step'") return true;
    }
  }
  if (c.method != "step" || null(c.receiver) || optimizer_like(c.receiver)) return false;
  const std::string_view name = last_component(t(c.receiver));
  if (icontains(name, "sched") || icontains(name, "lr_") || icontains(name, "scaler")) return false;
  if (icontains(name, "env")) return true;
  const TSNode parent = ts_node_parent(c.node);
  if (null(parent) || !is(parent, "assignment")) return false;
  const TSNode left = field(parent, "left");
  return !null(left) && (is(left, "pattern_list") || is(left, "tuple_pattern")) && ts_node_named_child_count(left) >= 4;
}

// Rollout loops (on-policy RL: cleanrl's PPO, Spinning Up's VPG and PPO). Each iteration of the
// outer loop first steps the environments `num_steps` times, then updates the policy: the rollout
// loop is as hot as the update's step loop (`envs.step(action.cpu().numpy())` and the tensors built
// from its results run 128 times an iteration), so it is a step loop too. It is a loop that steps
// an environment, in the body of a loop that also runs the update (a step loop, or a call to a
// function of this file that has one, at any depth: PPO's update is `for epoch: for minibatch:`),
// with no condition between the two loops (an evaluation every N iterations is not a rollout).
void Model::Impl::find_rollout_loops() {
  std::unordered_set<NodeKey, NodeKeyHash> outer;  // loops whose body runs an update
  auto add_loops = [&](const Context& ctx) {
    for (const Frame& fr : ctx.frames)
      if (fr.kind == Frame::Kind::Loop) outer.insert(key(fr.node));
  };
  for (const auto& l : loops)
    if (l.step) add_loops(l.ctx);
  for (size_t i = 0; i < calls.size(); ++i)
    for (size_t f : call_callees[i])
      if (functions[f].has_step_loop) add_loops(call_ctx[i]);
  // Or a loop that calls another file's update (`agent.update(obs, returns)` of ppo.py's PPO): only
  // asked of a file that steps an environment in a loop.
  const std::unordered_set<NodeKey, NodeKeyHash> own = outer;
  if (project && std::any_of(calls.begin(), calls.end(), [&](const CallInfo& c) {
        return environment_step(c) && innermost_loop(call_ctx[static_cast<size_t>(&c - calls.data())]);
      }))
    for (size_t i = 0; i < calls.size(); ++i) {
      if (!call_callees[i].empty() || !innermost_loop(call_ctx[i]) || environment_step(calls[i])) continue;
      if (const std::string target = outgoing_target(calls[i]); !target.empty() && project->holds_step_loop(src.path(), target))
        add_loops(call_ctx[i]);
    }
  if (outer.empty()) return;
  for (size_t i = 0; i < calls.size(); ++i) {
    if (!environment_step(calls[i])) continue;
    const Context& ctx = call_ctx[i];
    const Frame* r = innermost_loop(ctx);
    if (!r) continue;
    auto it = loop_index.find(key(r->node));
    if (it == loop_index.end() || loops[it->second].step) continue;
    // A loop over the workers or environments of one step (`for parent_conn, action in
    // zip(parent_conns, actions): parent_conn.send(action)`) is part of the rollout step around it.
    while (is(loops[it->second].node, "for_statement") && !outer.count(key(loops[it->second].node))) {
      const TSNode over = iterable_base(field(loops[it->second].node, "right"), nullptr);
      if (is(over, "call") && t(field(over, "function")) == "range") break;
      const Frame* up = innermost_loop(loops[it->second].ctx);
      if (!up || outer.count(key(up->node))) break;
      const auto next = loop_index.find(key(up->node));
      if (next == loop_index.end() || loops[next->second].step) break;
      it = next;
    }
    Loop& rollout = loops[it->second];
    // The rollout loop's own frames: the loop around it must run the update, with nothing
    // conditional (or a nested function) in between.
    const auto& frames = rollout.ctx.frames;
    // Or the rollout loop runs the update itself, every so many environment steps (`if traj_lenth %
    // T_horizon == 0: agent.train()`, where train() holds PPO's epoch loops: DRL-Pytorch's PPO,
    // held-out round 31): collection and update interleave in one loop.
    bool found = outer.count(key(rollout.node)) > 0;
    for (size_t k = frames.size(); !found && k-- > 0;) {
      const Frame& fr = frames[k];
      if (fr.kind == Frame::Kind::Loop) {
        found = outer.count(key(fr.node)) > 0;
        break;
      }
      if (fr.kind != Frame::Kind::Guard && fr.kind != Frame::Kind::Condition && fr.kind != Frame::Kind::Function &&
          fr.kind != Frame::Kind::Lambda && fr.kind != Frame::Kind::Class)
        continue;
      break;
    }
    if (!found) continue;
    rollout.step = true;
    // Its update is another file's only (no step loop of this file around it).
    bool own_update = false;
    for (const Frame& fr : frames)
      if (fr.kind == Frame::Kind::Loop && own.count(key(fr.node))) own_update = true;
    if (!own_update) foreign_rollouts.insert(key(rollout.node));
    step_loop_nodes.push_back(rollout.node);
    if (!null(rollout.ctx.function))
      if (const size_t f = function_index(rollout.ctx.function); f != SIZE_MAX) functions[f].has_step_loop = true;
  }
}

}  // namespace perflint
