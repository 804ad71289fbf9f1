// The explicit, sorted list of rules (STYLE.md rule 2) and look-up by code or name.
#pragma once
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "rules/rule.hpp"

namespace perflint {

// All rules, sorted by code. Built once; rules are stateless and shared across threads.
const std::vector<std::unique_ptr<Rule>>& all_rules();
// By code ("PFL101", case-insensitive) or name ("dataloader-main-process"); nullptr if unknown.
const Rule* find_rule(std::string_view code_or_name);
// Selector matching: "PFL101", a name, a prefix ("PFL1", "PFL"), or "ALL".
bool selector_matches(std::string_view selector, const RuleInfo& info);
bool is_valid_selector(std::string_view selector);
// The rule code or name closest to a mistyped selector ("PFL1O1" -> "PFL101"), or empty.
std::string rule_suggestion(std::string_view selector);

}  // namespace perflint
