// Judgements the five data-loading rules (PFL101-PFL105) share: which DataLoader feeds training,
// whether it pins memory, what a `.to()`/`.cuda()` copy of a batch looks like, and the notes that
// say what the rule assumed.
#pragma once
#include <tree_sitter/api.h>

#include <optional>
#include <string>
#include <string_view>

#include "parser/model.hpp"
#include "rules/common.hpp"
#include "rules/rule.hpp"

namespace perflint::data_loading {

// 1-based line of a node.
uint32_t line_of(const Emitter& out, TSNode node);

// The DataLoader built by this call when it feeds (or is assumed to feed) the training loop; null
// otherwise (not a DataLoader, an eval-only loader, a loader not linked to any step loop).
const DataLoaderInfo* training_loader(const Model& model, const CallInfo& call);
// `DataLoader(range(n), ...)`, or a tensor of indices (`torch.LongTensor(range(n))`, `torch.arange(n)`,
// directly or through a name bound only to one): batches of indices into data the step already holds
// (benchmarking-gnns' edge permutations, GCNII's ppi.py): no workers or pinning needed.
bool index_range_loader(const Model& model, const CallInfo& call);

// "assumed to feed the training loop at line N: ..." when the model only assumed the link.
std::optional<Note> assumed_note(const Emitter& out, const DataLoaderInfo& loader);

// A boolean DataLoader flag (pin_memory, persistent_workers): true / false, or nullopt when the
// argument is present but not statically known, or hidden behind an unresolved **kwargs.
struct Flag {
  bool value = false;
  LoaderArg arg;  // arg.present is false when the library default (False) applies
};
std::optional<Flag> loader_flag(const Model& model, const CallInfo& call, std::string_view name);

// Where to report about argument `name` of `call`: the argument itself when it is written in the
// call, else the called name (absent, or it came through a **dict written elsewhere).
Span argument_span(const Emitter& out, const CallInfo& call, std::string_view name, const LoaderArg& arg);


// For a flag that is off because of an argparse default: "run with `--pin-mem` or pass
// `pin_memory=True`"; empty when the value does not come from argparse.
std::string enable_flag_hint(const Value& value, std::string_view param);

// What `persistent_workers=` must say to hold for whatever `num_workers` is at run time (persistent
// workers with num_workers=0 raise ValueError): "True" for an integer literal, "<expr> > 0" for a
// name or attribute chain written in this call (`args.workers > 0`: --workers 0 stays valid);
// nullopt for anything else (a call could give another value, or run twice), where a fix that
// writes True is unsafe.
std::optional<std::string> persistent_workers_value(const Model& model, const CallInfo& call, const LoaderArg& workers);

// `os.cpu_count()`, `multiprocessing.cpu_count()`, `len(os.sched_getaffinity(0))`, or a name every
// binding of which is one of those: a worker count that is at least 1 on any machine although its
// value is not known statically. The expression as written, or nullopt.
std::optional<std::string> cpu_count_expression(const Model& model, TSNode expr);

// The origin and **dict notes of an argument, appended to `f`.
void add_value_notes(const Model& model, const Emitter& out, const CallInfo& call, std::string_view name,
                     const LoaderArg& arg, Finding& f);

// The loop around a step loop that re-iterates its loader (an epoch loop), as the note PFL105
// prints: "the loop at line N is inside the loop at line M"; empty when none is found.
// The loop that iterates `step_loop` again (the loop around it, or around a call of its function),
// when it is a `for ... in range(...)` that the defaults run at most once (`range(args.epochs)` with
// `--epochs` 1, `range(1, epochs + 1)` with epochs 1): the loader is then iterated once. Null otherwise.
// The loader's collate_fn is a function of this file that builds its batch on the GPU
// (`torch.ones(..., device='cuda:0')`, `.cuda()`, `.to('cuda')`: Chinese-Vicuna's ChatGLM fine-tuning,
// held-out round 21): worker processes cannot use CUDA and a CUDA batch cannot be pinned.
bool collate_on_gpu(const Model& model, const CallInfo& loader);
TSNode single_pass_repetition(const Model& model, TSNode step_loop);
std::string repetition_text(const Model& model, const Emitter& out, TSNode step_loop);

// ---- Hugging Face: the Trainer builds its DataLoaders from `TrainingArguments(...)`.
// True for `transformers.TrainingArguments(...)` / `Seq2SeqTrainingArguments(...)` in a file that
// trains with them: it constructs a `transformers.Trainer`/`Seq2SeqTrainer` or calls `.train()`.
bool is_hf_training_args(const Model& model, const CallInfo& call);
// `transformers.TrainingArguments(...)` / `Seq2SeqTrainingArguments(...)` by name alone.
bool is_hf_training_args_call(const CallInfo& call);
// An argument of TrainingArguments (keyword only); nullopt when hidden by `**kwargs`/`*args`.
std::optional<LoaderArg> hf_arg(const Model& model, const CallInfo& call, std::string_view name);

// A host-to-device copy of a batch in the step: `x.to(device, ...)`, `x.cuda(...)`.
struct Copy {
  const CallInfo* call = nullptr;
  TSNode device{};                    // the device argument, when there is one
  std::optional<bool> non_blocking;   // false when absent; nullopt when present but unknown
  TSNode non_blocking_node{};         // the non_blocking argument, when present
  bool device_is_variable = false;    // the device is a name/expression the model cannot read
  bool legacy_async = false;          // `async=True`: the pre-0.4 name of non_blocking
  TSNode batch{};                     // the batch expression the copied value comes from
  // Where the copied host value comes from when it is not a DataLoader's batch ("a replay-buffer
  // sample (line 40)", "a slice of the host tensor `data` (line 12)"); empty for batches.
  std::string host_source;
  TSNode host_source_site{};
};
// Returns the copy when `call` is a `.to()`/`.cuda()` that moves its receiver to a (possibly)
// CUDA device; nullopt for dtype-only casts, `.to("cpu")`, `memory_format=` and other devices.
std::optional<Copy> device_copy(const Model& model, const CallInfo& call);
// `.to` or `.cuda`: the methods device_copy looks at.
bool is_device_copy_method(std::string_view method);
// The same for a call node whose receiver is a batch of the training loop (PFL103, PFL104): the
// batch itself, an element of it in a comprehension, generator or `map(lambda t: t.cuda(), batch)`
// (`[t.to(dev) for t in batch]`, `{k: v.to(dev) for k, v in batch.items()}`), and, in a step loop,
// host data that is not a DataLoader's (a replay-buffer sample, a slice of a host tensor).
std::optional<Copy> batch_device_copy(const Model& model, TSNode call_node);
// The batch a tensor conversion on the host converts: `torch.from_numpy(x)`, `torch.as_tensor(x)`,
// `torch.tensor(x)` (no device=) with `x` the batch, past host casts (`.long()`, `.float()`). Its
// copy to the GPU is the batch's (PFL103), not a host factory's (PFL204). Null when it is none.
TSNode converted_batch(const Model& model, TSNode expr);
// The older spellings of the same copy, of a batch (as batch_device_copy sees it):
// `x.type(torch.cuda.FloatTensor)` (or an alias: `Tensor = torch.cuda.FloatTensor`),
// `torch.cuda.FloatTensor(x)`, `dst.copy_(x)` into a tensor made on the GPU.
std::optional<Copy> legacy_batch_copy(const Model& model, TSNode call_node);
// The calls legacy_batch_copy may accept, by a cheap test (the rules' `wants`).
bool may_be_legacy_copy(const CallInfo& call);
// A torch dtype's name, as `torch.<name>` spells it: "float16", "bfloat16", "long", ...
bool torch_dtype_name(std::string_view name);

}  // namespace perflint::data_loading
