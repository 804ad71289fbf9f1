// Judgements the host-sync rules share: "does this expression hold a tensor", "is this call a
// device->host copy", and the note that points at the training loop.
#pragma once
#include <tree_sitter/api.h>

#include <string>
#include <string_view>
#include <vector>

#include "parser/model.hpp"
#include "rules/rule.hpp"

namespace perflint {

// Names the file treats as the loss: receivers of `.backward()`, `scaler.scale(x).backward()`,
// `accelerator.backward(x)`, `torch.autograd.backward(x)`.
std::vector<std::string> loss_names(const Model& model);

// True when `expr` evaluates to a tensor by a cheap, conservative test: a loss name, a tensor
// method (`.sum()`, `.mean()`, `.detach()`, ...) on something not rooted in another library
// (`np.mean` is not one), a `torch.` function that returns a tensor, or an operator/subscript over
// one of those. Values already copied to the host (`.item()`, `.cpu()`, `.tolist()`) are not.
bool is_tensor_like(const Model& model, TSNode expr, const std::vector<std::string>& losses);

// A plain name every binding of which (in the scope `use` sees) puts a tensor on the GPU:
// `mloss = torch.zeros(4, device=device)` (a factory with a device that is not the CPU) or
// `x.cuda()`, and updates that keep it there by arithmetic on the name itself
// (`mloss = (mloss * i + items) / (i + 1)`). False when any binding is something else or unknown.
bool is_device_tensor_name(const Model& model, TSNode ident);

// `.cpu()`, `.to("cpu")`, `.tolist()`, `.numpy(force=True)`, `.item()`: a call that copies a
// tensor to the host.
bool is_host_copy(const Model& model, const CallInfo& call);
// The methods is_host_copy accepts (some only with certain arguments).
bool is_host_copy_method(std::string_view method);

// True when a call or attribute further down `expr`'s receiver chain already copies to the host
// (`x.cpu()` in `x.cpu().numpy()`): the copy is reported there, once.
bool chain_has_host_copy(const Model& model, TSNode expr);

// True when `expr`'s chain starts at a name every binding of which (in the scope the use sees) copies
// to the host (`correct = pred.eq(target).cpu().sum()`, then `correct.item()`): a host tensor.
bool rooted_in_host_copy(const Model& model, TSNode expr);

// `torch.set_default_device("cuda")`, `torch.set_default_tensor_type(torch.cuda.FloatTensor)`
// (or a device/type the model cannot read) anywhere in the file: torch factories may already build
// on the GPU. The call, or null. Ask through `model.derived(default_device_call)` (computed once).
const CallInfo* default_device_call(const Model& model);
// True when torch factories of this file may build on the GPU: the file sets a CUDA default
// (default_device_call), or a step of another file that runs it comes from a file that does.
bool factories_may_build_on_gpu(const Model& model);

// A condition with an identity or membership test in it (`x is not None`, `key in batch`): it never
// asks a tensor for its value.
bool identity_or_membership_test(TSNode cond);

// True when the expression's root name is an import of a library other than torch (`np`, `math`).
bool rooted_in_other_library(const Model& model, TSNode expr);

// A batch from the loader that the step loop never moves to the GPU (`labels.tolist()` where only
// `labels.to(device)` is passed on, unassigned): a host tensor, so reading it costs no sync. `via`:
// the loop's call that reaches `expr` when it sits in a helper (StepContext::via).
bool batch_stays_on_host(const Model& model, TSNode expr, TSNode loop, TSNode via = {});


// `model`, `self.net`, `ema_model`: receivers of `.cpu()` that move a module, not a batch tensor.
bool looks_like_module(const Model& model, TSNode expr);

// Source text on one line, whitespace runs collapsed, cut to about `max` characters.
std::string short_text(const Model& model, TSNode node, size_t max = 60);

// "the training loop starts at line N", spanning the loop's header line.
Note step_loop_note(const Model& model, const Emitter& out, TSNode loop);
// The same for a node's step context: when it runs through a call (a helper, forward()), the note
// names that call ("runs every step: called from the training loop at line 26 (log(loss)), ...").
Note step_loop_note(const Model& model, const Emitter& out, const StepContext& sc);

}  // namespace perflint
