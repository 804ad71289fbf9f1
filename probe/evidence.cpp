// Evidence reader: JSON -> typed evidence, with errors that name the file and what is missing.
#include "probe/evidence.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <type_traits>
#include <fstream>
#include <sstream>

#include "probe/json_read.hpp"

namespace perflint::probe {
namespace {

// "/path/train.py:42" -> ("/path/train.py", 42)
void split_site(const std::string& site, std::string& file, uint32_t& line) {
  const auto colon = site.rfind(':');
  if (colon == std::string::npos) {
    file = site;
    return;
  }
  file = site.substr(0, colon);
  line = static_cast<uint32_t>(std::strtoul(site.c_str() + colon + 1, nullptr, 10));
}

// Numbers in the evidence file are doubles written by a script that may have crashed or lied
// (`sys.exit(10**20)`); converting one out of an integer type's range is undefined behaviour, so
// every conversion goes through here: range-checked first, clamped to the type, NaN -> `fallback`.
template <class Int>
Int to_integer(std::optional<double> v, Int fallback) {
  if (!v || std::isnan(*v)) return fallback;
  // One past the maximum, and the minimum: powers of two (or zero), exact as doubles.
  const double hi = std::ldexp(1.0, std::numeric_limits<Int>::digits);
  const double lo = std::is_signed_v<Int> ? -hi : 0.0;
  if (*v <= lo) return std::numeric_limits<Int>::min();
  if (*v >= hi) return std::numeric_limits<Int>::max();
  return static_cast<Int>(*v);
}

}  // namespace

std::vector<const StepEvidence*> Evidence::measured() const {
  std::vector<const StepEvidence*> out;
  for (const auto& s : steps)
    if (!s.warmup) out.push_back(&s);
  return out;
}

double median_of(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2.0;
}

double quantile_of(std::vector<double> v, double q) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const double pos = q * static_cast<double>(v.size() - 1);
  const size_t lo = static_cast<size_t>(pos);
  const size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
}

double Evidence::median_step_ms() const {
  std::vector<double> v;
  for (const auto* s : measured()) v.push_back(s->wall_ms);
  return median_of(std::move(v));
}

double Evidence::mean_step_ms() const {
  const auto m = measured();
  if (m.empty()) return 0.0;
  double sum = 0.0;
  for (const auto* s : m) sum += s->wall_ms;
  return sum / static_cast<double>(m.size());
}

double Evidence::data_wait_share() const {
  double wait = 0.0, wall = 0.0;
  for (const auto* s : measured()) {
    wait += s->data_wait_ms;
    wall += s->wall_ms;
  }
  return wall > 0.0 ? wait / wall : 0.0;
}

