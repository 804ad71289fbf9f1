// Recursive-descent JSON reader with a depth limit (see json_read.hpp).
#include "probe/json_read.hpp"

#include <cstdlib>

namespace perflint::jsonr {
namespace {

constexpr int kMaxDepth = 64;

class Reader {
 public:
  Reader(std::string_view text, const std::string& name) : s_(text), name_(name) {}

  Expected<Node> document() {
    Node n;
    if (!value(n, 0)) return make_error(error_);
    skip_ws();
    if (i_ != s_.size()) return make_error(where() + "unexpected data after the JSON value");
    return n;
  }

 private:
  std::string where() const {
    size_t line = 1, col = 1;
    for (size_t k = 0; k < i_ && k < s_.size(); ++k) {
      if (s_[k] == '\n') { ++line; col = 1; }
      else ++col;
    }
    return name_ + ":" + std::to_string(line) + ":" + std::to_string(col) + ": ";
  }
  bool fail(const std::string& what) {
    if (error_.empty()) error_ = where() + what;
    return false;
  }
  void skip_ws() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\r' || s_[i_] == '\t')) ++i_;
  }
  bool literal(std::string_view word) {
    if (s_.substr(i_, word.size()) != word) return fail("invalid literal");
    i_ += word.size();
    return true;
  }

  bool value(Node& out, int depth) {
    if (depth > kMaxDepth) return fail("nesting deeper than " + std::to_string(kMaxDepth) + " levels");
    skip_ws();
    if (i_ >= s_.size()) return fail("unexpected end of file");
    const char c = s_[i_];
    if (c == '{') return object(out, depth);
    if (c == '[') return array(out, depth);
    if (c == '"') {
      out.kind = Node::Kind::String;
      return string(out.str);
    }
    if (c == 't') { out.kind = Node::Kind::Bool; out.b = true; return literal("true"); }
    if (c == 'f') { out.kind = Node::Kind::Bool; out.b = false; return literal("false"); }
    if (c == 'n') { out.kind = Node::Kind::Null; return literal("null"); }
    if (c == '-' || (c >= '0' && c <= '9')) return number(out);
    return fail(std::string("unexpected character '") + c + "'");
  }

  bool number(Node& out) {
    const size_t start = i_;
    if (s_[i_] == '-') ++i_;
    while (i_ < s_.size() && ((s_[i_] >= '0' && s_[i_] <= '9') || s_[i_] == '.' || s_[i_] == 'e' || s_[i_] == 'E' ||
                              s_[i_] == '+' || s_[i_] == '-'))
      ++i_;
    const std::string text(s_.substr(start, i_ - start));
    char* end = nullptr;
    out.number = std::strtod(text.c_str(), &end);
    if (end == text.c_str() || *end != '\0') {
      i_ = start;
      return fail("invalid number '" + text + "'");
    }
    out.kind = Node::Kind::Number;
    return true;
  }

  static void append_utf8(std::string& out, unsigned cp) {
    if (cp < 0x80) out += static_cast<char>(cp);
    else if (cp < 0x800) { out += static_cast<char>(0xC0 | (cp >> 6)); out += static_cast<char>(0x80 | (cp & 0x3F)); }
    else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }

  bool hex4(unsigned& cp) {
    if (i_ + 4 > s_.size()) return fail("truncated \\u escape");
    cp = 0;
    for (int k = 0; k < 4; ++k) {
      const char h = s_[i_++];
      cp <<= 4;
      if (h >= '0' && h <= '9') cp |= static_cast<unsigned>(h - '0');
      else if (h >= 'a' && h <= 'f') cp |= static_cast<unsigned>(h - 'a' + 10);
      else if (h >= 'A' && h <= 'F') cp |= static_cast<unsigned>(h - 'A' + 10);
      else return fail("bad \\u escape");
    }
    return true;
  }

  bool string(std::string& out) {
    ++i_;  // opening quote
    while (i_ < s_.size()) {
      const char c = s_[i_++];
      if (c == '"') return true;
      if (static_cast<unsigned char>(c) < 0x20) return fail("control character in string");
      if (c != '\\') { out += c; continue; }
      if (i_ >= s_.size()) break;
      const char e = s_[i_++];
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          unsigned cp = 0;
          if (!hex4(cp)) return false;
          if (cp >= 0xD800 && cp <= 0xDBFF && s_.substr(i_, 2) == "\\u") {
            i_ += 2;
            unsigned lo = 0;
            if (!hex4(lo)) return false;
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          }
          append_utf8(out, cp);
          break;
        }
        default: return fail(std::string("bad escape '\\") + e + "'");
      }
    }
    return fail("unterminated string");
  }

  bool array(Node& out, int depth) {
    out.kind = Node::Kind::Array;
    ++i_;
    skip_ws();
    if (i_ < s_.size() && s_[i_] == ']') { ++i_; return true; }
    for (;;) {
      Node item;
      if (!value(item, depth + 1)) return false;
      out.items.push_back(std::move(item));
      skip_ws();
      if (i_ < s_.size() && s_[i_] == ',') { ++i_; continue; }
      if (i_ < s_.size() && s_[i_] == ']') { ++i_; return true; }
      return fail("expected ',' or ']'");
    }
  }

  bool object(Node& out, int depth) {
    out.kind = Node::Kind::Object;
    ++i_;
    skip_ws();
    if (i_ < s_.size() && s_[i_] == '}') { ++i_; return true; }
    for (;;) {
      skip_ws();
      if (i_ >= s_.size() || s_[i_] != '"') return fail("expected a string key");
      std::string key;
      if (!string(key)) return false;
      skip_ws();
      if (i_ >= s_.size() || s_[i_] != ':') return fail("expected ':'");
      ++i_;
      Node v;
      if (!value(v, depth + 1)) return false;
      out.members.emplace_back(std::move(key), std::move(v));
      skip_ws();
      if (i_ < s_.size() && s_[i_] == ',') { ++i_; continue; }
      if (i_ < s_.size() && s_[i_] == '}') { ++i_; return true; }
      return fail("expected ',' or '}'");
    }
  }

  std::string_view s_;
  const std::string& name_;
  size_t i_ = 0;
  std::string error_;
};

}  // namespace

const Node* Node::get(std::string_view key) const {
  if (kind != Kind::Object) return nullptr;
  for (const auto& [k, v] : members)
    if (k == key) return &v;
  return nullptr;
}

std::optional<double> Node::num(std::string_view key) const {
  const Node* n = get(key);
  return n && n->kind == Kind::Number ? std::optional<double>(n->number) : std::nullopt;
}

std::optional<bool> Node::boolean(std::string_view key) const {
  const Node* n = get(key);
  return n && n->kind == Kind::Bool ? std::optional<bool>(n->b) : std::nullopt;
}

std::optional<std::string> Node::string(std::string_view key) const {
  const Node* n = get(key);
  return n && n->kind == Kind::String ? std::optional<std::string>(n->str) : std::nullopt;
}

Expected<Node> parse(std::string_view text, const std::string& name) { return Reader(text, name).document(); }

}  // namespace perflint::jsonr
