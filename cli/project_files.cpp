// Sibling-module summaries read from the file system, cached for the run (see project_files.hpp).
#include "cli/project_files.hpp"
#include "cli/discover.hpp"
#include "cli/gitignore.hpp"
#include "cli/project_text.hpp"
#include "parser/text_util.hpp"
#include "util/io.hpp"

#include <algorithm>
#include <cctype>
#include <deque>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;

namespace perflint {

using project_text::import_lines;
using project_text::import_words;
using project_text::project_root;

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

const std::vector<project_text::ImportStatement>& FileProjectContext::imports_of(const std::string& path) {
  if (auto it = imports_.find(path); it != imports_.end()) return it->second;
  return imports_.emplace(path, project_text::import_statements(text_of(path))).first->second;
}

namespace {

// No backward, no .step( and no cuda anywhere: no training step and no CUDA use to find, and no
// parse needed for summary_of.
bool may_step(std::string_view text) {
  return text.find("backward") != std::string::npos || text.find(".step(") != std::string::npos ||
         text.find("cuda") != std::string::npos;
}

}  // namespace

const ModuleSummary* FileProjectContext::summary_of(const std::string& path) {
  auto it = cache_.find(path);
  if (it != cache_.end()) return it->second.get();
  const std::string& text = text_of(path);
  auto summary = std::make_unique<ModuleSummary>();
  summary->path = path;
  summary->module = fs::path(path).stem().string();
  if (may_step(text) || text.find("device") != std::string::npos) *summary = summarize_module(path, text);
  ModuleSummary* made = cache_.emplace(path, std::move(summary)).first->second.get();
  // A script that takes its device from a project function returning a CUDA one (pytorchic-bert's
  // `utils.get_device()`, held-out round 20) uses CUDA there.
  for (const auto& [target, line] : made->device_calls) {
    const ModuleSummary* module = nullptr;
    const FunctionSummary* f = project_function(path, target, &module);
    if (f && module != made && f->returns_cuda_device) {
      made->uses_cuda = true;
      made->cuda_line = line;
      break;
    }
  }
  return made;
}

const ModuleSummary* FileProjectContext::parsed_summary_of(const std::string& path) {
  if (may_step(text_of(path))) return summary_of(path);
  auto it = parsed_summaries_.find(path);
  if (it == parsed_summaries_.end())
    it = parsed_summaries_.emplace(path, std::make_unique<ModuleSummary>(summarize_module(path, text_of(path)))).first;
  return it->second.get();
}

bool FileProjectContext::called_only_conditionally_elsewhere(const std::string& file, std::string_view function) {
  if (function.empty()) return false;
  std::error_code ec;
  const fs::path self = fs::absolute(fs::path(file), ec).lexically_normal();
  std::lock_guard<std::recursive_mutex> lock(mu_);
  const std::string name(function);
  bool conditional = false;
  for (const std::string& other : importers_naming(self.string(), function)) {
    const ModuleSummary* m = importer_summary(other);
    if (!m) continue;
    if (std::find(m->plain_calls.begin(), m->plain_calls.end(), name) != m->plain_calls.end()) return false;
    conditional = conditional || std::find(m->conditional_calls.begin(), m->conditional_calls.end(), name) !=
                                     m->conditional_calls.end();
  }
  return conditional;
}

std::vector<std::string> FileProjectContext::importers_naming(const std::string& self, std::string_view word) {
  std::vector<std::string> out;
  for (const std::string& other : importers_of(graph_for(root_for(fs::path(self))), self))
    if (text_of(other).find(word) != std::string::npos) out.push_back(other);
  return out;
}

const ModuleSummary* FileProjectContext::importer_summary(const std::string& path) {
  if (auto it = importer_summaries_.find(path); it != importer_summaries_.end()) return it->second.get();
  importer_summaries_.emplace(path, nullptr);  // null while being made: a cycle
  auto made = std::make_unique<ModuleSummary>(summarize_module(path, text_of(path), this, true));
  return (importer_summaries_[path] = std::move(made)).get();
}

bool FileProjectContext::module_defines(const std::string& from_file, std::string_view module, std::string_view name) {
  if (module.empty() || module.find('/') != std::string_view::npos || name.empty()) return false;
  std::string rel(module);  // `tool.torch_utils` -> tool/torch_utils.py
  std::replace(rel.begin(), rel.end(), '.', '/');
  const fs::path candidate = (fs::path(from_file).parent_path() / (rel + ".py")).lexically_normal();
  std::lock_guard<std::recursive_mutex> lock(mu_);
  std::error_code ec;
  if (!fs::is_regular_file(candidate, ec)) return false;
  const std::string& text = text_of(candidate.string());
  const std::string def = "def " + std::string(name) + "(";
  for (size_t at = text.find(def); at != std::string::npos; at = text.find(def, at + 1))
    if (at == 0 || text[at - 1] == '\n') return true;
  return false;
}

const ModuleSummary* FileProjectContext::sibling(const std::string& from_file, std::string_view module) {
  if (module.empty() || module.find('/') != std::string_view::npos) return nullptr;
  const fs::path candidate = fs::path(from_file).parent_path() / (std::string(module) + ".py");
  // A file does not summarise itself as its own sibling.
  if (fs::path(from_file).stem() == module) return nullptr;
  std::lock_guard<std::recursive_mutex> lock(mu_);
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
  std::lock_guard<std::recursive_mutex> lock(mu_);
  for (const auto& other : siblings_naming(file, module)) {
    const ModuleSummary* s = summary_of(other);
    if (!s || !s->uses_cuda) continue;
    if (std::find(s->imports.begin(), s->imports.end(), module) != s->imports.end()) return s;
  }
  // A script of another directory that imports it (DDPM's Main.py, `from Diffusion.Train import
  // train`, with `"device": "cuda:0"` in its config; held-out round 14).
  std::error_code ec;
  const fs::path self = fs::absolute(fs::path(file), ec).lexically_normal();
  // It must call something of this file in a default launch: a GAIL discriminator's module that
  // the script only uses under `if args.gail:` (off by default) does not train on its device.
  const ModuleSummary* own = nullptr;
  for (const std::string& other : importers_naming(self.string(), module)) {
    if (fs::path(other).parent_path() == self.parent_path()) continue;  // siblings: above
    const ModuleSummary* s = summary_of(other);
    if (!s || !s->uses_cuda) continue;
    if (!own) own = summary_of(self.string());
    if (calls_by_default(own, other)) return s;
  }
  return library_cuda_user(self);
}

bool FileProjectContext::calls_by_default(const ModuleSummary* module, const std::string& importer) {
  if (!module) return false;
  const ModuleSummary* calls = importer_summary(importer);
  return calls && module->defines_any(calls->default_calls);
}

const ModuleSummary* FileProjectContext::cuda_importer_by_import(const std::string& file) {
  // catr's engine.py: main.py builds `torch.device(config.device)` from configuration.py's Config
  // (`self.device = 'cuda'`) and calls engine.train_one_epoch(..., device) every epoch (held-out
  // round 47). The scripts that import this module, in this directory or another, that call one of
  // its functions in a default launch; the first whose imports pick a CUDA device.
  const std::string module = fs::path(file).stem().string();
  std::lock_guard<std::recursive_mutex> lock(mu_);
  std::error_code ec;
  const fs::path self = fs::absolute(fs::path(file), ec).lexically_normal();
  const ModuleSummary* own = summary_of(self.string());
  if (!own) return nullptr;
  for (const std::string& other : importers_naming(self.string(), module)) {
    if (other == self.string() || is_test_path(other)) continue;
    const ModuleSummary* s = summary_of(other);
    if (!s || s->uses_cuda) continue;  // a CUDA script is cuda_importer's
    if (!calls_by_default(own, other)) continue;
    // Only a module that sets a device (`self.device = 'cuda'`), not one that merely uses the GPU
    // somewhere or returns a device from a function the script may not call (crossfile_device_helper's
    // CPU trap imports utils.py, whose get_device() picks CUDA, and calls get_cpu_device()).
    if (const ModuleSummary* device = cuda_imported(other); device && device->cuda_setting) return device;
  }
  return nullptr;
}

const ModuleSummary* FileProjectContext::library_cuda_user(const fs::path& self) {
  // A library's base class whose training loop the examples run on CUDA (DeepCTR-Torch's
  // BaseModel.fit, `device="cpu"` by default; an example builds `DeepFM(..., device="cuda:0")`, DeepFM
  // being a model module's class on BaseModel, imported through the package's __init__.py): a script
  // of the project that uses CUDA, imports a module built on this one (directly or through packages)
  // and calls, in a default launch, a name that module defines. Two modules deep, no further.
  const ImportGraph& g = graph_for(root_for(self));
  if (!g.usable) return nullptr;
  std::set<std::string> seen{self.string()};
  for (const std::string& mid : importers_of(g, self.string())) {
    if (fs::path(mid).filename() == "__init__.py" || !seen.insert(mid).second) continue;
    // The script's importers: of the module itself, and of the packages re-exporting it.
    std::vector<std::string> users(importers_of(g, mid));
    for (size_t i = 0; i < users.size() && i < 64; ++i)
      if (fs::path(users[i]).filename() == "__init__.py")
        for (const std::string& u : importers_of(g, users[i]))
          if (std::find(users.begin(), users.end(), u) == users.end()) users.push_back(u);
    // Parsed only for a user that uses CUDA (most modules' importers do not).
    const ModuleSummary* built = nullptr;
    for (const std::string& user : users) {
      if (fs::path(user).filename() == "__init__.py" || user == self.string() || is_test_path(user)) continue;
      // No CUDA use without one of these words (Model::uses_cuda's evidence): not parsed.
      if (const std::string& t = text_of(user); t.find("cuda") == std::string::npos && t.find("ccelerat") == std::string::npos)
        continue;
      const ModuleSummary* s = summary_of(user);
      if (!s || !s->uses_cuda) continue;
      if (!built && !(built = parsed_summary_of(mid))) break;
      if (calls_by_default(built, user)) return s;
    }
  }
  return nullptr;
}

const ModuleSummary* FileProjectContext::step_importer(const std::string& file, std::string_view function, int index,
                                                   const SteppedResult** which, const std::vector<std::string>* vias) {
  // A package's __init__.py is imported by the package's name (`from data import create_dataset`).
  const fs::path as_path(file);
  const std::string module =
      (as_path.filename() == "__init__.py" ? as_path.parent_path().filename() : as_path.stem()).string();
  std::lock_guard<std::recursive_mutex> lock(mu_);
  const auto via_matches = [&](const std::string& via) {
    return vias ? std::find(vias->begin(), vias->end(), via) != vias->end() : via.empty();
  };
  // The importer's matching result, one whose loop repeats (an epoch loop around it) first.
  auto stepped = [&](const ModuleSummary* s) {
    const SteppedResult* found = nullptr;
    if (s)
      for (const auto& r : s->stepped_results)
        if (r.module == module && r.function == function && r.index == index && via_matches(r.via) &&
            (!found || (r.repeated && !found->repeated)))
          found = &r;
    if (found && which) *which = found;
    return found != nullptr;
  };
  // The importer's summary is made with this project (the plain one is not: the importer may hand
  // the result to a class of a third file, `TrainLoop(data=load_data(...))`, whose step iterates it)
  // and only for a file that names the function: a few per loader factory.
  for (const auto& other : siblings_naming(file, function))
    if (const ModuleSummary* s = importer_summary(other); stepped(s)) return s;
  // A script of another directory that imports this module (guided-diffusion's
  // scripts/image_train.py calls guided_diffusion/image_datasets.py's load_data).
  std::error_code ec;
  const fs::path self = fs::absolute(fs::path(file), ec).lexically_normal();

  for (const std::string& other : importers_naming(self.string(), function))
    if (fs::path(other).parent_path() != self.parent_path())  // siblings: above
      if (const ModuleSummary* s = importer_summary(other); stepped(s)) return s;
  return nullptr;
}

std::vector<std::pair<std::string, std::string>> FileProjectContext::instance_factories(const std::string& file,
                                                                                      std::string_view cls) {
  std::vector<std::pair<std::string, std::string>> out;
  if (cls.empty()) return out;
  std::error_code ec;
  const fs::path self = fs::absolute(fs::path(file), ec).lexically_normal();
  std::lock_guard<std::recursive_mutex> lock(mu_);
  // Only importers that name the class can build it; parsed whatever summary_of's prefilter says (a
  // factory module has no step and often no CUDA of its own).
  for (const std::string& other : importers_naming(self.string(), cls)) {
    if (is_test_path(other)) continue;
    const ModuleSummary* s = parsed_summary_of(other);
    if (!s) continue;
    for (const FunctionSummary& f : s->functions) {
      if (f.qualified != f.name) continue;  // a method: its instance is not the factory's to give
      for (const auto& [index, made] : f.returned_classes)
        if (index == -1 && !made.starts_with(".") &&
            (made == cls || (made.size() > cls.size() && made.ends_with(cls) &&
                              made[made.size() - cls.size() - 1] == '.')))
          out.emplace_back(other, f.name);
    }
  }
  return out;
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

}  // namespace

std::string project_text::project_root(const fs::path& file, std::unordered_map<std::string, bool>* has_marker) {
  std::error_code ec;
  fs::path dir = fs::absolute(file, ec).parent_path().lexically_normal();
  fs::path p = dir;
  for (int up = 0; up <= 4 && !p.empty(); ++up) {
    // A checkout's .git, a package's files; and, for a snapshot without .git (a release archive, a
    // copy), the files that sit at a repository's top: its requirements and its licence.
    const auto probe = [&p, &ec] {
      for (const char* marker : {".git", "pyproject.toml", "setup.py", "setup.cfg", "requirements.txt", "LICENSE",
                                 "LICENSE.md", "LICENSE.txt"})
        if (fs::exists(p / marker, ec)) return true;
      return false;
    };
    bool marked = false;
    if (has_marker) {
      auto [it, fresh] = has_marker->try_emplace(p.string(), false);
      if (fresh) it->second = probe();
      marked = it->second;
    } else {
      marked = probe();
    }
    if (marked) return p.string();
    if (p == p.parent_path()) break;
    p = p.parent_path();
  }
  return dir.string();
}

// Text level, as `assigns` is (see project_text.hpp).
bool project_text::mentions_in_code(std::string_view text, std::string_view word) {
  return first_in_code(text, word) != std::string_view::npos;
}

size_t project_text::first_in_code(std::string_view text, std::string_view word) {
  for (size_t at = text.find(word); at != std::string_view::npos; at = text.find(word, at + 1)) {
    const size_t nl = text.rfind('\n', at);
    size_t first = nl == std::string_view::npos ? 0 : nl + 1;
    while (first < at && (text[first] == ' ' || text[first] == '\t')) ++first;
    const std::string_view lead = text.substr(first, at - first);
    if (lead.starts_with('#') || lead.starts_with(">>>") || lead.starts_with("... ")) continue;
    return at;
  }
  return std::string_view::npos;
}

namespace {

bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// `word` at `at` of `s` is a whole identifier (a dotted prefix allowed: `pkg.word`).
bool whole_word_at(std::string_view s, size_t at, size_t len) {
  return (at == 0 || !ident_char(s[at - 1])) && (at + len >= s.size() || !ident_char(s[at + len]));
}

bool has_word(std::string_view s, std::string_view word) {
  for (size_t at = s.find(word); at != std::string_view::npos; at = s.find(word, at + 1))
    if (whole_word_at(s, at, word.size())) return true;
  return false;
}

size_t indent_of(std::string_view line) {
  size_t i = 0;
  while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
  return i;
}

std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> out;
  for (size_t at = 0; at < text.size();) {
    const size_t nl = std::min(text.find('\n', at), text.size());
    out.push_back(text.substr(at, nl - at));
    at = nl + 1;
  }
  return out;
}

}  // namespace

