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

// What statement_bound_names does at a node, by grammar symbol (the table compares names once,
// so that aliases and keyword tokens named like a kind answer as their name does).
enum class BindKind : uint8_t {
  None,
  Target,       // assignment, augmented_assignment, for_statement: the left side's names
  Walrus,       // named_expression: its name
  Scope,        // function_definition, class_definition: its name, and nothing inside
  Lambda,       // nothing inside
  Mentions,     // global, del, import, except/with `as`, case: every name it mentions
  Expression,   // an expression: only a walrus, `as` or lambda can lie below it (see below)
};

const std::vector<BindKind>& bind_kinds() {
  static const std::vector<BindKind> table = [] {
    const TSLanguage* lang = ts::python_language();
    std::vector<BindKind> t(ts_language_symbol_count(lang), BindKind::None);
    constexpr std::string_view expressions[] = {
        "call", "argument_list", "attribute", "subscript", "slice", "binary_operator", "comparison_operator",
        "boolean_operator", "not_operator", "unary_operator", "conditional_expression", "await", "tuple", "list",
        "set", "dictionary", "pair", "list_comprehension", "set_comprehension", "dictionary_comprehension",
        "generator_expression", "for_in_clause", "if_clause", "parenthesized_expression", "expression_list",
        "keyword_argument", "list_splat", "dictionary_splat", "string", "concatenated_string", "interpolation"};
    for (uint32_t i = 0; i < t.size(); ++i) {
      const std::string_view k = ts_language_symbol_name(lang, static_cast<TSSymbol>(i));
      if (k == "assignment" || k == "augmented_assignment" || k == "for_statement") t[i] = BindKind::Target;
      else if (k == "named_expression") t[i] = BindKind::Walrus;
      else if (k == "function_definition" || k == "class_definition") t[i] = BindKind::Scope;
      else if (k == "lambda") t[i] = BindKind::Lambda;
      else if (k == "global_statement" || k == "nonlocal_statement" || k == "delete_statement" ||
               k == "import_statement" || k == "import_from_statement" || k == "future_import_statement" ||
               k == "except_clause" || k == "with_item" || k == "as_pattern" || k == "case_clause")
        t[i] = BindKind::Mentions;
      else if (ts_language_symbol_type(lang, static_cast<TSSymbol>(i)) == TSSymbolTypeRegular &&
               std::find(std::begin(expressions), std::end(expressions), k) != std::end(expressions))
        t[i] = BindKind::Expression;
    }
    return t;
  }();
  return table;
}

// The keyword `as` somewhere in `s` (a name's letters never count).
bool mentions_as(std::string_view s) {
  for (size_t at = s.find("as"); at != std::string_view::npos; at = s.find("as", at + 1))
    if ((at == 0 || !is_ascii_name_byte(s[at - 1])) && (at + 2 == s.size() || !is_ascii_name_byte(s[at + 2])))
      return true;
  return false;
}

// Every name statement `stmt` may bind in the current scope, anywhere inside it. Forms we do not
// read precisely (global, del, import, except/with `as`) count every name they mention.
std::vector<std::string_view> statement_bound_names(std::string_view src, TSNode stmt) {
  std::vector<std::string_view> out;
  const std::vector<BindKind>& kinds = bind_kinds();
  ts::walk(stmt, [&](TSNode n) {
    const TSSymbol s = ts_node_symbol(n);
    switch (s < kinds.size() ? kinds[s] : BindKind::None) {
      case BindKind::Target:
        target_names(src, field(n, "left"), out);
        break;
      case BindKind::Walrus:
        out.push_back(ts::text(field(n, "name"), src));
        break;
      case BindKind::Scope:
        out.push_back(ts::text(field(n, "name"), src));
        return false;  // a scope of its own
      case BindKind::Lambda:
        return false;
      case BindKind::Mentions:
        ts::walk(n, [&](TSNode id) {
          if (is(id, "identifier")) out.push_back(ts::text(id, src));
          return !is(id, "block");
        });
        break;
      case BindKind::Expression: {
        // Below an expression only a walrus (`:=`) or an `as` pattern binds (a lambda binds nothing
        // here): without either in its text, none of its nodes adds a name. Error recovery may put
        // anything below a node, so one with an error is walked.
        const std::string_view body = ts::text(n, src);
        return body.find(":=") != std::string_view::npos || mentions_as(body) || ts_node_has_error(n);
      }
      case BindKind::None:
        break;
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
