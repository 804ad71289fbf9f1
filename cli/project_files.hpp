// ProjectContext over the file system: sibling files of the same directory are read (bounded in
// size and count), filtered by their text before any parse, summarised on demand and cached for
// the whole run. Thread-safe: files are linted in parallel.
#pragma once
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "cli/project_text.hpp"
#include "parser/project.hpp"

namespace perflint {

class ResultCache;

class FileProjectContext final : public ProjectContext {
 public:
  // Files larger than this, and directories with more .py files than max_files, are not summarised.
  explicit FileProjectContext(uint64_t max_file_bytes = 1u << 20, size_t max_files = 200)
      : max_file_bytes_(max_file_bytes), max_files_(max_files) {}

  const ModuleSummary* sibling(const std::string& from_file, std::string_view module) override;
  bool module_defines(const std::string& from_file, std::string_view module, std::string_view name) override;
  std::optional<bool> class_defines_method(const std::string& from_file, const std::string& cls,
                                           std::string_view method) override;
  bool called_only_conditionally_elsewhere(const std::string& file, std::string_view function) override;
  const ModuleSummary* cuda_importer(const std::string& file) override;
  const ModuleSummary* cuda_importer_by_import(const std::string& file) override;
  // `importer` calls, in a default launch (not under a branch its defaults switch off), a name that
  // `module` defines. Caller holds mu_.
  bool calls_by_default(const ModuleSummary* module, const std::string& importer);
  // cuda_importer's last resort: a CUDA script that calls a class built on this library module.
  const ModuleSummary* library_cuda_user(const std::filesystem::path& self);
  const ModuleSummary* cuda_imported(const std::string& file) override;
  const ModuleSummary* step_importer(const std::string& file, std::string_view function, int index,
                                     const SteppedResult** which,
                                     const std::vector<std::string>* vias = nullptr) override;
  std::vector<std::pair<std::string, std::string>> instance_factories(const std::string& file,
                                                                      std::string_view cls) override;
  // The project: the nearest directory at or above the file's with .git, pyproject.toml, setup.py or
  // setup.cfg (at most 4 levels up; none: the file's own directory), searched recursively for *.py
  // (hidden directories, venv, node_modules and __pycache__ skipped; at most 2,000 files). Of its
  // files that assign the attribute, only those connected to `file` by an import count: one that
  // imports it (its entry script), or one it imports (directly, or inside a package it imports).
  // An unrelated script of the same repository sets its own flag, not this one's.
  std::string project_assigns(const std::string& file, std::string_view attribute) override;
  // The project linker: the functions of `file` that a training step elsewhere in the project runs.
  // Once per project root (the import graph resolved from every file's import statements, relative
  // ones included, never outside the root): the files with a training step are summarised, their
  // step calls resolved to the functions they reach, and each file reached is summarised in turn with
  // what reaches it, to a fixpoint; a path crosses at most kMaxDepth files, cycles included. Only
  // the table is kept; only files with a step or reached by one are parsed.
  std::vector<StepEntry> step_entries(const std::string& file) override;
  void prepare(const std::vector<std::string>& files) override;
  static constexpr int kMaxDepth = 6;
  // What the project answers for `file`: the path, size and modification time of the .py files of
  // its directory (the siblings the model reads) and of the project files it imports (whose
  // options and step functions it may read), its linker entries, and the cudnn.benchmark look-up. A change elsewhere in the project changes a file's key only when it changes one of
  // those answers.
  std::string fingerprint(const std::string& file, std::string_view text) override;
  bool mentioned_elsewhere(const std::string& file, std::string_view word) override;
  bool importer_side_mentions(const std::string& file, std::string_view word) override;
  bool importer_side_assigns(const std::string& file, std::string_view attribute) override;
  bool run_mentions(const std::string& file, std::string_view word) override;
  bool importers_cannot_name(const std::string& file, std::string_view name) override;
  std::optional<std::vector<std::optional<OptionDefault>>> argument_values(const std::string& file,
                                                                           std::string_view function,
                                                                           std::string_view param, int index) override;
  std::vector<std::string> handed_functions(const std::string& file, std::string_view function, std::string_view param,
                                            int index) override;
  std::string handed_class(const std::string& file, std::string_view function, std::string_view param,
                           int index) override;
  std::vector<std::pair<std::string, std::string>> star_aliases(const std::string& from_file,
                                                                const std::string& module) override;
  std::optional<OptionDefault> config_tree_default(const std::string& from_file, const std::string& source,
                                                   std::string_view path, std::string* module_path) override;
  std::optional<OptionDefault> module_constant(const std::string& from_file, const std::string& qualified,
                                               std::string* module_path) override;
  std::optional<OptionDefault> caller_option_default(const std::string& file, std::string_view function,
                                                     std::string_view param, std::string_view dest,
                                                     std::string* module_path) override;
  std::optional<OptionDefault> declared_option_default(const std::string& file, std::string_view dest,
                                                       std::string* module_path) override;
  std::optional<OptionDefault> option_default(const std::string& from_file, const std::string& source,
                                              std::string_view dest, std::string* module_path,
                                              bool parser = false) override;
  const ModuleSummary* step_function(const std::string& from_file, const std::string& target) override;
  bool holds_step_loop(const std::string& from_file, const std::string& target) override;
  const FunctionSummary* project_function(const std::string& from_file, const std::string& target,
                                          const ModuleSummary** module) override;
  std::string returned_class(const std::string& from_file, const std::string& function, int index) override;
  bool returned_host(const std::string& from_file, const std::string& function, int index) override;
  bool returns_tensor(const std::string& from_file, const std::string& function) override;
  bool loader_subclass(const std::string& from_file, const std::string& cls) override;
  bool function_syncs(const std::string& from_file, const std::string& target) override;
  std::vector<std::pair<const ModuleSummary*, std::string>> step_methods_named(const std::string& from_file,
                                                                              std::string_view method) override;
  const ModuleSummary* step_method_cuda(const std::string& file) override;
  std::vector<std::pair<std::string, std::string>> method_overrides(const std::string& file, std::string_view cls,
                                                                    std::string_view method,
                                                                    bool* base_unreached) override;
  // Text level: the module `target` resolves to defines the class and spells a convolution
  // constructor or functional call (nn.Conv2d(, F.conv2d(, ConvTranspose2d() on a code line.
  std::string conv_evidence(const std::string& from_file, const std::string& target) override;
  std::string attribute_class(const std::string& from_file, const std::string& cls, std::string_view attribute) override;

