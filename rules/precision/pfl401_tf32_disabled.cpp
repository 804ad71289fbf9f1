// PFL401 tf32-disabled: fp32 matmuls/convs on an Ampere+ GPU without TF32 tensor cores, either
// because the script switches TF32 off or because it never switches the matmul flag on (off by
// default since PyTorch 1.12) and does not train in 16-bit either.
#include <string>

#include "parser/model.hpp"
#include "parser/ts.hpp"
#include "rules/all.hpp"
#include "rules/common.hpp"
#include "rules/compute/model_util.hpp"
#include "rules/fix_util.hpp"
#include "rules/precision/precision_util.hpp"

namespace perflint {
namespace {

constexpr std::string_view kMatmulFlag = "torch.backends.cuda.matmul.allow_tf32";
constexpr std::string_view kCudnnFlag = "torch.backends.cudnn.allow_tf32";
constexpr std::string_view kPrecision = "torch.set_float32_matmul_precision";
constexpr std::string_view kAmpere = "TF32 only exists on Ampere (sm_80) or newer GPUs; on older ones this costs nothing";

std::string short_value(const Model& model, TSNode n) {
  std::string s(model.text(n));
  return s.size() > 40 ? s.substr(0, 40) + "..." : s;
}

bool is_hf_training_args(std::string_view q) {
  return q.size() >= 17 && q.substr(0, 13) == "transformers." && q.ends_with("TrainingArguments");
}

// cuDNN convolutions use TF32 by default (`torch.backends.cudnn.allow_tf32` is True): the matmul
// flag only speeds up linear/matmul/attention layers. When convolutions dominate the model (by a
// static count of layers), the finding becomes info and says why; otherwise a note gives the mix.
void weigh_layer_mix(const Model& model, const Emitter& out, Finding& f) {
  const LayerMix mix = layer_mix(model);
  if (!mix.seen()) return;
  if (mix.convs == 0) return;  // nothing but matmuls: the finding speaks for itself
  const std::string counts = std::to_string(mix.convs) + " convolution" + (mix.convs == 1 ? "" : "s") + " vs " +
                             std::to_string(mix.matmuls) + " linear/matmul/attention layer" +
                             (mix.matmuls == 1 ? "" : "s") + " in this file" +
                             (mix.from_torchvision ? ", a torchvision model counted as 20" : "");
  if (!mix.conv_dominated()) {
    f.notes.push_back(Note{"convolutions do not dominate the model (" + counts +
                               "): cuDNN convolutions already use TF32, the matmul layers gain",
                           std::nullopt});
    return;
  }
  f.severity = Severity::Info;
  f.notes.push_back(out.note(mix.first_conv,
                             "the model is convolution-dominated (" + counts +
                                 "): cuDNN convolutions already use TF32 by default, so only the matmul layers gain; "
                                 "reported as info"));
}

class RulePFL401 final : public Rule {
 public:
  const RuleInfo& info() const override {
    static const RuleInfo i{"PFL401", "tf32-disabled", "precision", Severity::Warning,
                            "fp32 CUDA training without TF32 matmuls", true, {}};
    return i;
  }
  std::vector<std::string_view> kinds() const override { return {"module", "assignment", "call"}; }
  bool wants(const CallInfo& call) const override {
    return call.qualname == kPrecision || is_hf_training_args(call.qualname);
  }

  void check(TSNode node, const Model& model, Emitter& out) const override {
    if (ts::is(node, "module")) return never_enabled(node, model, out);
    if (ts::is(node, "assignment")) return disabled_flag(node, model, out);
    const CallInfo* call = model.call(node);
    if (!call) return;
    if (call->qualname == kPrecision) {
      TSNode arg = call->arg("precision", 0);
      const Value v = model.evaluate(arg);
      if (v.kind != Value::Kind::String || v.s != "highest") return;
      Finding& f = out.report(node,
                              "`set_float32_matmul_precision(\"highest\")` turns TF32 off: fp32 matmuls run in full "
                              "fp32 precision, several times slower on tensor-core GPUs",
                              "use `torch.set_float32_matmul_precision(\"high\")` unless you need full fp32 accuracy");
      if (auto n = origin_note(out, "precision", v)) f.notes.push_back(*n);
      f.notes.push_back(Note{std::string(kAmpere), std::nullopt});
      weigh_layer_mix(model, out, f);
      return;
    }
    if (is_hf_training_args(call->qualname)) {
      const Argument* tf32 = call->keyword("tf32");
      if (!tf32) return;
      const Value v = model.evaluate(tf32->value);
      if (v.kind != Value::Kind::Bool || v.b) return;
      Finding& f = out.report(ts_node_is_null(tf32->via_dict) ? ts::parent(tf32->value) : node,
                              "`tf32=False` turns TF32 off: fp32 matmuls run in full fp32 precision, several times "
                              "slower on tensor-core GPUs",
                              "pass `tf32=True` unless you need full fp32 accuracy");
      if (auto n = origin_note(out, "tf32", v)) f.notes.push_back(*n);
      if (auto n = via_dict_note(model, out, *call, "tf32")) f.notes.push_back(*n);
      f.notes.push_back(Note{std::string(kAmpere), std::nullopt});
    }
  }

