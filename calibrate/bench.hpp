// The micro-benchmarks of perflint-calibrate (docs/calibration.md). This header is free of LibTorch
// so that only bench.cpp pays for its headers.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "probe/calibration.hpp"

namespace perflint::calibrate {

struct Plan {
  bool cuda = false;
  bool tf32 = false;  // the device has TF32 tensor cores (compute capability 8.0+)
  bool quick = false;
  std::vector<probe::GemmShape> requested;  // --gemm shapes, measured after the standard ones
  int warmup = 3;
  int repetitions = 15;
  double sample_seconds = 0.01;  // a timed sample repeats the op until it lasts about this long
};

struct TorchFacts {
  std::string version;       // LibTorch
  int threads = 0;           // intra-op threads
  bool cuda_available = false;
  std::string cuda_runtime;  // "12.1" when LibTorch has CUDA
};
TorchFacts torch_facts();

// Runs the plan's benchmarks into `out`'s figures; one progress line per figure goes to `log`.
// A figure the device cannot produce (say, bf16 GEMM on an old GPU) is logged and left out.
void run_benchmarks(const Plan& plan, probe::Calibration& out, const std::function<void(const std::string&)>& log);

}  // namespace perflint::calibrate
