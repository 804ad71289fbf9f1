// Verdicts from synthetic evidence (no torch, no GPU): the thresholds and formulas that
// docs/rules/<CODE>.md ("How the probe measures it") state, on CPU and on traced-GPU evidence.
#include <gtest/gtest.h>

#include "probe/evidence.hpp"
#include "probe/verdict.hpp"
#include "probe/verify.hpp"
#include "tests/finding_support.hpp"
#include "tests/calibration_support.hpp"

namespace perflint::probe {
namespace {

// Evidence with `steps` measured steps of `wall_ms`, each waiting `wait_ms` for a loader built at
// train.py:20 with `workers` workers.
std::string evidence_json(const std::string& device, int steps, double wall_ms, double wait_ms, int workers) {
  std::string s = R"({"schema": 1, "torch": "2.11", "steps_requested": )" + std::to_string(steps) +
                  R"(, "warmup": 1, "device": )" + device + R"(, "memory": {"kind": "cuda", "peak_bytes": 100, "total_bytes": 1000},
    "exit": {"reason": "steps_reached", "code": 0}, "steps": [{"warmup": true, "wall_ms": 500, "data_wait_ms": 0})";
  for (int i = 0; i < steps; ++i)
    s += R"(, {"warmup": false, "wall_ms": )" + std::to_string(wall_ms) + R"(, "data_wait_ms": )" +
         std::to_string(wait_ms) + R"(, "flags": {"anomaly": true}})";
  s += R"(], "dataloaders": [{"site": "train.py:20", "num_workers": )" + std::to_string(workers) +
       R"(, "batches": )" + std::to_string(steps + 1) + R"(, "wait_ms": )" + std::to_string(wait_ms * (steps + 1)) +
       "}]}";
  return s;
}

const std::string kCpu = R"({"kind": "cpu", "name": "x86"})";
const std::string kH100 = R"({"kind": "cuda", "name": "H100", "capability": "9.0"})";
const std::string kV100 = R"({"kind": "cuda", "name": "V100", "capability": "7.0"})";

Finding finding(std::string_view code, uint32_t line) { return testing::finding_at(code, line); }

Evidence parse(const std::string& json) {
  auto e = parse_evidence(json, "evidence.json");
  EXPECT_TRUE(e.ok()) << e.error().message;
  return e.ok() ? *e : Evidence{};
}

TEST(ProbeEvidence, RankAndStepPhasesAreReadWhenPresentAndAbsentOtherwise) {
  const Evidence plain = parse(evidence_json(kCpu, 2, 10.0, 1.0, 0));
  EXPECT_EQ(plain.rank, 0);
  EXPECT_EQ(plain.world_size, 1);
  EXPECT_FALSE(plain.steps.back().phases);
  const Evidence ranked = parse(R"({"schema": 1, "rank": 3, "local_rank": 1, "world_size": 4,
    "exit": {"reason": "steps_reached"}, "steps": [{"start_ms": 12.5, "wall_ms": 10, "phases":
    {"data_ms": 1, "h2d_ms": 2, "forward_ms": 3, "backward_ms": 2.5, "optimizer_ms": 1, "other_ms": 0.5}}]})");
  EXPECT_EQ(ranked.rank, 3);
  EXPECT_EQ(ranked.local_rank, 1);
  EXPECT_EQ(ranked.world_size, 4);
  ASSERT_EQ(ranked.steps.size(), 1u);
  EXPECT_DOUBLE_EQ(ranked.steps[0].start_ms, 12.5);
  ASSERT_TRUE(ranked.steps[0].phases);
  EXPECT_DOUBLE_EQ(ranked.steps[0].phases->forward_ms, 3.0);
  EXPECT_DOUBLE_EQ(ranked.steps[0].phases->backward_ms, 2.5);
  EXPECT_DOUBLE_EQ(ranked.steps[0].phases->other_ms, 0.5);
  EXPECT_EQ(ranked.step_clock, "host");  // absent: the host's
  EXPECT_EQ(parse(R"({"schema": 1, "step_clock": "cuda_events", "exit": {"reason": "steps_reached"}, "steps": []})").step_clock, "cuda_events");
  EXPECT_EQ(parse(R"({"schema": 1, "step_clock": "sundial", "exit": {"reason": "steps_reached"}, "steps": []})").step_clock, "host");
}

TEST(ProbeVerdict, WorkersConfirmedRefutedOrInconclusiveByTheShareOfTheStep) {
  const Verdict heavy = judge(finding("PFL101", 20), parse(evidence_json(kCpu, 5, 20.0, 15.0, 0)));
  EXPECT_EQ(heavy.state, Verdict::State::Confirmed);
  ASSERT_TRUE(heavy.cost_ms_per_step);
  EXPECT_NEAR(*heavy.cost_ms_per_step, 15.0, 1e-9);
  EXPECT_NEAR(*heavy.share, 0.75, 1e-9);
  EXPECT_EQ(judge(finding("PFL101", 20), parse(evidence_json(kCpu, 5, 100.0, 1.0, 0))).state, Verdict::State::Refuted);
  EXPECT_EQ(judge(finding("PFL101", 20), parse(evidence_json(kCpu, 5, 100.0, 5.0, 0))).state,
            Verdict::State::Inconclusive);
  // Overridden on the command line: the loader ran with workers.
  EXPECT_EQ(judge(finding("PFL101", 20), parse(evidence_json(kCpu, 5, 20.0, 15.0, 4))).state, Verdict::State::Refuted);
  // Another loader's line: not this finding's evidence.
  EXPECT_EQ(judge(finding("PFL101", 60), parse(evidence_json(kCpu, 5, 20.0, 15.0, 0))).state,
            Verdict::State::Inconclusive);
}

TEST(ProbeVerdict, GpuRulesAreNotMeasurableOnTheCpuAndInconclusiveWithoutTracing) {
  EXPECT_EQ(judge(finding("PFL102", 20), parse(evidence_json(kCpu, 3, 10, 1, 0))).state, Verdict::State::NotMeasurable);
  EXPECT_EQ(judge(finding("PFL102", 20), parse(evidence_json(kH100, 3, 10, 1, 0))).state, Verdict::State::Inconclusive);
  EXPECT_EQ(judge(finding("PFL301", 5), parse(evidence_json(kCpu, 3, 10, 1, 0))).state, Verdict::State::Confirmed);
}

std::string gpu_json(double pageable, double fp32_gemm_ns, double busy_ns, int steps = 3) {
  std::string s = R"({"status": "ok", "steps": [)";
  for (int i = 0; i < steps; ++i)
    s += std::string(i ? "," : "") + R"({"wall_ns": 10000000, "busy_ns": )" + std::to_string(busy_ns) +
         R"(, "h2d_bytes": 2097152, "h2d_pageable_bytes": )" + std::to_string(pageable) +
         R"(, "h2d_ns": 2000000, "h2d_sync_copies": 2, "kernel_ns": {"fp32_gemm": )" + std::to_string(fp32_gemm_ns) + "}}";
  return s + "]}";
}

TEST(ProbeVerdict, TracedGpuEvidencePricesPageableCopiesAndFp32Gemms) {
  Evidence e = parse(evidence_json(kH100, 3, 10.0, 0.5, 2));
  ASSERT_TRUE(add_gpu_activity(e, gpu_json(1048576, 4000000, 9500000), "g.json").ok());
  ASSERT_TRUE(e.gpu_traced());
  const Verdict pin = judge(finding("PFL102", 20), e);
  EXPECT_EQ(pin.state, Verdict::State::Confirmed);
  EXPECT_NEAR(*pin.cost_ms_per_step, 1.0, 1e-9);  // half the bytes were pageable: half of 2 ms
  EXPECT_NE(pin.evidence.find("upper bound"), std::string::npos);
  const Verdict tf32 = judge(finding("PFL401", 1), e);
  EXPECT_EQ(tf32.state, Verdict::State::Confirmed);
  EXPECT_NEAR(*tf32.cost_ms_per_step, 4.0, 1e-9);
  EXPECT_EQ(judge(finding("PFL103", 30), e).state, Verdict::State::Confirmed);
  const auto d = diagnose(e);
  ASSERT_FALSE(d.empty());
  EXPECT_EQ(d.front().kind, "gpu-bound");

  Evidence pinned = parse(evidence_json(kH100, 3, 10.0, 0.5, 2));
  ASSERT_TRUE(add_gpu_activity(pinned, gpu_json(0, 0, 2000000), "g.json").ok());
  EXPECT_EQ(judge(finding("PFL102", 20), pinned).state, Verdict::State::Refuted);
  EXPECT_EQ(judge(finding("PFL401", 1), pinned).state, Verdict::State::Refuted);

  Evidence volta = parse(evidence_json(kV100, 3, 10.0, 0.5, 2));
  ASSERT_TRUE(add_gpu_activity(volta, gpu_json(0, 4000000, 2000000), "g.json").ok());
  const Verdict old = judge(finding("PFL401", 1), volta);
  EXPECT_EQ(old.state, Verdict::State::Refuted);
  EXPECT_NE(old.evidence.find("sm_80"), std::string::npos);
}

TEST(ProbeVerdict, TracedStepsAlignWithTheMeasuredOnes) {
  Evidence e = parse(evidence_json(kH100, 2, 10.0, 0.5, 2));
  ASSERT_TRUE(add_gpu_activity(e, gpu_json(0, 0, 1000, 5), "g.json").ok());
  EXPECT_EQ(e.gpu_steps.size(), 2u);  // the last two of five traced steps
  EXPECT_FALSE(add_gpu_activity(e, "{\"steps\": [", "bad.json").ok());
}

// Evidence whose steps are given as JSON objects (warm-up ones first, marked "warmup": true).
Evidence with_steps(const std::string& device, const std::vector<std::string>& steps, const std::string& extra = "") {
  std::string s = R"({"schema": 1, "torch": "2.11", "device": )" + device + extra +
                  R"(, "exit": {"reason": "steps_reached", "code": 0}, "steps": [)";
  for (size_t i = 0; i < steps.size(); ++i) s += (i ? "," : "") + steps[i];
  return parse(s + "]}");
}

TEST(ProbeVerdict, RuntimeFlagsConfirmOrRefuteTheirFindings) {
  const std::string on = R"({"warmup": false, "wall_ms": 10, "flags": {"profiler": true, "cudnn_deterministic": true, "launch_blocking": true}})";
  const std::string off = R"({"warmup": false, "wall_ms": 10, "flags": {"profiler": false}})";
  const Evidence mixed = with_steps(kH100, {on, off});
  const Verdict prof = judge(finding("PFL302", 3), mixed);
  EXPECT_EQ(prof.state, Verdict::State::Confirmed);
  EXPECT_NE(prof.evidence.find("1/2"), std::string::npos) << prof.evidence;
  EXPECT_FALSE(prof.cost_ms_per_step);  // a flag alone has no price: --verify measures it
  EXPECT_EQ(judge(finding("PFL304", 3), mixed).state, Verdict::State::Confirmed);
  EXPECT_EQ(judge(finding("PFL303", 3), mixed).state, Verdict::State::Confirmed);
  const Evidence clean = with_steps(kH100, {off, off});
  EXPECT_EQ(judge(finding("PFL302", 3), clean).state, Verdict::State::Refuted);
  EXPECT_EQ(judge(finding("PFL304", 3), clean).state, Verdict::State::Refuted);
  EXPECT_EQ(judge(finding("PFL303", 3), clean).state, Verdict::State::Refuted);
  // CUDA_LAUNCH_BLOCKING means nothing on a CPU run.
  EXPECT_EQ(judge(finding("PFL303", 3), with_steps(kCpu, {on})).state, Verdict::State::NotMeasurable);
}

TEST(ProbeVerdict, ZeroGradFillIsPricedByItsTimeAndRefutedWhenItSetsNone) {
  const std::string fill = R"({"warmup": false, "wall_ms": 20, "zero_grad_calls": 1, "zero_grad_fill_calls": 1, "zero_grad_ms": 2.5})";
  const Verdict v = judge(finding("PFL502", 9), with_steps(kCpu, {fill, fill}));
  EXPECT_EQ(v.state, Verdict::State::Confirmed);
  ASSERT_TRUE(v.cost_ms_per_step);
  EXPECT_NEAR(*v.cost_ms_per_step, 2.5, 1e-9);
  EXPECT_NEAR(*v.share, 0.125, 1e-9);
  const std::string none = R"({"warmup": false, "wall_ms": 20, "zero_grad_calls": 1, "zero_grad_fill_calls": 0, "zero_grad_ms": 0.1})";
  EXPECT_EQ(judge(finding("PFL502", 9), with_steps(kCpu, {none})).state, Verdict::State::Refuted);
  EXPECT_EQ(judge(finding("PFL502", 9), with_steps(kCpu, {R"({"warmup": false, "wall_ms": 20})"})).state,
            Verdict::State::Refuted);
  // A fill of 0.1 ms in a 20 ms step does not matter; on a GPU the host time is not the fill's.
  const std::string tiny = R"({"warmup": false, "wall_ms": 20, "zero_grad_calls": 1, "zero_grad_fill_calls": 1, "zero_grad_ms": 0.1})";
  EXPECT_EQ(judge(finding("PFL502", 9), with_steps(kCpu, {tiny})).state, Verdict::State::Refuted);
  EXPECT_EQ(judge(finding("PFL502", 9), with_steps(kH100, {fill})).state, Verdict::State::Inconclusive);
}

// PFL701: priced by DDP.forward's own time around the model's forward, when the flag was on.
TEST(ProbeVerdict, FindUnusedParametersIsPricedByDdpForwardsOwnTime) {
  const std::string on = R"({"warmup": false, "wall_ms": 20, "ddp_forwards": 1, "ddp_forward_overhead_ms": 4, "ddp_find_unused": true})";
  const Verdict v = judge(finding("PFL701", 9), with_steps(kCpu, {on, on}));
  EXPECT_EQ(v.state, Verdict::State::Confirmed);
  ASSERT_TRUE(v.cost_ms_per_step);
  EXPECT_NEAR(*v.cost_ms_per_step, 4.0, 1e-9);
  EXPECT_NE(v.evidence.find("DistributedDataParallel.forward"), std::string::npos) << v.evidence;
  const std::string off = R"({"warmup": false, "wall_ms": 20, "ddp_forwards": 1, "ddp_forward_overhead_ms": 4, "ddp_find_unused": false})";
  EXPECT_EQ(judge(finding("PFL701", 9), with_steps(kCpu, {off})).state, Verdict::State::Refuted);
  const std::string tiny = R"({"warmup": false, "wall_ms": 20, "ddp_forwards": 1, "ddp_forward_overhead_ms": 0.1, "ddp_find_unused": true})";
  EXPECT_EQ(judge(finding("PFL701", 9), with_steps(kCpu, {tiny})).state, Verdict::State::Refuted);
  const Verdict none = judge(finding("PFL701", 9), with_steps(kCpu, {R"({"warmup": false, "wall_ms": 20})"}));
  EXPECT_EQ(none.state, Verdict::State::Inconclusive);
  EXPECT_NE(none.evidence.find("no DistributedDataParallel forward"), std::string::npos) << none.evidence;
}

TEST(ProbeVerdict, RecompilesAfterWarmUpArePricedByTheirExtraStepTime) {
  auto step = [](bool warm, double ms, int compiles) {
    return R"({"warmup": )" + std::string(warm ? "true" : "false") + R"(, "wall_ms": )" + std::to_string(ms) +
           R"(, "compiles": )" + std::to_string(compiles) + "}";
  };
  // Two graphs compiled in warm-up; one more in the measured steps, a 310 ms step among 10 ms ones.
  const Evidence e = with_steps(kH100, {step(true, 900, 2), step(false, 10, 2), step(false, 310, 3),
                                        step(false, 10, 3), step(false, 10, 3)});
  const Verdict v = judge(finding("PFL603", 4), e);
  EXPECT_EQ(v.state, Verdict::State::Confirmed);
  ASSERT_TRUE(v.cost_ms_per_step);
  EXPECT_NEAR(*v.cost_ms_per_step, 300.0 / 4, 1e-9);
  const Evidence quiet = with_steps(kH100, {step(true, 900, 2), step(false, 10, 2), step(false, 11, 2)});
  EXPECT_EQ(judge(finding("PFL603", 4), quiet).state, Verdict::State::Refuted);
  // torch 1.x: no counters at all.
  EXPECT_EQ(judge(finding("PFL603", 4), with_steps(kCpu, {R"({"warmup": false, "wall_ms": 10})"})).state,
            Verdict::State::NotMeasurable);
}

TEST(ProbeVerdict, SyncDebugWarningsReplaceTheCallCountersOnCuda) {
  const std::string both = R"({"warmup": false, "wall_ms": 10, "syncs": [
      {"site": "train.py:12", "op": "item", "count": 1, "cuda": true},
      {"site": "train.py:12", "op": "sync", "count": 1, "cuda": true},
      {"site": "train.py:14", "op": "sync", "count": 3, "cuda": true}]})";
  const Evidence debug = with_steps(kH100, {both, both}, R"(, "sync_debug": true)");
  const Verdict item = judge(finding("PFL201", 12), debug);
  EXPECT_EQ(item.state, Verdict::State::Inconclusive);
  EXPECT_EQ(item.evidence.rfind("1.0 host syncs per step", 0), 0u) << item.evidence;  // not 2: counted once
  EXPECT_EQ(judge(finding("PFL202", 14), debug).evidence.rfind("3.0 host syncs per step", 0), 0u);
  const Evidence counted = with_steps(kH100, {both});  // no sync debug mode: only the call counters
  EXPECT_EQ(judge(finding("PFL202", 14), counted).state, Verdict::State::Refuted);
  EXPECT_EQ(judge(finding("PFL201", 12), counted).evidence.rfind("1.0 host syncs per step", 0), 0u);
}

