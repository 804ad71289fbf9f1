// Small judgements several rules share: "is this a DataLoader", "where did this value come from".
#pragma once
#include <optional>
#include <string>
#include <string_view>

#include "parser/model.hpp"
#include "rules/rule.hpp"

namespace perflint {

bool is_dataloader_call(const CallInfo& call);

// `Variable(x)` / `Variable(x, requires_grad=True)` (torch.autograd.Variable: deprecated, an identity
// on tensors since PyTorch 0.4, so it changes neither the device nor whose data it is): the wrapped
// expression, through nested wrappers. Any other node is returned as it is.
TSNode unwrap_variable(const Model& model, TSNode expr);

// The file shows training: a step loop, a backward, an optimizer built or stepped.
bool shows_training(const Model& model);

// A file that only evaluates models: it has no training step (no step loop, no `.backward()`, no
// optimizer, no `.train()`) and says it does not train (`.eval()`, `requires_grad_(False)`,
// `torch.no_grad()`, `torch.inference_mode()`). Metrics and quantisation scripts set TF32 off or
// determinism on deliberately, for reproducible numbers: the run-mode rules stay quiet there.
bool inference_only(const Model& model);

// A DataLoader keyword's value, with DataLoader's positional order (dataset, batch_size, shuffle,
// sampler, batch_sampler, num_workers, collate_fn, pin_memory, drop_last, timeout,
// worker_init_fn, multiprocessing_context, generator, prefetch_factor, persistent_workers).
// `present` is false when the argument is absent (so the library default applies).
struct LoaderArg {
  bool present = false;
  TSNode node{};
  Value value;  // Unknown when present but not statically known
};
// Returns nullopt when the call has an unresolved **kwargs or *args (the rule must stay silent).
std::optional<LoaderArg> loader_arg(const Model& model, const CallInfo& call, std::string_view name);

// The command-line flag that keeps something off by default: `value` is false only because it is
// an argparse default (`--grad-ckpt`, store_true). Null for a literal False or an unknown value.
const ArgOption* off_by_default_flag(const Value& value);

// "num_workers comes from --workers (default 0, line 12)" when `value` is an argparse default;
// empty otherwise.
std::string origin_note_text(std::string_view param, const Value& value);
// The same as a Note with the add_argument call as its span; nullopt when not from argparse.
std::optional<Note> origin_note(const Emitter& out, std::string_view param, const Value& value);
// When an argument came through a `**dict`: "pin_memory comes from the dict `kwargs` (line N)".
std::optional<Note> via_dict_note(const Model& model, const Emitter& out, const CallInfo& call, std::string_view name);

}  // namespace perflint
