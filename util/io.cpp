// POSIX reads so that the size is known from fstat before reading and errors keep their errno.
#include "util/io.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

namespace perflint {

namespace {
struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};
}  // namespace

std::string read_fd_text(int fd, size_t max_size) {
  std::string out;
  char buf[4096];
  while (out.size() < max_size) {
    const ssize_t n = ::read(fd, buf, std::min(sizeof buf, max_size - out.size()));
    if (n > 0) {
      out.append(buf, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    break;  // the end, or an error (ESRCH from a /proc file whose process ended): what was read
  }
  return out;
}

std::string read_text_upto(const std::string& path, size_t max_size) {
  const Fd f{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  return f.fd < 0 ? std::string() : read_fd_text(f.fd, max_size);
}

FileRead read_whole_file(const std::string& path, uint64_t max_size) {
  FileRead r;
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer, forever.
  Fd f{::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK)};
  if (f.fd < 0) {
    r.status = FileRead::Status::Error;
    r.error = std::strerror(errno);
    return r;
  }
  struct stat st {};
  if (::fstat(f.fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    // A FIFO, device or socket (e.g. replaced since discovery): /dev/zero would never end.
    r.status = FileRead::Status::Error;
    r.error = "not a regular file";
    return r;
  }
  // (O_NONBLOCK has no effect on a regular file's reads: no fcntl to clear it.)
  r.size = static_cast<uint64_t>(st.st_size);
  if (r.size > max_size) {
    r.status = FileRead::Status::TooLarge;
    return r;
  }
  // Straight into the string, one byte more than st_size so that growth shows; read to EOF rather
  // than trusting st_size: files grow (and some, in /proc, report size 0).
  size_t have = 0;
  r.bytes.resize(static_cast<size_t>(r.size) + 1);
  for (;;) {
    if (have == r.bytes.size()) r.bytes.resize(std::min<uint64_t>(2 * have + 4096, max_size + 1));
    const ssize_t n = ::read(f.fd, r.bytes.data() + have, r.bytes.size() - have);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      r.status = FileRead::Status::Error;
      r.error = std::strerror(errno);
      r.bytes.clear();
      return r;
    }
    have += static_cast<size_t>(n);
    if (have > max_size) {
      r.status = FileRead::Status::TooLarge;
      r.size = have;
      r.bytes.clear();
      r.bytes.shrink_to_fit();
      return r;
    }
  }
  r.bytes.resize(have);
  r.size = have;
  return r;
}

bool write_whole_file(const std::string& path, const std::string& content, std::string& error) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) {
    error = std::strerror(errno);
    return false;
  }
  const size_t written = std::fwrite(content.data(), 1, content.size(), f);
  const int write_errno = errno;
  if (std::fclose(f) != 0 || written != content.size()) {
    error = std::strerror(written != content.size() ? write_errno : errno);
    return false;
  }
  return true;
}

}  // namespace perflint
