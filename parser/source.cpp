// Line index and UTF-8 validation for SourceFile.
#include "parser/source.hpp"

#include <algorithm>
#include <cstring>

namespace perflint {
namespace {

// Returns the offset of the first invalid UTF-8 sequence, or npos.
size_t find_invalid_utf8(std::string_view s) {
  size_t i = 0;
  const size_t n = s.size();
  while (i < n) {
    // ASCII fast path: 8 bytes at a time while none has the high bit set.
    while (i + 8 <= n) {
      uint64_t word;
      std::memcpy(&word, s.data() + i, 8);
      if (word & 0x8080808080808080ull) break;
      i += 8;
    }
    if (i >= n) break;
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) { ++i; continue; }
    size_t len = 0;
    uint32_t cp = 0;
    if ((c & 0xE0) == 0xC0) { len = 2; cp = c & 0x1F; }
    else if ((c & 0xF0) == 0xE0) { len = 3; cp = c & 0x0F; }
    else if ((c & 0xF8) == 0xF0) { len = 4; cp = c & 0x07; }
    else return i;
    if (i + len > n) return i;
    for (size_t k = 1; k < len; ++k) {
      const auto cc = static_cast<unsigned char>(s[i + k]);
      if ((cc & 0xC0) != 0x80) return i;
      cp = (cp << 6) | (cc & 0x3F);
    }
    const bool overlong = (len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000);
    if (overlong || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return i;
    i += len;
  }
  return std::string_view::npos;
}

}  // namespace

uint32_t count_code_points(std::string_view s) {
  uint32_t n = 0;
  for (char ch : s) n += (static_cast<unsigned char>(ch) & 0xC0) != 0x80;
  return n;
}

Expected<SourceFile> SourceFile::from_bytes(std::string path, std::string bytes) {
  SourceFile f;
  f.path_ = std::move(path);
  if (bytes.size() >= 3 && bytes.compare(0, 3, "\xEF\xBB\xBF") == 0) {
    f.had_bom_ = true;
    bytes.erase(0, 3);
  }
  f.text_ = std::move(bytes);
  // Line index first so errors can name a line.
  f.line_starts_.push_back(0);
  const std::string& t = f.text_;
  if (t.find('\r') == std::string::npos) {
    // The common case: only \n terminators, found with memchr.
    for (const char* p = t.data(); (p = static_cast<const char*>(std::memchr(p, '\n', t.data() + t.size() - p)));)
      f.line_starts_.push_back(static_cast<uint32_t>(++p - t.data()));
  } else {
    for (uint32_t i = 0; i < t.size(); ++i) {
      if (t[i] == '\n') f.line_starts_.push_back(i + 1);
      else if (t[i] == '\r' && (i + 1 >= t.size() || t[i + 1] != '\n')) f.line_starts_.push_back(i + 1);
    }
  }
  // UTF-16 (Windows editors, PowerShell redirection) has NULs everywhere: say what it is.
  if (t.size() >= 2 && ((t[0] == '\xFF' && t[1] == '\xFE') || (t[0] == '\xFE' && t[1] == '\xFF')))
    return make_error(f.path_ + ":1:1: file is UTF-16 encoded (it starts with a UTF-16 byte order mark); Python "
                      "source must be UTF-8: convert it (e.g. iconv -f UTF-16 -t UTF-8); not linted");
  if (auto nul = t.find('\0'); nul != std::string::npos) {
    const Position p = f.position(static_cast<uint32_t>(nul));
    return make_error(f.path_ + ":" + std::to_string(p.line) + ":" + std::to_string(p.column) +
                      ": file contains a NUL byte (binary file?); not linted");
  }
  if (auto bad = find_invalid_utf8(t); bad != std::string_view::npos) {
    const Position p = f.position(static_cast<uint32_t>(bad));
    return make_error(f.path_ + ":" + std::to_string(p.line) + ":" + std::to_string(p.column) +
                      ": file is not valid UTF-8; not linted");
  }
  return f;
}

Position SourceFile::position(uint32_t byte_offset) const {
  byte_offset = std::min<uint32_t>(byte_offset, static_cast<uint32_t>(text_.size()));
  auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), byte_offset);
  const auto line_index = static_cast<uint32_t>(std::distance(line_starts_.begin(), it) - 1);
  const uint32_t start = line_starts_[line_index];
  return Position{line_index + 1,
                  count_code_points(std::string_view(text_).substr(start, byte_offset - start)) + 1};
}

uint32_t SourceFile::line_start(uint32_t line) const {
  if (line == 0 || line > line_starts_.size()) return static_cast<uint32_t>(text_.size());
  return line_starts_[line - 1];
}

std::string_view SourceFile::line_text(uint32_t line) const {
  if (line == 0 || line > line_starts_.size()) return {};
  const uint32_t start = line_starts_[line - 1];
  uint32_t end = line < line_starts_.size() ? line_starts_[line] : static_cast<uint32_t>(text_.size());
  while (end > start && (text_[end - 1] == '\n' || text_[end - 1] == '\r')) --end;
  return std::string_view(text_).substr(start, end - start);
}

std::string_view SourceFile::slice(uint32_t start, uint32_t end) const {
  start = std::min<uint32_t>(start, static_cast<uint32_t>(text_.size()));
  end = std::clamp<uint32_t>(end, start, static_cast<uint32_t>(text_.size()));
  return std::string_view(text_).substr(start, end - start);
}

}  // namespace perflint
