// See toml_read.hpp.
#include "util/toml_read.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <sstream>
#include <utility>
#include <vector>

namespace perflint {

Error toml_error_at(const std::string& path, const toml::source_region& where, const std::string& message) {
  std::ostringstream os;
  os << path;
  if (where.begin.line > 0) os << ':' << where.begin.line << ':' << where.begin.column;
  os << ": " << message;
  return make_error(os.str());
}

namespace {

// Length of the UTF-8 sequence at `i` (RFC 3629: no overlong forms, no surrogates, at most
// U+10FFFF), or 0 when the bytes there are not one.
size_t utf8_length(std::string_view t, size_t i) {
  const auto b = [&](size_t k) { return k < t.size() ? static_cast<unsigned char>(t[k]) : 0u; };
  const unsigned c = b(i);
  auto cont = [&](size_t k) { return (b(k) & 0xC0u) == 0x80u; };
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) return cont(i + 1) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    const unsigned lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
    return b(i + 1) >= lo && b(i + 1) <= hi && cont(i + 2) ? 3 : 0;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    const unsigned lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
    return b(i + 1) >= lo && b(i + 1) <= hi && cont(i + 2) && cont(i + 3) ? 4 : 0;
  }
  return 0;
}

// A backslash and the character it escapes (just the backslash when what follows is not UTF-8, so
// that the next step reports it).
size_t escape_length(std::string_view t, size_t i) {
  const size_t n = utf8_length(t, i + 1);
  return n == 0 ? 1 : 1 + n;
}

}  // namespace

