// Work distribution by an atomic index instead of pre-split chunks: file sizes vary by orders of
// magnitude, and a thread that finishes early simply takes the next file.
#include "cli/runner.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <thread>

#include "util/io.hpp"
#include "cli/options.hpp"
#include "parser/ts.hpp"
#include "util/byte_size.hpp"

namespace perflint {

namespace {

bool worth_keeping(const FileResult& r) {
  if (!r.findings.empty()) return true;
  return std::any_of(r.errors.begin(), r.errors.end(), [](const FileError& e) { return e.position.has_value(); });
}

FileResult lint_one(const LintJob& job, const RunnerOptions& options, ts::Parser& parser, std::string* kept) {
  FileRead read = read_job(job, options.max_file_size);
  if (read.status == FileRead::Status::Error) {
    FileResult r;
    r.path = job.path;
    r.errors.push_back({FileError::Kind::Io, job.path, read.error, std::nullopt});
    return r;
  }
  if (read.status == FileRead::Status::TooLarge) {
    FileResult r;
    r.path = job.path;
    std::string size = format_byte_size(read.size), limit = format_byte_size(options.max_file_size);
    // "10.0 MiB is over the 10 MiB limit" would read as a contradiction: show the bytes then.
    if (size == limit || size.substr(0, size.find(' ')) == limit.substr(0, limit.find(' ')) + ".0") {
      size = std::to_string(read.size) + " bytes";
      limit = std::to_string(options.max_file_size) + " bytes";
    }
    r.notices.push_back({job.path, "skipped: " + size + " is over the " + limit + " limit (max-file-size)"});
    return r;
  }
  // The engine takes the bytes by value; a copy is kept only while we may need it for snippets.
  std::string copy;
  if (options.keep_sources) copy = read.bytes;
  std::string key;
  std::optional<FileResult> cached;
  if (options.cache && !job.content) {
    key = ResultCache::key(job.path, read.bytes, *job.rules, options.project ? options.project->fingerprint(job.path, read.bytes) : "");
    cached = options.cache->load(key, job.path);
  }
  FileResult r = cached ? std::move(*cached) : lint_buffer(job.path, std::move(read.bytes), *job.rules, parser, options.project);
  if (options.cache && !job.content && !cached) options.cache->store(key, job.path, r);
  if (options.keep_sources && worth_keeping(r)) {
    // Spans index the text after the BOM (SourceFile drops it); keep the same text for snippets.
    if (copy.rfind("\xEF\xBB\xBF", 0) == 0) copy.erase(0, 3);
    *kept = std::move(copy);
  }
  return r;
}

}  // namespace

FileRead read_job(const LintJob& job, uint64_t max_size) {
  if (!job.content) return read_whole_file(job.path, max_size);
  FileRead read;
  read.size = job.content->size();
  if (read.size > max_size) {
    read.status = FileRead::Status::TooLarge;
    return read;
  }
  read.bytes = *job.content;
  read.status = FileRead::Status::Ok;
  return read;
}

unsigned effective_jobs(unsigned jobs, size_t files) {
  unsigned n = jobs;
  if (n == 0) n = std::max(1u, std::thread::hardware_concurrency());
  // Linting is CPU-bound: far more threads than cores only costs memory (a parser and a stack
  // each), and a typo like --jobs 100000 must not exhaust the process's thread limit.
  n = std::min(n, std::max(64u, 4 * std::thread::hardware_concurrency()));
  if (files < n) n = static_cast<unsigned>(std::max<size_t>(files, 1));
  return n;
}

void prepare_project(const std::vector<LintJob>& jobs, const RunnerOptions& options) {
  if (!options.project) return;
  std::vector<std::string> files;
  for (const LintJob& job : jobs)
    if (!job.content) files.push_back(job.path);
  options.project->prepare(files);
}

LintRun lint_files(const std::vector<LintJob>& jobs, const RunnerOptions& options) {
  LintRun run;
  run.results.resize(jobs.size());
  std::vector<std::string> kept(jobs.size());
  std::atomic<size_t> next{0};
  prepare_project(jobs, options);

  auto worker = [&] {
    ts::Parser parser;
    for (size_t i = next.fetch_add(1); i < jobs.size(); i = next.fetch_add(1)) {
      try {
        run.results[i] = lint_one(jobs[i], options, parser, &kept[i]);
      } catch (const std::exception& e) {
        // lint_buffer does not throw for any input; this is memory exhaustion or a bug. Report it
        // against the file and keep going so the rest of the report is not lost.
        FileResult r;
        r.path = jobs[i].path;
        r.errors.push_back({FileError::Kind::Io, jobs[i].path, std::string("internal error: ") + e.what(),
                            std::nullopt});
        run.results[i] = std::move(r);
      }
    }
  };

  const unsigned n = effective_jobs(options.jobs, jobs.size());
  if (n <= 1) {
    worker();
  } else {
    std::vector<std::thread> threads;
    threads.reserve(n);
    for (unsigned t = 0; t < n; ++t) threads.emplace_back(worker);
    for (auto& t : threads) t.join();
  }

  for (size_t i = 0; i < jobs.size(); ++i)
    if (!kept[i].empty()) run.sources.emplace(jobs[i].path, std::move(kept[i]));
  return run;
}

}  // namespace perflint