std::vector<project_text::ClassText> project_text::classes_in(std::string_view text) {
  std::vector<ClassText> out;
  if (text.find("class ") == std::string_view::npos) return out;
  const std::vector<std::string_view> lines = lines_of(text);
  for (size_t k = 0; k < lines.size(); ++k) {
    const size_t ci = indent_of(lines[k]);
    std::string_view head = lines[k].substr(ci);
    if (!head.starts_with("class ")) continue;
    head.remove_prefix(6);
    size_t n = 0;
    while (n < head.size() && ident_char(head[n])) ++n;
    if (n == 0) continue;
    ClassText cls{std::string(head.substr(0, n)), {}, {}};
    if (const size_t open = head.find_first_not_of(" \t", n); open != std::string_view::npos && head[open] == '(') {
      // The bases, joined over up to five lines until the parenthesis closes.
      std::string bases(head.substr(open + 1));
      for (size_t more = k + 1; more < lines.size() && more <= k + 5 && bases.find(')') == std::string::npos; ++more)
        bases.append(" ").append(lines[more]);
      cls.bases = bases.substr(0, bases.find(')'));
    }
    for (size_t b = k + 1; b < lines.size(); ++b) {
      const size_t bi = indent_of(lines[b]);
      if (bi == lines[b].size() || lines[b][bi] == '#' || lines[b][bi] == '\r') continue;  // blank or comment
      if (bi <= ci) break;
      std::string_view body = lines[b].substr(bi);
      if (body.starts_with("async ")) body.remove_prefix(6);
      if (!body.starts_with("def ")) continue;
      body.remove_prefix(4);
      size_t m = 0;
      while (m < body.size() && ident_char(body[m])) ++m;
      if (m > 0) cls.methods.emplace_back(body.substr(0, m));
    }
    out.push_back(std::move(cls));
  }
  return out;
}

