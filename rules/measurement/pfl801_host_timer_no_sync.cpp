// PFL801 host-timer-no-sync: `time.time()`/`perf_counter()` read around GPU work with nothing that
// waits for the GPU in between. CUDA calls return once the kernels are queued, so the difference
// measures launch time, not run time; the numbers mislead every decision made from them.
#include <algorithm>
#include <array>
#include <cctype>
#include <vector>
#include <string>
#include <unordered_map>

#include "parser/model.hpp"
#include "parser/ts.hpp"
#include "rules/all.hpp"
#include "rules/attention/attention_util.hpp"
#include "rules/data_loading/loader_util.hpp"
#include "rules/host_sync/tensor_util.hpp"

namespace perflint {
namespace {

bool is_timer(std::string_view q) {
  return q == "time.time" || q == "time.perf_counter" || q == "time.monotonic" || q == "time.time_ns" ||
         q == "time.perf_counter_ns" || q == "time.monotonic_ns";
}

template <size_t N>
bool one_of(std::string_view s, const std::array<std::string_view, N>& set) {
  for (auto x : set)
    if (s == x) return true;
  return false;
}

// Calls that wait for the GPU (or read a result back, which waits too).
bool syncs(const Model& model, const CallInfo& c) {
  if (c.qualname == "torch.cuda.synchronize" || c.qualname == "torch.cuda.Event" ||
      c.qualname == "torch.distributed.barrier")
    return true;
  // Serialising results needs their values on the host (`f.write(json.dumps(p))` for each of
  // DrQA's predictions, `torch.save(state)`): the work that computed them is done.
  static constexpr std::array<std::string_view, 8> serialise = {"json.dump", "json.dumps", "pickle.dump", "pickle.dumps",
                                                                "numpy.save", "numpy.savez", "torch.save", "np.save"};
  if (one_of(std::string_view(c.qualname), serialise)) return true;
  // Decoding generated token ids reads them (`tokenizer.decode(ids[0])`), and a streamer prints each
  // token as it is generated (`model.generate(..., streamer=streamer)`).
  if ((c.method == "decode" || c.method == "batch_decode") && !c.positional.empty()) return true;
  if (c.keyword("streamer")) return true;
  // `fabric.barrier()`, `accelerator.wait_for_everyone()`: a collective waits for the queued work.
  static constexpr std::array<std::string_view, 9> methods = {"synchronize", "item", "cpu", "tolist", "numpy",
                                                              "elapsed_time", "wait", "wait_for_everyone", "barrier"};
  if (!c.method.empty() && one_of(c.method, methods)) return true;
  if (c.method == "to" && is_host_copy(model, c)) return true;  // `.to("cpu")`
  // `float(loss)`, `int(t)`, `bool(t)`, `print(loss)`, `print(f"{loss}")`: reading a device tensor's
  // value on the host waits for the kernels that compute it.
  if (ts::is(c.function, "identifier")) {
    const std::string_view f = model.text(c.function);
    if (f == "float" || f == "int" || f == "bool" || f == "print") {
      const auto& losses = model.derived(loss_names);
      for (TSNode a : c.positional) {
        if (is_tensor_like(model, a, losses)) return true;
        if (f != "print" || !ts::is(a, "string")) continue;
        for (TSNode part : ts::named_children(a))
          if (ts::is(part, "interpolation") &&
              is_tensor_like(model, ts::field(part, "expression"), losses))
            return true;
      }
    }
  }
  // A same-file wrapper such as `cuda_sync()` or `synchronize(device)`.
  const std::string_view callee = model.text(c.function);
  return callee.find("sync") != std::string_view::npos;
}

// A blocking host-to-device copy (`x.cuda()`, `x.to(device)` without non_blocking=True): PyTorch
// waits for the stream after a pageable copy, so everything queued before it has run (but not
// what is queued after it).
bool blocking_copy(const Model& model, const CallInfo& c) {
  if (!data_loading::is_device_copy_method(c.method) || looks_like_module(model, c.receiver)) return false;
  const auto copy = data_loading::device_copy(model, c);
  return copy && copy->non_blocking == false;
}

// A name for evaluation, by its words (split at `_`, `.`, brackets...): `val_loader`,
// `self.test_loader`, `evaluate`, `run_validation`; not `latest` or `interval`.
bool evalish(std::string_view name) {
  std::string word;
  const auto judge = [&] {
    const bool hit = word == "val" || word == "dev" || word.starts_with("eval") || word.starts_with("valid") ||
                     word.starts_with("test") || word.starts_with("infer") || word.starts_with("predict");
    word.clear();
    return hit;
  };
  for (char ch : name) {
    if (std::isalnum(static_cast<unsigned char>(ch))) {
      word.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(ch))));
    } else if (judge()) {
      return true;
    }
  }
  return judge();
}