  // The linker's facts about each project root (its import graph, the step entries of its files,
  // the files that assign an attribute) kept in the result cache between runs, valid while every
  // .py file under the root has the same path, size and modification time (the test ruff's cache
  // makes): a second run over an unchanged project reads and parses nothing for the linker.
  // save_facts() hands what this run computed to the cache (written by its flush).
  void use_cache(ResultCache* cache) { store_ = cache; }
  void save_facts();

 private:
  const ModuleSummary* summary_of(const std::string& path);  // caller holds mu_
  // A summary of `path` parsed even when summary_of's prefilter (no step, no CUDA) skips it: a
  // factory's returns. Caller holds mu_.
  const ModuleSummary* parsed_summary_of(const std::string& path);
  // The files of `self`'s root (an absolute, normal path) other than `self` that import it and whose
  // text names `word`. Caller holds mu_.
  std::vector<std::string> importers_naming(const std::string& self, std::string_view word);
  // Whether a file that imports `file` (by the import graph), or a project module such a file
  // imports, has a text that `holds`.
  bool importer_side_holds(const std::string& file, const std::function<bool(std::string_view)>& holds);
  // The summary of such an importer, made with this project context and with its calls
  // (summarize_module's with_calls); null while it is being made (a cycle). Caller holds mu_.
  const ModuleSummary* importer_summary(const std::string& path);
  std::map<std::string, std::unique_ptr<ModuleSummary>> importer_summaries_;
  // The summary of the file a step call's dotted target resolves to (after re-exports), the name
  // in it to `*name`; null when outside the project or this file. Caller holds mu_.
  const ModuleSummary* target_summary(const std::string& from_file, const std::string& target, std::string* name);
  const std::string& text_of(const std::string& path);       // cached, bounded; caller holds mu_
  // The import statements of text_of(path), scanned once per file: a package's __init__.py is asked
  // about by every call that resolves a name through it. Caller holds mu_.
  const std::vector<project_text::ImportStatement>& imports_of(const std::string& path);
  std::unordered_map<std::string, std::vector<project_text::ImportStatement>> imports_;
  // Sibling files of `file` whose text names `word`; caller holds mu_.
  std::vector<std::string> siblings_naming(const std::string& file, std::string_view word);

