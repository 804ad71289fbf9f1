// Semantic model of one Python file, part: Values: constant evaluation through assignments, argparse options and their defaults.
#include "parser/model/impl.hpp"

#include <filesystem>

namespace perflint {

const Model::Impl::Bindings& Model::Impl::bindings() const {
  if (!bindings_) {
    Bindings& b = bindings_.emplace();
    for (size_t i = 0; i < all_assigns.size(); ++i) {
      const Assign& a = all_assigns[i];
      if (is(a.target, "identifier")) {
        b.assigns[scope_key(a.ctx.function, t(a.target))].push_back(i);
        b.by_name[t(a.target)].push_back(i);
      } else if (is(a.target, "attribute")) {
        b.by_attribute[t(a.target)].push_back(i);
      } else if (is(a.target, "subscript")) {
        TSNode base = field(a.target, "value");
        if (is(base, "identifier")) b.by_subscripted[t(base)].push_back(i);
      } else if ((is(a.target, "pattern_list") || is(a.target, "tuple_pattern")) &&
                 (is(a.value, "call") || is(a.value, "identifier"))) {
        int index = 0;
        for (TSNode e : ts::named_children(a.target)) {
          if (!is(e, "identifier")) {
            if (is(e, "list_splat_pattern")) break;  // `a, *rest = f()`: later positions are unknown
            ++index;
            continue;
          }
          b.by_unpacked[t(e)].emplace_back(i, index++);
        }
      }
      if (!null(a.ctx.function)) b.by_function[key(a.ctx.function)].push_back(i);
    }
    for (const ScopeName& sk : opaque_names)
      if (!b.opaque.insert(sk).second) b.opaque_again.insert(sk);
  }
  return *bindings_;
}

namespace {

// An int stays one, a string that spells an int becomes it (keeping where it came from), anything
// else is unknown: argparse's `type=int`, Python's `int(x)`.
Value as_int(Value v) {
  if (v.kind == Value::Kind::Int) return v;
  if (v.kind != Value::Kind::String || v.s.empty()) return Value{};
  char* end = nullptr;
  const long long x = std::strtoll(v.s.c_str(), &end, 10);
  if (!end || *end != '\0') return Value{};
  v.kind = Value::Kind::Int;
  v.i = x;
  return v;
}

}  // namespace

bool Model::Impl::same_value(const Value& l, const Value& r) {
  if (!l.known() || l.kind != r.kind) return false;
  switch (l.kind) {
    case Value::Kind::String: return l.s == r.s;
    case Value::Kind::Int: return l.i == r.i;
    case Value::Kind::Bool: return l.b == r.b;
    case Value::Kind::Float: return l.f == r.f;
    case Value::Kind::None: return true;
    default: return false;
  }
}

std::optional<std::pair<TSNode, TSNode>> Model::Impl::single_call_argument(TSNode function, std::string_view name) const {
  const size_t fi = function_index(function);
  if (fi == SIZE_MAX) return std::nullopt;
  const auto& ps = functions[fi].params;
  const auto p = std::find(ps.begin(), ps.end(), name);
  if (p == ps.end()) return std::nullopt;
  if (callers.size() != functions.size() || !null(functions[fi].cls) || callers[fi].size() != 1)
    return std::make_pair(TSNode{}, TSNode{});
  // Its position as written: a plain function (a module-level `def forward(self, x)` takes `self` too).
  const size_t ci = callers[fi].front();
  const CallInfo& c = calls[ci];
  // Bound only as the parameter (not also a loop variable, a `with ... as` name, a tuple target).
  if (c.star_args || c.unresolved_kwargs || bindings().opaque_again.count(scope_key(function, name)))
    return std::make_pair(TSNode{}, TSNode{});
  return std::make_pair(c.arg(name, static_cast<int>(p - ps.begin())), call_ctx[ci].function);
}

// nullopt: `name` is not a parameter of `function` (the module's binding, if any, is then the
// name's); a Value (possibly unknown) when it is one.
std::optional<Value> Model::Impl::argument_value(TSNode function, std::string_view name, int depth) const {
  const auto bound = single_call_argument(function, name);
  if (!bound) return std::nullopt;
  return null(bound->first) ? Value{} : eval(bound->first, bound->second, depth + 1);
}

Value Model::Impl::eval(TSNode n, TSNode function, int depth) const {
  Value v;
  if (null(n) || depth > 8) return v;
  const std::string_view k = kind(n);
  v.origin = n;
  if (k == "integer") {
    const std::string s(t(n));
    char* end = nullptr;
    const long long x = std::strtoll(s.c_str(), &end, 0);
    if (end && *end == '\0') { v.kind = Value::Kind::Int; v.i = x; }
    return v;
  }
  if (k == "float") {
    v.kind = Value::Kind::Float;
    v.f = std::strtod(std::string(t(n)).c_str(), nullptr);
    return v;
  }
  if (k == "true" || k == "false") { v.kind = Value::Kind::Bool; v.b = k == "true"; return v; }
  if (k == "none") { v.kind = Value::Kind::None; return v; }
  if (k == "string") {
    // Plain strings only: no interpolation.
    const uint32_t count = ts_node_named_child_count(n);
    std::string s;
    for (uint32_t i = 0; i < count; ++i) {
      TSNode c = ts_node_named_child(n, i);
      if (is(c, "interpolation")) return Value{};
      if (is(c, "string_content")) s += t(c);
    }
    v.kind = Value::Kind::String;
    v.s = std::move(s);
    return v;
  }
  if (k == "parenthesized_expression") return eval(ts_node_named_child(n, 0), function, depth + 1);
  // `int(opt.workers)` (pointnet.pytorch's num_workers, held-out round 13): an int default stays one.
  if (k == "call" && t(field(n, "function")) == "int") {
    const TSNode args = field(n, "arguments");
    if (!is(args, "argument_list") || ts_node_named_child_count(args) != 1) return Value{};
    return as_int(eval(ts_node_named_child(args, 0), function, depth + 1));
  }
  // `torch.device("cpu")`: the device's name (a string argument; `torch.device("cuda", 1)` too).
  if (k == "call" && qualname_of(field(n, "function")) == "torch.device") {
    const TSNode args = field(n, "arguments");
    if (!is(args, "argument_list") || ts_node_named_child_count(args) < 1) return Value{};
    const Value name = eval(ts_node_named_child(args, 0), function, depth + 1);
    return name.kind == Value::Kind::String ? name : Value{};
  }
  // `getattr(self.config, "gradient_checkpointing", False)` where nothing in the project names the
  // attribute (decision-transformer's copy of GPT-2, held-out round 20): the default.
  if (k == "call" && t(field(n, "function")) == "getattr" && project) {
    const TSNode args = field(n, "arguments");
    if (!is(args, "argument_list") || ts_node_named_child_count(args) != 3) return Value{};
    const Value name = eval(ts_node_named_child(args, 1), function, depth + 1);
    const TSNode fallback = ts_node_named_child(args, 2);
    if (name.kind != Value::Kind::String || name.s.empty() || !(is(fallback, "false") || is(fallback, "none") ||
                                                                  is(fallback, "true") || is(fallback, "integer")))
      return Value{};
    if (count_word(text, name.s, 2) != 1 || project->mentioned_elsewhere(src.path(), name.s)) return Value{};
    return eval(fallback, function, depth + 1);
  }
  if (k == "unary_operator") {
    Value inner = eval(field(n, "argument"), function, depth + 1);
    TSNode op = ts_node_child(n, 0);
    if (inner.kind == Value::Kind::Int && t(op) == "-") { inner.i = -inner.i; return inner; }
    return Value{};
  }
  if (k == "not_operator") {
    Value inner = eval(field(n, "argument"), function, depth + 1);
    const std::optional<bool> truth = inner.truthy();
    if (!truth) return Value{};
    inner.kind = Value::Kind::Bool;
    inner.b = !*truth;
    inner.origin = n;
    return inner;
  }
  if (k == "comparison_operator") {
    // `args.arch == "stylegan2"`, `opt.mode != 'test'`: two known values of one kind.
    if (ts_node_named_child_count(n) != 2 || ts_node_child_count(n) != 3) return Value{};
    // `args.seed is not None` with `--seed` 1 by default (SpCL, held-out round 53): a known value
    // against None. (`is not` is one operator node, however it is spaced.)
    if (const std::string_view op_is = ts::kind(ts_node_child(n, 1)); op_is == "is" || op_is == "is not") {
      if (!is(ts_node_named_child(n, 1), "none")) return Value{};
      // Only a value that is not None: an option left at None by default (`--clip_gradient`,
      // `--resume`) is usually one the launch passes, and its branch is not taken as off.
      const Value l = eval(ts_node_named_child(n, 0), function, depth + 1);
      if (!l.known() || l.kind == Value::Kind::None) return Value{};
      Value out = l;
      out.kind = Value::Kind::Bool;
      out.b = op_is == "is not";
      out.origin = n;
      return out;
    }
    const std::string_view op = t(ts_node_child(n, 1));
    const bool ordered = op == "<" || op == ">" || op == "<=" || op == ">=";
    if (op != "==" && op != "!=" && !ordered) return Value{};
    // Not a value the script sets at run time (`args.rank = args.rank * ngpus + gpu` before
    // `if args.rank == 0:`), nor a process's rank or device: those differ between processes.
    for (TSNode side : {ts_node_named_child(n, 0), ts_node_named_child(n, 1)}) {
      if (!is(side, "attribute")) continue;
      if (bindings().by_attribute.count(t(side))) return Value{};
      for (std::string_view w : {"rank", "gpu", "device", "local", "world", "node"})
        if (icontains(t(field(side, "attribute")), w)) return Value{};
    }
    const Value l = eval(ts_node_named_child(n, 0), function, depth + 1);
    const Value r = eval(ts_node_named_child(n, 1), function, depth + 1);
    const auto number = [](const Value& v) -> std::optional<double> {
      if (v.kind == Value::Kind::Int) return static_cast<double>(v.i);
      if (v.kind == Value::Kind::Float) return v.f;
      return std::nullopt;
    };
    // Numbers, ints and floats mixed: `if smoothing > 0.0:` with the option's default 0.0, and `if
    // args.regularization != 0.0:` (KnowledgeGraphEmbedding, held-out round 32): two numbers written
    // in the source compare exactly (the same decimal parses to the same double).
    const std::optional<double> a = number(l), c = number(r);
    std::optional<bool> holds;
    if (a && c && (ordered || l.kind == Value::Kind::Float || r.kind == Value::Kind::Float))
      holds = op == "<" ? *a < *c : op == ">" ? *a > *c : op == "<=" ? *a <= *c : op == ">=" ? *a >= *c
                                                                                : (op == "==") == (*a == *c);
    else if (!ordered && l.known() && r.known() && l.kind == r.kind)
      holds = (op == "==") == same_value(l, r);
    if (!holds) return Value{};
    Value out = l.from_option || !l.from_config.empty() ? l : r;
    out.kind = Value::Kind::Bool;
    out.b = *holds;
    out.origin = n;
    return out;
  }
  if (k == "identifier") {
    const std::string_view name = t(n);
    for (TSNode scope : {function, TSNode{}}) {
      const ScopeName sk = scope_key(scope, name);
      const Bindings& b = bindings();
      auto it = b.assigns.find(sk);
      if (b.opaque.count(sk)) {
        // A parameter (bound nowhere else in its function) of a plain function of this file called
        // from one place takes that call's argument (`_create_data_loader(path, bs, size,
        // args.n_cpu)`: YOLOv3's num_workers).
        if (!null(scope) && it == b.assigns.end())
          if (const std::optional<Value> v = argument_value(scope, name, depth)) {
            if (!v->known())
              if (Value w = importers_argument(scope, name, depth); w.known()) return w;
            return *v;
          }
        return Value{};
      }
      if (it == b.assigns.end()) continue;
      if (it->second.size() != 1) return Value{};
      return eval(all_assigns[it->second.front()].value, scope, depth + 1);
    }
    // `from settings import NUM_WORKERS`: the other module's constant.
    return imported_constant(n);
  }
  if (k == "subscript") {
    // `config["num_workers"]` of a dict literal.
    const TSNode obj = field(n, "value"), sub = field(n, "subscript");
    if (!is(obj, "identifier") || null(sub)) return Value{};
    const Value key = eval(sub, function, depth + 1);
    if (key.kind != Value::Kind::String) return Value{};
    if (Value a = parsed_args_entry(obj, key.s, function, depth); a.known()) return a;
    return config_value(obj, key.s, function, depth);
  }
  if (k == "attribute") {
    if (Value c = config_tree_value(n, depth); c.known()) return c;
    if (Value c = class_constant(n, depth); c.known()) return c;
    if (Value c = imported_constant(n); c.known()) return c;
    // args.workers -> the argparse default of --workers.
    TSNode obj = field(n, "object");
    // `self.loss_device`, bound once in the file, by its class's constructor (`self.loss_device =
    // loss_device`): what that constructor binds it to (a parameter: what the calls pass).
    if (is(obj, "identifier") && t(obj) == "self" && !null(function) && depth < 8)
      if (const auto it = bindings().by_attribute.find(t(n)); it != bindings().by_attribute.end() && it->second.size() == 1) {
        const Assign& a = all_assigns[it->second.front()];
        const TSNode init = a.ctx.function;
        const size_t fi = null(init) ? SIZE_MAX : function_index(init), here = function_index(function);
        if (fi != SIZE_MAX && here != SIZE_MAX && functions[fi].name == "__init__" && !null(functions[fi].cls) &&
            ts::same(functions[fi].cls, functions[here].cls))
          if (Value v = eval(a.value, init, depth + 1); v.known()) return v;
      }
    // Options parsed in another module of the project: `args = get_args()`, `from config import args`.
    if (is(obj, "identifier") && project && !find_option(t(field(n, "attribute"))))
      if (Value v = imported_option(obj, t(field(n, "attribute")), function); v.known()) return v;
    // `constant.args.label_smoothing`: the options another module parses at its top level, read
    // through that module (end2end-asr-pytorch's utils/constant.py, held-out round 29).
    if (is(obj, "attribute") && project && is_plain_dotted(t(obj)) && !find_option(t(field(n, "attribute"))))
      if (const std::string q = qualname_of(obj); q.find('.') != std::string::npos && !library_root(q))
        if (Value v = project_option(q, t(field(n, "attribute")), false); v.known()) return v;
    if (is(obj, "identifier"))
      if (Value c = config_value(obj, t(field(n, "attribute")), function, depth); c.known()) return c;
    if (is(obj, "identifier") && project)
      if (Value v = caller_option(function, t(obj), t(field(n, "attribute"))); v.known()) return v;
    // `self.args.question_merge`, `opt.test` with the options handed over through constructors and
    // parameters: the default every argparse declaration of the project gives (DrQA, MDM; held-out
    // rounds 21 and 22). Only for names that hold options, not bound in this file.
    if (project && !find_option(t(field(n, "attribute")))) {
      std::string_view holder;
      if (is(obj, "identifier")) holder = t(obj);
      else if (is(obj, "attribute") && t(field(obj, "object")) == "self") holder = t(field(obj, "attribute"));
      bool options_name = false;
      for (std::string_view w : {"args", "opt", "opts", "option", "options", "hparams", "hp", "flags", "FLAGS"})
        options_name = options_name || holder == w;
      if (options_name && is(obj, "identifier") &&
          (bindings().assigns.count(scope_key(function, holder)) || bindings().assigns.count(scope_key(TSNode{}, holder)))) {
        // Bound here only to what calls return while this file declares no option itself (`args =
        // handle_inputs()`, whose parser other modules' functions fill: continual-learning's
        // `parser = options.add_eval_options(parser)`, held-out round 36): still the project's options.
        // What parses: `parser.parse_args()`, or a function of this file that returns it (not a
        // parser returned unparsed: `opts = build_parser()`).
        const auto parses = [&](TSNode v) {
          if (!is(v, "call")) return false;
          const TSNode callee = field(v, "function");
          const std::string_view last = last_component(t(callee));
          if (last == "parse_args" || last == "parse_known_args") return true;
          if (!is(callee, "identifier")) return false;
          const auto named = functions_by_name.find(t(callee));
          if (named == functions_by_name.end()) return false;
          for (size_t fi : named->second)
            for (TSNode ret : returns_of(functions[fi].node)) {
              TSNode r = unparenthesized(ts_node_named_child(ret, 0));
              if (is(r, "identifier"))
                if (const auto a = bindings().assigns.find(scope_key(functions[fi].node, t(r)));
                    a != bindings().assigns.end() && a->second.size() == 1)
                  r = unparenthesized(all_assigns[a->second.front()].value);
              const std::string_view rl = is(r, "call") ? last_component(t(field(r, "function"))) : std::string_view{};
              if (rl == "parse_args" || rl == "parse_known_args") return true;
            }
          return false;
        };
        bool calls_only = options.empty();
        for (TSNode scope : {function, TSNode{}})
          if (const auto a = bindings().assigns.find(scope_key(scope, holder)); a != bindings().assigns.end())
            for (size_t ai : a->second) calls_only = calls_only && parses(unparenthesized(all_assigns[ai].value));
        options_name = calls_only;
      }
      if (options_name) {
        std::string module_path;
        if (Value v = option_default_value(project->declared_option_default(src.path(), t(field(n, "attribute")), &module_path),
                                           module_path);
            v.known())
          return v;
      }
    }
    // `cfg.find_unused` from a YAML config is not `--find-unused`: only names that hold parsed
    // arguments are read through argparse defaults.
    if (!is(obj, "identifier") || options.empty() ||
        std::find(args_names.begin(), args_names.end(), t(obj)) == args_names.end())
      return Value{};
    const ArgOption* opt = find_option(t(field(n, "attribute")));
    if (!opt) return Value{};
    return option_value(*opt, depth);
  }
  return Value{};
}

Value Model::Impl::option_value(const ArgOption& opt, int depth) const {
  Value d;
  const CallInfo* c = call_info(opt.call);
  if (null(opt.default_value)) {
    const Argument* action = c ? c->keyword("action") : nullptr;
    Value a = action ? eval(action->value, TSNode{}, depth + 1) : Value{};
    if (a.kind == Value::Kind::String && a.s == "store_true") { d.kind = Value::Kind::Bool; d.b = false; }
    else if (a.kind == Value::Kind::String && a.s == "store_false") { d.kind = Value::Kind::Bool; d.b = true; }
    else if (!action) d.kind = Value::Kind::None;
  } else {
    d = eval(opt.default_value, TSNode{}, depth + 1);
    // argparse applies type= to string defaults.
    const Argument* type = c ? c->keyword("type") : nullptr;
    if (d.kind == Value::Kind::String && type && t(type->value) == "int") d = as_int(std::move(d));
  }
  d.from_option = &opt;
  return d;
}

Value Model::Impl::parsed_args_entry(TSNode object, std::string_view dest, TSNode function, int depth) const {
  // `config = vars(parser.parse_args())`, read as `config['D_fp16']`, also once handed to `run(config)`
  // (BigGAN, whose parser utils.prepare_parser() builds in another file; held-out round 11).
  TSNode node = object, scope = function;
  for (int hop = 0; hop < 6 && !null(node); ++hop) {
    node = unparenthesized(node);
    if (is(node, "identifier")) {
      if (!options.empty() && std::find(args_names.begin(), args_names.end(), t(node)) != args_names.end())
        if (const ArgOption* opt = find_option(dest)) return option_value(*opt, depth);
      const Bindings& b = bindings();
      TSNode next{};
      for (TSNode sc : {scope, TSNode{}}) {
        const ScopeName sk = scope_key(sc, t(node));
        auto it = b.assigns.find(sk);
        if (b.opaque.count(sk)) {
          // A parameter of a plain function called from one place: that call's argument.
          const auto bound = null(sc) || it != b.assigns.end() ? std::nullopt : single_call_argument(sc, t(node));
          if (bound && null(bound->first) && hop == 0)
            if (Value v = caller_option(sc, t(node), dest); v.known()) return v;
          if (!bound || null(bound->first)) return Value{};
          next = bound->first;
          scope = bound->second;
          break;
        }
        if (it == b.assigns.end()) continue;
        if (it->second.size() != 1) return Value{};
        next = all_assigns[it->second.front()].value;
        scope = sc;
        break;
      }
      node = next;
      continue;
    }
    if (!is(node, "call")) return Value{};
    const CallInfo* c = call_info(node);
    if (!c) return Value{};
    if (is(c->function, "identifier") && t(c->function) == "vars" && c->positional.size() == 1) {
      node = c->positional.front();
      continue;
    }
    if (c->method != "parse_args" || !is(c->receiver, "identifier")) return Value{};
    // The parser: this file's (its options), or one a project function of another file builds.
    if (const ArgOption* opt = find_option(dest)) return option_value(*opt, depth);
    const Bindings& b = bindings();
    for (TSNode sc : {scope, TSNode{}}) {
      auto it = b.assigns.find(scope_key(sc, t(c->receiver)));
      if (it == b.assigns.end()) continue;
      if (it->second.size() != 1 || !project) return Value{};
      const TSNode v = all_assigns[it->second.front()].value;
      if (!is(v, "call")) return Value{};
      const std::string source = qualname_of(field(v, "function"));
      if (source.empty() || source.find('.') == std::string::npos) return Value{};
      return project_option(source, dest, true);
    }
    // A parser imported from another module of the project (`from opts import parser`).
    if (const auto al = aliases.find(t(c->receiver)); al != aliases.end() && project &&
                                                      al->second.find('.') != std::string::npos)
      return project_option(al->second, dest, true);
    return Value{};
  }
  return Value{};
}

Value Model::Impl::imported_option(TSNode object, std::string_view dest, TSNode function) const {
  // Where the object comes from: an imported name, or the one assignment from a call of an
  // imported function.
  std::string source;
  if (auto it = aliases.find(t(object)); it != aliases.end()) {
    source = it->second;
  } else {
    const Bindings& b = bindings();
    for (TSNode scope : {function, TSNode{}}) {
      const ScopeName sk = scope_key(scope, t(object));
      auto it2 = b.assigns.find(sk);
      if (it2 == b.assigns.end()) continue;
      if (it2->second.size() != 1) return Value{};
      const TSNode v = all_assigns[it2->second.front()].value;
      if (is(v, "call")) source = qualname_of(field(v, "function"));
      // `args = constant.args`: the options another module parses at its top level.
      else if (is(v, "attribute") && is_plain_dotted(t(v))) source = qualname_of(v);
      break;
    }
  }
  if (source.empty() || source.find('.') == std::string::npos) return Value{};
  // `args = parser.parse_args()` with a parser another module builds at its top level (`from opts
  // import parser`, TSM; held-out round 17): the options of that parser.
  for (std::string_view parse : {".parse_args", ".parse_known_args"})
    if (source.ends_with(parse) && source.size() > parse.size())
      if (const std::string p = source.substr(0, source.size() - parse.size()); p.find('.') != std::string::npos)
        if (Value v = project_option(p, dest, true); v.known()) return v;
  return project_option(source, dest, false);
}

Value Model::Impl::importers_argument(TSNode function, std::string_view param, int depth) const {
  // A parameter of a module-level function no call of this file runs, which every call in the files
  // that import it binds to the same known value or leaves at its default (RepDistiller's
  // `get_cifar100_dataloaders(..., num_workers=opt.num_workers)` with --num_workers 8 by default and
  // `def get_cifar100_dataloaders(batch_size=128, num_workers=8)`: held-out round 24).
  // Also a constructor's, of a module-level class no call of this file builds: every call of the
  // class passes it (`SpeakerEncoder(device, torch.device("cpu"))`: Speech-Backbones' DiffVC speaker
  // encoder keeps its loss on the CPU; held-out round 26).
  if (!project || null(function) || depth > 4) return Value{};
  const size_t fi = function_index(function);
  if (fi == SIZE_MAX || (fi < callers.size() && !callers[fi].empty())) return Value{};
  std::string called = functions[fi].name;
  if (!null(functions[fi].cls)) {
    if (called != "__init__" || !is(ts::parent(functions[fi].cls), "module")) return Value{};
    called = t(field(functions[fi].cls, "name"));
  } else if (!is(ts::parent(function), "module")) {
    return Value{};
  }
  const long index = call_position(functions[fi], param);  // as the calls pass it (no `self`)
  if (index < 0) return Value{};
  const auto passed = project->argument_values(src.path(), called, param, static_cast<int>(index));
  if (!passed) return Value{};
  Value agreed;
  bool first = true;
  std::string where;
  for (const auto& p : *passed) {
    Value v;
    if (!p) {
      v = eval(parameter_default(fi, param), TSNode{}, depth + 1);
    } else {
      v = option_default_value(p, std::string());
      if (where.empty()) where = std::filesystem::path(p->dest).filename().string() + ":" + std::to_string(p->line);
    }
    if (!v.known() || (!first && !same_value(v, agreed))) return Value{};
    if (first) agreed = v;
    first = false;
  }
  agreed.from_config = where.empty() ? "the default of `" + std::string(param) + "`, which no call of " + called + "() passes"
                                     : "what every call of " + called + "() passes (" + where + ")";
  agreed.from_imported_option = true;
  return agreed;
}

Value Model::Impl::caller_option(TSNode function, std::string_view param, std::string_view dest) const {
  // A parameter of a module-level function no call of this file runs, its options handed over by
  // the scripts that import it (`def make_loaders(args)`, `data.make_loaders(args)` after `args =
  // parser.parse_args()`: DLRM's data module; held-out round 16), not bound again in the function.
  // A constructor's too, the scripts building the class (`Solver(data, model, optimizer, args)` keeps
  // `self.visdom_epoch = args.visdom_epoch`: Speech-Transformer).
  if (!project || null(function)) return Value{};
  const size_t fi = function_index(function);
  if (fi == SIZE_MAX || (fi < callers.size() && !callers[fi].empty())) return Value{};
  std::string_view called = functions[fi].name;
  if (!null(functions[fi].cls)) {
    if (called != "__init__") return Value{};
    called = t(field(functions[fi].cls, "name"));
  }
  const auto& ps = functions[fi].params;
  if (std::find(ps.begin(), ps.end(), param) == ps.end() || bindings().assigns.count(scope_key(function, param)))
    return Value{};
  std::string module_path;
  return option_default_value(project->caller_option_default(src.path(), called, param, dest, &module_path),
                              module_path);
}

Value Model::Impl::project_option(const std::string& source, std::string_view dest, bool parser) const {
  std::string module_path;
  return option_default_value(project->option_default(src.path(), source, dest, &module_path, parser), module_path);
}

Value Model::Impl::option_default_value(const std::optional<OptionDefault>& d, const std::string& module_path) {
  if (!d) return Value{};
  Value v;
  switch (d->kind) {
    case OptionDefault::Kind::None: v.kind = Value::Kind::None; break;
    case OptionDefault::Kind::Bool: v.kind = Value::Kind::Bool; v.b = d->b; break;
    case OptionDefault::Kind::Int: v.kind = Value::Kind::Int; v.i = d->i; break;
    case OptionDefault::Kind::Float: v.kind = Value::Kind::Float; v.f = d->f; break;
    case OptionDefault::Kind::String: v.kind = Value::Kind::String; v.s = d->s; break;
    default: return Value{};
  }
  v.from_config = d->flag + " of " + std::filesystem::path(module_path).filename().string() + " (line " +
                  std::to_string(d->line) + ", its default)";
  v.from_imported_option = true;
  return v;
}

TSNode Model::Impl::module_class(std::string_view name) const {
  if (!module_classes_.has_value()) {
    module_classes_.emplace();
    for (TSNode st : ts::named_children(root_node)) {
      if (is(st, "decorated_definition")) st = field(st, "definition");
      if (is(st, "class_definition")) module_classes_->emplace(t(field(st, "name")), st);
    }
  }
  const auto it = module_classes_->find(name);
  return it == module_classes_->end() ? TSNode{} : it->second;
}

const std::unordered_map<std::string, TSNode>& Model::Impl::config_tree() const {
  if (config_tree_) return *config_tree_;
  auto& out = config_tree_.emplace();
  // The roots: names bound once, at module level, to an empty config node.
  std::unordered_set<std::string_view> roots;
  const Bindings& b = bindings();
  for (const Assign& a : all_assigns) {
    if (!null(a.ctx.function) || !is(a.target, "identifier") || !is(a.value, "call")) continue;
    const std::string_view fn = last_component(t(field(a.value, "function")));
    if (fn != "CN" && fn != "CfgNode" && fn != "ConfigDict" && fn != "EasyDict" && fn != "edict") continue;
    const auto it = b.assigns.find(scope_key(TSNode{}, t(a.target)));
    if (it != b.assigns.end() && it->second.size() == 1) roots.insert(t(a.target));
  }
  if (roots.empty()) return out;
  // Other names for a root (`cfg = _C`), anywhere: writes through them count.
  config_aliases_.clear();
  for (std::string_view r : roots) config_aliases_.emplace(r, r);
  for (const Assign& a : all_assigns)
    if (is(a.target, "identifier") && is(a.value, "identifier") && roots.count(t(a.value)))
      config_aliases_.emplace(t(a.target), t(a.value));
  std::unordered_map<std::string, int> writes;
  std::unordered_set<std::string> in_functions;
  for (const Assign& a : all_assigns) {
    if (!is(a.target, "attribute")) continue;
    const std::string_view chain = t(a.target);
    const auto root = config_aliases_.find(chain.substr(0, chain.find('.')));
    if (root == config_aliases_.end()) continue;
    bool plain = true;  // identifiers and dots only
    for (char ch : chain) plain = plain && (std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '.');
    if (!plain) continue;
    const std::string key = std::string(root->second) + std::string(chain.substr(chain.find('.')));
    if (!null(a.ctx.function) || !a.ctx.frames.empty()) {
      in_functions.insert(key);
      continue;
    }
    ++writes[key];
    out[key] = a.value;
  }
  for (auto it = out.begin(); it != out.end();)
    it = writes[it->first] != 1 || in_functions.count(it->first) ? out.erase(it) : std::next(it);
  return out;
}

Value Model::Impl::config_tree_value(TSNode chain, int depth) const {
  if (depth > 8) return Value{};
  const std::string_view text_of = t(chain);
  if (!is_name_chain(text_of)) return Value{};
  const std::string_view root = text_of.substr(0, text_of.find('.'));
  // This file's tree, through any of its names.
  if (const auto& tree = config_tree(); !tree.empty()) {
    const auto canonical = config_aliases_.find(root);
    if (canonical == config_aliases_.end()) return Value{};
    if (const auto it = tree.find(std::string(canonical->second) + std::string(text_of.substr(root.size())));
        it != tree.end()) {
      Value v = eval(it->second, TSNode{}, depth + 1);
      if (v.known() && !v.from_option) v.from_config = std::string(text_of);
      return v;
    }
    return Value{};
  }
  // Another module's: `from config import config`, `import config as C` (C.config.X is not read).
  if (!project) return Value{};
  const auto alias = aliases.find(root);
  if (alias == aliases.end() || alias->second.find('.') == std::string::npos) return Value{};
  std::string module_path;
  const std::optional<OptionDefault> d =
      project->config_tree_default(src.path(), alias->second, text_of.substr(root.size() + 1), &module_path);
  if (!d) return Value{};
  Value v = option_default_value(d, module_path);
  v.from_imported_option = false;  // a config file's default, not a command-line switch
  v.from_config = d->flag + " of " + std::filesystem::path(module_path).filename().string() + " (line " +
                  std::to_string(d->line) + ", its default; a YAML file merged into it may change it)";
  return v;
}

const std::unordered_map<std::string, TSNode>& Model::Impl::module_constants() const {
  if (module_constants_) return *module_constants_;
  auto& out = module_constants_.emplace();
  // Keys bound more than once, or somewhere that depends on the run (under an `if`, a `try`, a loop).
  std::unordered_set<std::string> varying;
  for (const Assign& a : all_assigns) {
    if (!null(a.ctx.function) || !is(a.target, "identifier")) continue;
    const TSNode holder = ts_node_parent(a.statement);
    std::string key(t(a.target));
    bool stable = is(holder, "module");
    if (is(holder, "block")) {
      // Directly in the body of a module-level class: a class attribute.
      const TSNode cls = ts_node_parent(holder);
      TSNode up = is(cls, "class_definition") ? ts_node_parent(cls) : TSNode{};
      if (is(up, "decorated_definition")) up = ts_node_parent(up);
      if ((stable = is(up, "module"))) key = std::string(t(field(cls, "name"))) + "." + key;
    }
    if (!stable || !out.emplace(key, a.value).second) varying.insert(std::move(key));
  }
  const Bindings& b = bindings();
  const std::string_view whole = src.text();
  for (auto it = out.begin(); it != out.end();) {
    const std::string& key = it->first;
    const size_t dot = key.find('.');
    bool constant = !varying.count(key);
    if (constant && dot == std::string::npos) {
      // Rebound in ways the model does not follow, or by a function through `global`.
      constant = !b.opaque.count(scope_key(TSNode{}, key));
      for (size_t at = whole.find("global "); constant && at != std::string_view::npos; at = whole.find("global ", at + 1)) {
        const size_t eol = std::min(whole.find('\n', at), whole.size());
        constant = !names_word(whole.substr(at + 7, eol - at - 7), key);
      }
    } else if (constant) {
      // `CFG.num_workers = 8`, `setattr(CFG, k, v)`, `vars(CFG).update(...)` in this file; a class
      // bound again (`CFG = Other`) is not the class.
      const std::string_view owner = std::string_view(key).substr(0, dot);
      constant = !may_write_attribute(whole, owner, std::string_view(key).substr(dot + 1)) &&
                 !b.assigns.count(scope_key(TSNode{}, owner));
    }
    it = constant ? std::next(it) : out.erase(it);
  }
  return out;
}

Value Model::Impl::class_constant(TSNode attribute, int depth) const {
  const TSNode obj = field(attribute, "object");
  if (!is(obj, "identifier") || null(module_class(t(obj)))) return Value{};
  const auto& constants = module_constants();
  const auto it = constants.find(std::string(t(attribute)));
  if (it == constants.end()) return Value{};
  Value v = eval(it->second, TSNode{}, depth + 1);
  if (v.known() && !v.from_option && v.from_config.empty()) v.from_config = std::string(t(attribute)) + " (a class attribute)";
  return v;
}

Value Model::Impl::imported_constant(TSNode n) const {
  if (!project) return Value{};
  const std::string_view text_of = t(n);
  if (!is_name_chain(text_of)) return Value{};
  const std::string_view root = text_of.substr(0, text_of.find('.'));
  const auto alias = aliases.find(root);
  if (alias == aliases.end() || library_root(alias->second)) return Value{};
  // Bound here as well (`settings = load(...)`): not the module's.
  const Bindings& b = bindings();
  if (b.by_name.count(root) || b.opaque.count(scope_key(TSNode{}, root))) return Value{};
  const std::string qualified = alias->second + std::string(text_of.substr(root.size()));
  if (qualified.find('.') == std::string::npos) return Value{};
  return project_constant(qualified, {});
}

Value Model::Impl::project_constant(const std::string& qualified, const std::string& what) const {
  std::string module_path;
  const std::optional<OptionDefault> d = project->module_constant(src.path(), qualified, &module_path);
  if (!d) return Value{};
  Value v = option_default_value(d, module_path);
  v.from_imported_option = false;  // a module's constant, not a command-line switch
  if (v.known())
    v.from_config = (what.empty() ? d->flag : what) + " of " + std::filesystem::path(module_path).filename().string() +
                    " (line " + std::to_string(d->line) + ")";
  return v;
}

Value Model::Impl::config_value(TSNode object, std::string_view field_name, TSNode function, int depth) const {
  if (depth > 8) return Value{};
  // The one assignment of the name that `object` sees (its function's, else the module's).
  const Bindings& b = bindings();
  const Assign* assigned = nullptr;
  for (TSNode scope : {function, TSNode{}}) {
    const ScopeName sk = scope_key(scope, t(object));
    if (b.opaque.count(sk)) return Value{};
    auto it = b.assigns.find(sk);
    if (it == b.assigns.end()) continue;
    if (it->second.size() != 1) return Value{};
    assigned = &all_assigns[it->second.front()];
    break;
  }
  if (!assigned) return Value{};
  // Written to in its scope (`cfg.num_workers = 8`, `config["bs"] = 4`; a module-level config
  // anywhere): not a constant.
  const TSNode scope = assigned->ctx.function;
  auto written = [&](const auto& index, std::string_view key) {
    const auto it = index.find(key);
    if (it == index.end()) return false;
    for (size_t ai : it->second)
      if (null(scope) || ts::same(all_assigns[ai].ctx.function, scope)) return true;
    return false;
  };
  const std::string attribute = std::string(t(object)) + "." + std::string(field_name);
  if (written(b.by_subscripted, t(object)) || written(b.by_attribute, attribute)) return Value{};
  const TSNode v = assigned->value;
  if (!is(v, "dictionary") && !is(v, "call")) return Value{};
  // Any method called on it (`cfg.merge_from_file(path)`, `config.update(d)`) or a setattr(): it
  // may change.
  if (!calls_on_.has_value()) {
    calls_on_.emplace();
    for (size_t i = 0; i < calls.size(); ++i) {
      const CallInfo& call = calls[i];
      if (!null(call.receiver) && is(call.receiver, "identifier")) (*calls_on_)[t(call.receiver)].push_back(i);
      if (t(call.function) == "setattr" && !call.positional.empty() && is(call.positional.front(), "identifier"))
        (*calls_on_)[t(call.positional.front())].push_back(i);
    }
  }
  if (auto on = calls_on_->find(t(object)); on != calls_on_->end())
    for (size_t i : on->second)
      if (null(scope) || ts::same(call_ctx[i].function, scope)) return Value{};
  if (is(v, "dictionary")) {
    for (TSNode pair : ts::named_children(v)) {
      if (!is(pair, "pair")) {
        if (is(pair, "dictionary_splat")) return Value{};
        continue;
      }
      const Value key = eval(field(pair, "key"), TSNode{}, depth + 1);
      if (key.kind == Value::Kind::String && key.s == field_name) {
        Value out = eval(field(pair, "value"), assigned->ctx.function, depth + 1);
        if (out.known() && !out.from_option)
          out.from_config = std::string(t(object)) + "[\"" + std::string(field_name) + "\"]";
        return out;
      }
    }
    return Value{};
  }
  if (!is(v, "call")) return Value{};
  const CallInfo* c = call_info(v);
  if (!c || c->star_args || c->unresolved_kwargs) return Value{};
  const std::string what = std::string(t(c->function));
  if (const Argument* a = c->keyword(field_name)) {
    Value out = eval(a->value, assigned->ctx.function, depth + 1);
    if (out.known() && !out.from_option) out.from_config = what + "(" + std::string(field_name) + "=...)";
    return out;
  }
  if (what == "SimpleNamespace" || c->qualname == "types.SimpleNamespace") return Value{};
  // A class of this file: its class-level default, unless __init__ or a positional argument may set it.
  // `args = tyro.cli(Args)` (cleanrl): the dataclass's defaults are the command line's defaults.
  TSNode class_name = c->function;
  const bool from_cli = c->qualname == "tyro.cli" && c->positional.size() == 1 && is(c->positional.front(), "identifier");
  if (from_cli) class_name = c->positional.front();
  else if (!is(c->function, "identifier") || !c->positional.empty()) return Value{};
  const TSNode cls = module_class(t(class_name));
  if (null(cls)) return imported_instance_default(class_name, field_name, from_cli);
  const TSNode body = field(cls, "body");
  if (t(body).find("__init__") != std::string_view::npos || t(body).find("__post_init__") != std::string_view::npos)
    return Value{};
  for (TSNode st : ts::named_children(body)) {
    if (!is(st, "expression_statement")) continue;
    const TSNode a = ts_node_named_child(st, 0);
    if (!is(a, "assignment") || t(field(a, "left")) != field_name) continue;
    TSNode dv = field(a, "right");
    if (null(dv)) return Value{};  // `num_workers: int` with no default: the call must pass it
    // `field(default=4)`
    if (is(dv, "call") && last_component(t(field(dv, "function"))) == "field") {
      const CallInfo* fc = call_info(dv);
      const Argument* d = fc ? fc->keyword("default") : nullptr;
      if (!d) return Value{};
      dv = d->value;
    }
    Value out = eval(dv, TSNode{}, depth + 1);
    if (out.known() && !out.from_option)
      out.from_config = std::string(t(class_name)) + "." + std::string(field_name) +
                        (from_cli ? ", the default of its tyro.cli option" : ", a class-level default");
    return out;
  }
  return Value{};
}

Value Model::Impl::imported_instance_default(TSNode class_name, std::string_view field_name, bool from_cli) const {
  // `opt = Config()` of a class another project module defines (`class Config: num_workers = 4`;
  // arcface-pytorch, held-out round 39): its class-level default, read as that module's constant
  // `Config.num_workers`, when the class has no __init__ (which may set the attribute per instance).
  if (!project || !is(class_name, "identifier")) return Value{};
  const auto alias = aliases.find(t(class_name));
  if (alias == aliases.end() || library_root(alias->second) || alias->second.find('.') == std::string::npos) return Value{};
  const std::optional<bool> init = project->class_defines_method(src.path(), alias->second, "__init__");
  if (!init || *init || project->class_defines_method(src.path(), alias->second, "__post_init__").value_or(true))
    return Value{};
  return project_constant(alias->second + "." + std::string(field_name),
                          std::string(t(class_name)) + "." + std::string(field_name) +
                              (from_cli ? ", the default of its tyro.cli option" : ", a class-level default"));
}

const ArgOption* Model::Impl::find_option(std::string_view dest) const {
  for (const auto& o : options)
    if (o.dest == dest) return &o;
  return nullptr;
}

void Model::Impl::collect_argparse() {
  for (const auto& a : all_assigns) {
    TSNode v = a.value;
    if (is(v, "subscript")) v = field(v, "value");  // parse_known_args()[0]
    if (!is(v, "call")) continue;
    const std::string_view fn = last_component(t(field(v, "function")));
    if (fn != "parse_args" && fn != "parse_known_args") continue;
    TSNode target = a.target;
    if (is(target, "pattern_list") || is(target, "tuple_pattern")) target = ts_node_named_child(target, 0);
    if (is(target, "identifier")) args_names.push_back(t(target));
  }
  // absl flags: `FLAGS = flags.FLAGS`, `flags.DEFINE_integer('num_workers', 4, help=...)`, read as
  // `FLAGS.num_workers` (pytorch-ddpm, held-out round 12).
  bool absl = false;
  for (const auto& c : calls) {
    if (!c.method.starts_with("DEFINE_") || c.positional.empty() || !c.qualname.starts_with("absl.flags.")) continue;
    const Value name = eval(c.positional.front(), TSNode{}, 0);
    if (name.kind != Value::Kind::String || name.s.empty()) continue;
    absl = true;
    ArgOption o;
    o.call = c.node;
    o.line = src.position(ts_node_start_byte(c.node)).line;
    o.flag = "--" + name.s;
    o.dest = name.s;
    if (const Argument* d = c.keyword("default")) o.default_value = d->value;
    else if (c.positional.size() >= 2) o.default_value = c.positional[1];
    options.push_back(std::move(o));
  }
  if (absl) {
    args_names.push_back("FLAGS");
    for (const auto& a : all_assigns)
      if (is(a.target, "identifier") && (t(a.value) == "flags.FLAGS" || t(a.value) == "absl.flags.FLAGS"))
        args_names.push_back(t(a.target));
  }
  for (const auto& c : calls) {
    if (c.method != "add_argument" || c.positional.empty()) continue;
    std::vector<std::string> flags;
    for (TSNode p : c.positional) {
      Value v = eval(p, TSNode{}, 0);
      if (v.kind == Value::Kind::String) flags.push_back(v.s);
    }
    if (flags.empty()) continue;
    ArgOption o;
    o.call = c.node;
    o.line = src.position(ts_node_start_byte(c.node)).line;
    std::string long_flag;
    for (const auto& f : flags)
      if (f.rfind("--", 0) == 0) { long_flag = f; break; }
    o.flag = long_flag.empty() ? flags.front() : long_flag;
    std::string dest = o.flag;
    while (!dest.empty() && dest.front() == '-') dest.erase(0, 1);
    std::replace(dest.begin(), dest.end(), '-', '_');
    if (const Argument* d = c.keyword("dest")) {
      Value dv = eval(d->value, TSNode{}, 0);
      if (dv.kind == Value::Kind::String) dest = dv.s;
    }
    o.dest = dest;
    if (const Argument* d = c.keyword("default")) o.default_value = d->value;
    options.push_back(std::move(o));
  }
  // `parser.set_defaults(pin_mem=True)` overrides what the options say (MAE pairs `--pin_mem`
  // store_true with `--no_pin_mem` store_false and sets the default this way).
  for (const auto& c : calls) {
    if (c.method != "set_defaults") continue;
    for (const Argument& k : c.keywords) {
      if (k.name == "**") continue;
      for (auto& o : options)
        if (o.dest == k.name) o.default_value = k.value;
    }
  }
}

}  // namespace perflint