TEST(ProbeVerdict, TracedSyncsArePricedByTheGpuIdleTimeAfterThem) {
  const std::string step = R"({"warmup": false, "wall_ms": 10, "syncs": [
      {"site": "train.py:12", "op": "sync", "count": 1, "cuda": true},
      {"site": "train.py:14", "op": "sync", "count": 3, "cuda": true}]})";
  const auto traced = [&](double idle_ns) {
    Evidence e = with_steps(kH100, {step, step}, R"(, "sync_debug": true)");
    const std::string g = R"({"status": "ok", "steps": [{"wall_ns": 10000000, "busy_ns": 7000000, "kernels": 50,
        "syncs": 4, "sync_idle_ns": )" + std::to_string(idle_ns) + "}, " + R"({"wall_ns": 10000000, "busy_ns": 7000000,
        "kernels": 50, "syncs": 4, "sync_idle_ns": )" + std::to_string(idle_ns) + "}]}";
    EXPECT_TRUE(add_gpu_activity(e, g, "g.json").ok());
    return e;
  };
  const Evidence idle = traced(2000000);  // 2 ms of idle GPU after the syncs, every step
  const Verdict one = judge(finding("PFL201", 12), idle);
  EXPECT_EQ(one.state, Verdict::State::Confirmed) << one.evidence;
  EXPECT_NEAR(*one.cost_ms_per_step, 0.5, 1e-9);  // 1 of the step's 4 syncs
  EXPECT_NE(one.evidence.find("upper bound"), std::string::npos);
  EXPECT_NEAR(*judge(finding("PFL202", 14), idle).cost_ms_per_step, 1.5, 1e-9);
  // The host ran behind anyway (the GPU never waited on a sync): refuted, with its small price.
  const Verdict cheap = judge(finding("PFL202", 14), traced(100000));
  EXPECT_EQ(cheap.state, Verdict::State::Refuted) << cheap.evidence;
  EXPECT_NEAR(*cheap.cost_ms_per_step, 0.075, 1e-9);
}

