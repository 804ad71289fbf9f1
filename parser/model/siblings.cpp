// Semantic model of one Python file, part: Sibling modules: a training step in a function of another file of the project (see project.hpp).
#include "parser/model/impl.hpp"

#include <tuple>
#include <unordered_set>

namespace perflint {

void Model::Impl::link_siblings() {
  if (!project) return;
  // Only a training script's entry file needs its siblings: it builds loaders or optimizers.
  const bool entry = !loaders.empty() || std::any_of(calls.begin(), calls.end(), [](const CallInfo& c) {
    return c.qualname.rfind("torch.optim.", 0) == 0 && c.qualname.find("lr_scheduler") == std::string::npos;
  });
  if (!entry) return;
  std::unordered_map<std::string, const ModuleSummary*> modules;  // one look-up per module name
  for (size_t i = 0; i < calls.size(); ++i) {
    const CallInfo& c = calls[i];
    const ModuleSummary* holder = nullptr;
    const FunctionSummary* f = nullptr;
    if (const auto mf = module_function(c.qualname)) {
      const std::string module(mf->first);
      auto it = modules.find(module);
      if (it == modules.end()) it = modules.emplace(module, project->sibling(src.path(), module)).first;
      if (it->second) {
        holder = it->second;
        f = holder->function(mf->second);
      }
    }
    // A module of a subpackage or another directory of the project, imported by its dotted path
    // (benchmarking-gnns: `from train.train_superpixels_graph_classification import train_epoch_sparse
    // as train_epoch`; held-out round 18). Module-level functions only: a method's step is its class's.
    // Only one whose CUDA comes from this script (the module's precision rules leave the file-wide
    // settings to the script that chooses the device), and not in a test file.
    if (!holder && project_qualname(c.qualname) && is(c.function, "identifier") && !is_test_path(src.path())) {
      const FunctionSummary* g = project->project_function(src.path(), c.qualname, &holder);
      if (g && holder && g->qualified == g->name && !holder->uses_cuda) f = g;
      else holder = nullptr;
    }
    // The same for a method of an instance of a project class (`trainer = BYOLTrainer(..., device=device)`,
    // then `trainer.train(train_dataset)`: PyTorch-BYOL, ncsnv2's runners; held-out round 13).
    bool method = false;
    if (!holder && c.qualname.empty() && is(c.function, "attribute") && !is_test_path(src.path())) {
      const std::string target = outgoing_target(c);
      if (!target.empty() && !target.ends_with(".__call__") && !target.ends_with(".__next__")) {
        const FunctionSummary* g = project->project_function(src.path(), target, &holder);
        if (g && holder && g->qualified != g->name && !holder->uses_cuda) f = g, method = true;
        else holder = nullptr;
      }
    }
    if (!holder || !f || !f->has_step_loop) continue;
    step_loop_nodes.push_back(c.node);
    step_siblings.emplace_back(holder, c.node);
    for (int idx : f->iterated_params) {
      if (idx < 0 || static_cast<size_t>(idx) >= f->params.size() || (method && idx == 0)) continue;
      TSNode arg = c.arg(f->params[idx], method ? idx - 1 : idx);
      if (null(arg)) continue;
      const std::string_view at = t(arg);
      for (auto& d : loaders) {
        if (!loader_named(d, at)) continue;
        d.feeds_step = true;
        d.step_loop = c.node;
        d.repeated = d.repeated || frames_have_loop(call_ctx[i]);
        d.loops.push_back(c.node);
      }
    }
  }
}

void Model::Impl::link_loader_consumers() {
  if (!project || loaders.empty()) return;
  // The names of the file's loaders, once (a call at a time against every loader was quadratic).
  std::unordered_set<std::string_view> names;
  for (const auto& d : loaders) {
    if (!d.variable.empty()) names.insert(d.variable);
    for (const auto& a : d.aliases)
      if (!a.empty()) names.insert(a);
  }
  const auto loader_text = [&](TSNode arg) { return !null(arg) && names.count(t(arg)) > 0; };
  // A dict literal an argument is, or its name is bound to once in the call's scope
  // (`data = {'tr_loader': tr_loader, 'cv_loader': cv_loader}; Solver(data, ...)`).
  const auto dict_of = [&](TSNode arg, TSNode scope) -> TSNode {
    if (is(arg, "dictionary")) return arg;
    if (!is(arg, "identifier")) return {};
    const auto bound = bindings().assigns.find(scope_key(scope, t(arg)));
    if (bound == bindings().assigns.end() || bound->second.size() != 1) return {};
    const TSNode v = all_assigns[bound->second.front()].value;
    return is(v, "dictionary") ? v : TSNode{};
  };
  // The value at `key` of such a dict, or null.
  const auto dict_value = [&](TSNode dict, std::string_view key) -> TSNode {
    for (TSNode pair : ts::named_children(dict)) {
      if (!is(pair, "pair")) continue;
      const TSNode k = field(pair, "key");
      if (!is(k, "string")) continue;
      if (const Value v = eval(k, TSNode{}, 0); v.kind == Value::Kind::String && v.s == key) return field(pair, "value");
    }
    return {};
  };
  const auto holds_loader = [&](TSNode dict) {
    if (null(dict)) return false;
    for (TSNode pair : ts::named_children(dict))
      if (is(pair, "pair") && loader_text(field(pair, "value"))) return true;
    return false;
  };
  for (size_t i = 0; i < calls.size(); ++i) {
    const CallInfo& c = calls[i];
    // A class or function imported from the project, or a method of an instance of such a class
    // (`trainer.pretrain(epoch, loader)`, S3Rec: held-out round 25).
    if (c.qualname.empty() && (!is(c.function, "attribute") || c.positional.size() + c.keywords.size() == 0)) continue;
    const TSNode scope = call_ctx[i].function;
    bool passes = false;
    for (TSNode a : c.positional) passes = passes || loader_text(a) || holds_loader(dict_of(a, scope));
    for (const Argument& a : c.keywords)
      passes = passes || (a.name != "**" && (loader_text(a.value) || holds_loader(dict_of(a.value, scope))));
    if (!passes) continue;
    const std::string target = outgoing_target(c);
    if (target.empty()) continue;
    // A class: its constructor stores the loader where its step iterates it; a function: its own
    // step loop iterates the parameter.
    const ModuleSummary* module = nullptr;
    int shift = 1;  // `self` is not passed
    const FunctionSummary* f = project->project_function(src.path(), target + ".__init__", &module);
    if (!f) {
      f = project->project_function(src.path(), target, &module);
      // A function's parameters are all passed; an instance's method is not passed `self`.
      shift = f && c.qualname.empty() && !f->params.empty() && f->params.front() == "self" ? 1 : 0;
      // (Or hands it on to one that does: iterated_params.)
      if (f && ((!f->has_step_loop && f->iterated_params.empty()) || (c.qualname.empty() && shift == 0))) f = nullptr;
    }
    if (!f || !module) continue;
    // (parameter index, the loader expression the call hands it): the argument itself, or the value
    // under the constructor's key in the dict it passes.
    std::vector<std::tuple<int, TSNode, std::string>> handed;  // (parameter, argument, what the step iterates)
    for (int idx : f->iterated_params)
      if (idx >= shift && static_cast<size_t>(idx) < f->params.size())
        handed.emplace_back(idx, c.arg(f->params[static_cast<size_t>(idx)], idx - shift), f->params[static_cast<size_t>(idx)]);
    for (const auto& [idx, key] : f->iterated_param_keys)
      if (idx >= shift && static_cast<size_t>(idx) < f->params.size())
        if (const TSNode dict = dict_of(c.arg(f->params[static_cast<size_t>(idx)], idx - shift), scope); !null(dict))
          handed.emplace_back(idx, dict_value(dict, key), f->params[static_cast<size_t>(idx)] + "['" + key + "']");
    for (const auto& [idx, arg, param] : handed) {
      if (null(arg)) continue;
      for (auto& d : loaders) {
        if (!loader_named(d, t(arg)) || d.feeds_step) continue;
        d.feeds_step = true;
        d.step_loop = c.node;
        d.repeated = d.repeated || frames_have_loop(call_ctx[i]) ||
                     (shift == 1 && std::find(f->repeated_params.begin(), f->repeated_params.end(), idx) !=
                                        f->repeated_params.end());
        d.loops.push_back(c.node);
        d.framework_reason = std::filesystem::path(module->path).filename().string() + " iterates `" + param +
                             "` in its training step (" + f->qualified + ", line " + std::to_string(f->line) + ")";
        // The consumer's CUDA use is this loader's too (pinned memory, copies).
        if (module->uses_cuda && null(cuda_node) && !importer && !cuda_imported) cuda_imported = module;
      }
    }
  }
}

}  // namespace perflint
