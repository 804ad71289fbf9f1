// PFL201 per-step-item: .item() every training step forces a host-device sync. (Metadata only so far: the check lands next.)
#include "parser/model.hpp"
#include "rules/all.hpp"

namespace perflint {
namespace {

class RulePFL201 final : public Rule {
 public:
  const RuleInfo& info() const override {
    static const RuleInfo i{"PFL201", "per-step-item", "host-sync", Severity::Warning,
                            ".item() every training step forces a host-device sync", true, {}};
    return i;
  }
  std::vector<std::string_view> kinds() const override { return {"call"}; }
  void check(TSNode, const Model&, Emitter&) const override {}
};

}  // namespace

std::unique_ptr<Rule> make_pfl201() { return std::make_unique<RulePFL201>(); }

}  // namespace perflint
