// PFL602 mha-need-weights: `nn.MultiheadAttention` called with the default need_weights=True while
// the weights are thrown away. Returning weights makes the module compute softmax(QKᵀ) explicitly
// instead of calling the fused scaled_dot_product_attention kernel.
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "parser/model.hpp"
#include "parser/ts.hpp"
#include "rules/all.hpp"
#include "rules/attention/attention_util.hpp"
#include "rules/common.hpp"

namespace perflint {
namespace {

struct Construction {
  std::string target;  // "self.attn", "mha"
  TSNode scope{};      // the class for self.X, the function for a local, null at module level
  TSNode site{};
};

bool is_mha(std::string_view q) {
  return q == "torch.nn.MultiheadAttention" || q == "torch.nn.modules.activation.MultiheadAttention";
}

TSNode parent_skipping_parens(TSNode n, TSNode* child) {
  TSNode p = ts::parent(n);
  *child = n;
  while (ts::is(p, "parenthesized_expression")) {
    *child = p;
    p = ts::parent(p);
  }
  return p;
}

std::vector<Construction> constructions(const Model& model) {
  std::vector<Construction> out;
  for (const auto& c : model.calls()) {
    if (!is_mha(c.qualname)) continue;
    TSNode child{};
    TSNode p = parent_skipping_parens(c.node, &child);
    // `nn.MultiheadAttention(...).cuda()`, `.to(device)`: still the module.
    while (ts::is(p, "attribute") && ts::is(ts::parent(p), "call")) {
      const std::string_view m = model.text(ts::field(p, "attribute"));
      if (m != "cuda" && m != "to" && m != "half" && m != "float" && m != "bfloat16" && m != "train" && m != "eval")
        break;
      p = parent_skipping_parens(ts::parent(p), &child);
    }
    // `self.attns = nn.ModuleList([nn.MultiheadAttention(...) for _ in range(n)])` (or a list of
    // them): each element is one; recorded as `self.attns[]` (calls by index or by a loop over it).
    std::string element;
    if (ts::is(p, "list_comprehension") || ts::is(p, "generator_expression") || ts::is(p, "list")) {
      TSNode inner{};
      TSNode q = parent_skipping_parens(p, &inner);
      if (ts::is(q, "argument_list")) q = parent_skipping_parens(q, &inner);
      const CallInfo* list = ts::is(q, "call") ? model.call(q) : nullptr;
      if (!list || (list->qualname != "torch.nn.ModuleList" && list->qualname != "torch.nn.modules.container.ModuleList"))
        continue;
      p = parent_skipping_parens(q, &child);
      element = "[]";
    }
    if (!ts::is(p, "assignment") || !ts::same(ts::field(p, "right"), child)) continue;
    TSNode left = ts::field(p, "left");
    if (!element.empty()) {
      if (ts::is(left, "attribute") && model.text(ts::field(left, "object")) == "self")
        out.push_back({std::string(model.text(left)) + element, model.enclosing(p, "class_definition"), c.node});
      continue;
    }
    if (ts::is(left, "attribute") && model.text(ts::field(left, "object")) == "self")
      out.push_back({std::string(model.text(left)), model.enclosing(p, "class_definition"), c.node});
    else if (ts::is(left, "identifier"))
      out.push_back({std::string(model.text(left)), model.enclosing(p, "function_definition"), c.node});
  }
  return out;
}

// The constructions by target name: a call looks only at those of its callee's name, and finds its
// own class/function once (a file with many classes reusing `self.attn` stays linear).
using ConstructionIndex = std::unordered_map<std::string_view, std::vector<const Construction*>>;

// The ModuleList an element call takes its module from: `self.attns[i](...)`, or `attn(...)` in
// `for attn in self.attns:` of the same function; as constructions() records it (`self.attns[]`).
std::string element_of(const Model& model, TSNode function, TSNode call) {
  if (ts::is(function, "subscript")) return std::string(model.text(ts::field(function, "value"))) + "[]";
  if (!ts::is(function, "identifier")) return {};
  for (TSNode p = ts::parent(call); !ts_node_is_null(p); p = ts::parent(p)) {
    if (ts::is(p, "function_definition") || ts::is(p, "class_definition")) break;
    if (ts::is(p, "for_statement") && ts::is(ts::field(p, "left"), "identifier") &&
        model.text(ts::field(p, "left")) == model.text(function))
      return std::string(model.text(ts::field(p, "right"))) + "[]";
  }
  return {};
}

const Construction* constructed_as(const Model& model, const CallInfo& call, const ConstructionIndex& cs) {
  auto it = cs.find(model.text(call.function));
  std::string element;
  if (it == cs.end() && !(element = element_of(model, call.function, call.node)).empty()) it = cs.find(element);
  if (it == cs.end()) return nullptr;
  std::optional<TSNode> cls, fn;
  for (const Construction* c : it->second) {
    if (c->target.starts_with("self.")) {
      // Another class's `self.attn` is another module.
      if (!cls) cls = model.enclosing(call.node, "class_definition");
      if (ts::same(*cls, c->scope)) return c;
    } else if (ts_node_is_null(c->scope)) {
      return c;
    } else {
      if (!fn) fn = model.enclosing(call.node, "function_definition");
      if (ts::same(*fn, c->scope)) return c;
    }
  }
  return nullptr;
}

bool is_zero_index(const Model& model, TSNode subscript) {
  TSNode index = ts::field(subscript, "subscript");
  return !ts_node_is_null(index) && model.text(index) == "0";
}

// Every later read of `name` is `name[0]` (and there is at least none other): the weights in
// `name[1]` are never looked at.
bool only_output_read(const Model& model, std::string_view name, TSNode scope, uint32_t after) {
  bool other = false;
  ts::walk(scope, [&](TSNode n) {
    if (other || ts_node_end_byte(n) <= after) return false;
    if (!ts::is(n, "identifier") || ts_node_start_byte(n) < after || model.text(n) != name) return true;
    TSNode parent = ts::parent(n);
    if (ts::is(parent, "attribute") && ts::same(ts::field(parent, "attribute"), n)) return false;
    if (ts::is(parent, "assignment") && ts::same(ts::field(parent, "left"), n)) return false;
    if (ts::is(parent, "subscript") && ts::same(ts::field(parent, "value"), n) && is_zero_index(model, parent))
      return false;
    other = true;
    return false;
  });
  return !other;
}

enum class Use { Discarded, Unused, Kept };

// What the caller does with the (output, weights) tuple.
Use weights_use(const Model& model, TSNode call, std::string* unused_name) {
  TSNode child{};
  TSNode p = parent_skipping_parens(call, &child);
  if (ts::is(p, "subscript") && ts::same(ts::field(p, "value"), child))
    return is_zero_index(model, p) ? Use::Discarded : Use::Kept;
  if (!ts::is(p, "assignment") || !ts::same(ts::field(p, "right"), child)) return Use::Kept;
  TSNode left = ts::field(p, "left");
  TSNode scope = scope_of(model, p);
  const uint32_t after = ts_node_end_byte(p);
  if (ts::is(left, "identifier"))
    return only_output_read(model, model.text(left), scope, after) ? Use::Discarded : Use::Kept;
  if (!ts::is(left, "pattern_list") && !ts::is(left, "tuple_pattern") && !ts::is(left, "list_pattern")) return Use::Kept;
  const auto items = ts::named_children(left);
  if (items.size() != 2 || !ts::is(items[1], "identifier")) return Use::Kept;
  const std::string_view w = model.text(items[1]);
  if (w.starts_with("_")) return Use::Discarded;
  if (read_after(model, w, scope, after)) return Use::Kept;
  *unused_name = std::string(w);
  return Use::Unused;
}

class RulePFL602 final : public Rule {
 public:
  const RuleInfo& info() const override {
    static const RuleInfo i{"PFL602", "mha-need-weights", "attention", Severity::Warning,
                            "nn.MultiheadAttention called without need_weights=False", false, {}};
    return i;
  }
  std::vector<std::string_view> kinds() const override { return {"module"}; }

