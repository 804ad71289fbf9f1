// PFL603 compile-recompiles: `torch.compile` in a script whose batches change shape (a smaller last
// batch, per-batch padding). Dynamo specializes the graph on input shapes, so each new shape
// compiles again; info, because the count of distinct shapes (and so the cost) is only known at run
// time.
#include <string>

#include "parser/model.hpp"
#include "parser/ts.hpp"
#include "rules/all.hpp"
#include "rules/common.hpp"

namespace perflint {
namespace {

struct ShapeEvidence {
  std::string reason;  // "the DataLoader at line 30 has no `drop_last=True`: its last batch is smaller"
  TSNode site{};
};

std::string line_of(const Model& model, TSNode n) {
  return std::to_string(model.source().position(ts_node_start_byte(n)).line);
}

// The strongest sign in the file that batch shapes vary, or an empty reason.
ShapeEvidence varying_shapes(const Model& model) {
  for (const auto& c : model.calls())
    if (c.qualname == "torch.nn.utils.rnn.pad_sequence")
      return {"`pad_sequence` at line " + line_of(model, c.node) + " pads each batch to its longest sequence", c.node};
  ShapeEvidence last_batch;
  for (const auto& dl : model.dataloaders()) {
    // An evaluation loader: the compiled forward may never see its batches (and when it does, a
    // few eval-time compiles are not a per-step cost).
    if (!dl.feeds_step && !dl.assumed_step && dl.framework_reason.empty()) continue;
    const CallInfo& call = *dl.call;
    const auto collate = loader_arg(model, call, "collate_fn");
    if (collate && collate->present && collate->value.kind != Value::Kind::None &&
        model.qualname(collate->node) != "torch.utils.data.default_collate")
      return {"the DataLoader at line " + line_of(model, call.node) + " batches through `collate_fn=" +
                  std::string(model.text(collate->node)) + "`, which usually pads to the longest item of each batch",
              call.node};
    if (!last_batch.reason.empty()) continue;
    const auto batch_sampler = loader_arg(model, call, "batch_sampler");
    const auto batch_size = loader_arg(model, call, "batch_size");
    const auto drop_last = loader_arg(model, call, "drop_last");
    if (!batch_sampler || batch_sampler->present || !batch_size || !drop_last) continue;
    // batch_size=None hands out single samples; an unknown drop_last= is the user's choice.
    if (batch_size->present && batch_size->value.kind == Value::Kind::None) continue;
    if (drop_last->present && drop_last->value.truthy() != false) continue;
    last_batch = {"the DataLoader at line " + line_of(model, call.node) +
                      " has no `drop_last=True`, so its last batch is smaller",
                  call.node};
  }
  return last_batch;
}

// `x = torch.compile(...)`, `self.x = torch.compile(...)` or `x = torch.compile(...) if c else y`:
// the statement binding the compiled module, and the name (text of the target); empty when the
// result is not bound to a plain name or attribute.
std::string_view bound_name(const Model& model, TSNode compile_call, TSNode* assignment) {
  TSNode n = compile_call;
  for (TSNode p = ts::parent(n); !ts_node_is_null(p); n = p, p = ts::parent(p)) {
    if (ts::is(p, "parenthesized_expression") || ts::is(p, "conditional_expression")) continue;
    if (!ts::is(p, "assignment") || !ts::same(ts::field(p, "right"), n)) return {};
    TSNode left = ts::field(p, "left");
    if (!ts::is(left, "identifier") && !ts::is(left, "attribute")) return {};
    *assignment = p;
    return model.text(left);
  }
  return {};
}

// `torch.compile(AveragedModel(model))`, `torch.compile(ema_model)` where `ema_model = AveragedModel(..)`.
bool compiles_averaged_model(const Model& model, const CallInfo& call) {
  TSNode arg = call.arg("model", 0);
  if (ts_node_is_null(arg)) return false;
  const auto averaged = [&](TSNode v) {
    if (!ts::is(v, "call")) return false;
    const std::string q = model.qualname(ts::field(v, "function"));
    return q == "torch.optim.swa_utils.AveragedModel" || q.ends_with("ModelEma") || q.ends_with("ModelEmaV2") ||
           q.ends_with("ModelEmaV3") || q.ends_with("ExponentialMovingAverage");
  };
  if (averaged(arg)) return true;
  if (!ts::is(arg, "identifier")) return false;
  for (TSNode v : model.assigned_values(model.text(arg)))
    if (averaged(v)) return true;
  return false;
}

// Any use of `name` after its binding: a call, an argument, a `.method` on it, a return.
bool name_used_after(const Model& model, std::string_view name, TSNode assignment) {
  bool used = false;
  TSNode root = assignment;
  for (TSNode p = ts::parent(root); !ts_node_is_null(p); p = ts::parent(p)) root = p;
  const std::string_view last = name.substr(name.rfind('.') == std::string_view::npos ? 0 : name.rfind('.') + 1);
  ts::walk(root, [&](TSNode n) {
    if (used) return false;
    if (ts_node_end_byte(n) <= ts_node_end_byte(assignment)) return false;  // before, or the binding itself
    if (ts::is(n, "identifier") && model.text(n) == last) used = true;
    return !used;
  });
  return used;
}

// Whether the module bound to `name` is run (called, or handed to a function) in a training step.
// Averaged models are only `update_parameters(model)`-ed in the step: their forward runs at
// evaluation.
bool forward_runs_in_step(const Model& model, std::string_view name) {
  for (const auto& c : model.calls()) {
    if (model.text(c.function) == name) {
      if (model.step_context(c.node).in_step) return true;
      continue;
    }
    // Handed to a step function in another module (`train_one_epoch(model, ...)`).
    for (TSNode step : model.step_loops())
      if (ts::same(step, c.node))
        for (TSNode a : c.positional)
          if (model.text(a) == name) return true;
  }
  return false;
}

// `if args.compile: model = torch.compile(model)` with the flag off by default, or
// `torch.compile(m) if args.compile else m`: the condition and its value, when it is known false.
TSNode off_by_default(const Model& model, TSNode site, Value* value) {
  TSNode n = site;
  for (TSNode p = ts::parent(n); !ts_node_is_null(p); n = p, p = ts::parent(p)) {
    if (ts::is(p, "conditional_expression") && ts::same(ts_node_named_child(p, 0), n)) {
      TSNode cond = ts_node_named_child(p, 1);
      const Value v = model.evaluate(cond);
      if (v.truthy() == false) return *value = v, cond;
    }
    if (ts::is(p, "function_definition") || ts::is(p, "class_definition")) break;
  }
  TSNode cond{};
  if (model.under_condition(site, &cond) && !ts_node_is_null(cond)) {
    const Value v = model.evaluate(cond);
    if (v.truthy() == false) return *value = v, cond;
  }
  return {};
}

class RulePFL603 final : public Rule {
 public:
  const RuleInfo& info() const override {
    static const RuleInfo i{"PFL603", "compile-recompiles", "compute", Severity::Info,
                            "torch.compile on inputs whose shapes may vary between steps", false, {}};
    return i;
  }
  std::vector<std::string_view> kinds() const override { return {"call", "decorator"}; }
  bool wants(const CallInfo& call) const override { return std::string_view(call.qualname) == "torch.compile"; }

