// Whole-file reads and writes for the CLI (the core works on buffers; I/O lives at the edges).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace perflint {

struct FileRead {
  enum class Status { Ok, TooLarge, Error };
  Status status = Status::Ok;
  std::string bytes;   // the whole file, binary mode (Ok only)
  uint64_t size = 0;   // bytes on disk (TooLarge: at least this many)
  std::string error;   // strerror text (Error only)
};

// Reads `path` in binary mode, refusing (without reading it all) a file over `max_size` bytes, and
// refusing (without blocking) anything but a regular file: a FIFO, a device, a socket.
FileRead read_whole_file(const std::string& path, uint64_t max_size);

// What can be read from `fd` up to its end or its first error, at most `max_size` bytes, retrying
// reads a signal interrupts; never throws. For /proc files, whose process may end between the open
// and the read (the read then fails with ESRCH: a std::ifstream throws from underflow there).
std::string read_fd_text(int fd, size_t max_size);
// The same for `path` (empty when it cannot be opened).
std::string read_text_upto(const std::string& path, size_t max_size);

// Writes `content` to `path` (truncating); false with `error` set on failure.
bool write_whole_file(const std::string& path, const std::string& content, std::string& error);

}  // namespace perflint
