// Sibling-module summaries read from the file system, cached for the run (see project_files.hpp).
#include "cli/project_files.hpp"
#include "cli/discover.hpp"
#include "util/io.hpp"

#include <algorithm>
#include <cctype>
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

namespace {

// `attribute` assigned in `text` to something other than a literal False: `x.attribute = v`,
// `x.attribute: T = v`, or one target of `a, x.attribute = ...`. Text level: comments and strings
// are not told apart, which can only make the answer "assigned" (the rule stays quiet).
bool assigns(std::string_view text, std::string_view attribute) {
  for (size_t at = text.find(attribute); at != std::string_view::npos; at = text.find(attribute, at + 1)) {
    const size_t line_end = std::min(text.find('\n', at), text.size());
    size_t i = at + attribute.size();
    if (i < text.size() && (std::isalnum(static_cast<unsigned char>(text[i])) || text[i] == '_')) continue;
    while (i < line_end && (text[i] == ' ' || text[i] == '\t')) ++i;
    if (i < line_end && text[i] == ',') {
      // A tuple target: an '=' (not '==') further on the line makes it an assignment.
      const std::string_view rest = text.substr(i, line_end - i);
      for (size_t e = rest.find('='); e != std::string_view::npos; e = rest.find('=', e + 1))
        if ((e + 1 >= rest.size() || rest[e + 1] != '=') && (e == 0 || (rest[e - 1] != '=' && rest[e - 1] != '!' &&
                                                                           rest[e - 1] != '<' && rest[e - 1] != '>')))
          return true;
      continue;
    }
    if (i < line_end && text[i] == ':') {  // an annotation before the value
      const size_t eq = text.find('=', i);
      if (eq == std::string_view::npos || eq >= line_end) continue;
      i = eq;
    }
    if (i >= line_end || text[i] != '=' || (i + 1 < text.size() && text[i + 1] == '=')) continue;
    ++i;
    while (i < line_end && (text[i] == ' ' || text[i] == '\t')) ++i;
    if (text.substr(i, 5) == "False" && (i + 5 >= text.size() || !std::isalnum(static_cast<unsigned char>(text[i + 5]))))
      continue;
    return true;
  }
  return false;
}

std::string project_root(const fs::path& file) {
  std::error_code ec;
  fs::path dir = fs::absolute(file, ec).parent_path().lexically_normal();
  fs::path p = dir;
  for (int up = 0; up <= 4 && !p.empty(); ++up) {
    for (const char* marker : {".git", "pyproject.toml", "setup.py", "setup.cfg"})
      if (fs::exists(p / marker, ec)) return p.string();
    if (p == p.parent_path()) break;
    p = p.parent_path();
  }
  return dir.string();
}

}  // namespace

std::string FileProjectContext::project_assigns(const std::string& file, std::string_view attribute) {
  const std::string root = project_root(fs::path(file));
  std::lock_guard<std::mutex> lock(mu_);
  const std::string key = root + '\0' + std::string(attribute);
  if (auto it = assigns_.find(key); it != assigns_.end()) {
    if (it->second.empty()) return {};
    std::error_code ec;
    return fs::equivalent(it->second, file, ec) ? std::string() : it->second;
  }
  auto files = project_files_.find(root);
  if (files == project_files_.end()) {
    std::vector<std::string> found;
    std::error_code ec;
    fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec), end;
    for (; !ec && it != end; it.increment(ec)) {
      const std::string name = it->path().filename().string();
      if (it->is_directory(ec)) {
        if (is_skipped_directory_name(name)) it.disable_recursion_pending();
        continue;
      }
      if (it->path().extension() == ".py" && it->is_regular_file(ec)) found.push_back(it->path().lexically_normal().string());
      if (found.size() > 2000) {  // not a project's sources: no answer rather than a slow one
        found.clear();
        break;
      }
    }
    std::sort(found.begin(), found.end());
    files = project_files_.emplace(root, std::move(found)).first;
  }
  std::string hit;
  std::error_code ec;
  for (const auto& other : files->second) {
    if (fs::equivalent(other, file, ec)) continue;
    // Read, searched and dropped: a project's files are not kept (text_of keeps siblings only).
    const FileRead read = read_whole_file(other, max_file_bytes_);
    if (read.status == FileRead::Status::Ok && assigns(read.bytes, attribute)) {
      hit = other;
      break;
    }
  }
  assigns_.emplace(key, hit);
  return hit;
}

}  // namespace perflint
