// libperflint_cupti.so: loaded by the CUDA driver through CUDA_INJECTION64_PATH (InitializeInjection).
// Collects kernel, memcpy, memset, synchronization and runtime-launch activity with CUPTI, buckets
// it per step (marks come from the shim through perflint_cupti_mark_step), and writes the per-step
// figures as JSON to $PERFLINT_CUPTI_OUT on flush/exit. Forked DataLoader workers never write.
// When CUPTI cannot be initialised (another profiler holds it), the output says why and the probe
// goes on with the shim's evidence.
//
// Status: run on an H200 (docs/probe-validation.md, 2026-11-26): it loaded, traced and unloaded
// cleanly, but its per-step figures needed the GPU-timeline marks added after that run, which no GPU
// has run yet; so the runner still loads it only when PERFLINT_CUPTI=1.
#include <cupti.h>
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
      case CUPTI_ACTIVITY_KIND_RUNTIME: {
        const auto* a = reinterpret_cast<const CUpti_ActivityAPI*>(record);
        if (a->cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000 ||
            a->cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060)
          g_agg->add(perflint::cupti::LaunchRecord{a->start, a->end});
        break;
      }
      default:
        break;
    }
  }
  std::free(buffer);
}

const CUpti_ActivityKind kKinds[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                                     CUPTI_ACTIVITY_KIND_MEMSET, CUPTI_ACTIVITY_KIND_SYNCHRONIZATION,
                                     CUPTI_ACTIVITY_KIND_RUNTIME};

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
    g_enabled = true;
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
}

// Writes the output now (the shim calls it before it writes its evidence and exits).
__attribute__((visibility("default"))) void perflint_cupti_flush(void) { write_output(); }

}  // extern "C"