TEST(ProbeVerdict, ConvAndPrecisionVerdictsNeedTracingUnlessAFlagAlreadyDecides) {
  const std::string bench = R"({"warmup": false, "wall_ms": 10, "autocast": true, "flags": {"cudnn_benchmark": true}})";
  EXPECT_EQ(judge(finding("PFL503", 2), with_steps(kH100, {bench})).state, Verdict::State::Refuted);
  EXPECT_EQ(judge(finding("PFL402", 2), with_steps(kH100, {bench})).state, Verdict::State::Refuted);
  const std::string plain = R"({"warmup": false, "wall_ms": 10})";
  EXPECT_EQ(judge(finding("PFL503", 2), with_steps(kH100, {plain})).state, Verdict::State::Inconclusive);
  Evidence traced = with_steps(kH100, {R"({"warmup": true, "wall_ms": 10})", plain});
  ASSERT_TRUE(add_gpu_activity(traced, R"({"status": "ok", "steps": [{"wall_ns": 10000000, "busy_ns": 9000000,
      "kernel_ns": {"conv": 3000000, "fp32_gemm": 1000000}}]})", "g.json").ok());
  const Verdict conv = judge(finding("PFL503", 2), traced);
  EXPECT_EQ(conv.state, Verdict::State::Confirmed);
  EXPECT_NEAR(*conv.cost_ms_per_step, 3.0, 1e-9);
  const Verdict amp = judge(finding("PFL402", 2), traced);
  EXPECT_EQ(amp.state, Verdict::State::Confirmed);
  EXPECT_NEAR(*amp.cost_ms_per_step, 4.0, 1e-9);
}

