// LSP positions: lines split as SourceFile splits them, characters in UTF-16 code units, and the
// clamping rules of the specification.
#include <gtest/gtest.h>

#include "cli/lsp_text.hpp"

namespace perflint::lsp {
namespace {

TEST(LspText, Utf16ColumnsAndEveryLineBreak) {
  // "é" is 2 bytes / 1 unit, "🚀" 4 bytes / 2 units; lines end with \n, \r\n and a lone \r.
  const LineIndex index("a\xC3\xA9\xF0\x9F\x9A\x80z\nx\r\ny\rlast");
  EXPECT_EQ(index.line_count(), 4u);
  auto at = [&](uint32_t byte) {
    const Position p = index.to_lsp(byte);
    return std::to_string(p.line) + ":" + std::to_string(p.character);
  };
  EXPECT_EQ(at(0), "0:0");
  EXPECT_EQ(at(1), "0:1");   // é
  EXPECT_EQ(at(3), "0:2");   // the rocket
  EXPECT_EQ(at(7), "0:4");   // z: after a surrogate pair
  EXPECT_EQ(at(9), "1:0");   // x
  EXPECT_EQ(at(12), "2:0");  // y, after \r\n
  EXPECT_EQ(at(14), "3:0");  // after a lone \r
  EXPECT_EQ(at(1000), "3:4");  // clamped to the end
  EXPECT_EQ(index.to_byte({0, 4}), 7u);
  EXPECT_EQ(index.to_byte({0, 3}), 3u);   // inside the surrogate pair: its start
  EXPECT_EQ(index.to_byte({0, 99}), 8u);  // past the line's end: the end, before the break
  EXPECT_EQ(index.to_byte({2, 0}), 12u);
  EXPECT_EQ(index.to_byte({9, 0}), 18u);  // past the last line: the end of the text
  EXPECT_EQ(index.line_end(1), 10u);       // before "\r\n"
  for (uint32_t b : {0u, 1u, 3u, 7u, 9u, 12u, 14u}) EXPECT_EQ(index.to_byte(index.to_lsp(b)), b) << b;
}

TEST(LspText, EmptyTextAndIllFormedBytes) {
  const LineIndex empty("");
  EXPECT_EQ(empty.line_count(), 1u);
  EXPECT_EQ(empty.to_byte({0, 5}), 0u);
  // A stray continuation byte counts as one unit and never stalls the scan.
  const LineIndex bad("\x80\x80x");
  EXPECT_EQ(bad.to_lsp(2).character, 2u);
  EXPECT_EQ(bad.to_byte({0, 2}), 2u);
}

}  // namespace
}  // namespace perflint::lsp
