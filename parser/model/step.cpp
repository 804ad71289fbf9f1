// Semantic model of one Python file, part: Step detection: the same-file call graph, step functions, step loops, batch names.
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
  return found;
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

// `if p:` / `if not p:` (consequence or else branch): the parameter-like name p tested and the value
// of p under which the branch runs (1 or 0); -1 when the frame is no such test.
int tested_name(const Frame& f, std::string_view src, std::string_view* name) {
  if (f.kind != Frame::Kind::Condition || !is(f.node, "if_statement")) return -1;
  TSNode c = field(f.node, "condition");
  bool negated = false;
  if (is(c, "not_operator")) {
    negated = true;
    c = field(c, "argument");
  }
  if (!is(c, "identifier")) return -1;
  *name = ts::text(c, src);
  const bool in_consequence = !null(f.condition);
  return (in_consequence != negated) ? 1 : 0;
}

}  // namespace

// A branch of a step loop that tests a parameter of the loop's function which nothing rebinds, on
// the side opposite to every training-step call of the loop (`if is_train: loss.backward(); ...`
// then `else: writer.add_scalar("val_loss", loss.item())`: pytorch-original-transformer's
// train_val_loop, held-out round 27): the function runs either as the training step or as the other
// pass, never both, so the branch does not run with the step.
bool Model::Impl::opposite_to_markers(const Frame& f, TSNode loop) const {
  std::string_view name;
  const int side = tested_name(f, text, &name);
  if (side < 0) return false;
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
    for (const Frame& g : call_ctx[ci].frames) {
      std::string_view other;
      const int s2 = tested_name(g, text, &other);
      if (s2 >= 0 && other == name && s2 != side) opposite = true;
    }
    if (!opposite) return false;
    any = true;
  }
  return any;
}

Model::Impl::StepWhere Model::Impl::step_where(const Context& ctx, int depth) const {
  StepWhere w;
  if (!any_step) return w;
  // A branch an argparse flag's default switches off runs in no default launch.
  if (switched_off(ctx)) return w;
  // Innermost step loop among the frames; guards after it count.
  for (size_t i = ctx.frames.size(); i-- > 0;) {
    const Frame& f = ctx.frames[i];
    if (f.kind != Frame::Kind::Loop) continue;
    auto it = loop_index.find(key(f.node));
    if (it == loop_index.end() || !loops[it->second].step) continue;
    w.loop = static_cast<int>(it->second);
    for (size_t j = i + 1; j < ctx.frames.size(); ++j)
      if (opposite_to_markers(ctx.frames[j], f.node)) return StepWhere{};
    for (size_t j = i + 1; j < ctx.frames.size(); ++j)
      if (guarded(ctx.frames[j])) { w.guard = &ctx.frames[j]; break; }
    // Nested functions/lambdas inside the loop body are not run by it.
    return w;
  }
  if (null(ctx.function) || depth > 64) return w;
  const size_t fi = function_index(ctx.function);
  // Any function the step calls runs with it (a helper, a module's forward), except a constructor
  // and an evaluation pass (`test`, `evaluate`, `validate`, `val_epoch`): run each step, it is the
  // user's choice of how often to validate, not step code (the rule for helpers).
  if (fi == SIZE_MAX || functions[fi].name == "__init__") return w;
  if (!functions[fi].step_fn && evaluation_pass(fi)) return w;
  w = function_step_where(fi, depth);
  if (w.in() && off_by_default(fi, ctx)) return StepWhere{};
  // Run directly by other files' steps:
  if (w.external >= 0 && w.loop < 0 && fi < fn_external.size() && fn_external[fi] == w.external) {
    // that pass only host scalars (`logger.update(loss=loss.item())`): a branch for tensors (`if
    // isinstance(v, torch.Tensor): v = v.item()`) does not run;
    if (external[static_cast<size_t>(w.external)].host_args && under_tensor_test(ctx)) return StepWhere{};
    // that hand over their batch, tested here for its shape (`if len(data) == 6:`): which branch the
    // step's batches take is not known (FastSpeech2's to_device serves training and synthesis).
    if (under_batch_test(fi, ctx)) return StepWhere{};
  }
  if (w.in() && !w.guard)
    for (const auto& f : ctx.frames)
      if (guarded(f)) { w.guard = &f; break; }
  if (w.in() && !w.guard) w.guard = early_return_guard(fi);
  return w;
}

