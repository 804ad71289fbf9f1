// `perflint rules` (the catalogue, grouped by category) and `perflint rule CODE` (one rule's doc
// page as plain text). Both read the same embedded docs as SARIF help (STYLE.md rule 8).
#include <algorithm>

#include "reports/json_util.hpp"
#include "reports/report.hpp"
#include "rules/docs.hpp"
#include "rules/registry.hpp"

namespace perflint {

std::string write_rule_list(const std::vector<const RuleInfo*>& rules, bool color) {
  const auto bold = [color](std::string_view s) {
    return color ? "\x1b[1m" + std::string(s) + "\x1b[0m" : std::string(s);
  };
  size_t code_w = 0, name_w = 0, sev_w = 0;
  for (const auto* r : rules) {
    code_w = std::max(code_w, r->code.size());
    name_w = std::max(name_w, r->name.size());
    sev_w = std::max(sev_w, to_string(r->severity).size());
  }
  // Categories in order of their first rule: codes are grouped by category (the hundreds digit).
  std::vector<std::string_view> categories;
  for (const auto* r : rules)
    if (std::find(categories.begin(), categories.end(), r->category) == categories.end()) categories.push_back(r->category);
  std::string out;
  for (const auto cat : categories) {
    if (!out.empty()) out += "\n";
    out += bold(cat) + "\n";
    for (const auto* r : rules) {
      if (r->category != cat) continue;
      const auto pad = [](std::string_view s, size_t w) { return std::string(s) + std::string(w - s.size(), ' '); };
      std::string line = "  " + (color ? bold(r->code) + std::string(code_w - r->code.size(), ' ') : pad(r->code, code_w)) +
                         "  " + pad(r->name, name_w) + "  " + pad(to_string(r->severity), sev_w) + "  " +
                         std::string(r->summary);
      if (std::find(r->tags.begin(), r->tags.end(), "opt-in") != r->tags.end()) line += " (opt-in: select it by code)";
      out += line + "\n";
    }
  }
  return out;
}

std::string write_rule_list(bool color) {
  std::vector<const RuleInfo*> rules;
  for (const auto& r : all_rules()) rules.push_back(&r->info());
  return write_rule_list(rules, color);
}

std::string write_rule_list_json(const std::vector<const RuleInfo*>& rules) {
  json::Value list = json::Array{};
  for (const auto* r : rules) {
    json::Value tags = json::Array{};
    for (const auto t : r->tags) tags.push(t);
    json::Value rule;
    rule.set("code", r->code);
    rule.set("name", r->name);
    rule.set("category", r->category);
    rule.set("severity", to_string(r->severity));
    rule.set("summary", r->summary);
    rule.set("cuda_only", r->cuda_only);
    rule.set("tags", std::move(tags));
    list.push(std::move(rule));
  }
  return list.dump() + "\n";
}

std::string write_rule_list_json() {
  std::vector<const RuleInfo*> rules;
  for (const auto& r : all_rules()) rules.push_back(&r->info());
  return write_rule_list_json(rules);
}

std::string write_rule_explanation(const RuleInfo& rule, std::string_view markdown) {
  std::string out = std::string(rule.code) + " " + std::string(rule.name) + " (" + std::string(rule.category) + ", " +
                    std::string(to_string(rule.severity)) + ")\n\n";
  if (markdown.empty()) return out + std::string(rule.summary) + "\n";
  std::string body = doc_plain_text(markdown);
  // The page's own title repeats the header line; drop it.
  if (markdown.starts_with("# ")) {
    const size_t eol = body.find('\n');
    body = eol == std::string::npos ? std::string{} : body.substr(eol + 1);
    const size_t first = body.find_first_not_of('\n');
    body = first == std::string::npos ? std::string{} : body.substr(first);
  }
  return out + body;
}

std::string write_rule_explanation(std::string_view code_or_name) {
  const Rule* rule = find_rule(code_or_name);
  if (!rule) return {};
  return write_rule_explanation(rule->info(), rule_doc(rule->info().code));
}

}  // namespace perflint
