// `perflint --fix` / `--diff`: fix each file in memory (rules/fixer), then write it back or print a
// unified diff. The diff writer is here too: it is only ever used by the command line.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cli/runner.hpp"
#include "reports/report.hpp"

namespace perflint {

struct FixRun {
  LintRun run;            // results of linting the fixed text, one per job, in job order
  std::string diff;       // unified diffs of the changed files, in job order
  size_t applied = 0;     // fixes applied over all files (with `write`: written to disk)
  size_t files_changed = 0;
  size_t files_failed = 0;  // with `write`: files that had fixes but could not be written
  std::vector<size_t> applied_by_job;  // fixes applied per job, in job order
  // A job whose bytes came from stdin: its text after the fixes (unchanged when none applied). It
  // is never written to a file; `perflint - --fix` prints it on stdout, as ruff does.
  std::optional<std::string> stdin_fixed;
};

// Fixes every job's file; with `write`, changed files are replaced (keeping their permissions) and
// a failed write is an Io error on that file's result, whose findings are then those of the file as
// it is on disk (its fixes are not counted).
// `first`, when given: the run's lint results and the texts they were linted from (LintRun): a job
// whose file still holds that text starts its fix loop from its result instead of linting again.
struct FirstPass {
  const std::vector<FileResult>* results = nullptr;
  const std::map<std::string, std::string, std::less<>>* sources = nullptr;
};
FixRun fix_files(const std::vector<LintJob>& jobs, const RunnerOptions& options, bool unsafe, bool write,
                 const FirstPass* first = nullptr);

// What --fix would apply to these jobs, with and without --unsafe-fixes (the fix loop run in memory
// on the files of `results` that have a fixable finding; nothing is written). `results` are the
// lint results by path.
// `sources` are the texts the results were linted from (LintRun::sources), or null.
FixCounts count_fixes(const std::vector<LintJob>& jobs, const RunnerOptions& options,
                      const std::vector<FileResult>& results,
                      const std::map<std::string, std::string, std::less<>>* sources = nullptr);

// A unified diff (`--- a/path`, `+++ b/path`, hunks with `context` lines around each change);
// empty when the texts are equal. Lines keep their own terminators.
std::string unified_diff(const std::string& path, const std::string& before, const std::string& after, int context = 3);

// Replaces `path`'s content atomically: a temporary file beside it (the original's mode), fsync,
// rename; a symlink is followed. Only when the file still holds `expected` (what was linted), and
// never in place: where no file can be created beside it, it refuses. False with `error` otherwise.
bool replace_file(const std::string& path, const std::string& expected, const std::string& content,
                  std::string& error);

}  // namespace perflint
