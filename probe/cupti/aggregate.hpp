// Per-step aggregation of GPU activity for the CUPTI injection library. Pure C++ (no CUPTI types):
// the library converts CUPTI activity records into these, and the unit tests feed synthetic ones,
// so the arithmetic is tested on machines without a GPU.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace perflint::cupti {

enum class KernelClass { Fp32Gemm, Tf32Gemm, Half16Gemm, Conv, Attention, Memset, Other };
std::string_view to_string(KernelClass c);
// From the kernel's (demangled or mangled) name: cuBLAS/CUTLASS/cuDNN naming conventions.
KernelClass classify_kernel(std::string_view name);

struct KernelRecord {
  std::string name;
  uint64_t start_ns = 0, end_ns = 0;
};

enum class CopyKind { HostToDevice, DeviceToHost, DeviceToDevice, Other };
struct MemcpyRecord {
  CopyKind kind = CopyKind::Other;
  bool host_pageable = false;  // the host side is pageable (not pinned) memory
  bool async = false;          // issued with cudaMemcpyAsync
  uint64_t bytes = 0;
  uint64_t start_ns = 0, end_ns = 0;
};

struct SyncRecord {
  uint64_t start_ns = 0, end_ns = 0;
};

struct LaunchRecord {  // a runtime-API kernel launch (host side)
  uint64_t start_ns = 0, end_ns = 0;
};

// What one step did on the GPU, between two step marks.
struct StepActivity {
  uint64_t start_ns = 0, end_ns = 0;
  uint64_t kernel_ns[7] = {};  // by KernelClass
  uint64_t kernels = 0;
  uint64_t busy_ns = 0;        // union of kernel and copy intervals: the GPU doing something
  uint64_t h2d_bytes = 0, h2d_pageable_bytes = 0, h2d_ns = 0, h2d_sync_copies = 0;
  uint64_t d2h_bytes = 0, d2h_ns = 0;
  uint64_t syncs = 0, sync_ns = 0;
  // GPU idle time after the host syncs of the step that waited for the GPU: from the end of the GPU
  // work the sync waited for to the next GPU work. The host queued nothing meanwhile; without the
  // sync it could have queued that work while the GPU was busy. An upper bound of what removing
  // the syncs saves (a host slower than the GPU stays the bottleneck).
  uint64_t sync_idle_ns = 0;
  uint64_t launches = 0;
  double busy_share() const;
};

class Aggregator {
 public:
  // A step boundary at `ts_ns` (the shim's optimizer step, sent through the library).
  void mark_step(uint64_t ts_ns);
  // The same boundaries on the GPU timeline (where the GPU reached each one: the shim's step
  // events, read at the end of the run). When given, one per host mark and in order, the device's
  // records (kernels, copies) are bucketed by them and the host's (syncs, launches) by the host
  // marks: the host runs ahead of the GPU, so a kernel belongs to the step that queued it, not to
  // the step the host was in when it ran. Anything else is ignored (host marks for everything).
  void set_device_marks(std::vector<uint64_t> ts_ns);
  bool device_clock() const;
  void add(const KernelRecord& r);
  void add(const MemcpyRecord& r);
  void add(const SyncRecord& r);
  void add(const LaunchRecord& r);
  // The steps between consecutive marks, with every record assigned by its start time; records
  // before the first mark or after the last are dropped (warm-up, shutdown).
  std::vector<StepActivity> steps() const;

 private:
  std::vector<std::pair<uint64_t, uint64_t>> busy_runs() const;
  void add_sync_idle(std::vector<StepActivity>& out) const;
  std::vector<uint64_t> marks_;
  std::vector<uint64_t> device_marks_;
  std::vector<KernelRecord> kernels_;
  std::vector<MemcpyRecord> copies_;
  std::vector<SyncRecord> syncs_;
  std::vector<LaunchRecord> launches_;
};

// The per-step figures as a JSON array (the library writes it next to the shim's evidence).
std::string to_json(const std::vector<StepActivity>& steps);
// The library's whole output: status, which clock bucketed the device's records ("gpu" or "host"),
// and the steps.
std::string output_json(const std::string& status, const Aggregator* agg);

}  // namespace perflint::cupti
