// Fixes: golden before/after pairs per rule (tests/fixes/<CODE>/<name>.before.py -> .after.py, byte
// for byte, idempotent, re-linting clean for that rule; `*.unsafe.before.py` run with unsafe fixes),
// unit tests of the edit helpers, the fixer's overlap handling and the diff writer, and end-to-end
// tests of --fix, --diff and --unsafe-fixes. Regenerate the .after.py files after an intended change
// with PERFLINT_UPDATE_GOLDEN=1 ./perflint_tests --gtest_filter='FixGolden.*' and review them.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <set>
#include <filesystem>
#include <fstream>
#include <regex>

#include "cli/fix.hpp"
#include "cli_support.hpp"
#include "rules/engine.hpp"
#include "rules/fixer.hpp"
#include "rules/fix_util.hpp"

namespace fs = std::filesystem;

namespace perflint {
namespace {

using testing::contains;
using testing::run_perflint;
using testing::slurp;
using testing::TempDir;

struct Case {
  std::string code;
  fs::path before;
  bool unsafe = false;
};

std::vector<Case> cases() {
  std::vector<Case> out;
  const fs::path root = fs::path(PERFLINT_SOURCE_DIR) / "tests" / "fixes";
  for (const auto& dir : fs::directory_iterator(root))
    for (const auto& f : fs::directory_iterator(dir.path())) {
      const std::string name = f.path().filename().string();
      if (!name.ends_with(".before.py")) continue;
      out.push_back({dir.path().filename().string(), f.path(), name.ends_with(".unsafe.before.py")});
    }
  std::sort(out.begin(), out.end(), [](const Case& a, const Case& b) { return a.before < b.before; });
  return out;
}

fs::path after_of(const fs::path& before) {
  std::string s = before.string();
  return s.substr(0, s.size() - std::string(".before.py").size()) + ".after.py";
}

size_t count_code(const FileResult& r, std::string_view code) {
  size_t n = 0;
  for (const auto& f : r.findings) n += f.rule->code == code;
  return n;
}

TEST(FixGolden, EveryRuleWithAFixHasCases) {
  std::set<std::string> codes;
  for (const auto& c : cases()) codes.insert(c.code);
  for (const char* code : {"PFL101", "PFL102", "PFL103", "PFL105", "PFL301", "PFL401", "PFL502"})
    EXPECT_TRUE(codes.count(code)) << "no tests/fixes/" << code << "/*.before.py";
}

// Only the case's rule runs, so each .after.py shows that rule's fix alone.
TEST(FixGolden, BeforeBecomesAfterIdempotentAndClean) {
  const char* update = std::getenv("PERFLINT_UPDATE_GOLDEN");
  ts::Parser parser;
  size_t n = 0;
  for (const auto& c : cases()) {
    SCOPED_TRACE(c.before.string());
    ++n;
    const RuleSet rules = make_rule_set({c.code}, {});
    const std::string before = slurp(c.before.string());
    ASSERT_GT(count_code(lint_buffer("x.py", before, rules, parser), c.code), 0u) << "the before file must fire";
    if (!c.unsafe) {
      // Safe mode does nothing to a case whose fixes are unsafe, and vice versa the rule is safe.
      FixedFile safe_only = fix_buffer("x.py", before, rules, parser, false);
      EXPECT_GT(safe_only.applied, 0u);
    } else {
      EXPECT_EQ(fix_buffer("x.py", before, rules, parser, false).applied, 0u) << "unsafe fix applied in safe mode";
    }
    FixedFile fixed = fix_buffer("x.py", before, rules, parser, c.unsafe);
    const fs::path after_path = after_of(c.before);
    if (update && std::string_view(update) == "1") {
      std::ofstream(after_path, std::ios::binary) << fixed.bytes;
      continue;
    }
    const std::string after = slurp(after_path.string());
    ASSERT_FALSE(after.empty()) << "missing " << after_path << " (run with PERFLINT_UPDATE_GOLDEN=1)";
    EXPECT_EQ(fixed.bytes, after);
    EXPECT_GT(fixed.applied, 0u);
    EXPECT_EQ(count_code(fixed.result, c.code), 0u) << "the fixed file still has " << c.code;
    // Idempotent, also with every rule and every fix on.
    FixedFile again = fix_buffer("x.py", after, rules, parser, true);
    EXPECT_EQ(again.bytes, after);
    EXPECT_EQ(again.applied, 0u);
    const FileResult relint = lint_buffer("x.py", after, make_rule_set({}, {}), parser);
    EXPECT_EQ(count_code(relint, c.code), 0u);
    EXPECT_TRUE(relint.errors.empty()) << relint.errors.front().message;
  }
  EXPECT_GE(n, 15u);
}

TEST(FixGolden, AllSafeFixesTogetherAreIdempotent) {
  ts::Parser parser;
  const RuleSet all = make_rule_set({}, {});
  for (const auto& c : cases()) {
    SCOPED_TRACE(c.before.string());
    for (bool unsafe : {false, true}) {
      FixedFile once = fix_buffer("x.py", slurp(c.before.string()), all, parser, unsafe);
      FixedFile twice = fix_buffer("x.py", once.bytes, all, parser, unsafe);
      EXPECT_EQ(twice.bytes, once.bytes);
      EXPECT_EQ(twice.applied, 0u);
      EXPECT_TRUE(once.result.errors.empty());
    }
  }
}

// ---- helpers and the fixer --------------------------------------------------------------------

std::string fix_text(const std::string& text, const std::vector<std::string>& select, bool unsafe = false) {
  ts::Parser parser;
  return fix_buffer("x.py", text, make_rule_set(select, {}), parser, unsafe).bytes;
}

const std::string kStep =
    "for epoch in range(3):\n"
    "    for x, y in loader:\n"
    "        x = x.cuda()\n"
    "        loss = model(x, y)\n"
    "        loss.backward()\n";

TEST(FixEdits, KeywordInsertionShapes) {
  const std::string head = "import torch\nfrom torch.utils.data import DataLoader\nmodel = Net().cuda()\n";
  auto pin = [&](const std::string& call) {
    const std::string out = fix_text(head + "loader = " + call + "\n" + kStep, {"PFL102"});
    const size_t b = out.find("loader = ");
    return out.substr(b + 9, out.find("\nfor epoch") - b - 9);
  };
  EXPECT_EQ(pin("DataLoader(ds)"), "DataLoader(ds, pin_memory=True)");
  EXPECT_EQ(pin("DataLoader(ds,)"), "DataLoader(ds, pin_memory=True,)");
  EXPECT_EQ(pin("DataLoader(ds, num_workers=2)  # note"), "DataLoader(ds, num_workers=2, pin_memory=True)  # note");
  EXPECT_EQ(pin("DataLoader(ds, pin_memory=False)"), "DataLoader(ds, pin_memory=True)");
  EXPECT_EQ(pin("DataLoader(\n    ds,\n    batch_size=2\n)"), "DataLoader(\n    ds,\n    batch_size=2,\n    pin_memory=True\n)");
  EXPECT_EQ(pin("DataLoader(\n    ds,\n    batch_size=2,  # b\n)"),
            "DataLoader(\n    ds,\n    batch_size=2,  # b\n    pin_memory=True,\n)");
  EXPECT_EQ(pin("DataLoader(\n    ds, batch_size=2)"), "DataLoader(\n    ds, batch_size=2, pin_memory=True)");
  // Unresolved **kwargs, or a value the user chose elsewhere: no fix.
  EXPECT_EQ(pin("DataLoader(ds, **kw)"), "DataLoader(ds, **kw)");
  EXPECT_EQ(pin("DataLoader(ds, pin_memory=flag)"), "DataLoader(ds, pin_memory=flag)");
  // Known **dict without pin_memory: the keyword goes after it.
  const std::string out = fix_text(head + "kw = {'batch_size': 4}\nloader = DataLoader(ds, **kw)\n" + kStep, {"PFL102"});
  EXPECT_TRUE(contains(out, "DataLoader(ds, **kw, pin_memory=True)")) << out;
}

TEST(FixEdits, NonBlockingOnlyFromPinnedLoaders) {
  const std::string head = "import torch\nfrom torch.utils.data import DataLoader\nmodel = Net().cuda()\n";
  const std::string pinned = fix_text(head + "loader = DataLoader(ds, pin_memory=True)\n" + kStep, {"PFL103"});
  EXPECT_TRUE(contains(pinned, "x = x.cuda(non_blocking=True)")) << pinned;
  const std::string unpinned = fix_text(head + "loader = DataLoader(ds)\n" + kStep, {"PFL103"});
  EXPECT_TRUE(contains(unpinned, "x = x.cuda()\n")) << unpinned;
  // With PFL102 on as well, the loader is pinned in pass 1 and the copy fixed in pass 2.
  const std::string both = fix_text(head + "loader = DataLoader(ds)\n" + kStep, {"PFL102", "PFL103"});
  EXPECT_TRUE(contains(both, "DataLoader(ds, pin_memory=True)")) << both;
  EXPECT_TRUE(contains(both, "x.cuda(non_blocking=True)")) << both;
}

TEST(FixEdits, QuoteStyleAndLineEnding) {
  EXPECT_EQ(fixes::dominant_quote("a = 'x'\nb = \"it's\"  # don't\nc = 'y'\n"), '\'');
  EXPECT_EQ(fixes::dominant_quote("a = \"x\"\nb = '''doc\n\"q\"\n'''\n"), '"');
  EXPECT_EQ(fixes::dominant_quote(""), '"');
  EXPECT_EQ(fixes::line_ending("a\r\nb\n"), "\r\n");
  EXPECT_EQ(fixes::line_ending("a\nb\r\n"), "\n");
}

TEST(Fixer, OverlappingEditsWaitForTheNextPass) {
  Finding a, b, c;
  a.fix = Fix{"a", true, {Edit{0, 1, "A", {}, {}}}};
  b.fix = Fix{"b", true, {Edit{0, 2, "B", {}, {}}}};  // overlaps a
  c.fix = Fix{"c", false, {Edit{3, 3, "C", {}, {}}}};  // unsafe
  AppliedFixes safe = apply_fixes("xyzw", {a, b, c}, false);
  EXPECT_EQ(safe.text, "Ayzw");
  EXPECT_EQ(safe.applied, 1u);
  AppliedFixes unsafe = apply_fixes("xyzw", {a, b, c}, true);
  EXPECT_EQ(unsafe.text, "AyzCw");
  EXPECT_EQ(unsafe.applied, 2u);
}

TEST(Fixer, KeepsTheBom) {
  const std::string bom = "\xEF\xBB\xBF";
  const std::string src = bom + "import torch\nfor x in loader:\n    opt.zero_grad(set_to_none=False)\n    loss.backward()\n";
  const std::string out = fix_text(src, {"PFL502"});
  EXPECT_EQ(out, bom + "import torch\nfor x in loader:\n    opt.zero_grad(set_to_none=True)\n    loss.backward()\n");
}

TEST(Diff, UnifiedHunksWithContext) {
  std::string a, b;
  for (int i = 1; i <= 20; ++i) a += "l" + std::to_string(i) + "\n";
  b = a;
  b.replace(b.find("l2\n"), 3, "L2\n");
  b.replace(b.find("l18\n"), 4, "l18\nnew\n");
  EXPECT_EQ(unified_diff("p.py", a, b),
            "--- a/p.py\n+++ b/p.py\n"
            "@@ -1,5 +1,5 @@\n l1\n-l2\n+L2\n l3\n l4\n l5\n"
            "@@ -16,5 +16,6 @@\n l16\n l17\n l18\n+new\n l19\n l20\n");
  EXPECT_EQ(unified_diff("p.py", a, a), "");
  EXPECT_EQ(unified_diff("p.py", "x", "y"),
            "--- a/p.py\n+++ b/p.py\n@@ -1 +1 @@\n-x\n\\ No newline at end of file\n+y\n\\ No newline at end of file\n");
  EXPECT_EQ(unified_diff("p.py", "", "a\n"), "--- a/p.py\n+++ b/p.py\n@@ -0,0 +1 @@\n+a\n");
}

// ---- end to end --------------------------------------------------------------------------------

const std::string kScript =
    "import torch\n"
    "from torch.utils.data import DataLoader\n"
    "torch.backends.cuda.matmul.allow_tf32 = True\n"
    "loader = DataLoader(ds, batch_size=8)\n"
    "model = Net().cuda()\n"
    "for epoch in range(3):\n"
    "    for x, y in loader:\n"
    "        opt.zero_grad(set_to_none=False)\n"
    "        loss = model(x.cuda(), y.cuda())\n"
    "        loss.backward()\n";

TEST(FixCli, FixRewritesTheFileAndReportsWhatRemains) {
  TempDir dir;
  const std::string path = dir.write("train.py", kScript);
  ::chmod(path.c_str(), 0750);
  auto r = run_perflint({"--isolated", "--fix", "train.py"}, dir.str());
  EXPECT_EQ(r.exit_code, 1) << r.err;  // PFL101 (unsafe) and PFL402 remain
  const std::string fixed = slurp(path);
  EXPECT_TRUE(contains(fixed, "DataLoader(ds, batch_size=8, pin_memory=True)")) << fixed;
  EXPECT_TRUE(contains(fixed, "opt.zero_grad(set_to_none=True)")) << fixed;
  EXPECT_TRUE(contains(fixed, "model(x.cuda(non_blocking=True), y.cuda(non_blocking=True))")) << fixed;
  EXPECT_TRUE(contains(r.out, "Fixed 4 findings (")) << r.out;
  EXPECT_TRUE(contains(r.out, "PFL101")) << r.out;
  EXPECT_FALSE(contains(r.out, "PFL502")) << r.out;
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0750u);
  // Nothing left to fix: the file is not touched again.
  auto again = run_perflint({"--isolated", "--fix", "train.py"}, dir.str());
  EXPECT_TRUE(contains(again.out, "Fixed 0 findings (")) << again.out;
  EXPECT_EQ(slurp(path), fixed);
}

TEST(FixCli, UnsafeFixesAlsoSetTheWorkerCount) {
  TempDir dir;
  const std::string path = dir.write("train.py", kScript);
  auto plain = run_perflint({"--isolated", "train.py"}, dir.str());
  EXPECT_TRUE(contains(plain.out, "PFL102 [*]")) << plain.out;
  EXPECT_TRUE(contains(plain.out, "PFL101 [warning]")) << plain.out;
  // PFL103's non_blocking fix comes only once the loader is pinned (by --fix's second pass).
  EXPECT_TRUE(contains(plain.out, "PFL103 [warning]")) << plain.out;
  // The count is what --fix applies, those second-pass fixes included, and says so.
  EXPECT_TRUE(contains(plain.out, "[*] 4 fixable with `--fix` (2 marked, 2 more once those are applied; 1 more with "
                                  "`--unsafe-fixes`).")) << plain.out;
  auto r = run_perflint({"--isolated", "--fix", "--unsafe-fixes", "train.py"}, dir.str());
  EXPECT_TRUE(contains(slurp(path), "num_workers=4")) << slurp(path);
  EXPECT_TRUE(contains(slurp(path), "persistent_workers=True")) << slurp(path);
  EXPECT_FALSE(contains(r.out, "PFL101")) << r.out;
}

// "[*] N fixable" in the summary is the number --diff and --fix report: the fix loop is what counts,
// on every bundled example, with and without --unsafe-fixes.
TEST(FixCli, FixableCountIsWhatDiffFixes) {
  int checked = 0;
  for (const char* example : {"train.py", "train_lm.py", "clean_train.py"}) {
    const std::string path = std::string(PERFLINT_SOURCE_DIR) + "/examples/" + example;
    for (const bool unsafe : {false, true}) {
      std::vector<std::string> args{"--isolated", "--no-show-source", path};
      if (unsafe) args.push_back("--unsafe-fixes");
      auto lint = run_perflint(args);
      args.push_back("--diff");
      auto diff = run_perflint(args);
      std::smatch m;
      const std::regex fixable(R"(\[\*\] (\d+) fixable with)"), would(R"(Would fix (\d+) finding)");
      if (!std::regex_search(lint.out, m, fixable)) {
        EXPECT_TRUE(contains(diff.err, "No fixes available.")) << example << "\n" << lint.out << diff.err;
        continue;
      }
      const std::string n = m[1];
      ASSERT_TRUE(std::regex_search(diff.err, m, would)) << example << "\n" << diff.err;
      EXPECT_EQ(n, m[1].str()) << example << (unsafe ? " --unsafe-fixes" : "") << "\n" << lint.out << diff.err;
      ++checked;
    }
  }
  EXPECT_GE(checked, 2);  // train.py has fixes with and without --unsafe-fixes
}

TEST(FixCli, DiffPrintsAndWritesNothing) {
  TempDir dir;
  const std::string path = dir.write("train.py", kScript);
  auto r = run_perflint({"--isolated", "--diff", "."}, dir.str());
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(slurp(path), kScript);
  EXPECT_TRUE(contains(r.out, "--- a/train.py\n+++ b/train.py\n@@ -1,10 +1,10 @@\n")) << r.out;
  EXPECT_TRUE(contains(r.out, "-loader = DataLoader(ds, batch_size=8)\n+loader = DataLoader(ds, batch_size=8, pin_memory=True)\n"))
      << r.out;
  EXPECT_TRUE(contains(r.err, "Would fix 4 findings in 1 file")) << r.err;
  // Clean: exit 0 and no diff.
  TempDir clean;
  clean.write("ok.py", "print('hi')\n");
  auto c = run_perflint({"--isolated", "--diff", "ok.py"}, clean.str());
  EXPECT_EQ(c.exit_code, 0) << c.err;
  EXPECT_EQ(c.out, "");
}

TEST(FixCli, FixAndDiffDoNotGoWithProbe) {
  TempDir dir;
  dir.write("train.py", kScript);
  for (const char* flag : {"--fix", "--diff"}) {
    auto r = run_perflint({"--isolated", flag, "--probe", "train.py"}, dir.str());
    EXPECT_EQ(r.exit_code, 2) << flag;
    EXPECT_TRUE(contains(r.err, "--probe")) << r.err;
  }
}

TEST(FixCli, WriteErrorIsExitTwoNamingTheFile) {
  TempDir dir;
  const std::string path = dir.write("sub/train.py", kScript);
  ::chmod(path.c_str(), 0444);
  ::chmod((dir.path() / "sub").c_str(), 0555);
  ::chmod(dir.path().c_str(), 0755);  // readable by the unprivileged user the test runs perflint as
  auto r = run_perflint({"--isolated", "--fix", "sub/train.py"}, dir.str(), {}, 120, /*drop_root=*/true);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.out + r.err, "sub/train.py")) << r.out << r.err;
  EXPECT_TRUE(contains(r.out + r.err, "cannot write the fixed file")) << r.out << r.err;
}

