// Estimated savings (probe/estimate) on a synthetic calibration and synthetic GPU evidence: the
// interpolation, the nearest-shape choice and its fallback, the formulas' values and texts.
#include "probe/estimate.hpp"

#include <gtest/gtest.h>

#include "cli_support.hpp"

namespace perflint::probe {
namespace {

using perflint::testing::contains;

Spread at(double v) { return Spread{v, v * 0.9, v * 1.1}; }

Calibration gpu() {
  Calibration c;
  c.device_kind = "cuda";
  c.device_name = "Test GPU";
  // Listed out of order: the interpolation sorts by size.
  c.copies = {{CopyMemory::Pageable, 1048576, at(10.0)}, {CopyMemory::Pageable, 4096, at(1.0)},
              {CopyMemory::Pageable, 65536, at(4.0)},    {CopyMemory::Pinned, 4096, at(2.0)},
              {CopyMemory::Pinned, 65536, at(10.0)},     {CopyMemory::Pinned, 1048576, at(20.0)}};
  c.gemms = {{GemmDtype::Fp32, {1024, 1024, 1024}, false, at(20000)},
             {GemmDtype::Tf32, {1024, 1024, 1024}, false, at(80000)},
             {GemmDtype::Fp32, {4096, 4096, 4096}, false, at(50000)},
             {GemmDtype::Tf32, {4096, 4096, 4096}, false, at(400000)},
             {GemmDtype::Bf16, {4096, 4096, 4096}, false, at(600000)}};
  c.sync_us = at(12.0);
  c.launch_us = at(4.5);
  return c;
}

Calibration cpu() {
  Calibration c;
  c.device_name = "Test CPU";
  c.copies = {{CopyMemory::Host, 65536, at(30.0)}};
  c.gemms = {{GemmDtype::Fp32, {512, 512, 512}, false, at(8)}, {GemmDtype::Bf16, {512, 512, 512}, false, at(400)}};
  c.launch_us = at(1.5);
  return c;
}

TEST(Estimate, CopyBandwidthInterpolatesInLogSizeAndClampsOutside) {
  const Calibration c = gpu();
  // 16 KiB is halfway between 4 KiB and 64 KiB in log(size).
  EXPECT_NEAR(*copy_gbps(c, CopyMemory::Pageable, 16384), 2.5, 1e-12);
  EXPECT_NEAR(*copy_gbps(c, CopyMemory::Pinned, 16384), 6.0, 1e-12);
  EXPECT_NEAR(*copy_gbps(c, CopyMemory::Pageable, 65536), 4.0, 1e-12);
  EXPECT_NEAR(*copy_gbps(c, CopyMemory::Pageable, 262144), 7.0, 1e-12);  // halfway between 64 KiB and 1 MiB
  EXPECT_NEAR(*copy_gbps(c, CopyMemory::Pageable, 100), 1.0, 1e-12);
  EXPECT_NEAR(*copy_gbps(c, CopyMemory::Pinned, 1e10), 20.0, 1e-12);
  auto none = copy_gbps(c, CopyMemory::Host, 4096);
  ASSERT_FALSE(none.ok());
  EXPECT_TRUE(contains(none.error().message, "the calibration of Test GPU has no host copy figures"))
      << none.error().message;
}

TEST(Estimate, PinnedSavingPricesTheBytesAtBothBandwidths) {
  const Calibration c = gpu();
  // One 1 MiB copy: 1048576 B x (1/10 - 1/20) s/GB = 52428.8 ns.
  auto one = estimate_pinned_saving(c, 1048576, 1);
  ASSERT_TRUE(one.ok()) << one.error().message;
  EXPECT_NEAR(one->saving_ms, 0.0524288, 1e-9);
  // The same bytes in 64 copies of 16 KiB: 1048576 x (1/2.5 - 1/6) ns.
  auto many = estimate_pinned_saving(c, 1048576, 64);
  ASSERT_TRUE(many.ok());
  EXPECT_NEAR(many->saving_ms, 1048576 * (1 / 2.5 - 1 / 6.0) / 1e6, 1e-9);
  EXPECT_TRUE(contains(many->formula, "1 MiB/step from pageable memory in 64.0 copies of 16 KiB")) << many->formula;
  EXPECT_TRUE(contains(many->formula, "(1/2.50 - 1/6.00) s/GB")) << many->formula;
  EXPECT_TRUE(contains(many->formula, "= 0.245 ms")) << many->formula;
  // No count: one copy.
  EXPECT_NEAR(estimate_pinned_saving(c, 1048576, 0)->saving_ms, 0.0524288, 1e-9);
  auto nothing = estimate_pinned_saving(c, 0, 0);
  ASSERT_TRUE(nothing.ok());
  EXPECT_EQ(nothing->saving_ms, 0.0);
  EXPECT_TRUE(contains(nothing->formula, "nothing to save"));
  EXPECT_FALSE(estimate_pinned_saving(cpu(), 1048576, 1).ok());
}

TEST(Estimate, GemmSavingUsesTheNearestMeasuredShape) {
  const Calibration c = gpu();
  // Nearest to 3000^3 is 4096^3: 4 ms x (1 - 50000/400000).
  auto big = estimate_gemm_saving(c, GemmDtype::Tf32, 4e6, GemmShape{3000, 3000, 3000});
  ASSERT_TRUE(big.ok()) << big.error().message;
  EXPECT_NEAR(big->saving_ms, 3.5, 1e-12);
  EXPECT_TRUE(
      contains(big->formula, "4.00 ms/step of fp32 GEMM x (1 - 50000/400000 GFLOP/s fp32/tf32 at 4096x4096x4096"))
      << big->formula;
  // Nearest to 1100^3 is 1024^3: 4 ms x (1 - 20000/80000).
  EXPECT_NEAR(estimate_gemm_saving(c, GemmDtype::Tf32, 4e6, GemmShape{1100, 1100, 1100})->saving_ms, 3.0, 1e-12);
  // A skinny shape: distance in log space per dimension, 4096x4096x64 is nearer 1024^3 than 4096^3.
  EXPECT_EQ(gemm_ratio(c, GemmDtype::Tf32, GemmShape{4096, 4096, 64})->shape, (GemmShape{1024, 1024, 1024}));
  // bf16 was measured at 4096^3 only: the one candidate, however far.
  EXPECT_NEAR(estimate_gemm_saving(c, GemmDtype::Bf16, 4e6, GemmShape{128, 128, 128})->saving_ms,
              4.0 * (1 - 50000.0 / 600000.0), 1e-12);
}

TEST(Estimate, HalfPrecisionSavingWeighsTf32KernelsAtTheirOwnRate) {
  const Calibration c = gpu();
  // 4096^3: fp32 50000, tf32 400000, bf16 600000 GFLOP/s. 2 ms of fp32 GEMM and 6 ms of TF32 GEMM:
  // 2 x (1 - 50000/600000) + 6 x (1 - 400000/600000) = 1.8333 + 2 ms.
  auto est = estimate_half_saving(c, 2e6, 6e6, GemmShape{4096, 4096, 4096});
  ASSERT_TRUE(est.ok()) << est.error().message;
  EXPECT_NEAR(est->saving_ms, 2.0 * (1 - 50000.0 / 600000.0) + 6.0 * (1 - 400000.0 / 600000.0), 1e-12);
  EXPECT_TRUE(contains(est->formula, "6.00 ms/step of TF32 GEMM x (1 - 400000/600000)")) << est->formula;
  // Without TF32 kernels: the fp32 formula.
  EXPECT_NEAR(estimate_half_saving(c, 2e6, 0.0)->saving_ms, 2.0 * (1 - 50000.0 / 600000.0), 1e-12);
  // TF32 time but no TF32 figure where bf16 was measured: no estimate (the upper bound stands).
  Calibration no_tf32 = c;
  std::erase_if(no_tf32.gemms, [](const auto& g) { return g.dtype == GemmDtype::Tf32; });
  EXPECT_FALSE(estimate_half_saving(no_tf32, 2e6, 6e6).ok());
}

TEST(Estimate, GemmSavingWithoutAShapeIsTheLowerBound) {
  auto est = estimate_gemm_saving(gpu(), GemmDtype::Tf32, 4e6);
  ASSERT_TRUE(est.ok());
  EXPECT_NEAR(est->saving_ms, 3.0, 1e-12);  // 1024^3 gains 4x, 4096^3 8x: the smaller gain
  EXPECT_TRUE(contains(est->formula, "the smallest tf32 gain measured (no GEMM shape known)")) << est->formula;
  // A precision slower than fp32 saves nothing rather than something negative.
  Calibration slow = gpu();
  slow.gemms = {{GemmDtype::Fp32, {64, 64, 64}, false, at(100)}, {GemmDtype::Bf16, {64, 64, 64}, false, at(50)}};
  EXPECT_EQ(estimate_gemm_saving(slow, GemmDtype::Bf16, 4e6)->saving_ms, 0.0);
}

TEST(Estimate, MissingFiguresAreErrorsThatSaySo) {
  auto tf32 = estimate_gemm_saving(cpu(), GemmDtype::Tf32, 4e6);
  ASSERT_FALSE(tf32.ok());
  EXPECT_TRUE(contains(tf32.error().message, "no shape measured in both fp32 and tf32")) << tf32.error().message;
  EXPECT_NEAR(estimate_gemm_saving(cpu(), GemmDtype::Bf16, 4e6)->saving_ms, 4.0 * (1 - 8.0 / 400.0), 1e-12);
  auto sync = estimate_sync_saving(cpu(), 3.0);
  ASSERT_FALSE(sync.ok());
  EXPECT_TRUE(contains(sync.error().message, "has no host-device round trip")) << sync.error().message;
  EXPECT_FALSE(estimate_launch_saving(Calibration{}, 10.0).ok());
}

TEST(Estimate, SyncAndLaunchSavings) {
  auto sync = estimate_sync_saving(gpu(), 3.0);
  ASSERT_TRUE(sync.ok());
  EXPECT_NEAR(sync->saving_ms, 0.036, 1e-12);
  EXPECT_EQ(sync->formula, "3.00 syncs/step x 12.0 us host-device round trip = 0.0360 ms");
  auto launch = estimate_launch_saving(gpu(), 850.0);
  ASSERT_TRUE(launch.ok());
  EXPECT_NEAR(launch->saving_ms, 3.825, 1e-12);
  EXPECT_TRUE(contains(launch->formula, "850 launches/step x 4.50 us per kernel launch")) << launch->formula;
  EXPECT_TRUE(contains(estimate_launch_saving(cpu(), 100.0)->formula, "us per op dispatch"));
}

TEST(Estimate, FromTracedEvidenceUsesTheMeansOfTheMeasuredSteps) {
  Evidence e;
  e.device_kind = "cuda";
  GpuStep a, b;
  a.h2d_pageable_bytes = 1048576, b.h2d_pageable_bytes = 3 * 1048576;
  a.h2d_sync_copies = 1, b.h2d_sync_copies = 3;  // 2 copies of 1 MiB per step on average
  a.syncs = 2, b.syncs = 4;
  a.launches = 800, b.launches = 900;
  a.fp32_gemm_ns = b.fp32_gemm_ns = 4e6;
  e.gpu_steps = {a, b};
  const Calibration c = gpu();
  auto pinned = estimate_pinned_saving(c, e);
  ASSERT_TRUE(pinned.ok()) << pinned.error().message;
  EXPECT_NEAR(pinned->saving_ms, 2 * 0.0524288, 1e-9);
  EXPECT_TRUE(contains(pinned->formula, "the synchronous host-to-device copies per step")) << pinned->formula;
  EXPECT_NEAR(estimate_sync_saving(c, e)->saving_ms, 0.036, 1e-12);
  EXPECT_NEAR(estimate_launch_saving(c, e)->saving_ms, 3.825, 1e-12);
  EXPECT_NEAR(estimate_tf32_saving(c, e)->saving_ms, 3.0, 1e-12);  // no shape seen: the lower bound
  // The shim saw the model's nn.Linear GEMMs: the dominant one (first) picks the calibrated shape.
  e.gemm_shapes = {{3000, 3000, 3000, 10}, {64, 64, 64, 100}};
  EXPECT_NEAR(estimate_tf32_saving(c, e)->saving_ms, 3.5, 1e-12);  // at 4096^3: 4 ms x (1 - 1/8)

  Evidence untraced;
  untraced.device_kind = "cuda";
  auto none = estimate_tf32_saving(c, untraced);
  ASSERT_FALSE(none.ok());
  EXPECT_TRUE(contains(none.error().message, "not traced on the GPU")) << none.error().message;
}

}  // namespace
}  // namespace perflint::probe
