// Replays the committed fuzz corpus (tests/fuzz/corpus/TARGET/: seeds and every crash found so far)
// through the fuzz targets' checks (tests/fuzz/oracles.hpp), so that a fixed crash stays fixed in
// every build, not only in the clang fuzz build. A crash here is a failure of this test.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "cli_support.hpp"
#include "fuzz/oracles.hpp"

namespace fs = std::filesystem;

namespace perflint {
namespace {

std::vector<fs::path> corpus(const std::string& target) {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(fs::path(PERFLINT_SOURCE_DIR) / "tests" / "fuzz" / "corpus" / target))
    if (e.is_regular_file()) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

template <class Check>
void replay(const std::string& target, Check check) {
  const auto files = corpus(target);
  EXPECT_FALSE(files.empty()) << "tests/fuzz/corpus/" << target << " has no inputs";
  for (const auto& f : files) {
    SCOPED_TRACE(f.string());
    EXPECT_EQ(check(testing::slurp(f.string())), "");
  }
}

TEST(FuzzCorpus, Lint) {
  ts::Parser parser;
  replay("lint", [&](const std::string& in) { return fuzz::lint_one(in, parser); });
}

TEST(FuzzCorpus, Fix) {
  ts::Parser parser;
  replay("fix", [&](const std::string& in) { return fuzz::fix_one(in, parser); });
}

TEST(FuzzCorpus, Config) { replay("config", fuzz::config_one); }

TEST(FuzzCorpus, Evidence) { replay("evidence", fuzz::evidence_one); }

}  // namespace
}  // namespace perflint
