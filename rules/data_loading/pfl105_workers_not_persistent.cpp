// PFL105 workers-not-persistent: DataLoader workers restarted every epoch (no persistent_workers=True). (Metadata only so far: the check lands next.)
#include "parser/model.hpp"
#include "rules/all.hpp"

namespace perflint {
namespace {

class RulePFL105 final : public Rule {
 public:
  const RuleInfo& info() const override {
    static const RuleInfo i{"PFL105", "workers-not-persistent", "data-loading", Severity::Warning,
                            "DataLoader workers restarted every epoch (no persistent_workers=True)", false, {}};
    return i;
  }
  std::vector<std::string_view> kinds() const override { return {"call"}; }
  void check(TSNode, const Model&, Emitter&) const override {}
};

}  // namespace

std::unique_ptr<Rule> make_pfl105() { return std::make_unique<RulePFL105>(); }

}  // namespace perflint
