// Pieces shared by the report writers: JSON escaping and values, format dispatch.
#include <charconv>
#include <cmath>
#include <map>
#include <algorithm>
#include <filesystem>
#include <cstdio>
#include <cstdio>

#include "reports/detail.hpp"
#include "reports/json_util.hpp"
#include "reports/report.hpp"
#include "rules/fixer.hpp"

namespace perflint {

namespace {
// Length of the well-formed UTF-8 sequence at s[i], or 0 (overlong, surrogate, truncated, > U+10FFFF).
size_t utf8_sequence_length(std::string_view s, size_t i) {
  const auto b = static_cast<unsigned char>(s[i]);
  size_t len;
  uint32_t min;
  if (b >= 0xc2 && b <= 0xdf) len = 2, min = 0x80;
  else if (b >= 0xe0 && b <= 0xef) len = 3, min = 0x800;
  else if (b >= 0xf0 && b <= 0xf4) len = 4, min = 0x10000;
  else return 0;
  if (i + len > s.size()) return 0;
  uint32_t cp = b & (0x7f >> len);
  for (size_t k = 1; k < len; ++k) {
    const auto c = static_cast<unsigned char>(s[i + k]);
    if ((c & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (c & 0x3f);
  }
  if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
  return len;
}
}  // namespace

void json_escape_to(std::string& out, std::string_view s) {
  // Runs of bytes that need no escaping are appended at once: the report is mostly those.
  size_t plain = 0;
  const auto flush = [&](size_t i) {
    if (i > plain) out.append(s.data() + plain, i - plain);
  };
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    const auto b = static_cast<unsigned char>(c);
    if (b >= 0x20 && b < 0x7f && c != '"' && c != '\\') continue;
    flush(i);
    plain = i + 1;
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default: {
        if (b >= 0x80) {
          // Sources are validated UTF-8, but paths and OS messages are arbitrary bytes; the output
          // must stay valid UTF-8, so a malformed byte becomes U+FFFD.
          const size_t len = utf8_sequence_length(s, i);
          if (len == 0) {
            out += "\\ufffd";
          } else {
            out.append(s.substr(i, len));
            i += len - 1;
            plain = i + 1;
          }
        } else {
          // A control character; DEL is legal in JSON but escaped so terminals show it.
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(b));
          out += buf;
        }
      }
    }
  }
  flush(s.size());
}

std::string json_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  json_escape_to(out, s);
  return out;
}

std::string write_report(OutputFormat format, const std::vector<FileResult>& results, const ReportOptions& options) {
  switch (format) {
    case OutputFormat::Text: return write_text(results, options);
    case OutputFormat::Json: return write_json(results, options);
    case OutputFormat::Sarif: return write_sarif(results, options);
    case OutputFormat::Github: return write_github(results, options);
  }
  return write_text(results, options);
}

namespace json {

Value& Value::set(std::string key, Value value) {
  if (std::holds_alternative<std::nullptr_t>(v_)) v_ = Object{};
  auto& obj = std::get<Object>(v_);
  obj.emplace_back(std::move(key), std::move(value));
  return obj.back().second;
}

Value& Value::push(Value value) {
  if (std::holds_alternative<std::nullptr_t>(v_)) v_ = Array{};
  auto& arr = std::get<Array>(v_);
  arr.push_back(std::move(value));
  return arr.back();
}

std::string Value::dump() const {
  std::string out;
  dump_to(out, 0);
  out += '\n';
  return out;
}

std::string Value::dump_compact() const {
  std::string out;
  dump_to(out, -1);
  return out;
}

// indent < 0: compact (children are dumped with -1 too).
void Value::dump_to(std::string& out, int indent) const {
  const bool compact = indent < 0;
  const auto newline = [&out, compact](int n) {
    if (compact) return;
    out += '\n';
    out.append(static_cast<size_t>(n) * 2, ' ');
  };
  if (std::holds_alternative<std::nullptr_t>(v_)) {
    out += "null";
  } else if (const auto* b = std::get_if<bool>(&v_)) {
    out += *b ? "true" : "false";
  } else if (const auto* i = std::get_if<int64_t>(&v_)) {
    char buf[24];
    out.append(buf, std::to_chars(buf, buf + sizeof buf, *i).ptr);
  } else if (const auto* d = std::get_if<double>(&v_)) {
    // Measurements: three decimals are finer than any timer we read; JSON has no NaN/inf.
    char buf[64];
    if (std::isfinite(*d)) std::snprintf(buf, sizeof buf, "%.3f", *d);
    else std::snprintf(buf, sizeof buf, "null");
    out += buf;
  } else if (const auto* s = std::get_if<std::string>(&v_)) {
    out += '"';
    json_escape_to(out, *s);
    out += '"';
  } else if (const auto* a = std::get_if<Array>(&v_)) {
    if (a->empty()) {
      out += "[]";
      return;
    }
    out += '[';
    for (size_t k = 0; k < a->size(); ++k) {
      if (k) out += ',';
      newline(indent + 1);
      (*a)[k].dump_to(out, compact ? -1 : indent + 1);
    }
    newline(indent);
    out += ']';
  } else if (const auto* o = std::get_if<Object>(&v_)) {
    if (o->empty()) {
      out += "{}";
      return;
    }
    out += '{';
    for (size_t k = 0; k < o->size(); ++k) {
      if (k) out += ',';
      newline(indent + 1);
      out += '"';
      json_escape_to(out, (*o)[k].first);
      out += compact ? "\":" : "\": ";
      (*o)[k].second.dump_to(out, compact ? -1 : indent + 1);
    }
    newline(indent);
    out += '}';
  }
}

}  // namespace json
}  // namespace perflint

