// Detection of 16-bit compute in one file, shared by the precision rules and PFL504.
#include "rules/precision/precision_util.hpp"

#include <string>
#include <string_view>

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
  // Accelerate and DeepSpeed take the precision from a config file or the launcher
  // (`accelerate launch --mixed_precision bf16`): not decidable from this file.
  if ((q == "accelerate.Accelerator" && !c.keyword("mixed_precision")) || q == "deepspeed.initialize")
    return K::Unknown;
  if (c.method == "half" || c.method == "bfloat16") return K::Present;
  for (TSNode p : c.positional)
    if (is_16bit_dtype(model.qualname(p))) return K::Present;
  for (const auto& k : c.keywords) {
    if (is_16bit_dtype(model.qualname(k.value))) return K::Present;
    // Hugging Face fp16=/bf16=, Accelerate mixed_precision=, Lightning precision=.
    if (k.name == "fp16" || k.name == "bf16" || k.name == "mixed_precision" || k.name == "precision") {
      const Value v = model.evaluate(k.value);
      if (!v.known()) return K::Unknown;
      if (v.kind == Value::Kind::String && v.s != "no" && v.s != "32" && v.s != "32-true" && v.s != "64")
        return K::Present;
      if (v.kind == Value::Kind::Bool && v.b) return K::Present;
      if (v.kind == Value::Kind::Int && v.i == 16) return K::Present;
    }
  }
  return K::None;
}

}  // namespace

ReducedPrecision reduced_precision(const Model& model) {
  ReducedPrecision out;
  for (const auto& c : model.calls()) {
    const ReducedPrecision::Kind k = judge(model, c);
    if (k == ReducedPrecision::Kind::None) continue;
    // Present wins over Unknown: PFL504 needs to know that 16-bit compute is really written here.
    if (k == ReducedPrecision::Kind::Present) return {k, c.node};
    if (out.kind == ReducedPrecision::Kind::None) out = {k, c.node};
  }
  return out;
}

}  // namespace perflint