// `def maybe_apply(step): if step < START or step - last < INTERVAL: return ...`: a helper the step
// calls every step that returns at once unless the step number says otherwise runs its body only on
// some steps. The guard: an `if` among the statements that open the function (docstring, `global`,
// other early returns, `if ...: raise` checks), whose body only returns, and whose condition names a
// step counter.
const Frame* Model::Impl::early_return_guard(size_t fi) const {
  if (early_guards_.size() != functions.size()) early_guards_.assign(functions.size(), std::nullopt);
  if (early_guards_[fi]) return early_guards_[fi]->kind == Frame::Kind::Guard ? &*early_guards_[fi] : nullptr;
  early_guards_[fi] = Frame{Frame::Kind::Condition, {}, {}};  // none, unless found below
  const TSNode body = field(functions[fi].node, "body");
  // `return self.cache[key]` (or `self.cache`), a cache the function fills below (`self.cache[key] =
  // anchors`): EfficientDet's Anchors.forward builds its anchors once per image shape and device
  // (held-out round 23); the rest of the function runs on a miss only.
  const auto cache_hit = [&](TSNode ret) {
    TSNode v = unparenthesized(ts_node_named_child(ret, 0));
    if (is(v, "subscript")) v = field(v, "value");
    if (!is(v, "attribute") || t(field(v, "object")) != "self") return false;
    const std::string_view cache = t(v);
    const TSNode fn = functions[fi].node;
    auto it = std::lower_bound(all_assigns.begin(), all_assigns.end(), ts_node_end_byte(ret),
                               [](const Assign& a, uint32_t at) { return ts_node_start_byte(a.statement) < at; });
    for (; it != all_assigns.end() && ts_node_start_byte(it->statement) < ts_node_end_byte(fn); ++it) {
      const TSNode target = is(it->target, "subscript") ? field(it->target, "value") : it->target;
      if (t(target) == cache && ts::same(it->ctx.function, fn)) return true;
    }
    return false;
  };
  for (TSNode st : ts::named_children(body)) {
    if (is(st, "global_statement") || is(st, "nonlocal_statement") || is(st, "comment") ||
        (is(st, "expression_statement") && is(ts_node_named_child(st, 0), "string")))
      continue;
    // `def sync(device): return` above the code it disables (`# FIXME` / `return` / `if
    // device.type == "cuda": torch.cuda.synchronize(device)`: Speech-Backbones' speaker encoder,
    // held-out round 26): nothing after an unconditional return runs. (A bare return with code
    // after it: `def f(x): return x.item()` runs its return.)
    if (is(st, "return_statement") && ts_node_named_child_count(st) == 0 && !null(ts_node_next_named_sibling(st))) {
      early_guards_[fi] = Frame{Frame::Kind::Guard, st, {}};
      return &*early_guards_[fi];
    }
    // `image_shape = image.shape[2:]` before the test.
    if (is(st, "expression_statement") && is(ts_node_named_child(st, 0), "assignment")) continue;
    if (!is(st, "if_statement") || !null(field(st, "alternative"))) break;
    const TSNode block = field(st, "consequence");
    if (ts_node_named_child_count(block) != 1) break;
    if (is(ts_node_named_child(block, 0), "raise_statement")) continue;  // a check of the settings
    if (!is(ts_node_named_child(block, 0), "return_statement")) break;
    const TSNode cond = field(st, "condition");
    if (cache_hit(ts_node_named_child(block, 0))) {
      early_guards_[fi] = Frame{Frame::Kind::Guard, st, cond};
      return &*early_guards_[fi];
    }
    bool step_counter = false;
    ts::walk(cond, [&](TSNode n) {
      if (is(n, "identifier")) {
        const std::string_view name = t(n);
        step_counter = step_counter || icontains(name, "step") || icontains(name, "iter") || icontains(name, "epoch");
      }
      return !step_counter;
    });
    if (step_counter) {
      early_guards_[fi] = Frame{Frame::Kind::Guard, st, cond};
      return &*early_guards_[fi];
    }
  }
  return nullptr;
}

