// `perflint --probe --verify`: which run-time fix answers a finding, and how a run with that fix
// compares with the repeated baseline. Pure: the runs themselves are the CLI's (cli/probe_cmd.cpp).
#pragma once
#include <string>
#include <vector>

#include "probe/evidence.hpp"
#include "rules/finding.hpp"

namespace perflint::probe {

// The shim's `--apply` value that fixes `finding` at run time (docs/probe-evidence.md, "Fixes"),
// e.g. "workers=2@/src/train.py:20"; empty when the rule has no run-time fix or the evidence does
// not say where to apply it (the loader was never constructed).
std::string runtime_fix(const Finding& finding, const Evidence& baseline, int workers);

// The worker count the workers fix uses on this machine: all cores, at most 8.
int fix_workers(unsigned hardware_threads);

// The figures each run is compared by: the median of its measured steps (robust to the odd slow
// step: a garbage collection, another process) and its step-to-step spread, the interquartile range.
struct RunFigure {
  double step_ms = 0.0;
  double iqr_ms = 0.0;
};
RunFigure run_figure(const Evidence& e);

struct Baseline {
  std::vector<double> step_ms;  // the median step of each baseline run
  double median_ms = 0.0;       // their median
  // The noise a saving must exceed: the largest of the range of the runs' medians (run-to-run), the
  // median of their interquartile ranges (step-to-step), and kMinRelativeSpread of the median step.
  double spread_ms = 0.0;
};
inline constexpr double kMinRelativeSpread = 0.10;
Baseline make_baseline(const std::vector<RunFigure>& runs);

// GPU tracing's cost, from --verify's runs: the traced first run against the untraced baseline
// repeats of the same script, with the repeats' spread (within it, the cost is not told from noise).
// Warm-up steps cannot stand in for untraced steps: on an H200 they differed from the traced steps
// by -48% to +21% (autotuning, allocator growth, queues filling), where paired runs measured +0.2%.
std::string tracing_overhead_text(const RunFigure& traced, const Baseline& untraced);

// Compares a run with `fixes` applied against the baseline. `fixed` is its evidence (may be
// partial: a fix that broke the script). A saving is "measured" only when it exceeds the spread.
Verification compare(const std::string& fix, const Baseline& baseline, const Evidence& fixed);

// The one comparison rule, for single fixes and the all-fixes run alike, over every run of a fix
// (`v.runs_ms`): an effect (measured / slower) is claimed only when every run lies beyond the
// baseline's spread on the same side; the figure kept is the run closest to the baseline (the
// smallest claim), so that a label never contradicts its numbers. A run inside the spread makes it
// no-effect (and is the figure shown); runs on both sides make it "noisy" (no figure claimed).
void settle(Verification& v, const Baseline& baseline);

// A run that shows an effect is repeated once before the effect is claimed: one slow run (another
// process, a frequency change) must not read as "this fix makes it slower".
bool wants_confirmation(const Verification& v);

// Adds a repeat run of the same fix and settles again. A repeat that broke the script or did not
// apply the fix leaves the first result unchanged except for a note in `error`.
void add_repeat(Verification& v, const Baseline& baseline, const Evidence& again);

// What --verify's runs of a finding's fix say of its verdict (Confirmed or Inconclusive before):
// - a saving beyond the noise confirms an inconclusive verdict;
// - a fix that made the step slower (every run, repeated) refutes it;
// - a fix with no effect beyond the noise refutes a confirmed verdict when its saving is also under
//   kNegligibleShare of the step (the trace counted time the step does not wait on: on an H100,
//   4.1 ms/step of convolution kernels with cudnn.benchmark off, and benchmark on saved 0.02 ms),
//   else makes it inconclusive (a saving the noise may hide: a loader-bound step).
// A noisy, broken or unapplied fix leaves the verdict as it was.
inline constexpr double kNegligibleShare = 0.03;
void apply_verification(Verdict& verdict, const Verification& result, const Baseline& baseline);

// What a fix does, for people: "num_workers=2 at train.py:20", "anomaly detection off". Sites are
// shown relative to `script_dir` when they are inside it.
std::string fix_label(const std::string& fix, const std::string& script_dir);

}  // namespace perflint::probe
