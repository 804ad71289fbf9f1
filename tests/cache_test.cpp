// The result cache (cli/cache.hpp): what is stored reads back the same; a malformed entry is a miss;
// a second run reads the cache instead of linting; a change to the file, a file of its project, or
// the rules makes a new key; --no-cache reads nothing.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "cli/cache.hpp"
#include "rules/engine.hpp"
#include "tests/cli_support.hpp"

namespace fs = std::filesystem;
using perflint::testing::contains;
using perflint::testing::run_perflint;
using perflint::testing::slurp;
using perflint::testing::TempDir;

namespace perflint {
namespace {

FileResult lint_example() {
  const std::string path = std::string(PERFLINT_SOURCE_DIR) + "/examples/train.py";
  ts::Parser parser;
  return lint_buffer(path, slurp(path), make_rule_set({"ALL"}, {}), parser);
}

TEST(ResultCache, WhatIsStoredReadsBackTheSame) {
  const FileResult r = lint_example();
  ASSERT_GE(r.findings.size(), 5u);
  const bool has_fix = std::any_of(r.findings.begin(), r.findings.end(), [](const Finding& f) { return f.fix.has_value(); });
  const bool has_note_span = std::any_of(r.findings.begin(), r.findings.end(), [](const Finding& f) {
    return std::any_of(f.notes.begin(), f.notes.end(), [](const Note& n) { return n.span.has_value(); });
  });
  ASSERT_TRUE(has_fix && has_note_span);
  const std::string data = serialize_result(r);
  const auto back = deserialize_result(data, r.path);
  ASSERT_TRUE(back.has_value());
  // Serialising what was read gives the same bytes: every field made the trip.
  EXPECT_EQ(serialize_result(*back), data);
  ASSERT_EQ(back->findings.size(), r.findings.size());
  for (size_t i = 0; i < r.findings.size(); ++i) {
    EXPECT_EQ(back->findings[i].rule, r.findings[i].rule);
    EXPECT_EQ(back->findings[i].message, r.findings[i].message);
    EXPECT_EQ(back->findings[i].path, r.path);
  }
  EXPECT_EQ(back->lines, r.lines);
}

TEST(ResultCache, MalformedEntriesAreMisses) {
  const std::string data = serialize_result(lint_example());
  // Every truncation, and a byte changed at many places: never a crash, never a partial result.
  for (size_t cut = 0; cut < data.size(); cut += 7) EXPECT_FALSE(deserialize_result(data.substr(0, cut), "x.py"));
  EXPECT_FALSE(deserialize_result(data + "junk", "x.py"));
  EXPECT_FALSE(deserialize_result("perflint-cache 0\n" + data.substr(17), "x.py"));
  for (size_t at = 17; at < data.size(); at += 13) {
    std::string bad = data;
    bad[at] = bad[at] == '9' ? 'x' : '9';
    (void)deserialize_result(bad, "x.py");  // may parse (a digit in a message) or not: must not crash
  }
}

TEST(ResultCache, KeysChangeWithWhatTheResultDependsOn) {
  const RuleSet all = make_rule_set({"ALL"}, {}), one = make_rule_set({"PFL201"}, {});
  const std::string k = ResultCache::key("a/train.py", "x = 1\n", all, "fp");
  EXPECT_EQ(k, ResultCache::key("a/train.py", "x = 1\n", all, "fp"));
  EXPECT_NE(k, ResultCache::key("b/train.py", "x = 1\n", all, "fp"));
  EXPECT_NE(k, ResultCache::key("a/train.py", "x = 2\n", all, "fp"));
  EXPECT_NE(k, ResultCache::key("a/train.py", "x = 1\n", one, "fp"));
  EXPECT_NE(k, ResultCache::key("a/train.py", "x = 1\n", all, "fp2"));
}

const char* kTrain = R"(import torch
from helper import log_loss


def train(model, loader, opt):
    for x, y in loader:
        loss = model(x.cuda()).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(loss.item())
        log_loss(loss)
)";

// Every cache pack under `dir` with `from` replaced by `to` (same length: the format's lengths hold).
int tamper(const fs::path& dir, const std::string& from, const std::string& to) {
  int changed = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file() || e.path().extension() != ".pack") continue;
    std::string data = slurp(e.path().string());
    for (size_t at = data.find(from); at != std::string::npos; at = data.find(from, at + 1)) {
      data.replace(at, from.size(), to);
      ++changed;
    }
    std::ofstream(e.path(), std::ios::binary | std::ios::trunc) << data;
  }
  return changed;
}

