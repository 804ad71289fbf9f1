// The shim's per-step log (`<evidence>.steps`, docs/probe-evidence.md): a header line, then one JSON
// line per completed step. When the process died without writing the evidence file (os._exit, a
// segfault, SIGKILL), the evidence is rebuilt from it so that no completed step is lost.
#pragma once
#include <string>

#include "parser/expected.hpp"
#include "probe/evidence.hpp"

namespace perflint::probe {

// The evidence as the log recorded it: exit.reason is "unknown" (the caller knows how the process
// ended). A cut last line is dropped. Error: no log, or no header and no step in it.
Expected<Evidence> recover_evidence(const std::string& evidence_path);

// The same from the log's text (tests).
Expected<Evidence> recover_evidence_text(const std::string& text, const std::string& path);

}  // namespace perflint::probe
