// Sibling-module summaries read from the file system, cached for the run (see project_files.hpp).
#include "cli/project_files.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;

namespace perflint {

const std::string& FileProjectContext::text_of(const std::string& path) {
  auto it = texts_.find(path);
  if (it != texts_.end()) return it->second;
  std::string content;  // too large or unreadable: empty, so nothing is found in it
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  if (!ec && size <= max_file_bytes_) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    content = ss.str();
  }
  return texts_.emplace(path, std::move(content)).first->second;
}

const ModuleSummary* FileProjectContext::summary_of(const std::string& path) {
  auto it = cache_.find(path);
  if (it != cache_.end()) return it->second.get();
  const std::string& text = text_of(path);
  auto summary = std::make_unique<ModuleSummary>();
  summary->path = path;
  summary->module = fs::path(path).stem().string();
  // No backward, no .step( and no cuda anywhere: no training step and no CUDA use to find, and no
  // parse needed.
  if (text.find("backward") != std::string::npos || text.find(".step(") != std::string::npos ||
      text.find("cuda") != std::string::npos)
    *summary = summarize_module(path, text);
  return cache_.emplace(path, std::move(summary)).first->second.get();
}

const ModuleSummary* FileProjectContext::sibling(const std::string& from_file, std::string_view module) {
  if (module.empty() || module.find('/') != std::string_view::npos) return nullptr;
  const fs::path candidate = fs::path(from_file).parent_path() / (std::string(module) + ".py");
  // A file does not summarise itself as its own sibling.
  if (fs::path(from_file).stem() == module) return nullptr;
  std::lock_guard<std::mutex> lock(mu_);
  // Most names are not siblings (`torch`, `os`): remember the answer per directory and module, so a
  // directory of many scripts costs one stat per module name, not one per file.
  const std::string key = candidate.lexically_normal().string();
  if (auto it = sibling_paths_.find(key); it != sibling_paths_.end()) return it->second ? summary_of(key) : nullptr;
  std::error_code ec;
  const bool exists = fs::is_regular_file(candidate, ec);
  sibling_paths_.emplace(key, exists);
  return exists ? summary_of(key) : nullptr;
}

std::vector<std::string> FileProjectContext::siblings_naming(const std::string& file, std::string_view word) {
  const fs::path self(file);
  const std::string dir = self.parent_path().empty() ? "." : self.parent_path().string();
  auto it = dir_files_.find(dir);
  if (it == dir_files_.end()) {
    std::vector<std::string> files;
    std::error_code ec;
    for (fs::directory_iterator d(dir, ec), end; !ec && d != end; d.increment(ec)) {
      if (d->path().extension() != ".py" || !d->is_regular_file(ec)) continue;
      files.push_back((fs::path(dir) / d->path().filename()).lexically_normal().string());
    }
    if (files.size() > max_files_) files.clear();  // a huge directory: not a project's scripts
    std::sort(files.begin(), files.end());
    it = dir_files_.emplace(dir, std::move(files)).first;
  }
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& other : it->second) {
    if (fs::equivalent(other, self, ec)) continue;
    // Cheap filter before a parse: the sibling must at least name what we look for.
    if (text_of(other).find(word) != std::string::npos) out.push_back(other);
  }
  return out;
}

const ModuleSummary* FileProjectContext::cuda_importer(const std::string& file) {
  const std::string module = fs::path(file).stem().string();
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& other : siblings_naming(file, module)) {
    const ModuleSummary* s = summary_of(other);
    if (!s || !s->uses_cuda) continue;
    if (std::find(s->imports.begin(), s->imports.end(), module) != s->imports.end()) return s;
  }
  return nullptr;
}

const ModuleSummary* FileProjectContext::step_importer(const std::string& file, std::string_view function, int index,
                                                   const SteppedResult** which) {
  const std::string module = fs::path(file).stem().string();
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& other : siblings_naming(file, function)) {
    const ModuleSummary* s = summary_of(other);
    if (!s) continue;
    for (const auto& r : s->stepped_results)
      if (r.module == module && r.function == function && r.index == index) {
        if (which) *which = &r;
        return s;
      }
  }
  return nullptr;
}

}  // namespace perflint
