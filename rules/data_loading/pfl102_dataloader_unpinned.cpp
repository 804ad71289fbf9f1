// PFL102 dataloader-unpinned: DataLoader feeding a CUDA training loop without pin_memory=True. (Metadata only so far: the check lands next.)
#include "parser/model.hpp"
#include "rules/all.hpp"

namespace perflint {
namespace {

class RulePFL102 final : public Rule {
 public:
  const RuleInfo& info() const override {
    static const RuleInfo i{"PFL102", "dataloader-unpinned", "data-loading", Severity::Warning,
                            "DataLoader feeding a CUDA training loop without pin_memory=True", true, {}};
    return i;
  }
  std::vector<std::string_view> kinds() const override { return {"call"}; }
  void check(TSNode, const Model&, Emitter&) const override {}
};

}  // namespace

std::unique_ptr<Rule> make_pfl102() { return std::make_unique<RulePFL102>(); }

}  // namespace perflint
