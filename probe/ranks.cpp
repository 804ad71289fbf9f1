// The straggler figure over ranks (see ranks.hpp).
#include "probe/ranks.hpp"

#include <cstdio>

namespace perflint::probe {
namespace {

// The median of one per-step figure over a rank's measured steps.
template <typename F>
double median_over(const Evidence& e, F figure) {
  std::vector<double> v;
  for (const auto* s : e.measured()) v.push_back(figure(*s));
  return median_of(std::move(v));
}

bool all_have_phases(const Evidence& e) {
  const auto m = e.measured();
  if (m.empty()) return false;
  for (const auto* s : m)
    if (!s->phases) return false;
  return true;
}

}  // namespace

std::optional<Straggler> find_straggler(const std::vector<const Evidence*>& ranks, double threshold) {
  if (ranks.size() < 2) return std::nullopt;
  std::vector<double> medians;
  const Evidence* slowest = nullptr;
  double slowest_ms = -1.0;
  for (const Evidence* e : ranks) {
    if (!e || e->measured().empty()) return std::nullopt;  // a rank without steps: nothing to compare
    const double m = e->median_step_ms();
    medians.push_back(m);
    if (m > slowest_ms) {
      slowest_ms = m;
      slowest = e;
    }
  }
  const double median = median_of(medians);
  if (median <= 0.0 || slowest_ms < median * (1.0 + threshold)) return std::nullopt;

  Straggler s;
  s.rank = slowest->rank;
  s.step_ms = slowest_ms;
  s.median_ms = median;
  s.gap_ms = slowest_ms - median;
  // Which phase makes the gap: the slowest rank's phase median against the median over the others.
  using Field = double StepPhases::*;
  struct Part {
    const char* name;
    Field field;
  };
  static const Part kParts[] = {{"data wait", &StepPhases::data_ms},        {"copies", &StepPhases::h2d_ms},
                                {"forward", &StepPhases::forward_ms},       {"backward", &StepPhases::backward_ms},
                                {"optimizer", &StepPhases::optimizer_ms},   {"other", &StepPhases::other_ms}};
  bool phases = true;
  for (const Evidence* e : ranks) phases = phases && all_have_phases(*e);
  auto gap_of = [&](auto figure) {
    std::vector<double> others;
    for (const Evidence* e : ranks)
      if (e != slowest) others.push_back(median_over(*e, figure));
    return median_over(*slowest, figure) - median_of(others);
  };
  if (phases) {
    for (const auto& p : kParts) {
      const double g = gap_of([&](const StepEvidence& st) { return (*st.phases).*(p.field); });
      if (s.phase.empty() || g > s.phase_gap_ms) {
        s.phase = p.name;
        s.phase_gap_ms = g;
      }
    }
  } else {
    const double data = gap_of([](const StepEvidence& st) { return st.data_wait_ms; });
    const double rest = gap_of([](const StepEvidence& st) { return st.wall_ms - st.data_wait_ms; });
    s.phase = data >= rest ? "data wait" : "the rest of the step";
    s.phase_gap_ms = data >= rest ? data : rest;
  }
  char buf[320];
  std::snprintf(buf, sizeof buf,
                "rank %d is the straggler: median step %.1f ms vs %.1f ms over the ranks (+%.0f%%); "
                "%s makes %.1f ms of the %.1f ms gap",
                s.rank, s.step_ms, s.median_ms, (s.step_ms / s.median_ms - 1.0) * 100.0, s.phase.c_str(),
                s.phase_gap_ms, s.gap_ms);
  s.text = buf;
  return s;
}

}  // namespace perflint::probe
