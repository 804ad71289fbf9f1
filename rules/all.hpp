// Factory of every rule (one line per rule file); registry.cpp sorts and owns them.
#pragma once
#include <memory>
#include <vector>

#include "rules/rule.hpp"

namespace perflint {
std::vector<std::unique_ptr<Rule>> make_all_rules();
}  // namespace perflint
