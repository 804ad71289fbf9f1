// Suppression comments, handled here and nowhere else (rules never see them):
//   # perflint: ignore[PFL201, per-step-item]   this line
//   # noqa: PFL201   /  # noqa                    this line (bare noqa: every rule)
//   # perflint: ignore-file[PFL401]              the whole file (ignore-file without a list: all)
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "parser/source.hpp"
#include "rules/finding.hpp"

namespace perflint {

struct Suppression {
  uint32_t line = 0;               // 1-based line of the comment
  bool file_level = false;
  bool all = false;                // bare `# noqa` / `ignore-file` without a list
  std::vector<std::string> codes;  // as written: codes or names
  Span span;                       // the comment
  bool noqa = false;               // `# noqa: ...` rather than `# perflint: ignore[...]`
  mutable bool used = false;
};

// `comments` are the byte ranges of comment tokens (from the parse tree, so strings never count).
std::vector<Suppression> parse_suppressions(const SourceFile& source,
                                            const std::vector<std::pair<uint32_t, uint32_t>>& comments);
// Removes suppressed findings; marks the suppressions that matched as used.
void apply_suppressions(const std::vector<Suppression>& suppressions, std::vector<Finding>& findings);
// Codes a suppression names that are no rule of ours (a typo: "PFL2O1"), with the suppression. A
// noqa keeps only PFL codes, so other tools' codes (E501) are never reported.
struct UnknownCode {
  const Suppression* suppression;
  std::string code;
};
std::vector<UnknownCode> unknown_codes(const std::vector<Suppression>& suppressions);

// The suppressions that matched nothing and name at least one of our rules (blanket `# noqa` and
// `ignore-file` without a list are never reported): for the opt-in unused-suppression rule.
std::vector<Suppression> unused_suppressions(const std::vector<Suppression>& suppressions);

}  // namespace perflint
