// SourceFile: the bytes of one Python file, its line index, and byte offset -> line/column mapping.
// Columns are 1-based and count Unicode code points (a tab is one column), as ruff and SARIF do.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "parser/expected.hpp"

namespace perflint {

struct Position {
  uint32_t line = 1;    // 1-based
  uint32_t column = 1;  // 1-based, in code points
};

class SourceFile {
 public:
  // `bytes` is the file content as read; a UTF-8 BOM is dropped (offsets then refer to the rest).
  // Fails (with `path` in the message) on NUL bytes or invalid UTF-8, as CPython does.
  static Expected<SourceFile> from_bytes(std::string path, std::string bytes);

  const std::string& path() const { return path_; }
  const std::string& text() const { return text_; }
  bool had_bom() const { return had_bom_; }
  uint32_t line_count() const { return static_cast<uint32_t>(line_starts_.size()); }

  Position position(uint32_t byte_offset) const;
  uint32_t line_start(uint32_t line) const;  // byte offset of a 1-based line
  // The line's text without its terminator ("\n", "\r\n" or "\r").
  std::string_view line_text(uint32_t line) const;
  std::string_view slice(uint32_t start, uint32_t end) const;

 private:
  std::string path_;
  std::string text_;
  bool had_bom_ = false;
  std::vector<uint32_t> line_starts_;
};

// `bytes` without one leading UTF-8 BOM: the text SourceFile's offsets index.
inline std::string_view without_bom(std::string_view bytes) {
  return bytes.starts_with("\xEF\xBB\xBF") ? bytes.substr(3) : bytes;
}

// Number of code points in a UTF-8 string (continuation bytes are not counted).
uint32_t count_code_points(std::string_view s);

}  // namespace perflint