Expected<Evidence> parse_evidence(const std::string& text, const std::string& path) {
  auto doc = jsonr::parse(text, path);
  if (!doc) return make_error(doc.error().message + " (corrupt evidence file)");
  const jsonr::Node& d = *doc;
  if (!d.is_object()) return make_error(path + ": evidence is not a JSON object");
  if (d.num("schema") != 1.0) return make_error(path + ": unsupported evidence schema (expected 1)");
  Evidence e;
  e.path = path;
  e.python = d.string("python").value_or("");
  e.python_version = d.string("python_version").value_or("");
  e.torch = d.string("torch").value_or("");
  e.script = d.string("script").value_or("");
  e.step_marker = d.string("step_marker").value_or("");
  e.step_clock = d.string("step_clock").value_or("host") == "cuda_events" ? "cuda_events" : "host";
  e.steps_requested = to_integer<int>(d.num("steps_requested"), 0);
  e.warmup = to_integer<int>(d.num("warmup"), 0);
  e.warmup_added = to_integer<int>(d.num("warmup_added"), 0);
  e.warmup_reason = d.string("warmup_reason").value_or("");
  e.rank = to_integer<int>(d.num("rank"), 0);
  e.local_rank = to_integer<int>(d.num("local_rank"), 0);
  e.world_size = to_integer<int>(d.num("world_size"), 1);
  if (const auto* dev = d.get("device"); dev && dev->is_object()) {
    e.device_kind = dev->string("kind").value_or("cpu");
    e.device_name = dev->string("name").value_or("");
    e.capability = dev->string("capability").value_or("");
  }
  if (const auto* mem = d.get("memory"); mem && mem->is_object()) {
    e.memory_kind = mem->string("kind").value_or("");
    e.peak_bytes = to_integer<uint64_t>(mem->num("peak_bytes"), 0);
    e.total_bytes = to_integer<uint64_t>(mem->num("total_bytes"), 0);
  }
  const auto* exit = d.get("exit");
  if (!exit || !exit->is_object() || !exit->string("reason"))
    return make_error(path + ": evidence has no exit.reason (corrupt evidence file)");
  e.exit_reason = *exit->string("reason");
  e.exit_code = to_integer<int>(exit->num("code"), 0);
  e.traceback = exit->string("traceback").value_or("");
  e.sync_debug = d.boolean("sync_debug").value_or(false);
  if (const auto* g = d.get("gemm_shapes"); g && g->is_array())
    for (const auto& x : g->items) {
      Evidence::GemmSeen seen;
      seen.m = to_integer<int64_t>(x.num("m"), 0);
      seen.n = to_integer<int64_t>(x.num("n"), 0);
      seen.k = to_integer<int64_t>(x.num("k"), 0);
      seen.calls = to_integer<int64_t>(x.num("calls"), 0);
      if (seen.m > 0 && seen.n > 0 && seen.k > 0) e.gemm_shapes.push_back(seen);
    }
  if (const auto* applied = d.get("applied"); applied && applied->is_array())
    for (const auto& a : applied->items) {
      AppliedFix fix;
      fix.fix = a.string("fix").value_or("");
      fix.count = to_integer<int>(a.num("applied"), 0);
      fix.error = a.string("error").value_or("");
      e.applied.push_back(std::move(fix));
    }
  const auto* steps = d.get("steps");
  if (!steps || !steps->is_array()) return make_error(path + ": evidence has no steps array (corrupt evidence file)");
  for (const auto& s : steps->items) {
    if (!s.is_object()) return make_error(path + ": a step is not an object (corrupt evidence file)");
    StepEvidence st;
    st.warmup = s.boolean("warmup").value_or(false);
    st.wall_ms = s.num("wall_ms").value_or(0.0);
    st.start_ms = s.num("start_ms").value_or(0.0);
    // Phases in ms, each clamped to [0, 1e9]: the host clock's (`phases`) and, on CUDA, the GPU's
    // from CUDA events (`gpu_phases`: no data or other, those are host time).
    auto read_phases = [](const jsonr::Node& ph) {
      auto ms = [&](std::string_view k) { return std::clamp(ph.num(k).value_or(0.0), 0.0, 1e9); };
      StepPhases p;
      p.data_ms = ms("data_ms");
      p.h2d_ms = ms("h2d_ms");
      p.forward_ms = ms("forward_ms");
      p.backward_ms = ms("backward_ms");
      p.optimizer_ms = ms("optimizer_ms");
      p.other_ms = ms("other_ms");
      return p;
    };
    if (const auto* ph = s.get("phases"); ph && ph->is_object()) st.phases = read_phases(*ph);
    if (const auto* ph = s.get("gpu_phases"); ph && ph->is_object()) st.gpu_phases = read_phases(*ph);
    st.data_wait_ms = s.num("data_wait_ms").value_or(0.0);
    st.autocast = s.boolean("autocast").value_or(false);
    st.checkpoint_calls = to_integer<uint32_t>(s.num("checkpoint_calls"), 0);
    st.checkpoint_forward_ms = s.num("checkpoint_forward_ms").value_or(0.0);
    if (const auto* f = s.get("flags"); f && f->is_object()) {
      st.anomaly = f->boolean("anomaly").value_or(false);
      st.profiler = f->boolean("profiler").value_or(false);
      st.tf32_matmul = f->boolean("tf32_matmul").value_or(false);
      st.cudnn_benchmark = f->boolean("cudnn_benchmark").value_or(false);
      st.deterministic = f->boolean("deterministic_algorithms").value_or(false);
      st.cudnn_deterministic = f->boolean("cudnn_deterministic").value_or(false);
      st.launch_blocking = f->boolean("launch_blocking").value_or(false);
    }
    st.zero_grad_calls = to_integer<uint32_t>(s.num("zero_grad_calls"), 0);
    st.zero_grad_fill_calls = to_integer<uint32_t>(s.num("zero_grad_fill_calls"), 0);
    st.zero_grad_ms = s.num("zero_grad_ms").value_or(0.0);
    st.comm_ms = std::max(0.0, s.num("comm_ms").value_or(0.0));
    st.comm_calls = to_integer<uint32_t>(s.num("comm_calls"), 0);
    st.ddp_allreduce_ms = std::max(0.0, s.num("ddp_allreduce_ms").value_or(0.0));
    st.ddp_buckets = to_integer<uint32_t>(s.num("ddp_buckets"), 0);
    st.ddp_forwards = to_integer<uint32_t>(s.num("ddp_forwards"), 0);
    st.ddp_forward_overhead_ms = std::max(0.0, s.num("ddp_forward_overhead_ms").value_or(0.0));
    st.ddp_find_unused = s.boolean("ddp_find_unused").value_or(false);
    if (const auto c = s.num("compiles")) st.compiles = to_integer<int64_t>(c, 0);
    if (const auto* syncs = s.get("syncs"); syncs && syncs->is_array())
      for (const auto& y : syncs->items) {
        SyncEvidence se;
        split_site(y.string("site").value_or("?"), se.file, se.line);
        se.op = y.string("op").value_or("");
        se.count = to_integer<uint64_t>(y.num("count"), 0);
        se.cuda = y.boolean("cuda").value_or(false);
        st.syncs.push_back(std::move(se));
      }
    e.steps.push_back(std::move(st));
  }
  if (const auto* loaders = d.get("dataloaders"); loaders && loaders->is_array())
    for (const auto& l : loaders->items) {
      LoaderEvidence le;
      le.site = l.string("site").value_or("?");
      split_site(le.site, le.file, le.line);
      le.num_workers = to_integer<int>(l.num("num_workers"), 0);
      le.pin_memory = l.boolean("pin_memory").value_or(false);
      le.persistent_workers = l.boolean("persistent_workers").value_or(false);
      le.iterators = to_integer<int>(l.num("iterators"), 0);
      le.batches = to_integer<int>(l.num("batches"), 0);
      le.wait_ms = l.num("wait_ms").value_or(0.0);
      if (const auto* f = l.get("first_batch_wait_ms"); f && f->is_array())
        for (const auto& x : f->items) le.first_batch_wait_ms.push_back(x.number);
      e.loaders.push_back(std::move(le));
    }
  return e;
}

