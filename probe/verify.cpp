// Run-time fixes per rule and the noise-aware comparison of a fixed run with the baseline.
#include "probe/verify.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "probe/verdict.hpp"
#include "rules/rule.hpp"

namespace perflint::probe {

int fix_workers(unsigned hardware_threads) {
  return static_cast<int>(std::clamp(hardware_threads, 1u, 8u));
}

std::string runtime_fix(const Finding& f, const Evidence& e, int workers) {
  const std::string_view code = f.rule ? f.rule->code : std::string_view{};
  // Loader fixes name the loader the finding is about, by the construction site the shim recorded.
  auto at_loader = [&](const std::string& fix) -> std::string {
    const LoaderEvidence* l = loader_for(f, e);
    return l ? fix + "@" + l->site : std::string();
  };
  if (code == "PFL101") return at_loader("workers=" + std::to_string(workers));
  if (code == "PFL102" || code == "PFL104") return at_loader("pin_memory");
  if (code == "PFL105") return at_loader("persistent_workers");
  if (code == "PFL103") return "non_blocking";
  if (code == "PFL301") return "no_anomaly";
  if (code == "PFL302") return "no_profiler";
  if (code == "PFL303") return "no_launch_blocking";
  if (code == "PFL304") return "no_deterministic";
  if (code == "PFL401") return "tf32";
  if (code == "PFL501") return "no_checkpoint";
  if (code == "PFL502") return "set_to_none";
  if (code == "PFL503") return "cudnn_benchmark";
  if (code == "PFL701") return "no_find_unused";
  return {};
}

RunFigure run_figure(const Evidence& e) {
  std::vector<double> v;
  for (const auto* s : e.measured()) v.push_back(s->wall_ms);
  return RunFigure{quantile_of(v, 0.5), quantile_of(v, 0.75) - quantile_of(v, 0.25)};
}

Baseline make_baseline(const std::vector<RunFigure>& runs) {
  Baseline b;
  if (runs.empty()) return b;
  std::vector<double> iqr;
  for (const auto& r : runs) {
    b.step_ms.push_back(r.step_ms);
    iqr.push_back(r.iqr_ms);
  }
  const auto [lo, hi] = std::minmax_element(b.step_ms.begin(), b.step_ms.end());
  b.median_ms = median_of(b.step_ms);
  // A few baseline runs underestimate how far whole runs swing on a shared CPU: CI measured a run of
  // a fix with no effect 6% slower than three baselines that lay within 4% of each other. Below
  // kMinRelativeSpread of the step, no effect is claimed either way.
  b.spread_ms = std::max({*hi - *lo, median_of(iqr), kMinRelativeSpread * b.median_ms});
  return b;
}

Verification compare(const std::string& fix, const Baseline& baseline, const Evidence& fixed) {
  Verification v;
  v.fix = fix;
  v.spread_ms = baseline.spread_ms;
  if (!fixed.reached_steps()) {
    v.status = "broke-script";
    const std::string how = fixed.exit_reason == "script_exit"
                                ? "the script exited with code " + std::to_string(fixed.exit_code)
                                : "the script ended: " + fixed.exit_reason;
    v.error = how + " after " + std::to_string(fixed.steps.size()) + " of " +
              std::to_string(fixed.warmup + fixed.steps_requested) + " steps";
    if (!fixed.traceback.empty()) {
      // The last line of a traceback is the exception itself: the one line a report can show.
      std::string tb = fixed.traceback;
      while (!tb.empty() && tb.back() == '\n') tb.pop_back();
      v.error += ": " + tb.substr(tb.rfind('\n') == std::string::npos ? 0 : tb.rfind('\n') + 1);
    }
    return v;
  }
  for (const auto& a : fixed.applied) {
    if (a.fix != fix && fix.find(a.fix) == std::string::npos) continue;
    if (!a.error.empty()) {
      v.status = "not-applied";
      v.error = a.error;
      return v;
    }
    if (a.count == 0) {
      v.status = "not-applied";
      v.error = "the fix " + a.fix + " never took effect during the run";
      return v;
    }
  }
  v.runs_ms.push_back(run_figure(fixed).step_ms);
  settle(v, baseline);
  return v;
}

void settle(Verification& v, const Baseline& baseline) {
  v.spread_ms = baseline.spread_ms;
  if (v.runs_ms.empty()) return;
  // -1 slower, 0 within the spread, +1 faster: the same test for every run.
  auto side = [&](double step) {
    const double saving = baseline.median_ms - step;
    return saving > baseline.spread_ms ? 1 : saving < -baseline.spread_ms ? -1 : 0;
  };
  const auto closest = std::min_element(v.runs_ms.begin(), v.runs_ms.end(), [&](double a, double b) {
    return std::abs(a - baseline.median_ms) < std::abs(b - baseline.median_ms);
  });
  bool faster = false, slower = false;
  for (double r : v.runs_ms) {
    faster = faster || side(r) > 0;
    slower = slower || side(r) < 0;
  }
  if (faster && slower) {
    v.status = "noisy";
    v.step_ms.reset();
    v.saving_ms_per_step.reset();
    return;
  }
  v.step_ms = *closest;
  v.saving_ms_per_step = baseline.median_ms - *closest;
  const int s = side(*closest);  // every run on one side when the closest one is
  v.status = s > 0 ? "measured" : s < 0 ? "slower" : "no-effect";
}

bool wants_confirmation(const Verification& v) {
  return v.runs_ms.size() == 1 && (v.status == "measured" || v.status == "slower");
}

void add_repeat(Verification& v, const Baseline& baseline, const Evidence& again) {
  const Verification second = compare(v.fix, baseline, again);
  if (second.runs_ms.empty()) {  // broke or not applied this time: keep the first, say so
    v.error = "its repeat did not complete (" + second.status + (second.error.empty() ? "" : ": " + second.error) + ")";
    return;
  }
  v.runs_ms.push_back(second.runs_ms.front());
  settle(v, baseline);
}

void apply_verification(Verdict& verdict, const Verification& result, const Baseline& baseline) {
  using State = Verdict::State;
  if (verdict.state != State::Confirmed && verdict.state != State::Inconclusive) return;
  const double saving = result.saving_ms_per_step.value_or(0.0);
  char buf[200];
  if (result.status == "measured") {
    if (verdict.state == State::Inconclusive) {
      verdict.state = State::Confirmed;  // a saving beyond the noise settles it
      verdict.evidence += "; confirmed by --verify";
    }
  } else if (result.status == "slower") {
    std::snprintf(buf, sizeof buf, "; refuted by --verify: its fix made the step slower by %.3g ms", -saving);
    verdict.state = State::Refuted;
    verdict.evidence += buf;
  } else if (result.status == "no-effect" && verdict.state == State::Confirmed) {
    const bool negligible = baseline.median_ms > 0.0 && std::abs(saving) < kNegligibleShare * baseline.median_ms;
    std::snprintf(buf, sizeof buf, "%.3g ms/step (%.1f%% of the step), within the noise (%.3g ms)", saving,
                  baseline.median_ms > 0.0 ? saving / baseline.median_ms * 100.0 : 0.0, baseline.spread_ms);
    verdict.state = negligible ? State::Refuted : State::Inconclusive;
    verdict.evidence += negligible ? std::string("; refuted by --verify: its fix saved ") + buf
                                   : std::string("; not confirmed by --verify: its fix saved ") + buf;
  }
}

std::string fix_label(const std::string& fix, const std::string& script_dir) {
  const size_t at = fix.find('@');
  const std::string what = fix.substr(0, at);
  std::string where;
  if (at != std::string::npos) {
    where = fix.substr(at + 1);
    std::string dir = script_dir;
    if (!dir.empty() && dir.back() != '/') dir += '/';
    if (!dir.empty() && where.compare(0, dir.size(), dir) == 0) where = where.substr(dir.size());
  }
  std::string out;
  if (what.rfind("workers=", 0) == 0) out = "num_workers=" + what.substr(8);
  else if (what == "pin_memory") out = "pin_memory=True";
  else if (what == "persistent_workers") out = "persistent_workers=True";
  else if (what == "non_blocking") out = "non_blocking=True on host-to-device copies";
  else if (what == "no_anomaly") out = "anomaly detection off";
  else if (what == "no_profiler") out = "profiler off";
  else if (what == "no_launch_blocking") out = "CUDA_LAUNCH_BLOCKING unset";
  else if (what == "no_deterministic") out = "deterministic algorithms off";
  else if (what == "tf32") out = "TF32 matmuls on";
  else if (what == "no_checkpoint") out = "activation checkpointing off";
  else if (what == "set_to_none") out = "zero_grad(set_to_none=True)";
  else if (what == "cudnn_benchmark") out = "cudnn.benchmark=True";
  else if (what == "no_find_unused") out = "find_unused_parameters=False";
  else out = what;
  return where.empty() ? out : out + " at " + where;
}

std::string tracing_overhead_text(const RunFigure& traced, const Baseline& untraced) {
  if (untraced.step_ms.empty() || untraced.median_ms <= 0.0 || traced.step_ms <= 0.0) return {};
  const double diff = traced.step_ms - untraced.median_ms;
  char buf[320];
  std::snprintf(buf, sizeof buf,
                "GPU tracing %+.1f%% per step: the traced run's median step %.2f ms against %.2f ms over %zu untraced "
                "run%s of the same script (%s their spread, %.2f ms)",
                diff / untraced.median_ms * 100.0, traced.step_ms, untraced.median_ms, untraced.step_ms.size(),
                untraced.step_ms.size() == 1 ? "" : "s", std::abs(diff) <= untraced.spread_ms ? "within" : "beyond",
                untraced.spread_ms);
  return buf;
}

}  // namespace perflint::probe