std::optional<Error> check_toml_bytes(std::string_view text, const std::string& path) {
  enum class In { Code, Comment, Basic, Literal, MultiBasic, MultiLiteral } in = In::Code;
  // The last non-blank character seen outside strings and comments ('\n' at a line start): a string
  // can only open after one of these (a key at a line start, after `.` `{` `,`; a value after `=`
  // `[` `,`; a table header after `[`).
  char prev = '\n';
  bool bare = false;  // inside a value that is not a string, array or table
  // Open brackets outside strings: 'A' an array (a value), 'T' an inline table, 'H' a table header.
  // A multi-line string is a value only: after `=`, or after `[`/`,` inside an array. Where a key
  // goes (a line start, a header, an inline table), toml++ does not read `"""` as a string (it reads
  // an empty key `""` and goes on), so the bytes after it stay "code" here and non-ASCII is refused.
  std::vector<char> nest;
  auto value_position = [&](char p) {
    return p == '=' || (!nest.empty() && nest.back() == 'A' && (p == '[' || p == ','));
  };
  auto opens_string = [](char p) { return p == '\n' || p == '=' || p == '[' || p == ',' || p == '{' || p == '.'; };
  uint32_t line = 1, column = 1;
  auto at = [&](const std::string& what) {
    return make_error(path + ":" + std::to_string(line) + ":" + std::to_string(column) + ": " + what);
  };
  auto starts = [&](size_t i, std::string_view s) { return text.substr(i, s.size()) == s; };
  size_t i = text.rfind("\xEF\xBB\xBF", 0) == 0 ? 3 : 0;  // a BOM at the start is fine
  while (i < text.size()) {
    const size_t n = utf8_length(text, i);
    if (n == 0) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "0x%02X", static_cast<unsigned char>(text[i]));
      return at(std::string("invalid UTF-8 (byte ") + hex + "); a config file must be UTF-8");
    }
    const char c = text[i];
    size_t step = n;
    if (n > 1 && (in == In::Code)) return at("non-ASCII character outside a string or a comment");
    // (Comments too: where this scan sees a `#` after a `"""` key, toml++ may still be inside that
    // multi-line string.)
    // toml++ 3.3 asks whether the character after a backslash in a multi-line string is whitespace
    // (a line-ending backslash) with a look-up that is undefined for most non-ASCII code points. Where
    // toml++ reads a multi-line string is not always where this scan does (a `"""` key), so a
    // backslash before a non-ASCII character is refused everywhere but in comments; it is no valid
    // escape in a basic string, and a literal string can use a basic one with \uXXXX instead.
    // Blanks after the backslash are skipped first (`\ <U+035A>`: toml++ consumes them as the start
    // of a line-ending backslash and asks about the next character).
    // After a line break there, every blank and line break is skipped too (a line-ending backslash).
    if (c == '\\') {
      size_t k = i + 1;
      while (k < text.size() && (text[k] == ' ' || text[k] == '\t')) ++k;
      const bool line_ending = k < text.size() && (text[k] == '\n' || text[k] == '\r');
      if (line_ending)
        while (k < text.size() && (text[k] == ' ' || text[k] == '\t' || text[k] == '\n' || text[k] == '\r')) ++k;
      if (k < text.size() && static_cast<unsigned char>(text[k]) >= 0x80)
        return at(line_ending ? "non-ASCII character right after a line-ending backslash; write it as \\uXXXX"
                              : "non-ASCII character after a backslash; write it as \\uXXXX in a basic string");
    }
    switch (in) {
      case In::Code:
        if (c == '#') {
          in = In::Comment;
        } else if ((c == '"' || c == '\'') && (bare || !opens_string(prev))) {
          // Not where TOML allows a string (`9"...`): toml++ reads on as a bare value and looks up
          // non-ASCII code points as whitespace (undefined for most of them), so the bytes after it
          // stay "code" here and any non-ASCII one among them is refused.
        } else if (starts(i, "\"\"\"") || starts(i, "'''")) {
          // Not a string where a key goes: stays code (see `nest`).
          if (value_position(prev)) in = c == '"' ? In::MultiBasic : In::MultiLiteral;
          step = 3;
        } else if (c == '"') {
          in = In::Basic;
        } else if (c == '\'') {
          in = In::Literal;
        }
        if (c == '[') nest.push_back(value_position(prev) ? 'A' : 'H');
        else if (c == '{') nest.push_back('T');
        else if ((c == ']' || c == '}') && !nest.empty()) nest.pop_back();
        else if (c == '\n' && !nest.empty() && nest.back() == 'H') nest.clear();  // a header ends with its line
        // A value that is not a string, array or table (`9`, `true`, `1979-05-27`, or junk): toml++
        // reads it up to the next terminator, so quotes inside it open nothing.
        if (bare && (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ',' || c == ']' || c == '}' || c == '#'))
          bare = false;
        else if (!bare && (prev == '=' || prev == '[' || prev == ',') && c != ' ' && c != '\t' && c != '\r' &&
                 c != '\n' && c != '"' && c != '\'' && c != '[' && c != '{' && c != '#' && c != ']' && c != ',')
          bare = true;
        // Line breaks inside an array are blanks: a multi-line string after a comma and a line break
        // is a value, as toml++ reads it (fuzz_config, 2026-11-27).
        // (A comment's `#` is no such character either: after the comment, the one before it counts.)
        if (c != ' ' && c != '\t' && c != '\r' && c != '#' && !(c == '\n' && !nest.empty() && nest.back() == 'A'))
          prev = c;
        break;
      case In::Comment:
        if (c == '\n') in = In::Code, prev = !nest.empty() && nest.back() == 'A' ? prev : '\n';
        break;
      case In::Basic:
        if (c == '\\' && i + 1 < text.size() && text[i + 1] != '\n') step = escape_length(text, i);
        else if (c == '"' || c == '\n') in = In::Code, prev = c;
        break;
      case In::Literal:
        if (c == '\'' || c == '\n') in = In::Code, prev = c;
        break;
      case In::MultiBasic:
        if (c == '\\') {
          // A line-ending backslash: toml++ 3.3 skips the blanks after it with a look-up that is
          // undefined for most non-ASCII code points (upstream issues 190 and 295).
          size_t k = i + 1;
          while (k < text.size() && (text[k] == ' ' || text[k] == '\t')) ++k;
          if (k < text.size() && (text[k] == '\n' || text[k] == '\r')) {
            while (k < text.size() && (text[k] == ' ' || text[k] == '\t' || text[k] == '\n' || text[k] == '\r')) ++k;
            if (k < text.size() && static_cast<unsigned char>(text[k]) >= 0x80)
              return at("non-ASCII character right after a line-ending backslash; write it as \\uXXXX");
          } else if (i + 1 < text.size()) {
            step = escape_length(text, i);
          }
        } else if (starts(i, "\"\"\"")) {
          in = In::Code, prev = '"';
          step = 3;
          while (step < 5 && i + step < text.size() && text[i + step] == '"') ++step;
        }
        break;
      case In::MultiLiteral:
        if (starts(i, "'''")) {
          in = In::Code, prev = '\'';
          step = 3;
          while (step < 5 && i + step < text.size() && text[i + step] == '\'') ++step;
        }
        break;
    }
    // Advance, keeping line and column (in code points) for the next message.
    for (size_t end = std::min(text.size(), i + step); i < end;) {
      if (text[i] == '\n') ++line, column = 1;
      else if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) ++column;
      ++i;
    }
  }
  return std::nullopt;
}

Expected<toml::table> parse_toml(const std::string& text, const std::string& path) {
  if (auto bad = check_toml_bytes(text, path)) return std::move(*bad);
  try {
    return toml::parse(text, path);
  } catch (const toml::parse_error& e) {
    return toml_error_at(path, e.source(), std::string("invalid TOML: ") + std::string(e.description()));
  }
}

}  // namespace perflint
