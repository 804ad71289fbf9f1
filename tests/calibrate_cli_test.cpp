// `perflint calibrate` end to end: a quick CPU calibration by perflint-calibrate (skipped, with the
// reason, in a build without LibTorch), its TOML, `--show`, and the errors that need no LibTorch.
#include <gtest/gtest.h>

#include <filesystem>

#include "calibration_support.hpp"
#include "cli/calibrate_cmd.hpp"
#include "cli/options.hpp"
#include "cli_support.hpp"
#include "probe/calibration.hpp"

namespace perflint {
namespace {

using testing::contains;
using testing::run_perflint;
using testing::run_program;
using testing::TempDir;

bool calibrate_built() { return std::filesystem::exists(PERFLINT_CALIBRATE_BINARY); }

void expect_positive(const probe::Spread& s, const std::string& what) {
  EXPECT_GT(s.median, 0.0) << what;
  EXPECT_GT(s.p10, 0.0) << what;
  EXPECT_LE(s.p10, s.p90) << what;
}

TEST(CalibrateCli, QuickCpuCalibrationWritesAValidTomlThatShowPrints) {
  if (!calibrate_built())
    GTEST_SKIP() << "perflint-calibrate was not built (CMake found no LibTorch; install libtorch-dev)";
  TempDir cache;
  const auto run =
      run_program(PERFLINT_CALIBRATE_BINARY,
                  {"--quick", "--device", "cpu", "--gemm", "64x32x16", "--cache-dir", cache.str()}, ".", {}, 120);
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_TRUE(contains(run.out, "wrote ")) << run.out;

  const std::vector<std::string> files = probe::list_calibrations(cache.str());
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(std::filesystem::path(files[0]).filename().string().rfind("cpu-", 0), 0u) << files[0];
  auto cal = probe::read_calibration(files[0]);
  ASSERT_TRUE(cal.ok()) << cal.error().message;
  EXPECT_EQ(cal->device_kind, "cpu");
  EXPECT_FALSE(cal->device_name.empty());
  EXPECT_FALSE(cal->libtorch.empty());
  EXPECT_EQ(cal->date.size(), 20u) << cal->date;  // 2025-05-01T10:00:00Z
  EXPECT_TRUE(cal->quick);
  EXPECT_EQ(cal->repetitions, 5);
  ASSERT_GE(cal->copies.size(), 3u);
  for (const auto& c : cal->copies) {
    EXPECT_EQ(c.memory, probe::CopyMemory::Host);
    expect_positive(c.gbps, "memcpy " + std::to_string(c.bytes));
  }
  bool fp32 = false, bf16 = false, requested = false;
  for (const auto& g : cal->gemms) {
    expect_positive(g.gflops, "gemm " + probe::to_string(g.shape));
    fp32 = fp32 || g.dtype == probe::GemmDtype::Fp32;
    bf16 = bf16 || g.dtype == probe::GemmDtype::Bf16;
    requested = requested || (g.requested && g.shape == probe::GemmShape{64, 32, 16});
    EXPECT_NE(g.dtype, probe::GemmDtype::Tf32);  // TF32 is a CUDA figure
  }
  EXPECT_TRUE(fp32 && bf16 && requested);
  ASSERT_TRUE(cal->launch_us);
  expect_positive(*cal->launch_us, "tiny op");
  EXPECT_FALSE(cal->sync_us);

  const auto show = run_perflint({"calibrate", "--show", "--cache-dir", cache.str()});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  for (const char* part : {"calibration cpu-", "LibTorch ", "host memcpy", "GEMM (* from --gemm)", "fp32 GFLOP/s",
                           "bf16 GFLOP/s", "64x32x16 *", "op dispatch (tiny op)", "median [p10, p90]"})
    EXPECT_TRUE(contains(show.out, part)) << part << "\n" << show.out;
}

TEST(CalibrateCli, PerflintHandsTheRunToPerflintCalibrate) {
  if (!calibrate_built())
    GTEST_SKIP() << "perflint-calibrate was not built (CMake found no LibTorch; install libtorch-dev)";
  TempDir cache;
  const auto run = run_perflint({"calibrate", "--quick", "--device=cpu", "--cache-dir", cache.str()});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_TRUE(contains(run.out, "perflint-calibrate: cpu ")) << run.out;
  EXPECT_EQ(probe::list_calibrations(cache.str()).size(), 1u);
}

TEST(CalibrateCli, ShowWithoutACalibrationExitsTwo) {
  TempDir cache;
  const auto r = run_perflint({"calibrate", "--show", "--cache-dir", cache.str()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "error: no calibration yet in " + cache.str())) << r.err;
  EXPECT_TRUE(contains(r.err, "perflint calibrate --cache-dir")) << r.err;
  // A broken file is named with its line.
  cache.write("cpu-x.toml", "schema = 1\n[device\n");
  const auto bad = run_perflint({"calibrate", "--show", "--cache-dir", cache.str()});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_TRUE(contains(bad.err, "cpu-x.toml:2:")) << bad.err;
}

TEST(CalibrateCli, WithoutPerflintCalibrateNextToItSaysHowToGetIt) {
  // A copy of perflint alone in a directory: the build-without-LibTorch case.
  TempDir dir;
  const auto lone = dir.path() / "perflint";
  std::filesystem::copy_file(PERFLINT_BINARY, lone);
  const auto r = run_program(lone.string(), {"calibrate", "--quick", "--cache-dir", dir.str()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "built without LibTorch")) << r.err;
  EXPECT_TRUE(contains(r.err, "libtorch-dev")) << r.err;
  EXPECT_TRUE(contains(r.err, (dir.path() / "perflint-calibrate").string())) << r.err;
}

TEST(CalibrateCli, HelpTeachesTheSubcommand) {
  const auto top = run_perflint({"--help"});
  EXPECT_EQ(top.exit_code, 0);
  EXPECT_TRUE(contains(top.out, "perflint calibrate --quick --device cpu")) << top.out;
  const auto sub = run_perflint({"calibrate", "--help"});
  EXPECT_EQ(sub.exit_code, 0);
  for (const char* part : {"--show", "--quick", "--device", "--gemm", "--cache-dir", "4096x4096x4096",
                           "$XDG_CACHE_HOME/perflint/calibration/<device>.toml", "docs/calibration.md"})
    EXPECT_TRUE(contains(sub.out, part)) << part;
}

ParsedCommandLine parse(std::vector<const char*> args) {
  args.insert(args.begin(), "perflint");
  return parse_command_line(static_cast<int>(args.size()), args.data());
}

TEST(CalibrateCli, OptionsAreValidatedAndForwarded) {
  const auto ok = parse(
      {"calibrate", "--quick", "--device", "cpu", "--gemm", "1x2x3,4x5x6", "--gemm", "7x8x9", "--cache-dir", "/c"});
  ASSERT_FALSE(ok.exit_now) << ok.err;
  EXPECT_EQ(ok.options.command, Options::Command::Calibrate);
  EXPECT_EQ(calibrate_arguments(ok.options.calibrate),
            (std::vector<std::string>{"--quick", "--device", "cpu", "--gemm", "1x2x3", "--gemm", "4x5x6", "--gemm",
                                      "7x8x9", "--cache-dir", "/c"}));
  const auto shape = parse({"calibrate", "--gemm", "4096x4096"});
  EXPECT_EQ(shape.exit_code, 2);
  EXPECT_TRUE(contains(shape.err, "'4096x4096' is not a GEMM shape")) << shape.err;
  EXPECT_TRUE(contains(shape.err, "perflint calibrate --help")) << shape.err;
  EXPECT_EQ(parse({"calibrate", "--device", "tpu"}).exit_code, 2);
  const auto show = parse({"calibrate", "--show", "--quick"});
  EXPECT_EQ(show.exit_code, 2);
  EXPECT_TRUE(contains(show.err, "--quick and --gemm go with a measuring run")) << show.err;
  EXPECT_EQ(parse({"calibrate", "train.py"}).exit_code, 2);
}

TEST(CalibrateCli, ShowTableForACudaCalibration) {
  probe::Calibration c = testing::sample_cuda_calibration();
  c.cpu_model = "AMD EPYC";
  c.copies.push_back({probe::CopyMemory::Pinned, 1048576, {20, 19, 21}});  // no pageable figure: "-"
  const std::string t = format_calibration_table(c);
  for (const char* part :
       {"calibration cuda-nvidia-h100-80gb-hbm3\n",
        "CUDA \"NVIDIA H100 80GB HBM3\" (compute capability 9.0), host CPU \"AMD EPYC\"",
        "LibTorch 2.3.0, CUDA runtime 12.1, CUDA driver 12.4", "host-to-device copies", "pageable GB/s", "pinned GB/s",
        "0.900 [0.800, 1.00]", "-", "fp32 TFLOP/s", "50.0 [49.0, 51.0]", "400 [390, 410]", "8192x1024x4096 *",
        "bf16 TFLOP/s", "600 [590, 610]", "host-device sync round trip   12.0 [11.0, 14.0]", "kernel launch (tiny op)"})
    EXPECT_TRUE(contains(t, part)) << part << "\n" << t;
}

}  // namespace
}  // namespace perflint
