// Positions as the Language Server Protocol counts them: lines from 0 (split at \n, \r\n and a lone
// \r, as perflint's SourceFile does) and characters in UTF-16 code units (the encoding every client
// supports), from and to byte offsets into the document's UTF-8 text.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace perflint::lsp {

struct Position {
  uint32_t line = 0;
  uint32_t character = 0;
};

class LineIndex {
 public:
  explicit LineIndex(std::string text);
  const std::string& text() const { return text_; }
  // A byte offset (clamped to the text) as an LSP position.
  Position to_lsp(uint32_t byte) const;
  // An LSP position as a byte offset: a line past the end is the end of the text, a character past
  // the end of its line is the line's end (the spec's rule), one inside a surrogate pair rounds down.
  uint32_t to_byte(Position p) const;
  // The byte offset just past the last character of `line` (before its line break).
  uint32_t line_end(uint32_t line) const;
  uint32_t line_count() const { return static_cast<uint32_t>(starts_.size()); }

 private:
  std::string text_;
  std::vector<uint32_t> starts_;  // byte offset of each line's first character
};

}  // namespace perflint::lsp
