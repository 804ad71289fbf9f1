// ProjectContext over the file system: sibling files of the same directory are read (bounded in
// size and count), filtered by their text before any parse, summarised on demand and cached for
// the whole run. Thread-safe: files are linted in parallel.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "parser/project.hpp"

namespace perflint {

class FileProjectContext final : public ProjectContext {
 public:
  // Files larger than this, and directories with more .py files than max_files, are not summarised.
  explicit FileProjectContext(uint64_t max_file_bytes = 1u << 20, size_t max_files = 200)
      : max_file_bytes_(max_file_bytes), max_files_(max_files) {}

  const ModuleSummary* sibling(const std::string& from_file, std::string_view module) override;
  const ModuleSummary* cuda_importer(const std::string& file) override;
  const ModuleSummary* step_importer(const std::string& file, std::string_view function, int index,
                                     const SteppedResult** which) override;
  // The project: the nearest directory at or above the file's with .git, pyproject.toml, setup.py or
  // setup.cfg (at most 4 levels up; none: the file's own directory), searched recursively for *.py
  // (hidden directories, venv, node_modules and __pycache__ skipped; at most 2,000 files). Of its
  // files that assign the attribute, only those connected to `file` by an import count: one that
  // imports it (its entry script), or one it imports (directly, or inside a package it imports).
  // An unrelated script of the same repository sets its own flag, not this one's.
  std::string project_assigns(const std::string& file, std::string_view attribute) override;

 private:
  const ModuleSummary* summary_of(const std::string& path);  // caller holds mu_
  const std::string& text_of(const std::string& path);       // cached, bounded; caller holds mu_
  // Sibling files of `file` whose text names `word`; caller holds mu_.
  std::vector<std::string> siblings_naming(const std::string& file, std::string_view word);

  uint64_t max_file_bytes_;
  size_t max_files_;
  std::mutex mu_;
  std::map<std::string, std::unique_ptr<ModuleSummary>> cache_;  // path -> summary
  std::map<std::string, std::vector<std::string>> dir_files_;    // dir -> .py files
  std::map<std::string, bool> sibling_paths_;                    // dir/module.py -> exists
  std::map<std::string, std::string> texts_;                     // path -> text (bounded)
  // A project file that assigns an attribute: its module name and its import statements.
  struct Assigner {
    std::string path, module;
    std::vector<std::string> imports;
  };
  const std::vector<Assigner>& assigners(const std::string& root, std::string_view attribute);  // caller holds mu_
  std::map<std::string, std::vector<Assigner>> assigners_;       // root + '\0' + attribute -> files
};

}  // namespace perflint
