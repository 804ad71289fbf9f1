// --fix / --diff: the in-memory fix loop per file on a thread pool, writes through a temporary file
// and rename, and a small Myers line diff for --diff.
#include "cli/fix.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <set>
#include <cerrno>
#include <cstring>
#include <exception>
#include <filesystem>
#include <string_view>
#include <thread>
#include <utility>

#include "util/io.hpp"
#include "cli/options.hpp"
#include "parser/source.hpp"
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

namespace {

// Closes on every path out; `release` hands the descriptor to an explicit close whose error counts.
struct OwnedFd {
  int fd = -1;
  ~OwnedFd() {
    if (fd >= 0) ::close(fd);
  }
  int release() { return std::exchange(fd, -1); }
};

std::string errno_text() { return std::strerror(errno); }

bool write_all(int fd, const std::string& content) {
  for (size_t done = 0; done < content.size();) {
    const ssize_t w = ::write(fd, content.data() + done, content.size() - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      if (w == 0) errno = EIO;
      return false;
    }
    done += static_cast<size_t>(w);
  }
  return true;
}

}  // namespace

bool replace_file(const std::string& path, const std::string& expected, const std::string& content,
                  std::string& error) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path target = fs::canonical(path, ec);
  if (ec) {
    error = ec.message();
    return false;
  }
  struct stat st {};
  if (::stat(target.c_str(), &st) != 0) {
    error = errno_text();
    return false;
  }
  if (!S_ISREG(st.st_mode)) {
    error = "not a regular file";
    return false;
  }
  const fs::path dir = target.parent_path();
  std::string tmp = (dir / ("." + target.filename().string() + ".perflint-XXXXXX")).string();
  OwnedFd fd{::mkstemp(tmp.data())};
  if (fd.fd < 0) {
    // Writing in place could leave half a file behind (a full disk, a crash): refuse instead.
    error = "cannot create a temporary file in " + dir.string() + " (" + errno_text() +
            "); perflint replaces a file only through a new file beside it, so nothing was written";
    return false;
  }
  auto fail = [&](std::string why) {
    error = std::move(why);
    ::unlink(tmp.c_str());
    return false;
  };
  if (::fchmod(fd.fd, st.st_mode & 07777) != 0) return fail(errno_text());
  if (!write_all(fd.fd, content)) return fail(errno_text());
  if (::fsync(fd.fd) != 0) return fail(errno_text());
  if (::close(fd.release()) != 0) return fail(errno_text());
  // The user (or a formatter) may have saved the file while we were fixing it: theirs wins.
  const FileRead now = read_whole_file(target.string(), expected.size());
  if (now.status != FileRead::Status::Ok || now.bytes != expected)
    return fail(now.status == FileRead::Status::Error ? "cannot read it again: " + now.error
                                                      : "the file changed on disk while it was being fixed; "
                                                        "not written (run perflint --fix again)");
  if (::rename(tmp.c_str(), target.c_str()) != 0) return fail(errno_text());
  // The rename itself is durable once the directory is synced; a failure here loses nothing.
  if (OwnedFd d{::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)}; d.fd >= 0) ::fsync(d.fd);
  return true;
}

