// Verdicts: what the probe's evidence says about each static finding, the probe-only diagnoses,
// and the ranking of the fix list. Every number comes from the evidence or a formula over it that
// docs/rules/<CODE>.md ("How the probe measures it") states.
#pragma once
#include <string>
#include <vector>

#include "probe/calibration.hpp"
#include "probe/evidence.hpp"
#include "rules/finding.hpp"

namespace perflint::probe {

// The DataLoader the shim saw constructed at (or up to 20 lines above) the finding's line in its
// file; null when none was.
const LoaderEvidence* loader_for(const Finding& finding, const Evidence& evidence);

// The verdict for one finding of the probed script. With this device's calibration (`perflint
// calibrate`), traced GPU costs become estimated savings instead of upper bounds.
Verdict judge(const Finding& finding, const Evidence& evidence, const Calibration* calibration = nullptr);

struct Diagnosis {
  std::string kind;  // data-bound, ...
  std::string text;  // with the figures that say so
};
std::vector<Diagnosis> diagnose(const Evidence& evidence);

// Confirmed findings by cost (highest first), then inconclusive / not-measurable, then refuted;
// ties keep file order. Returns indices into `findings`.
std::vector<size_t> rank(const std::vector<Finding>& findings);

}  // namespace perflint::probe
