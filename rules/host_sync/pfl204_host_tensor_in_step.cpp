// PFL204 host-tensor-in-step: a tensor built in host memory inside the step and then moved to the
// GPU (`torch.zeros(n).cuda()`): a small synchronous copy from pageable memory every step.
#include <cctype>
#include <array>
#include <string>

#include "parser/model.hpp"
#include "parser/ts.hpp"
#include "rules/all.hpp"
#include "rules/common.hpp"
#include "rules/data_loading/loader_util.hpp"
#include "rules/host_sync/tensor_util.hpp"

namespace perflint {
namespace {

// Factories whose output lands where `device=` says (the CPU by default). The `*_like` variants
// follow their input's device, so they are not here.
constexpr std::array<std::string_view, 28> kFactories = {
    "zeros", "ones", "empty", "full", "tensor", "arange", "rand", "randn", "randint", "eye", "linspace",
    "from_numpy", "as_tensor", "logspace", "randperm",
    // The legacy constructors: `torch.Tensor([v])`, `torch.LongTensor(ids)` build CPU tensors.
    "Tensor", "FloatTensor", "LongTensor", "IntTensor", "DoubleTensor", "BoolTensor", "ByteTensor", "HalfTensor",
    "BFloat16Tensor",
    // Sparse tensors from indices and values (`torch.sparse.FloatTensor(idx, vals, size)`: a graph's
    // adjacency built every batch), on the CPU without device=.
    "sparse.FloatTensor", "sparse.LongTensor", "sparse.DoubleTensor", "sparse_coo_tensor"};

// Casts, reshapes and in-place fills (which return their receiver) that keep a tensor where it is:
// `torch.from_numpy(a).float().to(dev)`, `torch.zeros(b, k).scatter_(1, idx, 1).cuda()` are still
// host tensors copied to the GPU.
bool keeps_place(std::string_view method) {
  for (std::string_view m : {"float", "double", "half", "bfloat16", "long", "int", "short", "bool", "byte", "char",
                             "contiguous", "unsqueeze", "squeeze", "view", "reshape", "t", "transpose", "permute",
                             "flatten", "expand", "expand_as", "view_as", "reshape_as", "repeat", "clone", "detach", "requires_grad_", "fill_", "zero_",
                             "uniform_", "normal_", "random_", "bernoulli_", "scatter_", "masked_fill_"})
    if (method == m) return true;
  return false;
}


std::string_view factory_name(std::string_view qualname) {
  constexpr std::string_view prefix = "torch.";
  if (qualname.substr(0, prefix.size()) != prefix) return {};
  const std::string_view rest = qualname.substr(prefix.size());
  for (auto f : kFactories)
    if (rest == f) return f;
  return {};
}

// `.type(torch.LongTensor)`, `.type(torch.long)`, `.type('torch.FloatTensor')`: a cast to a CPU tensor
// type or to a dtype keeps the tensor where it is (pytorch_DANN's `torch.zeros(n).type(torch.LongTensor)
// .cuda()`, held-out round 43). Not `torch.cuda.*Tensor`, which is itself a copy to the GPU.
bool host_type_cast(const Model& model, const CallInfo& c) {
  if (c.method != "type" || c.positional.size() != 1 || !c.keywords.empty() || ts_node_is_null(c.receiver)) return false;
  const TSNode arg = c.positional.front();
  std::string spelled;
  if (const Value v = model.evaluate(arg); v.kind == Value::Kind::String) spelled = v.s;
  else if (ts::is(arg, "attribute")) spelled = model.qualname(arg);
  if (!spelled.starts_with("torch.") || spelled.find("cuda") != std::string::npos) return false;
  const std::string_view rest = std::string_view(spelled).substr(6);
  if (rest.find('.') != std::string_view::npos) return false;
  return rest.ends_with("Tensor") ? !factory_name(spelled).empty() : data_loading::torch_dtype_name(rest);
}

// Names that hold a device by convention, in any case (a module constant `DEVICE =
// torch.device("cuda")`: ColBERT's colbert/parameters.py, held-out round 23). A bare name that is
// none of these may be a dtype (`x.to(dtype)`), so the rule stays silent on it.
bool device_like_name(std::string_view spelled) {
  const size_t dot = spelled.rfind('.');
  if (dot != std::string_view::npos) spelled = spelled.substr(dot + 1);
  std::string lower(spelled);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const std::string_view name = lower;
  // (`dvc`, `self.L_dvc`: DRL-Pytorch's spelling throughout, held-out round 31.)
  return name == "device" || name == "dev" || name == "dvc" || name == "gpu" || name == "local_rank" ||
         name == "rank" || name == "device_id" || name == "cuda_device" || name.ends_with("_device") ||
         name.ends_with("_dvc") || name.starts_with("device_");
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
  // `.to(x.device)`, unless x is itself on the host (XLM's concat_batches builds positions for the
  // host batch it is handed: `.to(x1.device)` copies nothing).
  if (ts::is(target, "attribute") && text.ends_with(".device")) {
    const TSNode of = ts::field(target, "object");
    if (model.host_derived(of)) return false;
    // In a helper another file's step runs (no loop of this file), a batch it is handed before the
    // step copies it.
    return !ts_node_is_null(model.step_context(to.node).loop) || !batch_stays_on_host(model, of, TSNode{});
  }
  if (ts::is(target, "identifier") || ts::is(target, "attribute")) return device_like_name(text);
  return false;
}

// The host factory a copied expression comes from: the factory call itself, through casts and
// reshapes (keeps_place), `Variable(...)` wrappers, and plain names whose reaching binding is one
// of those (`z = torch.randn(b, n)` ... `z.cuda()`). `named` is set to the first name crossed.
struct Origin {
  const CallInfo* factory = nullptr;
  TSNode name{};
  const CallInfo* helper = nullptr;  // the call of this file's function that returned it
};

const CallInfo* host_attribute(const Model& model, TSNode attr, int depth);

// The host factory a value computed in a constructor derives from: the factory itself (no
// device=), torch functions, tensor methods and arithmetic over such values, other host attributes
// of the class (`self.alphas = 1. - self.betas`, `torch.cumprod(self.alphas, dim=0)`), and numbers.
// Null when any part may be on a device or is unknown.
const CallInfo* host_derived(const Model& model, TSNode v, int depth) {
  v = unwrap_variable(model, v);
  if (ts_node_is_null(v) || depth > 32) return nullptr;
  if (ts::is(v, "attribute")) return host_attribute(model, v, depth + 1);
  if (ts::is(v, "binary_operator") || ts::is(v, "unary_operator")) {
    const CallInfo* found = nullptr;
    for (TSNode c : ts::named_children(v)) {
      c = unwrap_variable(model, c);
      if (ts::is(c, "integer") || ts::is(c, "float")) continue;
      const CallInfo* f = host_derived(model, c, depth + 1);
      if (!f) return nullptr;
      found = found ? found : f;
    }
    return found;
  }
  const CallInfo* c = ts::is(v, "call") ? model.call(v) : nullptr;
  if (!c || c->unresolved_kwargs || c->star_args || c->keyword("device")) return nullptr;
  if (!factory_name(c->qualname).empty()) return ts_node_is_null(data_loading::converted_batch(model, v)) ? c : nullptr;
  if (c->qualname.empty()) {  // a method of a host value that keeps it on the host
    if (c->method.empty() || c->method == "to" || c->method == "cuda" || c->method == "pin_memory" ||
        c->method == "type" || ts_node_is_null(c->receiver))
      return nullptr;
    return host_derived(model, c->receiver, depth + 1);
  }
  // torch.sqrt(x), torch.cumprod(x, dim=0), torch.cat([...]): its first argument decides.
  if (!c->qualname.starts_with("torch.") || c->qualname.starts_with("torch.nn.") || c->positional.empty()) return nullptr;
  return host_derived(model, c->positional.front(), depth + 1);
}

// `self.X`, every assignment of which in this file is in its class's __init__ and holds a host
// tensor (DDPM-Pytorch's LinearNoiseScheduler: `self.sqrt_alpha_cum_prod = torch.sqrt(...)` of a
// `torch.linspace(...)`; held-out round 15): the factory it derives from, else null.
const CallInfo* host_attribute(const Model& model, TSNode attr, int depth) {
  if (depth > 32 || !ts::is(attr, "attribute") || model.text(ts::field(attr, "object")) != "self") return nullptr;
  const TSNode cls = model.enclosing(attr, "class_definition");
  if (ts_node_is_null(cls)) return nullptr;
  const CallInfo* found = nullptr;
  bool any = false;
  for (TSNode v : model.assigned_values(model.text(attr))) {
    if (!ts::same(model.enclosing(v, "class_definition"), cls)) continue;
    const TSNode fn = model.enclosing(v, "function_definition");
    if (ts_node_is_null(fn) || model.text(ts::field(fn, "name")) != "__init__") return nullptr;
    const CallInfo* f = host_derived(model, v, depth + 1);
    if (!f) return nullptr;
    found = found ? found : f;
    any = true;
  }
  return any ? found : nullptr;
}

Origin host_origin(const Model& model, TSNode expr) {
  Origin o;
  for (int hops = 0; hops < 12 && !ts_node_is_null(expr); ++hops) {
    expr = unwrap_variable(model, expr);
    if (ts::is(expr, "attribute")) {
      const CallInfo* f = host_attribute(model, expr, 0);
      if (!f) return {};
      if (ts_node_is_null(o.name)) o.name = expr;
      o.factory = f;
      return o;
    }
    if (ts::is(expr, "identifier")) {
      // A batch is PFL103's; a name bound by anything but a certain assignment is unknown.
      if (model.is_batch_expression(expr)) return {};
      const Model::Reaching r = model.reaching_value(expr);
      if (ts_node_is_null(r.value)) return {};
      if (ts_node_is_null(o.name)) o.name = expr;
      expr = r.value;
      continue;
    }
    // Rows of a host tensor (`self.alphas_hat[timesteps].to(images.device)`: a noise schedule
    // built in __init__, indexed and copied every step: diffusion-ddpm, held-out round 28).
    // Only rows of a tensor the class holds (host_attribute decides): a persistent buffer a name
    // holds (rollout storage, a token shard) is indexed by design, and a table built in the step
    // and indexed (`torch.arange(n)[:, None]`) may be copied `.to(x.device)` of a host batch.
    if (ts::is(expr, "subscript")) {
      expr = ts::field(expr, "value");
      while (ts::is(expr, "parenthesized_expression") && ts_node_named_child_count(expr) == 1) expr = ts_node_named_child(expr, 0);
      if (!ts::is(expr, "attribute")) return {};
      continue;
    }
    // Arithmetic with a number keeps a host tensor on the host (`torch.ones(shape) * -1`:
    // retinanet's FocalLoss targets, held-out round 12).
    if (ts::is(expr, "binary_operator")) {
      const auto number = [](TSNode n) {
        if (ts::is(n, "unary_operator")) n = ts::field(n, "argument");
        return ts::is(n, "integer") || ts::is(n, "float");
      };
      const TSNode left = ts::field(expr, "left"), right = ts::field(expr, "right");
      if (number(right) && !number(left)) expr = left;
      else if (number(left) && !number(right)) expr = right;
      else return {};
      continue;
    }
    const CallInfo* c = ts::is(expr, "call") ? model.call(expr) : nullptr;
    if (!c) return {};
    if (c->qualname.empty() && (keeps_place(c->method) || host_type_cast(model, *c))) {
      expr = c->receiver;
      continue;
    }
    // A helper of this file that returns a host factory's result (`diffusion.sample_timesteps(n)`
    // returning `torch.randint(...)`: dome272's DDPM, held-out round 11).
    if (factory_name(c->qualname).empty()) {
      const TSNode returned = model.returned_by(*c);
      if (ts_node_is_null(returned)) return {};
      if (!o.helper) o.helper = c;
      expr = returned;
      continue;
    }
    // `torch.from_numpy(x)` of the batch: the batch's copy, PFL103's.
    if (!ts_node_is_null(data_loading::converted_batch(model, expr))) return {};
    o.factory = c;
    return o;
  }
  return {};
}

class RulePFL204 final : public Rule {
 public:
  const RuleInfo& info() const override {
    static const RuleInfo i{"PFL204", "host-tensor-in-step", "host-sync", Severity::Warning,
                            "Tensor built on the host every step, then copied to the GPU", true, {}};
    return i;
  }
  std::vector<std::string_view> kinds() const override { return {"call"}; }

