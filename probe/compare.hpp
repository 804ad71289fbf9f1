// `perflint compare A.json B.json` and `--probe --baseline A.json`: two probe runs (their JSON
// reports) compared step for step. Pure: the CLI reads the files.
//
// The rule (docs/output-formats.md, "compare"): for the median step and for each phase, the delta is
// new median - base median; the noise is the larger of the two runs' interquartile ranges over their
// measured steps. |delta| <= noise is "no change"; otherwise "faster" or "slower". The regression
// gate (--fail-on-regression PCT) fails when the median step is "slower" and the delta exceeds PCT%
// of the base median.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "parser/expected.hpp"

namespace perflint::probe {

// The measured steps of one run, read from a report's probe.step_rows (warm-up excluded).
struct RunSteps {
  std::string label;                           // the file name, for the report
  std::string script;
  std::vector<double> wall_ms;                 // one per measured step
  std::vector<std::vector<double>> phase_ms;   // [phase][step], in kPhaseNames order; empty: no phases
};
inline constexpr const char* kComparedPhases[6] = {"data", "h2d", "forward", "backward", "optimizer", "other"};

// Reads a JSON report written by `perflint --probe --output-format json`; an error names the file
// and what is missing (a lint-only report has no probe object; an older one no step_rows).
Expected<RunSteps> read_run_steps(const std::string& json_text, const std::string& label);

struct Delta {
  std::string what;  // "median step", "data", "forward", ...
  double base_ms = 0.0, new_ms = 0.0, delta_ms = 0.0, percent = 0.0, noise_ms = 0.0;
  std::string verdict;  // faster | slower | no change
};

struct Comparison {
  Delta step;                 // the median step
  std::vector<Delta> phases;  // when both runs have phases
  bool regressed = false;     // with a threshold: slower by more than it
  std::optional<double> threshold_percent;
};

Comparison compare_runs(const RunSteps& base, const RunSteps& next, std::optional<double> fail_on_regression_percent);

// The comparison in words (one line per row) and as JSON.
std::string comparison_text(const Comparison& c, const RunSteps& base, const RunSteps& next);
std::string comparison_json(const Comparison& c, const RunSteps& base, const RunSteps& next);

}  // namespace perflint::probe
