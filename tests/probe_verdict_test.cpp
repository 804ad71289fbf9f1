// Verdicts from synthetic evidence (no torch, no GPU): the thresholds and formulas that
// docs/rules/<CODE>.md ("How the probe measures it") state, on CPU and on traced-GPU evidence.
#include <gtest/gtest.h>

#include "probe/evidence.hpp"
#include "probe/verdict.hpp"
#include "rules/registry.hpp"

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

Finding finding(std::string_view code, uint32_t line) {
  Finding f;
  f.rule = &find_rule(code)->info();
  f.path = "train.py";
  f.span.start.line = f.span.end.line = line;
  return f;
}

Evidence parse(const std::string& json) {
  auto e = parse_evidence(json, "evidence.json");
  EXPECT_TRUE(e.ok()) << e.error().message;
  return e.ok() ? *e : Evidence{};
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

}  // namespace
}  // namespace perflint::probe
