// PFL501 activation-checkpointing: Activation checkpointing is on: it recomputes activations in the backward pass. (Metadata only so far: the check lands next.)
#include "parser/model.hpp"
#include "rules/all.hpp"

namespace perflint {
namespace {

class RulePFL501 final : public Rule {
 public:
  const RuleInfo& info() const override {
    static const RuleInfo i{"PFL501", "activation-checkpointing", "compute", Severity::Info,
                            "Activation checkpointing is on: it recomputes activations in the backward pass", false, {}};
    return i;
  }
  std::vector<std::string_view> kinds() const override { return {"call"}; }
  void check(TSNode, const Model&, Emitter&) const override {}
};

}  // namespace

std::unique_ptr<Rule> make_pfl501() { return std::make_unique<RulePFL501>(); }

}  // namespace perflint