bool project_text::names_base(std::string_view bases, std::string_view base) { return has_word(bases, base); }

bool project_text::names_as_value(std::string_view text, std::string_view name) {
  if (name.empty()) return false;
  for (size_t at = text.find(name); at != std::string_view::npos; at = text.find(name, at + 1)) {
    if (!whole_word_at(text, at, name.size())) continue;
    const size_t nl = text.rfind('\n', at);
    const size_t first = nl == std::string_view::npos ? 0 : nl + 1;
    const std::string_view line = text.substr(first + indent_of(text.substr(first)), std::string_view::npos);
    const std::string_view lead = text.substr(first, at - first);
    if (line.starts_with("#") || line.starts_with("class ") || line.starts_with("def ") ||
        line.starts_with("import ") || line.starts_with("from ") || line.starts_with("async def "))
      continue;
    if (lead.size() >= 6 && lead.ends_with("super(")) continue;
    return true;
  }
  return false;
}

std::vector<std::string> project_text::import_lines(std::string_view text) {
  std::vector<std::string> out;
  size_t start = 0;
  auto next_line = [&]() {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    start = end + 1;
    return line.substr(0, line.find('#'));
  };
  while (start < text.size()) {
    // Most lines are not imports: skip to the next line whose first word may be one.
    size_t i = start;
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
    if (i < text.size() && text[i] != 'i' && text[i] != 'f') {
      const size_t end = text.find('\n', i);
      start = end == std::string_view::npos ? text.size() : end + 1;
      continue;
    }
    std::string_view line = next_line();
    while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
    if (!line.starts_with("import ") && !line.starts_with("from ")) continue;
    std::string stmt(line);
    for (int more = 0; more < 200 && start < text.size(); ++more) {
      const bool open = std::count(stmt.begin(), stmt.end(), '(') > std::count(stmt.begin(), stmt.end(), ')');
      while (!stmt.empty() && (stmt.back() == ' ' || stmt.back() == '\r')) stmt.pop_back();
      const bool backslash = !stmt.empty() && stmt.back() == '\\';
      if (!open && !backslash) break;
      if (backslash) stmt.pop_back();
      stmt += ' ';
      stmt += next_line();
    }
    out.push_back(std::move(stmt));
  }
  return out;
}

