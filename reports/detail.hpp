// Internal helpers shared by the report writers (not part of the public report API): source lines
// for snippets and fingerprints, severity spellings, counting.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "reports/report.hpp"
#include "rules/rule.hpp"

namespace perflint::report_detail {

// The file's content from options.sources, or nullptr.
const std::string* find_source(const ReportOptions& options, std::string_view path);

// Lines of `content` without terminators ("\n", "\r\n", lone "\r", as SourceFile counts them) and
// without a leading UTF-8 BOM; views into `content`.
std::vector<std::string_view> split_lines(std::string_view content);

// `path` relative to `base_dir` (the repository root; empty: the current directory) with '/'
// separators, or nullopt when the file lies outside it. SARIF and GitHub annotations both need it.
std::optional<std::string> path_below_base(std::string_view path, const std::string& base_dir);

std::string_view rule_code(const Finding& f);

// Marked `[*]` and counted as fixable: a fix that `--fix` (with `--unsafe-fixes` if given) applies.
bool fixable(const Finding& f, bool unsafe);

// --statistics: findings per rule, most first (ties in code order); `fixable` as --fix would apply
// them (none in a file with a syntax error).
struct RuleCount {
  std::string_view code, name;
  size_t count = 0, fixable = 0;
};
std::vector<RuleCount> rule_counts(const std::vector<FileResult>& results, bool unsafe);
std::string_view rule_name(const Finding& f);
std::string_view sarif_level(Severity s);
std::string_view error_kind_name(FileError::Kind k);

// Figures as the probe's reports print them: "12.3" (ms, one decimal below 100), "45%".
std::string ms(double v);
std::string percent(double share);
// --verify: what the run with a finding's fix applied measured, against the predicted cost.
std::string verification_line(const Verification& x, const std::optional<double>& predicted);
// The all-fixes run in words (text and HTML say the same thing).
std::string all_fixes_line(const VerifySummary& v);
// "2 runs: 251, 248 ms" when a fix was run more than once, else empty.
std::string runs_text(const Verification& x);

// torch.distributed in the steps, in words (text and HTML say the same).
std::string comm_text(const CommSummary& c);

// HTML text and attribute escaping; ill-formed UTF-8 becomes U+FFFD.
std::string html_escape(std::string_view s);

// "1 file", "2 files".
std::string plural(size_t n, std::string_view singular, std::string_view plural_form);

}  // namespace perflint::report_detail
