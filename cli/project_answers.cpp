// The project linker's answers about what other files of the project hold (see FileProjectContext
// in project_files.hpp): the values importers pass, names a star import brings, step functions and
// step methods, functions and what they return, option and constant defaults declared elsewhere,
// and where a step's CUDA device comes from.
#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "cli/project_files.hpp"
#include "cli/project_text.hpp"
#include "parser/text_util.hpp"
#include "util/io.hpp"

namespace fs = std::filesystem;

namespace perflint {

using project_text::defines;
using project_text::from_module;
using project_text::names_module;
using project_text::import_statements;
using project_text::ImportStatement;
using project_text::relative_to;
using project_text::test_file;

std::vector<std::pair<std::string, std::string>> FileProjectContext::star_aliases(const std::string& from_file,
                                                                                  const std::string& module) {
  std::vector<std::pair<std::string, std::string>> out;
  std::error_code ec;
  const fs::path self = fs::absolute(fs::path(from_file), ec).lexically_normal();
  std::lock_guard<std::recursive_mutex> lock(mu_);
  const auto r = resolve_target(root_for(self), self.string(), module + ".__star__");
  if (!r || r->second != "__star__" || r->first == self.string()) return out;
  const std::string& text = text_of(r->first);
  if (text.find("__all__") != std::string::npos) return out;  // the star import exports only those
  for (const std::string& stmt : project_text::import_lines(text)) {
    if (stmt.empty() || stmt.front() == ' ' || stmt.front() == '\t') continue;  // top level only
    const std::vector<std::string> w = project_text::import_words(stmt);
    if (w.size() >= 2 && w[0] == "import") {
      for (size_t i = 1; i < w.size(); ++i) {
        const std::string& name = w[i];
        if (i + 2 < w.size() && w[i + 1] == "as") {
          out.emplace_back(w[i + 2], name);
          i += 2;
        } else {
          out.emplace_back(name.substr(0, name.find('.')), name.substr(0, name.find('.')));
        }
      }
    } else if (w.size() >= 4 && w[0] == "from" && w[2] == "import" && w[1].front() != '.') {
      for (size_t i = 3; i < w.size(); ++i) {
        if (w[i] == "*") continue;
        if (i + 2 < w.size() && w[i + 1] == "as") {
          out.emplace_back(w[i + 2], w[1] + "." + w[i]);
          i += 2;
        } else {
          out.emplace_back(w[i], w[1] + "." + w[i]);
        }
      }
    }
  }
  // And what the module defines at its top level (`class YOLOv3`, `def add_conv`, `WORKERS = 0`), public
  // names only, as `module.Name` (PyTorch_YOLOv3's `from models.yolov3 import *`, held-out round 30).
  any_top_level_name(text, [&](std::string_view defined) {
    const std::string name(defined);
    if (name.front() != '_' && std::none_of(out.begin(), out.end(), [&](const auto& p) { return p.first == name; }))
      out.emplace_back(name, module + "." + name);
    return false;
  });
  return out;
}

const ModuleSummary* FileProjectContext::step_function(const std::string& from_file, const std::string& target) {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  std::string fn;
  const ModuleSummary* s = target_summary(from_file, target, &fn);
  if (!s) return nullptr;
  for (const FunctionSummary& f : s->functions) {
    if (!f.step_fn) continue;
    if (f.qualified == fn) return s;
    // Calling an instance runs __call__, which for an nn.Module is forward().
    if (fn.ends_with(".__call__") && f.qualified == fn.substr(0, fn.size() - 9) + ".forward") return s;
  }
  return nullptr;
}

std::vector<std::pair<const ModuleSummary*, std::string>> FileProjectContext::step_methods_named(
    const std::string& from_file, std::string_view method) {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  std::error_code ec;
  const fs::path self = fs::absolute(fs::path(from_file), ec).lexically_normal();
  const ImportGraph& g = graph_for(root_for(self));
  const auto defs = g.step_method_files.find(std::string(method));
  if (defs == g.step_method_files.end()) return {};
  const std::string key = g.root + '\0' + std::string(method);
  if (auto known = step_methods_.find(key); known != step_methods_.end()) return known->second;
  std::vector<std::pair<const ModuleSummary*, std::string>>& out = step_methods_[key];
  // A handful of classes at most (a family of models or learners): a name defined all over a large
  // project is not distinctive.
  size_t definitions = 0;
  for (const std::string& file : defs->second) {
    const ModuleSummary* s = parsed_summary_of(file);
    if (!s) return out = {};
    for (const FunctionSummary& f : s->functions) {
      if (f.name != method || f.qualified == f.name) continue;  // a method, not a function
      if (++definitions > kMaxStepMethodFiles) return out = {};
      // A method that hands the batch to another instance's method of the same name (a
      // classifier per context) does no other work: neither a step nor a reason to doubt one.
      if (f.step_fn) out.emplace_back(s, f.qualified);
      else if (!f.trivial && !f.delegates) return out = {};
    }
  }
  return out;
}

bool FileProjectContext::holds_step_loop(const std::string& from_file, const std::string& target) {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  std::string fn;
  const ModuleSummary* s = target_summary(from_file, target, &fn);
  if (!s) return false;
  for (const FunctionSummary& f : s->functions)
    if (f.has_step_loop && f.qualified == fn) return true;
  return false;
}

std::vector<std::pair<std::string, const std::vector<CallArguments>*>> FileProjectContext::importer_calls(
    const fs::path& self, const std::string& root, std::string_view function, bool* reexported) {
  std::vector<std::pair<std::string, const std::vector<CallArguments>*>> out;
  const std::string stem = self.stem().string();
  for (const std::string& other : importers_naming(self.string(), function)) {
    if (test_file(relative_to(other, root))) continue;  // a test passes what it tests
    // Only files that import the name from this module (or the module itself) call this function.
    const std::vector<ImportStatement>& imports = imports_of(other);
    if (std::none_of(imports.begin(), imports.end(),
                     [&](const ImportStatement& s) { return from_module(s, stem) || names_module(s, stem); })) {
      if (reexported) *reexported = true;  // through a re-export: not followed
      continue;
    }
    // Each importer's calls of the function are parsed once, whichever parameter is asked.
    const std::string calls_key = other + "\n" + std::string(function);
    auto calls = call_arguments_.find(calls_key);
    if (calls == call_arguments_.end()) {
      const std::shared_ptr<const ModelledModule> module = modelled(other);
      calls = call_arguments_.emplace(calls_key, module ? call_arguments(*module, function) : std::vector<CallArguments>{}).first;
    }
    out.emplace_back(other, &calls->second);
  }
  return out;
}

std::shared_ptr<const ModelledModule> FileProjectContext::modelled(const std::string& path) {
  static constexpr size_t kKept = 8;
  const auto hit = std::find_if(modelled_.begin(), modelled_.end(), [&](const auto& m) { return m.first == path; });
  if (hit != modelled_.end()) {
    std::rotate(modelled_.begin(), hit, hit + 1);
    return modelled_.front().second;
  }
  // Modelling it may ask about other importers (and evict them): it is kept only once it is made.
  std::shared_ptr<const ModelledModule> made = model_module(path, text_of(path), this);
  if (modelled_.size() >= kKept) modelled_.pop_back();
  modelled_.insert(modelled_.begin(), {path, made});
  return made;
}

std::optional<std::vector<std::optional<OptionDefault>>> FileProjectContext::argument_values(
    const std::string& file, std::string_view function, std::string_view param, int index) {
  std::error_code ec;
  const fs::path self = fs::absolute(fs::path(file), ec).lexically_normal();
  std::lock_guard<std::recursive_mutex> lock(mu_);
  const std::string root = root_for(self);
  // Memoised; a question asked again while it is being answered (an importer's argument that is a
  // parameter of its own, answered by this file) is not known.
  const std::string key = self.string() + "\n" + std::string(function) + "\n" + std::string(param);
  if (auto done = argument_values_.find(key); done != argument_values_.end()) return done->second;
  argument_values_[key] = std::nullopt;
  std::vector<std::optional<OptionDefault>> all;
  bool reexported = false;
  for (const auto& [other, calls] : importer_calls(self, root, function, &reexported))
    for (const CallArguments& c : *calls) {
      std::optional<OptionDefault> passed = c.passes(param, index);
      if (passed) passed->dest = other, passed->line = c.line;
      all.push_back(std::move(passed));
    }
  if (reexported) return std::nullopt;
  if (all.empty()) return std::nullopt;
  return argument_values_[key] = all;
}

std::vector<std::string> FileProjectContext::handed_functions(const std::string& file, std::string_view function,
                                                              std::string_view param, int index) {
  std::error_code ec;
  const fs::path self = fs::absolute(fs::path(file), ec).lexically_normal();
  std::lock_guard<std::recursive_mutex> lock(mu_);
  const std::string root = root_for(self);
  // Memoised; asked again while it is being answered (a cycle of importers): none.
  const std::string key = self.string() + "\n" + std::string(function) + "\n" + std::string(param);
  if (auto done = handed_functions_.find(key); done != handed_functions_.end()) return done->second;
  handed_functions_[key] = {};
  std::vector<std::string> out;
  const std::string position = "#" + std::to_string(index);
  for (const auto& [other, calls] : importer_calls(self, root, function))
    for (const CallArguments& c : *calls)
      for (const auto& [k, fn] : c.handed)
        if (k == param || (index >= 0 && k == position))
          if (std::string q = root_name(root, other, fn);
              !q.empty() && std::find(out.begin(), out.end(), q) == out.end())
            out.push_back(std::move(q));
  return handed_functions_[key] = out;
}

std::string FileProjectContext::handed_class(const std::string& file, std::string_view function, std::string_view param,
                                             int index) {
  std::error_code ec;
  const fs::path self = fs::absolute(fs::path(file), ec).lexically_normal();
  std::lock_guard<std::recursive_mutex> lock(mu_);
  const std::string root = root_for(self);
  // Memoised; asked again while it is being answered (a cycle of importers): none.
  const std::string key = self.string() + "\n" + std::string(function) + "\n" + std::string(param);
  if (auto done = handed_class_.find(key); done != handed_class_.end()) return done->second;
  handed_class_[key] = {};
  const std::string position = "#" + std::to_string(index);
  std::string agreed;
  bool reexported = false;
  for (const auto& [other, calls] : importer_calls(self, root, function, &reexported))
    for (const CallArguments& c : *calls) {
      std::string cls;
      for (const auto& [k, q] : c.classes)
        if (k == param || (index >= 0 && k == position)) cls = root_name(root, other, q);
      // Every call, the same class: one that passes something else (or nothing) leaves it unknown.
      if (c.opaque || cls.empty() || (!agreed.empty() && cls != agreed)) return {};
      agreed = std::move(cls);
    }
  if (reexported) return {};
  return handed_class_[key] = agreed;
}

bool FileProjectContext::importers_cannot_name(const std::string& file, std::string_view name) {
  std::error_code ec;
  const fs::path self = fs::absolute(fs::path(file), ec).lexically_normal();
  const std::string stem = self.stem().string();
  if (name.empty() || stem == "__init__" || self.extension() != ".py") return false;
  std::lock_guard<std::recursive_mutex> lock(mu_);
  const ImportGraph& g = graph_for(root_for(self));
  if (!g.usable) return false;
  const std::vector<std::string>& importers = importers_of(g, self.string());
  if (importers.empty()) return false;
  for (const std::string& other : importers) {
    // The statements of the importer that name this module (by its last component: the graph has
    // resolved that one of them is this file); none recognised (a re-export through a package):
    // not known.
    bool seen = false;
    for (const ImportStatement& s : imports_of(other)) {
      if (names_module(s, stem)) return false;  // `from layers import utils`: utils.train is reachable
      if (!from_module(s, stem)) continue;
      seen = true;
      if (s.names.empty()) return false;  // `import layers.utils`
      for (const std::string& n : s.names)
        if (n == name || n == "*") return false;
    }
    if (!seen) return false;
  }
  return true;
}

bool FileProjectContext::function_syncs(const std::string& from_file, const std::string& target) {
  std::error_code ec;
  const fs::path self = fs::absolute(fs::path(from_file), ec).lexically_normal();
  std::lock_guard<std::recursive_mutex> lock(mu_);
  const std::string root = root_for(self);
  // Breadth first from the caller, three modules deep; each (file, function) once.
  std::vector<std::pair<std::string, std::string>> todo{{self.string(), target}};
  std::set<std::pair<std::string, std::string>> seen;
  for (int level = 0; level < 3 && !todo.empty(); ++level) {
    std::vector<std::pair<std::string, std::string>> next;
    for (const auto& [file, name] : todo) {
      std::string module;
      const FunctionSummary* f = parsed_function(root, file, name, &module);
      if (!f || !seen.emplace(module, f->qualified).second) continue;
      if (f->syncs) return true;
      for (const std::string& out : f->calls_out) next.emplace_back(module, out);
    }
    todo = std::move(next);
  }
  return false;
}

const FunctionSummary* FileProjectContext::returning_function(const std::string& from_file, const std::string& function) {
  std::error_code ec;
  const fs::path self = fs::absolute(fs::path(from_file), ec).lexically_normal();
  // (A module without a return statement returns nothing: not parsed.)
  return parsed_function(root_for(self), self.string(), function, nullptr, "return");
}

std::string FileProjectContext::returned_class(const std::string& from_file, const std::string& function, int index) {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  const FunctionSummary* f = returning_function(from_file, function);
  if (!f) return {};
  for (const auto& [i, cls] : f->returned_classes)
    if (i == index) return cls;
  return {};
}

bool FileProjectContext::returned_host(const std::string& from_file, const std::string& function, int index) {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  const FunctionSummary* f = returning_function(from_file, function);
  return f && std::find(f->returned_host.begin(), f->returned_host.end(), index) != f->returned_host.end();
}

bool FileProjectContext::returns_tensor(const std::string& from_file, const std::string& function) {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  const FunctionSummary* f = returning_function(from_file, function);
  return f && f->returns_tensor;
}

bool FileProjectContext::loader_subclass(const std::string& from_file, const std::string& cls) {
  std::error_code ec;
  const fs::path self = fs::absolute(fs::path(from_file), ec).lexically_normal();
  std::lock_guard<std::recursive_mutex> lock(mu_);
  const FunctionSummary* init = parsed_function(root_for(self), self.string(), cls + ".__init__", nullptr, "DataLoader");
  return init && init->forwards_to_dataloader;
}

const FunctionSummary* FileProjectContext::project_function(const std::string& from_file, const std::string& target,
                                                             const ModuleSummary** module) {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  std::string fn;
  const ModuleSummary* s = target_summary(from_file, target, &fn);
  if (!s) return nullptr;
  for (const FunctionSummary& f : s->functions)
    if (f.qualified == fn) {
      if (module) *module = s;
      return &f;
    }
  return nullptr;
}

std::optional<OptionDefault> FileProjectContext::option_default(const std::string& from_file,
                                                                const std::string& source, std::string_view dest,
                                                                std::string* module_path, bool parser) {
  std::error_code ec;
  const fs::path self = fs::absolute(fs::path(from_file), ec).lexically_normal();
  std::lock_guard<std::recursive_mutex> lock(mu_);
  const auto r = resolve_target(root_for(self), self.string(), source);
  if (!r || r->first == self.string() || r->second.find('.') != std::string::npos) return std::nullopt;
  auto it = option_summaries_.find(r->first);
  if (it == option_summaries_.end()) {
    auto made = std::make_unique<ModuleSummary>();
    const FileRead read = read_whole_file(r->first, max_file_bytes_);
    // Only a module that declares options is parsed.
    if (read.status == FileRead::Status::Ok && read.bytes.find("add_argument") != std::string::npos)
      *made = summarize_module(r->first, read.bytes);
    it = option_summaries_.emplace(r->first, std::move(made)).first;
  }
  const ModuleSummary& m = *it->second;
  const auto names = [&](const std::vector<std::string>& v) { return std::find(v.begin(), v.end(), r->second) != v.end(); };
  const bool parses = parser ? names(m.parser_functions) : names(m.args_functions) || names(m.args_variables);
  if (!parses) return std::nullopt;
  for (const OptionDefault& o : m.options)
    if (o.dest == dest) {
      if (o.kind == OptionDefault::Kind::Unknown) return std::nullopt;
      if (module_path) *module_path = r->first;
      return o;
    }
  return std::nullopt;
}

std::optional<OptionDefault> FileProjectContext::declared_option_default(const std::string& file,
                                                                         std::string_view dest,
                                                                         std::string* module_path) {
  if (dest.empty()) return std::nullopt;
  std::error_code ec;
  const fs::path self = fs::absolute(fs::path(file), ec).lexically_normal();
  std::lock_guard<std::recursive_mutex> lock(mu_);
  const std::string root = root_for(self);
  std::string key = root;
  key.append(1, '\0').append(dest);
  if (auto known = declared_options_.find(key); known != declared_options_.end()) {
    if (known->second && module_path) *module_path = known->second->second;
    return known->second ? std::optional<OptionDefault>(known->second->first) : std::nullopt;
  }
  auto& answer = declared_options_[key];
  auto idx = option_index_.find(root);
  if (idx == option_index_.end()) {
    OptionIndex made;
    const std::vector<std::string>& files = root_files(root);
    if (files.size() <= 2000)
      for (const std::string& f : files) {
        const std::string& text = text_of(f);
        if (text.find("add_argument(") != std::string::npos) made.declaring.push_back(f);
        // `x.name = v` (not `==`), `x.name += v`: an attribute the code sets.
        for (size_t at = text.find('.'); at != std::string::npos; at = text.find('.', at + 1)) {
          size_t e = at + 1;
          while (e < text.size() && (std::isalnum(static_cast<unsigned char>(text[e])) || text[e] == '_')) ++e;
          if (e == at + 1) continue;
          size_t i = e;
          while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
          if (i < text.size() && text[i] == '=' && (i + 1 >= text.size() || text[i + 1] != '='))
            made.assigned[std::string(text.substr(at + 1, e - at - 1))].insert(f);
          else if (i + 1 < text.size() && text[i + 1] == '=' && std::string_view("+-*/|&").find(text[i]) != std::string_view::npos)
            made.assigned[std::string(text.substr(at + 1, e - at - 1))].insert(f);
        }
      }
    else
      made.assigned["*"];  // too many files to read: nothing is known
    idx = option_index_.emplace(root, std::move(made)).first;
  }
  const OptionIndex& index = idx->second;
  if (index.assigned.count("*")) return std::nullopt;
  // Set in code, the default is not what runs. Except in a script that trains nothing (the
  // pix2pix/CycleGAN family's test.py and video.py: `opt.num_threads = 1  # test code only supports
  // num_threads=1`): no project file imports it, and neither it nor any project module it reaches by
  // imports (four levels) names a backward pass, so its run is not the training run the default
  // describes. (continual-learning's compare_FI.py sets `args.time = True` and runs main.run(args),
  // which reaches the training step: it counts.)
  if (const auto set = index.assigned.find(std::string(dest)); set != index.assigned.end()) {
    const ImportGraph& g = graph_for(root);
    const auto trains = [&](const std::string& m) {
      return g.has_step_text.count(m) > 0 || text_of(m).find(".backward(") != std::string::npos;
    };
    for (const std::string& f : set->second) {
      if (f == self.string() || !g.usable || !importers_of(g, f).empty() || trains(f)) return std::nullopt;
      bool truncated = false;
      const std::vector<std::string> reached = reached_modules(g, f, 4, &truncated);
      if (truncated || std::any_of(reached.begin(), reached.end(), trains)) return std::nullopt;  // deeper: not known
    }
  }
  std::string flag = std::string(dest);
  std::replace(flag.begin(), flag.end(), '_', '-');
  std::optional<OptionDefault> found;
  std::string where;
  for (const std::string& f : index.declaring) {
    const std::string& text = text_of(f);
    if (text.find(dest) == std::string::npos && text.find(flag) == std::string::npos) continue;
    auto it = option_summaries_.find(f);
    if (it == option_summaries_.end())
      it = option_summaries_.emplace(f, std::make_unique<ModuleSummary>(summarize_module(f, text))).first;
    for (const OptionDefault& o : it->second->options) {
      if (o.dest != dest) continue;
      if (o.kind == OptionDefault::Kind::Unknown) return std::nullopt;
      if (found && (found->kind != o.kind || found->b != o.b || found->i != o.i || found->f != o.f || found->s != o.s))
        return std::nullopt;  // declared twice with different defaults
      if (!found) where = f;
      found = o;
    }
  }
  if (!found) return std::nullopt;
  answer = std::make_pair(*found, where);
  if (module_path) *module_path = where;
  return found;
}

std::optional<OptionDefault> FileProjectContext::config_tree_default(const std::string& from_file,
                                                                     const std::string& source, std::string_view path,
                                                                     std::string* module_path) {
  std::error_code ec;
  const fs::path self = fs::absolute(fs::path(from_file), ec).lexically_normal();
  std::lock_guard<std::recursive_mutex> lock(mu_);
  const auto r = resolve_target(root_for(self), self.string(), source);
  if (!r || r->first == self.string() || r->second.empty() || r->second.find('.') != std::string::npos)
    return std::nullopt;
  if (text_of(r->first).find(r->second + ".") == std::string::npos) return std::nullopt;
  const std::string key = r->second + "." + std::string(path);
  for (const OptionDefault& o : parsed_summary_of(r->first)->config_tree)
    if (o.dest == key) {
      if (module_path) *module_path = r->first;
      return o;
    }
  return std::nullopt;
}

std::optional<OptionDefault> FileProjectContext::module_constant(const std::string& from_file,
                                                                 const std::string& qualified,
                                                                 std::string* module_path) {
  std::error_code ec;
  const fs::path self = fs::absolute(fs::path(from_file), ec).lexically_normal();
  std::lock_guard<std::recursive_mutex> lock(mu_);
  const std::string root = root_for(self);
  // Relative imports are resolved from the caller's directory: the answer is per directory.
  std::string key = root;
  key.append(1, '\0').append(self.parent_path().string()).append(1, '\0').append(qualified);
  if (const auto known = constants_.find(key); known != constants_.end()) {
    if (known->second && module_path) *module_path = known->second->second;
    return known->second ? std::optional<OptionDefault>(known->second->first) : std::nullopt;
  }
  auto& answer = constants_[key];
  const auto r = resolve_target(root, self.string(), qualified);
  if (!r || r->first == self.string() || r->second.empty()) return std::nullopt;
  const std::string& name = r->second;
  const size_t dot = name.find('.');
  if (dot != std::string::npos && name.find('.', dot + 1) != std::string::npos) return std::nullopt;
  if (text_of(r->first).find(name.substr(dot == std::string::npos ? 0 : dot + 1)) == std::string::npos)
    return std::nullopt;
  std::optional<OptionDefault> found;
  for (const OptionDefault& o : parsed_summary_of(r->first)->constants)
    if (o.dest == name) found = o;
  if (!found) return std::nullopt;
  // Another file that may change it (`settings.WORKERS = args.workers`, `CFG.num_workers = 8`,
  // `setattr(CFG, k, v)`): not a constant. Through any name for a module's constant; through the
  // class's own name for a class attribute.
  const std::vector<std::string>& files = root_files(root);
  if (files.size() > 2000) return std::nullopt;
  const std::string_view owner = dot == std::string::npos ? std::string_view{} : std::string_view(name).substr(0, dot);
  const std::string_view attr = dot == std::string::npos ? std::string_view(name) : std::string_view(name).substr(dot + 1);
  for (const std::string& f : files)
    if (f != r->first && may_write_attribute(text_of(f), owner, attr)) return std::nullopt;
  answer = std::make_pair(*found, r->first);
  if (module_path) *module_path = r->first;
  return found;
}

std::optional<OptionDefault> FileProjectContext::caller_option_default(const std::string& file, std::string_view function,
                                                                       std::string_view param, std::string_view dest,
                                                                       std::string* module_path) {
  std::error_code ec;
  const fs::path self = fs::absolute(fs::path(file), ec).lexically_normal();
  std::lock_guard<std::recursive_mutex> lock(mu_);
  const std::string root = root_for(self);
  const auto has = [](const std::vector<std::string>& v, std::string_view x) {
    return std::find(v.begin(), v.end(), x) != v.end();
  };
  // The scripts that call it with their parsed options: a training script's default is the run the
  // rules judge; without one, every script must agree.
  std::optional<OptionDefault> found, trained;
  std::string found_in, trained_in;
  bool agree = true;
  for (const std::string& other : importers_naming(self.string(), function)) {
    if (test_file(relative_to(other, root))) continue;
    const ModuleSummary* m = importer_summary(other);
    if (!m || !(has(m->plain_calls, function) || has(m->conditional_calls, function)) || !has(m->parsed_names, param))
      continue;
    const auto o = std::find_if(m->options.begin(), m->options.end(), [&](const OptionDefault& x) { return x.dest == dest; });
    const bool trains = graph_for(root).has_step_text.count(other) > 0;
    if (o == m->options.end() || o->kind == OptionDefault::Kind::Unknown) {
      if (trains) return std::nullopt;  // the training script's value is not known
      agree = false;
      continue;
    }
    if (trains && !trained) trained = *o, trained_in = other;
    if (found && (found->kind != o->kind || found->b != o->b || found->i != o->i || found->f != o->f || found->s != o->s))
      agree = false;
    if (!found) found = *o, found_in = other;
  }
  if (trained) {
    if (module_path) *module_path = trained_in;
    return trained;
  }
  if (!agree || !found) return std::nullopt;
  if (module_path) *module_path = found_in;
  return found;
}

std::vector<std::string> FileProjectContext::reached_modules(const ImportGraph& g, const std::string& file, int levels,
                                                              bool* truncated) {
  std::vector<std::string> out;
  std::set<std::string> seen{file};
  std::vector<std::string> level{file};
  for (int depth = 0; depth < levels && !level.empty(); ++depth) {
    std::vector<std::string> next;
    for (const std::string& m : level)
      if (const auto imp = g.imports.find(m); imp != g.imports.end())
        for (const std::string& x : imp->second)
          if (seen.insert(x).second) next.push_back(x);
    out.insert(out.end(), next.begin(), next.end());
    level = std::move(next);
  }
  if (truncated)
    *truncated = std::any_of(level.begin(), level.end(), [&](const std::string& m) {
      const auto imp = g.imports.find(m);
      return imp != g.imports.end() &&
             std::any_of(imp->second.begin(), imp->second.end(), [&](const std::string& x) { return !seen.count(x); });
    });
  return out;
}

const ModuleSummary* FileProjectContext::step_method_cuda(const std::string& file) {
  std::error_code ec;
  const fs::path self = fs::absolute(fs::path(file), ec).lexically_normal();
  std::lock_guard<std::recursive_mutex> lock(mu_);
  const ImportGraph& g = graph_for(root_for(self));
  if (g.step_method_files.empty()) return nullptr;
  const std::string& text = text_of(self.string());
  for (const auto& [name, files] : g.step_method_files) {
    if (!project_text::mentions_in_code(text, "." + name + "(")) continue;
    for (const auto& [holder, qualified] : step_methods_named(self.string(), name))
      if (const ModuleSummary* s = holder->uses_cuda ? holder : cuda_imported(holder->path)) return s;
  }
  return nullptr;
}

const ModuleSummary* FileProjectContext::cuda_imported(const std::string& file) {
  std::error_code ec;
  const fs::path self = fs::absolute(fs::path(file), ec).lexically_normal();
  std::lock_guard<std::recursive_mutex> lock(mu_);
  const ImportGraph& g = graph_for(root_for(self));
  const auto imp = g.imports.find(self.string());
  if (imp == g.imports.end()) return nullptr;
  for (const std::string& f : imp->second)
    if (const ModuleSummary* s = summary_of(f); s && s->uses_cuda) return s;
  // Through a package's __init__.py: `from base import BaseTrainer` (yassouali's pytorch-segmentation,
  // held-out round 15) takes the class from base/base_trainer.py, which picks the device. Only the
  // module that defines a name this file imports from the package counts, not every module the
  // package re-exports.
  const std::vector<ImportStatement>& froms = imports_of(self.string());
  for (const std::string& f : imp->second) {
    if (fs::path(f).filename() != "__init__.py") continue;
    const std::string package = fs::path(f).parent_path().filename().string();
    const auto from = std::find_if(froms.begin(), froms.end(), [&](const ImportStatement& x) {
      return !x.names.empty() && x.module.substr(x.module.rfind('.') == std::string::npos ? 0 : x.module.rfind('.') + 1) == package;
    });
    if (from == froms.end()) continue;
    const auto inside = g.imports.find(f);
    if (inside == g.imports.end()) continue;
    for (const std::string& m : inside->second)
      if (const ModuleSummary* s = summary_of(m); s && s->uses_cuda && s->defines_any(from->names)) return s;
  }
  return nullptr;
}

}  // namespace perflint
