// ruff parity on the command line: --quiet/--silent, --show-settings, --show-files, .gitignore in
// discovery (--no-respect-gitignore), --statistics as JSON, GitHub annotation paths relative to the
// repository root. End to end against the built binary, in scratch trees.
#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <string>

#include "cli/gitignore.hpp"
#include "cli_support.hpp"

namespace perflint {
namespace {

using testing::contains;
using testing::run_perflint;
using testing::TempDir;

const std::string kFinding =
    "import torch\n"
    "from torch.utils.data import DataLoader\n"
    "torch.backends.cuda.matmul.allow_tf32 = True\n"
    "loader = DataLoader(ds, batch_size=8, num_workers=0)\n"
    "model = Net().cuda()\n"
    "for x, y in loader:\n"
    "    loss = model(x.cuda(), y.cuda())\n"
    "    loss.backward()\n";

TEST(Gitignore, ParsesGitsSyntax) {
  const auto rules = parse_gitignore("# comment\n\n/build/\n*.log  \n!keep.log\n\\#hash\ndocs/*.py\n\\!bang\nfoo\\ \r\n");
  ASSERT_EQ(rules.size(), 7u);
  EXPECT_EQ(rules[0].pattern, "build");
  EXPECT_TRUE(rules[0].dir_only);
  EXPECT_TRUE(rules[0].anchored);
  EXPECT_EQ(rules[1].pattern, "*.log");  // trailing blanks dropped
  EXPECT_FALSE(rules[1].anchored);
  EXPECT_TRUE(rules[2].negate);
  EXPECT_EQ(rules[3].pattern, "#hash");
  EXPECT_TRUE(rules[4].anchored);
  EXPECT_EQ(rules[5].pattern, "!bang");
  EXPECT_FALSE(rules[5].negate);
  EXPECT_EQ(rules[6].pattern, "foo ");  // an escaped trailing blank stays
}

TEST(Gitignore, MatchesAsGitDoes) {
  auto rule = [](const char* line) { return parse_gitignore(line).at(0); };
  EXPECT_TRUE(ignore_rule_matches(rule("gen.py"), "a/b/gen.py", false));       // any depth
  EXPECT_FALSE(ignore_rule_matches(rule("/gen.py"), "a/gen.py", false));       // anchored
  EXPECT_TRUE(ignore_rule_matches(rule("/gen.py"), "gen.py", false));
  EXPECT_FALSE(ignore_rule_matches(rule("out/"), "out", false));               // directories only
  EXPECT_TRUE(ignore_rule_matches(rule("out/"), "x/out", true));
  EXPECT_TRUE(ignore_rule_matches(rule("a/*.py"), "a/x.py", false));
  EXPECT_FALSE(ignore_rule_matches(rule("a/*.py"), "a/b/x.py", false));        // * stops at /
  EXPECT_TRUE(ignore_rule_matches(rule("a/**/x.py"), "a/x.py", false));        // **/ may be no directory
  EXPECT_TRUE(ignore_rule_matches(rule("a/**/x.py"), "a/b/c/x.py", false));
  EXPECT_TRUE(ignore_rule_matches(rule("**/gen"), "p/q/gen", true));
  EXPECT_TRUE(ignore_rule_matches(rule("exp_[0-9]*"), "runs/exp_3", true));
}

// A work tree as git lays it out (a .git directory is all discovery looks for).
struct Repo {
  TempDir dir;
  Repo() {
    dir.mkdir(".git/info");
    dir.write("train.py", kFinding);
    dir.write("build/gen.py", kFinding);
    dir.write("pkg/model.py", kFinding);
    dir.write("pkg/generated/big.py", kFinding);
    dir.write("pkg/keep/kept.py", kFinding);
    dir.write("scratch.py", kFinding);
    dir.write(".gitignore", "/build/\n*.tmp\n");
    dir.write("pkg/.gitignore", "generated/\nkeep/*\n!keep/kept.py\n");
    dir.write(".git/info/exclude", "scratch.py\n");
  }
};

TEST(Discovery, RespectsGitignoreInAWorkTree) {
  Repo repo;
  auto r = run_perflint({"--isolated", "--show-files"}, repo.dir.str());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "pkg/keep/kept.py\npkg/model.py\ntrain.py\n");  // build/, generated/, scratch.py ignored
  auto all = run_perflint({"--isolated", "--show-files", "--no-respect-gitignore"}, repo.dir.str());
  EXPECT_EQ(all.out, "build/gen.py\npkg/generated/big.py\npkg/keep/kept.py\npkg/model.py\nscratch.py\ntrain.py\n");
  // The config key does the same; the command line can only turn it off.
  repo.dir.write("pyproject.toml", "[tool.perflint]\nrespect-gitignore = false\n");
  EXPECT_EQ(run_perflint({"--show-files"}, repo.dir.str()).out, all.out);
  // Starting below the root, the root's .gitignore and info/exclude still apply; a file named on the
  // command line is linted whatever .gitignore says (as ruff).
  auto sub = run_perflint({"--isolated", "--show-files", "pkg", "build/gen.py"}, repo.dir.str());
  EXPECT_EQ(sub.out, "build/gen.py\npkg/keep/kept.py\npkg/model.py\n") << sub.err;
  // What is ignored is not linted either.
  auto lint = run_perflint({"--isolated", "--no-show-source", "."}, repo.dir.str());
  EXPECT_FALSE(contains(lint.out, "build/gen.py")) << lint.out;
  EXPECT_TRUE(contains(lint.out, "3 files checked")) << lint.out;
}

TEST(Discovery, GitignoreOnlyAppliesInsideAWorkTree) {
  TempDir dir;
  dir.write("a.py", kFinding);
  dir.write("gen/b.py", kFinding);
  dir.write(".gitignore", "gen/\n");  // no .git: not a work tree
  EXPECT_EQ(run_perflint({"--isolated", "--show-files"}, dir.str()).out, "a.py\ngen/b.py\n");
  // A nested repository keeps its own rules; the outer ones stop at it.
  dir.mkdir("outer/.git");
  dir.write("outer/.gitignore", "*.py\n!keep.py\n");
  dir.write("outer/keep.py", kFinding);
  dir.write("outer/drop.py", kFinding);
  dir.mkdir("outer/inner/.git");
  dir.write("outer/inner/c.py", kFinding);
  auto r = run_perflint({"--isolated", "--show-files", "outer"}, dir.str());
  EXPECT_EQ(r.out, "outer/inner/c.py\nouter/keep.py\n") << r.err;
}

TEST(CliParity, QuietAndSilent) {
  TempDir dir;
  dir.write("train.py", kFinding);
  auto loud = run_perflint({"--isolated", "train.py"}, dir.str());
  ASSERT_TRUE(contains(loud.out, "Found 5 findings")) << loud.out;
  auto quiet = run_perflint({"--isolated", "-q", "train.py"}, dir.str());
  EXPECT_EQ(quiet.exit_code, 1);
  EXPECT_TRUE(contains(quiet.out, "PFL101")) << quiet.out;
  EXPECT_FALSE(contains(quiet.out, "Found")) << quiet.out;
  EXPECT_FALSE(contains(quiet.out, "fixable")) << quiet.out;
  auto silent = run_perflint({"--isolated", "--silent", "train.py"}, dir.str());
  EXPECT_EQ(silent.exit_code, 1);
  EXPECT_EQ(silent.out, "");
  EXPECT_EQ(silent.err, "");
  // Errors still reach stderr, and -o still gets the report.
  auto missing = run_perflint({"--isolated", "-s", "nope.py"}, dir.str());
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_TRUE(contains(missing.err, "nope.py")) << missing.err;
  auto to_file = run_perflint({"--isolated", "-s", "-o", "out.txt", "train.py"}, dir.str());
  EXPECT_EQ(to_file.exit_code, 1);
  EXPECT_TRUE(contains(testing::slurp((dir.path() / "out.txt").string()), "PFL101"));
  // --diff -q: the diff, without the "Would fix" line.
  auto diff = run_perflint({"--isolated", "-q", "--diff", "train.py"}, dir.str());
  EXPECT_TRUE(contains(diff.out, "+++ b/train.py")) << diff.out;
  EXPECT_EQ(diff.err, "");
}

TEST(CliParity, ShowSettingsSaysWhereEachValueComesFrom) {
  TempDir dir;
  dir.write("pyproject.toml",
            "[tool.perflint]\nselect = [\"PFL1\"]\nignore = [\"PFL105\"]\nexclude = [\"legacy/*\"]\n"
            "per-file-ignores = { \"tests/*\" = [\"PFL101\"] }\nseverity = { PFL101 = \"error\" }\nsteps = 7\n");
  auto r = run_perflint({"--show-settings", "--warmup", "2"}, dir.str());
  // --warmup goes with --probe only.
  EXPECT_EQ(r.exit_code, 2);
  r = run_perflint({"--show-settings"}, dir.str());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "pyproject.toml")) << r.out;
  EXPECT_TRUE(contains(r.out, "enabled rules       4: PFL101 PFL102 PFL103 PFL104\n")) << r.out;
  EXPECT_TRUE(contains(r.out, "\"tests/*\" = PFL101")) << r.out;
  EXPECT_TRUE(contains(r.out, "legacy/*")) << r.out;
  EXPECT_TRUE(contains(r.out, "PFL101 = error")) << r.out;
  EXPECT_TRUE(contains(r.out, "probe steps         7 (config)")) << r.out;
  auto cli = run_perflint({"--show-settings", "--select", "PFL2", "--isolated"}, dir.str());
  EXPECT_TRUE(contains(cli.out, "none (--isolated)")) << cli.out;
  EXPECT_FALSE(contains(cli.out, "PFL101")) << cli.out;
  EXPECT_EQ(run_perflint({"--show-settings", "--fix"}, dir.str()).exit_code, 2);
}

