// Applying fixes to a buffer: non-overlapping edits back to front, then re-lint and repeat until
// nothing changes (at most kMaxPasses), so that fixing a fixed file changes nothing. Pure: no I/O.
#pragma once
#include <string>
#include <vector>

#include "parser/ts.hpp"
#include "rules/engine.hpp"
#include "rules/finding.hpp"

namespace perflint {

// Which fixes apply: safe ones always, unsafe ones with --unsafe-fixes.
bool fix_applies(const Fix& fix, bool unsafe);

struct AppliedFixes {
  std::string text;
  size_t applied = 0;  // fixes (findings) applied
};

// Applies the fixes of `findings` to `text` (the text the findings' byte offsets refer to). A fix
// whose edits overlap an earlier fix's (in finding order) is left for a later pass.
AppliedFixes apply_fixes(const std::string& text, const std::vector<Finding>& findings, bool unsafe);

struct FixedFile {
  std::string bytes;   // the new file content (a BOM kept as it was)
  size_t applied = 0;  // over all passes
  FileResult result;   // the lint of `bytes`
  bool changed = false;
};

constexpr int kMaxFixPasses = 4;

// Lints `bytes` as `path`, applies the fixes, and repeats until nothing applies. A file with a
// syntax error is left as it is (the result says why: the syntax error). `first`, when given, is
// the lint of these very bytes with these rules and this project (the run's own result): the first
// pass starts from it instead of linting the file again.
FixedFile fix_buffer(const std::string& path, const std::string& bytes, const RuleSet& rules, ts::Parser& parser,
                     bool unsafe, ProjectContext* project = nullptr, const FileResult* first = nullptr);

}  // namespace perflint
