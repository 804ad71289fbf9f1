// Several ranks of one run (one Evidence per rank): the straggler figure the reports show. Decided
// here, not in the reports (DESIGN.md: reports never decide). Pure.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "probe/evidence.hpp"

namespace perflint::probe {

// The slowest rank and the phase that makes most of the gap (largest difference of the phase
// medians; without phases: "data wait" or "the rest of the step"). Synchronous ranks (DDP) all take
// as long as the slowest, waiting in backward's all-reduce, so with phases a rank is compared by its
// own work (its step without backward); without phases, by its median step. A straggler is one whose
// figure exceeds the ranks' median figure by at least `threshold` (default 10%) of the median step.
struct Straggler {
  int rank = 0;
  double step_ms = 0.0;    // its median measured step
  double median_ms = 0.0;  // the median over ranks of their median steps
  double gap_ms = 0.0;     // step_ms - median_ms
  std::string phase;       // data wait | copies | forward | backward | optimizer | other | the rest of the step
  double phase_gap_ms = 0.0;
  std::string text;        // one line with the figures, for the reports
};
inline constexpr double kStragglerThreshold = 0.10;

std::optional<Straggler> find_straggler(const std::vector<const Evidence*>& ranks,
                                        double threshold = kStragglerThreshold);

}  // namespace perflint::probe
