// The probe command: interpreter choice, shim look-up, run, evidence, verdicts (see probe_cmd.hpp).
#include "cli/probe_cmd.hpp"

#include <signal.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <thread>

#include "probe/evidence.hpp"
#include "probe/evidence_log.hpp"
#include "probe/runner.hpp"
#include "probe/verdict.hpp"
#include "util/io.hpp"
#include "probe/json_read.hpp"
#include "probe/phases.hpp"
#include "probe/ranks.hpp"
#include "probe/verify.hpp"

namespace perflint {
namespace {

void on_stop_signal(int sig) { probe::request_interrupt(sig); }

// SIGINT, SIGTERM and SIGHUP stop the script's process group; perflint waits for it and still
// prints the report (exit 3). Installed for the whole probe, verify runs included.
class StopSignals {
 public:
  StopSignals() {
    struct sigaction act {};
    act.sa_handler = on_stop_signal;
    sigemptyset(&act.sa_mask);
    for (size_t i = 0; i < kSignals.size(); ++i) ::sigaction(kSignals[i], &act, &old_[i]);
  }
  ~StopSignals() {
    for (size_t i = 0; i < kSignals.size(); ++i) ::sigaction(kSignals[i], &old_[i], nullptr);
  }
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

 private:
  static constexpr std::array<int, 3> kSignals{SIGINT, SIGTERM, SIGHUP};
  std::array<struct sigaction, 3> old_{};
};

// The last `lines` lines of the log, read from its last 64 KiB only, each line cut to 1000 bytes
// (a script that prints a 300 MB line does not get it into the report).
std::string tail_of(const std::string& path, size_t lines) {
  constexpr std::streamoff kWindow = 64 * 1024;
  constexpr size_t kLine = 1000;
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return {};
  const std::streamoff size = in.tellg();
  const std::streamoff from = size > kWindow ? size - kWindow : 0;
  in.seekg(from);
  std::string text(static_cast<size_t>(size - from), '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(in.gcount()));
  while (!text.empty() && text.back() == '\n') text.pop_back();
  std::vector<std::string> out;
  size_t end = text.size();
  while (out.size() < lines) {
    const size_t nl = end == 0 ? std::string::npos : text.rfind('\n', end - 1);
    const size_t begin = nl == std::string::npos ? 0 : nl + 1;
    std::string line = text.substr(begin, end - begin);
    const bool cut_before = begin == 0 && from > 0;  // the line started before the window
    if (line.size() > kLine || cut_before) {
      const size_t shown = std::min(line.size(), kLine);
      line = "[" + std::string(cut_before ? "a line of more than " + std::to_string(line.size()) + " bytes"
                                          : std::to_string(line.size()) + " bytes") +
             ", its end shown] " + line.substr(line.size() - shown);
    }
    out.push_back(std::move(line));
    if (nl == std::string::npos) break;
    end = nl;
  }
  std::string joined;
  for (auto it = out.rbegin(); it != out.rend(); ++it) joined += (joined.empty() ? "" : "\n") + *it;
  return joined;
}

std::string device_text(const probe::Evidence& e) {
  if (e.device_kind == "cuda") return e.device_name + " (compute capability " + e.capability + ")";
  return "CPU: " + (e.device_name.empty() ? std::string("unknown") : e.device_name) + " (no CUDA device used)";
}

// How a run ended when the shim could not say (it died before writing its evidence file).
void end_from_outcome(const probe::RunOutcome& outcome, probe::Evidence& e) {
  switch (outcome.end) {
    case probe::RunOutcome::End::Exited:
      e.exit_reason = "script_exit";
      e.exit_code = outcome.exit_code;
      break;
    case probe::RunOutcome::End::Signaled:
      e.exit_reason = "crash";
      e.exit_code = 128 + outcome.signal;
      break;
    case probe::RunOutcome::End::TimedOut: e.exit_reason = "timeout"; break;
    case probe::RunOutcome::End::Interrupted: e.exit_reason = "interrupted"; break;
  }
}

// The run's evidence: the shim's file, else the steps its per-step log kept (a hard death).
Expected<probe::Evidence> evidence_of(const probe::RunOutcome& outcome, const std::string& path) {
  auto e = probe::read_evidence(path);
  if (e || std::filesystem::exists(path)) return e;  // a corrupt file is an error of its own
  auto recovered = probe::recover_evidence(path);
  if (!recovered) return make_error("no step was recorded: the script ended before its first step completed");
  end_from_outcome(outcome, *recovered);
  return recovered;
}

// torch.distributed's share of the steps, when the run used it (a collective or DDP's all-reduce).
std::optional<CommSummary> comm_of(const probe::PhaseSummary& ph) {
  if (ph.collective_calls <= 0.0 && ph.ddp_buckets <= 0.0) return std::nullopt;
  CommSummary c;
  c.collective_ms = ph.collective_ms;
  c.collective_calls = ph.collective_calls;
  c.ddp_allreduce_ms = ph.ddp_allreduce_ms;
  c.ddp_buckets = ph.ddp_buckets;
  if (ph.mean_step_ms > 0.0) {
    c.collective_share = ph.collective_ms / ph.mean_step_ms;
    c.ddp_share = ph.ddp_allreduce_ms / ph.mean_step_ms;
  }
  return c;
}

}  // namespace

// The summary's figures from the run's evidence (rank 0's when there are ranks), and a verdict on
// each finding. How the process ended is the caller's to refine.
void summarize_evidence(const probe::Evidence& e, ProbeSummary& s, std::vector<FileResult>& results) {
  if (e.gpu_traced())
    s.overhead = "GPU tracing on after warm-up; its cost is not measured in one run (--verify measures it against "
                 "untraced runs; bench/probe_overhead.sh in pairs)";
  s.torch = e.torch;
  s.device = device_text(e);
  s.device_kind = e.device_kind;
  s.steps_measured = static_cast<int>(e.measured().size());
  if (e.warmup_added > 0)
    s.warmup_added = "+" + std::to_string(e.warmup_added) + " while the DataLoader's batches made ahead fed the steps, " +
                     (e.warmup_reason.empty() ? std::string("until the run ended") : e.warmup_reason);
  s.median_step_ms = e.median_step_ms();
  s.mean_step_ms = e.mean_step_ms();
  s.step_clock = e.step_clock;
  s.data_wait_share = e.data_wait_share();
  if (e.gpu_traced()) s.gpu_busy_share = e.gpu_busy_share();
  s.gpu_status = e.gpu_status;
  for (const auto& g : e.gemm_shapes)
    s.gemm_shapes.emplace_back(std::to_string(g.m) + "x" + std::to_string(g.n) + "x" + std::to_string(g.k), g.calls);
  s.exit_reason = e.exit_reason;
  s.exit_code = e.exit_code;
  for (const auto& d : probe::diagnose(e)) s.diagnoses.emplace_back(d.kind, d.text);
  if (const auto ph = probe::summarize_phases(e)) {
    for (const auto& f : ph->phases) s.phases.push_back({std::string(f.name), f.median_ms, f.p10_ms, f.p90_ms, f.share});
    s.syncs_per_step = ph->syncs_per_step;
    s.phases_host_clock = ph->host_clock;
    s.comm = comm_of(*ph);
  }
  for (size_t i = 0; i < e.steps.size(); ++i) {
    const auto& st = e.steps[i];
    StepRow row{static_cast<int>(i), st.warmup, st.start_ms, st.wall_ms, st.data_wait_ms, std::nullopt};
    if (st.phases)
      row.phases_ms = std::array<double, 6>{st.phases->data_ms,     st.phases->h2d_ms,       st.phases->forward_ms,
                                            st.phases->backward_ms, st.phases->optimizer_ms, st.phases->other_ms};
    s.steps.push_back(row);
  }
  // This device's calibration, when `perflint calibrate` has measured it: traced GPU costs become
  // estimates. Only GPU verdicts use it; a missing one is no error.
  std::optional<probe::Calibration> calibration;
  if (auto c = probe::find_calibration(e.device_kind, e.device_name)) {
    calibration = *c;
    s.calibration = c->path + " (" + c->date + ")";
  } else {
    s.calibration = e.device_kind == "cuda"
                        ? "none for this device: GPU costs are upper bounds (`perflint calibrate` measures it)"
                        : "none for this device (`perflint calibrate --device cpu`)";
  }
  for (auto& r : results)
    for (auto& f : r.findings) f.verdict = probe::judge(f, e, calibration ? &*calibration : nullptr);
}

// The last "XError: ..." line (torch's messages carry frames of their own after it), else the last line.
std::string error_line(std::string tb) {
  while (!tb.empty() && tb.back() == '\n') tb.pop_back();
  std::string last_error;
  size_t start = 0;
  while (start <= tb.size()) {
    size_t end = tb.find('\n', start);
    if (end == std::string::npos) end = tb.size();
    const std::string line = tb.substr(start, end - start);
    const size_t colon = line.find(':');
    if (colon != std::string::npos && colon > 0 && line[0] != ' ') {
      const std::string head = line.substr(0, colon);
      if ((head.ends_with("Error") || head.ends_with("Exception") || head.ends_with("Interrupt") ||
           head.ends_with("Exit")) &&
          head.find(' ') == std::string::npos)
        last_error = line;
    }
    start = end + 1;
  }
  if (!last_error.empty()) return last_error;
  return tb.substr(tb.rfind('\n') == std::string::npos ? 0 : tb.rfind('\n') + 1);
}

void fill_rank_figures(const probe::Evidence& ev, RankRow& row) {
  row.steps = static_cast<int>(ev.measured().size());
  row.median_step_ms = ev.median_step_ms();
  row.data_wait_share = ev.data_wait_share();
  if (const auto ph = probe::summarize_phases(ev)) {
    for (const auto& f : ph->phases) row.phases.push_back({std::string(f.name), f.median_ms, f.p10_ms, f.p90_ms, f.share});
    row.comm = comm_of(*ph);
  }
}

void set_straggler(const std::vector<probe::Evidence>& all, ProbeSummary& s) {
  std::vector<const probe::Evidence*> ptrs;
  for (const auto& e : all) ptrs.push_back(&e);
  if (const auto st = probe::find_straggler(ptrs)) {
    s.straggler = st->text;
    // Rank 0's phases blame backward for the time it waits for the straggler: the straggler is
    // the diagnosis of a multi-rank run.
    s.diagnoses = {{"straggler", st->text}};
  }
}

namespace {

// The evidence the verdicts are judged on: rank 0's when ranks were started (--nproc, a launcher).
std::string primary_evidence(const probe::RunnerOptions& ro) {
  return ro.nproc > 1 || !ro.launcher.empty() ? ro.evidence_path + ".rank0" : ro.evidence_path;
}

// A launcher's ranks, as the shim found their evidence (`<path>.ranks.json`'s "nproc"); 0: none.
int launcher_ranks(const std::string& path) {
  const FileRead manifest = read_whole_file(path + ".ranks.json", 1 << 20);
  if (manifest.status != FileRead::Status::Ok) return 0;
  auto doc = jsonr::parse(manifest.bytes, path + ".ranks.json");
  return doc ? static_cast<int>(doc->num("nproc").value_or(0.0)) : 0;
}

// --nproc: every rank's evidence (`<path>.rank<R>`) and how the launcher saw each end
// (`<path>.ranks.json`): the per-rank rows, the straggler, and the views' ranks.
void read_ranks(const probe::RunOutcome& outcome, const std::string& path, int nproc, ProbeSummary& s,
                std::vector<probe::Evidence>* views) {
  std::vector<probe::Evidence> all;
  const FileRead manifest = read_whole_file(path + ".ranks.json", 1 << 20);
  std::optional<jsonr::Node> info;
  if (manifest.status == FileRead::Status::Ok)
    if (auto doc = jsonr::parse(manifest.bytes, path + ".ranks.json")) info = std::move(*doc);
  for (int r = 0; r < nproc; ++r) {
    RankRow row;
    row.rank = r;
    const jsonr::Node* how = nullptr;
    if (info && info->get("ranks") && info->get("ranks")->is_array() && static_cast<size_t>(r) < info->get("ranks")->items.size())
      how = &info->get("ranks")->items[static_cast<size_t>(r)];
    auto ev = evidence_of(outcome, path + ".rank" + std::to_string(r));
    if (ev) fill_rank_figures(*ev, row);
    const bool stopped = how && how->get("stopped_by_launcher") && how->get("stopped_by_launcher")->b;
    const std::optional<double> after = how ? how->num("failed_after") : std::nullopt;
    const double code = how ? how->num("exit_code").value_or(0.0) : 0.0;
    const double sig = how ? how->num("signal").value_or(0.0) : 0.0;
    if (ev && ev->reached_steps()) row.ended = "reached the steps";
    else if (stopped) row.ended = "stopped by perflint when another rank ended";
    else if (sig > 0) row.ended = "killed by " + probe::signal_name(static_cast<int>(sig));
    else if (code != 0 && after)
      row.ended = "failed (exit " + std::to_string(static_cast<int>(code)) + ") after rank " +
                  std::to_string(static_cast<int>(*after)) + " failed (its collectives broke when that rank went away)";
    else if (code != 0) row.ended = "failed (exit " + std::to_string(static_cast<int>(code)) + ")";
    else row.ended = ev ? "ended: " + ev->exit_reason : "no evidence: " + ev.error().message;
    if (ev && !ev->traceback.empty() && !ev->reached_steps() && !stopped) row.ended += ": " + error_line(ev->traceback);
    s.ranks.push_back(std::move(row));
    if (ev) all.push_back(std::move(*ev));
  }
  if (all.size() == static_cast<size_t>(nproc)) set_straggler(all, s);
  if (views) *views = std::move(all);
}

// "killed by SIGSEGV" for a signal death, "SIGTERM to perflint" for an interrupt; else empty.
std::string signal_text(const probe::RunOutcome& outcome) {
  if (outcome.end == probe::RunOutcome::End::Signaled) return "killed by " + probe::signal_name(outcome.signal);
  if (outcome.end == probe::RunOutcome::End::Interrupted && outcome.interrupt_signal > 0)
    return probe::signal_name(outcome.interrupt_signal) + " to perflint";
  return {};
}

// The progress line on a TTY: the shim writes the steps done so far to <evidence>.progress.
std::function<void(double)> progress_line(const std::string& label, const std::string& evidence_path, int total,
                                          int warmup) {
  return [=](double elapsed) {
    long done = 0;
    if (std::FILE* f = std::fopen((evidence_path + ".progress").c_str(), "r")) {
      if (std::fscanf(f, "%ld", &done) != 1) done = 0;
      std::fclose(f);
    }
    std::fprintf(stderr, "\r\x1b[Kprobe: %s  step %ld/%d (%d warm-up)  %.0f s ", label.c_str(), done, total, warmup,
                 elapsed);
    std::fflush(stderr);
  };
}


// --verify: the repeated baseline, one run per distinct fix, one run with every fix that did not
// break the script. Each run is a full probe run (same steps, shim only: GPU tracing would be one
// more difference between the runs); the verdicts gain what the runs measured.
// Returns whether a run's log is worth keeping (a fix broke the script: its error names the log).
bool verify_fixes(const Options& o, const probe::RunnerOptions& base, const probe::Evidence& first, bool first_traced,
                  const std::string& dir, bool tty, std::vector<FileResult>& results, ProbeSummary& s) {
  VerifySummary v;
  v.workers = probe::fix_workers(std::thread::hardware_concurrency());
  const int runs = o.verify_runs.value_or(3);
  int k = 0;
  bool interrupted = false;
  bool keep_logs = false;
  auto log_of = [&](int run) { return dir + "/script-" + std::to_string(run) + ".log"; };
  auto run = [&](const std::vector<std::string>& apply, const std::string& label) {
    probe::RunnerOptions ro = base;
    ro.cupti_library.clear();
    ro.apply = apply;
    ++k;
    ro.evidence_path = dir + "/evidence-" + std::to_string(k) + ".json";
    ro.log_path = log_of(k);
    if (tty) ro.tick = progress_line(s.script + " [" + label + "]", ro.evidence_path, ro.warmup + ro.steps, ro.warmup);
    probe::Evidence e;
    e.exit_reason = "crash";
    e.steps_requested = ro.steps;
    e.warmup = ro.warmup;
    auto outcome = probe::run_probe(ro);
    if (tty) std::fprintf(stderr, "\r\x1b[K");
    if (!outcome) {
      e.traceback = outcome.error().message;
      return e;
    }
    if (outcome->end == probe::RunOutcome::End::Interrupted) interrupted = true;
    if (auto read = evidence_of(*outcome, primary_evidence(ro))) e = *read;
    else e.traceback = tail_of(ro.log_path, 1);  // died before the shim could write (a hard crash)
    if (outcome->end == probe::RunOutcome::End::TimedOut) e.exit_reason = "timeout";
    if (const std::string sig = signal_text(*outcome); !sig.empty() && e.traceback.empty()) e.traceback = sig;
    for (const auto& stray : outcome->strays) v.notes.push_back("stopped a process that had left the script's process group: " + stray);
    return e;
  };

  std::vector<probe::RunFigure> baseline;
  if (!first_traced) baseline.push_back(probe::run_figure(first));
  else v.notes.push_back("the first run was traced (PERFLINT_CUPTI=1): the baseline is repeated without tracing");
  while (static_cast<int>(baseline.size()) < runs && !interrupted) {
    const probe::Evidence e = run({}, "baseline " + std::to_string(baseline.size() + 1) + "/" + std::to_string(runs));
    if (!e.reached_steps()) {
      v.notes.push_back("a baseline repeat did not reach the steps (" + e.exit_reason + "): " + e.traceback +
                        " (its output: " + log_of(k) + ")");
      keep_logs = true;
      break;
    }
    baseline.push_back(probe::run_figure(e));
  }
  const probe::Baseline b = probe::make_baseline(baseline);
  v.baseline_step_ms = b.step_ms;
  v.baseline_ms = b.median_ms;
  v.spread_ms = b.spread_ms;
  if (first_traced && first.reached_steps())
    if (const std::string text = probe::tracing_overhead_text(probe::run_figure(first), b); !text.empty())
      s.overhead = text;
  if (baseline.size() < 2) {
    v.notes.push_back(interrupted ? "interrupted before the baseline was repeated: nothing verified"
                                  : "the baseline could not be repeated: nothing verified");
    s.verify = std::move(v);
    return keep_logs;
  }

  // Distinct fixes, in file order, with the findings they answer.
  std::vector<std::string> order;
  std::map<std::string, std::vector<Finding*>> by_fix;
  for (auto& r : results)
    for (auto& f : r.findings) {
      if (!f.verdict) continue;
      const auto state = f.verdict->state;
      if (state != Verdict::State::Confirmed && state != Verdict::State::Inconclusive) continue;
      const std::string fix = probe::runtime_fix(f, first, v.workers);
      if (fix.empty()) {
        if (state == Verdict::State::Confirmed) {
          Verification none;
          none.status = "no-runtime-fix";
          f.verdict->verification = none;
        }
        continue;
      }
      if (!by_fix.count(fix)) order.push_back(fix);
      by_fix[fix].push_back(&f);
    }
  const std::string script_dir = std::filesystem::absolute(s.script).parent_path().string();
  // A fix whose run shows an effect is run once more before the effect is claimed (probe::settle).
  auto confirm = [&](Verification& result, const std::vector<std::string>& apply, const std::string& label) {
    if (interrupted || !probe::wants_confirmation(result)) return;
    probe::add_repeat(result, b, run(apply, label + " (repeat)"));
  };
  std::vector<std::string> working;
  std::vector<Verification> working_results;
  double predicted = 0.0;
  bool any_prediction = false;
  for (const auto& fix : order) {
    if (interrupted) break;
    const std::string label = probe::fix_label(fix, script_dir);
    const probe::Evidence e = run({fix}, label);
    Verification result = probe::compare(fix, b, e);
    result.label = label;
    if (result.status == "broke-script") {
      result.error += " (its output: " + log_of(k) + ")";
      keep_logs = true;
    }
    confirm(result, {fix}, label);
    double cost = 0.0;
    bool has_cost = false;
    for (Finding* f : by_fix[fix]) {
      f->verdict->verification = result;
      probe::apply_verification(*f->verdict, result, b);
      if (f->verdict->cost_ms_per_step) {
        cost = std::max(cost, *f->verdict->cost_ms_per_step);
        has_cost = true;
      }
    }
    if (result.status == "broke-script" || result.status == "not-applied") continue;
    working.push_back(fix);
    working_results.push_back(result);
    predicted += cost;
    any_prediction = any_prediction || has_cost;
  }
  if (!working.empty() && !interrupted) {
    v.fixes = working;
    for (const auto& f : working) v.fix_labels.push_back(probe::fix_label(f, script_dir));
    if (working.size() == 1) {
      v.all = working_results.front();  // the same run: a second one could only contradict it
    } else {
      Verification all = probe::compare("", b, run(working, "all fixes"));
      if (all.status == "broke-script") {
        all.error += " (its output: " + log_of(k) + ")";
        keep_logs = true;
      }
      confirm(all, working, "all fixes");
      v.all = std::move(all);
    }
    if (any_prediction) v.all_predicted_ms = predicted;
  }
  if (order.empty()) v.notes.push_back("no finding with a run-time fix was confirmed or inconclusive: nothing to re-run");
  else if (working.empty() && !interrupted)
    v.notes.push_back("no all-fixes run: every fix broke the script or never took effect");
  if (interrupted) v.notes.push_back("interrupted: the runs after Ctrl-C were not made");
  s.verify = std::move(v);
  return keep_logs;
}

}  // namespace

int probe_script(const Options& o, const Config& config, std::vector<FileResult>& results, ProbeSummary& s,
                 std::vector<probe::Evidence>* ranks) {
  const std::string script = o.paths.front();
  s.script = script;
  s.steps_requested = o.steps.value_or(config.steps.value_or(10));
  s.warmup = o.warmup.value_or(config.warmup.value_or(3));
  const double timeout = o.timeout.value_or(config.timeout.value_or(300));

  const auto python = probe::choose_python(o.python, config.python.value_or(""));
  if (!python) {
    s.error = "no Python interpreter found: pass --python, set PERFLINT_PYTHON, or put python3 on PATH";
    return 2;
  }
  s.python = python->path;
  s.python_source = python->source;
  const std::string shim = probe::find_shim_dir();
  if (shim.empty()) {
    s.error = "the probe shim (perflint_probe) is not next to the perflint binary (shim/ or ../share/perflint/shim)";
    return 2;
  }
  std::string dir_template = (std::filesystem::temp_directory_path() / "perflint-probe-XXXXXX").string();
  if (!o.evidence_dir.empty()) {
    // --evidence-dir: the evidence (and the log) stay there, for `perflint probe-merge`. A directory
    // with files in it would mix another run's ranks into this one.
    std::error_code ec;
    std::filesystem::create_directories(o.evidence_dir, ec);
    if (ec || !std::filesystem::is_directory(o.evidence_dir)) {
      s.error = "--evidence-dir " + o.evidence_dir + ": cannot create the directory" + (ec ? ": " + ec.message() : "");
      return 2;
    }
    if (!std::filesystem::is_empty(o.evidence_dir, ec)) {
      s.error = "--evidence-dir " + o.evidence_dir + " is not empty: give each run (each node) a directory of its own";
      return 2;
    }
    dir_template = o.evidence_dir;
  } else if (::mkdtemp(dir_template.data()) == nullptr) {
    s.error = "cannot create a directory for the probe's log and evidence";
    return 2;
  }
  probe::RunnerOptions ro;
  ro.python = python->path;
  ro.shim_dir = shim;
  ro.script = script;
  ro.module = o.module;
  if (o.launcher) ro.launcher = o.script_args;
  else ro.args = o.script_args;
  ro.steps = s.steps_requested;
  ro.warmup = s.warmup;
  ro.timeout_s = timeout;
  ro.evidence_path = dir_template + "/evidence.json";
  ro.log_path = dir_template + "/script.log";
  ro.show_output = o.show_output;
  ro.nproc = o.nproc.value_or(1);
  // GPU tracing is opt-in until the injection library has been validated on a GPU.
  const char* want_cupti = std::getenv("PERFLINT_CUPTI");
  const std::string cupti = probe::find_cupti_library();
  if (want_cupti && std::string_view(want_cupti) == "1") ro.cupti_library = cupti;
  s.log_path = ro.log_path;
  const bool tty = ::isatty(STDERR_FILENO) && !o.show_output;
  if (tty) ro.tick = progress_line(script, ro.evidence_path, s.warmup + s.steps_requested, s.warmup);

  const StopSignals stop_signals;
  probe::reset_interrupt();
  auto outcome = probe::run_probe(ro);
  if (tty) std::fprintf(stderr, "\r\x1b[K");
  // The probe's directory stays only when the report names a file in it (the log of a failed run).
  auto remove_dir = [&] {
    if (!o.evidence_dir.empty()) return;  // the user's directory: kept, whatever happened
    std::error_code ec;
    std::filesystem::remove_all(dir_template, ec);
    s.log_path.clear();
  };
  if (!outcome) {
    s.error = outcome.error().message;
    remove_dir();
    return 2;
  }
  s.signal = signal_text(*outcome);
  for (const auto& stray : outcome->strays)
    s.strays.push_back(stray);
  s.overhead = !ro.cupti_library.empty() ? "GPU tracing on after warm-up, but no traced step came back"
               : cupti.empty() ? "shim only (this build has no GPU tracing: CUPTI was not found); not measured in "
                                 "this run (the project's paired-run benchmark measures the shim's cost)"
                               : "shim only (GPU tracing is opt-in: PERFLINT_CUPTI=1); not measured in this run "
                                 "(the project's paired-run benchmark measures the shim's cost)";

  // --nproc or a launcher: rank 0's evidence is the run's (the verdicts are judged on it); every
  // rank's is read.
  const int nranks = !ro.launcher.empty() ? launcher_ranks(ro.evidence_path) : ro.nproc;
  if (!ro.launcher.empty() && nranks == 0) {
    s.error = "the launcher `" + ro.launcher.front() +
              " ...` started no rank the probe could measure (a rank is a Python process the launcher starts with RANK "
              "or LOCAL_RANK in its environment, as torchrun does); to probe a plain script, run `perflint --probe "
              "SCRIPT`";
    s.exit_reason = "script_exit";
    s.exit_code = outcome->exit_code;
    s.log_tail = tail_of(ro.log_path, 30);
    return 3;
  }
  auto evidence = evidence_of(*outcome, primary_evidence(ro));
  if (!evidence) {
    probe::Evidence none;
    end_from_outcome(*outcome, none);
    s.error = evidence.error().message;
    s.exit_reason = none.exit_reason;
    s.exit_code = none.exit_code;
    s.log_tail = tail_of(ro.log_path, 30);
    if (s.log_tail.empty()) remove_dir();
    return 3;
  }
  if (evidence->exit_reason == "no_torch") {
    s.error = "the interpreter " + python->path + " (from " + python->source + ") cannot import torch: " +
              evidence->traceback + "; choose one that can with --python, PERFLINT_PYTHON or `python` in the config";
    remove_dir();
    return 2;
  }
  const probe::Evidence& e = *evidence;
  summarize_evidence(e, s, results);
  if (outcome->end == probe::RunOutcome::End::TimedOut) s.exit_reason = "timeout";
  if (outcome->end == probe::RunOutcome::End::Interrupted) s.exit_reason = "interrupted";
  if (e.exit_reason == "script_exit" && outcome->end == probe::RunOutcome::End::Exited) s.exit_code = outcome->exit_code;
  if (outcome->end == probe::RunOutcome::End::Signaled) s.exit_reason = "crash";  // after the shim wrote
  if (nranks > 1) {
    read_ranks(*outcome, ro.evidence_path, nranks, s, ranks);
  } else if (ranks) {
    ranks->push_back(e);
  }
  const bool reached = s.exit_reason == "steps_reached";
  bool keep_dir = false;
  if (!reached) s.log_tail = tail_of(ro.log_path, 30);
  if (o.verify && reached) {
    keep_dir = verify_fixes(o, ro, e, e.gpu_traced() || !ro.cupti_library.empty(), dir_template, tty, results, s);
  } else if (o.verify) {
    s.verify = VerifySummary{};
    s.verify->notes.push_back("nothing verified: the first run did not reach the requested steps");
  }
  // The logs and evidence stay only when the report points at them (a failed run that printed).
  if (!keep_dir && (reached || s.log_tail.empty())) remove_dir();
  return reached ? 0 : 3;
}

}  // namespace perflint