// `validate` of `trainer.validate`: a callee's own name.
std::string_view last_name(std::string_view callee) {
  const size_t dot = callee.rfind('.');
  return dot == std::string_view::npos ? callee : callee.substr(dot + 1);
}

// A timer in evaluation code: a function named like `evaluate`/`validate`/`test`, or a loop over a
// loader named like `val_loader`/`test_loader`. Evaluation loops read their results back (metrics,
// predictions), and their timings are not what training decisions are made from.
bool in_eval_code(const Model& model, TSNode node) {
  for (TSNode p = ts::parent(node); !ts_node_is_null(p); p = ts::parent(p)) {
    if (ts::is(p, "function_definition")) return evalish(model.text(ts::field(p, "name")));
    if (ts::is(p, "for_statement") && evalish(model.text(ts::field(p, "right")))) return true;
  }
  return false;
}

// A call that could queue GPU work: anything but builtins, logging/progress helpers and other
// libraries (`time`, `numpy`, `os`, ...). Deliberately broad: the rule only runs on CUDA scripts.
bool may_launch(const Model& model, const CallInfo& c) {
  static constexpr std::array<std::string_view, 38> builtins = {
      "print", "len", "range", "enumerate", "zip", "next", "iter", "isinstance", "str", "int", "float", "sorted",
      "list", "dict", "tuple", "min", "max", "sum", "abs", "round", "open", "format", "getattr", "hasattr",
      "set", "frozenset", "bool", "repr", "map", "filter", "reversed", "any", "all", "vars", "type", "setattr",
      "issubclass", "super"};
  static constexpr std::array<std::string_view, 20> cpu_methods = {
      "update", "append", "extend", "format", "join", "split", "info", "debug", "warning", "error",
      "log", "write", "set_description", "set_postfix", "add_scalar", "items", "keys", "values", "get", "flush"};
  static constexpr std::array<std::string_view, 5> grad_modes = {"torch.no_grad", "torch.enable_grad",
                                                                 "torch.inference_mode", "torch.set_grad_enabled",
                                                                 "torch.manual_seed"};
  if (ts::is(c.function, "identifier") && one_of(model.text(c.function), builtins)) return false;
  // Processes (`mp.spawn(..., join=True)` returns when the workers have exited) and collectives
  // set-up are not queued GPU work of this process.
  // Device management and queries (`torch.cuda.is_available()`, `max_memory_allocated()`) queue no
  // kernels either.
  for (std::string_view p : {"torch.multiprocessing.", "torch.distributed.", "torch.cuda.", "torch.backends.",
                             "torch.utils."})
    if (c.qualname.starts_with(p)) return false;
  // A function of another file of the project (`do_forward(model, x)` from a star import) may.
  if (!c.qualname.empty())
    return (c.qualname.starts_with("torch.") && !one_of(std::string_view(c.qualname), grad_modes)) ||
           model.calls_project_function(c);
  if (!c.method.empty() && one_of(c.method, cpu_methods)) return false;
  if (!ts_node_is_null(c.receiver) && rooted_in_other_library(model, c.receiver)) return false;
  return true;
}

