// The project linker (see FileProjectContext in project_files.hpp): the import graph of a project
// root, the resolution of a step call's dotted target to a file and a function (through package
// re-exports), the fixpoint over the files a training step reaches, and what a file's cache key
// needs from the project.
#include <algorithm>
#include <cctype>
#include <deque>
#include <filesystem>
#include <functional>
#include <map>
#include <set>
#include <unordered_set>

#include "cli/project_files.hpp"
#include "cli/project_text.hpp"
#include "parser/text_util.hpp"
#include "util/io.hpp"

namespace fs = std::filesystem;

namespace perflint {

using project_text::import_lines;
using project_text::import_words;
using project_text::project_root;
using project_text::defines;
using project_text::from_module;
using project_text::import_statements;
using project_text::ImportStatement;
using project_text::names_module;
using project_text::relative_to;
using project_text::test_file;

namespace {

bool within(const fs::path& p, const fs::path& root) {
  const std::string s = p.lexically_normal().string(), r = root.lexically_normal().string();
  return s == r || (s.size() > r.size() && s.compare(0, r.size(), r) == 0 && (s[r.size()] == '/' || r.back() == '/'));
}

}  // namespace

bool FileProjectContext::file_exists(const std::string& path) {
  if (auto it = exists_.find(path); it != exists_.end()) return it->second;
  std::error_code ec;
  const bool yes = fs::is_regular_file(path, ec);
  exists_.emplace(path, yes);
  return yes;
}

namespace {
std::vector<std::string_view> training_method_defs(std::string_view text);
bool calls_method_named(std::string_view text, const std::map<std::string, std::vector<std::string>>& names);
}  // namespace

const FileProjectContext::ImportGraph& FileProjectContext::graph_for(const std::string& root) {
  if (store_) load_facts(root);
  if (auto it = graphs_.find(root); it != graphs_.end()) return it->second;
  ImportGraph g;
  g.root = root;
  const std::vector<std::string>& files = root_files(root);
  g.usable = !files.empty();
  if (g.usable) {
    // Hashed: the paths share long prefixes, which an ordered set compares again at every level.
    const std::unordered_set<std::string> known(files.begin(), files.end());
    std::set<std::string> not_tests;  // of `files`
    std::map<std::string, std::vector<std::string>> method_defs;  // training_method_defs -> files
    std::set<std::string> step_defined;  // of those, the names a file with a training step defines
    // Paths are normal already (the walk's), so a module's file is a string concatenation away:
    // no fs::path arithmetic per import.
    auto module_file = [&](const std::string& base, std::string_view dotted) -> std::string {
      std::string p;
      p.reserve(base.size() + dotted.size() + 13);
      p = base;
      if (!dotted.empty()) {
        p.push_back('/');
        for (char c : dotted) p.push_back(c == '.' ? '/' : c);
        p += ".py";
        if (known.count(p)) return p;
        p.resize(p.size() - 3);
      }
      p += "/__init__.py";
      return known.count(p) ? p : std::string();
    };
    for (const std::string& f : files) {
      const FileRead read = read_whole_file(f, max_file_bytes_);
      if (read.status != FileRead::Status::Ok) continue;
      const std::string_view text = read.bytes;
      // A training step: a backward and an optimizer step (`loss.backward()`, `accelerator.backward(`,
      // `scaler.scale(loss).backward()`; `opt.step()`, `scaler.step(opt)`). (Not the optimizer step
      // alone, with backward in a helper: tried, it linked dinov2's train loop into its MetricLogger
      // with arguments the linker cannot prove to be host floats, a false PFL201.)
      // Test code is not the project's training step (a test that trains a few steps reaches
      // helpers the way no run does): tests/, testing/, test_*.py, *_test.py are not seeds.
      // Not in comments or docstring examples (`>>> loss.backward()` in a library's documentation).
      // The optimizer step may be a mixed-precision trainer's (`self.mp_trainer.backward(loss)`,
      // `self.mp_trainer.optimize(self.opt)`: guided-diffusion, consistency_models).
      const bool test = test_file(relative_to(f, root));
      if (project_text::mentions_in_code(text, ".backward(") &&
          (project_text::mentions_in_code(text, ".step(") || project_text::mentions_in_code(text, ".step_") ||
           project_text::mentions_in_code(text, ".optimize(")) &&
          !test)
        g.has_step_text.insert(f);
      if (!test) not_tests.insert(f);
      if (!test)
        for (std::string_view name : training_method_defs(text)) {
          std::vector<std::string>& where = method_defs[std::string(name)];
          if (where.empty() || where.back() != f) where.push_back(f);
          if (g.has_step_text.count(f)) step_defined.insert(std::string(name));
        }
      const std::string dir = f.substr(0, f.rfind('/'));
      std::set<std::string> targets;
      for (const ImportStatement& s : import_statements(text)) {
        std::vector<std::string> bases;
        if (s.level > 0) {
          std::string b = dir;
          for (int up = 1; up < s.level && b.size() > root.size(); ++up) b = b.substr(0, b.rfind('/'));
          if (b.size() >= root.size()) bases.push_back(b);
        } else {
          // A script's directory is on sys.path (`from utils import x` next to train.py), and so is
          // the directory that holds its top package (`from pkg.utils import x` in pkg/algo.py): the
          // directories from the file's up to the project root, as resolve_target tries them (the
          // root alone is not enough: without a marker it may lie above the package's directory).
          for (std::string b = dir;; b = b.substr(0, b.rfind('/'))) {
            bases.push_back(b);
            if (b.size() <= root.size() || b.rfind('/') == std::string::npos) break;
          }
        }
        // What each base makes of the statement: the module itself, or a submodule per name.
        bool provided = false;
        for (const std::string& b : bases) {
          if (const std::string m = module_file(b, s.module); !m.empty()) {
            targets.insert(m);
            // A package's __init__.py provides the names only when its text has them (an empty
            // src/solver/__init__.py next to src/solver/solver.py, the module a PYTHONPATH entry makes
            // importable: Speech-Transformer).
            const std::string_view body = m.ends_with("/__init__.py") ? std::string_view(text_of(m)) : std::string_view();
            provided = provided || s.names.empty() || !m.ends_with("/__init__.py") ||
                       std::any_of(s.names.begin(), s.names.end(),
                                   [&](const std::string& n) { return body.find(n) != std::string_view::npos; });
          }
          // `from pkg import mod`: a submodule.
          for (const std::string& n : s.names)
            if (const std::string m = module_file(b, s.module.empty() ? n : s.module + "." + n); !m.empty()) {
              targets.insert(m);
              provided = true;
            }
        }
        if (!provided && s.level == 0 && !s.module.empty())
          if (const std::string m = unique_module_file(root, s.module, s.names); !m.empty()) targets.insert(m);
      }
      targets.erase(f);
      if (!targets.empty()) g.imports[f].assign(targets.begin(), targets.end());
    }
    // A script that imports a module with a training step may run it in its loop (TD3's main.py:
    // `policy.train(replay_buffer, batch_size)` every environment step; `dqn.learn(mem)`): a seed
    // too. A step that imports nothing of the project calls nothing of it: not a seed (a project of
    // single-file scripts costs no second parse).
    // Through a package's __init__.py that re-exports it too (`from gan import Trainer`), a few levels.
    std::set<std::string> seeds;
    const std::function<bool(const std::string&, int)> has_step = [&](const std::string& m, int depth) {
      if (g.has_step_text.count(m)) return true;
      if (depth >= 3 || !m.ends_with("/__init__.py")) return false;
      const auto more = g.imports.find(m);
      return more != g.imports.end() &&
             std::any_of(more->second.begin(), more->second.end(), [&](const std::string& x) { return has_step(x, depth + 1); });
    };
    for (const auto& [f, imported] : g.imports) {
      if (!not_tests.count(f)) continue;
      if (g.has_step_text.count(f) ||
          std::any_of(imported.begin(), imported.end(), [&](const std::string& m) { return has_step(m, 0); }))
        seeds.insert(f);
    }
    // A step of a base class that other files import (decision-transformer's Trainer.train_iteration,
    // whose `self.train_step()` runs the override of a subclass in another file): a seed too.
    for (const auto& [f, imported] : g.imports)
      if (not_tests.count(f))
        for (const std::string& m : imported)
          if (g.has_step_text.count(m) && not_tests.count(m)) seeds.insert(m);
    // A file that calls a step method of the project by name (`model.train_a_batch(x, y)` on a
    // parameter; step_methods_named): a seed too.
    // (Not a name defined in more files than step_methods_named looks at.)
    for (const std::string& name : step_defined)
      if (method_defs[name].size() <= kMaxStepMethodFiles) g.step_method_files[name] = std::move(method_defs[name]);
    if (!g.step_method_files.empty())
      for (const std::string& f : not_tests) {
        if (seeds.count(f)) continue;
        const FileRead read = read_whole_file(f, max_file_bytes_);
        if (read.status == FileRead::Status::Ok && calls_method_named(read.bytes, g.step_method_files)) seeds.insert(f);
      }
    g.has_step_text = std::move(seeds);
  }
  if (store_) mark_computed(root);
  return graphs_.emplace(root, std::move(g)).first->second;
}

namespace {

// The methods `text` defines (an indented `def name(`) whose names say they train: step, train,
// learn, update, optimi(ze), fit. Text level (a def in a docstring counts: the index only narrows
// which files step_methods_named parses).
std::vector<std::string_view> training_method_defs(std::string_view text) {
  std::vector<std::string_view> out;
  for (size_t at = text.find("def "); at != std::string_view::npos; at = text.find("def ", at + 4)) {
    size_t line = at;
    while (line > 0 && (text[line - 1] == ' ' || text[line - 1] == '\t')) --line;
    if (line == at || (line > 0 && text[line - 1] != '\n')) continue;  // not indented, or not first on its line
    size_t from = at + 4, to = from;
    while (to < text.size() && (std::isalnum(static_cast<unsigned char>(text[to])) || text[to] == '_')) ++to;
    if (to == from || to >= text.size() || text[to] != '(') continue;
    if (const std::string_view name = text.substr(from, to - from); distinctive_step_method(name)) out.push_back(name);
  }
  return out;
}

// Whether `text` calls a method named in `names` (`.name(`, in code: not a comment or a string).
bool calls_method_named(std::string_view text, const std::map<std::string, std::vector<std::string>>& names) {
  for (size_t dot = text.find('.'); dot != std::string_view::npos; dot = text.find('.', dot + 1)) {
    size_t to = dot + 1;
    while (to < text.size() && (std::isalnum(static_cast<unsigned char>(text[to])) || text[to] == '_')) ++to;
    if (to == dot + 1 || to >= text.size() || text[to] != '(') continue;
    const std::string_view name = text.substr(dot + 1, to - dot - 1);
    if (names.find(std::string(name)) != names.end() &&
        project_text::mentions_in_code(text, text.substr(dot, to + 1 - dot)))
      return true;
  }
  return false;
}

}  // namespace

std::optional<std::pair<std::string, std::string>> FileProjectContext::resolve_target(const std::string& root,
                                                                                      const std::string& caller,
                                                                                      const std::string& target) {
  std::vector<std::string_view> parts;
  for (size_t at = 0; at <= target.size();) {
    const size_t dot = std::min(target.find('.', at), target.size());
    parts.push_back(std::string_view(target).substr(at, dot - at));
    at = dot + 1;
  }
  // Bases: the caller's directory and each one above it, up to the project root (relative imports
  // lost their dots in the target).
  std::vector<fs::path> bases;
  for (fs::path b = fs::path(caller).parent_path(); within(b, root); b = b.parent_path()) {
    bases.push_back(b);
    if (b == b.parent_path() || b.lexically_normal() == fs::path(root).lexically_normal()) break;
  }
  for (size_t k = parts.size() - 1; k >= 1; --k) {
    std::string mod, rest;
    for (size_t i = 0; i < parts.size(); ++i) {
      std::string& into = i < k ? mod : rest;
      if (!into.empty()) into.push_back(i < k ? '/' : '.');
      into.append(parts[i]);
    }
    for (const fs::path& b : bases) {
      const std::string file = fs::path((b / mod).string() + ".py").lexically_normal().string();
      if (file_exists(file)) return follow_reexports(root, file, rest);
      const std::string init = (b / mod / "__init__.py").lexically_normal().string();
      // A package whose __init__.py cannot provide the name (an empty src/solver/__init__.py beside
      // src/solver/solver.py, which a PYTHONPATH entry makes `solver`): not this one.
      if (file_exists(init) && text_of(init).find(rest.substr(0, rest.find('.'))) != std::string::npos)
        return follow_reexports(root, init, rest);
    }
  }
  // A module found only on a path the project adds at run time (unique_module_file).
  for (size_t k = parts.size() - 1; k >= 1; --k) {
    std::string dotted(target.substr(0, static_cast<size_t>(parts[k - 1].data() + parts[k - 1].size() - target.data())));
    const std::string rest(target.substr(dotted.size() + 1));
    if (const std::string file = unique_module_file(root, dotted, {rest.substr(0, rest.find('.'))}); !file.empty())
      return follow_reexports(root, file, rest);
  }
  return std::nullopt;
}

std::string FileProjectContext::unique_module_file(const std::string& root, std::string_view dotted,
                                                   const std::vector<std::string>& names) {
  std::string key = root + "|" + std::string(dotted) + "|";
  for (const std::string& n : names) key += n + ",";
  if (auto it = unique_modules_.find(key); it != unique_modules_.end()) return it->second;
  std::string rel(dotted);
  std::replace(rel.begin(), rel.end(), '.', '/');
  // The root's modules outside tests by their last component (`solver` for src/solver/solver.py and
  // src/solver/__init__.py), built once per root: an unresolved import looks at its namesakes only.
  auto index = module_index_.find(root);
  if (index == module_index_.end()) {
    std::unordered_map<std::string, std::vector<std::string>> by_last;
    for (const std::string& f : root_files(root)) {
      const std::string_view r = relative_to(f, root);
      if (test_file(r) || !r.ends_with(".py")) continue;
      std::string_view stem = r.substr(0, r.size() - 3);  // a package's __init__ goes by its directory
      if (stem == "__init__") stem = {};
      else if (stem.ends_with("/__init__")) stem.remove_suffix(9);
      const size_t slash = stem.rfind('/');
      by_last[std::string(slash == std::string_view::npos ? stem : stem.substr(slash + 1))].push_back(f);
    }
    index = module_index_.emplace(root, std::move(by_last)).first;
  }
  const size_t last_dot = dotted.rfind('.');
  const std::string last(last_dot == std::string_view::npos ? dotted : dotted.substr(last_dot + 1));
  std::vector<std::string> candidates;
  if (const auto it = index->second.find(last); it != index->second.end())
    for (const std::string& f : it->second)
      if (f.ends_with("/" + rel + ".py") || f.ends_with("/" + rel + "/__init__.py")) candidates.push_back(f);
  // Several: the one that defines an imported name (`src/solver/solver.py` over an empty
  // `src/solver/__init__.py`).
  if (candidates.size() > 1) {
    std::vector<std::string> defining;
    for (const std::string& c : candidates)
      if (std::any_of(names.begin(), names.end(), [&](const std::string& n) { return !n.empty() && defines(text_of(c), n); }))
        defining.push_back(c);
    candidates = std::move(defining);
  }
  std::string found = candidates.size() == 1 ? candidates.front() : std::string();
  unique_modules_.emplace(std::move(key), found);
  return found;
}


std::pair<std::string, std::string> FileProjectContext::follow_reexports(const std::string& root, std::string file,
                                                                         std::string rest) {
  // Memoised: every call through a package asks the same question of the same __init__.py.
  std::string key = root;
  key.append(1, '\0').append(file).append(1, '\0').append(rest);
  if (auto it = reexports_.find(key); it != reexports_.end()) return it->second;
  // `dir/name.py`, else `dir/name/__init__.py`, else empty.
  const auto module_at = [&](const std::string& path) {
    return file_exists(path + ".py") ? path + ".py" : file_exists(path + "/__init__.py") ? path + "/__init__.py" : "";
  };
  // A package's __init__.py (or any module) that imports the name from elsewhere in the project
  // (`from .meters import AverageMeter`, `from . import meters`, `from pkg.meters import *`): the
  // name is defined there. A few hops; a name defined in the file itself stays. Texts come from
  // text_of: the same __init__.py is asked about by every call that goes through it.
  for (int hop = 0; hop < 4 && !rest.empty(); ++hop) {
    const std::string first = rest.substr(0, rest.find('.'));
    const std::string& text = text_of(file);
    if (text.empty() || defines(text, first)) break;
    const std::string dir = file.substr(0, file.rfind('/'));
    std::optional<std::pair<std::string, std::string>> next;
    for (const ImportStatement& s : imports_of(file)) {
      if (s.names.empty()) continue;  // `import x`: not a re-export of a name
      // The name as the module it comes from calls it (`from .shown import show as render`).
      const auto bound = std::find(s.bound.begin(), s.bound.end(), first);
      const bool named = bound != s.bound.end();
      const bool star = std::find(s.names.begin(), s.names.end(), "*") != s.names.end();
      if (!named && !star) continue;
      const std::string original = named ? s.names[static_cast<size_t>(bound - s.bound.begin())] : first;
      const size_t dot = rest.find('.');
      const std::string after = dot == std::string::npos ? std::string() : rest.substr(dot);
      // The module the statement imports from, as a file of the project.
      std::string base = s.level > 0 ? dir : root;
      for (int up = 1; up < s.level && base.size() > root.size(); ++up) base = base.substr(0, base.rfind('/'));
      std::string path = base;
      if (!s.module.empty()) {
        path.push_back('/');
        for (char c : s.module) path.push_back(c == '.' ? '/' : c);
      }
      // `from . import meters` / `from pkg import meters`: the name is a submodule.
      if (const std::string sub = named ? module_at(path + "/" + original) : std::string(); !sub.empty()) {
        next.emplace(sub, after.empty() ? std::string() : after.substr(1));
        break;
      }
      if (s.module.empty()) continue;
      const std::string target = module_at(path);
      if (target.empty() || target == file) continue;
      // `from .meters import *`: only when that module defines the name.
      if (star && !defines(text_of(target), first)) continue;
      next.emplace(target, original + after);
      break;
    }
    if (!next || next->second.empty()) break;
    file = std::move(next->first);
    rest = std::move(next->second);
  }
  return reexports_.emplace(std::move(key), std::make_pair(std::move(file), std::move(rest))).first->second;
}

namespace {

// The .py files of `dir` in directory order, up to one past scripts_import's bound, listed once per
// directory: every copy of a corpus asks about the same parent (one listing, not one per copy).
const std::vector<std::string>& py_files_of(const fs::path& dir, std::unordered_map<std::string, std::vector<std::string>>& listings) {
  auto [it, fresh] = listings.try_emplace(dir.string());
  if (fresh) {
    std::error_code ec;
    for (fs::directory_iterator d(dir, ec), end; !ec && d != end && it->second.size() <= 200; d.increment(ec))
      if (d->path().extension() == ".py") it->second.push_back(d->path().string());
  }
  return it->second;
}

// Whether a .py file directly in `dir` that mentions `mention` imports a module that `names` accepts
// (`from m import a`: only m is a module; `import a.b as c, d`: a.b and d). Bounded: a directory with
// more than 200 .py files is nobody's script directory.
bool some_script_imports(const fs::path& dir, std::string_view mention, const std::function<bool(std::string_view)>& names,
                         std::unordered_map<std::string, std::vector<std::string>>& listings) {
  int files = 0;
  for (const std::string& path : py_files_of(dir, listings)) {
    if (++files > 200) return false;
    const FileRead read = read_whole_file(path, 1 << 20);
    if (read.status != FileRead::Status::Ok || read.bytes.find(mention) == std::string::npos) continue;
    for (const std::string& line : import_lines(read.bytes)) {
      const std::vector<std::string> w = import_words(line);
      if (w.size() < 2) continue;
      if (w[0] == "from") {
        if (names(w[1])) return true;
        continue;
      }
      for (size_t i = 1; i < w.size(); ++i) {
        if (w[i] == "as" || w[i - 1] == "as" || w[i] == "import") continue;
        if (names(w[i])) return true;
      }
    }
  }
  return false;
}

// Whether a .py file directly in `parent` imports the directory `name` as a module (`import
// core.data_loader`, `from core import x`, `from core.models import y`; `from .core import x`; and, for
// a directory of modules inside another one, `from src.utils.logging import x` in src/train.py):
// then `name` is a directory of modules that the scripts of `parent` use, and belongs with them.
bool scripts_import(const fs::path& parent, const std::string& name,
                    std::unordered_map<std::string, std::vector<std::string>>& listings) {
  const std::string pname = parent.filename().string();
  // The dotted components of `module` after its leading dots, and how many dots led.
  const auto split = [](std::string_view module, size_t& dots) {
    dots = 0;
    while (dots < module.size() && module[dots] == '.') ++dots;
    std::vector<std::string_view> parts;
    for (size_t at = dots; at < module.size();) {
      const size_t dot = std::min(module.find('.', at), module.size());
      parts.push_back(module.substr(at, dot - at));
      at = dot + 1;
    }
    return parts;
  };
  // `name...` (parent on sys.path), `.name...` (relative to parent's package), `...pname.name...`.
  const auto names_dir = [&](std::string_view module) {
    size_t dots = 0;
    const std::vector<std::string_view> parts = split(module, dots);
    if (dots > 1 || parts.empty()) return false;
    if (parts[0] == name) return true;
    // `src.utils...` from a script of src/ (not `timm.models.layers` from a script of models/).
    return dots == 0 && parts.size() >= 2 && parts[0] == pname && parts[1] == name;
  };
  return some_script_imports(parent, name, names_dir, listings);
}

// Whether a .py file of `dir` (a directory without __init__.py) imports a module of `dir` by the
// directory's name (`from exp_yf.yt_dataset import f` in exp_yf/exp1_transfer.py, run from the
// parent as `python -m exp_yf.exp1_transfer` or with the parent on PYTHONPATH): then the parent is on
// sys.path and the directory is a namespace package of the scripts above it. Not when `dir` has a
// module of that name itself (`dir/name.py`, `dir/name/`), which the import may mean.
bool scripts_import_own_dir(const fs::path& dir, std::unordered_map<std::string, std::vector<std::string>>& listings) {
  const std::string name = dir.filename().string();
  std::error_code ec;
  if (name.empty() || fs::exists(dir / (name + ".py"), ec) || fs::exists(dir / name, ec)) return false;
  const auto names_own = [&](std::string_view module) {
    return module.size() > name.size() + 1 && module.starts_with(name) && module[name.size()] == '.';
  };
  return some_script_imports(dir, name + ".", names_own, listings);
}

// The linker's root: project_root, or above it the directory that holds the file's top package when
// that is higher (a package with a setup.py of its own for a C extension, such as vits's
// monotonic_align/, is imported by the files around it).
std::string linker_root(const fs::path& file, std::unordered_map<std::string, bool>& imported_from_above,
                        std::unordered_map<std::string, std::vector<std::string>>& listings,
                        std::unordered_map<std::string, bool>& has_marker) {
  std::string root = project_root(file, &has_marker);
  std::error_code ec;
  fs::path dir = fs::absolute(file, ec).parent_path().lexically_normal();
  if (fs::exists(fs::path(root) / ".git", ec) || fs::exists(fs::path(root) / "pyproject.toml", ec)) return root;
  // Up through every package level (a deep module of one package shares its root with the rest).
  for (int up = 0; up < 32 && fs::exists(dir / "__init__.py", ec) && dir != dir.parent_path(); ++up)
    dir = dir.parent_path();
  // Without a marker, a directory of modules (`core/` without an __init__.py, imported as
  // `core.data_loader` by `main.py` next to it) belongs to the scripts above it: up while a script of
  // the parent imports the directory (bounded). Not merely while the parent holds .py files: a stray
  // script in a parent directory (a checkout inside a folder of notes and scripts) moved the root
  // above the project, where its own absolute imports no longer resolve.
  for (int up = 0; up < 3 && dir != dir.parent_path(); ++up) {
    // Answered once per directory (the copies of a corpus share their parent).
    const std::string key = dir.string();
    auto [known, fresh] = imported_from_above.try_emplace(key, false);
    if (fresh)
      known->second = scripts_import(dir.parent_path(), dir.filename().string(), listings) ||
                      (!fs::exists(dir / "__init__.py", ec) && scripts_import_own_dir(dir, listings));
    if (!known->second) break;
    dir = dir.parent_path();
  }
  return within(fs::path(root), dir) && fs::path(root) != dir ? dir.string() : root;
}

}  // namespace

const std::string& FileProjectContext::root_for(const fs::path& file) {
  const std::string dir = file.parent_path().string();
  if (auto it = roots_.find(dir); it != roots_.end()) return it->second;
  return roots_.emplace(dir, linker_root(file, imported_from_above_, py_files_, has_marker_)).first->second;
}

namespace {

// Adds `e` to `entries` (one per function: the arguments of every call that runs it merged, the path
// of the first, or of a CUDA one); true when that changed what a summary of the file would see.
bool merge_entry(std::vector<StepEntry>& entries, StepEntry e) {
  auto same = std::find_if(entries.begin(), entries.end(), [&](const StepEntry& o) { return o.function == e.function; });
  if (same == entries.end()) {
    entries.push_back(std::move(e));
    return true;
  }
  bool changed = false;
  for (auto& k : e.keywords)
    if (std::find(same->keywords.begin(), same->keywords.end(), k) == same->keywords.end()) {
      same->keywords.push_back(k);
      changed = true;
    }
  if (e.positional > same->positional) same->positional = e.positional, changed = true;
  if (e.opaque_args && !same->opaque_args) same->opaque_args = true, changed = true;
  if (!e.host_args && same->host_args) same->host_args = false, changed = true;
  if (e.default_device && !same->default_device) same->default_device = true, changed = true;
  // The loss is bound to a parameter only where every call binds it there.
  const auto keep_common = [&changed](auto& mine, const auto& theirs) {
    const size_t before = mine.size();
    std::erase_if(mine, [&](const auto& x) { return std::find(theirs.begin(), theirs.end(), x) == theirs.end(); });
    changed = changed || mine.size() != before;
  };
  keep_common(same->loss_positional, e.loss_positional);
  keep_common(same->loss_keywords, e.loss_keywords);
  keep_common(same->keyword_truths, e.keyword_truths);
  keep_common(same->non_none_positional, e.non_none_positional);
  keep_common(same->non_none_keywords, e.non_none_keywords);
  keep_common(same->arg_classes, e.arg_classes);
  // A function handed in by any call may be the one the run calls.
  for (auto& f : e.arg_functions)
    if (std::find(same->arg_functions.begin(), same->arg_functions.end(), f) == same->arg_functions.end()) {
      same->arg_functions.push_back(f);
      changed = true;
    }
  keep_common(same->batch_positional, e.batch_positional);
  keep_common(same->batch_keywords, e.batch_keywords);
  if (e.cuda && !same->cuda) {
    same->path = e.path;
    same->cuda = true;
    changed = true;
  }
  return changed;
}

}  // namespace

std::string FileProjectContext::root_name(const std::string& root, const std::string& caller, const std::string& name) {
  const auto where = resolve_target(root, caller, name);
  if (!where || where->second.empty()) return {};
  std::string mod = fs::path(where->first).lexically_relative(root).replace_extension().generic_string();
  if (mod == "__init__") return {};
  if (mod.ends_with("/__init__")) mod.resize(mod.size() - 9);
  if (mod.empty() || mod.starts_with("..")) return {};
  std::replace(mod.begin(), mod.end(), '/', '.');
  return mod + "." + where->second;
}

void FileProjectContext::link_root(const std::string& root) {
  if (store_) load_facts(root);
  Linked& linked = linked_roots_[root];
  if (linked.started) return;
  linked.started = true;  // summaries made below read the table as it grows: no recursion
  const ImportGraph& g = graph_for(root);
  if (!g.usable) return;
  if (store_) mark_computed(root);
  // A worklist to a fixpoint: the files with a training step first; a file whose entries grew is
  // summarised again (at most kMaxVisits times), its step calls resolved and merged into the files
  // they reach.
  std::deque<std::string> work(g.has_step_text.begin(), g.has_step_text.end());
  std::set<std::string> queued(g.has_step_text.begin(), g.has_step_text.end());
  std::map<std::string, int> visits;
  while (!work.empty()) {
    const std::string file = std::move(work.front());
    work.pop_front();
    queued.erase(file);
    if (++visits[file] > kMaxVisits) continue;
    const FileRead read = read_whole_file(file, max_file_bytes_);
    if (read.status != FileRead::Status::Ok) continue;
    const ModuleSummary summary = summarize_module(file, read.bytes, this);
    const std::string shown = fs::path(file).lexically_relative(root).generic_string();
    // A CUDA default device set here or on the way here holds for the calls out of this file (text
    // level: a mention in a comment only makes the rules quieter).
    bool default_device = read.bytes.find("set_default_tensor_type") != std::string::npos ||
                          read.bytes.find("set_default_device") != std::string::npos;
    if (auto own = linked.entries.find(file); own != linked.entries.end())
      for (const StepEntry& e : own->second) default_device = default_device || e.default_device;
    for (const StepCall& c : summary.step_calls) {
      const auto r = c.file.empty() ? resolve_target(root, file, c.target)
                                    : std::make_optional(std::make_pair(c.file, c.target));
      if (!r || r->first == file) continue;
      const std::string hop = shown + ":" + std::to_string(c.line);
      StepEntry e{r->second, c.path.empty() ? hop : c.path + " → " + hop, c.cuda, c.keywords, c.positional,
                  c.opaque_args, c.host_args, default_device, c.loss_positional, c.loss_keywords, c.keyword_truths,
                  c.non_none_positional, c.non_none_keywords, {}, {}, c.batch_positional, c.batch_keywords};
      // Classes and functions of the arguments, named from the root so that the callee's file can
      // resolve them.
      for (const auto& [key, cls] : c.arg_classes)
        if (std::string q = root_name(root, file, cls); !q.empty()) e.arg_classes.emplace_back(key, std::move(q));
      for (const auto& [key, fn] : c.arg_functions)
        if (std::string q = root_name(root, file, fn); !q.empty()) e.arg_functions.emplace_back(key, std::move(q));
      // A path through more files than kMaxDepth is not followed further.
      size_t hops = 0;
      for (size_t at = e.path.find(" → "); at != std::string::npos; at = e.path.find(" → ", at + 1)) ++hops;
      if (hops >= static_cast<size_t>(kMaxDepth)) {
        // Not followed, but the call still runs it: what every call binds is no longer known.
        for (StepEntry& known : linked.entries[r->first])
          if (known.function == e.function) {
            known.loss_positional.clear(), known.loss_keywords.clear(), known.keyword_truths.clear();
            known.non_none_positional.clear(), known.non_none_keywords.clear(), known.arg_classes.clear();
            known.batch_positional.clear(), known.batch_keywords.clear();
          }
        continue;
      }
      if (merge_entry(linked.entries[r->first], std::move(e)) && queued.insert(r->first).second)
        work.push_back(r->first);
    }
  }
}

namespace {
// PERFLINT_LINKER=0 turns the linker off: a benchmark knob (bench/throughput.sh reports its share).
bool linker_off() {
  static const bool off = [] {
    const char* v = std::getenv("PERFLINT_LINKER");
    return v && std::string_view(v) == "0";
  }();
  return off;
}
}  // namespace

void FileProjectContext::prepare(const std::vector<std::string>& files) {
  if (linker_off()) return;
  std::lock_guard<std::recursive_mutex> lock(mu_);
  std::set<std::string> roots;
  for (const std::string& file : files) {
    std::error_code ec;
    const std::string self = fs::absolute(fs::path(file), ec).lexically_normal().string();
    if (!ec) roots.insert(root_for(fs::path(self)));
  }
  for (const std::string& root : roots) link_root(root);
}

std::vector<StepEntry> FileProjectContext::step_entries(const std::string& file) {
  if (linker_off()) return {};
  std::error_code ec;
  const std::string self = fs::absolute(fs::path(file), ec).lexically_normal().string();
  std::lock_guard<std::recursive_mutex> lock(mu_);
  const std::string root = root_for(fs::path(self));
  link_root(root);
  const auto& entries = linked_roots_[root].entries;
  const auto it = entries.find(self);
  return it == entries.end() ? std::vector<StepEntry>{} : it->second;
}

std::string FileProjectContext::fingerprint(const std::string& file, std::string_view text) {
  std::error_code ec;
  const fs::path self = fs::absolute(fs::path(file), ec).lexically_normal();
  std::string out;
  {
    std::lock_guard<std::recursive_mutex> lock(mu_);
    // The siblings the model reads (same directory): path, size and modification time of each.
    const std::string dir = self.parent_path().string();
    auto it = dir_fingerprints_.find(dir);
    if (it == dir_fingerprints_.end()) {
      std::vector<std::string> files;
      for (fs::directory_iterator d(dir, ec), end; !ec && d != end; d.increment(ec))
        if (d->path().extension() == ".py") files.push_back(d->path().filename().string());
      std::sort(files.begin(), files.end());
      std::string fp = dir;
      for (const std::string& f : files) {
        const fs::path p = fs::path(dir) / f;
        const auto size = fs::file_size(p, ec);
        fp.append("\n").append(f).append(" ").append(ec ? "?" : std::to_string(size));
        const auto time = fs::last_write_time(p, ec);
        fp.append(" ").append(ec ? "?" : std::to_string(time.time_since_epoch().count()));
      }
      it = dir_fingerprints_.emplace(dir, std::move(fp)).first;
    }
    out = it->second;
    // The project files it imports and the files they import (a factory's module and the class it
    // returns, a helper and the helper that syncs for it), what a package it imports re-exports (the
    // files its __init__.py imports, a few levels): a trainer class reached through `from trainer
    // import Trainer` lives there. And the files that import it (the script of another directory
    // that picks its device).
    const ImportGraph& g = graph_for(root_for(self));
    std::set<std::string> seen;
    std::vector<std::pair<std::string, int>> todo;
    if (auto imp = g.imports.find(self.string()); imp != g.imports.end())
      for (const std::string& f : imp->second) todo.emplace_back(f, 0);
    for (const std::string& f : importers_of(g, self.string())) todo.emplace_back(f, 3);  // not followed further
    while (!todo.empty()) {
      const auto [f, level] = todo.back();
      todo.pop_back();
      if (!seen.insert(f).second) continue;
      const auto size = fs::file_size(f, ec);
      out.append("\nimports ").append(f).append(" ").append(ec ? "?" : std::to_string(size));
      const auto time = fs::last_write_time(f, ec);
      out.append(" ").append(ec ? "?" : std::to_string(time.time_since_epoch().count()));
      if (level < 3 && (level < 1 || f.ends_with("/__init__.py")))
        if (auto more = g.imports.find(f); more != g.imports.end())
          for (const std::string& m : more->second) todo.emplace_back(m, level + 1);
    }
  }
  // What the linker and the project look-up answer for this file (the rest of the project matters
  // only through them): its step entries, and whether another file sets cudnn.benchmark.
  for (const StepEntry& e : step_entries(file)) {
    out.append("\nentry ").append(e.function).append(" ").append(e.path).append(e.cuda ? " cuda" : "");
    out.append(e.opaque_args ? " opaque" : "").append(e.host_args ? " host" : "");
    out.append(e.default_device ? " default-device" : "");
    out.append(" ").append(std::to_string(e.positional));
    for (const auto& k : e.keywords) out.append(" ").append(k);
    out.append(" loss");
    for (uint32_t p : e.loss_positional) out.append(" ").append(std::to_string(p));
    for (const auto& k : e.loss_keywords) out.append(" ").append(k);
    for (const auto& [k, truth] : e.keyword_truths) out.append(" ").append(k).append(truth ? "=1" : "=0");
    out.append(" set");
    for (uint32_t p : e.non_none_positional) out.append(" ").append(std::to_string(p));
    for (const auto& k : e.non_none_keywords) out.append(" ").append(k);
    out.append(" classes");
    for (const auto& [k, cls] : e.arg_classes) out.append(" ").append(k).append("=").append(cls);
    out.append(" handed");
    for (const auto& [k, fn] : e.arg_functions) out.append(" ").append(k).append("=").append(fn);
    out.append(" batch");
    for (uint32_t p : e.batch_positional) out.append(" ").append(std::to_string(p));
    for (const auto& k : e.batch_keywords) out.append(" ").append(k);
  }
  // The example script whose CUDA use a library's base class takes (library_cuda_user), up to three
  // modules away, beyond the importers above. Only a file that may hold a step loop asks (the model
  // asks only then): library code without one pays nothing on a warm cache.
  if (text.find("backward(") != std::string_view::npos || text.find(".step(") != std::string_view::npos) {
    std::lock_guard<std::recursive_mutex> lock(mu_);
    if (const ModuleSummary* cuda = library_cuda_user(self))
      out.append("\ncuda-importer ").append(cuda->path).append(" ").append(std::to_string(cuda->cuda_line));
  }
  out.append("\nassigns ").append(project_assigns(file, "cudnn.benchmark"));
  // A DataLoader built in a function counts as the step's only while some file names the function
  // (mentioned_elsewhere, any file of the root): a file that builds one depends on the whole root.
  std::lock_guard<std::recursive_mutex> lock(mu_);
  const std::string root = root_for(self);
  if (store_) load_facts(root);
  // So does a file with a debug setting that may sit in a helper other files call under an `if`
  // (called_only_conditionally_elsewhere reads the importers, in any directory of the root).
  const bool reads_importers = text.find("DataLoader") != std::string_view::npos ||
                               text.find("deterministic") != std::string_view::npos ||
                               text.find("anomaly") != std::string_view::npos ||
                               text.find("LAUNCH_BLOCKING") != std::string_view::npos ||
                               text.find("profile") != std::string_view::npos;
  if (auto f = facts_.find(root); f != facts_.end() && !f->second.state.empty() && reads_importers)
    out.append("\nroot ").append(f->second.state);
  return out;
}

const ModuleSummary* FileProjectContext::target_summary(const std::string& from_file, const std::string& target,
                                                        std::string* name) {
  std::error_code ec;
  const fs::path self = fs::absolute(fs::path(from_file), ec).lexically_normal();
  const auto r = resolve_target(root_for(self), self.string(), target);
  if (!r || r->first == self.string()) return nullptr;
  *name = r->second;
  return summary_of(r->first);
}

const std::vector<std::string>& FileProjectContext::importers_of(const ImportGraph& g, const std::string& file) {
  if (!g.importers) {
    auto& by = g.importers.emplace();
    for (const auto& [f, imported] : g.imports)
      for (const std::string& m : imported) by[m].push_back(f);
  }
  static const std::vector<std::string> none;
  const auto it = g.importers->find(file);
  return it == g.importers->end() ? none : it->second;
}

const FunctionSummary* FileProjectContext::parsed_function(const std::string& root, const std::string& file,
                                                           const std::string& target, std::string* module,
                                                           std::string_view needle) {
  const auto r = resolve_target(root, file, target);
  if (!r || r->first == file || text_of(r->first).find(needle) == std::string::npos) return nullptr;
  for (const FunctionSummary& f : parsed_summary_of(r->first)->functions)
    if (f.qualified == r->second) {
      if (module) *module = r->first;
      return &f;
    }
  return nullptr;
}

const FileProjectContext::ClassFacts& FileProjectContext::class_facts(const std::string& path) {
  auto it = class_facts_.find(path);
  if (it != class_facts_.end()) return it->second;
  ClassFacts facts;
  const std::string& text = text_of(path);
  facts.classes = project_text::classes_in(text);
  for (const std::string& stmt : project_text::import_lines(text))
    for (std::string& w : project_text::import_words(stmt)) facts.imported_names.insert(std::move(w));
  return class_facts_.emplace(path, std::move(facts)).first->second;
}

std::vector<std::pair<std::string, std::string>> FileProjectContext::method_overrides(const std::string& file,
                                                                                      std::string_view cls,
                                                                                      std::string_view method,
                                                                                      bool* base_unreached) {
  *base_unreached = false;
  std::error_code ec;
  const std::string self = fs::absolute(fs::path(file), ec).lexically_normal().string();
  std::lock_guard<std::recursive_mutex> lock(mu_);
  std::string key = self;
  key.append(1, '\0').append(cls).append(1, '\0').append(method);
  if (auto known = overrides_.find(key); known != overrides_.end()) {
    *base_unreached = known->second.base_unreached;
    return known->second.methods;
  }
  Overrides& o = overrides_[key];
  const ImportGraph& g = graph_for(root_for(fs::path(self)));
  if (!g.usable) return {};
  // The file itself, then the files that import it (bounded: a base class of a large library has
  // too many importers to read, and is not a training script's trainer).
  std::vector<std::string> files{self};
  const std::vector<std::string>& importers = importers_of(g, self);
  if (importers.size() > 64) return {};
  files.insert(files.end(), importers.begin(), importers.end());
  size_t subclasses = 0, overriding = 0;
  bool named = false;
  for (const std::string& f : files) {
    const std::string& text = text_of(f);
    if (text.find(cls) == std::string::npos) continue;
    const ClassFacts& facts = class_facts(f);
    // Another file's `class S(Trainer)` is a subclass of this Trainer when it imports the name.
    const bool imports_it = f == self || facts.imported_names.count(std::string(cls)) ||
                            text.find("." + std::string(cls)) != std::string::npos;
    if (imports_it)
      for (const project_text::ClassText& sub : facts.classes) {
        if (sub.name == cls || !project_text::names_base(sub.bases, cls)) continue;
        ++subclasses;
        if (std::find(sub.methods.begin(), sub.methods.end(), method) == sub.methods.end()) continue;
        ++overriding;
        o.methods.emplace_back(f == self ? std::string() : f, sub.name + "." + std::string(method));
      }
    named = named || project_text::names_as_value(text, cls);
  }
  o.base_unreached = subclasses > 0 && overriding == subclasses && !named;
  // Several overrides: the run builds the subclasses that some file instantiates outside every branch
  // its defaults switch off (decision-transformer's `if model_type == 'dt': SequenceTrainer(...)` with
  // `--model_type dt`). A subclass named otherwise (`A if flag else B`, a registry) may be built: kept.
  if (o.methods.size() > 1) {
    std::vector<std::pair<std::string, std::string>> built;
    for (const auto& m : o.methods) {
      const std::string sub = m.second.substr(0, m.second.find('.'));
      const std::string home = m.first.empty() ? self : m.first;
      std::vector<std::string> where = importers_of(g, home);
      // Through a package's __init__.py that re-exports it (`from sacd.agent import SacdAgent`).
      for (size_t k = 0, n = where.size(); k < n; ++k)
        if (where[k].ends_with("/__init__.py"))
          for (const std::string& more : importers_of(g, where[k]))
            if (std::find(where.begin(), where.end(), more) == where.end()) where.push_back(more);
      if (where.size() > 64) return o.methods;
      where.push_back(home);
      bool maybe = false, instantiated = false;
      for (const std::string& f : where) {
        const std::string& text = text_of(f);
        if (!project_text::names_as_value(text, sub)) continue;
        const ModuleSummary* summary = importer_summary(f);
        const auto has = [&](const std::vector<std::string>& v) { return std::find(v.begin(), v.end(), sub) != v.end(); };
        if (!summary || !(has(summary->plain_calls) || has(summary->conditional_calls))) {
          maybe = true;  // named, but not (only) called: not known
          break;
        }
        instantiated = true;
        maybe = maybe || has(summary->default_calls);
      }
      if (maybe || !instantiated) built.push_back(m);
    }
    if (built.size() == 1) o.methods = std::move(built);
  }
  *base_unreached = o.base_unreached;
  return o.methods;
}

}  // namespace perflint
