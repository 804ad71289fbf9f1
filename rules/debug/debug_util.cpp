// Shared helpers of the debug-left-on rules (see debug_util.hpp).
#include "rules/debug/debug_util.hpp"

#include <string_view>
#include <vector>

#include "parser/ts.hpp"

namespace perflint {

bool encloses(TSNode outer, TSNode n) {
  return ts_node_start_byte(outer) <= ts_node_start_byte(n) && ts_node_end_byte(n) <= ts_node_end_byte(outer);
}

namespace {

// Names of same-file functions (and methods) that hold a step loop.
std::vector<TSNode> step_functions(const Model& model) {
  std::vector<TSNode> fns;
  for (TSNode loop : model.step_loops()) {
    TSNode fn = model.enclosing(loop, "function_definition");
    if (!ts_node_is_null(fn)) fns.push_back(fn);
  }
  return fns;
}

// The callee's name as written: `train(...)` -> train, `self.fit(...)` / `trainer.fit(...)` -> fit
// only for `self.` (another object's method may be any library's).
std::string_view callee_name(const Model& model, const CallInfo& c) {
  if (ts::is(c.function, "identifier")) return model.text(c.function);
  if (ts::is(c.receiver, "identifier") && model.text(c.receiver) == "self") return c.method;
  return {};
}

}  // namespace

TSNode first_step_site(const Model& model, TSNode region, uint32_t after_byte) {
  TSNode best{};
  const TSNode scope =
      ts::is(region, "function_definition") ? region : model.enclosing(region, "function_definition");
  auto consider = [&](TSNode n) {
    if (ts_node_start_byte(n) < after_byte || !encloses(region, n)) return;
    if (!ts::same(model.enclosing(n, "function_definition"), scope)) return;
    if (ts_node_is_null(best) || ts_node_start_byte(n) < ts_node_start_byte(best)) best = n;
  };
  for (TSNode loop : model.step_loops()) consider(loop);
  const std::vector<TSNode> fns = step_functions(model);
  if (fns.empty()) return best;
  for (const auto& c : model.calls()) {
    const std::string_view name = callee_name(model, c);
    if (name.empty() || !encloses(region, c.node) || ts_node_start_byte(c.node) < after_byte) continue;
    for (TSNode fn : fns)
      if (model.text(ts::field(fn, "name")) == name && !encloses(fn, c.node)) {
        consider(c.node);
        break;
      }
  }
  return best;
}

bool only_called_conditionally(const Model& model, TSNode node) {
  TSNode fn = model.enclosing(node, "function_definition");
  if (ts_node_is_null(fn)) return false;
  const std::string_view name = model.text(ts::field(fn, "name"));
  bool called = false;
  for (const auto& c : model.calls()) {
    if (callee_name(model, c) != name || encloses(fn, c.node)) continue;
    if (!model.under_condition(c.node)) return false;
    called = true;
  }
  // Called from no other function of this file: from the files that import it, each call under an
  // `if` (YOLOv3's provide_determinism(), called only when `--seed` is given; held-out round 11).
  return called || model.called_only_conditionally_elsewhere(name);
}

bool is_lightning_trainer(std::string_view q) {
  for (std::string_view root : {"lightning.", "lightning.pytorch.", "pytorch_lightning."}) {
    if (q.substr(0, root.size()) != root) continue;
    const std::string_view rest = q.substr(root.size());
    if (rest == "Trainer" || rest == "trainer.Trainer" || rest == "trainer.trainer.Trainer") return true;
  }
  return false;
}

bool region_runs_step_loop(const Model& model, TSNode region, uint32_t after_byte) {
  return !ts_node_is_null(first_step_site(model, region, after_byte));
}

}  // namespace perflint