namespace perflint {
std::optional<double> VerifySummary::all_speedup() const {
  if (!all || !all->step_ms || *all->step_ms <= 0.0) return std::nullopt;
  if (all->status != "measured" && all->status != "slower") return std::nullopt;
  return baseline_ms / *all->step_ms;
}
}  // namespace perflint

namespace perflint::report_detail {

const std::string* find_source(const ReportOptions& options, std::string_view path) {
  if (!options.sources) return nullptr;
  const auto it = options.sources->find(path);
  return it == options.sources->end() ? nullptr : &it->second;
}

std::vector<std::string_view> split_lines(std::string_view content) {
  if (content.starts_with("\xEF\xBB\xBF")) content.remove_prefix(3);
  std::vector<std::string_view> lines;
  size_t start = 0;
  for (size_t i = 0; i < content.size(); ++i) {
    if (content[i] == '\n') {
      lines.push_back(content.substr(start, i - start));
      start = i + 1;
    } else if (content[i] == '\r') {
      lines.push_back(content.substr(start, i - start));
      if (i + 1 < content.size() && content[i + 1] == '\n') ++i;
      start = i + 1;
    }
  }
  // A last line without terminator; an empty file still has line 1, as SourceFile has.
  if (start < content.size() || lines.empty()) lines.push_back(content.substr(start));
  return lines;
}

std::string comm_text(const CommSummary& c) {
  std::string out;
  auto num = [](double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f", v);
    return std::string(buf);
  };
  if (c.ddp_buckets > 0)
    out = "DDP gradient all-reduce " + ms(c.ddp_allreduce_ms) + " ms/step (" + percent(c.ddp_share) + " of the step, " +
          num(c.ddp_buckets) + " bucket(s)/step, launch to completion: it overlaps backward, and on a rank that waits "
          "for a slower one it is mostly that wait)";
  if (c.collective_calls > 0)
    out += (out.empty() ? "" : "; ") + std::string("other collectives (torch.distributed calls) ") + ms(c.collective_ms) + " ms/step (" +
           percent(c.collective_share) + ", " + num(c.collective_calls) + " call(s)/step)";
  return out;
}

std::optional<std::string> path_below_base(std::string_view path, const std::string& base_dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path base = base_dir.empty() ? fs::current_path(ec) : fs::path(base_dir);
  base = fs::absolute(base, ec).lexically_normal();
  if (!base.has_filename() && base.has_parent_path() && base != base.root_path()) base = base.parent_path();
  const fs::path abs = fs::absolute(fs::path(path), ec).lexically_normal();
  const fs::path rel = abs.lexically_relative(base);
  std::string rel_s = rel.generic_string();
  if (rel.empty() || rel_s == ".." || rel_s.starts_with("../")) return std::nullopt;
  return rel_s;
}

bool fixable(const Finding& f, bool unsafe) { return f.fix && fix_applies(*f.fix, unsafe); }

std::vector<RuleCount> rule_counts(const std::vector<FileResult>& results, bool unsafe) {
  std::map<std::string_view, RuleCount> by_code;
  for (const auto& r : results) {
    const bool blocked = r.has_syntax_error();
    for (const auto& f : r.findings) {
      RuleCount& row = by_code[rule_code(f)];
      row.code = rule_code(f);
      row.name = rule_name(f);
      ++row.count;
      if (!blocked && fixable(f, unsafe)) ++row.fixable;
    }
  }
  std::vector<RuleCount> rows;
  for (auto& [code, row] : by_code) rows.push_back(row);
  std::stable_sort(rows.begin(), rows.end(), [](const RuleCount& a, const RuleCount& b) { return a.count > b.count; });
  return rows;
}

std::string_view rule_code(const Finding& f) { return f.rule ? f.rule->code : std::string_view("PFL000"); }
std::string_view rule_name(const Finding& f) { return f.rule ? f.rule->name : std::string_view("unknown"); }

std::string_view sarif_level(Severity s) {
  switch (s) {
    case Severity::Error: return "error";
    case Severity::Warning: return "warning";
    case Severity::Info: return "note";
  }
  return "warning";
}

std::string_view error_kind_name(FileError::Kind k) {
  switch (k) {
    case FileError::Kind::Io: return "io";
    case FileError::Kind::Syntax: return "syntax";
    case FileError::Kind::Config: return "config";
  }
  return "io";
}

std::string ms(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, v >= 100 ? "%.0f" : "%.1f", v);
  return buf;
}

