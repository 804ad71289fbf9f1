// The micro-benchmarks, with LibTorch's public API only (1.13 and 2.x): copies over sizes, GEMM per
// precision, the sync round trip and the cost of a tiny op. The CUDA branches compile against a
// CPU-only LibTorch and are chosen at run time (torch::cuda::is_available()).
#include "calibrate/bench.hpp"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <ATen/detail/CUDAHooksInterface.h>
#include <torch/cuda.h>
#include <torch/version.h>

#include <algorithm>
#include <chrono>
#include <cmath>

namespace perflint::calibrate {

namespace {

using probe::CopyMemory;
using probe::GemmDtype;
using probe::GemmShape;
using probe::Spread;

constexpr uint64_t KiB = 1024, MiB = 1024 * 1024;

// Sizes span latency-bound to bandwidth-bound copies; the estimates interpolate between them.
std::vector<uint64_t> copy_sizes(bool quick) {
  if (quick) return {4 * KiB, 64 * KiB, 1 * MiB, 16 * MiB};
  return {4 * KiB, 16 * KiB, 64 * KiB, 256 * KiB, 1 * MiB, 4 * MiB, 16 * MiB, 64 * MiB, 256 * MiB};
}

// Square shapes: on a GPU from kernel-launch-bound to compute-bound; on a CPU small enough that the
// reference BLAS of a distribution's LibTorch still finishes in seconds.
std::vector<GemmShape> standard_shapes(bool cuda, bool quick) {
  std::vector<int64_t> sides;
  if (cuda)
    sides = quick ? std::vector<int64_t>{1024, 4096} : std::vector<int64_t>{1024, 2048, 4096, 8192};
  else
    sides = quick ? std::vector<int64_t>{256, 512} : std::vector<int64_t>{256, 512, 1024};
  std::vector<GemmShape> out;
  for (const int64_t s : sides) out.push_back({s, s, s});
  return out;
}

std::string size_text(uint64_t bytes) {
  return bytes >= MiB ? std::to_string(bytes / MiB) + " MiB" : std::to_string(bytes / KiB) + " KiB";
}

class Timer {
 public:
  explicit Timer(const Plan& plan) : plan_(plan) {}

  // Seconds per op, one sample per repetition. Each sample runs `op` enough times to last about
  // plan.sample_seconds (sized by a first, untimed run), with the device synchronised before and
  // after so that queued GPU work is inside the sample; warm-up samples are discarded.
  template <typename Op>
  std::vector<double> seconds_per_op(Op&& op) const {
    const double once = sample(op, 1);  // first call: lazy initialisation, allocator warm-up
    const int inner =
        static_cast<int>(std::clamp(std::ceil(plan_.sample_seconds / std::max(once, 1e-9)), 1.0, 100000.0));
    for (int i = 0; i < plan_.warmup; ++i) sample(op, inner);
    std::vector<double> out;
    for (int i = 0; i < plan_.repetitions; ++i) out.push_back(sample(op, inner));
    return out;
  }

 private:
  void sync() const {
    if (plan_.cuda) torch::cuda::synchronize();
  }
  template <typename Op>
  double sample(Op& op, int inner) const {
    sync();
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < inner; ++i) op();
    sync();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / inner;
  }

