// Sibling-module summaries for cross-file steps (see project.hpp): pure, no I/O.
#include "parser/project.hpp"

#include <filesystem>

#include "parser/model.hpp"
#include "parser/ts.hpp"

namespace fs = std::filesystem;

namespace perflint {

const FunctionSummary* ModuleSummary::function(std::string_view name) const {
  for (const auto& f : functions)
    if (f.name == name) return &f;
  return nullptr;
}

ModuleSummary summarize_module(const std::string& path, const std::string& text) {
  ModuleSummary m;
  m.path = path;
  m.module = fs::path(path).stem().string();
  auto source = SourceFile::from_bytes(path, text);
  if (!source) return m;
  static thread_local ts::Parser parser;
  ts::Tree tree = parser.parse(source->text());
  if (!tree) return m;
  // No project context here: summaries look one level deep, never at their own siblings.
  Model model(*source, tree.root(), {});
  m.uses_cuda = model.uses_cuda();
  if (m.uses_cuda) m.cuda_line = source->position(ts_node_start_byte(model.cuda_evidence())).line;
  m.imports = model.imported_module_names();
  m.functions = model.function_summaries();
  m.stepped_results = model.stepped_results();
  return m;
}

}  // namespace perflint
