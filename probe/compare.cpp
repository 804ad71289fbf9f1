#include "probe/compare.hpp"

#include <cmath>
#include <cstdio>

#include "probe/evidence.hpp"
#include "probe/json_read.hpp"

namespace perflint::probe {
namespace {

std::string fmt(double v, const char* f = "%.1f") {
  char buf[48];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      out += fmt(static_cast<double>(static_cast<unsigned char>(c)), "\\u%04.0f");
      continue;
    }
    out += c;
  }
  return out + "\"";
}

double iqr(const std::vector<double>& v) { return quantile_of(v, 0.75) - quantile_of(v, 0.25); }

Delta delta(const std::string& what, const std::vector<double>& base, const std::vector<double>& next) {
  Delta d;
  d.what = what;
  d.base_ms = median_of(base);
  d.new_ms = median_of(next);
  d.delta_ms = d.new_ms - d.base_ms;
  d.percent = d.base_ms > 0.0 ? d.delta_ms / d.base_ms * 100.0 : 0.0;
  d.noise_ms = std::max(iqr(base), iqr(next));
  d.verdict = std::abs(d.delta_ms) <= d.noise_ms ? "no change" : d.delta_ms < 0 ? "faster" : "slower";
  return d;
}

}  // namespace

Expected<RunSteps> read_run_steps(const std::string& json_text, const std::string& label) {
  auto doc = jsonr::parse(json_text, label);
  if (!doc) return make_error(label + ": not a JSON report: " + doc.error().message);
  const jsonr::Node* probe = doc->get("probe");
  if (!probe || !probe->is_object())
    return make_error(label + ": no \"probe\" object: write it with `perflint --probe --output-format json -o FILE`");
  const jsonr::Node* rows = probe->get("step_rows");
  if (!rows || !rows->is_array())
    return make_error(label + ": no probe.step_rows (a report from an older perflint): probe the script again");
  RunSteps r;
  r.label = label;
  r.script = probe->string("script").value_or("");
  bool phases = true;
  for (const auto& row : rows->items) {
    if (!row.is_object()) return make_error(label + ": a step row is not an object");
    const jsonr::Node* w = row.get("warmup");
    if (w && w->b) continue;
    const auto wall = row.num("wall_ms");
    if (!wall || !std::isfinite(*wall) || *wall < 0) return make_error(label + ": a step row without a valid wall_ms");
    r.wall_ms.push_back(*wall);
    const jsonr::Node* ph = row.get("phases");
    if (!ph || !ph->is_object()) {
      phases = false;
      continue;
    }
    if (r.phase_ms.empty()) r.phase_ms.resize(6);
    for (size_t i = 0; i < 6; ++i)
      r.phase_ms[i].push_back(std::max(0.0, ph->num(std::string(kComparedPhases[i]) + "_ms").value_or(0.0)));
  }
  if (r.wall_ms.empty()) return make_error(label + ": no measured step (the run ended during warm-up?)");
  if (!phases) r.phase_ms.clear();
  return r;
}

Comparison compare_runs(const RunSteps& base, const RunSteps& next, std::optional<double> fail_on_regression_percent) {
  Comparison c;
  c.step = delta("median step", base.wall_ms, next.wall_ms);
  if (!base.phase_ms.empty() && !next.phase_ms.empty())
    for (size_t i = 0; i < 6; ++i) c.phases.push_back(delta(kComparedPhases[i], base.phase_ms[i], next.phase_ms[i]));
  c.threshold_percent = fail_on_regression_percent;
  if (fail_on_regression_percent)
    c.regressed = c.step.verdict == "slower" && c.step.percent > *fail_on_regression_percent;
  return c;
}

std::string comparison_text(const Comparison& c, const RunSteps& base, const RunSteps& next) {
  std::string out = "compare: " + base.label + " (" + std::to_string(base.wall_ms.size()) + " steps) -> " + next.label +
                    " (" + std::to_string(next.wall_ms.size()) + " steps)\n";
  auto row = [&](const Delta& d) {
    std::string name = d.what;
    name.resize(std::max<size_t>(name.size(), 13), ' ');
    return "  " + name + " " + fmt(d.base_ms) + " -> " + fmt(d.new_ms) + " ms  " + (d.delta_ms >= 0 ? "+" : "") +
           fmt(d.delta_ms) + " ms (" + (d.percent >= 0 ? "+" : "") + fmt(d.percent, "%.1f") + "%)  " + d.verdict +
           " (noise " + fmt(d.noise_ms) + " ms)\n";
  };
  out += row(c.step);
  for (const auto& d : c.phases) out += row(d);
  if (c.phases.empty()) out += "  (phases: not in both reports)\n";
  if (c.threshold_percent)
    out += c.regressed ? "regression: the median step is " + fmt(c.step.percent) + "% slower, over the " +
                             fmt(*c.threshold_percent) + "% allowed (--fail-on-regression)\n"
                       : "no regression beyond " + fmt(*c.threshold_percent) + "% (--fail-on-regression)\n";
  return out;
}

std::string comparison_json(const Comparison& c, const RunSteps& base, const RunSteps& next) {
  auto d = [&](const Delta& x) {
    return "{\"what\": " + quoted(x.what) + ", \"base_ms\": " + fmt(x.base_ms, "%.4f") + ", \"new_ms\": " +
           fmt(x.new_ms, "%.4f") + ", \"delta_ms\": " + fmt(x.delta_ms, "%.4f") + ", \"percent\": " +
           fmt(x.percent, "%.3f") + ", \"noise_ms\": " + fmt(x.noise_ms, "%.4f") + ", \"verdict\": " + quoted(x.verdict) + "}";
  };
  std::string out = "{\n  \"base\": " + quoted(base.label) + ",\n  \"new\": " + quoted(next.label) +
                    ",\n  \"median_step\": " + d(c.step) + ",\n  \"phases\": [";
  for (size_t i = 0; i < c.phases.size(); ++i) out += std::string(i ? ", " : "") + d(c.phases[i]);
  out += "],\n  \"fail_on_regression_percent\": " + (c.threshold_percent ? fmt(*c.threshold_percent, "%.3f") : "null") +
         ",\n  \"regressed\": " + (c.regressed ? "true" : "false") + "\n}\n";
  return out;
}

}  // namespace perflint::probe
