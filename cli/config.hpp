// Configuration: `[tool.perflint]` in the nearest pyproject.toml, or perflint.toml / .perflint.toml
// (first found walking up from the start directory; in one directory .perflint.toml and
// perflint.toml win over pyproject.toml, as in ruff). Unknown keys and bad values are errors that
// name the file, line and key.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "parser/expected.hpp"
#include "rules/finding.hpp"

namespace perflint {

struct PerFileIgnore {
  std::string pattern;               // glob, relative to the config file's directory
  std::vector<std::string> selectors;
};

struct Config {
  std::string path;                  // the file it came from; empty for defaults
  std::string root;                  // its directory: globs are relative to it
  std::vector<std::string> select;   // empty: default selection
  std::vector<std::string> extend_select;
  std::vector<std::string> ignore;
  std::vector<PerFileIgnore> per_file_ignores;
  std::vector<std::string> exclude;  // globs; matched against paths relative to root and basenames
  std::map<std::string, Severity, std::less<>> severity;  // code -> severity (names accepted, stored as code)
  bool respect_gitignore = true;     // "respect-gitignore": discovery skips what git ignores
  uint64_t max_file_size = 10ull * 1024 * 1024;  // bytes; "max-file-size" accepts 10485760 or "10MiB"
  // Probe defaults (used by --probe; validated here).
  std::optional<int> steps, warmup, timeout;
  std::optional<std::string> python;
  // Write the probe's HTML report / trace next to the report (-o FILE: FILE with .html /
  // .trace.json for its extension; no -o: perflint-probe.html / perflint-probe.trace.json).
  bool report_html = false, trace = false;
};

// Parses `text` as the config file `path` (pyproject.toml: only [tool.perflint] is read; absent
// table: defaults with path set to empty).
Expected<Config> parse_config(const std::string& path, const std::string& text);
// Reads and parses a config file.
Expected<Config> load_config(const std::string& path);
// The config that applies to `start_dir` (walking up to the filesystem root); defaults if none.
Expected<Config> discover_config(const std::string& start_dir);

// Glob matching as used by exclude/per-file-ignores: `*` (no /), `**` (any), `?`, `[abc]`.
bool glob_match(std::string_view pattern, std::string_view path);
// The same glob against the whole of `text` (`*` and `?` stop at '/', `**` crosses it).
bool glob_match_whole(std::string_view pattern, std::string_view text);


}  // namespace perflint
