// LSP positions (see lsp_text.hpp).
#include "cli/lsp_text.hpp"

#include <algorithm>

namespace perflint::lsp {

namespace {

// Bytes of the UTF-8 sequence that starts with `b` (1 for a stray continuation byte, so that
// ill-formed text still advances).
uint32_t sequence_bytes(unsigned char b) {
  if (b >= 0xF0) return 4;
  if (b >= 0xE0) return 3;
  if (b >= 0xC0) return 2;
  return 1;
}

}  // namespace

LineIndex::LineIndex(std::string text) : text_(std::move(text)) {
  starts_.push_back(0);
  for (uint32_t i = 0; i < text_.size(); ++i) {
    if (text_[i] == '\n') {
      starts_.push_back(i + 1);
    } else if (text_[i] == '\r') {
      if (i + 1 < text_.size() && text_[i + 1] == '\n') ++i;
      starts_.push_back(i + 1);
    }
  }
}

uint32_t LineIndex::line_end(uint32_t line) const {
  if (line >= starts_.size()) return static_cast<uint32_t>(text_.size());
  uint32_t end = line + 1 < starts_.size() ? starts_[line + 1] : static_cast<uint32_t>(text_.size());
  while (end > starts_[line] && (text_[end - 1] == '\n' || text_[end - 1] == '\r')) --end;
  return end;
}

Position LineIndex::to_lsp(uint32_t byte) const {
  byte = std::min<uint32_t>(byte, static_cast<uint32_t>(text_.size()));
  const auto it = std::upper_bound(starts_.begin(), starts_.end(), byte);
  const uint32_t line = static_cast<uint32_t>(it - starts_.begin()) - 1;
  uint32_t units = 0;
  for (uint32_t i = starts_[line]; i < byte;) {
    const uint32_t n = sequence_bytes(static_cast<unsigned char>(text_[i]));
    units += n == 4 ? 2 : 1;  // outside the BMP: a surrogate pair
    i += n;
  }
  return {line, units};
}

uint32_t LineIndex::to_byte(Position p) const {
  if (p.line >= starts_.size()) return static_cast<uint32_t>(text_.size());
  const uint32_t end = line_end(p.line);
  uint32_t i = starts_[p.line], units = 0;
  while (i < end) {
    const uint32_t n = sequence_bytes(static_cast<unsigned char>(text_[i]));
    const uint32_t w = n == 4 ? 2 : 1;
    if (units + w > p.character) break;
    units += w;
    i = std::min(i + n, end);
  }
  return i;
}

}  // namespace perflint::lsp
