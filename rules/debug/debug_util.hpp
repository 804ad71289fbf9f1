// Judgements the debug-left-on rules share: "does this region run the training loop", and
// "is this the `os.environ` mapping".
#pragma once
#include <tree_sitter/api.h>

#include <string_view>

#include "parser/model.hpp"

namespace perflint {

// True when `outer`'s byte range holds `n`.
bool encloses(TSNode outer, TSNode n);

// True when `region` contains a training-step loop, or calls (one level) a function defined in
// this file that contains one. Only loops and calls starting at or after `after_byte` count
// (`prof.start()` followed by the loop).
bool region_runs_step_loop(const Model& model, TSNode region, uint32_t after_byte = 0);

// The first node in `region` (at or after `after_byte`, and in the same function as `region`, so
// not inside a nested def) that is a step loop or a call to a same-file function holding one;
// null when none.
TSNode first_step_site(const Model& model, TSNode region, uint32_t after_byte = 0);

// True when `node` sits in a function whose every call site in this file is under a condition
// (`if args.profile: run_profiled()`), or, called from no function of this file, whose every call
// in the project files importing it is (`if args.seed != -1: provide_determinism(args.seed)`): the
// code is opt-in even though it is not guarded locally.
bool only_called_conditionally(const Model& model, TSNode node);

// Lightning's Trainer: lightning.Trainer, lightning.pytorch.Trainer, pytorch_lightning.Trainer (and
// their trainer.trainer module paths), through any import alias (`pl.Trainer`, `L.Trainer`).
bool is_lightning_trainer(std::string_view qualname);

}  // namespace perflint