  bool wants(const CallInfo& call) const override {
    if (call.method == "cuda" || call.method == "to") return true;
    // `tensor2var(torch.randn(n, d))`, `trans_to_cuda(torch.Tensor(ids).long())`, `to_var(z)`: a host
    // tensor handed to a plain function that may copy it.
    return ts::is(call.function, "identifier") && std::any_of(call.positional.begin(), call.positional.end(), [](TSNode a) {
             return ts::is(a, "call") || ts::is(a, "identifier");
           });
  }

  // A host factory handed to a function that copies that parameter to the GPU (SAGAN's
  // `z = tensor2var(torch.randn(b, z_dim))`, tensor2var doing `x = x.cuda()`; held-out round 13;
  // SR-GNN's `trans_to_cuda(torch.Tensor(items).long())`, through casts; round 16).
  static void check_handed(TSNode node, const CallInfo& call, const Model& model, Emitter& out) {
    for (size_t i = 0; i < call.positional.size(); ++i) {
      if (!ts::is(call.positional[i], "call") && !ts::is(call.positional[i], "identifier")) continue;
      const std::string where = model.copies_argument(call, i);
      if (where.empty()) continue;
      const CallInfo* made = host_origin(model, call.positional[i]).factory;
      if (!made || made->keyword("device") || made->unresolved_kwargs) continue;
      const std::string_view fn = factory_name(made->qualname);
      if (fn.empty() || !ts_node_is_null(data_loading::converted_batch(model, made->node))) continue;
      const StepContext sc = model.step_context(node);
      if (!sc.per_step() || factories_may_build_on_gpu(model)) return;
      const std::string helper(model.text(call.function));
      Finding& f = out.report(made->node,
                              "`torch." + std::string(fn) + "(...)` is built in host memory and copied to the GPU every "
                              "step by `" + helper + "()` (a small synchronous pageable copy)",
                              "create it on the device: `torch." + std::string(fn) + "(..., device=device)`");
      f.notes.push_back(Note{"`" + helper + "()` copies this argument to the GPU (" + where + ")", std::nullopt});
      f.notes.push_back(step_loop_note(model, out, sc));
    }
  }

