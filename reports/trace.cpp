// `--trace`: the Chrome trace-event format (JSON object form) that Perfetto and chrome://tracing
// open. One process per rank; threads: the training loop (steps and their phases, B/E pairs), host
// syncs (instant events with their source line), GPU activity (aggregated per step by the CUPTI
// library: one slice per step, not individual kernels). Timestamps in microseconds.
#include <algorithm>
#include <cstdio>

#include "reports/detail.hpp"
#include "reports/timeline.hpp"

namespace perflint {
namespace {

constexpr int kLoopTid = 1, kSyncTid = 2, kGpuTid = 3;

std::string us(double ms_value) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.3f", ms_value * 1000.0);
  return buf;
}

std::string num(double v) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

struct Writer {
  std::string out;
  size_t events = 0;
  void add(const std::string& event) {
    out += events++ ? ",\n" : "\n";
    out += event;
  }
  static std::string head(const std::string& name, const char* ph, int pid, int tid) {
    return "{\"name\":\"" + json_escape(name) + "\",\"ph\":\"" + ph + "\",\"pid\":" + std::to_string(pid) +
           ",\"tid\":" + std::to_string(tid);
  }
  void meta(const char* what, int pid, int tid, const std::string& name) {
    add(head(what, "M", pid, tid) + ",\"ts\":0,\"args\":{\"name\":\"" + json_escape(name) + "\"}}");
  }
  void begin(const std::string& name, const char* cat, int pid, int tid, double ts_ms, const std::string& args = "") {
    add(head(name, "B", pid, tid) + ",\"cat\":\"" + cat + "\",\"ts\":" + us(ts_ms) +
        (args.empty() ? "" : ",\"args\":{" + args + "}") + "}");
  }
  void end(const std::string& name, int pid, int tid, double ts_ms) {
    add(head(name, "E", pid, tid) + ",\"ts\":" + us(ts_ms) + "}");
  }
};

// Where each step starts: the shim's start_ms when it wrote them (increasing), else laid end to end.
std::vector<double> step_starts(const probe::Evidence& e) {
  std::vector<double> starts;
  bool have = false;
  for (const auto& s : e.steps) have = have || s.start_ms > 0.0;
  double t = 0.0;
  for (const auto& s : e.steps) {
    const double at = have ? std::max(s.start_ms, t) : t;  // never overlapping the previous step
    starts.push_back(at);
    t = at + std::max(0.0, s.wall_ms);
  }
  return starts;
}

// The events of one step on the loop thread: 2 for the step, 2 per phase part.
size_t loop_events(const probe::StepEvidence& s) { return 2 + (s.warmup ? 0 : s.phases ? 12 : 4); }

}  // namespace

