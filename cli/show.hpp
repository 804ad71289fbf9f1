// `--show-settings` and `--show-files`: what a run would use, printed instead of linting (as ruff's
// flags of the same names), so that a user can see why a file is or is not linted, or a rule is
// or is not on.
#pragma once
#include <string>
#include <vector>

#include "cli/config.hpp"
#include "cli/discover.hpp"
#include "cli/options.hpp"
#include "rules/engine.hpp"

namespace perflint {

// The settings in force: config file, root, the rules enabled (with the selectors that made the
// set), per-file-ignores, excludes, severities, discovery and probe defaults.
std::string show_settings_text(const Options& o, const Config& config, const std::vector<std::string>& select,
                               const std::vector<std::string>& ignore, const RuleSet& rules);

// One file per line, sorted as the report sorts them.
std::string show_files_text(const Discovery& discovery);

}  // namespace perflint
