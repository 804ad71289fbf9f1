// Command-line parsing with CLI11.
// Everything CLI11 throws is caught here and turned into a ParsedCommandLine.
#include "cli/options.hpp"

#include <CLI/CLI.hpp>

#include "probe/calibration.hpp"
#include "util/byte_size.hpp"
#include <algorithm>
#include <charconv>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace perflint {

namespace {

constexpr const char* kDescription =
    "perflint finds performance anti-patterns in PyTorch training scripts: single-process data\n"
    "loading, host syncs in the training step, debug modes left on, TF32 off, and more. It parses\n"
    "the code (it never imports or runs it) and explains each finding with the fix.\n";

constexpr const char* kFooter = R"(Examples:
  perflint train.py                       lint one script
  perflint                                lint every *.py under the current directory
  perflint src/ --select PFL1 --output-format sarif -o perflint.sarif
                                          data-loading rules only, SARIF for code scanning
  perflint --fix train.py                 apply the safe fixes in place
  perflint --diff src/                    show what --fix would change, write nothing
  perflint rules                          list every rule
  perflint rule PFL101                    explain a rule (code or name)
  perflint server                         a Language Server for editors (docs/editors.md)

Probe (runs the script; needs a Python with torch):
  perflint --probe --steps 10 train.py -- --epochs 1 --lr 0.1
      runs 3 warm-up + 10 measured steps under instrumentation, then stops the script, and marks
      each finding confirmed / refuted / inconclusive / not-measurable with its measured cost per
      step, ranked: the fix that buys the most step time first. The script's output goes to a log
      (its tail is shown if it fails); --show-output streams it.
  perflint --probe -- torchrun --standalone --nproc_per_node 2 train.py --lr 0.1
      a launcher command instead of a SCRIPT: every rank it starts is probed (the script it names is
      linted); per-rank step time and phases, the straggler and the phase that makes the gap
  perflint --probe -m mypkg.train -- --lr 0.1
      runs a module as `python -m mypkg.train` does; --nproc N starts N ranks without a launcher
  perflint --probe --verify train.py
      then proves the fixes: re-runs the script with each confirmed finding's fix applied at run time
      (your file is not edited) and once with all of them, against a repeated baseline; a saving is
      called measured only when it exceeds the baseline runs' spread (--verify-runs, default 3).
  perflint --probe train.py --report-html probe.html --trace probe.trace.json
      also writes a self-contained HTML report (step chart with phases, ranks, the ranked fix list
      with source; opens from file:// with no network) and a trace for ui.perfetto.dev or
      chrome://tracing (a process per rank, step and phase slices, host syncs with their line).

Calibration (measures this machine; needs a build with LibTorch):
  perflint calibrate --quick --device cpu
      micro-benchmarks (copies, GEMM precisions, syncs, launch overhead) cached per device; the
      probe turns its findings into estimated savings with them. `perflint calibrate --help`.

Fixes:
  Findings marked [*] have a safe fix: --fix applies it in place, keeping the file's indentation,
  quotes, trailing commas and line endings; --diff prints the change as a unified diff instead.
  --unsafe-fixes also applies fixes that need a choice of yours (num_workers=4 as a starting point,
  removing activation checkpointing: check the memory with --probe first).

Exit codes:
  0  no findings
  1  findings (or syntax errors); --exit-zero turns this into 0; --diff: something to fix
  2  usage, configuration or I/O error (missing/unreadable file, binary file, symlink loop)
  3  --probe: the script did not reach the requested steps (crash, timeout, early exit, Ctrl-C,
     SIGTERM or SIGHUP to perflint); the report still comes out with every step measured

Suppressing a finding:
  loss.item()  # perflint: ignore[PFL201]      this line (codes or names, comma-separated)
  loss.item()  # noqa: PFL201                  the same, ruff/flake8 style
  # perflint: ignore-file[PFL401]               the whole file

Configuration:
  Read from [tool.perflint] in the nearest pyproject.toml, or perflint.toml / .perflint.toml,
  found from the current directory upwards (keys: select, extend-select, ignore,
  per-file-ignores, exclude, severity, max-file-size, respect-gitignore). --show-settings prints
what is in force; --show-files the files a run would lint. --config FILE uses that file;
  --isolated ignores every config file. Command-line --select replaces the config's select;
  --ignore and --extend-select add to it.

Directories are searched for *.py files, skipping hidden directories, venv, .venv, node_modules,
__pycache__ and, inside a git work tree, what .gitignore and .git/info/exclude ignore
(--no-respect-gitignore, or respect-gitignore = false, searches those too). The config's exclude globs apply to files named on the command line too, so that
a pre-commit run agrees with `perflint .`. A file named like a subcommand: write ./rules.
`perflint check PATH...` is `perflint PATH...` (ruff's spelling).)";

constexpr const char* kCalibrateFooter = R"(Micro-benchmarks: host-to-device copies from pageable and pinned memory over a range of
sizes (CUDA; host memcpy on the CPU), GEMM throughput in fp32, TF32 (CUDA) and bf16 at standard
shapes and --gemm shapes, one host-device sync round trip (CUDA), and the time of one tiny op
(kernel launch on CUDA, dispatch on the CPU). Each figure: warm-up runs, then timed repetitions;
the median is kept with the 10th and 90th percentiles.

Examples:
  perflint calibrate                         the CUDA device when there is one, else the CPU
  perflint calibrate --device cpu --quick    a quick CPU calibration (seconds; for CI)
  perflint calibrate --gemm 4096x4096x4096,8192x1024x4096
                                             also measure GEMM at your model's shapes (MxNxK)
  perflint calibrate --show                  print the cached figures, every device

Results are cached as TOML, one file per device, with the LibTorch (and CUDA runtime and driver)
versions, the device, CPU model and date: $XDG_CACHE_HOME/perflint/calibration/<device>.toml, else
~/.cache/perflint/calibration/<device>.toml; --cache-dir DIR reads and writes DIR instead.
Format and benchmarks: docs/calibration.md.

Measuring runs perflint-calibrate, built next to perflint when CMake finds LibTorch (Debian
libtorch-dev for the CPU, or the LibTorch of an installed CUDA PyTorch); --show needs no LibTorch.

Exit codes:
  0  done
  2  usage error, nothing to show, a build without LibTorch, or the requested device is missing)";

std::string trim(std::string s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

// Comma-separated lists may come with spaces ("PFL101, PFL201") and repeated flags; empty items
// from a trailing comma are dropped rather than reported as an unknown selector "".
std::vector<std::string> clean_list(const std::vector<std::string>& raw) {
  std::vector<std::string> out;
  for (const auto& item : raw)
    if (auto t = trim(item); !t.empty()) out.push_back(std::move(t));
  return out;
}

}  // namespace

ParsedCommandLine parse_command_line(int argc, const char* const* argv) {
  ParsedCommandLine parsed;
  Options& o = parsed.options;
  // Stop with exit 2 and `err` on stderr (a message that names the problem and where --help is).
  auto usage_error = [&parsed](std::string err) {
    parsed.err = std::move(err);
    parsed.exit_now = true;
    parsed.exit_code = 2;
    return parsed;
  };

  CLI::App app{kDescription, "perflint"};
  app.footer(kFooter);
  app.set_version_flag("--version", std::string("perflint ") + PERFLINT_VERSION);
  app.get_formatter()->column_width(32);

  std::vector<std::string> select, extend_select, ignore;
  std::string format = "text", color = "auto", max_size;
  bool no_color = false;

  app.add_option("paths", o.paths, "Files and directories to lint (default: the current directory); - reads stdin")
      ->type_name("PATH");
  app.add_option("--stdin-filename", o.stdin_filename,
                 "The path that stdin stands for: its config, per-file-ignores and sibling modules apply, and "
                 "findings name it (implies -)")
      ->type_name("PATH");
  app.add_option("--select", select, "Rules to enable: codes, names, prefixes (PFL1) or ALL, comma-separated")
      ->delimiter(',')
      ->allow_extra_args(false)
      ->type_name("CODES");
  app.add_option("--extend-select", extend_select, "Rules to enable on top of the selection")
      ->delimiter(',')
      ->allow_extra_args(false)
      ->type_name("CODES");
  app.add_option("--ignore", ignore, "Rules to disable")->delimiter(',')->allow_extra_args(false)->type_name("CODES");
  app.add_option("--output-format", format, "text (default), json, sarif or github")
      ->check(CLI::IsMember({"text", "json", "sarif", "github"}, CLI::ignore_case))
      ->type_name("FORMAT");
  app.add_option("-o,--output", o.output, "Write the report to FILE instead of stdout")->type_name("FILE");
  app.add_flag("--exit-zero", o.exit_zero, "Exit with 0 even when there are findings");
  app.add_flag("-q,--quiet", o.quiet, "Print the findings and errors only: no summary, no notices");
  app.add_flag("-s,--silent", o.silent, "Print nothing but errors; the exit code says whether there are findings");
  app.add_flag("--show-files", o.show_files, "List the files that would be linted (after exclude and .gitignore), then exit");
  app.add_flag("--show-settings", o.show_settings, "Print the settings in force (config file, rules, excludes, probe defaults), then exit");
  app.add_flag("--no-respect-gitignore", o.no_respect_gitignore,
               "Also search files that .gitignore or .git/info/exclude ignore (default: skip them)");
  app.add_flag("--no-cache", o.no_cache,
               "Lint every file afresh: do not read or write the result cache (also PERFLINT_NO_CACHE=1)");
  app.add_option("--cache-dir", o.cache_dir,
                 "Where results are cached (default: .perflint_cache in the current directory, or "
                 "PERFLINT_CACHE_DIR)")
      ->type_name("DIR");
  app.add_flag("--statistics", o.statistics,
               "Print how many findings each rule has, not the findings (json: an array of code, name, count, fixable)");
  bool no_show_source = false;
  app.add_flag("--no-show-source", no_show_source, "Text: no source line and caret under each finding");
  app.add_flag("--no-color", no_color, "No ANSI colours (also when NO_COLOR is set)");
  app.add_option("--color", color, "auto (default: only on a terminal), always or never")
      ->check(CLI::IsMember({"auto", "always", "never"}, CLI::ignore_case))
      ->type_name("WHEN");
  app.add_option("-j,--jobs", o.jobs, "Files linted in parallel (default and 0: every core)")
      ->check(CLI::Validator(
          [](std::string& v) -> std::string {
            unsigned n = 0;
            const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
            if (ec == std::errc() && end == v.data() + v.size() && n <= 4096) return {};
            return "must be a number of threads from 0 (every core) to 4096, got '" + v + "'";
          },
          "N"))
      ->type_name("N");
  app.add_option("--config", o.config, "Use this config file instead of discovering one")->type_name("FILE");
  app.add_flag("--isolated", o.isolated, "Ignore every config file");
  app.add_option("--max-file-size", max_size, "Skip larger files with a notice (default 10MiB)")
      ->type_name("SIZE");

  app.add_flag("--fix", o.fix, "Apply the safe fixes to the files in place, then report what remains");
  app.add_flag("--diff", o.diff, "Print the changes --fix would make as a unified diff; write nothing");
  app.add_flag("--unsafe-fixes", o.unsafe_fixes, "Also apply fixes that may change behaviour (with --fix/--diff)");

  app.add_flag("--probe", o.probe, "Run SCRIPT for a few steps and mark each finding confirmed/refuted with its measured cost");
  app.add_option("--steps", o.steps, "Probe: steps to measure after warm-up (default 10)")->check(CLI::PositiveNumber)->type_name("N");
  app.add_option("--warmup", o.warmup, "Probe: steps run before measuring (default 3; more while a DataLoader with workers still feeds the steps from batches made ahead, single-process runs, reported as warm-up added)")->check(CLI::NonNegativeNumber)->type_name("N");
  app.add_option("--timeout", o.timeout, "Probe: stop the script after S seconds (default 300)")->check(CLI::PositiveNumber)->type_name("S");
  app.add_option("--python", o.python, "Probe: interpreter (default: config, $PERFLINT_PYTHON, $VIRTUAL_ENV, python3)")->type_name("EXE");
  app.add_flag("--show-output", o.show_output, "Probe: stream the script's output (it always goes to a log)");
  app.add_flag("--verify", o.verify, "Probe: re-run with each confirmed finding's fix applied at run time, and all together, and measure the saving");
  app.add_option("--verify-runs", o.verify_runs, "Probe --verify: baseline runs, for the noise (default 3, at least 2)")
      ->check(CLI::Range(2, 20))->type_name("N");
  app.add_option("--report-html", o.report_html, "Probe: also write a self-contained HTML report (charts, ranked fixes; opens offline)")
      ->type_name("FILE");
  app.add_option("-m,--module", o.module,
                 "Probe: run MODULE as `python -m MODULE` does, instead of a SCRIPT (its arguments after --)")
      ->type_name("MODULE");
  app.add_option("--evidence-dir", o.evidence_dir,
                 "Probe: keep the evidence (every rank's) in DIR, a new or empty directory, for `perflint probe-merge`")
      ->type_name("DIR");
  app.add_option("--nproc", o.nproc,
                 "Probe: start N ranks of the script as torchrun would (env:// rendezvous on a free port; gloo or "
                 "nccl is the script's choice); each rank is measured, stragglers named")
      ->check(CLI::Range(1, 64))
      ->type_name("N");
  app.add_option("--baseline", o.baseline,
                 "Probe: compare this run with an earlier probe's JSON report (median step and phases, noise-aware)")
      ->type_name("FILE");
  app.add_option("--fail-on-regression", o.fail_on_regression,
                 "compare / --baseline: fail when the median step is slower by more than PCT percent (beyond the noise)")
      ->check(CLI::Range(0.0, 10000.0))
      ->type_name("PCT");
  app.add_option("--trace", o.trace, "Probe: also write the steps as a Chrome trace-event JSON (open in ui.perfetto.dev or chrome://tracing)")
      ->type_name("FILE");

  CLI::App* compare_cmd = app.add_subcommand(
      "compare", "Compare two probe runs (their --output-format json reports): median step and phases, noise-aware");
  compare_cmd->fallthrough();
  compare_cmd->add_option("reports", o.compare_files, "BASE.json NEW.json")->expected(2)->required()->type_name("FILE");
  compare_cmd->footer(
      "A delta within the larger of the two runs' step-to-step spreads (interquartile range) is \"no change\".\n"
      "Exit codes: 0 no regression, 1 the median step is slower by more than --fail-on-regression PCT,\n"
      "2 usage or unreadable report.\n"
      "Example: perflint compare base.json new.json --fail-on-regression 5");
  CLI::App* server_cmd = app.add_subcommand(
      "server", "Run as a Language Server (LSP over stdio): diagnostics as you type, fixes as code actions, rule docs on hover");
  server_cmd->fallthrough();
  server_cmd->footer(
      "The editor starts `perflint server` and talks JSON-RPC on its stdin/stdout; logs go to stderr.\n"
      "Each open Python file is linted as if `perflint FILE` ran on it (its config, per-file-ignores,\n"
      "excludes, sibling modules); --select, --ignore, --config and --isolated given here apply too.\n"
      "Editor set-up (Neovim, VS Code, Helix, Emacs): docs/editors.md.");
  CLI::App* merge_cmd = app.add_subcommand(
      "probe-merge", "Build one probe report from the evidence of several runs (one per node): ranks, straggler, verdicts");
  merge_cmd->fallthrough();
  merge_cmd->add_option("dirs", o.merge_dirs, "Directories written by `perflint --probe --evidence-dir DIR`")
      ->required()
      ->type_name("DIR");
  merge_cmd->add_option("--script", o.merge_script,
                        "The training script to lint (default: the path rank 0's evidence names, if it is here)")
      ->type_name("FILE");
  merge_cmd->footer(
      "A multi-node job runs `perflint --probe --evidence-dir ev/node$NODE -- torchrun ...` on each node; then\n"
      "`perflint probe-merge ev/node*` reports every rank (by its global RANK), the straggler and the verdicts\n"
      "(judged on rank 0), in any --output-format, with --report-html / --trace too.\n"
      "Exit codes: 0 no findings, 1 findings, 3 rank 0 did not reach its steps, 2 no or unreadable evidence.");
  CLI::App* rules_cmd = app.add_subcommand("rules", "List every rule with its code, name and severity");
  rules_cmd->fallthrough();
  CLI::App* rule_cmd = app.add_subcommand("rule", "Explain one rule: what, why, the fix, when it does not apply");
  rule_cmd->fallthrough();
  rule_cmd->add_option("rule", o.rule, "Rule code (PFL101) or name (dataloader-main-process)")
      ->required()
      ->type_name("CODE|NAME");
  CalibrateOptions& cal = o.calibrate;
  CLI::App* calibrate_cmd = app.add_subcommand(
      "calibrate", "Measure this machine (copies, GEMM precisions, syncs, launches) for the probe's estimates");
  calibrate_cmd->footer(kCalibrateFooter);
  calibrate_cmd->add_flag("--show", cal.show, "Print the cached calibrations (with --device: that kind only); measure nothing");
  calibrate_cmd->add_flag("--quick", cal.quick, "Fewer sizes and repetitions: a few seconds (CI)");
  calibrate_cmd->add_option("--device", cal.device, "cpu or cuda (default: cuda when available)")
      ->check(CLI::IsMember({"cpu", "cuda"}))
      ->type_name("DEVICE");
  calibrate_cmd->add_option("--gemm", cal.gemm, "Also measure GEMM at these shapes, MxNxK (comma-separated, repeatable)")
      ->delimiter(',')
      ->allow_extra_args(false)
      ->check(CLI::Validator(
          [](std::string& s) {
            return probe::parse_gemm_shape(s) ? std::string()
                                              : "'" + s + "' is not a GEMM shape MxNxK (e.g. 4096x4096x4096, each 1..65536)";
          },
          "", "gemm-shape"))
      ->type_name("MxNxK");
  calibrate_cmd->add_option("--cache-dir", cal.cache_dir, "Read and write the calibrations in DIR (default: the user's cache)")
      ->type_name("DIR");
  app.require_subcommand(0, 1);

  // `perflint --probe train.py -- --lr 0.1`: what follows `--` belongs to the script.
  std::vector<const char*> own(argv, argv + argc);
  // `perflint check PATH...` (ruff's spelling) is `perflint PATH...`; a file named check: ./check.
  if (own.size() > 1 && std::string_view(own[1]) == "check") own.erase(own.begin() + 1);
  for (size_t i = 1; i < own.size(); ++i)
    if (std::string_view(own[i]) == "--") {
      for (size_t k = i + 1; k < own.size(); ++k) o.script_args.emplace_back(own[k]);
      own.resize(i);
      break;
    }
  try {
    app.parse(static_cast<int>(own.size()), own.data());
  } catch (const CLI::ParseError& e) {
    std::ostringstream out, err;
    if (e.get_exit_code() == 0) {
      app.exit(e, out, err);
      parsed.out = out.str();
      if (!parsed.out.empty() && parsed.out.back() != '\n') parsed.out += '\n';  // a subcommand's footer ends bare
      parsed.exit_now = true;
      parsed.exit_code = 0;
    } else {
      const char* help = calibrate_cmd->parsed() ? "perflint calibrate --help" : "perflint --help";
      return usage_error(std::string("error: ") + e.what() + "\nRun '" + help + "' for usage.\n");
    }
    return parsed;
  }

  if (rules_cmd->parsed()) o.command = Options::Command::Rules;
  if (rule_cmd->parsed()) o.command = Options::Command::Rule;
  if (calibrate_cmd->parsed()) o.command = Options::Command::Calibrate;
  if (compare_cmd->parsed()) o.command = Options::Command::Compare;
  if (server_cmd->parsed()) o.command = Options::Command::Server;
  if (merge_cmd->parsed()) o.command = Options::Command::ProbeMerge;
  if (o.command != Options::Command::Lint && !o.paths.empty()) {
    // `perflint src rules` is more likely a file named "rules" than a request for the rule list.
    const char* name = o.command == Options::Command::Rules     ? "rules"
                       : o.command == Options::Command::Rule    ? "rule"
                       : o.command == Options::Command::Compare ? "compare"
                       : o.command == Options::Command::Server  ? "server"
                       : o.command == Options::Command::ProbeMerge ? "probe-merge"
                                                                : "calibrate";
    return usage_error(std::string("error: '") + name + "' is a subcommand and takes no paths (got '" + o.paths.front() +
                 "'); to lint a file named " + name + ", write ./" + name + "\nRun 'perflint --help' for usage.\n");
  }
  if (cal.show && (cal.quick || !cal.gemm.empty())) {
    return usage_error(std::string("error: calibrate --show prints the cached figures; --quick and --gemm go with a measuring run\n") +
                 "Run 'perflint calibrate --help' for usage.\n");
  }
  const bool run_only = o.steps || o.warmup || o.timeout || !o.python.empty() || o.show_output || o.verify || o.verify_runs ||
                        o.nproc || !o.module.empty() || !o.evidence_dir.empty();
  const bool probe_only = run_only || !o.report_html.empty() || !o.trace.empty() || !o.baseline.empty();
  if (o.command == Options::Command::ProbeMerge) {
    if (run_only || o.probe || o.fix || o.diff || !o.script_args.empty()) {
      return usage_error(std::string("error: probe-merge reads evidence that runs wrote; it runs nothing: --probe, --steps, --warmup, "
                               "--timeout, --python, --verify, --nproc, -m, --evidence-dir, --fix, --diff and `-- ARGS` do "
                               "not go with it (--report-html, --trace, --baseline and --output-format do)\n") +
                   "Run 'perflint probe-merge --help' for usage.\n");
    }
    o.probe = true;  // the report is a probe report
  }
  if (o.fail_on_regression && o.command != Options::Command::Compare && o.baseline.empty()) {
    return usage_error(std::string("error: --fail-on-regression goes with `perflint compare` or `--probe --baseline FILE`\n") +
                 "Run 'perflint --help' for usage.\n");
  }
  if (!o.probe && (probe_only || !o.script_args.empty())) {
    return usage_error(std::string("error: --steps, --warmup, --timeout, --python, --show-output, --verify[-runs], --report-html, --trace, --baseline, --nproc, -m and `-- ARGS` go with --probe\n") +
                 "Run 'perflint --help' for usage.\n");
  }
  if (o.probe && (o.fix || o.diff)) {
    return usage_error(std::string("error: --fix and --diff cannot be combined with --probe (fix first, then probe)\n") +
                 "Run 'perflint --help' for usage.\n");
  }
  if ((o.show_files || o.show_settings) && (o.probe || o.fix || o.diff || o.statistics)) {
    return usage_error(std::string("error: --show-files and --show-settings print what a run would use and lint nothing; ") +
                 "they cannot be combined with --probe, --fix, --diff or --statistics\nRun 'perflint --help' for usage.\n");
  }
  if (o.show_files && o.show_settings) {
    return usage_error("error: --show-files and --show-settings: choose one\nRun 'perflint --help' for usage.\n");
  }
  if (!o.stdin_filename.empty() && o.paths.empty()) o.paths.push_back("-");
  const bool dash = std::find(o.paths.begin(), o.paths.end(), "-") != o.paths.end();
  if ((dash && o.paths.size() != 1) || (!o.stdin_filename.empty() && !dash)) {
    return usage_error(std::string(dash ? "error: - (stdin) cannot be combined with other paths"
                                  : "error: --stdin-filename names what stdin stands for: pass - (or no path), not '" +
                                        o.paths.front() + "'") +
                 "\nRun 'perflint --help' for usage.\n");
  }
  if (dash && o.probe) {
    return usage_error(std::string("error: --probe runs a script file, not stdin\nRun 'perflint --help' for usage.\n"));
  }
  // --probe runs one of: SCRIPT [-- ARGS], -m MODULE [-- ARGS], or -- LAUNCHER ... (torchrun).
  o.launcher = o.probe && o.paths.empty() && o.module.empty() && !o.script_args.empty();
  if (o.probe && !o.module.empty() && !o.paths.empty()) {
    return usage_error("error: --probe -m " + o.module + " runs a module instead of a SCRIPT: pass one of them (got '" +
                 o.paths.front() + "' too)\nRun 'perflint --help' for usage.\n");
  }
  if (o.probe && o.module.empty() && !o.launcher && o.paths.size() != 1 && o.command != Options::Command::ProbeMerge) {
    return usage_error("error: --probe takes exactly one SCRIPT (got " + std::to_string(o.paths.size()) +
                 "), -m MODULE, or a launcher command after `--` (perflint --probe -- torchrun --nproc_per_node 2 "
                 "train.py); the script's own arguments go after `--`\nRun 'perflint --help' for usage.\n");
  }
  if (o.launcher && o.nproc) {
    return usage_error(std::string("error: --nproc starts the ranks itself; with a launcher command (") + o.script_args.front() +
                 ") the launcher starts them: use its own option (torchrun --nproc_per_node N)\n"
                 "Run 'perflint --help' for usage.\n");
  }
  if (app.count("--select") > 0) o.select = clean_list(select);
  o.extend_select = clean_list(extend_select);
  o.ignore = clean_list(ignore);
  for (std::string* v : {&format, &color})
    std::transform(v->begin(), v->end(), v->begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  o.format = format == "json"    ? OutputFormat::Json
             : format == "sarif" ? OutputFormat::Sarif
             : format == "github" ? OutputFormat::Github
                                  : OutputFormat::Text;
  if (o.statistics && (o.format == OutputFormat::Sarif || o.format == OutputFormat::Github)) {
    return usage_error("error: --statistics writes text or json, not " + format + "\nRun 'perflint --help' for usage.\n");
  }
  o.color = color == "always" ? ColorChoice::Always : color == "never" ? ColorChoice::Never : ColorChoice::Auto;
  if (no_color) o.color = ColorChoice::Never;
  o.show_source = !no_show_source;
  if (!max_size.empty()) {
    o.max_file_size = parse_byte_size(max_size);
    if (!o.max_file_size || *o.max_file_size == 0) {
      // 0 would skip every file and exit 0 as if all were clean; the config rejects it too.
      return usage_error("error: invalid size '" + max_size +
                         "' for --max-file-size: must be more than 0 bytes (examples: 1048576, 512KiB, 10MiB)\n"
                         "Run 'perflint --help' for usage.\n");
    }
  }
  return parsed;
}

}  // namespace perflint
