// The CUPTI library's aggregation, driven by synthetic activity records (no GPU needed): kernel
// classes from cuBLAS/CUTLASS/cuDNN names, bucketing by step marks, busy time as a union, copies.
#include <gtest/gtest.h>

#include "probe/cupti/aggregate.hpp"
#include "probe/json_read.hpp"

namespace perflint::cupti {
namespace {

TEST(CuptiClassify, KernelNames) {
  EXPECT_EQ(classify_kernel("volta_sgemm_128x64_nn"), KernelClass::Fp32Gemm);
  EXPECT_EQ(classify_kernel("ampere_sgemm_64x32_sliced1x4_tn"), KernelClass::Fp32Gemm);
  EXPECT_EQ(classify_kernel("cutlass_80_tensorop_s1688tf32gemm_256x128_16x3_nn_align4"), KernelClass::Tf32Gemm);
  EXPECT_EQ(classify_kernel("ampere_bf16_s16816gemm_bf16_128x256_ldg8_f2f_stages_64x3_tn"), KernelClass::Half16Gemm);
  EXPECT_EQ(classify_kernel("volta_h884gemm_64x64_ldg8_nn"), KernelClass::Half16Gemm);
  EXPECT_EQ(classify_kernel("ampere_s1688gemm_64x64_sliced1x4_ldg4_tn"), KernelClass::Tf32Gemm);
  EXPECT_EQ(classify_kernel("sm80_xmma_fprop_implicit_gemm_tf32f32_tf32f32_f32_nhwckrsc_nchw"), KernelClass::Conv);
  EXPECT_EQ(classify_kernel("cudnn::detail::implicit_convolve_sgemm<float, float, 1024, 5, 5, 3, 3, 3, 1, true>"),
            KernelClass::Conv);
  EXPECT_EQ(classify_kernel("flash_fwd_kernel<Flash_fwd_kernel_traits<64, 128, 128, 4>>"), KernelClass::Attention);
  EXPECT_EQ(classify_kernel("fmha_cutlassF_f32_aligned_64x64_rf_sm80"), KernelClass::Attention);
  EXPECT_EQ(classify_kernel("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>"),
            KernelClass::Other);
  EXPECT_EQ(classify_kernel("void at::native::reduce_kernel<512, 1>"), KernelClass::Other);
}

TEST(CuptiAggregate, DeviceMarksBucketKernelsByTheStepThatQueuedThemAndHostRecordsByHostMarks) {
  // A GPU-bound run seen on an H200: the host queues each 30-unit step in 2 units, so by host marks
  // (0, 2, 4) the kernels that run at 0-30 and 30-60 all land in the first step or after the last.
  Aggregator a;
  for (uint64_t t : {0u, 2u, 4u}) a.mark_step(t);
  a.add(KernelRecord{"volta_sgemm_128x64_nn", 1, 29});
  a.add(KernelRecord{"volta_sgemm_128x64_nn", 31, 59});
  a.add(SyncRecord{3, 4});     // host side: in the second host step
  a.add(LaunchRecord{0, 1});   // host side: the first step queued it
  EXPECT_FALSE(a.device_clock());
  auto host = a.steps();
  ASSERT_EQ(host.size(), 2u);
  EXPECT_EQ(host[0].kernels, 1u);
  EXPECT_EQ(host[1].kernels, 0u);  // the second kernel ran after the last host mark
  a.set_device_marks({0, 30});     // one per host mark, or it is ignored
  EXPECT_FALSE(a.device_clock());
  a.set_device_marks({60, 30, 0});  // out of order: ignored
  EXPECT_FALSE(a.device_clock());
  a.set_device_marks({0, 30, 60});
  EXPECT_TRUE(a.device_clock());
  const auto gpu = a.steps();
  ASSERT_EQ(gpu.size(), 2u);
  EXPECT_EQ(gpu[0].kernels, 1u);
  EXPECT_EQ(gpu[1].kernels, 1u);
  EXPECT_EQ(gpu[0].end_ns - gpu[0].start_ns, 30u);  // the step's GPU time
  EXPECT_EQ(gpu[0].busy_ns, 28u);
  EXPECT_EQ(gpu[0].launches, 1u);  // host records keep the host marks
  EXPECT_EQ(gpu[1].syncs, 1u);
  const std::string out = output_json("ok", &a);
  EXPECT_NE(out.find("\"clock\": \"gpu\""), std::string::npos) << out;
  EXPECT_NE(output_json("ok", nullptr).find("\"clock\": \"host\""), std::string::npos);
}

TEST(CuptiAggregate, RecordsAreBucketedByStepMarksAndBusyTimeIsAUnion) {
  Aggregator a;
  a.add(KernelRecord{"volta_sgemm_128x64_nn", 50, 90});  // before the first mark: warm-up, dropped
  a.mark_step(100);
  a.mark_step(200);
  a.mark_step(400);
  // Step 0 [100, 200): two overlapping kernels (streams) and a pageable H2D copy.
  a.add(KernelRecord{"volta_sgemm_128x64_nn", 110, 150});
  a.add(KernelRecord{"cutlass_80_tensorop_s1688tf32gemm", 140, 160});
  a.add(MemcpyRecord{CopyKind::HostToDevice, true, true, 4096, 100, 108});
  a.add(SyncRecord{170, 190});
  a.add(LaunchRecord{105, 106});
  a.add(LaunchRecord{139, 140});
  // Step 1 [200, 400): a pinned async copy, a device-to-host copy, a conv.
  a.add(MemcpyRecord{CopyKind::HostToDevice, false, true, 1000, 200, 210});
  a.add(MemcpyRecord{CopyKind::DeviceToHost, false, false, 4, 390, 395});
  a.add(KernelRecord{"implicit_convolve_sgemm", 250, 350});
  a.add(KernelRecord{"after_last_mark", 450, 460});  // after the last mark: dropped

  const auto steps = a.steps();
  ASSERT_EQ(steps.size(), 2u);
  const StepActivity& s0 = steps[0];
  EXPECT_EQ(s0.end_ns - s0.start_ns, 100u);
  EXPECT_EQ(s0.kernels, 2u);
  EXPECT_EQ(s0.kernel_ns[static_cast<int>(KernelClass::Fp32Gemm)], 40u);
  EXPECT_EQ(s0.kernel_ns[static_cast<int>(KernelClass::Tf32Gemm)], 20u);
  // Union of [100,108) copy, [110,150) and [140,160) kernels = 8 + 50.
  EXPECT_EQ(s0.busy_ns, 58u);
  EXPECT_DOUBLE_EQ(s0.busy_share(), 0.58);
  EXPECT_EQ(s0.h2d_bytes, 4096u);
  EXPECT_EQ(s0.h2d_pageable_bytes, 4096u);
  EXPECT_EQ(s0.h2d_sync_copies, 1u);  // pageable: synchronous even when issued async
  EXPECT_EQ(s0.syncs, 1u);
  EXPECT_EQ(s0.sync_ns, 20u);
  EXPECT_EQ(s0.launches, 2u);

  const StepActivity& s1 = steps[1];
  EXPECT_EQ(s1.kernels, 1u);
  EXPECT_EQ(s1.kernel_ns[static_cast<int>(KernelClass::Conv)], 100u);
  EXPECT_EQ(s1.h2d_pageable_bytes, 0u);
  EXPECT_EQ(s1.h2d_sync_copies, 0u);
  EXPECT_EQ(s1.d2h_bytes, 4u);
  EXPECT_EQ(s1.busy_ns, 10u + 100u + 5u);
}

TEST(CuptiAggregate, TheGpuIdleAfterASyncThatWaitedIsItsPrice) {
  Aggregator a;
  a.mark_step(0);
  a.mark_step(1000);
  a.mark_step(2000);
  // Step 0: kernels [10, 300) on two streams, [300, 400); the host waits in a sync from 350 to 405,
  // then queues the next kernel at 700: 300 ns of idle GPU caused by the sync. A second sync on the
  // same finished work (410-420) adds nothing.
  a.add(KernelRecord{"k", 10, 300});
  a.add(KernelRecord{"k", 250, 400});
  a.add(SyncRecord{350, 405});
  a.add(SyncRecord{410, 420});
  a.add(KernelRecord{"k", 700, 900});
  // Step 1: the host reaches the sync after the GPU ran dry (GPU idle 900-1500, sync 1200-1201):
  // the host was behind; the gap is not the sync's. Then a sync that returns while work continues
  // on another stream (1600-1610, busy run 1500-1900): no gap either.
  a.add(SyncRecord{1200, 1201});
  a.add(KernelRecord{"k", 1500, 1900});
  a.add(SyncRecord{1600, 1610});
  a.add(KernelRecord{"k", 1950, 1990});
  a.mark_step(3000);
  // Step 2, what .item() does: the sync begins during the kernels (2000-2500); after them the GPU
  // copies the scalar to the host (2502-2504, a run of its own); the sync returns at 2510 and the
  // next kernel comes at 2900. The price is the gap after the copy, 396, not the 2 before it.
  a.add(KernelRecord{"k", 2000, 2500});
  a.add(MemcpyRecord{CopyKind::DeviceToHost, false, true, 4, 2502, 2504});
  a.add(SyncRecord{2100, 2510});
  a.add(KernelRecord{"k", 2900, 2950});
  const auto steps = a.steps();
  ASSERT_EQ(steps.size(), 3u);
  EXPECT_EQ(steps[0].sync_idle_ns, 300u);
  EXPECT_EQ(steps[0].syncs, 2u);
  EXPECT_EQ(steps[1].sync_idle_ns, 0u);
  EXPECT_EQ(steps[2].sync_idle_ns, 396u);
  EXPECT_NE(to_json(steps).find("\"sync_idle_ns\": 300"), std::string::npos);
}

TEST(CuptiAggregate, JsonIsReadableByTheEvidenceReader) {
  Aggregator a;
  a.mark_step(0);
  a.add(KernelRecord{"ampere_bf16_s16816gemm_bf16", 10, 30});
  a.mark_step(100);
  const std::string json = to_json(a.steps());
  auto doc = jsonr::parse(json, "cupti.json");
  ASSERT_TRUE(doc.ok()) << doc.error().message << "\n" << json;
  ASSERT_TRUE(doc->is_array());
  ASSERT_EQ(doc->items.size(), 1u);
  EXPECT_EQ(doc->items[0].num("busy_ns"), 20.0);
  EXPECT_EQ(doc->items[0].get("kernel_ns")->num("16bit_gemm"), 20.0);
  EXPECT_EQ(to_json({}), "[]");
}

TEST(CuptiAggregate, FewerThanTwoMarksMeansNoSteps) {
  Aggregator a;
  a.add(KernelRecord{"k", 1, 2});
  EXPECT_TRUE(a.steps().empty());
  a.mark_step(5);
  EXPECT_TRUE(a.steps().empty());
  a.mark_step(3);  // out of order: ignored
  EXPECT_TRUE(a.steps().empty());
}

}  // namespace
}  // namespace perflint::cupti