// Whether the code in [lo, hi) shows any torch work: a `torch.` call, a method that only tensors,
// modules and optimizers have (`backward`, `step`, `cuda`, `to`, `zero_grad`, `forward`), or a call
// of something named like a model. Code with none (a dataset download timed in a utilities module)
// queues no GPU work whatever its calls do.
bool shows_torch_work(const Model& model, uint32_t lo, uint32_t hi) {
  static constexpr std::array<std::string_view, 7> methods = {"backward", "step", "cuda", "to", "zero_grad",
                                                              "forward", "item"};
  for (const auto& c : model.calls()) {
    if (ts_node_start_byte(c.node) < lo || ts_node_end_byte(c.node) > hi) continue;
    if (c.qualname.starts_with("torch.")) return true;
    if (!c.method.empty() && one_of(c.method, methods)) return true;
    const std::string_view callee = model.text(c.function);
    for (std::string_view w : {"model", "net", "module", "encoder", "decoder", "generator", "discriminator"})
      if (callee.find(w) != std::string_view::npos) return true;
  }
  return false;
}

// The function definitions of the file by name, from one walk: module_function is asked about the
// calls of every timed region, and a name that is no module-level def (a builtin, a method) would
// walk the whole tree each time.
struct FunctionDefs {
  std::unordered_map<std::string_view, TSNode> top_level;            // the first module-level def (or decorated)
  std::unordered_map<std::string_view, std::pair<TSNode, int>> all;  // the first in pre-order, and how many (2: more)
};

FunctionDefs function_defs(const Model& model) {
  FunctionDefs defs;
  if (model.calls().empty()) return defs;  // module_function is only asked about calls
  TSNode root = model.calls().front().node;
  for (TSNode p = ts::parent(root); !ts_node_is_null(p); p = ts::parent(p)) root = p;
  for (TSNode child : ts::named_children(root)) {
    TSNode def = child;
    if (ts::is(def, "decorated_definition")) def = ts::field(def, "definition");
    if (ts::is(def, "function_definition")) defs.top_level.emplace(model.text(ts::field(def, "name")), def);
  }
  ts::walk(root, [&](TSNode n) {
    if (ts::is(n, "function_definition")) {
      auto& [first, count] = defs.all.try_emplace(model.text(ts::field(n, "name")), n, 0).first->second;
      count = std::min(count + 1, 2);
    }
    return true;
  });
  return defs;
}

// The `def name(...)` a call of `name` (a call of the model's file) runs: the module-level one (or
// decorated), else the only def of that name in the file (a helper nested in `main()`,
// open-instruct's health_check_fn), or null.
TSNode module_function(std::string_view name, const Model& model) {
  const FunctionDefs& defs = model.derived(function_defs);
  if (const auto top = defs.top_level.find(name); top != defs.top_level.end()) return top->second;
  const auto any = defs.all.find(name);
  return any != defs.all.end() && any->second.second == 1 ? any->second.first : TSNode{};
}

