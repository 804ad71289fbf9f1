// Verdicts: what the probe's evidence says about each static finding, the probe-only diagnoses,
// and the ranking of the fix list. Every number comes from the evidence or a formula over it that
// docs/rules/<CODE>.md ("How the probe measures it") states.
#pragma once
#include <string>
#include <vector>

#include "probe/evidence.hpp"
#include "rules/finding.hpp"

namespace perflint::probe {

// The verdict for one finding of the probed script.
Verdict judge(const Finding& finding, const Evidence& evidence);

struct Diagnosis {
  std::string kind;  // data-bound, ...
  std::string text;  // with the figures that say so
};
std::vector<Diagnosis> diagnose(const Evidence& evidence);

// Confirmed findings by cost (highest first), then inconclusive / not-measurable, then refuted;
// ties keep file order. Returns indices into `findings`.
std::vector<size_t> rank(const std::vector<Finding>& findings);

}  // namespace perflint::probe
