// `perflint --probe SCRIPT [-- ARGS]`: run the script under the shim, read the evidence, put a
// verdict on each of the script's findings and fill the probe summary the reports print.
#pragma once
#include <vector>

#include "cli/config.hpp"
#include "cli/options.hpp"
#include "probe/evidence.hpp"
#include "reports/report.hpp"

namespace perflint {

// Returns 0 when the requested steps were measured, 3 when the script did not get there (the
// summary and verdicts still hold what was measured), 2 when the probe could not start.
// `ranks`, when given, receives the first run's evidence, one per rank (a single process: one), for
// the HTML report and the trace.
int probe_script(const Options& options, const Config& config, std::vector<FileResult>& results,
                 ProbeSummary& summary, std::vector<probe::Evidence>* ranks = nullptr);

// Pieces shared with `perflint probe-merge` (cli/probe_merge.cpp):
// the summary's figures from the run's evidence (rank 0's when there are ranks) and a verdict on each
// finding; how the process ended is the caller's to refine.
void summarize_evidence(const probe::Evidence& e, ProbeSummary& s, std::vector<FileResult>& results);
// One rank's row figures (steps, median step, data wait, phases, collectives).
void fill_rank_figures(const probe::Evidence& ev, RankRow& row);
// The line of a traceback that names the error ("RuntimeError: ..."), for a rank's row.
std::string error_line(std::string traceback);
// The straggler line and diagnosis over every rank's evidence, when there is one.
void set_straggler(const std::vector<probe::Evidence>& all, ProbeSummary& s);

}  // namespace perflint
