// What one file needs to know about its sibling modules (files in the same directory), so that a
// training step split across files is still found: `from engine import train_one_epoch` in main.py,
// with the loop over the loader inside engine.py. A summary is what the model of a sibling says
// (one level: a sibling's own siblings are not followed); summarize_module is pure.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace perflint {

// An argparse option of a module, with its default when statically known (for `args.x` in a file
// whose args come from that module: `args = get_args()`, `from config import args`).
struct OptionDefault {
  std::string dest, flag;
  enum class Kind { Unknown, None, Bool, Int, Float, String } kind = Kind::Unknown;
  bool b = false;
  long long i = 0;
  double f = 0.0;
  std::string s;
  uint32_t line = 0;
};

struct FunctionSummary {
  std::string name;
  std::string qualified;             // "Class.method" for a method, else the name
  std::vector<std::string> params;   // positional order, self included
  bool has_step_loop = false;        // a training-step loop inside it
  bool step_fn = false;              // does a training step itself: backward / optimizer step outside any loop
  std::vector<int> iterated_params;  // parameters a step loop iterates (`for x in loader`)
  // Constructor parameters a dict is passed in, whose value at the key a step loop iterates
  // (`self.tr_loader = data['tr_loader']`): (parameter, key).
  std::vector<std::pair<int, std::string>> iterated_param_keys;
  // A constructor's parameters (of iterated_params and iterated_param_keys) stored where the step
  // loop that iterates them starts again per epoch (it sits in another loop, or its method is called
  // from one): a loader handed there is re-iterated.
  std::vector<int> repeated_params;
  // A constructor of a class that only wraps DataLoader (Model::Impl::forwards_to_dataloader).
  bool forwards_to_dataloader = false;
  std::vector<int> copied_params;    // parameters it copies to the GPU (`x = x.cuda()`, `x.to(device)`)
  // The class each return builds an instance of, where every return agrees: index -1 for a plain
  // return value, i for element i of a tuple return (`return model, optimizer` in FastSpeech2's
  // get_model). The class as this module names it: ".Net" for a class of the module, else the dotted
  // name its imports give ("model.FastSpeech2").
  std::vector<std::pair<int, std::string>> returned_classes;
  // It waits for the GPU: `.item()`, `.cpu()`, `.numpy()`, `.tolist()`, a synchronize, in its body or
  // in a function of its module it calls (two levels).
  bool syncs = false;
  // The calls of its body that leave the module for the project (dotted names as its imports give
  // them, `utils.post_processing`): where ProjectContext::function_syncs looks next.
  std::vector<std::string> calls_out;
  // It returns a CUDA device (`return torch.device("cuda" if torch.cuda.is_available() else "cpu")`,
  // or a name bound so): a script that calls it picks CUDA (pytorchic-bert's utils.get_device()).
  bool returns_cuda_device = false;
  // Every return gives the result of a torch operation (`return torch.mean(loss)`, a same-module
  // helper's such result; no factory): a tensor where its inputs are (Model::returns_tensor).
  bool returns_tensor = false;
  // Return indices (-1 for a plain return value, i for element i of a tuple) at which every return
  // gives a value computed on the host (Model::host_derived): `return loss_val, acc_val` computed
  // from `.to("cpu")` copies. Only for functions that copy something to the host.
  std::vector<int> returned_host;
  // Its body does nothing: `pass`, `...`, a docstring, `raise NotImplementedError` (an abstract
  // method that every subclass overrides).
  bool trivial = false;
  // It calls a method of its own name on another object (`getattr(self, 'context1').train_a_batch(x,
  // y)`): it hands the work to the instance that does it.
  bool delegates = false;
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
  // The loop iterates what a method of that result returns (`dl = CreateDataLoader(opt)`, then
  // `for b in dl.load_data():`): the method's name; empty when it iterates the result itself.
  std::string via;
};

