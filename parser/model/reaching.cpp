// Semantic model of one Python file, part: Reaching: what a plain name holds where it is read, walking back over
// the statements that run before the use (Model::reaching_value).
#include "parser/model/impl.hpp"

namespace perflint {

namespace {

// True when `target` (an assignment's or a for loop's left side) binds `name` itself; `x[i] = v`
// and `x.a = v` do not rebind x.
bool target_binds(std::string_view src, TSNode target, std::string_view name) {
  std::vector<TSNode> todo{target};
  for (int budget = 0; !todo.empty() && budget < 256; ++budget) {
    TSNode n = todo.back();
    todo.pop_back();
    if (is(n, "identifier")) {
      if (ts::text(n, src) == name) return true;
    } else if (is(n, "pattern_list") || is(n, "tuple_pattern") || is(n, "list_pattern") || is(n, "tuple") ||
               is(n, "list") || is(n, "parenthesized_expression") || is(n, "list_splat_pattern") ||
               is(n, "list_splat")) {
      for (TSNode c : ts::named_children(n)) todo.push_back(c);
    }
  }
  return false;
}

// True when statement `stmt` may bind `name` in the current scope, anywhere inside it. Forms we do
// not read precisely (global, del, import, except/with `as`) count when they mention the name.
bool statement_binds(std::string_view src, TSNode stmt, std::string_view name) {
  bool binds = false;
  ts::walk(stmt, [&](TSNode n) {
    if (binds) return false;
    const std::string_view k = ts::kind(n);
    if (k == "assignment" || k == "augmented_assignment" || k == "for_statement") {
      binds = target_binds(src, field(n, "left"), name);
    } else if (k == "named_expression") {
      binds = ts::text(field(n, "name"), src) == name;
    } else if (k == "function_definition" || k == "class_definition") {
      binds = ts::text(field(n, "name"), src) == name;
      return false;  // a scope of its own
    } else if (k == "lambda") {
      return false;
    } else if (k == "global_statement" || k == "nonlocal_statement" || k == "delete_statement" ||
               k == "import_statement" || k == "import_from_statement" || k == "future_import_statement" ||
               k == "except_clause" || k == "with_item" || k == "as_pattern" || k == "case_clause") {
      ts::walk(n, [&](TSNode id) {
        if (is(id, "identifier") && ts::text(id, src) == name) binds = true;
        return !binds && !is(id, "block");
      });
    }
    return !binds;
  });
  return binds;
}

}  // namespace

Model::Reaching Model::reaching_value(TSNode use) const { return impl_->reaching(use); }

Model::Reaching Model::Impl::reaching(TSNode use) const {
  const std::string_view src = text;
  if (!is(use, "identifier")) return {};
  const std::string_view name = ts::text(use, src);
  // The statement around `use`; a comprehension or lambda on the way may bind the name itself.
  TSNode stmt = use;
  for (int guard = 0; guard < 256; ++guard) {
    TSNode p = ts::parent(stmt);
    if (ts_node_is_null(p)) return {};
    const std::string_view k = ts::kind(p);
    if (k == "block" || k == "module") break;
    if (k == "lambda" || k == "list_comprehension" || k == "set_comprehension" || k == "dictionary_comprehension" ||
        k == "generator_expression")
      return {};
    stmt = p;
  }
  for (int guard = 0; guard < 64; ++guard) {
    for (TSNode s = ts_node_prev_named_sibling(stmt); !ts_node_is_null(s); s = ts_node_prev_named_sibling(s)) {
      if (is(s, "comment") || !statement_binds(src, s, name)) continue;
      // The nearest binding: only a plain assignment at this level is certain.
      if (!is(s, "expression_statement") || ts_node_named_child_count(s) != 1) return {};
      TSNode a = ts_node_named_child(s, 0);
      if (!is(a, "assignment")) return {};
      TSNode left = field(a, "left"), right = field(a, "right");
      if (ts_node_is_null(right) || is(right, "assignment")) return {};  // `a = b = v`
      if (is(left, "identifier")) return ts::text(left, src) == name ? Reaching{right, s} : Reaching{};
      if (!(is(left, "pattern_list") || is(left, "tuple_pattern")) ||
          !(is(right, "expression_list") || is(right, "tuple")))
        return {};
      const auto targets = ts::named_children(left), values = ts::named_children(right);
      if (targets.size() != values.size()) return {};
      for (size_t i = 0; i < targets.size(); ++i)
        if (is(targets[i], "list_splat_pattern") || is(values[i], "list_splat")) return {};
      for (size_t i = 0; i < targets.size(); ++i)
        if (is(targets[i], "identifier") && ts::text(targets[i], src) == name) return {values[i], s};
      return {};
    }
    // Out of this block: into the compound statement that holds it.
    TSNode block = ts::parent(stmt);
    if (!is(block, "block")) return {};  // the module's top: nothing bound before
    TSNode holder = ts::parent(block);
    if (is(holder, "elif_clause") || is(holder, "else_clause") || is(holder, "except_clause") ||
        is(holder, "finally_clause") || is(holder, "case_clause"))
      holder = ts::parent(holder);
    if (is(holder, "block")) holder = ts::parent(holder);  // `match` cases sit in a block
    if (ts_node_is_null(holder) || is(holder, "function_definition") || is(holder, "class_definition") ||
        is(holder, "module"))
      return {};
    // An `if` runs one branch, after its condition; any other compound statement (a loop's earlier
    // iterations, a `try` body before its handler, `with ... as`) may have bound the name already.
    if (!is(holder, "if_statement") && statement_binds(src, holder, name)) return {};
    if (!is(ts::parent(holder), "block") && !is(ts::parent(holder), "module")) return {};
    stmt = holder;
  }
  return {};
}


}  // namespace perflint