// Whether [lo, hi) computes on data: a module or function called on it (`model(x)`, `generate(...)`),
// forward/backward/an optimizer step, or torch math. Building, loading, moving and wrapping a model
// (`GPT(config)`, `load_checkpoint(...)`, `fabric.setup(model)`, `model.to(device)`) do not.
bool region_computes(const Model& model, uint32_t lo, uint32_t hi, int depth = 0) {
  static constexpr std::array<std::string_view, 6> compute_methods = {"backward", "step", "forward", "generate",
                                                                      "__call__", "sample"};
  for (const auto& c : model.calls()) {
    if (ts_node_start_byte(c.node) < lo || ts_node_end_byte(c.node) > hi) continue;
    // A function a star import of the project brings (`do_forward(model, x)` after `from
    // tool.torch_utils import *`) is judged by its name below, as one of this file whose body is
    // not read (as before star imports of packages were resolved).
    const bool project_function = !c.qualname.empty() && !c.qualname.starts_with("torch.") &&
                                  ts::is(c.function, "identifier") && model.star_imported(c) &&
                                  model.calls_project_function(c);
    if (!c.qualname.empty() && !project_function) {
      if (!c.qualname.starts_with("torch.")) continue;
      const std::string_view q = c.qualname;
      // Device and process management, loading, initialisation and allocation are set-up.
      if (q.starts_with("torch.cuda.") || q.starts_with("torch.backends.") || q.starts_with("torch.distributed.") ||
          q.starts_with("torch.utils.") || q.starts_with("torch.nn.init.") || q == "torch.load" || q == "torch.save" ||
          q == "torch.compile" || q == "torch.manual_seed" || q == "torch.no_grad" || q == "torch.inference_mode" ||
          q == "torch.device")
        continue;
      bool allocates = false;
      for (std::string_view f : {"zeros", "ones", "empty", "full", "arange", "tensor", "as_tensor", "from_numpy",
                                 "empty_like", "zeros_like", "ones_like", "full_like"})
        allocates = allocates || q == "torch." + std::string(f);
      if (allocates) continue;
      return true;
    }
    if (!c.method.empty()) {
      if (one_of(c.method, compute_methods)) return true;
      continue;
    }
    if (!ts::is(c.function, "identifier")) continue;
    const std::string_view name = model.text(c.function);
    if (name.empty() || std::isupper(static_cast<unsigned char>(name.front()))) continue;  // a constructor
    bool builtin = false;
    for (std::string_view b : {"isinstance", "issubclass", "getattr", "hasattr", "setattr", "super", "type", "any", "all",
                               "zip", "enumerate", "next", "iter", "min", "max", "sum", "abs", "round", "open", "format",
                               "reversed", "map", "filter", "tuple", "set", "bool", "id", "vars", "repr", "partial"})
      builtin = builtin || name == b;
    if (builtin) continue;
    // A function of this file: what its body does (`sequential(model, device)` only moves layers).
    if (TSNode def = module_function(name, model); !ts_node_is_null(def)) {
      if (ts_node_start_byte(def) <= lo && hi <= ts_node_end_byte(def)) continue;  // the caller itself
      if (depth >= 2 || region_computes(model, ts_node_start_byte(def), ts_node_end_byte(def), depth + 1)) return true;
      continue;
    }
    bool setup = false;
    for (std::string_view w : {"load", "init", "setup", "save", "print", "build", "create", "make", "get", "prepare",
                               "download", "reset", "seed", "device", "move", "materialize", "replace", "wrap",
                               "shard", "len", "range", "str", "int", "float", "list", "dict", "sorted"})
      setup = setup || name.find(w) != std::string_view::npos;
    if (!setup) return true;
  }
  return false;
}

bool region_has_loop(TSNode scope, uint32_t lo, uint32_t hi) {
  bool found = false;
  ts::walk(scope, [&](TSNode n) {
    if (found || ts_node_end_byte(n) <= lo || ts_node_start_byte(n) >= hi) return false;
    if ((ts::is(n, "for_statement") || ts::is(n, "while_statement")) && ts_node_start_byte(n) >= lo &&
        ts_node_end_byte(n) <= hi)
      found = true;
    return !found;
  });
  return found;
}

// A name some assignment of which is a tensor result: a torch function or a tensor method
// (`token = next_token(...).clone()`). Generous on purpose: here it can only make the rule quieter.
bool holds_tensor(const Model& model, TSNode expr) {
  const auto& losses = model.derived(loss_names);
  bool found = false;
  ts::walk(expr, [&](TSNode n) {
    if (found) return false;
    if (is_tensor_like(model, n, losses)) found = true;
    if (!found && ts::is(n, "identifier"))
      for (TSNode v : model.assigned_values(model.text(n))) {
        v = unparen(v);
        if (!ts::is(v, "call")) continue;
        const CallInfo* c = model.call(v);
        if (c && (c->qualname.starts_with("torch.") || is_tensor_like(model, v, losses))) found = true;
      }
    return !found;
  });
  return found;
}

// An `if`/`elif`/`while` in the body of `def` that tests a tensor as a Python bool (`if token ==
// eos_id: break` in a generation loop): a sync every time it runs.
bool tests_tensor_condition(const Model& model, TSNode def) {
  bool found = false;
  ts::walk(def, [&](TSNode n) {
    if (found) return false;
    if (ts::is(n, "if_statement") || ts::is(n, "elif_clause") || ts::is(n, "while_statement")) {
      const TSNode cond = ts::field(n, "condition");
      if (!ts_node_is_null(cond) && !identity_or_membership_test(cond) && holds_tensor(model, cond)) found = true;
    }
    return !found;
  });
  return found;
}

