// Name-following helpers for the attention rules: cheap walks over one function at a time.
#include "rules/attention/attention_util.hpp"

#include <algorithm>

#include "parser/ts.hpp"

namespace perflint {

TSNode unparen(TSNode n) {
  while (ts::is(n, "parenthesized_expression") && ts_node_named_child_count(n) > 0) n = ts_node_named_child(n, 0);
  return n;
}

TSNode scope_of(const Model& model, TSNode node) {
  TSNode f = model.enclosing(node, "function_definition");
  if (!ts_node_is_null(f)) return f;
  TSNode n = node;
  while (!ts_node_is_null(ts::parent(n))) n = ts::parent(n);
  return n;
}

std::vector<TSNode> values_assigned_before(const Model& model, std::string_view name, TSNode use) {
  std::vector<std::pair<uint32_t, TSNode>> found;
  const TSNode fn = model.enclosing(use, "function_definition");
  const uint32_t before = ts_node_start_byte(use);
  for (TSNode a : model.nodes_of_kind("assignment")) {
    if (ts_node_start_byte(a) >= before) continue;
    TSNode left = ts::field(a, "left");
    if (!ts::is(left, "identifier") || model.text(left) != name) continue;
    if (!ts::same(model.enclosing(a, "function_definition"), fn)) continue;
    TSNode right = ts::field(a, "right");
    if (!ts_node_is_null(right)) found.emplace_back(ts_node_start_byte(a), right);
  }
  std::sort(found.begin(), found.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
  std::vector<TSNode> out;
  for (const auto& f : found) out.push_back(f.second);
  return out;
}

bool read_after(const Model& model, std::string_view name, TSNode scope, uint32_t after) {
  bool seen = false;
  ts::walk(scope, [&](TSNode n) {
    if (seen || ts_node_end_byte(n) <= after) return false;
    if (!ts::is(n, "identifier") || ts_node_start_byte(n) < after || model.text(n) != name) return true;
    TSNode parent = ts::parent(n);
    // `obj.name` is an attribute, not the local; `name = ...` (or a loop target) writes it.
    if (ts::is(parent, "attribute") && ts::same(ts::field(parent, "attribute"), n)) return false;
    if (ts::is(parent, "keyword_argument") && ts::same(ts::field(parent, "name"), n)) return false;
    if (ts::is(parent, "assignment") && ts::same(ts::field(parent, "left"), n)) return false;
    seen = true;
    return false;
  });
  return seen;
}

TSNode statement_of(TSNode node) {
  TSNode n = node;
  for (TSNode p = ts::parent(n); !ts_node_is_null(p); n = p, p = ts::parent(p)) {
    const std::string_view k = ts::kind(n);
    if (k == "assignment" || k == "augmented_assignment" || k == "return_statement" || k == "expression_statement")
      return n;
    if (k == "block" || k == "module") break;
  }
  return n;
}

}  // namespace perflint
