// How --fix writes (issue 11 #9-#12): atomically through a file beside the original, never in place,
// only over the content that was linted, counting only what reached the disk; and -o never names an
// input file.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "cli/fix.hpp"
#include "cli_support.hpp"

namespace fs = std::filesystem;

namespace perflint {
namespace {

using testing::contains;
using testing::run_perflint;
using testing::slurp;
using testing::TempDir;

const std::string kFixable =
    "import torch\n"
    "torch.autograd.set_detect_anomaly(True)\n";

size_t entries(const fs::path& dir) {
  size_t n = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++n;
  return n;
}

TEST(FixWrite, ReplaceKeepsTheModeFollowsALinkAndLeavesNoTemporaryFile) {
  TempDir dir;
  const std::string path = dir.write("train.py", kFixable);
  ::chmod(path.c_str(), 0640);
  fs::create_symlink("train.py", dir.path() / "link.py");
  std::string err;
  ASSERT_TRUE(replace_file((dir.path() / "link.py").string(), kFixable, "x = 1\n", err)) << err;
  EXPECT_EQ(slurp(path), "x = 1\n");
  EXPECT_TRUE(fs::is_symlink(dir.path() / "link.py"));
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0640u);
  EXPECT_EQ(entries(dir.path()), 2u);
}

// #11: the user saved the file while perflint was fixing it: their content wins.
TEST(FixWrite, AFileThatChangedSinceItWasLintedIsNotOverwritten) {
  TempDir dir;
  const std::string path = dir.write("train.py", "# the user's newer edit\n" + kFixable);
  std::string err;
  EXPECT_FALSE(replace_file(path, kFixable, "fixed\n", err));
  EXPECT_TRUE(contains(err, "changed on disk")) << err;
  EXPECT_EQ(slurp(path), "# the user's newer edit\n" + kFixable);
  EXPECT_EQ(entries(dir.path()), 1u) << "the temporary file must be removed";
}

// #9 and #10: a directory we may not create files in, around a file we may write. Writing in place
// could leave half a file; perflint refuses, says why, exits 2 and counts no fix.
TEST(FixWrite, ReadOnlyDirectoryIsRefusedNotWrittenInPlace) {
  TempDir dir;
  const std::string path = dir.write("sub/train.py", kFixable);
  ::chmod(path.c_str(), 0666);
  ::chmod((dir.path() / "sub").c_str(), 0555);
  ::chmod(dir.path().c_str(), 0755);
  auto r = run_perflint({"--isolated", "--fix", "sub/train.py"}, dir.str(), {}, 120, /*drop_root=*/true);
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_EQ(slurp(path), kFixable) << "the file must be left as it was";
  EXPECT_TRUE(contains(r.out + r.err, "cannot create a temporary file")) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "Fixed 0 findings")) << r.out;
  EXPECT_TRUE(contains(r.out, "1 file could not be written")) << r.out;
  // The report shows the finding that is still in the file.
  EXPECT_TRUE(contains(r.out, "PFL301")) << r.out;
}

TEST(FixWrite, SummaryCountsOnlyTheFilesWritten) {
  TempDir dir;
  dir.write("ok/a.py", kFixable);
  const std::string locked = dir.write("locked/b.py", kFixable);
  ::chmod(locked.c_str(), 0666);
  ::chmod((dir.path() / "locked").c_str(), 0555);
  ::chmod(dir.path().c_str(), 0755);
  ::chmod((dir.path() / "ok").c_str(), 0777);
  ::chmod((dir.path() / "ok" / "a.py").c_str(), 0666);
  auto r = run_perflint({"--isolated", "--fix", "ok", "locked"}, dir.str(), {}, 120, /*drop_root=*/true);
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "Fixed 1 finding (1 remaining); 1 file could not be written")) << r.out;
  EXPECT_NE(slurp((dir.path() / "ok" / "a.py").string()), kFixable);
  EXPECT_EQ(slurp(locked), kFixable);
}

// #12: -o naming one of the inputs would replace the script with its report.
TEST(OutputFile, NamingAnInputIsAnErrorAndTheInputIsKept) {
  TempDir dir;
  const std::string path = dir.write("train.py", kFixable);
  for (const char* out : {"train.py", "./train.py"}) {
    auto r = run_perflint({"--isolated", "-o", out, "."}, dir.str());
    EXPECT_EQ(r.exit_code, 2) << out;
    EXPECT_TRUE(contains(r.err, "is the input file")) << r.err;
    EXPECT_EQ(slurp(path), kFixable);
  }
  fs::create_hard_link(path, dir.path() / "report.txt");
  auto r = run_perflint({"--isolated", "-o", "report.txt", "train.py"}, dir.str());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(slurp(path), kFixable);
  // An output beside the inputs is fine.
  auto ok = run_perflint({"--isolated", "-o", "out.txt", "train.py"}, dir.str());
  EXPECT_EQ(ok.exit_code, 1) << ok.err;
  EXPECT_TRUE(contains(slurp((dir.path() / "out.txt").string()), "PFL301"));
}

TEST(OutputFile, UnwritableOutputIsExitTwoWithTheReason) {
  TempDir dir;
  dir.write("train.py", kFixable);
  auto missing = run_perflint({"--isolated", "-o", "nodir/report.txt", "train.py"}, dir.str());
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_TRUE(contains(missing.err, "cannot write the report to nodir/report.txt: No such file or directory"))
      << missing.err;
  if (fs::exists("/dev/full")) {
    auto full = run_perflint({"--isolated", "-o", "/dev/full", "train.py"}, dir.str());
    EXPECT_EQ(full.exit_code, 2);
    EXPECT_TRUE(contains(full.err, "cannot write the report to /dev/full: No space left on device")) << full.err;
  }
}

}  // namespace
}  // namespace perflint
