// PFL601 manual-attention: softmax(q @ k^T ...) written by hand. Each step materializes the
// (seq x seq) score matrix per head in memory and runs matmul, scale/mask, softmax, dropout and a
// second matmul as separate kernels, where scaled_dot_product_attention runs one fused kernel.
#include <algorithm>
#include <cctype>
#include <optional>
#include <string>
#include <unordered_set>

#include "parser/model.hpp"
#include "parser/ts.hpp"
#include "rules/all.hpp"
#include "rules/attention/attention_util.hpp"
#include "rules/common.hpp"

namespace perflint {
namespace {

// How far a local name is followed back through assignments (`scores = scores.masked_fill(...)`).
constexpr int kDepth = 4;

// `k.transpose(-2, -1)`, `k.permute(0, 1, 3, 2)`, `k.mT`, `torch.transpose(k, 2, 3)`, or a local
// name assigned one of those. `W.T` is left out on purpose: `x @ W.T` is a linear layer.
bool is_transposed(const Model& model, TSNode expr, int depth) {
  TSNode e = unparen(expr);
  if (ts::is(e, "attribute")) {
    const std::string_view attr = model.text(ts::field(e, "attribute"));
    return attr == "mT" || attr == "mH";
  }
  if (ts::is(e, "call")) {
    const CallInfo* c = model.call(e);
    if (!c) return false;
    if (c->qualname == "torch.transpose" || c->qualname == "torch.permute") return true;
    if (ts_node_is_null(c->receiver) || !c->qualname.empty()) return false;
    if (c->method == "transpose" || c->method == "permute" || c->method == "swapaxes" || c->method == "swapdims")
      return true;
    // `k.transpose(-2, -1).contiguous()`, `.float()`: the layout change is further down.
    if (c->method == "contiguous" || c->method == "float" || c->method == "half" || c->method == "to" ||
        c->method == "type_as")
      return is_transposed(model, c->receiver, depth);
    return false;
  }
  if (ts::is(e, "identifier") && depth > 0) {
    const auto values = values_assigned_before(model, model.text(e), e);
    return !values.empty() && is_transposed(model, values.front(), depth - 1);
  }
  // `k.transpose(-2, -1) * scale`, `k.mT / math.sqrt(d)`: scaled before the product.
  if (ts::is(e, "binary_operator") && depth > 0) {
    TSNode op = ts::field(e, "operator");
    if (!ts_node_is_null(op) && (ts::kind(op) == "*" || ts::kind(op) == "/"))
      return is_transposed(model, ts::field(e, "left"), depth - 1) ||
             (ts::kind(op) == "*" && is_transposed(model, ts::field(e, "right"), depth - 1));
  }
  return false;
}

// `torch.einsum("bhqd,bhkd->bhqk", q, k)`: two operands of three or more dimensions contracted
// over the last dimension of both (q·kᵀ). `einsum("bi,oi->bo", x, W)` is a linear layer: not one.
bool is_einsum_scores(const Model& model, const CallInfo& c) {
  if (c.qualname != "torch.einsum" || c.positional.size() != 3) return false;
  const Value eq = model.evaluate(c.positional[0]);
  if (eq.kind != Value::Kind::String) return false;
  std::string spec;
  for (char ch : eq.s)
    if (ch != ' ') spec.push_back(ch);
  const size_t arrow = spec.find("->"), comma = spec.find(',');
  if (arrow == std::string::npos || comma == std::string::npos || comma > arrow) return false;
  const std::string a = spec.substr(0, comma), b = spec.substr(comma + 1, arrow - comma - 1), o = spec.substr(arrow + 2);
  if (a.size() < 3 || b.size() < 3 || a.find('.') != std::string::npos || b.find('.') != std::string::npos) {
    // `...qd,...kd->...qk`: the ellipsis stands for the batch and head dimensions.
    if (!(a.starts_with("...") && b.starts_with("...") && a.size() >= 5 && b.size() >= 5)) return false;
  }
  // Every query meets the same keys: the query axis is not one of the keys' axes, nor the key axis
  // one of the queries' (`b i d, b i j d -> b i j` gives each pixel its own 3x3 neighbourhood of keys:
  // local attention, n x 9 scores that a fused kernel does not take; lightweight-gan, held-out round 12).
  const char qa = a[a.size() - 2], ka = b[b.size() - 2];
  if (b.find(qa) != std::string::npos || a.find(ka) != std::string::npos) return false;
  return a.back() == b.back() && o.find(a.back()) == std::string::npos && qa != ka && o.size() >= 2 &&
         o.back() == ka && o[o.size() - 2] == qa;
}

// The expression (or a local it reads, followed back through assignments) contains a product of
// something with a transposed operand: the attention scores q @ k^T.
bool has_scores(const Model& model, TSNode expr, int depth, std::unordered_set<uintptr_t>& seen) {
  bool found = false;
  std::vector<TSNode> names;
  ts::walk(expr, [&](TSNode n) {
    if (found) return false;
    if (ts::is(n, "binary_operator")) {
      TSNode op = ts::field(n, "operator");
      if (!ts_node_is_null(op) && ts::kind(op) == "@" && is_transposed(model, ts::field(n, "right"), kDepth)) {
        found = true;
        return false;
      }
    } else if (ts::is(n, "call")) {
      if (const CallInfo* c = model.call(n)) {
        const bool fn = c->qualname == "torch.matmul" || c->qualname == "torch.bmm";
        const bool method = c->qualname.empty() && !ts_node_is_null(c->receiver) &&
                            (c->method == "matmul" || c->method == "bmm");
        if ((fn && c->positional.size() >= 2 && is_transposed(model, c->positional[1], kDepth)) ||
            (method && c->positional.size() >= 1 && is_transposed(model, c->positional[0], kDepth)) ||
            is_einsum_scores(model, *c)) {
          found = true;
          return false;
        }
      }
    } else if (ts::is(n, "identifier")) {
      TSNode parent = ts::parent(n);
      const bool attr_name = ts::is(parent, "attribute") && !ts::same(ts::field(parent, "object"), n);
      const bool callee = ts::is(parent, "call") && ts::same(ts::field(parent, "function"), n);
      if (!attr_name && !callee) names.push_back(n);
    }
    return true;
  });
  if (found || depth == 0) return found;
  for (TSNode name : names)
    for (TSNode value : values_assigned_before(model, model.text(name), name)) {
      if (!seen.insert(reinterpret_cast<uintptr_t>(value.id)).second) continue;
      if (has_scores(model, value, depth - 1, seen)) return true;
    }
  return false;
}

// The weights leave the function (returned, or kept on `self` for visualization): SDPA does not
// return them, so the hand-written form is needed.
bool weights_kept(const Model& model, TSNode softmax) {
  TSNode stmt = statement_of(softmax);
  // `softmax(s) @ v` consumes the weights on the spot: whatever leaves is the output.
  for (TSNode n = ts::parent(softmax); !ts_node_is_null(n) && !ts::same(n, stmt); n = ts::parent(n)) {
    if (ts::is(n, "binary_operator")) return false;
    // `torch.bmm(softmax(s), v)`, `torch.einsum("...", softmax(s), v)`, `softmax(s).matmul(v)`.
    if (const CallInfo* c = ts::is(n, "call") ? model.call(n) : nullptr;
        c && (c->qualname == "torch.bmm" || c->qualname == "torch.matmul" || c->qualname == "torch.einsum" ||
              (c->qualname.empty() && (c->method == "matmul" || c->method == "bmm"))))
      return false;
  }
  if (ts::is(stmt, "return_statement")) return true;
  if (!ts::is(stmt, "assignment")) return false;
  TSNode left = ts::field(stmt, "left");
  if (!ts::is(left, "identifier")) return ts::is(left, "attribute");  // self.attn_probs = softmax(...)
  TSNode scope = scope_of(model, stmt);
  // The names that hold the weights: theirs, a plain copy (`post_softmax_attn = attn`), and a record
  // built from them (`Intermediates(post_softmax_attn=post_softmax_attn)`: x-transformers).
  std::vector<std::string_view> names{model.text(left)};
  const auto holds = [&](TSNode e) {
    e = unparen(e);
    return ts::is(e, "identifier") && std::find(names.begin(), names.end(), model.text(e)) != names.end();
  };
  for (size_t round = 0, before = 0; round < 4 && names.size() != before; ++round) {
    before = names.size();
    ts::walk(scope, [&](TSNode n) {
      if (!ts::is(n, "assignment") || !ts::is(ts::field(n, "left"), "identifier")) return true;
      const TSNode right = unparen(ts::field(n, "right"));
      bool from_weights = holds(right);
      if (ts::is(right, "call")) {
        const std::string_view fn = model.text(ts::field(right, "function"));
        if (ts::is(ts::field(right, "function"), "identifier") && !fn.empty() && (std::isupper(static_cast<unsigned char>(fn[0])) || fn == "dict"))
          for (TSNode a : ts::named_children(ts::field(right, "arguments")))
            from_weights = from_weights || holds(ts::is(a, "keyword_argument") ? ts::field(a, "value") : a);
      }
      const std::string_view target = model.text(ts::field(n, "left"));
      if (from_weights && std::find(names.begin(), names.end(), target) == names.end()) names.push_back(target);
      return true;
    });
  }
  bool kept = false;
  ts::walk(scope, [&](TSNode n) {
    if (kept) return false;
    if (ts::is(n, "return_statement") || ts::is(n, "yield")) {
      // `return out, attn` keeps the weights; `return attn @ v` only uses them.
      for (TSNode c : ts::named_children(n)) {
        std::vector<TSNode> items{c};
        if (ts::is(c, "expression_list") || ts::is(c, "tuple")) items = ts::named_children(c);
        for (TSNode item : items)
          if (holds(item)) kept = true;
      }
      return false;
    }
    if (ts::is(n, "assignment") && ts::is(ts::field(n, "left"), "attribute") && holds(ts::field(n, "right"))) {
      kept = true;
      return false;
    }
    return true;
  });
  return kept;
}

// The weights are changed after the softmax before they meet `v` (talking-heads projections
// `attn = self.proj_w(attn)`, a gated mix of two softmaxes `(1 - g) * patch + g * pos`):
// scaled_dot_product_attention cannot express that. Dropout and casts do not count.
bool weights_transformed(const Model& model, TSNode softmax) {
  TSNode stmt = statement_of(softmax);
  if (!ts::is(stmt, "assignment") || !ts::same(unparen(ts::field(stmt, "right")), softmax)) return false;
  TSNode left = ts::field(stmt, "left");
  if (!ts::is(left, "identifier")) return false;
  const std::string_view name = model.text(left);
  TSNode scope = scope_of(model, stmt);
  uint32_t after = ts_node_end_byte(stmt);
  for (int hops = 0; hops < 6; ++hops) {
    TSNode use{};
    ts::walk(scope, [&](TSNode n) {
      if (!ts_node_is_null(use) || ts_node_end_byte(n) <= after) return false;
      if (ts::is(n, "identifier") && ts_node_start_byte(n) >= after && model.text(n) == name) {
        TSNode parent = ts::parent(n);
        const bool target = ts::is(parent, "assignment") && ts::same(ts::field(parent, "left"), n);
        if (!target) use = n;
      }
      return ts_node_is_null(use);
    });
    if (ts_node_is_null(use)) return false;
    TSNode parent = ts::parent(use);
    while (ts::is(parent, "parenthesized_expression")) parent = ts::parent(parent);
    if (ts::is(parent, "binary_operator")) {
      TSNode op = ts::field(parent, "operator");
      return ts_node_is_null(op) || ts::kind(op) != "@";  // `attn @ v` consumes; `g * attn` mixes
    }
    if (ts::is(parent, "attribute")) {
      TSNode call = ts::parent(parent);
      const CallInfo* c = ts::is(call, "call") ? model.call(call) : nullptr;
      if (c && (c->method == "matmul" || c->method == "bmm")) return false;
      if (!c || !(c->method == "to" || c->method == "type_as" || c->method == "float" || c->method == "half" ||
                  c->method == "masked_fill" || c->method == "view" || c->method == "reshape"))
        return true;
    } else if (ts::is(parent, "argument_list")) {
      const CallInfo* c = model.call(ts::parent(parent));
      if (!c) return true;
      if (c->qualname == "torch.matmul" || c->qualname == "torch.bmm" || c->qualname == "torch.einsum") return false;
      if (model.text(c->function).find("drop") == std::string_view::npos) return true;  // a projection
    } else if (!ts::is(parent, "expression_list") && !ts::is(parent, "return_statement")) {
      return false;
    } else {
      return false;
    }
    after = ts_node_end_byte(statement_of(use));
  }
  return false;
}

bool is_softmax(std::string_view q) {
  return q == "torch.softmax" || q == "torch.nn.functional.softmax" || q == "torch.special.softmax";
}

// `self.softmax(scores)` with `self.softmax = nn.Softmax(dim=-1)`, `self.attend(dots)` with
// `self.attend = nn.Softmax(dim=-1)` (vit-pytorch's style: SPT_LSA_ViT, held-out round 30), or
// `sm(scores)` with `sm = F.softmax` / `sm = nn.Softmax(-1)`: a softmax through a module attribute or
// an alias, whatever its name.
bool is_softmax_holder(const Model& model, const CallInfo& call) {
  if (!call.qualname.empty()) return false;
  TSNode f = call.function;
  if (!ts::is(f, "identifier") && !ts::is(f, "attribute")) return false;
  for (TSNode v : model.assigned_values(model.text(f))) {
    v = unparen(v);
    if (ts::is(v, "call")) v = ts::field(v, "function");
    const std::string q = model.qualname(v);
    if (is_softmax(q) || q == "torch.nn.Softmax") return true;
  }
  return false;
}

// A call of `F.scaled_dot_product_attention` in the same class (or function, outside a class):
// the hand-written form next to it is the fallback (`if self.flash: ... else: manual`), or an
// implementation picked by configuration. Null when there is none.
const CallInfo* sdpa_nearby(const Model& model, TSNode node) {
  TSNode scope = model.enclosing(node, "class_definition");
  if (ts_node_is_null(scope)) scope = scope_of(model, node);
  for (const auto& c : model.calls()) {
    if (ts_node_start_byte(c.node) < ts_node_start_byte(scope) || ts_node_end_byte(c.node) > ts_node_end_byte(scope))
      continue;
    if (c.qualname == "torch.nn.functional.scaled_dot_product_attention" ||
        (c.qualname.empty() && c.method == "scaled_dot_product_attention"))
      return &c;
  }
  return nullptr;
}

// Where the hand-written form and the fused call are the two branches of one `if` (`if
// self.fused_attn: sdpa(...) else: manual`): whether the fused branch is the one that runs by default.
// Yes when the condition is unknown (a configuration function, a constructor flag): the code already
// prefers the fused kernel, and which branch a run takes is not ours to guess. No when the condition
// is known to select the hand-written branch. nullopt when they are not branches of one `if`.
std::optional<bool> fused_branch_by_default(const Model& model, TSNode manual, TSNode fused) {
  const auto inside = [](TSNode n, TSNode outer) {
    return !ts_node_is_null(outer) && ts_node_start_byte(outer) <= ts_node_start_byte(n) &&
           ts_node_end_byte(n) <= ts_node_end_byte(outer);
  };
  for (TSNode p = ts::parent(manual); !ts_node_is_null(p); p = ts::parent(p)) {
    if (ts::is(p, "function_definition") || ts::is(p, "class_definition")) break;
    if (!ts::is(p, "if_statement") || !inside(fused, p)) continue;
    const TSNode then = ts::field(p, "consequence");
    const bool fused_then = inside(fused, then), manual_then = inside(manual, then);
    if (fused_then == manual_then) return std::nullopt;
    const Value v = model.evaluate(ts::field(p, "condition"));
    const std::optional<bool> on = v.truthy();
    if (!on) return true;
    return *on == fused_then;
  }
  return std::nullopt;
}

class RulePFL601 final : public Rule {
 public:
  const RuleInfo& info() const override {
    static const RuleInfo i{"PFL601", "manual-attention", "attention", Severity::Warning,
                            "Hand-written softmax(q @ k^T / sqrt(d)) @ v attention instead of scaled_dot_product_attention",
                            false, {}};
    return i;
  }
  std::vector<std::string_view> kinds() const override { return {"call"}; }
  bool wants(const CallInfo& call) const override {
    // Unresolved calls: `x.softmax(...)`, and names that may hold a softmax (`self.softmax`,
    // `self.attend`, `sm`): is_softmax_holder reads what they were assigned.
    return is_softmax(call.qualname) ||
           (call.qualname.empty() && (call.method.empty() || call.method.find("softmax") != std::string_view::npos ||
                                      ts::is(call.receiver, "identifier")));
  }

