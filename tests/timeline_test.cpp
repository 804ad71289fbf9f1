// The HTML report and the trace on synthetic evidence: phases as stacked bars, ranks with the
// straggler, escaping, and a trace that keeps the trace-event format (fields, B/E, monotonic).
#include <gtest/gtest.h>

#include <map>

#include "probe/json_read.hpp"
#include "probe/ranks.hpp"
#include "reports/timeline.hpp"
#include "tests/finding_support.hpp"

namespace perflint {
namespace {

probe::Evidence rank_evidence(int rank, double forward_ms, bool phases = true) {
  probe::Evidence e;
  e.rank = e.local_rank = rank;
  e.world_size = 2;
  e.warmup = 1;
  e.exit_reason = "steps_reached";
  double t = 100.0;
  for (int i = 0; i < 5; ++i) {
    probe::StepEvidence s;
    s.warmup = i == 0;
    s.start_ms = t;
    s.data_wait_ms = 2.0;
    if (phases) s.phases = probe::StepPhases{2.0, 1.0, forward_ms, 6.0, 3.0, 1.0};
    s.wall_ms = 2.0 + 1.0 + forward_ms + 6.0 + 3.0 + 1.0;
    if (i == 2) s.syncs.push_back({"/src/<b>train.py", 31, "item", 1, false});
    e.steps.push_back(s);
    t += s.wall_ms + 0.5;
  }
  return e;
}

struct SyntheticRun {
  std::vector<probe::Evidence> ranks;
  ProbeSummary summary;
  ProbeRunView view;
  explicit SyntheticRun(std::vector<probe::Evidence> r) : ranks(std::move(r)) {
    summary.script = "/src/<script>alert(1)</script>.py";
    summary.exit_reason = "steps_reached";
    summary.steps_measured = 4;
    view.summary = &summary;
    for (const auto& e : ranks) view.ranks.push_back(&e);
    if (auto s = probe::find_straggler(view.ranks)) {
      view.straggler_rank = s->rank;
      view.straggler_text = s->text;
    }
  }
};

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

TEST(Straggler, TheSlowRankAndThePhaseThatMakesTheGap) {
  const auto a = rank_evidence(0, 10.0), b = rank_evidence(1, 30.0);
  const auto s = probe::find_straggler({&a, &b});
  ASSERT_TRUE(s);
  EXPECT_EQ(s->rank, 1);
  EXPECT_EQ(s->phase, "forward");
  EXPECT_NEAR(s->phase_gap_ms, 20.0, 1e-9);
  EXPECT_NE(s->text.find("rank 1 is the straggler"), std::string::npos) << s->text;
  const auto c = rank_evidence(1, 10.5);
  EXPECT_FALSE(probe::find_straggler({&a, &c})) << "5% apart is within the threshold";
  EXPECT_FALSE(probe::find_straggler({&a})) << "one rank has no straggler";
}

TEST(HtmlReport, PhasesAreStackedBarsRanksShowTheStragglerAndUserTextIsEscaped) {
  SyntheticRun run({rank_evidence(0, 10.0), rank_evidence(1, 30.0)});
  const std::string html = write_html_report({}, ReportOptions{}, run.view);
  // Two step charts (one per rank) and one bar per rank in the rank table.
  EXPECT_EQ(count(html, "<svg class=\"chart\" id=\"steps-"), 2u);
  EXPECT_EQ(count(html, "<svg class=\"chart\" id=\"rank-bar-"), 2u);
  // Each measured step: six phase segments; each warm-up step: one hatched segment.
  EXPECT_EQ(count(html, "class=\"seg p-fwd\""), 2u * 4 + 2);  // steps of both ranks, plus the rank bars
  EXPECT_EQ(count(html, "class=\"seg p-warm\""), 2u);
  EXPECT_NE(html.find("<tr class=\"straggler\"><td>1 straggler"), std::string::npos);
  EXPECT_NE(html.find("rank 1 is the straggler"), std::string::npos);
  // Text alternatives and keyboard focus.
  EXPECT_NE(html.find("aria-label=\"step 2: 23.0 ms; data wait 2.0 ms"), std::string::npos);
  EXPECT_NE(html.find("<g class=\"bar\" tabindex=\"0\""), std::string::npos);
  EXPECT_NE(html.find("Table of the steps"), std::string::npos);
  // Nothing from the user's paths reaches the page unescaped; no network.
  EXPECT_EQ(html.find("<script>alert"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;alert(1)&lt;/script&gt;.py"), std::string::npos);
  EXPECT_EQ(html.find("http://"), std::string::npos);
  EXPECT_EQ(html.find("https://"), std::string::npos);
  EXPECT_NE(html.find("default-src 'none'"), std::string::npos);
}

TEST(HtmlReport, WithoutPhasesStepsSplitIntoDataWaitAndTheRest) {
  SyntheticRun run({rank_evidence(0, 10.0, false)});
  const std::string html = write_html_report({}, ReportOptions{}, run.view);
  EXPECT_EQ(count(html, "class=\"seg p-data\""), 4u);
  EXPECT_EQ(count(html, "class=\"seg p-rest\""), 4u);
  EXPECT_EQ(count(html, "class=\"seg p-fwd\""), 0u);
  EXPECT_NE(html.find("did not time the phases"), std::string::npos);
  EXPECT_EQ(html.find("id=\"ranks\""), std::string::npos) << "one process: no rank table";
}

// Checks the trace-event format: every event has name, ph, pid, tid, ts; B/E pairs match per
// thread in stack order; timestamps never go back on a thread. Returns the events.
std::vector<const jsonr::Node*> check_trace(const jsonr::Node& doc) {
  std::vector<const jsonr::Node*> events;
  const jsonr::Node* list = doc.get("traceEvents");
  EXPECT_TRUE(list && list->is_array());
  if (!list) return events;
  std::map<std::pair<int, int>, std::vector<std::string>> open;
  std::map<std::pair<int, int>, double> last;
  for (const auto& ev : list->items) {
    events.push_back(&ev);
    const auto name = ev.string("name"), ph = ev.string("ph");
    const auto pid = ev.num("pid"), tid = ev.num("tid"), ts = ev.num("ts");
    EXPECT_TRUE(name && ph && pid && tid && ts) << "an event misses a required field";
    if (!(name && ph && pid && tid && ts)) continue;
    if (*ph == "M") continue;
    const std::pair<int, int> track{static_cast<int>(*pid), static_cast<int>(*tid)};
    if (last.count(track)) {
      EXPECT_GE(*ts, last[track]) << *name << " goes back in time";
    }
    last[track] = *ts;
    if (*ph == "B") open[track].push_back(*name);
    if (*ph == "E") {
      EXPECT_FALSE(open[track].empty()) << "E without B: " << *name;
      if (open[track].empty()) continue;
      EXPECT_EQ(open[track].back(), *name);
      open[track].pop_back();
    }
  }
  for (const auto& [track, stack] : open) EXPECT_TRUE(stack.empty()) << "unclosed slice on pid " << track.first;
  return events;
}

TEST(Trace, OneProcessPerRankStepsPhasesAndSyncsWithTheirLine) {
  SyntheticRun run({rank_evidence(0, 10.0), rank_evidence(1, 30.0)});
  const std::string text = write_trace(run.view);
  auto doc = jsonr::parse(text, "trace");
  ASSERT_TRUE(doc.ok()) << doc.error().message;
  const auto events = check_trace(*doc);
  int steps = 0, forward = 0, syncs = 0;
  std::map<double, std::string> processes;
  for (const auto* ev : events) {
    const std::string name = ev->string("name").value_or("");
    if (name == "process_name") processes[*ev->num("pid")] = *ev->get("args")->string("name");
    if (ev->string("ph") == "B" && name.rfind("step ", 0) == 0) ++steps;
    if (ev->string("ph") == "B" && name == "forward") ++forward;
    if (ev->string("ph") == "i") {
      ++syncs;
      EXPECT_EQ(ev->get("args")->string("source"), "/src/<b>train.py:31");
    }
  }
  EXPECT_EQ(steps, 10);
  EXPECT_EQ(forward, 8);
  EXPECT_EQ(syncs, 2);
  EXPECT_EQ(processes[0], "rank 0");
  EXPECT_EQ(processes[1], "rank 1 (straggler)");
  EXPECT_EQ(doc->get("otherData")->get("truncated"), nullptr);
}

TEST(Trace, ABoundedNumberOfEventsSaysWhereItWasCut) {
  SyntheticRun run({rank_evidence(0, 10.0)});
  const std::string text = write_trace(run.view, 40);
  auto doc = jsonr::parse(text, "trace");
  ASSERT_TRUE(doc.ok()) << doc.error().message;
  const auto events = check_trace(*doc);
  EXPECT_LE(events.size(), 40u);
  const auto cut = doc->get("otherData")->string("truncated");
  ASSERT_TRUE(cut);
  EXPECT_NE(cut->find("of 5 steps"), std::string::npos) << *cut;
}

TEST(HtmlReport, TheRankedFixListHasTheSourceTheCostTheVerifyResultAndTheRuleDocs) {
  SyntheticRun run({rank_evidence(0, 10.0)});
  FileResult file;
  file.path = "train.py";
  Finding cheap = testing::finding_at("PFL201", 3), dear = testing::finding_at("PFL101", 2);
  cheap.verdict = Verdict{Verdict::State::Confirmed, 1.0, 0.05, "one .item() per step", std::nullopt};
  dear.verdict = Verdict{Verdict::State::Confirmed, 9.0, 0.4, "each step waits", std::nullopt};
  Verification v;
  v.fix = "workers=2@train.py:2";
  v.status = "measured";
  v.saving_ms_per_step = 8.5;
  v.spread_ms = 0.4;
  dear.verdict->verification = v;
  file.findings = {cheap, dear};
  const std::map<std::string, std::string, std::less<>> sources{
      {"train.py", "import torch\nloader = DataLoader(ds)  # a<b & \"c\"\nx = loss.item()\n"}};
  ReportOptions options;
  options.sources = &sources;
  const std::string html = write_html_report({file}, options, run.view);
  const size_t first = html.find("1. PFL101"), second = html.find("2. PFL201");
  ASSERT_NE(first, std::string::npos);
  ASSERT_NE(second, std::string::npos);
  EXPECT_LT(first, second) << "the costlier fix comes first";
  EXPECT_NE(html.find("&#9654;    2 | loader = DataLoader(ds)  # a&lt;b &amp; &quot;c&quot;"), std::string::npos);
  EXPECT_NE(html.find("9.0 ms per step (40% of the step)"), std::string::npos);
  EXPECT_NE(html.find("workers=2@train.py:2: measured saving 8.5 ms/step"), std::string::npos);
  EXPECT_NE(html.find("Why PFL101 matters"), std::string::npos);
}

TEST(Trace, GpuActivityHasItsOwnTrackPerRank) {
  SyntheticRun run({rank_evidence(0, 10.0)});
  probe::GpuStep g;
  g.busy_ns = 5e6;
  g.kernels = 40;
  run.ranks[0].gpu_steps = {g, g, g, g};
  auto doc = jsonr::parse(write_trace(run.view), "trace");
  ASSERT_TRUE(doc.ok()) << doc.error().message;
  int gpu = 0;
  for (const auto* ev : check_trace(*doc))
    if (ev->num("tid") == 3.0 && ev->string("ph") == "B") {
      ++gpu;
      EXPECT_EQ(ev->get("args")->num("kernels"), 40.0);
    }
  EXPECT_EQ(gpu, 4);
}

}  // namespace
}  // namespace perflint
