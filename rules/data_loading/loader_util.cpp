// Shared judgements of the data-loading rules (see loader_util.hpp).
#include "rules/data_loading/loader_util.hpp"

#include <cctype>
#include <vector>

#include <algorithm>
#include <array>

#include "parser/text_util.hpp"
#include "parser/ts.hpp"
#include "rules/fix_util.hpp"

namespace perflint::data_loading {
bool torch_dtype_name(std::string_view name) {
  static constexpr std::array<std::string_view, 21> dtypes = {
      "float16", "half",  "bfloat16", "float32", "float",  "float64", "double",    "int64",
      "long",    "int32", "int",      "int16",   "short",  "int8",    "uint8",     "bool",
      "complex64", "complex128", "cfloat", "float8_e4m3fn", "float8_e5m2"};
  return std::find(dtypes.begin(), dtypes.end(), name) != dtypes.end();
}

namespace {

bool null(TSNode n) { return ts_node_is_null(n); }
TSNode strip_parens(TSNode n);

// `torch.float16`, `torch.bfloat16`, `x.dtype`, a name such as `dtype` or `amp_dtype`: an argument
// that makes `.to()` a cast, not a device copy.
bool is_dtype_expression(const Model& model, TSNode n) {
  if (ts::is(n, "attribute")) {
    const std::string_view attr = model.text(ts::field(n, "attribute"));
    if (attr == "dtype") return true;
    const std::string q = model.qualname(n);
    return q.rfind("torch.", 0) == 0 && q.find('.', 6) == std::string::npos && torch_dtype_name(attr);
  }
  if (ts::is(n, "identifier")) {
    const std::string_view name = model.text(n);
    if (name.find("dtype") != std::string_view::npos) return true;
    // `from torch import float16`
    const std::string q = model.qualname(n);
    return q.rfind("torch.", 0) == 0 && torch_dtype_name(std::string_view(q).substr(6));
  }
  return false;
}

// A loop statement whose body (not its iterable) contains `node`, searching outward and stopping
// at the enclosing function.
TSNode enclosing_loop(TSNode node) {
  TSNode child = node;
  for (TSNode p = ts::parent(node); !null(p); child = p, p = ts::parent(p)) {
    if (ts::is(p, "function_definition") || ts::is(p, "lambda")) return TSNode{};
    if ((ts::is(p, "for_statement") || ts::is(p, "while_statement")) && ts::same(ts::field(p, "body"), child))
      return p;
  }
  return TSNode{};
}

}  // namespace

std::optional<std::string> cpu_count_expression(const Model& model, TSNode expr) {
  const auto counts_cpus = [&](TSNode n) {
    n = strip_parens(n);
    const CallInfo* c = ts::is(n, "call") ? model.call(n) : nullptr;
    if (!c || c->star_args || c->unresolved_kwargs) return false;
    if (c->qualname == "os.cpu_count" || c->qualname == "multiprocessing.cpu_count") return true;
    // len(os.sched_getaffinity(pid)): the CPUs this process may run on, never empty.
    if (!ts::is(c->function, "identifier") || model.text(c->function) != "len" || c->positional.size() != 1)
      return false;
    TSNode inner = strip_parens(c->positional.front());
    const CallInfo* a = ts::is(inner, "call") ? model.call(inner) : nullptr;
    return a && a->qualname == "os.sched_getaffinity";
  };
  expr = strip_parens(expr);
  if (counts_cpus(expr)) return std::string(model.text(expr));
  if (!ts::is(expr, "identifier")) return std::nullopt;
  const std::vector<TSNode> values = model.visible_values(expr, model.text(expr));
  if (values.empty() || !std::all_of(values.begin(), values.end(), counts_cpus)) return std::nullopt;
  // A name also bound by unpacking, a loop or a parameter has values we did not see.
  if (!model.only_plainly_assigned(expr, model.text(expr))) return std::nullopt;
  return std::string(model.text(strip_parens(values.front())));
}

uint32_t line_of(const Emitter& out, TSNode node) { return out.source().position(ts_node_start_byte(node)).line; }

namespace {

// `range(n)`, `list(range(n))`, `torch.arange(n)`, `torch.randperm(n)`, `np.arange(n)`,
// `torch.LongTensor(range(n))`, `torch.tensor(list(range(n)))`: a sequence of indices made in memory.
bool index_sequence(const Model& model, TSNode e, int depth) {
  if (depth > 3 || !ts::is(e, "call")) return false;
  const std::string_view fn = model.text(ts::field(e, "function"));
  if (fn == "range") return true;
  const CallInfo* c = model.call(e);
  if (!c) return false;
  const std::string_view q = c->qualname;
  if (q == "torch.arange" || q == "torch.randperm" || q == "numpy.arange") return true;
  const TSNode first = c->positional.empty() ? TSNode{} : c->positional.front();
  if (fn == "list" || q == "torch.LongTensor" || q == "torch.IntTensor" || q == "torch.tensor" || q == "torch.as_tensor")
    return !ts_node_is_null(first) && index_sequence(model, first, depth + 1);
  return false;
}

}  // namespace

bool index_range_loader(const Model& model, const CallInfo& call) {
  const TSNode ds = call.arg("dataset", 0);
  if (index_sequence(model, ds, 0)) return true;
  // A name bound only to such a sequence (`idx = torch.LongTensor(range(20))`: GCNII's ppi.py,
  // held-out round 30).
  if (!ts::is(ds, "identifier")) return false;
  const std::vector<TSNode> values = model.assigned_values(model.text(ds));
  return !values.empty() &&
         std::all_of(values.begin(), values.end(), [&](TSNode v) { return index_sequence(model, v, 0); });
}

const DataLoaderInfo* training_loader(const Model& model, const CallInfo& call) {
  if (!is_dataloader_call(call)) return nullptr;
  const DataLoaderInfo* d = model.dataloader(call.node);
  if (!d || !(d->feeds_step || d->assumed_step)) return nullptr;
  return d;
}

bool is_hf_training_args_call(const CallInfo& call) {
  const std::string_view q = call.qualname;
  return q == "transformers.TrainingArguments" || q == "transformers.Seq2SeqTrainingArguments" ||
         q == "transformers.training_args.TrainingArguments" ||
         q == "transformers.training_args_seq2seq.Seq2SeqTrainingArguments";
}

bool is_hf_training_args(const Model& model, const CallInfo& call) {
  if (!is_hf_training_args_call(call)) return false;
  for (const CallInfo& c : model.calls()) {
    if (c.qualname == "transformers.Trainer" || c.qualname == "transformers.Seq2SeqTrainer" ||
        c.qualname == "transformers.trainer.Trainer" || c.qualname == "transformers.trainer_seq2seq.Seq2SeqTrainer")
      return true;
    if (c.method == "train") return true;
  }
  return false;
}

std::optional<LoaderArg> hf_arg(const Model& model, const CallInfo& call, std::string_view name) {
  const Argument* a = call.keyword(name);
  if (!a) {
    if (call.unresolved_kwargs || call.star_args) return std::nullopt;
    return LoaderArg{};
  }
  return LoaderArg{true, a->value, model.evaluate(a->value)};
}

std::optional<Note> assumed_note(const Emitter& out, const DataLoaderInfo& loader) {
  // A framework runs the loop (Lightning's train_dataloader()): say so at the hook's name.
  if (!loader.framework_reason.empty()) {
    // The reason names its own places (another file, a framework hook): no span of ours to add.
    (void)out;
    return Note{loader.framework_reason, std::nullopt};
  }
  if (!loader.assumed_step || null(loader.step_loop)) return std::nullopt;
  return out.note(loader.step_loop, "assumed to feed the training loop at line " +
                                        std::to_string(line_of(out, loader.step_loop)) +
                                        ": it is not iterated anywhere in this file");
}

std::optional<Flag> loader_flag(const Model& model, const CallInfo& call, std::string_view name) {
  std::optional<LoaderArg> arg = loader_arg(model, call, name);
  if (!arg) return std::nullopt;
  Flag f;
  f.arg = *arg;
  if (!arg->present) return f;  // DataLoader's default is False for both flags we ask about
  const std::optional<bool> t = arg->value.truthy();
  if (!t) return std::nullopt;
  f.value = *t;
  return f;
}

Span argument_span(const Emitter& out, const CallInfo& call, std::string_view name, const LoaderArg& arg) {
  if (!arg.present) return out.span(call.function);
  const Argument* kw = call.keyword(name);
  if (kw && !null(kw->via_dict)) return out.span(call.function);
  // Report on `num_workers=0` as written, not only on the `0`.
  TSNode parent = ts::parent(arg.node);
  if (ts::is(parent, "keyword_argument")) return out.span(parent);
  return out.span(arg.node);
}

void add_value_notes(const Model& model, const Emitter& out, const CallInfo& call, std::string_view name,
                     const LoaderArg& arg, Finding& f) {
  if (!arg.present) return;
  if (auto n = origin_note(out, name, arg.value)) f.notes.push_back(std::move(*n));
  if (auto n = via_dict_note(model, out, call, name)) f.notes.push_back(std::move(*n));
}

namespace {

// The calls of the function that holds `loop` (`name(...)`, `self.name(...)`), its name to `*name`;
// empty when the loop is in no function.
std::vector<const CallInfo*> calls_of_holder(const Model& model, TSNode loop, std::string_view* name) {
  std::vector<const CallInfo*> out;
  TSNode fn = model.enclosing(loop, "function_definition");
  if (null(fn)) return out;
  *name = model.text(ts::field(fn, "name"));
  for (const CallInfo& c : model.calls()) {
    const bool direct = ts::is(c.function, "identifier") && model.text(c.function) == *name;
    const bool method = c.method == *name && ts::is(c.receiver, "identifier") && model.text(c.receiver) == "self";
    if (direct || method) out.push_back(&c);
  }
  return out;
}

}  // namespace

std::string repetition_text(const Model& model, const Emitter& out, TSNode step_loop) {
  if (null(step_loop)) return {};
  // The name of a framework hook (`def train_dataloader`), not a loop: the loader's note says why.
  if (ts::is(step_loop, "identifier") && ts::is(ts::parent(step_loop), "function_definition")) return {};
  const std::string inner = "the loop at line " + std::to_string(line_of(out, step_loop));
  if (TSNode outer = enclosing_loop(step_loop); !null(outer))
    return inner + " is inside the loop at line " + std::to_string(line_of(out, outer));
  std::string_view name;
  for (const CallInfo* c : calls_of_holder(model, step_loop, &name))
    if (TSNode outer = enclosing_loop(c->node); !null(outer))
      return inner + " is in `" + std::string(name) + "()`, called from the loop at line " +
             std::to_string(line_of(out, outer));
  return {};
}

bool collate_on_gpu(const Model& model, const CallInfo& loader) {
  const std::optional<LoaderArg> collate = loader_arg(model, loader, "collate_fn");
  if (!collate || !collate->present || !ts::is(collate->node, "identifier")) return false;
  const TSNode fn = collate->node;
  const std::string_view name = model.text(fn);
  TSNode def{};
  for (const CallInfo& c : model.calls()) {
    // Any call inside a def of that name (the def itself is found through the calls it holds).
    const TSNode d = model.enclosing(c.node, "function_definition");
    if (null(d) || model.text(ts::field(d, "name")) != name) continue;
    if (!null(def) && !ts::same(def, d)) return false;  // two defs of that name: not known which
    def = d;
    const auto cuda_value = [&](TSNode v) {
      const Value val = model.evaluate(v);
      return val.kind == Value::Kind::String && val.s.starts_with("cuda");
    };
    if (c.method == "cuda") return true;
    if (c.method == "to" && !c.positional.empty() && cuda_value(c.positional.front())) return true;
    if (const Argument* dev = c.keyword("device"); dev && cuda_value(dev->value)) return true;
  }
  return false;
}

TSNode single_pass_repetition(const Model& model, TSNode step_loop) {
  if (null(step_loop) || (!ts::is(step_loop, "for_statement") && !ts::is(step_loop, "while_statement"))) return {};
  std::vector<TSNode> outers;
  if (TSNode outer = enclosing_loop(step_loop); !null(outer)) {
    outers.push_back(outer);
  } else {
    std::string_view name;
    for (const CallInfo* c : calls_of_holder(model, step_loop, &name)) {
      TSNode outer = enclosing_loop(c->node);
      if (null(outer)) return {};  // a call outside any loop: the repetition comes from elsewhere
      outers.push_back(outer);
    }
  }
  if (outers.empty()) return {};
  for (TSNode outer : outers) {
    if (!ts::is(outer, "for_statement")) return {};
    const TSNode it = ts::field(outer, "right");
    const CallInfo* r = ts::is(it, "call") ? model.call(it) : nullptr;
    if (!r || model.text(r->function) != "range" || r->positional.empty() || r->positional.size() > 2 ||
        !r->keywords.empty())
      return {};
    // An option the script assigns again (`args.num_train_epochs = math.ceil(max_train_steps /
    // steps_per_epoch)`, the diffusers examples) is not its default.
    const TSNode bound = r->positional.back();
    if (ts::is(bound, "attribute") && !model.assigned_values(model.text(bound)).empty()) return {};
    std::optional<long long> stop = model.evaluate(bound).as_int();
    // `range(1, args.epochs + 1)`.
    if (!stop && ts::is(bound, "binary_operator") && model.text(ts::field(bound, "operator")) == "+" &&
        !(ts::is(ts::field(bound, "left"), "attribute") &&
          !model.assigned_values(model.text(ts::field(bound, "left"))).empty()))
      if (const auto k = model.evaluate(ts::field(bound, "right")).as_int())
        if (const auto n = model.evaluate(ts::field(bound, "left")).as_int()) stop = *n + *k;
    if (!stop) return {};
    long long start = 0;
    if (r->positional.size() == 2) {
      // An unknown start (a resumed epoch) only shortens the loop.
      if (const std::optional<long long> s = model.evaluate(r->positional.front()).as_int()) start = *s;
    }
    if (*stop - start > 1) return {};
  }
  return outers.front();
}

bool is_device_copy_method(std::string_view method) { return method == "to" || method == "cuda"; }

namespace {

TSNode strip_parens(TSNode n) {
  while (ts::is(n, "parenthesized_expression") && ts_node_named_child_count(n) > 0) n = ts_node_named_child(n, 0);
  return n;
}

// `batch.items()`, `batch.values()`, `zip(x, y)`, `enumerate(batch)`: the iterated batch inside.
TSNode iterated_batch(const Model& model, TSNode it, int depth);

// The batch expression that `expr` stands for: the batch itself, or a name bound by a
// comprehension / `map(lambda ...)` over a batch. Null when it is neither.
TSNode batch_of(const Model& model, TSNode expr, int depth = 0) {
  expr = strip_parens(unwrap_variable(model, expr));
  if (ts_node_is_null(expr) || depth > 4) return {};
  if (model.is_batch_expression(expr)) return expr;
  if (ts::is(expr, "call")) return converted_batch(model, expr);
  if (ts::is(expr, "subscript") || ts::is(expr, "attribute")) {
    TSNode base = ts::field(expr, ts::is(expr, "subscript") ? "value" : "object");
    return ts::is(base, "identifier") ? batch_of(model, base, depth + 1) : TSNode{};
  }
  if (!ts::is(expr, "identifier")) return {};
  const std::string_view name = model.text(expr);
  for (TSNode p = ts::parent(expr); !ts_node_is_null(p); p = ts::parent(p)) {
    const std::string_view k = ts::kind(p);
    if (k == "list_comprehension" || k == "set_comprehension" || k == "dictionary_comprehension" ||
        k == "generator_expression") {
      for (TSNode clause : ts::named_children(p)) {
        if (!ts::is(clause, "for_in_clause")) continue;
        bool binds = false;
        ts::walk(ts::field(clause, "left"), [&](TSNode n) {
          if (ts::is(n, "identifier") && model.text(n) == name) binds = true;
          return !binds;
        });
        if (binds) return iterated_batch(model, ts::field(clause, "right"), depth + 1);
      }
    } else if (k == "for_statement") {
      // `for key, value in batch.items(): batch[key] = value.to(device)`: the loop's name is an element of
      // the batch it iterates (DBNet.pytorch's trainer, held-out round 50).
      bool binds = false;
      ts::walk(ts::field(p, "left"), [&](TSNode n) {
        if (ts::is(n, "identifier") && model.text(n) == name) binds = true;
        return !binds;
      });
      if (binds) return iterated_batch(model, ts::field(p, "right"), depth + 1);
    } else if (k == "lambda") {
      // `map(lambda t: t.cuda(), batch)`: the lambda's parameter is an element of the batch.
      bool param = false;
      ts::walk(ts::field(p, "parameters"), [&](TSNode n) {
        if (ts::is(n, "identifier") && model.text(n) == name) param = true;
        return !param;
      });
      if (!param) return {};
      TSNode args = ts::parent(p);
      TSNode call = ts::parent(args);
      if (!ts::is(args, "argument_list") || !ts::is(call, "call") || model.text(ts::field(call, "function")) != "map")
        return {};
      if (ts_node_named_child_count(args) < 2 || !ts::same(ts_node_named_child(args, 0), p)) return {};
      return iterated_batch(model, ts_node_named_child(args, 1), depth + 1);
    } else if (k == "function_definition" || k == "class_definition" || k == "module") {
      break;
    }
  }
  return {};
}

TSNode iterated_batch(const Model& model, TSNode it, int depth) {
  it = strip_parens(it);
  if (ts::is(it, "call")) {
    const CallInfo* c = model.call(it);
    if (!c) return {};
    if (c->method == "items" || c->method == "values") return batch_of(model, c->receiver, depth);
    const std::string_view f = model.text(c->function);
    if (f == "zip" || f == "enumerate")
      for (TSNode a : c->positional)
        if (TSNode b = batch_of(model, a, depth); !ts_node_is_null(b)) return b;
    return {};
  }
  return batch_of(model, it, depth);
}

bool is_host_factory(const Model& model, TSNode value) {
  value = strip_parens(value);
  if (!ts::is(value, "call")) return false;
  const CallInfo* c = model.call(value);
  if (!c || c->keyword("device") || c->unresolved_kwargs) return false;
  const std::string_view q = c->qualname;
  for (std::string_view f : {"torch.tensor", "torch.as_tensor", "torch.from_numpy", "torch.LongTensor", "torch.Tensor",
                             "torch.FloatTensor", "torch.load", "numpy.array", "numpy.load", "numpy.memmap",
                             "numpy.fromfile", "numpy.frombuffer"})
    if (q == f) return true;
  return false;
}

// In a step loop, host data that no DataLoader hands out: a replay-buffer sample
// (`s, a, r = buffer.sample(n)`), or a slice of a host tensor (`ids[:, i:i + n]` where
// `ids = torch.tensor(...)`). Fills `copy.host_source`; false when it is neither.
bool host_data(const Model& model, TSNode receiver, Copy& copy) {
  receiver = strip_parens(receiver);
  const auto line = [&](TSNode n) { return std::to_string(model.source().position(ts_node_start_byte(n)).line); };
  if (ts::is(receiver, "subscript")) {
    TSNode base = strip_parens(ts::field(receiver, "value"));
    bool slice = false;
    for (TSNode idx : ts::named_children(receiver))
      if (!ts::same(idx, base)) ts::walk(idx, [&](TSNode n) {
          if (ts::is(n, "slice")) slice = true;
          return !slice;
        });
    if (!slice || !ts::is(base, "identifier")) return false;
    const auto values = model.assigned_values(model.text(base));
    if (values.empty()) return false;
    for (TSNode v : values)
      if (!is_host_factory(model, v)) return false;
    copy.host_source = "a slice of the host tensor `" + std::string(model.text(base)) + "` (line " +
                       line(values.front()) + ")";
    copy.host_source_site = values.front();
    return true;
  }
  if (!ts::is(receiver, "identifier")) return false;
  // `batch = replay_buffer.sample(...)` / `s, a, r = memory.sample(n)`: every binding of the name
  // is such a sample.
  const std::string_view name = model.text(receiver);
  std::vector<TSNode> sample_calls;
  for (TSNode assign : model.nodes_of_kind("assignment")) {
    TSNode left = ts::field(assign, "left");
    bool binds = false;
    ts::walk(left, [&](TSNode n) {
      if (ts::is(n, "identifier") && model.text(n) == name) binds = true;
      return !binds;
    });
    if (!binds) continue;
    TSNode right = strip_parens(ts::field(assign, "right"));
    const CallInfo* c = ts::is(right, "call") ? model.call(right) : nullptr;
    if (c && is_device_copy_method(c->method)) continue;  // `states = states.to(device)`: the move itself
    std::string recv = c ? std::string(model.text(c->receiver)) : std::string();
    for (char& ch : recv) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    const bool sample = c && c->method == "sample" &&
                        (recv.find("buffer") != std::string::npos || recv.find("replay") != std::string::npos ||
                         recv.find("memory") != std::string::npos);
    if (!sample) return false;
    sample_calls.push_back(right);
  }
  if (sample_calls.empty()) return false;
  copy.host_source = "a replay-buffer sample (line " + line(sample_calls.front()) + ")";
  copy.host_source_site = sample_calls.front();
  return true;
}

}  // namespace

namespace {

bool cuda_tensor_type_name(std::string_view q) { return q.starts_with("torch.cuda.") && q.ends_with("Tensor"); }

// `torch.cuda.FloatTensor`, or a name bound to it (`Tensor = torch.cuda.FloatTensor if cuda else
// torch.FloatTensor`: the CUDA branch is what runs on a GPU machine).
bool is_cuda_tensor_type(const Model& model, TSNode n, int depth = 0) {
  n = strip_parens(n);
  if (ts_node_is_null(n) || depth > 3) return false;
  if (cuda_tensor_type_name(model.qualname(n))) return true;
  const Value v = model.evaluate(n);
  if (v.kind == Value::Kind::String) return v.s.starts_with("torch.cuda.") && v.s.ends_with("Tensor");
  if (!ts::is(n, "identifier")) return false;
  for (TSNode value : model.visible_values(n, model.text(n))) {
    value = strip_parens(value);
    if (ts::is(value, "conditional_expression")) {
      for (TSNode branch : ts::named_children(value))
        if (is_cuda_tensor_type(model, branch, depth + 1)) return true;
    } else if (is_cuda_tensor_type(model, value, depth + 1)) {
      return true;
    }
  }
  return false;
}

// A tensor made on the GPU: `torch.zeros(n, device="cuda")`, `x.cuda()`, a CUDA tensor type's
// constructor (`torch.cuda.FloatTensor(n)` or an alias of it); `torch.empty_like(y)` is not known.
// Bound names are followed one step.
bool made_on_gpu(const Model& model, TSNode n) {
  n = strip_parens(n);
  const auto on_gpu_call = [&](TSNode v) {
    v = strip_parens(v);
    const CallInfo* c = ts::is(v, "call") ? model.call(v) : nullptr;
    if (!c) return false;
    if (c->method == "cuda") return true;
    if (c->method == "to") return device_copy(model, *c).has_value();
    // `Tensor(n, c, h, w)` with `Tensor = torch.cuda.FloatTensor if opt.cuda else torch.Tensor`.
    if (is_cuda_tensor_type(model, c->function)) return true;
    if (const Argument* d = c->keyword("device")) {
      const Value dv = model.evaluate(d->value);
      return dv.kind == Value::Kind::String ? dv.s.starts_with("cuda") : !dv.known();
    }
    return false;
  };
  if (on_gpu_call(n)) return true;
  if (!ts::is(n, "identifier") && !ts::is(n, "attribute")) return false;
  for (TSNode v : model.assigned_values(model.text(n)))
    if (on_gpu_call(v)) return true;
  return false;
}

}  // namespace

// `x.shape[0]`, `x.size(0)`, `len(x)`, a number, or a name assigned one of those: a size.
bool is_size_expression(const Model& model, TSNode n, int depth = 0) {
  n = strip_parens(n);
  if (ts_node_is_null(n) || depth > 2) return false;
  if (ts::is(n, "integer")) return true;
  const std::string_view t = model.text(n);
  if (t.find(".shape") != std::string_view::npos || t.find(".size(") != std::string_view::npos ||
      t.starts_with("len(") || t.find("size") != std::string_view::npos)
    return true;
  if (ts::is(n, "identifier"))
    for (TSNode v : model.assigned_values(t))
      if (is_size_expression(model, v, depth + 1)) return true;
  return false;
}

bool may_be_legacy_copy(const CallInfo& call) {
  return call.method == "type" || call.method == "copy_" || cuda_tensor_type_name(call.qualname) ||
         (call.method.empty() && call.qualname.empty());
}

std::optional<Copy> legacy_batch_copy(const Model& model, TSNode call_node) {
  const CallInfo* call = model.call(call_node);
  if (!call || call->star_args || !may_be_legacy_copy(*call)) return std::nullopt;
  Copy c;
  c.call = call;
  c.non_blocking = call->unresolved_kwargs ? std::nullopt : std::optional<bool>(false);
  const auto read_non_blocking = [&](int index) {
    TSNode nb = call->arg("non_blocking", index);
    if (null(nb)) return;
    c.non_blocking_node = nb;
    c.non_blocking = model.evaluate(nb).truthy();
  };
  // The batch first: it is rarely there, and the type checks follow names through every assignment
  // of the file (every unqualified call may be a tensor type's alias).
  if (call->method == "type") {
    if (null(c.batch = batch_of(model, call->receiver))) return std::nullopt;
    if (!is_cuda_tensor_type(model, call->arg("dtype", 0))) return std::nullopt;
    read_non_blocking(1);
  } else if (call->method == "copy_") {
    if (call->positional.empty() || null(c.batch = batch_of(model, call->positional.front()))) return std::nullopt;
    if (!made_on_gpu(model, call->receiver)) return std::nullopt;
    read_non_blocking(1);
  } else {
    if (call->positional.size() != 1 || null(c.batch = batch_of(model, call->positional.front()))) return std::nullopt;
    if (!is_cuda_tensor_type(model, call->function)) return std::nullopt;
    // `LongTensor(batch_size)` with `batch_size = imgs.shape[0]`: a size, allocated on the GPU.
    if (is_size_expression(model, call->positional.front())) return std::nullopt;
  }
  return c;
}

TSNode converted_batch(const Model& model, TSNode expr) {
  for (int hop = 0; hop < 8; ++hop) {
    expr = strip_parens(expr);
    const CallInfo* c = ts::is(expr, "call") ? model.call(expr) : nullptr;
    if (!c || c->star_args || c->unresolved_kwargs) return {};
    if (c->qualname == "torch.from_numpy" || c->qualname == "torch.as_tensor" || c->qualname == "torch.tensor") {
      if (c->positional.empty() || c->keyword("device")) return {};
      return batch_of(model, c->positional.front(), 1);
    }
    // A cast on the host: `.long()`, `.float()`, `.type(torch.LongTensor)` is not (a CUDA type may be).
    const std::string_view m = c->method;
    if (!c->qualname.empty() || !c->positional.empty() ||
        !(m == "float" || m == "long" || m == "int" || m == "double" || m == "half" || m == "bool" || m == "contiguous"))
      return {};
    expr = c->receiver;
  }
  return {};
}

std::optional<Copy> batch_device_copy(const Model& model, TSNode call_node) {
  const CallInfo* call = model.call(call_node);
  if (!call || !is_device_copy_method(call->method)) return std::nullopt;
  TSNode batch = batch_of(model, call->receiver);
  std::optional<Copy> copy;
  if (!ts_node_is_null(batch)) {
    copy = device_copy(model, *call);
    if (copy) copy->batch = batch;
    return copy;
  }
  if (!model.step_context(call_node).in_step) return std::nullopt;
  Copy probe;
  if (!host_data(model, call->receiver, probe)) return std::nullopt;
  copy = device_copy(model, *call);
  if (!copy) return std::nullopt;
  copy->host_source = std::move(probe.host_source);
  copy->host_source_site = probe.host_source_site;
  return copy;
}

std::optional<Copy> device_copy(const Model& model, const CallInfo& call) {
  if (!is_device_copy_method(call.method)) return std::nullopt;
  Copy c;
  c.call = &call;
  if (call.star_args) return std::nullopt;
  // `non_blocking` sits at position 1 of `.cuda(device, non_blocking)`, 2 of `.to(device, dtype, non_blocking)`.
  auto read_non_blocking = [&](int index) {
    TSNode nb = call.arg("non_blocking", index);
    // `async=True`: the pre-0.4 spelling (a SyntaxError since Python 3.7, where async became a
    // keyword); treated as non_blocking.
    if (const Argument* legacy = call.keyword("async"); null(nb) && legacy) {
      nb = legacy->value;
      c.legacy_async = true;
    }
    if (!null(nb)) {
      c.non_blocking_node = nb;
      c.non_blocking = model.evaluate(nb).truthy();
    } else {
      c.non_blocking = call.unresolved_kwargs ? std::nullopt : std::optional<bool>(false);
    }
  };
  if (call.method == "cuda") {
    c.device = call.arg("device", 0);
    read_non_blocking(1);
    return c;
  }
  // `.to(...)`: find the device among the arguments; anything else is a cast.
  if (call.keyword("memory_format") && !call.keyword("device") && call.positional.empty()) return std::nullopt;
  TSNode device = call.arg("device");
  if (null(device) && !call.positional.empty() && !is_dtype_expression(model, call.positional.front()))
    device = call.positional.front();
  if (null(device)) return std::nullopt;
  const Value v = model.evaluate(device);
  TSNode device_call = device;
  if (ts::is(device, "identifier")) {
    // `device = torch.device("cuda:0")` earlier in the file: read the string inside. Every call
    // assigned to the name counts, so that `device = torch.device("cpu")` in the else-branch of
    // `device = torch.accelerator.current_accelerator()` does not make the copy look CPU-only.
    int found = 0;
    for (TSNode value : model.assigned_values(model.text(device))) {
      const CallInfo* other = ts::is(value, "call") ? model.call(value) : nullptr;
      if (!other) continue;
      if (++found > 1) break;  // not one call: the name itself (a long file assigns it in every copy of a function)
      if (last_component(other->qualname) == "device" && other->qualname.rfind("torch.", 0) == 0) device_call = other->node;
    }
    if (found != 1) device_call = device;
  }
  if (v.kind == Value::Kind::String) {
    // Only CUDA copies matter here: "cpu", "mps", "meta" are not host-to-GPU copies.
    if (v.s.rfind("cuda", 0) != 0) return std::nullopt;
  } else if (v.kind == Value::Kind::Int) {
    // A device index: `.to(0)` is cuda:0.
  } else if (v.known()) {
    return std::nullopt;  // None, a bool, a float: not a device
  } else if (ts::is(device_call, "call") && last_component(model.qualname(ts::field(device_call, "function"))) == "device") {
    // torch.device("cuda:0") / torch.device("cpu")
    TSNode args = ts::field(device_call, "arguments");
    const Value inner = ts_node_named_child_count(args) > 0 ? model.evaluate(ts_node_named_child(args, 0)) : Value{};
    if (inner.kind == Value::Kind::String && inner.s.rfind("cuda", 0) != 0) return std::nullopt;
    c.device_is_variable = inner.kind != Value::Kind::String;
  } else {
    c.device_is_variable = true;
  }
  c.device = device;
  read_non_blocking(2);
  return c;
}

}  // namespace perflint::data_loading

