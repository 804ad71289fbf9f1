// The evidence tests per rule (see each docs/rules/<CODE>.md, "How the probe measures it").
// Kept in one table here so that rules stay free of probe types; a rule without a test gets an
// honest "inconclusive" (or "not-measurable" for CUDA rules on a CPU run).
#include "probe/verdict.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "probe/estimate.hpp"
#include "probe/phases.hpp"
#include "rules/rule.hpp"

namespace perflint::probe {
namespace {

using State = Verdict::State;

std::string fmt(double v, int decimals = 1) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::string pct(double share) { return fmt(share * 100.0, 0) + "%"; }

bool same_file(const std::string& a, const std::string& b) {
  std::error_code ec;
  return a == b || std::filesystem::equivalent(a, b, ec);
}

Verdict make(State s, std::string evidence, std::optional<double> cost = std::nullopt,
             std::optional<double> share = std::nullopt) {
  return Verdict{s, cost, share, std::move(evidence), std::nullopt};
}

}  // namespace

// A multi-line call reports the line where it starts; the finding may point at an argument further
// down, hence the window above the finding.
const LoaderEvidence* loader_for(const Finding& f, const Evidence& e) {
  const LoaderEvidence* best = nullptr;
  for (const auto& l : e.loaders) {
    if (!same_file(l.file, f.path) || l.line > f.span.end.line || l.line + 20 < f.span.start.line) continue;
    if (!best || l.line > best->line) best = &l;
  }
  return best;
}

namespace {

// Shares are of the mean measured step (the same base as the data-wait share), capped at 1.
double per_step_share(double ms, const Evidence& e) {
  const double mean = e.mean_step_ms();
  return mean > 0.0 ? std::min(1.0, ms / mean) : 0.0;
}

Verdict judge_workers(const Finding& f, const Evidence& e) {
  const LoaderEvidence* l = loader_for(f, e);
  if (!l) return make(State::Inconclusive, "this DataLoader was not constructed during the probed run");
  if (l->num_workers > 0)
    return make(State::Refuted, "at run time num_workers=" + std::to_string(l->num_workers) +
                                    " (the default was overridden)");
  if (l->batches == 0) return make(State::Inconclusive, "this DataLoader was not iterated during the probed steps");
  // One batch per step: the loader's mean wait per batch is its cost per step. The loader's total
  // includes the warm-up batches (the slowest: first imports, cold caches); when it is the only
  // loader iterated, the measured steps' own data waits are the same cost on the same base as the
  // step it is a share of.
  double cost = l->wait_ms / l->batches;
  const auto iterated = std::count_if(e.loaders.begin(), e.loaders.end(), [](const LoaderEvidence& x) { return x.batches > 0; });
  if (const auto measured = e.measured(); iterated == 1 && !measured.empty()) {
    double wait = 0.0;
    for (const auto* st : measured) wait += st->data_wait_ms;
    cost = wait / static_cast<double>(measured.size());
  }
  const double share = per_step_share(cost, e);
  const std::string what = "num_workers=0 at run time; each step waits " + fmt(cost) +
                           " ms for its batch (mean step " + fmt(e.mean_step_ms()) + " ms)";
  if (share >= 0.10) return make(State::Confirmed, what, cost, share);
  if (share < 0.03) return make(State::Refuted, what + ": workers would not buy step time here", cost, share);
  return make(State::Inconclusive, what, cost, share);
}

Verdict judge_persistent(const Finding& f, const Evidence& e) {
  const LoaderEvidence* l = loader_for(f, e);
  if (!l) return make(State::Inconclusive, "this DataLoader was not constructed during the probed run");
  if (l->persistent_workers) return make(State::Refuted, "at run time persistent_workers=True");
  if (l->iterators < 2 || l->first_batch_wait_ms.size() < 2)
    return make(State::Inconclusive, "the run did not reach a second epoch of this loader (raise --steps to see the restart)");
  // Restart cost: the epoch-start wait beyond a normal batch, spread over the batches of an epoch.
  double restart = 0.0;
  for (size_t i = 1; i < l->first_batch_wait_ms.size(); ++i) restart += l->first_batch_wait_ms[i];
  restart /= static_cast<double>(l->first_batch_wait_ms.size() - 1);
  const double per_batch = l->batches > 0 ? l->wait_ms / l->batches : 0.0;
  const double per_epoch_batches = static_cast<double>(l->batches) / l->iterators;
  const double cost = std::max(0.0, restart - per_batch) / std::max(1.0, per_epoch_batches);
  const double share = per_step_share(cost, e);
  return make(cost > 0.0 ? State::Confirmed : State::Refuted,
              "each epoch starts with a " + fmt(restart) + " ms wait (a normal batch: " + fmt(per_batch) +
                  " ms), " + fmt(per_epoch_batches, 0) + " batches per epoch",
              cost, share);
}

Verdict judge_sync(const Finding& f, const Evidence& e) {
  if (e.device_kind != "cuda")
    return make(State::NotMeasurable, "no CUDA device in this run: on the CPU this call does not wait for queued GPU work");
  // With torch's sync debug mode on, its warnings ("sync") are the syncs; the call counters (item,
  // cpu, ...) would count the same syncs twice. Without it, the counted calls on CUDA tensors.
  uint64_t count = 0, all_debug = 0;  // this line's; every line's from the sync debug mode
  const auto measured = e.measured();
  for (const auto* s : measured)
    for (const auto& y : s->syncs) {
      if (y.cuda && y.op == "sync") all_debug += y.count;
      if (y.cuda && (y.op == "sync") == e.sync_debug && y.line == f.span.start.line && same_file(y.file, f.path))
        count += y.count;
    }
  const std::string source = e.sync_debug ? "torch.cuda.set_sync_debug_mode" : "counted .item()/.cpu()/... calls";
  // torch.cuda.synchronize() is seen only through the sync debug mode, empty_cache()'s implicit sync
  // not at all: no sync seen is no proof for PFL203.
  const bool explicit_sync = f.rule && f.rule->code == "PFL203";
  if (count == 0 && explicit_sync)
    return make(State::Inconclusive, "no host sync seen from this line (" + source +
                                         "; the implicit sync of empty_cache() is not visible to it)");
  if (count == 0) return make(State::Refuted, "no host sync from this line during the measured steps (" + source + ")");
  const double per_step = static_cast<double>(count) / measured.size();
  if (e.gpu_traced() && e.sync_debug) {
    // The price of a sync: the GPU idles from the end of the work the host waited for until the
    // host queues more (CUPTI: sync_idle_ns). Shared among the step's sync lines by their counts.
    const uint64_t all = all_debug;
    const double ms = e.gpu_mean(&GpuStep::sync_idle_ns) / 1e6 * static_cast<double>(count) / std::max<uint64_t>(all, count);
    const double share = per_step_share(ms, e);
    const std::string what = fmt(per_step) + " host syncs per step from this line; the GPU then idles " + fmt(ms, 2) +
                             " ms per step until the host queues more work" +
                             (all > count ? " (this line's share of the step's syncs)" : "");
    if (share < 0.02) return make(State::Refuted, what + ": under 2% of the step", ms, share);
    return make(State::Confirmed, what + " (upper bound of the saving)", ms, share);
  }
  return make(State::Inconclusive, fmt(per_step) + " host syncs per step from this line (" + source +
                                       "); their price, the GPU idle time after each, is not isolated by one run");
}

// A runtime flag seen on the measured steps: confirmed when on in any, refuted when off in all.
// The cost of a flag is not in the evidence of one run: `--verify` measures it as an A/B.
template <typename On>
Verdict judge_flag(const Evidence& e, On on_in, const std::string& on, const std::string& off,
                   const std::string& cost = "its cost: `--verify` runs without it") {
  const auto m = e.measured();
  if (m.empty()) return make(State::Inconclusive, "no measured step");
  const auto n = std::count_if(m.begin(), m.end(), on_in);
  if (n == 0) return make(State::Refuted, off + " during every measured step");
  return make(State::Confirmed,
              on + " in " + std::to_string(n) + "/" + std::to_string(m.size()) + " measured steps (" + cost + ")");
}

auto flag(bool StepEvidence::*member) {
  return [member](const StepEvidence* s) { return s->*member; };
}

Verdict judge_zero_grad(const Evidence& e) {
  const auto m = e.measured();
  if (m.empty()) return make(State::Inconclusive, "no measured step");
  double fills = 0.0, calls = 0.0, ms = 0.0;
  for (const auto* s : m) {
    fills += s->zero_grad_fill_calls;
    calls += s->zero_grad_calls;
    ms += s->zero_grad_fill_calls > 0 ? s->zero_grad_ms : 0.0;
  }
  const double n = static_cast<double>(m.size());
  if (calls == 0.0) return make(State::Refuted, "no zero_grad call during the measured steps");
  if (fills == 0.0) return make(State::Refuted, "zero_grad set the gradients to None at run time (no fill)");
  ms /= n;
  const double share = per_step_share(ms, e);
  const std::string what = fmt(fills / n, 0) + " zero-filling zero_grad call(s) per step, " + fmt(ms, 2) + " ms per step in them";
  if (e.device_kind == "cuda")
    return make(State::Inconclusive, what + " (host time only: the fill kernels run later on the GPU; `--verify` measures the step)");
  // On the CPU the time is the fill itself, an upper bound of the saving; PFL101's thresholds.
  if (share >= 0.10) return make(State::Confirmed, what + " (the fill itself; upper bound of the saving)", ms, share);
  if (share < 0.03) return make(State::Refuted, what + ": too little of the step to matter here", ms, share);
  return make(State::Inconclusive, what + " (the fill itself; upper bound of the saving)", ms, share);
}

// PFL701: DDP.forward's own time around the module's forward, where find_unused_parameters=True
// walks the autograd graph from the outputs every step (the rest of that time is DDP's small fixed
// bookkeeping, so the figure is an upper bound of the saving). PFL101's thresholds.
Verdict judge_find_unused(const Evidence& e) {
  const auto m = e.measured();
  if (m.empty()) return make(State::Inconclusive, "no measured step");
  double forwards = 0.0, ms = 0.0;
  bool on = false;
  for (const auto* s : m) {
    forwards += s->ddp_forwards;
    ms += s->ddp_forward_overhead_ms;
    on = on || s->ddp_find_unused;
  }
  if (forwards == 0.0)
    return make(State::Inconclusive, "no DistributedDataParallel forward in the measured steps (a single-process run: "
                                     "`--nproc 2` or a launcher command runs the ranks)");
  if (!on) return make(State::Refuted, "find_unused_parameters was off at run time");
  ms /= static_cast<double>(m.size());
  const double share = per_step_share(ms, e);
  const std::string what = fmt(ms, 2) + " ms per step in DistributedDataParallel.forward around the model's forward "
                                        "(the unused-parameter search over the autograd graph, and DDP's bookkeeping)";
  if (share >= 0.10) return make(State::Confirmed, what + "; upper bound of the saving", ms, share);
  if (share < 0.03) return make(State::Refuted, what + ": too little of the step to matter here", ms, share);
  return make(State::Inconclusive, what + "; upper bound of the saving", ms, share);
}

Verdict judge_recompiles(const Evidence& e) {
  const StepEvidence* before = nullptr;  // the last warm-up step: compiles up to the measured ones
  for (const auto& s : e.steps)
    if (s.warmup) before = &s;
  const auto m = e.measured();
  if (m.empty()) return make(State::Inconclusive, "no measured step");
  if (!m.back()->compiles) return make(State::NotMeasurable, "this torch (" + e.torch + ") has no torch.compile counters");
  // One pass: the steps that compiled a new graph, and the others (the normal step time).
  int64_t last = before && before->compiles ? *before->compiles : 0;
  std::vector<double> compiling, quiet;
  for (const auto* s : m)
    if (s->compiles && *s->compiles > last) {
      compiling.push_back(s->wall_ms);
      last = *s->compiles;
    } else {
      quiet.push_back(s->wall_ms);
    }
  const auto recompiling = compiling.size();
  if (recompiling == 0) return make(State::Refuted, "no graph was compiled during the measured steps (warm-up excluded)");
  // The compiling steps' time beyond a normal step, spread over the measured steps.
  const double normal = median_of(quiet);
  double extra_ms = 0.0;
  for (const double ms : compiling) extra_ms += std::max(0.0, ms - normal);
  const double cost = quiet.empty() ? 0.0 : extra_ms / static_cast<double>(m.size());
  return make(quiet.empty() ? State::Inconclusive : State::Confirmed,
              std::to_string(recompiling) + " of " + std::to_string(m.size()) +
                  " measured steps compiled a new graph" +
                  (quiet.empty() ? " (every step: no normal step to compare with)"
                                 : "; they took " + fmt(extra_ms / static_cast<double>(recompiling)) + " ms more than the median other step (" +
                                       fmt(normal) + " ms)"),
              cost, per_step_share(cost, e));
}

Verdict judge_checkpoint(const Finding&, const Evidence& e) {
  const auto m = e.measured();
  if (m.empty()) return make(State::Inconclusive, "no measured step");
  double calls = 0.0, forward_ms = 0.0;
  for (const auto* s : m) {
    calls += s->checkpoint_calls;
    forward_ms += s->checkpoint_forward_ms;
  }
  calls /= m.size();
  forward_ms /= m.size();
  if (calls == 0.0) return make(State::Refuted, "no checkpoint call during the measured steps");
  if (e.total_bytes == 0) return make(State::Inconclusive, "no memory figures in the evidence");
  const double used = static_cast<double>(e.peak_bytes) / static_cast<double>(e.total_bytes);
  const std::string mem = std::string(e.memory_kind == "cuda" ? "device memory" : "RAM") + " peak " +
                          fmt(e.peak_bytes / 1048576.0, 0) + " MiB of " + fmt(e.total_bytes / 1048576.0, 0) +
                          " MiB (" + pct(used) + ")";
  // The recompute is one more forward of the checkpointed segments: their forward time.
  const double share = per_step_share(forward_ms, e);
  const std::string what = fmt(calls, 0) + " checkpoint calls per step recompute " + fmt(forward_ms) +
                           " ms of forward; " + mem;
  if (used < 0.25)
    return make(State::Confirmed, what + ": unneeded, it fits without (assumes activations at most 4x the peak)",
                forward_ms, share);
  return make(State::Inconclusive, what + ": memory may be tight without it", forward_ms, share);
}

// A traced upper bound turned into an estimate with this device's calibration, when there is one
// and it has the figures; otherwise the upper bound as it was.
Verdict refine(Verdict v, const Evidence& e, const Calibration* cal, const Expected<Estimate>& est) {
  if (!cal || v.state != State::Confirmed) return v;
  if (!est) {
    v.evidence += "; calibration " + cal->path + " cannot estimate it (" + est.error().message + ")";
    return v;
  }
  v.cost_ms_per_step = est->saving_ms;
  v.share = per_step_share(est->saving_ms, e);
  v.evidence += "; estimated saving with `perflint calibrate` (" + cal->date + "): " + est->formula;
  return v;
}

// ---- GPU evidence (CUPTI). Costs from copy and kernel time are upper bounds of the saving: the
// fix overlaps or speeds up that time, it cannot remove more of it. The evidence line says so.
std::string mb(double bytes) { return fmt(bytes / 1048576.0, 1) + " MiB"; }

Verdict judge_pageable(const Evidence& e, bool want_async) {
  const double pageable = e.gpu_mean(&GpuStep::h2d_pageable_bytes);
  const double bytes = e.gpu_mean(&GpuStep::h2d_bytes);
  if (pageable <= 0.0)
    return make(State::Refuted, "every host-to-device copy in the measured steps came from pinned memory (" +
                                    mb(bytes) + " per step)");
  const double ms = e.gpu_mean(&GpuStep::h2d_ns) * (pageable / std::max(bytes, 1.0)) / 1e6;
  const std::string what = mb(pageable) + " per step copied from pageable memory in " + fmt(ms, 2) +
                           " ms" + (want_async ? ", synchronous despite non_blocking=True" : "") +
                           " (upper bound of the saving: pinned copies overlap compute)";
  return make(State::Confirmed, what, ms, per_step_share(ms, e));
}

Verdict judge_blocking_copy(const Evidence& e) {
  const double sync_copies = e.gpu_mean(&GpuStep::h2d_sync_copies);
  if (sync_copies <= 0.0) return make(State::Refuted, "no synchronous host-to-device copy in the measured steps");
  const double ms = e.gpu_mean(&GpuStep::h2d_ns) / 1e6;
  return make(State::Confirmed,
              fmt(sync_copies, 1) + " synchronous host-to-device copies per step, " + fmt(ms, 2) +
                  " ms of copying (upper bound of the saving)",
              ms, per_step_share(ms, e));
}

Verdict judge_tf32(const Evidence& e) {
  const int major = e.capability.empty() ? 0 : std::atoi(e.capability.c_str());
  if (major > 0 && major < 8)
    return make(State::Refuted, "TF32 needs an Ampere or newer GPU (sm_80+); this one is sm_" + e.capability);
  const double ms = e.gpu_mean(&GpuStep::fp32_gemm_ns) / 1e6;
  if (ms <= 0.0) return make(State::Refuted, "no fp32 GEMM kernel ran in the measured steps");
  return make(State::Confirmed,
              fmt(ms, 2) + " ms per step in fp32 (non-TF32) GEMM kernels (upper bound of the saving; "
                           "`perflint calibrate` will turn it into an estimate)",
              ms, per_step_share(ms, e));
}

template <typename On>
bool any_step(const Evidence& e, On on_in) {
  const auto m = e.measured();
  return std::any_of(m.begin(), m.end(), on_in);
}

Verdict judge_mixed_precision(const Evidence& e) {
  if (any_step(e, flag(&StepEvidence::autocast))) return make(State::Refuted, "autocast was active in the forward of the measured steps");
  const double ms = (e.gpu_mean(&GpuStep::fp32_gemm_ns) + e.gpu_mean(&GpuStep::tf32_gemm_ns) + e.gpu_mean(&GpuStep::conv_ns)) / 1e6;
  if (ms <= 0.0) return make(State::Refuted, "no fp32/TF32 GEMM or convolution kernel ran in the measured steps");
  return make(State::Confirmed,
              "no autocast; " + fmt(ms, 2) + " ms per step in fp32/TF32 GEMM and convolution kernels "
                                             "(upper bound of the saving from 16-bit precision)",
              ms, per_step_share(ms, e));
}

Verdict judge_cudnn_benchmark(const Evidence& e) {
  if (any_step(e, flag(&StepEvidence::cudnn_benchmark)))
    return make(State::Refuted, "torch.backends.cudnn.benchmark was on at run time");
  const double ms = e.gpu_mean(&GpuStep::conv_ns) / 1e6;
  if (ms <= 0.0) return make(State::Refuted, "no convolution kernel ran in the measured steps");
  return make(State::Confirmed,
              "cudnn.benchmark off; " + fmt(ms, 2) + " ms per step in convolution kernels (upper bound of the "
                                                     "saving: autotuning picks faster algorithms for these shapes)",
              ms, per_step_share(ms, e));
}

// The verdicts that GPU tracing decides (the caller checked that the run was traced).
std::optional<Verdict> judge_traced(std::string_view code, const Evidence& e, const Calibration* cal) {
  if (code == "PFL102" || code == "PFL104") {
    const Verdict v = judge_pageable(e, code == "PFL104");
    return cal ? refine(v, e, cal, estimate_pinned_saving(*cal, e)) : v;
  }
  if (code == "PFL103") return judge_blocking_copy(e);
  if (code == "PFL401") {
    const Verdict v = judge_tf32(e);
    return cal ? refine(v, e, cal, estimate_tf32_saving(*cal, e)) : v;
  }
  if (code == "PFL402") {
    const Verdict v = judge_mixed_precision(e);
    if (!cal) return v;
    return refine(v, e, cal, estimate_half_saving(*cal, e.gpu_mean(&GpuStep::fp32_gemm_ns),
                                                  e.gpu_mean(&GpuStep::tf32_gemm_ns), dominant_gemm(e)));
  }
  if (code == "PFL503") return judge_cudnn_benchmark(e);
  return std::nullopt;
}

// A traced cost (an upper bound, or the calibrated estimate) is weighed against the step as the
// host-side verdicts are: under 3% of the step it is too little to matter (a fp32 script with a
// 0.01 ms GEMM was "confirmed" for PFL402 on an H200), under 10% a probe run cannot tell.
Verdict weigh(Verdict v, const Evidence& e) {
  if (v.state != State::Confirmed || !v.cost_ms_per_step) return v;
  const double share = per_step_share(*v.cost_ms_per_step, e);
  if (share >= 0.10) return v;
  if (share < 0.03) {
    v.state = State::Refuted;
    v.evidence += ": too little of the step to matter here";
  } else {
    v.state = State::Inconclusive;
  }
  return v;
}

}  // namespace

Verdict judge(const Finding& f, const Evidence& e, const Calibration* cal) {
  const std::string_view code = f.rule ? f.rule->code : std::string_view{};
  if (code == "PFL101") return judge_workers(f, e);
  if (code == "PFL105") return judge_persistent(f, e);
  if (code == "PFL201" || code == "PFL202" || code == "PFL203") return judge_sync(f, e);
  if (code == "PFL301")
    return judge_flag(e, flag(&StepEvidence::anomaly), "anomaly detection was on", "anomaly detection was off");
  if (code == "PFL501") return judge_checkpoint(f, e);
  if (code == "PFL302")
    return judge_flag(e, flag(&StepEvidence::profiler), "a profiler was active", "no profiler was active");
  if (code == "PFL304")
    return judge_flag(
        e, [](const StepEvidence* s) { return s->deterministic || s->cudnn_deterministic; },
        "deterministic mode was on", "deterministic algorithms and cudnn.deterministic were off",
        "a deliberate trade; its cost: `--verify` runs without it");
  if (code == "PFL502") return judge_zero_grad(e);
  if (code == "PFL603") return judge_recompiles(e);
  if (code == "PFL701") return judge_find_unused(e);
  if (code == "PFL303" && e.device_kind == "cuda")
    return judge_flag(e, flag(&StepEvidence::launch_blocking), "CUDA_LAUNCH_BLOCKING was set",
                      "CUDA_LAUNCH_BLOCKING was not set");
  if (code == "PFL402" && e.device_kind == "cuda" && any_step(e, flag(&StepEvidence::autocast))) return judge_mixed_precision(e);
  // A flag on at run time decides these without GPU tracing.
  if (code == "PFL503" && e.device_kind == "cuda" && any_step(e, flag(&StepEvidence::cudnn_benchmark)))
    return judge_cudnn_benchmark(e);
  if (e.device_kind == "cuda" && e.gpu_traced())
    if (auto v = judge_traced(code, e, cal)) return weigh(*v, e);
  if (f.rule && f.rule->cuda_only && e.device_kind != "cuda")
    return make(State::NotMeasurable, "no CUDA device in this run: this rule is about GPU work");
  if (e.device_kind == "cuda")
    return make(State::Inconclusive,
                e.gpu_status.empty() ? "needs GPU tracing (CUPTI): run with PERFLINT_CUPTI=1, with a perflint built with CUPTI"
                                     : "needs GPU tracing (CUPTI), which did not trace this run: " + e.gpu_status);
  return make(State::Inconclusive, "no probe measurement for this rule yet");
}

std::vector<Diagnosis> diagnose(const Evidence& e) {
  std::vector<Diagnosis> out;
  if (e.gpu_traced()) {
    const double busy = e.gpu_busy_share();
    const double wall = e.gpu_mean(&GpuStep::wall_ns);
    const double sync = wall > 0 ? e.gpu_mean(&GpuStep::sync_ns) / wall : 0.0;
    if (busy > 0.9)
      out.push_back({"gpu-bound", "the GPU is busy " + pct(busy) + " of every measured step: speed comes from the "
                                  "kernels themselves (precision, fusion), not from the host"});
    else if (sync > 0.3)
      out.push_back({"sync-bound", pct(sync) + " of every measured step is spent in host-device synchronization (" +
                                       fmt(e.gpu_mean(&GpuStep::syncs), 0) + " syncs per step)"});
    else if (busy < 0.5 && e.gpu_mean(&GpuStep::launches) > 200)
      out.push_back({"launch-bound", "the GPU is busy only " + pct(busy) + " of the step while the host launches " +
                                         fmt(e.gpu_mean(&GpuStep::launches), 0) +
                                         " kernels per step: launch overhead dominates (CUDA graphs, torch.compile)"});
  }
  // On the CPU the phases say where the step goes (the GPU's own clock is the tracing's job).
  if (const auto ph = summarize_phases(e); ph && !e.gpu_traced() && (e.device_kind != "cuda" || !ph->host_clock)) {
    if (auto d = diagnose_phases(*ph, e.median_step_ms())) out.push_back({d->kind, d->text});
    return out;
  }
  const double share = e.data_wait_share();
  if (!e.measured().empty() && share > 0.5)
    out.push_back({"data-bound", pct(share) + " of every measured step waits for the DataLoader (median step " +
                                     fmt(e.median_step_ms()) + " ms)"});
  return out;
}

std::vector<size_t> rank(const std::vector<Finding>& findings) {
  std::vector<size_t> idx(findings.size());
  for (size_t i = 0; i < idx.size(); ++i) idx[i] = i;
  auto tier = [&](size_t i) {
    const auto& v = findings[i].verdict;
    if (!v) return 1;
    switch (v->state) {
      case State::Confirmed: return 0;
      case State::Refuted: return 2;
      default: return 1;
    }
  };
  std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) {
    if (tier(a) != tier(b)) return tier(a) < tier(b);
    if (tier(a) == 0) return ranking_ms(*findings[a].verdict) > ranking_ms(*findings[b].verdict);
    return false;
  });
  return idx;
}

}  // namespace perflint::probe
