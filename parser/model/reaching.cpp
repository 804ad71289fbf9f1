// Semantic model of one Python file, part: Reaching: what a plain name holds where it is read, walking back over
// the statements that run before the use (Model::reaching_value).
#include "parser/model/impl.hpp"

namespace perflint {

namespace {

// The names `target` (an assignment's or a for loop's left side) binds itself, appended to `out`;
// `x[i] = v` and `x.a = v` do not rebind x.
void target_names(std::string_view src, TSNode target, std::vector<std::string_view>& out) {
  std::vector<TSNode> todo{target};
  for (int budget = 0; !todo.empty() && budget < 256; ++budget) {
    TSNode n = todo.back();
    todo.pop_back();
    if (is(n, "identifier")) {
      out.push_back(ts::text(n, src));
    } else if (is(n, "pattern_list") || is(n, "tuple_pattern") || is(n, "list_pattern") || is(n, "tuple") ||
               is(n, "list") || is(n, "parenthesized_expression") || is(n, "list_splat_pattern") ||
               is(n, "list_splat")) {
      for (TSNode c : ts::named_children(n)) todo.push_back(c);
    }
  }
}

// Every name statement `stmt` may bind in the current scope, anywhere inside it. Forms we do not
// read precisely (global, del, import, except/with `as`) count every name they mention.
std::vector<std::string_view> statement_bound_names(std::string_view src, TSNode stmt) {
  std::vector<std::string_view> out;
  ts::walk(stmt, [&](TSNode n) {
    const std::string_view k = ts::kind(n);
    if (k == "assignment" || k == "augmented_assignment" || k == "for_statement") {
      target_names(src, field(n, "left"), out);
    } else if (k == "named_expression") {
      out.push_back(ts::text(field(n, "name"), src));
    } else if (k == "function_definition" || k == "class_definition") {
      out.push_back(ts::text(field(n, "name"), src));
      return false;  // a scope of its own
    } else if (k == "lambda") {
      return false;
    } else if (k == "global_statement" || k == "nonlocal_statement" || k == "delete_statement" ||
               k == "import_statement" || k == "import_from_statement" || k == "future_import_statement" ||
               k == "except_clause" || k == "with_item" || k == "as_pattern" || k == "case_clause") {
      ts::walk(n, [&](TSNode id) {
        if (is(id, "identifier")) out.push_back(ts::text(id, src));
        return !is(id, "block");
      });
    }
    return true;
  });
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace

Model::Reaching Model::reaching_value(TSNode use) const { return impl_->reaching(use); }

bool Model::Impl::statement_binds(TSNode stmt, std::string_view name) const {
  // Memoised per statement: reaching asks about the same earlier statements for every use below them.
  auto [it, fresh] = bound_names_memo_.try_emplace(key(stmt));
  if (fresh) it->second = statement_bound_names(text, stmt);
  return std::binary_search(it->second.begin(), it->second.end(), name);
}

const std::vector<TSNode>& Model::Impl::named_children_memo(TSNode parent) const {
  auto [it, fresh] = children_memo_.try_emplace(key(parent));
  if (fresh) it->second = ts::named_children(parent);
  return it->second;
}

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
    // The statements before `stmt` in its block, nearest first.
    const std::vector<TSNode>& level = named_children_memo(ts::parent(stmt));
    size_t at = level.size();
    for (size_t i = 0; i < level.size(); ++i)
      if (ts::same(level[i], stmt)) at = i;
    if (at == level.size()) return {};
    while (at-- > 0) {
      const TSNode s = level[at];
      if (is(s, "comment") || !statement_binds(s, name)) continue;
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
    if (!is(holder, "if_statement") && statement_binds(holder, name)) return {};
    if (!is(ts::parent(holder), "block") && !is(ts::parent(holder), "module")) return {};
    stmt = holder;
  }
  return {};
}


}  // namespace perflint
