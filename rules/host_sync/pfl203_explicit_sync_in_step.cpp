// PFL203 explicit-sync-in-step: `torch.cuda.synchronize()` / `torch.cuda.empty_cache()` on every
// training step. Both drain the GPU queue, so the host can no longer run ahead of the device.
#include <cctype>
#include <string>

#include "parser/model.hpp"
#include "parser/ts.hpp"
#include "rules/all.hpp"
#include "rules/common.hpp"
#include "rules/host_sync/tensor_util.hpp"

namespace perflint {
namespace {

bool is_stream_or_event_factory(std::string_view q) {
  return q == "torch.cuda.current_stream" || q == "torch.cuda.default_stream" || q == "torch.cuda.Stream" ||
         q == "torch.cuda.Event" || q == "torch.cuda.streams.Event" || q == "torch.cuda.streams.Stream";
}

// `torch.cuda.current_stream().synchronize()`, `stream.synchronize()`, `end_event.synchronize()`
// where the receiver was made by one of torch.cuda's stream/event factories: "stream" or "event",
// or empty for any other `.synchronize()`.
std::string_view stream_or_event(const Model& model, const CallInfo& call) {
  if (call.method != "synchronize" || ts_node_is_null(call.receiver)) return {};
  const auto kind = [](std::string_view q) -> std::string_view {
    if (!is_stream_or_event_factory(q)) return {};
    return q.ends_with("Event") ? "event" : "stream";
  };
  TSNode r = call.receiver;
  if (ts::is(r, "call")) return kind(model.qualname(ts::field(r, "function")));
  if (!ts::is(r, "identifier") && !ts::is(r, "attribute")) return {};
  for (TSNode v : model.assigned_values(model.text(r)))
    if (ts::is(v, "call"))
      if (auto k = kind(model.qualname(ts::field(v, "function"))); !k.empty()) return k;
  return {};
}

class RulePFL203 final : public Rule {
 public:
  const RuleInfo& info() const override {
    static const RuleInfo i{"PFL203", "explicit-sync-in-step", "host-sync", Severity::Warning,
                            "torch.cuda.synchronize() / empty_cache() every training step", true, {}};
    return i;
  }
  std::vector<std::string_view> kinds() const override { return {"call"}; }

  bool wants(const CallInfo& call) const override {
    const std::string_view q = call.qualname;  // compared as a view: no out-of-line std::string::compare
    return q == "torch.cuda.synchronize" || q == "torch.cuda.empty_cache" || q == "torch.cuda.memory.empty_cache" ||
           call.method == "synchronize";
  }

  void check(TSNode node, const Model& model, Emitter& out) const override {
    const CallInfo* call = model.call(node);
    if (!call || !wants(*call)) return;
    const std::string_view handle = stream_or_event(model, *call);
    if (call->method == "synchronize" && call->qualname != "torch.cuda.synchronize" && handle.empty()) return;
    const bool sync = call->qualname == "torch.cuda.synchronize" || !handle.empty();  // else empty_cache
    // Timing blocks under `if step % log == 0:` and benchmark functions without a backward are
    // not steps: the model's step context already leaves them out.
    const StepContext sc = model.step_context(node);
    if (!sc.per_step()) return;
    // An opt-in switch for this very sync (`if args.synchronize_step:`, `if cfg.cuda_sync:`): the
    // user turns it on to debug or time steps, and it is off otherwise.
    for (TSNode p = ts::parent(node); !ts_node_is_null(p) && !ts::same(p, sc.loop); p = ts::parent(p)) {
      if (!ts::is(p, "if_statement")) continue;
      if (TSNode body = ts::field(p, "consequence"); ts_node_is_null(body) ||
          ts_node_start_byte(node) < ts_node_start_byte(body) || ts_node_end_byte(node) > ts_node_end_byte(body))
        continue;
      std::string cond(model.text(ts::field(p, "condition")));
      for (char& ch : cond) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      if (cond.find("sync") != std::string::npos) return;
    }
    // A timing helper the step calls (`def time_synchronized(): torch.cuda.synchronize(); return
    // time.time()`): the sync is what makes the host clock's reading mean GPU time, on purpose.
    if (!ts_node_is_null(sc.via) && sync) {
      TSNode fn = ts::parent(node);
      while (!ts_node_is_null(fn) && !ts::is(fn, "function_definition")) fn = ts::parent(fn);
      bool clock = false;
      if (!ts_node_is_null(fn))
        for (const auto& c : model.calls())
          if (ts_node_start_byte(c.node) >= ts_node_start_byte(fn) && ts_node_end_byte(c.node) <= ts_node_end_byte(fn) &&
              (c.qualname == "time.time" || c.qualname == "time.perf_counter" || c.qualname == "time.monotonic" ||
               c.qualname == "time.perf_counter_ns" || c.qualname == "time.time_ns"))
            clock = true;
      if (clock) return;
    }
    const std::string what = "`" + short_text(model, call->function, 50) + "()`";
    std::string message =
        handle == "event"
            ? what + " runs every training step: the host waits until the GPU reaches the event, so it cannot queue "
                     "the next step's work while the GPU drains"
        : sync ? what + " runs every training step: it stalls the host until every queued kernel has finished, so the "
                      "host cannot queue the next step's work while the GPU drains"
             : what + " runs every training step: it frees the allocator's cached blocks, which the next step must "
                      "cudaMalloc again (each a device-wide synchronization), and it synchronizes itself";
    Finding& f = out.report(node, std::move(message),
                            "remove it, or move it under the logging/interval guard (e.g. `if step % log_every == 0:`)");
    f.notes.push_back(step_loop_note(model, out, sc));
  }
};

}  // namespace

std::unique_ptr<Rule> make_pfl203() { return std::make_unique<RulePFL203>(); }

}  // namespace perflint
