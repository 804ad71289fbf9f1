// The probe's evidence (docs/probe-evidence.md), read from the shim's JSON into typed values, and
// the figures derived from the measured steps (warm-up excluded). Pure: no I/O but read_evidence.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "parser/expected.hpp"

namespace perflint::probe {

struct SyncEvidence {
  std::string file;
  uint32_t line = 0;
  std::string op;  // item, tolist, cpu, numpy, __float__, __int__
  uint64_t count = 0;
  bool cuda = false;
};

// Where one measured step's time went (ms), when the shim timed its phases (docs/probe-evidence.md):
// data wait, host-to-device copies, forward, backward, optimizer step, and the rest of the step.
struct StepPhases {
  double data_ms = 0.0, h2d_ms = 0.0, forward_ms = 0.0, backward_ms = 0.0, optimizer_ms = 0.0, other_ms = 0.0;
};

struct StepEvidence {
  bool warmup = false;
  double start_ms = 0.0;  // when the step began, ms since the shim started (timelines)
  double wall_ms = 0.0;
  std::optional<StepPhases> phases;  // unset: the shim did not time phases
  std::optional<StepPhases> gpu_phases;  // CUDA events' times (h2d, forward, backward, optimizer), when resolved
  double data_wait_ms = 0.0;
  bool autocast = false;
  bool anomaly = false;
  bool profiler = false;
  bool tf32_matmul = false;
  bool cudnn_benchmark = false;
  bool deterministic = false;       // torch.use_deterministic_algorithms(True)
  bool cudnn_deterministic = false;
  bool launch_blocking = false;     // CUDA_LAUNCH_BLOCKING set in the process
  uint32_t zero_grad_calls = 0, zero_grad_fill_calls = 0;
  double zero_grad_ms = 0.0;
  std::optional<int64_t> compiles;  // frames torch.compile compiled so far (cumulative); unset: no dynamo
  uint32_t checkpoint_calls = 0;
  double checkpoint_forward_ms = 0.0;
  std::vector<SyncEvidence> syncs;
  // torch.distributed: host time in the collectives the script called, and DDP's gradient
  // all-reduce (each bucket from launch to completion; it overlaps backward).
  double comm_ms = 0.0, ddp_allreduce_ms = 0.0;
  uint32_t comm_calls = 0, ddp_buckets = 0;
  // DDP.forward's own work around the module's forward; find_unused_parameters on in an instance.
  uint32_t ddp_forwards = 0;
  double ddp_forward_overhead_ms = 0.0;
  bool ddp_find_unused = false;
};

struct LoaderEvidence {
  std::string site;  // "file:line" exactly as the shim recorded it (what `--apply workers=N@SITE` names)
  std::string file;
  uint32_t line = 0;
  int num_workers = 0;
  bool pin_memory = false;
  bool persistent_workers = false;
  int iterators = 0;
  int batches = 0;
  double wait_ms = 0.0;
  std::vector<double> first_batch_wait_ms;
};

// One step of GPU activity from the CUPTI library (`<evidence>.cupti.json`).
struct GpuStep {
  double wall_ns = 0, busy_ns = 0, kernels = 0, launches = 0, syncs = 0, sync_ns = 0, sync_idle_ns = 0;
  double h2d_bytes = 0, h2d_pageable_bytes = 0, h2d_ns = 0, h2d_sync_copies = 0, d2h_bytes = 0, d2h_ns = 0;
  double fp32_gemm_ns = 0, tf32_gemm_ns = 0, half_gemm_ns = 0, conv_ns = 0, attention_ns = 0;
};

// A run-time fix the shim was asked to apply (`--apply`, for --verify) and whether it took effect.
struct AppliedFix {
  std::string fix;
  int count = 0;      // times it took effect (loaders changed, calls rewritten, flags set)
  std::string error;  // it could not be installed
};

struct Evidence {
  std::string path;  // the evidence file
  std::string python, python_version, torch, script, step_marker;
  int steps_requested = 0;
  int warmup = 0;
  int warmup_added = 0;       // warm-up steps the shim added while a DataLoader's batches made ahead fed the steps
  std::string warmup_reason;  // when it stopped adding them
  int rank = 0, local_rank = 0, world_size = 1;  // from RANK / LOCAL_RANK / WORLD_SIZE in the child
  std::string device_kind = "cpu";  // cpu | cuda
  std::string device_name, capability;
  std::string memory_kind;  // cuda | rss
  uint64_t peak_bytes = 0, total_bytes = 0;
  std::vector<StepEvidence> steps;
  std::vector<LoaderEvidence> loaders;
  std::string exit_reason;  // steps_reached | script_exit | crash | interrupted | terminated
  int exit_code = 0;
  std::string traceback;
  struct GemmSeen {
    int64_t m = 0, n = 0, k = 0, calls = 0;
  };
  std::vector<GemmSeen> gemm_shapes;  // nn.Linear forwards, most work first
  std::vector<AppliedFix> applied;
  bool sync_debug = false;  // host syncs came from torch.cuda.set_sync_debug_mode (op "sync")

  // The steps' clock: "cuda_events" when the shim timed every measured step on the GPU timeline
  // (CUDA events at the step boundaries; wall_ms is then the GPU's time), else "host".
  std::string step_clock = "host";
  // GPU tracing (when the CUPTI library ran): its status and the traced steps after warm-up.
  std::string gpu_status;        // empty: not traced
  std::string gpu_clock;         // "gpu": kernels bucketed by the GPU-timeline step boundaries; "host"
  std::vector<GpuStep> gpu_steps;
  bool gpu_traced() const { return !gpu_steps.empty(); }
  double gpu_mean(double GpuStep::*field) const;  // per measured step
  double gpu_busy_share() const;

  std::vector<const StepEvidence*> measured() const;
  bool reached_steps() const { return exit_reason == "steps_reached"; }
  double median_step_ms() const;
  double mean_step_ms() const;
  double data_wait_share() const;  // of measured wall time
};

// The median of `v` (the mean of the middle two for an even count); 0 for none.
double median_of(std::vector<double> v);
// The q-quantile of `v` (0 <= q <= 1), linear between neighbours; 0 for none.
double quantile_of(std::vector<double> v, double q);

Expected<Evidence> read_evidence(const std::string& path);
// Parses evidence text (tests, and read_evidence after reading the file).
Expected<Evidence> parse_evidence(const std::string& text, const std::string& path);
// Adds the CUPTI library's per-step GPU activity; the last `measured` traced steps are kept.
Expected<bool> add_gpu_activity(Evidence& e, const std::string& text, const std::string& path);

}  // namespace perflint::probe