std::string write_trace(const ProbeRunView& run, size_t max_events) {
  Writer w;
  std::string truncated;
  size_t steps_written = 0;
  // Each rank gets an equal share of the budget, after its metadata.
  const size_t per_rank = run.ranks.empty() ? 0 : max_events / run.ranks.size();
  for (const auto* e : run.ranks) {
    const int pid = e->rank;
    const size_t start_events = w.events;
    w.meta("process_name", pid, 0, "rank " + std::to_string(e->rank) + (e->rank == run.straggler_rank ? " (straggler)" : ""));
    w.add(Writer::head("process_sort_index", "M", pid, 0) + ",\"ts\":0,\"args\":{\"sort_index\":" + std::to_string(e->rank) + "}}");
    w.meta("thread_name", pid, kLoopTid, "training loop (steps, phases)");
    w.meta("thread_name", pid, kSyncTid, "host syncs (per step, source line in args)");
    if (e->gpu_traced()) w.meta("thread_name", pid, kGpuTid, "GPU activity (aggregated per step)");
    const auto starts = step_starts(*e);
    const size_t budget = per_rank > (w.events - start_events) ? per_rank - (w.events - start_events) : 0;
    // How many steps fit: loop events plus one sync event per site plus one GPU slice pair.
    size_t used = 0, fit = 0;
    for (const auto& s : e->steps) {
      const size_t need = loop_events(s) + s.syncs.size() + (e->gpu_traced() ? 2 : 0);
      if (used + need > budget) break;
      used += need;
      ++fit;
    }
    steps_written += fit;
    // The loop thread: step slices with their phases nested, laid out in phase order from the step's
    // start (the shim measures each phase's duration, not where in the step it fell).
    for (size_t i = 0; i < fit; ++i) {
      const auto& s = e->steps[i];
      const double t0 = starts[i], t1 = t0 + std::max(0.0, s.wall_ms);
      const std::string name = "step " + std::to_string(i + 1) + (s.warmup ? " (warm-up)" : "");
      w.begin(name, "step", pid, kLoopTid, t0,
              "\"step\":" + std::to_string(i + 1) + ",\"warmup\":" + (s.warmup ? "true" : "false") +
                  ",\"wall_ms\":" + num(s.wall_ms) + ",\"data_wait_ms\":" + num(s.data_wait_ms));
      if (!s.warmup) {
        std::vector<std::pair<const char*, double>> parts;
        if (s.phases)
          parts = {{"data wait", s.phases->data_ms},   {"copies (host to device)", s.phases->h2d_ms},
                   {"forward", s.phases->forward_ms}, {"backward", s.phases->backward_ms},
                   {"optimizer", s.phases->optimizer_ms}, {"other", s.phases->other_ms}};
        else
          parts = {{"data wait", s.data_wait_ms}, {"the rest of the step", std::max(0.0, s.wall_ms - s.data_wait_ms)}};
        double t = t0;
        for (const auto& [part, v] : parts) {
          const double d = std::max(0.0, std::min(v, t1 - t));
          w.begin(part, "phase", pid, kLoopTid, t, "\"ms\":" + num(v));
          w.end(part, pid, kLoopTid, t + d);
          t += d;
        }
      }
      w.end(name, pid, kLoopTid, t1);
    }
    // Host syncs: the shim counts them per step and source line; each site is an instant event at
    // the step's end with its count (their moment within the step is not recorded).
    for (size_t i = 0; i < fit; ++i)
      for (const auto& sync : e->steps[i].syncs) {
        const double t = starts[i] + std::max(0.0, e->steps[i].wall_ms);
        w.add(Writer::head("host sync: " + sync.op, "i", pid, kSyncTid) + ",\"cat\":\"sync\",\"s\":\"t\",\"ts\":" + us(t) +
              ",\"args\":{\"file\":\"" + json_escape(sync.file) + "\",\"line\":" + std::to_string(sync.line) +
              ",\"source\":\"" + json_escape(sync.file + ":" + std::to_string(sync.line)) + "\",\"count\":" +
              std::to_string(sync.count) + ",\"cuda\":" + (sync.cuda ? "true" : "false") + ",\"step\":" +
              std::to_string(i + 1) + "}}");
      }
    // GPU: the CUPTI library keeps the last measured steps' totals; each is drawn from its step's
    // start for its busy time (kernel-level slices are not in the evidence).
    if (e->gpu_traced()) {
      const auto measured = e->measured();
      const size_t first_measured = e->steps.size() - measured.size();
      const size_t offset = measured.size() - std::min(measured.size(), e->gpu_steps.size());
      for (size_t g = 0; g < e->gpu_steps.size() && g < measured.size(); ++g) {
        const size_t i = first_measured + offset + g;
        if (i >= fit) break;
        const auto& gs = e->gpu_steps[g];
        const double busy = std::min(gs.busy_ns / 1e6, std::max(0.0, e->steps[i].wall_ms));
        const std::string name = "GPU busy, step " + std::to_string(i + 1);
        w.begin(name, "gpu", pid, kGpuTid, starts[i],
                "\"busy_ms\":" + num(gs.busy_ns / 1e6) + ",\"kernels\":" + num(gs.kernels) + ",\"h2d_bytes\":" +
                    num(gs.h2d_bytes) + ",\"d2h_bytes\":" + num(gs.d2h_bytes) + ",\"syncs\":" + num(gs.syncs) +
                    ",\"note\":\"aggregated per step: kernels and copies are not individually timed\"");
        w.end(name, pid, kGpuTid, starts[i] + busy);
      }
    }
    if (fit < e->steps.size())
      truncated += (truncated.empty() ? "" : "; ") + std::string("rank ") + std::to_string(e->rank) + ": " +
                   std::to_string(fit) + " of " + std::to_string(e->steps.size()) + " steps";
  }
  std::string other = "\"tool\":\"perflint " PERFLINT_VERSION "\"";
  if (run.summary) {
    other += ",\"script\":\"" + json_escape(run.summary->script) + "\",\"device\":\"" + json_escape(run.summary->device) +
             "\",\"torch\":\"" + json_escape(run.summary->torch) + "\"";
  }
  other += ",\"steps\":" + std::to_string(steps_written) + ",\"events\":" + std::to_string(w.events) +
           ",\"max_events\":" + std::to_string(max_events);
  other += ",\"phase_layout\":\"phases are drawn in order from the step's start; the shim measures their durations, not "
           "their position\"";
  bool gpu = false;
  for (const auto* e : run.ranks) gpu = gpu || e->gpu_traced();
  other += std::string(",\"gpu\":\"") +
           (gpu ? "per-step totals from CUPTI (busy time, kernels, copies); no per-kernel slices"
                : "no GPU activity in this run (CPU device, or GPU tracing off: PERFLINT_CUPTI=1)") +
           "\"";
  if (!run.straggler_text.empty()) other += ",\"straggler\":\"" + json_escape(run.straggler_text) + "\"";
  if (!truncated.empty())
    other += ",\"truncated\":\"" + json_escape("cut to " + std::to_string(max_events) + " events: " + truncated) + "\"";
  return "{\"displayTimeUnit\":\"ms\",\"otherData\":{" + other + "},\"traceEvents\":[" + w.out + "\n]}\n";
}

}  // namespace perflint
