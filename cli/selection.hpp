// Which rules run on which file: the command line's selectors over the config's, validated, and one
// RuleSet per combination of matching per-file-ignores. Shared by the lint run and `perflint server`.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "cli/config.hpp"
#include "cli/options.hpp"
#include "rules/engine.hpp"

namespace perflint {

// The config in force for files in `start_dir`: none with --isolated, --config's file, else the one
// discovered from `start_dir` upwards; its root defaults to `fallback_root` (the current directory).
Expected<Config> config_for(const Options& o, const std::string& start_dir, const std::string& fallback_root);

// The selectors of the command line and of the config checked; the message (with a did-you-mean
// for the command line's), or empty when all are valid.
std::string check_selectors(const Options& o, const Config& c);

struct Selection {
  std::vector<std::string> select;
  std::vector<std::string> ignore;
};

// Command-line --select replaces the config's selection (and its extend-select); --ignore and
// --extend-select add to the config's.
Selection effective_selection(const Options& o, const Config& c);

// The rule set of each file: the base set, or the base minus the per-file-ignores matching it.
// for_file() builds sets on first use: call it before any thread starts; the references it returns
// stay valid for the object's lifetime.
class RuleSets {
 public:
  RuleSets(const Config& config, Selection selection);
  const RuleSet& for_file(const std::string& path);

 private:
  const Config& config_;
  Selection selection_;
  RuleSet base_;
  std::map<std::vector<size_t>, RuleSet> per_file_;  // matched per-file-ignores -> set
};

}  // namespace perflint
