// The calibration file (probe/calibration*): names and paths, the writer and the reader, and the
// reader's errors (file:line:col and the key) on missing keys, bad values and malformed TOML.
#include "probe/calibration.hpp"

#include <gtest/gtest.h>

#include <cstdlib>

#include "calibration_support.hpp"
#include "cli_support.hpp"

namespace perflint::probe {
namespace {

using perflint::testing::contains;
using perflint::testing::sample_cuda_calibration;
using perflint::testing::TempDir;

// A valid CPU calibration, as text, with `extra` appended.
std::string cpu_text(const std::string& extra = "") {
  return "schema = 1\n"
         "[device]\nkind = \"cpu\"\nname = \"AMD EPYC\"\n"
         "[versions]\nlibtorch = \"1.13.0\"\ndate = \"2025-05-01T10:00:00Z\"\n"
         "[method]\nwarmup = 1\nrepetitions = 5\n" +
         extra;
}

TEST(Calibration, SpreadIsTheMedianWithNearestRankPercentiles) {
  const Spread odd = spread_of({5, 1, 4, 2, 3});
  EXPECT_EQ(odd.median, 3);
  EXPECT_EQ(odd.p10, 1);  // ceil(0.1 * 5) = 1st
  EXPECT_EQ(odd.p90, 5);  // ceil(0.9 * 5) = 5th
  std::vector<double> twenty;
  for (int i = 20; i >= 1; --i) twenty.push_back(i);
  const Spread s = spread_of(twenty);
  EXPECT_EQ(s.median, 10.5);
  EXPECT_EQ(s.p10, 2);   // ceil(0.1 * 20) = 2nd
  EXPECT_EQ(s.p90, 18);  // ceil(0.9 * 20) = 18th
  EXPECT_EQ(spread_of({}).median, 0);
}

TEST(Calibration, SlugsAndGemmShapes) {
  EXPECT_EQ(device_slug("cuda", "NVIDIA A100-SXM4-80GB"), "cuda-nvidia-a100-sxm4-80gb");
  EXPECT_EQ(device_slug("cpu", "  Intel(R) Xeon(R) CPU @ 2.20GHz "), "cpu-intel-r-xeon-r-cpu-2-20ghz");
  EXPECT_EQ(device_slug("cpu", ""), "cpu");
  ASSERT_TRUE(parse_gemm_shape("4096x1024X512"));
  EXPECT_EQ(*parse_gemm_shape("4096x1024X512"), (GemmShape{4096, 1024, 512}));
  for (const char* bad : {"", "4096", "4096x4096", "4096x4096x", "0x1x1", "1x1x1x1", "1x1x70000", "ax1x1", "1x1x1 "})
    EXPECT_FALSE(parse_gemm_shape(bad)) << bad;
  EXPECT_EQ(to_string(GemmShape{8, 16, 32}), "8x16x32");
}

TEST(Calibration, DirectoryFollowsXdgThenHome) {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  const std::string saved_xdg = xdg ? xdg : "";
  ::setenv("XDG_CACHE_HOME", "/x/cache", 1);
  EXPECT_EQ(calibration_dir(), "/x/cache/perflint/calibration");
  EXPECT_EQ(calibration_path("cpu-amd-epyc"), "/x/cache/perflint/calibration/cpu-amd-epyc.toml");
  ::setenv("XDG_CACHE_HOME", "relative/cache", 1);  // the XDG spec: relative paths are ignored
  const char* home = std::getenv("HOME");
  if (home && *home) {
    EXPECT_EQ(calibration_dir(), std::string(home) + "/.cache/perflint/calibration");
  }
  EXPECT_EQ(calibration_path("cpu", "/tmp/here"), "/tmp/here/cpu.toml");
  if (xdg) {
    ::setenv("XDG_CACHE_HOME", saved_xdg.c_str(), 1);
  } else {
    ::unsetenv("XDG_CACHE_HOME");
  }
}

TEST(Calibration, WrittenFileReadsBackTheSame) {
  const Calibration c = sample_cuda_calibration();
  TempDir dir;
  const std::string path = dir.write("cuda-nvidia-h100-80gb-hbm3.toml", format_calibration(c));
  auto r = read_calibration(path);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->path, path);
  EXPECT_EQ(r->slug(), "cuda-nvidia-h100-80gb-hbm3");
  EXPECT_EQ(r->cpu_model, c.cpu_model);
  EXPECT_EQ(r->capability, "9.0");
  EXPECT_EQ(r->cuda_runtime, "12.1");
  EXPECT_EQ(r->cuda_driver, "12.4");
  EXPECT_EQ(r->libtorch, "2.3.0");
  EXPECT_EQ(r->date, c.date);
  EXPECT_EQ(r->threads, 16);
  EXPECT_EQ(r->repetitions, 15);
  ASSERT_EQ(r->copies.size(), 2u);
  EXPECT_EQ(r->copies[1].memory, CopyMemory::Pinned);
  EXPECT_EQ(r->copies[1].bytes, 4096u);
  EXPECT_DOUBLE_EQ(r->copies[1].gbps.median, 1.5);
  EXPECT_DOUBLE_EQ(r->copies[1].gbps.p90, 1.6);
  ASSERT_EQ(r->gemms.size(), 3u);
  EXPECT_EQ(r->gemms[2].dtype, GemmDtype::Bf16);
  EXPECT_EQ(r->gemms[2].shape, (GemmShape{8192, 1024, 4096}));
  EXPECT_TRUE(r->gemms[2].requested);
  EXPECT_FALSE(r->gemms[0].requested);
  EXPECT_DOUBLE_EQ(r->gemms[1].gflops.median, 400000);
  ASSERT_TRUE(r->sync_us && r->launch_us);
  EXPECT_DOUBLE_EQ(r->sync_us->p90, 14.0);
  EXPECT_DOUBLE_EQ(r->launch_us->median, 4.5);
  // find_calibration: by the device the evidence names.
  auto found = find_calibration("cuda", "NVIDIA H100 80GB HBM3", dir.str());
  ASSERT_TRUE(found.ok()) << found.error().message;
  EXPECT_EQ(found->path, path);
  EXPECT_EQ(list_calibrations(dir.str()), std::vector<std::string>{path});
}

TEST(Calibration, MinimalFileHasDefaultsAndPercentilesFallBackToTheMedian) {
  auto r = parse_calibration(cpu_text("[[copy]]\nmemory = \"host\"\nbytes = 4096\ngbps = 10\n"), "c.toml");
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->copies.size(), 1u);
  EXPECT_DOUBLE_EQ(r->copies[0].gbps.p10, 10.0);  // integers read as numbers too
  EXPECT_TRUE(r->gemms.empty());
  EXPECT_FALSE(r->sync_us);
  EXPECT_FALSE(r->quick);
}

