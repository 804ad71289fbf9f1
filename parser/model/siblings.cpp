// Semantic model of one Python file, part: Sibling modules: a training step in a function of another file of the project (see project.hpp).
#include "parser/model/impl.hpp"

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
    const auto mf = module_function(c.qualname);
    if (!mf) continue;
    const std::string module(mf->first);
    auto it = modules.find(module);
    if (it == modules.end()) it = modules.emplace(module, project->sibling(src.path(), module)).first;
    if (!it->second) continue;
    const FunctionSummary* f = it->second->function(mf->second);
    if (!f || !f->has_step_loop) continue;
    step_loop_nodes.push_back(c.node);
    step_siblings.emplace_back(it->second, c.node);
    for (int idx : f->iterated_params) {
      if (idx < 0 || static_cast<size_t>(idx) >= f->params.size()) continue;
      TSNode arg = c.arg(f->params[idx], idx);
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

}  // namespace perflint
