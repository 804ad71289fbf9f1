// End-to-end: every kind of bad input from the issue, each next to a good file that must still be
// linted and reported. The good file carries a syntax error so that it shows up in the report with
// a position whatever rules exist ("other.py:1:7").
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>

#include "cli_support.hpp"

namespace perflint {
namespace {

using testing::contains;
using testing::run_perflint;
using testing::RunResult;
using testing::TempDir;

constexpr const char* kOther = "def f(:\n";
constexpr const char* kOtherReported = "other.py:1:7: error: syntax error";

// Runs perflint on `bad` (relative to the temp dir) and other.py, from inside the temp dir.
RunResult lint_with_other(const TempDir& t, const std::string& bad, std::vector<std::string> extra = {},
                          bool drop_root = false) {
  t.write("other.py", kOther);
  std::vector<std::string> args = std::move(extra);
  args.push_back(bad);
  args.push_back("other.py");
  return run_perflint(args, t.str(), {}, 120, drop_root);
}

// Permission tests need a user that permissions apply to: as root, perflint runs as nobody, which
// needs to get into the (mode 0700) temp dir. Returns false when no such user is available.
bool can_test_permissions(const TempDir& t, const std::string& locked) {
  if (::geteuid() == 0) return ::chmod(t.str().c_str(), 0755) == 0;
  return ::access(locked.c_str(), R_OK) != 0;
}

TEST(BadInput, NonexistentPath) {
  TempDir t;
  RunResult r = lint_with_other(t, "missing.py");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_TRUE(contains(r.err, "missing.py: error: No such file or directory")) << r.err;
  EXPECT_FALSE(contains(r.out, "missing.py")) << r.out;  // stdout is the report only (issue 11 #15)
  EXPECT_TRUE(contains(r.out, "1 file could not be linted (the errors are on stderr)")) << r.out;
  EXPECT_TRUE(contains(r.out, kOtherReported)) << r.out;
}

TEST(BadInput, UnreadableFile) {
  TempDir t;
  const std::string f = t.write("secret.py", "x = 1\n");
  ASSERT_EQ(::chmod(f.c_str(), 0), 0);
  if (!can_test_permissions(t, f)) GTEST_SKIP() << "this user can read a mode-000 file";
  RunResult r = lint_with_other(t, "secret.py", {}, /*drop_root=*/true);
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_TRUE(contains(r.err, "secret.py: error: Permission denied")) << r.err;
  EXPECT_TRUE(contains(r.out, kOtherReported)) << r.out;
}

TEST(BadInput, UnreadableDirectory) {
  TempDir t;
  const std::string d = t.mkdir("locked");
  t.write("locked/x.py", "x = 1\n");
  ASSERT_EQ(::chmod(d.c_str(), 0), 0);
  if (!can_test_permissions(t, d)) GTEST_SKIP() << "this user can read a mode-000 directory";
  RunResult r = lint_with_other(t, "locked", {}, /*drop_root=*/true);
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_TRUE(contains(r.err, "locked: error: cannot read directory: Permission denied")) << r.err;
  EXPECT_TRUE(contains(r.out, kOtherReported)) << r.out;
}

TEST(BadInput, DirectorySymlinkLoop) {
  TempDir t;
  t.write("pkg/sub/ok.py", "x = 1\n");
  ASSERT_EQ(::symlink("..", (t.path() / "pkg/sub/up").c_str()), 0);
  RunResult r = lint_with_other(t, "pkg");
  ASSERT_FALSE(r.timed_out);
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_TRUE(contains(r.err, "pkg/sub/up: error: directory symlink loop (points back to pkg); skipped")) << r.err;
  EXPECT_TRUE(contains(r.out, kOtherReported)) << r.out;
}

TEST(BadInput, EmptyFile) {
  TempDir t;
  t.write("empty.py", "");
  RunResult alone = run_perflint({"empty.py"}, t.str());
  EXPECT_EQ(alone.exit_code, 0) << alone.out << alone.err;
  EXPECT_FALSE(contains(alone.out, "error")) << alone.out;
  RunResult r = lint_with_other(t, "empty.py");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;  // other.py's syntax error, nothing about empty.py
  EXPECT_FALSE(contains(r.out, "empty.py")) << r.out;
  EXPECT_TRUE(contains(r.out, kOtherReported)) << r.out;
}

TEST(BadInput, BinaryFileNamedPy) {
  TempDir t;
  std::string elf("\x7f" "ELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x03\x00\x3e\x00", 20);
  for (int i = 0; i < 256; ++i) elf.push_back(static_cast<char>(i));
  t.write("tool.py", elf);
  RunResult r = lint_with_other(t, "tool.py");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_TRUE(contains(r.err, "tool.py: error: ")) << r.err;
  EXPECT_TRUE(contains(r.err, "binary")) << r.err;
  EXPECT_TRUE(contains(r.out, kOtherReported)) << r.out;
}

TEST(BadInput, InvalidUtf8) {
  TempDir t;
  t.write("latin1.py", "name = 'Jos\xe9'\n");
  RunResult r = lint_with_other(t, "latin1.py");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_TRUE(contains(r.err, "latin1.py")) << r.err;
  EXPECT_TRUE(contains(r.err, "UTF-8")) << r.err;
  EXPECT_TRUE(contains(r.out, kOtherReported)) << r.out;
}

TEST(BadInput, NulBytes) {
  TempDir t;
  t.write("nul.py", std::string("x = 1\n\0y = 2\n", 13));
  RunResult r = lint_with_other(t, "nul.py");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_TRUE(contains(r.err, "nul.py: error: ")) << r.err;
  EXPECT_TRUE(contains(r.err, "NUL")) << r.err;
  EXPECT_TRUE(contains(r.out, kOtherReported)) << r.out;
}

TEST(BadInput, ByteOrderMarkDoesNotShiftColumns) {
  TempDir t;
  t.write("bom.py", "\xEF\xBB\xBF" "def f(:\n");
  t.write("clean_bom.py", "\xEF\xBB\xBF" "x = 1\n");
  RunResult clean = run_perflint({"clean_bom.py"}, t.str());
  EXPECT_EQ(clean.exit_code, 0) << clean.out << clean.err;
  RunResult r = lint_with_other(t, "bom.py");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  // Same place as in other.py, which has no BOM.
  EXPECT_TRUE(contains(r.out, "bom.py:1:7: error: syntax error")) << r.out;
  EXPECT_TRUE(contains(r.out, kOtherReported)) << r.out;
}

TEST(BadInput, CrlfLineEndingsKeepLinesRight) {
  TempDir t;
  t.write("crlf.py", "a = 1\r\nb = 2\r\ndef f(:\r\n");
  t.write("clean_crlf.py", "a = 1\r\nif a:\r\n    b = 2\r\n");
  RunResult clean = run_perflint({"clean_crlf.py"}, t.str());
  EXPECT_EQ(clean.exit_code, 0) << clean.out << clean.err;
  RunResult r = lint_with_other(t, "crlf.py");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "crlf.py:3:7: error: syntax error")) << r.out;
  EXPECT_TRUE(contains(r.out, kOtherReported)) << r.out;
}

