// A finding of rule `code` at train.py:`line`, for verdict and --verify tests on synthetic evidence.
#pragma once
#include <string_view>

#include "rules/finding.hpp"
#include "rules/registry.hpp"
#include "rules/rule.hpp"

namespace perflint::testing {

inline Finding finding_at(std::string_view code, uint32_t line) {
  Finding f;
  f.rule = &find_rule(code)->info();
  f.path = "train.py";
  f.span.start.line = f.span.end.line = line;
  return f;
}

}  // namespace perflint::testing
