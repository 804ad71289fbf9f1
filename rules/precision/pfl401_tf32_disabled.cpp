// PFL401 tf32-disabled: fp32 CUDA training without TF32 matmuls. (Metadata only so far: the check lands next.)
#include "parser/model.hpp"
#include "rules/all.hpp"

namespace perflint {
namespace {

class RulePFL401 final : public Rule {
 public:
  const RuleInfo& info() const override {
    static const RuleInfo i{"PFL401", "tf32-disabled", "precision", Severity::Warning,
                            "fp32 CUDA training without TF32 matmuls", true, {}};
    return i;
  }
  std::vector<std::string_view> kinds() const override { return {"call"}; }
  void check(TSNode, const Model&, Emitter&) const override {}
};

}  // namespace

std::unique_ptr<Rule> make_pfl401() { return std::make_unique<RulePFL401>(); }

}  // namespace perflint
