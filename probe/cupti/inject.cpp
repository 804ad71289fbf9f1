// libperflint_cupti.so: loaded by the CUDA driver through CUDA_INJECTION64_PATH (InitializeInjection).
// Collects kernel, memcpy, memset and synchronization activity with CUPTI, counts kernel launches
// with a runtime-API callback on the launch calls alone, buckets both per step (marks come from the
// shim through perflint_cupti_mark_step), and writes the per-step figures as JSON to $PERFLINT_CUPTI_OUT on flush/exit. Forked DataLoader workers never write.
// When CUPTI cannot be initialised (another profiler holds it), the output says why and the probe
// goes on with the shim's evidence.
//
// Status: runs on H100s and H200s (docs/probe-validation.md). Its activity tracing costs launch-bound
// steps 50-90% (2026-11-27), so the runner loads it only when PERFLINT_CUPTI=1.
#include <cupti.h>
#include <cupti_version.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

#include "probe/cupti/aggregate.hpp"

namespace {

using perflint::cupti::Aggregator;
using perflint::cupti::CopyKind;

std::mutex g_mu;
Aggregator* g_agg = nullptr;  // leaked on purpose: used from atexit and CUPTI's threads
pid_t g_pid = 0;
std::string g_status = "ok";
std::atomic<bool> g_enabled{false};
std::atomic<bool> g_tracing{false};  // perflint_cupti_enable: the launch callback records only while on
CUpti_SubscriberHandle g_subscriber = nullptr;
constexpr size_t kBufferSize = 8u << 20;

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kBufferSize));
  *size = *buffer ? kBufferSize : 0;
  *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  CUpti_Activity* record = nullptr;
  std::lock_guard<std::mutex> lock(g_mu);
  while (g_agg && cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
    switch (record->kind) {
      case CUPTI_ACTIVITY_KIND_KERNEL:
      case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
        const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
        g_agg->add(perflint::cupti::KernelRecord{k->name ? k->name : "", k->start, k->end});
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMCPY: {
        const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
        perflint::cupti::MemcpyRecord r;
        r.kind = m->copyKind == CUPTI_ACTIVITY_MEMCPY_KIND_HTOD   ? CopyKind::HostToDevice
                 : m->copyKind == CUPTI_ACTIVITY_MEMCPY_KIND_DTOH ? CopyKind::DeviceToHost
                 : m->copyKind == CUPTI_ACTIVITY_MEMCPY_KIND_DTOD ? CopyKind::DeviceToDevice
                                                                  : CopyKind::Other;
        const uint8_t host = r.kind == CopyKind::HostToDevice ? m->srcKind : m->dstKind;
        r.host_pageable = host == CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE;
        r.async = (m->flags & CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC) != 0;
        r.bytes = m->bytes;
        r.start_ns = m->start;
        r.end_ns = m->end;
        g_agg->add(r);
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMSET: {
        const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(record);
        g_agg->add(perflint::cupti::KernelRecord{"memset", m->start, m->end});
        break;
      }
      case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: {
        const auto* y = reinterpret_cast<const CUpti_ActivitySynchronization2*>(record);
        // cudaStreamWaitEvent orders two streams on the GPU; the host does not wait (an H200 run
        // counted 22 "syncs" per step in a loop with none).
        if (y->type != CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT)
          g_agg->add(perflint::cupti::SyncRecord{y->start, y->end});
        break;
      }
      default:
        break;
    }
  }
  std::free(buffer);
}

// Launches are not an activity kind here: CUPTI_ACTIVITY_KIND_RUNTIME records every runtime API call
// (PyTorch makes several per kernel). A callback enabled on the launch calls alone records one
// timestamp per launch; on an H100 both counted the same launches at the same overhead (2026-11-27).
const CUpti_ActivityKind kKinds[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                                     CUPTI_ACTIVITY_KIND_MEMSET, CUPTI_ACTIVITY_KIND_SYNCHRONIZATION};
const CUpti_CallbackId kLaunchCallbacks[] = {
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,        CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060,    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000,
#if CUPTI_API_VERSION >= 130000  // CUDA 13: nvcc's <<<>>> stubs launch through __cudaLaunchKernel
    CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000,     CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000,
#endif
};