  void check(TSNode node, const Model& model, Emitter& out) const override {
    const CallInfo* call = model.call(node);
    if (!call) return;
    TSNode input{};
    if (is_softmax(call->qualname))
      input = call->arg("input", 0);
    else if (is_softmax_holder(model, *call))
      input = call->arg("input", 0);  // self.softmax(scores)
    else if (call->qualname.empty() && call->method == "softmax" && !ts_node_is_null(call->receiver))
      input = call->receiver;  // scores.softmax(dim=-1)
    if (ts_node_is_null(input)) return;
    std::unordered_set<uintptr_t> seen;
    if (!has_scores(model, input, kDepth, seen)) return;
    if (weights_kept(model, node)) return;
    if (weights_transformed(model, node)) return;
    if (const CallInfo* fused = sdpa_nearby(model, node)) {
      if (fused_branch_by_default(model, node, fused->node).value_or(false)) return;
      const std::string line = std::to_string(model.source().position(ts_node_start_byte(fused->node)).line);
      Finding& f = out.report(node,
                              "hand-written attention next to a scaled_dot_product_attention path (line " + line +
                                  "): this is its fallback, and it materializes the full attention matrix when taken",
                              "make sure the fused path is the one that runs (PyTorch >= 2.0, the flag that selects it "
                              "on), or drop the fallback");
      f.severity = Severity::Info;
      f.notes.push_back(out.note(fused->node, "the fused path"));
      return;
    }
    Finding& f = out.report(node,
                            "hand-written attention (softmax(q @ kᵀ ...)) materializes the full attention matrix in "
                            "memory and runs 3+ kernels",
                            "`torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=..., dropout_p=..., "
                            "is_causal=...)` (PyTorch >= 2.0): fused Flash/memory-efficient kernels");
    f.notes.push_back(Note{"the score matrix is batch x heads x seq x seq: its memory and the kernels around it grow "
                           "with the square of the sequence length",
                           std::nullopt});
  }
};

}  // namespace

std::unique_ptr<Rule> make_pfl601() { return std::make_unique<RulePFL601>(); }

}  // namespace perflint
