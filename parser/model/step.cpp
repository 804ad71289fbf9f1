// Semantic model of one Python file, part: Step detection: the same-file call graph, step functions, step loops, batch names.
#include "parser/model/impl.hpp"

namespace perflint {

bool Model::Impl::optimizer_like(TSNode recv) const {
  if (null(recv)) return false;
  const std::string_view name = last_component(t(recv));
  if (icontains(name, "sched") || icontains(name, "lr_") || icontains(name, "scaler")) return false;
  if (icontains(name, "optim") || icontains(name, "opt")) return true;
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
  return false;
}

std::vector<size_t> Model::Impl::callees(const CallInfo& c) const {
  std::string_view name;
  if (is(c.function, "identifier")) name = t(c.function);
  else if (is(c.function, "attribute") && is(c.receiver, "identifier") && t(c.receiver) == "self") name = c.method;
  if (name.empty()) return {};
  auto it = functions_by_name.find(name);
  return it == functions_by_name.end() ? std::vector<size_t>{} : it->second;
}

size_t Model::Impl::function_index(TSNode fn) const {
  auto it = fn_index.find(key(fn));
  return it == fn_index.end() ? SIZE_MAX : it->second;
}

void Model::Impl::link_calls() {
  call_callees.resize(calls.size());
  callers.assign(functions.size(), {});
  for (size_t i = 0; i < calls.size(); ++i) {
    call_callees[i] = callees(calls[i]);
    for (size_t f : call_callees[i]) callers[f].push_back(i);
  }
}

bool Model::Impl::frames_have_loop(const Context& ctx) {
  return std::any_of(ctx.frames.begin(), ctx.frames.end(), [](const Frame& f) { return f.kind == Frame::Kind::Loop; });
}

void Model::Impl::find_steps() {
  // Step functions: a marker outside any loop of the function, directly or through a call to
  // another step function (fixpoint; bounded by the number of functions).
  std::vector<size_t> call_fn(calls.size(), SIZE_MAX);
  for (size_t i = 0; i < calls.size(); ++i)
    if (!null(call_ctx[i].function)) call_fn[i] = function_index(call_ctx[i].function);
  std::vector<bool> marker(calls.size());
  for (size_t i = 0; i < calls.size(); ++i) marker[i] = is_marker(calls[i]);
  for (size_t i = 0; i < calls.size(); ++i)
    if (marker[i] && call_fn[i] != SIZE_MAX && !frames_have_loop(call_ctx[i])) functions[call_fn[i]].step_fn = true;
  for (size_t round = 0; round < functions.size() + 1; ++round) {
    bool changed = false;
    for (size_t i = 0; i < calls.size(); ++i) {
      if (call_fn[i] == SIZE_MAX || functions[call_fn[i]].step_fn || frames_have_loop(call_ctx[i])) continue;
      for (size_t f : call_callees[i])
        if (functions[f].step_fn && f != call_fn[i]) { functions[call_fn[i]].step_fn = true; changed = true; }
    }
    if (!changed) break;
  }
  // Loops that contain a step directly (a marker or a call to a step function in their body).
  auto mark_loops = [&](size_t call) {
    for (const auto& fr : call_ctx[call].frames)
      if (fr.kind == Frame::Kind::Loop) {
        auto it = loop_index.find(key(fr.node));
        if (it != loop_index.end()) loops[it->second].direct_step = true;
      }
  };
  for (size_t i = 0; i < calls.size(); ++i) {
    bool step = marker[i];
    if (!step)
      for (size_t f : call_callees[i]) step = step || functions[f].step_fn;
    if (step) mark_loops(i);
  }
  // Step loops: the innermost loops that contain a step.
  for (auto& l : loops) l.step = l.direct_step;
  for (auto& l : loops) {
    if (!l.direct_step) continue;
    for (const auto& fr : l.ctx.frames) {
      if (fr.kind != Frame::Kind::Loop) continue;
      auto it = loop_index.find(key(fr.node));
      if (it != loop_index.end()) loops[it->second].step = false;
    }
  }
  for (auto& l : loops)
    if (l.step) {
      step_loop_nodes.push_back(l.node);
      if (!null(l.ctx.function)) {
        const size_t f = function_index(l.ctx.function);
        if (f != SIZE_MAX) functions[f].has_step_loop = true;
      }
    }
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

Model::Impl::StepWhere Model::Impl::step_where(const Context& ctx, int depth) const {
  StepWhere w;
  // Innermost step loop among the frames; guards after it count.
  for (size_t i = ctx.frames.size(); i-- > 0;) {
    const Frame& f = ctx.frames[i];
    if (f.kind != Frame::Kind::Loop) continue;
    auto it = loop_index.find(key(f.node));
    if (it == loop_index.end() || !loops[it->second].step) continue;
    w.loop = static_cast<int>(it->second);
    for (size_t j = i + 1; j < ctx.frames.size(); ++j)
      if (guarded(ctx.frames[j])) { w.guard = &ctx.frames[j]; break; }
    // Nested functions/lambdas inside the loop body are not run by it.
    return w;
  }
  if (null(ctx.function) || depth > 4) return w;
  const size_t fi = function_index(ctx.function);
  if (fi == SIZE_MAX || !functions[fi].step_fn) return w;
  const Frame* local_guard = nullptr;
  for (const auto& f : ctx.frames)
    if (guarded(f)) { local_guard = &f; break; }
  // Find a call site inside a step loop (or inside another step function).
  for (size_t i : callers[fi]) {
    StepWhere outer = step_where(call_ctx[i], depth + 1);
    if (outer.loop < 0) continue;
    if (w.loop < 0 || (w.guard && !outer.guard)) {
      w = outer;
      if (!w.guard) w.guard = local_guard;
    }
  }
  return w;
}

int Model::Impl::batch_loop(TSNode expr) const {
  TSNode r = root_identifier(expr);
  if (null(r)) return -1;
  const StepWhere w = step_where(context_of(expr));
  if (w.loop < 0) return -1;
  const auto& names = loops[w.loop].batch_names;
  return std::find(names.begin(), names.end(), t(r)) != names.end() ? w.loop : -1;
}

}  // namespace perflint
