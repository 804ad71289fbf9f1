// RAII wrappers over the tree-sitter C API (parser, tree, query, cursor) and small node helpers.
// Rule code never calls ts_*_delete; query predicates (#eq?, #not-eq?, #match?, #not-match?,
// #any-of?) are evaluated here because the C library only parses them.
#pragma once
#include <tree_sitter/api.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <new>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include "parser/expected.hpp"
#include "parser/ts_walk.h"

namespace perflint::ts {

const TSLanguage* python_language();

struct TreeDeleter { void operator()(TSTree* t) const { ts_tree_delete(t); } };
struct ParserDeleter { void operator()(TSParser* p) const { ts_parser_delete(p); } };
struct QueryDeleter { void operator()(TSQuery* q) const { ts_query_delete(q); } };
struct CursorDeleter { void operator()(TSQueryCursor* c) const { ts_query_cursor_delete(c); } };

class Tree {
 public:
  Tree() = default;
  explicit Tree(TSTree* t) : tree_(t) {}
  TSNode root() const { return ts_tree_root_node(tree_.get()); }
  explicit operator bool() const { return tree_ != nullptr; }

 private:
  std::unique_ptr<TSTree, TreeDeleter> tree_;
};

// One parser per thread (TSParser is not thread-safe); cheap to keep and reuse.
class Parser {
 public:
  Parser();
  Tree parse(std::string_view text);

 private:
  std::unique_ptr<TSParser, ParserDeleter> parser_;
};

// ---- node helpers -------------------------------------------------------------------------
inline std::string_view kind(TSNode n) { return ts_node_type(n); }
// Compares without measuring the node's type name first: most checks fail on the first character.
inline bool is(TSNode n, std::string_view k) {
  if (ts_node_is_null(n)) return false;
  const char* t = ts_node_type(n);
  return !k.empty() && t[0] == k[0] && std::strncmp(t, k.data(), k.size()) == 0 && t[k.size()] == '\0';
}
inline std::string_view text(TSNode n, std::string_view src) {
  if (ts_node_is_null(n)) return {};  // a field that error recovery left out (found by fuzzing and FixEverywhere)
  const uint32_t s = ts_node_start_byte(n), e = ts_node_end_byte(n);
  return s <= e && e <= src.size() ? src.substr(s, e - s) : std::string_view{};
}
// Field ids by name, looked up in a table built once (ts_language_field_id_for_name scans linearly).
TSFieldId field_id(std::string_view name);
inline TSNode field(TSNode n, const char* name) { return ts_node_child_by_field_id(n, field_id(name)); }
inline bool same(TSNode a, TSNode b) { return ts_node_eq(a, b); }
std::vector<TSNode> named_children(TSNode n);

// Parents. ts_node_parent descends from the root on every call, so climbing d levels from a node
// costs d descents. While a ParentCache for the node's tree is alive on this thread, parent()
// remembers the ancestor chain of the last node it descended to: climbing from that node, or from
// any of its ancestors, costs a short search instead of a descent. Without one, parent() is
// ts_node_parent. The model keeps one for its tree (rules run while it lives).
class ParentCache {
 public:
  explicit ParentCache(const TSTree* tree);
  ~ParentCache();
  ParentCache(const ParentCache&) = delete;
  ParentCache& operator=(const ParentCache&) = delete;

 private:
  friend TSNode parent(TSNode n);
  TSNode parent_of(TSNode n);
  const TSTree* tree_;
  const void* last_ = nullptr;  // the node whose chain is kept
  std::vector<TSNode> chain_;   // its ancestors, the root first
};
TSNode parent(TSNode n);
// The ancestors of `n`, its root first, `n` left out (empty for the root).
std::vector<TSNode> ancestors(TSNode n);

// Pre-order walk without recursion (parser/ts_walk.h); depth of the input never touches the C stack.
// The visitor returns false to skip a node's children. A template: the hot walks (the model's
// statement scans) call their visitor inline, without a std::function per node.
template <class Visit>
void walk(TSNode root, Visit&& visit) {
  // A missing field (error recovery leaves `for_in_clause` without a left side) walks nothing.
  if (ts_node_is_null(root)) return;
  const std::unique_ptr<PflWalker, decltype(&pfl_walker_delete)> w(pfl_walker_new(root), &pfl_walker_delete);
  if (!w) throw std::bad_alloc();
  bool descend = visit(root);
  while (pfl_walker_next(w.get(), descend) != PFL_WALK_DONE) descend = visit(pfl_walker_node(w.get()));
}

// ---- queries ------------------------------------------------------------------------------
struct Capture {
  std::string_view name;
  TSNode node;
};
struct Match {
  uint32_t pattern = 0;
  std::vector<Capture> captures;
  // First node captured as `name`, or a null node.
  TSNode get(std::string_view name) const;
};

class Query {
 public:
  // Compile errors come back as a message with line, column and a caret under the offset.
  static Expected<Query> compile(std::string_view source);
  // Matches under `node` whose predicates hold, in document order.
  std::vector<Match> matches(TSNode node, std::string_view src) const;
  uint32_t capture_count() const;

 private:
  struct Predicate {
    enum class Op { Eq, NotEq, Match, NotMatch, AnyOf, NotAnyOf } op;
    uint32_t capture = 0;
    // Second operand: another capture (`capture_rhs`) or literal strings.
    bool rhs_is_capture = false;
    uint32_t capture_rhs = 0;
    std::vector<std::string> literals;
    std::shared_ptr<std::regex> regex;
  };
  bool holds(const TSQueryMatch& m, std::string_view src) const;

  std::shared_ptr<TSQuery> query_;
  std::vector<std::vector<Predicate>> predicates_;  // per pattern
};

}  // namespace perflint::ts