TEST(CliParity, StatisticsAsJson) {
  TempDir dir;
  dir.write("a.py", kFinding);
  dir.write("b.py", kFinding);
  auto r = run_perflint({"--isolated", "--statistics", "--output-format", "json", "."}, dir.str());
  EXPECT_EQ(r.exit_code, 1);
  // PFL103 four times (two per file: the most) first; PFL102 (pin_memory, a safe fix) fixable.
  EXPECT_TRUE(contains(r.out, "[\n  {\n    \"code\": \"PFL103\",\n    \"name\": \"blocking-h2d-copy\",\n    \"count\": 4,"))
      << r.out;
  EXPECT_TRUE(contains(r.out, "\"code\": \"PFL102\",\n    \"name\": \"dataloader-unpinned\",\n    \"count\": 2,\n"
                              "    \"fixable\": true,\n    \"fixable_count\": 2")) << r.out;
  EXPECT_EQ(run_perflint({"--isolated", "--statistics", "--output-format", "sarif", "."}, dir.str()).exit_code, 2);
}

TEST(CliParity, GithubAnnotationsUseRepositoryRelativePaths) {
  TempDir dir;
  dir.mkdir(".git");
  dir.write("src/pkg/train.py", kFinding);
  // Run from a subdirectory: the runner needs the path from the repository root.
  auto r = run_perflint({"--isolated", "--output-format", "github", "train.py"}, (dir.path() / "src/pkg").string());
  EXPECT_TRUE(contains(r.out, "::warning file=src/pkg/train.py,line=4,col=10,")) << r.out;
}

