// A device's calibration: the micro-benchmark figures `perflint calibrate` measured and cached as
// TOML (docs/calibration.md), read back for `perflint calibrate --show` and for the probe's estimates.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "parser/expected.hpp"

namespace perflint::probe {

// Schema of the TOML file; a reader refuses other versions.
inline constexpr int kCalibrationSchema = 1;

// The median of the repetitions and the spread around it: p10 and p90 by nearest rank.
struct Spread {
  double median = 0.0, p10 = 0.0, p90 = 0.0;
};
// Summarises samples (any order; empty gives zeros).
Spread spread_of(std::vector<double> samples);

// A figure for people: three significant digits, no exponent for the magnitudes measured here
// ("1234", "12.3", "1.23", "0.0123").
std::string format_figure(double v);
// "12.3 [11.0, 13.0]": median [p10, p90].
std::string format_spread(const Spread& s);

// Host-to-device copies from pageable or pinned host memory (cuda); host memcpy (cpu).
enum class CopyMemory { Pageable, Pinned, Host };
enum class GemmDtype { Fp32, Tf32, Bf16 };
std::string_view to_string(CopyMemory m);
std::string_view to_string(GemmDtype d);
std::optional<CopyMemory> parse_copy_memory(std::string_view s);
std::optional<GemmDtype> parse_gemm_dtype(std::string_view s);

struct GemmShape {
  int64_t m = 0, n = 0, k = 0;  // (m x k) @ (k x n)
  bool operator==(const GemmShape&) const = default;
};
// "4096x4096x4096" (MxNxK, each 1..65536) -> shape; nullopt if malformed.
std::optional<GemmShape> parse_gemm_shape(std::string_view text);
std::string to_string(const GemmShape& s);

struct CopyPoint {
  CopyMemory memory = CopyMemory::Host;
  uint64_t bytes = 0;
  Spread gbps;  // 1 GB/s = 1e9 bytes per second
};

struct GemmPoint {
  GemmDtype dtype = GemmDtype::Fp32;
  GemmShape shape;
  bool requested = false;  // a --gemm shape rather than a standard one
  Spread gflops;           // 2*M*N*K floating-point operations per multiplication
};

struct Calibration {
  std::string path;  // where it was read from (empty when built in memory)
  // [device]
  std::string device_kind = "cpu";  // cpu | cuda
  std::string device_name;          // as the probe's evidence names it (CPU model, CUDA device name)
  std::string capability;           // cuda: "8.0"
  std::string cpu_model;
  int threads = 0;  // LibTorch intra-op threads
  // [versions]
  std::string libtorch, cuda_runtime, cuda_driver;  // CUDA ones only on cuda
  std::string date;                                 // UTC, ISO 8601
  // [method]
  int warmup = 0, repetitions = 0;
  bool quick = false;
  // Figures.
  std::vector<CopyPoint> copies;
  std::vector<GemmPoint> gemms;
  std::optional<Spread> sync_us;    // cuda: one host-device round trip (.item() of an idle GPU)
  std::optional<Spread> launch_us;  // per tiny op: kernel launch (cuda), dispatch (cpu)

  std::string slug() const;
};

// "cuda", "NVIDIA A100-SXM4-80GB" -> "cuda-nvidia-a100-sxm4-80gb": lower case, every run of other
// characters one '-'. The file name of a device's calibration.
std::string device_slug(std::string_view kind, std::string_view name);
// The calibration directory: `cache_dir` when given, else $XDG_CACHE_HOME/perflint/calibration
// (an absolute XDG_CACHE_HOME only, as the XDG spec says), else ~/.cache/perflint/calibration.
std::string calibration_dir(const std::string& cache_dir = {});
std::string calibration_path(const std::string& device_slug, const std::string& cache_dir = {});

// The TOML text of a calibration (what read_calibration reads back).
std::string format_calibration(const Calibration& c);

// Errors name the file, and the line and column where there is one.
Expected<Calibration> read_calibration(const std::string& path);
Expected<Calibration> parse_calibration(const std::string& text, const std::string& path);
// The calibration of the device the probe's evidence names (kind "cpu"/"cuda", device name).
Expected<Calibration> find_calibration(std::string_view kind, std::string_view name, const std::string& cache_dir = {});
// The calibration files (*.toml) in a directory, sorted; empty when there is none.
std::vector<std::string> list_calibrations(const std::string& dir);

}  // namespace perflint::probe
