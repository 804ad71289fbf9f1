// The explicit list of rules. Each rules/<category>/<code>_<name>.cpp defines one make_* function.
#include "rules/all.hpp"

namespace perflint {

std::vector<std::unique_ptr<Rule>> make_all_rules() {
  std::vector<std::unique_ptr<Rule>> v;
  return v;
}

}  // namespace perflint