  void check(TSNode node, const Model& model, Emitter& out) const override {
    const CallInfo* call = model.call(node);
    if (!call || !wants(*call)) return;
    if (call->method != "cuda" && call->method != "to") return check_handed(node, *call, model, out);
    if (ts_node_is_null(call->receiver)) return;
    if (!ts::is(call->receiver, "call") && !ts::is(call->receiver, "identifier") &&
        !ts::is(call->receiver, "parenthesized_expression") && !ts::is(call->receiver, "attribute") &&
        !ts::is(call->receiver, "subscript"))
      return;
    const Origin origin = host_origin(model, call->receiver);
    const CallInfo* made = origin.factory;
    if (!made) return;
    const std::string_view fn = factory_name(made->qualname);
    // Already placed (`torch.zeros(n, device=d)`), or a **kwargs that may carry device=.
    if (made->keyword("device") || made->unresolved_kwargs) return;
    if (call->method == "cuda") {
      // `.cuda("cpu")` does not exist; `.cuda(device)` and `.cuda()` both move to a GPU.
    } else if (!moves_to_gpu(model, *call)) {
      return;
    }
    const StepContext sc = model.step_context(node);
    if (!sc.per_step()) return;
    if (factories_may_build_on_gpu(model)) return;  // factories may build on the GPU already
    const std::string built = "torch." + std::string(fn) + "(...)";
    const uint32_t built_line = model.source().position(ts_node_start_byte(made->node)).line;
    std::string message = origin.helper && ts_node_is_null(origin.name)
                              ? "`" + std::string(model.text(origin.helper->function)) + "(...)` returns `" + built +
                                    "` (line " + std::to_string(built_line) + "), built in host memory and copied to " +
                                    "the GPU every step (a small synchronous pageable copy)"
                          : ts_node_is_null(origin.name)
                              ? "`" + built + "` is built in host memory and copied to the GPU every step (a small " +
                                    "synchronous pageable copy)"
                              : "`" + std::string(model.text(origin.name)) + "` (built by `" + built + "` at line " +
                                    std::to_string(built_line) +
                                    ") is in host memory and copied to the GPU every step (a small synchronous "
                                    "pageable copy)";
    // Built once before the loop, copied on every step: the copy is what repeats.
    const bool built_once = !model.step_context(made->node).in_step;
    std::string hint;
    if (built_once)
      hint = "copy it to the GPU once, where it is built (or build it there: `torch." + std::string(fn) +
             "(..., device=device)`), instead of on every step";
    else if (fn == "from_numpy")
      hint = "build it once before the loop if it does not change; otherwise produce it on the device with torch "
             "ops (e.g. `torch.zeros(..., device=device)`)";
    else if (fn == "tensor" || fn == "as_tensor")
      hint = "create it on the device: `torch." + std::string(fn) +
             "(..., device=device)`, or once before the loop if its value does not change";
    else
      hint = "create it on the device: `torch." + std::string(fn) + "(..., device=device)`";
    Finding& f = out.report(node, std::move(message), std::move(hint));
    if (!ts_node_is_null(origin.name) && ts::is(origin.name, "attribute"))
      f.notes.push_back(out.note(made->node, "`" + std::string(model.text(origin.name)) +
                                                 "` is computed in the constructor from this host tensor"));
    else if (!ts_node_is_null(origin.name))
      f.notes.push_back(out.note(made->node, "`" + std::string(model.text(origin.name)) + "` is built here, in host memory" +
                                                 (built_once ? " (once, before the training loop)" : "")));
    f.notes.push_back(step_loop_note(model, out, sc));
  }
};

}  // namespace

std::unique_ptr<Rule> make_pfl204() { return std::make_unique<RulePFL204>(); }

}  // namespace perflint