TEST(ResultCache, ASecondRunReadsTheCacheUntilSomethingChanges) {
  TempDir project, cache;
  project.write("pyproject.toml", "[project]\nname = 'x'\n");
  project.write("train.py", kTrain);
  project.write("helper.py", "def log_loss(loss):\n    return loss.item()\n");
  const std::vector<std::string> args{"--isolated", "--cache-dir", cache.str(), "train.py", "helper.py"};
  const auto first = run_perflint(args, project.str());
  ASSERT_EQ(first.exit_code, 1) << first.err;
  ASSERT_TRUE(contains(first.out, "waits for all queued GPU work")) << first.out;
  ASSERT_TRUE(fs::exists(cache.path() / "CACHEDIR.TAG"));
  const auto second = run_perflint(args, project.str());
  EXPECT_EQ(second.out, first.out);
  // What the second run printed came from the cache: an entry changed by hand shows.
  ASSERT_GT(tamper(cache.path(), "waits for all queued", "WAITS FOR ALL QUEUED"), 0);
  EXPECT_TRUE(contains(run_perflint(args, project.str()).out, "WAITS FOR ALL QUEUED"));
  // --no-cache (and PERFLINT_NO_CACHE=1) lint afresh.
  EXPECT_FALSE(contains(run_perflint({"--isolated", "--no-cache", "train.py"}, project.str()).out, "WAITS"));
  EXPECT_FALSE(contains(run_perflint(args, project.str(), {{"PERFLINT_NO_CACHE", "1"}}).out, "WAITS"));
  // Other rules: another key.
  std::vector<std::string> one = args;
  one.insert(one.begin(), {"--select", "PFL201"});
  EXPECT_FALSE(contains(run_perflint(one, project.str()).out, "WAITS"));
  // A file of the project changed (train.py's own bytes did not): its result is stale too.
  project.write("helper.py", "def log_loss(loss):\n    return float(loss.item())  # changed\n");
  const auto after = run_perflint(args, project.str());
  EXPECT_FALSE(contains(after.out, "WAITS")) << after.out;
  EXPECT_TRUE(contains(after.out, "waits for all queued GPU work"));
}

TEST(ResultCache, ASecondRunParsesNoFileForTheLinker) {
  // helpers.py's finding depends on train.py, the script whose training step calls it. The linker's
  // facts about the project (its import graph and step entries) are cached with the state of every
  // .py file (path, size, modification time): a warm run re-reads and re-parses none of them. Seen
  // here by changing train.py's bytes behind the cache's back (same size, same modification time):
  // the warm run still answers from the facts; a --no-cache run, and a run after train.py's time
  // changed, read the new train.py.
  TempDir project, cache;
  project.write("pyproject.toml", "[project]\nname = 'x'\n");
  const std::string train =
      "import torch\nimport helpers\n\n\ndef main(model, loader, opt):\n    for x, y in loader:\n"
      "        loss = model(x.cuda(non_blocking=True)).sum()\n        loss.backward()\n        opt.step()\n"
      "        helpers.log_loss(loss)\n";
  project.write("train.py", train);
  project.write("helpers.py", "def log_loss(loss):\n    return loss.item()\n");
  const std::vector<std::string> args{"--isolated", "--cache-dir", cache.str(), "helpers.py"};
  const auto first = run_perflint(args, project.str());
  ASSERT_EQ(first.exit_code, 1) << first.out << first.err;
  ASSERT_TRUE(contains(first.out, "runs every step: train.py:10")) << first.out;
  bool facts = false;
  for (const auto& e : fs::directory_iterator(cache.path())) facts = facts || e.path().extension() == ".facts";
  ASSERT_TRUE(facts);
  // train.py no longer calls log_loss: same length, same modification time.
  const fs::path train_path = project.path() / "train.py";
  const auto mtime = fs::last_write_time(train_path);
  std::string renamed = train;
  renamed.replace(renamed.find("log_loss(loss)"), 14, "log_lost(loss)");
  project.write("train.py", renamed);
  fs::last_write_time(train_path, mtime);
  const auto warm = run_perflint(args, project.str());
  EXPECT_EQ(warm.out, first.out);
  EXPECT_FALSE(contains(run_perflint({"--isolated", "--no-cache", "helpers.py"}, project.str()).out, "PFL201"));
  // A new modification time: the facts are stale, the linker reads train.py again.
  fs::last_write_time(train_path, mtime + std::chrono::seconds(5));
  const auto after = run_perflint(args, project.str());
  EXPECT_EQ(after.exit_code, 0) << after.out;
  EXPECT_FALSE(contains(after.out, "PFL201")) << after.out;
  // Damaged facts (cut in half) are absent facts: the run links afresh, as without a cache.
  project.write("train.py", train);
  fs::last_write_time(train_path, mtime + std::chrono::seconds(10));
  EXPECT_TRUE(contains(run_perflint(args, project.str()).out, "runs every step: train.py:10"));
  int damaged = 0;
  for (const auto& e : fs::directory_iterator(cache.path()))
    if (e.path().extension() == ".facts") {
      const std::string bytes = slurp(e.path().string());
      std::ofstream(e.path(), std::ios::trunc | std::ios::binary) << bytes.substr(0, bytes.size() / 2);
      ++damaged;
    }
  ASSERT_EQ(damaged, 1);
  const auto cut = run_perflint(args, project.str());
  EXPECT_EQ(cut.out, run_perflint({"--isolated", "--no-cache", "helpers.py"}, project.str()).out);
}

