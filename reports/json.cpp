// The JSON report: a stable schema documented in docs/output-formats.md. Field order is fixed and
// every finding carries the same keys, so consumers can rely on shape as well as content.
#include "reports/detail.hpp"
#include "reports/json_util.hpp"
#include "reports/report.hpp"

namespace perflint {

namespace {

// --statistics --output-format json: ruff's shape, one object per rule, most findings first.
std::string statistics_json(const std::vector<FileResult>& results, bool unsafe) {
  using json::Value;
  Value out = json::Array{};
  for (const auto& row : report_detail::rule_counts(results, unsafe)) {
    Value o;
    o.set("code", row.code);
    o.set("name", row.name);
    o.set("count", row.count);
    o.set("fixable", row.fixable > 0);
    o.set("fixable_count", row.fixable);
    out.push(std::move(o));
  }
  return out.dump();
}

}  // namespace

std::string write_json(const std::vector<FileResult>& results, const ReportOptions& options) {
  if (options.statistics) return statistics_json(results, options.unsafe_fixes);
  using json::Value;
  Value findings = json::Array{};
  Value errors = json::Array{};
  for (const auto& r : results) {
    for (const auto& f : r.findings) {
      Value o;
      o.set("code", report_detail::rule_code(f));
      o.set("name", report_detail::rule_name(f));
      o.set("severity", to_string(f.severity));
      o.set("path", f.path.empty() ? r.path : f.path);
      o.set("line", f.span.start.line);
      o.set("column", f.span.start.column);
      o.set("end_line", f.span.end.line);
      o.set("end_column", f.span.end.column);
      o.set("message", f.message);
      o.set("fix_hint", f.fix_hint);
      Value notes = json::Array{};
      for (const auto& n : f.notes) {
        Value no;
        no.set("message", n.message);
        if (n.span) {
          no.set("line", n.span->start.line);
          no.set("column", n.span->start.column);
        }
        notes.push(std::move(no));
      }
      o.set("notes", std::move(notes));
      if (f.fix) {
        Value fx;
        fx.set("title", f.fix->title);
        fx.set("safe", f.fix->safe);
        Value edits = json::Array{};
        for (const auto& e : f.fix->edits) {
          Value eo;
          eo.set("start_line", e.start.line);
          eo.set("start_column", e.start.column);
          eo.set("end_line", e.end.line);
          eo.set("end_column", e.end.column);
          eo.set("replacement", e.replacement);
          edits.push(std::move(eo));
        }
        fx.set("edits", std::move(edits));
        o.set("fix", std::move(fx));
      } else {
        o.set("fix", Value());
      }
      if (f.verdict) {
        Value v;
        v.set("state", std::string(to_string(f.verdict->state)));
        v.set("cost_ms_per_step", f.verdict->cost_ms_per_step ? Value(*f.verdict->cost_ms_per_step) : Value());
        v.set("share", f.verdict->share ? Value(*f.verdict->share) : Value());
        v.set("evidence", f.verdict->evidence);
        if (const auto& x = f.verdict->verification) {  // --verify
          v.set("measured_saving_ms_per_step", x->saving_ms_per_step ? Value(*x->saving_ms_per_step) : Value());
          v.set("measured_spread_ms", x->spread_ms ? Value(*x->spread_ms) : Value());
          Value ver;
          Value fix_runs = json::Array{};
          for (double r : x->runs_ms) fix_runs.push(Value(r));
          ver.set("fix", x->fix);
          ver.set("label", x->label.empty() ? Value() : Value(x->label));
          ver.set("status", x->status);
          ver.set("step_ms", x->step_ms ? Value(*x->step_ms) : Value());
          ver.set("runs_ms", std::move(fix_runs));
          ver.set("error", x->error.empty() ? Value() : Value(x->error));
          v.set("verify", std::move(ver));
        }
        o.set("verdict", std::move(v));
      }
      findings.push(std::move(o));
    }
    for (const auto& e : r.errors) {
      Value o;
      o.set("path", e.path.empty() ? r.path : e.path);
      o.set("message", e.message);
      if (e.position) {
        o.set("line", e.position->line);
        o.set("column", e.position->column);
      }
      o.set("kind", report_detail::error_kind_name(e.kind));
      errors.push(std::move(o));
    }
  }
  Value root;
  root.set("version", PERFLINT_VERSION);
  root.set("findings", std::move(findings));
  root.set("errors", std::move(errors));
  if (const ProbeSummary* p = options.probe) {
    Value probe;
    probe.set("script", p->script);
    probe.set("python", p->python);
    probe.set("torch", p->torch);
    probe.set("device", p->device);
    probe.set("steps", p->steps_measured);
    probe.set("steps_requested", p->steps_requested);
    probe.set("warmup", p->warmup);
    if (!p->warmup_added.empty()) probe.set("warmup_added", p->warmup_added);
    probe.set("median_step_ms", p->median_step_ms);
    probe.set("mean_step_ms", p->mean_step_ms);
    probe.set("step_clock", p->step_clock);
    probe.set("data_wait_share", p->data_wait_share);
    // Per phase over the measured steps: median, p10, p90 and share of the step.
    auto phases_value = [](const std::vector<PhaseRow>& rows) {
      Value phases;
      for (const auto& ph : rows) {
        Value v;
        v.set("median_ms", ph.median_ms);
        v.set("p10_ms", ph.p10_ms);
        v.set("p90_ms", ph.p90_ms);
        v.set("share", ph.share);
        phases.set(ph.name, std::move(v));
      }
      return phases;
    };
    if (!p->phases.empty()) {  // absent when the shim did not time them
      probe.set("phases", phases_value(p->phases));
      probe.set("syncs_per_step", p->syncs_per_step);
      probe.set("phases_clock", p->phases_host_clock ? "host" : "cuda_events");
    }
    Value rows = json::Array{};
    static constexpr const char* kPhaseKeys[6] = {"data_ms", "h2d_ms", "forward_ms", "backward_ms", "optimizer_ms", "other_ms"};
    for (const auto& st : p->steps) {
      Value r;
      r.set("index", st.index);
      r.set("warmup", st.warmup);
      r.set("start_ms", st.start_ms);
      r.set("wall_ms", st.wall_ms);
      r.set("data_wait_ms", st.data_wait_ms);
      if (st.phases_ms) {
        Value ph;
        for (size_t i = 0; i < 6; ++i) ph.set(kPhaseKeys[i], (*st.phases_ms)[i]);
        r.set("phases", std::move(ph));
      } else {
        r.set("phases", Value());
      }
      rows.push(std::move(r));
    }
    probe.set("step_rows", std::move(rows));
    auto comm_value = [](const std::optional<CommSummary>& c) {
      if (!c) return Value();
      Value v;
      v.set("collective_ms", c->collective_ms);
      v.set("collective_calls", c->collective_calls);
      v.set("collective_share", c->collective_share);
      v.set("ddp_allreduce_ms", c->ddp_allreduce_ms);
      v.set("ddp_buckets", c->ddp_buckets);
      v.set("ddp_share", c->ddp_share);
      return v;
    };
    probe.set("collectives", comm_value(p->comm));
    if (!p->ranks.empty()) {  // --nproc: one entry per rank
      Value ranks = json::Array{};
      for (const auto& r : p->ranks) {
        Value v;
        v.set("rank", r.rank);
        v.set("steps", r.steps);
        v.set("median_step_ms", r.median_step_ms);
        v.set("data_wait_share", r.data_wait_share);
        v.set("phases", r.phases.empty() ? Value() : phases_value(r.phases));
        v.set("collectives", comm_value(r.comm));
        v.set("ended", r.ended);
        ranks.push(std::move(v));
      }
      probe.set("ranks", std::move(ranks));
      probe.set("straggler", p->straggler.empty() ? Value() : Value(p->straggler));
    }
    probe.set("gpu_busy_share", p->gpu_busy_share >= 0 ? Value(p->gpu_busy_share) : Value());
    probe.set("overhead", p->overhead);
    probe.set("calibration", p->calibration);
    Value shapes = json::Array{};
    for (const auto& [shape, calls] : p->gemm_shapes) {
      Value g;
      g.set("shape", shape);
      g.set("calls", calls);
      shapes.push(std::move(g));
    }
    probe.set("gemm_shapes", std::move(shapes));
    Value diagnoses = json::Array{};
    for (const auto& [kind, text] : p->diagnoses) {
      Value d;
      d.set("kind", kind);
      d.set("text", text);
      diagnoses.push(std::move(d));
    }
    probe.set("diagnoses", std::move(diagnoses));
    Value exit;
    exit.set("reason", p->exit_reason);
    exit.set("code", p->exit_code);
    exit.set("signal", p->signal.empty() ? Value() : Value(p->signal));
    Value strays = json::Array{};
    for (const auto& stray : p->strays) strays.push(Value(stray));
    exit.set("stopped_strays", std::move(strays));
    probe.set("exit", std::move(exit));
    if (!p->error.empty()) probe.set("error", p->error);
    if (const auto& vs = p->verify) {
      auto opt = [](const std::optional<double>& d) { return d ? Value(*d) : Value(); };
      Value ver, all, runs = json::Array{}, fixes = json::Array{}, notes = json::Array{};
      for (double b : vs->baseline_step_ms) runs.push(Value(b));
      for (const auto& f : vs->fixes) fixes.push(Value(f));
      for (const auto& n : vs->notes) notes.push(Value(n));
      ver.set("baseline_runs_ms", std::move(runs));
      ver.set("baseline_ms", vs->baseline_ms);
      ver.set("spread_ms", vs->spread_ms);
      ver.set("workers", vs->workers);
      all.set("fixes", std::move(fixes));
      Value labels = json::Array{}, all_runs = json::Array{};
      for (const auto& l : vs->fix_labels) labels.push(Value(l));
      const Verification none;
      const Verification& a = vs->all ? *vs->all : none;
      for (double r : a.runs_ms) all_runs.push(Value(r));
      all.set("labels", std::move(labels));
      all.set("status", a.status.empty() ? Value() : Value(a.status));
      all.set("step_ms", opt(a.step_ms));
      all.set("runs_ms", std::move(all_runs));
      all.set("saving_ms_per_step", opt(a.saving_ms_per_step));
      all.set("predicted_ms_per_step", opt(vs->all_predicted_ms));
      all.set("speedup", opt(vs->all_speedup()));
      all.set("error", a.error.empty() ? Value() : Value(a.error));
      ver.set("all_fixes", std::move(all));
      ver.set("notes", std::move(notes));
      probe.set("verify", std::move(ver));
    }
    root.set("probe", std::move(probe));
  }
  return root.dump();
}

}  // namespace perflint