FixRun fix_files(const std::vector<LintJob>& jobs, const RunnerOptions& options, bool unsafe, bool write,
                 const FirstPass* first) {
  // The run's result of each path that has one, for FirstPass.
  std::map<std::string_view, const FileResult*> firsts;
  if (first && first->results && first->sources)
    for (const FileResult& r : *first->results) firsts.emplace(r.path, &r);
  struct One {
    FileResult result;
    std::string source;  // the fixed text (after any BOM), for snippets
    std::string diff;
    size_t applied = 0;
    bool changed = false;
    bool write_failed = false;
    std::optional<std::string> stdin_fixed;
  };
  std::vector<One> done(jobs.size());
  std::atomic<size_t> next{0};
  prepare_project(jobs, options);  // as lint_files does: the fixes must not depend on the order of files
  auto work = [&](const LintJob& job, One& one, ts::Parser& parser) {
    one.result.path = job.path;
    FileRead read = read_job(job, options.max_file_size);
    if (read.status == FileRead::Status::Error) {
      one.result.errors.push_back({FileError::Kind::Io, job.path, read.error, std::nullopt});
      return;
    }
    if (read.status == FileRead::Status::TooLarge) {
      one.result.notices.push_back({job.path, "skipped: over the " + format_byte_size(options.max_file_size) +
                                                  " limit (max-file-size); not fixed"});
      return;
    }
    // The run's own lint of this text, when the file still holds what it linted (spans index the
    // text after a BOM, as the kept source does).
    const FileResult* known = nullptr;
    if (auto r = firsts.find(job.path); r != firsts.end() && r->second->linted)
      if (auto src = first->sources->find(job.path); src != first->sources->end()) {
        if (without_bom(read.bytes) == src->second) known = r->second;
      }
    FixedFile fixed = fix_buffer(job.path, read.bytes, *job.rules, parser, unsafe, options.project, known);
    one.result = std::move(fixed.result);
    one.applied = fixed.applied;
    one.changed = fixed.changed && fixed.bytes != read.bytes;
    if (one.changed) {
      one.diff = unified_diff(job.path, read.bytes, fixed.bytes);
      std::string err;
      if (write && !job.content && !replace_file(job.path, read.bytes, fixed.bytes, err)) {
        // Nothing was written: report the file as it is on disk, and count none of its fixes.
        one.result = lint_buffer(job.path, read.bytes, *job.rules, parser, options.project);
        one.result.errors.push_back({FileError::Kind::Io, job.path, "cannot write the fixed file: " + err, std::nullopt});
        one.applied = 0;
        one.changed = false;
        one.write_failed = true;
        fixed.bytes = std::move(read.bytes);
      }
    }
    if (job.content) one.stdin_fixed = fixed.bytes;  // the whole text, BOM included: it goes to stdout
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
    out.applied_by_job.push_back(one.applied);
    if (one.changed) ++out.files_changed;
    if (one.write_failed) ++out.files_failed;
    out.diff += one.diff;
    if (one.stdin_fixed) out.stdin_fixed = std::move(one.stdin_fixed);
    else if (jobs[i].content && !out.stdin_fixed) out.stdin_fixed = *jobs[i].content;  // not lintable: unchanged
    if (options.keep_sources && !one.result.findings.empty()) out.run.sources.emplace(jobs[i].path, std::move(one.source));
    out.run.results.push_back(std::move(one.result));
  }
  return out;
}

FixCounts count_fixes(const std::vector<LintJob>& jobs, const RunnerOptions& options,
                      const std::vector<FileResult>& results,
                      const std::map<std::string, std::string, std::less<>>* sources) {
  std::set<std::string_view> any, unsafe_only;
  for (const auto& r : results) {
    if (r.has_syntax_error()) continue;  // not fixed, as --fix does not
    for (const auto& f : r.findings) {
      if (!f.fix || !fix_applies(*f.fix, true)) continue;
      any.insert(r.path);
      if (!fix_applies(*f.fix, false)) unsafe_only.insert(r.path);
    }
  }
  FixCounts counts;
  if (any.empty()) return counts;
  RunnerOptions quiet = options;
  quiet.keep_sources = false;
  std::vector<LintJob> fixable, with_unsafe;
  for (const auto& job : jobs)
    if (any.count(job.path)) fixable.push_back(job);
  // Each loop starts from the run's own lint of the file (FirstPass): only the fixed texts are linted.
  const FirstPass first{&results, sources};
  const FixRun safe = fix_files(fixable, quiet, false, false, &first);
  counts.safe = safe.applied;
  counts.with_unsafe = counts.safe;
  // Unsafe fixes only change the count in files that have one; the other files' count is the same.
  if (!unsafe_only.empty()) {
    size_t safe_there = 0;  // what the safe loop applied in those files
    for (size_t i = 0; i < fixable.size(); ++i)
      if (unsafe_only.count(fixable[i].path)) {
        with_unsafe.push_back(fixable[i]);
        safe_there += safe.applied_by_job[i];
      }
    counts.with_unsafe = counts.safe - safe_there + fix_files(with_unsafe, quiet, true, false, &first).applied;
  }
  return counts;
}

}  // namespace perflint