TEST(BadInput, TabsCountAsOneColumn) {
  TempDir t;
  // A tab and a single space indent the same code: the error is at the same column in both.
  t.write("tabs.py", "if x:\n\tdef f(:\n");
  t.write("space.py", "if x:\n def f(:\n");
  t.write("wide.py", "x = ['\xc3\xa9\xe2\x82\xac', 1 +]\n");  // two code points, five bytes
  RunResult r = run_perflint({"tabs.py", "space.py", "wide.py", "--jobs", "1"}, t.str());
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "tabs.py:2:8: error: syntax error")) << r.out;
  EXPECT_TRUE(contains(r.out, "space.py:2:8: error: syntax error")) << r.out;
  // Columns count code points, not bytes: the `]` after `1 +` is column 14 (byte 17).
  EXPECT_TRUE(contains(r.out, "wide.py:1:14: error: syntax error")) << r.out;
}

TEST(BadInput, HundredThousandDeepNesting) {
  TempDir t;
  t.write("deep.py", "x = " + std::string(100000, '(') + "1" + std::string(100000, ')') + "\n");
  t.write("deep_open.py", "x = " + std::string(100000, '(') + "\n");  // never closed
  t.write("other.py", kOther);
  RunResult r = run_perflint({"deep.py", "deep_open.py", "other.py"}, t.str(), {}, 100);
  ASSERT_FALSE(r.timed_out);
  EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.exit_code << r.out << r.err;
  EXPECT_TRUE(contains(r.out, "deep_open.py")) << r.out;  // its syntax error is reported
  EXPECT_TRUE(contains(r.out, kOtherReported)) << r.out;
}

