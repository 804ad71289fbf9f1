// PFL103 blocking-h2d-copy: Batch copied to the GPU without non_blocking=True. (Metadata only so far: the check lands next.)
#include "parser/model.hpp"
#include "rules/all.hpp"

namespace perflint {
namespace {

class RulePFL103 final : public Rule {
 public:
  const RuleInfo& info() const override {
    static const RuleInfo i{"PFL103", "blocking-h2d-copy", "data-loading", Severity::Warning,
                            "Batch copied to the GPU without non_blocking=True", true, {}};
    return i;
  }
  std::vector<std::string_view> kinds() const override { return {"call"}; }
  void check(TSNode, const Model&, Emitter&) const override {}
};

}  // namespace

std::unique_ptr<Rule> make_pfl103() { return std::make_unique<RulePFL103>(); }

}  // namespace perflint
