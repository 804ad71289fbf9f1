// The calibration's names, paths and TOML writer. Free of toml++ on purpose: perflint-calibrate
// compiles this file with LibTorch's flags, and a PyTorch wheel's LibTorch may use the old C++ ABI,
// which cannot link the system's toml++ library. The reader (toml++) is calibration_read.cpp.
#include "probe/calibration.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

namespace perflint::probe {

namespace {

constexpr std::string_view kMemoryNames[] = {"pageable", "pinned", "host"};
constexpr std::string_view kDtypeNames[] = {"fp32", "tf32", "bf16"};

template <typename Enum, size_t N>
std::optional<Enum> parse_name(std::string_view s, const std::string_view (&names)[N]) {
  for (size_t i = 0; i < N; ++i)
    if (s == names[i]) return static_cast<Enum>(i);
  return std::nullopt;
}

// A TOML basic string.
std::string toml_string(std::string_view s) {
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
      out += buf;
    } else {
      out += c;
    }
  }
  return out + '"';
}

// A TOML float: six significant digits, always with a '.' or an exponent so that it reads back as
// a float.
std::string number(double v) {
  if (!std::isfinite(v)) v = 0.0;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  std::string s = buf;
  if (s.find_first_of(".eE") == std::string::npos) s += ".0";
  return s;
}

void spread_keys(std::string& out, std::string_view key, const Spread& s) {
  out.append(key).append(" = ").append(number(s.median)).append("\n");
  out.append(key).append("_p10 = ").append(number(s.p10)).append("\n");
  out.append(key).append("_p90 = ").append(number(s.p90)).append("\n");
}

}  // namespace

Spread spread_of(std::vector<double> samples) {
  if (samples.empty()) return {};
  std::sort(samples.begin(), samples.end());
  const size_t n = samples.size();
  // Nearest rank: the smallest sample with at least p of the samples at or below it.
  auto rank = [&](double p) { return samples[std::clamp<size_t>(static_cast<size_t>(std::ceil(p * n)), 1, n) - 1]; };
  const double median = n % 2 ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2.0;
  return Spread{median, rank(0.10), rank(0.90)};
}

std::string format_figure(double v) {
  char buf[48];
  const double a = std::fabs(v);
  if (a >= 100.0)
    std::snprintf(buf, sizeof buf, "%.0f", v);
  else if (a >= 10.0)
    std::snprintf(buf, sizeof buf, "%.1f", v);
  else if (a >= 1.0 || a == 0.0)
    std::snprintf(buf, sizeof buf, "%.2f", v);
  else
    std::snprintf(buf, sizeof buf, "%#.3g", v);
  return buf;
}

std::string format_spread(const Spread& s) {
  return format_figure(s.median) + " [" + format_figure(s.p10) + ", " + format_figure(s.p90) + "]";
}

std::string_view to_string(CopyMemory m) { return kMemoryNames[static_cast<size_t>(m)]; }
std::string_view to_string(GemmDtype d) { return kDtypeNames[static_cast<size_t>(d)]; }
std::optional<CopyMemory> parse_copy_memory(std::string_view s) { return parse_name<CopyMemory>(s, kMemoryNames); }
std::optional<GemmDtype> parse_gemm_dtype(std::string_view s) { return parse_name<GemmDtype>(s, kDtypeNames); }

std::optional<GemmShape> parse_gemm_shape(std::string_view text) {
  int64_t dims[3] = {};
  size_t pos = 0;
  for (int i = 0; i < 3; ++i) {
    if (i > 0) {
      if (pos >= text.size() || (text[pos] != 'x' && text[pos] != 'X')) return std::nullopt;
      ++pos;
    }
    const size_t start = pos;
    int64_t v = 0;
    while (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos])) && pos - start < 6)
      v = v * 10 + (text[pos++] - '0');
    if (pos == start || v < 1 || v > 65536) return std::nullopt;
    dims[i] = v;
  }
  if (pos != text.size()) return std::nullopt;
  return GemmShape{dims[0], dims[1], dims[2]};
}

std::string to_string(const GemmShape& s) {
  return std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
}

std::string device_slug(std::string_view kind, std::string_view name) {
  std::string out(kind);
  bool dash = true;  // the '-' between kind and name comes with the name's first character
  for (const char c : name) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      if (dash) out += '-';
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      dash = false;
    } else {
      dash = true;
    }
  }
  return out;
}

std::string Calibration::slug() const { return device_slug(device_kind, device_name); }

std::string calibration_dir(const std::string& cache_dir) {
  namespace fs = std::filesystem;
  if (!cache_dir.empty()) return cache_dir;
  fs::path base;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && fs::path(xdg).is_absolute())
    base = xdg;
  else if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0')
    base = fs::path(home) / ".cache";
  else
    base = fs::temp_directory_path();  // no home: still a usable, documented place
  return (base / "perflint" / "calibration").string();
}

std::string calibration_path(const std::string& slug, const std::string& cache_dir) {
  return (std::filesystem::path(calibration_dir(cache_dir)) / (slug + ".toml")).string();
}

std::string format_calibration(const Calibration& c) {
  std::string out =
      "# perflint calibration: micro-benchmarks of one device, written by `perflint calibrate`.\n"
      "# Format and benchmarks: docs/calibration.md. Each figure is the median of the repetitions,\n"
      "# with their 10th and 90th percentiles (nearest rank) as <key>_p10 and <key>_p90.\n";
  out += "schema = " + std::to_string(kCalibrationSchema) + "\n";
  out += "\n[device]\nkind = " + toml_string(c.device_kind) + "\nname = " + toml_string(c.device_name) + "\n";
  out += "slug = " + toml_string(c.slug()) + "\n";
  if (!c.capability.empty()) out += "capability = " + toml_string(c.capability) + "\n";
  out += "cpu_model = " + toml_string(c.cpu_model) + "\nthreads = " + std::to_string(c.threads) + "\n";
  out += "\n[versions]\nlibtorch = " + toml_string(c.libtorch) + "\n";
  if (!c.cuda_runtime.empty()) out += "cuda_runtime = " + toml_string(c.cuda_runtime) + "\n";
  if (!c.cuda_driver.empty()) out += "cuda_driver = " + toml_string(c.cuda_driver) + "\n";
  out += "date = " + toml_string(c.date) + "\n";
  out += "\n[method]\nwarmup = " + std::to_string(c.warmup) + "\nrepetitions = " + std::to_string(c.repetitions) +
         "\nquick = " + (c.quick ? "true" : "false") + "\nstatistic = \"median, p10, p90 (nearest rank)\"\n";
  for (const auto& p : c.copies) {
    out += "\n[[copy]]\nmemory = " + toml_string(to_string(p.memory)) + "\nbytes = " + std::to_string(p.bytes) + "\n";
    spread_keys(out, "gbps", p.gbps);
  }
  for (const auto& g : c.gemms) {
    out += "\n[[gemm]]\ndtype = " + toml_string(to_string(g.dtype)) + "\nm = " + std::to_string(g.shape.m) +
           "\nn = " + std::to_string(g.shape.n) + "\nk = " + std::to_string(g.shape.k) + "\n";
    if (g.requested) out += "requested = true\n";
    spread_keys(out, "gflops", g.gflops);
  }
  if (c.sync_us) {
    out += "\n[sync]\n";
    spread_keys(out, "us", *c.sync_us);
  }
  if (c.launch_us) {
    out += "\n[launch]\n";
    spread_keys(out, "us", *c.launch_us);
  }
  return out;
}

}  // namespace perflint::probe
