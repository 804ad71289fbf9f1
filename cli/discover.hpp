// File discovery: turns the command line's paths into the list of files to lint. Directories are
// searched for *.py, skipping hidden and environment directories and the config's exclude globs;
// symlinks are followed, and a directory symlink loop is reported instead of walked forever.
#pragma once
#include <string>
#include <vector>

#include "rules/finding.hpp"

namespace perflint {

struct DiscoverOptions {
  std::string root;                  // absolute; exclude globs are relative to it (empty: cwd)
  std::vector<std::string> exclude;  // globs (cli/config.hpp glob_match)
  // Inside a git work tree, skip what .gitignore / .git/info/exclude ignore (cli/gitignore.hpp).
  // Files named on the command line are linted regardless, as ruff does.
  bool respect_gitignore = true;
};

struct Discovery {
  std::vector<std::string> files;  // as given, or joined onto the directory given; no duplicates
  std::vector<FileError> errors;   // Io: missing path, unreadable directory, symlink loop
  std::vector<Notice> notices;     // e.g. a dangling symlink met inside a directory
};

// `paths` empty means the current directory. Never throws for file-system trouble.
Discovery discover_files(const std::vector<std::string>& paths, const DiscoverOptions& options);

// Directory names that are never searched unless named on the command line.
bool is_skipped_directory_name(std::string_view name);

// `path` (relative to the cwd, or absolute) relative to `root` with '/' separators; empty when the
// path is not under root.
std::string path_relative_to_root(const std::string& path, const std::string& root);
// Whether any glob matches the path relative to root, or its last component.
bool matches_any_glob(const std::vector<std::string>& globs, const std::string& path, const std::string& root);

}  // namespace perflint