// A kernel launch on the host (API entry), while tracing is on.
void CUPTIAPI on_launch(void*, CUpti_CallbackDomain, CUpti_CallbackId, const void* data) {
  if (!g_tracing.load(std::memory_order_relaxed)) return;
  if (static_cast<const CUpti_CallbackData*>(data)->callbackSite != CUPTI_API_ENTER) return;
  uint64_t ts = 0;
  if (cuptiGetTimestamp(&ts) != CUPTI_SUCCESS) return;
  std::lock_guard<std::mutex> lock(g_mu);
  if (g_agg) g_agg->add(perflint::cupti::LaunchRecord{ts, ts});
}

// Subscribes on_launch to the launch calls; false when CUPTI refuses (another subscriber holds it,
// or none of the calls is known to this CUPTI).
bool subscribe_launches() {
  if (cuptiSubscribe(&g_subscriber, on_launch, nullptr) != CUPTI_SUCCESS) return false;
  bool any = false;
  for (CUpti_CallbackId id : kLaunchCallbacks)
    any |= cuptiEnableCallback(1, g_subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, id) == CUPTI_SUCCESS;
  return any;
}

void write_output() {
  const char* out = std::getenv("PERFLINT_CUPTI_OUT");
  if (!out || getpid() != g_pid) return;  // a forked worker: the parent writes
  cuptiActivityFlushAll(1);
  std::string json;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    json = perflint::cupti::output_json(g_status, g_agg);
  }
  const std::string tmp = std::string(out) + ".tmp";
  if (std::FILE* f = std::fopen(tmp.c_str(), "w")) {
    std::fwrite(json.data(), 1, json.size(), f);
    std::fclose(f);
    std::rename(tmp.c_str(), out);
  }
}

}  // namespace

extern "C" {

// Called by the CUDA driver when it loads the library (CUDA_INJECTION64_PATH).
__attribute__((visibility("default"))) int InitializeInjection(void) {
  g_pid = getpid();
  g_agg = new Aggregator();
  if (cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed) != CUPTI_SUCCESS) {
    g_status = "unavailable: CUPTI is already in use (another profiler?)";
  } else {
    for (CUpti_ActivityKind k : kKinds)
      if (cuptiActivityEnable(k) != CUPTI_SUCCESS) g_status = "partial: an activity kind could not be enabled";
    if (!subscribe_launches()) g_status = "partial: kernel launches could not be counted";
    g_enabled = true;
    g_tracing = true;
  }
  std::atexit(write_output);
  return 1;
}

// A step boundary, from the shim (ctypes).
__attribute__((visibility("default"))) void perflint_cupti_mark_step(void) {
  uint64_t ts = 0;
  if (cuptiGetTimestamp(&ts) != CUPTI_SUCCESS) return;
  std::lock_guard<std::mutex> lock(g_mu);
  if (g_agg) g_agg->mark_step(ts);
}

// CUPTI's clock now (0 when it cannot be read): the shim places its step events on this clock.
__attribute__((visibility("default"))) uint64_t perflint_cupti_timestamp(void) {
  uint64_t ts = 0;
  return cuptiGetTimestamp(&ts) == CUPTI_SUCCESS ? ts : 0;
}

// The step boundaries on the GPU timeline, one per mark_step (Aggregator::set_device_marks).
__attribute__((visibility("default"))) void perflint_cupti_set_device_marks(const uint64_t* ts, size_t n) {
  if (!ts) return;
  std::lock_guard<std::mutex> lock(g_mu);
  if (g_agg) g_agg->set_device_marks(std::vector<uint64_t>(ts, ts + n));
}

// Tracing on/off (off during the first warm-up steps, to measure the probe's own overhead).
__attribute__((visibility("default"))) void perflint_cupti_enable(int on) {
  if (!g_enabled) return;
  for (CUpti_ActivityKind k : kKinds) on ? cuptiActivityEnable(k) : cuptiActivityDisable(k);
  g_tracing = on != 0;
}

// Writes the output now (the shim calls it before it writes its evidence and exits).
__attribute__((visibility("default"))) void perflint_cupti_flush(void) { write_output(); }

}  // extern "C"
