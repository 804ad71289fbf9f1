// The semantic model of one Python file, built in a single iterative walk: import aliases ->
// qualified names, calls with resolved keyword arguments (through literal **dicts), constant values
// (including argparse defaults behind args.x), training-step loops (directly or through same-file
// functions) with interval guards, DataLoader constructions and the loops they feed, CUDA use.
// Rules ask it questions; it never does I/O. See DESIGN.md "What the semantic model must get right".
#pragma once
#include <tree_sitter/api.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "parser/project.hpp"
#include "parser/source.hpp"

namespace perflint {

// Where an argparse option is declared: `parser.add_argument('--workers', default=4)`.
struct ArgOption {
  std::string dest;      // workers
  std::string flag;      // --workers (the first long flag, or the first flag)
  TSNode call{};         // the add_argument call
  TSNode default_value{};  // null when there is no default= (argparse default None)
  uint32_t line = 0;
};

// The value of an expression when it can be known statically.
struct Value {
  enum class Kind { Unknown, None, Bool, Int, Float, String };
  Kind kind = Kind::Unknown;
  bool b = false;
  long long i = 0;
  double f = 0.0;
  std::string s;
  const ArgOption* from_option = nullptr;  // came from an argparse default
  std::string from_config;                 // came from a config object: "TrainConfig.num_workers (a dataclass default)"
  bool from_imported_option = false;       // from_config is an argparse default of another file's parser
  TSNode origin{};                         // the literal the value was read from

  bool known() const { return kind != Kind::Unknown; }
  // Python truthiness, when known.
  std::optional<bool> truthy() const;
  std::optional<long long> as_int() const;
  std::string repr() const;  // Python-like: 0, True, 'cuda', None
};

struct Argument {
  std::string_view name;   // keyword name; empty for positional
  TSNode value{};
  TSNode via_dict{};       // the `**name` argument this came from, when resolved through a dict
  TSNode dict_site{};      // where that dict entry was written
};

struct CallInfo {
  TSNode node{};
  TSNode function{};
  std::string qualname;        // "torch.utils.data.DataLoader" when resolved through imports
  std::string_view method;     // attribute calls: "item", "to", "backward"; else empty
  TSNode receiver{};           // attribute calls: the object
  std::vector<TSNode> positional;
  std::vector<Argument> keywords;  // explicit keywords and those resolved from **dicts
  bool unresolved_kwargs = false;  // a **x whose content is unknown: rules about kwargs stay silent
  bool star_args = false;          // a *x: positional indices are unknown

