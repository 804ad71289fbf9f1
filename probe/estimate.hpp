// Estimated savings: what a fix would buy per step, from the probe's evidence and the device's
// calibration (`perflint calibrate`). Pure functions; each returns its number with a one-line
// formula naming every input, so that a printed figure is a measurement or a stated formula.
#pragma once
#include <optional>
#include <string>

#include "parser/expected.hpp"
#include "probe/calibration.hpp"
#include "probe/evidence.hpp"

namespace perflint::probe {

struct Estimate {
  double saving_ms = 0.0;  // per step, never negative
  std::string formula;     // e.g. "3.00 syncs/step x 12.0 us host-device round trip = 0.0360 ms"
};

// Copy bandwidth (GB/s, median) at `bytes` per copy: linear in log(bytes) between the two nearest
// measured sizes, the end point's figure outside the measured range. Error: no such copies.
Expected<double> copy_gbps(const Calibration& c, CopyMemory memory, double bytes);

// GEMM throughput (GFLOP/s, median) of `dtype` at the measured shape nearest to `shape` (distance:
// sum of squared log ratios of M, N, K) among the shapes measured in both fp32 and `dtype`.
struct GemmRatio {
  GemmShape shape;  // where it was measured
  double fp32_gflops = 0.0, other_gflops = 0.0;
};
// No shape (the evidence has none): the measured shape where `dtype` gains least over fp32, so that
// the estimate is a lower bound.
Expected<GemmRatio> gemm_ratio(const Calibration& c, GemmDtype dtype, std::optional<GemmShape> shape);

// Pinned memory: pageable_bytes x (1/bw_pageable(s) - 1/bw_pinned(s)), s = bytes per copy.
Expected<Estimate> estimate_pinned_saving(const Calibration& c, double pageable_bytes_per_step,
                                          double pageable_copies_per_step);
// Faster GEMM (TF32, bf16): fp32_gemm_ns x (1 - fp32_throughput / dtype_throughput).
Expected<Estimate> estimate_gemm_saving(const Calibration& c, GemmDtype dtype, double fp32_gemm_ns_per_step,
                                        std::optional<GemmShape> shape = std::nullopt);
// 16-bit precision (autocast to bf16) for GEMMs that ran in fp32 and in TF32: each part times
// (1 - its throughput / bf16 throughput), at the measured shape nearest `shape` (TF32 kernels gain
// far less than fp32 ones: on an H100 TF32 runs at half of bf16's rate, fp32 at a fourteenth).
Expected<Estimate> estimate_half_saving(const Calibration& c, double fp32_gemm_ns_per_step,
                                        double tf32_gemm_ns_per_step, std::optional<GemmShape> shape = std::nullopt);
// Host syncs removed: syncs x round-trip time.
Expected<Estimate> estimate_sync_saving(const Calibration& c, double syncs_per_step);
// Launches removed (CUDA graphs, fusion): launches x launch overhead.
Expected<Estimate> estimate_launch_saving(const Calibration& c, double launches_per_step);

// The same from traced evidence (the per-step means of the measured steps). The pageable copy
// count is not in the evidence: the synchronous H2D copies stand in for it (every pageable copy is
// one; the formula says so).
Expected<Estimate> estimate_pinned_saving(const Calibration& c, const Evidence& e);
// The GEMM shape that did the most work in the probed run (nn.Linear forwards), if the shim saw one.
std::optional<GemmShape> dominant_gemm(const Evidence& e);
// TF32 at the dominant observed shape (the nearest calibrated one), else the lower-bound fallback.
Expected<Estimate> estimate_tf32_saving(const Calibration& c, const Evidence& e);
Expected<Estimate> estimate_sync_saving(const Calibration& c, const Evidence& e);
Expected<Estimate> estimate_launch_saving(const Calibration& c, const Evidence& e);

}  // namespace perflint::probe
