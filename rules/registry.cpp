// The rule registry: an explicit list, sorted by code. Add a rule here and in docs/rules/.
#include "rules/registry.hpp"
#include "util/suggest.hpp"

#include <algorithm>
#include <cctype>

#include "rules/all.hpp"

namespace perflint {

const std::vector<std::unique_ptr<Rule>>& all_rules() {
  static const std::vector<std::unique_ptr<Rule>> rules = [] {
    std::vector<std::unique_ptr<Rule>> v = make_all_rules();
    std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a->info().code < b->info().code; });
    return v;
  }();
  return rules;
}

namespace {
bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::toupper(static_cast<unsigned char>(x)) == std::toupper(static_cast<unsigned char>(y));
         });
}
bool istarts_with(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && iequals(s.substr(0, prefix.size()), prefix);
}
}  // namespace

const Rule* find_rule(std::string_view code_or_name) {
  for (const auto& r : all_rules())
    if (iequals(r->info().code, code_or_name) || r->info().name == code_or_name) return r.get();
  return nullptr;
}

bool selector_matches(std::string_view selector, const RuleInfo& info) {
  if (iequals(selector, "ALL")) return true;
  if (selector == info.name) return true;
  return istarts_with(selector, "PFL") && istarts_with(info.code, selector);
}

bool is_valid_selector(std::string_view selector) {
  if (iequals(selector, "ALL")) return true;
  for (const auto& r : all_rules())
    if (selector_matches(selector, r->info())) return true;
  return false;
}

std::string rule_suggestion(std::string_view selector) {
  std::vector<std::string_view> names;
  for (const auto& r : all_rules()) names.push_back(r->info().name), names.push_back(r->info().code);
  return closest_match(selector, names);
}

}  // namespace perflint
