// --show-settings / --show-files (see show.hpp).
#include "cli/show.hpp"

#include <algorithm>

#include "rules/rule.hpp"
#include "util/byte_size.hpp"

namespace perflint {

namespace {

std::string list(const std::vector<std::string>& items, const char* none) {
  if (items.empty()) return none;
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

void row(std::string& out, const std::string& key, const std::string& value) {
  out += key;
  out += std::string(key.size() < 20 ? 20 - key.size() : 1, ' ');
  out += value;
  out += '\n';
}

}  // namespace

std::string show_settings_text(const Options& o, const Config& config, const std::vector<std::string>& select,
                               const std::vector<std::string>& ignore, const RuleSet& rules) {
  std::string out = std::string("perflint ") + PERFLINT_VERSION + " settings\n";
  row(out, "config file", o.isolated            ? "none (--isolated)"
                          : config.path.empty() ? "none found (defaults)"
                                                : config.path);
  row(out, "root", config.root);
  row(out, "select", select.empty() ? "the default set (every rule not opt-in)" : list(select, ""));
  row(out, "ignore", list(ignore, "nothing"));
  std::string codes;
  for (const Rule* r : rules.rules) codes += (codes.empty() ? "" : " ") + std::string(r->info().code);
  row(out, "enabled rules", std::to_string(rules.rules.size()) + (codes.empty() ? "" : ": " + codes));
  if (config.per_file_ignores.empty()) {
    row(out, "per-file-ignores", "none");
  } else {
    for (size_t i = 0; i < config.per_file_ignores.size(); ++i) {
      const auto& p = config.per_file_ignores[i];
      row(out, i == 0 ? "per-file-ignores" : "", "\"" + p.pattern + "\" = " + list(p.selectors, "nothing"));
    }
  }
  row(out, "exclude", list(config.exclude, "nothing (hidden directories, venv, node_modules, __pycache__ are always skipped)"));
  const bool gitignore = config.respect_gitignore && !o.no_respect_gitignore;
  row(out, "respect-gitignore",
      gitignore ? "true (inside a git work tree, what .gitignore and .git/info/exclude ignore is skipped)"
                : std::string("false") + (o.no_respect_gitignore ? " (--no-respect-gitignore)" : " (config)"));
  if (config.severity.empty()) {
    row(out, "severity", "the rules' defaults");
  } else {
    bool first = true;
    for (const auto& [code, sev] : config.severity) {
      row(out, first ? "severity" : "", code + " = " + std::string(to_string(sev)));
      first = false;
    }
  }
  row(out, "max-file-size", format_byte_size(o.max_file_size.value_or(config.max_file_size)) +
                                (o.max_file_size ? " (--max-file-size)" : ""));
  auto or_default = [](const std::optional<int>& cli, const std::optional<int>& cfg, int def, const char* unit) {
    const int v = cli ? *cli : cfg ? *cfg : def;
    return std::to_string(v) + unit + (cli ? " (command line)" : cfg ? " (config)" : " (default)");
  };
  row(out, "probe steps", or_default(o.steps, config.steps, 10, ""));
  row(out, "probe warmup", or_default(o.warmup, config.warmup, 3, ""));
  row(out, "probe timeout",
      o.timeout ? std::to_string(static_cast<int>(*o.timeout)) + " s (command line)"
                : or_default(std::nullopt, config.timeout, 300, " s"));
  row(out, "probe python", !o.python.empty()  ? o.python + " (command line)"
                           : config.python     ? *config.python + " (config)"
                                               : "default: $PERFLINT_PYTHON, else $VIRTUAL_ENV's, else python3");
  return out;
}

std::string show_files_text(const Discovery& discovery) {
  std::vector<std::string> files = discovery.files;
  std::sort(files.begin(), files.end());  // the order the report lists them in
  std::string out;
  for (const auto& f : files) out += f + "\n";
  return out;
}

}  // namespace perflint
