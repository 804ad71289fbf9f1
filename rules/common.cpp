// Shared rule helpers (see common.hpp).
#include "rules/common.hpp"

#include <array>

#include "parser/ts.hpp"

namespace perflint {

bool is_dataloader_call(const CallInfo& call) {
  const std::string_view q = call.qualname;  // compared as a view: no out-of-line std::string::compare
  return q == "torch.utils.data.DataLoader" || q == "torch.utils.data.dataloader.DataLoader";
}

TSNode unwrap_variable(const Model& model, TSNode expr) {
  for (int guard = 0; guard < 4; ++guard) {
    while (ts::is(expr, "parenthesized_expression") && ts_node_named_child_count(expr) > 0)
      expr = ts_node_named_child(expr, 0);
    const CallInfo* c = ts::is(expr, "call") ? model.call(expr) : nullptr;
    if (!c || (c->qualname != "torch.autograd.Variable" && c->qualname != "torch.autograd.variable.Variable") ||
        c->star_args || c->positional.empty())
      break;
    expr = c->positional.front();
  }
  return expr;
}

bool shows_training(const Model& model) {
  if (model.has_step_loop()) return true;
  for (const auto& c : model.calls()) {
    const std::string_view q = c.qualname, m = c.method;
    if (m == "backward" || q == "torch.autograd.backward" || q == "torch.autograd.grad") return true;
    if (q.starts_with("torch.optim.")) return true;   // an optimizer or a scheduler is built here
    if (m == "step" || m == "zero_grad") return true;  // optimizer.step(): trained through a wrapper
  }
  return false;
}

bool inference_only(const Model& model) {
  if (shows_training(model)) return false;
  bool says_so = false;
  for (const auto& c : model.calls()) {
    const std::string_view q = c.qualname, m = c.method;
    if (m == "train") return false;
    if (q == "torch.no_grad" || q == "torch.inference_mode" || (m == "eval" && c.positional.empty())) says_so = true;
    if (m == "requires_grad_" && !c.positional.empty()) {
      const Value v = model.evaluate(c.positional.front());
      if (v.truthy() == false) says_so = true;
    }
  }
  return says_so;
}

std::optional<LoaderArg> loader_arg(const Model& model, const CallInfo& call, std::string_view name) {
  static constexpr std::array<std::string_view, 15> order = {
      "dataset", "batch_size", "shuffle", "sampler", "batch_sampler", "num_workers", "collate_fn", "pin_memory",
      "drop_last", "timeout", "worker_init_fn", "multiprocessing_context", "generator", "prefetch_factor",
      "persistent_workers"};
  int index = -1;
  for (size_t i = 0; i < order.size(); ++i)
    if (order[i] == name) index = static_cast<int>(i);
  TSNode n = call.arg(name, index);
  if (ts_node_is_null(n)) {
    if (call.unresolved_kwargs || call.star_args) return std::nullopt;
    return LoaderArg{};
  }
  return LoaderArg{true, n, model.evaluate(n)};
}

const ArgOption* off_by_default_flag(const Value& value) {
  return value.truthy() == false ? value.from_option : nullptr;
}

std::string origin_note_text(std::string_view param, const Value& value) {
  const ArgOption* opt = value.from_option;
  if (!opt) return {};
  std::string text(param);
  text.append(" comes from ").append(opt->flag);
  // A flag without default= whose action is store_true/store_false has the action's implied default.
  if (ts_node_is_null(opt->default_value) && value.kind == Value::Kind::Bool)
    text.append(value.b ? " (store_false: True" : " (store_true: False").append(" unless the flag is given)");
  else
    text.append(", default ").append(value.repr());
  return text.append(", line ").append(std::to_string(opt->line));
}

std::optional<Note> origin_note(const Emitter& out, std::string_view param, const Value& value) {
  if (!value.from_option && !value.from_config.empty() && ts_node_is_null(value.origin))
    return Note{std::string(param) + " comes from " + value.from_config + ": " + value.repr(), std::nullopt};
  if (!value.from_option && !value.from_config.empty() && !ts_node_is_null(value.origin))
    return out.note(value.origin, std::string(param) + " comes from " + value.from_config + ": " + value.repr() +
                                      ", line " +
                                      std::to_string(out.source().position(ts_node_start_byte(value.origin)).line));
  if (!value.from_option) return std::nullopt;
  return out.note(value.from_option->call, origin_note_text(param, value));
}

std::optional<Note> via_dict_note(const Model& model, const Emitter& out, const CallInfo& call, std::string_view name) {
  const Argument* a = call.keyword(name);
  if (!a || ts_node_is_null(a->via_dict)) return std::nullopt;
  TSNode site = ts_node_is_null(a->dict_site) ? a->value : a->dict_site;
  return out.note(site, std::string(name) + " comes from `" + std::string(model.text(a->via_dict)) + "`, line " +
                            std::to_string(out.source().position(ts_node_start_byte(site)).line));
}

}  // namespace perflint