// The library's JSON keys (probe/cupti/aggregate.cpp, to_json) and where they go.
const std::pair<const char*, double GpuStep::*> kGpuFields[] = {
    {"wall_ns", &GpuStep::wall_ns},     {"busy_ns", &GpuStep::busy_ns},
    {"kernels", &GpuStep::kernels},     {"launches", &GpuStep::launches},
    {"syncs", &GpuStep::syncs},         {"sync_ns", &GpuStep::sync_ns},
    {"sync_idle_ns", &GpuStep::sync_idle_ns},
    {"h2d_bytes", &GpuStep::h2d_bytes}, {"h2d_pageable_bytes", &GpuStep::h2d_pageable_bytes},
    {"h2d_ns", &GpuStep::h2d_ns},       {"h2d_sync_copies", &GpuStep::h2d_sync_copies},
    {"d2h_bytes", &GpuStep::d2h_bytes}, {"d2h_ns", &GpuStep::d2h_ns}};
const std::pair<const char*, double GpuStep::*> kKernelFields[] = {
    {"fp32_gemm", &GpuStep::fp32_gemm_ns}, {"tf32_gemm", &GpuStep::tf32_gemm_ns},
    {"16bit_gemm", &GpuStep::half_gemm_ns}, {"conv", &GpuStep::conv_ns},
    {"attention", &GpuStep::attention_ns}};