const std::string kSuppressed =
    "import torch\n"
    "model = Net().cuda()\n"
    "for x in loader:\n"
    "    loss = model(x)\n"
    "    print(loss.item())  # noqa: PFL2O1, E501\n"
    "    v = loss.item()  # perflint: ignore[per-step-itme]\n"
    "    w = loss.detach()  # noqa: PFL201\n"
    "    u = loss.item()  # noqa: PFL201, E501\n"
    "    loss.backward()\n";

// A typo in a suppression suppresses nothing and says so on stderr, with the line and a suggestion.
TEST(CliParity, UnknownCodesInSuppressionsAreReported) {
  TempDir dir;
  dir.write("train.py", kSuppressed);
  auto r = run_perflint({"--isolated", "--no-show-source", "train.py"}, dir.str());
  EXPECT_TRUE(contains(r.out, "train.py:5:11: PFL201")) << r.out;  // not hidden by the mistyped noqa
  EXPECT_TRUE(contains(r.out, "train.py:6:9: PFL201")) << r.out;
  EXPECT_FALSE(contains(r.out, "train.py:8:")) << r.out;            // a correct noqa still works
  EXPECT_TRUE(contains(r.err, "train.py:5:25: notice: unknown rule code 'PFL2O1' in `# noqa`: it suppresses nothing "
                              "(did you mean 'PFL201'?)")) << r.err;
  EXPECT_TRUE(contains(r.err, "train.py:6:22: notice: unknown rule code 'per-step-itme' in `# perflint: ignore`"))
      << r.err;
  EXPECT_FALSE(contains(r.err, "E501")) << r.err;
  EXPECT_EQ(run_perflint({"--isolated", "-q", "train.py"}, dir.str()).err, "");
}

