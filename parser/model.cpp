// Semantic model of one Python file (see model.hpp). One iterative walk records imports, calls,
// assignments, loops and the ancestor frames of each; the rest is derived after the walk:
// same-file call graph -> step functions and step loops, DataLoader -> loop links, batch names.
#include "parser/model.hpp"

#include <algorithm>
#include <array>
#include <deque>
#include <filesystem>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <optional>
#include <set>
#include <span>
#include <unordered_set>

#include "parser/text_util.hpp"
#include "parser/ts.hpp"

namespace perflint {
namespace {

using ts::field;
using ts::is;
using ts::kind;

struct NodeKey {
  const void* id;
  uint32_t start;
  bool operator==(const NodeKey& o) const { return id == o.id && start == o.start; }
};
struct NodeKeyHash {
  size_t operator()(const NodeKey& k) const {
    return std::hash<const void*>()(k.id) ^ (std::hash<uint32_t>()(k.start) << 1);
  }
};
NodeKey key(TSNode n) { return NodeKey{n.id, ts_node_start_byte(n)}; }
bool null(TSNode n) { return ts_node_is_null(n); }

// Ancestor frames of a node inside its function (outermost first).
struct Frame {
  enum class Kind { Loop, Guard, Condition, Function, Lambda, Comprehension, Class } kind;
  TSNode node{};       // the loop / if / function
  TSNode condition{};  // Guard/Condition: the condition expression
};

bool same_frame(const Frame& a, const Frame& b) {
  return a.kind == b.kind && std::memcmp(&a.node, &b.node, sizeof(TSNode)) == 0 &&
         std::memcmp(&a.condition, &b.condition, sizeof(TSNode)) == 0;
}

// Storage for the frames of contexts: nothing moves once stored, so contexts are cheap views that
// can share their frames (every call in a loop body has the same ones).
class FrameArena {
 public:
  std::span<const Frame> store(std::span<const Frame> frames) {
    if (frames.empty()) return {};
    if (blocks_.empty() || used_ + frames.size() > capacity_) {
      // Blocks double (a small file needs a few dozen frames), and a block always fits the request.
      capacity_ = std::max(frames.size(), std::min<size_t>(capacity_ ? 2 * capacity_ : 64, 4096));
      blocks_.push_back(std::make_unique<Frame[]>(capacity_));
      used_ = 0;
    }
    Frame* out = blocks_.back().get() + used_;
    std::copy(frames.begin(), frames.end(), out);
    used_ += frames.size();
    return {out, frames.size()};
  }

 private:
  std::vector<std::unique_ptr<Frame[]>> blocks_;
  size_t used_ = 0, capacity_ = 0;
};

struct Context {
  TSNode function{};               // innermost function_definition (null at module level)
  std::span<const Frame> frames;   // within that function, outermost first (in the model's arena)
};


// "engine.train_one_epoch" -> ("engine", "train_one_epoch"); nullopt unless exactly one dot (a
// function of a sibling module, the only cross-file shape we follow).
std::optional<std::pair<std::string_view, std::string_view>> module_function(std::string_view q) {
  const size_t dot = q.find('.');
  if (dot == std::string_view::npos || q.find('.', dot + 1) != std::string_view::npos) return std::nullopt;
  return std::make_pair(q.substr(0, dot), q.substr(dot + 1));
}

bool is_ascii_name_byte(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// `self.model.forward`: ASCII names joined by single dots, at least two.
bool is_plain_dotted(std::string_view s) {
  if (s.empty() || s.front() == '.' || s.back() == '.' || s.find('.') == std::string_view::npos) return false;
  for (size_t i = 0; i < s.size(); ++i)
    if (s[i] == '.' ? s[i + 1] == '.' : !is_ascii_name_byte(s[i])) return false;
  return true;
}

// `.nn.functional.relu` for depth 3: `depth` times a dot followed by an ASCII name.
bool is_dotted_tail(std::string_view s, size_t depth) {
  size_t dots = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '.') {
      if (!is_ascii_name_byte(s[i])) return false;
    } else if (++dots > depth || i + 1 == s.size() || s[i + 1] == '.') {
      return false;
    }
  }
  return dots == depth && (s.empty() || s.front() == '.');
}

// Names that count steps: `i`, `step`, `global_step`, `batch_idx`, `it`, `epoch`.
bool is_counter_name(std::string_view n) {
  if (n == "i" || n == "j" || n == "it" || n == "n" || n == "k") return true;
  for (std::string_view w : {"step", "iter", "idx", "batch", "epoch", "count"})
    if (icontains(n, w)) return true;
  return false;
}

// The root identifier of `a.b[0].c(1)`: `a`. Null when the expression is not rooted in a name.
TSNode root_identifier(TSNode n) {
  for (int guard = 0; guard < 256 && !null(n); ++guard) {
    const std::string_view k = kind(n);
    if (k == "identifier") return n;
    if (k == "attribute") n = field(n, "object");
    else if (k == "subscript") n = field(n, "value");
    else if (k == "call") {
      TSNode f = field(n, "function");
      if (!is(f, "attribute")) return TSNode{};
      n = field(f, "object");
    } else if (k == "parenthesized_expression") n = ts_node_named_child(n, 0);
    else return TSNode{};
  }
  return TSNode{};
}

// Identifiers bound by a for-loop target or assignment target pattern.
void bound_names(TSNode target, std::string_view src, std::vector<std::string_view>& out, int depth = 0) {
  if (null(target) || depth > 32) return;  // nested unpacking deeper than that binds nothing we track
  const std::string_view k = kind(target);
  if (k == "identifier") {
    out.push_back(ts::text(target, src));
    return;
  }
  if (k == "pattern_list" || k == "tuple_pattern" || k == "list_pattern" || k == "tuple" || k == "list" ||
      k == "expression_list" || k == "parenthesized_expression" || k == "list_splat_pattern")
    for (TSNode c : ts::named_children(target)) bound_names(c, src, out, depth + 1);
}

// A name in a scope (the function's start byte, or UINT32_MAX for the module); the view points
// into the source text, which outlives the model.
struct ScopeName {
  uint32_t scope;
  std::string_view name;
  bool operator==(const ScopeName& o) const { return scope == o.scope && name == o.name; }
};
struct ScopeNameHash {
  size_t operator()(const ScopeName& k) const { return std::hash<std::string_view>()(k.name) * 31 + k.scope; }
};

// Node kinds the model dispatches on, by grammar symbol (compared as integers, not strings).
enum class Sym : uint8_t {
  Other, Call, For, While, If, Elif, Else, ConditionalExpression, Lambda, Class, Comprehension, Function,
  Assignment, AugmentedAssignment, Import, ImportFrom, With, String, StringContent,
  // Parts of a call, filled in as the walk passes them (no field look-ups per call).
  Attribute, ArgumentList, KeywordArgument, DictionarySplat, ListSplat, Comment, Return
};

const std::vector<Sym>& sym_table() {
  static const std::vector<Sym> table = [] {
    const TSLanguage* lang = ts::python_language();
    const uint32_t count = ts_language_symbol_count(lang);
    std::vector<Sym> t(count, Sym::Other);
    const std::pair<std::string_view, Sym> names[] = {
        {"call", Sym::Call}, {"for_statement", Sym::For}, {"while_statement", Sym::While},
        {"if_statement", Sym::If}, {"elif_clause", Sym::Elif}, {"else_clause", Sym::Else},
        {"conditional_expression", Sym::ConditionalExpression}, {"lambda", Sym::Lambda},
        {"class_definition", Sym::Class}, {"list_comprehension", Sym::Comprehension},
        {"generator_expression", Sym::Comprehension}, {"set_comprehension", Sym::Comprehension},
        {"dictionary_comprehension", Sym::Comprehension}, {"function_definition", Sym::Function},
        {"assignment", Sym::Assignment}, {"augmented_assignment", Sym::AugmentedAssignment},
        {"import_statement", Sym::Import}, {"import_from_statement", Sym::ImportFrom},
        {"with_statement", Sym::With}, {"string", Sym::String}, {"string_content", Sym::StringContent}, {"attribute", Sym::Attribute},
        {"argument_list", Sym::ArgumentList}, {"keyword_argument", Sym::KeywordArgument},
        {"dictionary_splat", Sym::DictionarySplat}, {"list_splat", Sym::ListSplat}, {"comment", Sym::Comment}, {"return_statement", Sym::Return}};
    for (uint32_t i = 0; i < count; ++i) {
      if (ts_language_symbol_type(lang, static_cast<TSSymbol>(i)) != TSSymbolTypeRegular) continue;
      const std::string_view name = ts_language_symbol_name(lang, static_cast<TSSymbol>(i));
      for (const auto& [n, k] : names)
        if (n == name) t[i] = k;
    }
    return t;
  }();
  return table;
}

// Node kinds whose children the walk may pass over: expressions, and statements made only of
// expressions (no statement below them). Below such a node the model records only calls, comments
// and CUDA strings, which a scan of the node's text rules out (see build()).
const std::vector<bool>& quiet_kinds() {
  static const std::vector<bool> table = [] {
    const TSLanguage* lang = ts::python_language();
    std::vector<bool> t(ts_language_symbol_count(lang));
    constexpr std::string_view names[] = {
        // expressions
        "attribute", "subscript", "slice", "binary_operator", "comparison_operator", "boolean_operator",
        "not_operator", "unary_operator", "conditional_expression", "named_expression", "await", "lambda",
        "lambda_parameters", "tuple", "list", "set", "dictionary", "pair", "list_comprehension",
        "set_comprehension", "dictionary_comprehension", "for_in_clause", "if_clause", "expression_list",
        "pattern_list", "tuple_pattern", "list_pattern", "list_splat", "dictionary_splat", "list_splat_pattern",
        "dictionary_splat_pattern", "as_pattern", "keyword_argument", "string", "concatenated_string",
        "interpolation", "typed_parameter", "default_parameter", "typed_default_parameter", "type",
        "generic_type", "union_type", "member_type", "type_parameter", "dotted_name", "aliased_import",
        "relative_import", "decorator", "string_content", "parameters", "parenthesized_expression",
        "generator_expression",
        // statements of expressions (the model reads the children of imports itself)
        "import_statement", "import_from_statement", "return_statement", "raise_statement",
        "assert_statement", "del_statement", "global_statement", "nonlocal_statement"};
    for (uint32_t i = 0; i < t.size(); ++i) {
      if (ts_language_symbol_type(lang, static_cast<TSSymbol>(i)) != TSSymbolTypeRegular) continue;
      const std::string_view name = ts_language_symbol_name(lang, static_cast<TSSymbol>(i));
      t[i] = std::find(std::begin(names), std::end(names), name) != std::end(names);
    }
    return t;
  }();
  return table;
}

// Kinds a caller may ask nodes_of_kind for while the walk passes over quiet expressions: statements,
// and nodes whose text cannot be in a quiet expression (calls need "(", comments "#").
bool kind_outside_quiet_expressions(std::string_view kind) {
  constexpr std::string_view kinds[] = {
      "module", "call", "comment", "decorator", "decorated_definition", "function_definition",
      "class_definition", "assignment", "augmented_assignment", "expression_statement", "with_statement",
      "for_statement", "while_statement", "if_statement", "try_statement", "return_statement",
      "import_statement", "import_from_statement", "block"};
  return std::find(std::begin(kinds), std::end(kinds), kind) != std::end(kinds);
}

// Whether ranges of a text hold a match of a pattern, for ranges whose starts only grow (a pre-order
// walk's nodes): the text is searched once, front to back. `find(from)` gives the first match at or
// after `from` (npos or the text's size when there is none).
template <class Find>
class ForwardSearch {
 public:
  explicit ForwardSearch(Find find) : find_(std::move(find)) {}
  bool any(size_t start, size_t end) {
    if (!searched_ || start < from_ || start > found_) {
      searched_ = true;
      from_ = start;
      found_ = find_(start);
    }
    return found_ < end;
  }

