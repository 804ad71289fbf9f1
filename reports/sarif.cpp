// The SARIF 2.1.0 report, shaped for GitHub code scanning: rules with their docs as help,
// repo-relative artifact URIs, full regions in code points, and a line-hash fingerprint that
// survives edits above the finding so alerts are not re-opened on every push.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <map>

#include "reports/detail.hpp"
#include "reports/json_util.hpp"
#include "reports/report.hpp"
#include "rules/docs.hpp"
#include "rules/registry.hpp"

namespace perflint {
namespace {

using json::Value;
namespace fs = std::filesystem;

constexpr std::string_view kInformationUri = "https://github.com/perflint/perflint";

// RFC 3986: unreserved characters and the path separator stay, every other byte is %XX.
std::string percent_encode(std::string_view path) {
  static constexpr char hex[] = "0123456789ABCDEF";
  std::string out;
  for (const char c : path) {
    const auto b = static_cast<unsigned char>(c);
    if (std::isalnum(b) || c == '-' || c == '.' || c == '_' || c == '~' || c == '/') {
      out += c;
    } else {
      out += '%';
      out += hex[b >> 4];
      out += hex[b & 0xf];
    }
  }
  return out;
}

struct ArtifactUri {
  std::string uri;
  bool relative = true;  // relative to %SRCROOT%
};

ArtifactUri artifact_uri(std::string_view path, const std::string& base_dir) {
  if (auto rel = report_detail::path_below_base(path, base_dir)) return {percent_encode(*rel), true};
  // Outside the repository root: GitHub cannot place it, but a file URI is still a valid location.
  std::error_code ec;
  std::string a = fs::absolute(fs::path(path), ec).lexically_normal().generic_string();
  if (!a.starts_with("/")) a = "/" + a;
  return {"file://" + percent_encode(a), false};
}

Value artifact_location(const ArtifactUri& a) {
  Value loc;
  loc.set("uri", a.uri);
  if (a.relative) loc.set("uriBaseId", "%SRCROOT%");
  return loc;
}

Value region(const Span& s) {
  Value r;
  r.set("startLine", s.start.line);
  r.set("startColumn", s.start.column);
  r.set("endLine", s.end.line);
  r.set("endColumn", s.end.column);
  return r;
}

Value physical_location(const ArtifactUri& a, Value reg) {
  Value pl;
  pl.set("artifactLocation", artifact_location(a));
  pl.set("region", std::move(reg));
  Value loc;
  loc.set("physicalLocation", std::move(pl));
  return loc;
}

Value text(std::string s) {
  Value v;
  v.set("text", std::move(s));
  return v;
}

Value rule_descriptor(const RuleInfo& info) {
  const std::string_view md = rule_doc(info.code);
  const std::string what = md.empty() ? std::string{} : doc_section(md, "What it does");
  Value r;
  r.set("id", info.code);
  r.set("name", info.name);
  r.set("shortDescription", text(std::string(info.summary)));
  r.set("fullDescription", text(what.empty() ? std::string(info.summary) : what));
  Value help;
  help.set("text", md.empty() ? std::string(info.summary) : doc_plain_text(md));
  help.set("markdown", md.empty() ? std::string(info.summary) : std::string(md));
  r.set("help", std::move(help));
  if (!md.empty()) r.set("helpUri", std::string(kInformationUri) + "/blob/main/docs/rules/" + std::string(info.code) + ".md");
  Value conf;
  conf.set("level", report_detail::sarif_level(info.severity));
  r.set("defaultConfiguration", std::move(conf));
  Value tags = json::Array{};
  std::vector<std::string_view> seen;
  auto add_tag = [&](std::string_view t) {
    if (t.empty() || std::find(seen.begin(), seen.end(), t) != seen.end()) return;
    seen.push_back(t);
    tags.push(t);
  };
  add_tag(info.category);
  for (const auto t : info.tags) add_tag(t);
  add_tag("performance");
  Value props;
  props.set("tags", std::move(tags));
  r.set("properties", std::move(props));
  return r;
}

// The given (or the registry's) rules, then any rule a finding refers to that the registry lacks (tests, plugins),
// so that every result's ruleIndex points into rules[].
std::vector<const RuleInfo*> collect_rules(const std::vector<FileResult>& results, const ReportOptions& options) {
  std::vector<const RuleInfo*> rules;
  if (options.rules)
    rules = *options.rules;
  else
    for (const auto& r : all_rules()) rules.push_back(&r->info());
  for (const auto& fr : results)
    for (const auto& f : fr.findings) {
      if (!f.rule) continue;
      const bool known = std::any_of(rules.begin(), rules.end(), [&](const RuleInfo* i) { return i->code == f.rule->code; });
      if (!known) rules.push_back(f.rule);
    }
  return rules;
}

// "hash:N" per line: N counts the lines so far with the same hash, as GitHub's own fingerprints do.
std::vector<std::string> line_hashes(std::string_view content) {
  const auto lines = report_detail::split_lines(content);
  std::vector<std::string> out;
  out.reserve(lines.size());
  std::map<uint64_t, int> seen;
  for (const auto line : lines) {
    const uint64_t h = line_fingerprint_hash(line);
    char buf[40];
    std::snprintf(buf, sizeof buf, "%016llx:%d", static_cast<unsigned long long>(h), ++seen[h]);
    out.emplace_back(buf);
  }
  return out;
}

}  // namespace

uint64_t line_fingerprint_hash(std::string_view line) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (const char c : line) {
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v') continue;
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ull;
  }
  return h;
}