TEST(CalibrationErrors, MalformedTomlNamesFileLineAndColumn) {
  auto r = parse_calibration("schema = 1\n[device]\nkind = \"cpu\nname = 1\n", "/c/bad.toml");
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.error().message.starts_with("/c/bad.toml:3:")) << r.error().message;
  EXPECT_TRUE(contains(r.error().message, "invalid TOML")) << r.error().message;
}

TEST(CalibrationErrors, MissingKeysAndTablesAreNamed) {
  auto no_schema = parse_calibration("[device]\n", "c.toml");
  ASSERT_FALSE(no_schema.ok());
  EXPECT_EQ(no_schema.error().message, "c.toml: missing 'schema' (not a perflint calibration?)");

  auto no_versions = parse_calibration("schema = 1\n[device]\nkind = \"cpu\"\nname = \"x\"\n", "c.toml");
  ASSERT_FALSE(no_versions.ok());
  EXPECT_EQ(no_versions.error().message, "c.toml: missing table [versions]");

  auto no_name = parse_calibration("schema = 1\n[device]\nkind = \"cpu\"\n", "c.toml");
  ASSERT_FALSE(no_name.ok());
  EXPECT_EQ(no_name.error().message, "c.toml:2:1: [device] lacks 'name'");

  // The second [[gemm]] (line 13) lacks its figure.
  auto no_gflops = parse_calibration(cpu_text("[[gemm]]\ndtype = \"fp32\"\nm = 1\nn = 1\nk = 1\ngflops = 1\n"
                                              "[[gemm]]\ndtype = \"bf16\"\nm = 1\nn = 1\nk = 1\n"),
                                     "c.toml");
  ASSERT_FALSE(no_gflops.ok());
  EXPECT_EQ(no_gflops.error().message, "c.toml:17:1: [[gemm]] #2 lacks 'gflops'");
}

TEST(CalibrationErrors, BadValuesAreNamedWhereTheyAre) {
  auto schema = parse_calibration("schema = 2\n", "c.toml");
  ASSERT_FALSE(schema.ok());
  EXPECT_TRUE(contains(schema.error().message, "c.toml:1:10: calibration schema 2 is not supported"))
      << schema.error().message;

  auto memory = parse_calibration(cpu_text("[[copy]]\nmemory = \"gpu\"\nbytes = 1\ngbps = 1\n"), "c.toml");
  ASSERT_FALSE(memory.ok());
  EXPECT_TRUE(contains(memory.error().message, "c.toml:12:10: [[copy]] #1: memory must be")) << memory.error().message;

  auto negative = parse_calibration(cpu_text("[launch]\nus = -1\n"), "c.toml");
  ASSERT_FALSE(negative.ok());
  EXPECT_EQ(negative.error().message, "c.toml:12:6: 'us' in [launch] must be positive");

  auto type = parse_calibration(cpu_text("[[copy]]\nmemory = \"host\"\nbytes = \"4k\"\ngbps = 1\n"), "c.toml");
  ASSERT_FALSE(type.ok());
  EXPECT_EQ(type.error().message, "c.toml:13:9: 'bytes' in [[copy]] #1 must be a number");

  auto kind = parse_calibration("schema = 1\n[device]\nkind = \"tpu\"\nname = \"x\"\n", "c.toml");
  ASSERT_FALSE(kind.ok());
  EXPECT_TRUE(contains(kind.error().message, "c.toml:3:8: [device] kind must be \"cpu\" or \"cuda\""))
      << kind.error().message;
}

TEST(CalibrationErrors, MissingFileAndMissingDevice) {
  TempDir dir;
  auto r = read_calibration((dir.path() / "none.toml").string());
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(contains(r.error().message, "none.toml: cannot read the calibration")) << r.error().message;
  auto f = find_calibration("cuda", "NVIDIA H100", dir.str());
  ASSERT_FALSE(f.ok());
  EXPECT_TRUE(contains(f.error().message, "cuda-nvidia-h100.toml")) << f.error().message;
  EXPECT_TRUE(contains(f.error().message, "perflint calibrate --device cuda")) << f.error().message;
  EXPECT_TRUE(list_calibrations(dir.str()).empty());
}

}  // namespace
}  // namespace perflint::probe