TEST(FixCli, ExamplesAreFixedInACopy) {
  TempDir dir;
  for (const char* name : {"train.py", "train_lm.py", "clean_train.py"})
    fs::copy_file(fs::path(PERFLINT_SOURCE_DIR) / "examples" / name, dir.path() / name);
  auto r = run_perflint({"--isolated", "--fix", "--unsafe-fixes", "."}, dir.str());
  EXPECT_NE(r.exit_code, 2) << r.err;
  EXPECT_TRUE(contains(r.out, "Fixed ")) << r.out;
  auto again = run_perflint({"--isolated", "--diff", "--unsafe-fixes", "."}, dir.str());
  EXPECT_EQ(again.exit_code, 0) << again.out;
  EXPECT_EQ(slurp((dir.path() / "clean_train.py").string()),
            slurp((fs::path(PERFLINT_SOURCE_DIR) / "examples" / "clean_train.py").string()));
}

}  // namespace
}  // namespace perflint

namespace perflint {
namespace {

TEST(FixCli, JsonCarriesTheFix) {
  testing::TempDir dir;
  dir.write("train.py", kScript);
  auto r = testing::run_perflint({"--isolated", "--output-format", "json", "train.py"}, dir.str());
  EXPECT_TRUE(testing::contains(r.out, "\"fix\": null")) << r.out;
  EXPECT_TRUE(testing::contains(r.out, "\"title\": \"Pass `set_to_none=True`\"")) << r.out;
  EXPECT_TRUE(testing::contains(r.out, "\"safe\": false")) << r.out;
  EXPECT_TRUE(testing::contains(r.out, "\"start_line\": 8")) << r.out;
  EXPECT_TRUE(testing::contains(r.out, "\"replacement\": \"True\"")) << r.out;
}

}  // namespace
}  // namespace perflint