  const Plan& plan_;
};

// Each sample's `work / seconds`, summarised.
Spread rate(const std::vector<double>& seconds, double work) {
  std::vector<double> r;
  for (const double s : seconds) r.push_back(work / std::max(s, 1e-12));
  return probe::spread_of(std::move(r));
}

Spread microseconds(const std::vector<double>& seconds) {
  std::vector<double> us;
  for (const double s : seconds) us.push_back(s * 1e6);
  return probe::spread_of(std::move(us));
}

void copies(const Plan& plan, const Timer& timer, probe::Calibration& out,
            const std::function<void(const std::string&)>& log) {
  const at::TensorOptions host = at::TensorOptions().dtype(at::kByte);
  const std::vector<CopyMemory> kinds =
      plan.cuda ? std::vector{CopyMemory::Pageable, CopyMemory::Pinned} : std::vector{CopyMemory::Host};
  for (const uint64_t bytes : copy_sizes(plan.quick)) {
    const auto n = static_cast<int64_t>(bytes);
    const at::Tensor dst = plan.cuda ? at::empty({n}, host.device(at::kCUDA)) : at::empty({n}, host);
    for (const CopyMemory kind : kinds) {
      // Zero-filled so that every page is resident before timing.
      at::Tensor src = at::zeros({n}, host.pinned_memory(kind == CopyMemory::Pinned));
      at::Tensor d = dst;
      // Pinned copies are issued as training loops do (non_blocking=True); a pageable copy is
      // synchronous whatever the flag says.
      const bool non_blocking = kind == CopyMemory::Pinned;
      const Spread gbps =
          rate(timer.seconds_per_op([&] { d.copy_(src, non_blocking); }), static_cast<double>(bytes) / 1e9);
      out.copies.push_back({kind, bytes, gbps});
      log(std::string(plan.cuda ? "copy H2D " : "memcpy ") + std::string(to_string(kind)) + " " + size_text(bytes) +
          ": " + probe::format_spread(gbps) + " GB/s");
    }
  }
}

void gemms(const Plan& plan, const Timer& timer, probe::Calibration& out,
           const std::function<void(const std::string&)>& log) {
  std::vector<std::pair<GemmShape, bool>> shapes;
  for (const auto& s : standard_shapes(plan.cuda, plan.quick)) shapes.emplace_back(s, false);
  for (const auto& s : plan.requested) shapes.emplace_back(s, true);
  std::vector<GemmDtype> dtypes{GemmDtype::Fp32};
  if (plan.tf32) dtypes.push_back(GemmDtype::Tf32);
  dtypes.push_back(GemmDtype::Bf16);

  at::Context& ctx = at::globalContext();
  const bool tf32_before = ctx.allowTF32CuBLAS();
  const at::Device device = plan.cuda ? at::Device(at::kCUDA) : at::Device(at::kCPU);
  for (const auto& [shape, requested] : shapes) {
    for (const GemmDtype dtype : dtypes) {
      const std::string what = "gemm " + std::string(to_string(dtype)) + " " + probe::to_string(shape);
      try {
        const at::ScalarType st = dtype == GemmDtype::Bf16 ? at::kBFloat16 : at::kFloat;
        const at::TensorOptions opts = at::TensorOptions().device(device);
        const at::Tensor a = at::randn({shape.m, shape.k}, opts).to(st);
        const at::Tensor b = at::randn({shape.k, shape.n}, opts).to(st);
        at::Tensor c = at::empty({shape.m, shape.n}, opts.dtype(st));
        ctx.setAllowTF32CuBLAS(dtype == GemmDtype::Tf32);
        const double gflop =
            2.0 * static_cast<double>(shape.m) * static_cast<double>(shape.n) * static_cast<double>(shape.k) / 1e9;
        const Spread gflops = rate(timer.seconds_per_op([&] { at::mm_out(c, a, b); }), gflop);
        ctx.setAllowTF32CuBLAS(tf32_before);
        out.gemms.push_back({dtype, shape, requested, gflops});
        log(what + ": " + probe::format_spread(gflops) + " GFLOP/s");
      } catch (const std::exception& e) {
        ctx.setAllowTF32CuBLAS(tf32_before);
        const std::string msg = e.what();
        log(what + ": skipped (" + msg.substr(0, msg.find('\n')) + ")");
      }
    }
  }
}

void latencies(const Plan& plan, const Timer& timer, probe::Calibration& out,
               const std::function<void(const std::string&)>& log) {
  const at::Tensor x = at::zeros({1}, at::TensorOptions().device(plan.cuda ? at::kCUDA : at::kCPU));
  if (plan.cuda) {
    // What `.item()` costs on an idle GPU: a device-to-host copy and the wait for it.
    out.sync_us = microseconds(timer.seconds_per_op([&] { (void)x.item<float>(); }));
    log("host-device sync round trip: " + probe::format_spread(*out.sync_us) + " us");
  }
  // Many tiny in-place adds between two syncs: per op, the host's dispatch and (CUDA) launch cost.
  at::Tensor z = x;
  out.launch_us = microseconds(timer.seconds_per_op([&] { z.add_(1.0); }));
  log(std::string(plan.cuda ? "kernel launch" : "op dispatch") + " (tiny op): " + probe::format_spread(*out.launch_us) +
      " us");
}

}  // namespace

TorchFacts torch_facts() {
  TorchFacts f;
  f.version = TORCH_VERSION;
  f.threads = at::get_num_threads();
  f.cuda_available = torch::cuda::is_available();
  if (f.cuda_available) {
    const long v = at::detail::getCUDAHooks().versionCUDART();  // 12010 -> "12.1"
    f.cuda_runtime = std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
  }
  return f;
}

void run_benchmarks(const Plan& plan, probe::Calibration& out, const std::function<void(const std::string&)>& log) {
  const Timer timer(plan);
  copies(plan, timer, out, log);
  gemms(plan, timer, out, log);
  latencies(plan, timer, out, log);
}

}  // namespace perflint::calibrate
