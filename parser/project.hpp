// What one file needs to know about its sibling modules (files in the same directory), so that a
// training step split across files is still found: `from engine import train_one_epoch` in main.py,
// with the loop over the loader inside engine.py. A summary is what the model of a sibling says
// (one level: a sibling's own siblings are not followed); summarize_module is pure.
#pragma once
#include <cstdint>
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

// What the model asks about sibling modules. The file-system implementation lives at the I/O edge
// (cli/project_files.hpp); the model only sees this interface.
class ProjectContext {
 public:
  virtual ~ProjectContext() = default;
  // The summary of module `module` next to `from_file` (same directory), or nullptr.
  virtual const ModuleSummary* sibling(const std::string& from_file, std::string_view module) = 0;
  // A sibling in the same directory that imports `file`'s module and uses CUDA, or nullptr.
  virtual const ModuleSummary* cuda_importer(const std::string& file) = 0;
  // A sibling whose training loop iterates what `function` (in `file`) returns at `index`; its
  // matching entry goes to `*which`. nullptr when none.
  virtual const ModuleSummary* step_importer(const std::string& file, std::string_view function, int index,
                                             const SteppedResult** which) = 0;
  // Another .py file of `file`'s project, connected to it by an import (it imports `file`, or `file`
  // imports it or its package; see FileProjectContext for the bounds), that assigns `attribute` (a
  // dotted tail such as "cudnn.benchmark") a value other than a literal False, also as one target of
  // a tuple assignment; its path, or empty. A global setting made in the entry script or a seed
  // helper holds for the whole run.
  virtual std::string project_assigns(const std::string& file, std::string_view attribute) {
    (void)file;
    (void)attribute;
    return {};
  }
};

// Builds the summary of one source text (used by ProjectContext; exposed for tests).
ModuleSummary summarize_module(const std::string& path, const std::string& text);

}  // namespace perflint
