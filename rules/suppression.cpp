// Suppression comments. (Stub until the suppression work lands: suppresses nothing.)
#include "rules/suppression.hpp"

namespace perflint {

std::vector<Suppression> parse_suppressions(const SourceFile&, const std::vector<std::pair<uint32_t, uint32_t>>&) {
  return {};
}

void apply_suppressions(const std::vector<Suppression>&, std::vector<Finding>&) {}

}  // namespace perflint
