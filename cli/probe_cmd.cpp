// The probe command: interpreter choice, shim look-up, run, evidence, verdicts (see probe_cmd.hpp).
#include "cli/probe_cmd.hpp"

#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "probe/evidence.hpp"
#include "probe/runner.hpp"
#include "probe/verdict.hpp"

namespace perflint {
namespace {

void on_sigint(int) { probe::request_interrupt(); }

std::string tail_of(const std::string& path, size_t lines) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  while (!text.empty() && text.back() == '\n') text.pop_back();
  size_t pos = text.size();
  for (size_t n = 0; n < lines && pos != std::string::npos && pos > 0; ++n) pos = text.rfind('\n', pos - 1);
  return pos == std::string::npos || pos == 0 ? text : text.substr(pos + 1);
}

std::string device_text(const probe::Evidence& e) {
  if (e.device_kind == "cuda") return e.device_name + " (compute capability " + e.capability + ")";
  return "CPU: " + (e.device_name.empty() ? std::string("unknown") : e.device_name) + " (no CUDA device used)";
}

}  // namespace

int probe_script(const Options& o, const Config& config, std::vector<FileResult>& results, ProbeSummary& s) {
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
  if (::mkdtemp(dir_template.data()) == nullptr) {
    s.error = "cannot create a directory for the probe's log and evidence";
    return 2;
  }
  probe::RunnerOptions ro;
  ro.python = python->path;
  ro.shim_dir = shim;
  ro.script = script;
  ro.args = o.script_args;
  ro.steps = s.steps_requested;
  ro.warmup = s.warmup;
  ro.timeout_s = timeout;
  ro.evidence_path = dir_template + "/evidence.json";
  ro.log_path = dir_template + "/script.log";
  ro.show_output = o.show_output;
  // GPU tracing is opt-in until the injection library has been validated on a GPU.
  const char* want_cupti = std::getenv("PERFLINT_CUPTI");
  const std::string cupti = probe::find_cupti_library();
  if (want_cupti && std::string_view(want_cupti) == "1") ro.cupti_library = cupti;
  s.log_path = ro.log_path;
  const bool tty = ::isatty(STDERR_FILENO) && !o.show_output;
  if (tty)
    ro.tick = [&](double elapsed) {
      // The shim writes the steps done so far to <evidence>.progress at every step.
      long done = 0;
      if (std::FILE* f = std::fopen((ro.evidence_path + ".progress").c_str(), "r")) {
        if (std::fscanf(f, "%ld", &done) != 1) done = 0;
        std::fclose(f);
      }
      std::fprintf(stderr, "\rprobe: %s  step %ld/%d (%d warm-up)  %.0f s ", script.c_str(), done,
                   s.warmup + s.steps_requested, s.warmup, elapsed);
      std::fflush(stderr);
    };

  struct sigaction act {}, old {};
  act.sa_handler = on_sigint;
  sigemptyset(&act.sa_mask);
  ::sigaction(SIGINT, &act, &old);
  auto outcome = probe::run_probe(ro);
  ::sigaction(SIGINT, &old, nullptr);
  if (tty) std::fprintf(stderr, "\r\x1b[K");
  if (!outcome) {
    s.error = outcome.error().message;
    return 2;
  }
  s.overhead = !ro.cupti_library.empty() ? "GPU tracing on after warm-up (set PERFLINT_CUPTI=1); overhead not yet reported"
               : cupti.empty() ? "shim only (this build has no GPU tracing: CUPTI was not found)"
                               : "shim only (GPU tracing is opt-in: PERFLINT_CUPTI=1)";

  auto evidence = probe::read_evidence(ro.evidence_path);
  if (!evidence) {
    s.error = evidence.error().message;
    s.exit_reason = outcome->end == probe::RunOutcome::End::TimedOut ? "timeout" : "crash";
    s.exit_code = outcome->exit_code;
    s.log_tail = tail_of(ro.log_path, 30);
    return 3;
  }
  const probe::Evidence& e = *evidence;
  s.torch = e.torch;
  s.device = device_text(e);
  s.device_kind = e.device_kind;
  s.steps_measured = static_cast<int>(e.measured().size());
  s.median_step_ms = e.median_step_ms();
  s.data_wait_share = e.data_wait_share();
  if (e.gpu_traced()) s.gpu_busy_share = e.gpu_busy_share();
  s.gpu_status = e.gpu_status;
  s.exit_reason = e.exit_reason;
  s.exit_code = e.exit_code;
  if (outcome->end == probe::RunOutcome::End::TimedOut) s.exit_reason = "timeout";
  if (outcome->end == probe::RunOutcome::End::Interrupted) s.exit_reason = "interrupted";
  if (e.exit_reason == "script_exit" && outcome->end == probe::RunOutcome::End::Exited) s.exit_code = outcome->exit_code;
  for (const auto& d : probe::diagnose(e)) s.diagnoses.emplace_back(d.kind, d.text);
  for (auto& r : results)
    for (auto& f : r.findings) f.verdict = probe::judge(f, e);
  const bool reached = s.exit_reason == "steps_reached";
  if (!reached) s.log_tail = tail_of(ro.log_path, 30);
  return reached ? 0 : 3;
}

}  // namespace perflint