TEST(ResultCache, AChangeInAModuleAPackageReexportsMakesANewKey) {
  // main.py hands its loader to trainer.Trainer, which trainer/__init__.py re-exports from
  // trainer/engine.py: main.py's result depends on engine.py, which main.py does not import itself.
  TempDir project, cache;
  const fs::path fixture = fs::path(PERFLINT_SOURCE_DIR) / "tests" / "fixtures" / "crossfile_loader_consumer";
  fs::copy(fixture, project.path(), fs::copy_options::recursive);
  const std::vector<std::string> args{"--isolated", "--select", "PFL102", "--cache-dir", cache.str(), "main.py"};
  const auto first = run_perflint(args, project.str());
  ASSERT_TRUE(contains(first.out, "PFL102")) << first.out << first.err;
  // The trainer no longer keeps the loader it is given.
  const fs::path engine = project.path() / "trainer" / "engine.py";
  std::string text = slurp(engine.string());
  text.replace(text.find("self.train_data = train_dataloader"), 34, "self.train_data = None");
  const auto mtime = fs::last_write_time(engine);
  project.write("trainer/engine.py", text);
  fs::last_write_time(engine, mtime + std::chrono::seconds(5));
  const auto after = run_perflint(args, project.str());
  EXPECT_FALSE(contains(after.out, "PFL102")) << after.out;
}

TEST(ResultCache, ALoaderFactoryFileDependsOnEveryFileThatMayCallIt) {
  // chapter/previous.py's loader factory is named by no file, so its loader is not assumed to feed
  // train(): no finding. Once another file anywhere in the project calls the factory, the cached
  // result must not hide the finding.
  TempDir project, cache;
  const fs::path fixture = fs::path(PERFLINT_SOURCE_DIR) / "tests" / "fixtures" / "crossfile_unused_factory";
  fs::copy(fixture, project.path(), fs::copy_options::recursive);
  const std::vector<std::string> args{"--isolated", "--select", "PFL101", "--cache-dir", cache.str(),
                                      "chapter/previous.py"};
  const auto first = run_perflint(args, project.str());
  ASSERT_FALSE(contains(first.out, "PFL101")) << first.out << first.err;
  project.write("tools/pretrain.py", "from chapter.previous import create_pretraining_loader, train\n"
                                     "train(None, create_pretraining_loader([1, 2]), None, 'cuda', 1)\n");
  const auto after = run_perflint(args, project.str());
  EXPECT_TRUE(contains(after.out, "PFL101")) << after.out << after.err;
}

TEST(ResultCache, AnUnwritableCacheIsNoError) {
  TempDir project;
  project.write("train.py", kTrain);
  const auto r = run_perflint({"--isolated", "--cache-dir", "/proc/perflint-no-such-dir", "train.py"}, project.str());
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(r.err.empty() || !contains(r.err, "cache")) << r.err;
}

