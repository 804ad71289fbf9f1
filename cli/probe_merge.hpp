// `perflint probe-merge DIR...`: one probe report from evidence that several runs kept
// (`perflint --probe --evidence-dir DIR`, typically one run per node of a multi-node job).
#pragma once
#include <string>
#include <vector>

#include "cli/options.hpp"
#include "parser/expected.hpp"
#include "probe/evidence.hpp"
#include "reports/report.hpp"

namespace perflint {

// The training script rank 0's evidence names (the lowest rank's when there is no rank 0).
Expected<std::string> merged_script(const std::vector<std::string>& dirs);

// Reads every rank's evidence in `dirs`, fills the summary (rank 0's figures, a row per rank, the
// straggler) and the verdicts. Returns 0 when rank 0 reached its steps, 3 when it did not, 2 with
// summary.error when there is no usable evidence. `ranks` receives every rank's evidence.
int merge_probe_evidence(const Options& options, std::vector<FileResult>& results, ProbeSummary& summary,
                         std::vector<probe::Evidence>* ranks);

}  // namespace perflint
