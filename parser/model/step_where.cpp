// Semantic model of one Python file, part: where code runs relative to the training step (the
// step loop, a helper it calls, another file's step) and which names are the step's batch.
#include "parser/model/impl.hpp"

#include <cctype>
#include <map>
#include <unordered_set>

namespace perflint {

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
  if (const TSNode e = unparenthesized(expr); !null(next_source(e))) {
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
      if (helper_batch_parameter(fi, r, batch_loop_depth_)) return w.loop;
      // A field unpacked from such a parameter (`def fetch_data(self, data): _, feat, feat_len, txt =
      // data`, then `feat.to(self.device)`: End-to-end-ASR-Pytorch's Solver, held-out round 45), bound
      // once in the helper from the parameter itself or a part of it.
      // Not under a branch of the helper (`if isinstance(inputs, torch.Tensor):`, a flag of the
      // object): which one the step's batches take is not known (ParallelWaveGAN's _parse_batch).
      const Context use = context_of(r);
      const bool branched = std::any_of(use.frames.begin(), use.frames.end(), [](const Frame& f) {
        return f.kind == Frame::Kind::Condition || f.kind == Frame::Kind::Guard;
      });
      if (call_position(functions[fi], t(r)) < 0 && !branched) {
        // The binding that reaches the use: the last one of the helper that ends before it (a plain
        // assignment or an unpacking).
        const Assign* reaching = nullptr;
        const auto consider = [&](size_t ai) {
          const Assign& x = all_assigns[ai];
          if (ts::same(x.ctx.function, functions[fi].node) && ts_node_end_byte(x.statement) <= ts_node_start_byte(r) &&
              (!reaching || ts_node_start_byte(x.statement) > ts_node_start_byte(reaching->statement)))
            reaching = &x;
        };
        if (const auto a = bindings().assigns.find(scope_key(functions[fi].node, t(r))); a != bindings().assigns.end())
          for (size_t ai : a->second) consider(ai);
        if (const auto u = bindings().by_unpacked.find(t(r)); u != bindings().by_unpacked.end())
          for (const auto& [ai, position] : u->second) consider(ai);
        if (reaching) {
          const Assign& bound = *reaching;
          const TSNode v = unparenthesized(bound.value);
          const TSNode p = (is(v, "identifier") || is(v, "subscript")) ? root_identifier(v) : TSNode{};
          if (!null(p) && call_position(functions[fi], t(p)) >= 0 && ts::same(bound.ctx.function, functions[fi].node) && !frames_have_loop(bound.ctx) &&
              helper_batch_parameter(fi, p, batch_loop_depth_))
            return w.loop;
        }
      }
      return -1;
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

}  // namespace perflint
