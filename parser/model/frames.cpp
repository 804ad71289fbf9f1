// Semantic model of one Python file, part: Frames: what runs a node per iteration or under a condition, interval guards, and the
// context (function, frames) of any node.
#include "parser/model/impl.hpp"

#include <set>

namespace perflint {

void Model::Impl::push_entering(TSNode parent, TSNode n, TSFieldId fid, std::vector<Frame>& out) const {
  switch (sym(parent)) {
    case Sym::For:
    case Sym::While:
      // Only the body runs per iteration (not the iterable, not the else).
      if (fid ? fid == fields().body : ts::same(field(parent, "body"), n)) out.push_back({Frame::Kind::Loop, parent, {}});
      break;
    case Sym::If:
      if (fid ? fid == fields().consequence : ts::same(field(parent, "consequence"), n))
        out.push_back(condition_frame(parent));
      else if (sym(n) == Sym::Elif || sym(n) == Sym::Else)
        out.push_back({Frame::Kind::Condition, parent, {}});
      break;
    case Sym::Elif:
      if (fid ? fid == fields().consequence : ts::same(field(parent, "consequence"), n))
        out.push_back(condition_frame(parent));
      break;
    default:
      break;
  }
}

void Model::Impl::push_inside(Sym k, TSNode n, std::vector<Frame>& out) {
  switch (k) {
    case Sym::ConditionalExpression: out.push_back({Frame::Kind::Condition, n, {}}); break;
    case Sym::Lambda: out.push_back({Frame::Kind::Lambda, n, {}}); break;
    case Sym::Class: out.push_back({Frame::Kind::Class, n, {}}); break;
    case Sym::Comprehension: out.push_back({Frame::Kind::Comprehension, n, {}}); break;
    default: break;
  }
}

Frame Model::Impl::condition_frame(TSNode if_or_elif) const {
  return {Frame::Kind::Condition, if_or_elif, ts_node_child_by_field_id(if_or_elif, fields().condition)};
}

bool Model::Impl::guarded(const Frame& f) const {
  if (f.kind == Frame::Kind::Guard) return true;
  if (f.kind != Frame::Kind::Condition || null(f.condition)) return false;
  auto it = guard_cache.find(key(f.node));
  if (it == guard_cache.end()) {
    // An interval guard (`if step % 100 == 0`), or a branch that ends the run (`raise`, exit).
    const bool g = is_interval_guard(f.condition) || runs_once(f.node, f.condition) ||
                   sample_membership(f.node, f.condition) ||
                   ends_the_run(ts_node_child_by_field_id(f.node, fields().consequence));
    it = guard_cache.emplace(key(f.node), g).first;
  }
  return it->second;
}

// `if attn_example in ids:` with `ids` one part of the batch the loop unpacks (`for i, (x, m, ids, _)
// in enumerate(train_set)`) and `attn_example` a value fixed outside the loop (one utterance id:
// fatchord's WaveRNN, held-out round 15): true for the one batch that holds that sample, once per
// epoch. Not a key test on the batch itself (`if "mask" in batch:`, every step), nor a value the
// loop changes.
bool Model::Impl::sample_membership(TSNode if_node, TSNode cond) const {
  cond = unparenthesized(cond);
  if (!is(cond, "comparison_operator") || ts_node_child_count(cond) != 3 || t(ts_node_child(cond, 1)) != "in")
    return false;
  const TSNode value = unparenthesized(ts_node_child(cond, 0)), part = unparenthesized(ts_node_child(cond, 2));
  if (!is(value, "identifier") || !is(part, "identifier")) return false;
  TSNode loop{};
  for (TSNode p = ts::parent(if_node); !null(p); p = ts::parent(p)) {
    if (sym(p) == Sym::Function) return false;
    if (is(p, "for_statement")) {
      loop = p;
      break;
    }
  }
  if (null(loop)) return false;
  // The batch's parts: the loop target unpacks two or more names, `part` among them.
  std::vector<std::string_view> names;
  ts::walk(field(loop, "left"), [&](TSNode n) {
    if (is(n, "identifier")) names.push_back(t(n));
    return true;
  });
  if (names.size() < 2 || std::find(names.begin(), names.end(), t(part)) == names.end() ||
      std::find(names.begin(), names.end(), t(value)) != names.end())
    return false;
  // The value is not bound inside the loop.
  const auto& b = bindings();
  if (const auto it = b.by_name.find(t(value)); it != b.by_name.end())
    for (size_t ai : it->second) {
      const uint32_t at = ts_node_start_byte(all_assigns[ai].statement);
      if (at >= ts_node_start_byte(loop) && at < ts_node_end_byte(loop)) return false;
    }
  return true;
}

bool Model::Impl::ends_the_run(TSNode block) const {
  if (null(block)) return false;
  const uint32_t count = ts_node_named_child_count(block);
  for (uint32_t i = 0; i < count; ++i) {
    TSNode st = ts_node_named_child(block, i);
    const std::string_view k = kind(st);
    if (k == "raise_statement" || k == "break_statement") return true;
    if (k != "expression_statement") continue;
    TSNode e = ts_node_named_child(st, 0);
    if (!is(e, "call")) continue;
    const std::string_view f = t(field(e, "function"));
    if (f == "sys.exit" || f == "exit" || f == "quit" || f == "os._exit") return true;
  }
  return false;
}

Context Model::Impl::context_from_path(const std::vector<TSNode>& path, TSNode self) const {
  Context ctx;
  std::vector<Frame> frames;
  for (size_t i = 0; i < path.size(); ++i) {
    if (i > 0) push_entering(path[i - 1], path[i], 0, frames);
    if (sym(path[i]) == Sym::Function) {
      ctx.function = path[i];
      frames.clear();
    }
    push_inside(sym(path[i]), path[i], frames);
  }
  if (!path.empty()) push_entering(path.back(), self, 0, frames);
  ctx.frames = frame_arena.store(frames);
  return ctx;
}

Context Model::Impl::context_by_climbing(TSNode n) const {
  return context_from_path(ts::ancestors(n), n);
}


// `Z = params[2].item()` ... `if Z < 0: params[2] = out.mean() * n` (lemniscate's NCE normaliser,
// computed at the first step): a local loaded from a store (a subscript or an attribute, read
// directly or through `.item()`/`float()`-like calls) is tested, and the branch writes that store:
// from the next pass on the store holds the value, and the branch does not run again.
bool Model::Impl::loaded_then_stored(TSNode if_node, TSNode cond) const {
  if (!is(cond, "comparison_operator") || ts_node_child_count(cond) != 3) return false;
  const TSNode local = unparenthesized(ts_node_child(cond, 0));
  if (!is(local, "identifier")) return false;
  const TSNode fn = function_containing(if_node);
  if (null(fn)) return false;
  const auto& b = bindings();
  const auto it = b.assigns.find(scope_key(fn, t(local)));
  if (it == b.assigns.end()) return false;
  // The store the local was last loaded from before the `if`.
  std::string_view store;
  for (size_t ai : it->second) {
    const Assign& a = all_assigns[ai];
    if (ts_node_start_byte(a.statement) >= ts_node_start_byte(if_node)) continue;
    TSNode v = unparenthesized(a.value);
    while (is(v, "call")) {  // `params[2].item()`, `float(params[2])`, `int(params[0].item())`
      const TSNode f = field(v, "function");
      const TSNode args = field(v, "arguments");
      if (is(f, "attribute") && ts_node_named_child_count(args) == 0) v = unparenthesized(field(f, "object"));
      else if (is(f, "identifier") && (t(f) == "float" || t(f) == "int") && ts_node_named_child_count(args) == 1)
        v = unparenthesized(ts_node_named_child(args, 0));
      else break;
    }
    store = is(v, "subscript") || is(v, "attribute") ? t(v) : std::string_view{};
  }
  if (store.empty()) return false;
  const TSNode block = ts_node_child_by_field_id(if_node, fields().consequence);
  for (TSNode st : ts::named_children(block)) {
    if (!is(st, "expression_statement")) continue;
    const TSNode a = ts_node_named_child(st, 0);
    if (is(a, "assignment") && t(field(a, "left")) == store) return true;
  }
  return false;
}

bool Model::Impl::runs_once(TSNode if_node, TSNode cond) const {
  cond = unparenthesized(cond);
  if (null(cond)) return false;
  // The tested name: `X is None` or `not X`, X a name or an attribute (`self.ema`).
  TSNode tested{};
  if (is(cond, "comparison_operator") && ts_node_child_count(cond) == 3) {
    TSNode op = ts_node_child(cond, 1), rhs = ts_node_child(cond, 2);
    if (t(op) == "is" && is(rhs, "none")) tested = ts_node_child(cond, 0);
  } else if (is(cond, "not_operator")) {
    tested = unparenthesized(field(cond, "argument"));
  }
  // A cache filled on a miss: `if key not in cache: cache[key] = build()` runs once per key.
  if (is(cond, "comparison_operator") && ts_node_child_count(cond) >= 3) {
    const TSNode cache = ts_node_child(cond, ts_node_child_count(cond) - 1);
    std::string ops;
    for (uint32_t i = 1; i + 1 < ts_node_child_count(cond); ++i) ops += std::string(t(ts_node_child(cond, i))) + " ";
    if (ops == "not in " && (is(cache, "identifier") || is(cache, "attribute"))) {
      TSNode block = ts_node_child_by_field_id(if_node, fields().consequence);
      for (TSNode st : ts::named_children(block)) {
        if (!is(st, "expression_statement")) continue;
        TSNode a = ts_node_named_child(st, 0);
        if (!is(a, "assignment")) continue;
        TSNode left = field(a, "left");
        if (is(left, "subscript") && t(field(left, "value")) == t(cache)) return true;
      }
    }
  }
  if (loaded_then_stored(if_node, cond)) return true;
  if (null(tested) || !(is(tested, "identifier") || is(tested, "attribute"))) return false;
  const std::string_view name = t(tested);
  // The branch's own statements set it to something that is not None/False.
  TSNode block = ts_node_child_by_field_id(if_node, fields().consequence);
  bool sets = false;
  for (TSNode st : ts::named_children(block)) {
    if (!is(st, "expression_statement")) continue;
    TSNode a = ts_node_named_child(st, 0);
    if (!is(a, "assignment")) continue;
    // `if not state: state["Q0"], state["Q1"] = init(grad)`: an empty dict filled here (an
    // optimizer's lazy state, made at its first step).
    TSNode left = field(a, "left");
    std::vector<TSNode> targets{left};
    if (is(left, "pattern_list") || is(left, "tuple_pattern")) targets = ts::named_children(left);
    bool fills = false;
    for (TSNode target : targets) fills = fills || (is(target, "subscript") && t(field(target, "value")) == name);
    if (fills && is(cond, "not_operator")) return true;
    if (t(left) != name) continue;
    TSNode v = field(a, "right");
    if (!null(v) && !is(v, "none") && !is(v, "false")) sets = true;
  }
  if (!sets) return false;
  // Unless the loop around the `if` resets it: `ema = None` inside the same loop, outside the branch.
  TSNode loop{};
  for (TSNode p = ts::parent(if_node); !null(p); p = ts::parent(p)) {
    if (is(p, "for_statement") || is(p, "while_statement")) {
      loop = p;
      break;
    }
    if (sym(p) == Sym::Function) break;
  }
  if (null(loop)) return true;
  const auto& b = bindings();
  const auto& index = is(tested, "identifier") ? b.by_name : b.by_attribute;
  auto it = index.find(name);
  if (it == index.end()) return true;
  for (size_t i : it->second) {
    const Assign& a = all_assigns[i];
    const uint32_t at = ts_node_start_byte(a.statement);
    const bool in_loop = at >= ts_node_start_byte(loop) && at < ts_node_end_byte(loop);
    const bool in_branch = at >= ts_node_start_byte(block) && at < ts_node_end_byte(block);
    if (in_loop && !in_branch && (is(a.value, "none") || is(a.value, "false"))) return false;
  }
  return true;
}

bool Model::Impl::counts_steps(TSNode id) const {
  // `ni = i + nb * epoch` (yolov5's integrated batch count): a name every assignment of which in its
  // function is arithmetic over a counter.
  const auto& b = bindings();
  const auto it = b.assigns.find(scope_key(function_containing(id), t(id)));
  if (it == b.assigns.end() || it->second.empty()) return false;
  for (size_t ai : it->second) {
    TSNode v = unparenthesized(all_assigns[ai].value);
    if (!is(v, "binary_operator")) return false;
    bool has_counter = false;
    ts::walk(v, [&](TSNode x) {
      if (is(x, "identifier") && is_counter_name(t(x))) has_counter = true;
      return !has_counter;
    });
    if (!has_counter) return false;
  }
  return true;
}

namespace {
// A name of a logging switch (`log`, `do_log`, `log_every`, `logging_steps`, `tb_logger`), not of a
// logarithm (`log_prob`, `log_std`, `log_alpha`, stable-baselines3's `log_ent_coef`: a branch on those
// runs every step).
bool names_logging(std::string_view name) {
  static const std::set<std::string, std::less<>> math = {
      "alpha", "beta", "coef", "density", "det", "ent", "entropy", "likelihood", "noise", "p", "partition",
      "pi", "prior", "prob", "probs", "q", "ratio", "scale", "sd", "sigma", "snr", "softmax", "std", "sum",
      "temp", "temperature", "var", "variance", "weight", "weights", "z"};
  std::vector<std::string> parts(1);
  for (char c : name) {
    if (c == '_') {
      if (!parts.back().empty()) parts.emplace_back();
    } else {
      parts.back().push_back(ascii_lower(c));
    }
  }
  for (size_t i = 0; i < parts.size(); ++i) {
    if (parts[i].starts_with("logg")) return true;  // logging, logger
    if (parts[i] != "log" && parts[i] != "logs") continue;
    if (i + 1 == parts.size() || !math.count(parts[i + 1])) return true;
  }
  return false;
}
}  // namespace

bool Model::Impl::is_interval_guard(TSNode cond, int depth) const {
  if (null(cond)) return false;
  // A command-line switch (`if args.log:` with `--no_log` storing False: on by default, yolact's
  // per-iteration loss logging; held-out round 26) is on or off for the whole run, not now and then:
  // a branch on it runs every step when it is on by default.
  if (TSNode c = unparenthesized(cond); is(c, "attribute") || is(c, "identifier")) {
    const Value v = eval(c, function_containing(c), 0);
    if (v.kind == Value::Kind::Bool && v.from_option && v.b) return false;
  }
  // A name that holds an interval test: `reg = i % args.reg_every == 0` ... `if reg:`.
  if (TSNode c = unparenthesized(cond); depth < 2 && is(c, "identifier")) {
    const auto& b = bindings();
    const ScopeName k = scope_key(function_containing(c), t(c));
    auto it = b.assigns.find(k);
    if (it != b.assigns.end() && !it->second.empty() && !b.opaque.count(k)) {
      bool all = true;
      for (size_t i : it->second) all = all && is_interval_guard(all_assigns[i].value, depth + 1);
      if (all) return true;
    }
  }
  bool guard = false;
  ts::walk(cond, [&](TSNode n) {
    if (guard) return false;
    const std::string_view k = kind(n);
    if (k == "binary_operator") {
      TSNode op = ts_node_child_by_field_name(n, "operator", 8);
      // `i % every == 0` skips steps unless `every` is known to be 1 (llama2.c's `log_interval = 1`:
      // the branch runs every step).
      if (!null(op) && t(op) == "%") {
        TSNode right = field(n, "right");
        const Value every = null(right) ? Value{} : eval(right, function_containing(n), 0);
        guard = !(every.kind == Value::Kind::Int && every.i == 1) && !attribute_default_is_one(right);
        return false;  // its names are arithmetic, not flags: `log_interval` is no `should_log`
      }
    } else if (k == "comparison_operator") {
      // `step == <int>` runs on one step only (but `rank == 0` runs on every step of rank 0);
      // `i == len(loader) - 1` on the last batch of an epoch; `ni < 3` on the first few steps only.
      bool eq = false, below = false, int_side = false, len_side = false, counter = false, counter_first = false;
      const uint32_t count = ts_node_child_count(n);
      for (uint32_t i = 0; i < count; ++i) {
        TSNode c = ts_node_child(n, i);
        if (!ts_node_is_named(c) && t(c) == "==") eq = true;
        if (!ts_node_is_named(c) && (t(c) == "<" || t(c) == "<=") && count == 3) below = true;
        if (is(c, "integer")) int_side = true;
        if (ts_node_is_named(c) && t(c).starts_with("len(")) len_side = true;
        TSNode id = is(c, "attribute") ? field(c, "attribute") : c;
        if (is(id, "identifier") && (is_counter_name(t(id)) || counts_steps(id))) {
          counter = true;
          if (i == 0) counter_first = true;
        }
      }
      if (counter && ((eq && (int_side || len_side)) || (below && counter_first && int_side))) guard = true;
    } else if (k == "call") {
      const std::string q = qualname_of(field(n, "function"));
      if (q == "time.time" || q == "time.perf_counter" || q == "time.monotonic") guard = true;
    } else if (k == "identifier") {
      const std::string_view name = t(n);
      // (`if iter_counter.needs_displaying():`, SPADE's `steps % display_freq < batch_size` behind a
      // method, held-out round 20.)
      for (std::string_view w : {"print", "verbose", "debug", "eval", "save", "checkpoint", "report", "display",
                                 "visuali", "plot"})
        if (icontains(name, w)) guard = true;
      if (names_logging(name)) guard = true;
    }
    return true;
  });
  return guard;
}

TSNode Model::Impl::function_containing(TSNode n) const {
  const uint32_t start = ts_node_start_byte(n), end = ts_node_end_byte(n);
  auto it = std::upper_bound(functions.begin(), functions.end(), start,
                             [](uint32_t s, const Function& f) { return s < ts_node_start_byte(f.node); });
  while (it != functions.begin()) {
    --it;
    if (ts_node_end_byte(it->node) >= end && !ts::same(it->node, n)) return it->node;
  }
  return TSNode{};
}

Context Model::Impl::context_of(TSNode n) const {
  if (const Context* c = call_context(n)) return *c;
  const uint32_t start = ts_node_start_byte(n), end = ts_node_end_byte(n);
  auto it = std::upper_bound(calls.begin(), calls.end(), start,
                             [](uint32_t s, const CallInfo& c) { return s < ts_node_start_byte(c.node); });
  // Walk back over calls that start earlier; the first that also ends later contains `n`.
  for (size_t steps = 0; it != calls.begin() && steps < 64; ++steps) {
    --it;
    if (ts_node_end_byte(it->node) >= end) return call_ctx[static_cast<size_t>(it - calls.begin())];
  }
  return context_by_climbing(n);
}

}  // namespace perflint