// A call that runs every training step and leaves the module: `loss_fn(pred, y)` where loss_fn was
// built from an imported class, `misc.reduce_dict(d)`, `maximum_path(...)`. The target is the
// dotted name the caller's imports give it, with the method last for instances of an imported class
// (`utils.loss.ComputeLossOTA.__call__`, `utils.misc.MetricLogger.update`); relative imports lose
// their dots (`from .loss import X` -> "loss.X"), so a target is resolved from the caller's directory
// upward as well as from the project root.
struct StepCall {
  std::string target;
  // Set when the call runs a method of another file that no import names: the override of
  // `self.method()` in a subclass (ProjectContext::method_overrides); `target` is then "Sub.method".
  std::string file;
  uint32_t line = 0;      // of the call, in the caller
  std::string path;       // how the caller's step reaches the call: "train.py:210 -> engine.py:88"
  bool cuda = false;      // the step that runs it uses CUDA (the caller's file, or where its step comes from)
  // What the call passes: keyword names and the number of positional arguments (opaque: *args or
  // an unknown **kwargs), so that the callee can tell a parameter left at its default.
  std::vector<std::string> keywords;
  uint32_t positional = 0;
  bool opaque_args = false;
  bool host_args = false;  // every argument is a host scalar (`loss.item()`, a literal, an lr)
  // The arguments that are the step's loss, the tensor the caller calls backward on
  // (`misc.check_nan_losses(loss)` before `loss.backward()`): by position and by keyword.
  std::vector<uint32_t> loss_positional;
  std::vector<std::string> loss_keywords;
  // Keywords passed a value of known truth (`gen=False`, `train=True`, an argparse default).
  std::vector<std::pair<std::string, bool>> keyword_truths;
  // Arguments certainly not None (a tensor the step computed, a literal): by position and keyword.
  std::vector<uint32_t> non_none_positional;
  std::vector<std::string> non_none_keywords;
  // Arguments that are instances of a project class (`policy.train(replay_buffer, 256)` with
  // `replay_buffer = utils.ReplayBuffer(...)`): "#0" for the first positional, else the keyword, with
  // the class's qualified name as the caller spells it ("utils.ReplayBuffer").
  std::vector<std::pair<std::string, std::string>> arg_classes;
  // Arguments that are functions of the project handed over uncalled (`train(model, loss_fn)` with
  // `loss_fn = smoothed_loss`, imported): "#0" or the keyword, with each function the argument may be
  // (every binding of the name the defaults leave on), as the caller spells it ("losses.smoothed_loss").
  std::vector<std::pair<std::string, std::string>> arg_functions;
  // The arguments that are the step loop's batch (`batch = to_device(batch, device)`), by position
  // and by keyword: in the callee, the parameter is the batch, its copies to the GPU are PFL103's.
  std::vector<uint32_t> batch_positional;
  std::vector<std::string> batch_keywords;
};

// A function of a module that another module's training step runs (ProjectContext::step_entries).
struct StepEntry {
  std::string function;   // "maximum_path", "ComputeLossOTA.__call__", "SynthesizerTrn.forward"
  std::string path;       // "train.py:210 -> models.py:88": the calls that lead here
  bool cuda = false;
  // What the calls that run it pass (merged over them): see StepCall.
  std::vector<std::string> keywords;
  uint32_t positional = 0;
  bool opaque_args = false;
  bool host_args = false;  // every call passes only host scalars: an isinstance(x, Tensor) branch never runs
  // A file on the way sets a CUDA default device or tensor type (`torch.set_default_tensor_type(
  // 'torch.cuda.FloatTensor')` in the entry script): torch factories here may build on the GPU.
  bool default_device = false;
  // Where every call passes the step's loss (see StepCall): a device tensor in a CUDA step.
  std::vector<uint32_t> loss_positional;
  std::vector<std::string> loss_keywords;
  // Keywords every call passes with the same known truth (see StepCall).
  std::vector<std::pair<std::string, bool>> keyword_truths;
  // Where every call passes a value that is certainly not None (see StepCall).
  std::vector<uint32_t> non_none_positional;
  std::vector<std::string> non_none_keywords;
  // Parameters every call binds to an instance of the same project class (see StepCall), the class
  // named from the project root ("utils.ReplayBuffer", "pkg.buffers.Replay"): a method called on
  // the parameter runs there.
  std::vector<std::pair<std::string, std::string>> arg_classes;
  // Parameters some call binds to a function of the project (see StepCall), named from the project
  // root ("losses.smoothed_loss"): calling the parameter in the step runs it. Merged over the calls
  // (any of them may be the run's).
  std::vector<std::pair<std::string, std::string>> arg_functions;
  // Where every call passes the step loop's batch (see StepCall).
  std::vector<uint32_t> batch_positional;
  std::vector<std::string> batch_keywords;
};