TEST(ResultCache, AChangeInAnImportedModuleElsewhereMakesANewKey) {
  // train.py reads its options from conf/options.py (another directory): a cached result must not
  // outlive a change there.
  TempDir project, cache;
  project.write("pyproject.toml", "[project]\nname = 'x'\n");
  project.mkdir("conf");
  project.write("conf/__init__.py", "");
  const std::string options = "import argparse\n\n\ndef get_args():\n    p = argparse.ArgumentParser()\n"
                              "    p.add_argument('--workers', type=int, default=0)\n    return p.parse_args()\n";
  project.write("conf/options.py", options);
  project.write("train.py",
                "import torch\nfrom torch.utils.data import DataLoader\nfrom conf.options import get_args\n\n\n"
                "def main(model, ds, opt):\n    args = get_args()\n"
                "    loader = DataLoader(ds, num_workers=args.workers, pin_memory=True)\n"
                "    for x, y in loader:\n        loss = model(x.cuda(non_blocking=True)).sum()\n"
                "        loss.backward()\n        opt.step()\n");
  const std::vector<std::string> args{"--isolated", "--select", "PFL101", "--cache-dir", cache.str(), "train.py"};
  const auto first = run_perflint(args, project.str());
  ASSERT_TRUE(contains(first.out, "PFL101")) << first.out << first.err;
  ASSERT_TRUE(contains(first.out, "--workers of options.py")) << first.out;
  ASSERT_GT(tamper(cache.path(), "main process", "MAIN PROCESS"), 0);
  EXPECT_TRUE(contains(run_perflint(args, project.str()).out, "MAIN PROCESS"));
  std::string faster = options;
  faster.replace(faster.find("default=0"), 9, "default=4");
  project.write("conf/options.py", faster);
  const auto after = run_perflint(args, project.str());
  EXPECT_FALSE(contains(after.out, "PFL101")) << after.out;
}

// Lints `file` of a copy of `fixture` (PFL201, which needs CUDA), then edits `script` (the file that
// picks the device) by `edits` (find, replace), newer on disk: the CUDA-only finding must be gone,
// not kept by the cached result.
void expect_device_change_invalidates(const std::string& fixture_name, const std::string& file, const std::string& script,
                                      const std::vector<std::pair<std::string, std::string>>& edits) {
  TempDir project, cache;
  const fs::path fixture = fs::path(PERFLINT_SOURCE_DIR) / "tests" / "fixtures" / fixture_name;
  fs::copy(fixture, project.path(), fs::copy_options::recursive);
  const std::vector<std::string> args{"--isolated", "--select", "PFL201", "--cache-dir", cache.str(), file};
  const auto first = run_perflint(args, project.str());
  ASSERT_TRUE(contains(first.out, "PFL201")) << first.out << first.err;
  const fs::path path = project.path() / script;
  std::string text = slurp(path.string());
  for (const auto& [from, to] : edits) text.replace(text.find(from), from.size(), to);
  const auto mtime = fs::last_write_time(path);
  project.write(script, text);
  fs::last_write_time(path, mtime + std::chrono::seconds(5));
  const auto after = run_perflint(args, project.str());
  EXPECT_FALSE(contains(after.out, "PFL201")) << after.out;
}

TEST(ResultCache, AStepFileDependsOnTheScriptOfAnotherDirectoryThatPicksItsDevice) {
  // diffusion/train.py never names CUDA: main.py (above it) picks "cuda:0" and calls train(). Once
  // main.py picks the CPU, the cached result must not keep the CUDA-only finding.
  expect_device_change_invalidates("crossfile_cuda_importer_dir", "diffusion/train.py", "main.py",
                                   {{"\"cuda:0\"", "\"cpu\""}});
}

TEST(ResultCache, ALibraryLoopDependsOnTheExampleThatPicksItsDevice) {
  // ctrlib/models/basemodel.py takes CUDA from examples/run_classification.py, three modules away
  // (through deepfm.py and the package's __init__.py).
  expect_device_change_invalidates("crossfile_library_examples", "ctrlib/models/basemodel.py",
                                   "examples/run_classification.py",
                                   {{"\"cuda:0\"", "\"cpu\""}, {"torch.cuda.is_available()", "False"}});
}

}  // namespace
}  // namespace perflint
