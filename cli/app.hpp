// The command line: parse arguments, load config, discover files, lint in parallel, write reports.
// Returns the exit code: 0 clean, 1 findings, 2 usage/config/IO error. Never throws.
#pragma once

namespace perflint {
int run_cli(int argc, char** argv);
}  // namespace perflint
