// Internal to parser/model/: the state of Model::Impl and the helpers its parts share. Each
// part (walk, frames, names, calls, values, step, loaders, siblings) defines the members of its job;
// model.cpp holds the public API. Include only from parser/model/*.cpp.
#pragma once
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
namespace model_detail {

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
inline NodeKey key(TSNode n) { return NodeKey{n.id, ts_node_start_byte(n)}; }
inline bool null(TSNode n) { return ts_node_is_null(n); }

// Ancestor frames of a node inside its function (outermost first).
struct Frame {
  enum class Kind { Loop, Guard, Condition, Function, Lambda, Comprehension, Class } kind;
  TSNode node{};       // the loop / if / function
  TSNode condition{};  // Guard/Condition: the condition expression
};

inline bool same_frame(const Frame& a, const Frame& b) {
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
inline std::optional<std::pair<std::string_view, std::string_view>> module_function(std::string_view q) {
  const size_t dot = q.find('.');
  if (dot == std::string_view::npos || q.find('.', dot + 1) != std::string_view::npos) return std::nullopt;
  return std::make_pair(q.substr(0, dot), q.substr(dot + 1));
}

// `pkg.image_datasets.load_data` -> ("image_datasets", "load_data"): a module by its file's stem.
inline std::optional<std::pair<std::string_view, std::string_view>> stem_function(std::string_view q) {
  const size_t last = q.rfind('.');
  if (last == std::string_view::npos || last == 0) return std::nullopt;
  const size_t prev = q.rfind('.', last - 1);
  const size_t from = prev == std::string_view::npos ? 0 : prev + 1;
  return std::make_pair(q.substr(from, last - from), q.substr(last + 1));
}

// A dotted name whose last component is named as a class is (`model.UNet`), not a factory function.
inline bool class_by_name(std::string_view q) {
  const size_t dot = q.rfind('.');
  if (dot == std::string_view::npos || dot + 1 >= q.size()) return false;
  return q[dot + 1] >= 'A' && q[dot + 1] <= 'Z';
}

// Roots of dotted names that are never the project's own modules: a call into them leaves the
// project, so it is not worth a look-up.
inline bool library_root(std::string_view q) {
  const std::string_view root = q.substr(0, q.find('.'));
  for (std::string_view lib : {"torch", "torchvision", "torchaudio", "torchtext", "numpy", "np", "os", "sys", "math",
                               "time", "random", "json", "logging", "collections", "functools", "itertools",
                               "typing", "re", "copy", "argparse", "transformers", "accelerate", "lightning",
                               "pytorch_lightning", "tqdm", "PIL", "cv2", "scipy", "sklearn", "wandb", "datasets",
                               "einops", "timm", "pathlib", "shutil", "subprocess", "pickle", "yaml", "glob",
                               "warnings", "datetime", "contextlib", "dataclasses", "pandas", "matplotlib",
                               "tensorboard", "tensorboardX", "apex", "deepspeed", "fairscale", "huggingface_hub"})
    if (root == lib) return true;
  return false;
}

inline bool is_ascii_name_byte(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// `self.model.forward`: ASCII names joined by single dots, at least two.
inline bool is_plain_dotted(std::string_view s) {
  if (s.empty() || s.front() == '.' || s.back() == '.' || s.find('.') == std::string_view::npos) return false;
  for (size_t i = 0; i < s.size(); ++i)
    if (s[i] == '.' ? s[i + 1] == '.' : !is_ascii_name_byte(s[i])) return false;
  return true;
}

// Only ASCII name bytes and dots (`NUM_WORKERS`, `cfg.TRAIN.SHUFFLE`, and tolerantly `a..b`), not empty.
inline bool is_name_chain(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return is_ascii_name_byte(c) || c == '.'; });
}

// `.nn.functional.relu` for depth 3: `depth` times a dot followed by an ASCII name.
inline bool is_dotted_tail(std::string_view s, size_t depth) {
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
inline bool is_counter_name(std::string_view n) {
  if (n == "i" || n == "j" || n == "it" || n == "n" || n == "k") return true;
  for (std::string_view w : {"step", "iter", "idx", "batch", "epoch", "count"})
    if (icontains(n, w)) return true;
  return false;
}

// `((x))` -> `x`.
inline TSNode unparenthesized(TSNode n) {
  while (!ts_node_is_null(n) && ts::kind(n) == "parenthesized_expression" && ts_node_named_child_count(n) == 1)
    n = ts_node_named_child(n, 0);
  return n;
}

// The root identifier of `a.b[0].c(1)`: `a`. Null when the expression is not rooted in a name.
inline TSNode root_identifier(TSNode n) {
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
inline void bound_names(TSNode target, std::string_view src, std::vector<std::string_view>& out, int depth = 0) {
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

// Whether an assignment's or a for loop's target binds `name` (bound_names has it).
inline bool binds_name(TSNode target, std::string_view src, std::string_view name) {
  std::vector<std::string_view> names;
  bound_names(target, src, names);
  return std::find(names.begin(), names.end(), name) != names.end();
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

inline const std::vector<Sym>& sym_table() {
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
inline const std::vector<bool>& quiet_kinds() {
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
inline bool kind_outside_quiet_expressions(std::string_view kind) {
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

inline Sym sym(TSNode n) {
  if (null(n)) return Sym::Other;
  const TSSymbol s = ts_node_symbol(n);
  const auto& t = sym_table();
  return s < t.size() ? t[s] : Sym::Other;
}

struct FieldIds {
  TSFieldId body, consequence, condition, function, arguments, object, attribute;
};
inline const FieldIds& fields() {
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

}  // namespace model_detail

// Only the parts of the model include this header.
using namespace model_detail;

struct Model::Impl {
  const SourceFile& src;
  std::optional<ts::ParentCache> parents;  // for the tree, while the model lives (rules climb a lot)
  std::string_view text;
  // Nodes kept for the engine's dispatch: symbol -> slot -> nodes in document order.
  std::vector<int> kind_slot;
  std::vector<std::vector<TSNode>> by_kind_lists;
  std::vector<std::string> by_kind_names;  // the wanted kinds, by slot (a handful: scanned)

  // imports
  std::unordered_map<std::string_view, std::string> aliases;  // local name (in the source text) -> qualified
  std::deque<std::string> star_alias_names;  // keys of `aliases` a star import brought (not in the source text)
  // `from utils import *` (top level, absolute): names not bound otherwise may be that module's
  // functions, looked up in its summary (project only), once per name.
  std::vector<std::string> star_modules;
  mutable std::unordered_map<std::string_view, std::string> star_memo_;
  std::string star_qualname(std::string_view name) const;
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
    std::unordered_set<ScopeName, ScopeNameHash> opaque_again;  // bound opaquely more than once
    // Indices in all_assigns, in document order, so that no look-up scans every assignment:
    std::unordered_map<std::string_view, std::vector<size_t>> by_name;         // `name = ...`, any scope
    std::unordered_map<std::string_view, std::vector<size_t>> by_subscripted;  // `name[...] = ...`
    std::unordered_map<std::string_view, std::vector<size_t>> by_attribute;    // `self.x = ...`, by its text
    std::unordered_map<NodeKey, std::vector<size_t>, NodeKeyHash> by_function; // innermost function
    // `a, b = f(...)`, `x, y = batch`: per name, (index in all_assigns, the name's position in the
    // target tuple).
    std::unordered_map<std::string_view, std::vector<std::pair<size_t, int>>> by_unpacked;
  };
  mutable std::optional<Bindings> bindings_;
  const Bindings& bindings() const;
  // `name.update(...)` calls by receiver name (indices in calls), built on first use.
  mutable std::optional<std::unordered_map<std::string_view, std::vector<size_t>>> update_calls_;
  const std::vector<size_t>& update_calls(std::string_view name) const;

  // functions by simple name (module functions and methods alike)
  struct Function {
    TSNode node;
    std::string name;
    std::vector<std::string> params;  // positional order, self included
    TSNode cls{};                     // the class_definition whose block holds the def, or null
    bool marker_outside_loop = false;
    bool has_step_loop = false;
    bool step_fn = false;
  };
  std::vector<Function> functions;
  std::unordered_map<std::string_view, std::vector<size_t>> functions_by_name;  // views into the source
  std::unordered_map<NodeKey, size_t, NodeKeyHash> fn_index;
  std::vector<std::vector<size_t>> call_callees;  // per call: same-file functions it may call
  std::vector<std::vector<size_t>> callers;       // per function: calls that may call it
  // `self.method()` in class C whose project subclasses all override `method` (C.method never runs
  // from there; ProjectContext::method_overrides): per call, C.method, taken out of call_callees but
  // still telling find_steps that the call does a step when C.method does. SIZE_MAX elsewhere.
  std::vector<size_t> dispatched_base;
  // Per call, the overrides of `self.method()` in subclasses of other files: (path, "Sub.method").
  std::unordered_map<size_t, std::vector<std::pair<std::string, std::string>>> foreign_overrides;
  // The calls that may run an override in another file, followed or not (several are not).
  std::unordered_set<size_t> calls_with_foreign_overrides;
  void dispatch_overrides(size_t call);
  // Same-file classes: (class name, method name) -> function index, for `model(x)` -> Net.forward.
  std::unordered_map<std::string, size_t> class_methods;
  std::unordered_map<std::string, TSNode> class_nodes;  // classes with a method, by name (the last one)
  std::unordered_set<std::string_view> method_names;     // names of the methods of the file's classes
  size_t class_method(const std::string& cls, const std::string& method, int depth = 0) const;
  // The same-file class a callable expression was built from (`model = DDP(Net()).cuda()`), or empty.
  std::string_view instance_class(TSNode callee, int depth = 0) const;
  // What a call that builds an instance names as the class: `Net` in `Net(...)`, and in the
  // alternative constructors that library bases give their subclasses (`Net.from_pretrained(path)`,
  // `Net.from_config(cfg)` of Hugging Face, `Net.load_from_checkpoint(p)` of Lightning): `Net` too.
  TSNode constructed_class(TSNode call) const;
  std::string_view instance_class_uncached(TSNode callee, int depth) const;
  // `for flow in self.flows: out = flow(out)`: the container (`self.flows`) that the innermost loop of
  // the function binding the name `callee` iterates (also through enumerate and reversed); null when
  // no loop binds it.
  TSNode looped_container(TSNode callee) const;
  // Each module a container expression holds (`nn.ModuleList([A() ...])`, `nn.Sequential(A(), B())`,
  // `[A(), B()]`, `self.blocks.append(A())`), as written: visit returns true to stop.
  void for_each_element_of(TSNode container, const std::function<bool(TSNode)>& visit) const;
  // The class of this file whose instances fill the container `subscript` indexes (`self.cells[i]`).
  std::string_view element_class(TSNode subscript) const;

  // loops
  struct Loop {
    TSNode node;
    Context ctx;               // frames outside the loop (the loop itself not included)
    bool direct_step = false;  // contains a marker or a call to a step function
    bool step = false;         // innermost such loop, or one with its own optimizer step
    bool own_optimizer_step = false;  // an optimizer step in its body, outside any inner loop
    bool repeated = false;
    std::vector<std::string_view> batch_names;  // views into the source
    int loader = -1;
  };
  std::vector<Loop> loops;
  // What a step loop iterates, through wrappers and a local name bound once to one (function_summaries).
  // `*enumerated` (optional) is set when a wrapper it looked through is enumerate().
  TSNode loop_source(const Loop& l, bool* enumerated = nullptr) const;
  // `x = x.cuda()` (or `x, y = x.to(d), y.to(d)`) in the function between `loop`'s start and `use`.
  bool rebound_to_device_copy(TSNode loop, TSNode use) const;
  // `.cuda(...)`, `.to(device)`, `.to("cuda")`, `.to(device=d)`: a move to a device, not a cast
  // (`.to(torch.float16)`).
  bool moves_to_device(const CallInfo& c) const;
  std::unordered_map<NodeKey, size_t, NodeKeyHash> loop_index;
  std::vector<TSNode> step_loop_nodes;
  std::vector<bool> marker_calls;  // per call: it is a training step (find_steps)

  // argparse
  std::vector<ArgOption> options;
  std::vector<std::pair<TSNode, TSNode>> returns;  // (function, return statement), lambdas excluded
  // The return statements of each function, indexed on first use.
  mutable std::optional<std::unordered_map<NodeKey, std::vector<TSNode>, NodeKeyHash>> returns_by_fn_;
  const std::vector<TSNode>& returns_of(TSNode fn) const;
  // What a wrapper of this file returns at `index` (-1: the whole result) when it forwards another
  // call's result: (the callee's qualname, its position in that result) for `callee` (`name` or
  // `self.name`, as called from `caller_fn`).
  std::vector<std::pair<std::string, int>> forwarded_results(TSNode callee, TSNode caller_fn, int index) const;
  // Past module moves (`.cuda()`, `.to(device)`) and wrappers that run the module they wrap (DDP,
  // DataParallel, torch.compile, FSDP): `DDP(Net().cuda())` -> `Net()`.
  TSNode past_moves_and_wrappers(TSNode v) const;
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
  const ModuleSummary* cuda_imported = nullptr;  // or from a project module this file imports
  // Or from the module of a step method the step calls by name (ProjectContext::step_method_cuda).
  const ModuleSummary* cuda_by_step = nullptr;
  // Functions of this file that another file's step runs (ProjectContext::step_entries), and per
  // function the entry that reaches it (-1: none).
  // Sibling modules whose function holds the step this file calls, with the call.
  std::vector<std::pair<const ModuleSummary*, TSNode>> step_siblings;
  std::vector<StepEntry> external;
  std::vector<int> fn_external;
  void link_external();
  // The dotted name of the imported class `callee` is an instance of (`net = DDP(Net().cuda())` with
  // `from models import Net` -> "models.Net"), or empty.
  std::string instance_qualname(TSNode callee, int depth = 0) const;
  std::string annotated_class(TSNode name) const;
  std::string argument_class(TSNode arg) const;
  std::string constructor_parameter_class(TSNode name) const;
  // The project class (as this file names it) of every module the container holds (for_each_element_of);
  // empty when they differ or one is not a project class's instance.
  std::string elements_class(TSNode container) const;
  // outgoing_target for a call of the step: it also types a module kept from a constructor's parameter
  // (constructor_parameter_class, which parses the importers: asked only here).
  std::string step_target(const CallInfo& c) const;
  // The name an importer gives this file's module (its stem), or empty for a package's __init__.py
  // and a __main__.py.
  std::string importable_stem() const;
  // The functions of the project that `e` may hold, called or handed on uncalled: one it names (of
  // another module, as this file's imports spell it, or of this file, by the module's stem), every
  // one a name is bound to (the bindings the defaults leave on), and for a parameter what the calls
  // that run its function hand it (this file's callers; another file's step, StepEntry::arg_functions).
  std::vector<std::string> handed_functions(TSNode e, int depth = 0) const;
  // The parameters (indices into params) function `fi` copies to the GPU: `x.cuda()`, `x.to(device)`.
  std::vector<int> copied_params(size_t fi) const;
  // Model::reaching_value.
  Reaching reaching(TSNode use) const;
  // Statement `stmt` may bind `name` in its scope, anywhere inside it (reaching).
  bool statement_binds(TSNode stmt, std::string_view name) const;
  mutable std::unordered_map<NodeKey, std::vector<std::string_view>, NodeKeyHash> bound_names_memo_;
  // ts::named_children of `parent`, kept for the model's life (reaching's statement lists).
  const std::vector<TSNode>& named_children_memo(TSNode parent) const;
  mutable std::unordered_map<NodeKey, std::vector<TSNode>, NodeKeyHash> children_memo_;
  // FunctionSummary::returns_cuda_device of function `fi`.
  bool returns_cuda_device(size_t fi) const;
  // A call of a project function that returns a CUDA device (`device = utils.get_device()`): the
  // script's CUDA evidence when it names none itself.
  void find_cuda_device_call();
  // The position of the `*args` parameter of `f` that a comprehension or loop binding `var` iterates,
  // or -1.
  int splat_iterated(const Function& f, TSNode var) const;
  // The step method a call is handed uncalled (`retry_call(model.train)`), as outgoing_target names it, or empty.
  std::string referenced_target(const CallInfo& c) const;
  // The class of this file that module-level function `function` returns an instance of, or empty.
  std::string factory_class(const std::string& function) const;
  // The class function `fi`'s returns build (FunctionSummary::returned_classes), for the value
  // (index -1) or element `index` of the tuples it returns; empty unless every such return agrees.
  std::string returned_class(size_t fi, int index) const;
  // ---- values on the host (host.cpp) ----
  // `.cpu()`, `.numpy()`, `.item()`, `.tolist()`, `.to("cpu")`: the result is on the host.
  bool host_copy_call(const CallInfo& c) const;
  // `.to("cpu")`, `.to(device=torch.device("cpu"))`: a copy to the host (moves_to_device says no).
  bool to_cpu(const CallInfo& c) const;
  // Function `fi` moves nothing to the GPU: no `.cuda()`, `.to(device)`, factory given a device.
  bool moves_nothing_to_device(size_t fi) const;
  // Every return of `fi` (element `index` of a tuple return; -1 for a plain one) is host_derived.
  bool returns_host(size_t fi, int index, int depth) const;
  // The function `c` runs (of this file, else of the project) returns a host value at `index`.
  bool call_returns_host(const CallInfo& c, int index, int depth) const;
  bool host_derived(TSNode e, int depth) const;
  // Every return of `fi` is a torch operation's result, directly or through a helper of this file.
  bool returns_torch_op(size_t fi, int depth) const;
  // Rollout loops whose update is only another file's (`agent.update(...)` of ppo.py).
  std::unordered_set<NodeKey, NodeKeyHash> foreign_rollouts;
  bool all_host(const std::vector<TSNode>& values, int depth) const;  // each one host_derived; some
  mutable int host_steps_ = 0;  // expressions host_derived looked at for the current question
  // A name bound in its function only by assignments and unpackings that are each host_derived.
  bool host_bindings(TSNode use, int depth) const;
  // The class an expression builds: ".Net" for `Net(...)` (or `Net.from_pretrained(...)`) with Net a
  // class of this file, the dotted name for an imported one, past module moves and wrappers; for a
  // name, what every assignment in `fn` gives it.
  std::string built_class(TSNode value, TSNode fn, int depth = 0) const;
  // returned_class of the project function `function` (a dotted name as this file's imports give
  // it), from its module's summary; empty without a project.
  std::string project_returned_class(const std::string& function, int index) const;
  // The calls whose innermost function is `fi` (indexed on first use).
  mutable std::optional<std::vector<std::vector<size_t>>> calls_by_fn_;
  const std::vector<size_t>& calls_in(size_t fi) const;
  // FunctionSummary::syncs: a host sync in function `fi` or, `depth` < 2, in a function of this
  // file it calls.
  bool function_syncs(size_t fi, int depth) const;
  mutable std::vector<int8_t> function_syncs_memo_;  // per (function, depth): -1 unknown, 0, 1
  // A dotted name that may be the project's (`utils.post_processing`): not rooted in a library
  // (torch, numpy, os, ...), and not a builtin's bare name.
  static bool project_qualname(std::string_view qualname);
  // The inner def that module-level function `function` returns (`def f(): def train(x): ...; return
  // train`), or SIZE_MAX.
  size_t returned_closure(std::string_view function) const;
  std::string parameter_class(TSNode name) const;
  // Each expression `callee` is assigned from, past module moves (`.cuda()`, `.to()`) and wrappers
  // that run the module they wrap (DDP, DataParallel, torch.compile, FSDP): `visit` gets the inner
  // call (`Net()`) or name; it returns true to stop.
  void for_each_built_from(TSNode callee, const std::function<bool(TSNode)>& visit) const;
  // The call runs a module wrapped in DataParallel (or a subclass, or DistributedDataParallel given its
  // device), which moves its inputs to the GPU before forward() runs.
  bool scatters_inputs(const CallInfo& c) const;
  // Where a per-step call out of the module goes: "models.Net.__call__", "misc.reduce_dict"; empty
  // when it stays in the file or goes to a library.
  std::string outgoing_target(const CallInfo& c) const;
  // A value that is a Python scalar on the host, never a tensor: a literal, `x.item()`, `float(...)`,
  // `len(...)`, an optimizer's `param_groups[i][key]`, arithmetic of those, a name only ever
  // assigned such values in its scope.
  bool host_scalar(TSNode e, int depth) const;
  // `e` names the tensor its function calls backward on (`loss.backward()`,
  // `scaler.scale(loss).backward()`, `accelerator.backward(loss)`), with no assignment to the name
  // between `e` and that backward.
  bool is_backward_target(TSNode e) const;
  struct BackwardTarget {
    uint32_t function;  // start byte of the function, UINT32_MAX at module level
    std::string_view name;
    uint32_t at;  // start byte of the backward call
  };
  mutable std::optional<std::vector<BackwardTarget>> backward_targets_;  // built on the first question
  // `isinstance(v, torch.Tensor)` / `torch.is_tensor(v)` among the frames: code that runs for tensors only.
  bool under_tensor_test(const Context& ctx) const;

  std::string_view t(TSNode n) const { return ts::text(n, text); }

  static ScopeName scope_key(TSNode function, std::string_view name) {
    return ScopeName{null(function) ? UINT32_MAX : ts_node_start_byte(function), name};
  }

  // ---- frames: what runs a node per iteration / under a condition ----------------------------
  // Frames `n` enters by being this child of `parent` (a loop body, an if's branch). `fid` is the
  // field of `n` in `parent` when the caller knows it (the walk's cursor), 0 otherwise.
  void push_entering(TSNode parent, TSNode n, TSFieldId fid, std::vector<Frame>& out) const;

  // Frames `n` (of kind `k`) creates for its descendants.
  static void push_inside(Sym k, TSNode n, std::vector<Frame>& out);

  // Whether a condition is an interval guard is decided on first use (guarded()), not here: most
  // files never ask (no training step), and the check walks the condition.
  Frame condition_frame(TSNode if_or_elif) const;

  mutable std::unordered_map<NodeKey, bool, NodeKeyHash> guard_cache;
  bool guarded(const Frame& f) const;

  // A branch that stops the loop or the program (`if not math.isfinite(loss.item()): print(...);
  // sys.exit(1)`, `raise`, `break`) runs at most once, not every step. Only the block's own
  // statements are looked at (no descent), so this stays O(statements) per `if`.
  bool ends_the_run(TSNode block) const;

  // The context of `self` from its ancestors (root first). Same result as the walk's frames.
  Context context_from_path(const std::vector<TSNode>& path, TSNode self) const;

  Context context_by_climbing(TSNode n) const;

  // `if step % 100 == 0`, `if (i + 1) % log_every == 0 and rank == 0`, `if i == 0`,
  // `if time.time() - last > 10`, `if should_log:`: code under it does not run every step. A name
  // whose every assignment in its scope is such a condition counts too (`reg = i % k == 0` then
  // `if reg:`); `depth` bounds that look-through.
  bool is_interval_guard(TSNode cond, int depth = 0) const;
  // A name bound only to arithmetic over a loop counter (`ni = i + nb * epoch`).
  bool counts_steps(TSNode id) const;

  // `if ema is None: ema = loss.item()` / `if not started: started = True`: the branch sets what it
  // tests, so it runs once (unless the loop around it resets the name to None/False). `if_node` is
  // the if statement, `cond` its condition.
  bool runs_once(TSNode if_node, TSNode cond) const;
  bool loaded_then_stored(TSNode if_node, TSNode cond) const;
  bool sample_membership(TSNode if_node, TSNode cond) const;

  // ---- names ----------------------------------------------------------------------------------
  // Iterative (an attribute chain can be as deep as the input) and one allocation per result.
  std::string qualname_of(TSNode n) const;

  void record_import(TSNode stmt, TSNode parent, const Context& ctx);
  // A name imported under conditions (`if args.arch == "stylegan2": from model import Generator`
  // / `elif args.arch == "swagan": from swagan import Generator`): each (local name, qualified name,
  // where). After the argparse options are known, the name means the last import whose branch the
  // defaults do not switch off (not simply the last one written), and the calls through it are
  // resolved again.
  struct ConditionalAlias {
    std::string_view local;
    std::string qualified;
    Context ctx;
  };
  std::vector<ConditionalAlias> conditional_aliases;
  void choose_conditional_imports();
  // A class or module picked by a name the file knows (a literal or an option's declared default):
  // `models.__dict__[args.arch]`, `getattr(models, args.arch)`, `MODELS[args.model]` of a dict
  // literal of imported names, `net = importlib.import_module(args.model)`. Resolved after the
  // options are known: the lookup (subscript or getattr call) -> the qualified name it picks, which
  // qualname_of reads as the root of attribute chains (`MODELS[k].Model`); a module imported by name
  // becomes an alias. The calls through them are resolved again.
  std::unordered_map<NodeKey, std::string, NodeKeyHash> picked_names;
  void resolve_name_lookups();
  std::string picked_name(TSNode lookup) const;

  // ---- calls ----------------------------------------------------------------------------------
  // The walk fills the callee, receiver, method and arguments as it passes them.
  void record_call(TSNode n, Context ctx);

  // After the walk: qualified names (imports are all known by then) and the CUDA evidence.
  void finish_calls();

  // 'cuda', "cuda:0", f"cuda:{rank}": the string's content is or starts with a CUDA device.
  static bool is_cuda_literal(std::string_view lit);
  bool lightning_gpu_trainer(const CallInfo& c) const;

  // A string whose content is or starts with a CUDA device is CUDA evidence (the first one counts).
  void note_cuda_string(TSNode string);

  static bool needs_context(Sym k);

  // Entries of a dict-valued name or expression, as (key, value, site) triples. False when unknown.
  bool device_test(TSNode cond) const;
  bool dict_entries(TSNode expr, TSNode function, std::vector<Argument>& out, int depth) const;

  void resolve_kwargs();

  // ---- values ---------------------------------------------------------------------------------
  Value eval(TSNode n, TSNode function, int depth) const;
  // `cfg.num_workers` where cfg is a config object whose fields are known statically: built by a
  // call to a class of this file with class-level defaults (a @dataclass, `field(default=...)`), a
  // keyword of that call, or a `SimpleNamespace(num_workers=0)`; `config["num_workers"]` of a dict
  // literal that nothing writes to. Unknown otherwise.
  Value config_value(TSNode object, std::string_view field_name, TSNode function, int depth) const;
  // config_value's instance of a class another project module defines (`opt = Config()`): the class's
  // class-level default, when the class has no __init__ or __post_init__.
  Value imported_instance_default(TSNode class_name, std::string_view field_name, bool from_cli) const;
  TSNode module_class(std::string_view name) const;
  // `args.x` where args comes from another module that parses the options (ProjectContext::option_default).
  Value imported_option(TSNode object, std::string_view dest, TSNode function) const;
  Value option_value(const ArgOption& option, int depth) const;
  // The default of option `dest` of the project module behind `source` (see ProjectContext::option_default).
  // `args.dest` for a parameter `args` that the importing scripts bind to their parsed options.
  Value caller_option(TSNode function, std::string_view param, std::string_view dest) const;
  static Value option_default_value(const std::optional<OptionDefault>& d, const std::string& module_path);
  // The value every call in the importing files passes for `param` of module-level `function`
  // (ProjectContext::argument_values), or its default where they leave it out; unknown otherwise.
  Value importers_argument(TSNode function, std::string_view param, int depth) const;
  // Two known values of the same kind and content.
  static bool same_value(const Value& l, const Value& r);
  // Module-level config trees (`_C = CN()` / `CfgNode()` / `ConfigDict()` / `EasyDict()` / `edict()`,
  // then `_C.TRAIN.SHUFFLE = True`): "_C.TRAIN.SHUFFLE" -> the value of its one module-level write, for
  // keys no function writes. Built on first use.
  const std::unordered_map<std::string, TSNode>& config_tree() const;
  mutable std::optional<std::unordered_map<std::string, TSNode>> config_tree_;
  mutable std::unordered_map<std::string_view, std::string_view> config_aliases_;  // name -> its tree's root
  // `config.TRAIN.SHUFFLE` (an attribute chain): its config-tree default, of this file's tree or of
  // another module's (`from config import config`); unknown otherwise.
  Value config_tree_value(TSNode chain, int depth) const;
  // Module-level constants (`NUM_WORKERS = 0`, bound once, directly in the module) and class-level
  // attributes of module-level classes used as namespaces (`class CFG: num_workers = 0`, as
  // "CFG.num_workers"), by name -> value, for those nothing in this file may change (a second
  // binding, `global`, `CFG.num_workers = ...`, setattr). Built on first use.
  const std::unordered_map<std::string, TSNode>& module_constants() const;
  mutable std::optional<std::unordered_map<std::string, TSNode>> module_constants_;
  // `CFG.num_workers` read through this file's class CFG itself (not an instance): its class-level
  // constant; unknown otherwise.
  Value class_constant(TSNode attribute, int depth) const;
  // `settings.NUM_WORKERS`, `NUM_WORKERS` (`from settings import NUM_WORKERS`), `CFG.num_workers`
  // (`from config import CFG`): a constant of another project module (ProjectContext::module_constant)
  // when the name is imported and not bound here; unknown otherwise.
  Value imported_constant(TSNode n) const;
  // Another project module's constant `qualified` (ProjectContext::module_constant), its note saying
  // "<what> of <file> (line N)" (`what` empty: the constant's own name).
  Value project_constant(const std::string& qualified, const std::string& what) const;
  Value project_option(const std::string& source, std::string_view dest, bool parser) const;
  // `config[dest]` where config is `vars(parser.parse_args())` (bound here, or handed in by the one
  // call of the function): the option's default, of this file's parser or a project function's.
  Value parsed_args_entry(TSNode object, std::string_view dest, TSNode function, int depth) const;
  mutable std::optional<std::unordered_map<std::string_view, TSNode>> module_classes_;  // by name, first use
  // Calls whose receiver (or setattr target) is a name, by that name (indices in calls), first use.
  mutable std::optional<std::unordered_map<std::string_view, std::vector<size_t>>> calls_on_;

  // Calls are recorded in pre-order, so their start bytes never decrease: binary search, then the
  // few calls starting at the same byte (`a.b().c()` and `a.b()`).
  size_t find_call(TSNode n) const;

  // The innermost function whose body holds `n` (functions are in pre-order), or null.
  TSNode function_containing(TSNode n) const;

  // The context of any node: its own when it is a call, else that of the innermost call around it
  // (a receiver or an argument runs where its call runs), else by climbing the parents.
  Context context_of(TSNode n) const;

  // The step loop whose batch `expr` is (rooted in one of its batch names), kExternalBatch for the
  // batch of another file's step handed to this function, or -1.
  int batch_loop(TSNode expr) const;

  const CallInfo* call_info(TSNode n) const;
  const Context* call_context(TSNode n) const;

  const ArgOption* find_option(std::string_view dest) const;

  void collect_argparse();

  // ---- training step --------------------------------------------------------------------------
  bool optimizer_like(TSNode recv) const;
  bool optimizer_like_uncached(TSNode recv) const;
  // optimizer_like depends on the expression's text only (a name, or a dotted attribute).
  mutable std::unordered_map<std::string_view, bool> optimizer_memo_;

  bool is_marker(const CallInfo& c) const;

  // Same-file function called by `c` (`f(...)`, `self.f(...)`), or -1 (first of that name).
  std::vector<size_t> callees(const CallInfo& c) const;
  bool autograd_function(TSNode cls) const;

  size_t function_index(TSNode fn) const;

  // Call graph inside the file, computed once after the walk.
  void link_calls();

  static bool frames_have_loop(const Context& ctx);
  static const Frame* innermost_loop(const Context& ctx);  // the last Loop frame, or null

  void find_steps();
  void find_rollout_loops();
  bool environment_step(const CallInfo& c) const;

  // The loop (by index) a node belongs to as "step": innermost step loop in its frames, or, inside
  // a step function, the step loop of an unguarded call site.
  struct StepWhere {
    int loop = -1;
    const Frame* guard = nullptr;
    int via_call = -1;  // reached through a call: the call site inside the step loop (calls index)
    int external = -1;  // reached from another file's step: index in `external` (loop is then -1)
    bool in() const { return loop >= 0 || external >= 0; }
  };

  StepWhere step_where(const Context& ctx, int depth = 0) const;
  // Frame `f` (inside step loop `loop`) is a branch on a parameter opposite to every step call of it.
  bool opposite_to_markers(const Frame& f, TSNode loop) const;
  // False when no node of the file can be step code: no step loop and nothing reached from another
  // file's step. Set after find_steps and link_external; most library files answer here at once.
  bool any_step = true;
  // The branch of frame `f` is off when the script runs with its argparse defaults (`if args.visdom:`
  // with `--visdom` False; the else of a flag defaulting to True). Cached per `if`: (then, else).
  bool flag_off(const Frame& f, TSNode function) const;
  // 1 / 0 when `condition` is a name (or `not` one) bound once in its scope (else the module's) to
  // True / False, not named for a device; -1 otherwise.
  int constant_truth(TSNode condition, TSNode function) const;
  // Some frame of `ctx` is such a branch: the code does not run in a default launch.
  bool switched_off(const Context& ctx) const {
    return std::any_of(ctx.frames.begin(), ctx.frames.end(), [&](const Frame& f) { return flag_off(f, ctx.function); });
  }
  mutable std::unordered_map<NodeKey, std::pair<bool, bool>, NodeKeyHash> flag_off_cache;
  // Switches the script trains only with: a flag off by default (`--do_train`, store_true) whose
  // `if` holds every step loop of the file is given whenever the script trains (BERT-NER's
  // run_ner.py raises without --do_train or --do_eval), so its branches are not taken for off.
  // Keyed by switch_key(); the `if` is kept for the note. Set by find_step_switches after
  // find_steps; flag_off consults them once set.
  struct StepSwitch {
    std::string key;
    TSNode statement;
  };
  std::vector<StepSwitch> step_switches;
  void find_step_switches();
  // "--do_train" for an option of this file's parser, else the condition's text (`args.do_train`
  // from another file's parser); empty when the condition is no plain flag.
  std::string switch_key(TSNode condition, const Value& v) const;
  // A branch of function `fi` that its parameters' defaults switch off, when no call that runs the
  // function passes them: `if augment:` with `augment=False`, the else of `if not reverse:` with
  // `reverse=False` (inference paths of a model's forward()).
  bool off_by_default(size_t fi, const Context& ctx) const;
  // The truth of parameter `param`'s default when no caller passes it (nullopt: passed, or unknown).
  std::optional<bool> parameter_default_truth(size_t fi, std::string_view param) const;
  std::optional<bool> parameter_default_truth_unguarded(size_t fi, std::string_view param) const;
  mutable std::vector<std::pair<size_t, std::string_view>> default_truths_asked_;  // being answered
  // The default value written for parameter `param` of function `fi`, or null.
  TSNode parameter_default(size_t fi, std::string_view param) const;
  // Every call of this file of the class whose __init__ is `init` passes `param` a value `ok(value,
  // calling function)` accepts, or nothing; false as well when a call's arguments are opaque.
  bool constructor_calls_pass(size_t init, std::string_view param, const std::function<bool(TSNode, TSNode)>& ok) const;
  // Where a call passes parameter `param` of `fn` positionally (a method's `self` is the receiver,
  // not an argument), or -1 when it is no parameter of it.
  static long call_position(const Function& fn, std::string_view param);
  // The entry of another file's step that runs function `fi` (link_external), or null.
  const StepEntry* entry_of(size_t fi) const {
    return fi < fn_external.size() && fn_external[fi] >= 0 ? &external[static_cast<size_t>(fn_external[fi])] : nullptr;
  }
  // Whether facts kept per argument of every call (StepEntry's loss_*, non_none_*) hold for `param`.
  static bool binds(const std::vector<uint32_t>& positions, const std::vector<std::string>& keywords,
                    const Function& fn, std::string_view param);
  // batch_loop's answer for the batch of another file's step loop, handed to a function of this
  // file (StepEntry::batch_positional): there is no loop of this file to name.
  static constexpr int kExternalBatch = -2;
  // `name` is such a batch: a parameter every call that runs the function binds to the step's batch,
  // or a field unpacked from one.
  bool external_batch(TSNode name) const;
  bool converts_itself(const Assign& a, std::string_view name) const;
  // `name` (a use in helper `fi`, not bound again before it) is a parameter that every call of this
  // file binds to a step loop's batch (`fwd_wrap(X, device)` with `X, T = batch`): DLRM's dlrm_wrap.
  bool helper_batch_parameter(size_t fi, TSNode name, int depth) const;
  // Per helper the step calls (not a step function): the names its body binds from a `next(...)`
  // draw and from those, in order (collect_loaders).
  std::unordered_map<size_t, std::vector<std::string_view>> drawn_batch_names;
  mutable int batch_loop_depth_ = 0;
  // Parameter `param` of function `fi` is bound to the batch by every call of other files' steps.
  bool batch_parameter(size_t fi, std::string_view param) const;
  // Code under an `if` that tests such a parameter.
  bool under_batch_test(size_t fi, const Context& ctx) const;
  // An assignment in `fn` (null: module level) with its statement in [lo, hi) binds `name`.
  bool assigned_between(TSNode fn, std::string_view name, uint32_t lo, uint32_t hi) const;
  // The truth of `p is None` / `p is not None` for a parameter `p` of function `fi` that only other
  // files' steps run, each call passing a value certainly not None (StepEntry::non_none_*).
  std::optional<bool> none_test_truth(size_t fi, TSNode cond) const;
  // The name of `fi`'s `**kwargs` parameter (empty: none).
  std::string_view kwargs_param(size_t fi) const;
  // The key of `name = kwargs.get("key", None)` in `fi`, bound once before `before` (empty: not one).
  std::string kwargs_key(size_t fi, TSNode name, TSNode before) const;
  // No call that runs `fi` with a step count passes `param` (and some such call is known).
  bool never_passed_by_steps(size_t fi, std::string_view param, bool keyword_only) const;
  // A call that starts in [lo, hi), or inside `expr`, moves a tensor to a device (`x.to(device)`).
  bool device_copy_between(uint32_t lo, uint32_t hi) const;
  bool device_copy_in(TSNode expr) const { return device_copy_between(ts_node_start_byte(expr), ts_node_end_byte(expr)); }
  // Call `call`, in batch loop `li`, hands argument `arg` the batch's device copy: something moved to a
  // device in the loop before the call (`target = target.cuda()`, then `f(target)`), or in `arg`
  // itself (`self.step(x.to(self.device))`).
  bool hands_device_copy(size_t li, const CallInfo& call, TSNode arg) const {
    return device_copy_between(ts_node_start_byte(loops[li].node), ts_node_start_byte(call.node)) || device_copy_in(arg);
  }
  // The same for `self.flag` set only from an __init__ parameter with a default.
  std::optional<bool> attribute_default_truth(TSNode attr) const;
  // The truth of parameter `param` of the __init__ `init_node` as the class is built in this file
  // (its default, unless a constructor call passes another value); nullopt when not known.
  std::optional<bool> constructor_parameter_truth(TSNode init_node, std::string_view param, int depth) const;
  mutable std::optional<std::unordered_map<std::string_view, std::vector<std::pair<TSNode, TSNode>>>>
      tuple_attribute_assigns_;
  // The step loop a function's callers run it in (the best over its call sites: unguarded first),
  // memoised per function; a function met again while its own answer is being computed (recursion)
  // answers "none".
  StepWhere function_step_where(size_t fi, int depth) const;
  mutable std::vector<int8_t> fn_step_state_;  // 0 unknown, 1 in progress, 2 done
  mutable std::vector<StepWhere> fn_step_value_;
  mutable std::unordered_map<std::string_view, std::string_view> instance_class_memo_;
  // `def train(model, ...)` ... `train(net, ...)`: the arguments the file's own calls of its functions
  // hand a parameter named `name` (a module-level function called by name, a method by `self.m(...)`),
  // until `visit` says stop.
  void for_each_bound_argument(std::string_view name, const std::function<bool(TSNode)>& visit) const;
  // `agent = make_agent(obs_shape, args, device)`: the class a module-level factory function of this
  // file returns an instance of (returned_class: ".Name" for a class of the file, else a project
  // qualname), or empty.
  std::string factory_made_class(TSNode call) const;
  // The target of a step loop over `range(...)` (`for step in range(args.num_train_steps):`): a step
  // count, not a batch (curl hands it to `agent.update(replay_buffer, L, step)`, which tests
  // `step % self.cpc_update_freq == 0`).
  bool step_counter(TSNode name) const;
  // `self.every` whose every assignment is `self.every = every` in an __init__ whose `every` defaults
  // to the literal 1 and that no constructor call of this file passes another value (curl's
  // `cpc_update_freq=1`): `step % self.every == 0` runs every step. Calls of other files are not
  // known: the default is assumed, as for attribute_default_truth.
  bool attribute_default_is_one(TSNode attr) const;
  // A class of this file that only wraps DataLoader: a DataLoader subclass whose __init__(self,
  // *args, [keyword-only...], **kwargs) hands exactly `*args, **kwargs` to DataLoader's __init__
  // (Speech-Transformer's AudioDataLoader, which only adds a collate_fn). Its calls take DataLoader's
  // arguments, so the loader rules read them as a DataLoader call's.
  bool forwards_to_dataloader(TSNode cls) const;
  // Calls of such classes (of this file, or of a project module through its summary) become
  // DataLoader calls: their qualname is DataLoader's. Only callees whose name says Loader.
  void retarget_loader_subclasses();
  // Visits the construction a parameter named `name` defaults to (`loss=NLLLoss()`), in every
  // function of the file that has one; stops when `visit` returns true.
  void for_each_parameter_default(std::string_view name, const std::function<bool(TSNode)>& visit) const;
  // Calls by the name they call: an identifier callee's text, or the method of a `self.m(...)` call.
  mutable std::optional<std::unordered_map<std::string_view, std::vector<size_t>>> calls_by_callee_name_;
  // Function indices by parameter name (`def f(self, loss=NLLLoss())`): asked per receiver by
  // for_each_parameter_default and for_each_bound_argument, which scanned every function's
  // parameters each time (quadratic on a long file). Built on first use.
  mutable std::optional<std::unordered_map<std::string_view, std::vector<size_t>>> functions_by_param_;
  const std::vector<size_t>& functions_with_param(std::string_view name) const;
  // `diffusion = Diffusion(...)`: the class of this file a name's value was built from (any class
  // with a method, not only modules), by the name's text.
  std::string_view object_class(TSNode receiver) const;
  // The X of each `next(X)` in loop `l` (X a name or an attribute), in order, until `visit` says stop.
  void for_each_next_source(const Loop& l, const std::function<bool(TSNode)>& visit) const;
  // The iterator a call draws the next item of: `next(it)` (also with a default), and the method
  // spellings `it.next()` (PyTorch < 1.13 loader iterators, Python 2 style) and `it.__next__()` on a
  // name bound from `iter(...)` or named for an iterator or a loader. Null for any other call.
  TSNode next_source(TSNode call) const;
  const Frame* early_return_guard(size_t fi) const;
  std::optional<Value> argument_value(TSNode function, std::string_view name, int depth) const;
  // When `name` is a parameter of `function`: the argument its one call passes and the function that
  // call sits in, or nulls when not known (several calls, a method, *args, rebound); else nullopt.
  std::optional<std::pair<TSNode, TSNode>> single_call_argument(TSNode function, std::string_view name) const;
  mutable std::vector<std::optional<Frame>> early_guards_;  // per function: Guard, or Condition for none
  mutable std::unordered_map<std::string_view, std::string_view> object_class_memo_;
  mutable std::unordered_map<std::string_view, std::string> instance_qualname_memo_;  // depth 0, by text
  mutable std::unordered_map<std::string_view, std::string> step_instance_qualname_memo_;  // the same, for step_target
  mutable bool typing_step_call_ = false;  // inside step_target
  // test / eval / evaluate / validate / val_epoch / inference / predict, and *_eval, *evaluat*: an
  // evaluation pass by its name.
  static bool evaluation_name(std::string_view name);
  // Function `fi` is an evaluation pass: named for one (evaluation_name), and looping over something
  // itself (`def validate(model, loader): for x, y in loader: ...`) or running a model without
  // gradients or in eval mode. A helper so named that does neither, `eval_metrics(output, target)` on
  // the step's own outputs, is per-batch work like any other.
  bool evaluation_pass(size_t fi) const;

  // ---- data loaders ---------------------------------------------------------------------------
  // The loader a step loop takes its batches from with `next(it)`, `it` made from the loader
  // (`iter(loader)`, `cycle(dl)`) or by a generator of this file that builds one; -1 when none.
  // `reiterated`: the loader reaches the loop through a generator of this file that iterates it again
  // and again (`while True: for x in loader: yield x`).
  // `*restarted`: the step loop itself builds the iterator again (`except StopIteration: diter =
  // iter(dl)`: BiSeNet), so each pass over the loader starts its workers again.
  int loader_behind_next(const Loop& l, TSNode* reiterated = nullptr, bool* restarted = nullptr) const;
  // The expression a loop iterates, unwrapped from enumerate/tqdm/iter/zip.
  TSNode iterable_base(TSNode e, bool* enumerated) const;

  // Calls into a sibling module's function that holds a training-step loop (engine.train_one_epoch)
  // are this file's training steps (they join step_loop_nodes), and a loader passed where that
  // loop iterates feeds it.

  void link_siblings();
  // A loader handed to a class or function of another project file whose training step iterates that
  // parameter (`BERTTrainer(bert, train_dataloader=loader)` where the trainer's step loop iterates
  // `self.train_data`): the loader feeds that step.
  void link_loader_consumers();

  static constexpr int kNotReturned = -2;

  // Where `fn` returns the local `name`: -1 alone (`return name`), i for the i-th item of a
  // returned tuple, kNotReturned when it does not.
  int returned_index(TSNode fn, std::string_view name) const;

  // The name the caller binds to `fn(...)`'s result (`x = fn()`; index i of `a, b = fn()`), or "".
  std::string bound_to_result(TSNode fn, int index) const;
  uint32_t yielded_from(TSNode fn, std::string_view name, bool& again) const;

  bool imports_module(std::string_view module) const;

  // `fn` is the Lightning hook `hook` (`def train_dataloader(self)`): a method of a class deriving
  // from LightningModule / LightningDataModule, or of any class in a file that imports Lightning.
  bool lightning_hook(TSNode fn, std::string_view hook) const;

  static bool loader_named(const DataLoaderInfo& d, std::string_view name);

  // accelerate: `model, opt, dl = accelerator.prepare(model, opt, loader)` (or
  // `dl = accelerator.prepare_data_loader(loader)`) binds the prepared loader to a new name.
  void link_prepared_loaders();

  void collect_loaders();
  // A loader kept in `self.<attribute>` by a method `fn` of a wrapper class (pix2pixHD's and
  // CycleGAN's CustomDatasetDataLoader): fed to the step when another module's step loop iterates
  // the wrapper (its __iter__ runs over the loader) or what one of its methods returns (`load_data()`
  // returning the loader, or the wrapper itself). Sets d's step fields; false when nothing does.
  bool link_wrapped_loader(DataLoaderInfo& d, TSNode fn, std::string_view attribute);
  // A loader of this file fed to another file's step (`stepper`): that file's CUDA (or the CUDA of a
  // module it imports) is this file's, when this file shows none of its own.
  void adopt_importer_cuda(const ModuleSummary* stepper);

  // ---- the walk -------------------------------------------------------------------------------
  // Pre-order over every node with a TSTreeCursor (no recursion). Frames are kept incrementally:
  // each level remembers how many frames existed before it, and leaving it restores that.
  void build(TSNode root, const std::vector<std::string>& wanted);
  TSNode root_node{};  // the module

  // An argument `n` (of kind `k`) of call `c`, in the order written; `list` is the argument list.
  void add_argument(CallInfo& c, TSNode n, Sym k, TSNode list);

  // Out of line: inlined into the walk, its locals would make every node's visit pay for the few
  // that record something.
  [[gnu::noinline]] void visit(TSNode n, Sym k, TSNode parent, Context ctx);
};

}  // namespace perflint