struct ModuleSummary {
  std::string path;
  std::string module;                 // file stem: "engine"
  bool uses_cuda = false;
  uint32_t cuda_line = 0;             // first CUDA evidence
  bool cuda_setting = false;          // that evidence is a device setting (Model::cuda_evidence_is_setting)
  // Its text names 16-bit compute (autocast, GradScaler, half/float16/bfloat16): a step that runs
  // here may not be fp32 (precision rules of the importing script stay quiet).
  bool mentions_reduced_precision = false;
  std::vector<std::string> imports;   // top-level module names it imports ("engine", "torch", ...)
  std::vector<FunctionSummary> functions;
  std::vector<SteppedResult> stepped_results;
  std::vector<StepCall> step_calls;   // calls out of the module that run every step
  // Calls of functions named for a device (`utils.get_device()`, `setup_gpu(args)`), as the module's
  // imports name them, with their lines: one that returns a CUDA device is the module's CUDA
  // evidence (FileProjectContext::summary_of resolves them; a summary alone cannot).
  std::vector<std::pair<std::string, uint32_t>> device_calls;
  std::vector<OptionDefault> options;        // its argparse options
  // Module-level config-tree defaults (`_C = CN()`, `_C.WORKERS = 4`): dest "_C.WORKERS".
  std::vector<OptionDefault> config_tree;
  // Module constants and namespace-class attributes (`WORKERS = 0`, `class CFG: workers = 0`): dest
  // "WORKERS" or "CFG.workers" (Model::module_constant_defaults).
  std::vector<OptionDefault> constants;
  std::vector<std::string> args_functions;   // functions that return parse_args()'s result
  std::vector<std::string> args_variables;   // module-level names assigned parse_args()'s result
  std::vector<std::string> parsed_names;     // names assigned parse_args()'s result anywhere (a main())
  std::vector<std::string> parser_functions; // functions that return the ArgumentParser they build
  // Only with `with_calls` (summarize_module): the names (last component) of the functions it calls
  // outside any `if` condition, and under one (`if args.seed != -1: provide_determinism(args.seed)`).
  std::vector<std::string> plain_calls, conditional_calls;
  // Of those, the ones called at least once outside every branch its argparse defaults switch off
  // (`if args.gail: discr = gail.Discriminator(...)` is not).
  std::vector<std::string> default_calls;
  const FunctionSummary* function(std::string_view name) const;
  // One of `names` is a top-level function or class of the module (`DeepFM` for "DeepFM.fit").
  bool defines_any(const std::vector<std::string>& names) const;
};

// What the model asks about sibling modules. The file-system implementation lives at the I/O edge
// (cli/project_files.hpp); the model only sees this interface.
// A test file: `test_*.py`, `*_test.py`, conftest.py, or a file directly in a `test`/`tests`/`testing`
// directory (not any ancestor: a project may live under a directory named so). A test exercises
// features on purpose (a few training steps, checkpointing switched on): it is not a training
// script, and the model finds no training step in it.
bool is_test_path(std::string_view path);

