// PFL202 per-step-host-transfer: Tensor copied to the host every training step (.cpu(), .numpy(), .tolist(), float(t), print(t)). (Metadata only so far: the check lands next.)
#include "parser/model.hpp"
#include "rules/all.hpp"

namespace perflint {
namespace {

class RulePFL202 final : public Rule {
 public:
  const RuleInfo& info() const override {
    static const RuleInfo i{"PFL202", "per-step-host-transfer", "host-sync", Severity::Warning,
                            "Tensor copied to the host every training step (.cpu(), .numpy(), .tolist(), float(t), print(t))", true, {}};
    return i;
  }
  std::vector<std::string_view> kinds() const override { return {"call"}; }
  void check(TSNode, const Model&, Emitter&) const override {}
};

}  // namespace

std::unique_ptr<Rule> make_pfl202() { return std::make_unique<RulePFL202>(); }

}  // namespace perflint
