// A complete synthetic CUDA calibration for the calibration and `calibrate --show` tests.
#pragma once
#include "probe/calibration.hpp"

namespace perflint::testing {

inline probe::Calibration sample_cuda_calibration() {
  using probe::CopyMemory;
  using probe::GemmDtype;
  probe::Calibration c;
  c.device_kind = "cuda";
  c.device_name = "NVIDIA H100 80GB HBM3";
  c.capability = "9.0";
  c.cpu_model = "AMD EPYC \"9654\"";  // a quote: the writer must escape it
  c.threads = 16;
  c.libtorch = "2.3.0";
  c.cuda_runtime = "12.1";
  c.cuda_driver = "12.4";
  c.date = "2025-05-01T10:00:00Z";
  c.warmup = 3;
  c.repetitions = 15;
  c.copies = {{CopyMemory::Pageable, 4096, {0.9, 0.8, 1.0}}, {CopyMemory::Pinned, 4096, {1.5, 1.4, 1.6}}};
  c.gemms = {{GemmDtype::Fp32, {4096, 4096, 4096}, false, {50000, 49000, 51000}},
             {GemmDtype::Tf32, {4096, 4096, 4096}, false, {400000, 390000, 410000}},
             {GemmDtype::Bf16, {8192, 1024, 4096}, true, {600000, 590000, 610000}}};
  c.sync_us = probe::Spread{12.0, 11.0, 14.0};
  c.launch_us = probe::Spread{4.5, 4.0, 5.0};
  return c;
}

}  // namespace perflint::testing
