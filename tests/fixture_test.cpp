// Closed-world rule fixtures (STYLE.md rule 9): every tests/fixtures/rules/<CODE>/*.py is linted with
// only rule CODE enabled; the findings must be exactly the lines annotated `# expect: CODE` (on the
// line itself, or alone on the line before). Any extra or missing finding fails.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "tests/cli_support.hpp"
#include "tests/fixture_support.hpp"
#include "rules/engine.hpp"
#include "rules/registry.hpp"

namespace fs = std::filesystem;
using perflint::testing::expectations;
using perflint::testing::slurp;

namespace perflint {
namespace {

std::vector<fs::path> fixtures() {
  std::vector<fs::path> out;
  const fs::path root = fs::path(PERFLINT_SOURCE_DIR) / "tests" / "fixtures" / "rules";
  if (!fs::exists(root)) return out;
  for (const auto& e : fs::recursive_directory_iterator(root))
    if (e.is_regular_file() && e.path().extension() == ".py") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

class RuleFixture : public ::testing::TestWithParam<fs::path> {};

TEST_P(RuleFixture, FindingsAreExactlyTheExpectations) {
  const fs::path path = GetParam();
  const std::string code = path.parent_path().filename().string();
  ASSERT_NE(find_rule(code), nullptr) << "fixture directory names no rule: " << code;
  const std::string text = slurp(path);
  const auto expected = expectations(text);
  // `# fixture-select: PFL001, PFL301` enables more rules (for rules about other rules' findings).
  std::vector<std::string> select{code};
  if (auto at = text.find("# fixture-select:"); at != std::string::npos) {
    std::istringstream extra(text.substr(at + 17, text.find('\n', at) - at - 17));
    std::string c;
    while (std::getline(extra, c, ',')) {
      const auto b = c.find_first_not_of(" \t\r");
      const auto e = c.find_last_not_of(" \t\r");
      if (b != std::string::npos) select.push_back(c.substr(b, e - b + 1));
    }
  }
  RuleSet rules = make_rule_set(select, {});
  ts::Parser parser;
  FileResult r = lint_buffer(path.string(), text, rules, parser);
  for (const auto& e : r.errors)
    if (e.kind != FileError::Kind::Syntax) ADD_FAILURE() << "unexpected error: " << e.message;
  // `# expect: PFL401 [info]` also checks the severity; `# expect: PFL401` accepts any.
  std::set<std::pair<uint32_t, std::string>> actual, actual_with_severity;
  std::map<uint32_t, std::string> messages;
  for (const auto& f : r.findings) {
    actual.emplace(f.span.start.line, std::string(f.rule->code));
    actual_with_severity.emplace(f.span.start.line,
                                 std::string(f.rule->code) + " [" + std::string(to_string(f.severity)) + "]");
    messages[f.span.start.line] = f.message;
  }
  std::set<std::pair<uint32_t, std::string>> expected_codes;
  for (const auto& e : expected) {
    const bool with_severity = e.second.find(" [") != std::string::npos;
    if (!(with_severity ? actual_with_severity : actual).count(e))
      ADD_FAILURE() << path.filename() << ":" << e.first << ": expected " << e.second << ", not reported";
    expected_codes.emplace(e.first, e.second.substr(0, e.second.find(" [")));
  }
  for (const auto& a : actual)
    if (!expected_codes.count(a))
      ADD_FAILURE() << path.filename() << ":" << a.first << ": unexpected " << a.second << ": " << messages[a.first];
}

std::string fixture_name(const ::testing::TestParamInfo<fs::path>& info) {
  std::string s = info.param.parent_path().filename().string() + "_" + info.param.stem().string();
  for (auto& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}

INSTANTIATE_TEST_SUITE_P(Rules, RuleFixture, ::testing::ValuesIn(fixtures()), fixture_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(RuleFixture);

TEST(Registry, CodesUniqueNamesKebabDocsAndFixtures) {
  std::set<std::string_view> codes, names;
  ASSERT_FALSE(all_rules().empty());
  for (const auto& r : all_rules()) {
    const RuleInfo& i = r->info();
    EXPECT_TRUE(codes.insert(i.code).second) << "duplicate code " << i.code;
    EXPECT_TRUE(names.insert(i.name).second) << "duplicate name " << i.name;
    EXPECT_EQ(i.code.size(), 6u);
    EXPECT_EQ(i.code.substr(0, 3), "PFL");
    for (char c : i.name) EXPECT_TRUE(std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '-') << i.name;
    EXPECT_FALSE(i.summary.empty()) << i.code;
    EXPECT_FALSE(r->kinds().empty()) << i.code;
    const fs::path dir = fs::path(PERFLINT_SOURCE_DIR) / "tests" / "fixtures" / "rules" / std::string(i.code);
    bool has_fixture = fs::exists(dir) && !fs::is_empty(dir);
    EXPECT_TRUE(has_fixture) << i.code << " has no fixture in " << dir;
  }
  for (size_t k = 1; k < all_rules().size(); ++k)
    EXPECT_LT(all_rules()[k - 1]->info().code, all_rules()[k]->info().code);
}

}  // namespace
}  // namespace perflint