  const Argument* keyword(std::string_view name) const;
  // The argument bound to parameter `name` at positional index `index` (or as keyword).
  TSNode arg(std::string_view name, int index = -1) const;
};

struct Guard {
  TSNode condition{};  // the `if` condition that makes the code run only every N steps
};

struct StepContext {
  bool in_step = false;      // runs inside a training-step loop (directly or via a called function)
  TSNode loop{};             // the step loop (for a function body: the loop that calls it)
  const Guard* guard = nullptr;  // non-null when under an interval guard: not "every step"
  TSNode via{};              // reached through a call (a helper, a module's forward): that call in the loop
  // Reached from a training step in another file (loop is then null): the calls that lead here,
  // "train.py:210 → models.py:88" (ProjectContext::step_entries).
  std::string reached_from;
  bool per_step() const { return in_step && guard == nullptr; }
};

struct DataLoaderInfo {
  const CallInfo* call = nullptr;
  std::string variable;          // name (or dotted self.x) it is assigned to, when any
  std::vector<TSNode> loops;     // loops iterating it (for/while over it, enumerate/tqdm/iter)
  bool feeds_step = false;       // iterated by a training-step loop
  bool assumed_step = false;     // not linked to any loop; assumed to feed the step loop
  TSNode step_loop{};            // the step loop it feeds (or is assumed to)
  bool repeated = false;         // that loop sits inside another loop (epochs)
  bool discarded = false;        // returned to a caller that binds it to `_`: never used
  // Set when a framework runs the loop over it, so no loop in the file shows the link: the
  // reason, for a note ("Lightning iterates train_dataloader() once per epoch"). step_loop is
  // then the name of the method that returns the loader (`train_dataloader`).
  std::string framework_reason;
  // Other names the loader is bound to: `model, opt, dl = accelerator.prepare(model, opt, loader)`.
  std::vector<std::string> aliases;
  // Prepared by an Accelerator, which moves every batch to its device itself (device_placement is
  // on by default): the script's own `.to(device)` of such a batch copies nothing.
  bool device_placed = false;
  // Reaches the step through a generator of the file that iterates it again and again (`while True:
  // for x in loader: yield x`): the generator's def.
  TSNode reiterated_by{};
};

// A known literal value as an OptionDefault's kind and value (Unknown otherwise).
void set_default(OptionDefault& d, const Value& v);

class Model {
 public:
  // Walks `root` once. `wanted_kinds` are node kinds whose nodes are kept (in document order)
  // for `nodes_of_kind` (the engine's dispatch).
  // `project` (optional) lets the model see sibling modules: a step loop in an imported function,
  // CUDA use in the script that imports this file.
  Model(const SourceFile& source, TSNode root, const std::vector<std::string>& wanted_kinds,
        ProjectContext* project = nullptr);
  ~Model();
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;

  const SourceFile& source() const;
  // The functions of the project `e` may hold (handed over uncalled, or called through a name):
  // see Model::Impl::handed_functions.
  std::vector<std::string> handed_functions(TSNode e) const;
  // The project class `e` is an instance of, as this file spells it ("models.Net"); empty when not known.
  std::string argument_class(TSNode e) const;
  std::string_view text(TSNode n) const;
  const std::vector<TSNode>& nodes_of_kind(std::string_view kind) const;

  // ---- names and values
  // Qualified name of an expression through import aliases: `tud.DataLoader` ->
  // "torch.utils.data.DataLoader"; "" when it is not rooted in an import.
  std::string qualname(TSNode expr) const;
  const CallInfo* call(TSNode call_node) const;
  // What a call of a function of this file returns: the expression of the callee's one return
  // statement, when the call runs exactly one such function (`self.sample_timesteps(n)`); else null.
  TSNode returned_by(const CallInfo& c) const;
  const std::vector<CallInfo>& calls() const;
  Value evaluate(TSNode expr) const;
  // Right-hand sides of every `name = ...` in the file (any scope), in document order; a dotted name
  // (`self.stream`) matches assignments to that attribute spelled the same way.
  std::vector<TSNode> assigned_values(std::string_view name) const;
  // Whether a file that imports this one, or a project module it imports, names `word` (a whole
  // word): where what this file's functions are handed likely comes from. False when not known.
  bool importer_side_mentions(std::string_view word) const;
  // Whether this file, or the project code a run of it reaches (ProjectContext::run_mentions), names
  // `word` (a whole word); true when not known.
  bool run_mentions(std::string_view word) const;
  bool importer_side_assigns(std::string_view attribute) const;  // ProjectContext::importer_side_assigns
  // The function `call` runs (of this file, or of the project) copies its `index`-th positional
  // argument to the GPU (`tensor2var(x)`: `x = x.cuda()`): where, "utils.py:13" or "line 13"; else empty.
  std::string copies_argument(const CallInfo& call, size_t index) const;
  // The right-hand sides of `name = ...` that `use` can see: those of the function around `use` when
  // it assigns the name, else the module's. Indexed: O(assignments of that name in that scope), where
  // assigned_values grows with every same-named assignment of the file.
  std::vector<TSNode> visible_values(TSNode use, std::string_view name) const;
  // True when visible_values(use, name) is every binding of the name in that scope: it is bound
  // there only by plain `name = value` assignments (not unpacked, a loop target, a parameter,
  // augmented, `with ... as`), and at least once.
  bool only_plainly_assigned(TSNode use, std::string_view name) const;
  const ArgOption* arg_option(std::string_view dest) const;
  // True when the file imports the module (or something under it): imports("torch").
  bool imports(std::string_view module) const;
  // The last top-level import statement (for "add this line after the imports"), or null.
  TSNode last_import() const;
  TSNode first_import_of(std::string_view module) const;

