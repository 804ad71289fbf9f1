// The on-disk result cache (like ruff's): a file's lint result is kept under a key made of the file's
// bytes, its rule set, the perflint build and a fingerprint of the project the linker reads around
// it (every .py file's path, size and modification time under the linker's root), so a second run
// over an unchanged repository parses nothing, and any change to a file the result may depend on
// makes a new key. Entries are written atomically (a temporary file renamed); an unreadable or
// malformed entry is a miss. The directory holds a CACHEDIR.TAG and a .gitignore of "*".
#pragma once
#include <atomic>
#include <cstdint>
#include <optional>
#include <string>

#include "rules/engine.hpp"
#include "rules/finding.hpp"

namespace perflint {

class ResultCache {
 public:
  explicit ResultCache(std::string dir) : dir_(std::move(dir)) {}
  const std::string& dir() const { return dir_; }
  // The key of a file's result: its absolute path and bytes, its rules, this build, and the
  // project's fingerprint.
  static std::string key(const std::string& path, const std::string& bytes, const RuleSet& rules,
                         const std::string& project_fingerprint);
  std::optional<FileResult> load(const std::string& key, const std::string& path) const;
  void store(const std::string& key, const FileResult& result);
  size_t hits() const { return hits_; }
  size_t misses() const { return misses_; }

 private:
  std::string dir_;
  mutable std::atomic<size_t> hits_{0}, misses_{0};
  std::atomic<bool> prepared_{false};
};

// Serialised form of a FileResult (findings, errors, notices), without its path; exposed for tests.
std::string serialize_result(const FileResult& r);
std::optional<FileResult> deserialize_result(std::string_view data, const std::string& path);

}  // namespace perflint
