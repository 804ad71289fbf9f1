// Parallel linting: a pool of threads, each with its own tree-sitter parser, pulls files from a
// shared counter. Results come back in job order, so output never depends on --jobs.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "cli/cache.hpp"
#include "parser/project.hpp"
#include "util/io.hpp"
#include "rules/engine.hpp"
#include "rules/finding.hpp"

namespace perflint {

struct LintJob {
  std::string path;
  const RuleSet* rules = nullptr;  // must outlive lint_files
  // The file's bytes when they do not come from `path` (`perflint -` reads stdin; `path` is then
  // --stdin-filename or "-"); must outlive lint_files. Null: read `path`.
  const std::string* content = nullptr;
};

struct RunnerOptions {
  unsigned jobs = 0;                          // 0: every hardware thread
  uint64_t max_file_size = 10ull * 1024 * 1024;
  // Keep the bytes of files that have something to show (findings, located errors) for snippets;
  // the others are dropped as soon as they are linted to keep memory flat on big trees.
  bool keep_sources = true;
  // Sibling-module summaries shared by all files of the run (cross-file training steps); optional.
  ProjectContext* project = nullptr;
  // The on-disk result cache (cli/cache.hpp); null: none. Not used for content given in the job.
  ResultCache* cache = nullptr;
};

struct LintRun {
  std::vector<FileResult> results;  // one per job, in job order
  std::map<std::string, std::string, std::less<>> sources;
};

// The project linker's tables for the roots of these jobs' files, computed now, one root after
// another in a fixed order (ProjectContext::prepare): lint_files and fix_files call it before their
// threads start, so that no file's answer depends on which file a thread linted first.
void prepare_project(const std::vector<LintJob>& jobs, const RunnerOptions& options);

LintRun lint_files(const std::vector<LintJob>& jobs, const RunnerOptions& options);

// The number of threads `jobs` asks for, given `files` to lint (never more threads than files).
// The job's bytes: its `content`, or the file at its path (util/io's read_whole_file).
FileRead read_job(const LintJob& job, uint64_t max_size);

unsigned effective_jobs(unsigned jobs, size_t files);

}  // namespace perflint
