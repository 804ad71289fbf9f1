// Every fix on every fixture and example, one at a time, with zero, one and two UTF-8 BOMs in front:
// the fixed text still parses and re-lints without that finding, and the BOMs are kept byte for byte.
// (Issue 11 #1: with two BOMs the edits landed 3 bytes off and corrupted the file.)
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "cli_support.hpp"
#include "rules/engine.hpp"
#include "rules/fixer.hpp"

namespace fs = std::filesystem;

namespace perflint {
namespace {

using testing::slurp;

const std::string kBom = "\xEF\xBB\xBF";

std::vector<fs::path> scripts() {
  std::vector<fs::path> out;
  const fs::path root(PERFLINT_SOURCE_DIR);
  for (const auto& e : fs::recursive_directory_iterator(root / "tests" / "fixtures"))
    if (e.path().extension() == ".py") out.push_back(e.path());
  for (const auto& e : fs::directory_iterator(root / "examples"))
    if (e.path().extension() == ".py") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

bool has_syntax_error(const FileResult& r) {
  return std::any_of(r.errors.begin(), r.errors.end(),
                     [](const FileError& e) { return e.kind == FileError::Kind::Syntax; });
}

size_t count_code(const FileResult& r, std::string_view code) {
  return static_cast<size_t>(
      std::count_if(r.findings.begin(), r.findings.end(), [&](const Finding& f) { return f.rule->code == code; }));
}

TEST(FixEverywhere, TwoBomsFixAtTheOffsetsTheSourceWasParsedFrom) {
  const std::string body = "import torch\ntorch.autograd.set_detect_anomaly(True)\n";
  ts::Parser parser;
  const RuleSet rules = make_rule_set({"PFL301"}, {});
  const FixedFile one = fix_buffer("x.py", kBom + body, rules, parser, true);
  ASSERT_GT(one.applied, 0u);
  const FixedFile two = fix_buffer("x.py", kBom + kBom + body, rules, parser, true);
  EXPECT_EQ(two.applied, one.applied);
  EXPECT_EQ(two.bytes, kBom + one.bytes) << "the fix must land where it lands without the extra BOM";
}

TEST(FixEverywhere, EachFixAloneParsesAndRemovesItsFinding) {
  ts::Parser parser;
  const RuleSet all = make_rule_set({"ALL"}, {});
  size_t fixes = 0;
  for (const fs::path& path : scripts()) {
    const std::string body = slurp(path.string());
    for (int boms = 0; boms <= 2; ++boms) {
      std::string prefix;
      for (int i = 0; i < boms; ++i) prefix += kBom;
      const std::string bytes = prefix + body;
      SCOPED_TRACE(path.string() + " with " + std::to_string(boms) + " BOM(s)");
      // Offsets are into the text after the first BOM, as SourceFile reads it.
      const std::string text = boms > 0 ? bytes.substr(3) : bytes;
      const FileResult before = lint_buffer(path.string(), bytes, all, parser);
      const bool parsed = !has_syntax_error(before);
      for (const Finding& f : before.findings) {
        if (!f.fix) continue;
        ++fixes;
        SCOPED_TRACE(std::string(f.rule->code) + " at line " + std::to_string(f.span.start.line));
        const AppliedFixes a = apply_fixes(text, {f}, /*unsafe=*/true);
        ASSERT_EQ(a.applied, 1u);
        const std::string fixed = (boms > 0 ? kBom : "") + a.text;
        ASSERT_EQ(fixed.compare(0, prefix.size(), prefix), 0) << "a BOM was edited";
        const FileResult after = lint_buffer(path.string(), fixed, all, parser);
        if (parsed) {
          EXPECT_FALSE(has_syntax_error(after)) << a.text;
        }
        EXPECT_LT(count_code(after, f.rule->code), count_code(before, f.rule->code)) << a.text;
      }
      if (boms > 0) {
        const FixedFile with = fix_buffer("x.py", bytes, all, parser, true);
        const FixedFile without = fix_buffer("x.py", body, all, parser, true);
        EXPECT_EQ(with.bytes, prefix + without.bytes);
      }
    }
  }
  EXPECT_GT(fixes, 30u) << "the fixtures should exercise many fixes";
}

}  // namespace
}  // namespace perflint