class ProjectContext {
 public:
  virtual ~ProjectContext() = default;
  // The summary of module `module` next to `from_file` (same directory), or nullptr.
  virtual const ModuleSummary* sibling(const std::string& from_file, std::string_view module) = 0;
  // A sibling in the same directory that imports `file`'s module and uses CUDA, or nullptr.
  virtual const ModuleSummary* cuda_importer(const std::string& file) = 0;
  // A script without CUDA use of its own that imports `file`'s module, calls its functions in a
  // default launch, and takes its device from a module it imports (cuda_imported of the script):
  // that module, or nullptr. Asked only when cuda_importer, cuda_imported and step_method_cuda
  // find nothing.
  virtual const ModuleSummary* cuda_importer_by_import(const std::string& file) {
    (void)file;
    return nullptr;
  }
  // A module of the project that `file` imports and that uses CUDA (a `dist_util.dev()` that returns
  // the CUDA device), or nullptr.
  virtual const ModuleSummary* cuda_imported(const std::string& file) {
    (void)file;
    return nullptr;
  }
  // A sibling whose training loop iterates what `function` (in `file`) returns at `index`; its
  // matching entry goes to `*which`. nullptr when none. With `vias`, the loop may also iterate what
  // one of those methods of the result returns (SteppedResult::via; "" for the result itself).
  virtual const ModuleSummary* step_importer(const std::string& file, std::string_view function, int index,
                                             const SteppedResult** which,
                                             const std::vector<std::string>* vias = nullptr) = 0;
  // Functions of the project files that import `file` which return a new instance of `file`'s class
  // `cls` (FunctionSummary::returned_classes): (path, function name). pix2pixHD's
  // `def CreateDataLoader(opt): data_loader = CustomDatasetDataLoader(); ...; return data_loader`.
  virtual std::vector<std::pair<std::string, std::string>> instance_factories(const std::string& file,
                                                                              std::string_view cls) {
    (void)file;
    (void)cls;
    return {};
  }
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
  // The functions of `file` that a training step in another file of the project runs every step
  // (through calls, modules' forward() and `__call__`, across any number of files up to a bound),
  // each with the path of calls that reaches it. Empty when none, or when not known.
  virtual std::vector<StepEntry> step_entries(const std::string& file) {
    (void)file;
    return {};
  }
  // Whether `target` (a step call's dotted name from `from_file`, see StepCall) is a function or
  // method of the project that does a whole training step itself: `loss_scaler(loss, optimizer)`
  // where the scaler's __call__ runs backward and the optimizer step. A loop calling it is a step loop.
  // The module that holds it, or nullptr.
  virtual const ModuleSummary* step_function(const std::string& from_file, const std::string& target) {
    (void)from_file;
    (void)target;
    return nullptr;
  }
  // Whether `target` (as step_function names it) is a function or method of another file of the
  // project that holds a training-step loop (`agent.update(batch)` where PPO.update loops over
  // epochs and minibatches): a loop that calls it runs the update (rollout loops).
  virtual bool holds_step_loop(const std::string& from_file, const std::string& target) {
    (void)from_file;
    (void)target;
    return false;
  }
  // The summary of the function or method `target` names from `from_file` (a dotted name as its
  // imports give it: "trainer.BERTTrainer.__init__"), in another file of the project, after the
  // package re-exports; the module that holds it goes to `*module`. nullptr when not known.
  // Where the project module that defines class `target` (a dotted name as `from_file`'s imports
  // give it: "model.UNet") builds a convolution: "model.py:12" (the first one), else empty.
  // The class of the project whose instance class `cls` (a dotted name as `from_file`'s imports give
  // it: "DQN.DQN_agent") keeps in `self.<attribute>`, when its module builds it there from one class
  // of the same module (`self.replay_buffer = ReplayBuffer(...)`): "DQN.ReplayBuffer"; else empty.
  virtual std::string attribute_class(const std::string& from_file, const std::string& cls, std::string_view attribute) {
    (void)from_file;
    (void)cls;
    (void)attribute;
    return {};
  }
  virtual std::string conv_evidence(const std::string& from_file, const std::string& target) {
    (void)from_file;
    (void)target;
    return {};
  }
  // Whether sibling module `module` of `from_file` defines a top-level function `name` (text level:
  // a line `def name(`), for the names a star import brings in.
  // Whether every call of `function` (a function of `file`) in the project files that import `file`
  // sits under an `if` (`if args.seed != -1: provide_determinism(args.seed)` in train.py): true only
  // when there is at least one such call and none outside a condition.
  virtual bool called_only_conditionally_elsewhere(const std::string& file, std::string_view function) {
    (void)file;
    (void)function;
    return false;
  }
  virtual bool module_defines(const std::string& from_file, std::string_view module, std::string_view name) {
    (void)from_file;
    (void)module;
    (void)name;
    return false;
  }
  // Whether the project class `cls` (a dotted name as `from_file`'s imports give it) defines method
  // `method` in its own body. nullopt when the class is not found.
  virtual std::optional<bool> class_defines_method(const std::string& from_file, const std::string& cls,
                                                   std::string_view method) {
    (void)from_file;
    (void)cls;
    (void)method;
    return std::nullopt;
  }
  // Whether the project class `cls` (a dotted name as `from_file`'s imports give it) only wraps
  // DataLoader (FunctionSummary::forwards_to_dataloader of its __init__). Its module is parsed for
  // this when its text names DataLoader, even without a training step.
  virtual bool loader_subclass(const std::string& from_file, const std::string& cls) {
    (void)from_file;
    (void)cls;
    return false;
  }
  virtual const FunctionSummary* project_function(const std::string& from_file, const std::string& target,
                                                  const ModuleSummary** module) {
    (void)from_file;
    (void)target;
    (void)module;
    return nullptr;
  }
  // FunctionSummary::returned_classes of project function `function` (a dotted name as `from_file`'s
  // imports give it) at `index`: the class its returns build, as its module names it; empty when
  // not known. Its module is parsed for this even when it has no training step.
  // The project function `function` (as `from_file`'s imports name it) returns, at `index`, a
  // value computed on the host at every return (FunctionSummary::returned_host).
  // The project function `function` (as `from_file`'s imports name it) returns a torch operation's
  // result at every return (FunctionSummary::returns_tensor).
  virtual bool returns_tensor(const std::string& from_file, const std::string& function) {
    (void)from_file;
    (void)function;
    return false;
  }
  virtual bool returned_host(const std::string& from_file, const std::string& function, int index) {
    (void)from_file;
    (void)function;
    (void)index;
    return false;
  }
  virtual std::string returned_class(const std::string& from_file, const std::string& function, int index) {
    (void)from_file;
    (void)function;
    (void)index;
    return {};
  }
  // Project function `target` (a dotted name as `from_file`'s imports give it) waits for the GPU, in
  // its body or in the project functions it calls, a few modules deep (FunctionSummary::syncs).
  virtual bool function_syncs(const std::string& from_file, const std::string& target) {
    (void)from_file;
    (void)target;
    return false;
  }
  // The default of argparse option `dest` of the module behind `source` (a dotted name as the
  // importing file's imports give it: "config.get_args" for `args = get_args()`, "config.args" for
  // `from config import args`), when that module parses its options there; its path goes to
  // `*module_path`. nullopt when not known. With `parser`, `source` names a function that returns the
  // ArgumentParser it builds (`parser = utils.prepare_parser()`, parsed by the caller).
  virtual std::optional<OptionDefault> option_default(const std::string& from_file, const std::string& source,
                                                      std::string_view dest, std::string* module_path,
                                                      bool parser = false) {
    (void)from_file;
    (void)source;
    (void)dest;
    (void)module_path;
    (void)parser;
    return std::nullopt;
  }
  // `def make_loaders(args)` in `file`, called by the scripts that import it with the options they
  // parse into a name `param` (`args = parser.parse_args()`, `data.make_loaders(args)`): the default
  // of `dest` in those scripts' parsers, when every such script declares it alike; its script's
  // path goes to `*module_path`. nullopt when not known.
  virtual std::optional<OptionDefault> caller_option_default(const std::string& file, std::string_view function,
                                                             std::string_view param, std::string_view dest,
                                                             std::string* module_path) {
    (void)file;
    (void)function;
    (void)param;
    (void)dest;
    (void)module_path;
    return std::nullopt;
  }
  // The one default the project's argparse declarations give option `dest` (every `add_argument`
  // of it in the project's files agrees, and no file assigns `.dest = ...`): for `self.args.dest`
  // and `opt.dest` where the options reach the object through constructors and parameters that the
  // model does not follow (DrQA's `self.args.question_merge`, declared in reader/config.py). Its
  // module's path goes to `*module_path`. nullopt when not known.
  virtual std::optional<OptionDefault> declared_option_default(const std::string& file, std::string_view dest,
                                                               std::string* module_path) {
    (void)file;
    (void)dest;
    (void)module_path;
    return std::nullopt;
  }
  // A constant of another project module: `qualified` is what an imported name stands for followed by
  // the attributes read ("settings.NUM_WORKERS", "config.CFG.num_workers"). Its module-level value
  // (ModuleSummary::constants) when no project file may change it; the module's path goes to
  // `*module_path`. nullopt when not known.
  virtual std::optional<OptionDefault> module_constant(const std::string& from_file, const std::string& qualified,
                                                       std::string* module_path) {
    (void)from_file;
    (void)qualified;
    (void)module_path;
    return std::nullopt;
  }
  // A yacs-style config tree of another module (`from config import config`, `config.WORKERS`):
  // the module-level default of `path` ("WORKERS", "TRAIN.SHUFFLE") in the tree `source` names,
  // after re-exports; its module's path goes to `*module_path`. nullopt when not known.
  virtual std::optional<OptionDefault> config_tree_default(const std::string& from_file, const std::string& source,
                                                           std::string_view path, std::string* module_path) {
    (void)from_file;
    (void)source;
    (void)path;
    (void)module_path;
    return std::nullopt;
  }
  // Whether `word` (a function's name) occurs as a whole word in another Python file of `file`'s
  // project. True when not known (no project, too many files): callers use it to drop an
  // assumption only when nothing else in the project can refer to the name.
  virtual bool mentioned_elsewhere(const std::string& file, std::string_view word) {
    (void)file;
    (void)word;
    return true;
  }
  // Whether no project file can name `file`'s top-level function `name`: other project files import
  // `file`, and every import of it there lists the names it takes (`from layers.utils import
  // get_filter`), neither `name` nor `*`, nor the module itself. A training loop in such a function
  // that `file` never calls either is dead code (LTSF-Linear's layers/utils.py `train()`). False
  // when not known, when nothing imports `file` (a script, or a library for code outside the
  // project), or for a package's __init__.py.
  // What the calls of `file`'s module-level function `function` in the project files that import it
  // pass for `param` (positional `index`), one entry per call (see call_arguments): `def
  // get_loaders(batch_size=128, num_workers=8)`, called as `get_loaders(num_workers=opt.num_workers)`
  // with that option's default. nullopt when not known or when no call is found.
  virtual std::optional<std::vector<std::optional<OptionDefault>>> argument_values(const std::string& file,
                                                                                   std::string_view function,
                                                                                   std::string_view param, int index) {
    (void)file;
    (void)function;
    (void)param;
    (void)index;
    return std::nullopt;
  }
  // The functions of the project that the calls of `file`'s module-level function `function` in the
  // files that import it hand over for `param` (positional `index`), uncalled (CallArguments::handed):
  // `train_and_evaluate(model, loader, optimizer, loss_fn)` with `loss_fn = smoothed_loss` in main.py.
  // Named from the project root ("losses.smoothed_loss"). Empty when none or not known.
  virtual std::vector<std::string> handed_functions(const std::string& file, std::string_view function,
                                                    std::string_view param, int index) {
    (void)file;
    (void)function;
    (void)param;
    (void)index;
    return {};
  }
  // The project class every call of `file`'s module-level class or function `function` in the files that
  // import it binds `param` (positional `index`) to an instance of (CallArguments::classes): `Trainer(model,
  // loss, ...)` with `model = AGCRN(args)` in Run.py. Named from the project root ("model.AGCRN"). Empty
  // when a call passes something else, leaves it out or is not known, or no importer calls it.
  virtual std::string handed_class(const std::string& file, std::string_view function, std::string_view param,
                                   int index) {
    (void)file;
    (void)function;
    (void)param;
    (void)index;
    return {};
  }
  virtual bool importers_cannot_name(const std::string& file, std::string_view name) {
    (void)file;
    (void)name;
    return false;
  }
  // Whether a file that imports `file`, or a project module such a file imports, names `word` (a
  // whole word): where the values handed to `file`'s functions likely come from. False when not known.
  virtual bool importer_side_mentions(const std::string& file, std::string_view word) {
    (void)file;
    (void)word;
    return false;
  }
  // Whether such a file assigns `attribute` to something other than False (`matmul.allow_tf32 =
  // True` in the entry script that imports `file`). False when not known.
  virtual bool importer_side_assigns(const std::string& file, std::string_view attribute) {
    (void)file;
    (void)attribute;
    return false;
  }
  // Whether the project modules `file` imports (two levels down), the files that import it, or the
  // modules those import, name `word` (a whole word): the code a run of `file` can reach. True when
  // not known.
  virtual bool run_mentions(const std::string& file, std::string_view word) {
    (void)file;
    (void)word;
    return true;
  }
  // The names a star import of project module `module` (as `from_file` spells it: "modeling.deeplab")
  // brings in through that module's own imports (`import torch`, `import torch.nn as nn`): (local
  // name, qualified name). Empty when not known, or when the module lists `__all__`.
  virtual std::vector<std::pair<std::string, std::string>> star_aliases(const std::string& from_file,
                                                                         const std::string& module) {
    (void)from_file;
    (void)module;
    return {};
  }
  // The methods `method` of the project's subclasses of `file`'s class `cls` (direct subclasses, in
  // `file` and in the project files that import it and import `cls`): (path, "Sub.method"), the path
  // empty for `file` itself.
  // `*base_unreached` says that there is at least one subclass, that every one overrides `method`,
  // and that `cls` is named nowhere there as a value (no instance of it is built, no registry holds
  // it): `self.method()` in `cls` then never runs `cls.method`. Empty and false when not known.
  virtual std::vector<std::pair<std::string, std::string>> method_overrides(const std::string& file,
                                                                            std::string_view cls,
                                                                            std::string_view method,
                                                                            bool* base_unreached) {
    (void)file;
    (void)cls;
    (void)method;
    *base_unreached = false;
    return {};
  }
  // The project's methods named `method` when each one that does something is a step method (does
  // the backward and the optimizer step itself): the summary of each such step method's module and
  // its "Class.method"; empty when any other does something else, or there is none. For
  // `model.train_a_batch(x, y)` and `model.optimize_parameters()` in a loop, on a receiver the file
  // cannot type (a parameter, a model built by a factory that picks its class by name): a
  // distinctive method name that the project defines only as steps is the step (continual-learning,
  // the pix2pix/CycleGAN family).
  virtual std::vector<std::pair<const ModuleSummary*, std::string>> step_methods_named(const std::string& from_file,
                                                                                      std::string_view method) {
    (void)from_file;
    (void)method;
    return {};
  }
  // The module whose CUDA use a step method that `file` calls by name (step_methods_named) runs on:
  // the method's module, or a project module that one imports (the base class that picks
  // `cuda:{gpu_ids[0]}`); null when none.
  virtual const ModuleSummary* step_method_cuda(const std::string& file) {
    (void)file;
    return nullptr;
  }
  // Called once before a run lints `files` (on any number of threads): the project linker's
  // tables for their roots are computed here, one root after another in a fixed order, so that no
  // file's answer depends on which file a thread happened to lint first (a summary made while the
  // linker is half-way through its root sees half of its table).
  virtual void prepare(const std::vector<std::string>& files) { (void)files; }
  // A fingerprint of everything outside `file` (whose text is `text`) that the answers above read for
  // it (for the result cache: when it changes, a cached result of `file` is stale). Empty: no project.
  virtual std::string fingerprint(const std::string& file, std::string_view text) {
    (void)file;
    (void)text;
    return {};
  }
};

