// Detection of 16-bit compute in one file, shared by the precision rules and PFL504.
#include "rules/precision/precision_util.hpp"

#include <algorithm>

#include <string>
#include <string_view>
#include <vector>

#include "parser/ts.hpp"

namespace perflint {
namespace {

bool is_16bit_dtype(std::string_view q) {
  return q == "torch.float16" || q == "torch.half" || q == "torch.bfloat16";
}

bool is_amp_call(std::string_view q) {
  return q == "torch.autocast" || q == "torch.cuda.amp.autocast" || q == "torch.amp.autocast" ||
         q == "torch.cuda.amp.GradScaler" || q == "torch.amp.GradScaler" || q == "torch.GradScaler";
}

// What one call says about precision: None when it says nothing.
ReducedPrecision::Kind judge(const Model& model, const CallInfo& c) {
  using K = ReducedPrecision::Kind;
  const std::string& q = c.qualname;
  if (is_amp_call(q)) {
    const Argument* enabled = c.keyword("enabled");
    // Only a literal `enabled=False` is known to be off; a flag means the user runs it both ways.
    if (enabled) {
      const Value v = model.evaluate(enabled->value);
      if (v.truthy() == false && !v.from_option) return K::None;
    }
    return K::Present;
  }
  // NVIDIA apex AMP (`model, optimizer = amp.initialize(model, optimizer, opt_level="O1")`, glow-tts
  // and other pre-torch.amp code): O1-O3 compute in 16 bits, O0 is fp32; a level from a config is
  // decided at launch.
  if (q == "apex.amp.initialize") {
    if (const Argument* enabled = c.keyword("enabled")) {
      const Value v = model.evaluate(enabled->value);
      if (v.truthy() == false && !v.from_option) return K::None;
    }
    const Argument* level = c.keyword("opt_level");
    if (!level) return K::Present;  // apex's default is O1
    const Value v = model.evaluate(level->value);
    if (v.kind != Value::Kind::String) return K::Unknown;
    return v.s == "O0" ? K::None : K::Present;
  }
  if (q == "apex.fp16_utils.FP16_Optimizer" || q == "apex.contrib.optimizers.FP16_Optimizer") return K::Present;
  // Accelerate and DeepSpeed take the precision from a config file or the launcher
  // (`accelerate launch --mixed_precision bf16`): not decidable from this file.
  if ((q == "accelerate.Accelerator" && !c.keyword("mixed_precision")) || q == "deepspeed.initialize")
    return K::Unknown;
  // Networks built from configuration (`hydra.utils.instantiate(cfg.model)`, dnnlib's
  // `construct_class_by_name(**G_kwargs)`) or unpickled whole (`legacy.load_network_pkl(f)`): their
  // layers' precision is set where they are configured (StyleGAN2-ADA runs its top blocks in fp16 by
  // hand, `num_fp16_res`), so "entirely fp32" cannot be told from this file.
  const std::string_view callee = c.method.empty() ? std::string_view(q).substr(q.rfind('.') + 1) : c.method;
  if (q == "hydra.utils.instantiate" || callee == "construct_class_by_name" || callee == "load_network_pkl")
    return K::Unknown;
  if (c.method == "half" || c.method == "bfloat16") return K::Present;
  for (TSNode p : c.positional)
    if (is_16bit_dtype(model.qualname(p))) return K::Present;
  for (const auto& k : c.keywords) {
    if (is_16bit_dtype(model.qualname(k.value))) return K::Present;
    // Hugging Face fp16=/bf16=, Accelerate mixed_precision=, Lightning precision=.
    // ... and a script's own switch handed to its engine (`use_amp=args.use_amp`).
    if (k.name == "fp16" || k.name == "bf16" || k.name == "mixed_precision" || k.name == "precision" ||
        k.name == "amp" || k.name == "use_amp" || k.name == "use_fp16" || k.name == "use_bf16") {
      const Value v = model.evaluate(k.value);
      if (!v.known()) return K::Unknown;
      if (v.kind == Value::Kind::String && v.s != "no" && v.s != "32" && v.s != "32-true" && v.s != "64")
        return K::Present;
      if (v.kind == Value::Kind::Bool && v.b) return K::Present;
      if (v.kind == Value::Kind::Int && v.i == 16) return K::Present;
    }
  }
  // An argparse switch for mixed precision (`--amp`, `--use_amp`, `--fp16`, `--mixed-precision`):
  // whether it is on is decided at launch.
  if (c.method == "add_argument" && !c.positional.empty()) {
    for (TSNode p : c.positional) {
      const Value v = model.evaluate(p);
      if (v.kind != Value::Kind::String) continue;
      std::string flag = v.s;
      while (!flag.empty() && flag.front() == '-') flag.erase(0, 1);
      for (char& ch : flag)
        if (ch == '-') ch = '_';
      if (flag == "amp" || flag == "use_amp" || flag == "fp16" || flag == "bf16" || flag == "use_fp16" ||
          flag == "use_bf16" || flag == "mixed_precision" || flag == "amp_dtype")
        return K::Unknown;
    }
  }
  return K::None;
}

// Every name is_16bit_dtype / is_amp_call accept contains one of these.
constexpr std::string_view kPrecisionWords[] = {"float16", "half", "autocast", "GradScaler"};

ReducedPrecision find_reduced_precision(const Model& model) {
  ReducedPrecision out;
  TSNode root{};
  for (const auto& c : model.calls()) {
    if (ts_node_is_null(root)) root = ts_tree_root_node(c.node.tree);
    const ReducedPrecision::Kind k = judge(model, c);
    if (k == ReducedPrecision::Kind::None) continue;
    // Present wins over Unknown: PFL504 needs to know that 16-bit compute is really written here.
    if (k == ReducedPrecision::Kind::Present) return {k, c.node};
    if (out.kind == ReducedPrecision::Kind::None) out = {k, c.node};
  }
  if (out.kind != ReducedPrecision::Kind::None) return out;
  // The step runs in a sibling module (`train_one_epoch` of engine.py) that names 16-bit compute:
  // the precision is decided there.
  for (const auto& [sibling, call] : model.step_siblings())
    if (sibling && sibling->mentions_reduced_precision) return {ReducedPrecision::Kind::Unknown, call};
  if (ts_node_is_null(root)) return out;
  // The walk below looks for 16-bit dtypes and AMP names; a file that never spells one has none.
  // (This runs on every training file: the text check keeps it off the hot path.)
  const std::string_view text = model.source().text();
  const bool candidate = std::any_of(std::begin(kPrecisionWords), std::end(kPrecisionWords),
                                     [&](std::string_view w) { return text.find(w) != std::string_view::npos; });
  if (!candidate) return out;
  // Not called but referenced: `amp_autocast = partial(torch.autocast, dtype=amp_dtype)` with
  // `amp_dtype = torch.bfloat16` behind a flag. The 16-bit path is written here, chosen at launch.
  ts::walk(root, [&](TSNode n) {
    if (out.kind != ReducedPrecision::Kind::None) return false;
    if (!ts::is(n, "attribute")) return true;
    const std::string q = model.qualname(n);
    if (is_16bit_dtype(q) || is_amp_call(q)) out = {ReducedPrecision::Kind::Unknown, n};
    return false;
  });
  return out;
}

}  // namespace

// Three rules ask on the same file: found once per model.
ReducedPrecision reduced_precision(const Model& model) { return model.derived(&find_reduced_precision); }

bool imports_its_cuda_device(const Model& model) {
  const ModuleSummary* device = model.cuda_imported();
  if (device == nullptr) return false;
  if (model.source().text().find("__main__") != std::string_view::npos) return true;
  const std::vector<TSNode>& loops = model.step_loops();
  if (loops.empty() || device->mentions_reduced_precision || !model.run_mentions("__main__") ||
      std::any_of(loops.begin(), loops.end(), [&](TSNode l) { return model.run_by_other_file(l); }))
    return false;
  for (std::string_view w : {"autocast", "GradScaler", "float16", "bfloat16", "mixed_precision", "amp"})
    if (model.run_mentions(w)) return false;
  return true;
}

}  // namespace perflint
