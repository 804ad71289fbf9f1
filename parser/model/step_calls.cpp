// Semantic model of one Python file, part: what this file's step hands to other files (the calls out
// of the step, ProjectContext's StepCall, with what each argument is: a loss, a batch, a host scalar,
// never None), and the questions rules ask about calls into the project.
#include "parser/model/impl.hpp"

namespace perflint {

std::vector<std::string> Model::Impl::handed_functions(TSNode e, int depth) const {
  // A handful: a table of losses picked by a flag has a few entries, a name bound in every branch too.
  static constexpr size_t kMaxFunctions = 6;
  std::vector<std::string> out;
  e = unparenthesized(e);
  if (depth > 3 || !project || (!is(e, "identifier") && !is(e, "attribute"))) return out;
  const auto add = [&out](std::string q) {
    if (!q.empty() && out.size() < kMaxFunctions && std::find(out.begin(), out.end(), q) == out.end())
      out.push_back(std::move(q));
  };
  // The function of the project `v` names: a def of this file (by the module's stem, as an importer
  // names it; a def nested in a module-level function as `stem.outer.inner`: pytorchic-bert's
  // `def get_loss(model, batch, global_step)` inside main(), handed to `trainer.train(get_loss, ...)`),
  // or a function (not a class) of another module.
  const auto named = [&](TSNode v) -> std::string {
    v = unparenthesized(v);
    if (is(v, "identifier"))
      if (const auto it = functions_by_name.find(t(v)); it != functions_by_name.end()) {
        const std::string stem = importable_stem();
        if (stem.empty()) return {};
        const TSNode use = function_containing(v);
        for (size_t fi : it->second) {
          if (!null(functions[fi].cls)) continue;
          const TSNode outer = function_containing(functions[fi].node);
          if (null(outer)) return stem + "." + functions[fi].name;
          // Nested: the one of the function that hands it over, itself a module-level function.
          const size_t oi = function_index(outer);
          if (ts::same(outer, use) && null(function_containing(outer)) && oi != SIZE_MAX && null(functions[oi].cls))
            return stem + "." + std::string(t(field(outer, "name"))) + "." + functions[fi].name;
        }
        return {};
      }
    if (!is(v, "identifier") && !is(v, "attribute")) return {};
    std::string q = qualname_of(v);
    if (q.empty() || !project_qualname(q)) return {};
    const ModuleSummary* module = nullptr;
    return project->project_function(src.path(), q, &module) ? q : std::string();
  };
  if (std::string q = named(e); !q.empty()) {
    add(std::move(q));
    return out;
  }
  if (!is(e, "identifier")) return out;
  // A parameter not bound again in its function: what the calls that run the function hand it.
  if (const TSNode fn = function_containing(e); !null(fn)) {
    const size_t fi = function_index(fn);
    const long at = fi == SIZE_MAX ? -1 : call_position(functions[fi], t(e));
    if (at >= 0) {
      if (bindings().assigns.count(scope_key(fn, t(e)))) return out;
      if (const StepEntry* x = entry_of(fi); x && !x->opaque_args)
        for (const auto& [key, q] : x->arg_functions)
          if (key == t(e) || key == "#" + std::to_string(at)) add(q);
      // A module-level function or a method called from other files (`train_and_evaluate(..., loss_fn,
      // ...)`, `trainer.train(get_loss, ...)` in the script that imports the module).
      if (null(function_containing(fn)) || (!null(functions[fi].cls) && functions[fi].name != "__init__"))
        for (std::string& q : project->handed_functions(src.path(), functions[fi].name, t(e), static_cast<int>(at)))
          add(std::move(q));
      if (fi < callers.size())
        for (size_t ci : callers[fi]) {
          const CallInfo& c = calls[ci];
          if (c.star_args || c.unresolved_kwargs) continue;
          if (const TSNode arg = c.arg(t(e), static_cast<int>(at)); !null(arg))
            for (std::string& q : handed_functions(arg, depth + 1)) add(std::move(q));
        }
      return out;
    }
  }
  // A name bound to functions: each binding the defaults leave on (`if params.smooth: loss_fn =
  // smoothed_loss` / `else: loss_fn = plain_loss`: either runs in some launch).
  for_each_built_from(e, [&](TSNode v) {
    add(named(v));
    return false;
  });
  return out;
}

std::vector<std::string> Model::handed_functions(TSNode e) const { return impl_->handed_functions(e); }

std::string Model::argument_class(TSNode e) const { return impl_->argument_class(e); }

std::vector<StepCall> Model::step_calls() const {
  // Positional parameters a `*batch` argument is taken to fill (a step method's are a handful).
  static constexpr uint32_t kMaxUnpacked = 16;
  std::vector<StepCall> out;
  // CUDA use here, or in the script that imports this file or a project module it imports
  // (guided-diffusion's and consistency_models' train_util.py take the device from dist_util.dev()).
  const bool cuda = uses_cuda() || cuda_importer() != nullptr;
  for (const CallInfo& c : impl_->calls) {
    const StepContext sc = step_context(c.node);
    // A call that is the training step itself (`if T % replay_frequency == 0: dqn.learn(mem)`:
    // Rainbow) runs every step however seldom the loop around it calls it.
    const size_t ci = static_cast<size_t>(&c - impl_->calls.data());
    if (!sc.per_step() && !(sc.in_step && ci < impl_->marker_calls.size() && impl_->marker_calls[ci])) continue;
    // The call's own target, and a step method it is handed uncalled (`retry_call(model.train)`);
    // here a module kept from a constructor's parameter is typed by what the importers build the
    // class with (Impl::constructor_parameter_class).
    const std::string own = impl_->step_target(c);
    const std::string handed = impl_->project ? impl_->referenced_target(c) : std::string();
    const auto foreign = impl_->foreign_overrides.find(ci);
    // The call's own target, a step method handed to it, and the overrides of `self.method()` in
    // subclasses of other files.
    const size_t n_foreign = foreign == impl_->foreign_overrides.end() ? 0 : foreign->second.size();
    // A call of a name that holds a function of another module (`loss = loss_fn(out, y)` with the
    // loss function handed in by the script, or picked by a flag): each function it may hold.
    std::vector<std::string> held;
    if (own.empty() && is(c.function, "identifier") && !impl_->functions_by_name.count(text(c.function)) &&
        sc.per_step())
      held = impl_->handed_functions(c.function);
    for (size_t which = 0; which < 2 + n_foreign + held.size(); ++which) {
      const bool referenced = which == 1;
      std::string target = which == 0 ? own
                           : referenced ? handed
                           : which < 2 + n_foreign ? foreign->second[which - 2].second
                                                   : held[which - 2 - n_foreign];
      if (target.empty()) continue;
      StepCall s;
      s.target = std::move(target);
      if (which >= 2 && which < 2 + n_foreign) s.file = foreign->second[which - 2].first;
      s.line = impl_->src.position(ts_node_start_byte(c.node)).line;
      s.path = sc.reached_from;
      s.cuda = cuda;
      s.positional = static_cast<uint32_t>(c.positional.size());
      s.opaque_args = c.star_args || c.unresolved_kwargs || referenced;  // what the handed method gets is unknown
      for (const Argument& a : c.keywords)
        if (a.name != "**") s.keywords.emplace_back(a.name);
      s.host_args = !s.opaque_args && (!c.positional.empty() || !c.keywords.empty());
      for (TSNode p : c.positional) s.host_args = s.host_args && impl_->host_scalar(p, 0);
      for (const Argument& a : c.keywords) s.host_args = s.host_args && a.name != "**" && impl_->host_scalar(a.value, 0);
      // The batch itself, or a part of it (`batch[1]`, `batch.x`): not an expression that computes
      // from it (`x.cuda()` is its device copy).
      const auto batch_arg = [&](TSNode a) {
        a = unparenthesized(a);
        if (is(a, "identifier") && copied_later(a)) return true;  // a host tensor the step copies later
        if (!(is(a, "identifier") || is(a, "subscript") || is(a, "attribute")) || !is_batch_expression(a) ||
            impl_->step_counter(a))
          return false;
        // Moved to a device in the loop before the call (`target = target.cuda(non_blocking=True)`,
        // then `compute_overall_iou(seg_pred, target, n)`: pointMLP, held-out round 25): the step hands
        // over the device copy under the batch's name, as the same-file check (batch_parameter) says.
        const int li = impl_->batch_loop(a);
        return !(li >= 0 && impl_->hands_device_copy(static_cast<size_t>(li), c, a));
      };
      // A module wrapped in DataParallel scatters its inputs to the GPUs before forward() runs (SPADE's
      // DataParallelWithCallback): what it receives is on the device, not the batch as loaded.
      const bool scattered = impl_->scatters_inputs(c);
      // The step's whole batch unpacked into the positional parameters (`model.train_emb(*train_data)`:
      // vsepp, held-out round 34): each of them is a part of the batch, however many there are; every
      // one is passed, with values not known.
      if (c.star_args && c.positional.empty() && c.keywords.empty() && !c.unresolved_kwargs && !referenced) {
        std::vector<TSNode> given;
        for (TSNode a : ts::named_children(field(c.node, "arguments")))
          if (!is(a, "comment")) given.push_back(a);
        if (given.size() == 1 && is(given.front(), "list_splat")) {
          const TSNode spread = unparenthesized(ts_node_named_child(given.front(), 0));
          if (is(spread, "identifier") && !scattered && batch_arg(spread)) {
            s.opaque_args = false;
            s.positional = kMaxUnpacked;
            for (uint32_t at = 0; at < kMaxUnpacked; ++at) s.batch_positional.push_back(at);
            out.push_back(std::move(s));
            continue;
          }
        }
      }
      if (!s.opaque_args) {
        for (size_t i = 0; i < c.positional.size(); ++i) {
          const TSNode a = c.positional[i];
          const auto at = static_cast<uint32_t>(i);
          if (impl_->is_backward_target(a)) s.loss_positional.push_back(at);
          if (non_none(a, 0)) s.non_none_positional.push_back(at);
          if (!scattered && batch_arg(a)) s.batch_positional.push_back(at);
          if (std::string q = impl_->argument_class(a); !q.empty()) s.arg_classes.emplace_back("#" + std::to_string(i), std::move(q));
          for (std::string& q : impl_->handed_functions(a)) s.arg_functions.emplace_back("#" + std::to_string(i), std::move(q));
        }
        const TSNode in = impl_->function_containing(c.node);
        for (const Argument& a : c.keywords) {
          if (a.name == "**") continue;
          if (impl_->is_backward_target(a.value)) s.loss_keywords.emplace_back(a.name);
          if (non_none(a.value, 0)) s.non_none_keywords.emplace_back(a.name);
          if (!scattered && batch_arg(a.value)) s.batch_keywords.emplace_back(a.name);
          if (const std::optional<bool> truth = impl_->eval(a.value, in, 0).truthy())
            s.keyword_truths.emplace_back(a.name, *truth);
          if (std::string q = impl_->argument_class(a.value); !q.empty()) s.arg_classes.emplace_back(a.name, std::move(q));
          for (std::string& q : impl_->handed_functions(a.value)) s.arg_functions.emplace_back(a.name, std::move(q));
        }
      }
      if (!s.path.empty() && !cuda)
        for (const auto& e : impl_->external)
          if (e.path == s.path) s.cuda = e.cuda;
      out.push_back(std::move(s));
    }
  }
  return out;
}

bool Model::non_none(TSNode e, int depth) const {
  e = unparenthesized(e);
  if (null(e) || depth > 4) return false;
  const std::string_view k = kind(e);
  if (k == "integer" || k == "float" || k == "string" || k == "true" || k == "false" || k == "list" ||
      k == "dictionary" || k == "tuple" || k == "binary_operator")
    return true;
  if (k == "call") {
    const CallInfo* c = call(e);
    if (!c) return false;
    if (c->qualname.starts_with("torch.") && c->qualname.find(".get") == std::string::npos) return true;
    for (std::string_view m : {"to", "cuda", "float", "half", "long", "int", "bool", "view", "reshape", "unsqueeze",
                               "squeeze", "transpose", "permute", "contiguous", "detach", "clone", "sum", "mean",
                               "expand", "repeat", "masked_fill", "type_as", "flatten"})
      if (c->method == m) return true;
    return false;
  }
  if (k != "identifier") return false;
  // A parameter: what every per-step call binds to it, of this file (step_arguments) and of other
  // files' steps (their entry's non-None arguments), both when both call it.
  bool external_param = false;
  if (const TSNode fn = impl_->function_containing(e); !null(fn)) {
    const size_t fi = impl_->function_index(fn);
    if (const StepEntry* x = impl_->entry_of(fi)) {
      const Impl::Function& f = impl_->functions[fi];
      if (Impl::call_position(f, text(e)) >= 0) {
        if (x->opaque_args || !Impl::binds(x->non_none_positional, x->non_none_keywords, f, text(e))) return false;
        external_param = true;
      }
    }
  }
  const std::vector<TSNode> bound = step_arguments(e);
  if (!bound.empty())
    return std::all_of(bound.begin(), bound.end(), [&](TSNode b) { return non_none(b, depth + 1); });
  if (external_param) return true;
  if (!only_plainly_assigned(e, text(e))) return false;
  const std::vector<TSNode> values = visible_values(e, text(e));
  return !values.empty() && std::all_of(values.begin(), values.end(), [&](TSNode v) { return non_none(v, depth + 1); });
}

bool Model::Impl::is_backward_target(TSNode e) const {
  e = unparenthesized(e);
  if (!is(e, "identifier")) return false;
  if (!backward_targets_) {
    backward_targets_.emplace();
    for (size_t i = 0; i < calls.size(); ++i) {
      const CallInfo& c = calls[i];
      if (c.method != "backward") continue;
      // `loss.backward()`, `scaler.scale(loss).backward()`, `loss.backward(retain_graph=True)`: the
      // receiver. `accelerator.backward(loss)`, `model_engine.backward(loss)`: a loss-named argument.
      // Anything else (`accelerator.backward(outputs.loss)`, `out.backward(grad)`) names no loss.
      TSNode target = c.receiver;
      if (!c.positional.empty()) {
        const TSNode a = c.positional.front();
        target = is(a, "identifier") && icontains(t(a), "loss") ? a : TSNode{};
      }
      if (is(target, "call"))
        if (const CallInfo* s = call_info(target); s && s->method == "scale" && s->positional.size() == 1)
          target = s->positional.front();
      target = unparenthesized(target);
      if (!is(target, "identifier")) continue;
      const TSNode fn = call_ctx[i].function;
      backward_targets_->push_back({null(fn) ? UINT32_MAX : ts_node_start_byte(fn), t(target), ts_node_start_byte(c.node)});
    }
  }
  if (backward_targets_->empty()) return false;
  const TSNode fn = function_containing(e);
  const uint32_t in = null(fn) ? UINT32_MAX : ts_node_start_byte(fn), use = ts_node_start_byte(e);
  const std::string_view name = t(e);
  for (const BackwardTarget& b : *backward_targets_) {
    if (b.function != in || b.name != name) continue;
    // Nothing rebinds the name between this use and the backward, before or after it (SlowFast's
    // `misc.check_nan_losses(loss)` ... `scaler.scale(loss).backward()` ... `loss = loss.item()`).
    if (!assigned_between(fn, name, std::min(use, b.at), std::max(use, b.at))) return true;
  }
  return false;
}

namespace {

bool hyperparameter_name(std::string_view name) {
  if (icontains(name, "learning_rate") || icontains(name, "weight_decay") || icontains(name, "momentum")) return true;
  for (size_t at = 0; at <= name.size();) {
    const size_t us = std::min(name.find('_', at), name.size());
    const std::string_view w = name.substr(at, us - at);
    if (w == "lr" || w == "wd" || w == "LR") return true;
    at = us + 1;
  }
  return false;
}

}  // namespace

bool Model::Impl::host_scalar(TSNode e, int depth) const {
  e = unparenthesized(e);
  if (null(e) || depth > 3) return false;
  const std::string_view k = kind(e);
  if (k == "integer" || k == "float" || k == "true" || k == "false" || k == "none" || k == "string") return true;
  if (k == "call") {
    const TSNode fn = field(e, "function");
    if (is(fn, "attribute") && t(field(fn, "attribute")) == "item") return true;
    if (is(fn, "identifier")) {
      const std::string_view f = t(fn);
      return f == "float" || f == "int" || f == "len" || f == "round" || f == "bool";
    }
    return false;
  }
  // `optimizer.param_groups[0]["lr"]`
  if (k == "subscript") return t(e).find(".param_groups[") != std::string_view::npos;
  if (k == "binary_operator")
    return host_scalar(field(e, "left"), depth + 1) && host_scalar(field(e, "right"), depth + 1);
  if (k == "identifier") {
    // Bound where it is read to a host value (`loss = loss.item()` a few lines above: SparK's
    // `me.update(last_loss=loss)`, held-out round 19).
    if (const TSNode v = reaching(e).value; !null(v) && host_scalar(v, depth + 1)) return true;
    // A learning rate or weight decay (`max_lr`, `cur_wd`, `learning_rate`): schedules compute them
    // as Python floats (SparK's `min_lr, max_lr, min_wd, max_wd = lr_wd_annealing(...)`).
    if (hyperparameter_name(t(e))) return true;
    // A loop counter: `for step in range(n)`, `for i, batch in enumerate(loader)`.
    for (TSNode p = ts::parent(e); !null(p) && !is(p, "function_definition"); p = ts::parent(p)) {
      if (!is(p, "for_statement")) continue;
      const TSNode left = field(p, "left"), right = unparenthesized(field(p, "right"));
      if (!is(right, "call")) continue;
      const std::string_view fn = t(field(right, "function"));
      if (fn == "range" && is(left, "identifier") && t(left) == t(e)) return true;
      if ((fn == "enumerate" || fn == "tqdm.tqdm" || fn == "tqdm") && (is(left, "pattern_list") || is(left, "tuple_pattern"))) {
        const TSNode first = ts_node_named_child(left, 0);
        if (fn == "enumerate" && is(first, "identifier") && t(first) == t(e)) return true;
      }
    }
    const std::vector<TSNode> values = [&] {
      std::vector<TSNode> out;
      const auto& b = bindings();
      auto it = b.assigns.find(scope_key(function_containing(e), t(e)));
      if (it == b.assigns.end() || b.opaque.count(scope_key(function_containing(e), t(e)))) return out;
      for (size_t ai : it->second) out.push_back(all_assigns[ai].value);
      return out;
    }();
    if (values.empty()) return false;
    for (TSNode v : values)
      if (!host_scalar(v, depth + 1)) return false;
    return true;
  }
  return false;
}

bool Model::calls_syncing_project_function(const CallInfo& call) const {
  if (!impl_->project) return false;
  const std::string target = impl_->outgoing_target(call);
  return !target.empty() && impl_->project->function_syncs(impl_->src.path(), target);
}

bool Model::calls_project_function(const CallInfo& call) const {
  if (!impl_->project || !Impl::project_qualname(call.qualname)) return false;
  return impl_->project->project_function(impl_->src.path(), call.qualname, nullptr) != nullptr;
}

std::vector<TSNode> Model::callee_definitions(const CallInfo& call) const {
  std::vector<TSNode> out;
  const size_t i = static_cast<size_t>(&call - impl_->calls.data());
  if (i >= impl_->call_callees.size()) return out;
  for (size_t f : impl_->call_callees[i]) out.push_back(impl_->functions[f].node);
  return out;
}

bool Model::runs_foreign_override(const CallInfo& call) const {
  const size_t i = static_cast<size_t>(&call - impl_->calls.data());
  return impl_->calls_with_foreign_overrides.count(i) > 0;
}

bool Model::star_imported(const CallInfo& call) const {
  if (!ts::is(call.function, "identifier")) return false;
  const std::string_view q = call.qualname;
  return std::any_of(impl_->star_modules.begin(), impl_->star_modules.end(), [&](const std::string& m) {
    return q.size() > m.size() && q.starts_with(m) && q[m.size()] == '.' && q.substr(m.size() + 1) == impl_->t(call.function);
  });
}

std::string Model::cuda_step_path() const {
  for (size_t f = 0; f < impl_->fn_external.size(); ++f) {
    const int e = impl_->fn_external[f];
    if (e >= 0 && impl_->external[e].cuda) return impl_->external[e].path;
  }
  return {};
}

}  // namespace perflint
