// Runs a training script under the probe shim: its own process group, output to a log (optionally
// streamed), a timeout and Ctrl-C / SIGTERM / SIGHUP that stop the whole group (SIGTERM, then
// SIGKILL), and nothing left running afterwards: the runner is the child subreaper while the script
// runs, so processes that left the group (setsid, double fork) come back to it when their parents
// die; they are stopped too and named. The evidence file is the shim's business; the runner only
// says how it ended.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "parser/expected.hpp"

namespace perflint::probe {

struct RunnerOptions {
  std::string python;              // interpreter to run
  std::string shim_dir;            // directory that holds the perflint_probe package
  std::string script;
  std::vector<std::string> args;   // the script's own arguments
  std::string module;              // `-m MODULE` instead of the script (script: its file, for messages)
  // A launcher command (torchrun ...) instead of the script: the shim runs it and probes each rank
  // it starts (`<evidence_path>.rank<R>`, `<evidence_path>.ranks.json`); args are then unused.
  std::vector<std::string> launcher;
  int steps = 10;
  int warmup = 3;
  double timeout_s = 300.0;
  double kill_grace_s = 5.0;       // SIGTERM -> SIGKILL
  std::string evidence_path;
  std::string log_path;            // the script's stdout+stderr
  std::string cupti_library;       // libperflint_cupti.so to inject (GPU tracing); empty: none
  std::vector<std::string> apply;  // run-time fixes for the shim (`--apply`, --verify)
  bool show_output = false;        // also copy the script's output to our stderr
  // Ranks the shim starts (`--nproc`): each writes `<evidence_path>.rank<R>`, and the launcher
  // `<evidence_path>.ranks.json` (how each rank ended). 1: the script alone, at evidence_path.
  int nproc = 1;
  // Called about every 100 ms with the seconds elapsed (progress line on a TTY).
  std::function<void(double)> tick;
};

struct RunOutcome {
  enum class End { Exited, Signaled, TimedOut, Interrupted };
  End end = End::Exited;
  int exit_code = -1;  // when Exited
  int signal = 0;      // when Signaled
  double wall_s = 0.0;
  int interrupt_signal = 0;  // when Interrupted: the signal perflint received (SIGINT, SIGTERM, SIGHUP)
  // Processes that had left the script's process group and were still running when it ended:
  // "pid 123 (sleep)", each stopped (SIGTERM, then SIGKILL after the grace).
  std::vector<std::string> strays;
};

// "SIGSEGV" for SIGSEGV, "signal 42" for a number without a name.
std::string signal_name(int sig);

// Spawns and waits. Errors are only about starting (no such interpreter, cannot create the log).
Expected<RunOutcome> run_probe(const RunnerOptions& options);

// The interpreter to use: --python, then config `python`, then $PERFLINT_PYTHON, then an active
// virtualenv ($VIRTUAL_ENV/bin/python), then python3 on PATH. Says where the choice came from.
struct PythonChoice {
  std::string path;
  std::string source;  // "--python", "config", "PERFLINT_PYTHON", "VIRTUAL_ENV", "PATH"
};
std::optional<PythonChoice> choose_python(const std::string& flag, const std::string& config);

// libperflint_cupti.so next to the running binary (build tree) or in ../lib/perflint (install
// tree); empty when it was not built. GPU tracing is opt-in (PERFLINT_CUPTI=1) until it has been
// validated on a GPU.
std::string find_cupti_library();

// The shim next to the running binary: <exe dir>/shim (build tree) or
// <exe dir>/../share/perflint/shim (install tree). Empty when neither exists.
std::string find_shim_dir();

// Set from the CLI's SIGINT/SIGTERM/SIGHUP handler (async-signal-safe); the runner stops the script
// when it sees it, and a run started after it does not start the script at all. Sticky until
// reset_interrupt() (the CLI calls it once, before its first run).
void request_interrupt(int sig);
void reset_interrupt();
bool interrupted();

}  // namespace perflint::probe
