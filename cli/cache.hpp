// The on-disk result cache (like ruff's): a file's lint result is kept under a key made of the file's
// bytes, its rule set, the perflint build and a fingerprint of the project the linker reads around
// it (every .py file's path, size and modification time under the linker's root), so a second run
// over an unchanged repository parses nothing (the linker's facts are blobs of the same cache), and
// any change to a file the result may depend on makes a new key. Entries are written atomically (a temporary file renamed); an unreadable or
// malformed entry is a miss. The directory holds a CACHEDIR.TAG and a .gitignore of "*".
#pragma once
#include <atomic>
#include <map>
#include <mutex>
#include <cstdint>
#include <optional>
#include <string>

#include "rules/engine.hpp"
#include "rules/finding.hpp"

namespace perflint {

class ResultCache {
 public:
  explicit ResultCache(std::string dir) : dir_(std::move(dir)) {}
  ~ResultCache() { flush(); }
  ResultCache(const ResultCache&) = delete;
  ResultCache& operator=(const ResultCache&) = delete;
  const std::string& dir() const { return dir_; }
  // The key of a file's result: its absolute path and bytes, its rules, this build, and what the
  // project answers for it (ProjectContext::fingerprint).
  static std::string key(const std::string& path, const std::string& bytes, const RuleSet& rules,
                         const std::string& project_fingerprint);
  std::optional<FileResult> load(const std::string& key, const std::string& path);
  void store(const std::string& key, const std::string& path, const FileResult& result);
  // Writes the packs that changed (also done by the destructor). Results are packed per directory
  // of linted files: one file written per directory, not one per linted file.
  void flush();
  // Named blobs beside the packs (the project linker's facts, cli/project_files.hpp): read at once,
  // written by flush. A blob of another build, or a damaged one, is absent.
  std::optional<std::string> load_blob(const std::string& name);
  void store_blob(const std::string& name, std::string data);
  size_t hits() const { return hits_; }
  size_t misses() const { return misses_; }

 private:
  struct Pack {
    bool loaded = false, dirty = false;
    std::map<std::string, std::pair<std::string, std::string>> entries;  // abs path -> (key, data)
  };
  Pack& pack_for(const std::string& abs_path);  // caller holds mu_
  std::string pack_path(const std::string& dir) const;
  std::string blob_path(const std::string& name) const;
  std::map<std::string, std::string> blobs_;  // name -> data to write at flush
  std::string dir_;
  std::mutex mu_;
  std::map<std::string, Pack> packs_;  // directory of linted files -> its pack
  std::atomic<size_t> hits_{0}, misses_{0};
};

// Serialised form of a FileResult (findings, errors, notices), without its path; exposed for tests.
std::string serialize_result(const FileResult& r);
std::optional<FileResult> deserialize_result(std::string_view data, const std::string& path);

}  // namespace perflint