 private:
  // (a) `torch.backends.cuda.matmul.allow_tf32 = False`, `torch.backends.cudnn.allow_tf32 = False`.
  static void disabled_flag(TSNode node, const Model& model, Emitter& out) {
    const std::string target = model.qualname(ts::field(node, "left"));
    if (target != kMatmulFlag && target != kCudnnFlag) return;
    TSNode right = ts::field(node, "right");
    while (ts::is(right, "assignment")) right = ts::field(right, "right");  // a = b = False
    const Value v = model.evaluate(right);
    if (v.truthy() != false) return;
    if (inference_only(model)) return;  // a metrics/evaluation script: full fp32 on purpose
    // A file that trains nothing, imported by none that does (a GPTQ quantiser that needs full fp32
    // on purpose: Chinese-Vicuna's tools/gptq.py, held-out round 21).
    if (!shows_training(model) && model.cuda_step_path().empty() && !model.importer_side_mentions("backward")) return;
    // Save/restore (`old = flag; flag = False; ...; flag = old`): a deliberate, scoped switch-off.
    const TSNode scope = model.enclosing(node, "function_definition");
    for (TSNode other : model.nodes_of_kind("assignment")) {
      if (ts::same(other, node) || model.qualname(ts::field(other, "left")) != target) continue;
      if (!ts::same(model.enclosing(other, "function_definition"), scope)) continue;
      TSNode value = ts::field(other, "right");
      while (ts::is(value, "assignment")) value = ts::field(value, "right");
      if (!model.evaluate(value).known()) return;
    }
    const bool matmul = target == kMatmulFlag;
    Finding& f = out.report(
        node,
        "`" + std::string(model.text(ts::field(node, "left"))) + " = " + short_value(model, right) + "` turns TF32 off: fp32 " +
            (matmul ? "matmuls" : "convolutions") + " run in full fp32 precision, several times slower on tensor-core GPUs",
        "set it to `True` unless you need full fp32 accuracy");
    if (auto n = origin_note(out, "allow_tf32", v)) f.notes.push_back(*n);
    f.notes.push_back(Note{std::string(kAmpere), std::nullopt});
    if (matmul) weigh_layer_mix(model, out, f);
  }

