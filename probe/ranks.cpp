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
  for (const Evidence* e : ranks)
    if (!e || e->measured().empty()) return std::nullopt;  // a rank without steps: nothing to compare
  bool phases = true;
  for (const Evidence* e : ranks) phases = phases && all_have_phases(*e);
  // Synchronous data parallelism (DDP) keeps every rank's step the same length: the fast ranks wait
  // for the slow one inside backward, where the gradients are all-reduced. So with phases, a rank's
  // own work is its step without backward; without phases, the step itself.
  auto own = [&](const Evidence& e) {
    return phases ? median_over(e, [](const StepEvidence& st) { return st.wall_ms - st.phases->backward_ms; })
                  : e.median_step_ms();
  };
  std::vector<double> owns, steps;
  const Evidence* slowest = nullptr;
  double slowest_own = -1.0;
  for (const Evidence* e : ranks) {
    const double o = own(*e);
    owns.push_back(o);
    steps.push_back(e->median_step_ms());
    if (o > slowest_own) {
      slowest_own = o;
      slowest = e;
    }
  }
  // Against the other ranks (the median of their figures): the same base as the phase gap below.
  std::vector<double> other_owns;
  for (size_t i = 0; i < ranks.size(); ++i)
    if (ranks[i] != slowest) other_owns.push_back(owns[i]);
  const double median_own = median_of(other_owns), median_step = median_of(steps);
  if (median_step <= 0.0 || slowest_own - median_own < threshold * median_step) return std::nullopt;

  Straggler s;
  s.rank = slowest->rank;
  s.step_ms = slowest->median_step_ms();
  s.median_ms = median_step;
  s.gap_ms = slowest_own - median_own;
  // Which phase makes the gap: the slowest rank's phase median against the median over the others.
  using Field = double StepPhases::*;
  struct Part {
    const char* name;
    Field field;
  };
  static const Part kParts[] = {{"data wait", &StepPhases::data_ms},  {"copies", &StepPhases::h2d_ms},
                                {"forward", &StepPhases::forward_ms}, {"optimizer", &StepPhases::optimizer_ms},
                                {"other", &StepPhases::other_ms}};
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
  char buf[400];
  if (phases)
    std::snprintf(buf, sizeof buf,
                  "rank %d is the straggler: %.1f ms of its own work per step (all but backward, where synchronous "
                  "ranks wait for each other) vs %.1f ms on the other ranks, +%.0f%% of the %.1f ms median step; %s makes "
                  "%.1f ms of the %.1f ms gap",
                  s.rank, slowest_own, median_own, s.gap_ms / median_step * 100.0, median_step, s.phase.c_str(),
                  s.phase_gap_ms, s.gap_ms);
  else
    std::snprintf(buf, sizeof buf,
                  "rank %d is the straggler: median step %.1f ms vs %.1f ms over the ranks (+%.0f%%); "
                  "%s makes %.1f ms of the %.1f ms gap",
                  s.rank, s.step_ms, s.median_ms, (s.step_ms / s.median_ms - 1.0) * 100.0, s.phase.c_str(),
                  s.phase_gap_ms, s.gap_ms);
  s.text = buf;
  return s;
}

}  // namespace perflint::probe
