// Factory of every rule (one function per rule file); registry.cpp sorts and owns them.
#pragma once
#include <memory>
#include <vector>

#include "rules/rule.hpp"

namespace perflint {
std::vector<std::unique_ptr<Rule>> make_all_rules();

std::unique_ptr<Rule> make_pfl001();  // unused-suppression (opt-in; reported by the engine)
std::unique_ptr<Rule> make_pfl101();  // dataloader-main-process
std::unique_ptr<Rule> make_pfl102();  // dataloader-unpinned
std::unique_ptr<Rule> make_pfl103();  // blocking-h2d-copy
std::unique_ptr<Rule> make_pfl104();  // non-blocking-without-pinned
std::unique_ptr<Rule> make_pfl105();  // workers-not-persistent
std::unique_ptr<Rule> make_pfl201();  // per-step-item
std::unique_ptr<Rule> make_pfl202();  // per-step-host-transfer
std::unique_ptr<Rule> make_pfl301();  // anomaly-detection-on
std::unique_ptr<Rule> make_pfl401();  // tf32-disabled
std::unique_ptr<Rule> make_pfl501();  // activation-checkpointing

// Issue 3 rules (preview until their checks land)
std::unique_ptr<Rule> make_pfl203();  // explicit-sync-in-step
std::unique_ptr<Rule> make_pfl204();  // host-tensor-in-step
std::unique_ptr<Rule> make_pfl302();  // profiler-left-on
std::unique_ptr<Rule> make_pfl303();  // launch-blocking
std::unique_ptr<Rule> make_pfl304();  // determinism-cost
std::unique_ptr<Rule> make_pfl402();  // no-mixed-precision
std::unique_ptr<Rule> make_pfl502();  // zero-grad-fill
std::unique_ptr<Rule> make_pfl503();  // cudnn-benchmark-off
std::unique_ptr<Rule> make_pfl504();  // channels-last-missing
std::unique_ptr<Rule> make_pfl601();  // manual-attention
std::unique_ptr<Rule> make_pfl602();  // mha-need-weights
std::unique_ptr<Rule> make_pfl603();  // compile-recompiles
std::unique_ptr<Rule> make_pfl701();  // ddp-find-unused
std::unique_ptr<Rule> make_pfl801();  // host-timer-no-sync

}  // namespace perflint
