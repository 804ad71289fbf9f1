// --verify's pure parts: which run-time fix answers a finding, the baseline's noise, and how a fixed
// run is judged against it (measured only beyond the spread; broken and unapplied fixes said so).
#include <gtest/gtest.h>

#include "probe/evidence.hpp"
#include "probe/verify.hpp"
#include "tests/finding_support.hpp"

namespace perflint::probe {
namespace {

Finding finding(std::string_view code, uint32_t line) { return testing::finding_at(code, line); }

// A run whose measured steps take `step_ms` each; `applied` is the evidence's "applied" list.
Evidence run(double step_ms, const std::string& reason = "steps_reached", const std::string& applied = "[]") {
  const std::string json = R"({"schema": 1, "steps_requested": 2, "warmup": 1, "exit": {"reason": ")" + reason +
                           R"(", "code": 1, "traceback": "Traceback...\n  File x\nPicklingError: cannot pickle 'lambda'"},
      "applied": )" + applied + R"(, "steps": [{"warmup": true, "wall_ms": 999}, {"warmup": false, "wall_ms": )" +
                           std::to_string(step_ms) + R"(}, {"warmup": false, "wall_ms": )" + std::to_string(step_ms) +
                           R"(}], "dataloaders": [{"site": "/abs/train.py:20", "num_workers": 0}]})";
  auto e = parse_evidence(json, "e.json");
  EXPECT_TRUE(e.ok()) << e.error().message;
  return e.ok() ? *e : Evidence{};
}

TEST(ProbeVerify, EachRuleMapsToTheShimsRunTimeFix) {
  Evidence e = run(10);
  e.loaders.front().file = "train.py";  // the finding's path as linted
  EXPECT_EQ(runtime_fix(finding("PFL101", 22), e, 2), "workers=2@/abs/train.py:20");  // the site as recorded
  EXPECT_EQ(runtime_fix(finding("PFL102", 20), e, 2), "pin_memory@/abs/train.py:20");
  EXPECT_EQ(runtime_fix(finding("PFL101", 60), e, 2), "");  // no loader built near that line: nothing to apply
  EXPECT_EQ(runtime_fix(finding("PFL301", 5), e, 2), "no_anomaly");
  EXPECT_EQ(runtime_fix(finding("PFL501", 5), e, 2), "no_checkpoint");
  EXPECT_EQ(runtime_fix(finding("PFL401", 5), e, 2), "tf32");
  EXPECT_EQ(runtime_fix(finding("PFL201", 5), e, 2), "");  // .item() has no run-time fix
  EXPECT_EQ(fix_workers(2), 2);
  EXPECT_EQ(fix_workers(64), 8);
  EXPECT_EQ(fix_workers(0), 1);
}

TEST(ProbeVerify, BaselineIsTheMedianRunAndItsSpreadTheLargerNoise) {
  // Run-to-run: medians 10, 12, 11 -> range 2 beats the step-to-step IQRs (0.5).
  const Baseline b = make_baseline({{10.0, 0.5}, {12.0, 0.5}, {11.0, 0.5}});
  EXPECT_DOUBLE_EQ(b.median_ms, 11.0);
  EXPECT_DOUBLE_EQ(b.spread_ms, 2.0);
  // Step-to-step: noisy steps, steady runs -> the median IQR.
  const Baseline noisy = make_baseline({{10.0, 3.0}, {10.2, 4.0}});
  EXPECT_DOUBLE_EQ(noisy.median_ms, 10.1);
  EXPECT_DOUBLE_EQ(noisy.spread_ms, 3.5);
}

TEST(ProbeVerify, ARunIsItsMedianStepAndItsInterquartileRange) {
  Evidence e = run(10.0);
  e.steps.push_back(e.steps.back());
  e.steps.back().wall_ms = 100.0;  // one slow step among 10, 10: the median ignores it
  e.steps.push_back(e.steps.back());
  e.steps.back().wall_ms = 12.0;
  const RunFigure f = run_figure(e);  // 10, 10, 12, 100
  EXPECT_DOUBLE_EQ(f.step_ms, 11.0);
  EXPECT_DOUBLE_EQ(f.iqr_ms, 34.0 - 10.0);  // p75 = 12 + 0.25 * 88
}

TEST(ProbeVerify, ASavingIsMeasuredOnlyBeyondTheSpread) {
  const Baseline b = make_baseline({{20.0, 0.0}, {21.0, 0.0}, {22.0, 0.0}});  // median 21, spread 2
  const Verification fast = compare("no_anomaly", b, run(15.0));
  EXPECT_EQ(fast.status, "measured");
  EXPECT_DOUBLE_EQ(*fast.saving_ms_per_step, 6.0);
  EXPECT_DOUBLE_EQ(*fast.spread_ms, 2.1);  // 10% of the 21 ms median: more than the runs' range
  EXPECT_DOUBLE_EQ(*fast.step_ms, 15.0);
  EXPECT_EQ(compare("no_anomaly", b, run(19.5)).status, "no-effect");  // 1.5 ms < 2.1 ms spread
  // Three baselines within 1% of each other still leave 10% of the step as noise: a 6% slower run of
  // a fix with no effect (what CI once measured) is no effect.
  const Baseline tight = make_baseline({{238.9, 1.0}, {244.1, 1.0}, {248.8, 1.0}});
  EXPECT_NEAR(tight.spread_ms, 24.41, 1e-9);
  EXPECT_EQ(compare("no_anomaly", tight, run(259.3)).status, "no-effect");
  EXPECT_EQ(compare("no_anomaly", b, run(24.0)).status, "slower");
}

TEST(ProbeVerify, AFixThatBreaksTheScriptOrNeverTakesEffectIsSaidSo) {
  const Baseline b = make_baseline({{20.0, 0.0}, {22.0, 0.0}});
  const Verification broke = compare("workers=2@/abs/train.py:20", b, run(5.0, "crash"));
  EXPECT_EQ(broke.status, "broke-script");
  EXPECT_FALSE(broke.saving_ms_per_step);
  EXPECT_NE(broke.error.find("PicklingError: cannot pickle 'lambda'"), std::string::npos) << broke.error;
  const Verification idle =
      compare("pin_memory@/abs/train.py:20", b,
              run(5.0, "steps_reached", R"([{"fix": "pin_memory@/abs/train.py:20", "applied": 0, "error": null}])"));
  EXPECT_EQ(idle.status, "not-applied");
  const Verification failed =
      compare("tf32", b, run(5.0, "steps_reached", R"([{"fix": "tf32", "applied": 0, "error": "no CUDA backend"}])"));
  EXPECT_EQ(failed.status, "not-applied");
  EXPECT_EQ(failed.error, "no CUDA backend");
  const Verification took =
      compare("tf32", b, run(5.0, "steps_reached", R"([{"fix": "tf32", "applied": 3, "error": null}])"));
  EXPECT_EQ(took.status, "measured");
}

TEST(ProbeVerify, AnEffectIsClaimedOnlyWhenEveryRunShowsItAndTheSmallestClaimIsKept) {
  const Baseline b = make_baseline({{20.0, 0.0}, {21.0, 0.0}, {22.0, 0.0}});  // median 21, spread 2
  Verification v = compare("no_anomaly", b, run(40.0));  // one slow run: another process, say
  EXPECT_EQ(v.status, "slower");
  EXPECT_TRUE(wants_confirmation(v));
  add_repeat(v, b, run(20.5));  // the repeat is inside the spread: no effect, and that is the figure shown
  EXPECT_EQ(v.status, "no-effect");
  EXPECT_FALSE(wants_confirmation(v));  // one repeat at most
  EXPECT_DOUBLE_EQ(*v.step_ms, 20.5);
  EXPECT_DOUBLE_EQ(*v.saving_ms_per_step, 0.5);
  EXPECT_EQ(v.runs_ms, (std::vector<double>{40.0, 20.5}));

  Verification fast = compare("no_anomaly", b, run(12.0));
  add_repeat(fast, b, run(15.0));  // both beyond the spread: measured, with the smaller saving
  EXPECT_EQ(fast.status, "measured");
  EXPECT_DOUBLE_EQ(*fast.saving_ms_per_step, 6.0);

  Verification split = compare("no_anomaly", b, run(12.0));
  add_repeat(split, b, run(30.0));  // one each side: nothing is claimed, no figure that could contradict it
  EXPECT_EQ(split.status, "noisy");
  EXPECT_FALSE(split.saving_ms_per_step);
  EXPECT_FALSE(split.step_ms);

  Verification calm = compare("no_anomaly", b, run(21.5));
  EXPECT_FALSE(wants_confirmation(calm));  // no effect needs no second run

  Verification kept = compare("no_anomaly", b, run(12.0));
  add_repeat(kept, b, run(5.0, "crash"));  // a repeat that failed leaves the first result, and says so
  EXPECT_EQ(kept.status, "measured");
  EXPECT_EQ(kept.runs_ms.size(), 1u);
  EXPECT_NE(kept.error.find("repeat"), std::string::npos);
}

TEST(ProbeVerify, FixesAreNamedByWhatTheyDo) {
  EXPECT_EQ(fix_label("workers=2@/abs/proj/train.py:20", "/abs/proj"), "num_workers=2 at train.py:20");
  EXPECT_EQ(fix_label("workers=2@/abs/proj/data/load.py:7", "/abs/proj/"), "num_workers=2 at data/load.py:7");
  EXPECT_EQ(fix_label("pin_memory@/elsewhere/x.py:3", "/abs/proj"), "pin_memory=True at /elsewhere/x.py:3");
  EXPECT_EQ(fix_label("persistent_workers@/abs/proj/train.py:20", "/abs/proj"),
            "persistent_workers=True at train.py:20");
  EXPECT_EQ(fix_label("no_anomaly", "/abs/proj"), "anomaly detection off");
  EXPECT_EQ(fix_label("set_to_none", ""), "zero_grad(set_to_none=True)");
  EXPECT_EQ(fix_label("something_new", ""), "something_new");  // an id the labels do not know yet
}

TEST(ProbeVerify, TheFixsRunsSettleTheVerdict) {
  const Baseline b = make_baseline({{12.9, 0.0}, {12.95, 0.0}});  // median 12.925, spread 1.2925
  auto verdict = [](Verdict::State state) {
    Verdict v;
    v.state = state;
    v.cost_ms_per_step = 4.08;  // what the trace counted: an upper bound
    v.evidence = "4.08 ms per step in convolution kernels";
    return v;
  };
  // No effect and under 3% of the step: what the trace counted is not what the step waits on (an
  // H100 with cudnn.benchmark off: 4.1 ms of convolutions, benchmark on saved 0.02 ms).
  Verdict none = verdict(Verdict::State::Confirmed);
  apply_verification(none, compare("cudnn_benchmark", b, run(12.94)), b);
  EXPECT_EQ(none.state, Verdict::State::Refuted);
  EXPECT_NE(none.evidence.find("refuted by --verify: its fix saved -0.015 ms/step"), std::string::npos) << none.evidence;
  // No effect beyond the noise, but a saving the noise may hide (8% of the step): not confirmed.
  Verdict hidden = verdict(Verdict::State::Confirmed);
  apply_verification(hidden, compare("non_blocking", b, run(11.9)), b);
  EXPECT_EQ(hidden.state, Verdict::State::Inconclusive);
  EXPECT_NE(hidden.evidence.find("not confirmed by --verify"), std::string::npos) << hidden.evidence;
  // Slower in every run: refuted, confirmed or not before.
  for (auto state : {Verdict::State::Confirmed, Verdict::State::Inconclusive}) {
    Verdict slow = verdict(state);
    Verification v = compare("cudnn_benchmark", b, run(16.0));
    add_repeat(v, b, run(15.425));
    apply_verification(slow, v, b);
    EXPECT_EQ(slow.state, Verdict::State::Refuted);
    EXPECT_NE(slow.evidence.find("made the step slower by 2.5 ms"), std::string::npos) << slow.evidence;
  }
  // A measured saving confirms an inconclusive verdict and leaves a confirmed one.
  Verdict open = verdict(Verdict::State::Inconclusive);
  apply_verification(open, compare("tf32", b, run(5.0)), b);
  EXPECT_EQ(open.state, Verdict::State::Confirmed);
  // Noisy, broken, or an inconclusive verdict whose fix had no effect: the verdict stays.
  Verification noisy = compare("tf32", b, run(5.0));
  add_repeat(noisy, b, run(20.0));
  ASSERT_EQ(noisy.status, "noisy");
  Verdict kept = verdict(Verdict::State::Confirmed);
  apply_verification(kept, noisy, b);
  EXPECT_EQ(kept.state, Verdict::State::Confirmed);
  apply_verification(kept, compare("tf32", b, run(5.0, "crash")), b);
  EXPECT_EQ(kept.state, Verdict::State::Confirmed);
  Verdict still = verdict(Verdict::State::Inconclusive);
  apply_verification(still, compare("tf32", b, run(12.94)), b);
  EXPECT_EQ(still.state, Verdict::State::Inconclusive);
}

}  // namespace
}  // namespace perflint::probe
