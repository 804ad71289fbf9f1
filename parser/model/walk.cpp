// Semantic model of one Python file, part: The walk: one iterative pre-order pass that records everything the other parts derive from.
#include "parser/model/impl.hpp"

#include <memory>
#include <new>

#include "parser/ts_walk.h"

namespace perflint {

void Model::Impl::build(TSNode root, const std::vector<std::string>& wanted) {
  root_node = root;
  const TSLanguage* lang = ts::python_language();
  // symbol -> slot for the wanted kinds; the engine asks for the same kinds every file.
  struct SlotCache {
    std::vector<std::string> wanted;
    std::vector<int> slots;
  };
  static thread_local SlotCache cache;
  if (cache.wanted != wanted || cache.slots.empty()) {
    cache.wanted = wanted;
    cache.slots.assign(ts_language_symbol_count(lang), -1);
    for (size_t w = 0; w < wanted.size(); ++w)
      for (uint32_t i = 0; i < cache.slots.size(); ++i)
        if (ts_language_symbol_type(lang, static_cast<TSSymbol>(i)) != TSSymbolTypeAuxiliary &&
            wanted[w] == ts_language_symbol_name(lang, static_cast<TSSymbol>(i)))
          cache.slots[i] = static_cast<int>(w);
  }
  kind_slot = cache.slots;
  by_kind_lists.resize(wanted.size());
  by_kind_names = wanted;

  // One level per node being descended into: its symbol kind, the frame/function counts its
  // children start from (each child first resets to them, dropping what a sibling pushed), and
  // the call it belongs to when it is a call, the call's callee attribute, or its argument list.
  enum class Role : uint8_t { None, Call, Callee, Arguments };
  struct Level {
    TSNode node;
    Sym sym;
    Role role;
    int32_t call;
    size_t frames_base;
    size_t functions_base;
  };
  struct Entered {
    Sym sym = Sym::Other;
    Role role = Role::None;
    int32_t call = -1;
    bool descend = true;  // false: the walk passes over the node's children
  };
  std::vector<Level> levels;
  std::vector<Frame> frames;
  std::span<const Frame> last_frames;  // the frames last stored in the arena
  std::vector<std::pair<TSNode, size_t>> functions_open;  // (function, frames index where it starts)
  const auto& table = sym_table();
  const FieldIds& fid_of = fields();
  // About one call per 12 nodes in real code: reserving avoids re-allocating (and moving) the
  // per-call records while the walk grows them.
  const size_t nodes = ts_node_descendant_count(root);
  calls.reserve(nodes / 12);
  call_ctx.reserve(nodes / 12);
  // Named-ness by symbol: one table look-up instead of a call per node.
  static const std::vector<bool> named = [lang] {
    std::vector<bool> v(ts_language_symbol_count(lang));
    for (uint32_t i = 0; i < v.size(); ++i)
      v[i] = ts_language_symbol_type(lang, static_cast<TSSymbol>(i)) == TSSymbolTypeRegular;
    return v;
  }();
  // Most nodes are parts of expressions with nothing below them that the model records. Below a
  // quiet node (quiet_kinds()) there can only be calls, comments and strings, and its text shows
  // whether there are any ("(", "#", and "cuda" until the first CUDA evidence): when there are
  // none, the walk passes over its children. A string without interpolation is judged by its
  // whole text; a call's plain callee and plain arguments are read off directly. With these, the
  // walk visits well under half of the nodes. Not when the caller keeps other kinds.
  const bool may_pass_over = std::all_of(wanted.begin(), wanted.end(), kind_outside_quiet_expressions);
  const auto& quiet = quiet_kinds();
  // Calls need "(", comments "#" (strcspn on the terminated text; a NUL byte, which SourceFile
  // rejects anyway, would only count as a match), CUDA strings "cuda".
  const std::string& whole = src.text();
  ForwardSearch call_or_comment([&whole](size_t from) {
    return from >= whole.size() ? whole.size() : from + std::strcspn(whole.c_str() + from, "(#");
  });
  ForwardSearch cuda_word([&whole](size_t from) { return std::string_view(whole).find("cuda", from); });
  // Whether the node's text may hold a call, a comment or (before the first CUDA evidence) a CUDA
  // string. A node's own parentheses (`(a, b)`, parameters, arguments) are not a call's.
  const auto holds_anything = [&](TSNode n) {
    uint32_t start = ts_node_start_byte(n), end = ts_node_end_byte(n);
    if (end - start >= 2 && text[start] == '(' && text[end - 1] == ')') ++start, --end;
    return call_or_comment.any(start, end) || (null(cuda_node) && cuda_word.any(start, end));
  };
  const std::unique_ptr<PflWalker, decltype(&pfl_walker_delete)> walker(pfl_walker_new(root), &pfl_walker_delete);
  if (!walker) throw std::bad_alloc();
  // Visits the walker's node `n`; returns what a level pushed for it needs to know.
  auto enter_named = [&](TSNode n, TSSymbol s) -> Entered {
    Entered e;
    const Level* up = levels.empty() ? nullptr : &levels.back();
    if (up) {
      frames.resize(up->frames_base);
      functions_open.resize(up->functions_base);
    }
    if (s >= named.size()) return e;  // ERROR
    if (s < kind_slot.size() && kind_slot[s] >= 0) by_kind_lists[kind_slot[s]].push_back(n);
    const Sym k = s < table.size() ? table[s] : Sym::Other;
    e.sym = k;
    if (k == Sym::StringContent && up) note_cuda_string(up->node);
    if (up) {
      const Sym us = up->sym;
      if (us == Sym::For || us == Sym::While || us == Sym::If || us == Sym::Elif) {
        push_entering(up->node, n, pfl_walker_field(walker.get()), frames);
      } else if (up->role == Role::Call) {
        const TSFieldId f = pfl_walker_field(walker.get());
        CallInfo& c = calls[up->call];
        if (f == fid_of.function) {
          c.function = n;
          if (k == Sym::Attribute) {
            e = {k, Role::Callee, up->call};
            // A plain dotted callee (`self.model.forward`): its object and its last name, read
            // without visiting the names.
            if (const std::string_view callee = t(n); may_pass_over && is_plain_dotted(callee) && !ts_node_has_error(n)) {
              c.receiver = ts_node_child_by_field_id(n, fid_of.object);
              c.method = callee.substr(callee.rfind('.') + 1);
              e.descend = false;
            }
          }
        } else if (f == fid_of.arguments) {
          if (k == Sym::ArgumentList) {
            e = {k, Role::Arguments, up->call};
            // A few arguments with no call, comment or CUDA string among them: read off the list
            // (named children) instead of visiting their tokens.
            const uint32_t count = ts_node_named_child_count(n);
            if (may_pass_over && count <= 8 && !ts_node_has_error(n) && !holds_anything(n)) {
              for (uint32_t i = 0; i < count; ++i) {
                const TSNode a = ts_node_named_child(n, i);
                add_argument(c, a, sym(a), n);
              }
              e.descend = false;
            }
          } else {
            c.positional.push_back(n);  // f(x for x in y)
          }
        }
      } else if (up->role == Role::Callee) {
        const TSFieldId f = pfl_walker_field(walker.get());
        if (f == fid_of.object) calls[up->call].receiver = n;
        else if (f == fid_of.attribute) calls[up->call].method = t(n);
      } else if (up->role == Role::Arguments) {
        add_argument(calls[up->call], n, k, up->node);
      }
    }
    if (needs_context(k)) {
      Context ctx;
      if (!functions_open.empty()) ctx.function = functions_open.back().first;
      const size_t from = functions_open.empty() ? 0 : functions_open.back().second;
      if (from < frames.size()) {
        // Consecutive nodes usually sit under the same frames: store them once for all.
        const std::span<const Frame> now(frames.data() + from, frames.size() - from);
        if (!std::equal(now.begin(), now.end(), last_frames.begin(), last_frames.end(), same_frame))
          last_frames = frame_arena.store(now);
        ctx.frames = last_frames;
      }
      if (k == Sym::Call) e = {k, Role::Call, static_cast<int32_t>(calls.size())};
      visit(n, k, up ? up->node : TSNode{}, std::move(ctx));
      // A def in a class body: its class, from the levels (ts_node_parent walks down from the root);
      // a decorated one (`@staticmethod`, `@torch.no_grad()`) sits one level lower.
      if (k == Sym::Function && levels.size() >= 2 && !functions.empty() && ts_node_eq(functions.back().node, n)) {
        size_t up = levels.size() - 2;
        if (levels.size() >= 3 && ts::kind(levels.back().node) == "decorated_definition") up = levels.size() - 3;
        if (levels[up].sym == Sym::Class) functions.back().cls = levels[up].node;
      }
    }
    if (k == Sym::Function) functions_open.emplace_back(n, frames.size());
    push_inside(k, n, frames);
    if (may_pass_over && e.role == Role::None && s < quiet.size() && quiet[s] && !ts_node_has_error(n)) {
      if (k == Sym::StringContent) {
        e.descend = false;  // escape sequences only
      } else if (k == Sym::String && t(n).find('{') == std::string_view::npos) {
        // No interpolation: only the text of the whole string matters.
        e.descend = false;
        note_cuda_string(n);
      } else {
        e.descend = holds_anything(n);
      }
    }
    return e;
  };
  // Anonymous nodes (punctuation, keywords: a third of all) hold nothing the model records. (A
  // leaf needs no test: the walker finds no child to descend into.)
  auto enter = [&](TSNode n) -> Entered {
    const TSSymbol s = ts_node_symbol(n);
    return s < named.size() && !named[s] ? Entered{} : enter_named(n, s);
  };
  TSNode node = root;
  Entered current = enter(node);
  for (;;) {
    const Level here{node, current.sym, current.role, current.call, frames.size(), functions_open.size()};
    const int32_t depth = pfl_walker_next(walker.get(), current.descend);
    if (depth == PFL_WALK_DONE) break;
    if (depth == 1) levels.push_back(here);
    for (int32_t up = depth; up < 0; ++up) levels.pop_back();
    node = pfl_walker_node(walker.get());
    current = enter(node);
  }

  finish_calls();
  link_calls();
  retarget_loader_subclasses();  // after link_calls: it needs class_nodes
  collect_argparse();
  choose_conditional_imports();
  resolve_name_lookups();
  resolve_kwargs();
  find_cuda_device_call();
  find_steps();
  find_step_switches();
  link_external();
  any_step = !external.empty() || std::any_of(loops.begin(), loops.end(), [](const Loop& l) { return l.step; });
  // Step code without CUDA use of its own (an engine.py): CUDA may come from the script that
  // imports it, or from the model whose step method it calls by name (the pix2pix family's
  // `model.optimize_parameters()`). Only files with a step loop ask, so library code costs nothing.
  // So does a module
  // whose methods another file's CUDA-less step runs (a model class of the pix2pix family, built by a
  // factory that no import names): its device comes from a module it imports (the base class that
  // picks `cuda:{gpu_ids[0]}`).
  if (project && null(cuda_node) && !step_loop_nodes.empty()) {
    importer = project->cuda_importer(src.path());
    if (!importer) cuda_imported = project->cuda_imported(src.path());
    if (!importer && !cuda_imported) cuda_by_step = project->step_method_cuda(src.path());
    if (!importer && !cuda_imported && !cuda_by_step) importer = project->cuda_importer_by_import(src.path());
  } else if (project && null(cuda_node) && !external.empty() &&
             std::none_of(external.begin(), external.end(), [](const auto& e) { return e.cuda; })) {
    cuda_imported = project->cuda_imported(src.path());
    if (!cuda_imported) cuda_by_step = project->step_method_cuda(src.path());
  }
  const bool own_steps = !step_loop_nodes.empty();
  collect_loaders();
  // An entry script whose loop runs another module's step loop (link_siblings, in collect_loaders:
  // `train_one_epoch(model, loader, optimizer, device)` of engine.py) takes its device from a module
  // it imports as a script with its own step loop does (`device = torch.device(config.device)`
  // with `self.device = 'cuda'` in configuration.py's Config: catr, held-out round 47).
  if (project && null(cuda_node) && !importer && !cuda_imported && !cuda_by_step && !own_steps &&
      !step_loop_nodes.empty())
    if (const ModuleSummary* m = project->cuda_imported(src.path()); m && m->cuda_setting) cuda_imported = m;
}

void Model::Impl::add_argument(CallInfo& c, TSNode n, Sym k, TSNode list) {
  // Room for every argument at the first one: one allocation per list, not one per doubling.
  const auto room = [&](auto& args) {
    if (args.empty()) args.reserve(ts_node_named_child_count(list));
    return &args;
  };
  switch (k) {
    case Sym::KeywordArgument: room(c.keywords)->push_back({t(field(n, "name")), field(n, "value"), {}, {}}); break;
    case Sym::DictionarySplat: room(c.keywords)->push_back({"**", n, {}, {}}); break;  // resolved after the walk
    case Sym::ListSplat: c.star_args = true; break;
    case Sym::Comment: break;
    default: room(c.positional)->push_back(n); break;
  }
}

void Model::Impl::visit(TSNode n, Sym k, TSNode parent, Context ctx) {
  switch (k) {
    case Sym::Call:
      record_call(n, std::move(ctx));
      break;
    case Sym::Return:
      if (!null(ctx.function)) returns.emplace_back(ctx.function, n);
      break;
    case Sym::Import:
    case Sym::ImportFrom:
      record_import(n, parent, ctx);
      break;
    case Sym::AugmentedAssignment: {
      TSNode left = field(n, "left");
      if (is(left, "identifier")) opaque_names.push_back(scope_key(ctx.function, t(left)));
      break;
    }
    case Sym::Assignment: {
      TSNode left = field(n, "left"), right = field(n, "right");
      if (null(right)) break;  // annotation only
      if (!is(left, "identifier")) {
        std::vector<std::string_view> names;
        bound_names(left, text, names);
        for (const auto& nm : names) opaque_names.push_back(scope_key(ctx.function, nm));
      }
      all_assigns.push_back({left, right, parent, std::move(ctx)});
      break;
    }
    case Sym::For:
    case Sym::While: {
      if (k == Sym::For) {
        std::vector<std::string_view> names;
        bound_names(field(n, "left"), text, names);
        for (const auto& nm : names) opaque_names.push_back(scope_key(ctx.function, nm));
      }
      loop_index.emplace(key(n), loops.size());
      loops.push_back(Loop{n, std::move(ctx), false, false, false, false, {}, -1});
      break;
    }
    case Sym::Function: {
      Function f;
      f.node = n;
      f.name = std::string(t(field(n, "name")));
      for (TSNode p : ts::named_children(field(n, "parameters"))) {
        // `x`, `x=1`, `x: T = 1` (a name field), `x: T` (no name field: its first child, as `*args: T`'s
        // splat pattern is), `*args`, `**kw`.
        TSNode id = p;
        if (is(p, "typed_parameter")) id = ts_node_named_child(p, 0);
        else if (!is(p, "identifier") && !is(p, "list_splat_pattern") && !is(p, "dictionary_splat_pattern"))
          id = field(p, "name");
        if (is(id, "list_splat_pattern") || is(id, "dictionary_splat_pattern")) id = ts_node_named_child(id, 0);
        if (is(id, "identifier")) {
          f.params.emplace_back(t(id));
          opaque_names.push_back(scope_key(n, t(id)));
        }
      }
      functions_by_name[t(field(n, "name"))].push_back(functions.size());
      fn_index.emplace(key(n), functions.size());
      functions.push_back(std::move(f));
      break;
    }
    case Sym::With: {
      // `with x as name`: name is not a plain assignment.
      ts::walk(ts_node_named_child(n, 0), [&](TSNode c) {
        if (is(c, "as_pattern_target"))
          for (TSNode id : ts::named_children(c))
            if (is(id, "identifier")) opaque_names.push_back(scope_key(ctx.function, t(id)));
        return true;
      });
      break;
    }
    default:
      break;
  }
}

}  // namespace perflint
