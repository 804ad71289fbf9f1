// Suppression comments: every accepted form, case-insensitivity, rule names, foreign noqa codes,
// file-level suppression, multi-line findings, and the used/unused bookkeeping.
#include <gtest/gtest.h>

#include "rules/rule.hpp"
#include "rules/suppression.hpp"

namespace perflint {
namespace {

const RuleInfo kItem{"PFL201", "per-step-item", "host-sync", Severity::Warning, "item() every step", false, {}};
const RuleInfo kTransfer{"PFL202", "per-step-host-transfer", "host-sync", Severity::Warning, "cpu() every step",
                         false, {}};
const RuleInfo kTf32{"PFL401", "tf32-disabled", "precision", Severity::Warning, "TF32 off", false, {}};

struct Case {
  SourceFile source;
  std::vector<Suppression> suppressions;
};

// The test sources have no '#' inside strings, so each '#' to the end of its line is a comment.
Case parse(const std::string& text) {
  auto src = SourceFile::from_bytes("t.py", text);
  EXPECT_TRUE(src.ok());
  std::vector<std::pair<uint32_t, uint32_t>> comments;
  for (size_t i = text.find('#'); i != std::string::npos; i = text.find('#', i)) {
    size_t end = text.find('\n', i);
    if (end == std::string::npos) end = text.size();
    comments.emplace_back(static_cast<uint32_t>(i), static_cast<uint32_t>(end));
    i = end;
  }
  Case c{std::move(*src), {}};
  c.suppressions = parse_suppressions(c.source, comments);
  return c;
}

Finding finding(const RuleInfo& rule, uint32_t line, uint32_t end_line = 0) {
  Finding f;
  f.rule = &rule;
  f.span.start = {line, 1};
  f.span.end = {end_line ? end_line : line, 5};
  return f;
}

// The codes of the findings that survive.
std::vector<std::string> survivors(const Case& c, std::vector<Finding> findings) {
  apply_suppressions(c.suppressions, findings);
  std::vector<std::string> out;
  for (const auto& f : findings) out.push_back(std::string(f.rule->code) + "@" + std::to_string(f.span.start.line));
  return out;
}

using V = std::vector<std::string>;

TEST(Suppression, PerflintIgnoreByCode) {
  Case c = parse("x = 1\nloss.item()  # perflint: ignore[PFL201]\nloss.item()\n");
  ASSERT_EQ(c.suppressions.size(), 1u);
  EXPECT_EQ(c.suppressions[0].line, 2u);
  EXPECT_FALSE(c.suppressions[0].file_level);
  EXPECT_FALSE(c.suppressions[0].all);
  EXPECT_EQ(c.suppressions[0].codes, V{"PFL201"});
  EXPECT_EQ(c.suppressions[0].span.start.column, 14u);
  EXPECT_EQ(survivors(c, {finding(kItem, 2), finding(kTransfer, 2), finding(kItem, 3)}),
            (V{"PFL202@2", "PFL201@3"}));
  EXPECT_TRUE(c.suppressions[0].used);
}

TEST(Suppression, ListWithNamesSpacesAndCase) {
  Case c = parse("a.item()  #perflint:ignore[ pfl202 ,  per-step-item ]\n");
  ASSERT_EQ(c.suppressions.size(), 1u);
  EXPECT_EQ(c.suppressions[0].codes, (V{"pfl202", "per-step-item"}));
  EXPECT_EQ(survivors(c, {finding(kItem, 1), finding(kTransfer, 1), finding(kTf32, 1)}), V{"PFL401@1"});
  Case upper = parse("a.item()  # PERFLINT: IGNORE[PER-STEP-ITEM]\n");
  EXPECT_TRUE(survivors(upper, {finding(kItem, 1)}).empty());
}

TEST(Suppression, PrefixSelector) {
  Case c = parse("a.item()  # perflint: ignore[PFL2]\n");
  EXPECT_EQ(survivors(c, {finding(kItem, 1), finding(kTransfer, 1), finding(kTf32, 1)}), V{"PFL401@1"});
}

TEST(Suppression, BarePerflintIgnoreCoversTheLine) {
  Case c = parse("a.item()  # perflint: ignore\nb.item()\n");
  ASSERT_EQ(c.suppressions.size(), 1u);
  EXPECT_TRUE(c.suppressions[0].all);
  EXPECT_EQ(survivors(c, {finding(kItem, 1), finding(kTf32, 1), finding(kItem, 2)}), V{"PFL201@2"});
}

TEST(Suppression, NotADirective) {
  Case c = parse("# perflint: ignored for now\n# perflint: ignore[PFL201\n# noqa-ish text\n# see perflint docs\n");
  EXPECT_TRUE(c.suppressions.empty());
}

TEST(Suppression, NoqaWithCodes) {
  Case c = parse("a.item()  # noqa: PFL201\nb.cpu()  # noqa:PFL201,pfl202\nc.cpu()  # NOQA: PFL201 PFL202\n");
  ASSERT_EQ(c.suppressions.size(), 3u);
  EXPECT_EQ(c.suppressions[1].codes, (V{"PFL201", "pfl202"}));
  EXPECT_EQ(c.suppressions[2].codes, (V{"PFL201", "PFL202"}));
  EXPECT_EQ(survivors(c, {finding(kItem, 1), finding(kTransfer, 1), finding(kTransfer, 2), finding(kTransfer, 3)}),
            V{"PFL202@1"});
}

TEST(Suppression, NoqaWithSpaceBeforeColonIsStillAList) {
  Case c = parse("a.item()  # noqa : PFL202\n");
  ASSERT_EQ(c.suppressions.size(), 1u);
  EXPECT_FALSE(c.suppressions[0].all);
  EXPECT_EQ(survivors(c, {finding(kItem, 1), finding(kTransfer, 1)}), V{"PFL201@1"});
}

TEST(Suppression, BareNoqaSuppressesEverythingOnTheLine) {
  Case c = parse("a.item()  # noqa\nb.item()  # noqa:\n");
  ASSERT_EQ(c.suppressions.size(), 2u);
  EXPECT_TRUE(c.suppressions[0].all);
  EXPECT_TRUE(c.suppressions[1].all);
  EXPECT_TRUE(survivors(c, {finding(kItem, 1), finding(kTf32, 1), finding(kItem, 2)}).empty());
}

TEST(Suppression, NoqaWithOnlyForeignCodesSuppressesNothing) {
  Case c = parse("a.item()  # noqa: E501\nb.item()  # noqa: E501, W291\n");
  EXPECT_EQ(survivors(c, {finding(kItem, 1), finding(kItem, 2)}), (V{"PFL201@1", "PFL201@2"}));
  // Mixed lists keep only our codes.
  Case mixed = parse("a.item()  # noqa: E501,PFL201\n");
  ASSERT_EQ(mixed.suppressions.size(), 1u);
  EXPECT_EQ(mixed.suppressions[0].codes, V{"PFL201"});
  EXPECT_TRUE(survivors(mixed, {finding(kItem, 1)}).empty());
}

TEST(Suppression, SharedCommentWithOtherTools) {
  Case c = parse("a.item()  # type: ignore  # noqa: PFL201\nb.cpu()  # pylint: disable=x # perflint: ignore[PFL202]\n");
  ASSERT_EQ(c.suppressions.size(), 2u);
  EXPECT_EQ(c.suppressions[0].span.start.column, 27u);  // the directive's own '#'
  EXPECT_TRUE(survivors(c, {finding(kItem, 1), finding(kTransfer, 2)}).empty());
}

TEST(Suppression, FileLevel) {
  Case c = parse("import torch\n# perflint: ignore-file[PFL401, per-step-item]\nx = 1\n");
  ASSERT_EQ(c.suppressions.size(), 1u);
  EXPECT_TRUE(c.suppressions[0].file_level);
  EXPECT_EQ(c.suppressions[0].codes, (V{"PFL401", "per-step-item"}));
  EXPECT_EQ(survivors(c, {finding(kTf32, 1), finding(kItem, 40), finding(kTransfer, 3)}), V{"PFL202@3"});

  Case all = parse("# perflint: ignore-file\n");
  ASSERT_EQ(all.suppressions.size(), 1u);
  EXPECT_TRUE(all.suppressions[0].file_level);
  EXPECT_TRUE(all.suppressions[0].all);
  EXPECT_TRUE(survivors(all, {finding(kTf32, 1), finding(kItem, 99)}).empty());
}

TEST(Suppression, MultiLineFindingMatchesStartOrEndLine) {
  Case c = parse("loader = DataLoader(\n    ds,\n)  # perflint: ignore[PFL201]\n");
  EXPECT_TRUE(survivors(c, {finding(kItem, 1, 3)}).empty());
  Case middle = parse("loader = DataLoader(\n    ds,  # perflint: ignore[PFL201]\n)\n");
  EXPECT_EQ(survivors(middle, {finding(kItem, 1, 3)}), V{"PFL201@1"});
}

TEST(Suppression, OtherLinesAreUntouched) {
  Case c = parse("# perflint: ignore[PFL201]\na.item()\n");
  EXPECT_EQ(survivors(c, {finding(kItem, 2)}), V{"PFL201@2"});
  EXPECT_FALSE(c.suppressions[0].used);
}

TEST(Suppression, UnusedSuppressions) {
  Case c = parse(
      "a.item()  # perflint: ignore[PFL201]\n"   // used
      "b = 1  # noqa: PFL202\n"                  // unused, ours
      "c = 1  # noqa\n"                          // blanket: never reported
      "d = 1  # perflint: ignore[per-step-item]\n"  // unused, ours by name
      "# perflint: ignore-file\n");              // blanket: never reported
  ASSERT_EQ(c.suppressions.size(), 5u);
  std::vector<Finding> findings{finding(kItem, 1)};
  apply_suppressions(c.suppressions, findings);
  EXPECT_TRUE(findings.empty());
  EXPECT_TRUE(c.suppressions[0].used);
  // The blanket file-level one covered the finding too, so it counts as used.
  EXPECT_TRUE(c.suppressions[4].used);
  auto unused = unused_suppressions(c.suppressions);
  ASSERT_EQ(unused.size(), 2u);
  EXPECT_EQ(unused[0].line, 2u);
  EXPECT_EQ(unused[1].line, 4u);
}

// A mistyped code is one unknown code, never a blanket noqa (that would hide every finding on the
// line); other tools' codes are not ours to judge.
TEST(Suppression, UnknownCodesAreFoundAndAMistypedNoqaCodeIsNotABlanket) {
  Case c = parse(
      "a.item()  # noqa: PFL2O1, E501\n"
      "b.item()  # perflint: ignore[per-step-itme, PFL2]\n"
      "c = 1  # noqa: E501, W291\n"
      "d = 1  # noqa: PFL9\n");
  ASSERT_EQ(c.suppressions.size(), 3u);  // line 3 names no code of ours: no suppression at all
  EXPECT_FALSE(c.suppressions[0].all);
  EXPECT_EQ(c.suppressions[0].codes, V{"PFL2O1"});
  EXPECT_EQ(survivors(c, {finding(kItem, 1), finding(kItem, 2)}), V{"PFL201@1"});  // PFL2 covers line 2
  const auto unknown = unknown_codes(c.suppressions);
  ASSERT_EQ(unknown.size(), 3u);
  EXPECT_EQ(unknown[0].code, "PFL2O1");
  EXPECT_TRUE(unknown[0].suppression->noqa);
  EXPECT_EQ(unknown[1].code, "per-step-itme");
  EXPECT_FALSE(unknown[1].suppression->noqa);
  EXPECT_EQ(unknown[2].code, "PFL9");  // a prefix of no rule
}

TEST(Suppression, FindingWithoutRuleOnlyMatchesBlanket) {
  Case c = parse("x  # perflint: ignore[PFL201]\ny  # noqa\n");
  Finding a;
  a.span.start = {1, 1};
  a.span.end = {1, 2};
  Finding b = a;
  b.span.start.line = b.span.end.line = 2;
  std::vector<Finding> findings{a, b};
  apply_suppressions(c.suppressions, findings);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].span.start.line, 1u);
}

TEST(Suppression, CrlfAndCommentSpans) {
  Case c = parse("a.item()\r\nb.item()  # noqa: PFL201\r\n");
  ASSERT_EQ(c.suppressions.size(), 1u);
  EXPECT_EQ(c.suppressions[0].line, 2u);
  EXPECT_EQ(c.source.slice(c.suppressions[0].span.start_byte, c.suppressions[0].span.end_byte), "# noqa: PFL201");
  EXPECT_EQ(survivors(c, {finding(kItem, 1), finding(kItem, 2)}), V{"PFL201@1"});
}

}  // namespace
}  // namespace perflint
