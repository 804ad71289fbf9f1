// perflint-calibrate: measures this machine (calibrate/bench.cpp) and caches the figures as TOML
// (docs/calibration.md). Normally started by `perflint calibrate`, which validates the arguments
// and owns the help; this program accepts the same few options. Exit codes: 0 done, 2 usage/device/IO.
#include <dlfcn.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "calibrate/bench.hpp"
#include "probe/calibration.hpp"

namespace {

namespace fs = std::filesystem;
using perflint::probe::Calibration;

constexpr const char* kUsage =
    "usage: perflint-calibrate [--quick] [--device cpu|cuda] [--gemm MxNxK[,MxNxK...]] [--cache-dir DIR]\n"
    "Measures this machine for perflint's probe; `perflint calibrate --help` explains the options.\n";

struct Args {
  bool quick = false;
  std::string device;
  std::vector<perflint::probe::GemmShape> gemm;
  std::string cache_dir;
};

int usage_error(const std::string& message) {
  std::fprintf(stderr, "perflint-calibrate: error: %s\n%s", message.c_str(), kUsage);
  return 2;
}

// Returns 0 with `args` filled, -1 after --help, else the exit code of a usage error.
int parse_args(int argc, char** argv, Args& args) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i], value;
    const auto eq = a.find('=');
    if (eq != std::string::npos) {
      value = a.substr(eq + 1);
      a.resize(eq);
    }
    if (a == "--device" || a == "--gemm" || a == "--cache-dir") {
      if (eq == std::string::npos && i + 1 < argc) {
        value = argv[++i];
      } else if (eq == std::string::npos) {
        return usage_error(a + " needs a value");
      }
    } else if (eq != std::string::npos) {
      return usage_error("unknown argument '" + std::string(argv[i]) + "'");
    }
    if (a == "--help" || a == "-h") {
      std::fputs(kUsage, stdout);
      return -1;
    } else if (a == "--quick") {
      args.quick = true;
    } else if (a == "--device") {
      if (value != "cpu" && value != "cuda") return usage_error("--device must be cpu or cuda, got '" + value + "'");
      args.device = value;
    } else if (a == "--gemm") {
      for (size_t start = 0; start <= value.size();) {
        const size_t comma = std::min(value.find(',', start), value.size());
        const std::string item = value.substr(start, comma - start);
        const auto shape = perflint::probe::parse_gemm_shape(item);
        if (!shape) return usage_error("'" + item + "' is not a GEMM shape MxNxK (e.g. 4096x4096x4096)");
        args.gemm.push_back(*shape);
        start = comma + 1;
      }
    } else if (a == "--cache-dir") {
      if (value.empty()) return usage_error("--cache-dir needs a directory");
      args.cache_dir = value;
    } else {
      return usage_error("unknown argument '" + a + "'");
    }
  }
  return 0;
}

// As the probe's shim names the CPU (the same string finds the same calibration).
std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);)
    if (line.starts_with("model name"))
      if (const auto colon = line.find(':'); colon != std::string::npos) {
        const auto b = line.find_first_not_of(" \t", colon + 1);
        const auto e = line.find_last_not_of(" \t\r");
        return b == std::string::npos ? std::string("cpu") : line.substr(b, e - b + 1);
      }
  return "cpu";
}

