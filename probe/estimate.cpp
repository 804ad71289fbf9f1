// Savings from evidence x calibration (docs/calibration.md, "Estimates"). The formulas are the
// simple ones the figures support: they price what the fix removes, at this device's measured rates.
#include "probe/estimate.hpp"

#include <algorithm>
#include <cmath>

#include "util/byte_size.hpp"

namespace perflint::probe {

namespace {

std::string num(double v) { return format_figure(v); }

std::string bytes_text(double bytes) {
  return format_byte_size(static_cast<uint64_t>(std::llround(std::max(0.0, bytes))));
}

std::string device_of(const Calibration& c) {
  return "the calibration of " + (c.device_name.empty() ? c.device_kind : c.device_name) +
         (c.path.empty() ? std::string() : " (" + c.path + ")");
}

Estimate make(double ms, std::string formula) { return Estimate{std::max(0.0, ms), std::move(formula)}; }

double log_distance(const GemmShape& a, const GemmShape& b) {
  auto d = [](int64_t x, int64_t y) { return std::log(static_cast<double>(x) / static_cast<double>(y)); };
  return d(a.m, b.m) * d(a.m, b.m) + d(a.n, b.n) * d(a.n, b.n) + d(a.k, b.k) * d(a.k, b.k);
}

std::optional<Error> untraced(const Evidence& e) {
  if (e.gpu_traced()) return std::nullopt;
  return make_error("the run was not traced on the GPU (no CUPTI activity in the evidence)");
}

}  // namespace

Expected<double> copy_gbps(const Calibration& c, CopyMemory memory, double bytes) {
  std::vector<const CopyPoint*> pts;
  for (const auto& p : c.copies)
    if (p.memory == memory && p.bytes > 0 && p.gbps.median > 0.0) pts.push_back(&p);
  if (pts.empty())
    return make_error(device_of(c) + " has no " + std::string(to_string(memory)) + " copy figures" +
                      (memory == CopyMemory::Host ? "" : " (host-to-device copies are measured on CUDA devices)"));
  std::stable_sort(pts.begin(), pts.end(), [](const CopyPoint* a, const CopyPoint* b) { return a->bytes < b->bytes; });
  if (bytes <= static_cast<double>(pts.front()->bytes)) return pts.front()->gbps.median;
  if (bytes >= static_cast<double>(pts.back()->bytes)) return pts.back()->gbps.median;
  size_t i = 1;
  while (static_cast<double>(pts[i]->bytes) < bytes) ++i;
  const double x0 = std::log(static_cast<double>(pts[i - 1]->bytes)), x1 = std::log(static_cast<double>(pts[i]->bytes));
  const double t = (std::log(bytes) - x0) / (x1 - x0);
  return pts[i - 1]->gbps.median + t * (pts[i]->gbps.median - pts[i - 1]->gbps.median);
}

Expected<GemmRatio> gemm_ratio(const Calibration& c, GemmDtype dtype, std::optional<GemmShape> shape) {
  std::vector<GemmRatio> pairs;
  for (const auto& f : c.gemms) {
    if (f.dtype != GemmDtype::Fp32 || f.gflops.median <= 0.0) continue;
    for (const auto& o : c.gemms)
      if (o.dtype == dtype && o.shape == f.shape && o.gflops.median > 0.0) {
        pairs.push_back({f.shape, f.gflops.median, o.gflops.median});
        break;
      }
  }
  if (pairs.empty())
    return make_error(device_of(c) + " has no shape measured in both fp32 and " + std::string(to_string(dtype)) +
                      (dtype == GemmDtype::Tf32 ? " (TF32 is measured on CUDA devices)" : ""));
  auto better = [&](const GemmRatio& a, const GemmRatio& b) {
    if (shape) return log_distance(a.shape, *shape) < log_distance(b.shape, *shape);
    return a.fp32_gflops / a.other_gflops > b.fp32_gflops / b.other_gflops;  // the least gain
  };
  return *std::min_element(pairs.begin(), pairs.end(), better);
}

Expected<Estimate> estimate_half_saving(const Calibration& c, double fp32_ns, double tf32_ns,
                                        std::optional<GemmShape> shape) {
  if (tf32_ns <= 0.0) return estimate_gemm_saving(c, GemmDtype::Bf16, fp32_ns, shape);
  auto r = gemm_ratio(c, GemmDtype::Bf16, shape);
  if (!r) return r.error();
  double tf32_gflops = 0.0;
  for (const auto& g : c.gemms)
    if (g.dtype == GemmDtype::Tf32 && g.shape == r->shape && g.gflops.median > 0.0) tf32_gflops = g.gflops.median;
  if (tf32_gflops <= 0.0)
    return make_error(device_of(c) + " has no TF32 figure at " + to_string(r->shape) + ", where bf16 was measured");
  const double fp32_ms = fp32_ns / 1e6, tf32_ms = tf32_ns / 1e6;
  const double ms = fp32_ms * (1.0 - r->fp32_gflops / r->other_gflops) +
                    tf32_ms * std::max(0.0, 1.0 - tf32_gflops / r->other_gflops);
  return make(ms, num(fp32_ms) + " ms/step of fp32 GEMM x (1 - " + num(r->fp32_gflops) + "/" + num(r->other_gflops) +
                      ") + " + num(tf32_ms) + " ms/step of TF32 GEMM x (1 - " + num(tf32_gflops) + "/" +
                      num(r->other_gflops) + ") GFLOP/s fp32, tf32/bf16 at " + to_string(r->shape) +
                      (shape ? ", the measured shape nearest " + to_string(*shape) : ", the smallest bf16 gain measured") +
                      " = " + num(std::max(0.0, ms)) + " ms");
}

Expected<Estimate> estimate_pinned_saving(const Calibration& c, double bytes, double copies) {
  if (bytes <= 0.0) return make(0.0, "no host-to-device copy from pageable memory per step: nothing to save");
  const double n = std::max(1.0, copies);
  const double size = bytes / n;
  auto pageable = copy_gbps(c, CopyMemory::Pageable, size);
  if (!pageable) return pageable.error();
  auto pinned = copy_gbps(c, CopyMemory::Pinned, size);
  if (!pinned) return pinned.error();
  // bytes / (GB/s) is nanoseconds.
  const double ms = bytes * (1.0 / *pageable - 1.0 / *pinned) / 1e6;
  return make(ms, bytes_text(bytes) + "/step from pageable memory in " + num(n) + " copies of " + bytes_text(size) +
                      " x (1/" + num(*pageable) + " - 1/" + num(*pinned) +
                      ") s/GB (pageable, pinned host-to-device bandwidth at that size) = " + num(std::max(0.0, ms)) +
                      " ms");
}

Expected<Estimate> estimate_gemm_saving(const Calibration& c, GemmDtype dtype, double fp32_ns,
                                        std::optional<GemmShape> shape) {
  auto r = gemm_ratio(c, dtype, shape);
  if (!r) return r.error();
  const double fp32_ms = fp32_ns / 1e6;
  const double ms = fp32_ms * (1.0 - r->fp32_gflops / r->other_gflops);
  const std::string where = shape ? "at " + to_string(r->shape) + ", the measured shape nearest " + to_string(*shape)
                                  : "at " + to_string(r->shape) + ", the smallest " + std::string(to_string(dtype)) +
                                        " gain measured (no GEMM shape known)";
  return make(ms, num(fp32_ms) + " ms/step of fp32 GEMM x (1 - " + num(r->fp32_gflops) + "/" + num(r->other_gflops) +
                      " GFLOP/s fp32/" + std::string(to_string(dtype)) + " " + where + ") = " + num(std::max(0.0, ms)) +
                      " ms");
}

Expected<Estimate> estimate_sync_saving(const Calibration& c, double syncs) {
  if (!c.sync_us) return make_error(device_of(c) + " has no host-device round trip (measured on CUDA devices)");
  const double ms = syncs * c.sync_us->median / 1e3;
  return make(
      ms, num(syncs) + " syncs/step x " + num(c.sync_us->median) + " us host-device round trip = " + num(ms) + " ms");
}

Expected<Estimate> estimate_launch_saving(const Calibration& c, double launches) {
  if (!c.launch_us) return make_error(device_of(c) + " has no launch overhead figure");
  const double ms = launches * c.launch_us->median / 1e3;
  const char* what = c.device_kind == "cuda" ? " us per kernel launch = " : " us per op dispatch = ";
  return make(ms, num(launches) + " launches/step x " + num(c.launch_us->median) + what + num(ms) + " ms");
}

Expected<Estimate> estimate_pinned_saving(const Calibration& c, const Evidence& e) {
  if (auto err = untraced(e)) return *err;
  auto est = estimate_pinned_saving(c, e.gpu_mean(&GpuStep::h2d_pageable_bytes), e.gpu_mean(&GpuStep::h2d_sync_copies));
  if (est && e.gpu_mean(&GpuStep::h2d_pageable_bytes) > 0.0)
    est->formula += " (copies: the synchronous host-to-device copies per step)";
  return est;
}

std::optional<GemmShape> dominant_gemm(const Evidence& e) {
  if (e.gemm_shapes.empty()) return std::nullopt;
  const auto& g = e.gemm_shapes.front();
  return GemmShape{g.m, g.n, g.k};
}

Expected<Estimate> estimate_tf32_saving(const Calibration& c, const Evidence& e) {
  if (auto err = untraced(e)) return *err;
  return estimate_gemm_saving(c, GemmDtype::Tf32, e.gpu_mean(&GpuStep::fp32_gemm_ns), dominant_gemm(e));
}

Expected<Estimate> estimate_sync_saving(const Calibration& c, const Evidence& e) {
  if (auto err = untraced(e)) return *err;
  return estimate_sync_saving(c, e.gpu_mean(&GpuStep::syncs));
}

Expected<Estimate> estimate_launch_saving(const Calibration& c, const Evidence& e) {
  if (auto err = untraced(e)) return *err;
  return estimate_launch_saving(c, e.gpu_mean(&GpuStep::launches));
}

}  // namespace perflint::probe