  void check(TSNode node, const Model& model, Emitter& out) const override {
    if (ts::is(node, "decorator")) {
      // `@torch.compile` without parentheses; `@torch.compile(...)` arrives as a call.
      for (TSNode c : ts::named_children(node))
        if (!ts::is(c, "call") && model.qualname(c) == "torch.compile") judge(c, model, out);
      return;
    }
    const CallInfo* call = model.call(node);
    if (!call || !wants(*call)) return;
    if (call->keyword("dynamic") || call->unresolved_kwargs) return;
    Value flag;
    if (!ts_node_is_null(off_by_default(model, node, &flag))) return;  // compiled only when asked for
    TSNode assignment{};
    const std::string_view name = bound_name(model, node, &assignment);
    if (compiles_averaged_model(model, *call) && (name.empty() || !forward_runs_in_step(model, name))) return;
    // A compiled module that nothing in the file calls or hands on (`compiled = torch.compile(m)`
    // kept for export, a name never used): its forward never meets the batches.
    if (!name.empty() && model.has_step_loop() && !name_used_after(model, name, assignment)) return;
    judge(node, model, out);
  }

 private:
  static void judge(TSNode site, const Model& model, Emitter& out) {
    const ShapeEvidence ev = varying_shapes(model);
    if (ev.reason.empty()) return;
    Finding& f = out.report(site,
                            "torch.compile specializes on input shapes: a batch of a new shape (here: " + ev.reason +
                                ") triggers a recompile (seconds to minutes each)",
                            "use `drop_last=True` / pad to fixed buckets, or `torch.compile(..., dynamic=True)`");
    f.notes.push_back(out.note(ev.site, "the shapes vary here"));
    f.notes.push_back(Note{"after a second shape PyTorch >= 2.1 marks the changing dimension dynamic and recompiles "
                           "once more; the cost is a few compiles per run, more when many shapes occur",
                           std::nullopt});
  }
};

}  // namespace

std::unique_ptr<Rule> make_pfl603() { return std::make_unique<RulePFL603>(); }

}  // namespace perflint