TEST(ProbeVerdict, TracingOverheadIsTheTracedRunAgainstTheUntracedRunsWithTheirSpread) {
  Baseline untraced = make_baseline({RunFigure{11.0, 0.1}, RunFigure{11.4, 0.1}});
  const std::string within = tracing_overhead_text(RunFigure{11.5, 0.1}, untraced);
  EXPECT_NE(within.find("GPU tracing +2.7% per step"), std::string::npos) << within;
  EXPECT_NE(within.find("2 untraced runs"), std::string::npos) << within;
  EXPECT_NE(within.find("within their spread"), std::string::npos) << within;
  const std::string beyond = tracing_overhead_text(RunFigure{16.0, 0.1}, untraced);
  EXPECT_NE(beyond.find("+42.9%"), std::string::npos) << beyond;
  EXPECT_NE(beyond.find("beyond their spread"), std::string::npos) << beyond;
  EXPECT_TRUE(tracing_overhead_text(RunFigure{11.0, 0.1}, Baseline{}).empty());
}

TEST(ProbeVerdict, ATracedCostIsWeighedAgainstTheStepLikeTheHostSideOnes) {
  // A 10 ms step: 0.1 ms of fp32 GEMM is too little to matter, 0.5 ms cannot be told, 3 ms counts.
  const std::string plain = R"({"warmup": false, "wall_ms": 10})";
  auto with_gemm = [&](int ns) {
    Evidence e = with_steps(kH100, {plain, plain});
    const std::string step = R"({"wall_ns": 10000000, "kernels": 5, "launches": 5, "kernel_ns": {"fp32_gemm": )" +
                             std::to_string(ns) + "}}";
    EXPECT_TRUE(add_gpu_activity(e, R"({"status": "ok", "steps": [)" + step + "," + step + "]}", "g.json").ok());
    return judge(finding("PFL402", 2), e);
  };
  const Verdict tiny = with_gemm(100000);
  EXPECT_EQ(tiny.state, Verdict::State::Refuted);
  EXPECT_NE(tiny.evidence.find("too little of the step"), std::string::npos) << tiny.evidence;
  EXPECT_EQ(with_gemm(500000).state, Verdict::State::Inconclusive);
  EXPECT_EQ(with_gemm(3000000).state, Verdict::State::Confirmed);
}

