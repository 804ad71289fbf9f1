// Placeholder CLI until the CLI work lands.
#include "cli/app.hpp"

#include <cstdio>

namespace perflint {
int run_cli(int, char**) {
  std::puts("perflint " PERFLINT_VERSION);
  return 0;
}
}  // namespace perflint
