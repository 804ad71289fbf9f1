// perflint's entry point: everything lives in perflint_core (cli/app.hpp).
#include "cli/app.hpp"

#include <cstdlib>  // on glibc, defines __GLIBC__

#if defined(__GLIBC__)
#include <malloc.h>
#endif

int main(int argc, char** argv) {
#if defined(__GLIBC__)
  // No fastbins: a lint frees each file's many small nodes and then its large buffers, and every
  // large free made glibc consolidate the fastbins again (1% of the instructions of a --jobs 1
  // run); the per-thread tcache still serves the small sizes. A process setting, so it lives here.
  mallopt(M_MXFAST, 0);
#endif
  return perflint::run_cli(argc, argv);
}