TEST(ProbeVerdict, ATraceThatRecordedNoKernelIsNotUsed) {
  // torch.profiler took CUPTI's buffers after the library started (seen on an H200): the library
  // said "ok" and every step had zeros, which refuted PFL402 ("no fp32 GEMM ran").
  const std::string plain = R"({"warmup": false, "wall_ms": 10})";
  Evidence e = with_steps(kH100, {plain, plain});
  ASSERT_TRUE(add_gpu_activity(e, R"({"status": "ok", "steps": [{"wall_ns": 10000000, "kernels": 0, "launches": 0},
      {"wall_ns": 10000000, "kernels": 0, "launches": 0}]})", "g.json").ok());
  EXPECT_FALSE(e.gpu_traced());
  EXPECT_NE(e.gpu_status.find("another profiler"), std::string::npos) << e.gpu_status;
  const Verdict amp = judge(finding("PFL402", 2), e);
  EXPECT_EQ(amp.state, Verdict::State::Inconclusive);
  EXPECT_NE(amp.evidence.find("did not trace this run"), std::string::npos) << amp.evidence;
  EXPECT_NE(judge(finding("PFL402", 2), with_steps(kH100, {plain})).evidence.find("PERFLINT_CUPTI=1"), std::string::npos);
  Evidence seen = with_steps(kH100, {plain, plain});
  ASSERT_TRUE(add_gpu_activity(seen, R"({"status": "ok", "clock": "gpu", "steps": [{"wall_ns": 10000000,
      "kernels": 3, "launches": 3}, {"wall_ns": 10000000, "kernels": 3, "launches": 3}]})", "g.json").ok());
  EXPECT_TRUE(seen.gpu_traced());
  EXPECT_EQ(seen.gpu_status, "ok");
  EXPECT_EQ(seen.gpu_clock, "gpu");
}

