// `--report-html`: one self-contained page (inline CSS, SVG and script; a Content-Security-Policy
// that forbids any network request) showing what the probe measured and the ranked fix list.
// Charts carry patterns and labels as well as colours, are keyboard-focusable, and each has a
// table as its text alternative. Every string from the user's code, paths or output is escaped.
#include <algorithm>
#include <cstdio>

#include "reports/detail.hpp"
#include "reports/timeline.hpp"
#include "rules/docs.hpp"

namespace perflint {
namespace {

using report_detail::find_source;
using report_detail::html_escape;
using report_detail::ms;
using report_detail::percent;
using report_detail::split_lines;
using report_detail::verification_line;
using probe::StepEvidence;
using probe::StepPhases;

std::string esc(std::string_view s) { return html_escape(s); }

std::string num(double v, int decimals = 1) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

// The parts a step is drawn in: the shim's phases when it timed them, else data wait and the rest.
struct Part {
  const char* name;
  const char* css;  // class: colour and pattern
  double StepPhases::*field;
};
const Part kPhaseParts[] = {{"data wait", "p-data", &StepPhases::data_ms},
                            {"copies (host to device)", "p-h2d", &StepPhases::h2d_ms},
                            {"forward", "p-fwd", &StepPhases::forward_ms},
                            {"backward", "p-bwd", &StepPhases::backward_ms},
                            {"optimizer", "p-opt", &StepPhases::optimizer_ms},
                            {"other", "p-other", &StepPhases::other_ms}};
// (label, css class, ms) for one step.
std::vector<std::tuple<std::string, std::string, double>> parts_of(const StepEvidence& s) {
  std::vector<std::tuple<std::string, std::string, double>> out;
  if (s.warmup) {
    out.emplace_back("warm-up", "p-warm", s.wall_ms);
  } else if (s.phases) {
    for (const auto& p : kPhaseParts) out.emplace_back(p.name, p.css, (*s.phases).*(p.field));
  } else {
    out.emplace_back("data wait", "p-data", s.data_wait_ms);
    out.emplace_back("the rest of the step", "p-rest", std::max(0.0, s.wall_ms - s.data_wait_ms));
  }
  return out;
}

bool any_phases(const probe::Evidence& e) {
  for (const auto* s : e.measured())
    if (s->phases) return true;
  return false;
}

const char* kStyle = R"CSS(
:root{--fg:#1b1f24;--muted:#57606a;--bg:#fff;--line:#d0d7de;--accent:#0550ae}
*{box-sizing:border-box}
body{font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg);margin:0}
main{max-width:1000px;margin:0 auto;padding:16px 24px 48px}
a.skip{position:absolute;left:-999px}a.skip:focus{left:8px;top:8px;background:#fff;padding:4px 8px;border:2px solid var(--accent)}
h1{font-size:22px;margin:8px 0 4px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid var(--line);padding-bottom:4px}
h3{font-size:16px;margin:0 0 4px}
.verdict{font-size:17px;font-weight:600;padding:10px 14px;border-left:6px solid var(--accent);background:#f6f8fa;margin:8px 0}
.verdict.bad{border-left-style:double;border-left-color:#b35900}
ul.diag{margin:4px 0;padding-left:20px}
table{border-collapse:collapse;margin:6px 0;font-size:14px}
th,td{border:1px solid var(--line);padding:3px 8px;text-align:left;vertical-align:top}
th{background:#f6f8fa}td.n{text-align:right;font-variant-numeric:tabular-nums}
tr.straggler td{font-weight:700;background:#fff4e5}
tr.straggler td:first-child::before{content:"\25B2  "}
.legend{display:flex;flex-wrap:wrap;gap:6px 16px;margin:6px 0;font-size:13px;padding:0;list-style:none}
.legend svg{vertical-align:middle;margin-right:4px;border:1px solid #57606a}
svg.chart{display:block;max-width:100%;height:auto;border:1px solid var(--line);background:#fff}
svg.chart text{font:11px system-ui,sans-serif;fill:#1b1f24}
svg.chart .bar:focus{outline:none}svg.chart .bar:focus rect.hit{stroke:#000;stroke-width:2}
svg.chart .bar:hover rect.hit{stroke:#000;stroke-width:1}
rect.hit{fill:transparent}
.p-data{fill:url(#pat-data)}.p-h2d{fill:url(#pat-h2d)}.p-fwd{fill:url(#pat-fwd)}.p-bwd{fill:url(#pat-bwd)}
.p-opt{fill:url(#pat-opt)}.p-other{fill:url(#pat-other)}.p-rest{fill:url(#pat-rest)}.p-warm{fill:url(#pat-warm)}
article.fix{border:1px solid var(--line);border-radius:6px;padding:10px 14px;margin:10px 0}
article.fix:focus-within{border-color:var(--accent)}
.state{display:inline-block;font-size:12px;font-weight:700;border:1px solid currentColor;border-radius:10px;padding:0 8px;margin-left:6px;text-transform:uppercase}
.s-confirmed{color:#a40e26}.s-refuted{color:#116329}.s-inconclusive,.s-not-measurable{color:#57606a}
pre{background:#f6f8fa;border:1px solid var(--line);padding:8px;overflow:auto;font:13px/1.4 ui-monospace,Menlo,Consolas,monospace;margin:6px 0}
pre .hl{background:#fff1c2;display:inline-block;min-width:100%;font-weight:700}
details{margin:6px 0}summary{cursor:pointer;color:var(--accent)}
summary:focus-visible,a:focus-visible,.bar:focus-visible{outline:2px solid var(--accent);outline-offset:2px}
.muted{color:var(--muted)}#selfcheck{font-size:12px;color:var(--muted);margin-top:32px}
)CSS";

// Fill patterns (colour AND texture, so the parts read in greyscale and for colour-blind readers).
const char* kPatterns = R"SVG(<defs>
<pattern id="pat-data" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="#f2a33a"/><line x1="0" y1="0" x2="0" y2="6" stroke="#6b3e00" stroke-width="2.5"/></pattern>
<pattern id="pat-h2d" width="6" height="6" patternUnits="userSpaceOnUse"><rect width="6" height="6" fill="#9ad0f5"/><circle cx="3" cy="3" r="1.3" fill="#0a3d62"/></pattern>
<pattern id="pat-fwd" width="6" height="6" patternUnits="userSpaceOnUse"><rect width="6" height="6" fill="#4c8ed9"/></pattern>
<pattern id="pat-bwd" width="6" height="6" patternUnits="userSpaceOnUse"><rect width="6" height="6" fill="#1f4e8c"/><line x1="0" y1="3" x2="6" y2="3" stroke="#fff" stroke-width="1"/></pattern>
<pattern id="pat-opt" width="6" height="6" patternUnits="userSpaceOnUse"><rect width="6" height="6" fill="#7a5fc2"/><path d="M0 0L6 6M6 0L0 6" stroke="#fff" stroke-width="1"/></pattern>
<pattern id="pat-other" width="6" height="6" patternUnits="userSpaceOnUse"><rect width="6" height="6" fill="#c9ced6"/><line x1="3" y1="0" x2="3" y2="6" stroke="#57606a" stroke-width="1"/></pattern>
<pattern id="pat-rest" width="6" height="6" patternUnits="userSpaceOnUse"><rect width="6" height="6" fill="#4c8ed9"/></pattern>
<pattern id="pat-warm" width="8" height="8" patternUnits="userSpaceOnUse"><rect width="8" height="8" fill="#eef0f3"/><path d="M0 8L8 0" stroke="#8c959f" stroke-width="1.5"/></pattern>
</defs>)SVG";

// Runs first: collects script errors and blocked requests for the self-check at the end.
const char* kErrorHook = R"JS(window.__perflintErrors=[];
window.addEventListener('error',function(e){window.__perflintErrors.push('script error: '+(e.message||e.type))},true);
document.addEventListener('securitypolicyviolation',function(e){window.__perflintErrors.push('blocked request: '+e.blockedURI)});)JS";

// After load: every chart has a size, every bar segment a size, no errors. The result goes into
// #selfcheck (data-result ok|fail) where a headless browser's DOM dump can read it.
const char* kSelfCheck = R"JS((function(){
function run(){
  var problems=window.__perflintErrors.slice();
  var charts=document.querySelectorAll('svg.chart'),segs=0,empty=0;
  for(var i=0;i<charts.length;i++){var r=charts[i].getBoundingClientRect();if(!(r.width>0&&r.height>0))problems.push('chart '+(charts[i].id||i)+' has no size');}
  var rects=document.querySelectorAll('svg.chart .bar rect.seg');
  for(var j=0;j<rects.length;j++){var b=rects[j].getBoundingClientRect();if(b.width>0&&b.height>0)segs++;else empty++;}
  if(charts.length===0)problems.push('no chart');
  if(segs===0)problems.push('no bar with a size');
  var out=document.getElementById('selfcheck');
  out.setAttribute('data-result',problems.length?'fail':'ok');
  out.setAttribute('data-charts',String(charts.length));
  out.setAttribute('data-segments',String(segs));
  out.textContent='Rendering self-check: '+(problems.length?'FAILED: '+problems.join('; '):'ok')+' ('+charts.length+' charts, '+segs+' bar segments drawn'+(empty?', '+empty+' too small to see':'')+').';
}
if(document.readyState==='complete')run();else window.addEventListener('load',run);
})();)JS";

// A legend item: a swatch with the part's pattern, and its name.
std::string legend(const std::vector<std::pair<std::string, std::string>>& items) {
  std::string out = "<ul class=\"legend\" aria-label=\"legend\">";
  for (const auto& [name, css] : items)
    out += "<li><svg width=\"16\" height=\"12\" aria-hidden=\"true\"><rect class=\"" + css +
           "\" width=\"16\" height=\"12\"/></svg>" + esc(name) + "</li>";
  return out + "</ul>";
}

// The step chart of one rank: one bar per step, warm-up hatched and labelled "W", measured steps
// stacked by part. Returns the SVG and a table with the same figures.
std::string step_chart(const probe::Evidence& e, const std::string& id, size_t max_steps) {
  const size_t n = std::min(e.steps.size(), max_steps);
  if (n == 0) return "<p class=\"muted\">No step was recorded.</p>";
  // The scale fits the measured steps: a warm-up step far longer (imports, first-call compilation)
  // is cut at the top of the chart and labelled with its time.
  double top = 0.0, top_all = 0.0;
  for (size_t i = 0; i < n; ++i) {
    top_all = std::max(top_all, e.steps[i].wall_ms);
    if (!e.steps[i].warmup) top = std::max(top, e.steps[i].wall_ms * 1.25);
  }
  if (top <= 0.0) top = top_all;
  top = std::min(top, top_all);
  if (top <= 0.0) top = 1.0;
  const double W = 760, H = 240, left = 56, right = 12, topm = 12, bottom = 40;
  const double plot_w = W - left - right, plot_h = H - topm - bottom;
  const double slot = plot_w / static_cast<double>(n), bar = std::max(1.0, slot * 0.72);
  const bool phases = any_phases(e);
  std::string desc = "Step time of each of the " + std::to_string(n) + " steps" +
                     (e.world_size > 1 ? " of rank " + std::to_string(e.rank) : std::string()) + ", " +
                     std::to_string(e.warmup) + " warm-up (hatched, marked W), the measured steps split into " +
                     (phases ? "phases" : "data wait and the rest") + "; median measured step " +
                     ms(e.median_step_ms()) + " ms. The table below has the figures.";
  std::string svg = "<svg class=\"chart\" id=\"" + id + "\" viewBox=\"0 0 " + num(W, 0) + " " + num(H, 0) +
                    "\" width=\"" + num(W, 0) + "\" height=\"" + num(H, 0) + "\" role=\"group\" aria-labelledby=\"" + id +
                    "-t\" aria-describedby=\"" + id + "-d\"><title id=\"" + id + "-t\">Step time per step</title><desc id=\"" +
                    id + "-d\">" + esc(desc) + "</desc>" + kPatterns;
  // Axis: 0, half, top.
  for (int k = 0; k <= 2; ++k) {
    const double v = top * k / 2.0, y = topm + plot_h - plot_h * k / 2.0;
    svg += "<line x1=\"" + num(left, 0) + "\" x2=\"" + num(W - right, 0) + "\" y1=\"" + num(y) + "\" y2=\"" + num(y) +
           "\" stroke=\"#d0d7de\"/><text x=\"" + num(left - 6, 0) + "\" y=\"" + num(y + 4) +
           "\" text-anchor=\"end\">" + ms(v) + " ms</text>";
  }
  svg += "<text x=\"" + num(left + plot_w / 2, 0) + "\" y=\"" + num(H - 4, 0) +
         "\" text-anchor=\"middle\">step (W: warm-up, not measured)</text>";
  std::string rows;
  const size_t label_every = std::max<size_t>(1, n / 20);
  for (size_t i = 0; i < n; ++i) {
    const StepEvidence& s = e.steps[i];
    const double x = left + slot * static_cast<double>(i) + (slot - bar) / 2;
    std::string label = "step " + std::to_string(i + 1) + (s.warmup ? " (warm-up)" : "") + ": " + ms(s.wall_ms) + " ms";
    std::string cells;
    double y = topm + plot_h;
    std::string segs;
    for (const auto& [name, css, v] : parts_of(s)) {
      if (!s.warmup) {
        label += "; " + name + " " + ms(v) + " ms";
        cells += "<td class=\"n\">" + ms(v) + "</td>";
      }
      const double h = plot_h * std::max(0.0, v) / top;
      if (h <= 0.0) continue;
      y -= h;
      segs += "<rect class=\"seg " + css + "\" x=\"" + num(x) + "\" y=\"" + num(y) + "\" width=\"" + num(bar) +
              "\" height=\"" + num(h) + "\" stroke=\"#1b1f24\" stroke-width=\"0.5\"/>";
    }
    const bool cut = s.wall_ms > top;
    std::string cut_label;
    if (cut) {  // only warm-up steps can be over the scale
      segs = "<rect class=\"seg " + std::get<1>(parts_of(s).front()) + "\" x=\"" + num(x) + "\" y=\"" + num(topm) +
             "\" width=\"" + num(bar) + "\" height=\"" + num(plot_h) + "\" stroke=\"#1b1f24\" stroke-width=\"0.5\"/>";
      cut_label = "<text x=\"" + num(x + bar / 2) + "\" y=\"" + num(topm + 14) +
                  "\" text-anchor=\"middle\" stroke=\"#fff\" stroke-width=\"3\" paint-order=\"stroke\">&#8593; " +
                  ms(s.wall_ms) + " ms</text>";
    }
    const double full = plot_h * std::min(s.wall_ms, top) / top;
    svg += "<g class=\"bar\" tabindex=\"0\" role=\"img\" aria-label=\"" + esc(label) + "\"><title>" + esc(label) + "</title>" +
           segs + "<rect class=\"hit\" x=\"" + num(x) + "\" y=\"" + num(topm + plot_h - full) + "\" width=\"" + num(bar) +
           "\" height=\"" + num(full) + "\"/></g>" + cut_label;
    if (s.warmup || i % label_every == 0)
      svg += "<text x=\"" + num(x + bar / 2) + "\" y=\"" + num(topm + plot_h + 14) + "\" text-anchor=\"middle\">" +
             (s.warmup ? std::string("W") : std::to_string(i + 1)) + "</text>";
    rows += "<tr><td class=\"n\">" + std::to_string(i + 1) + "</td><td>" + (s.warmup ? "warm-up" : "measured") +
            "</td><td class=\"n\">" + ms(s.wall_ms) + "</td>" +
            (s.warmup ? "<td colspan=\"" + std::to_string(phases ? 6 : 2) + "\" class=\"muted\">not split</td>" : cells) +
            "</tr>";
  }
  svg += "</svg>";
  std::vector<std::pair<std::string, std::string>> items{{"warm-up (not measured)", "p-warm"}};
  std::string head = "<tr><th>step</th><th>kind</th><th>ms</th>";
  if (phases) {
    for (const auto& p : kPhaseParts) {
      items.emplace_back(p.name, p.css);
      head += "<th>" + std::string(p.name) + "</th>";
    }
  } else {
    items.emplace_back("data wait", "p-data");
    items.emplace_back("the rest of the step", "p-rest");
    head += "<th>data wait</th><th>the rest</th>";
  }
  std::string out = legend(items) + svg;
  if (e.steps.size() > n)
    out += "<p class=\"muted\">The first " + std::to_string(n) + " of " + std::to_string(e.steps.size()) +
           " steps are drawn.</p>";
  if (!phases)
    out += "<p class=\"muted\">The shim did not time the phases of these steps: each bar is split into data wait and "
           "the rest.</p>";
  out += "<details><summary>Table of the steps (text alternative)</summary><table><caption class=\"muted\">ms per step"
         "</caption>" + head + "</tr>" + rows + "</table></details>";
  return out;
}

// Per-rank rows: median step, data wait, the median phases as a small stacked bar; the straggler
// row is marked (bold, ▲ and the word).
std::string rank_table(const ProbeRunView& run) {
  std::string out;
  if (!run.straggler_text.empty())
    out += "<p class=\"verdict bad\" role=\"note\">&#9650; " + esc(run.straggler_text) + "</p>";
  else
    out += "<p>No straggler: every rank's median step is within 10% of the median over the ranks.</p>";
  double top = 0.0;
  for (const auto* e : run.ranks) top = std::max(top, e->median_step_ms());
  if (top <= 0.0) top = 1.0;
  out += "<table><tr><th>rank</th><th>local rank</th><th>steps</th><th>median step (ms)</th><th>data wait</th>"
         "<th>median split</th></tr>";
  for (const auto* e : run.ranks) {
    const bool straggler = e->rank == run.straggler_rank;
    const auto m = e->measured();
    // The median of each part over the measured steps.
    std::vector<std::tuple<std::string, std::string, double>> parts;
    if (!m.empty()) {
      parts = parts_of(*m.front());
      for (size_t k = 0; k < parts.size(); ++k) {
        std::vector<double> v;
        for (const auto* s : m) {
          const auto p = parts_of(*s);
          if (k < p.size()) v.push_back(std::get<2>(p[k]));
        }
        std::get<2>(parts[k]) = probe::median_of(v);
      }
    }
    const std::string id = "rank-bar-" + std::to_string(e->rank);
    std::string label = "rank " + std::to_string(e->rank) + " median step " + ms(e->median_step_ms()) + " ms";
    std::string segs;
    double x = 0.0;
    const double W = 260;
    for (const auto& [name, css, v] : parts) {
      label += "; " + name + " " + ms(v) + " ms";
      const double w = W * std::max(0.0, v) / top;
      if (w <= 0.0) continue;
      segs += "<rect class=\"seg " + css + "\" x=\"" + num(x) + "\" y=\"2\" width=\"" + num(w) +
              "\" height=\"14\" stroke=\"#1b1f24\" stroke-width=\"0.5\"/>";
      x += w;
    }
    out += std::string("<tr") + (straggler ? " class=\"straggler\"" : "") + "><td>" + std::to_string(e->rank) +
           (straggler ? " straggler" : "") + "</td><td class=\"n\">" + std::to_string(e->local_rank) +
           "</td><td class=\"n\">" + std::to_string(m.size()) + "</td><td class=\"n\">" + ms(e->median_step_ms()) +
           "</td><td class=\"n\">" + percent(e->data_wait_share()) + "</td><td><svg class=\"chart\" id=\"" + id +
           "\" width=\"" + num(W, 0) + "\" height=\"18\" viewBox=\"0 0 " + num(W, 0) +
           " 18\" role=\"group\" aria-label=\"" + esc(label) + "\"><g class=\"bar\" tabindex=\"0\" role=\"img\" aria-label=\"" +
           esc(label) + "\"><title>" + esc(label) + "</title>" + segs + "</g></svg></td></tr>";
  }
  return out + "</table>";
}

std::string state_badge(const Verdict& v) {
  const std::string s(to_string(v.state));
  return "<span class=\"state s-" + s + "\">" + esc(s) + "</span>";
}

// The finding's source lines (two either side), the finding's lines marked with "▶" and bold.
std::string snippet(const Finding& f, const ReportOptions& options) {
  const std::string* source = find_source(options, f.path);
  if (!source) return "";
  const auto lines = split_lines(*source);
  const uint32_t first = f.span.start.line > 2 ? f.span.start.line - 2 : 1;
  const uint32_t last = std::min<uint32_t>(static_cast<uint32_t>(lines.size()), std::max(f.span.end.line, f.span.start.line) + 2);
  std::string out = "<pre aria-label=\"source\">";
  for (uint32_t l = first; l <= last && l >= 1; ++l) {
    const bool hit = l >= f.span.start.line && l <= std::max(f.span.end.line, f.span.start.line);
    char no[16];
    std::snprintf(no, sizeof no, "%5u", l);
    const std::string text = std::string(hit ? "&#9654;" : " ") + no + " | " + esc(lines[l - 1]);
    out += hit ? "<span class=\"hl\">" + text + "</span>\n" : text + "\n";
  }
  return out + "</pre>";
}

std::string finding_card(const Finding& f, const ReportOptions& options, const std::string& prefix) {
  const std::string code(f.rule ? f.rule->code : "PFL000");
  const std::string name(f.rule ? f.rule->name : "unknown");
  const std::string where = f.path + ":" + std::to_string(f.span.start.line);
  std::string out = "<article class=\"fix\" aria-label=\"" + esc(prefix + code + " at " + where) + "\"><h3>" + esc(prefix) +
                    esc(code) + " <span class=\"muted\">" + esc(name) + "</span> &mdash; " + esc(where) +
                    (f.verdict ? state_badge(*f.verdict) : std::string()) + "</h3>";
  out += "<p>" + esc(f.message) + "</p>";
  if (!f.fix_hint.empty()) out += "<p><strong>Fix:</strong> " + esc(f.fix_hint) + "</p>";
  out += snippet(f, options);
  if (f.verdict) {
    const auto& v = *f.verdict;
    out += "<p><strong>Measured:</strong> ";
    if (v.cost_ms_per_step)
      out += ms(*v.cost_ms_per_step) + " ms per step" + (v.share ? " (" + percent(*v.share) + " of the step)" : "") + ": ";
    out += esc(v.evidence) + "</p>";
    if (v.verification)
      out += "<p><strong>--verify:</strong> " + esc(verification_line(*v.verification, v.cost_ms_per_step).substr(8)) + "</p>";
  }
  const std::string_view doc = rule_doc(code);
  if (!doc.empty())
    out += "<details><summary>Why " + esc(code) + " matters (the rule's documentation)</summary><pre>" + esc(doc) +
           "</pre></details>";
  else if (f.rule)
    out += "<p class=\"muted\">" + esc(f.rule->summary) + "</p>";
  return out + "</article>";
}

std::string environment(const ProbeSummary& p) {
  std::vector<std::pair<std::string, std::string>> rows{
      {"script", p.script},
      {"interpreter", p.python + (p.python_source.empty() ? "" : " (" + p.python_source + ")")},
      {"torch", p.torch.empty() ? "?" : p.torch},
      {"device", p.device},
      {"steps", std::to_string(p.steps_measured) + " measured of " + std::to_string(p.steps_requested) + " requested, after " +
                    std::to_string(p.warmup) + " warm-up" + (p.warmup_added.empty() ? "" : " (" + p.warmup_added + ")")}};
  if (p.steps_measured > 0) {
    rows.emplace_back("median step", ms(p.median_step_ms) + " ms" +
                                         (p.step_clock == "cuda_events" ? " (GPU timeline, CUDA events)" : ""));
    rows.emplace_back("data wait", percent(p.data_wait_share) + " of the step");
    if (p.gpu_busy_share >= 0) rows.emplace_back("GPU busy", percent(p.gpu_busy_share) + " of the step");
  }
  rows.emplace_back("probe overhead", p.overhead);
  if (!p.calibration.empty()) rows.emplace_back("calibration", p.calibration);
  if (!p.gpu_status.empty()) rows.emplace_back("GPU tracing", p.gpu_status);
  std::string how = p.exit_reason;
  if (p.exit_reason == "script_exit" || p.exit_reason == "crash") how += " (exit code " + std::to_string(p.exit_code) + ")";
  rows.emplace_back("ended", how);
  if (!p.error.empty()) rows.emplace_back("error", p.error);
  std::string out = "<table>";
  for (const auto& [k, v] : rows) out += "<tr><th scope=\"row\">" + esc(k) + "</th><td>" + esc(v) + "</td></tr>";
  return out + "</table>";
}

std::string verify_block(const VerifySummary& v) {
  std::string out = "<h2 id=\"verify\">Verified (each fix applied at run time; your files are unchanged)</h2><ul>";
  if (!v.baseline_step_ms.empty()) {
    std::string runs;
    for (double b : v.baseline_step_ms) runs += (runs.empty() ? "" : ", ") + ms(b);
    out += "<li>baseline " + ms(v.baseline_ms) + " ms/step, median of " + std::to_string(v.baseline_step_ms.size()) +
           " runs (" + runs + " ms; spread " + ms(v.spread_ms) + " ms)</li>";
  }
  if (!v.fixes.empty()) {
    std::string fixes;
    for (const auto& f : v.fix_labels.empty() ? v.fixes : v.fix_labels) fixes += (fixes.empty() ? "" : ", ") + f;
    out += "<li>all fixes together (" + esc(fixes) + "): " + esc(report_detail::all_fixes_line(v)) + "</li>";
  }
  for (const auto& n : v.notes) out += "<li>note: " + esc(n) + "</li>";
  return out + "</ul>";
}

}  // namespace

std::string write_html_report(const std::vector<FileResult>& results, const ReportOptions& options,
                              const ProbeRunView& run) {
  static const ProbeSummary kEmpty;
  const ProbeSummary& p = run.summary ? *run.summary : kEmpty;
  std::vector<const Finding*> confirmed, pending, refuted;
  for (const auto& r : results)
    for (const auto& f : r.findings) {
      const auto state = f.verdict ? f.verdict->state : Verdict::State::Inconclusive;
      (state == Verdict::State::Confirmed ? confirmed : state == Verdict::State::Refuted ? refuted : pending).push_back(&f);
    }
  auto cost = [](const Finding* f) { return f->verdict ? ranking_ms(*f->verdict) : 0.0; };
  std::stable_sort(confirmed.begin(), confirmed.end(), [&](const Finding* a, const Finding* b) { return cost(a) > cost(b); });

  // The verdict line: how the run ended, the step, what was confirmed and the main diagnosis.
  const bool reached = p.exit_reason == "steps_reached";
  std::string verdict = reached ? "Median step " + ms(p.median_step_ms) + " ms over " + std::to_string(p.steps_measured) +
                                      " measured steps; " + std::to_string(confirmed.size()) +
                                      (confirmed.size() == 1 ? " finding" : " findings") + " confirmed by measurement"
                                : "The script did not reach the requested steps (" + p.exit_reason + ")";
  if (!p.diagnoses.empty()) verdict += "; " + p.diagnoses.front().first;
  if (!confirmed.empty() && confirmed.front()->verdict && ranking_ms(*confirmed.front()->verdict) > 0)
    verdict += "; first fix: " + std::string(confirmed.front()->rule ? confirmed.front()->rule->code : "") + " at " +
               confirmed.front()->path + ":" + std::to_string(confirmed.front()->span.start.line);

  std::string out = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
                    "script-src 'unsafe-inline'; img-src data:\">"
                    "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">"
                    "<link rel=\"icon\" href=\"data:,\"><title>perflint probe: " + esc(p.script) + "</title><script>" +
                    kErrorHook + "</script><style>" + kStyle + "</style></head><body>"
                    "<a class=\"skip\" href=\"#fixes\">Skip to the ranked fix list</a><main>";
  out += "<header><h1>perflint probe: " + esc(p.script) + "</h1><p class=\"verdict" + std::string(reached ? "" : " bad") +
         "\" role=\"status\">" + esc(verdict) + ".</p>";
  if (!p.diagnoses.empty()) {
    out += "<ul class=\"diag\" aria-label=\"diagnosis\">";
    for (const auto& [kind, text] : p.diagnoses) out += "<li><strong>" + esc(kind) + ":</strong> " + esc(text) + "</li>";
    out += "</ul>";
  }
  out += "<nav aria-label=\"sections\"><a href=\"#steps\">Steps</a> &middot; " +
         std::string(run.ranks.size() > 1 ? "<a href=\"#ranks\">Ranks</a> &middot; " : "") +
         "<a href=\"#fixes\">Ranked fix list</a> &middot; <a href=\"#env\">Environment</a></nav></header>";

  out += "<section aria-labelledby=\"steps\"><h2 id=\"steps\">Step time</h2>";
  if (run.ranks.empty()) out += "<p class=\"muted\">No evidence came back from the script: nothing to draw.</p>";
  // One chart per rank (at most 8 drawn; the rank table has them all).
  for (size_t i = 0; i < run.ranks.size() && i < 8; ++i) {
    if (run.ranks.size() > 1)
      out += "<h3>Rank " + std::to_string(run.ranks[i]->rank) +
             (run.ranks[i]->rank == run.straggler_rank ? " &#9650; straggler" : "") + "</h3>";
    out += step_chart(*run.ranks[i], "steps-" + std::to_string(i), 400);
  }
  out += "</section>";
  if (run.ranks.size() > 1)
    out += "<section aria-labelledby=\"ranks\"><h2 id=\"ranks\">Ranks</h2>" + rank_table(run) + "</section>";

  out += "<section aria-labelledby=\"fixes\"><h2 id=\"fixes\" tabindex=\"-1\">Ranked fix list</h2><p class=\"muted\">" +
         std::string(p.verify ? "By the saving --verify measured where it ran the fix, else the measured cost; highest first."
                              : "By measured cost per step, highest first.") +
         "</p>";
  if (confirmed.empty()) out += "<p>No finding was confirmed by a measurement.</p>";
  for (size_t i = 0; i < confirmed.size(); ++i)
    out += finding_card(*confirmed[i], options, std::to_string(i + 1) + ". ");
  if (!pending.empty()) {
    out += "<h2>Without a measured cost</h2>";
    for (const Finding* f : pending) out += finding_card(*f, options, "");
  }
  if (!refuted.empty()) {
    out += "<details><summary>Refuted by the measurements (" + std::to_string(refuted.size()) + ")</summary>";
    for (const Finding* f : refuted) out += finding_card(*f, options, "");
    out += "</details>";
  }
  out += "</section>";
  if (p.verify) out += verify_block(*p.verify);
  out += "<section aria-labelledby=\"env\"><h2 id=\"env\">Probe overhead and environment</h2>" + environment(p) + "</section>";
  if (!p.log_tail.empty())
    out += "<h2>Last lines of the script's output</h2><pre>" + esc(p.log_tail) + "</pre>";
  out += "<p id=\"selfcheck\" data-result=\"pending\">Rendering self-check: not run (scripts are off).</p>";
  out += "<p class=\"muted\">perflint " PERFLINT_VERSION "</p></main><script>" + std::string(kSelfCheck) +
         "</script></body></html>\n";
  return out;
}

}  // namespace perflint
