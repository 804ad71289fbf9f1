// The command line as a plain struct. CLI11 is confined to options.cpp (STYLE.md: it never leaks
// past cli/), so the rest of the program and the tests see only Options.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "reports/report.hpp"

namespace perflint {

enum class ColorChoice { Auto, Always, Never };

// `perflint calibrate`: --show is answered by perflint itself; the rest goes to perflint-calibrate.
struct CalibrateOptions {
  bool show = false;
  bool quick = false;
  std::string device;             // cpu | cuda; empty: cuda when available (--show: every device)
  std::vector<std::string> gemm;  // extra GEMM shapes, MxNxK (validated)
  std::string cache_dir;          // empty: the user's cache directory
};

struct Options {
  enum class Command { Lint, Rules, Rule, Calibrate, Compare, Server, ProbeMerge };
  Command command = Command::Lint;
  std::string rule;                 // `perflint rule CODE|NAME`
  std::vector<std::string> paths;   // empty: the current directory; "-": standard input
  // `--stdin-filename PATH`: the file that stdin stands for (config, per-file-ignores, sibling
  // modules and the reported path resolve as if it were there). Implies `-` when no path is given.
  std::string stdin_filename;
  bool reads_stdin() const { return paths.size() == 1 && paths.front() == "-"; }

  // Unset: the config's select applies. Set (even to nothing): it replaces the config's.
  std::optional<std::vector<std::string>> select;
  std::vector<std::string> extend_select;
  std::vector<std::string> ignore;

  OutputFormat format = OutputFormat::Text;
  std::string output;               // -o FILE; empty: stdout
  bool exit_zero = false;
  bool quiet = false;               // -q: the findings only, no summary or notices
  bool silent = false;              // -s: nothing on stdout; the exit code tells (errors still on stderr)
  bool show_files = false;          // print the files that would be linted, lint nothing
  bool show_settings = false;       // print the settings in force, lint nothing
  bool no_respect_gitignore = false;  // --no-respect-gitignore: search what .gitignore ignores too
  bool no_cache = false;              // --no-cache: no result cache
  std::string cache_dir;              // --cache-dir (empty: PERFLINT_CACHE_DIR or ./.perflint_cache)
  bool statistics = false;
  bool show_source = true;
  ColorChoice color = ColorChoice::Auto;
  unsigned jobs = 0;                // 0: every hardware thread
  std::string config;               // --config FILE; empty: discover
  bool isolated = false;
  std::optional<uint64_t> max_file_size;  // bytes; unset: the config's (default 10 MiB)

  bool fix = false;           // --fix: write the fixed files
  bool diff = false;          // --diff: print what --fix would change, write nothing
  bool unsafe_fixes = false;  // apply (and count as fixable) the unsafe fixes too

  // perflint --probe SCRIPT [-- ARGS]: unset values fall back to the config, then the defaults.
  bool probe = false;
  std::optional<int> steps, warmup;
  std::optional<double> timeout;
  std::string python;
  bool show_output = false;
  bool verify = false;               // --verify: A/B runs with each fix applied at run time
  std::optional<int> verify_runs;    // baseline runs (default 3)
  std::vector<std::string> script_args;  // everything after `--`
  // `--probe -m MODULE [-- ARGS]`: run the module as `python -m` does (paths empty; the module's file
  // is linted).
  std::string module;
  // `--probe -- torchrun ... train.py ARGS` (no SCRIPT before `--`): script_args is a launcher
  // command; every rank it starts is probed, and the script it names is linted.
  bool launcher = false;
  std::string evidence_dir;          // --probe --evidence-dir DIR: keep the evidence there (probe-merge)
  std::vector<std::string> merge_dirs;  // `perflint probe-merge DIR...`
  std::string merge_script;          // probe-merge --script FILE: lint this instead of the evidence's path
  std::string report_html;           // --report-html FILE: the self-contained HTML report
  std::vector<std::string> compare_files;   // `perflint compare BASE.json NEW.json`
  std::string baseline;                     // --probe --baseline BASE.json
  std::optional<int> nproc;                 // --probe --nproc N: ranks started by the shim (env://)
  std::optional<double> fail_on_regression; // PCT: compare / --baseline fail beyond it
  std::string trace;                 // --trace FILE: Chrome trace-event JSON (Perfetto, chrome://tracing)

  CalibrateOptions calibrate;
};

// What parsing the command line decided: run with `options`, or stop now (help, version, usage
// error) printing `out` to stdout and `err` to stderr and exiting with `exit_code`.
struct ParsedCommandLine {
  Options options;
  bool exit_now = false;
  int exit_code = 0;
  std::string out;
  std::string err;
};

ParsedCommandLine parse_command_line(int argc, const char* const* argv);

}  // namespace perflint
