// The probe's visual outputs: a self-contained HTML report (`--report-html`) and a Chrome
// trace-event JSON for Perfetto / chrome://tracing (`--trace`). Both format what the probe measured
// and decided (the verdicts on the findings, the straggler); they decide nothing themselves.
#pragma once
#include <string>
#include <vector>

#include "probe/evidence.hpp"
#include "reports/report.hpp"

namespace perflint {

// One probed run as the HTML and trace writers see it: the summary, one evidence per rank (a
// single-process run has one), and the straggler line the probe computed (probe/ranks.hpp).
struct ProbeRunView {
  const ProbeSummary* summary = nullptr;
  std::vector<const probe::Evidence*> ranks;
  int straggler_rank = -1;     // < 0: none
  std::string straggler_text;  // why, with the figures
};

// The HTML report: no network (a Content-Security-Policy forbids it), inline CSS, SVG and a small
// script that checks the page rendered and writes the result into #selfcheck (data-result="ok").
std::string write_html_report(const std::vector<FileResult>& results, const ReportOptions& options,
                              const ProbeRunView& run);

// The trace: at most `max_events` events; when steps were left out, otherData.truncated says so.
std::string write_trace(const ProbeRunView& run, size_t max_events = 20000);

}  // namespace perflint