TEST(BadInput, FileOverTheSizeLimitIsSkippedWithANotice) {
  TempDir t;
  t.write("big.py", std::string(2047, '#') + "\n");
  RunResult r = lint_with_other(t, "big.py", {"--max-file-size", "1KiB"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;  // not an error: other.py decides the exit code
  EXPECT_TRUE(contains(r.err, "big.py: notice: skipped: 2 KiB is over the 1 KiB limit (max-file-size)")) << r.err;
  EXPECT_TRUE(contains(r.out, kOtherReported)) << r.out;
}

TEST(BadInput, SizeLimitDefaultIsTenMiB) {
  TempDir t;
  std::string big(10 * 1024 * 1024 + 4096, '\n');
  t.write("huge.py", big);
  RunResult r = run_perflint({"huge.py"}, t.str());
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(contains(r.err, "huge.py: notice: skipped: 10489856 bytes is over the 10485760 bytes limit (max-file-size)")) << r.err;
}

TEST(BadInput, ErrorsGoToStderrInEveryFormat) {
  TempDir t;
  RunResult r = lint_with_other(t, "missing.py", {"--output-format", "json"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "missing.py: error: No such file or directory")) << r.err;
  EXPECT_TRUE(contains(r.out, "\"errors\"")) << r.out;
}

// Issue 11 #15: UTF-16 was reported as "NUL byte (binary file?)".
TEST(BadInput, Utf16FileIsNamedAsSuch) {
  TempDir t;
  t.write("u16.py", std::string("\xFF\xFE" "i\0m\0p\0o\0r\0t\0 \0t\0o\0r\0c\0h\0\n\0", 26));
  RunResult r = lint_with_other(t, "u16.py");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_TRUE(contains(r.err, "u16.py: error: file is UTF-16 encoded")) << r.err;
  EXPECT_FALSE(contains(r.err, "NUL byte")) << r.err;
  EXPECT_TRUE(contains(r.out, kOtherReported)) << r.out;
}

// Issue 11 #3: opening a FIFO for reading waits for a writer; perflint blocked there forever.
TEST(BadInput, FifoNamedExplicitlyIsAnErrorNotAHang) {
  TempDir t;
  ASSERT_EQ(::mkfifo((t.path() / "pipe.py").c_str(), 0644), 0);
  t.write("other.py", kOther);
  RunResult r = run_perflint({"pipe.py", "other.py"}, t.str(), {}, /*timeout_s=*/20);
  ASSERT_FALSE(r.timed_out) << "perflint blocked on the FIFO";
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_TRUE(contains(r.err, "pipe.py: error: not a regular file (a FIFO)")) << r.err;
  EXPECT_TRUE(contains(r.out, kOtherReported)) << r.out;
}

TEST(BadInput, FifoFoundInADirectoryIsSkippedWithANotice) {
  TempDir t;
  t.write("src/other.py", kOther);
  ASSERT_EQ(::mkfifo((t.path() / "src" / "pipe.py").c_str(), 0644), 0);
  RunResult r = run_perflint({"src"}, t.str(), {}, /*timeout_s=*/20);
  ASSERT_FALSE(r.timed_out) << "perflint blocked on the FIFO";
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;  // the syntax error in other.py; the FIFO is no error
  EXPECT_TRUE(contains(r.err, "src/pipe.py: notice: skipped: not a regular file (a FIFO)")) << r.err;
  EXPECT_TRUE(contains(r.out, "src/other.py:1:7")) << r.out;
}

TEST(BadInput, DeviceNamedExplicitlyIsAnError) {
  TempDir t;
  RunResult r = lint_with_other(t, "/dev/zero");
  ASSERT_FALSE(r.timed_out);
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_TRUE(contains(r.err, "/dev/zero: error: not a regular file (a character device)")) << r.err;
  EXPECT_TRUE(contains(r.out, kOtherReported)) << r.out;
}

}  // namespace
}  // namespace perflint
