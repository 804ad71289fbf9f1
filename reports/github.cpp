// GitHub Actions workflow commands: one `::warning file=...::message` line per finding, so the
// findings show as annotations on the pull request diff without uploading SARIF.
#include "reports/detail.hpp"
#include "reports/report.hpp"

namespace perflint {
namespace {

// The runner splits the command on ',' and '::' and ends it at a newline, hence the escaping;
// property values (file=, title=) also escape ':' and ','.
std::string escape(std::string_view s, bool property) {
  std::string out;
  for (const char c : s) {
    switch (c) {
      case '%': out += "%25"; break;
      case '\r': out += "%0D"; break;
      case '\n': out += "%0A"; break;
      case ':': out += property ? "%3A" : ":"; break;
      case ',': out += property ? "%2C" : ","; break;
      default: out += c;
    }
  }
  return out;
}

std::string escape_data(std::string_view s) { return escape(s, false); }
std::string escape_property(std::string_view s) { return escape(s, true); }

std::string_view command(Severity s) {
  switch (s) {
    case Severity::Error: return "error";
    case Severity::Warning: return "warning";
    case Severity::Info: return "notice";
  }
  return "warning";
}

}  // namespace

std::string write_github(const std::vector<FileResult>& results, const ReportOptions& options) {
  // The runner places annotations by paths relative to the repository root (as SARIF's URIs are);
  // a file outside it keeps the path it was given.
  auto file = [&](const std::string& path) {
    return escape_property(report_detail::path_below_base(path, options.base_dir).value_or(path));
  };
  std::string out;
  for (const auto& r : results) {
    for (const auto& f : r.findings) {
      const std::string message = f.fix_hint.empty() ? f.message : f.message + "\nhelp: " + f.fix_hint;
      out += "::" + std::string(command(f.severity)) + " file=" + file(f.path.empty() ? r.path : f.path) +
             ",line=" + std::to_string(f.span.start.line) + ",col=" + std::to_string(f.span.start.column) +
             ",endLine=" + std::to_string(f.span.end.line) + ",endColumn=" + std::to_string(f.span.end.column) +
             ",title=" + escape_property("perflint (" + std::string(report_detail::rule_code(f)) + ")") +
             "::" + escape_data(message) + "\n";
    }
    for (const auto& e : r.errors) {
      out += "::error file=" + file(e.path.empty() ? r.path : e.path);
      if (e.position)
        out += ",line=" + std::to_string(e.position->line) + ",col=" + std::to_string(e.position->column);
      out += ",title=" + escape_property("perflint (" + std::string(report_detail::error_kind_name(e.kind)) + " error)") +
             "::" + escape_data(e.message) + "\n";
    }
    for (const auto& n : r.notices)
      out += "::notice file=" + file(n.path.empty() ? r.path : n.path) + ",title=perflint::" +
             escape_data(n.message) + "\n";
  }
  return out;
}

}  // namespace perflint
