// `perflint calibrate`: the --show table, and the hand-over to perflint-calibrate. perflint itself
// never links LibTorch (loading it costs hundreds of milliseconds on every lint), so the measuring
// program is a separate executable found next to this one.
#include "cli/calibrate_cmd.hpp"
#include "util/byte_size.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>

namespace perflint {

namespace {

namespace fs = std::filesystem;
using probe::Calibration;
using probe::CopyMemory;
using probe::GemmDtype;
using probe::Spread;

void print(std::FILE* stream, const std::string& text) { std::fwrite(text.data(), 1, text.size(), stream); }

// Rows of cells, each column padded to its widest cell, indented by four spaces.
std::string columns(const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> width;
  for (const auto& r : rows)
    for (size_t i = 0; i < r.size(); ++i) {
      if (width.size() <= i) width.push_back(0);
      width[i] = std::max(width[i], r[i].size());
    }
  std::string out;
  for (const auto& r : rows) {
    std::string line = "    ";
    for (size_t i = 0; i < r.size(); ++i) {
      line += r[i];
      if (i + 1 < r.size()) line += std::string(width[i] - r[i].size() + 3, ' ');
    }
    out += line + "\n";
  }
  return out;
}

std::string copy_table(const Calibration& c) {
  const bool cuda = c.device_kind == "cuda";
  const std::vector<CopyMemory> kinds =
      cuda ? std::vector{CopyMemory::Pageable, CopyMemory::Pinned} : std::vector{CopyMemory::Host};
  std::map<uint64_t, std::map<CopyMemory, Spread>> by_size;
  for (const auto& p : c.copies) by_size[p.bytes][p.memory] = p.gbps;
  if (by_size.empty()) return {};
  std::vector<std::vector<std::string>> rows{{"size"}};
  for (const CopyMemory k : kinds) rows[0].push_back(std::string(to_string(k)) + " GB/s");
  for (const auto& [bytes, figures] : by_size) {
    rows.push_back({format_byte_size(bytes)});
    for (const CopyMemory k : kinds) {
      auto it = figures.find(k);
      rows.back().push_back(it == figures.end() ? "-" : probe::format_spread(it->second));
    }
  }
  return std::string(cuda ? "  host-to-device copies\n" : "  host memcpy\n") + columns(rows);
}

std::string gemm_table(const Calibration& c) {
  std::vector<GemmDtype> dtypes;
  std::vector<std::pair<probe::GemmShape, bool>> shapes;  // in file order, with `requested`
  double top = 0.0;
  for (const auto& g : c.gemms) {
    if (std::find(dtypes.begin(), dtypes.end(), g.dtype) == dtypes.end()) dtypes.push_back(g.dtype);
    if (std::none_of(shapes.begin(), shapes.end(), [&](const auto& s) { return s.first == g.shape; }))
      shapes.emplace_back(g.shape, g.requested);
    top = std::max(top, g.gflops.median);
  }
  if (shapes.empty()) return {};
  std::sort(dtypes.begin(), dtypes.end());
  // GPUs reach hundreds of TFLOP/s: TFLOP/s keeps their figures short.
  const double scale = top >= 1e4 ? 1e-3 : 1.0;
  const std::string unit = top >= 1e4 ? " TFLOP/s" : " GFLOP/s";
  std::vector<std::vector<std::string>> rows{{"shape MxNxK"}};
  for (const GemmDtype d : dtypes) rows[0].push_back(std::string(to_string(d)) + unit);
  bool any_requested = false;
  for (const auto& [shape, requested] : shapes) {
    any_requested = any_requested || requested;
    rows.push_back({to_string(shape) + (requested ? " *" : "")});
    for (const GemmDtype d : dtypes) {
      // A copy for the lambda: clang before 16 cannot capture a structured binding (the fuzz build).
      auto it = std::find_if(c.gemms.begin(), c.gemms.end(),
                             [&, want = shape](const auto& g) { return g.dtype == d && g.shape == want; });
      if (it == c.gemms.end()) {
        rows.back().push_back("-");
        continue;
      }
      const Spread s = it->gflops;
      rows.back().push_back(probe::format_spread(Spread{s.median * scale, s.p10 * scale, s.p90 * scale}));
    }
  }
  return "  GEMM" + std::string(any_requested ? " (* from --gemm)" : "") + "\n" + columns(rows);
}

std::string latency_table(const Calibration& c) {
  std::vector<std::vector<std::string>> rows;
  if (c.sync_us) rows.push_back({"host-device sync round trip", probe::format_spread(*c.sync_us)});
  if (c.launch_us)
    rows.push_back({c.device_kind == "cuda" ? "kernel launch (tiny op)" : "op dispatch (tiny op)",
                    probe::format_spread(*c.launch_us)});
  if (rows.empty()) return {};
  return "  latency (us)\n" + columns(rows);
}

std::string executable_dir() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : self.parent_path().string();
}

int show(const CalibrateOptions& c) {
  const std::string dir = probe::calibration_dir(c.cache_dir);
  std::vector<std::string> files = probe::list_calibrations(dir);
  if (!c.device.empty())
    std::erase_if(files, [&](const std::string& f) {
      const std::string slug = fs::path(f).stem().string();  // the device kind, then the name
      return slug != c.device && !slug.starts_with(c.device + "-");
    });
  if (files.empty()) {
    print(stderr, "error: no " + (c.device.empty() ? std::string() : c.device + " ") + "calibration yet in " + dir +
                      "\nRun 'perflint calibrate" + (c.device.empty() ? std::string() : " --device " + c.device) +
                      (c.cache_dir.empty() ? std::string() : " --cache-dir " + c.cache_dir) +
                      "' to measure this machine (--quick: a few seconds).\n");
    return 2;
  }
  int code = 0;
  std::string out;
  for (const auto& f : files) {
    auto cal = probe::read_calibration(f);
    if (!cal) {
      print(stderr, "error: " + cal.error().message + "\n");
      code = 2;
      continue;
    }
    if (!out.empty()) out += "\n";
    out += format_calibration_table(*cal);
  }
  print(stdout, out);
  return code;
}

}  // namespace

