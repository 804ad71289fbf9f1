// Semantic model of one Python file, part: Other files' steps: functions of this file that a step in
// another file runs (ProjectContext::step_entries), the classes and factories calls resolve to, and
// the targets of the calls this file's step makes out of it (their summary is step_calls.cpp's).
#include "parser/model/impl.hpp"

#include <filesystem>

namespace perflint {

namespace {

bool move_name(std::string_view name) {
  return name == "cuda" || name == "to" || name == "train" || name == "float" || name == "half" ||
         name == "bfloat16" || name == "cpu" || name == "eval";
}

}  // namespace

void Model::Impl::for_each_built_from(TSNode callee, const std::function<bool(TSNode)>& visit) const {
  const Bindings& b = bindings();
  const auto& index = is(callee, "identifier") ? b.by_name : b.by_attribute;
  if (const auto found = index.find(t(callee)); found != index.end()) {
    // A branch the defaults switch off does not build it (`if args.arch == "a": model = A() else:
    // model = B()` with `--arch` defaulting to "b"), unless every binding is in such a branch.
    const bool some_on = found->second.size() > 1 && std::any_of(found->second.begin(), found->second.end(), [&](size_t ai) {
      return !switched_off(all_assigns[ai].ctx);
    });
    for (size_t ai : found->second) {
      if (some_on && switched_off(all_assigns[ai].ctx)) continue;
      TSNode v = all_assigns[ai].value;
      // `self.sampler = sampler or UniformSampler(diffusion)`: the fallback is what a caller that
      // passes nothing gets (consistency_models, guided-diffusion).
      while (!null(v) && is(v, "boolean_operator") && t(field(v, "operator")) == "or") v = field(v, "right");
      v = past_moves_and_wrappers(v);
      if (!null(v) && visit(v)) return;
    }
  }
  if (is(callee, "identifier")) for_each_parameter_default(t(callee), visit);
}

bool Model::Impl::scatters_inputs(const CallInfo& c) const {
  if (!is(c.function, "identifier") && !is(c.function, "attribute")) return false;
  const Bindings& b = bindings();
  const auto& index = is(c.function, "identifier") ? b.by_name : b.by_attribute;
  const auto found = index.find(t(c.function));
  if (found == index.end()) return false;
  for (size_t ai : found->second) {
    TSNode v = unparenthesized(all_assigns[ai].value);
    // Past module moves (`DataParallel(net).cuda()`).
    while (is(v, "call") && is(field(v, "function"), "attribute") && move_name(t(field(field(v, "function"), "attribute"))))
      v = field(field(v, "function"), "object");
    if (!is(v, "call")) continue;
    const std::string_view name = last_component(t(field(v, "function")));
    if (name.find("DataParallel") == std::string_view::npos) continue;
    if (name.find("Distributed") == std::string_view::npos) return true;
    // DistributedDataParallel moves the inputs to its device when it is given one.
    const CallInfo* w = call_info(v);
    if (w && (w->keyword("device_ids") || w->positional.size() >= 2)) return true;
  }
  return false;
}

bool Model::Impl::forwards_to_dataloader(TSNode cls) const {
  if (null(cls) || !is(cls, "class_definition")) return false;
  bool based = false;
  for (TSNode b : ts::named_children(field(cls, "superclasses"))) {
    const std::string q = qualname_of(b);
    based = based || q == "torch.utils.data.DataLoader" || q == "torch.utils.data.dataloader.DataLoader";
  }
  if (!based) return false;
  // Its __init__: *args and **kwargs, and one call of the base's __init__ with exactly those.
  for (const Function& f : functions) {
    if (f.name != "__init__" || !ts::same(f.cls, cls)) continue;
    std::string_view args, kwargs;
    for (TSNode p : ts::named_children(field(f.node, "parameters"))) {
      if (is(p, "list_splat_pattern")) args = t(ts_node_named_child(p, 0));
      else if (is(p, "dictionary_splat_pattern")) kwargs = t(ts_node_named_child(p, 0));
      // A parameter of its own that DataLoader also has (`num_workers=4` kept back from **kwargs):
      // the call's value of it is not DataLoader's.
      TSNode id = is(p, "identifier") ? p : is(p, "typed_parameter") ? ts_node_named_child(p, 0) : field(p, "name");
      if (is(id, "identifier"))
        for (std::string_view dl : {"dataset", "batch_size", "shuffle", "sampler", "batch_sampler", "num_workers",
                                    "collate_fn", "pin_memory", "drop_last", "timeout", "worker_init_fn",
                                    "multiprocessing_context", "generator", "prefetch_factor", "persistent_workers",
                                    "pin_memory_device", "in_order"})
          if (t(id) == dl) return false;
    }
    if (args.empty() || kwargs.empty()) return false;
    for (size_t ci : calls_in(function_index(f.node))) {
      const CallInfo& c = calls[ci];
      if (c.method != "__init__") continue;
      // super().__init__(*args, **kwargs), super(Cls, self).__init__(...), Base.__init__(self, ...)
      const bool via_super = is(c.receiver, "call") && t(field(c.receiver, "function")) == "super";
      bool splat = false, splat_kw = false, other = false;
      size_t positional = 0;
      for (TSNode a : ts::named_children(field(c.node, "arguments"))) {
        if (is(a, "list_splat") && t(ts_node_named_child(a, 0)) == args) splat = true;
        else if (is(a, "dictionary_splat") && t(ts_node_named_child(a, 0)) == kwargs) splat_kw = true;
        else if (!via_super && positional++ == 0 && is(a, "identifier") && t(a) == "self") continue;
        else if (!is(a, "comment")) other = true;
      }
      return splat && splat_kw && !other;
    }
    return false;
  }
  return false;
}

void Model::Impl::retarget_loader_subclasses() {
  for (CallInfo& c : calls) {
    // A class of this file: called by its bare name (no qualname).
    const std::string_view name = c.qualname.empty() && is(c.function, "identifier") ? t(c.function) : std::string_view(c.qualname);
    const std::string_view last = name.substr(name.rfind('.') + 1);
    if (last.find("Loader") == std::string_view::npos || last == "DataLoader") continue;
    bool wraps = false;
    if (c.qualname.empty()) {
      if (const auto k = class_nodes.find(std::string(last)); k != class_nodes.end()) wraps = forwards_to_dataloader(k->second);
    } else if (project && project_qualname(c.qualname)) {
      wraps = project->loader_subclass(src.path(), c.qualname);
    }
    if (wraps) c.qualname = "torch.utils.data.DataLoader";
  }
}

const std::vector<size_t>& Model::Impl::functions_with_param(std::string_view name) const {
  if (!functions_by_param_) {
    auto& index = functions_by_param_.emplace();
    for (size_t fi = 0; fi < functions.size(); ++fi)
      for (const std::string& p : functions[fi].params) {
        auto& list = index[p];
        if (list.empty() || list.back() != fi) list.push_back(fi);
      }
  }
  static const std::vector<size_t> kNone;
  const auto it = functions_by_param_->find(name);
  return it == functions_by_param_->end() ? kNone : it->second;
}

void Model::Impl::for_each_parameter_default(std::string_view name, const std::function<bool(TSNode)>& visit) const {
  // `def __init__(self, loss=NLLLoss(), ...)`: what a caller that passes nothing gets (pytorch-seq2seq's
  // trainer keeps it as self.loss), as with `self.sampler = sampler or UniformSampler(...)`. Only
  // constructions: a literal default says nothing of a class.
  for (const size_t fi : functions_with_param(name)) {
    const TSNode v = past_moves_and_wrappers(parameter_default(fi, name));
    if (is(v, "call") && visit(v)) return;
  }
}

TSNode Model::Impl::past_moves_and_wrappers(TSNode v) const {
  for (int hop = 0; hop < 6 && !null(v) && is(v, "call"); ++hop) {
    const TSNode fn = field(v, "function");
    const std::string_view name = is(fn, "identifier") ? t(fn) : is(fn, "attribute") ? t(field(fn, "attribute")) : "";
    // Chained module moves (`Net().cuda()`, `.to(device)`, `.train()`).
    if (is(fn, "attribute") && move_name(name)) {
      v = field(fn, "object");
      continue;
    }
    if (name == "DistributedDataParallel" || name == "DDP" || name == "DataParallel" || name == "compile" ||
        name == "FullyShardedDataParallel" || name == "FSDP") {
      const TSNode args = field(v, "arguments");
      v = null(args) || ts_node_named_child_count(args) == 0 ? TSNode{} : ts_node_named_child(args, 0);
      continue;
    }
    break;
  }
  return v;
}

const std::vector<TSNode>& Model::Impl::returns_of(TSNode fn) const {
  if (!returns_by_fn_) {
    auto& m = returns_by_fn_.emplace();
    for (const auto& [f, ret] : returns) m[key(f)].push_back(ret);
  }
  static const std::vector<TSNode> none;
  const auto it = returns_by_fn_->find(key(fn));
  return it == returns_by_fn_->end() ? none : it->second;
}

std::string Model::Impl::built_class(TSNode value, TSNode fn, int depth) const {
  const TSNode v = past_moves_and_wrappers(unparenthesized(value));
  if (is(v, "call")) {
    const TSNode made = constructed_class(v);
    if (is(made, "identifier") && class_nodes.count(std::string(t(made)))) return "." + std::string(t(made));
    // The call's own name where the walk resolved it (an import in the call's branch:
    // choose_conditional_imports), else the name as the file's imports give it.
    const size_t ci = find_call(v);
    const std::string q = ci != SIZE_MAX && ts::same(calls[ci].function, made) && !calls[ci].qualname.empty()
                              ? calls[ci].qualname
                              : qualname_of(made);
    return project_qualname(q) ? q : std::string();
  }
  if (!is(v, "identifier") || depth > 3) return {};
  // `model = Net(...).to(device)` ... `return model`: what every assignment in the function gives it.
  const auto& b = bindings();
  const ScopeName k = scope_key(fn, t(v));
  const auto a = b.assigns.find(k);
  // A call that is handed the name and gives it back (`model, msg = load_checkpoint(model, path)` or
  // `model = load_weights(model, path)` under `if pretrained:`, BLIP's factories; held-out round 18):
  // loading weights keeps the class. Only for a function (a lower-case callee), not a constructor.
  const auto hands_back = [&](TSNode value) {
    if (!is(value, "call")) return false;
    const std::string_view callee = last_component(t(field(value, "function")));
    if (callee.empty() || !(callee.front() >= 'a' && callee.front() <= 'z')) return false;
    const TSNode args = field(value, "arguments");
    const TSNode first = null(args) ? TSNode{} : ts_node_named_child(args, 0);
    return is(first, "identifier") && t(first) == t(v);
  };
  if (a == b.assigns.end()) return {};
  if (b.opaque.count(k)) {
    // Opaque through one binding only, and that one is `name, other = f(name, ...)` in this function.
    bool unpacked_back = false;
    if (!b.opaque_again.count(k))
      if (const auto u = b.by_unpacked.find(t(v)); u != b.by_unpacked.end())
        for (const auto& [ai, index] : u->second)
          if (index == 0 && ts::same(all_assigns[ai].ctx.function, fn) && hands_back(all_assigns[ai].value))
            unpacked_back = true;
    if (!unpacked_back) return {};
  }
  std::string found;
  for (size_t ai : a->second) {
    if (hands_back(all_assigns[ai].value)) continue;
    const std::string c = built_class(all_assigns[ai].value, fn, depth + 1);
    if (c.empty() || (!found.empty() && c != found)) return {};
    found = c;
  }
  return found;
}

std::string Model::Impl::returned_class(size_t fi, int index) const {
  const TSNode fn = functions[fi].node;
  std::string found;
  for (TSNode ret : returns_of(fn)) {
    const TSNode v = unparenthesized(ts_node_named_child(ret, 0));
    if (null(v) || is(v, "none")) continue;  // `return`, `return None`: an early exit
    const bool tuple = is(v, "expression_list") || is(v, "tuple");
    if (tuple != (index >= 0)) continue;     // the other shape of return
    const TSNode e = tuple ? ts_node_named_child(v, static_cast<uint32_t>(index)) : v;
    if (null(e)) return {};
    const std::string c = built_class(e, fn);
    if (c.empty() || (!found.empty() && c != found)) return {};
    found = c;
  }
  return found;
}

std::vector<std::pair<std::string, int>> Model::Impl::forwarded_results(TSNode callee, TSNode caller_fn,
                                                                        int index) const {
  std::vector<std::pair<std::string, int>> out;
  // The wrapper: a module-level function by its name, or a method of the caller's class by `self.`.
  std::string_view name;
  TSNode cls{};
  if (is(callee, "identifier")) {
    name = t(callee);
  } else if (is(callee, "attribute") && t(field(callee, "object")) == "self") {
    name = t(field(callee, "attribute"));
    const size_t ci = function_index(caller_fn);
    if (ci == SIZE_MAX) return out;
    cls = functions[ci].cls;
    if (null(cls)) return out;
  } else {
    return out;
  }
  const auto named = functions_by_name.find(name);
  if (named == functions_by_name.end()) return out;
  for (size_t fi : named->second) {
    const Function& f = functions[fi];
    if (null(cls) ? !is(ts::parent(f.node), "module") : !ts::same(f.cls, cls)) continue;
    for (TSNode ret : returns_of(f.node)) {
      TSNode v = unparenthesized(ts_node_named_child(ret, 0));
      if (null(v) || is(v, "none")) continue;
      if (is(v, "call")) {  // `return data_provider(args, flag)`: the same position of its result
        out.emplace_back(qualname_of(field(v, "function")), index);
        continue;
      }
      const bool tuple = is(v, "expression_list") || is(v, "tuple");
      if (tuple != (index >= 0)) continue;
      if (tuple) v = unparenthesized(ts_node_named_child(v, static_cast<uint32_t>(index)));
      if (!is(v, "identifier")) continue;
      // `data_set, data_loader = data_provider(...)` or `loader = make_loader(...)` in the wrapper.
      const auto& b = bindings();
      if (const auto a = b.assigns.find(scope_key(f.node, t(v))); a != b.assigns.end())
        for (size_t ai : a->second)
          if (is(all_assigns[ai].value, "call"))
            out.emplace_back(qualname_of(field(all_assigns[ai].value, "function")), -1);
      if (const auto u = b.by_unpacked.find(t(v)); u != b.by_unpacked.end())
        for (const auto& [ai, at] : u->second)
          if (ts::same(all_assigns[ai].ctx.function, f.node) && is(all_assigns[ai].value, "call"))
            out.emplace_back(qualname_of(field(all_assigns[ai].value, "function")), at);
    }
  }
  return out;
}

// `cls.method` of this file, or the method a base class of this file defines for it
// (`class UniformSampler(ScheduleSampler)` runs ScheduleSampler.sample); SIZE_MAX if none.
size_t Model::Impl::class_method(const std::string& cls, const std::string& method, int depth) const {
  if (auto it = class_methods.find(cls + "." + method); it != class_methods.end()) return it->second;
  if (depth > 4) return SIZE_MAX;
  auto c = class_nodes.find(cls);
  if (c == class_nodes.end()) return SIZE_MAX;
  const TSNode supers = field(c->second, "superclasses");
  if (null(supers)) return SIZE_MAX;
  for (TSNode b : ts::named_children(supers))
    if (is(b, "identifier") && t(b) != cls)
      if (const size_t f = class_method(std::string(t(b)), method, depth + 1); f != SIZE_MAX) return f;
  return SIZE_MAX;
}

size_t Model::Impl::returned_closure(std::string_view function) const {
  auto it = functions_by_name.find(function);
  if (it == functions_by_name.end() || it->second.size() != 1) return SIZE_MAX;
  const TSNode outer = functions[it->second.front()].node;
  TSNode p = ts::parent(outer);
  if (is(p, "decorated_definition")) p = ts::parent(p);
  if (!is(p, "module")) return SIZE_MAX;
  size_t found = SIZE_MAX;
  for (const auto& [f, ret] : returns) {
    if (!ts::same(f, outer)) continue;
    const TSNode v = unparenthesized(ts_node_named_child(ret, 0));
    if (!is(v, "identifier")) return SIZE_MAX;
    size_t inner = SIZE_MAX;
    if (auto named = functions_by_name.find(t(v)); named != functions_by_name.end())
      for (size_t g : named->second)
        if (ts::same(function_containing(ts::parent(functions[g].node)), outer)) inner = g;
    if (inner == SIZE_MAX || (found != SIZE_MAX && found != inner)) return SIZE_MAX;
    found = inner;
  }
  return found;
}

std::string Model::Impl::factory_class(const std::string& function) const {
  auto it = functions_by_name.find(function);
  if (it == functions_by_name.end() || it->second.size() != 1) return {};
  const std::string c = returned_class(it->second.front(), -1);
  return c.starts_with(".") ? c.substr(1) : std::string();
}

void Model::Impl::link_external() {
  fn_external.assign(functions.size(), -1);
  if (project) external = project->step_entries(src.path());
  // Frameworks that run a method of the file every training step: Lightning's training_step, a
  // Hugging Face Trainer subclass's compute_loss / training_step. They put the step on the GPU
  // when there is one (Lightning's accelerator="auto", the Trainer's default device).
  for (size_t f = 0; f < functions.size(); ++f) {
    const std::string& name = functions[f].name;
    if (name != "training_step" && name != "compute_loss") continue;
    TSNode p = ts::parent(functions[f].node);
    if (is(p, "decorated_definition")) p = ts::parent(p);
    const TSNode cls = is(p, "block") ? ts::parent(p) : TSNode{};
    if (!is(cls, "class_definition")) continue;
    bool lightning = false, hf = false;
    if (const TSNode supers = field(cls, "superclasses"); !null(supers))
      for (TSNode b : ts::named_children(supers)) {
        const std::string_view last = last_component(t(b));
        lightning = lightning || last == "LightningModule";
        hf = hf || (last.size() >= 7 && last.substr(last.size() - 7) == "Trainer");
      }
    lightning = lightning || (imports_module("lightning") || imports_module("pytorch_lightning"));
    hf = hf && (imports_module("transformers") || imports_module("trl"));
    std::string path;
    if (name == "training_step" && lightning && !hf) path = "Lightning calls training_step() every step";
    else if (hf) path = "the Hugging Face Trainer calls " + name + "() every step";
    else continue;
    external.push_back(StepEntry{name, path, true, {}, 0, true, false, false, {}, {}, {}, {}, {}, {}, {}, {}, {}});
    fn_external[f] = static_cast<int>(external.size() - 1);
  }
  for (size_t e = 0; e < external.size(); ++e) {
    if (std::find(fn_external.begin(), fn_external.end(), static_cast<int>(e)) != fn_external.end()) continue;
    const std::string& name = external[e].function;
    size_t fi = SIZE_MAX;
    const size_t dot = name.find('.');
    if (dot == std::string::npos) {
      // A module-level function of that name (not a method that happens to share it).
      if (auto it = functions_by_name.find(name); it != functions_by_name.end())
        for (size_t f : it->second)
          if (is(ts::parent(functions[f].node), "module") ||
              (is(ts::parent(functions[f].node), "decorated_definition") &&
               is(ts::parent(ts::parent(functions[f].node)), "module")))
            fi = f;
    } else {
      std::string cls = name.substr(0, dot);
      const std::string method = name.substr(dot + 1);
      // `model.resnet50(...)` built the instance: a factory of this file that returns a class of
      // this file (retinanet's `resnet50()` returns `ResNet(...)`; held-out round 12).
      if (!class_nodes.count(cls))
        if (std::string made = factory_class(cls); !made.empty()) cls = std::move(made);
      fi = class_method(cls, method);
      // `train = train_fns.GAN_training_function(...)`, then `train(x, y)`: calling what the factory
      // returns runs the inner def it returns (BigGAN's step closure, held-out round 11).
      if (fi == SIZE_MAX && method == "__call__" && !class_nodes.count(cls)) fi = returned_closure(cls);
      // Calling an instance runs __call__, which for an nn.Module is forward().
      if (fi == SIZE_MAX && method == "__call__") fi = class_method(cls, "forward");
      // `main.get_loss`: a def nested directly in module-level function main(), handed to another
      // file's step (Model::Impl::handed_functions names it so).
      if (fi == SIZE_MAX && !class_nodes.count(cls))
        if (auto it = functions_by_name.find(method); it != functions_by_name.end())
          for (size_t f : it->second) {
            const TSNode outer = function_containing(functions[f].node);
            if (null(functions[f].cls) && !null(outer) && t(field(outer, "name")) == cls &&
                null(function_containing(outer)))
              fi = f;
          }
    }
    if (fi == SIZE_MAX || functions[fi].name == "__init__" || evaluation_pass(fi)) continue;
    if (fn_external[fi] < 0) fn_external[fi] = static_cast<int>(e);
  }
  // A method that does a whole training step itself, the backward pass and the optimizer step
  // outside any loop (decision-transformer's SequenceTrainer.train_step, run by the base class's
  // loop through `self.train_step()`), and that no code of this file calls: each call is a step.
  if (!is_test_path(src.path()))
    for (size_t f = 0; f < functions.size(); ++f) {
      if (!functions[f].step_fn || fn_external[f] >= 0 || !callers[f].empty() || null(functions[f].cls)) continue;
      if (functions[f].name.find("step") == std::string::npos || evaluation_pass(f)) continue;
      // A base method every subclass overrides (its call was dispatched to them): never run.
      if (std::find(dispatched_base.begin(), dispatched_base.end(), f) != dispatched_base.end()) continue;
      bool backward = false, update = false;
      for (size_t ci : calls_in(f)) {
        if (!marker_calls[ci] || frames_have_loop(call_ctx[ci])) continue;
        backward = backward || calls[ci].method == "backward";
        update = update || calls[ci].method == "step";
      }
      // Called from somewhere: another file names it (dead code is not a step).
      if (!backward || !update || (project && !project->mentioned_elsewhere(src.path(), functions[f].name))) continue;
      external.push_back(StepEntry{functions[f].name, functions[f].name + "() is a whole training step (its own backward and optimizer step)",
                                   false, {}, 0, true, false, false, {}, {}, {}, {}, {}, {}, {}, {}, {}});
      fn_external[f] = static_cast<int>(external.size() - 1);
    }
  if (external.empty()) return;
  // A method of a class of this file called on a parameter that other files' steps bind to an
  // instance of it (`model.train(buffer)` with `buffer = PrioritizedReplayBuffer(opt)` in main.py,
  // then `replay_buffer.sample(...)` in train(): DRL-Pytorch, held-out round 31) runs with the step.
  const std::string stem = std::filesystem::path(src.path()).stem().string();
  for (size_t i = 0; i < calls.size(); ++i) {
    const CallInfo& c = calls[i];
    if (c.method.empty() || !is(c.function, "attribute") || !is(c.receiver, "identifier") || t(c.receiver) == "self" ||
        !method_names.count(c.method))
      continue;
    const std::string q = parameter_class(c.receiver);
    const size_t dot = q.rfind('.');
    if (dot == std::string::npos) continue;
    const std::string_view module = std::string_view(q).substr(0, dot);
    if (module != stem && !module.ends_with("." + stem)) continue;
    const std::string cls = q.substr(dot + 1);
    if (!class_nodes.count(cls)) continue;
    const size_t m = class_method(cls, std::string(c.method));
    if (m == SIZE_MAX || std::find(call_callees[i].begin(), call_callees[i].end(), m) != call_callees[i].end()) continue;
    call_callees[i].push_back(m);
    callers[m].push_back(i);
  }
}

std::string Model::Impl::argument_class(TSNode arg) const {
  arg = unparenthesized(arg);
  if (!is(arg, "identifier") && !is(arg, "attribute")) return {};
  std::string q = instance_qualname(arg);
  if (!q.empty()) return class_by_name(q) ? q : std::string();
  // An instance of a class of this file (`buffer = ReplayBuffer(...)` next to the loop): named by
  // the file's module, as an importer would.
  std::string cls;
  for_each_built_from(arg, [&](TSNode v) {
    if (const TSNode made = is(v, "call") ? constructed_class(v) : TSNode{};
        is(made, "identifier") && class_nodes.count(std::string(t(made))))
      cls = std::string(t(made));
    return !cls.empty();
  });
  const std::string stem = importable_stem();
  if (cls.empty() || stem.empty()) return {};
  return stem + "." + cls;
}

std::string Model::Impl::importable_stem() const {
  std::string stem = std::filesystem::path(src.path()).stem().string();
  return stem == "__init__" || stem == "__main__" ? std::string() : stem;
}

// A parameter of a function other files' steps run, which every such call binds to an instance of
// one project class (StepEntry::arg_classes): that class, named from the project root.
std::string Model::Impl::parameter_class(TSNode name) const {
  if (!is(name, "identifier") || external.empty()) return {};
  const TSNode fn = function_containing(name);
  if (null(fn)) return {};
  const size_t fi = function_index(fn);
  const StepEntry* e = entry_of(fi);
  if (!e || e->opaque_args || e->arg_classes.empty()) return {};
  const Function& f = functions[fi];
  const std::string_view param = t(name);
  const long index = call_position(f, param);
  if (index < 0 || bindings().assigns.count(scope_key(fn, param))) return {};
  for (const auto& [key, cls] : e->arg_classes)
    if (key == param || key == "#" + std::to_string(index)) return cls;
  return {};
}

// A parameter of the constructor of a module-level class that no call of this file builds, which every
// call in the files that import the class binds to an instance of one project class (ProjectContext::
// handed_class): `self.model = model` in Trainer.__init__ with `Trainer(model, ...)` and `model =
// AGCRN(args)` in Run.py, so `self.model(x)` in the trainer's step runs AGCRN.forward (AGCRN and
// DBNet.pytorch, held-out round 50: the model and the loss handed to the trainer).
std::string Model::Impl::constructor_parameter_class(TSNode name) const {
  if (!project || !is(name, "identifier")) return {};
  const TSNode fn = function_containing(name);
  if (null(fn)) return {};
  const size_t fi = function_index(fn);
  if (fi == SIZE_MAX || functions[fi].name != "__init__" || null(functions[fi].cls) ||
      !is(ts::parent(functions[fi].cls), "module") || (fi < callers.size() && !callers[fi].empty()))
    return {};
  const std::string_view param = t(name);
  const long index = call_position(functions[fi], param);  // as the calls pass it (no `self`)
  if (index < 0 || bindings().assigns.count(scope_key(fn, param))) return {};
  return project->handed_class(src.path(), t(field(functions[fi].cls, "name")), param, static_cast<int>(index));
}

// A parameter annotated with a project class, not rebound in its function: `def voc_train_loop(paths,
// model: WaveRNN, ...)` with WaveRNN imported from models/fatchord_version.py (fatchord's WaveRNN,
// held-out round 15: `model.get_step()` every step).
std::string Model::Impl::annotated_class(TSNode name) const {
  if (!is(name, "identifier")) return {};
  const TSNode fn = function_containing(name);
  if (null(fn) || bindings().assigns.count(scope_key(fn, t(name)))) return {};
  for (TSNode p : ts::named_children(field(fn, "parameters"))) {
    TSNode id{};
    if (is(p, "typed_parameter")) {
      for (TSNode c : ts::named_children(p))
        if (is(c, "identifier")) { id = c; break; }
    } else if (is(p, "typed_default_parameter")) {
      id = field(p, "name");
    }
    if (null(id) || t(id) != t(name)) continue;
    const TSNode type = field(p, "type");
    const TSNode expr = null(type) || ts_node_named_child_count(type) == 0 ? TSNode{} : ts_node_named_child(type, 0);
    if (null(expr) || (!is(expr, "identifier") && !is(expr, "attribute"))) return {};
    const std::string q = qualname_of(expr);
    return project_qualname(q) ? q : std::string();
  }
  return {};
}

std::string Model::Impl::elements_class(TSNode container) const {
  // Every element built of the same project class (a ModuleList of one kind of cell), else none.
  std::string q;
  bool mixed = false;
  for_each_element_of(container, [&](TSNode v) {
    const std::string made = is(v, "call") ? qualname_of(constructed_class(v)) : std::string();
    if (!project_qualname(made) || (!q.empty() && made != q)) mixed = true;
    else q = made;
    return mixed;
  });
  return mixed ? std::string() : q;
}

std::string Model::Impl::instance_qualname(TSNode callee, int depth) const {
  if (null(callee) || depth > 4) return {};
  if (!is(callee, "identifier") && !is(callee, "attribute")) return {};
  if (depth == 0)
    if (std::string q = parameter_class(callee); !q.empty()) return q;
  if (depth == 0)
    if (std::string q = annotated_class(callee); !q.empty()) return q;
  // `self.model = model` in __init__: what the importers build the class with (reached from `self.model`
  // in a call of the step, step_target; not asked of the constructor's own calls of its parameters).
  if (depth > 0 && typing_step_call_)
    if (std::string q = constructor_parameter_class(callee); !q.empty()) return q;
  // Per name, as instance_class: a long file calls the same names over and over.
  auto& memo = typing_step_call_ ? step_instance_qualname_memo_ : instance_qualname_memo_;
  if (depth == 0)
    if (auto hit = memo.find(t(callee)); hit != memo.end()) return hit->second;
  std::string found;
  for_each_built_from(callee, [&](TSNode v) {
    if (is(v, "call")) {
      const std::string q = qualname_of(constructed_class(v));
      // A factory of this file returning an instance of a class of another module (curl's
      // `agent = make_agent(...)` returning `CurlSacAgent(...)`; held-out round 16).
      if (std::string made = factory_made_class(v); !made.empty() && !made.starts_with(".")) {
        found = std::move(made);
      } else if (project_qualname(q)) {
        found = q;
        // A factory of another module that returns an instance of a class imported there
        // (`model = build_model(cfg)` returning `models.Net(cfg)`): that class.
        if (std::string made = project_returned_class(q, -1); !made.empty() && !made.starts_with("."))
          found = std::move(made);
      }
    } else if ((is(v, "identifier") || is(v, "attribute")) && t(v) != t(callee)) {
      found = instance_qualname(v, depth + 1);
    }
    return !found.empty();
  });
  // `model, optimizer = get_model(args, configs)`: the class get_model's tuples hold at that place
  // (FastSpeech2's utils/model.py returns `model, scheduled_optim`, held-out round 13).
  if (found.empty() && is(callee, "identifier"))
    if (const auto u = bindings().by_unpacked.find(t(callee)); u != bindings().by_unpacked.end())
      for (const auto& [ai, index] : u->second) {
        if (!is(all_assigns[ai].value, "call")) continue;
        const std::string q = qualname_of(field(all_assigns[ai].value, "function"));
        if (!project_qualname(q)) continue;
        std::string made = project_returned_class(q, index);
        if (made.starts_with(".")) made = q.substr(0, q.rfind('.')) + made;
        if (!made.empty()) {
          found = std::move(made);
          break;
        }
      }
  // A loop over a container of imported modules (`for cell in self.cells: x = cell(x)`), all of one class.
  if (found.empty() && is(callee, "identifier"))
    found = elements_class(looped_container(callee));
  // `agent.replay_buffer` with `agent` an instance of a project class that builds it in its own
  // module (`self.replay_buffer = ReplayBuffer(...)` in DQN_agent.__init__: DRL-Pytorch's scripts
  // call `agent.replay_buffer.add(...)` every environment step, held-out round 31).
  if (found.empty() && project && is(callee, "attribute")) {
    const TSNode object = field(callee, "object");
    if (is(object, "identifier") && t(object) != "self")
      if (const std::string owner = instance_qualname(object, depth + 1); !owner.empty())
        found = project->attribute_class(src.path(), owner, t(field(callee, "attribute")));
  }
  if (depth == 0) memo.emplace(t(callee), found);
  return found;
}

std::string Model::Impl::step_target(const CallInfo& c) const {
  const bool was = typing_step_call_;
  typing_step_call_ = true;
  std::string target = outgoing_target(c);
  typing_step_call_ = was;
  return target;
}

bool Model::Impl::project_qualname(std::string_view q) {
  return !q.empty() && q.find('.') != std::string_view::npos && !library_root(q);
}

const std::vector<size_t>& Model::Impl::calls_in(size_t fi) const {
  if (!calls_by_fn_) {
    auto& by = calls_by_fn_.emplace(functions.size());
    for (size_t i = 0; i < calls.size(); ++i)
      if (!null(call_ctx[i].function))
        if (const size_t f = function_index(call_ctx[i].function); f != SIZE_MAX) by[f].push_back(i);
  }
  return (*calls_by_fn_)[fi];
}

bool Model::Impl::function_syncs(size_t fi, int depth) const {
  // Memoised per (function, depth): a module whose functions call each other many times is walked once.
  if (function_syncs_memo_.size() != functions.size() * 3) function_syncs_memo_.assign(functions.size() * 3, -1);
  int8_t& memo = function_syncs_memo_[fi * 3 + static_cast<size_t>(depth)];
  if (memo >= 0) return memo == 1;
  memo = 0;  // while being computed (a recursion through itself adds nothing)
  for (size_t ci : calls_in(fi)) {
    const CallInfo& c = calls[ci];
    bool waits = c.qualname == "torch.cuda.synchronize" || c.qualname == "torch.cuda.current_stream" ||
                 (!null(c.receiver) && (c.method == "item" || c.method == "cpu" || c.method == "numpy" ||
                                        c.method == "tolist" || c.method == "synchronize"));
    if (!waits && depth < 2 && ci < call_callees.size())
      for (size_t g : call_callees[ci]) waits = waits || (g != fi && function_syncs(g, depth + 1));
    if (waits) {
      function_syncs_memo_[fi * 3 + static_cast<size_t>(depth)] = 1;
      return true;
    }
  }
  return false;
}

std::string Model::Impl::project_returned_class(const std::string& function, int index) const {
  return project ? project->returned_class(src.path(), function, index) : std::string();
}

std::string Model::Impl::outgoing_target(const CallInfo& c) const {
  // `next(fetcher)` runs the `__next__` of the imported class `fetcher` was built from (stargan-v2's
  // InputFetcher, the prefetchers of many repositories).
  if (is(c.function, "identifier") && t(c.function) == "next" && !c.positional.empty() &&
      (is(c.positional.front(), "identifier") || is(c.positional.front(), "attribute"))) {
    if (auto q = instance_qualname(c.positional.front()); !q.empty()) return q + ".__next__";
    return {};
  }
  if (!c.qualname.empty()) {
    // `maximum_path(...)`, `commons.rand_slice_segments(...)`, `misc.MetricLogger.update` is not
    // written this way (an instance's method), so a qualified name is a function or a class.
    if (!project_qualname(c.qualname)) return {};
    return c.qualname;
  }
  // `model(x)`, `self.loss_fn(p, y)`: an instance of an imported class runs its __call__.
  if (is(c.function, "identifier") || (is(c.function, "attribute") && is(c.receiver, "identifier") &&
                                       t(c.receiver) == "self")) {
    if (auto q = instance_qualname(c.function); !q.empty()) return q + ".__call__";
    return {};
  }
  // `self.cells[i](x)`: an element of a container filled with instances of one imported class
  // (AGCRN's `self.dcrnn_cells.append(AGCRNCell(...))`, held-out round 50).
  if (is(c.function, "subscript") && !is(field(c.function, "subscript"), "slice")) {
    const std::string q = elements_class(field(c.function, "value"));
    return q.empty() ? std::string() : q + ".__call__";
  }
  // `logger.update(loss=l)`, `self.criterion.build_targets(...)`: a method of such an instance.
  // (`model.train()` switches a module's mode, but `policy.train(replay_buffer, 256)` is TD3's step.)
  // Nor is `agent.train()` when the agent's class, of the project, defines a train() that does the
  // backward and the optimizer step, or loops over them (DRL-Pytorch's agents, held-out round 31).
  const bool mode_switch = move_name(c.method) && !(c.method == "train" && !c.positional.empty() &&
                                                    !is(c.positional.front(), "true") && !is(c.positional.front(), "false"));
  if (!is(c.function, "attribute") || c.method.empty() || (mode_switch && !(c.method == "train" && project))) return {};
  const std::string q = instance_qualname(c.receiver);
  if (q.empty()) return {};
  std::string target = q + "." + std::string(c.method);
  if (mode_switch && !project->step_function(src.path(), target) && !project->holds_step_loop(src.path(), target))
    return {};
  return target;
}

std::vector<int> Model::Impl::copied_params(size_t fi) const {
  std::vector<int> out;
  const Function& f = functions[fi];
  const uint32_t lo = ts_node_start_byte(f.node), hi = ts_node_end_byte(f.node);
  auto first = std::lower_bound(calls.begin(), calls.end(), lo,
                                [](const CallInfo& c, uint32_t s) { return ts_node_start_byte(c.node) < s; });
  for (auto c = first; c != calls.end() && ts_node_start_byte(c->node) < hi; ++c) {
    if (!moves_to_device(*c) || !is(c->receiver, "identifier")) continue;
    if (!ts::same(function_containing(c->node), f.node)) continue;  // not a nested def's
    const auto p = std::find(f.params.begin(), f.params.end(), t(c->receiver));
    if (p == f.params.end()) {
      // `def to_cuda(*args): return [x.cuda() for x in args]` (XLM): every argument from the splat on
      // (the first 16).
      if (const int star = splat_iterated(f, c->receiver); star >= 0)
        for (int index = star; index < star + 16; ++index)
          if (std::find(out.begin(), out.end(), index) == out.end()) out.push_back(index);
      continue;
    }
    const int index = static_cast<int>(p - f.params.begin());
    if (std::find(out.begin(), out.end(), index) == out.end()) out.push_back(index);
  }
  return out;
}

int Model::Impl::splat_iterated(const Function& f, TSNode var) const {
  // The comprehension (or for loop) that binds `var`, over a `*args` parameter of `f`.
  for (TSNode p = ts::parent(var); !null(p) && !ts::same(p, f.node); p = ts::parent(p)) {
    TSNode over{};
    if (is(p, "list_comprehension") || is(p, "generator_expression") || is(p, "set_comprehension") ||
        is(p, "dictionary_comprehension")) {
      for (TSNode c : ts::named_children(p))
        if (is(c, "for_in_clause") && binds_name(field(c, "left"), text, t(var))) over = field(c, "right");
    } else if (is(p, "for_statement") && binds_name(field(p, "left"), text, t(var))) {
      over = field(p, "right");
    }
    if (null(over)) continue;
    if (!is(over, "identifier")) return -1;
    int index = 0;
    for (TSNode q : ts::named_children(field(f.node, "parameters"))) {
      if (is(q, "list_splat_pattern") && t(ts_node_named_child(q, 0)) == t(over)) return index;
      if (is(q, "keyword_separator") || is(q, "dictionary_splat_pattern")) break;
      if (!is(q, "positional_separator")) ++index;
    }
    return -1;
  }
  return -1;
}

std::string Model::Impl::referenced_target(const CallInfo& c) const {
  // A bound method of an instance of a project class handed over uncalled (`retry_call(model.train,
  // tries=3)`, `executor.submit(trainer.step, batch)`), named for a training step.
  const auto named_for_step = [](std::string_view m) {
    for (std::string_view w : {"train", "learn", "update", "optimi", "fit", "step"})
      if (icontains(m, w)) return true;
    return false;
  };
  const auto target_of = [&](TSNode a) -> std::string {
    a = unparenthesized(a);
    if (!is(a, "attribute")) return {};
    const TSNode recv = field(a, "object");
    const std::string_view m = t(field(a, "attribute"));
    if (!named_for_step(m) || !is(recv, "identifier") || t(recv) == "self") return {};
    const std::string q = instance_qualname(recv);
    return q.empty() ? std::string() : q + "." + std::string(m);
  };
  for (TSNode a : c.positional)
    if (std::string q = target_of(a); !q.empty()) return q;
  for (const Argument& a : c.keywords)
    if (a.name != "**")
      if (std::string q = target_of(a.value); !q.empty()) return q;
  return {};
}

std::string Model::project_conv_evidence(const CallInfo& c) const {
  const std::string& q = c.qualname;
  // A class (`model.UNet(...)`) or a factory that returns one (`models.load_model(path)`).
  if (!impl_->project || !Impl::project_qualname(q)) return {};
  return impl_->project->conv_evidence(impl_->src.path(), q);
}

std::string Model::project_class_conv_evidence(TSNode class_expr) const {
  if (!impl_->project || ts_node_is_null(class_expr)) return {};
  const std::string q = qualname(class_expr);
  if (!Impl::project_qualname(q)) return {};
  return impl_->project->conv_evidence(impl_->src.path(), q);
}

}  // namespace perflint