// Whether a call in [lo, hi) waits for the GPU, looking one or two levels into functions defined
// in this file (`train()` whose loop does `total += loss.item()`, `test()` that returns `.item()`,
// and the conditions they test on tensors).
// A blocking copy counts when `any_copy` (a loop body: the next iteration's copy drains this one's
// work) or when no GPU work is queued after it in the region.
bool region_syncs(const Model& model, uint32_t lo, uint32_t hi, int depth = 0, bool any_copy = false) {
  for (const auto& c : model.calls()) {
    if (ts_node_start_byte(c.node) < lo || ts_node_end_byte(c.node) > hi) continue;
    if (syncs(model, c)) return true;
    // A function of another file of the project that waits (`do_detect(...)` ending in
    // `post_processing(...)`'s `.cpu()`: pytorch-YOLOv4's demo.py, held-out round 14).
    if (depth == 0 && model.calls_syncing_project_function(c)) return true;
    if (depth == 0 && blocking_copy(model, c)) {
      if (any_copy) return true;
      bool launch_after = false;
      for (const auto& d : model.calls())
        if (ts_node_end_byte(d.node) > ts_node_end_byte(c.node) && ts_node_end_byte(d.node) <= hi &&
            ts_node_start_byte(d.node) >= lo &&
            may_launch(model, d) && !blocking_copy(model, d))
          launch_after = true;
      if (!launch_after) return true;
    }
    // `self.train_step()` that runs a subclass's override in another file: what it waits for is
    // not visible here (decision-transformer's Trainer.train_iteration; held-out round 20).
    if (model.runs_foreign_override(c)) return true;
    if (depth >= 2) continue;
    // The function of this file the call runs: `helper(x)` (a module-level def), `self.train_step()`
    // (the method of its class and the overrides of its subclasses here).
    std::vector<TSNode> defs;
    if (ts::is(c.function, "attribute") && model.text(ts::field(c.function, "object")) == "self")
      defs = model.callee_definitions(c);
    else if (c.qualname.empty() && ts::is(c.function, "identifier"))
      if (TSNode def = module_function(model.text(c.function), model); !ts_node_is_null(def)) defs.push_back(def);
    for (TSNode def : defs)
      // Not recursion into the function that holds the region itself.
      if (!(ts_node_start_byte(def) <= lo && hi <= ts_node_end_byte(def)) &&
          (region_syncs(model, ts_node_start_byte(def), ts_node_end_byte(def), depth + 1) ||
           tests_tensor_condition(model, def)))
        return true;
  }
  return false;
}

// The innermost `for`/`while` around `node` inside its function, or null.
TSNode enclosing_loop(TSNode node) {
  for (TSNode p = ts::parent(node); !ts_node_is_null(p); p = ts::parent(p)) {
    if (ts::is(p, "for_statement") || ts::is(p, "while_statement")) return p;
    if (ts::is(p, "function_definition") || ts::is(p, "class_definition")) break;
  }
  return {};
}

// `for epoch in ...` (any target name containing "epoch"): one iteration is a whole pass over the data.
bool is_epoch_loop(const Model& model, TSNode loop) {
  if (!ts::is(loop, "for_statement")) return false;
  return model.text(ts::field(loop, "left")).find("epoch") != std::string_view::npos;
}

bool inside(TSNode n, TSNode outer) {
  return ts_node_start_byte(outer) <= ts_node_start_byte(n) && ts_node_end_byte(n) <= ts_node_end_byte(outer);
}

TSNode timer_call(const Model& model, TSNode value) {
  TSNode v = unparen(value);
  if (!ts::is(v, "call")) return {};
  const CallInfo* c = model.call(v);
  return c && is_timer(c->qualname) ? v : TSNode{};
}

// `time.time() - start`: the name the clock reading is compared with, or empty.
std::string_view start_name_in_expression(const Model& model, TSNode timer) {
  TSNode n = timer;
  for (TSNode p = ts::parent(n); !ts_node_is_null(p); n = p, p = ts::parent(p)) {
    if (ts::is(p, "parenthesized_expression")) continue;
    if (!ts::is(p, "binary_operator")) break;
    TSNode op = ts::field(p, "operator");
    TSNode right = unparen(ts::field(p, "right"));
    if (!ts_node_is_null(op) && ts::kind(op) == "-" && ts::same(ts::field(p, "left"), n) && ts::is(right, "identifier"))
      return model.text(right);
    break;
  }
  return {};
}