// PFL001 alone: the rules a suppression names run in the background to tell used from unused.
TEST(CliParity, UnusedSuppressionWorksAsTheOnlySelectedRule) {
  TempDir dir;
  dir.write("train.py", kSuppressed);
  auto r = run_perflint({"--isolated", "--no-show-source", "--select", "PFL001", "train.py"}, dir.str());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(contains(r.out, "train.py:7:24: PFL001 [info] suppression of PFL201 matches no finding on this line"))
      << r.out;
  EXPECT_FALSE(contains(r.out, "train.py:8:")) << r.out;  // used: PFL201 is there
  EXPECT_TRUE(contains(r.out, "train.py:5:25: PFL001 [info] suppression names 'PFL2O1', which is no perflint rule"))
      << r.out;
  EXPECT_FALSE(contains(r.out, "PFL201 [")) << r.out;     // the background rule's findings are not reported
  EXPECT_TRUE(contains(r.out, "Found 3 findings")) << r.out;
  // With the rule selected the unknown codes are findings, not notices as well.
  EXPECT_FALSE(contains(r.err, "unknown rule code")) << r.err;
}

// Every option and subcommand `perflint --help` lists is completed by the bash, zsh and fish
// completions and documented in the man page, so that they cannot drift apart.
TEST(CliParity, CompletionsAndManPageCoverEveryOption) {
  auto help = run_perflint({"--help"});
  ASSERT_EQ(help.exit_code, 0);
  // The "Options:" section (the examples after it also show the script's and calibrate's own flags).
  const size_t from = help.out.find("Options:"), to = help.out.find("Subcommands:");
  ASSERT_TRUE(from != std::string::npos && to != std::string::npos && from < to) << help.out;
  const std::string section = help.out.substr(from, to - from);
  std::set<std::string> options;
  const std::regex flag(R"((^|[ ,])(--[a-z][a-z0-9-]+))");
  for (std::sregex_iterator it(section.begin(), section.end(), flag), end; it != end; ++it) options.insert((*it)[2]);
  ASSERT_GT(options.size(), 30u) << section;
  const std::string root = std::string(PERFLINT_SOURCE_DIR) + "/packaging/";
  std::string man = testing::slurp(root + "perflint.1");
  man = std::regex_replace(man, std::regex(R"(\\-)"), "-");
  const std::pair<std::string, std::string> files[] = {
      {"perflint.bash", testing::slurp(root + "completions/perflint.bash")},
      {"_perflint", testing::slurp(root + "completions/_perflint")},
      {"perflint.fish", std::regex_replace(testing::slurp(root + "completions/perflint.fish"),
                                           std::regex(R"(-l ([a-z0-9-]+))"), "--$1")},
      {"perflint.1", man}};
  for (const auto& [name, text] : files) {
    for (const auto& o : options) {
      if (o == "--help" || o == "--version") continue;
      EXPECT_TRUE(contains(text, o)) << o << " is missing from " << name;
    }
    for (const char* sub : {"rules", "rule", "calibrate", "compare", "server", "probe-merge"})
      EXPECT_TRUE(contains(text, sub)) << "subcommand " << sub << " is missing from " << name;
  }
}

}  // namespace
}  // namespace perflint
