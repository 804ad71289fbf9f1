// Runs a training script under the probe shim: its own process group, output to a log (optionally
// streamed), a timeout and Ctrl-C that stop the whole group (SIGTERM, then SIGKILL), and nothing left
// running afterwards. The evidence file is the shim's business; the runner only says how it ended.
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
  int steps = 10;
  int warmup = 3;
  double timeout_s = 300.0;
  double kill_grace_s = 5.0;       // SIGTERM -> SIGKILL
  std::string evidence_path;
  std::string log_path;            // the script's stdout+stderr
  std::string cupti_library;       // libperflint_cupti.so to inject (GPU tracing); empty: none
  std::vector<std::string> apply;  // run-time fixes for the shim (`--apply`, --verify)
  bool show_output = false;        // also copy the script's output to our stderr
  // Called about every 100 ms with the seconds elapsed (progress line on a TTY).
  std::function<void(double)> tick;
};

struct RunOutcome {
  enum class End { Exited, Signaled, TimedOut, Interrupted };
  End end = End::Exited;
  int exit_code = -1;  // when Exited
  int signal = 0;      // when Signaled
  double wall_s = 0.0;
};

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

// Set from a SIGINT handler by the CLI; the runner stops the script when it sees it.
void request_interrupt();

}  // namespace perflint::probe