// Device 0's name, compute capability and the driver's CUDA version, from the driver API (libcuda),
// loaded at run time so that no CUDA header or library is needed to build this program.
struct CudaDevice {
  std::string name, capability, driver;
};
CudaDevice cuda_device() {
  CudaDevice d;
  void* lib = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) return d;
  using Init = int (*)(unsigned);
  using IntOut = int (*)(int*);
  using Get = int (*)(int*, int);
  using Name = int (*)(char*, int, int);
  using Attribute = int (*)(int*, int, int);
  auto init = reinterpret_cast<Init>(::dlsym(lib, "cuInit"));
  auto version = reinterpret_cast<IntOut>(::dlsym(lib, "cuDriverGetVersion"));
  auto get = reinterpret_cast<Get>(::dlsym(lib, "cuDeviceGet"));
  auto name = reinterpret_cast<Name>(::dlsym(lib, "cuDeviceGetName"));
  auto attribute = reinterpret_cast<Attribute>(::dlsym(lib, "cuDeviceGetAttribute"));
  int dev = 0, v = 0, major = 0, minor = 0;
  char buf[256] = {};
  constexpr int kMajor = 75, kMinor = 76;  // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR/MINOR
  if (init && version && get && name && attribute && init(0) == 0 && get(&dev, 0) == 0) {
    if (version(&v) == 0) d.driver = std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
    if (name(buf, sizeof buf - 1, dev) == 0) d.name = buf;
    if (attribute(&major, kMajor, dev) == 0 && attribute(&minor, kMinor, dev) == 0)
      d.capability = std::to_string(major) + "." + std::to_string(minor);
  }
  return d;  // the library stays loaded: LibTorch uses it too
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  ::gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// Writes next to the target and renames, so that a reader never sees half a file.
bool write_atomically(const std::string& path, const std::string& text, std::string& error) {
  std::error_code ec;
  fs::create_directories(fs::path(path).parent_path(), ec);
  if (ec) {
    error = ec.message();
    return false;
  }
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out || !(out << text) || !out.flush()) {
      error = std::strerror(errno);
      return false;
    }
  }
  fs::rename(tmp, path, ec);
  if (ec) {
    error = ec.message();
    fs::remove(tmp, ec);
    return false;
  }
  return true;
}

int run(const Args& args) {
  const perflint::calibrate::TorchFacts torch = perflint::calibrate::torch_facts();
  const bool cuda = args.device == "cuda" || (args.device.empty() && torch.cuda_available);
  if (cuda && !torch.cuda_available) {
    std::fprintf(stderr,
                 "perflint-calibrate: error: no CUDA device: LibTorch %s reports none (a CPU-only LibTorch such as "
                 "Debian's libtorch-dev, no GPU, or no driver); use --device cpu, or build perflint against a CUDA "
                 "PyTorch's LibTorch\n",
                 torch.version.c_str());
    return 2;
  }
  Calibration c;
  c.device_kind = cuda ? "cuda" : "cpu";
  c.cpu_model = cpu_model();
  c.device_name = c.cpu_model;
  c.threads = torch.threads;
  c.libtorch = torch.version;
  c.date = utc_now();
  c.quick = args.quick;
  perflint::calibrate::Plan plan;
  plan.cuda = cuda;
  plan.quick = args.quick;
  plan.requested = args.gemm;
  if (args.quick) {
    plan.warmup = 1;
    plan.repetitions = 5;
    plan.sample_seconds = 0.002;
  }
  if (cuda) {
    const CudaDevice d = cuda_device();
    c.device_name = d.name.empty() ? "cuda" : d.name;
    c.capability = d.capability;
    c.cuda_driver = d.driver;
    c.cuda_runtime = torch.cuda_runtime;
    plan.tf32 = !d.capability.empty() && std::stoi(d.capability) >= 8;
  }
  c.warmup = plan.warmup;
  c.repetitions = plan.repetitions;

  std::printf("perflint-calibrate: %s \"%s\", LibTorch %s, %d thread%s%s\n", c.device_kind.c_str(),
              c.device_name.c_str(), c.libtorch.c_str(), c.threads, c.threads == 1 ? "" : "s",
              args.quick ? " (--quick)" : "");
  std::fflush(stdout);
  perflint::calibrate::run_benchmarks(plan, c, [](const std::string& line) {
    std::printf("  %s\n", line.c_str());
    std::fflush(stdout);
  });

  const std::string path = perflint::probe::calibration_path(c.slug(), args.cache_dir);
  std::string error;
  if (!write_atomically(path, perflint::probe::format_calibration(c), error)) {
    std::fprintf(stderr, "perflint-calibrate: error: cannot write %s: %s\n", path.c_str(), error.c_str());
    return 2;
  }
  std::printf("wrote %s (`perflint calibrate --show` prints it)\n", path.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Args args;
  if (const int code = parse_args(argc, argv, args); code != 0) return code < 0 ? 0 : code;
  try {
    return run(args);
  } catch (const std::exception& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "perflint-calibrate: error: %s\n", e.what());
    return 2;
  }
}
