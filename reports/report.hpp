// Report writers: text (ruff/rustc style), json, sarif (2.1.0), github annotations. They format the
// results they are given and decide nothing (DESIGN.md: data flows one way).
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "parser/source.hpp"
#include "rules/finding.hpp"

namespace perflint {

enum class OutputFormat { Text, Json, Sarif, Github };

// What `perflint --probe` ran and measured, for the reports (verdicts sit on the findings).
// `perflint --probe --verify`: the repeated baseline and the run with every fix together.
struct VerifySummary {
  std::vector<double> baseline_step_ms;  // the mean measured step of each baseline run
  double baseline_ms = 0.0;              // their median
  double spread_ms = 0.0;                // their max − min: savings below it are noise
  int workers = 0;                       // the DataLoader worker count the workers fix used
  std::vector<std::string> fixes;        // every fix of the all-fixes run (shim ids)
  std::vector<std::string> fix_labels;   // the same, for people ("num_workers=2 at train.py:20")
  // The all-fixes run, judged by the same rule as each fix (probe::settle); absent: no such run.
  // When only one fix works, it is that fix's own result (no second, possibly contradicting run).
  std::optional<Verification> all;
  std::optional<double> all_predicted_ms;  // the sum of the fixes' measured costs, where measured
  // baseline / all-fixes step, only when the all-fixes run is "measured" or "slower".
  std::optional<double> all_speedup() const;
  std::vector<std::string> notes;        // e.g. a baseline repeat that failed
};

// One phase of the measured steps (probe::PhaseSummary, as plain figures for the writers).
struct PhaseRow {
  std::string name;  // data | h2d | forward | backward | optimizer | other
  double median_ms = 0.0, p10_ms = 0.0, p90_ms = 0.0, share = 0.0;
};

// One step as the shim recorded it, warm-up included: the JSON's per-step rows.
struct StepRow {
  int index = 0;
  bool warmup = false;
  double start_ms = 0.0, wall_ms = 0.0, data_wait_ms = 0.0;
  std::optional<std::array<double, 6>> phases_ms;  // in PhaseRow name order; unset: not timed
};

// torch.distributed's share of the measured steps (mean per step); absent in a single-process run.
struct CommSummary {
  double collective_ms = 0.0, collective_calls = 0.0;  // collectives the script calls (host time)
  double ddp_allreduce_ms = 0.0, ddp_buckets = 0.0;    // DDP's gradient all-reduce, launch to completion
  double collective_share = 0.0, ddp_share = 0.0;      // of the mean step
};

// One rank of a multi-rank run (`--nproc`).
struct RankRow {
  int rank = 0;
  int steps = 0;                  // measured
  double median_step_ms = 0.0;
  double data_wait_share = 0.0;
  std::vector<PhaseRow> phases;   // empty: not timed
  std::optional<CommSummary> comm;
  std::string ended;              // "reached the steps", "failed (exit 1): RuntimeError: ...", "stopped ..."
};

struct ProbeSummary {
  std::string script;
  std::string python, python_source, torch;
  std::string device;                 // "NVIDIA H100 (sm_90)" / "CPU: AMD EPYC (2 cores)"
  std::string device_kind;            // cuda | cpu
  int steps_requested = 0;
  int steps_measured = 0;
  int warmup = 0;
  std::string warmup_added;           // "+4 while ..." when the shim lengthened the warm-up; empty: none
  double median_step_ms = 0.0;
  double mean_step_ms = 0.0;          // bursty steps (a loader's batches arriving in groups): mean above median
  double data_wait_share = 0.0;
  double gpu_busy_share = -1.0;       // < 0: no GPU tracing in this run
  std::string gpu_status;             // the CUPTI library's status, when it ran
  std::string overhead;               // what is known of the probe's own overhead
  std::string calibration;            // the calibration file used, or why none
  std::vector<std::pair<std::string, int64_t>> gemm_shapes;  // ("MxNxK", calls) seen, most work first
  std::string exit_reason;            // steps_reached | script_exit | crash | timeout | interrupted
  int exit_code = 0;
  std::string signal;                 // "killed by SIGSEGV" / "SIGTERM to perflint"; empty: none
  std::vector<std::string> strays;    // processes that had left the script's group, stopped: "pid 12 (sleep)"
  std::vector<std::pair<std::string, std::string>> diagnoses;  // (kind, text)
  std::vector<PhaseRow> phases;       // empty: the shim did not time phases
  double syncs_per_step = 0.0;        // with phases: host syncs per measured step
  std::optional<CommSummary> comm;    // torch.distributed in the steps (collectives, DDP all-reduce)
  bool phases_host_clock = true;      // on CUDA the host clock sees launches, not GPU time
  std::string step_clock = "host";    // "cuda_events": step times are the GPU timeline's (CUDA events)
  std::vector<StepRow> steps;         // every recorded step (rank 0's when there are several)
  std::vector<RankRow> ranks;         // --nproc N > 1: one per rank; the verdicts are judged on rank 0
  std::string straggler;              // the straggler line (probe::find_straggler), empty: none
  std::string log_path;
  std::string log_tail;               // shown when the script did not reach the steps
  std::string error;                  // no evidence at all: why
  std::optional<VerifySummary> verify;
};

// What `--fix` would apply, counted by running the fix loop in memory (rules/fixer): a fix can make
// others possible (pin_memory=True, then non_blocking=True) and overlapping fixes apply once, so
// counting the findings marked [*] is not the same number.
struct FixCounts {
  size_t safe = 0;         // applied by --fix
  size_t with_unsafe = 0;  // applied by --fix --unsafe-fixes
};

struct ReportOptions {
  bool color = false;        // ANSI colours (text only)
  bool summary = true;       // text: the closing "Found N findings" / fixable lines (off with --quiet)
  std::optional<FixCounts> fix_counts;  // text summary: the fix loop's counts; unset: count the [*]
  bool statistics = false;   // text: a per-rule count table instead of each finding
  bool show_source = true;   // text: the snippet with carets
  // Directory that SARIF artifact URIs are made relative to (the repository root); empty: cwd.
  std::string base_dir;
  // File contents by path, for snippets (text) and line hashes (sarif). Missing: no snippet.
  const std::map<std::string, std::string, std::less<>>* sources = nullptr;
  // Set by `perflint --probe`: a probe section in text, a "probe" object in JSON.
  const ProbeSummary* probe = nullptr;
  // SARIF tool.driver.rules[]: these rules instead of the whole registry (e.g. only the selected
  // ones). Either way, a rule a finding refers to is added when missing.
  const std::vector<const RuleInfo*>* rules = nullptr;
  // --unsafe-fixes: unsafe fixes count as fixable (marked and in the summary) too.
  bool unsafe_fixes = false;
};

// `results` are sorted by path; each file's findings by line, column, code.
std::string write_text(const std::vector<FileResult>& results, const ReportOptions& options);
std::string write_json(const std::vector<FileResult>& results, const ReportOptions& options);
std::string write_sarif(const std::vector<FileResult>& results, const ReportOptions& options);
std::string write_github(const std::vector<FileResult>& results, const ReportOptions& options);
std::string write_report(OutputFormat format, const std::vector<FileResult>& results, const ReportOptions& options);

// `perflint rules` (grouped by category, with default severity) and `perflint rule CODE`.
std::string write_rule_list(bool color);
std::string write_rule_explanation(std::string_view code_or_name);
// `perflint rules --output-format json`: one object per rule (code, name, category, severity,
// summary, cuda_only, tags), in code order.
std::string write_rule_list_json();
std::string write_rule_list_json(const std::vector<const RuleInfo*>& rules);

// The same, over an explicit list of rules (write_rule_list passes the registry) and a given doc
// page (write_rule_explanation passes rule_doc(code)); empty markdown: the summary stands in.
std::string write_rule_list(const std::vector<const RuleInfo*>& rules, bool color);
std::string write_rule_explanation(const RuleInfo& rule, std::string_view markdown);

// The hash behind SARIF's primaryLocationLineHash: 64-bit FNV-1a of the line with all whitespace
// removed, so re-indenting a line or inserting lines above it keeps the fingerprint.
uint64_t line_fingerprint_hash(std::string_view line);

// JSON string escaping (shared by the json and sarif writers); json_escape_to appends to `out`.
std::string json_escape(std::string_view s);
void json_escape_to(std::string& out, std::string_view s);

}  // namespace perflint