 private:
  Find find_;
  bool searched_ = false;
  size_t from_ = 0, found_ = 0;  // found_: the first match at or after from_
};

Sym sym(TSNode n) {
  if (null(n)) return Sym::Other;
  const TSSymbol s = ts_node_symbol(n);
  const auto& t = sym_table();
  return s < t.size() ? t[s] : Sym::Other;
}

struct FieldIds {
  TSFieldId body, consequence, condition, function, arguments, object, attribute;
};
const FieldIds& fields() {
  static const FieldIds f = [] {
    const TSLanguage* lang = ts::python_language();
    return FieldIds{ts_language_field_id_for_name(lang, "body", 4),
                    ts_language_field_id_for_name(lang, "consequence", 11),
                    ts_language_field_id_for_name(lang, "condition", 9),
                    ts_language_field_id_for_name(lang, "function", 8),
                    ts_language_field_id_for_name(lang, "arguments", 9),
                    ts_language_field_id_for_name(lang, "object", 6),
                    ts_language_field_id_for_name(lang, "attribute", 9)};
  }();
  return f;
}

}  // namespace

struct Model::Impl {
  const SourceFile& src;
  std::string_view text;
  // Nodes kept for the engine's dispatch: symbol -> slot -> nodes in document order.
  std::vector<int> kind_slot;
  std::vector<std::vector<TSNode>> by_kind_lists;
  std::vector<std::string> by_kind_names;  // the wanted kinds, by slot (a handful: scanned)

  // imports
  std::unordered_map<std::string_view, std::string> aliases;  // local name (in the source text) -> qualified
  std::vector<std::string> imported_modules;
  TSNode last_import{};
  std::vector<std::pair<std::string, TSNode>> import_nodes;  // qualified module -> statement

  // calls
  std::vector<CallInfo> calls;
  mutable size_t call_hint = 0;  // last call found (a model is used by one thread)
  std::vector<Context> call_ctx;

  // assignments: (scope, name) -> right-hand sides; names rebound in ways we cannot follow
  struct Assign {
    TSNode target, value, statement;
    Context ctx;
  };
  std::vector<Assign> all_assigns;
  // Names rebound in ways we cannot follow (params, for targets, aug-assigned, unpacked), in walk order.
  std::vector<ScopeName> opaque_names;
  // Both indexed by (scope, name) on the first look-up: most files never evaluate a name.
  struct Bindings {
    std::unordered_map<ScopeName, std::vector<size_t>, ScopeNameHash> assigns;  // -> indices in all_assigns
    std::unordered_set<ScopeName, ScopeNameHash> opaque;
  };
  mutable std::optional<Bindings> bindings_;
  const Bindings& bindings() const {
    if (!bindings_) {
      Bindings& b = bindings_.emplace();
      for (size_t i = 0; i < all_assigns.size(); ++i)
        if (is(all_assigns[i].target, "identifier"))
          b.assigns[scope_key(all_assigns[i].ctx.function, t(all_assigns[i].target))].push_back(i);
      b.opaque.insert(opaque_names.begin(), opaque_names.end());
    }
    return *bindings_;
  }

  // functions by simple name (module functions and methods alike)
  struct Function {
    TSNode node;
    std::string name;
    std::vector<std::string> params;  // positional order, self included
    bool marker_outside_loop = false;
    bool has_step_loop = false;
    bool step_fn = false;
  };
  std::vector<Function> functions;
  std::unordered_map<std::string_view, std::vector<size_t>> functions_by_name;  // views into the source
  std::unordered_map<NodeKey, size_t, NodeKeyHash> fn_index;
  std::vector<std::vector<size_t>> call_callees;  // per call: same-file functions it may call
  std::vector<std::vector<size_t>> callers;       // per function: calls that may call it

  // loops
  struct Loop {
    TSNode node;
    Context ctx;               // frames outside the loop (the loop itself not included)
    bool direct_step = false;  // contains a marker or a call to a step function
    bool step = false;         // innermost such loop
    bool repeated = false;
    std::vector<std::string_view> batch_names;  // views into the source
    int loader = -1;
  };
  std::vector<Loop> loops;
  std::unordered_map<NodeKey, size_t, NodeKeyHash> loop_index;
  std::vector<TSNode> step_loop_nodes;

  // argparse
  std::vector<ArgOption> options;
  std::vector<std::pair<TSNode, TSNode>> returns;  // (function, return statement), lambdas excluded
  // Names that hold parsed arguments: bound from `.parse_args()` / `.parse_known_args()`, plus the
  // conventional parameter names a main(args) receives them under.
  std::vector<std::string_view> args_names = {"args", "opt", "opts", "hparams", "flags"};

  // data loaders
  std::vector<DataLoaderInfo> loaders;

  // cuda
  TSNode cuda_node{};