namespace perflint::data_loading {

std::string enable_flag_hint(const Value& value, std::string_view param) {
  const ArgOption* opt = value.from_option;
  if (!opt) return {};
  if (ts_node_is_null(opt->default_value)) return "run with `" + opt->flag + "` or pass `" + std::string(param) + "=True`";
  return "set `default=True` for " + opt->flag + " (line " + std::to_string(opt->line) + ") or pass `" +
         std::string(param) + "=True`";
}

}  // namespace perflint::data_loading

namespace perflint::data_loading {

namespace {
bool is_name_chain(TSNode n) {
  while (ts::is(n, "attribute")) {
    if (!ts::is(ts::field(n, "attribute"), "identifier")) return false;
    n = ts::field(n, "object");
  }
  return ts::is(n, "identifier");
}
}  // namespace

std::optional<std::string> persistent_workers_value(const Model& model, const CallInfo& call, const LoaderArg& workers) {
  if (!workers.present || ts_node_is_null(workers.node)) return std::nullopt;
  if (ts::is(workers.node, "integer")) return "True";
  if (!is_name_chain(workers.node)) return std::nullopt;
  // Only an expression written in this call's own argument list can be repeated next to it.
  if (ts_node_is_null(fixes::literal_argument(call, workers.node, ts::kind(workers.node)))) return std::nullopt;
  return std::string(ts::text(workers.node, model.source().text())) + " > 0";
}

}  // namespace perflint::data_loading