  void check(TSNode, const Model& model, Emitter& out) const override {
    const std::vector<Construction> made = constructions(model);
    if (made.empty()) return;
    ConstructionIndex cs;
    for (const auto& c : made) cs[c.target].push_back(&c);
    for (const auto& call : model.calls()) {
      if (!ts::is(call.function, "identifier") && !ts::is(call.function, "attribute") &&
          !ts::is(call.function, "subscript"))
        continue;
      const Construction* c = constructed_as(model, call, cs);
      if (!c) continue;
      if (call.unresolved_kwargs || call.star_args) continue;
      // forward(query, key, value, key_padding_mask, need_weights, ...): a False or unknown value is
      // the user's decision.
      if (TSNode nw = call.arg("need_weights", 4); !ts_node_is_null(nw) && model.evaluate(nw).truthy() != true)
        continue;
      std::string unused;
      const Use use = weights_use(model, call.node, &unused);
      if (use == Use::Kept) continue;
      Finding& f = out.report(call.node,
                              "nn.MultiheadAttention returns averaged attention weights by default (need_weights=True), "
                              "which forces the slow non-fused path that materializes the attention matrix",
                              "pass `need_weights=False` when you do not use the weights: `out, _ = " +
                                  std::string(model.text(call.function)) + "(q, k, v, need_weights=False)`");
      if (!unused.empty())
        f.notes.push_back(Note{"the weights are bound to `" + unused + "` but never read", std::nullopt});
      f.notes.push_back(out.note(c->site, "the module is built here (line " +
                                               std::to_string(out.source().position(ts_node_start_byte(c->site)).line) +
                                               ")"));
    }
  }
};

}  // namespace

std::unique_ptr<Rule> make_pfl602() { return std::make_unique<RulePFL602>(); }

}  // namespace perflint
