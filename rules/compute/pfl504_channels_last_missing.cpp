// PFL504 channels-last-missing: a 2-D CNN under autocast whose tensors stay in NCHW. Tensor-core
// convolution kernels work in NHWC, so cuDNN transposes around every conv; info, because the gain
// depends on the network and channels_last can be slower for some layers.
#include <algorithm>
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
    // A network's convolution: a layer of a class (an nn.Module), or one built where a step loop runs
    // (the same function, or module level). A utility module's helper that rebuilds a layer once (a
    // classifier-head swap) is neither, and its file's 16-bit use may be a benchmark's.
    std::vector<TSNode> step_scopes;
    for (TSNode loop : model.step_loops()) step_scopes.push_back(model.enclosing(loop, "function_definition"));
    const CallInfo* conv = nullptr;
    for (const auto& c : model.calls()) {
      if (!is_conv2d_call(c.qualname)) continue;
      const TSNode fn = model.enclosing(c.node, "function_definition");
      const bool in_class = !ts_node_is_null(model.enclosing(c.node, "class_definition"));
      const bool where_it_trains =
          std::any_of(step_scopes.begin(), step_scopes.end(), [&](TSNode s) { return ts::same(s, fn); });
      if (in_class || where_it_trains) {
        conv = &c;
        break;
      }
    }
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
