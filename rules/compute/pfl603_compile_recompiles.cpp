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