  std::vector<TSNode> strings;
  mutable FrameArena frame_arena;  // the frames of every Context handed out
  mutable std::vector<std::pair<void (*)(), std::shared_ptr<const void>>> derived;  // Model::derived
  std::deque<Guard> guards;  // stable storage for StepContext::guard (deque: no reallocation)

  explicit Impl(const SourceFile& s) : src(s), text(s.text()) {}

  ProjectContext* project = nullptr;
  const ModuleSummary* importer = nullptr;  // set when CUDA use comes from an importing sibling

  std::string_view t(TSNode n) const { return ts::text(n, text); }

  static ScopeName scope_key(TSNode function, std::string_view name) {
    return ScopeName{null(function) ? UINT32_MAX : ts_node_start_byte(function), name};
  }

  // ---- frames: what runs a node per iteration / under a condition ----------------------------
  // Frames `n` enters by being this child of `parent` (a loop body, an if's branch). `fid` is the
  // field of `n` in `parent` when the caller knows it (the walk's cursor), 0 otherwise.
  void push_entering(TSNode parent, TSNode n, TSFieldId fid, std::vector<Frame>& out) const {
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

  // Frames `n` (of kind `k`) creates for its descendants.
  static void push_inside(Sym k, TSNode n, std::vector<Frame>& out) {
    switch (k) {
      case Sym::ConditionalExpression: out.push_back({Frame::Kind::Condition, n, {}}); break;
      case Sym::Lambda: out.push_back({Frame::Kind::Lambda, n, {}}); break;
      case Sym::Class: out.push_back({Frame::Kind::Class, n, {}}); break;
      case Sym::Comprehension: out.push_back({Frame::Kind::Comprehension, n, {}}); break;
      default: break;
    }
  }

  // Whether a condition is an interval guard is decided on first use (guarded()), not here: most
  // files never ask (no training step), and the check walks the condition.
  Frame condition_frame(TSNode if_or_elif) const {
    return {Frame::Kind::Condition, if_or_elif, ts_node_child_by_field_id(if_or_elif, fields().condition)};
  }

  mutable std::unordered_map<NodeKey, bool, NodeKeyHash> guard_cache;
  bool guarded(const Frame& f) const {
    if (f.kind == Frame::Kind::Guard) return true;
    if (f.kind != Frame::Kind::Condition || null(f.condition)) return false;
    auto it = guard_cache.find(key(f.node));
    if (it == guard_cache.end()) {
      // An interval guard (`if step % 100 == 0`), or a branch that ends the run (`raise`, exit).
      const bool g = is_interval_guard(f.condition) ||
                     ends_the_run(ts_node_child_by_field_id(f.node, fields().consequence));
      it = guard_cache.emplace(key(f.node), g).first;
    }
    return it->second;
  }

  // A branch that stops the loop or the program (`if not math.isfinite(loss.item()): print(...);
  // sys.exit(1)`, `raise`, `break`) runs at most once, not every step. Only the block's own
  // statements are looked at (no descent), so this stays O(statements) per `if`.
  bool ends_the_run(TSNode block) const {
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

  // The context of `self` from its ancestors (root first). Same result as the walk's frames.
  Context context_from_path(const std::vector<TSNode>& path, TSNode self) const {
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

  Context context_by_climbing(TSNode n) const {
    std::vector<TSNode> path;
    for (TSNode p = ts_node_parent(n); !null(p); p = ts_node_parent(p)) path.push_back(p);
    std::reverse(path.begin(), path.end());
    return context_from_path(path, n);
  }

  // `if step % 100 == 0`, `if (i + 1) % log_every == 0 and rank == 0`, `if i == 0`,
  // `if time.time() - last > 10`, `if should_log:`: code under it does not run every step.
  bool is_interval_guard(TSNode cond) const {
    bool guard = false;
    ts::walk(cond, [&](TSNode n) {
      if (guard) return false;
      const std::string_view k = kind(n);
      if (k == "binary_operator") {
        TSNode op = ts_node_child_by_field_name(n, "operator", 8);
        if (!null(op) && t(op) == "%") guard = true;
      } else if (k == "comparison_operator") {
        // `step == <int>` runs on one step only (but `rank == 0` runs on every step of rank 0).
        bool eq = false, int_side = false, counter = false;
        const uint32_t count = ts_node_child_count(n);
        for (uint32_t i = 0; i < count; ++i) {
          TSNode c = ts_node_child(n, i);
          if (!ts_node_is_named(c) && t(c) == "==") eq = true;
          if (is(c, "integer")) int_side = true;
          TSNode id = is(c, "attribute") ? field(c, "attribute") : c;
          if (is(id, "identifier") && is_counter_name(t(id))) counter = true;
        }
        if (eq && int_side && counter) guard = true;
      } else if (k == "call") {
        const std::string q = qualname_of(field(n, "function"));
        if (q == "time.time" || q == "time.perf_counter" || q == "time.monotonic") guard = true;
      } else if (k == "identifier") {
        const std::string_view name = t(n);
        for (std::string_view w : {"log", "print", "verbose", "debug", "eval", "save", "checkpoint", "report"})
          if (icontains(name, w)) guard = true;
      }
      return true;
    });
    return guard;
  }

  // ---- names ----------------------------------------------------------------------------------
  // Iterative (an attribute chain can be as deep as the input) and one allocation per result.
  std::string qualname_of(TSNode n) const {
    // Most expressions are not rooted in an import, and the text shows it: a root identifier is
    // where the expression's text starts (`tud.DataLoader` starts with `tud`). Non-ASCII names
    // take the long way.
    const std::string_view s = t(n);
    size_t len = 0;
    while (len < s.size() && is_ascii_name_byte(s[len])) ++len;
    if ((len == s.size() || static_cast<unsigned char>(s[len]) < 0x80) && !aliases.contains(s.substr(0, len)))
      return {};
    TSNode root = n;
    size_t depth = 0;
    while (sym(root) == Sym::Attribute) {
      root = ts_node_child_by_field_id(root, fields().object);
      ++depth;
    }
    if (!is(root, "identifier") || aliases.empty()) return {};
    auto it = aliases.find(t(root));
    if (it == aliases.end()) return {};
    std::string out = it->second;
    // Written without spaces or comments (`torch.nn.functional.relu`, one dot per attribute), the
    // text after the root is the rest of the name.
    const std::string_view rest = s.substr(std::min(s.size(), t(root).size()));
    if (is_dotted_tail(rest, depth)) return out.append(rest);
    std::vector<std::string_view> parts(depth);  // attribute names, outermost first
    for (size_t i = depth; i-- > 0; n = ts_node_child_by_field_id(n, fields().object))
      parts[i] = t(ts_node_child_by_field_id(n, fields().attribute));
    for (auto p : parts) out.append(".").append(p);
    return out;
  }

  void record_import(TSNode stmt, TSNode parent) {
    const bool top_level = is(parent, "module");
    if (top_level) last_import = stmt;
    if (is(stmt, "import_statement")) {
      for (TSNode c : ts::named_children(stmt)) {
        if (is(c, "dotted_name")) {
          const std::string full(t(c));
          const std::string_view first = t(c).substr(0, t(c).find('.'));  // a view into the source
          aliases[first] = std::string(first);
          imported_modules.push_back(full);
          import_nodes.emplace_back(full, stmt);
        } else if (is(c, "aliased_import")) {
          const std::string full(t(field(c, "name")));
          aliases[t(field(c, "alias"))] = full;
          imported_modules.push_back(full);
          import_nodes.emplace_back(full, stmt);
        }
      }
    } else if (is(stmt, "import_from_statement")) {
      TSNode mod = field(stmt, "module_name");
      if (is(mod, "relative_import")) {
        // `from .engine import f` / `from . import engine`: a sibling module, named without dots.
        std::string_view rel = t(mod);
        while (!rel.empty() && rel.front() == '.') rel.remove_prefix(1);
        const std::string base(rel);
        if (!base.empty()) imported_modules.push_back(base);
        const uint32_t n = ts_node_named_child_count(stmt);
        for (uint32_t i = 0; i < n; ++i) {
          TSNode c = ts_node_named_child(stmt, i);
          if (ts::same(c, mod)) continue;
          std::string_view local, name;
          if (is(c, "dotted_name")) local = name = t(c);
          else if (is(c, "aliased_import")) { local = t(field(c, "alias")); name = t(field(c, "name")); }
          else continue;
          aliases[local] = base.empty() ? std::string(name) : base + "." + std::string(name);
          if (base.empty()) imported_modules.emplace_back(name);
        }
        return;
      }
      if (null(mod) || !is(mod, "dotted_name")) return;
      const std::string module(t(mod));
      imported_modules.push_back(module);
      import_nodes.emplace_back(module, stmt);
      const uint32_t count = ts_node_named_child_count(stmt);
      for (uint32_t i = 0; i < count; ++i) {
        TSNode c = ts_node_named_child(stmt, i);
        if (ts::same(c, mod)) continue;
        if (is(c, "dotted_name")) {
          aliases[t(c)] = module + "." + std::string(t(c));
        } else if (is(c, "aliased_import")) {
          aliases[t(field(c, "alias"))] = module + "." + std::string(t(field(c, "name")));
        }
      }
    }
  }

  // ---- calls ----------------------------------------------------------------------------------
  // The walk fills the callee, receiver, method and arguments as it passes them.
  void record_call(TSNode n, Context ctx) {
    CallInfo ci;
    ci.node = n;
    calls.push_back(std::move(ci));
    call_ctx.push_back(std::move(ctx));
  }

  // After the walk: qualified names (imports are all known by then) and the CUDA evidence.
  void finish_calls() {
    for (auto& c : calls) {
      c.qualname = qualname_of(c.function);
      if (!null(cuda_node) && ts_node_start_byte(cuda_node) < ts_node_start_byte(c.node)) continue;
      const std::string_view q = c.qualname;  // compared as a view: no out-of-line std::string::compare
      if (c.method == "cuda" || q == "torch.cuda.set_device" || q == "torch.cuda.synchronize" ||
          q == "torch.cuda.current_device" || c.qualname.rfind("torch.cuda.amp.", 0) == 0 ||
          // torch>=2.6's device-generic API (pytorch/examples uses it throughout): on an NVIDIA
          // machine `torch.accelerator.current_accelerator()` is the CUDA device.
          c.qualname.rfind("torch.accelerator.", 0) == 0)
        cuda_node = c.node;
    }
  }

  // 'cuda', "cuda:0", f"cuda:{rank}": the string's content is or starts with a CUDA device.
  static bool is_cuda_literal(std::string_view lit) {
    const size_t q = lit.find_first_of("'\"");
    if (q == std::string_view::npos) return false;
    size_t quotes = 1;
    if (lit.size() >= q + 3 && lit[q + 1] == lit[q] && lit[q + 2] == lit[q]) quotes = 3;
    if (lit.size() < q + 2 * quotes) return false;
    const std::string_view content = lit.substr(q + quotes, lit.size() - q - 2 * quotes);
    return content == "cuda" || content.rfind("cuda:", 0) == 0;
  }

  // A string whose content is or starts with a CUDA device is CUDA evidence (the first one counts).
  void note_cuda_string(TSNode string) {
    // The whole string must start with it (f"cuda:{rank}" counts, "use cuda" does not).
    if (null(cuda_node) && is_cuda_literal(t(string))) cuda_node = string;
  }

  static bool needs_context(Sym k) {
    switch (k) {
      case Sym::Call: case Sym::Import: case Sym::ImportFrom: case Sym::Assignment: case Sym::Return:
      case Sym::AugmentedAssignment: case Sym::For: case Sym::While: case Sym::Function: case Sym::With:
        return true;
      default:
        return false;
    }
  }

  // Entries of a dict-valued name or expression, as (key, value, site) triples. False when unknown.
  bool dict_entries(TSNode expr, TSNode function, std::vector<Argument>& out, int depth) const {
    if (depth > 4 || null(expr)) return false;
    const std::string_view k = kind(expr);
    if (k == "dictionary") {
      for (TSNode p : ts::named_children(expr)) {
        if (is(p, "pair")) {
          TSNode kn = field(p, "key");
          if (!is(kn, "string") || ts_node_named_child_count(kn) != 3) return false;
          out.push_back({t(ts_node_named_child(kn, 1)), field(p, "value"), {}, p});
        } else if (is(p, "dictionary_splat")) {
          if (!dict_entries(ts_node_named_child(p, 0), function, out, depth + 1)) return false;
        } else if (!is(p, "comment")) {
          return false;
        }
      }
      return true;
    }
    if (k == "call" && t(field(expr, "function")) == "dict") {
      TSNode args = field(expr, "arguments");
      for (TSNode a : ts::named_children(args)) {
        if (is(a, "keyword_argument")) out.push_back({t(field(a, "name")), field(a, "value"), {}, a});
        else if (is(a, "dictionary_splat")) {
          if (!dict_entries(ts_node_named_child(a, 0), function, out, depth + 1)) return false;
        } else if (!is(a, "comment")) {
          if (!dict_entries(a, function, out, depth + 1)) return false;
        }
      }
      return true;
    }
    if (k == "identifier") {
      const std::string_view name = t(expr);
      // Function scope first, then module scope.
      for (TSNode scope : {function, TSNode{}}) {
        const ScopeName sk = scope_key(scope, name);
        const Bindings& b = bindings();
        if (b.opaque.count(sk)) return false;
        auto it = b.assigns.find(sk);
        if (it == b.assigns.end()) {
          if (null(scope)) return false;
          continue;
        }
        if (it->second.size() != 1) return false;
        if (!dict_entries(all_assigns[it->second.front()].value, scope, out, depth + 1)) return false;
        // Mutations in the same scope: name.update(...), name["k"] = v.
        for (size_t i = 0; i < calls.size(); ++i) {
          const CallInfo& c = calls[i];
          if (c.method != "update" || !is(c.receiver, "identifier") || t(c.receiver) != name) continue;
          if (!ts::same(call_ctx[i].function, scope) && !(null(call_ctx[i].function) && null(scope))) continue;
          for (const auto& kw : c.keywords) {
            if (kw.name == "**") {
              if (!dict_entries(ts_node_named_child(kw.value, 0), scope, out, depth + 1)) return false;
            } else {
              out.push_back({kw.name, kw.value, {}, kw.value});
            }
          }
          for (TSNode p : c.positional)
            if (!dict_entries(p, scope, out, depth + 1)) return false;
        }
        for (const auto& a : all_assigns) {
          if (!is(a.target, "subscript")) continue;
          TSNode base = field(a.target, "value");
          if (!is(base, "identifier") || t(base) != name) continue;
          TSNode sub = field(a.target, "subscript");
          if (!is(sub, "string") || ts_node_named_child_count(sub) != 3) return false;
          out.push_back({t(ts_node_named_child(sub, 1)), a.value, {}, a.statement});
        }
        return true;
      }
      return false;
    }
    return false;
  }

  void resolve_kwargs() {
    for (size_t i = 0; i < calls.size(); ++i) {
      CallInfo& c = calls[i];
      if (std::none_of(c.keywords.begin(), c.keywords.end(), [](const Argument& a) { return a.name == "**"; })) continue;
      std::vector<Argument> resolved;
      bool any = false;
      for (auto& kw : c.keywords) {
        if (kw.name != "**") {
          resolved.push_back(kw);
          continue;
        }
        any = true;
        std::vector<Argument> entries;
        if (dict_entries(ts_node_named_child(kw.value, 0), call_ctx[i].function, entries, 0)) {
          for (auto& e : entries) {
            e.via_dict = kw.value;
            resolved.push_back(e);
          }
        } else {
          c.unresolved_kwargs = true;
        }
      }
      if (any) {
        // Later entries win (dict semantics); explicit keywords cannot collide at run time.
        std::vector<Argument> dedup;
        for (auto it = resolved.rbegin(); it != resolved.rend(); ++it)
          if (std::none_of(dedup.begin(), dedup.end(), [&](const Argument& a) { return a.name == it->name; }))
            dedup.push_back(*it);
        std::reverse(dedup.begin(), dedup.end());
        c.keywords = std::move(dedup);
      }
    }
  }

  // ---- values ---------------------------------------------------------------------------------
  Value eval(TSNode n, TSNode function, int depth) const {
    Value v;
    if (null(n) || depth > 8) return v;
    const std::string_view k = kind(n);
    v.origin = n;
    if (k == "integer") {
      const std::string s(t(n));
      char* end = nullptr;
      const long long x = std::strtoll(s.c_str(), &end, 0);
      if (end && *end == '\0') { v.kind = Value::Kind::Int; v.i = x; }
      return v;
    }
    if (k == "float") {
      v.kind = Value::Kind::Float;
      v.f = std::strtod(std::string(t(n)).c_str(), nullptr);
      return v;
    }
    if (k == "true" || k == "false") { v.kind = Value::Kind::Bool; v.b = k == "true"; return v; }
    if (k == "none") { v.kind = Value::Kind::None; return v; }
    if (k == "string") {
      // Plain strings only: no interpolation.
      const uint32_t count = ts_node_named_child_count(n);
      std::string s;
      for (uint32_t i = 0; i < count; ++i) {
        TSNode c = ts_node_named_child(n, i);
        if (is(c, "interpolation")) return Value{};
        if (is(c, "string_content")) s += t(c);
      }
      v.kind = Value::Kind::String;
      v.s = std::move(s);
      return v;
    }
    if (k == "parenthesized_expression") return eval(ts_node_named_child(n, 0), function, depth + 1);
    if (k == "unary_operator") {
      Value inner = eval(field(n, "argument"), function, depth + 1);
      TSNode op = ts_node_child(n, 0);
      if (inner.kind == Value::Kind::Int && t(op) == "-") { inner.i = -inner.i; return inner; }
      return Value{};
    }
    if (k == "identifier") {
      const std::string_view name = t(n);
      for (TSNode scope : {function, TSNode{}}) {
        const ScopeName sk = scope_key(scope, name);
        const Bindings& b = bindings();
        if (b.opaque.count(sk)) return Value{};
        auto it = b.assigns.find(sk);
        if (it == b.assigns.end()) continue;
        if (it->second.size() != 1) return Value{};
        return eval(all_assigns[it->second.front()].value, scope, depth + 1);
      }
      return Value{};
    }
    if (k == "attribute") {
      // args.workers -> the argparse default of --workers.
      TSNode obj = field(n, "object");
      // `cfg.find_unused` from a YAML config is not `--find-unused`: only names that hold parsed
      // arguments are read through argparse defaults.
      if (!is(obj, "identifier") || options.empty() ||
          std::find(args_names.begin(), args_names.end(), t(obj)) == args_names.end())
        return Value{};
      const ArgOption* opt = find_option(t(field(n, "attribute")));
      if (!opt) return Value{};
      Value d;
      if (null(opt->default_value)) {
        const CallInfo* c = call_info(opt->call);
        const Argument* action = c ? c->keyword("action") : nullptr;
        Value a = action ? eval(action->value, TSNode{}, depth + 1) : Value{};
        if (a.kind == Value::Kind::String && a.s == "store_true") { d.kind = Value::Kind::Bool; d.b = false; }
        else if (a.kind == Value::Kind::String && a.s == "store_false") { d.kind = Value::Kind::Bool; d.b = true; }
        else if (!action) d.kind = Value::Kind::None;
      } else {
        d = eval(opt->default_value, TSNode{}, depth + 1);
        // argparse applies type= to string defaults.
        const CallInfo* c = call_info(opt->call);
        const Argument* type = c ? c->keyword("type") : nullptr;
        if (d.kind == Value::Kind::String && type && t(type->value) == "int") {
          char* end = nullptr;
          const long long x = std::strtoll(d.s.c_str(), &end, 10);
          if (end && *end == '\0' && !d.s.empty()) { d.kind = Value::Kind::Int; d.i = x; }
          else d = Value{};
        }
      }
      d.from_option = opt;
      return d;
    }
    return Value{};
  }

  // Calls are recorded in pre-order, so their start bytes never decrease: binary search, then the
  // few calls starting at the same byte (`a.b().c()` and `a.b()`).
  size_t find_call(TSNode n) const {
    // Rules are handed calls in document order: the next one is usually right after the last.
    for (size_t i = call_hint; i < calls.size() && i < call_hint + 2; ++i)
      if (ts::same(calls[i].node, n)) return call_hint = i;
    const uint32_t start = ts_node_start_byte(n);
    auto it = std::lower_bound(calls.begin(), calls.end(), start,
                               [](const CallInfo& c, uint32_t s) { return ts_node_start_byte(c.node) < s; });
    for (; it != calls.end() && ts_node_start_byte(it->node) == start; ++it)
      if (ts::same(it->node, n)) return call_hint = static_cast<size_t>(it - calls.begin());
    return SIZE_MAX;
  }

  // The innermost function whose body holds `n` (functions are in pre-order), or null.
  TSNode function_containing(TSNode n) const {
    const uint32_t start = ts_node_start_byte(n), end = ts_node_end_byte(n);
    auto it = std::upper_bound(functions.begin(), functions.end(), start,
                               [](uint32_t s, const Function& f) { return s < ts_node_start_byte(f.node); });
    while (it != functions.begin()) {
      --it;
      if (ts_node_end_byte(it->node) >= end && !ts::same(it->node, n)) return it->node;
    }
    return TSNode{};
  }

  // The context of any node: its own when it is a call, else that of the innermost call around it
  // (a receiver or an argument runs where its call runs), else by climbing the parents.
  Context context_of(TSNode n) const {
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

  // The step loop whose batch `expr` is (rooted in one of its batch names), or -1.
  int batch_loop(TSNode expr) const {
    TSNode r = root_identifier(expr);
    if (null(r)) return -1;
    const StepWhere w = step_where(context_of(expr));
    if (w.loop < 0) return -1;
    const auto& names = loops[w.loop].batch_names;
    return std::find(names.begin(), names.end(), t(r)) != names.end() ? w.loop : -1;
  }

  const CallInfo* call_info(TSNode n) const {
    const size_t i = find_call(n);
    return i == SIZE_MAX ? nullptr : &calls[i];
  }
  const Context* call_context(TSNode n) const {
    const size_t i = find_call(n);
    return i == SIZE_MAX ? nullptr : &call_ctx[i];
  }

  const ArgOption* find_option(std::string_view dest) const {
    for (const auto& o : options)
      if (o.dest == dest) return &o;
    return nullptr;
  }

  void collect_argparse() {
    for (const auto& a : all_assigns) {
      TSNode v = a.value;
      if (is(v, "subscript")) v = field(v, "value");  // parse_known_args()[0]
      if (!is(v, "call")) continue;
      const std::string_view fn = last_component(t(field(v, "function")));
      if (fn != "parse_args" && fn != "parse_known_args") continue;
      TSNode target = a.target;
      if (is(target, "pattern_list") || is(target, "tuple_pattern")) target = ts_node_named_child(target, 0);
      if (is(target, "identifier")) args_names.push_back(t(target));
    }
    for (const auto& c : calls) {
      if (c.method != "add_argument" || c.positional.empty()) continue;
      std::vector<std::string> flags;
      for (TSNode p : c.positional) {
        Value v = eval(p, TSNode{}, 0);
        if (v.kind == Value::Kind::String) flags.push_back(v.s);
      }
      if (flags.empty()) continue;
      ArgOption o;
      o.call = c.node;
      o.line = src.position(ts_node_start_byte(c.node)).line;
      std::string long_flag;
      for (const auto& f : flags)
        if (f.rfind("--", 0) == 0) { long_flag = f; break; }
      o.flag = long_flag.empty() ? flags.front() : long_flag;
      std::string dest = o.flag;
      while (!dest.empty() && dest.front() == '-') dest.erase(0, 1);
      std::replace(dest.begin(), dest.end(), '-', '_');
      if (const Argument* d = c.keyword("dest")) {
        Value dv = eval(d->value, TSNode{}, 0);
        if (dv.kind == Value::Kind::String) dest = dv.s;
      }
      o.dest = dest;
      if (const Argument* d = c.keyword("default")) o.default_value = d->value;
      options.push_back(std::move(o));
    }
  }

  // ---- training step --------------------------------------------------------------------------
  bool optimizer_like(TSNode recv) const {
    if (null(recv)) return false;
    const std::string_view name = last_component(t(recv));
    if (icontains(name, "sched") || icontains(name, "lr_") || icontains(name, "scaler")) return false;
    if (icontains(name, "optim") || icontains(name, "opt")) return true;
    // Assigned from torch.optim.X(...).
    if (is(recv, "identifier")) {
      for (const auto& a : all_assigns) {
        if (!is(a.target, "identifier") || t(a.target) != t(recv) || !is(a.value, "call")) continue;
        const std::string q = qualname_of(field(a.value, "function"));
        if (q.rfind("torch.optim.", 0) == 0 && q.find("lr_scheduler") == std::string::npos) return true;
      }
    }
    return false;
  }

  bool is_marker(const CallInfo& c) const {
    if (c.method == "backward") return true;
    if (std::string_view(c.qualname) == "torch.autograd.backward") return true;
    if (c.method == "step") {
      if (optimizer_like(c.receiver)) return true;
      // scaler.step(optimizer)
      if (!c.positional.empty() && optimizer_like(c.positional.front())) return true;
    }
    return false;
  }

  // Same-file function called by `c` (`f(...)`, `self.f(...)`), or -1 (first of that name).
  std::vector<size_t> callees(const CallInfo& c) const {
    std::string_view name;
    if (is(c.function, "identifier")) name = t(c.function);
    else if (is(c.function, "attribute") && is(c.receiver, "identifier") && t(c.receiver) == "self") name = c.method;
    if (name.empty()) return {};
    auto it = functions_by_name.find(name);
    return it == functions_by_name.end() ? std::vector<size_t>{} : it->second;
  }

  size_t function_index(TSNode fn) const {
    auto it = fn_index.find(key(fn));
    return it == fn_index.end() ? SIZE_MAX : it->second;
  }

  // Call graph inside the file, computed once after the walk.
  void link_calls() {
    call_callees.resize(calls.size());
    callers.assign(functions.size(), {});
    for (size_t i = 0; i < calls.size(); ++i) {
      call_callees[i] = callees(calls[i]);
      for (size_t f : call_callees[i]) callers[f].push_back(i);
    }
  }

  static bool frames_have_loop(const Context& ctx) {
    return std::any_of(ctx.frames.begin(), ctx.frames.end(), [](const Frame& f) { return f.kind == Frame::Kind::Loop; });
  }

  void find_steps() {
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

  // The loop (by index) a node belongs to as "step": innermost step loop in its frames, or, inside
  // a step function, the step loop of an unguarded call site.
  struct StepWhere {
    int loop = -1;
    const Frame* guard = nullptr;
  };

  StepWhere step_where(const Context& ctx, int depth = 0) const {
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

  // ---- data loaders ---------------------------------------------------------------------------
  // The expression a loop iterates, unwrapped from enumerate/tqdm/iter/zip.
  TSNode iterable_base(TSNode e, bool* enumerated) const {
    for (int guard = 0; guard < 8 && is(e, "call"); ++guard) {
      TSNode fn = field(e, "function");
      const std::string_view name = last_component(t(fn));
      if (name != "enumerate" && name != "tqdm" && name != "iter" && name != "zip" && name != "islice" &&
          name != "track" && name != "progress_bar" && name != "ProgressBar")
        break;
      if (name == "enumerate" && enumerated) *enumerated = true;
      TSNode args = field(e, "arguments");
      if (null(args) || ts_node_named_child_count(args) == 0) break;
      e = ts_node_named_child(args, 0);
    }
    return e;
  }

  // Calls into a sibling module's function that holds a training-step loop (engine.train_one_epoch)
  // are this file's training steps (they join step_loop_nodes), and a loader passed where that
  // loop iterates feeds it.

  void link_siblings() {
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

  static constexpr int kNotReturned = -2;

  // Where `fn` returns the local `name`: -1 alone (`return name`), i for the i-th item of a
  // returned tuple, kNotReturned when it does not.
  int returned_index(TSNode fn, std::string_view name) const {
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

  // The name the caller binds to `fn(...)`'s result (`x = fn()`; index i of `a, b = fn()`), or "".
  std::string bound_to_result(TSNode fn, int index) const {
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

  bool imports_module(std::string_view module) const {
    for (const auto& m : imported_modules)
      if (m == module || (m.size() > module.size() && m.compare(0, module.size(), module) == 0 && m[module.size()] == '.'))
        return true;
    return false;
  }

  // `fn` is the Lightning hook `hook` (`def train_dataloader(self)`): a method of a class deriving
  // from LightningModule / LightningDataModule, or of any class in a file that imports Lightning.
  bool lightning_hook(TSNode fn, std::string_view hook) const {
    if (null(fn) || t(field(fn, "name")) != hook) return false;
    TSNode p = ts_node_parent(fn);
    if (is(p, "decorated_definition")) p = ts_node_parent(p);
    if (!is(p, "block")) return false;
    TSNode cls = ts_node_parent(p);
    if (!is(cls, "class_definition")) return false;
    TSNode supers = field(cls, "superclasses");
    if (!null(supers))
      for (TSNode s : ts::named_children(supers)) {
        const std::string_view last = last_component(t(s));
        if (last == "LightningModule" || last == "LightningDataModule") return true;
      }
    return imports_module("lightning") || imports_module("pytorch_lightning");
  }

  static bool loader_named(const DataLoaderInfo& d, std::string_view name) {
    if (name.empty()) return false;
    if (!d.variable.empty() && d.variable == name) return true;
    return std::find(d.aliases.begin(), d.aliases.end(), name) != d.aliases.end();
  }

  // accelerate: `model, opt, dl = accelerator.prepare(model, opt, loader)` (or
  // `dl = accelerator.prepare_data_loader(loader)`) binds the prepared loader to a new name.
  void link_prepared_loaders() {
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
      for (size_t k = 0; k < targets.size(); ++k) {
        if (!is(targets[k], "identifier")) continue;
        const std::string_view from = t(c->positional[k]);
        const std::string_view to = t(targets[k]);
        for (auto& d : loaders)
          if (loader_named(d, from) && !loader_named(d, to)) d.aliases.emplace_back(to);
      }
    }
  }

  void collect_loaders() {
    for (size_t i = 0; i < calls.size(); ++i) {
      const CallInfo& c = calls[i];
      const std::string_view q = c.qualname;
      if (q != "torch.utils.data.DataLoader" && q != "torch.utils.data.dataloader.DataLoader")
        continue;
      DataLoaderInfo d;
      d.call = &c;
      TSNode parent = ts_node_parent(c.node);
      TSNode fn = call_ctx[i].function;
      int returned_at = kNotReturned;  // where the enclosing function returns it, if it does
      if (is(parent, "assignment") && ts::same(field(parent, "right"), c.node)) {
        d.variable = std::string(t(field(parent, "left")));
        // Built in a function that returns it (alone or in a tuple): the caller's name for it.
        if (is(field(parent, "left"), "identifier") && !null(fn)) {
          const int index = returned_index(fn, t(field(parent, "left")));
          returned_at = index;
          if (index != kNotReturned) {
            std::string caller_name = bound_to_result(fn, index);
            // `train, val, _ = get_loaders()`: a discarded loader keeps its local name (`test_loader`),
            // which says what it is for; it is never iterated, so it must not be assumed to feed the step.
            if (!caller_name.empty() && caller_name != "_") d.variable = std::move(caller_name);
            else if (caller_name == "_") d.discarded = true;
          }
        }
      } else if (!null(fn) && is(parent, "return_statement")) {
        d.variable = bound_to_result(fn, -1);  // `return DataLoader(...)`
        returned_at = -1;
      } else if (!null(fn) && is(parent, "expression_list") && is(ts_node_parent(parent), "return_statement")) {
        // `return DataLoader(...), DataLoader(...)`
        int index = 0;
        for (TSNode e : ts::named_children(parent)) {
          if (ts::same(e, c.node)) break;
          ++index;
        }
        d.variable = bound_to_result(fn, index);
        returned_at = index;
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
        const std::string_view fname = t(field(fn, "name"));
        const SteppedResult* r = nullptr;
        if (const ModuleSummary* imp = project->step_importer(src.path(), fname, returned_at, &r); imp && r) {
          d.feeds_step = true;
          d.repeated = r->repeated;
          d.step_loop = field(fn, "name");
          // The importer's CUDA use is this loader's too (pinned memory, copies).
          if (imp->uses_cuda && null(cuda_node) && !importer) importer = imp;
          d.framework_reason = std::filesystem::path(imp->path).filename().string() + " iterates what " +
                               std::string(fname) + "() returns in its training loop (line " +
                               std::to_string(r->line) + ")";
        }
      }
      loaders.push_back(std::move(d));
    }
    link_prepared_loaders();
    // Link loops to loaders, and give step loops their batch names (batch_loop() reads no other
    // loop's): a loop that is not a step in a file without loaders needs neither.
    for (size_t li = 0; li < loops.size(); ++li) {
      Loop& l = loops[li];
      if ((loaders.empty() && !l.step) || !is(l.node, "for_statement")) continue;
      bool enumerated = false;
      TSNode base = iterable_base(field(l.node, "right"), &enumerated);
      std::string base_text(t(base));
      int found = -1;
      for (size_t d = 0; d < loaders.size() && found < 0; ++d)
        if (loader_named(loaders[d], base_text)) found = static_cast<int>(d);
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
      if (found >= 0) {
        l.loader = found;
        loaders[found].loops.push_back(l.node);
        if (l.step) {
          loaders[found].feeds_step = true;
          loaders[found].step_loop = l.node;
          loaders[found].repeated = loaders[found].repeated || l.repeated;
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
    // Names assigned from batch names inside a step loop's body: `x, y = batch`, `x = batch["x"]`.
    const bool step_loops = std::any_of(loops.begin(), loops.end(), [](const Loop& l) { return l.step; });
    for (const auto& a : all_assigns) {
      if (!step_loops) break;
      for (size_t fi = a.ctx.frames.size(); fi-- > 0;) {
        if (a.ctx.frames[fi].kind != Frame::Kind::Loop) continue;
        auto it = loop_index.find(key(a.ctx.frames[fi].node));
        if (it == loop_index.end()) break;
        Loop& l = loops[it->second];
        if (!l.step) break;
        TSNode r = root_identifier(a.value);
        bool from_batch = !null(r) && std::find(l.batch_names.begin(), l.batch_names.end(), t(r)) != l.batch_names.end();
        // `batch = next(it)` in a while loop over an iterator.
        if (!from_batch && is(a.value, "call") && t(field(a.value, "function")) == "next") from_batch = true;
        if (from_batch) bound_names(a.target, text, l.batch_names);
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
          if (!null(r) && std::find(l.batch_names.begin(), l.batch_names.end(), t(r)) != l.batch_names.end())
            names.push_back(params[k + skip]);
        }
        if (names.empty()) continue;
        for (const auto& a : all_assigns) {
          if (!ts::same(a.ctx.function, functions[fi].node)) continue;
          TSNode r = root_identifier(a.value);
          if (!null(r) && std::find(names.begin(), names.end(), t(r)) != names.end()) bound_names(a.target, text, names);
        }
        l.batch_names.insert(l.batch_names.end(), names.begin(), names.end());
      }
    }
    link_siblings();
    // Unlinked loaders: assumed to feed the step loop when there is exactly one, and no loader is
    // already known to feed it (then an unlinked one is for evaluation, or iterated in a
    // comprehension such as `sum(f(x) for x in loader)`, or not used at all).
    const bool step_fed = std::any_of(loaders.begin(), loaders.end(), [](const DataLoaderInfo& d) { return d.feeds_step; });
    for (auto& d : loaders) {
      if (step_fed) break;
      if (!d.loops.empty() || step_loop_nodes.size() != 1 || d.discarded || d.variable == "_") continue;
      if (icontains(d.variable, "val") || icontains(d.variable, "test") || icontains(d.variable, "eval")) continue;
      d.assumed_step = true;
      d.step_loop = step_loop_nodes.front();
      auto it = loop_index.find(key(d.step_loop));
      d.repeated = it != loop_index.end() && loops[it->second].repeated;
    }
  }

  // ---- the walk -------------------------------------------------------------------------------
  // Pre-order over every node with a TSTreeCursor (no recursion). Frames are kept incrementally:
  // each level remembers how many frames existed before it, and leaving it restores that.
  void build(TSNode root, const std::vector<std::string>& wanted) {
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
    TSTreeCursor cursor = ts_tree_cursor_new(root);
    // Visits the cursor's node `n`; returns what a level pushed for it needs to know.
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
          push_entering(up->node, n, ts_tree_cursor_current_field_id(&cursor), frames);
        } else if (up->role == Role::Call) {
          const TSFieldId f = ts_tree_cursor_current_field_id(&cursor);
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
          const TSFieldId f = ts_tree_cursor_current_field_id(&cursor);
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
    // Anonymous nodes (punctuation, keywords: a third of all) hold nothing the model records. A
    // leaf (most nodes) has no children to look for.
    auto enter = [&](TSNode n) -> Entered {
      const TSSymbol s = ts_node_symbol(n);
      Entered e = s < named.size() && !named[s] ? Entered{} : enter_named(n, s);
      if (e.descend && ts_node_child_count(n) == 0) e.descend = false;
      return e;
    };
    TSNode node = ts_tree_cursor_current_node(&cursor);
    Entered current = enter(node);
    for (;;) {
      const size_t fb = frames.size(), nb = functions_open.size();
      if (current.descend && ts_tree_cursor_goto_first_child(&cursor)) {
        levels.push_back({node, current.sym, current.role, current.call, fb, nb});
        node = ts_tree_cursor_current_node(&cursor);
        current = enter(node);
        continue;
      }
      bool done = false;
      for (;;) {
        if (ts_tree_cursor_goto_next_sibling(&cursor)) {
          node = ts_tree_cursor_current_node(&cursor);
          current = enter(node);
          break;
        }
        if (!ts_tree_cursor_goto_parent(&cursor)) {
          done = true;
          break;
        }
        levels.pop_back();
      }
      if (done) break;
    }
    ts_tree_cursor_delete(&cursor);

    finish_calls();
    link_calls();
    collect_argparse();
    resolve_kwargs();
    find_steps();
    // Step code without CUDA use of its own (an engine.py): CUDA may come from the script that
    // imports it. Only files with a step loop ask, so library code costs nothing.
    if (project && null(cuda_node) && !step_loop_nodes.empty()) importer = project->cuda_importer(src.path());
    collect_loaders();
  }

  // An argument `n` (of kind `k`) of call `c`, in the order written; `list` is the argument list.
  void add_argument(CallInfo& c, TSNode n, Sym k, TSNode list) {
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

  // Out of line: inlined into the walk, its locals would make every node's visit pay for the few
  // that record something.
  [[gnu::noinline]] void visit(TSNode n, Sym k, TSNode parent, Context ctx) {
    switch (k) {
      case Sym::Call:
        record_call(n, std::move(ctx));
        break;
      case Sym::Return:
        if (!null(ctx.function)) returns.emplace_back(ctx.function, n);
        break;
      case Sym::Import:
      case Sym::ImportFrom:
        record_import(n, parent);
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
        loops.push_back(Loop{n, std::move(ctx), false, false, false, {}, -1});
        break;
      }
      case Sym::Function: {
        Function f;
        f.node = n;
        f.name = std::string(t(field(n, "name")));
        for (TSNode p : ts::named_children(field(n, "parameters"))) {
          TSNode id = p;
          if (!is(p, "identifier")) id = field(p, "name");
          if (is(p, "list_splat_pattern") || is(p, "dictionary_splat_pattern")) id = ts_node_named_child(p, 0);
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
};

// ---- Value / CallInfo -----------------------------------------------------------------------

std::optional<bool> Value::truthy() const {
  switch (kind) {
    case Kind::Unknown: return std::nullopt;
    case Kind::None: return false;
    case Kind::Bool: return b;
    case Kind::Int: return i != 0;
    case Kind::Float: return f != 0.0;
    case Kind::String: return !s.empty();
  }
  return std::nullopt;
}

std::optional<long long> Value::as_int() const {
  if (kind == Kind::Int) return i;
  if (kind == Kind::Bool) return b ? 1 : 0;
  return std::nullopt;
}

std::string Value::repr() const {
  switch (kind) {
    case Kind::Unknown: return "?";
    case Kind::None: return "None";
    case Kind::Bool: return b ? "True" : "False";
    case Kind::Int: return std::to_string(i);
    case Kind::Float: {
      std::string s = std::to_string(f);
      while (s.size() > 1 && s.back() == '0' && s[s.size() - 2] != '.') s.pop_back();
      return s;
    }
    case Kind::String: return "'" + s + "'";
  }
  return "?";
}

const Argument* CallInfo::keyword(std::string_view name) const {
  for (const auto& k : keywords)
    if (k.name == name) return &k;
  return nullptr;
}

TSNode CallInfo::arg(std::string_view name, int index) const {
  if (const Argument* k = keyword(name)) return k->value;
  if (index >= 0 && !star_args && static_cast<size_t>(index) < positional.size()) return positional[index];
  return TSNode{};
}

// ---- Model ------------------------------------------------------------------------------------

Model::Model(const SourceFile& source, TSNode root, const std::vector<std::string>& wanted, ProjectContext* project)
    : impl_(std::make_unique<Impl>(source)) {
  impl_->project = project;
  impl_->build(root, wanted);
}
Model::~Model() = default;

const SourceFile& Model::source() const { return impl_->src; }
std::string_view Model::text(TSNode n) const { return impl_->t(n); }

const std::vector<TSNode>& Model::nodes_of_kind(std::string_view kind) const {
  static const std::vector<TSNode> none;
  const auto& names = impl_->by_kind_names;
  auto it = std::find(names.begin(), names.end(), kind);
  return it == names.end() ? none : impl_->by_kind_lists[static_cast<size_t>(it - names.begin())];
}

std::string Model::qualname(TSNode expr) const { return impl_->qualname_of(expr); }
const CallInfo* Model::call(TSNode call_node) const { return impl_->call_info(call_node); }
const std::vector<CallInfo>& Model::calls() const { return impl_->calls; }

Value Model::evaluate(TSNode expr) const {
  // A missing operand (error recovery can leave `a = b: T` without a right side) is unknown.
  if (ts_node_is_null(expr)) return Value{};
  const Context* ctx = impl_->call_context(expr);
  return impl_->eval(expr, ctx ? ctx->function : impl_->function_containing(expr), 0);
}

const ArgOption* Model::arg_option(std::string_view dest) const { return impl_->find_option(dest); }

std::vector<TSNode> Model::assigned_values(std::string_view name) const {
  std::vector<TSNode> out;
  for (const auto& a : impl_->all_assigns)
    if (is(a.target, "identifier") && impl_->t(a.target) == name) out.push_back(a.value);
  return out;
}

bool Model::imports(std::string_view module) const {
  for (const auto& m : impl_->imported_modules)
    if (m == module || (m.size() > module.size() && m.compare(0, module.size(), module) == 0 && m[module.size()] == '.'))
      return true;
  return false;
}

TSNode Model::last_import() const { return impl_->last_import; }

TSNode Model::first_import_of(std::string_view module) const {
  for (const auto& [m, n] : impl_->import_nodes)
    if (m == module || (m.size() > module.size() && m.compare(0, module.size(), module) == 0 && m[module.size()] == '.'))
      return n;
  return TSNode{};
}

bool Model::has_step_loop() const { return !impl_->step_loop_nodes.empty(); }
const std::vector<TSNode>& Model::step_loops() const { return impl_->step_loop_nodes; }

StepContext Model::step_context(TSNode node) const {
  const Context* known = impl_->call_context(node);
  Context climbed;
  if (!known) {
    climbed = impl_->context_by_climbing(node);
    known = &climbed;
  }
  Impl::StepWhere w = impl_->step_where(*known);
  StepContext sc;
  if (w.loop < 0) return sc;
  sc.in_step = true;
  sc.loop = impl_->loops[w.loop].node;
  if (w.guard) {
    impl_->guards.push_back(Guard{w.guard->condition});
    sc.guard = &impl_->guards.back();
  }
  return sc;
}

bool Model::is_batch_expression(TSNode expr) const { return impl_->batch_loop(expr) >= 0; }

const DataLoaderInfo* Model::loader_of_batch(TSNode expr) const {
  const int li = impl_->batch_loop(expr);
  if (li < 0) return nullptr;
  const auto& l = impl_->loops[li];
  if (l.loader >= 0) return &impl_->loaders[l.loader];
  // The loader assumed to feed this loop.
  for (const auto& d : impl_->loaders)
    if (d.assumed_step && ts::same(d.step_loop, l.node)) return &d;
  return nullptr;
}

const std::vector<DataLoaderInfo>& Model::dataloaders() const { return impl_->loaders; }

const DataLoaderInfo* Model::dataloader(TSNode call_node) const {
  for (const auto& d : impl_->loaders)
    if (ts::same(d.call->node, call_node)) return &d;
  return nullptr;
}

bool Model::uses_cuda() const { return !null(impl_->cuda_node); }

const ModuleSummary* Model::cuda_importer() const { return impl_->importer; }

std::string Model::cuda_where() const {
  if (!null(impl_->cuda_node))
    return "at line " + std::to_string(impl_->src.position(ts_node_start_byte(impl_->cuda_node)).line);
  if (impl_->importer)
    return "in " + std::filesystem::path(impl_->importer->path).filename().string() +
           ", which imports this file (line " + std::to_string(impl_->importer->cuda_line) + ")";
  return {};
}

std::vector<FunctionSummary> Model::function_summaries() const {
  std::vector<FunctionSummary> out;
  for (size_t fi = 0; fi < impl_->functions.size(); ++fi) {
    const auto& f = impl_->functions[fi];
    FunctionSummary s;
    s.name = impl_->t(field(f.node, "name"));
    s.params = f.params;
    s.line = impl_->src.position(ts_node_start_byte(f.node)).line;
    for (const auto& l : impl_->loops) {
      if (!l.step || !ts::same(l.ctx.function, f.node)) continue;
      s.has_step_loop = true;
      if (!is(l.node, "for_statement")) continue;
      TSNode base = impl_->iterable_base(field(l.node, "right"), nullptr);
      if (!is(base, "identifier")) continue;
      auto p = std::find(f.params.begin(), f.params.end(), impl_->t(base));
      if (p != f.params.end()) s.iterated_params.push_back(static_cast<int>(p - f.params.begin()));
    }
    out.push_back(std::move(s));
  }
  return out;
}

std::vector<SteppedResult> Model::stepped_results() const {
  std::vector<SteppedResult> out;
  for (const auto& l : impl_->loops) {
    if (!l.step || !is(l.node, "for_statement")) continue;
    TSNode base = impl_->iterable_base(field(l.node, "right"), nullptr);
    if (!is(base, "identifier")) continue;
    const std::string_view name = impl_->t(base);
    for (const auto& a : impl_->all_assigns) {
      if (!is(a.value, "call")) continue;
      int index = -2;
      if (is(a.target, "identifier") && impl_->t(a.target) == name) index = -1;
      else if (is(a.target, "pattern_list") || is(a.target, "tuple_pattern")) {
        auto names = ts::named_children(a.target);
        for (size_t k = 0; k < names.size(); ++k)
          if (is(names[k], "identifier") && impl_->t(names[k]) == name) index = static_cast<int>(k);
      }
      if (index == -2) continue;
      const std::string q = impl_->qualname_of(field(a.value, "function"));
      const auto mf = module_function(q);
      if (!mf) continue;
      out.push_back({std::string(mf->first), std::string(mf->second), index,
                     impl_->src.position(ts_node_start_byte(l.node)).line, l.repeated});
    }
  }
  return out;
}

std::vector<std::string> Model::imported_module_names() const {
  std::vector<std::string> out;
  for (const auto& m : impl_->imported_modules) {
    std::string first = m.substr(0, m.find('.'));
    if (std::find(out.begin(), out.end(), first) == out.end()) out.push_back(std::move(first));
  }
  return out;
}
TSNode Model::cuda_evidence() const { return impl_->cuda_node; }

const void* Model::find_derived(void (*key)()) const {
  for (const auto& [k, v] : impl_->derived)
    if (k == key) return v.get();
  return nullptr;
}

void Model::keep_derived(void (*key)(), std::shared_ptr<const void> value) const {
  impl_->derived.emplace_back(key, std::move(value));
}

TSNode Model::enclosing(TSNode node, std::string_view kind_name) const {
  if (kind_name == "function_definition") return impl_->function_containing(node);
  for (TSNode p = ts_node_parent(node); !null(p); p = ts_node_parent(p))
    if (kind(p) == kind_name) return p;
  return TSNode{};
}

bool Model::under_condition(TSNode node, TSNode* condition) const {
  Context ctx = impl_->context_by_climbing(node);
  // Module-level `if __name__ == "__main__":` is not a condition; functions are entered via calls.
  for (const auto& f : ctx.frames) {
    if (f.kind != Frame::Kind::Condition && f.kind != Frame::Kind::Guard) continue;
    if (!null(f.condition) && impl_->t(f.condition).find("__name__") != std::string_view::npos) continue;
    if (condition) *condition = f.condition;
    return true;
  }
  return false;
}

}  // namespace perflint
