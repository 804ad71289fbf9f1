// File discovery on real temporary trees: what is searched, what is skipped, and symlink loops.
#include "cli/discover.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>

#include "cli_support.hpp"

namespace perflint {
namespace {

using testing::TempDir;

std::vector<std::string> sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

TEST(Discover, FindsNestedPythonFilesOnly) {
  TempDir t;
  t.write("a.py", "x = 1\n");
  t.write("pkg/b.py", "");
  t.write("pkg/deep/er/c.py", "");
  t.write("pkg/notes.txt", "");
  t.write("pkg/script", "");
  t.write("pkg/d.pyc", "");
  const std::string root = t.str();
  Discovery d = discover_files({root}, {});
  EXPECT_TRUE(d.errors.empty());
  EXPECT_EQ(sorted(d.files), (std::vector<std::string>{root + "/a.py", root + "/pkg/b.py", root + "/pkg/deep/er/c.py"}));
}

TEST(Discover, SkipsHiddenAndEnvironmentDirectories) {
  TempDir t;
  t.write("keep.py", "");
  for (const char* dir : {".git", ".venv", "venv", "node_modules", "__pycache__", ".hidden", "sub/.tox"})
    t.write(std::string(dir) + "/skip.py", "");
  t.write("build/keep2.py", "");  // build directories are not special
  Discovery d = discover_files({t.str()}, {});
  EXPECT_EQ(sorted(d.files), (std::vector<std::string>{t.str() + "/build/keep2.py", t.str() + "/keep.py"}));
}

TEST(Discover, HiddenDirectoryNamedExplicitlyIsSearched) {
  TempDir t;
  t.write(".config/x.py", "");
  Discovery d = discover_files({t.str() + "/.config"}, {});
  EXPECT_EQ(d.files, (std::vector<std::string>{t.str() + "/.config/x.py"}));
}

TEST(Discover, ExcludeGlobsAreRelativeToTheConfigRoot) {
  TempDir t;
  t.write("src/train.py", "");
  t.write("src/generated/big.py", "");
  t.write("tests/test_x.py", "");
  t.write("src/skip_me.py", "");
  DiscoverOptions opts{t.str(), {"src/generated", "tests/**", "skip_*.py"}};
  Discovery d = discover_files({t.str()}, opts);
  EXPECT_EQ(d.files, (std::vector<std::string>{t.str() + "/src/train.py"}));
}

TEST(Discover, ExplicitFileIsLintedWhateverItsExtension) {
  TempDir t;
  const std::string f = t.write("train_script", "x = 1\n");
  Discovery d = discover_files({f}, {});
  EXPECT_TRUE(d.errors.empty());
  EXPECT_EQ(d.files, std::vector<std::string>{f});
}

TEST(Discover, MissingPathIsAnIoErrorAndOthersStillFound) {
  TempDir t;
  const std::string good = t.write("good.py", "");
  const std::string missing = t.str() + "/missing.py";
  Discovery d = discover_files({missing, good}, {});
  ASSERT_EQ(d.errors.size(), 1u);
  EXPECT_EQ(d.errors[0].kind, FileError::Kind::Io);
  EXPECT_EQ(d.errors[0].path, missing);
  EXPECT_EQ(d.errors[0].message, "No such file or directory");
  EXPECT_EQ(d.files, std::vector<std::string>{good});
}

TEST(Discover, DirectorySymlinkLoopIsReportedAndTerminates) {
  TempDir t;
  t.write("a/b/x.py", "");
  ASSERT_EQ(::symlink("../..", (t.path() / "a/b/loop").c_str()), 0);
  Discovery d = discover_files({t.str()}, {});
  EXPECT_EQ(d.files, std::vector<std::string>{t.str() + "/a/b/x.py"});
  ASSERT_EQ(d.errors.size(), 1u);
  EXPECT_EQ(d.errors[0].path, t.str() + "/a/b/loop");
  EXPECT_EQ(d.errors[0].message, "directory symlink loop (points back to " + t.str() + "); skipped");
}

TEST(Discover, SymlinksToFilesAndDirectoriesAreFollowedOnce) {
  TempDir t;
  t.write("real/m.py", "");
  t.write("target.py", "");
  ASSERT_EQ(::symlink("real", (t.path() / "alias").c_str()), 0);
  ASSERT_EQ(::symlink("target.py", (t.path() / "link.py").c_str()), 0);
  Discovery d = discover_files({t.str()}, {});
  EXPECT_TRUE(d.errors.empty());
  // The directory is reached twice (alias, real) but walked once, under its real name although the
  // alias sorts first (XLM's `src -> xlm`: its scripts import `xlm`); the file link is a file.
  EXPECT_EQ(sorted(d.files),
            (std::vector<std::string>{t.str() + "/link.py", t.str() + "/real/m.py", t.str() + "/target.py"}));
}

TEST(Discover, ALinkedDirectoryWithNoRealTwinIsWalked) {
  TempDir t;
  t.write("outside/data/m.py", "");
  t.write("proj/train.py", "");
  ASSERT_EQ(::symlink("../outside/data", (t.path() / "proj/data").c_str()), 0);
  Discovery d = discover_files({t.str() + "/proj"}, {});
  EXPECT_TRUE(d.errors.empty());
  EXPECT_EQ(sorted(d.files), (std::vector<std::string>{t.str() + "/proj/data/m.py", t.str() + "/proj/train.py"}));
}

TEST(Discover, DanglingSymlinkInADirectoryIsANotice) {
  TempDir t;
  t.write("ok.py", "");
  ASSERT_EQ(::symlink("nowhere.py", (t.path() / "gone.py").c_str()), 0);
  Discovery d = discover_files({t.str()}, {});
  EXPECT_EQ(d.files, std::vector<std::string>{t.str() + "/ok.py"});
  EXPECT_TRUE(d.errors.empty());
  ASSERT_EQ(d.notices.size(), 1u);
  EXPECT_EQ(d.notices[0].path, t.str() + "/gone.py");
}

TEST(Discover, DefaultIsTheCurrentDirectoryWithoutDotPrefix) {
  TempDir t;
  t.write("one.py", "");
  t.write("sub/two.py", "");
  const auto old = std::filesystem::current_path();
  std::filesystem::current_path(t.path());
  Discovery d = discover_files({}, {});
  std::filesystem::current_path(old);
  EXPECT_EQ(sorted(d.files), (std::vector<std::string>{"one.py", "sub/two.py"}));
}

TEST(Discover, DuplicatePathsAreLintedOnce) {
  TempDir t;
  const std::string f = t.write("x.py", "");
  Discovery d = discover_files({f, f, t.str()}, {});
  EXPECT_EQ(d.files, std::vector<std::string>{f});
}

TEST(Discover, PathRelativeToRoot) {
  EXPECT_EQ(path_relative_to_root("/r/a/b.py", "/r"), "a/b.py");
  EXPECT_EQ(path_relative_to_root("/elsewhere/b.py", "/r"), "");
  EXPECT_TRUE(matches_any_glob({"b.py"}, "/elsewhere/b.py", "/r"));
  EXPECT_FALSE(matches_any_glob({"a/*.py"}, "/elsewhere/a/b.py", "/r"));
}

}  // namespace
}  // namespace perflint
