// util/io: reads that never throw, even from a /proc file whose process has ended.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

#include "util/io.hpp"

namespace perflint {
namespace {

TEST(ReadFdText, AProcFileOfAProcessThatEndedReadsAsWhatWasThereWithoutThrowing) {
  // Open /proc/<pid>/stat while the child lives, reap it, then read: the kernel answers ESRCH. A
  // std::ifstream throws from its underflow there (the probe's stray-process scan once did: a
  // SIGTERM'd probe exited 2 with "basic_filebuf::underflow error reading the file").
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::pause();
    ::_exit(0);
  }
  const std::string path = "/proc/" + std::to_string(child) + "/stat";
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0) << path;
  ::kill(child, SIGKILL);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  std::string text = "unset";
  EXPECT_NO_THROW(text = read_fd_text(fd, 4096));
  EXPECT_EQ(text, "") << "a reaped process's stat has nothing to read";
  ::close(fd);
}

TEST(ReadFdText, ReadsAFileWholeUpToTheLimit) {
  const std::string path = ::testing::TempDir() + "/perflint_io_test.txt";
  std::string error;
  ASSERT_TRUE(write_whole_file(path, std::string(10000, 'x') + "end", error)) << error;
  EXPECT_EQ(read_text_upto(path, 1 << 20), std::string(10000, 'x') + "end");
  EXPECT_EQ(read_text_upto(path, 5), "xxxxx");
  EXPECT_EQ(read_text_upto(path + ".missing", 100), "");
  ::unlink(path.c_str());
}

}  // namespace
}  // namespace perflint
