// Semantic model of one Python file, part: Data loaders: DataLoader constructions, the loops they feed (directly, through returns,
// accelerate.prepare, Lightning hooks).
#include "parser/model/impl.hpp"

#include <cctype>

namespace perflint {

namespace {

// A loader's name says it is for evaluation (`val_loader`, `test_dl`, `eval_iter`, `dev_loader`,
// `loader_dev`; not `device_loader`).
bool named_for_evaluation(std::string_view name) {
  return icontains(name, "val") || icontains(name, "test") || icontains(name, "eval") || has_name_part(name, "dev");
}

}  // namespace

TSNode Model::Impl::iterable_base(TSNode e, bool* enumerated) const {
  for (int guard = 0; guard < 8 && is(e, "call"); ++guard) {
    TSNode fn = field(e, "function");
    const std::string_view name = last_component(t(fn));
    // (`metric_logger.log_every(loader, print_freq, header)`: the MetricLogger of DINO, DeiT, MAE, iBOT.)
    // (`itertools.chain.from_iterable(loaders)`: the batches of a list of loaders, one after another;
    // LM-LSTM-CRF's buckets, held-out round 46.)
    if (name != "enumerate" && name != "tqdm" && name != "iter" && name != "zip" && name != "islice" &&
        name != "track" && name != "progress_bar" && name != "ProgressBar" && name != "log_every" &&
        name != "from_iterable" && name != "chain")
      break;
    if (name == "enumerate" && enumerated) *enumerated = true;
    TSNode args = field(e, "arguments");
    if (null(args) || ts_node_named_child_count(args) == 0) break;
    e = ts_node_named_child(args, 0);
  }
  return e;
}

int Model::Impl::returned_index(TSNode fn, std::string_view name) const {
  for (const auto& [f, ret] : returns) {
    if (!ts::same(f, fn)) continue;
    TSNode v = ts_node_named_child(ret, 0);
    if (is(v, "identifier") && t(v) == name) return -1;
    if (is(v, "expression_list") || is(v, "tuple")) {
      auto items = ts::named_children(v);
      for (size_t k = 0; k < items.size(); ++k)
        if (is(items[k], "identifier") && t(items[k]) == name) return static_cast<int>(k);
    }
  }
  return kNotReturned;
}

// Where generator `fn` yields the items of `name` (`yield from name`, or `for b in name: ... yield`);
// 0 if it does not. `again`: a loop of `fn` around that yield iterates `name` once per pass.
uint32_t Model::Impl::yielded_from(TSNode fn, std::string_view name, bool& again) const {
  const std::string_view body = t(fn);
  const uint32_t base = ts_node_start_byte(fn);
  uint32_t at = 0;
  const std::string pattern = "yield from " + std::string(name);
  for (size_t k = body.find(pattern); k != std::string_view::npos; k = body.find(pattern, k + 1)) {
    const size_t end = k + pattern.size();
    if (end < body.size() && (std::isalnum(static_cast<unsigned char>(body[end])) || body[end] == '_' || body[end] == '.'))
      continue;
    at = base + static_cast<uint32_t>(k);
    break;
  }
  if (at == 0)
    for (const Loop& l : loops) {
      if (!ts::same(l.ctx.function, fn) || !is(l.node, "for_statement")) continue;
      if (t(iterable_base(field(l.node, "right"), nullptr)) != name) continue;
      if (t(field(l.node, "body")).find("yield") == std::string_view::npos) continue;
      at = ts_node_start_byte(l.node);
      break;
    }
  if (at == 0) return 0;
  again = std::any_of(loops.begin(), loops.end(), [&](const Loop& l) {
    return ts::same(l.ctx.function, fn) && ts_node_start_byte(l.node) < at && at < ts_node_end_byte(l.node);
  });
  return at;
}

std::string Model::Impl::bound_to_result(TSNode fn, int index) const {
  const std::string_view fname = t(field(fn, "name"));
  for (const auto& a : all_assigns) {
    if (!is(a.value, "call") || last_component(t(field(a.value, "function"))) != fname) continue;
    if (index < 0 && is(a.target, "identifier")) return std::string(t(a.target));
    if (index >= 0 && (is(a.target, "pattern_list") || is(a.target, "tuple_pattern"))) {
      auto names = ts::named_children(a.target);
      if (static_cast<size_t>(index) < names.size() && is(names[index], "identifier"))
        return std::string(t(names[index]));
    }
  }
  return {};
}

bool Model::Impl::lightning_hook(TSNode fn, std::string_view hook) const {
  if (null(fn)) return false;
  if (const std::string_view name = t(field(fn, "name")); name != hook) {
    // Bound to the hook's name by the class (latent-diffusion's DataModuleFromConfig: `if train is not
    // None: self.train_dataloader = self._train_dataloader` in __init__): Lightning calls it as the hook.
    const size_t fi = function_index(fn);
    if (fi == SIZE_MAX || null(functions[fi].cls)) return false;
    bool bound = false;
    for (const Assign& a : all_assigns) {
      if (bound) break;
      if (!is(a.target, "attribute") || !is(a.value, "attribute") || t(field(a.target, "object")) != "self" ||
          t(field(a.target, "attribute")) != hook || t(field(a.value, "object")) != "self" ||
          t(field(a.value, "attribute")) != name || null(a.ctx.function))
        continue;
      const size_t in = function_index(a.ctx.function);
      bound = in != SIZE_MAX && ts::same(functions[in].cls, functions[fi].cls);
    }
    if (!bound) return false;
  }
  TSNode p = ts::parent(fn);
  if (is(p, "decorated_definition")) p = ts::parent(p);
  if (!is(p, "block")) return false;
  TSNode cls = ts::parent(p);
  if (!is(cls, "class_definition")) return false;
  TSNode supers = field(cls, "superclasses");
  if (!null(supers))
    for (TSNode s : ts::named_children(supers)) {
      const std::string_view last = last_component(t(s));
      if (last == "LightningModule" || last == "LightningDataModule") return true;
    }
  return imports_module("lightning") || imports_module("pytorch_lightning");
}

bool Model::Impl::loader_named(const DataLoaderInfo& d, std::string_view name) {
  if (name.empty()) return false;
  if (!d.variable.empty() && d.variable == name) return true;
  return std::find(d.aliases.begin(), d.aliases.end(), name) != d.aliases.end();
}

void Model::Impl::link_prepared_loaders() {
  if (loaders.empty()) return;
  for (const auto& a : all_assigns) {
    if (!is(a.value, "call")) continue;
    const CallInfo* c = call_info(a.value);
    if (!c || c->star_args || (c->method != "prepare" && c->method != "prepare_data_loader")) continue;
    if (!icontains(t(c->receiver), "accelerat") && !imports_module("accelerate")) continue;
    std::vector<TSNode> targets;
    if (is(a.target, "identifier")) targets.push_back(a.target);
    else if (is(a.target, "pattern_list") || is(a.target, "tuple_pattern")) targets = ts::named_children(a.target);
    if (targets.size() != c->positional.size()) continue;
    // `Accelerator(device_placement=False)` leaves the batches where the loader puts them; any other
    // value (unknown included) may place them: the rules that judge copies then stay quiet.
    bool placed = true;
    if (is(c->receiver, "identifier") || is(c->receiver, "attribute"))
      for_each_built_from(c->receiver, [&](TSNode v) {
        const CallInfo* made = is(v, "call") ? call_info(v) : nullptr;
        const Argument* dp = made ? made->keyword("device_placement") : nullptr;
        if (dp) {
          const std::optional<bool> on = eval(dp->value, function_containing(dp->value), 0).truthy();
          if (on && !*on) placed = false;
        }
        return false;
      });
    for (size_t k = 0; k < targets.size(); ++k) {
      if (!is(targets[k], "identifier")) continue;
      const std::string_view from = t(c->positional[k]);
      const std::string_view to = t(targets[k]);
      for (auto& d : loaders) {
        if (!loader_named(d, from)) continue;
        d.device_placed = d.device_placed || placed;
        if (!loader_named(d, to)) d.aliases.emplace_back(to);
      }
    }
  }
}

TSNode Model::Impl::next_source(TSNode call) const {
  if (!is(call, "call")) return {};
  const TSNode fn = field(call, "function");
  const TSNode args = field(call, "arguments");
  if (is(fn, "identifier")) {
    if (t(fn) != "next" || null(args) || ts_node_named_child_count(args) == 0) return {};
    return ts_node_named_child(args, 0);
  }
  if (!is(fn, "attribute") || (t(field(fn, "attribute")) != "next" && t(field(fn, "attribute")) != "__next__") ||
      null(args) || ts_node_named_child_count(args) != 0)
    return {};
  const TSNode it = field(fn, "object");
  if (!is(it, "identifier") && !is(it, "attribute")) return {};
  const std::string_view last = last_component(t(it));
  if (icontains(last, "iter") || icontains(last, "loader")) return it;
  const auto& index = is(it, "identifier") ? bindings().by_name : bindings().by_attribute;
  if (const auto assigned = index.find(t(it)); assigned != index.end())
    for (size_t ai : assigned->second)
      if (const TSNode v = all_assigns[ai].value; is(v, "call") && t(field(v, "function")) == "iter") return it;
  return {};
}

void Model::Impl::for_each_next_source(const Loop& l, const std::function<bool(TSNode)>& visit) const {
  const uint32_t lo = ts_node_start_byte(l.node), hi = ts_node_end_byte(l.node);
  auto first = std::lower_bound(calls.begin(), calls.end(), lo,
                                [](const CallInfo& c, uint32_t s) { return ts_node_start_byte(c.node) < s; });
  for (auto ci = first; ci != calls.end() && ts_node_start_byte(ci->node) < hi; ++ci) {
    if (t(ci->function) != "next" && ci->method != "next" && ci->method != "__next__") continue;
    const TSNode it = next_source(ci->node);
    if ((is(it, "identifier") || is(it, "attribute")) && visit(it)) return;
  }
}

int Model::Impl::loader_behind_next(const Loop& l, TSNode* reiterated, bool* restarted) const {
  if (loaders.empty()) return -1;
  int found = -1;
  for_each_next_source(l, [&](TSNode it) {
    // `it = iter(loader)`, `dl = cycle(self.dataloader)`: a call handed the loader; or
    // `data = load_data()`: a generator of this file that builds one (`yield from loader`).
    const auto& index = is(it, "identifier") ? bindings().by_name : bindings().by_attribute;
    const auto assigned = index.find(t(it));
    if (assigned == index.end()) return false;
    // `diter = iter(dl)` before the loop and again inside it (in its `except StopIteration:`).
    if (restarted) {
      bool inside = false, outside = false;
      for (size_t ai : assigned->second) {
        const TSNode v = all_assigns[ai].value;
        if (!is(v, "call") || t(field(v, "function")) != "iter") continue;
        const uint32_t at = ts_node_start_byte(all_assigns[ai].statement);
        (at >= ts_node_start_byte(l.node) && at < ts_node_end_byte(l.node) ? inside : outside) = true;
      }
      *restarted = *restarted || (inside && outside);
    }
    for (size_t ai : assigned->second) {
      const TSNode v = all_assigns[ai].value;
      if (!is(v, "call")) continue;
      const CallInfo* made = call_info(v);
      if (!made) continue;
      for (size_t k = 0; k < made->positional.size(); ++k)
        for (size_t d = 0; d < loaders.size(); ++d)
          if (loader_named(loaders[d], t(made->positional[k]))) {
            // `infiniteloop(dataloader)`, a generator of this file that runs `for x in iter(loader):
            // yield x` inside `while True:`: each pass starts the loader again (pytorch-ddpm,
            // lightweight-gan's cycle(); held-out round 12).
            if (reiterated && is(made->function, "identifier"))
              if (auto fns = functions_by_name.find(t(made->function)); fns != functions_by_name.end())
                for (size_t f : fns->second) {
                  const long pi = static_cast<long>(k) + (!functions[f].params.empty() && functions[f].params.front() == "self");
                  if (pi >= static_cast<long>(functions[f].params.size())) continue;
                  bool again = false;
                  if (yielded_from(functions[f].node, functions[f].params[static_cast<size_t>(pi)], again) != 0 && again)
                    *reiterated = functions[f].node;
                }
            return found = static_cast<int>(d), true;
          }
      if (!is(made->function, "identifier")) continue;
      const auto fns = functions_by_name.find(t(made->function));
      if (fns == functions_by_name.end()) continue;
      for (size_t f : fns->second) {
        const TSNode body = functions[f].node;
        if (t(body).find("yield") == std::string_view::npos) continue;
        for (size_t d = 0; d < loaders.size(); ++d) {
          const uint32_t at = ts_node_start_byte(loaders[d].call->node);
          if (at >= ts_node_start_byte(body) && at < ts_node_end_byte(body)) return found = static_cast<int>(d), true;
        }
      }
    }
    return false;
  });
  return found;
}

void Model::Impl::adopt_importer_cuda(const ModuleSummary* stepper) {
  // The stepping file's CUDA use is this loader's too (pinned memory, copies), or that of the project
  // module it imports whose step iterates the loader (`TrainLoop(data=...)`), or the device of the
  // model whose step method it calls by name.
  if (!null(cuda_node) || importer || !stepper) return;
  if (stepper->uses_cuda) importer = stepper;
  else if (const ModuleSummary* via = project->cuda_imported(stepper->path)) importer = via;
  else if (const ModuleSummary* by_name = project->step_method_cuda(stepper->path)) importer = by_name;
}

bool Model::Impl::link_wrapped_loader(DataLoaderInfo& d, TSNode fn, std::string_view attribute) {
  const size_t fi = function_index(fn);
  if (fi == SIZE_MAX || null(functions[fi].cls)) return false;
  const TSNode cls = functions[fi].cls;
  const std::string held = "self." + std::string(attribute);
  // `self.dataloader` as a whole name in `body` (not `self.dataloader_val`).
  const auto names_held = [&](TSNode body) {
    const std::string_view b = t(body);
    for (size_t at = b.find(held); at != std::string_view::npos; at = b.find(held, at + 1))
      if (at + held.size() >= b.size() || !is_ascii_name_byte(b[at + held.size()])) return true;
    return false;
  };
  // Iterating the wrapper runs its __iter__: over the loader when that method names it
  // (`for i, data in enumerate(self.dataloader): yield data`, `return iter(self.dataloader)`).
  bool iterates_self = false;
  for (const Function& f : functions)
    if (ts::same(f.cls, cls) && f.name == "__iter__") iterates_self = names_held(field(f.node, "body"));
  // The ways a caller reaches the loader: methods returning it, or returning the wrapper when that
  // iterates it (CycleGAN's `load_data(self): return self`), and the wrapper itself.
  std::vector<std::string> vias;
  for (const Function& f : functions) {
    if (!ts::same(f.cls, cls) || f.name == "__iter__" || f.name == "__init__") continue;
    for (TSNode ret : returns_of(f.node)) {
      const std::string_view v = t(unparenthesized(ts_node_named_child(ret, 0)));
      if (v == held || (iterates_self && v == "self")) {
        vias.push_back(f.name);
        break;
      }
    }
  }
  if (iterates_self) vias.emplace_back();
  if (vias.empty()) return false;
  const std::string name(t(field(cls, "name")));
  const SteppedResult* r = nullptr;
  const ModuleSummary* imp = project->step_importer(src.path(), name, -1, &r, &vias);
  std::string how = name + "()";
  // A function of this file that builds the wrapper and returns it, or what one of those methods of
  // it returns (CUT's `def create_dataset(opt): data_loader = CustomDatasetDataLoader(opt); dataset =
  // data_loader.load_data(); return dataset`): iterating its result reaches the loader.
  static const std::vector<std::string> kItself{""};
  for (size_t g = 0; g < functions.size() && !imp; ++g) {
    if (!null(functions[g].cls) || !is(ts::parent(functions[g].node), "module")) continue;
    const TSNode gn = functions[g].node;
    const std::vector<std::string>* reach = nullptr;
    if (returned_class(g, -1) == "." + name) {
      reach = &vias;
    } else {
      for (TSNode ret : returns_of(gn)) {
        TSNode v = unparenthesized(ts_node_named_child(ret, 0));
        if (is(v, "identifier")) {  // `dataset = data_loader.load_data(); return dataset`
          const auto a = bindings().assigns.find(scope_key(gn, t(v)));
          v = a != bindings().assigns.end() && a->second.size() == 1 ? all_assigns[a->second.front()].value : TSNode{};
        }
        if (!is(v, "call") || !is(field(v, "function"), "attribute")) continue;
        const TSNode callee = field(v, "function");
        const std::string_view method = t(field(callee, "attribute"));
        if (std::find(vias.begin(), vias.end(), method) != vias.end() &&
            built_class(field(callee, "object"), gn) == "." + name) {
          reach = &kItself;
          break;
        }
      }
    }
    if (!reach) continue;
    imp = project->step_importer(src.path(), functions[g].name, -1, &r, reach);
    if (imp) how = functions[g].name + "()";
  }
  // A factory in a module that imports this one (pix2pixHD's data_loader.py: `def CreateDataLoader(
  // opt): data_loader = CustomDatasetDataLoader(); ...; return data_loader`).
  if (!imp)
    for (const auto& [file, factory] : project->instance_factories(src.path(), name)) {
      if ((imp = project->step_importer(file, factory, -1, &r, &vias))) {
        how = factory + "()";
        break;
      }
    }
  if (!imp || !r) return false;
  d.feeds_step = true;
  d.repeated = r->repeated;
  d.step_loop = field(fn, "name");
  adopt_importer_cuda(imp);
  d.framework_reason = std::filesystem::path(imp->path).filename().string() + " iterates " +
                       (r->via.empty() ? "what " + how + " returns" : how + "." + r->via + "()") +
                       " in its training loop (line " + std::to_string(r->line) + "), which runs over " + held;
  return true;
}

void Model::Impl::collect_loaders() {
  for (size_t i = 0; i < calls.size(); ++i) {
    const CallInfo& c = calls[i];
    const std::string_view q = c.qualname;
    if (q != "torch.utils.data.DataLoader" && q != "torch.utils.data.dataloader.DataLoader")
      continue;
    // Built in a branch an option's default switches off (`if args.gail:` with --gail off): not
    // built in the default launch, so not the run's loader.
    if (switched_off(call_ctx[i])) continue;
    DataLoaderInfo d;
    d.call = &c;
    TSNode parent = ts::parent(c.node);
    TSNode fn = call_ctx[i].function;
    int returned_at = kNotReturned;  // where the enclosing function returns it, if it does
    if (is(parent, "assignment") && ts::same(field(parent, "right"), c.node)) {
      d.variable = std::string(t(field(parent, "left")));
      // Built in a function that returns it (alone or in a tuple): the caller's name for it.
      if (is(field(parent, "left"), "identifier") && !null(fn)) {
        int index = returned_index(fn, t(field(parent, "left")));
        // Returned under another name, picked in a branch (the CS230 template's `if types ==
        // 'train': dl = trainloader` / `else: dl = devloader`, then `return dl`: Teacher-free-KD,
        // held-out round 41): the training one is what a step iterates; one named for evaluation is not.
        if (index == kNotReturned && !named_for_evaluation(d.variable) && !icontains(d.variable, "dev"))
          for (const Assign& a : all_assigns) {
            if (!ts::same(a.ctx.function, fn) || !is(a.target, "identifier") || !is(a.value, "identifier") ||
                t(a.value) != d.variable || ts_node_start_byte(a.statement) < ts_node_end_byte(parent))
              continue;
            if (const int via = returned_index(fn, t(a.target)); via != kNotReturned) {
              index = via;
              break;
            }
          }
        returned_at = index;
        if (index != kNotReturned) {
          std::string caller_name = bound_to_result(fn, index);
          // `train, val, _ = get_loaders()`: a discarded loader keeps its local name (`test_loader`),
          // which says what it is for; it is never iterated, so it must not be assumed to feed the step.
          if (!caller_name.empty() && caller_name != "_") d.variable = std::move(caller_name);
          else if (caller_name == "_") d.discarded = true;
        }
      }
    } else if ((is(parent, "list_comprehension") || is(parent, "generator_expression")) &&
               ts::same(field(parent, "body"), c.node) && is(ts::parent(parent), "assignment") &&
               ts::same(field(ts::parent(parent), "right"), parent)) {
      // `loaders = [DataLoader(b, bs) for b in buckets]`: the list is what the script names, iterates
      // (`itertools.chain.from_iterable(loaders)`) or hands to an evaluator (held-out round 46).
      d.variable = std::string(t(field(ts::parent(parent), "left")));
    } else if (!null(fn) && is(parent, "return_statement")) {
      d.variable = bound_to_result(fn, -1);  // `return DataLoader(...)`
      returned_at = -1;
    } else if (!null(fn) && is(parent, "expression_list") && is(ts::parent(parent), "return_statement")) {
      // `return DataLoader(...), DataLoader(...)`
      int index = 0;
      for (TSNode e : ts::named_children(parent)) {
        if (ts::same(e, c.node)) break;
        ++index;
      }
      d.variable = bound_to_result(fn, index);
      returned_at = index;
    }
    // A generator that builds the loader and yields its batches (`while True: yield from loader`,
    // guided-diffusion's load_data): its callers iterate the loader through it, and a loop around
    // the yield iterates the loader again each pass (its workers restart unless persistent).
    bool yields_again = false;
    if (returned_at == kNotReturned && !null(fn) && !d.variable.empty() && is(field(parent, "left"), "identifier"))
      if (const uint32_t at = yielded_from(fn, d.variable, yields_again); at != 0) {
        returned_at = -1;
        if (std::string caller_name = bound_to_result(fn, -1); !caller_name.empty() && caller_name != "_")
          d.variable = std::move(caller_name);
      }
    // Lightning calls `train_dataloader()` and runs the training step over what it returns, once
    // per epoch: the loader feeds the step with no loop in the file to show it.
    if (lightning_hook(fn, "train_dataloader")) {
      bool returned = is(parent, "return_statement");
      if (!returned && is(parent, "assignment") && ts::same(field(parent, "right"), c.node) &&
          is(field(parent, "left"), "identifier"))
        returned = returned_index(fn, t(field(parent, "left"))) == -1;
      if (returned) {
        d.feeds_step = true;
        d.repeated = true;
        d.step_loop = field(fn, "name");
        d.framework_reason = "Lightning runs the training step over the loader train_dataloader() returns, and "
                             "iterates train_dataloader() once per epoch";
      }
    }
    // Built and returned here, iterated by the training loop of a sibling script that imports
    // this module (`loader = data.build_loader(args)` in main.py).
    if (project && !d.feeds_step && !null(fn) && returned_at != kNotReturned) {
      std::string_view fname = t(field(fn, "name"));
      const SteppedResult* r = nullptr;
      const ModuleSummary* imp = project->step_importer(src.path(), fname, returned_at, &r);
      // Through another factory of this file that binds what this one returns and returns it in turn
      // (MUNIT's get_all_data_loaders: `train_loader_a = get_data_loader_folder(...)`, then `return
      // train_loader_a, train_loader_b, test_loader_a, test_loader_b`; held-out round 18).
      if (!imp)
        if (const size_t fi = function_index(fn); fi != SIZE_MAX && fi < callers.size())
          for (size_t ci : callers[fi]) {
            const TSNode g = call_ctx[ci].function;
            const TSNode at = ts::parent(calls[ci].node);
            if (null(g) || ts::same(g, fn) || !is(at, "assignment") || !is(field(at, "left"), "identifier") ||
                !ts::same(field(at, "right"), calls[ci].node))
              continue;
            const int index = returned_index(g, t(field(at, "left")));
            if (index == kNotReturned) continue;
            if ((imp = project->step_importer(src.path(), t(field(g, "name")), index, &r))) {
              fname = t(field(g, "name"));
              break;
            }
          }
      if (imp && r) {
        d.feeds_step = true;
        d.repeated = r->repeated || yields_again;
        d.step_loop = field(fn, "name");
        adopt_importer_cuda(imp);
        d.framework_reason = std::filesystem::path(imp->path).filename().string() + " iterates what " +
                             std::string(fname) + "() returns in its training loop (line " +
                             std::to_string(r->line) + ")";
      }
    }
    if (project && !d.feeds_step && !null(fn) && returned_at == kNotReturned && is(parent, "assignment") &&
        is(field(parent, "left"), "attribute") && t(field(field(parent, "left"), "object")) == "self")
      link_wrapped_loader(d, fn, t(field(field(parent, "left"), "attribute")));
    loaders.push_back(std::move(d));
  }
  link_prepared_loaders();
  // Link loops to loaders, and give step loops their batch names (batch_loop() reads no other
  // loop's): a loop that is not a step in a file without loaders needs neither.
  for (size_t li = 0; li < loops.size(); ++li) {
    Loop& l = loops[li];
    if (loaders.empty() && !l.step) continue;
    if (!is(l.node, "for_statement")) {
      // `while True: batch = next(it)`
      TSNode reiterated{};
      bool restarted = false;
      if (const int found = l.step ? loader_behind_next(l, &reiterated, &restarted) : -1; found >= 0) {
        l.loader = found;
        loaders[found].loops.push_back(l.node);
        loaders[found].feeds_step = true;
        loaders[found].step_loop = l.node;
        loaders[found].repeated = loaders[found].repeated || l.repeated || !null(reiterated) || restarted;
        if (!null(reiterated)) loaders[found].reiterated_by = reiterated;
      }
      continue;
    }
    bool enumerated = false;
    TSNode base = iterable_base(field(l.node, "right"), &enumerated);
    std::string base_text(t(base));
    // Of the loaders with that name, the one built in the loop's own function (several functions
    // of a file may each build a `loader`), else the first.
    int found = -1;
    // Built in the loop's header (`for perm in tqdm(DataLoader(range(n), bs, shuffle=True)):`): that
    // loop iterates it, whatever it is for (benchmarking-gnns' evaluation loops; held-out round 18).
    if (is(base, "call"))
      for (size_t d = 0; d < loaders.size() && found < 0; ++d)
        if (loaders[d].call && ts::same(loaders[d].call->node, base)) found = static_cast<int>(d);
    const bool in_header = found >= 0;
    const auto by_name = [&] {
      for (size_t d = 0; d < loaders.size() && !in_header; ++d) {
        if (!loader_named(loaders[d], base_text)) continue;
        const Context& built = call_ctx[static_cast<size_t>(loaders[d].call - calls.data())];
        if (found < 0) found = static_cast<int>(d);
        if (ts::same(built.function, l.ctx.function)) {
          found = static_cast<int>(d);
          break;
        }
      }
    };
    by_name();
    // A local name bound once to a wrapper of the loader (`t = tqdm(enumerate(trainloader), ...)`,
    // then `for batch_idx, (inputs, _, _) in t:`: pytorch-simclr, held-out round 25).
    if (found < 0 && !in_header && is(base, "identifier") && !null(l.ctx.function)) {
      bool wrapped_enumerate = false;
      const TSNode source = loop_source(l, &wrapped_enumerate);
      if (!null(source) && !ts::same(source, base)) {
        enumerated = enumerated || wrapped_enumerate;
        base = source;
        base_text = std::string(t(base));
        by_name();
      }
    }
    // A parameter of the enclosing function: follow its call sites one level.
    if (found < 0 && is(base, "identifier") && !null(l.ctx.function)) {
      const size_t fi = function_index(l.ctx.function);
      if (fi != SIZE_MAX) {
        const auto& params = functions[fi].params;
        auto pit = std::find(params.begin(), params.end(), base_text);
        if (pit != params.end()) {
          size_t index = static_cast<size_t>(pit - params.begin());
          for (size_t ci : callers[fi]) {
            if (found >= 0) break;
            const CallInfo& c = calls[ci];
            size_t pos_index = index;
            if (!params.empty() && params.front() == "self" && is(c.function, "attribute")) --pos_index;
            TSNode arg = c.arg(base_text, static_cast<int>(pos_index));
            if (null(arg)) continue;
            const std::string at(t(arg));
            for (size_t d = 0; d < loaders.size() && found < 0; ++d)
              if (loader_named(loaders[d], at)) found = static_cast<int>(d);
          }
        }
      }
    }
    TSNode reiterated{};
    bool restarted = false;
    if (found < 0 && l.step) found = loader_behind_next(l, &reiterated, &restarted);
    if (found >= 0) {
      l.loader = found;
      loaders[found].loops.push_back(l.node);
      if (l.step) {
        loaders[found].feeds_step = true;
        loaders[found].step_loop = l.node;
        loaders[found].repeated = loaders[found].repeated || l.repeated || !null(reiterated) || restarted;
        if (!null(reiterated)) loaders[found].reiterated_by = reiterated;
      }
    }
    if (!l.step) continue;
    // Batch names: the loop target (minus enumerate's index).
    TSNode left = field(l.node, "left");
    if (enumerated && (is(left, "pattern_list") || is(left, "tuple_pattern"))) {
      auto kids = ts::named_children(left);
      for (size_t k = 1; k < kids.size(); ++k) bound_names(kids[k], text, l.batch_names);
    } else {
      bound_names(left, text, l.batch_names);
    }
  }
  // `Variable(x)` (torch.autograd.Variable, an identity since PyTorch 0.4): the value it wraps. So is a
  // host conversion without a device (`inputs_3d = torch.from_numpy(batch_3d.astype('float32'))`:
  // VideoPose3D's numpy batches, held-out round 43): still the host batch, under another name.
  const auto unwrap_variable = [&](TSNode v) {
    static constexpr std::string_view kHostConversions[] = {"torch.from_numpy", "torch.as_tensor", "torch.tensor",
                                                            "torch.Tensor", "torch.FloatTensor", "torch.LongTensor"};
    for (int guard = 0; guard < 4 && is(v, "call"); ++guard) {
      const std::string q = qualname_of(field(v, "function"));
      const bool conversion =
          std::find(std::begin(kHostConversions), std::end(kHostConversions), q) != std::end(kHostConversions);
      if (q != "torch.autograd.Variable" && q != "torch.autograd.variable.Variable" && !conversion) break;
      if (conversion)
        if (const CallInfo* c = call_info(v); !c || c->keyword("device") || c->positional.size() != 1) break;
      TSNode args = field(v, "arguments");
      if (null(args) || ts_node_named_child_count(args) == 0) break;
      TSNode first = ts_node_named_child(args, 0);
      if (is(first, "keyword_argument") || is(first, "list_splat") || is(first, "dictionary_splat")) break;
      v = first;
    }
    return v;
  };
  // A module-level function of this file that moves nothing to a device, itself or through the
  // functions of the file it calls: what it returns from a batch is still the host batch.
  const std::function<bool(size_t, int)> stays_on_host = [&](size_t fi, int depth) {
    if (depth > 2) return false;
    for (size_t ci : calls_in(fi)) {
      if (moves_to_device(calls[ci]) || calls[ci].method == "pin_memory") return false;
      for (size_t callee : call_callees[ci])
        if (callee != fi && !stays_on_host(callee, depth + 1)) return false;
    }
    return true;
  };
  const auto from_names = [&](TSNode value, const std::vector<std::string_view>& names) {
    TSNode v = unwrap_variable(value);
    // `X, lS_o, lS_i, T = unpack_batch(inputBatch)` (DLRM; held-out round 16): a helper of the file
    // that takes the batch apart on the host.
    if (is(v, "call") && is(field(v, "function"), "identifier"))
      if (const auto f = functions_by_name.find(t(field(v, "function")));
          f != functions_by_name.end() && f->second.size() == 1 && null(functions[f->second.front()].cls)) {
        const CallInfo* c = call_info(v);
        if (c && !c->positional.empty() && !c->star_args) {
          const TSNode r = root_identifier(c->positional.front());
          return !null(r) && std::find(names.begin(), names.end(), t(r)) != names.end() &&
                 stays_on_host(f->second.front(), 0);
        }
      }
    TSNode r = root_identifier(v);
    return !null(r) && std::find(names.begin(), names.end(), t(r)) != names.end();
  };
  // `x, y = batch`, `x = Variable(batch[0])` bind batch names; `x, y = batch["x"], other` pairs the
  // sides element by element (only `x` is a batch name). Returns false when `value` is a tuple that
  // cannot be paired (a starred element, another arity): nothing is bound then.
  const auto bind_batch = [&](TSNode target, TSNode value, std::vector<std::string_view>& names) {
    const bool tuple_target = is(target, "pattern_list") || is(target, "tuple_pattern");
    if (tuple_target && (is(value, "expression_list") || is(value, "tuple"))) {
      const auto targets = ts::named_children(target), values = ts::named_children(value);
      if (targets.size() != values.size()) return false;
      for (size_t k = 0; k < values.size(); ++k)
        if (is(targets[k], "list_splat_pattern") || is(values[k], "list_splat")) return false;
      for (size_t k = 0; k < values.size(); ++k)
        if (from_names(values[k], names)) bound_names(targets[k], text, names);
      return true;
    }
    if (!from_names(value, names)) return false;
    bound_names(target, text, names);
    return true;
  };
  // `inputs, targets, lengths = queue.get()`: batches that loader threads put in a queue (kospeech's
  // MultiDataLoader; held-out round 18), taken like `next(it)`. Only a receiver named as a queue
  // (`queue`, `self.train_queue`, `data_q`): `.get()` on anything else is a dict's or a config's.
  const auto from_queue = [&](TSNode value) {
    const TSNode fn = field(value, "function");
    if (!is(fn, "attribute") || t(field(fn, "attribute")) != "get") return false;
    const TSNode args = field(value, "arguments");
    if (!null(args) && ts_node_named_child_count(args) > 0 && !is(ts_node_named_child(args, 0), "keyword_argument"))
      return false;  // `d.get(key)`: a look-up, not a take
    std::string_view recv = t(field(fn, "object"));
    if (const size_t dot = recv.rfind('.'); dot != std::string_view::npos) recv = recv.substr(dot + 1);
    return recv == "q" || recv.ends_with("_q") || recv.find("queue") != std::string_view::npos ||
           recv.find("Queue") != std::string_view::npos;
  };
  // Names assigned from batch names inside a step loop's body: `x, y = batch`, `x = batch["x"]`, also
  // in a loop of the body over something else (`for i, t in enumerate(tasks): labels[t] = batch[i +
  // 1]`: MultiObjectiveOptimization, held-out round 44), and a container filled with parts of the
  // batch (`labels[t] = ...`: `labels[t].cuda()` copies the batch).
  const bool step_loops = std::any_of(loops.begin(), loops.end(), [](const Loop& l) { return l.step; });
  for (const auto& a : all_assigns) {
    if (!step_loops) break;
    for (size_t fi = a.ctx.frames.size(); fi-- > 0;) {
      if (a.ctx.frames[fi].kind != Frame::Kind::Loop) continue;
      auto it = loop_index.find(key(a.ctx.frames[fi].node));
      if (it == loop_index.end()) break;
      Loop& l = loops[it->second];
      if (!l.step) continue;
      if (is(a.target, "subscript") && is(field(a.target, "value"), "identifier")) {
        if (from_names(a.value, l.batch_names)) l.batch_names.push_back(t(field(a.target, "value")));
        break;
      }
      // `batch = next(it)` in a while loop over an iterator.
      if (is(a.value, "call") && (!null(next_source(a.value)) || from_queue(a.value)))
        bound_names(a.target, text, l.batch_names);
      else bind_batch(a.target, a.value, l.batch_names);
      break;
    }
  }
  // Step functions called from a step loop with a batch: `def train_step(batch): x, y = batch`.
  // Their parameters (and names unpacked from them) are batch names of that loop.
  for (size_t fi = 0; fi < functions.size(); ++fi) {
    if (!functions[fi].step_fn) continue;
    const auto& params = functions[fi].params;
    for (size_t ci : callers[fi]) {
      const StepWhere w = step_where(call_ctx[ci]);
      if (w.loop < 0) continue;
      Loop& l = loops[w.loop];
      const CallInfo& c = calls[ci];
      const size_t skip = (!params.empty() && params.front() == "self" && is(c.function, "attribute")) ? 1 : 0;
      std::vector<std::string_view> names;
      for (size_t k = 0; k < c.positional.size() && k + skip < params.size(); ++k) {
        TSNode r = root_identifier(c.positional[k]);
        // `self.step(x.to(self.device))`: the parameter is the batch's device copy (ddpm-torch).
        if (!null(r) && std::find(l.batch_names.begin(), l.batch_names.end(), t(r)) != l.batch_names.end() &&
            !device_copy_in(c.positional[k]))
          names.push_back(params[k + skip]);
      }
      if (names.empty()) continue;
      const auto& by_function = bindings().by_function;
      const auto in_fn = by_function.find(key(functions[fi].node));
      static const std::vector<size_t> kNone;
      for (size_t ai : in_fn == by_function.end() ? kNone : in_fn->second) {
        const Assign& a = all_assigns[ai];
        bind_batch(a.target, a.value, names);
      }
      l.batch_names.insert(l.batch_names.end(), names.begin(), names.end());
    }
  }
  // A helper the step loop calls that draws the batch itself (segan's `sample_dloader(self, dloader,
  // device)`: `sample = next(dloader.__iter__())`, `uttname, clean, noisy, idx = sample`,
  // `clean.to(device)`; held-out round 40): the names bound from `next(...)` in its body are batches
  // of that loop (batch_loop asks drawn_batch_names).
  for (size_t fi = 0; fi < functions.size(); ++fi) {
    if (functions[fi].step_fn || callers[fi].empty()) continue;
    const auto& by_function = bindings().by_function;
    const auto in_fn = by_function.find(key(functions[fi].node));
    if (in_fn == by_function.end()) continue;
    std::vector<std::string_view> names;
    for (size_t ai : in_fn->second) {
      const Assign& a = all_assigns[ai];
      if (!a.ctx.frames.empty() && frames_have_loop(a.ctx)) continue;  // a loop of its own: not one draw per call
      // (Not `next(model.parameters())`: a parameter, for its device or dtype.)
      if (!null(next_source(a.value)) &&
          t(field(a.value, "arguments")).find("parameters(") == std::string_view::npos &&
          t(field(a.value, "arguments")).find("buffers(") == std::string_view::npos)
        bound_names(a.target, text, names);
      else if (!names.empty()) bind_batch(a.target, a.value, names);
    }
    if (!names.empty()) drawn_batch_names[fi] = std::move(names);
  }
  link_siblings();
  link_loader_consumers();
  // Unlinked loaders: assumed to feed the step loop when there is exactly one, and no loader is
  // already known to feed it (then an unlinked one is for evaluation, or iterated in a
  // comprehension such as `sum(f(x) for x in loader)`, or not used at all).
  const bool step_fed = std::any_of(loaders.begin(), loaders.end(), [](const DataLoaderInfo& d) { return d.feeds_step; });
  // A loader built in a function that nothing refers to (its name occurs nowhere else in this file,
  // and the project knows no other file that names it): a leftover factory (LLMs-from-scratch's
  // create_dataloader_v1 copied into later chapters), not the step's loader.
  const auto unreferenced_factory = [&](const DataLoaderInfo& d) {
    if (!project || !d.call) return false;
    const TSNode fn = function_containing(d.call->node);
    const std::string_view name = null(fn) ? std::string_view{} : t(field(fn, "name"));
    if (name.empty()) return false;
    return count_word(text, name, 2) == 1 && !project->mentioned_elsewhere(src.path(), name);
  };
  // A loader handed to a call that consumes it, its result dropped (continual-learning's FROMP:
  // `model.optimizer.update_fisher(memorable_loader, ...)` once per context; held-out round 36): it
  // feeds that call, not this file's step loop. Not a call that trains on it (`trainer.fit(model,
  // loader)`, `train(loader)`, `accelerator.prepare(loader)`).
  const auto handed_elsewhere = [&](const DataLoaderInfo& d) {
    if (d.variable.empty()) return false;
    for (size_t i = 0; i < calls.size(); ++i) {
      const CallInfo& c = calls[i];
      if (!is(ts::parent(c.node), "expression_statement")) continue;
      bool hands = false;
      for (TSNode a : c.positional) hands = hands || t(a) == d.variable;
      for (const Argument& a : c.keywords) hands = hands || (a.name != "**" && t(a.value) == d.variable);
      if (!hands) continue;
      const std::string_view name = is(c.function, "attribute") ? std::string_view(c.method) : t(c.function);
      bool trains = name.empty();
      for (std::string_view w : {"fit", "train", "prepare", "setup", "launch", "run", "loop", "epoch", "step", "iter",
                                 "enumerate", "tqdm", "zip", "list", "print", "len", "next"})
        trains = trains || icontains(name, w);
      if (!trains) return true;
    }
    return false;
  };
  for (auto& d : loaders) {
    if (step_fed) break;
    if (!d.loops.empty() || step_loop_nodes.size() != 1 || d.discarded || d.variable == "_") continue;
    if (named_for_evaluation(d.variable)) continue;
    // Nor one built in an evaluation function (crnn.pytorch's `def val(net, dataset, ...)`, which
    // builds its loader and reads it with `val_iter.next()`; held-out round 38), unless it trains too
    // (continual-learning's `train_and_evaluate`).
    if (d.call)
      if (const TSNode fn = function_containing(d.call->node);
          !null(fn) && evaluation_name(t(field(fn, "name"))) && !icontains(t(field(fn, "name")), "train"))
        continue;
    if (unreferenced_factory(d)) continue;
    if (handed_elsewhere(d)) continue;
    d.assumed_step = true;
    d.step_loop = step_loop_nodes.front();
    auto it = loop_index.find(key(d.step_loop));
    d.repeated = it != loop_index.end() && loops[it->second].repeated;
    // `iterator_train = iter(loader_train)` once, outside any loop, and `next(iterator)` every step of
    // every epoch (CSAIL's semantic-segmentation): one iterator for the whole run, not one per epoch.
    if (d.repeated)
      for (size_t i = 0; i < calls.size(); ++i) {
        const CallInfo& c = calls[i];
        if (t(c.function) == "iter" && c.positional.size() == 1 && t(c.positional.front()) == d.variable &&
            !frames_have_loop(call_ctx[i])) {
          d.repeated = false;
          break;
        }
      }
  }
}

}  // namespace perflint
