// PFL104 non-blocking-without-pinned: non_blocking=True on batches from an unpinned DataLoader (silently synchronous). (Metadata only so far: the check lands next.)
#include "parser/model.hpp"
#include "rules/all.hpp"

namespace perflint {
namespace {

class RulePFL104 final : public Rule {
 public:
  const RuleInfo& info() const override {
    static const RuleInfo i{"PFL104", "non-blocking-without-pinned", "data-loading", Severity::Warning,
                            "non_blocking=True on batches from an unpinned DataLoader (silently synchronous)", true, {}};
    return i;
  }
  std::vector<std::string_view> kinds() const override { return {"call"}; }
  void check(TSNode, const Model&, Emitter&) const override {}
};

}  // namespace

std::unique_ptr<Rule> make_pfl104() { return std::make_unique<RulePFL104>(); }

}  // namespace perflint
