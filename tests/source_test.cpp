// SourceFile: positions in code points, BOM, CRLF, NUL and invalid UTF-8.
#include <gtest/gtest.h>

#include "parser/source.hpp"

using perflint::SourceFile;

TEST(SourceFile, ColumnsCountCodePointsAndTabsAsOne) {
  auto f = SourceFile::from_bytes("a.py", "x = 1\n\té = y\n");
  ASSERT_TRUE(f.ok());
  // 'y' on line 2: tab(1) é(2) ' '(3) '='(4) ' '(5) y(6)
  const uint32_t y = static_cast<uint32_t>(f->text().find('y'));
  EXPECT_EQ(f->position(y).line, 2u);
  EXPECT_EQ(f->position(y).column, 6u);
}

TEST(SourceFile, BomIsDroppedAndCrlfLinesAreClean) {
  auto f = SourceFile::from_bytes("a.py", "\xEF\xBB\xBFimport torch\r\nx = 1\r\n");
  ASSERT_TRUE(f.ok());
  EXPECT_TRUE(f->had_bom());
  EXPECT_EQ(f->line_text(1), "import torch");
  EXPECT_EQ(f->line_text(2), "x = 1");
  EXPECT_EQ(f->position(static_cast<uint32_t>(f->text().find('x'))).line, 2u);
}

TEST(SourceFile, RejectsNulAndInvalidUtf8WithPathAndLine) {
  auto nul = SourceFile::from_bytes("bin.py", std::string("x = 1\ny\0z", 9));
  ASSERT_FALSE(nul.ok());
  EXPECT_NE(nul.error().message.find("bin.py:2:2"), std::string::npos) << nul.error().message;
  auto bad = SourceFile::from_bytes("bad.py", "s = '\xff'\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("bad.py:1:6"), std::string::npos) << bad.error().message;
  EXPECT_NE(bad.error().message.find("UTF-8"), std::string::npos);
}