  uint64_t max_file_bytes_;
  size_t max_files_;
  // Recursive: summarising a file for the linker builds its model, which asks this context again.
  std::recursive_mutex mu_;
  // The project's import graph, built once per root: who imports whom (resolved to files).
  struct ImportGraph {
    std::string root;
    bool usable = false;                                     // not too many files
    std::map<std::string, std::vector<std::string>> imports;    // file -> project files it imports
    std::set<std::string> has_step_text;  // seeds: files naming .backward( and .step( that import project
                                          // files, and files that import such a file
    // Method names that a file with a training step defines (an indented `def name(`, named for
    // training: step, train, learn, update, optimi, fit) -> every file outside tests that defines a
    // method so named (step_methods_named); the files that call one (`.name(`) are seeds.
    std::map<std::string, std::vector<std::string>> step_method_files;
    // file -> project files that import it: `imports` reversed, built on first use (fingerprint).
    mutable std::optional<std::map<std::string, std::vector<std::string>>> importers;
  };
  const ImportGraph& graph_for(const std::string& root);  // caller holds mu_
  // The files of `g` that import `file`, in path order (ImportGraph::importers).
  static const std::vector<std::string>& importers_of(const ImportGraph& g, const std::string& file);
  // Project function `target` as `file` (of the linker root `root`) names it, from a summary parsed
  // whatever summary_of's prefilter says (but only a module whose text names `needle`); its
  // module's path goes to `*module`. Caller holds mu_.
  const FunctionSummary* parsed_function(const std::string& root, const std::string& file, const std::string& target,
                                         std::string* module = nullptr, std::string_view needle = {});
  std::map<std::string, ImportGraph> graphs_;
  // The project modules `file` imports, `levels` deep (breadth first, each once, `file` itself not
  // included); `*truncated` says whether modules were left below the last level. Caller holds mu_.
  static std::vector<std::string> reached_modules(const ImportGraph& g, const std::string& file, int levels,
                                                   bool* truncated = nullptr);
  // step_methods_named, memoised per root and name; at most this many definitions (and files) count.
  static constexpr size_t kMaxStepMethodFiles = 8;
  std::map<std::string, std::vector<std::pair<const ModuleSummary*, std::string>>> step_methods_;
  std::map<std::string, std::optional<std::vector<std::optional<OptionDefault>>>> argument_values_;  // argument_values
  std::map<std::string, std::vector<CallArguments>> call_arguments_;  // importer + function -> its calls
  // The importers last modelled for call_arguments, most recent first (a few: each holds a tree).
  std::vector<std::pair<std::string, std::shared_ptr<const ModelledModule>>> modelled_;
  std::shared_ptr<const ModelledModule> modelled(const std::string& path);  // caller holds mu_
  std::map<std::string, std::vector<std::string>> handed_functions_;  // handed_functions
  std::map<std::string, std::string> handed_class_;                  // handed_class
  // The calls of `self`'s function `function` in the project files (not tests) that import it from
  // its module, per importer (call_arguments, parsed once). `*reexported` says whether an importer
  // that names the function imports it through another module (not followed). Caller holds mu_.
  std::vector<std::pair<std::string, const std::vector<CallArguments>*>> importer_calls(
      const std::filesystem::path& self, const std::string& root, std::string_view function, bool* reexported = nullptr);
  // `name` (a dotted name as `caller` spells it) resolved and named from `root` ("pkg.mod.Class"),
  // or empty when it is not a definition of a project module. Caller holds mu_.
  std::string root_name(const std::string& root, const std::string& caller, const std::string& name);
  // `from solver import Solver` that no directory from the importer up to the root resolves: the
  // project's one module of that dotted name (`src/solver/solver.py`, on a PYTHONPATH a shell script
  // sets, or a sys.path entry an `_init_paths.py` adds), when exactly one candidate outside tests is
  // a file, or defines one of `names`; empty otherwise. Memoised per (root, dotted, names). Caller
  // holds mu_.
  std::string unique_module_file(const std::string& root, std::string_view dotted, const std::vector<std::string>& names);
  std::map<std::string, std::string> unique_modules_;
  std::map<std::string, std::unordered_map<std::string, std::vector<std::string>>> module_index_;  // root -> last component -> files
  // Resolves a step call's dotted target from the calling file: (file, function), or nullopt.
  std::optional<std::pair<std::string, std::string>> resolve_target(const std::string& root, const std::string& caller,
                                                                    const std::string& target);
  // (file, name) after the re-exports of the name (a package __init__.py's `from .mod import name`).
  std::pair<std::string, std::string> follow_reexports(const std::string& root, std::string file, std::string rest);
  std::unordered_map<std::string, std::pair<std::string, std::string>> reexports_;  // root, file, rest -> answer
  std::map<std::string, bool> exists_;  // path -> is a regular file
  // The linker's root of a file (an absolute, normal path), looked up once per directory: the climb
  // asks the file system at every level.
  const std::string& root_for(const std::filesystem::path& file);  // caller holds mu_
  std::unordered_map<std::string, std::string> roots_;  // directory -> linker root
  std::unordered_map<std::string, bool> has_marker_;   // directory -> holds a project marker (project_root)
  std::unordered_map<std::string, bool> imported_from_above_;  // directory -> a script of its parent imports it
  std::unordered_map<std::string, std::vector<std::string>> py_files_;  // directory -> its .py files (linker_root)
  bool file_exists(const std::string& path);
  // The linker's table for a root: each file's step entries, computed once, to a fixpoint.
  struct Linked {
    bool started = false;
    std::map<std::string, std::vector<StepEntry>> entries;  // file -> entries
  };
  void link_root(const std::string& root);  // caller holds mu_
  std::map<std::string, Linked> linked_roots_;
  static constexpr int kMaxVisits = 8;
  std::map<std::string, std::string> dir_fingerprints_;            // directory -> its .py files' stats
  std::map<std::string, std::unique_ptr<ModuleSummary>> option_summaries_;  // modules asked for options
  std::map<std::string, std::string> conv_evidence_;  // (module file, class) -> "file:line" or empty
  std::map<std::string, std::unique_ptr<ModuleSummary>> cache_;  // path -> summary
  std::map<std::string, std::unique_ptr<ModuleSummary>> parsed_summaries_;  // those summary_of skips
  std::map<std::string, std::vector<std::string>> dir_files_;    // dir -> .py files
  std::map<std::string, bool> sibling_paths_;                    // dir/module.py -> exists
  std::map<std::string, std::string> texts_;                     // path -> text (bounded)
  // A project file that assigns an attribute: its module name and its import statements.
  struct Assigner {
    std::string path, module;
    std::vector<std::string> imports;
  };
  const std::vector<Assigner>& assigners(const std::string& root, std::string_view attribute);  // caller holds mu_
  // The .py files under a root (project_python_files), walked once per run; caller holds mu_.
  const std::vector<std::string>& root_files(const std::string& root);
  std::map<std::string, std::vector<std::string>> root_files_;
  // The summary of project function `function` (as `from_file`'s imports name it), parsed only when its
  // module has a return statement; for the questions about what it returns. Caller holds mu_.
  const FunctionSummary* returning_function(const std::string& from_file, const std::string& function);
  // module_constant's answers, by root, caller's directory and qualified name: value and module.
  std::map<std::string, std::optional<std::pair<OptionDefault, std::string>>> constants_;
  // Facts kept between runs (cli/project_facts.cpp). Per root: the state they were computed from
  // (each file's path, size and modification time), and whether this run computed any.
  ResultCache* store_ = nullptr;
  struct RootFacts {
    std::string state;
    bool dirty = false;
  };
  std::map<std::string, RootFacts> facts_;
  // Once per root: the state now, and, when the cache holds facts of the same state, the graph, the
  // linker's table and the assigners they hold; caller holds mu_.
  void load_facts(const std::string& root);
  void mark_computed(const std::string& root);  // caller holds mu_
  std::map<std::string, std::vector<Assigner>> assigners_;
  // attribute '\0' file -> the file's import lines when it assigns the attribute (assigners).
  std::unordered_map<std::string, std::optional<std::vector<std::string>>> file_assigns_;
  // Per root: the files that declare argparse options, and the attribute names some file assigns
  // (`x.name = ...`), for declared_option_default.
  struct OptionIndex {
    std::vector<std::string> declaring;
    std::map<std::string, std::set<std::string>> assigned;  // attribute set in code -> the files that set it
  };
  std::map<std::string, OptionIndex> option_index_;
  std::map<std::string, std::optional<std::pair<OptionDefault, std::string>>> declared_options_;  // root + '\0' + dest
  struct Overrides {
    std::vector<std::pair<std::string, std::string>> methods;
    bool base_unreached = false;
  };
  std::map<std::string, Overrides> overrides_;
  // Per file: its classes (project_text::classes_in) and the names its imports bring in.
  struct ClassFacts {
    std::vector<project_text::ClassText> classes;
    std::set<std::string> imported_names;
  };
  const ClassFacts& class_facts(const std::string& path);  // caller holds mu_
  std::map<std::string, ClassFacts> class_facts_;  // file + '\0' + class + '\0' + method       // root + '\0' + attribute -> files
};

}  // namespace perflint
