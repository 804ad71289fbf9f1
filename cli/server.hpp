// `perflint server`: a Language Server (LSP 3.17 over stdio, JSON-RPC with Content-Length framing).
// It lints each open Python document as perflint would lint the file at its path (its config,
// per-file-ignores, excludes and sibling modules), publishes the findings as diagnostics on open,
// change and save, offers each fix as a quick fix (plus "suppress on this line" and a fix-all source
// action), and shows the rule's documentation on hover. Documents are synced in full.
#pragma once
#include "cli/options.hpp"

namespace perflint {

// Serves one client on `in_fd` / `out_fd` until `exit` (or the end of input); logs to stderr.
// Returns 0 after shutdown + exit, 1 when the client went away or exited without shutdown, as
// the specification asks.
int run_server(const Options& options, int in_fd, int out_fd);

}  // namespace perflint