namespace perflint {
namespace {

// Issue 11 #2: the safe PFL105 fix made `--workers 0` raise "persistent_workers option needs
// num_workers > 0". The fixed script runs with a real torch for every worker count.
TEST(FixCli, PersistentWorkersFixHoldsForEveryWorkerCount) {
  if (std::system("/usr/bin/python3 -c 'import torch' >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "no torch for /usr/bin/python3 (Debian: apt-get install python3-torch)";
  TempDir dir;
  const std::string path = dir.write("train.py",
                                     "import argparse\n\n"
                                     "import torch\n"
                                     "from torch.utils.data import DataLoader, TensorDataset\n\n"
                                     "parser = argparse.ArgumentParser()\n"
                                     "parser.add_argument(\"--workers\", type=int, default=2)\n"
                                     "args = parser.parse_args()\n\n"
                                     "loader = DataLoader(TensorDataset(torch.zeros(8, 2)), batch_size=4, "
                                     "num_workers=args.workers)\n"
                                     "model = torch.nn.Linear(2, 1)\n"
                                     "opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
                                     "for epoch in range(2):\n"
                                     "    for (x,) in loader:\n"
                                     "        loss = model(x).sum()\n"
                                     "        opt.zero_grad()\n"
                                     "        loss.backward()\n"
                                     "        opt.step()\n");
  auto fixed = run_perflint({"--isolated", "--fix", "--select", "PFL105", "train.py"}, dir.str());
  ASSERT_EQ(fixed.exit_code, 0) << fixed.out << fixed.err;
  EXPECT_TRUE(contains(slurp(path), "persistent_workers=args.workers > 0")) << slurp(path);
  for (const char* workers : {"0"}) {
    auto run = testing::run_program("/usr/bin/python3", {"train.py", "--workers", workers}, dir.str());
    EXPECT_EQ(run.exit_code, 0) << "--workers " << workers << ":\n" << run.err;
  }
}

// Found by fuzz_fix: in a file with a syntax error, PFL401's import-time line was inserted where
// the next parse did not see it, so every pass added it again (4 copies, and more on every run).
TEST(Fixer, AFileWithASyntaxErrorIsNotFixed) {
  const std::string text = "import torch\nfrom x import yimport torch\nmodel = Net().cuda()\n"
                           "torch.autograd.set_detect_anomaly(True)\ndef f(:\n" + kStep;
  ts::Parser parser;
  const FixedFile fixed = fix_buffer("x.py", text, make_rule_set({"ALL"}, {}), parser, true);
  EXPECT_EQ(fixed.bytes, text);
  EXPECT_EQ(fixed.applied, 0u);
  EXPECT_FALSE(fixed.result.findings.empty());
}

// Where the count's expression cannot be repeated next to it (it comes through a **dict written
// elsewhere), `persistent_workers=True` depends on the run-time value: the fix is unsafe.
TEST(FixEdits, PersistentWorkersTrueIsUnsafeWhenTheCountIsNotWrittenInTheCall) {
  const std::string head =
      "import argparse\nimport torch\nfrom torch.utils.data import DataLoader\n"
      "parser = argparse.ArgumentParser()\nparser.add_argument('--workers', type=int, default=4)\n"
      "args = parser.parse_args()\nmodel = Net().cuda()\n";
  const std::string via_dict = head + "common = dict(num_workers=args.workers)\nloader = DataLoader(ds, **common)\n" + kStep;
  EXPECT_EQ(fix_text(via_dict, {"PFL105"}), via_dict) << "no safe fix";
  EXPECT_TRUE(contains(fix_text(via_dict, {"PFL105"}, /*unsafe=*/true), "persistent_workers=True"));
  const std::string literal = head + "loader = DataLoader(ds, num_workers=8)\n" + kStep;
  EXPECT_TRUE(contains(fix_text(literal, {"PFL105"}), "num_workers=8, persistent_workers=True"));
}

}  // namespace
}  // namespace perflint