  // ---- training step
  // A training step in this file: its own step loops, or calls to a sibling module's function that
  // holds one (`train_one_epoch(...)` from engine.py); step_loops() lists both kinds of node.
  bool has_step_loop() const;
  // The sibling modules whose function holds a step this file calls (`train_one_epoch(...)` of
  // engine.py), with the call.
  const std::vector<std::pair<const ModuleSummary*, TSNode>>& step_siblings() const;
  const std::vector<TSNode>& step_loops() const;
  // Whether every step loop of the file sits in a function that another file's training step runs
  // (ProjectContext::step_entries): the file is then a helper of that script's step (a loop over
  // micro-batches that calls backward), and file-wide settings are the entry script's to make.
  bool step_loops_run_by_other_files() const;
  // Whether every step loop of the file is a rollout loop (it steps an environment) whose update is
  // another file's (`agent.update(...)` of ppo.py's PPO): the training step itself is there.
  bool step_loops_are_foreign_rollouts() const;
  StepContext step_context(TSNode node) const;
  // `name` is a parameter of a function that runs with the step: the argument every per-step call
  // of this file binds to it (empty when one of them binds none, passes *args/**kwargs, or the
  // function is not called per step here). `rebound`: also when the function assigns the name again
  // (then the arguments are only some of its values).
  std::vector<TSNode> step_arguments(TSNode name, bool rebound = false) const;
  // `name` is a parameter (not rebound) of a function another file's step runs, and every call that
  // runs it binds the loss that step calls backward on (`misc.check_nan_losses(loss)`).
  bool bound_to_step_loss(TSNode name) const;
  // `call` builds an instance of a class another file of the project defines (`UNet(3, 64)` with
  // `from model import UNet`), whose module builds convolutions: where ("model.py:12"), else empty.
  std::string project_conv_evidence(const CallInfo& call) const;
  // The same for an expression that names a class (`models.Generator32`, an entry of a registry
  // dict `{"cnn32": models.Generator32}`), not called here.
  std::string project_class_conv_evidence(TSNode class_expr) const;
  // Names bound by a step loop's target (`for x, y in loader`), or assigned from those in its body.
  bool is_batch_expression(TSNode expr) const;
  // `use` (a name in a function) is a host tensor there: later in the same function it is copied to
  // the GPU (`x = x.cuda()`, `y.to(device)`, `x, y = to_cuda(x, y)` with a copying helper), nothing
  // copied it to the GPU before, and no loop of the function carries it from one iteration's copy to
  // the next (XLM's `x, lengths = self.generate_batch(...)`, masked and counted, then to_cuda).
  bool copied_later(TSNode use) const;
  // What a plain name holds where `use` (an identifier) reads it, when one binding certainly reaches
  // it: walking back from `use` over the statements that run before it in the same function (out of
  // `if`/`elif`/`else` blocks), the first statement that binds the name is `name = v` or
  // `a, name = u, v`, and no loop, `with` or `try` the walk steps out of binds it too (a loop's
  // earlier iterations run before). The value and its statement; nulls when unsure (a conditional
  // binding, unpacking a call's result, a parameter, a global, a comprehension variable).
  struct Reaching {
    TSNode value{};
    TSNode statement{};
  };
  Reaching reaching_value(TSNode use) const;
  // `expr` holds a value computed on the host from a copy to the host: a chain with `.cpu()`,
  // `.to("cpu")`, `.numpy()`, `.item()`, `.tolist()`; a name whose bindings are all such values (the
  // binding that reaches the use; else each plain assignment and tuple unpacking of the name in its
  // function); a tensor method, operator, index or torch function over one (`torch.unique(t_cpu)`,
  // `-log_p.gather(2, i).mean()`); a call of a same-file function that moves nothing to the GPU
  // given one; or what a called function (of this file or, through FunctionSummary::returned_host,
  // of the project) returns on the host at every return (`loss, acc = loss_fn(out, y)` where
  // loss_fn computes both from `.to("cpu")` copies). Reading such a value back costs no sync.
  bool host_derived(TSNode expr) const;
  // The function call `c` runs (of this file, else of the project: FunctionSummary::returns_tensor)
  // returns a torch operation's result at every return: `util.masked_mape(pred, real, 0.0)`.
  bool returns_tensor(const CallInfo& c) const;
  // The function holding `node` is run by another file's training step (ProjectContext::step_entries).
  bool run_by_other_file(TSNode node) const;
  // `use` names a parameter that its function also binds by other means than `name = value` (a
  // tuple target, a loop, `with ... as`): what a caller passes may not be what the use sees.
  bool parameter_rebound_opaquely(TSNode use) const;
  // The loader whose batches reach `expr`, when known.
  const DataLoaderInfo* loader_of_batch(TSNode expr) const;