TEST(ProbeVerdict, ACalibrationTurnsTheTf32UpperBoundIntoAnEstimate) {
  Evidence e = parse(evidence_json(kH100, 3, 10.0, 0.5, 2));
  ASSERT_TRUE(add_gpu_activity(e, gpu_json(0, 4000000, 9500000), "g.json").ok());
  const Verdict bound = judge(finding("PFL401", 1), e);
  ASSERT_TRUE(bound.cost_ms_per_step);
  EXPECT_NEAR(*bound.cost_ms_per_step, 4.0, 1e-9);
  const auto cal = perflint::testing::sample_cuda_calibration();  // fp32 50 TFLOP/s, TF32 400 TFLOP/s
  const Verdict estimated = judge(finding("PFL401", 1), e, &cal);
  EXPECT_EQ(estimated.state, Verdict::State::Confirmed);
  ASSERT_TRUE(estimated.cost_ms_per_step);
  EXPECT_NEAR(*estimated.cost_ms_per_step, 4.0 * (1.0 - 50000.0 / 400000.0), 1e-6);  // 3.5 ms
  EXPECT_NE(estimated.evidence.find("perflint calibrate"), std::string::npos) << estimated.evidence;
  // Refuted findings are not touched by a calibration.
  Evidence none = parse(evidence_json(kH100, 3, 10.0, 0.5, 2));
  ASSERT_TRUE(add_gpu_activity(none, gpu_json(0, 0, 2000000), "g.json").ok());
  EXPECT_EQ(judge(finding("PFL401", 1), none, &cal).state, Verdict::State::Refuted);
}

}  // namespace
}  // namespace perflint::probe
