// PFL204 host-tensor-in-step: a tensor built in host memory inside the step and then moved to the
// GPU (`torch.zeros(n).cuda()`): a small synchronous copy from pageable memory every step.
#include <array>
#include <string>

#include "parser/model.hpp"
#include "parser/ts.hpp"
#include "rules/all.hpp"
#include "rules/host_sync/tensor_util.hpp"

namespace perflint {
namespace {

// Factories whose output lands where `device=` says (the CPU by default). The `*_like` variants
// follow their input's device, so they are not here.
constexpr std::array<std::string_view, 24> kFactories = {
    "zeros", "ones", "empty", "full", "tensor", "arange", "rand", "randn", "randint", "eye", "linspace",
    "from_numpy", "as_tensor", "logspace", "randperm",
    // The legacy constructors: `torch.Tensor([v])`, `torch.LongTensor(ids)` build CPU tensors.
    "Tensor", "FloatTensor", "LongTensor", "IntTensor", "DoubleTensor", "BoolTensor", "ByteTensor", "HalfTensor",
    "BFloat16Tensor"};

// Casts and reshapes that keep a tensor where it is: `torch.from_numpy(a).float().to(dev)` is
// still a host tensor copied to the GPU.
bool keeps_place(std::string_view method) {
  for (std::string_view m : {"float", "double", "half", "bfloat16", "long", "int", "short", "bool", "byte", "char",
                             "contiguous", "unsqueeze", "squeeze", "view", "reshape", "t", "transpose", "permute",
                             "flatten", "expand", "repeat", "clone", "detach", "requires_grad_"})
    if (method == m) return true;
  return false;
}

// `torch.set_default_device("cuda")`, `torch.set_default_tensor_type(torch.cuda.FloatTensor)`
// (or a device/type the model cannot read) anywhere in the file: factories may already build on
// the GPU. The call, or null.
const CallInfo* default_device_call(const Model& model) {
  for (const auto& c : model.calls()) {
    if (c.qualname == "torch.set_default_device") {
      const Value v = model.evaluate(c.arg("device", 0));
      if (!v.known() || (v.kind == Value::Kind::String && v.s.starts_with("cuda")) || v.kind == Value::Kind::Int)
        return &c;
    } else if (c.qualname == "torch.set_default_tensor_type") {
      TSNode t = c.arg("t", 0);
      const Value v = model.evaluate(t);
      if (v.kind == Value::Kind::String ? v.s.find("cuda") != std::string::npos
                                        : model.text(t).find("cuda") != std::string_view::npos ||
                                              !model.qualname(t).starts_with("torch."))
        return &c;
    }
  }
  return nullptr;
}


std::string_view factory_name(std::string_view qualname) {
  constexpr std::string_view prefix = "torch.";
  if (qualname.substr(0, prefix.size()) != prefix) return {};
  const std::string_view rest = qualname.substr(prefix.size());
  for (auto f : kFactories)
    if (rest == f) return f;
  return {};
}

// Names that hold a device by convention. A bare name that is none of these may be a dtype
// (`x.to(dtype)`), so the rule stays silent on it.
bool device_like_name(std::string_view name) {
  const size_t dot = name.rfind('.');
  if (dot != std::string_view::npos) name = name.substr(dot + 1);
  return name == "device" || name == "dev" || name == "gpu" || name == "local_rank" || name == "rank" ||
         name == "device_id" || name == "cuda_device" || name.ends_with("_device") || name.starts_with("device_");
}

// True when `.to(...)`'s arguments name a GPU device (not a dtype, not the CPU, not unknown).
bool moves_to_gpu(const Model& model, const CallInfo& to) {
  if (to.star_args) return false;
  TSNode target = to.arg("device", 0);
  if (ts_node_is_null(target)) return false;  // `.to(dtype=...)`, or `.to(other_tensor)` via kwargs
  if (ts::is(target, "call")) {
    const CallInfo* c = model.call(target);
    if (!c || c->qualname != "torch.device") return false;
    TSNode t = c->arg("type", 0);
    if (ts_node_is_null(t)) return false;
    target = t;
  }
  const Value v = model.evaluate(target);
  if (v.kind == Value::Kind::String) return v.s.starts_with("cuda");
  if (v.kind == Value::Kind::Int) return true;  // `.to(0)`: device index 0
  if (v.known()) return false;
  const std::string_view text = model.text(target);
  if (ts::is(target, "attribute") && text.ends_with(".device")) return true;  // `.to(x.device)`
  if (ts::is(target, "identifier") || ts::is(target, "attribute")) return device_like_name(text);
  return false;
}

class RulePFL204 final : public Rule {
 public:
  const RuleInfo& info() const override {
    static const RuleInfo i{"PFL204", "host-tensor-in-step", "host-sync", Severity::Warning,
                            "Tensor built on the host every step, then copied to the GPU", true, {}};
    return i;
  }
  std::vector<std::string_view> kinds() const override { return {"call"}; }

  bool wants(const CallInfo& call) const override { return call.method == "cuda" || call.method == "to"; }

  void check(TSNode node, const Model& model, Emitter& out) const override {
    const CallInfo* call = model.call(node);
    if (!call || !wants(*call) || !ts::is(call->receiver, "call")) return;
    const CallInfo* made = model.call(call->receiver);
    for (int hops = 0; made && made->qualname.empty() && keeps_place(made->method) && hops < 8; ++hops)
      made = ts::is(made->receiver, "call") ? model.call(made->receiver) : nullptr;
    if (!made) return;
    const std::string_view fn = factory_name(made->qualname);
    if (fn.empty()) return;
    // Already placed (`torch.zeros(n, device=d)`), or a **kwargs that may carry device=.
    if (made->keyword("device") || made->unresolved_kwargs) return;
    if (call->method == "cuda") {
      // `.cuda("cpu")` does not exist; `.cuda(device)` and `.cuda()` both move to a GPU.
    } else if (!moves_to_gpu(model, *call)) {
      return;
    }
    const StepContext sc = model.step_context(node);
    if (!sc.per_step()) return;
    if (model.derived(default_device_call)) return;  // factories may build on the GPU already
    const std::string built = "torch." + std::string(fn) + "(...)";
    std::string message = "`" + built + "` is built in host memory and copied to the GPU every step (a small " +
                          "synchronous pageable copy)";
    std::string hint;
    if (fn == "from_numpy")
      hint = "build it once before the loop if it does not change; otherwise produce it on the device with torch "
             "ops (e.g. `torch.zeros(..., device=device)`)";
    else if (fn == "tensor" || fn == "as_tensor")
      hint = "create it on the device: `torch." + std::string(fn) +
             "(..., device=device)`, or once before the loop if its value does not change";
    else
      hint = "create it on the device: `torch." + std::string(fn) + "(..., device=device)`";
    Finding& f = out.report(node, std::move(message), std::move(hint));
    f.notes.push_back(step_loop_note(model, out, sc));
  }
};

}  // namespace

std::unique_ptr<Rule> make_pfl204() { return std::make_unique<RulePFL204>(); }

}  // namespace perflint