double Evidence::gpu_mean(double GpuStep::*field) const {
  if (gpu_steps.empty()) return 0.0;
  double sum = 0.0;
  for (const auto& s : gpu_steps) sum += s.*field;
  return sum / static_cast<double>(gpu_steps.size());
}

double Evidence::gpu_busy_share() const {
  const double wall = gpu_mean(&GpuStep::wall_ns);
  return wall > 0.0 ? gpu_mean(&GpuStep::busy_ns) / wall : 0.0;
}

Expected<bool> add_gpu_activity(Evidence& e, const std::string& text, const std::string& path) {
  auto doc = jsonr::parse(text, path);
  if (!doc) return make_error(doc.error().message + " (corrupt GPU activity file)");
  e.gpu_status = doc->string("status").value_or("unknown");
  e.gpu_clock = doc->string("clock").value_or("host") == "gpu" ? "gpu" : "host";
  const auto* steps = doc->get("steps");
  if (!steps || !steps->is_array()) return true;
  std::vector<GpuStep> all;
  for (const auto& s : steps->items) {
    GpuStep g;
    for (const auto& [key, member] : kGpuFields) g.*member = s.num(key).value_or(0);
    if (const auto* k = s.get("kernel_ns"); k && k->is_object())
      for (const auto& [key, member] : kKernelFields) g.*member = k->num(key).value_or(0);
    all.push_back(g);
  }
  // Tracing is off during warm-up: keep the steps that match the measured ones (the last ones).
  const size_t keep = std::min(all.size(), e.measured().size());
  e.gpu_steps.assign(all.end() - static_cast<std::ptrdiff_t>(keep), all.end());
  // A CUDA training step launches kernels: a trace with none in any measured step did not see the
  // run (torch.profiler or another tool took CUPTI's activity buffers after the library started;
  // seen on an H200). Its zeros would refute findings, so it is not used.
  // (Its wall time and host syncs say nothing of GPU work.)
  const auto idle = [](const GpuStep& g) {
    for (const auto& [key, member] : kGpuFields)
      if (member != &GpuStep::wall_ns && member != &GpuStep::syncs && member != &GpuStep::sync_ns && g.*member != 0)
        return false;
    for (const auto& [key, member] : kKernelFields)
      if (g.*member != 0) return false;
    return true;
  };
  if (!e.gpu_steps.empty() && e.device_kind == "cuda" && std::all_of(e.gpu_steps.begin(), e.gpu_steps.end(), idle)) {
    e.gpu_steps.clear();
    if (e.gpu_status == "ok")
      e.gpu_status = "unavailable: no kernel was recorded in the measured steps (another profiler, such as "
                     "torch.profiler, holds CUPTI); the GPU figures are not used";
  }
  return true;
}

Expected<Evidence> read_evidence(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return make_error(path + ": cannot read the evidence file (the script may have died before the probe wrote it)");
  std::stringstream ss;
  ss << in.rdbuf();
  auto e = parse_evidence(ss.str(), path);
  if (!e) return e;
  const std::string gpu = path + ".cupti.json";
  if (std::ifstream g{gpu, std::ios::binary}) {
    std::stringstream gs;
    gs << g.rdbuf();
    if (auto added = add_gpu_activity(*e, gs.str(), gpu); !added) return make_error(added.error().message);
  }
  return e;
}

}  // namespace perflint::probe
