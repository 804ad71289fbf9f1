// What one file needs to know about its sibling modules (files in the same directory), so that a
// training step split across files is still found: `from engine import train_one_epoch` in main.py,
// with the loop over the loader inside engine.py. Summaries are built on demand from a parse of the
// sibling (one level: a sibling's own siblings are not followed), bounded in size and count, and
// cached for the whole run. Thread-safe: files are linted in parallel.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace perflint {

struct FunctionSummary {
  std::string name;
  std::vector<std::string> params;   // positional order, self included
  bool has_step_loop = false;        // a training-step loop inside it
  std::vector<int> iterated_params;  // parameters a step loop iterates (`for x in loader`)
  uint32_t line = 0;                 // of the def
};

// A step loop in this module iterates what a sibling's function returns: `loader = data.build()`
// (index -1) or `train_dl, val_dl = build_loaders()` (index 0 for train_dl), then `for b in loader:`.
struct SteppedResult {
  std::string module;    // "data"
  std::string function;  // "build_loader"
  int index = -1;
  uint32_t line = 0;     // of the step loop
  bool repeated = false; // that loop sits inside another (epochs)
};

struct ModuleSummary {
  std::string path;
  std::string module;                 // file stem: "engine"
  bool uses_cuda = false;
  uint32_t cuda_line = 0;             // first CUDA evidence
  std::vector<std::string> imports;   // top-level module names it imports ("engine", "torch", ...)
  std::vector<FunctionSummary> functions;
  std::vector<SteppedResult> stepped_results;
  const FunctionSummary* function(std::string_view name) const;
};

class ProjectContext {
 public:
  // Files larger than this, and directories with more .py files than max_files, are not summarised.
  explicit ProjectContext(uint64_t max_file_bytes = 1u << 20, size_t max_files = 200)
      : max_file_bytes_(max_file_bytes), max_files_(max_files) {}

  // The summary of module `module` next to `from_file` (same directory), or nullptr.
  const ModuleSummary* sibling(const std::string& from_file, std::string_view module);
  // A sibling in the same directory that imports `file`'s module and uses CUDA, or nullptr.
  const ModuleSummary* cuda_importer(const std::string& file);
  // A sibling whose training loop iterates what `function` (in `file`) returns at `index`; its
  // matching entry goes to `*which`. nullptr when none.
  const ModuleSummary* step_importer(const std::string& file, std::string_view function, int index,
                                     const SteppedResult** which);

 private:
  const ModuleSummary* summary_of(const std::string& path);  // caller holds mu_
  // Sibling files of `file` whose text names `word` (read once, cached); caller holds mu_.
  std::vector<std::string> siblings_naming(const std::string& file, std::string_view word);

  uint64_t max_file_bytes_;
  size_t max_files_;
  std::mutex mu_;
  std::map<std::string, std::unique_ptr<ModuleSummary>> cache_;  // path -> summary (null: none)
  std::map<std::string, std::vector<std::string>> dir_files_;    // dir -> .py files
  std::map<std::string, bool> sibling_paths_;  // dir/module.py -> exists
  std::map<std::string, std::string> texts_;  // path -> text (bounded), to filter before parsing
};

// Builds the summary of one source text (used by ProjectContext; exposed for tests).
ModuleSummary summarize_module(const std::string& path, const std::string& text);

}  // namespace perflint
