// PFL504 channels-last-missing: a 2-D CNN under autocast whose tensors stay in NCHW. Tensor-core
// convolution kernels work in NHWC, so cuDNN transposes around every conv; info, because the gain
// depends on the network and channels_last can be slower for some layers.
#include <string>

#include "parser/model.hpp"
#include "parser/ts.hpp"
#include "rules/all.hpp"
#include "rules/compute/model_util.hpp"
#include "rules/precision/precision_util.hpp"

namespace perflint {
namespace {

class RulePFL504 final : public Rule {
 public:
  const RuleInfo& info() const override {
    static const RuleInfo i{"PFL504", "channels-last-missing", "compute", Severity::Info,
                            "CNN under autocast without channels_last memory format", true, {}};
    return i;
  }
  std::vector<std::string_view> kinds() const override { return {"module"}; }

  void check(TSNode, const Model& model, Emitter& out) const override {
    const CallInfo* conv = first_call(model, is_conv2d_call);
    if (!conv) return;
    // Only 16-bit compute written in this file: precision from a launcher config is not known here.
    const ReducedPrecision rp = reduced_precision(model);
    if (rp.kind != ReducedPrecision::Kind::Present) return;
    if (uses_channels_last(model)) return;
    Finding& f = out.report(conv->node,
                            "16-bit convolutions in NCHW layout: tensor cores' convolution kernels want NHWC "
                            "(channels_last), so cuDNN inserts transposes around each conv",
                            "`model = model.to(memory_format=torch.channels_last)` and the same for the input batch");
    f.notes.push_back(out.note(rp.evidence, "16-bit compute at line " +
                                                std::to_string(out.source().position(ts_node_start_byte(rp.evidence)).line)));
  }
};

}  // namespace

std::unique_ptr<Rule> make_pfl504() { return std::make_unique<RulePFL504>(); }

}  // namespace perflint