  // ---- data loading
  const std::vector<DataLoaderInfo>& dataloaders() const;
  const DataLoaderInfo* dataloader(TSNode call_node) const;

  // ---- device
  bool uses_cuda() const;
  // A training step of another file that runs this one comes from a file that sets a CUDA default
  // device or tensor type (StepEntry::default_device).
  bool default_device_from_step() const;
  TSNode cuda_evidence() const;  // the first node that shows CUDA use, or null
  // The CUDA evidence is a setting: a CUDA device string (or `torch.device` of one) assigned to a
  // name or to an attribute of self (`self.device = 'cuda'` in a Config, `DEVICE = torch.device(
  // "cuda" if ... else "cpu")`), not a call that uses the GPU or a function that returns a device.
  bool cuda_evidence_is_setting() const;
  // No CUDA use in this file, but a sibling that imports it uses CUDA (its step code lives here).
  const ModuleSummary* cuda_importer() const;
  // A project module this file imports that picks CUDA (`import config as CFG` with `device =
  // torch.device("cuda" if ...)`), when this file has no CUDA use of its own and no importer has one.
  const ModuleSummary* cuda_imported() const;
  // Another file of the project that assigns `attribute` (ProjectContext::project_assigns), or empty.
  std::string project_assigns(std::string_view attribute) const;
  // Every call of this file's function `name` in the project files that import this file is under an
  // `if` (ProjectContext::called_only_conditionally_elsewhere); false without a project.
  bool called_only_conditionally_elsewhere(std::string_view name) const;
  // "at line 12" or "in main.py, which imports this file (line 30)": where CUDA use was seen.
  std::string cuda_where() const;
  // A function of this file runs every step of a CUDA training step in another file: the path of
  // calls from there (empty when none).
  std::string cuda_step_path() const;
  // The switch the step at `node` runs only with, taken as given (Impl::step_switches): "`if
  // args.do_train:` (line 462)"; empty when none.
  std::string assumed_switch(TSNode node) const;
  // The call runs a project function of another file that waits for the GPU (in its body or in the
  // project functions it calls: ProjectContext::function_syncs); false without a project.
  bool calls_syncing_project_function(const CallInfo& call) const;
  // The call runs a function of another file of the project (its qualified name resolves there).
  bool calls_project_function(const CallInfo& call) const;
  // The functions of this file the call may run (their definitions): `self.step()` -> the method of
  // its class and the overrides of its subclasses here, `model(x)` -> Net.forward.
  std::vector<TSNode> callee_definitions(const CallInfo& call) const;
  // `self.method()` that runs the override of a subclass in another file
  // (ProjectContext::method_overrides): what it does is not visible here.
  bool runs_foreign_override(const CallInfo& call) const;
  // The call's bare name comes from a star import of a project module (`from utils import *`).
  bool star_imported(const CallInfo& call) const;

