// Rule selection (see selection.hpp).
#include "cli/selection.hpp"

#include "cli/discover.hpp"
#include "rules/registry.hpp"

namespace perflint {

namespace {

// First selector that is not a code, name, prefix or ALL, if any.
const std::string* first_invalid(const std::vector<std::string>& selectors) {
  for (const auto& s : selectors)
    if (!is_valid_selector(s)) return &s;
  return nullptr;
}

}  // namespace

Expected<Config> config_for(const Options& o, const std::string& start_dir, const std::string& fallback_root) {
  Expected<Config> c = o.isolated ? Expected<Config>(Config{}) : !o.config.empty() ? load_config(o.config) : discover_config(start_dir);
  if (c && c->root.empty()) c->root = fallback_root;
  return c;
}

std::string check_selectors(const Options& o, const Config& c) {
  const std::pair<const std::vector<std::string>*, const char*> cli[] = {
      {o.select ? &*o.select : nullptr, "--select"}, {&o.extend_select, "--extend-select"}, {&o.ignore, "--ignore"}};
  for (const auto& [list, flag] : cli)
    if (list != nullptr)
      if (const std::string* bad = first_invalid(*list)) {
        const std::string best = rule_suggestion(*bad);
        return "unknown rule selector '" + *bad + "' in " + flag +
               (best.empty() ? std::string(" (see 'perflint rules')") : " (did you mean '" + best + "'?)");
      }
  // The config loader validates these too; this keeps a bad selector from ever reaching the engine.
  const std::string where = c.path.empty() ? std::string("the configuration") : c.path;
  const std::pair<const std::vector<std::string>*, const char*> cfg[] = {
      {&c.select, "select"}, {&c.extend_select, "extend-select"}, {&c.ignore, "ignore"}};
  for (const auto& [list, key] : cfg)
    if (const std::string* bad = first_invalid(*list))
      return where + ": unknown rule selector '" + *bad + "' in " + key;
  for (const auto& pfi : c.per_file_ignores)
    if (const std::string* bad = first_invalid(pfi.selectors))
      return where + ": unknown rule selector '" + *bad + "' in per-file-ignores \"" + pfi.pattern + "\"";
  return {};
}

Selection effective_selection(const Options& o, const Config& c) {
  Selection s;
  std::vector<std::string> extend = o.select ? std::vector<std::string>{} : c.extend_select;
  extend.insert(extend.end(), o.extend_select.begin(), o.extend_select.end());
  s.select = o.select ? *o.select : c.select;
  if (!extend.empty()) {
    if (s.select.empty())
      for (const Rule* r : make_rule_set({}, {}).rules) s.select.emplace_back(r->info().code);
    s.select.insert(s.select.end(), extend.begin(), extend.end());
  }
  s.ignore = c.ignore;
  s.ignore.insert(s.ignore.end(), o.ignore.begin(), o.ignore.end());
  return s;
}

RuleSets::RuleSets(const Config& config, Selection selection)
    : config_(config),
      selection_(std::move(selection)),
      base_(make_rule_set(selection_.select, selection_.ignore, config.severity)) {}

const RuleSet& RuleSets::for_file(const std::string& path) {
  std::vector<size_t> matched;
  for (size_t i = 0; i < config_.per_file_ignores.size(); ++i)
    if (matches_any_glob({config_.per_file_ignores[i].pattern}, path, config_.root)) matched.push_back(i);
  if (matched.empty()) return base_;
  auto it = per_file_.find(matched);
  if (it == per_file_.end()) {
    std::vector<std::string> ignore = selection_.ignore;
    for (size_t i : matched)
      ignore.insert(ignore.end(), config_.per_file_ignores[i].selectors.begin(),
                    config_.per_file_ignores[i].selectors.end());
    it = per_file_.emplace(matched, make_rule_set(selection_.select, ignore, config_.severity)).first;
  }
  return it->second;
}

}  // namespace perflint
