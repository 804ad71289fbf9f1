// Rule docs: every rule has docs/rules/<CODE>.md with the fixed headings in order (STYLE.md rule 8),
// the embedded copy in the binary is the file on disk (no drift), and the title names the rule.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/cli_support.hpp"
#include "rules/docs.hpp"
#include "rules/registry.hpp"

namespace fs = std::filesystem;
using perflint::testing::slurp;

namespace perflint {
namespace {

TEST(RuleDocs, EveryRuleHasAPageWithTheFixedHeadingsInOrder) {
  for (const auto& r : all_rules()) {
    const RuleInfo& i = r->info();
    const fs::path page = fs::path(PERFLINT_SOURCE_DIR) / "docs" / "rules" / (std::string(i.code) + ".md");
    ASSERT_TRUE(fs::exists(page)) << "missing " << page;
    const std::string md = slurp(page);
    EXPECT_EQ(md.rfind("# " + std::string(i.code) + " " + std::string(i.name) + "\n", 0), 0u)
        << page << " must start with '# " << i.code << " " << i.name << "'";
    size_t last = 0;
    for (auto h : required_doc_headings()) {
      const size_t at = md.find("\n## " + std::string(h) + "\n");
      ASSERT_NE(at, std::string::npos) << page << " lacks '## " << h << "'";
      EXPECT_GT(at, last) << page << ": '## " << h << "' is out of order";
      last = at;
      EXPECT_FALSE(doc_section(md, h).empty()) << page << ": '## " << h << "' is empty";
    }
  }
}

TEST(RuleDocs, EmbeddedDocsAreTheFilesOnDisk) {
  for (const auto& d : embedded_rule_docs()) {
    const fs::path page = fs::path(PERFLINT_SOURCE_DIR) / "docs" / "rules" / (std::string(d.code) + ".md");
    EXPECT_EQ(std::string(d.markdown), slurp(page)) << page << " changed since the build: re-run cmake";
    EXPECT_NE(find_rule(d.code), nullptr) << page << " documents no rule";
  }
}

TEST(RuleDocs, SectionsAndPlainText) {
  const std::string md = "# PFL999 x\n\nSummary.\n\n## What it does\nFinds x.\n\n## Example\n```python\nx = 1\n```\n";
  EXPECT_EQ(doc_section(md, "What it does"), "Finds x.");
  EXPECT_EQ(doc_section(md, "Nope"), "");
  const std::string plain = doc_plain_text(md);
  EXPECT_EQ(plain.find("```"), std::string::npos);
  EXPECT_NE(plain.find("What it does:"), std::string::npos);
  EXPECT_NE(plain.find("x = 1"), std::string::npos);
}

}  // namespace
}  // namespace perflint