// `end = time.time()` ... `end - start`: the start name, read from the first such difference.
std::string_view start_name_via_end(const Model& model, TSNode timer) {
  TSNode stmt = statement_of(timer);
  if (!ts::is(stmt, "assignment") || !ts::same(unparen(ts::field(stmt, "right")), timer)) return {};
  TSNode left = ts::field(stmt, "left");
  if (!ts::is(left, "identifier")) return {};
  const std::string_view end = model.text(left);
  std::string_view start;
  ts::walk(scope_of(model, stmt), [&](TSNode n) {
    if (!start.empty() || ts_node_end_byte(n) <= ts_node_end_byte(stmt)) return false;
    if (!ts::is(n, "binary_operator")) return true;
    TSNode op = ts::field(n, "operator");
    TSNode l = unparen(ts::field(n, "left")), r = unparen(ts::field(n, "right"));
    if (!ts_node_is_null(op) && ts::kind(op) == "-" && ts::is(l, "identifier") && model.text(l) == end &&
        ts::is(r, "identifier"))
      start = model.text(r);
    return start.empty();
  });
  return start;
}

// Whether the function holding `reading` yields between a binding of `start` and the reading, or
// anywhere in a loop around the reading whose iterations the span crosses.
bool span_yields(const Model& model, TSNode reading, std::string_view start) {
  TSNode fn = model.enclosing(reading, "function_definition");
  if (ts_node_is_null(fn)) return false;
  bool yields = false;
  ts::walk(ts::field(fn, "body"), [&](TSNode n) {
    if (yields || ts::is(n, "function_definition") || ts::is(n, "class_definition")) return false;
    if (ts::is(n, "yield")) yields = true;
    return !yields;
  });
  if (!yields) return false;
  // The clock must be started in this function (not a name from elsewhere).
  for (TSNode v : model.assigned_values(start))
    if (ts::same(model.enclosing(v, "function_definition"), fn)) return true;
  return false;
}

// The reading's value is only ever looked at under `if False:` / `if 0:` (a profiling print left
// switched off in the source: YOLOv4's region_loss.py, held-out round 14), or never at all: no timing
// is shown.
bool read_only_in_dead_code(const Model& model, TSNode reading) {
  TSNode stmt = ts::parent(reading);
  while (!ts_node_is_null(stmt) && (ts::is(stmt, "binary_operator") || ts::is(stmt, "parenthesized_expression")))
    stmt = ts::parent(stmt);
  if (!ts::is(stmt, "assignment") || !ts::is(ts::field(stmt, "left"), "identifier")) return false;
  const std::string_view name = model.text(ts::field(stmt, "left"));
  const auto dead = [&](TSNode n) {
    for (TSNode p = ts::parent(n); !ts_node_is_null(p); p = ts::parent(p)) {
      if (ts::is(p, "function_definition")) return false;
      if (!ts::is(p, "if_statement")) continue;
      const TSNode cond = unparen(ts::field(p, "condition"));
      const TSNode then = ts::field(p, "consequence");
      if ((ts::is(cond, "false") || (ts::is(cond, "integer") && model.text(cond) == "0")) &&
          ts_node_start_byte(n) >= ts_node_start_byte(then) && ts_node_end_byte(n) <= ts_node_end_byte(then))
        return true;
    }
    return false;
  };
  const TSNode scope = scope_of(model, stmt);
  bool any = false, live = false;
  ts::walk(scope, [&](TSNode n) {
    if (live || ts_node_end_byte(n) <= ts_node_end_byte(stmt)) return false;
    if (!ts::is(n, "identifier") || model.text(n) != name) return true;
    const TSNode parent = ts::parent(n);
    if (ts::is(parent, "assignment") && ts::same(ts::field(parent, "left"), n)) return false;  // rebound
    if (ts::is(parent, "attribute") && ts::same(ts::field(parent, "attribute"), n)) return false;
    any = true;
    live = !dead(n);
    return false;
  });
  if (any) return !live;
  // Never read at all in its function, before it either (a loop body may print the previous
  // iteration's value first): the print that showed it is commented out or sits in a string
  // (nerf-pytorch's `dt = time.time()-time0`, held-out round 35). Not at module level, where
  // another function may read the global.
  if (!ts::is(scope, "function_definition")) return false;
  bool read = false;
  ts::walk(scope, [&](TSNode n) {
    if (read) return false;
    if (ts::is(n, "global_statement") || ts::is(n, "nonlocal_statement")) return !(read = true);
    if (!ts::is(n, "identifier") || model.text(n) != name) return true;
    const TSNode parent = ts::parent(n);
    if (ts::is(parent, "assignment") && ts::same(ts::field(parent, "left"), n)) return false;
    if (ts::is(parent, "attribute") && ts::same(ts::field(parent, "attribute"), n)) return false;
    if (ts::is(parent, "keyword_argument") && ts::same(ts::field(parent, "name"), n)) return false;
    read = true;
    return false;
  });
  return !read;
}

