// PFL304 determinism-cost: deterministic algorithms requested (`use_deterministic_algorithms(True)`,
// `cudnn.deterministic = True`). A deliberate trade, so info: reproducibility for slower kernels.
#include <string>

#include "parser/model.hpp"
#include "parser/text_util.hpp"
#include "parser/ts.hpp"
#include "rules/all.hpp"
#include "rules/common.hpp"
#include "rules/debug/debug_util.hpp"

namespace perflint {
namespace {

constexpr std::string_view kWhy =
    "deterministic kernels are slower (some ops fall back to slower implementations, and cuDNN autotuning is off); "
    "a deliberate trade, keep it if you need bitwise reproducibility";
constexpr std::string_view kHint = "enable it only for reproducibility runs (e.g. behind `--deterministic`)";

class RulePFL304 final : public Rule {
 public:
  const RuleInfo& info() const override {
    static const RuleInfo i{"PFL304", "determinism-cost", "debug-left-on", Severity::Info,
                            "Deterministic algorithms requested: slower kernels (a deliberate trade)", true, {}};
    return i;
  }
  std::vector<std::string_view> kinds() const override { return {"assignment", "call"}; }
  bool wants(const CallInfo& call) const override {
    return std::string_view(call.qualname) == "torch.use_deterministic_algorithms";
  }

  // Under an `if`, unless its test is known true in a default launch and is not a determinism switch of
  // its own (`if args.seed is not None:` with --seed 1 by default: SpCL, held-out round 53). Behind
  // `if args.deterministic:` the setting is the deliberate, switchable trade the hint asks for.
  static bool under_condition_but_seeding(const Model& model, TSNode node) {
    if (!model.under_condition(node)) return false;
    if (model.under_condition_not_on(node)) return true;
    for (TSNode up = node; !ts_node_is_null(up); up = ts_node_parent(up))
      if (ts::is(up, "if_statement") && icontains(model.text(ts::field(up, "condition")), "determin")) return true;
    return false;
  }

  void check(TSNode node, const Model& model, Emitter& out) const override {
    if (ts::is(node, "assignment")) {
      TSNode left = ts::field(node, "left");
      const std::string q = model.qualname(left);
      if (q != "torch.backends.cudnn.deterministic") return;
      const Value v = model.evaluate(ts::field(node, "right"));
      if (v.truthy() != true || under_condition_but_seeding(model, node) || only_called_conditionally(model, node)) return;
      if (inference_only(model)) return;  // no training step: reproducible evaluation is the point
      Finding& f = out.report(node, "`" + std::string(model.text(left)) + " = " + v.repr() + "`: " + std::string(kWhy),
                              std::string(kHint));
      if (auto n = origin_note(out, "cudnn.deterministic", v)) f.notes.push_back(*n);
      return;
    }
    const CallInfo* call = model.call(node);
    if (!call || !wants(*call)) return;
    TSNode mode = call->arg("mode", 0);
    if (ts_node_is_null(mode)) return;
    const Value v = model.evaluate(mode);
    // False, or unknown (`args.deterministic` with no default): the user chooses at run time.
    if (v.truthy() != true || under_condition_but_seeding(model, node) || only_called_conditionally(model, node)) return;
    if (inference_only(model)) return;
    Finding& f = out.report(node, "`torch.use_deterministic_algorithms(" + std::string(model.text(mode)) +
                                      ")` is on: " + std::string(kWhy),
                            std::string(kHint));
    if (auto n = origin_note(out, "mode", v)) f.notes.push_back(*n);
    if (auto n = via_dict_note(model, out, *call, "mode")) f.notes.push_back(*n);
  }
};

}  // namespace

std::unique_ptr<Rule> make_pfl304() { return std::make_unique<RulePFL304>(); }

}  // namespace perflint
