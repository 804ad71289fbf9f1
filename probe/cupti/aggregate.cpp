// Kernel classification and per-step bucketing of GPU activity (see aggregate.hpp).
#include "probe/cupti/aggregate.hpp"

#include "parser/text_util.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <iterator>
#include <utility>

namespace perflint::cupti {
namespace {

bool has(std::string_view hay, std::string_view needle) { return icontains(hay, needle); }

// Index of the step whose [mark_i, mark_i+1) holds ts, or -1.
long step_of(const std::vector<uint64_t>& marks, uint64_t ts) {
  if (marks.size() < 2 || ts < marks.front() || ts >= marks.back()) return -1;
  auto it = std::upper_bound(marks.begin(), marks.end(), ts);
  return static_cast<long>(it - marks.begin()) - 1;
}

}  // namespace

std::string_view to_string(KernelClass c) {
  switch (c) {
    case KernelClass::Fp32Gemm: return "fp32_gemm";
    case KernelClass::Tf32Gemm: return "tf32_gemm";
    case KernelClass::Half16Gemm: return "16bit_gemm";
    case KernelClass::Conv: return "conv";
    case KernelClass::Attention: return "attention";
    case KernelClass::Memset: return "memset";
    case KernelClass::Other: return "other";
  }
  return "other";
}

KernelClass classify_kernel(std::string_view n) {
  // Attention first: flash/memory-efficient kernels contain GEMM-like tiles in their names.
  if (has(n, "flash") || has(n, "fmha") || has(n, "attention") || has(n, "attn")) return KernelClass::Attention;
  if (has(n, "memset") || has(n, "fill_kernel") || has(n, "zero_")) return KernelClass::Memset;
  const bool conv = has(n, "conv") || has(n, "implicit_gemm") || has(n, "wgrad") || has(n, "dgrad") || has(n, "fprop");
  if (conv) return KernelClass::Conv;
  const bool gemm = has(n, "gemm") || has(n, "cutlass") || has(n, "matmul") || has(n, "xmma") || has(n, "cublas");
  if (!gemm) return KernelClass::Other;
  // cuBLAS/CUTLASS name the math: tf32, h/f16/bf16 (hmma), s (sgemm, fp32 SIMT).
  if (has(n, "tf32")) return KernelClass::Tf32Gemm;
  if (has(n, "bf16") || has(n, "f16") || has(n, "fp16") || has(n, "hmma") || has(n, "h884") || has(n, "h1688") ||
      has(n, "h16816") || has(n, "half"))
    return KernelClass::Half16Gemm;
  // Tensor-core shapes with fp32 operands (cuBLAS `s1688gemm`, CUTLASS `tensorop_s...`) run TF32.
  if (has(n, "1688") || has(n, "16816") || has(n, "tensorop_s")) return KernelClass::Tf32Gemm;
  return KernelClass::Fp32Gemm;
}

double StepActivity::busy_share() const {
  const uint64_t wall = end_ns > start_ns ? end_ns - start_ns : 0;
  return wall ? static_cast<double>(busy_ns) / static_cast<double>(wall) : 0.0;
}

void Aggregator::mark_step(uint64_t ts_ns) {
  if (marks_.empty() || ts_ns >= marks_.back()) marks_.push_back(ts_ns);
}
void Aggregator::set_device_marks(std::vector<uint64_t> ts_ns) {
  if (ts_ns.size() == marks_.size() && std::is_sorted(ts_ns.begin(), ts_ns.end())) device_marks_ = std::move(ts_ns);
}
bool Aggregator::device_clock() const { return !marks_.empty() && device_marks_.size() == marks_.size(); }
void Aggregator::add(const KernelRecord& r) { kernels_.push_back(r); }
void Aggregator::add(const MemcpyRecord& r) { copies_.push_back(r); }
void Aggregator::add(const SyncRecord& r) { syncs_.push_back(r); }
void Aggregator::add(const LaunchRecord& r) { launches_.push_back(r); }

// The GPU's busy runs over the whole trace (kernels and copies, every stream), merged and sorted.
std::vector<std::pair<uint64_t, uint64_t>> Aggregator::busy_runs() const {
  std::vector<std::pair<uint64_t, uint64_t>> iv;
  for (const auto& k : kernels_)
    if (k.end_ns > k.start_ns) iv.emplace_back(k.start_ns, k.end_ns);
  for (const auto& c : copies_)
    if (c.end_ns > c.start_ns) iv.emplace_back(c.start_ns, c.end_ns);
  std::sort(iv.begin(), iv.end());
  std::vector<std::pair<uint64_t, uint64_t>> runs;
  for (const auto& [a, b] : iv) {
    if (!runs.empty() && a <= runs.back().second) runs.back().second = std::max(runs.back().second, b);
    else runs.emplace_back(a, b);
  }
  return runs;
}

// A sync that waited: the GPU was busy when the host began waiting (a busy run holds its start), and
// the last GPU work that started before the sync returned had ended by then (.item() waits for the
// kernels and then its own small device-to-host copy, a run of its own). The idle gap after that
// work (to the next run) counts once, in the step of the sync (host marks), however many syncs
// waited on the same work.
void Aggregator::add_sync_idle(std::vector<StepActivity>& out) const {
  const auto runs = busy_runs();
  std::vector<bool> counted(runs.size(), false);
  const auto last_before = [&](uint64_t t) {  // the run that started last at or before t, or npos
    auto it = std::upper_bound(runs.begin(), runs.end(), std::make_pair(t, UINT64_MAX));
    return it == runs.begin() ? std::string::npos : static_cast<size_t>(std::prev(it) - runs.begin());
  };
  for (const auto& y : syncs_) {
    const long s = step_of(marks_, y.start_ns);
    if (s < 0) continue;
    const size_t first = last_before(y.start_ns), r = last_before(y.end_ns);
    if (first == std::string::npos || y.start_ns >= runs[first].second) continue;  // the GPU was idle: no wait
    if (runs[r].second > y.end_ns || r + 1 >= runs.size() || counted[r]) continue;
    counted[r] = true;
    out[s].sync_idle_ns += runs[r + 1].first - runs[r].second;
  }
}

std::vector<StepActivity> Aggregator::steps() const {
  const std::vector<uint64_t>& device = device_clock() ? device_marks_ : marks_;
  std::vector<StepActivity> out(marks_.size() < 2 ? 0 : marks_.size() - 1);
  for (size_t i = 0; i < out.size(); ++i) {
    out[i].start_ns = device[i];
    out[i].end_ns = device[i + 1];
  }
  std::vector<std::vector<std::pair<uint64_t, uint64_t>>> busy(out.size());
  for (const auto& k : kernels_) {
    const long s = step_of(device, k.start_ns);
    if (s < 0) continue;
    const uint64_t d = k.end_ns > k.start_ns ? k.end_ns - k.start_ns : 0;
    out[s].kernel_ns[static_cast<int>(classify_kernel(k.name))] += d;
    ++out[s].kernels;
    busy[s].emplace_back(k.start_ns, std::min(k.end_ns, out[s].end_ns));
  }
  for (const auto& c : copies_) {
    const long s = step_of(device, c.start_ns);
    if (s < 0) continue;
    const uint64_t d = c.end_ns > c.start_ns ? c.end_ns - c.start_ns : 0;
    if (c.kind == CopyKind::HostToDevice) {
      out[s].h2d_bytes += c.bytes;
      out[s].h2d_ns += d;
      if (c.host_pageable) out[s].h2d_pageable_bytes += c.bytes;
      if (!c.async || c.host_pageable) ++out[s].h2d_sync_copies;  // pageable copies block the host
    } else if (c.kind == CopyKind::DeviceToHost) {
      out[s].d2h_bytes += c.bytes;
      out[s].d2h_ns += d;
    }
    busy[s].emplace_back(c.start_ns, std::min(c.end_ns, out[s].end_ns));
  }
  for (const auto& y : syncs_) {
    const long s = step_of(marks_, y.start_ns);
    if (s < 0) continue;
    ++out[s].syncs;
    out[s].sync_ns += y.end_ns > y.start_ns ? y.end_ns - y.start_ns : 0;
  }
  for (const auto& l : launches_) {
    const long s = step_of(marks_, l.start_ns);
    if (s >= 0) ++out[s].launches;
  }
  add_sync_idle(out);
  // Busy time is the union of the intervals: overlapping kernels (streams) count once.
  for (size_t s = 0; s < out.size(); ++s) {
    auto& iv = busy[s];
    std::sort(iv.begin(), iv.end());
    uint64_t total = 0, cur_start = 0, cur_end = 0;
    bool open = false;
    for (const auto& [a, b] : iv) {
      if (b <= a) continue;
      if (!open || a > cur_end) {
        if (open) total += cur_end - cur_start;
        cur_start = a;
        cur_end = b;
        open = true;
      } else {
        cur_end = std::max(cur_end, b);
      }
    }
    if (open) total += cur_end - cur_start;
    out[s].busy_ns = total;
  }
  return out;
}

std::string to_json(const std::vector<StepActivity>& steps) {
  std::string out = "[";
  char buf[1024];
  for (size_t i = 0; i < steps.size(); ++i) {
    const auto& s = steps[i];
    std::snprintf(buf, sizeof buf,
                  "%s\n {\"wall_ns\": %llu, \"busy_ns\": %llu, \"kernels\": %llu, \"launches\": %llu, "
                  "\"syncs\": %llu, \"sync_ns\": %llu, \"sync_idle_ns\": %llu, \"h2d_bytes\": %llu, \"h2d_pageable_bytes\": %llu, "
                  "\"h2d_ns\": %llu, \"h2d_sync_copies\": %llu, \"d2h_bytes\": %llu, \"d2h_ns\": %llu, \"kernel_ns\": {",
                  i ? "," : "", static_cast<unsigned long long>(s.end_ns - s.start_ns),
                  static_cast<unsigned long long>(s.busy_ns), static_cast<unsigned long long>(s.kernels),
                  static_cast<unsigned long long>(s.launches), static_cast<unsigned long long>(s.syncs),
                  static_cast<unsigned long long>(s.sync_ns), static_cast<unsigned long long>(s.sync_idle_ns),
                  static_cast<unsigned long long>(s.h2d_bytes),
                  static_cast<unsigned long long>(s.h2d_pageable_bytes), static_cast<unsigned long long>(s.h2d_ns),
                  static_cast<unsigned long long>(s.h2d_sync_copies), static_cast<unsigned long long>(s.d2h_bytes),
                  static_cast<unsigned long long>(s.d2h_ns));
    out += buf;
    for (int c = 0; c < 7; ++c) {
      std::snprintf(buf, sizeof buf, "%s\"%s\": %llu", c ? ", " : "",
                    std::string(to_string(static_cast<KernelClass>(c))).c_str(),
                    static_cast<unsigned long long>(s.kernel_ns[c]));
      out += buf;
    }
    out += "}}";
  }
  out += steps.empty() ? "]" : "\n]";
  return out;
}

std::string output_json(const std::string& status, const Aggregator* agg) {
  return "{\"status\": \"" + status + "\", \"clock\": \"" + (agg && agg->device_clock() ? "gpu" : "host") +
         "\", \"steps\": " + (agg ? to_json(agg->steps()) : "[]") + "}\n";
}

}  // namespace perflint::cupti