std::string percent(double share) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f%%", share * 100.0);
  return buf;
}

std::string runs_text(const Verification& x) {
  if (x.runs_ms.size() < 2) return {};
  std::string out = std::to_string(x.runs_ms.size()) + " runs: ";
  for (size_t i = 0; i < x.runs_ms.size(); ++i) out += (i ? ", " : "") + ms(x.runs_ms[i]);
  return out + " ms";
}

namespace {
// What one verification measured, after "FIX: " (single fixes) or "all fixes: ".
std::string outcome_text(const Verification& x, const std::optional<double>& predicted) {
  if (x.status == "broke-script") return "the fix broke the script (" + x.error + ")";
  if (x.status == "not-applied") return "not applied (" + x.error + ")";
  std::string details = "baseline spread " + ms(x.spread_ms.value_or(0)) + " ms";
  if (predicted) details += ", predicted " + ms(*predicted);
  if (const std::string runs = runs_text(x); !runs.empty()) details += "; " + runs;
  if (x.status == "noisy")
    return "no effect claimed: its runs fell on both sides of the baseline (" + details + ")";
  if (x.status == "measured") return "measured saving " + ms(*x.saving_ms_per_step) + " ms/step (" + details + ")";
  if (x.status == "slower") return "slower by " + ms(-*x.saving_ms_per_step) + " ms/step (" + details + ")";
  return "no measurable effect: " + ms(x.saving_ms_per_step.value_or(0)) + " ms/step is within the noise (" + details + ")";
}
}  // namespace

std::string verification_line(const Verification& x, const std::optional<double>& predicted) {
  std::string out = "verify: ";
  if (x.status == "no-runtime-fix") return out + "no run-time fix for this rule (apply it in the file and probe again)";
  return out + (x.label.empty() ? x.fix : x.label) + ": " + outcome_text(x, predicted);
}

std::string all_fixes_line(const VerifySummary& v) {
  if (!v.all) return {};
  const Verification& x = *v.all;
  if (x.status == "broke-script") return "together they broke the script: " + x.error;
  std::string out;
  if (x.step_ms) out = ms(*x.step_ms) + " ms/step: ";
  out += outcome_text(x, v.all_predicted_ms);
  if (const auto s = v.all_speedup()) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2fx", *s);
    out += ", speed-up " + std::string(buf);
  }
  return out;
}

std::string html_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 16);
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x80) {
          // Control characters other than tab and newline are not allowed in HTML text.
          if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t') out += "\xEF\xBF\xBD";
          else out += c;
        } else if (const size_t len = utf8_sequence_length(s, i)) {
          out.append(s.substr(i, len));
          i += len - 1;
        } else {
          out += "\xEF\xBF\xBD";
        }
    }
  }
  return out;
}

std::string plural(size_t n, std::string_view singular, std::string_view plural_form) {
  return std::to_string(n) + " " + std::string(n == 1 ? singular : plural_form);
}

}  // namespace perflint::report_detail
