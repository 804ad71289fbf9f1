// PFL001 unused-suppression (opt-in): a `# perflint: ignore[...]` / `# noqa: PFL...` that suppresses
// nothing. The engine reports it after applying suppressions (rules never see suppression comments);
// this class only carries the metadata.
#include "rules/all.hpp"

namespace perflint {
namespace {

class RulePFL001 final : public Rule {
 public:
  const RuleInfo& info() const override {
    static const RuleInfo i{"PFL001", "unused-suppression", "meta", Severity::Info,
                            "Suppression comment that suppresses nothing", false, {"opt-in"}};
    return i;
  }
  std::vector<std::string_view> kinds() const override { return {"comment"}; }
  void check(TSNode, const Model&, Emitter&) const override {}
};

}  // namespace

std::unique_ptr<Rule> make_pfl001() { return std::make_unique<RulePFL001>(); }

}  // namespace perflint
