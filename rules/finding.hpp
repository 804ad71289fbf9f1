// What a rule reports: data, not prose (STYLE.md rule 4). Reports format these; they decide nothing.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "parser/source.hpp"

namespace perflint {

enum class Severity { Info, Warning, Error };
std::string_view to_string(Severity s);
std::optional<Severity> parse_severity(std::string_view s);

struct Span {
  uint32_t start_byte = 0;
  uint32_t end_byte = 0;
  Position start;  // 1-based line and column
  Position end;    // exclusive end (column just past the last character)
};

struct Note {
  std::string message;
  std::optional<Span> span;  // secondary location in the same file, when there is one
};

// Replace [start_byte, end_byte) of the file's text (after a BOM, as spans) by `replacement`; an
// insertion has start_byte == end_byte. Positions are for reports (JSON), filled by make_edit.
struct Edit {
  uint32_t start_byte = 0;
  uint32_t end_byte = 0;
  std::string replacement;
  Position start;
  Position end;
};

// A fix is applied whole or not at all. Safe fixes keep the program's meaning apart from speed;
// unsafe ones (choosing a worker count) need --unsafe-fixes.
struct Fix {
  std::string title;
  bool safe = true;
  std::vector<Edit> edits;
};

struct RuleInfo;

// What the probe's measurements say about a finding (set only by `perflint --probe`).
// `perflint --probe --verify`: the finding's fix applied by the shim at run time, the step measured
// again, and the difference against the repeated baseline runs.
struct Verification {
  std::string fix;     // as the shim applied it, e.g. "workers=2@/src/train.py:20"; empty: none exists
  std::string label;   // what the fix does, for people: "num_workers=2 at train.py:20"
  // measured | no-effect | slower | noisy | broke-script | not-applied | no-runtime-fix. measured and
  // slower need every run of the fix beyond the spread on the same side; noisy: runs on both sides.
  std::string status;
  std::optional<double> saving_ms_per_step;  // baseline median step − step_ms
  std::optional<double> spread_ms;           // the baseline's noise (probe::Baseline::spread_ms)
  std::optional<double> step_ms;             // of the run closest to the baseline (the smallest claim)
  std::vector<double> runs_ms;               // the median step of each run with this fix
  std::string error;   // broke-script / not-applied: what happened
};

struct Verdict {
  enum class State { Confirmed, Refuted, Inconclusive, NotMeasurable };
  State state = State::Inconclusive;
  std::optional<double> cost_ms_per_step;  // measured, or a documented formula over measurements
  std::optional<double> share;             // of the median step
  std::string evidence;                    // one line: what was measured
  std::optional<Verification> verification;  // --verify
};
std::string_view to_string(Verdict::State s);

// What the ranked fix list sorts by: the saving --verify measured where it ran the fix (none when
// the saving was within the noise), else the cost the verdict measured.
inline double ranking_ms(const Verdict& v) {
  if (v.verification && v.verification->saving_ms_per_step) {
    const auto& x = *v.verification;
    return x.status == "measured" ? *x.saving_ms_per_step : 0.0;
  }
  return v.cost_ms_per_step.value_or(0.0);
}

struct Finding {
  const RuleInfo* rule = nullptr;
  Severity severity = Severity::Warning;  // rule default, possibly overridden by config
  std::string path;                       // as given on the command line / discovered
  Span span;
  std::string message;
  std::string fix_hint;
  std::vector<Note> notes;
  std::optional<Fix> fix;
  std::optional<Verdict> verdict;
};

// A file that could not be (fully) linted. Io errors make the exit code 2; a syntax error is a
// diagnostic at a location: the rest of the file is still linted.
struct FileError {
  enum class Kind { Io, Syntax, Config };
  Kind kind = Kind::Io;
  std::string path;
  std::string message;                // without the path prefix
  std::optional<Position> position;   // where there is one
};

// Something the user should know that is not an error (e.g. a file skipped for its size).
struct Notice {
  std::string path;
  std::string message;
  std::optional<Position> position = std::nullopt;  // where there is one (an unknown code in a suppression)
};

struct FileResult {
  std::string path;
  std::vector<Finding> findings;  // sorted by line, column, code
  std::vector<FileError> errors;
  std::vector<Notice> notices;
  uint32_t lines = 0;
  bool linted = false;  // false when skipped or unreadable
  // A syntax error in the file: its findings are reported but never fixed (as ruff).
  bool has_syntax_error() const {
    for (const auto& e : errors)
      if (e.kind == FileError::Kind::Syntax) return true;
    return false;
  }
};

}  // namespace perflint