// The names of an import statement: "from ..a.b import (c as d, e)" -> from, ..a.b, import, c, as, d, e;
// "from m import *" -> from, m, import, *.
std::vector<std::string> project_text::import_words(std::string_view s) {
  std::vector<std::string> w;
  std::string cur;
  for (char c : s) {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || static_cast<unsigned char>(c) >= 0x80)
      cur += c;
    else {
      if (!cur.empty()) w.push_back(std::move(cur)), cur.clear();
      if (c == '*') w.emplace_back("*");  // `from m import *`
    }
  }
  if (!cur.empty()) w.push_back(std::move(cur));
  return w;
}

namespace {

// The absolute modules an import line names: "import a.b as c, d" -> a.b, d; "from a.b import c, d"
// -> a.b, a.b.c, a.b.d. Relative imports are left out.
std::vector<std::string> imported_modules(std::string_view line) {
  std::vector<std::string> out;
  const std::vector<std::string> w = import_words(line);
  if (w.size() >= 2 && w[0] == "import") {
    for (size_t i = 1; i < w.size(); ++i)
      if (w[i] == "as") ++i;
      else out.push_back(w[i]);
  } else if (w.size() >= 4 && w[0] == "from" && w[2] == "import" && w[1].front() != '.') {
    out.push_back(w[1]);
    for (size_t i = 3; i < w.size(); ++i)
      if (w[i] == "as") ++i;
      else out.push_back(w[1] + "." + w[i]);
  }
  return out;
}

// `root/pkg/sub/mod.py` -> "pkg.sub.mod" (a package's __init__.py is the package).
std::string module_name(const std::string& path, const std::string& root) {
  std::string rel = fs::path(path).lexically_relative(root).generic_string();
  if (rel.ends_with(".py")) rel.resize(rel.size() - 3);
  if (rel.ends_with("/__init__")) rel.resize(rel.size() - 9);
  for (char& c : rel)
    if (c == '/') c = '.';
  return rel;
}

}  // namespace

