// `perflint compare` / `--probe --baseline`: the noise-aware comparison of two probe runs, the
// regression gate and its exit codes, on synthetic reports and one real probe run.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "probe/compare.hpp"
#include "tests/cli_support.hpp"

namespace perflint {
namespace {

using testing::contains;
using testing::RunResult;
using testing::run_perflint;
using testing::TempDir;

// A probe JSON report with one warm-up step and these measured steps; forward = 60% of each step.
std::string report(const std::vector<double>& steps, bool phases = true) {
  std::string rows = R"({"index": 0, "warmup": true, "start_ms": 0, "wall_ms": 9999, "data_wait_ms": 0, "phases": null})";
  for (size_t i = 0; i < steps.size(); ++i) {
    const double w = steps[i];
    std::string ph = phases ? R"({"data_ms": 0, "h2d_ms": 0, "forward_ms": )" + std::to_string(0.6 * w) +
                                  R"(, "backward_ms": )" + std::to_string(0.4 * w) +
                                  R"(, "optimizer_ms": 0, "other_ms": 0})"
                            : "null";
    rows += R"(, {"index": )" + std::to_string(i + 1) + R"(, "warmup": false, "start_ms": 0, "wall_ms": )" +
            std::to_string(w) + R"(, "data_wait_ms": 0, "phases": )" + ph + "}";
  }
  return R"({"version": "0.1.0", "findings": [], "errors": [], "probe": {"script": "t.py", "step_rows": [)" + rows +
         "]}}";
}

TEST(ProbeCompare, TheVerdictIsNoChangeWithinTheLargerSpreadAndFasterOrSlowerBeyondIt) {
  auto base = probe::read_run_steps(report({100, 102, 98, 101, 99}), "base.json");
  ASSERT_TRUE(base.ok()) << base.error().message;
  EXPECT_EQ(base->wall_ms.size(), 5u);  // the warm-up row is left out
  auto same = probe::read_run_steps(report({101, 99, 100, 100, 102}), "new.json");
  auto slow = probe::read_run_steps(report({120, 121, 119, 122, 118}), "slow.json");
  auto fast = probe::read_run_steps(report({80, 81, 79, 80, 82}), "fast.json");
  const auto c0 = probe::compare_runs(*base, *same, 5.0);
  EXPECT_EQ(c0.step.verdict, "no change");
  EXPECT_FALSE(c0.regressed);
  EXPECT_DOUBLE_EQ(c0.step.noise_ms, 2.0);  // the larger interquartile range of the two runs
  const auto c1 = probe::compare_runs(*base, *slow, 5.0);
  EXPECT_EQ(c1.step.verdict, "slower");
  EXPECT_NEAR(c1.step.percent, 20.0, 1e-9);
  EXPECT_TRUE(c1.regressed);
  EXPECT_FALSE(probe::compare_runs(*base, *slow, 25.0).regressed);  // slower, but within the threshold
  EXPECT_FALSE(probe::compare_runs(*base, *slow, std::nullopt).regressed);  // no gate without a threshold
  const auto c2 = probe::compare_runs(*base, *fast, 5.0);
  EXPECT_EQ(c2.step.verdict, "faster");
  EXPECT_FALSE(c2.regressed);
  ASSERT_EQ(c1.phases.size(), 6u);
  EXPECT_EQ(c1.phases[2].what, "forward");
  EXPECT_EQ(c1.phases[2].verdict, "slower");
  auto no_phases = probe::read_run_steps(report({100, 101}, false), "old.json");
  EXPECT_TRUE(probe::compare_runs(*base, *no_phases, std::nullopt).phases.empty());
}

TEST(ProbeCompare, AReportWithoutProbeStepsIsAnErrorThatSaysWhatToDo) {
  auto lint_only = probe::read_run_steps(R"({"version": "0.1.0", "findings": [], "errors": []})", "lint.json");
  ASSERT_FALSE(lint_only.ok());
  EXPECT_NE(lint_only.error().message.find("lint.json: no \"probe\" object"), std::string::npos);
  auto old = probe::read_run_steps(R"({"probe": {"script": "t.py"}})", "old.json");
  ASSERT_FALSE(old.ok());
  EXPECT_NE(old.error().message.find("step_rows"), std::string::npos);
  EXPECT_FALSE(probe::read_run_steps("not json", "x.json").ok());
}

TEST(CompareCli, ExitCodesAndFormats) {
  TempDir t;
  t.write("base.json", report({100, 102, 98, 101, 99}));
  t.write("slow.json", report({120, 121, 119, 122, 118}));
  t.write("lint.json", R"({"version": "0.1.0", "findings": [], "errors": []})");
  RunResult gate = run_perflint({"compare", "base.json", "slow.json", "--fail-on-regression", "5"}, t.str());
  EXPECT_EQ(gate.exit_code, 1) << gate.out << gate.err;
  EXPECT_TRUE(contains(gate.out, "median step   100.0 -> 120.0 ms  +20.0 ms (+20.0%)  slower")) << gate.out;
  EXPECT_TRUE(contains(gate.out, "regression: the median step is 20.0% slower")) << gate.out;
  RunResult loose = run_perflint({"compare", "base.json", "slow.json", "--fail-on-regression", "50"}, t.str());
  EXPECT_EQ(loose.exit_code, 0) << loose.out;
  RunResult json = run_perflint({"compare", "--output-format", "json", "base.json", "slow.json"}, t.str());
  EXPECT_EQ(json.exit_code, 0);
  EXPECT_TRUE(contains(json.out, "\"verdict\": \"slower\"")) << json.out;
  EXPECT_TRUE(contains(json.out, "\"regressed\": false")) << json.out;
  RunResult bad = run_perflint({"compare", "base.json", "lint.json"}, t.str());
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_TRUE(contains(bad.err, "lint.json: no \"probe\" object")) << bad.err;
  RunResult missing = run_perflint({"compare", "base.json", "nope.json"}, t.str());
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_TRUE(contains(missing.err, "nope.json")) << missing.err;
  RunResult lonely = run_perflint({"--fail-on-regression", "5", "."}, t.str());
  EXPECT_EQ(lonely.exit_code, 2);
}

// --probe --baseline on a real run: against a baseline of 1 ms steps the real ~100 ms step is a
// regression (exit 4); against 100 s steps it is faster (no regression, the findings' exit code).
TEST(ProbeCliBaseline, ARealRunAgainstAnEarlierReportWithTheRegressionGate) {
  static const bool torch = std::system("/usr/bin/python3 -c 'import torch' >/dev/null 2>&1") == 0;
  if (!torch) GTEST_SKIP() << "no torch for /usr/bin/python3 (Debian: apt-get install python3-torch)";
  TempDir t;
  t.write("fast.json", report({1.0, 1.0, 1.0}));
  t.write("slow.json", report({100000.0, 100000.0, 100000.0}));
  const std::string script = std::string(PERFLINT_SOURCE_DIR) + "/tests/probe/scripts/compute_heavy.py";
  RunResult worse = run_perflint({"--probe", "--steps", "3", "--warmup", "1", "--python", "/usr/bin/python3",
                                  "--no-color", "--baseline", "fast.json", "--fail-on-regression", "10", script},
                                 t.str());
  EXPECT_EQ(worse.exit_code, 4) << worse.out << worse.err;
  EXPECT_TRUE(contains(worse.out, "compare: fast.json (3 steps) -> this run (3 steps)")) << worse.out;
  EXPECT_TRUE(contains(worse.out, "regression: the median step is")) << worse.out;
  RunResult better = run_perflint({"--probe", "--steps", "3", "--warmup", "1", "--python", "/usr/bin/python3",
                                   "--no-color", "--baseline", "slow.json", "--fail-on-regression", "10", script},
                                  t.str());
  EXPECT_NE(better.exit_code, 4) << better.out;
  EXPECT_TRUE(contains(better.out, "faster")) << better.out;
}

}  // namespace
}  // namespace perflint