Model::Impl::StepWhere Model::Impl::function_step_where(size_t fi, int depth) const {
  if (fn_step_state_.size() != functions.size()) {
    fn_step_state_.assign(functions.size(), 0);
    fn_step_value_.assign(functions.size(), StepWhere{});
  }
  if (fn_step_state_[fi] == 2) return fn_step_value_[fi];
  if (fn_step_state_[fi] == 1) return {};
  fn_step_state_[fi] = 1;
  StepWhere best;
  // A call site inside a step loop (or inside a function the step calls).
  for (size_t i : callers[fi]) {
    StepWhere outer = step_where(call_ctx[i], depth + 1);
    if (!outer.in()) continue;
    if (outer.via_call < 0) outer.via_call = static_cast<int>(i);
    if (!best.in() || (best.guard && !outer.guard)) best = outer;
  }
  // Run by a step in another file (and by no unguarded step of this one).
  if ((!best.in() || best.guard) && fi < fn_external.size() && fn_external[fi] >= 0) {
    best = StepWhere{};
    best.external = fn_external[fi];
  }
  fn_step_state_[fi] = 2;
  fn_step_value_[fi] = best;
  return best;
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

bool Model::Impl::under_tensor_test(const Context& ctx) const {
  for (const Frame& f : ctx.frames) {
    if (f.kind != Frame::Kind::Condition || null(f.condition)) continue;
    const std::string_view c = t(f.condition);
    if ((c.find("isinstance(") != std::string_view::npos && c.find("Tensor") != std::string_view::npos) ||
        c.find("is_tensor(") != std::string_view::npos)
      return true;
  }
  return false;
}

int Model::Impl::batch_loop(TSNode expr) const {
  // `next(datalooper).to(device)`: the batch taken in place, as `x = next(it)` binds one.
  if (const TSNode e = unparenthesized(expr); is(e, "call") && t(field(e, "function")) == "next") {
    const StepWhere w = step_where(context_of(e));
    return w.loop >= 0 && w.via_call < 0 && loops[w.loop].step ? w.loop : -1;
  }
  TSNode r = root_identifier(expr);
  if (null(r)) return -1;
  const StepWhere w = step_where(context_of(expr));
  if (w.loop < 0) {
    if (w.external < 0) return -1;
    if (external_batch(r)) return kExternalBatch;
    // A parameter of a helper of this file that the entry hands its batch to (vsepp's
    // `train_emb(self, images, ...)` calling `self.forward_emb(images, ...)`, held-out round 34).
    if (w.via_call >= 0)
      if (const size_t fi = function_index(context_of(expr).function);
          fi != SIZE_MAX && !functions[fi].step_fn && helper_batch_parameter(fi, r, batch_loop_depth_))
        return kExternalBatch;
    return -1;
  }
  // In a function the loop calls, a name is the loop's batch only through a step function's
  // parameters (bound at its call, find_steps/collect_loaders); in any other helper or forward() the
  // same name is another variable.
  if (w.via_call >= 0) {
    const size_t fi = function_index(context_of(expr).function);
    if (fi == SIZE_MAX) return -1;
    if (!functions[fi].step_fn) {
      if (const auto drawn = drawn_batch_names.find(fi); drawn != drawn_batch_names.end() &&
          std::find(drawn->second.begin(), drawn->second.end(), t(r)) != drawn->second.end() &&
          !rebound_to_device_copy(functions[fi].node, r))
        return w.loop;
      return helper_batch_parameter(fi, r, batch_loop_depth_) ? w.loop : -1;
    }
    // A step function's own parameter is the batch where its calls hand it one, not where they hand
    // its device copy (`self.step(x.to(self.device))`: ddpm-torch, held-out round 23), whatever the
    // loop calls its own batch.
    if (call_position(functions[fi], t(r)) >= 0 && !callers[fi].empty() &&
        std::all_of(callers[fi].begin(), callers[fi].end(), [&](size_t ci) {
          const TSNode arg = calls[ci].arg(t(r), static_cast<int>(call_position(functions[fi], t(r))));
          return !null(arg) && device_copy_in(arg);
        }))
      return -1;
  }
  const auto& names = loops[w.loop].batch_names;
  if (std::find(names.begin(), names.end(), t(r)) == names.end()) return -1;
  // `x_t = x_t.cuda()` earlier in the loop body: from there on the name is the device copy, not the
  // batch (melgan's `netD(x_t.cuda())` a few lines on copies nothing; held-out round 12).
  if (rebound_to_device_copy(loops[w.loop].node, r)) return -1;
  return w.loop;
}

bool Model::Impl::helper_batch_parameter(size_t fi, TSNode name, int depth) const {
  if (depth > 4 || fi >= callers.size() || callers[fi].empty()) return false;
  const Function& f = functions[fi];
  const long at = call_position(f, t(name));
  if (at < 0) return false;
  // Bound again before the use (`X = X.cuda()`): another value; not a host conversion of itself.
  if (const auto a = bindings().assigns.find(scope_key(f.node, t(name))); a != bindings().assigns.end())
    for (size_t ai : a->second)
      if (ts_node_end_byte(all_assigns[ai].statement) <= ts_node_start_byte(name) &&
          !converts_itself(all_assigns[ai], t(name)))
        return false;
  // Every call of the file that runs in a step passes a batch there (a call passing nothing, or
  // anything else, is not known); calls from an evaluation loop do not make it per-step code.
  bool any = false;
  for (size_t ci : callers[fi]) {
    if (!step_where(call_ctx[ci]).in()) continue;
    any = true;
    const CallInfo& c = calls[ci];
    if (c.star_args || c.unresolved_kwargs || scatters_inputs(c)) return false;
    const TSNode arg = c.arg(t(name), static_cast<int>(at));
    if (null(arg)) return false;
    ++batch_loop_depth_;
    const int li = batch_loop(arg);
    --batch_loop_depth_;
    // Another file's batch, handed on as it is (not its device copy: `self.embed(x.cuda())`).
    if (li == kExternalBatch) {
      if (device_copy_in(arg)) return false;
      continue;
    }
    if (li < 0) return false;
    // Nothing moved to a device in the loop before the call: a step that copies its batch first
    // (`batch = tuple(t.to(device) for t in batch)`, then `model(*batch)`: BERT-NER) hands over device
    // tensors under the batch's names.
    // Nor in the argument itself: `self.step(x.to(self.device))` hands over the device copy
    // (ddpm-torch's Trainer, held-out round 23).
    if (hands_device_copy(static_cast<size_t>(li), c, arg)) return false;
  }
  return any;
}

bool Model::Impl::device_copy_between(uint32_t lo, uint32_t hi) const {
  auto m = std::lower_bound(calls.begin(), calls.end(), lo,
                            [](const CallInfo& x, uint32_t at) { return ts_node_start_byte(x.node) < at; });
  for (; m != calls.end() && ts_node_start_byte(m->node) < hi; ++m)
    if (moves_to_device(*m)) return true;
  return false;
}

bool Model::Impl::batch_parameter(size_t fi, std::string_view param) const {
  const StepEntry* e = entry_of(fi);
  if (!e || e->opaque_args || (e->batch_positional.empty() && e->batch_keywords.empty())) return false;
  return call_position(functions[fi], param) >= 0 && binds(e->batch_positional, e->batch_keywords, functions[fi], param);
}

bool Model::Impl::under_batch_test(size_t fi, const Context& ctx) const {
  for (const Frame& fr : ctx.frames) {
    if (fr.kind != Frame::Kind::Condition) continue;
    bool tests = false;
    ts::walk(field(fr.node, "condition"), [&](TSNode n) {
      // (`x is None` is decided where it can be: the calls pass a batch, not None.)
      if (is(n, "comparison_operator") && t(n).find("None") != std::string_view::npos) return false;
      tests = tests || (is(n, "identifier") && batch_parameter(fi, t(n)));
      return !tests;
    });
    if (tests) return true;
  }
  return false;
}

// A host conversion of the name itself (`x = torch.Tensor(x)` of a NumPy batch field, `x =
// torch.from_numpy(x)`, `x = x.float()`, the legacy `x = Variable(x)`): still the batch, still on the
// host (audioset_tagging_cnn's move_data_to_device, held-out round 30; vsepp's forward_emb, round 34).
bool Model::Impl::converts_itself(const Assign& a, std::string_view n) const {
  const TSNode v = unparenthesized(a.value);
  const CallInfo* c = is(v, "call") ? call_info(v) : nullptr;
  if (!c || c->keyword("device")) return false;
  if (!c->qualname.empty()) {
    static constexpr std::string_view kConversions[] = {"torch.Tensor", "torch.FloatTensor", "torch.LongTensor",
                                                        "torch.IntTensor", "torch.from_numpy", "torch.as_tensor",
                                                        "torch.tensor", "torch.autograd.Variable",
                                                        "torch.autograd.variable.Variable"};
    return std::find(std::begin(kConversions), std::end(kConversions), c->qualname) != std::end(kConversions) &&
           c->positional.size() == 1 && is(c->positional.front(), "identifier") && t(c->positional.front()) == n;
  }
  return is(c->receiver, "identifier") && t(c->receiver) == n &&
         (c->method == "float" || c->method == "long" || c->method == "int" || c->method == "double" ||
          c->method == "contiguous");
}

bool Model::Impl::external_batch(TSNode name) const {
  const Context ctx = context_of(name);
  const size_t fi = null(ctx.function) ? SIZE_MAX : function_index(ctx.function);
  if (fi == SIZE_MAX) return false;
  const auto& b = bindings();
  // Not bound again before the use (`x = x.cuda()` earlier); the use's own statement may rebind it.
  const auto unbound_before = [&](std::string_view n) {
    const auto a = b.assigns.find(scope_key(ctx.function, n));
    if (a != b.assigns.end() && std::any_of(a->second.begin(), a->second.end(), [&](size_t ai) {
          return ts_node_end_byte(all_assigns[ai].statement) <= ts_node_start_byte(name) &&
                 !converts_itself(all_assigns[ai], n);
        }))
      return false;
    // Nor as part of a tuple (`x, y = x.cuda(), y.cuda()`).
    if (!b.opaque.count(scope_key(ctx.function, n))) return true;
    const auto in_fn = b.by_function.find(key(ctx.function));
    if (in_fn == b.by_function.end()) return true;
    return std::none_of(in_fn->second.begin(), in_fn->second.end(), [&](size_t ai) {
      const Assign& x = all_assigns[ai];
      if (is(x.target, "identifier") || ts_node_end_byte(x.statement) > ts_node_start_byte(name)) return false;
      // (`(ids, feats, lengths) = data` unpacks the batch itself: see below.)
      if (is(x.value, "identifier") && batch_parameter(fi, t(x.value))) return false;
      return binds_name(x.target, text, n);
    });
  };
  if (!unbound_before(t(name))) return false;
  // A parameter every call binds to the batch.
  if (batch_parameter(fi, t(name))) return true;
  // A field unpacked from one: `(ids, texts, mels) = data` (FastSpeech2's to_device).
  if (const auto u = b.by_unpacked.find(t(name)); u != b.by_unpacked.end())
    for (const auto& [ai, index] : u->second) {
      const Assign& a = all_assigns[ai];
      if (ts::same(a.ctx.function, ctx.function) && is(a.value, "identifier") && batch_parameter(fi, t(a.value)) &&
          ts_node_end_byte(a.statement) <= ts_node_start_byte(name))
        return true;
    }
  return false;
}

bool Model::Impl::moves_to_device(const CallInfo& c) const {
  if (c.method == "cuda") return true;
  if (c.method != "to") return false;
  // `x.to('cpu')`, `x.to(device=torch.device("cpu"))`: a copy to the host, not to the GPU.
  if (to_cpu(c)) return false;
  if (c.keyword("device")) return true;
  if (c.positional.empty()) return false;
  for (std::string_view dtype : {"float", "half", "int", "long", "bool", "double", "dtype"})
    if (icontains(t(c.positional.front()), dtype)) return false;
  return true;
}

bool Model::copied_later(TSNode use) const {
  if (!is(use, "identifier")) return false;
  const TSNode fn = impl_->function_containing(use);
  if (ts_node_is_null(fn)) return false;
  const std::string_view name = impl_->t(use);
  const uint32_t at = ts_node_start_byte(use);
  const auto& b = impl_->bindings();
  // The statements of fn that bind the name: (start, end) of each, in document order.
  std::vector<std::pair<uint32_t, uint32_t>> bound;
  if (const auto in_fn = b.by_function.find(key(fn)); in_fn != b.by_function.end())
    for (size_t ai : in_fn->second) {
      const Impl::Assign& a = impl_->all_assigns[ai];
      if (binds_name(a.target, impl_->text, name)) bound.emplace_back(ts_node_start_byte(a.statement), ts_node_end_byte(a.statement));
    }
  // Inside a loop of fn, the name must be bound afresh in that loop before the use (its target, or an
  // assignment in its body): else the use may see the previous iteration's copy.
  for (TSNode p = ts::parent(use); !ts_node_is_null(p) && !ts::same(p, fn); p = ts::parent(p)) {
    if (!is(p, "for_statement") && !is(p, "while_statement")) continue;
    bool fresh = is(p, "for_statement") && binds_name(field(p, "left"), impl_->text, name);
    for (const auto& [lo, hi] : bound) fresh = fresh || (lo >= ts_node_start_byte(p) && hi <= at);
    if (!fresh) return false;
    break;
  }
  // The calls of fn itself that copy the name.
  const uint32_t lo = ts_node_start_byte(fn), hi = ts_node_end_byte(fn);
  const auto& calls = impl_->calls;
  auto c = std::lower_bound(calls.begin(), calls.end(), lo,
                            [](const CallInfo& x, uint32_t s) { return ts_node_start_byte(x.node) < s; });
  for (; c != calls.end() && ts_node_start_byte(c->node) < hi; ++c) {
    bool copies = impl_->moves_to_device(*c) && is(c->receiver, "identifier") && impl_->t(c->receiver) == name;
    for (size_t i = 0; !copies && i < c->positional.size(); ++i)
      copies = is(c->positional[i], "identifier") && impl_->t(c->positional[i]) == name && !copies_argument(*c, i).empty();
    if (!copies || !ts::same(impl_->function_containing(c->node), fn)) continue;
    const uint32_t where = ts_node_start_byte(c->node);
    // The copy's own argument or receiver (`to_cuda(x, y)`, `x.cuda()`): the host value it copies.
    if (where <= at && at < ts_node_end_byte(c->node)) return true;
    if (where < at) {
      // Copied before and bound to the copy (`x = x.cuda()`): the use is the device copy.
      for (const auto& [blo, bhi] : bound)
        if (blo <= where && where < bhi) return false;
      continue;
    }
    // Copied later, the name not bound again in between, and on a path from the use: not in another
    // branch of an `if` that holds both (`if a: n = x.sum().item()` / `else: x = x.cuda()`).
    bool rebound = false;
    for (const auto& [blo, bhi] : bound) rebound = rebound || (blo > at && bhi <= where);
    if (rebound) return false;
    TSNode common = ts::parent(c->node);
    while (!ts_node_is_null(common) && !(ts_node_start_byte(common) <= at && ts_node_end_byte(use) <= ts_node_end_byte(common)))
      common = ts::parent(common);
    if (is(common, "if_statement") || is(common, "conditional_expression") || is(common, "try_statement")) continue;
    return true;
  }
  return false;
}

bool Model::Impl::rebound_to_device_copy(TSNode loop, TSNode use) const {
  const TSNode fn = function_containing(use);
  const std::string_view name = t(use);
  const uint32_t lo = ts_node_start_byte(loop), hi = ts_node_start_byte(use);
  // (`.to(torch.float16)` is a cast: the name is still a host batch.)
  const auto device_copy = [&](TSNode v) {
    v = unparenthesized(v);
    const CallInfo* c = is(v, "call") ? call_info(v) : nullptr;
    return c && moves_to_device(*c);
  };
  auto it = std::lower_bound(all_assigns.begin(), all_assigns.end(), lo,
                             [](const Assign& a, uint32_t at) { return ts_node_start_byte(a.statement) < at; });
  for (; it != all_assigns.end() && ts_node_start_byte(it->statement) < hi; ++it) {
    if (ts_node_end_byte(it->statement) > hi) continue;  // the use's own statement: `x = x.cuda()`
    // Only where it runs before the use on every path: its block holds the use (not the other branch
    // of an `if`, BigGAN's `if config['D_fp16']: x, y = x.to(device).half(), y.to(device)`).
    const TSNode block = ts::parent(it->statement);
    if (null(block) || ts_node_end_byte(block) < ts_node_end_byte(use)) continue;
    if (!ts::same(it->ctx.function, fn) && !(null(it->ctx.function) && null(fn))) continue;
    const TSNode target = it->target, value = unparenthesized(it->value);
    if (is(target, "identifier")) {
      if (t(target) == name && device_copy(value)) return true;
    } else if ((is(target, "pattern_list") || is(target, "tuple_pattern")) &&
               (is(value, "expression_list") || is(value, "tuple")) &&
               ts_node_named_child_count(target) == ts_node_named_child_count(value)) {
      for (uint32_t i = 0; i < ts_node_named_child_count(target); ++i) {
        const TSNode n = ts_node_named_child(target, i);
        if (is(n, "identifier") && t(n) == name && device_copy(ts_node_named_child(value, i))) return true;
      }
    }
  }
  return false;
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
