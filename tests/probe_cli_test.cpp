// `perflint --probe` end to end on real scripts with a real torch (Debian python3-torch for
// /usr/bin/python3); skipped, saying why, where that interpreter has no torch.
#include <gtest/gtest.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <thread>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

#include "probe/json_read.hpp"
#include "tests/cli_support.hpp"

using perflint::testing::run_perflint;

namespace perflint {
namespace {

const std::string kScripts = std::string(PERFLINT_SOURCE_DIR) + "/tests/probe/scripts/";

bool have_torch() {
  static const bool yes = std::system("/usr/bin/python3 -c 'import torch' >/dev/null 2>&1") == 0;
  return yes;
}

#define REQUIRE_TORCH()                                                                              \
  do {                                                                                               \
    if (!have_torch()) GTEST_SKIP() << "no torch for /usr/bin/python3 (Debian: apt-get install python3-torch)"; \
  } while (0)

const jsonr::Node* finding(const jsonr::Node& doc, std::string_view code) {
  for (const auto& f : doc.get("findings")->items)
    if (f.string("code") == code) return &f;
  return nullptr;
}

TEST(ProbeCli, DataBoundScriptConfirmsPFL101WithItsDataWaitShare) {
  REQUIRE_TORCH();
  auto r = run_perflint({"--probe", "--steps", "6", "--warmup", "2", "--python", "/usr/bin/python3",
                         "--output-format", "json", kScripts + "data_bound.py"});
  ASSERT_EQ(r.exit_code, 1) << r.err;
  auto doc = jsonr::parse(r.out, "stdout");
  ASSERT_TRUE(doc.ok()) << doc.error().message;
  const jsonr::Node* probe = doc->get("probe");
  ASSERT_NE(probe, nullptr);
  EXPECT_EQ(probe->num("steps"), 6.0);
  EXPECT_GT(probe->num("data_wait_share").value_or(0), 0.5);
  EXPECT_GT(probe->num("median_step_ms").value_or(0), 0.0);
  // The mean beside the median (bursty steps): the same steps, so never below the fastest share of them.
  ASSERT_TRUE(probe->num("mean_step_ms").has_value());
  EXPECT_GT(*probe->num("mean_step_ms"), 0.5 * probe->num("median_step_ms").value_or(0));
  EXPECT_EQ(probe->get("exit")->string("reason"), "steps_reached");
  const jsonr::Node* f = finding(*doc, "PFL101");
  ASSERT_NE(f, nullptr);
  const jsonr::Node* v = f->get("verdict");
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->string("state"), "confirmed");
  EXPECT_GT(v->num("share").value_or(0), 0.5);
  EXPECT_GT(v->num("cost_ms_per_step").value_or(0), 0.0);
}

TEST(ProbeCli, InMemoryLoaderWithAHeavyModelDoesNotConfirmPFL101) {
  REQUIRE_TORCH();
  auto r = run_perflint({"--probe", "--steps", "5", "--warmup", "2", "--python", "/usr/bin/python3",
                         "--output-format", "json", kScripts + "compute_bound.py"});
  auto doc = jsonr::parse(r.out, "stdout");
  ASSERT_TRUE(doc.ok()) << doc.error().message << r.err;
  const jsonr::Node* f = finding(*doc, "PFL101");
  if (f) {
    EXPECT_NE(f->get("verdict")->string("state"), "confirmed");
  }
  // Anomaly mode left on is confirmed as enabled during the steps.
  const jsonr::Node* anomaly = finding(*doc, "PFL301");
  ASSERT_NE(anomaly, nullptr);
  EXPECT_EQ(anomaly->get("verdict")->string("state"), "confirmed");
}

// Config `report-html` / `trace`: written next to -o FILE, also for a run that crashed (the page
// says it did not reach the steps and shows the output's tail).
TEST(ProbeCli, ConfigWritesTheHtmlReportAndTraceNextToTheReport) {
  REQUIRE_TORCH();
  const auto dir = std::filesystem::temp_directory_path() / ("perflint-views-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  {
    std::ofstream cfg(dir / "perflint.toml");
    cfg << "report-html = true\ntrace = true\n";
  }
  auto r = run_perflint({"--probe", "--steps", "5", "--warmup", "1", "--python", "/usr/bin/python3", "--config",
                         (dir / "perflint.toml").string(), "--output-format", "json", "-o", (dir / "r.json").string(),
                         kScripts + "crash_at_3.py"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  std::ifstream html(dir / "r.html"), trace(dir / "r.trace.json");
  ASSERT_TRUE(html && trace) << "not written next to r.json";
  std::stringstream h, t;
  h << html.rdbuf();
  t << trace.rdbuf();
  EXPECT_NE(h.str().find("did not reach the requested steps (crash)"), std::string::npos);
  EXPECT_NE(h.str().find("boom at step 3"), std::string::npos);
  auto doc = jsonr::parse(t.str(), "trace");
  ASSERT_TRUE(doc.ok()) << doc.error().message;
  EXPECT_NE(doc->get("traceEvents"), nullptr);
  std::filesystem::remove_all(dir);
}

TEST(ProbeCli, CrashGivesExitCode3TheTracebackTailAndTheStaticFindings) {
  REQUIRE_TORCH();
  auto r = run_perflint({"--probe", "--steps", "5", "--warmup", "1", "--python", "/usr/bin/python3",
                         "--no-color", kScripts + "crash_at_3.py"});
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_NE(r.out.find("boom at step 3"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("ended         crash"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("runtime.py"), std::string::npos) << "the shim's frames leak into the traceback";
}

TEST(ProbeCli, ScriptArgumentsAfterDoubleDash) {
  REQUIRE_TORCH();
  auto r = run_perflint({"--probe", "--steps", "3", "--warmup", "1", "--python", "/usr/bin/python3", "--show-output",
                         kScripts + "args_and_workers.py", "--", "--lr", "0.05", "--tag", "x"});
  EXPECT_NE(r.exit_code, 2) << r.err;
  EXPECT_NE(r.exit_code, 3) << r.out << r.err;
  EXPECT_NE(r.err.find("args: 0.05 x"), std::string::npos) << r.err;
}

TEST(ProbeCli, ItsTemporaryFilesGoAfterASuccessfulRunAndStayWhenTheReportPointsAtThem) {
  REQUIRE_TORCH();
  testing::TempDir tmp;
  auto probe_dirs = [&] {
    std::vector<std::filesystem::path> out;
    for (const auto& entry : std::filesystem::directory_iterator(tmp.path()))
      if (entry.path().filename().string().rfind("perflint-probe-", 0) == 0) out.push_back(entry.path());
    return out;
  };
  auto ok = run_perflint({"--probe", "--steps", "2", "--warmup", "1", "--python", "/usr/bin/python3",
                          kScripts + "no_optimizer.py"}, ".", {{"TMPDIR", tmp.str()}});
  ASSERT_NE(ok.exit_code, 2) << ok.err;
  ASSERT_NE(ok.exit_code, 3) << ok.out;
  EXPECT_TRUE(probe_dirs().empty());
  auto crash = run_perflint({"--probe", "--steps", "5", "--warmup", "1", "--python", "/usr/bin/python3", "--no-color",
                             kScripts + "crash_at_3.py"}, ".", {{"TMPDIR", tmp.str()}});
  EXPECT_EQ(crash.exit_code, 3);
  const auto kept = probe_dirs();
  ASSERT_EQ(kept.size(), 1u);
  EXPECT_TRUE(std::filesystem::exists(kept.front() / "script.log"));
  EXPECT_NE(crash.out.find((kept.front() / "script.log").string()), std::string::npos) << crash.out;
}

TEST(ProbeCli, AScriptThatIsMissingOrADirectoryIsAUsageErrorBeforeAnythingRuns) {
  testing::TempDir tmp;
  auto missing = run_perflint({"--probe", (tmp.path() / "nope.py").string()});
  EXPECT_EQ(missing.exit_code, 2) << missing.out << missing.err;
  EXPECT_NE(missing.err.find("nope.py: no such file"), std::string::npos) << missing.err;
  EXPECT_EQ(missing.out.find("probe:"), std::string::npos) << "a probe report for a script that is not there";
  auto dir = run_perflint({"--probe", tmp.str()});
  EXPECT_EQ(dir.exit_code, 2) << dir.out << dir.err;
  EXPECT_NE(dir.err.find("is a directory, not a script"), std::string::npos) << dir.err;
}

TEST(ProbeCli, AnInterpreterWithoutTorchIsAUsageErrorNamingItAndTheImportError) {
  REQUIRE_TORCH();
  testing::TempDir tmp;
  std::filesystem::create_directories(tmp.path() / "torch");
  std::ofstream(tmp.path() / "torch" / "__init__.py") << "raise ImportError('no torch in this environment')\n";
  auto r = run_perflint({"--probe", "--python", "/usr/bin/python3", kScripts + "no_optimizer.py"}, ".",
                        {{"PYTHONPATH", tmp.str()}, {"TMPDIR", tmp.str()}});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("the interpreter /usr/bin/python3 (from --python) cannot import torch: ImportError: no torch in "
                       "this environment"),
            std::string::npos)
      << r.err;
  for (const auto& entry : std::filesystem::directory_iterator(tmp.path()))
    EXPECT_NE(entry.path().filename().string().rfind("perflint-probe-", 0), 0u) << "left behind: " << entry.path();
}

TEST(ProbeCli, UsageErrors) {
  auto two = run_perflint({"--probe", "a.py", "b.py"});
  EXPECT_EQ(two.exit_code, 2);
  EXPECT_NE(two.err.find("exactly one SCRIPT"), std::string::npos) << two.err;
  auto stray = run_perflint({"--steps", "5", "a.py"});
  EXPECT_EQ(stray.exit_code, 2);
  EXPECT_NE(stray.err.find("go with --probe"), std::string::npos) << stray.err;
  auto html = run_perflint({"--report-html", "r.html", "a.py"});
  EXPECT_EQ(html.exit_code, 2);
  EXPECT_NE(html.err.find("--report-html, --trace"), std::string::npos) << html.err;
  auto nopython = run_perflint({"--probe", "--python", "/nonexistent/python", kScripts + "crash_at_3.py"});
  EXPECT_EQ(nopython.exit_code, 2);
  EXPECT_NE(nopython.err.find("/nonexistent/python"), std::string::npos) << nopython.err;
}

// Phases (issue 13): each real script's dominant phase is the diagnosis, and the JSON carries the
// per-phase figures and a row per step. The scripts are built so that one phase dwarfs the others
// (98%, 97%, 99% on an idle machine), so a loaded machine cannot change the verdict.
TEST(ProbeCli, PhasesNameWhereTheStepGoesAndTheDiagnosisFollowsThem) {
  REQUIRE_TORCH();
  const std::pair<const char*, const char*> cases[] = {
      {"data_bound.py", "data"}, {"optimizer_heavy.py", "optimizer"}, {"compute_heavy.py", "forward+backward"}};
  for (const auto& [script, dominant] : cases) {
    auto r = run_perflint({"--probe", "--steps", "4", "--warmup", "1", "--python", "/usr/bin/python3",
                           "--output-format", "json", kScripts + script});
    auto doc = jsonr::parse(r.out, "stdout");
    ASSERT_TRUE(doc.ok()) << script << ": " << doc.error().message << r.err;
    const jsonr::Node* probe = doc->get("probe");
    const jsonr::Node* phases = probe->get("phases");
    ASSERT_NE(phases, nullptr) << r.out;
    auto share = [&](const char* name) { return phases->get(name)->num("share").value_or(-1); };
    double others = 0;
    for (const char* name : {"data", "h2d", "forward", "backward", "optimizer", "other"})
      if (std::string_view(dominant).find(name) == std::string_view::npos) others = std::max(others, share(name));
    const double top = std::string_view(dominant) == "forward+backward" ? share("forward") + share("backward")
                                                                         : share(dominant);
    EXPECT_GT(top, 0.5) << script << "\n" << r.out;
    EXPECT_GT(top, others) << script;
    const std::string expected = std::string_view(dominant) == "data"        ? "data-bound"
                                 : std::string_view(dominant) == "optimizer" ? "optimizer-bound"
                                                                             : "compute-bound";
    ASSERT_FALSE(probe->get("diagnoses")->items.empty()) << script << "\n" << r.out;
    EXPECT_EQ(probe->get("diagnoses")->items[0].string("kind"), expected) << script;
    const jsonr::Node* rows = probe->get("step_rows");
    ASSERT_EQ(rows->items.size(), 5u) << script;  // warm-up included
    EXPECT_TRUE(rows->items[0].get("warmup")->b);
    const jsonr::Node* first = rows->items[1].get("phases");
    ASSERT_NE(first, nullptr);
    double sum = 0;
    for (const auto& [name, v] : first->members) sum += v.number;
    EXPECT_NEAR(sum, rows->items[1].num("wall_ms").value_or(0), 0.05 * sum + 0.5) << script;  // they add up
  }
  auto text = run_perflint({"--probe", "--steps", "3", "--warmup", "1", "--python", "/usr/bin/python3", "--no-color",
                            kScripts + "optimizer_heavy.py"});
  EXPECT_NE(text.out.find("  phases        data "), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("| optimizer "), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("optimizer-bound: "), std::string::npos) << text.out;
}

// --nproc 2 (issue 13 item 2): two real ranks (DDP over gloo, env:// on a free port) under the shim.
// A rank made slow in its data loading is named the straggler by its data phase (its own work is
// ~100x the other's: no timing margin to lose); a rank that crashes is named, the other is stopped,
// and nothing is left running.
TEST(ProbeCli, TwoRanksTheStragglerByItsPhaseAndACrashedRankNamed) {
  REQUIRE_TORCH();
  const std::string script = kScripts + "ddp_two_ranks.py";
  auto slow = run_perflint({"--probe", "--nproc", "2", "--steps", "4", "--warmup", "1", "--python", "/usr/bin/python3",
                            "--output-format", "json", script, "--", "--slow-rank", "1"});
  auto doc = jsonr::parse(slow.out, "stdout");
  ASSERT_TRUE(doc.ok()) << doc.error().message << slow.err;
  const jsonr::Node* probe = doc->get("probe");
  ASSERT_NE(probe->get("ranks"), nullptr) << slow.out;
  ASSERT_EQ(probe->get("ranks")->items.size(), 2u);
  EXPECT_EQ(probe->get("ranks")->items[1].string("ended"), "reached the steps");
  const std::string straggler = probe->string("straggler").value_or("");
  EXPECT_NE(straggler.find("rank 1 is the straggler"), std::string::npos) << slow.out;
  EXPECT_NE(straggler.find("data wait makes"), std::string::npos) << straggler;
  ASSERT_FALSE(probe->get("diagnoses")->items.empty());
  EXPECT_EQ(probe->get("diagnoses")->items[0].string("kind"), "straggler");
  EXPECT_GT(probe->get("ranks")->items[1].num("data_wait_share").value_or(0), 0.5);
  // DDP's gradient all-reduce, timed per bucket: rank 0 waits in it for the slow rank (~130 ms a
  // step), rank 1 hardly; and the all_reduce the script calls each step is counted.
  const jsonr::Node* c0 = probe->get("ranks")->items[0].get("collectives");
  const jsonr::Node* c1 = probe->get("ranks")->items[1].get("collectives");
  ASSERT_TRUE(c0 && c0->is_object() && c1 && c1->is_object()) << slow.out;
  EXPECT_GE(c0->num("ddp_buckets").value_or(0), 1.0);
  EXPECT_GT(c0->num("ddp_allreduce_ms").value_or(0), c1->num("ddp_allreduce_ms").value_or(0) + 20.0) << slow.out;
  EXPECT_GE(c1->num("collective_calls").value_or(0), 1.0) << slow.out;
  ASSERT_TRUE(probe->get("collectives") && probe->get("collectives")->is_object()) << slow.out;

  auto crash = run_perflint({"--probe", "--nproc", "2", "--steps", "6", "--warmup", "1", "--python", "/usr/bin/python3",
                             "--output-format", "json", script, "--", "--crash-rank", "1", "--crash-step", "3"});
  EXPECT_EQ(crash.exit_code, 3) << crash.out << crash.err;
  auto cdoc = jsonr::parse(crash.out, "stdout");
  ASSERT_TRUE(cdoc.ok()) << cdoc.error().message << crash.err;
  const jsonr::Node* ranks = cdoc->get("probe")->get("ranks");
  ASSERT_NE(ranks, nullptr) << crash.out;
  const std::string failed = ranks->items[1].string("ended").value_or("");
  EXPECT_NE(failed.find("failed (exit 1)"), std::string::npos) << failed;
  EXPECT_NE(failed.find("rank 1 failed on purpose at step 3"), std::string::npos) << failed;
  // Rank 0 waits in an all-reduce for rank 1: it is stopped, or its collective breaks first when rank 1
  // goes away — either way it is not blamed.
  const std::string waited = ranks->items[0].string("ended").value_or("");
  EXPECT_TRUE(waited == "stopped by perflint when another rank ended" ||
              waited.rfind("failed (exit 1) after rank 1 failed", 0) == 0)
      << waited;
  EXPECT_NE(std::system("pgrep -f 'ddp_two_rank[s].py -- --crash-rank' >/dev/null"), 0) << "a rank was left running";
}

// `perflint --probe -- LAUNCHER ...`: the launcher starts the ranks, the probe finds them by their
// RANK/LOCAL_RANK (boot/sitecustomize.py) and the report is the same as --nproc's. The stand-in
// launcher knows nothing of perflint, so this holds for any launcher that starts ranks as torchrun.
TEST(ProbeCli, ALauncherCommandIsProbedRankByRank) {
  REQUIRE_TORCH();
  const std::string script = kScripts + "ddp_two_ranks.py";
  auto r = run_perflint({"--probe", "--steps", "3", "--warmup", "1", "--python", "/usr/bin/python3", "--output-format",
                         "json", "--", kScripts + "fake_torchrun.py", "--nproc_per_node", "2", script, "--slow-rank", "1"});
  auto doc = jsonr::parse(r.out, "stdout");
  ASSERT_TRUE(doc.ok()) << doc.error().message << r.err;
  const jsonr::Node* f = finding(*doc, "PFL101");  // the script the launcher runs was linted
  ASSERT_NE(f, nullptr) << r.out;
  EXPECT_EQ(f->string("path"), script);
  const jsonr::Node* probe = doc->get("probe");
  ASSERT_NE(probe->get("ranks"), nullptr) << r.out;
  ASSERT_EQ(probe->get("ranks")->items.size(), 2u);
  for (const auto& rank : probe->get("ranks")->items) EXPECT_EQ(rank.string("ended"), "reached the steps") << r.out;
  EXPECT_NE(probe->string("straggler").value_or("").find("rank 1 is the straggler"), std::string::npos) << r.out;
  // A "launcher" that starts no rank: said, not a silent empty report.
  auto plain = run_perflint({"--probe", "--steps", "2", "--warmup", "0", "--python", "/usr/bin/python3", "--", "/bin/echo",
                             kScripts + "data_bound.py"});
  EXPECT_EQ(plain.exit_code, 3) << plain.out << plain.err;
  EXPECT_NE(plain.out.find("started no rank the probe could measure"), std::string::npos) << plain.out << plain.err;
}

// The real torchrun, where it runs: Debian's torch 1.13 on Python 3.11 needs `--redirects 1 --tee 1`
// (its default "0" hits an IntFlag change of Python 3.11 in the elastic agent), which the user's
// command carries, as here; elsewhere the plain command works the same.
TEST(ProbeCli, RealTorchrunRanksAreProbed) {
  REQUIRE_TORCH();
  if (std::system("command -v torchrun >/dev/null 2>&1") != 0) GTEST_SKIP() << "no torchrun on PATH";
  // A copy under a name of its own: other tests run ddp_two_ranks.py at the same time (ctest
  // --parallel), and the check that nothing is left running must see only this test's ranks.
  testing::TempDir dir;
  const std::string name = "torchrun_ranks_" + std::to_string(::getpid()) + ".py";
  const std::string script = dir.write(name, testing::slurp(kScripts + "ddp_two_ranks.py"));
  auto r = run_perflint({"--probe", "--steps", "3", "--warmup", "1", "--python", "/usr/bin/python3", "--output-format",
                         "json", "--", "torchrun", "--standalone", "--redirects", "1", "--tee", "1", "--nproc_per_node",
                         "2", script});
  auto doc = jsonr::parse(r.out, "stdout");
  ASSERT_TRUE(doc.ok()) << doc.error().message << r.err;
  const jsonr::Node* ranks = doc->get("probe")->get("ranks");
  ASSERT_NE(ranks, nullptr) << r.out;
  ASSERT_EQ(ranks->items.size(), 2u) << r.out;
  for (const auto& rank : ranks->items) {
    EXPECT_EQ(rank.string("ended"), "reached the steps") << r.out;
    EXPECT_EQ(rank.num("steps").value_or(0), 3) << r.out;
  }
  // `.p[y]`: the pattern does not match the shell that runs pgrep (its own command line holds it).
  const std::string pattern = name.substr(0, name.size() - 1) + "[y]";
  EXPECT_NE(std::system(("pgrep -f '" + pattern + "' >/dev/null").c_str()), 0) << "a rank was left running";
}

// PFL701 measured on real DDP ranks: DDP.forward's own time with find_unused_parameters=True.
TEST(ProbeCli, FindUnusedParametersIsMeasuredInDdpForward) {
  REQUIRE_TORCH();
  auto r = run_perflint({"--probe", "--nproc", "2", "--steps", "4", "--warmup", "2", "--python", "/usr/bin/python3",
                         "--output-format", "json", kScripts + "ddp_find_unused.py"});
  auto doc = jsonr::parse(r.out, "stdout");
  ASSERT_TRUE(doc.ok()) << doc.error().message << r.err;
  const jsonr::Node* f = finding(*doc, "PFL701");
  ASSERT_NE(f, nullptr) << r.out;
  const jsonr::Node* v = f->get("verdict");
  ASSERT_NE(v, nullptr) << r.out;
  EXPECT_NE(v->string("evidence").value_or("").find("ms per step in DistributedDataParallel.forward"), std::string::npos)
      << r.out;
  ASSERT_TRUE(v->num("cost_ms_per_step").has_value()) << r.out;
  EXPECT_GT(*v->num("cost_ms_per_step"), 0.0);
}

// Multi-node: each "node" (a launcher with --nnodes 2 --node_rank K, run at the same time) keeps its
// evidence with --evidence-dir; `perflint probe-merge` builds one report over both nodes' ranks.
TEST(ProbeCli, ProbeMergeBuildsOneReportFromEachNodesEvidence) {
  REQUIRE_TORCH();
  testing::TempDir dir;
  const std::string script = kScripts + "ddp_two_ranks.py";
  int port = 0;
  {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
    port = ntohs(a.sin_port);
    ::close(fd);
  }
  auto node = [&](int k) {
    return run_perflint({"--probe", "--steps", "3", "--warmup", "1", "--python", "/usr/bin/python3", "-q",
                         "--evidence-dir", (dir.path() / ("node" + std::to_string(k))).string(), "--",
                         kScripts + "fake_torchrun.py", "--nproc_per_node", "1", "--nnodes", "2", "--node_rank",
                         std::to_string(k), "--master_port", std::to_string(port), script, "--slow-rank", "1"});
  };
  testing::RunResult n1;
  std::thread other([&] { n1 = node(1); });
  auto n0 = node(0);
  other.join();
  ASSERT_NE(n0.exit_code, 2) << n0.err;
  ASSERT_NE(n1.exit_code, 2) << n1.err;
  auto merged = run_perflint({"probe-merge", (dir.path() / "node0").string(), (dir.path() / "node1").string(),
                              "--output-format", "json"});
  auto doc = jsonr::parse(merged.out, "stdout");
  ASSERT_TRUE(doc.ok()) << doc.error().message << merged.err;
  const jsonr::Node* probe = doc->get("probe");
  ASSERT_NE(probe->get("ranks"), nullptr) << merged.out;
  ASSERT_EQ(probe->get("ranks")->items.size(), 2u);
  EXPECT_EQ(probe->get("ranks")->items[1].num("rank").value_or(-1), 1);
  EXPECT_NE(probe->string("straggler").value_or("").find("rank 1 is the straggler"), std::string::npos) << merged.out;
  ASSERT_NE(finding(*doc, "PFL101"), nullptr) << merged.out;  // the script the evidence names, linted
  EXPECT_NE(finding(*doc, "PFL101")->get("verdict"), nullptr);
  // The same node twice: rank 0 twice, said; a directory without evidence, said; both exit 2.
  auto twice = run_perflint({"probe-merge", (dir.path() / "node0").string(), (dir.path() / "node0").string()});
  EXPECT_EQ(twice.exit_code, 2);
  EXPECT_NE(twice.err.find("rank 0 twice"), std::string::npos) << twice.err;
  auto empty = run_perflint({"probe-merge", dir.mkdir("nothing")});
  EXPECT_EQ(empty.exit_code, 2);
  EXPECT_NE(empty.err.find("no probe evidence in it"), std::string::npos) << empty.err;
  // --evidence-dir refuses a directory that already holds a run.
  auto reused = node(0);
  EXPECT_EQ(reused.exit_code, 2);
  EXPECT_NE(reused.err.find("is not empty"), std::string::npos) << reused.err;
}

// `perflint --probe -- python3 train.py ARGS` is no launcher: the script is probed with that interpreter.
TEST(ProbeCli, PythonAsTheLauncherIsTheScriptItself) {
  REQUIRE_TORCH();
  auto r = run_perflint({"--probe", "--steps", "2", "--warmup", "1", "--output-format", "json", "--", "/usr/bin/python3",
                         "-u", kScripts + "data_bound.py"});
  auto doc = jsonr::parse(r.out, "stdout");
  ASSERT_TRUE(doc.ok()) << doc.error().message << r.err;
  EXPECT_EQ(doc->get("probe")->string("python").value_or(""), "/usr/bin/python3") << r.out;
  EXPECT_EQ(doc->get("probe")->get("exit")->string("reason").value_or(""), "steps_reached") << r.out << r.err;
  EXPECT_EQ(doc->get("probe")->get("ranks"), nullptr);
}

// `perflint --probe -m pkg.train`: run as `python -m` runs it, the module's file linted.
TEST(ProbeCli, AModuleRunsAsPythonDashM) {
  REQUIRE_TORCH();
  testing::TempDir dir;
  dir.write("mypkg/__init__.py", "");
  dir.write("mypkg/train.py", testing::slurp(kScripts + "data_bound.py"));
  auto r = run_perflint({"--probe", "--steps", "3", "--warmup", "1", "--python", "/usr/bin/python3", "--output-format",
                         "json", "-m", "mypkg.train"}, dir.str());
  auto doc = jsonr::parse(r.out, "stdout");
  ASSERT_TRUE(doc.ok()) << doc.error().message << r.err;
  const jsonr::Node* f = finding(*doc, "PFL101");
  ASSERT_NE(f, nullptr) << r.out;
  EXPECT_EQ(f->string("path"), "mypkg/train.py");
  EXPECT_EQ(doc->get("probe")->get("exit")->string("reason").value_or(""), "steps_reached") << r.out << r.err;
  EXPECT_EQ(f->get("verdict")->string("state"), "confirmed") << r.out;
  auto missing = run_perflint({"--probe", "-m", "mypkg.nope"}, dir.str());
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("no mypkg/nope.py or mypkg/nope/__main__.py"), std::string::npos) << missing.err;
}

// --verify end to end: the fix re-runs are real runs of the script with the shim's run-time fixes.
const jsonr::Node* verify_of(const jsonr::Node& doc, std::string_view code) {
  const jsonr::Node* f = finding(doc, code);
  return f && f->get("verdict") ? f->get("verdict")->get("verify") : nullptr;
}

TEST(ProbeCliVerify, TheWorkerFixOfADataBoundScriptIsAMeasuredSaving) {
  REQUIRE_TORCH();
  auto r = run_perflint({"--probe", "--verify", "--verify-runs", "2", "--steps", "6", "--warmup", "2", "--python",
                         "/usr/bin/python3", "--output-format", "json", kScripts + "data_bound.py"});
  ASSERT_EQ(r.exit_code, 1) << r.err;
  auto doc = jsonr::parse(r.out, "stdout");
  ASSERT_TRUE(doc.ok()) << doc.error().message;
  const jsonr::Node* v = verify_of(*doc, "PFL101");
  ASSERT_NE(v, nullptr) << r.out;
  EXPECT_EQ(v->string("status"), "measured") << r.out;
  EXPECT_EQ(v->string("fix").value_or("").rfind("workers=", 0), 0u) << r.out;
  const jsonr::Node* verdict = finding(*doc, "PFL101")->get("verdict");
  const double saving = verdict->num("measured_saving_ms_per_step").value_or(0);
  EXPECT_GT(saving, verdict->num("measured_spread_ms").value_or(1e9));
  const jsonr::Node* all = doc->get("probe")->get("verify")->get("all_fixes");
  ASSERT_NE(all, nullptr);
  EXPECT_GT(all->num("speedup").value_or(0), 1.0) << r.out;
  EXPECT_EQ(doc->get("probe")->get("verify")->get("baseline_runs_ms")->items.size(), 2u);
}

TEST(ProbeCliVerify, AnomalyModeOffIsMeasuredAndTheTextReportShowsIt) {
  REQUIRE_TORCH();
  // Anomaly mode costs this small-op script about 4x per step; but on a loaded 2-core machine one slow
  // baseline run can widen the spread past the saving, and the tool then rightly says "within the
  // noise". Up to three whole measurements: the saving must be measured in one of them (a probe that
  // never measures it fails all three).
  std::string outs;
  bool measured = false;
  for (int attempt = 0; attempt < 3 && !measured; ++attempt) {
    auto r = run_perflint({"--probe", "--verify", "--steps", "5", "--warmup", "2", "--python", "/usr/bin/python3",
                           "--no-color", kScripts + "anomaly_small_ops.py"});
    ASSERT_EQ(r.exit_code, 1) << r.err;
    EXPECT_NE(r.out.find("median of 3 runs"), std::string::npos) << r.out;  // --verify-runs defaults to 3
    measured = r.out.find("verify: anomaly detection off: measured saving") != std::string::npos &&
               r.out.find("speed-up") != std::string::npos;
    outs += r.out;
  }
  EXPECT_TRUE(measured) << outs;
}

TEST(ProbeCliVerify, RemovingCheckpointingRunsTheFixAndNeverCallsItSlower) {
  REQUIRE_TORCH();
  // The recompute is about a quarter of this small model's ~14 ms step: close to how far whole runs
  // swing on a shared 2-core VM, where the tool's rule (every run beyond the noise, at least 10% of
  // the step) may rightly withhold the claim. What must hold on any machine: the fix is applied (it
  // neither breaks the script nor goes unapplied), and a fix that removes work is never reported
  // slower or noisy. Large savings are asserted measured by the data-bound and anomaly tests above,
  // and the rule itself on synthetic runs (probe_verify_test.cpp).
  auto r = run_perflint({"--probe", "--verify", "--steps", "20", "--warmup", "3", "--python", "/usr/bin/python3",
                         "--output-format", "json", kScripts + "checkpointed.py"});
  auto doc = jsonr::parse(r.out, "stdout");
  ASSERT_TRUE(doc.ok()) << doc.error().message << r.err;
  const jsonr::Node* v = verify_of(*doc, "PFL501");
  ASSERT_NE(v, nullptr) << r.out;
  EXPECT_EQ(v->string("fix"), "no_checkpoint");
  const std::string status = v->string("status").value_or("");
  EXPECT_TRUE(status == "measured" || status == "no-effect") << r.out;
  ASSERT_FALSE(v->get("runs_ms")->items.empty()) << r.out;
  if (status == "measured") {
    EXPECT_EQ(v->get("runs_ms")->items.size(), 2u) << r.out;  // confirmed by a repeat
  }
}

TEST(ProbeCliVerify, AFixWithNoEffectIsReportedAsSuch) {
  REQUIRE_TORCH();
  // Anomaly mode around three large matrix products: its per-op cost is far below the step's noise.
  // One run of the fix can land outside the noise by chance (a busy machine: CI once measured one
  // run 55% slower); the probe repeats a run that shows an effect and claims one only when both
  // show it, so the tool itself, not a retry here, keeps such a run from reading as an effect.
  auto r = run_perflint({"--probe", "--verify", "--steps", "5", "--warmup", "2", "--python", "/usr/bin/python3",
                         "--output-format", "json", kScripts + "anomaly_few_big_ops.py"});
  auto doc = jsonr::parse(r.out, "stdout");
  ASSERT_TRUE(doc.ok()) << doc.error().message << r.err;
  const jsonr::Node* v = verify_of(*doc, "PFL301");
  ASSERT_NE(v, nullptr) << r.out;
  EXPECT_EQ(v->string("fix"), "no_anomaly");
  EXPECT_EQ(v->string("label"), "anomaly detection off");
  EXPECT_EQ(v->string("status"), "no-effect") << r.out;
  // Anomaly mode was on (confirmed by the run), but its fix saved nothing: the verdict says so.
  EXPECT_NE(finding(*doc, "PFL301")->get("verdict")->string("state"), "confirmed") << r.out;
  // The only fix: the all-fixes result is that same run, not a second one that could contradict it.
  const jsonr::Node* all = doc->get("probe")->get("verify")->get("all_fixes");
  EXPECT_EQ(all->string("status"), v->string("status")) << r.out;
  EXPECT_EQ(all->num("step_ms"), v->num("step_ms")) << r.out;
  EXPECT_FALSE(all->num("speedup")) << r.out;  // no speed-up is printed beside "no effect"
}

TEST(ProbeCliVerify, AFixThatBreaksTheScriptIsReportedWithItsError) {
  REQUIRE_TORCH();
  auto r = run_perflint({"--probe", "--verify", "--verify-runs", "2", "--steps", "4", "--warmup", "1", "--python",
                         "/usr/bin/python3", "--output-format", "json", kScripts + "unpicklable_loader.py"});
  auto doc = jsonr::parse(r.out, "stdout");
  ASSERT_TRUE(doc.ok()) << doc.error().message << r.err;
  const jsonr::Node* v = verify_of(*doc, "PFL101");
  ASSERT_NE(v, nullptr) << r.out;
  EXPECT_EQ(v->string("status"), "broke-script") << r.out;
  EXPECT_NE(v->string("error").value_or("").find("pickle"), std::string::npos) << r.out;
  EXPECT_FALSE(finding(*doc, "PFL101")->get("verdict")->num("measured_saving_ms_per_step"));
  const jsonr::Node* verify = doc->get("probe")->get("verify");
  EXPECT_EQ(verify->get("all_fixes")->get("fixes")->items.size(), 0u);  // nothing left to combine
  ASSERT_EQ(verify->get("notes")->items.size(), 1u) << r.out;
  EXPECT_NE(verify->get("notes")->items[0].str.find("every fix broke"), std::string::npos);
}

}  // namespace
}  // namespace perflint
