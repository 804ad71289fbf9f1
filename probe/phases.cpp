#include "probe/phases.hpp"

#include <algorithm>
#include <cstdio>

namespace perflint::probe {
namespace {

double StepPhases::*const kFields[6] = {&StepPhases::data_ms,     &StepPhases::h2d_ms,       &StepPhases::forward_ms,
                                        &StepPhases::backward_ms, &StepPhases::optimizer_ms, &StepPhases::other_ms};

std::string pct(double share) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%.0f%%", share * 100.0);
  return buf;
}

std::string ms(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, v >= 100 ? "%.0f" : "%.1f", v);
  return buf;
}

}  // namespace

const PhaseFigures& PhaseSummary::operator[](std::string_view name) const {
  for (const auto& p : phases)
    if (p.name == name) return p;
  return phases.back();
}

std::optional<PhaseSummary> summarize_phases(const Evidence& e) {
  std::vector<const StepEvidence*> steps;
  for (const auto* s : e.measured())
    if (s->phases) steps.push_back(s);
  if (steps.empty()) return std::nullopt;
  PhaseSummary out;
  // On CUDA, the GPU's own times when every step has them (CUDA events resolved in time); the data
  // wait stays the host's, and "other" is what the GPU phases leave of the wall time.
  out.host_clock = !std::all_of(steps.begin(), steps.end(), [](const StepEvidence* s) { return s->gpu_phases.has_value(); });
  double wall = 0.0, syncs = 0.0;
  for (const auto* s : steps) {
    wall += s->wall_ms;
    for (const auto& y : s->syncs) syncs += static_cast<double>(y.count);
    out.collective_ms += s->comm_ms;
    out.collective_calls += s->comm_calls;
    out.ddp_allreduce_ms += s->ddp_allreduce_ms;
    out.ddp_buckets += s->ddp_buckets;
  }
  const double n = static_cast<double>(steps.size());
  const double mean_step = wall / n;
  out.mean_step_ms = mean_step;
  out.syncs_per_step = syncs / n;
  out.collective_ms /= n;
  out.collective_calls /= n;
  out.ddp_allreduce_ms /= n;
  out.ddp_buckets /= n;
  for (size_t i = 0; i < 6; ++i) {
    std::vector<double> v;
    double sum = 0.0;
    for (const auto* s : steps) {
      StepPhases p = *s->phases;
      if (!out.host_clock) {
        const StepPhases& g = *s->gpu_phases;
        p.h2d_ms = g.h2d_ms, p.forward_ms = g.forward_ms, p.backward_ms = g.backward_ms, p.optimizer_ms = g.optimizer_ms;
        p.other_ms = std::max(0.0, s->wall_ms - p.data_ms - p.h2d_ms - p.forward_ms - p.backward_ms - p.optimizer_ms);
      }
      v.push_back(p.*kFields[i]);
      sum += v.back();
    }
    PhaseFigures& f = out.phases[i];
    f.name = PhaseSummary::kNames[i];
    f.median_ms = quantile_of(v, 0.5);
    f.p10_ms = quantile_of(v, 0.1);
    f.p90_ms = quantile_of(v, 0.9);
    f.mean_ms = sum / n;
    f.share = mean_step > 0.0 ? std::min(1.0, f.mean_ms / mean_step) : 0.0;
  }
  return out;
}

std::optional<PhaseDiagnosis> diagnose_phases(const PhaseSummary& s, double median_step_ms) {
  const std::string step = " (median step " + ms(median_step_ms) + " ms)";
  if (s["data"].share >= 0.5)
    return PhaseDiagnosis{"data-bound", pct(s["data"].share) + " of every measured step waits for the DataLoader" + step};
  if (s["h2d"].share >= 0.3)
    return PhaseDiagnosis{"copy-bound", pct(s["h2d"].share) + " of every measured step copies host tensors to the "
                                                              "device (pinned memory and non_blocking=True overlap them)" + step};
  if (s["optimizer"].share >= 0.4)
    return PhaseDiagnosis{"optimizer-bound",
                          pct(s["optimizer"].share) + " of every measured step is the optimizer's step() (a fused or "
                                                      "foreach implementation, fewer parameter tensors)" + step};
  if (s["other"].share >= 0.5) {
    char syncs[64];
    std::snprintf(syncs, sizeof syncs, "%.1f host syncs per step", s.syncs_per_step);
    return PhaseDiagnosis{"host-bound", pct(s["other"].share) +
                                            " of every measured step is outside data, copies, forward, backward and "
                                            "the optimizer: Python, logging, host syncs (" + syncs + ")" + step};
  }
  if (s["forward"].share + s["backward"].share >= 0.7)
    return PhaseDiagnosis{"compute-bound", pct(s["forward"].share + s["backward"].share) +
                                               " of every measured step is forward and backward: speed comes from the "
                                               "model's compute (precision, fusion, batch size)" + step};
  return std::nullopt;
}

}  // namespace perflint::probe
