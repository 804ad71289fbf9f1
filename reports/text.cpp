// The text report (ruff/rustc style): `path:line:col: CODE [severity] message`, the source line
// with carets under the span, help and notes, then a summary; or a per-rule statistics table.
#include <algorithm>
#include <cctype>
#include <map>

#include "reports/detail.hpp"
#include "reports/report.hpp"

namespace perflint {
namespace {

using report_detail::find_source;
using report_detail::plural;
using report_detail::rule_code;
using report_detail::rule_name;
using report_detail::split_lines;

constexpr int kTabStop = 4;

// Concatenation by appending: GCC 12 misreports `"literal" + std::string` chains under -O3
// (-Wrestrict, GCC PR 105329).
template <class... Parts>
std::string cat(const Parts&... parts) {
  std::string s;
  (s.append(std::string_view(parts)), ...);
  return s;
}

struct Style {
  bool on = false;
  std::string wrap(std::string_view code, std::string_view s) const {
    if (!on) return std::string(s);
    return "\x1b[" + std::string(code) + "m" + std::string(s) + "\x1b[0m";
  }
  std::string bold(std::string_view s) const { return wrap("1", s); }
  std::string blue(std::string_view s) const { return wrap("1;34", s); }
  std::string severity(Severity sev, std::string_view s) const {
    switch (sev) {
      case Severity::Error: return wrap("1;31", s);
      case Severity::Warning: return wrap("1;33", s);
      case Severity::Info: return wrap("1;36", s);
    }
    return std::string(s);
  }
};

// Decodes one UTF-8 code point at s[i]; advances i. Invalid bytes count as one code point each
// (sources are validated before linting, so this only keeps the writer total).
uint32_t decode(std::string_view s, size_t& i) {
  const auto b = static_cast<unsigned char>(s[i]);
  int len = b < 0x80 ? 1 : (b >> 5) == 0x6 ? 2 : (b >> 4) == 0xe ? 3 : (b >> 3) == 0x1e ? 4 : 1;
  if (i + static_cast<size_t>(len) > s.size()) len = 1;
  uint32_t cp = len == 1 ? b : len == 2 ? (b & 0x1f) : len == 3 ? (b & 0x0f) : (b & 0x07);
  for (int k = 1; k < len; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3f);
  i += static_cast<size_t>(len);
  return cp;
}

// Terminal cells a code point takes: combining marks none, East Asian wide and emoji two.
int cell_width(uint32_t cp) {
  if ((cp >= 0x0300 && cp <= 0x036f) || (cp >= 0x200b && cp <= 0x200f) || (cp >= 0xfe00 && cp <= 0xfe0f))
    return 0;
  if ((cp >= 0x1100 && cp <= 0x115f) || (cp >= 0x2e80 && cp <= 0xa4cf && cp != 0x303f) ||
      (cp >= 0xac00 && cp <= 0xd7a3) || (cp >= 0xf900 && cp <= 0xfaff) || (cp >= 0xfe30 && cp <= 0xfe4f) ||
      (cp >= 0xff00 && cp <= 0xff60) || (cp >= 0xffe0 && cp <= 0xffe6) || (cp >= 0x1f300 && cp <= 0x1f64f) ||
      (cp >= 0x1f900 && cp <= 0x1f9ff) || (cp >= 0x20000 && cp <= 0x3fffd))
    return 2;
  return 1;
}

// A source line as displayed (tabs expanded to 4-column stops, control characters as spaces) and
// the display cell where each 1-based code-point column starts, so carets land under the same
// characters the position counts.
struct DisplayLine {
  std::string text;
  std::vector<int> cell_of_column;  // [column - 1] -> cell; one extra entry for end of line
};

DisplayLine display(std::string_view line) {
  DisplayLine d;
  int cell = 0;
  size_t i = 0;
  while (i < line.size()) {
    const size_t start = i;
    const uint32_t cp = decode(line, i);
    d.cell_of_column.push_back(cell);
    if (cp == '\t') {
      const int w = kTabStop - cell % kTabStop;
      d.text.append(static_cast<size_t>(w), ' ');
      cell += w;
    } else if (cp < 0x20 || cp == 0x7f) {
      d.text += ' ';
      cell += 1;
    } else {
      d.text.append(line.substr(start, i - start));
      cell += cell_width(cp);
    }
  }
  d.cell_of_column.push_back(cell);
  return d;
}

int cell_at(const DisplayLine& d, uint32_t column) {
  const size_t idx = column == 0 ? 0 : column - 1;
  return idx < d.cell_of_column.size() ? d.cell_of_column[idx] : d.cell_of_column.back();
}

// "help"/"note" lines and the snippet share a gutter as wide as the line number.
struct Snippet {
  const Style& style;
  size_t gutter;
  std::string pad() const { return std::string(gutter, ' '); }
};

void write_snippet(std::string& out, const Snippet& s, const Finding& f, std::string_view line) {
  const DisplayLine d = display(line);
  const int from = cell_at(d, f.span.start.column);
  int to = f.span.end.line > f.span.start.line ? d.cell_of_column.back() : cell_at(d, f.span.end.column);
  if (to <= from) to = from + 1;
  const std::string bar = s.style.blue("|");
  out += s.pad() + " " + bar + "\n";
  out += s.style.blue(std::to_string(f.span.start.line)) + " " + bar;
  if (!d.text.empty()) out += " " + d.text;
  out += "\n";
  out += s.pad() + " " + bar + " " + std::string(static_cast<size_t>(from), ' ') +
         s.style.severity(f.severity, std::string(static_cast<size_t>(to - from), '^')) + "\n";
}

std::string note_text(const Note& n) {
  if (!n.span) return n.message;
  const std::string where = "line " + std::to_string(n.span->start.line);
  // "line 12" inside "line 123" is not the same place; require a non-digit after it.
  for (size_t pos = n.message.find(where); pos != std::string::npos; pos = n.message.find(where, pos + 1)) {
    const size_t after = pos + where.size();
    if (after >= n.message.size() || !std::isdigit(static_cast<unsigned char>(n.message[after]))) return n.message;
  }
  return n.message + " (" + where + ")";
}

// A file with a syntax error is not fixed (as ruff), so none of its findings is marked fixable.
using report_detail::fixable;

void write_finding(std::string& out, std::string_view path, const Finding& f, const ReportOptions& options,
                   const Style& style, const std::vector<std::string_view>* lines, bool fix_blocked = false) {
  out += cat(style.bold(path), ":", std::to_string(f.span.start.line), ":", std::to_string(f.span.start.column), ": ",
             style.bold(rule_code(f)), !fix_blocked && fixable(f, options.unsafe_fixes) ? " [*]" : "", " ", style.severity(f.severity, cat("[", to_string(f.severity), "]")), " ",
             f.message, "\n");
  const Snippet s{style, std::to_string(f.span.start.line).size()};
  if (options.show_source && lines && f.span.start.line >= 1 && f.span.start.line <= lines->size())
    write_snippet(out, s, f, (*lines)[f.span.start.line - 1]);
  const std::string eq = style.blue("=");
  if (!f.fix_hint.empty()) out += s.pad() + " " + eq + " " + style.bold("help") + ": " + f.fix_hint + "\n";
  for (const auto& n : f.notes) out += s.pad() + " " + eq + " " + style.bold("note") + ": " + note_text(n) + "\n";
}

// Syntax errors are part of the report (a diagnostic at a line, as ruff shows them); errors reading a
// file and notices are the CLI's to print on stderr, whatever the format.
void write_errors(std::string& out, const FileResult& r, const Style& style) {
  for (const auto& e : r.errors) {
    if (e.kind != FileError::Kind::Syntax) continue;
    out += style.bold(e.path.empty() ? r.path : e.path);
    if (e.position) out += cat(":", std::to_string(e.position->line), ":", std::to_string(e.position->column));
    out += cat(": ", style.severity(Severity::Error, "error"), ": ", e.message, "\n");
  }
}

std::string summary(const std::vector<FileResult>& results, bool unsafe, const std::optional<FixCounts>& counts) {
  size_t findings = 0, files_with = 0, checked = 0, unlintable = 0, fixes = 0, unsafe_more = 0;
  size_t by_sev[3] = {0, 0, 0};
  for (const auto& r : results) {
    findings += r.findings.size();
    if (!r.findings.empty()) ++files_with;
    if (r.linted) ++checked;
    if (std::any_of(r.errors.begin(), r.errors.end(), [](const FileError& e) { return e.kind == FileError::Kind::Io; }))
      ++unlintable;
    const bool blocked = r.has_syntax_error();
    for (const auto& f : r.findings) {
      ++by_sev[static_cast<int>(f.severity)];
      if (blocked) continue;
      if (fixable(f, unsafe)) ++fixes;
      else if (fixable(f, true)) ++unsafe_more;
    }
  }
  std::string out;
  if (findings == 0) {
    out = "No findings in " + plural(checked, "file", "files") + ".\n";
  } else {
    std::vector<std::string> parts;
    if (by_sev[static_cast<int>(Severity::Error)]) parts.push_back(plural(by_sev[static_cast<int>(Severity::Error)], "error", "errors"));
    if (by_sev[static_cast<int>(Severity::Warning)])
      parts.push_back(plural(by_sev[static_cast<int>(Severity::Warning)], "warning", "warnings"));
    if (by_sev[static_cast<int>(Severity::Info)]) parts.push_back(plural(by_sev[static_cast<int>(Severity::Info)], "info", "info"));
    std::string breakdown;
    for (size_t k = 0; k < parts.size(); ++k) breakdown += (k ? ", " : "") + parts[k];
    out = "Found " + plural(findings, "finding", "findings") + " (" + breakdown + ") in " +
          plural(files_with, "file", "files") + "; " + plural(checked, "file", "files") + " checked.\n";
  }
  const size_t marked = fixes;
  if (counts) {  // what the fix loop applies: the figure --fix and --diff will print
    fixes = unsafe ? counts->with_unsafe : counts->safe;
    unsafe_more = !unsafe && counts->with_unsafe > counts->safe ? counts->with_unsafe - counts->safe : 0;
  }
  if (fixes == 0 && unsafe_more > 0) {
    out += "[*] " + std::to_string(unsafe_more) + " fixable with `--fix --unsafe-fixes`.\n";
  } else if (fixes || unsafe_more) {
    out += "[*] " + std::to_string(fixes) + " fixable with `--fix`";
    std::vector<std::string> notes;
    if (counts && fixes > marked)
      notes.push_back(std::to_string(marked) + " marked, " + std::to_string(fixes - marked) + " more once those are applied");
    else if (counts && fixes < marked)
      notes.push_back(std::to_string(marked) + " marked; overlapping fixes apply once");
    if (unsafe_more) notes.push_back(std::to_string(unsafe_more) + " more with `--unsafe-fixes`");
    for (size_t i = 0; i < notes.size(); ++i) out += (i == 0 ? " (" : "; ") + notes[i];
    out += notes.empty() ? ".\n" : ").\n";
  }
  if (unlintable) out += plural(unlintable, "file", "files") + " could not be linted (the errors are on stderr).\n";
  return out;
}

std::string statistics(const std::vector<FileResult>& results, const Style& style) {
  const std::vector<report_detail::RuleCount> rows = report_detail::rule_counts(results, false);
  size_t count_w = 0, code_w = 0;
  for (const auto& row : rows) {
    count_w = std::max(count_w, std::to_string(row.count).size());
    code_w = std::max(code_w, row.code.size());
  }
  std::string out;
  for (const auto& row : rows) {
    const std::string n = std::to_string(row.count);
    out += std::string(count_w - n.size(), ' ') + n + "  " + style.bold(row.code) +
           std::string(code_w - row.code.size(), ' ') + "  " + std::string(row.name) + "\n";
  }
  return out;
}

}  // namespace

namespace {

using report_detail::ms;
using report_detail::percent;
using report_detail::verification_line;

std::string verify_section(const VerifySummary& v, const Style& style) {
  std::string out = "\n" + style.bold("verified") + " (each fix applied at run time; your files are unchanged)\n";
  if (!v.baseline_step_ms.empty()) {
    std::string runs;
    for (double b : v.baseline_step_ms) runs += (runs.empty() ? "" : ", ") + ms(b);
    out += "  baseline      " + ms(v.baseline_ms) + " ms/step, median of " + std::to_string(v.baseline_step_ms.size()) +
           " runs (" + runs + " ms; spread " + ms(v.spread_ms) + " ms)\n";
  }
  if (!v.fixes.empty()) {
    std::string fixes;
    for (const auto& f : v.fix_labels.empty() ? v.fixes : v.fix_labels) fixes += (fixes.empty() ? "" : ", ") + f;
    out += "  all fixes     " + fixes + "\n";
    if (v.all) out += "                " + report_detail::all_fixes_line(v) + "\n";
  }
  for (const auto& n : v.notes) out += "  note: " + n + "\n";
  return out;
}

// The probe's report: header, ranked fix list, findings without evidence, refuted findings.
std::string probe_section(const std::vector<FileResult>& results, const ProbeSummary& p, const Style& style) {
  std::string out = "\n" + style.bold("probe") + ": " + p.script + "\n";
  out += "  interpreter   " + p.python + " (" + p.python_source + "), torch " + (p.torch.empty() ? "?" : p.torch) + "\n";
  out += "  device        " + p.device + "\n";
  out += "  steps         " + std::to_string(p.steps_measured) + " measured of " + std::to_string(p.steps_requested) +
         " requested, after " + std::to_string(p.warmup) + " warm-up" +
         (p.warmup_added.empty() ? "" : " (" + p.warmup_added + ")") + "\n";
  if (p.steps_measured > 0) {
    out += "  median step   " + ms(p.median_step_ms) + " ms" +
           (p.step_clock == "cuda_events" ? " (GPU timeline: CUDA events at the step boundaries)"
            : p.device_kind == "cuda"     ? " (host clock: the GPU's time was not resolved for every step)"
                                          : "") +
           "\n";
    out += "  data wait     " + percent(p.data_wait_share) + " of the step\n";
    if (!p.phases.empty()) {
      // One line: each phase's share of the step, then its median and p10-p90 in ms.
      std::string bar, spread;
      for (const auto& ph : p.phases) {
        bar += (bar.empty() ? "" : " | ") + ph.name + " " + percent(ph.share);
        spread += (spread.empty() ? "" : ", ") + ph.name + " " + ms(ph.median_ms) + " (" + ms(ph.p10_ms) + "-" +
                  ms(ph.p90_ms) + ")";
      }
      out += "  phases        " + bar + "\n";
      out += "                median ms (p10-p90): " + spread + "; " + ms(p.syncs_per_step) + " .item()/.cpu()-style reads/step" +
             (p.phases_host_clock && p.device_kind == "cuda" ? "; host clock: GPU time is not in these" : "") + "\n";
    }
    if (p.comm) out += "  collectives   " + report_detail::comm_text(*p.comm) + "\n";
    if (p.gpu_busy_share >= 0) out += "  GPU busy      " + percent(p.gpu_busy_share) + " of the step\n";
  }
  if (!p.ranks.empty()) {
    out += "  ranks         " + std::to_string(p.ranks.size()) + " (verdicts below are judged on rank 0)\n";
    for (const auto& r : p.ranks) {
      std::string top;  // the largest phase, when timed
      double best = -1.0;
      for (const auto& ph : r.phases)
        if (ph.share > best) best = ph.share, top = ph.name + " " + percent(ph.share);
      out += "    rank " + std::to_string(r.rank) + "  " + std::to_string(r.steps) + " steps, median " +
             ms(r.median_step_ms) + " ms, data wait " + percent(r.data_wait_share) +
             (top.empty() ? "" : ", most in " + top) +
             (r.comm && r.comm->ddp_buckets > 0 ? ", DDP all-reduce " + ms(r.comm->ddp_allreduce_ms) + " ms" : "") + "; " +
             r.ended + "\n";
    }
    if (!p.straggler.empty()) out += "  straggler     " + p.straggler + "\n";
  }
  out += "  overhead      " + p.overhead + "\n";
  if (!p.calibration.empty()) out += "  calibration   " + p.calibration + "\n";
  if (!p.gemm_shapes.empty()) {
    std::string seen, args;
    for (size_t i = 0; i < p.gemm_shapes.size() && i < 3; ++i) {
      seen += (i ? ", " : "") + p.gemm_shapes[i].first + " (" + std::to_string(p.gemm_shapes[i].second) + " calls)";
      args += (i ? "," : "") + p.gemm_shapes[i].first;
    }
    out += "  GEMM shapes   " + seen + " in nn.Linear; `perflint calibrate --gemm " + args + "` measures them\n";
  }
  if (!p.gpu_status.empty() && p.gpu_status != "ok") out += "  GPU tracing   " + p.gpu_status + "\n";
  std::string how = p.exit_reason;
  if (!p.signal.empty()) how += " (" + p.signal + ")";
  else if (p.exit_reason == "script_exit" || p.exit_reason == "crash") how += " (exit code " + std::to_string(p.exit_code) + ")";
  out += "  ended         " + how + "\n";
  for (const auto& stray : p.strays) out += "  left running  " + stray + ": it had left the script's process group; stopped\n";
  if (!p.error.empty()) out += "  error         " + p.error + "\n";
  for (const auto& [kind, text] : p.diagnoses) out += "  " + style.bold(kind) + ": " + text + "\n";

  std::vector<const Finding*> all;
  for (const auto& r : results)
    for (const auto& f : r.findings) all.push_back(&f);
  auto cost = [](const Finding* f) { return f->verdict ? ranking_ms(*f->verdict) : 0.0; };
  auto state = [](const Finding* f) { return f->verdict ? f->verdict->state : Verdict::State::Inconclusive; };
  std::vector<const Finding*> confirmed, pending, refuted;
  for (const Finding* f : all) {
    if (state(f) == Verdict::State::Confirmed) confirmed.push_back(f);
    else if (state(f) == Verdict::State::Refuted) refuted.push_back(f);
    else pending.push_back(f);
  }
  std::stable_sort(confirmed.begin(), confirmed.end(), [&](const Finding* a, const Finding* b) { return cost(a) > cost(b); });
  auto where = [](const Finding* f) { return f->path + ":" + std::to_string(f->span.start.line); };
  auto line = [&](const Finding* f, std::string prefix) {
    std::string s = prefix + style.bold(std::string(f->rule ? f->rule->code : "?")) + "  " + where(f) + "  " + f->fix_hint + "\n";
    std::string v = "      ";
    if (f->verdict) {
      v += std::string(to_string(f->verdict->state));
      if (f->verdict->cost_ms_per_step)
        v += ", " + ms(*f->verdict->cost_ms_per_step) + " ms/step" +
             (f->verdict->share ? " (" + percent(*f->verdict->share) + ")" : std::string());
      v += ": " + f->verdict->evidence;
      if (const auto& x = f->verdict->verification) v += "\n      " + verification_line(*x, f->verdict->cost_ms_per_step);
    }
    return s + v + "\n";
  };
  out += "\n" + style.bold("ranked fix list") +
         (p.verify ? " (measured saving per step where verified, else measured cost; highest first)\n"
                   : " (measured cost per step, highest first)\n");
  if (confirmed.empty()) out += "  (no finding was confirmed by a measurement)\n";
  for (size_t i = 0; i < confirmed.size(); ++i) out += line(confirmed[i], "  " + std::to_string(i + 1) + ". ");
  if (!pending.empty()) {
    out += "\n" + style.bold("without measured cost") + "\n";
    for (const Finding* f : pending) out += line(f, "  - ");
  }
  if (!refuted.empty()) {
    out += "\n" + style.bold("refuted by the measurements") + "\n";
    for (const Finding* f : refuted) out += line(f, "  - ");
  }
  if (p.verify) out += verify_section(*p.verify, style);
  if (!p.log_tail.empty()) out += "\nlast lines of the script's output (" + p.log_path + "):\n" + p.log_tail + "\n";
  return out;
}

}  // namespace

std::string write_text(const std::vector<FileResult>& results, const ReportOptions& options) {
  const Style style{options.color};
  std::string out;
  if (options.statistics) {
    for (const auto& r : results) write_errors(out, r, style);
    out += statistics(results, style);
    return options.summary ? out + summary(results, options.unsafe_fixes, options.fix_counts) : out;
  }
  // Findings first, then what could not be linted, so errors are not lost between snippets.
  for (const auto& r : results) {
    std::vector<std::string_view> lines;
    const std::string* source = r.findings.empty() ? nullptr : find_source(options, r.path);
    if (source) lines = split_lines(*source);
    for (const auto& f : r.findings) {
      // A finding names its own path; it is normally the file's, and only then do we have its lines.
      const bool same_file = f.path == r.path || f.path.empty();
      write_finding(out, same_file ? std::string_view(r.path) : std::string_view(f.path), f, options, style,
                    source && same_file ? &lines : nullptr, r.has_syntax_error());
      out += "\n";
    }
  }
  const size_t before = out.size();
  for (const auto& r : results) write_errors(out, r, style);
  if (out.size() != before && options.summary) out += "\n";
  if (options.summary) out += summary(results, options.unsafe_fixes, options.fix_counts);
  if (options.probe) out += probe_section(results, *options.probe, style);
  return out;
}

}  // namespace perflint