  // ---- for other files (ProjectContext): what this module offers
  std::vector<FunctionSummary> function_summaries() const;
  // Step loops over what a sibling module's function returned (`loader = data.build()`).
  // `own`: this module's function_summaries(), so that a function of this file whose step loop
  // iterates a parameter counts as the caller's step (`run(net, train_loader, ...)`).
  std::vector<SteppedResult> stepped_results(const std::vector<FunctionSummary>* own = nullptr) const;
  std::vector<std::string> imported_module_names() const;
  // Calls out of this module that run every training step (StepCall; `path` holds only how this
  // file was reached, when it was: the caller adds its own hop).
  std::vector<StepCall> step_calls() const;
  // Its argparse options with their defaults, and where parse_args()'s result is returned/kept.
  std::vector<OptionDefault> option_defaults() const;
  std::vector<OptionDefault> config_tree_defaults() const;
  // The known values of this module's constants and namespace-class attributes (Impl::module_constants):
  // dest "NUM_WORKERS" or "CFG.num_workers".
  std::vector<OptionDefault> module_constant_defaults() const;

 private:
  std::vector<OptionDefault> known_defaults(const std::unordered_map<std::string, TSNode>& named) const;

 public:
  std::vector<std::string> args_functions() const;
  // Functions that build and return an ArgumentParser (`parser = ArgumentParser(); ...; return parser`).
  std::vector<std::string> parser_functions() const;
  std::vector<std::string> args_variables(bool any_scope = false) const;

  // ---- structure
  // The innermost enclosing node of `kind` (e.g. "function_definition"), or null.
  TSNode enclosing(TSNode node, std::string_view kind) const;
  // True when `node` runs only under an `if` other than `if __name__ == "__main__":`.
  bool under_condition(TSNode node, TSNode* condition = nullptr) const;
  // The same, except the body of an `if` whose test the defaults make true (evaluate): such code runs
  // in a default launch.
  bool under_condition_not_on(TSNode node) const;
  // `node` is in a branch the argparse defaults switch off (`if args.gail:` with --gail False).
  bool switched_off(TSNode node) const;
  // `node` sits in a branch that a setting the script binds once to True / False turns off
  // (`distributed = False`, then `if distributed:`), whatever its options say.
  bool off_by_constant(TSNode node) const;

  // ---- facts rules derive from the model
  // `compute(*this)`, computed on the first call and kept with the model: rules are stateless, and
  // a fact several of them need (does the file compute in 16 bits anywhere?) costs one computation
  // per file. `compute` is the key: one plain function per fact.
  template <class T>
  const T& derived(T (*compute)(const Model&)) const {
    const auto key = reinterpret_cast<void (*)()>(compute);
    if (const void* known = find_derived(key)) return *static_cast<const T*>(known);
    auto value = std::make_shared<T>(compute(*this));  // may derive other facts first
    const T& result = *value;
    keep_derived(key, std::move(value));
    return result;
  }

 private:
  // `e` is certainly not None where it is passed: a literal, arithmetic, a torch function's or a
  // tensor method's result, or a name every binding of which is one (a parameter: what every
  // per-step call binds to it).
  bool non_none(TSNode e, int depth) const;
  const void* find_derived(void (*key)()) const;
  // under_condition and under_condition_not_on: the first condition over `node` (not `__name__`'s,
  // nor, with `skip_on`, an `if` whose body holds `node` and whose test the defaults make true).
  bool condition_over(TSNode node, TSNode* condition, bool skip_on) const;
  void keep_derived(void (*key)(), std::shared_ptr<const void> value) const;

  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace perflint
