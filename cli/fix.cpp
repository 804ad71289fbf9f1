// --fix / --diff: the in-memory fix loop per file on a thread pool, writes through a temporary file
// and rename, and a small Myers line diff for --diff.
#include "cli/fix.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <exception>
#include <filesystem>
#include <string_view>
#include <thread>

#include "util/io.hpp"
#include "cli/options.hpp"
#include "parser/ts.hpp"
#include "rules/fixer.hpp"
#include "util/byte_size.hpp"

namespace perflint {

namespace {

std::vector<std::string_view> lines_with_ends(std::string_view s) {
  std::vector<std::string_view> out;
  size_t b = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\n' || (s[i] == '\r' && (i + 1 >= s.size() || s[i + 1] != '\n'))) {
      out.push_back(s.substr(b, i + 1 - b));
      b = i + 1;
    }
  }
  if (b < s.size()) out.push_back(s.substr(b));
  return out;
}

enum class Op { Keep, Del, Add };

// Myers' O(ND) shortest edit script over lines, after trimming the common prefix and suffix. Only
// the diagonals reached at each step are kept (O(D^2) memory), since D is small for fixes.
std::vector<Op> edit_script(const std::vector<std::string_view>& a, const std::vector<std::string_view>& b) {
  size_t pre = 0;
  while (pre < a.size() && pre < b.size() && a[pre] == b[pre]) ++pre;
  size_t suf = 0;
  while (suf < a.size() - pre && suf < b.size() - pre && a[a.size() - 1 - suf] == b[b.size() - 1 - suf]) ++suf;
  const long n = static_cast<long>(a.size() - pre - suf), m = static_cast<long>(b.size() - pre - suf);
  auto A = [&](long i) { return a[pre + static_cast<size_t>(i)]; };
  auto B = [&](long j) { return b[pre + static_cast<size_t>(j)]; };

  std::vector<std::vector<long>> trace;  // trace[d][k + d] = furthest x on diagonal k after d edits
  std::vector<long> v(1, 0);
  long final_d = 0;
  for (long d = 0;; ++d) {
    std::vector<long> next(static_cast<size_t>(2 * d + 1), 0);
    bool done = false;
    for (long k = -d; k <= d; k += 2) {
      auto prev = [&](long kk) { return v[static_cast<size_t>(kk + d - 1)]; };
      long x;
      if (d == 0) x = 0;
      else if (k == -d || (k != d && prev(k - 1) < prev(k + 1))) x = prev(k + 1);
      else x = prev(k - 1) + 1;
      long y = x - k;
      while (x < n && y < m && A(x) == B(y)) ++x, ++y;
      next[static_cast<size_t>(k + d)] = x;
      if (x >= n && y >= m) done = true;
    }
    trace.push_back(next);
    v = std::move(next);
    if (done) {
      final_d = d;
      break;
    }
  }
  // Walk back from (n, m).
  std::vector<Op> middle;
  long x = n, y = m;
  for (long d = final_d; d > 0; --d) {
    const std::vector<long>& pv = trace[static_cast<size_t>(d - 1)];
    auto px = [&](long kk) { return pv[static_cast<size_t>(kk + d - 1)]; };
    const long k = x - y;
    const bool down = k == -d || (k != d && px(k - 1) < px(k + 1));
    const long pk = down ? k + 1 : k - 1;
    const long sx = px(pk), sy = sx - pk;
    const long mx = down ? sx : sx + 1, my = down ? sy + 1 : sy;
    while (x > mx && y > my) middle.push_back(Op::Keep), --x, --y;
    middle.push_back(down ? Op::Add : Op::Del);
    x = sx;
    y = sy;
  }
  while (x > 0 && y > 0) middle.push_back(Op::Keep), --x, --y;
  std::vector<Op> ops(pre, Op::Keep);
  ops.insert(ops.end(), middle.rbegin(), middle.rend());
  ops.insert(ops.end(), suf, Op::Keep);
  return ops;
}

void append_line(std::string& out, char mark, std::string_view line) {
  out += mark;
  out.append(line);
  if (line.empty() || (line.back() != '\n' && line.back() != '\r')) out += "\n\\ No newline at end of file\n";
}

std::string range(size_t start, size_t count) {
  // 1-based start; an empty range names the line before it, as diff(1) does.
  const size_t first = count == 0 ? start : start + 1;
  return count == 1 ? std::to_string(first) : std::to_string(first) + "," + std::to_string(count);
}

}  // namespace