std::string write_sarif(const std::vector<FileResult>& results, const ReportOptions& options) {
  const std::vector<const RuleInfo*> rules = collect_rules(results, options);
  std::map<std::string_view, size_t> rule_index;
  Value rules_json = json::Array{};
  for (size_t i = 0; i < rules.size(); ++i) {
    rule_index.emplace(rules[i]->code, i);
    rules_json.push(rule_descriptor(*rules[i]));
  }

  Value results_json = json::Array{};
  Value notifications = json::Array{};
  bool success = true;
  for (const auto& fr : results) {
    std::vector<std::string> hashes;
    if (!fr.findings.empty())
      if (const std::string* src = report_detail::find_source(options, fr.path)) hashes = line_hashes(*src);
    for (const auto& f : fr.findings) {
      const ArtifactUri uri = artifact_uri(f.path.empty() ? fr.path : f.path, options.base_dir);
      Value res;
      res.set("ruleId", report_detail::rule_code(f));
      if (f.rule) res.set("ruleIndex", rule_index.at(f.rule->code));
      res.set("level", report_detail::sarif_level(f.severity));
      res.set("message", text(f.fix_hint.empty() ? f.message : f.message + " Fix: " + f.fix_hint));
      Value locs = json::Array{};
      locs.push(physical_location(uri, region(f.span)));
      res.set("locations", std::move(locs));
      if (f.span.start.line >= 1 && f.span.start.line <= hashes.size()) {
        Value fp;
        fp.set("primaryLocationLineHash", hashes[f.span.start.line - 1]);
        res.set("partialFingerprints", std::move(fp));
      }
      if (f.verdict) {  // the probe's verdict (perflint --probe)
        Value props;
        props.set("verdict", std::string(to_string(f.verdict->state)));
        if (f.verdict->cost_ms_per_step) props.set("costMsPerStep", *f.verdict->cost_ms_per_step);
        if (f.verdict->share) props.set("shareOfStep", *f.verdict->share);
        props.set("evidence", f.verdict->evidence);
        if (const auto& x = f.verdict->verification) {
          props.set("verifyStatus", x->status);
          if (x->saving_ms_per_step) props.set("measuredSavingMsPerStep", *x->saving_ms_per_step);
          if (x->spread_ms) props.set("measuredSpreadMs", *x->spread_ms);
        }
        res.set("properties", std::move(props));
      }
      Value related = json::Array{};
      int id = 0;
      for (const auto& n : f.notes) {
        if (!n.span) continue;
        Value rel;
        rel.set("id", id++);
        Value pl;
        pl.set("artifactLocation", artifact_location(uri));
        pl.set("region", region(*n.span));
        rel.set("physicalLocation", std::move(pl));
        rel.set("message", text(n.message));
        related.push(std::move(rel));
      }
      if (id > 0) res.set("relatedLocations", std::move(related));
      results_json.push(std::move(res));
    }
    for (const auto& e : fr.errors) {
      if (e.kind != FileError::Kind::Syntax) success = false;
      Value n;
      n.set("level", "error");
      n.set("message", text(e.message));
      Value desc;
      desc.set("id", report_detail::error_kind_name(e.kind));
      n.set("descriptor", std::move(desc));
      Value pl;
      pl.set("artifactLocation", artifact_location(artifact_uri(e.path.empty() ? fr.path : e.path, options.base_dir)));
      if (e.position) {
        Value reg;
        reg.set("startLine", e.position->line);
        reg.set("startColumn", e.position->column);
        pl.set("region", std::move(reg));
      }
      Value loc;
      loc.set("physicalLocation", std::move(pl));
      Value locs = json::Array{};
      locs.push(std::move(loc));
      n.set("locations", std::move(locs));
      notifications.push(std::move(n));
    }
    for (const auto& no : fr.notices) {
      Value n;
      n.set("level", "note");
      n.set("message", text(no.message));
      Value desc;
      desc.set("id", "notice");
      n.set("descriptor", std::move(desc));
      Value pl;
      pl.set("artifactLocation", artifact_location(artifact_uri(no.path.empty() ? fr.path : no.path, options.base_dir)));
      Value loc;
      loc.set("physicalLocation", std::move(pl));
      Value locs = json::Array{};
      locs.push(std::move(loc));
      n.set("locations", std::move(locs));
      notifications.push(std::move(n));
    }
  }

  Value driver;
  driver.set("name", "perflint");
  driver.set("version", PERFLINT_VERSION);
  driver.set("semanticVersion", PERFLINT_VERSION);
  driver.set("informationUri", kInformationUri);
  driver.set("rules", std::move(rules_json));
  Value tool;
  tool.set("driver", std::move(driver));

  Value invocation;
  invocation.set("executionSuccessful", success);
  invocation.set("toolExecutionNotifications", std::move(notifications));
  Value invocations = json::Array{};
  invocations.push(std::move(invocation));

  Value run;
  run.set("tool", std::move(tool));
  run.set("invocations", std::move(invocations));
  // Our columns count code points; SARIF's default would be UTF-16 code units.
  run.set("columnKind", "unicodeCodePoints");
  run.set("results", std::move(results_json));
  Value runs = json::Array{};
  runs.push(std::move(run));

  Value root;
  root.set("$schema", "https://json.schemastore.org/sarif-2.1.0.json");
  root.set("version", "2.1.0");
  root.set("runs", std::move(runs));
  return root.dump();
}

}  // namespace perflint
