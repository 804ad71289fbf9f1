// The bundled examples are the README demo: with the default rule set, perflint must report exactly
// the anti-patterns planted in them (`# planted: CODE` on the line), and nothing on the clean one.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "cli/project_files.hpp"
#include "tests/cli_support.hpp"
#include "rules/engine.hpp"

namespace fs = std::filesystem;
using perflint::testing::slurp;

namespace perflint {
namespace {

std::set<std::pair<uint32_t, std::string>> plants(const std::string& text) {
  std::set<std::pair<uint32_t, std::string>> out;
  std::istringstream in(text);
  std::string line;
  uint32_t n = 0;
  while (std::getline(in, line)) {
    ++n;
    const auto at = line.find("# planted:");
    if (at == std::string::npos) continue;
    std::istringstream codes(line.substr(at + 10));
    std::string code;
    while (std::getline(codes, code, ',')) {
      const auto b = code.find_first_not_of(" \t\r");
      const auto e = code.find_last_not_of(" \t\r");
      if (b != std::string::npos) out.emplace(n, code.substr(b, e - b + 1));
    }
  }
  return out;
}

class Example : public ::testing::TestWithParam<std::string> {};

TEST_P(Example, ReportsExactlyThePlantedAntiPatterns) {
  const fs::path path = fs::path(PERFLINT_SOURCE_DIR) / "examples" / GetParam();
  const std::string text = slurp(path);
  ASSERT_FALSE(text.empty()) << path;
  const auto expected = plants(text);
  ts::Parser parser;
  FileProjectContext project;  // as the command line lints them: the rest of the repository around
  FileResult r = lint_buffer(path.string(), text, make_rule_set({}, {}), parser, &project);
  EXPECT_TRUE(r.errors.empty());
  std::set<std::pair<uint32_t, std::string>> actual;
  for (const auto& f : r.findings) actual.emplace(f.span.start.line, std::string(f.rule->code));
  for (const auto& e : expected)
    if (!actual.count(e)) ADD_FAILURE() << GetParam() << ":" << e.first << ": planted " << e.second << " not found";
  for (const auto& f : r.findings)
    if (!expected.count({f.span.start.line, std::string(f.rule->code)}))
      ADD_FAILURE() << GetParam() << ":" << f.span.start.line << ": unexpected " << f.rule->code << ": " << f.message;
}

INSTANTIATE_TEST_SUITE_P(Examples, Example, ::testing::Values("train.py", "train_lm.py", "clean_train.py"));

}  // namespace
}  // namespace perflint