std::string format_calibration_table(const Calibration& c) {
  std::string out = "calibration " + c.slug() + (c.path.empty() ? std::string() : "  (" + c.path + ")") + "\n";
  std::string device = c.device_kind == "cuda" ? "CUDA \"" + c.device_name + "\"" : "CPU \"" + c.device_name + "\"";
  if (!c.capability.empty()) device += " (compute capability " + c.capability + ")";
  if (c.device_kind == "cuda" && !c.cpu_model.empty()) device += ", host CPU \"" + c.cpu_model + "\"";
  if (c.threads > 0)
    device += ", " + std::to_string(c.threads) + (c.threads == 1 ? " LibTorch thread" : " LibTorch threads");
  std::string versions = "LibTorch " + c.libtorch;
  if (!c.cuda_runtime.empty()) versions += ", CUDA runtime " + c.cuda_runtime;
  if (!c.cuda_driver.empty()) versions += ", CUDA driver " + c.cuda_driver;
  out += "  device      " + device + "\n";
  out += "  versions    " + versions + "\n";
  out += "  measured    " + c.date + (c.quick ? " (--quick)" : "") + ": " + std::to_string(c.warmup) + " warm-up + " +
         std::to_string(c.repetitions) + " timed repetitions per figure, shown as median [p10, p90]\n";
  for (const std::string& table : {copy_table(c), gemm_table(c), latency_table(c)})
    if (!table.empty()) out += "\n" + table;
  return out;
}

std::vector<std::string> calibrate_arguments(const CalibrateOptions& c) {
  std::vector<std::string> args;
  if (c.quick) args.emplace_back("--quick");
  if (!c.device.empty()) args.insert(args.end(), {"--device", c.device});
  for (const auto& g : c.gemm) args.insert(args.end(), {"--gemm", g});
  if (!c.cache_dir.empty()) args.insert(args.end(), {"--cache-dir", c.cache_dir});
  return args;
}

int run_calibrate_command(const Options& o) {
  const CalibrateOptions& c = o.calibrate;
  if (c.show) return show(c);
  const std::string dir = executable_dir();
  const std::string exe = (fs::path(dir) / kCalibrateProgram).string();
  if (dir.empty() || ::access(exe.c_str(), X_OK) != 0) {
    print(stderr, "error: this perflint was built without LibTorch, so it cannot measure: `perflint calibrate` runs " +
                      std::string(kCalibrateProgram) + ", which is not next to perflint (looked for " + exe +
                      ").\nInstall LibTorch and rebuild: Debian `apt-get install libtorch-dev` (CPU), or a CUDA "
                      "PyTorch (pip) plus the CUDA toolkit; cmake then prints \"perflint: LibTorch ... found\".\n"
                      "`perflint calibrate --show` works without it.\n");
    return 2;
  }
  std::vector<std::string> args = calibrate_arguments(c);
  args.insert(args.begin(), exe);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::fflush(stdout);
  std::fflush(stderr);
  ::execv(exe.c_str(), argv.data());
  print(stderr, "error: cannot run " + exe + ": " + std::strerror(errno) + "\n");
  return 2;
}

}  // namespace perflint