namespace {

// The .py files under a project root, sorted (hidden directories, virtual environments and caches
// skipped); empty when there are more than 2,000 (not a project's sources: no answer rather than a
// slow one) or the walk fails.
// The .py files below `dir`, past the directories discovery skips and what .gitignore ignores (a
// build tree's copies of the sources, fuzzing seeds: `build-fuzz/seeds/python/*.py` would otherwise
// import the project's `train` and be taken for its entry script). False when there are too many.
bool collect_python_files(const fs::path& dir, IgnoreStack& ignores, std::vector<std::string>& files, int depth) {
  if (depth > 64) return true;
  std::error_code ec;
  std::vector<fs::directory_entry> entries;
  for (fs::directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end; !ec && it != end;
       it.increment(ec))
    entries.push_back(*it);
  if (ec) return depth > 0;  // an unreadable root: nothing is known; a subdirectory: skipped
  const size_t levels = ignores.enter(dir.string());
  bool ok = true;
  for (const fs::directory_entry& e : entries) {
    std::error_code e2;
    const bool is_dir = e.is_directory(e2) && !e.is_symlink(e2);
    if (ignores.ignored(e.path().string(), is_dir)) continue;
    if (is_dir) {
      if (!is_skipped_directory_name(e.path().filename().string()) &&
          !collect_python_files(e.path(), ignores, files, depth + 1)) {
        ok = false;
        break;
      }
      continue;
    }
    if (e.path().extension() == ".py" && e.is_regular_file(e2)) files.push_back(e.path().lexically_normal().string());
    if (files.size() > 2000) {
      ok = false;
      break;
    }
  }
  ignores.leave(levels);
  return ok;
}

std::vector<std::string> project_python_files(const std::string& root) {
  std::vector<std::string> files;
  IgnoreStack ignores;
  ignores.start(root);
  if (!collect_python_files(fs::path(root), ignores, files, 0)) return {};
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

const std::vector<std::string>& FileProjectContext::root_files(const std::string& root) {
  if (auto it = root_files_.find(root); it != root_files_.end()) return it->second;
  return root_files_.emplace(root, project_python_files(root)).first->second;
}

const std::vector<FileProjectContext::Assigner>& FileProjectContext::assigners(const std::string& root,
                                                                               std::string_view attribute) {
  const std::string key = root + '\0' + std::string(attribute);
  if (store_) load_facts(root);
  if (auto it = assigners_.find(key); it != assigners_.end()) return it->second;
  const std::vector<std::string>& files = root_files(root);
  std::vector<Assigner> found;
  for (const auto& f : files) {
    // Read, searched and dropped: a project's files are not kept (text_of keeps siblings only), only
    // the answer, by file: the roots of a run's directories nest (a package without a marker has a
    // root per directory), and each would read the files below it again.
    auto [known, fresh] = file_assigns_.try_emplace(std::string(attribute) + '\0' + f);
    if (fresh) {
      const FileRead read = read_whole_file(f, max_file_bytes_);
      if (read.status == FileRead::Status::Ok && assigns(read.bytes, attribute)) known->second = import_lines(read.bytes);
    }
    if (known->second) found.push_back({f, module_name(f, root), *known->second});
  }
  if (store_) mark_computed(root);
  return assigners_.emplace(key, std::move(found)).first->second;
}

bool FileProjectContext::mentioned_elsewhere(const std::string& file, std::string_view word) {
  if (word.empty()) return true;
  std::error_code ec;
  const std::string self = fs::absolute(fs::path(file), ec).lexically_normal().string();
  std::lock_guard<std::recursive_mutex> lock(mu_);
  const std::vector<std::string>& files = root_files(root_for(fs::path(self)));
  if (files.empty()) return true;  // not known (no root, or too many files to read)
  for (const auto& f : files) {
    if (f == self) continue;
    const FileRead read = read_whole_file(f, max_file_bytes_);
    if (read.status != FileRead::Status::Ok) return true;  // unreadable: it may name it
    if (names_word(read.bytes, word)) return true;
  }
  return false;
}

bool FileProjectContext::importer_side_holds(const std::string& file,
                                             const std::function<bool(std::string_view)>& holds) {
  std::error_code ec;
  const std::string self = fs::absolute(fs::path(file), ec).lexically_normal().string();
  std::lock_guard<std::recursive_mutex> lock(mu_);
  const ImportGraph& g = graph_for(root_for(fs::path(self)));
  for (const std::string& other : importers_naming(self, "")) {
    if (holds(text_of(other))) return true;
    for (const std::string& m : g.imports.at(other))
      if (m != self && holds(text_of(m))) return true;
  }
  return false;
}

bool FileProjectContext::run_mentions(const std::string& file, std::string_view word) {
  if (word.empty()) return true;
  std::error_code ec;
  const std::string self = fs::absolute(fs::path(file), ec).lexically_normal().string();
  std::lock_guard<std::recursive_mutex> lock(mu_);
  const ImportGraph& g = graph_for(root_for(fs::path(self)));
  if (!g.usable) return true;  // not known
  // The project modules it imports, two levels down.
  for (const std::string& m : reached_modules(g, self, 2))
    if (names_word(text_of(m), word)) return true;
  // The files that import it, and theirs (`train.py` imports the package whose __init__.py imports
  // models/ssl.py), with the modules each of them imports.
  std::set<std::string> up_seen{self};
  std::vector<std::string> level{self};
  for (int depth = 0; depth < 2 && !level.empty(); ++depth) {
    std::vector<std::string> next;
    for (const std::string& f : level)
      for (const std::string& u : importers_of(g, f))
        if (up_seen.insert(u).second) {
          if (names_word(text_of(u), word)) return true;
          if (const auto imp = g.imports.find(u); imp != g.imports.end())
            for (const std::string& m : imp->second)
              if (m != self && names_word(text_of(m), word)) return true;
          next.push_back(u);
        }
    level = std::move(next);
  }
  return false;
}

bool FileProjectContext::importer_side_mentions(const std::string& file, std::string_view word) {
  if (word.empty()) return false;
  return importer_side_holds(file, [&](std::string_view text) { return names_word(text, word); });
}

bool FileProjectContext::importer_side_assigns(const std::string& file, std::string_view attribute) {
  if (attribute.empty()) return false;
  return importer_side_holds(file, [&](std::string_view text) { return assigns(text, attribute); });
}

std::string FileProjectContext::project_assigns(const std::string& file, std::string_view attribute) {
  std::unique_lock<std::recursive_mutex> held(mu_);
  const std::string root = project_root(fs::path(file), &has_marker_);
  held.unlock();
  const std::string self = fs::absolute(fs::path(file)).lexically_normal().string();
  const std::string stem = fs::path(file).stem().string();
  const FileRead own = read_whole_file(file, max_file_bytes_);
  std::vector<std::string> imported;  // the project modules this file imports
  if (own.status == FileRead::Status::Ok)
    for (const auto& line : import_lines(own.bytes))
      for (auto& m : imported_modules(line)) imported.push_back(std::move(m));
  std::lock_guard<std::recursive_mutex> lock(mu_);
  std::error_code ec;
  // The marker's root, and the linker's when it lies above it (a package without a marker:
  // runners/ncsn_runner.py belongs with main.py above it).
  std::vector<std::string> roots{root};
  const std::string& linked = root_for(fs::path(self));
  if (linked != root && root.starts_with(linked + "/")) roots.push_back(linked);
  const ImportGraph& g = graph_for(linked);
  for (const std::string& r : roots) {
    for (const Assigner& a : assigners(r, attribute)) {
      if (a.path == self || fs::equivalent(a.path, file, ec)) continue;
      // A file that imports this one (the entry script: `import GAN`, `from pkg import trainer`)...
      const bool importer = std::any_of(a.imports.begin(), a.imports.end(),
                                        [&](const std::string& line) { return names_word(line, stem); });
      // ...or a module this one imports, or one inside a package it imports (`from utils.general
      // import init_seeds` reaches utils/torch_utils.py's seed helper through the utils package).
      const bool imported_here = std::any_of(imported.begin(), imported.end(), [&](const std::string& m) {
        const std::string top = m.substr(0, m.find('.'));
        return a.module == m || a.module.starts_with(m + ".") || a.module == top || a.module.starts_with(top + ".");
      });
      if (importer || imported_here) return a.path;
      // ...or an importer of a package whose __init__.py imports this one (`from runners import *`,
      // runners/__init__.py star-importing runners/ncsn_runner.py: ncsnv2's main.py sets benchmark).
      if (const auto mine = g.imports.find(fs::absolute(fs::path(a.path), ec).lexically_normal().string());
          mine != g.imports.end())
        for (const std::string& m : mine->second) {
          if (!m.ends_with("/__init__.py")) continue;
          const auto more = g.imports.find(m);
          if (more != g.imports.end() && std::find(more->second.begin(), more->second.end(), self) != more->second.end())
            return a.path;
        }
    }
  }
  return {};
}

namespace {

// The text of top-level `class <name>` or `def <name>` of a module's text (its header to the next
// top-level line; a line that closes a multi-line header, `):`, belongs to it), or nothing.
std::string_view top_level_block(std::string_view text, std::string_view keyword, std::string_view name) {
  const std::string head = std::string(keyword) + " " + std::string(name);
  for (size_t at = text.find(head); at != std::string_view::npos; at = text.find(head, at + 1)) {
    const size_t after = at + head.size();
    if ((at != 0 && text[at - 1] != '\n') ||
        (after < text.size() && (std::isalnum(static_cast<unsigned char>(text[after])) || text[after] == '_')))
      continue;  // indented, or a longer name (`class GPTConfig` for GPT)
    size_t end = text.find('\n', after);
    while (end != std::string_view::npos && end + 1 < text.size()) {
      const char c = text[end + 1];
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '#' && c != ')') break;
      end = text.find('\n', end + 1);
    }
    return text.substr(at, (end == std::string_view::npos ? text.size() : end + 1) - at);
  }
  return {};
}

}  // namespace

std::string FileProjectContext::attribute_class(const std::string& from_file, const std::string& cls,
                                                std::string_view attribute) {
  const size_t dot = cls.rfind('.');
  if (dot == std::string::npos || attribute.empty()) return {};
  std::error_code ec;
  const fs::path self = fs::absolute(fs::path(from_file), ec).lexically_normal();
  std::lock_guard<std::recursive_mutex> lock(mu_);
  const std::string& root = root_for(self);
  const auto r = resolve_target(root, self.string(), cls);
  if (!r || r->second.empty() || r->second.find('.') != std::string::npos) return {};
  const std::string& text = text_of(r->first);
  const std::string_view body = top_level_block(text, "class", r->second);
  if (body.empty()) return {};
  // Every `self.<attribute> = Name(` of the class builds the same class of this module; any other
  // binding (a parameter, a factory, a second class) leaves it unknown.
  const std::string bound = "self." + std::string(attribute) + " =";
  std::string made;
  for (size_t at = body.find(bound); at != std::string_view::npos; at = body.find(bound, at + 1)) {
    size_t v = at + bound.size();
    while (v < body.size() && body[v] == ' ') ++v;
    size_t end = v;
    while (end < body.size() && (std::isalnum(static_cast<unsigned char>(body[end])) || body[end] == '_')) ++end;
    const std::string name(body.substr(v, end - v));
    if (name.empty() || end >= body.size() || body[end] != '(' || (!made.empty() && made != name)) return {};
    // The call is the whole value: `Logger(dvc) if cuda else Memory(dvc)` is not known.
    int open = 0;
    size_t close = end;
    for (; close < body.size(); ++close) {
      if (body[close] == '(') ++open;
      else if (body[close] == ')' && --open == 0) break;
    }
    size_t next = close + 1;
    while (next < body.size() && (body[next] == ' ' || body[next] == '\t')) ++next;
    if (close >= body.size() || (next < body.size() && body[next] != '\n' && body[next] != '\r' && body[next] != '#'))
      return {};
    made = name;
  }
  if (made.empty() || top_level_block(text, "class", made).empty()) return {};
  return cls.substr(0, dot + 1) + made;
}

std::optional<bool> FileProjectContext::class_defines_method(const std::string& from_file, const std::string& cls,
                                                             std::string_view method) {
  std::error_code ec;
  const fs::path self = fs::absolute(fs::path(from_file), ec).lexically_normal();
  std::lock_guard<std::recursive_mutex> lock(mu_);
  const auto r = resolve_target(root_for(self), self.string(), cls);
  if (!r || r->first == self.string() || r->second.empty() || r->second.find('.') != std::string::npos)
    return std::nullopt;
  const std::string_view body = top_level_block(text_of(r->first), "class", r->second);
  if (body.empty()) return std::nullopt;
  const std::string def = "def " + std::string(method) + "(";
  for (size_t at = body.find(def); at != std::string_view::npos; at = body.find(def, at + 1)) {
    size_t line = body.rfind('\n', at);
    line = line == std::string_view::npos ? 0 : line + 1;
    if (body.substr(line, at - line).find_first_not_of(" \t") == std::string_view::npos) return true;
  }
  return false;
}

std::string FileProjectContext::conv_evidence(const std::string& from_file, const std::string& target) {
  std::error_code ec;
  const fs::path self = fs::absolute(fs::path(from_file), ec).lexically_normal();
  std::lock_guard<std::recursive_mutex> lock(mu_);
  const std::string& root = root_for(self);
  const auto r = resolve_target(root, self.string(), target);
  if (!r || r->first == self.string() || r->second.empty() || r->second.find('.') != std::string::npos) return {};
  const std::string key = r->first + "\n" + r->second;
  if (auto it = conv_evidence_.find(key); it != conv_evidence_.end()) return it->second;
  std::string& out = conv_evidence_[key];
  const std::string& text = text_of(r->first);
  const auto top_level = [&text](std::string_view keyword, std::string_view name) {
    return top_level_block(text, keyword, name);
  };
  const auto class_text = [&](std::string_view name) { return top_level("class", name); };
  const auto def_text = [&](std::string_view name) { return top_level("def", name); };
  // A factory of the module (`def load_model(path): model = Darknet(path); ...; return model`,
  // `def resnet50(): return ResNet(...)`): the class it returns.
  std::string target_class = r->second;
  if (class_text(target_class).empty())
    if (const std::string_view def = def_text(target_class); !def.empty()) {
      target_class.clear();
      const auto name_at = [&](size_t at) {
        size_t end = at;
        while (end < def.size() && (std::isalnum(static_cast<unsigned char>(def[end])) || def[end] == '_')) ++end;
        return std::string(def.substr(at, end - at));
      };
      for (size_t at = def.find("return "); at != std::string_view::npos && target_class.empty();
           at = def.find("return ", at + 1)) {
        std::string returned = name_at(at + 7);
        if (returned.empty()) continue;
        if (!std::isupper(static_cast<unsigned char>(returned[0]))) {
          // `model = Darknet(...)` earlier in the function.
          const std::string bound = returned + " = ";
          const size_t b = def.find(bound);
          if (b == std::string_view::npos) continue;
          returned = name_at(b + bound.size());
        }
        if (!returned.empty() && std::isupper(static_cast<unsigned char>(returned[0])) && !class_text(returned).empty())
          target_class = returned;
      }
      if (target_class.empty()) return out;
    }
  // The class and the classes of the same module it builds (`Generator` -> `StyledConv` ->
  // `ModulatedConv2d`), a few levels deep: a convolutional network when they spell more convolutions
  // than linear layers and matrix products (a transformer whose LoRA layers use a grouped conv1d,
  // lit-gpt's, is not one; nor a helper class of a module that also holds a conv stem).
  // Functions of the module the classes call count with them (Darknet's layers come from
  // `create_modules(self.module_defs)`, a function of models.py).
  std::vector<std::string_view> bodies;
  std::vector<std::string> seen{target_class};
  std::vector<std::string> imported_names;  // called names this module does not define
  if (const std::string_view own = class_text(target_class); !own.empty()) bodies.push_back(own);
  // The module's base classes of a class, from its header (`class Generator32(Generator):` builds
  // its layers in Generator.__init__: pytorch-gan-collections, held-out round 28).
  const auto add_bases = [&](std::string_view body) {
    const size_t open = body.find('('), colon = body.find(':');
    if (open == std::string_view::npos || (colon != std::string_view::npos && colon < open)) return;
    const size_t close = body.find(')', open);
    if (close == std::string_view::npos) return;
    std::string_view bases = body.substr(open + 1, close - open - 1);
    while (!bases.empty()) {
      const size_t comma = bases.find(',');
      std::string_view b = bases.substr(0, comma);
      while (!b.empty() && std::isspace(static_cast<unsigned char>(b.front()))) b.remove_prefix(1);
      while (!b.empty() && std::isspace(static_cast<unsigned char>(b.back()))) b.remove_suffix(1);
      const std::string name(b);
      if (!name.empty() && std::all_of(name.begin(), name.end(), [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_'; }) &&
          std::find(seen.begin(), seen.end(), name) == seen.end()) {
        seen.push_back(name);
        if (const std::string_view more = class_text(name); !more.empty()) bodies.push_back(more);
      }
      if (comma == std::string_view::npos) break;
      bases.remove_prefix(comma + 1);
    }
  };
  for (size_t i = 0; i < bodies.size() && i < 4; ++i)
    if (bodies[i].starts_with("class ")) add_bases(bodies[i]);
  for (size_t i = 0; i < bodies.size() && bodies.size() < 32; ++i) {
    const std::string_view body = bodies[i];
    for (size_t at = 0; at < body.size(); ++at) {
      const bool upper = std::isupper(static_cast<unsigned char>(body[at]));
      if (!(upper || std::islower(static_cast<unsigned char>(body[at]))) ||
          (at > 0 && (std::isalnum(static_cast<unsigned char>(body[at - 1])) || body[at - 1] == '_' || body[at - 1] == '.')))
        continue;
      size_t end = at;
      while (end < body.size() && (std::isalnum(static_cast<unsigned char>(body[end])) || body[end] == '_')) ++end;
      const std::string name(body.substr(at, end - at));
      at = end;
      if (end >= body.size() || body[end] != '(' || std::find(seen.begin(), seen.end(), name) != seen.end()) continue;
      seen.push_back(name);
      // (A lowercase class is a class: Graph-WaveNet's `gwnet`.)
      std::string_view more = upper ? class_text(name) : def_text(name);
      if (more.empty() && !upper) more = class_text(name);
      if (!more.empty()) bodies.push_back(more);
      else if (imported_names.size() < 16) imported_names.push_back(name);
    }
  }
  if (bodies.empty()) return out;
  size_t first = std::string::npos, convs = 0, linears = 0;
  // Occurrences of `w` on code lines of `body`; with `family`, only `w` starting a name that is
  // called (`resnet` in `resnet50(`, not in `build_resnet_features` or `self.resnet`).
  const auto count = [](std::string_view body, std::string_view w, size_t* earliest, bool family = false) {
    const auto name_byte = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
    size_t n = 0;
    for (size_t from = 0;;) {
      const size_t at = project_text::first_in_code(body.substr(from), w);
      if (at == std::string::npos) return n;
      size_t end = from + at + w.size();
      bool counted = true;
      if (family) {
        while (end < body.size() && name_byte(body[end])) ++end;
        counted = (from + at == 0 || !name_byte(body[from + at - 1])) && end < body.size() && body[end] == '(';
      }
      if (counted) {
        if (earliest) *earliest = std::min(*earliest, from + at);
        ++n;
      }
      from = end;
    }
  };
  std::string_view first_body;
  const bool torchvision = text.find("torchvision") != std::string::npos;
  for (const std::string_view body : bodies) {
    size_t here = std::string::npos;
    for (std::string_view w : {"Conv1d(", "Conv2d(", "Conv3d(", "ConvTranspose1d(", "ConvTranspose2d(",
                               "ConvTranspose3d(", "conv1d(", "conv2d(", "conv3d(", "conv_transpose2d("})
      convs += count(body, w, &here);
    for (std::string_view w : {"Linear(", "matmul(", "bmm(", "einsum(", " @ "}) linears += count(body, w, nullptr);
    // A torchvision CNN built here (`resnet50()`, `models.vgg16(...)`: SimCLR keeps resnet50's
    // children) counts as 20 convolutions, as the rules count it in the script itself.
    if (torchvision)
      for (std::string_view family : {"resnet", "resnext", "wide_resnet", "vgg", "densenet", "mobilenet", "efficientnet",
                                      "regnet", "convnext", "inception_v3", "googlenet", "shufflenet", "squeezenet",
                                      "alexnet", "mnasnet"}) {
        size_t built = std::string::npos;
        convs += 20 * count(body, family, &built, true);
        if (here == std::string::npos) here = built;
      }
    if (here != std::string::npos && first == std::string::npos) first = here, first_body = body;
  }
  if (first == std::string::npos && linears == 0 && !imported_names.empty()) {
    // No convolution spelled here: the network may be a class another module defines, which this
    // one imports by name or with `*` (Graph-WaveNet's engine.py builds `gwnet` of model.py through
    // `from model import *`; held-out round 29). Its own evidence, when it has some.
    std::vector<std::string> stars;
    std::vector<std::pair<std::string, std::string>> named;  // local -> dotted
    for (const std::string& stmt : project_text::import_lines(text)) {
      const std::vector<std::string> w = project_text::import_words(stmt);
      if (w.size() < 4 || w[0] != "from" || w[2] != "import") continue;
      const std::string from = w[1].substr(w[1].find_first_not_of('.') == std::string::npos ? w[1].size() : w[1].find_first_not_of('.'));
      if (from.empty()) continue;
      for (size_t i = 3; i < w.size(); ++i) {
        if (w[i] == "*") {
          stars.push_back(from);
        } else if (i + 2 < w.size() && w[i + 1] == "as") {
          named.emplace_back(w[i + 2], from + "." + w[i]);
          i += 2;
        } else {
          named.emplace_back(w[i], from + "." + w[i]);
        }
      }
    }
    for (const std::string& name : imported_names) {
      std::vector<std::string> targets;
      for (const auto& [local, dotted] : named)
        if (local == name) targets.push_back(dotted);
      for (const std::string& m : stars) targets.push_back(m + "." + name);
      for (const std::string& t : targets)
        if (std::string there = conv_evidence(r->first, t); !there.empty()) return out = there;
    }
  }
  // (A tie counts for convolutions: a VGG builds its Conv2d in a loop over the configuration, one
  // spelling for all its layers, next to one Linear head: network-slimming, held-out round 34.)
  if (first == std::string::npos || convs < linears) return out;
  first += static_cast<size_t>(first_body.data() - text.data());
  const long line = 1 + std::count(text.begin(), text.begin() + static_cast<long>(first), '\n');
  out = fs::path(r->first).lexically_relative(root).generic_string() + ":" + std::to_string(line);
  return out;
}

}  // namespace perflint
