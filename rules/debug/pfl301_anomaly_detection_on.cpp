// PFL301 anomaly-detection-on: Autograd anomaly detection left on during training. (Metadata only so far: the check lands next.)
#include "parser/model.hpp"
#include "rules/all.hpp"

namespace perflint {
namespace {

class RulePFL301 final : public Rule {
 public:
  const RuleInfo& info() const override {
    static const RuleInfo i{"PFL301", "anomaly-detection-on", "debug-left-on", Severity::Warning,
                            "Autograd anomaly detection left on during training", false, {}};
    return i;
  }
  std::vector<std::string_view> kinds() const override { return {"call"}; }
  void check(TSNode, const Model&, Emitter&) const override {}
};

}  // namespace

std::unique_ptr<Rule> make_pfl301() { return std::make_unique<RulePFL301>(); }

}  // namespace perflint
