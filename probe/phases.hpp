// Where the measured steps' time went, phase by phase (the shim's `phases` per step): median, p10
// and p90 per phase, each phase's share of the step, and the diagnosis they point to. Pure.
#pragma once
#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "probe/evidence.hpp"

namespace perflint::probe {

struct PhaseFigures {
  std::string_view name;  // data | h2d | forward | backward | optimizer | other
  double median_ms = 0.0, p10_ms = 0.0, p90_ms = 0.0, mean_ms = 0.0;
  double share = 0.0;     // of the mean measured step: mean phase / mean step
};

struct PhaseSummary {
  std::array<PhaseFigures, 6> phases;  // in PhaseSummary::kNames order
  double syncs_per_step = 0.0;         // host syncs the counters saw (item, cpu, ...), mean per step
  bool host_clock = true;              // CPU wall time; on CUDA the GPU runs behind (see docs)
  // torch.distributed, mean per measured step (all zero in a single-process run).
  double collective_ms = 0.0, collective_calls = 0.0;  // collectives the script calls: host time in them
  double ddp_allreduce_ms = 0.0, ddp_buckets = 0.0;    // DDP's gradient all-reduce, launch to completion
  double mean_step_ms = 0.0;
  static constexpr std::array<std::string_view, 6> kNames = {"data", "h2d", "forward", "backward", "optimizer", "other"};
  const PhaseFigures& operator[](std::string_view name) const;
};

// Unset when no measured step carries phases (an older shim, or no measured step).
std::optional<PhaseSummary> summarize_phases(const Evidence& e);

// The phase diagnosis (thresholds in docs/output-formats.md, "Phases"): kind and text, or unset when
// no phase dominates. Checked in this order, first match wins:
//   data-bound       data >= 50% of the step
//   copy-bound       h2d >= 30%
//   optimizer-bound  optimizer >= 40%
//   host-bound       other >= 50% (Python, logging, host syncs: the syncs per step are named)
//   compute-bound    forward + backward >= 70%
struct PhaseDiagnosis {
  std::string kind, text;
};
std::optional<PhaseDiagnosis> diagnose_phases(const PhaseSummary& s, double median_step_ms);

}  // namespace perflint::probe