std::string unified_diff(const std::string& path, const std::string& before, const std::string& after, int context) {
  if (before == after) return {};
  const auto a = lines_with_ends(before), b = lines_with_ends(after);
  const std::vector<Op> ops = edit_script(a, b);
  const size_t ctx = static_cast<size_t>(context);
  std::string out = "--- a/" + path + "\n+++ b/" + path + "\n";
  size_t i = 0, ai = 0, bi = 0;  // ai, bi: line indices in `a` and `b` at ops[i]
  while (i < ops.size()) {
    if (ops[i] == Op::Keep) {
      ++i, ++ai, ++bi;
      continue;
    }
    // A hunk: from `ctx` lines before this change to `ctx` lines after the last change that is at
    // most 2*ctx unchanged lines away.
    // The gap to the previous hunk is over 2*ctx unchanged lines, so the contexts never overlap.
    const size_t back = std::min(ctx, ai);
    const size_t start = i - back;
    ai -= back;
    bi -= back;
    size_t end = i;
    for (size_t k = i; k < ops.size(); ++k) {
      if (ops[k] != Op::Keep) end = k + 1;
      else if (k - end >= 2 * ctx) break;
    }
    const size_t stop = std::min(ops.size(), end + ctx);
    size_t ac = 0, bc = 0;
    std::string body;
    for (size_t k = start, x = ai, y = bi; k < stop; ++k) {
      if (ops[k] == Op::Keep) append_line(body, ' ', a[x++]), ++y, ++ac, ++bc;
      else if (ops[k] == Op::Del) append_line(body, '-', a[x++]), ++ac;
      else append_line(body, '+', b[y++]), ++bc;
    }
    out += "@@ -" + range(ai, ac) + " +" + range(bi, bc) + " @@\n" + body;
    ai += ac;
    bi += bc;
    i = stop;
  }
  return out;
}

bool replace_file(const std::string& path, const std::string& content, std::string& error) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path target = fs::canonical(path, ec);
  if (ec) {
    error = ec.message();
    return false;
  }
  struct stat st {};
  if (::stat(target.c_str(), &st) != 0) {
    error = std::strerror(errno);
    return false;
  }
  std::string tmp = (target.parent_path() / ("." + target.filename().string() + ".perflint-XXXXXX")).string();
  const int fd = ::mkstemp(tmp.data());
  if (fd < 0) {
    // A directory we may not create files in, around a file we may write: write in place.
    return write_whole_file(target.string(), content, error);
  }
  bool ok = ::fchmod(fd, st.st_mode & 07777) == 0;
  for (size_t done = 0; ok && done < content.size();) {
    const ssize_t w = ::write(fd, content.data() + done, content.size() - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) ok = false;
    else done += static_cast<size_t>(w);
  }
  if (!ok) error = std::strerror(errno);
  if (::close(fd) != 0 && ok) {
    ok = false;
    error = std::strerror(errno);
  }
  if (ok && ::rename(tmp.c_str(), target.c_str()) != 0) {
    ok = false;
    error = std::strerror(errno);
  }
  if (!ok) ::unlink(tmp.c_str());
  return ok;
}

FixRun fix_files(const std::vector<LintJob>& jobs, const RunnerOptions& options, bool unsafe, bool write) {
  struct One {
    FileResult result;
    std::string source;  // the fixed text (after any BOM), for snippets
    std::string diff;
    size_t applied = 0;
    bool changed = false;
  };
  std::vector<One> done(jobs.size());
  std::atomic<size_t> next{0};
  auto work = [&](const LintJob& job, One& one, ts::Parser& parser) {
    one.result.path = job.path;
    FileRead read = read_whole_file(job.path, options.max_file_size);
    if (read.status == FileRead::Status::Error) {
      one.result.errors.push_back({FileError::Kind::Io, job.path, read.error, std::nullopt});
      return;
    }
    if (read.status == FileRead::Status::TooLarge) {
      one.result.notices.push_back({job.path, "skipped: over the " + format_byte_size(options.max_file_size) +
                                                  " limit (max-file-size); not fixed"});
      return;
    }
    FixedFile fixed = fix_buffer(job.path, read.bytes, *job.rules, parser, unsafe, options.project);
    one.result = std::move(fixed.result);
    one.applied = fixed.applied;
    one.changed = fixed.changed && fixed.bytes != read.bytes;
    if (one.changed) {
      one.diff = unified_diff(job.path, read.bytes, fixed.bytes);
      if (write) {
        std::string err;
        if (!replace_file(job.path, fixed.bytes, err))
          one.result.errors.push_back({FileError::Kind::Io, job.path, "cannot write the fixed file: " + err, std::nullopt});
      }
    }
    one.source = std::move(fixed.bytes);
    if (one.source.rfind("\xEF\xBB\xBF", 0) == 0) one.source.erase(0, 3);
  };
  auto worker = [&] {
    ts::Parser parser;
    for (size_t i = next.fetch_add(1); i < jobs.size(); i = next.fetch_add(1)) {
      try {
        work(jobs[i], done[i], parser);
      } catch (const std::exception& e) {
        done[i].result.errors.push_back({FileError::Kind::Io, jobs[i].path, std::string("internal error: ") + e.what(),
                                         std::nullopt});
      }
    }
  };
  const unsigned n = effective_jobs(options.jobs, jobs.size());
  if (n <= 1) {
    worker();
  } else {
    std::vector<std::thread> threads;
    for (unsigned t = 0; t < n; ++t) threads.emplace_back(worker);
    for (auto& t : threads) t.join();
  }
  FixRun out;
  for (size_t i = 0; i < jobs.size(); ++i) {
    One& one = done[i];
    out.applied += one.applied;
    if (one.changed) ++out.files_changed;
    out.diff += one.diff;
    if (options.keep_sources && !one.result.findings.empty()) out.run.sources.emplace(jobs[i].path, std::move(one.source));
    out.run.results.push_back(std::move(one.result));
  }
  return out;
}

}  // namespace perflint
