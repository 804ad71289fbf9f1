// Lints one buffer: parse once, build the model in one walk, dispatch nodes to the enabled rules by
// kind, then apply suppression comments (the only place they are handled) and sort.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "parser/project.hpp"
#include "parser/ts.hpp"
#include "rules/finding.hpp"
#include "rules/registry.hpp"

namespace perflint {

// The rules in force for one file and their severities.
struct RuleSet {
  std::vector<const Rule*> rules;                   // sorted by code
  std::map<std::string, Severity, std::less<>> severity;  // code -> override
  bool enabled(std::string_view code) const;
};

// select/ignore as in ruff: start from `select` (default: every rule not opt-in), remove `ignore`.
// Selectors are codes, names, code prefixes or ALL; callers validate them first.
RuleSet make_rule_set(const std::vector<std::string>& select, const std::vector<std::string>& ignore,
                      const std::map<std::string, Severity, std::less<>>& severity = {});

// Lints `bytes` (the whole file as read) as `path`. Never throws for any input.
// `project` (optional) lets the model look at sibling modules (cross-file training steps).
FileResult lint_buffer(const std::string& path, std::string bytes, const RuleSet& rules, ts::Parser& parser,
                       ProjectContext* project = nullptr);

}  // namespace perflint
