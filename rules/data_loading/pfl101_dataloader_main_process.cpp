// PFL101 dataloader-main-process: DataLoader loads batches in the main process (num_workers=0). (Metadata only so far: the check lands next.)
#include "parser/model.hpp"
#include "rules/all.hpp"

namespace perflint {
namespace {

class RulePFL101 final : public Rule {
 public:
  const RuleInfo& info() const override {
    static const RuleInfo i{"PFL101", "dataloader-main-process", "data-loading", Severity::Warning,
                            "DataLoader loads batches in the main process (num_workers=0)", false, {}};
    return i;
  }
  std::vector<std::string_view> kinds() const override { return {"call"}; }
  void check(TSNode, const Model&, Emitter&) const override {}
};

}  // namespace

std::unique_ptr<Rule> make_pfl101() { return std::make_unique<RulePFL101>(); }

}  // namespace perflint