class RulePFL801 final : public Rule {
 public:
  const RuleInfo& info() const override {
    static const RuleInfo i{"PFL801", "host-timer-no-sync", "measurement", Severity::Warning,
                            "Host timer around GPU work without torch.cuda.synchronize(): the time is wrong", true, {}};
    return i;
  }
  std::vector<std::string_view> kinds() const override { return {"call"}; }
  bool wants(const CallInfo& call) const override { return is_timer(call.qualname); }

  void check(TSNode node, const Model& model, Emitter& out) const override {
    const CallInfo* call = model.call(node);
    if (!call || !wants(*call)) return;
    std::string_view start = start_name_in_expression(model, node);
    if (start.empty()) start = start_name_via_end(model, node);
    if (start.empty()) return;
    if (in_eval_code(model, node)) return;
    // Read only in a branch the options' defaults switch off (`if args.time:` with --time off:
    // continual-learning's main.py, held-out round 36).
    if (model.switched_off(node)) return;
    if (read_only_in_dead_code(model, node)) return;
    // A generator that times its consumer (`for obj in iterable: ...; yield obj; ...
    // iter_time.update(time.time() - end)`, the MetricLogger.log_every of many repositories): the
    // span holds whatever the caller does per item, which this function cannot see.
    if (span_yields(model, node, start)) return;
    // The latest `start = time.time()` before this reading, in the same function.
    const auto values = values_assigned_before(model, start, node);
    if (values.empty()) return;
    const TSNode first = timer_call(model, values.front());
    if (ts_node_is_null(first)) return;
    const uint32_t lo = ts_node_end_byte(first), hi = ts_node_start_byte(node);
    // A sync in the region, also inside a same-file function it calls.
    if (region_syncs(model, lo, hi)) return;
    // A reading inside a loop whose clock started before the loop (`start = time.time()` then
    // `for ...: eta = time.time() - start`), or that restarts the clock after the reading
    // (`prev = time.time()` at the end of the body): the timed span crosses the end of the previous
    // iteration, so a read-back later in the body (`print(loss.item())`) is inside it too.
    if (TSNode loop = enclosing_loop(node); !ts_node_is_null(loop)) {
      bool wraps = !inside(first, loop);
      for (TSNode v : model.assigned_values(start))
        if (inside(v, loop) && ts_node_start_byte(v) > ts_node_end_byte(node)) wraps = true;
      if (wraps && region_syncs(model, ts_node_start_byte(loop), ts_node_end_byte(loop), 0, true)) return;
      // A cumulative clock: started once before the loop and never restarted in it (`start =
      // time.time()` ... `fps = steps / (time.time() - start)`). The span grows with every
      // iteration, and the host can run ahead of the GPU by at most its launch queue: the error
      // shrinks to nothing over a run.
      bool restarted = false;
      for (TSNode v : model.assigned_values(start)) restarted = restarted || inside(v, loop);
      if (!inside(first, loop) && !restarted) return;
    }
    const CallInfo* work = nullptr;
    for (const auto& c : model.calls()) {
      if (ts_node_start_byte(c.node) < lo || ts_node_end_byte(c.node) > hi) continue;
      // Not in a branch the options' defaults switch off (vsepp's `if opt.reset_train:
      // model.train_start()` in a data-loading span, held-out round 34).
      if (!work && may_launch(model, c) && !model.switched_off(c.node)) work = &c;
    }
    if (!work) return;
    // A span holding a whole evaluation pass (`validate(fabric, model, val_loader)`): like an epoch
    // run by another function below, over a pass the host runs ahead by at most the launch queue.
    for (const auto& c : model.calls())
      if (ts_node_start_byte(c.node) >= lo && ts_node_end_byte(c.node) <= hi &&
          evalish(last_name(model.text(c.function))))
        return;
    // A span within one iteration at most, with no loop inside, that only builds, loads or moves the
    // model ("Time to instantiate model: 3.2 seconds", "[rank] Time to move the model"): set-up
    // timing in seconds, not a step's.
    if (const TSNode loop = enclosing_loop(node); (ts_node_is_null(loop) || inside(first, loop)) &&
                                                  !region_has_loop(scope_of(model, node), lo, hi) &&
                                                  !region_computes(model, lo, hi))
      return;
    // Its function (or the module) shows no torch work at all: nothing is queued on the GPU.
    if (const TSNode scope = scope_of(model, node);
        !shows_torch_work(model, ts_node_start_byte(scope), ts_node_end_byte(scope)))
      return;
    // A file that imports neither torch nor a library built on it (a TensorFlow or TVM demo next to
    // the PyTorch code; its `target='cuda'` is another framework's) queues torch kernels only through
    // a function of another project file called in the span.
    const auto imports = model.imported_module_names();
    if (std::none_of(imports.begin(), imports.end(), [](const std::string& m) {
          return m.starts_with("torch") || m == "lightning" || m == "pytorch_lightning" || m == "accelerate" ||
                 m == "transformers" || m == "timm" || m == "deepspeed" || m == "apex" || m == "diffusers" ||
                 m == "fairseq" || m == "peft";
        })) {
      bool through_project = false;
      for (const auto& c : model.calls())
        if (ts_node_start_byte(c.node) >= lo && ts_node_end_byte(c.node) <= hi && model.calls_project_function(c))
          through_project = true;
      if (!through_project) return;
    }
    // A whole training epoch run by another module's function (`train_one_epoch(...)` from
    // engine.py, which the model resolves as a step loop): perflint cannot see its read-backs, and
    // over an epoch the host can run ahead of the GPU by at most the launch queue, a negligible
    // share. These are run- and epoch-length timers (`total_time = time.time() - start_time`).
    for (TSNode step : model.step_loops())
      if (ts::is(step, "call") && ts_node_start_byte(step) >= lo && ts_node_end_byte(step) <= hi) return;
    // The same for epoch-length spans the model cannot resolve (an engine whose step hides its
    // backward in a loss scaler, a helper package): a clock read once per epoch loop iteration with
    // its start in the same iteration, or a span holding a whole `for epoch in ...` loop.
    if (TSNode loop = enclosing_loop(node); is_epoch_loop(model, loop) && inside(first, loop)) return;
    bool whole_run = false;
    ts::walk(scope_of(model, node), [&](TSNode n) {
      if (whole_run || ts_node_end_byte(n) <= lo || ts_node_start_byte(n) >= hi) return false;
      if (ts_node_start_byte(n) >= lo && ts_node_end_byte(n) <= hi && is_epoch_loop(model, n)) whole_run = true;
      return !whole_run;
    });
    if (whole_run) return;
    const auto line = [&](TSNode n) { return std::to_string(out.source().position(ts_node_start_byte(n)).line); };
    Finding& f = out.report(node,
                            "CUDA kernels run asynchronously: this host timer measures the time to queue the work, "
                            "not to run it",
                            "call `torch.cuda.synchronize()` before reading the clock (or use "
                            "`torch.cuda.Event(enable_timing=True)`)");
    f.notes.push_back(out.note(first, "the clock starts here (line " + line(first) + ")"));
    f.notes.push_back(out.note(work->node, "GPU work is queued in between, e.g. `" + short_text(model, work->node, 40) +
                                               "` (line " + line(work->node) + "), and nothing waits for it"));
  }
};

}  // namespace

std::unique_ptr<Rule> make_pfl801() { return std::make_unique<RulePFL801>(); }

}  // namespace perflint