  // (b) A CUDA training loop in fp32 and nothing that turns the matmul TF32 flag on.
  static void never_enabled(TSNode module, const Model& model, Emitter& out) {
    if (!model.has_step_loop()) return;
    // A file-wide setting belongs in the script that chooses the device: an engine.py whose CUDA use
    // comes only from the script importing it gets the finding there, not here.
    // (Also the script whose device comes from a project module it imports: `import config as CFG`.)
    if (!model.uses_cuda() && !imports_its_cuda_device(model)) return;
    // Nor in a helper whose loop another file's step runs (a micro-batch loop calling backward under
    // its caller's autocast): the entry script is the one that chooses.
    if (model.step_loops_run_by_other_files()) return;
    // Nor in a script whose only step loops are rollouts of another file's update (PPO-PyTorch's
    // train.py steps the environment; PPO.py holds the update and picks the device): that file is
    // judged, unless this one picks the device itself.
    if (model.step_loops_are_foreign_rollouts() && !model.uses_cuda()) return;
    TSNode import = model.first_import_of("torch");
    if (ts_node_is_null(import)) return;
    for (TSNode a : model.nodes_of_kind("assignment"))
      if (model.qualname(ts::field(a, "left")) == kMatmulFlag) return;  // set either way: (a) judges it
    for (const auto& c : model.calls()) {
      // (Also through a `torch` a later import rebinds, `from torch.optim.swa_utils import torch`: the
      // line this rule's fix adds must quiet it, or --fix would add it again on every run.)
      if (c.qualname == kPrecision || c.qualname.ends_with(".set_float32_matmul_precision")) return;
      if (is_hf_training_args(c.qualname) && (c.keyword("tf32") || c.unresolved_kwargs)) return;
    }
    if (uses_reduced_precision(model)) return;
    // Switched on by the entry script that imports this module (`run.py` sets the flag, then runs
    // `Exp(args).train()` of exp/forecast.py), or by a module this one imports: set for the run.
    if (model.importer_side_assigns("matmul.allow_tf32") ||
        model.importer_side_mentions("set_float32_matmul_precision"))
      return;
    TSNode last = model.last_import();
    if (ts_node_is_null(last)) last = import;
    const uint32_t line = out.source().position(ts_node_end_byte(last)).line + 1;
    Finding& f = out.report(import,
                            "fp32 matmuls run in full fp32 precision: TF32 is never enabled (PyTorch's default since "
                            "1.12 is off for matmuls)",
                            "add `torch.backends.cuda.matmul.allow_tf32 = True` (or "
                            "`torch.set_float32_matmul_precision(\"high\")`) after the imports, at line " +
                                std::to_string(line));
    if (TSNode cuda = model.cuda_evidence(); !ts_node_is_null(cuda))
      f.notes.push_back(out.note(cuda, "the script trains on CUDA (line " +
                                           std::to_string(out.source().position(ts_node_start_byte(cuda)).line) +
                                           ") with no autocast, `.half()` or bf16 anywhere"));
    else if (model.cuda_imported())
      f.notes.push_back(Note{"the script trains on the CUDA device chosen " + model.cuda_where() +
                                 ", with no autocast, `.half()` or bf16 anywhere",
                             std::nullopt});
    f.notes.push_back(Note{std::string(kAmpere), std::nullopt});
    weigh_layer_mix(model, out, f);
    if (auto e = precision_line(module, last, model))
      f.fix = Fix{"Add `torch.set_float32_matmul_precision(\"high\")` after the imports", true, {std::move(*e)}};
  }

  // The name a top-level `import torch` / `import torch as th` binds; empty when there is none.
  static std::string torch_name(TSNode module, const Model& model) {
    for (TSNode stmt : ts::named_children(module)) {
      if (!ts::is(stmt, "import_statement")) continue;
      for (TSNode item : ts::named_children(stmt)) {
        if (ts::is(item, "dotted_name") && model.text(item) == "torch") return "torch";
        if (ts::is(item, "aliased_import") && model.text(ts::field(item, "name")) == "torch")
          return std::string(model.text(ts::field(item, "alias")));
      }
    }
    return {};
  }

  // A new line after the last top-level import (after a comment on its line), with its
  // indentation, the file's line ending and its dominant quote.
  static std::optional<Edit> precision_line(TSNode module, TSNode last, const Model& model) {
    const std::string torch = torch_name(module, model);
    if (torch.empty() || ts_node_is_null(last) || !ts::same(ts::parent(last), module)) return std::nullopt;
    const SourceFile& src = model.source();
    const std::string_view t = src.text();
    const Position p = src.position(ts_node_start_byte(last));
    const uint32_t bol = src.line_start(p.line);
    const std::string indent(t.substr(bol, ts_node_start_byte(last) - bol));
    if (indent.find_first_not_of(" \t") != std::string::npos) return std::nullopt;  // `x = 1; import torch`
    uint32_t eol = ts_node_end_byte(last);
    while (eol < t.size() && t[eol] != '\n' && t[eol] != '\r') ++eol;
    const std::string q(1, fixes::dominant_quote(t));
    return fixes::make_edit(src, eol, eol,
                            std::string(fixes::line_ending(t)) + indent + torch + ".set_float32_matmul_precision(" + q +
                                "high" + q + ")");
  }
};

}  // namespace

std::unique_ptr<Rule> make_pfl401() { return std::make_unique<RulePFL401>(); }

}  // namespace perflint