// A method name that says it trains (step, train, learn, update, optimi(ze), fit in it) and that
// library objects do not share (`step`, `update`, `train`, `fit`, `forward`, ...): the names
// ProjectContext::step_methods_named answers for.
bool distinctive_step_method(std::string_view name);

// Builds the summary of one source text (used by ProjectContext; exposed for tests). With a project,
// the module's own step entries count: calls out of a function that another file's step runs are
// step calls too.
ModuleSummary summarize_module(const std::string& path, const std::string& text, ProjectContext* project = nullptr,
                               bool with_calls = false);

// One call of a function and what it passes, each argument's value as far as it is known
// (OptionDefault::Kind::Unknown otherwise).
struct CallArguments {
  uint32_t line = 0;
  bool opaque = false;  // unpacks *args or an unknown **kwargs: what it passes is not known
  std::vector<OptionDefault> positional;
  std::vector<std::pair<std::string, OptionDefault>> keywords;
  // Functions of the project it hands over uncalled (Model::handed_functions): "#0" or the keyword,
  // with the function as the calling file spells it.
  std::vector<std::pair<std::string, std::string>> handed;
  // Instances of a project class it passes (Model::argument_class): "#0" or the keyword, with the class
  // as the calling file spells it.
  std::vector<std::pair<std::string, std::string>> classes;
  // What it passes for parameter `param` at positional `index` (-1: keyword only): nullopt where it
  // leaves it out (the default), Kind::Unknown where that is not known.
  std::optional<OptionDefault> passes(std::string_view param, int index) const;
};

// A file parsed and modelled for the questions other files ask of its calls (project.cpp): kept by
// the project context for a few files at a time, so that the calls of several functions in one
// importer cost one parse and one model. Null when the text is not a source file.
class ModelledModule;
std::shared_ptr<const ModelledModule> model_module(const std::string& path, const std::string& text,
                                                   ProjectContext* project);

// The calls of a function named `function` (by the last component of the name they call) in a
// modelled module, for all the parameters asked about.
std::vector<CallArguments> call_arguments(const ModelledModule& module, std::string_view function);

}  // namespace perflint
