// Configuration: every accepted form, every error path (with file, line and key in the message),
// discovery precedence across directories, and the glob matcher behind exclude/per-file-ignores.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "cli/config.hpp"
#include "rules/registry.hpp"

namespace perflint {
namespace {

namespace fs = std::filesystem;

Config parse_ok(const std::string& path, const std::string& text) {
  auto cfg = parse_config(path, text);
  EXPECT_TRUE(cfg.ok()) << (cfg.ok() ? "" : cfg.error().message);
  return cfg.ok() ? *cfg : Config{};
}

std::string parse_err(const std::string& path, const std::string& text) {
  auto cfg = parse_config(path, text);
  EXPECT_FALSE(cfg.ok()) << "expected an error for:\n" << text;
  return cfg.ok() ? std::string() : cfg.error().message;
}

TEST(Config, PerflintTomlTopLevel) {
  Config c = parse_ok("proj/perflint.toml", R"(
select = ["ALL"]
extend-select = ["PFL"]
ignore = ["PFL1", "pfl20"]
exclude = ["tests/*", "legacy_*.py"]
max-file-size = 2048
steps = 20
warmup = 0
timeout = 120
python = "/usr/bin/python3"

[per-file-ignores]
"tests/**" = ["PFL2"]
"scripts/*.py" = ["ALL", "PFL1"]
)");
  EXPECT_EQ(c.path, "proj/perflint.toml");
  EXPECT_EQ(c.root, "proj");
  EXPECT_EQ(c.select, (std::vector<std::string>{"ALL"}));
  EXPECT_EQ(c.extend_select, (std::vector<std::string>{"PFL"}));
  EXPECT_EQ(c.ignore, (std::vector<std::string>{"PFL1", "pfl20"}));
  EXPECT_EQ(c.exclude, (std::vector<std::string>{"tests/*", "legacy_*.py"}));
  EXPECT_EQ(c.max_file_size, 2048u);
  EXPECT_EQ(c.steps, 20);
  EXPECT_EQ(c.warmup, 0);
  EXPECT_EQ(c.timeout, 120);
  EXPECT_EQ(c.python, "/usr/bin/python3");
  ASSERT_EQ(c.per_file_ignores.size(), 2u);
  // toml++ keeps table keys sorted.
  EXPECT_EQ(c.per_file_ignores[0].pattern, "scripts/*.py");
  EXPECT_EQ(c.per_file_ignores[0].selectors, (std::vector<std::string>{"ALL", "PFL1"}));
  EXPECT_EQ(c.per_file_ignores[1].pattern, "tests/**");
  EXPECT_EQ(c.per_file_ignores[1].selectors, (std::vector<std::string>{"PFL2"}));
}

TEST(Config, ProbeViewsNextToTheReport) {
  const Config c = parse_ok("perflint.toml", "report-html = true\ntrace = false\n");
  EXPECT_TRUE(c.report_html);
  EXPECT_FALSE(c.trace);
  EXPECT_FALSE(parse_ok("perflint.toml", "").report_html);
}

TEST(Config, DefaultsWhenKeysAbsent) {
  Config c = parse_ok(".perflint.toml", "");
  EXPECT_EQ(c.path, ".perflint.toml");
  EXPECT_EQ(c.root, ".");
  EXPECT_TRUE(c.select.empty());
  EXPECT_EQ(c.max_file_size, 10ull * 1024 * 1024);
  EXPECT_FALSE(c.steps.has_value());
  EXPECT_FALSE(c.python.has_value());
}

TEST(Config, PyprojectReadsOnlyToolPerflint) {
  Config c = parse_ok("pyproject.toml", R"(
[project]
name = "x"
select = "not ours, never read"

[tool.ruff]
select = ["E"]

[tool.perflint]
ignore = ["PFL2"]
max-file-size = "512KiB"
)");
  EXPECT_EQ(c.path, "pyproject.toml");
  EXPECT_TRUE(c.select.empty());
  EXPECT_EQ(c.ignore, (std::vector<std::string>{"PFL2"}));
  EXPECT_EQ(c.max_file_size, 512u * 1024);
}

TEST(Config, PyprojectWithoutTableIsNotAConfig) {
  Config c = parse_ok("a/pyproject.toml", "[tool.ruff]\nselect = [\"E\"]\n");
  EXPECT_TRUE(c.path.empty());
}

TEST(Config, SizeForms) {
  EXPECT_EQ(parse_ok("perflint.toml", "max-file-size = \"10MiB\"").max_file_size, 10ull << 20);
  EXPECT_EQ(parse_ok("perflint.toml", "max-file-size = \"2MB\"").max_file_size, 2000000u);
  EXPECT_EQ(parse_ok("perflint.toml", "max-file-size = \"1 GiB\"").max_file_size, 1ull << 30);
  EXPECT_EQ(parse_ok("perflint.toml", "max-file-size = \"1.5KiB\"").max_file_size, 1536u);
  EXPECT_EQ(parse_ok("perflint.toml", "max-file-size = \"300\"").max_file_size, 300u);
  EXPECT_EQ(parse_ok("perflint.toml", "max-file-size = \"7kb\"").max_file_size, 7000u);
}

TEST(Config, SeverityByCodeAndName) {
  // Rules land in the registry separately; with none yet, only the error path can be exercised.
  if (all_rules().empty()) GTEST_SKIP() << "no rules registered yet";
  const RuleInfo& info = all_rules().front()->info();
  Config c = parse_ok("perflint.toml", "[severity]\n\"" + std::string(info.name) + "\" = \"error\"\n");
  ASSERT_EQ(c.severity.size(), 1u);
  EXPECT_EQ(c.severity.begin()->first, info.code);  // stored by code
  EXPECT_EQ(c.severity.begin()->second, Severity::Error);
  Config d = parse_ok("perflint.toml", "severity = { " + std::string(info.code) + " = \"info\" }\n");
  EXPECT_EQ(d.severity.at(std::string(info.code)), Severity::Info);
}

TEST(ConfigErrors, UnknownKeySuggestsTheRightOne) {
  std::string e = parse_err("pyproject.toml", "[project]\nname = \"x\"\n\n[tool.perflint]\nselct = [\"ALL\"]\n");
  EXPECT_EQ(e, "pyproject.toml:5:1: unknown key 'selct' in [tool.perflint] (did you mean 'select'?)");
  e = parse_err("perflint.toml", "max_file_size = 3\n");
  EXPECT_EQ(e, "perflint.toml:1:1: unknown key 'max_file_size' (did you mean 'max-file-size'?)");
  e = parse_err("perflint.toml", "\n\ncompletely-unrelated = 1\n");
  EXPECT_EQ(e, "perflint.toml:3:1: unknown key 'completely-unrelated'");
}

TEST(ConfigErrors, WrongTypes) {
  EXPECT_EQ(parse_err("perflint.toml", "select = \"ALL\"\n"),
            "perflint.toml:1:10: 'select' must be an array of strings, got a string");
  EXPECT_EQ(parse_err("perflint.toml", "\nignore = [\"ALL\", 3]\n"),
            "perflint.toml:2:18: 'ignore' must be an array of strings, got an integer in it");
  EXPECT_EQ(parse_err("perflint.toml", "exclude = 1\n"),
            "perflint.toml:1:11: 'exclude' must be an array of strings, got an integer");
  EXPECT_EQ(parse_err("perflint.toml", "per-file-ignores = [\"a\"]\n"),
            "perflint.toml:1:20: 'per-file-ignores' must be a table of glob = [rules], got an array");
  std::string e = parse_err("perflint.toml", "[per-file-ignores]\n\"tests/*\" = \"PFL1\"\n");
  EXPECT_EQ(e, "perflint.toml:2:13: 'per-file-ignores.\"tests/*\"' must be an array of strings, got a string");
  EXPECT_EQ(parse_err("perflint.toml", "steps = 0\n"), "perflint.toml:1:9: 'steps' must be an integer > 0, got 0");
  EXPECT_EQ(parse_err("perflint.toml", "steps = 2.5\n"), "perflint.toml:1:9: 'steps' must be an integer > 0, got 2.5");
  EXPECT_EQ(parse_err("perflint.toml", "warmup = -1\n"), "perflint.toml:1:10: 'warmup' must be an integer >= 0, got -1");
  EXPECT_EQ(parse_err("perflint.toml", "timeout = \"60\"\n"),
            "perflint.toml:1:11: 'timeout' must be a number of seconds > 0, got \"60\"");
  EXPECT_EQ(parse_err("perflint.toml", "python = 3\n"),
            "perflint.toml:1:10: 'python' must be the path or name of a Python executable, got 3");
  EXPECT_EQ(parse_err("perflint.toml", "report-html = \"yes\"\n"),
            "perflint.toml:1:15: 'report-html' must be true or false, got \"yes\"");
  EXPECT_EQ(parse_err("perflint.toml", "trace = 1\n"), "perflint.toml:1:9: 'trace' must be true or false, got 1");
  EXPECT_EQ(parse_err("pyproject.toml", "[tool]\nperflint = 1\n"),
            "pyproject.toml:2:12: 'tool.perflint' must be a table, got an integer");
}

TEST(ConfigErrors, BadSelector) {
  std::string e = parse_err("pyproject.toml", "[tool.perflint]\nselect = [\"PFL\", \"XYZ123\"]\n");
  EXPECT_EQ(e, "pyproject.toml:2:18: 'select': unknown rule 'XYZ123'");
  // A full code that no rule has is unknown; only prefixes are accepted ahead of the registry.
  e = parse_err("perflint.toml", "extend-select = [\"PFL999\"]\n");
  EXPECT_EQ(e, "perflint.toml:1:18: 'extend-select': unknown rule 'PFL999'");
  e = parse_err("perflint.toml", "[per-file-ignores]\n\"a.py\" = [\"bogus-name\"]\n");
  EXPECT_EQ(e, "perflint.toml:2:11: 'per-file-ignores.\"a.py\"': unknown rule 'bogus-name'");
  if (all_rules().empty()) return;
  const std::string name(all_rules().front()->info().name);
  const std::string typo = name.substr(0, name.size() - 1);
  e = parse_err("perflint.toml", "ignore = [\"" + typo + "\"]\n");
  EXPECT_EQ(e, "perflint.toml:1:11: 'ignore': unknown rule '" + typo + "' (did you mean '" + name + "'?)");
  // A registered name or code is accepted as it is.
  EXPECT_EQ(parse_ok("perflint.toml", "ignore = [\"" + name + "\"]\n").ignore, std::vector<std::string>{name});
}

TEST(ConfigErrors, BadSeverity) {
  std::string e = parse_err("perflint.toml", "[severity]\nXYZ123 = \"error\"\n");
  EXPECT_EQ(e, "perflint.toml:2:1: 'severity': unknown rule 'XYZ123'");
  EXPECT_EQ(parse_err("perflint.toml", "severity = [\"error\"]\n"),
            "perflint.toml:1:12: 'severity' must be a table of rule = \"info\"|\"warning\"|\"error\", got an array");
  if (all_rules().empty()) return;
  const std::string code(all_rules().front()->info().code);
  EXPECT_EQ(parse_err("perflint.toml", "[severity]\n" + code + " = \"fatal\"\n"),
            "perflint.toml:2:10: 'severity." + code + "' must be \"info\", \"warning\" or \"error\", got \"fatal\"");
}

TEST(ConfigErrors, BadSize) {
  EXPECT_EQ(parse_err("perflint.toml", "\n\nmax-file-size = \"ten\"\n"),
            "perflint.toml:3:17: 'max-file-size' must be a size like 10485760 or \"10MiB\", got \"ten\"");
  EXPECT_EQ(parse_err("perflint.toml", "max-file-size = -5\n"),
            "perflint.toml:1:17: 'max-file-size' must be a size like 10485760 or \"10MiB\", got -5");
  for (const char* bad : {"\"10 parsecs\"", "\"\"", "\"MiB\"", "\"1..5MB\"", "\"0\"", "true", "\"1000000000000000000000000000000000000000000 MB\""})
    EXPECT_NE(parse_err("perflint.toml", std::string("max-file-size = ") + bad).find("'max-file-size' must be"),
              std::string::npos)
        << bad;
}

TEST(ConfigErrors, TomlSyntax) {
  std::string e = parse_err("perflint.toml", "select = [\"ALL\"]\n\n\nignore = [\"PFL1\"\n");
  EXPECT_EQ(e.rfind("perflint.toml:", 0), 0u) << e;
  EXPECT_NE(e.find(": invalid TOML: "), std::string::npos) << e;
  e = parse_err("pyproject.toml", "[tool.perflint]\nsteps = = 3\n");
  EXPECT_EQ(e.rfind("pyproject.toml:2:", 0), 0u) << e;
  EXPECT_NE(e.find("invalid TOML"), std::string::npos);
}

// Issue 11 #8: config bytes are checked before toml++ 3.3 sees them (it has undefined behaviour on
// some non-ASCII input, e.g. the three bytes EF B0 9E): the error names the place.
TEST(ConfigErrors, BytesAreCheckedBeforeTomlSeesThem) {
  std::string e = parse_err("perflint.toml", "\xEF\xB0\x9E");
  EXPECT_EQ(e, "perflint.toml:1:1: non-ASCII character outside a string or a comment") << e;
  e = parse_err("perflint.toml", "select = [\"ALL\"]\nignore = [\"PFL1\xFF\"]\n");
  EXPECT_EQ(e, "perflint.toml:2:16: invalid UTF-8 (byte 0xFF); a config file must be UTF-8") << e;
  e = parse_err("perflint.toml", "exclude = [\"\xED\xA0\x80\"]\n");  // a UTF-16 surrogate
  EXPECT_NE(e.find("perflint.toml:1:13: invalid UTF-8 (byte 0xED)"), std::string::npos) << e;
  e = parse_err("perflint.toml", "exclude = [\"\xC0\xAF\"]\n");  // an overlong '/'
  EXPECT_NE(e.find("invalid UTF-8 (byte 0xC0)"), std::string::npos) << e;
  // toml++ upstream issue 190: a non-ASCII character right after a line-ending backslash.
  e = parse_err("perflint.toml", "python = \"\"\"\\\n  \xC2\xA7\"\"\"\n");
  EXPECT_NE(e.find("perflint.toml:1:13: non-ASCII character right after a line-ending backslash"), std::string::npos)
      << e;
  // A quote where TOML allows no string (found by fuzzing with toml++ compiled in, under UBSan): toml++
  // reads `9"=l...` as one bare value and looks up the non-ASCII code point as whitespace.
  e = parse_err("perflint.toml", "ignore = 9\"=l\xEF\xB5\xBFgnore = 9\"= rl]\n");
  EXPECT_EQ(e, "perflint.toml:1:14: non-ASCII character outside a string or a comment") << e;
  e = parse_err("perflint.toml", "snore = 9.\"=l\xEF\xB5\xBFgnr#\" = 9\"= rl]\n");  // the quote inside a bare value
  EXPECT_EQ(e, "perflint.toml:1:14: non-ASCII character outside a string or a comment") << e;
  // A multi-line string on its own line inside an array is a value (the line break is a blank there),
  // also after a comment: what follows its end is code (fuzz_config under UBSan, 2026-11-27).
  e = parse_err("perflint.toml", "exclude = [\"a\", \n\"\"\"=\"\"\"\xEF\xB0\x9E]\n");
  EXPECT_EQ(e, "perflint.toml:2:8: non-ASCII character outside a string or a comment") << e;
  e = parse_err("perflint.toml", "exclude = [\"a\", # note\n\"\"\"=\"\"\"\xEF\xB0\x9E]\n");
  EXPECT_EQ(e, "perflint.toml:2:8: non-ASCII character outside a string or a comment") << e;
  EXPECT_EQ(parse_ok("perflint.toml", "exclude = [\n  \"a\",\n  \"\"\"b\xC3\xA9\"\"\",\n]\n").exclude.size(), 2u);
  // Quoted keys, dotted keys and inline tables still open strings.
  EXPECT_EQ(parse_ok("perflint.toml", "\"severity\" = {\"PFL501\" = 'warning'}  # caf\xC3\xA9\n").severity.size(), 1u);
  // Non-ASCII in strings and comments is fine, and so is a BOM.
  Config c = parse_ok("perflint.toml",
                      "\xEF\xBB\xBF# r\xC3\xA9sum\xC3\xA9\nexclude = [\"donn\xC3\xA9"
                      "es/**\", 'caf\xC3\xA9', \"\"\"\xE2\x82\xAC\"\"\"]\n");
  ASSERT_EQ(c.exclude.size(), 3u);
  EXPECT_EQ(c.exclude[0], "donn\xC3\xA9" "es/**");
}

// Issue 11 #15: a '[' never closed made the glob match nothing, silently.
TEST(ConfigErrors, UnclosedGlobClassIsAnError) {
  std::string e = parse_err("perflint.toml", "exclude = [\"build/**\", \"data/[ab.py\"]\n");
  EXPECT_EQ(e, "perflint.toml:1:24: 'exclude': the glob \"data/[ab.py\" has a '[' that is never closed "
               "(write [[] for a literal '[')") << e;
  e = parse_err("perflint.toml", "[per-file-ignores]\n\"tests/[x\" = [\"PFL2\"]\n");
  EXPECT_NE(e.find("perflint.toml:2:"), std::string::npos) << e;
  EXPECT_NE(e.find("never closed"), std::string::npos) << e;
  EXPECT_EQ(parse_ok("perflint.toml", "exclude = [\"[[]x\", \"[!a-c]*.py\"]\n").exclude.size(), 2u);
}

// A directory tree under /tmp, removed at the end of the test.
class TempTree : public ::testing::Test {
 protected:
  void SetUp() override {
    std::random_device rd;
    root_ = fs::temp_directory_path() / ("perflint_config_test_" + std::to_string(rd()));
    fs::create_directories(root_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }
  void write(const std::string& rel, const std::string& text) {
    const fs::path p = root_ / rel;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
  }
  std::string dir(const std::string& rel) {
    fs::create_directories(root_ / rel);
    return (root_ / rel).string();
  }
  fs::path root_;
};

TEST_F(TempTree, DiscoveryWalksUpToTheNearestConfig) {
  write("pyproject.toml", "[tool.perflint]\nsteps = 1\n");
  write("a/b/pyproject.toml", "[project]\nname = \"no perflint table here\"\n");
  auto cfg = discover_config(dir("a/b/c"));
  ASSERT_TRUE(cfg.ok()) << cfg.error().message;
  EXPECT_EQ(cfg->steps, 1);
  EXPECT_EQ(fs::path(cfg->root), root_);
  EXPECT_EQ(fs::path(cfg->path).filename(), "pyproject.toml");
}

TEST_F(TempTree, DiscoveryPrecedenceInOneDirectory) {
  write("p/pyproject.toml", "[tool.perflint]\nsteps = 1\n");
  write("p/perflint.toml", "steps = 2\n");
  write("p/.perflint.toml", "steps = 3\n");
  auto cfg = discover_config(dir("p"));
  ASSERT_TRUE(cfg.ok());
  EXPECT_EQ(cfg->steps, 3);
  fs::remove(root_ / "p/.perflint.toml");
  cfg = discover_config(dir("p"));
  ASSERT_TRUE(cfg.ok());
  EXPECT_EQ(cfg->steps, 2);
  fs::remove(root_ / "p/perflint.toml");
  cfg = discover_config(dir("p"));
  ASSERT_TRUE(cfg.ok());
  EXPECT_EQ(cfg->steps, 1);
}

TEST_F(TempTree, NearerDirectoryWinsOverPrecedence) {
  write(".perflint.toml", "steps = 9\n");
  write("sub/pyproject.toml", "[tool.perflint]\nsteps = 4\n");
  auto cfg = discover_config(dir("sub/deeper"));
  ASSERT_TRUE(cfg.ok());
  EXPECT_EQ(cfg->steps, 4);
  EXPECT_EQ(fs::path(cfg->root), root_ / "sub");
}

TEST_F(TempTree, DiscoveryReportsABadConfig) {
  write("perflint.toml", "stepz = 3\n");
  auto cfg = discover_config(dir("x"));
  ASSERT_FALSE(cfg.ok());
  EXPECT_NE(cfg.error().message.find("perflint.toml:1:1: unknown key 'stepz'"), std::string::npos)
      << cfg.error().message;
}

TEST_F(TempTree, LoadConfigReadsAndFailsCleanly) {
  write("perflint.toml", "warmup = 2\n");
  auto cfg = load_config((root_ / "perflint.toml").string());
  ASSERT_TRUE(cfg.ok());
  EXPECT_EQ(cfg->warmup, 2);
  EXPECT_EQ(fs::path(cfg->root), root_);
  auto missing = load_config((root_ / "nope.toml").string());
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("nope.toml: cannot read config"), std::string::npos);
  auto directory = load_config(root_.string());
  EXPECT_FALSE(directory.ok());
}

TEST(Glob, SegmentsAndBasenames) {
  EXPECT_TRUE(glob_match("tests/*", "tests/test_a.py"));
  EXPECT_TRUE(glob_match("tests/*", "tests/unit/test_a.py"));  // a matched directory covers its contents
  EXPECT_FALSE(glob_match("tests/*", "src/tests.py"));
  EXPECT_FALSE(glob_match("tests/*", "src/tests/test_a.py"));  // a '/' anchors the pattern
  EXPECT_TRUE(glob_match("legacy_*.py", "legacy_v1.py"));
  EXPECT_TRUE(glob_match("legacy_*.py", "pkg/sub/legacy_v1.py"));
  EXPECT_FALSE(glob_match("legacy_*.py", "pkg/legacy_v1.pyc"));
  EXPECT_TRUE(glob_match("**/generated/**", "a/b/generated/x.py"));
  EXPECT_TRUE(glob_match("**/generated/**", "generated/x.py"));
  EXPECT_FALSE(glob_match("**/generated/**", "a/generated.py"));
  EXPECT_TRUE(glob_match("src/**/train.py", "src/train.py"));
  EXPECT_TRUE(glob_match("src/**/train.py", "src/a/b/train.py"));
  EXPECT_FALSE(glob_match("src/**/train.py", "other/src/a/train.py"));
  EXPECT_TRUE(glob_match("src/*.py", "src/a.py"));
  EXPECT_FALSE(glob_match("src/*.py", "src/a/b.py"));
  EXPECT_TRUE(glob_match("*.py", "deep/er/x.py"));
  EXPECT_FALSE(glob_match("*.py", "x.txt"));
}

TEST(Glob, QuestionMarkAndClasses) {
  EXPECT_TRUE(glob_match("run?.py", "run1.py"));
  EXPECT_FALSE(glob_match("run?.py", "run12.py"));
  EXPECT_FALSE(glob_match("a?b", "a/b"));
  EXPECT_TRUE(glob_match("train_[abc].py", "train_b.py"));
  EXPECT_FALSE(glob_match("train_[abc].py", "train_d.py"));
  EXPECT_TRUE(glob_match("v[0-9].py", "v7.py"));
  EXPECT_FALSE(glob_match("v[!0-9].py", "v7.py"));
  EXPECT_TRUE(glob_match("v[!0-9].py", "vx.py"));
  EXPECT_TRUE(glob_match("odd[.py", "odd[.py"));  // an unclosed bracket is literal
}

TEST(Glob, LeadingDotSlashAndAnchors) {
  EXPECT_TRUE(glob_match("./tests/*", "./tests/a.py"));
  EXPECT_TRUE(glob_match("/tests/*", "tests/a.py"));
  EXPECT_TRUE(glob_match("build/", "build/x.py"));
  EXPECT_FALSE(glob_match("", "a.py"));
}

}  // namespace
}  // namespace perflint
