// Phases of the measured steps: medians and spreads per phase, shares of the step, and the
// diagnosis they point to (thresholds as documented in docs/output-formats.md, "Phases").
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "probe/evidence.hpp"
#include "probe/phases.hpp"

namespace perflint::probe {
namespace {

// Measured steps with the given phases (data, h2d, forward, backward, optimizer, other), each
// step's wall time their sum; one warm-up step first, with huge phases that must not count.
Evidence with_phases(const std::vector<std::array<double, 6>>& steps, const std::string& device = "cpu") {
  auto phases = [](const std::array<double, 6>& p) {
    return R"({"data_ms": )" + std::to_string(p[0]) + R"(, "h2d_ms": )" + std::to_string(p[1]) +
           R"(, "forward_ms": )" + std::to_string(p[2]) + R"(, "backward_ms": )" + std::to_string(p[3]) +
           R"(, "optimizer_ms": )" + std::to_string(p[4]) + R"(, "other_ms": )" + std::to_string(p[5]) + "}";
  };
  std::string s = R"({"schema": 1, "steps_requested": )" + std::to_string(steps.size()) +
                  R"(, "warmup": 1, "device": {"kind": ")" + device + R"("}, "exit": {"reason": "steps_reached"},
      "steps": [{"warmup": true, "wall_ms": 6000, "phases": )" + phases({1000, 1000, 1000, 1000, 1000, 1000}) + "}";
  for (const auto& p : steps) {
    double wall = 0;
    for (double v : p) wall += v;
    s += R"(, {"warmup": false, "wall_ms": )" + std::to_string(wall) + R"(, "data_wait_ms": )" + std::to_string(p[0]) +
         R"(, "syncs": [{"site": "t.py:9", "op": "item", "count": 2, "cuda": false}], "phases": )" + phases(p) + "}";
  }
  s += "]}";
  auto e = parse_evidence(s, "evidence.json");
  EXPECT_TRUE(e.ok()) << e.error().message;
  return e.ok() ? *e : Evidence{};
}

TEST(ProbePhases, MedianSpreadAndShareOfEachPhaseOverTheMeasuredSteps) {
  // forward 10, 20, 30, 40, 50 ms; backward 20 each; the rest 0 except other 10.
  std::vector<std::array<double, 6>> steps;
  for (double f : {30.0, 10.0, 50.0, 20.0, 40.0}) steps.push_back({0, 0, f, 20, 0, 10});
  const auto s = summarize_phases(with_phases(steps));
  ASSERT_TRUE(s);
  EXPECT_DOUBLE_EQ((*s)["forward"].median_ms, 30.0);
  EXPECT_DOUBLE_EQ((*s)["forward"].p10_ms, 14.0);  // 10 + 0.4 * (20 - 10)
  EXPECT_DOUBLE_EQ((*s)["forward"].p90_ms, 46.0);
  EXPECT_DOUBLE_EQ((*s)["backward"].median_ms, 20.0);
  EXPECT_NEAR((*s)["forward"].share, 30.0 / 60.0, 1e-9);  // mean forward / mean step; warm-up excluded
  EXPECT_NEAR((*s)["other"].share, 10.0 / 60.0, 1e-9);
  EXPECT_DOUBLE_EQ(s->syncs_per_step, 2.0);
  EXPECT_EQ(s->phases[0].name, "data");
  EXPECT_EQ(s->phases[5].name, "other");
}

TEST(ProbePhases, NoPhasesNoSummary) {
  auto e = parse_evidence(R"({"schema": 1, "steps_requested": 1, "warmup": 0, "exit": {"reason": "steps_reached"},
      "steps": [{"warmup": false, "wall_ms": 10}]})", "e.json");
  ASSERT_TRUE(e.ok());
  EXPECT_FALSE(summarize_phases(*e));
}

TEST(ProbePhases, TheDiagnosisIsTheFirstDominantPhaseByTheDocumentedThresholds) {
  auto kind = [](const std::array<double, 6>& p) {
    const auto s = summarize_phases(with_phases({p, p, p}));
    const auto d = s ? diagnose_phases(*s, 100.0) : std::nullopt;
    return d ? d->kind : std::string("none");
  };
  EXPECT_EQ(kind({50, 0, 20, 20, 5, 5}), "data-bound");       // data 50%
  EXPECT_EQ(kind({49, 0, 21, 20, 5, 5}), "none");             // just under every threshold
  EXPECT_EQ(kind({0, 30, 30, 30, 5, 5}), "copy-bound");       // h2d 30%
  EXPECT_EQ(kind({0, 0, 20, 20, 40, 20}), "optimizer-bound"); // optimizer 40%
  EXPECT_EQ(kind({0, 0, 20, 20, 10, 50}), "host-bound");      // other 50%
  EXPECT_EQ(kind({0, 0, 35, 35, 15, 15}), "compute-bound");   // forward + backward 70%
  EXPECT_EQ(kind({60, 35, 0, 0, 0, 5}), "data-bound");        // the order decides between two
  const auto s = summarize_phases(with_phases({{0, 0, 20, 20, 10, 50}}));
  EXPECT_NE(diagnose_phases(*s, 100.0)->text.find("2.0 host syncs per step"), std::string::npos);
}

// CUDA: when every measured step has its CUDA-event times (the shim resolved them in time), the GPU's
// phases replace the host clock's launch times; data stays the host's and "other" is the remainder.
TEST(ProbePhases, CudaEventTimesReplaceTheHostClockWhenEveryStepHasThem) {
  const std::string host = R"({"data_ms": 5, "h2d_ms": 1, "forward_ms": 2, "backward_ms": 2, "optimizer_ms": 1, "other_ms": 89})";
  const std::string gpu = R"({"h2d_ms": 10, "forward_ms": 30, "backward_ms": 40, "optimizer_ms": 5})";
  auto make = [&](bool all_gpu) {
    std::string s = R"({"schema": 1, "steps_requested": 2, "warmup": 0, "device": {"kind": "cuda"},
        "exit": {"reason": "steps_reached"}, "steps": [)";
    for (int i = 0; i < 2; ++i)
      s += std::string(i ? ", " : "") + R"({"warmup": false, "wall_ms": 100, "phases": )" + host +
           (all_gpu || i == 0 ? R"(, "gpu_phases": )" + gpu : std::string()) + "}";
    auto e = parse_evidence(s + "]}", "e.json");
    EXPECT_TRUE(e.ok()) << e.error().message;
    return *e;
  };
  const auto both = summarize_phases(make(true));
  ASSERT_TRUE(both);
  EXPECT_FALSE(both->host_clock);
  EXPECT_DOUBLE_EQ((*both)["forward"].median_ms, 30.0);
  EXPECT_DOUBLE_EQ((*both)["data"].median_ms, 5.0);
  EXPECT_DOUBLE_EQ((*both)["other"].median_ms, 10.0);  // 100 - 5 - 10 - 30 - 40 - 5
  const auto part = summarize_phases(make(false));     // one step unresolved: the host clock for all
  ASSERT_TRUE(part);
  EXPECT_TRUE(part->host_clock);
  EXPECT_DOUBLE_EQ((*part)["forward"].median_ms, 2.0);
}

}  // namespace
}  // namespace perflint::probe
