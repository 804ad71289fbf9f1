// Fix building blocks (see fix_util.hpp). Positions come from the tree; the text between them is
// copied, never re-printed, so comments and spacing survive.
#include "rules/fix_util.hpp"

#include "parser/ts.hpp"

namespace perflint::fixes {

Edit make_edit(const SourceFile& source, uint32_t start, uint32_t end, std::string replacement) {
  return Edit{start, end, std::move(replacement), source.position(start), source.position(end)};
}

Edit replace_node(const SourceFile& source, TSNode node, std::string replacement) {
  return make_edit(source, ts_node_start_byte(node), ts_node_end_byte(node), std::move(replacement));
}

std::string_view line_ending(std::string_view text) {
  const size_t nl = text.find('\n');
  return nl != std::string_view::npos && nl > 0 && text[nl - 1] == '\r' ? "\r\n" : "\n";
}

char dominant_quote(std::string_view t) {
  // A small scanner: skips comments and the bodies of strings (escapes, triple quotes) so that an
  // apostrophe inside a double-quoted string or a comment is not counted.
  size_t single = 0, dbl = 0;
  size_t i = 0;
  while (i < t.size()) {
    const char c = t[i];
    if (c == '#') {
      while (i < t.size() && t[i] != '\n') ++i;
      continue;
    }
    if (c != '\'' && c != '"') {
      ++i;
      continue;
    }
    (c == '\'' ? single : dbl) += 1;
    const bool triple = i + 2 < t.size() && t[i + 1] == c && t[i + 2] == c;
    i += triple ? 3 : 1;
    while (i < t.size()) {
      if (t[i] == '\\') {
        i += 2;
        continue;
      }
      if (t[i] == c && (!triple || (i + 2 < t.size() && t[i + 1] == c && t[i + 2] == c))) {
        i += triple ? 3 : 1;
        break;
      }
      if (!triple && t[i] == '\n') break;  // unterminated: stop at the end of the line
      ++i;
    }
  }
  return single > dbl ? '\'' : '"';
}

TSNode literal_argument(const CallInfo& call, TSNode value, std::string_view literal_kind) {
  if (ts_node_is_null(value) || !ts::is(value, literal_kind)) return TSNode{};
  for (const Argument& a : call.keywords)
    if (ts::same(a.value, value) && !ts_node_is_null(a.via_dict)) return TSNode{};
  // Only a node inside this call's own argument list: never a dict entry written elsewhere.
  TSNode args = ts::field(call.node, "arguments");
  if (ts_node_is_null(args) || ts_node_start_byte(value) < ts_node_start_byte(args) ||
      ts_node_end_byte(value) > ts_node_end_byte(args))
    return TSNode{};
  return value;
}

namespace {

// Start of the line holding `at`, and whether only blanks precede `at` on it.
uint32_t line_begin(std::string_view t, uint32_t at) {
  uint32_t b = at;
  while (b > 0 && t[b - 1] != '\n' && t[b - 1] != '\r') --b;
  return b;
}

bool only_blanks(std::string_view s) { return s.find_first_not_of(" \t\f") == std::string_view::npos; }

// End of the line holding `at` (before its terminator).
uint32_t line_end(std::string_view t, uint32_t at) {
  uint32_t e = at;
  while (e < t.size() && t[e] != '\n' && t[e] != '\r') ++e;
  return e;
}

}  // namespace

std::optional<Edit> add_keywords(const Model& model, const CallInfo& call,
                                 const std::vector<std::pair<std::string_view, std::string_view>>& keywords) {
  if (keywords.empty()) return std::nullopt;
  TSNode args = ts::field(call.node, "arguments");
  if (!ts::is(args, "argument_list") || ts_node_has_error(args)) return std::nullopt;
  const SourceFile& src = model.source();
  const std::string_view t = src.text();

  std::string kw;
  for (const auto& [name, value] : keywords) kw.append(kw.empty() ? "" : ", ").append(name).append("=").append(value);

  // The last argument (comments are named children too) and a comma after it.
  TSNode last{};
  TSNode comma{};
  const uint32_t n = ts_node_child_count(args);
  for (uint32_t i = 0; i < n; ++i) {
    TSNode c = ts_node_child(args, i);
    if (ts::is(c, "comment")) continue;
    if (ts_node_is_named(c)) {
      last = c;
      comma = TSNode{};
    } else if (ts::is(c, ",") && !ts_node_is_null(last)) {
      comma = c;
    }
  }
  TSNode close = ts_node_child(args, n - 1);
  if (!ts::is(close, ")") || ts_node_is_missing(close)) return std::nullopt;

  if (ts_node_is_null(last)) {
    // `f()` -> `f(k=v)`: right after the parenthesis, ahead of any comment inside.
    const uint32_t at = ts_node_start_byte(args) + 1;
    return make_edit(src, at, at, kw);
  }
  const bool trailing = !ts_node_is_null(comma);
  const uint32_t last_start = ts_node_start_byte(last);
  const uint32_t after = trailing ? ts_node_end_byte(comma) : ts_node_end_byte(last);
  const uint32_t bol = line_begin(t, last_start);
  const bool own_line = only_blanks(t.substr(bol, last_start - bol)) && bol > ts_node_start_byte(args);
  const uint32_t eol = line_end(t, after);
  if (own_line && ts_node_start_byte(close) > eol) {
    // One argument per line: a new line with the same indentation, after any comment on the line.
    const std::string indent(t.substr(bol, last_start - bol));
    std::string eol_text = "\n";
    if (eol < t.size() && t[eol] == '\r') eol_text = eol + 1 < t.size() && t[eol + 1] == '\n' ? "\r\n" : "\r";
    const uint32_t from = trailing ? eol : ts_node_end_byte(last);
    std::string rep = trailing ? std::string() : "," + std::string(t.substr(from, eol - from));
    rep += eol_text + indent + kw + (trailing ? "," : "");
    return make_edit(src, from, eol, std::move(rep));
  }
  if (trailing) return make_edit(src, after, after, " " + kw + ",");
  return make_edit(src, after, after, ", " + kw);
}

}  // namespace perflint::fixes
