// The probe runner and the evidence JSON reader: timeouts stop the whole process group, output
// reaches the log, bad interpreters and corrupt evidence give clear errors.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "probe/json_read.hpp"
#include "probe/runner.hpp"
#include "tests/cli_support.hpp"

namespace fs = std::filesystem;
using perflint::testing::slurp;
using perflint::testing::TempDir;

namespace perflint {
namespace {

const std::string kScripts = std::string(PERFLINT_SOURCE_DIR) + "/tests/probe/scripts";
const std::string kShim = std::string(PERFLINT_SOURCE_DIR) + "/probe/shim";

bool process_gone_now(pid_t pid) {
  if (::kill(pid, 0) != 0) return errno == ESRCH;
  // A zombie nobody reaped (PID 1 in a container may not) is gone as far as work is concerned.
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string all((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const auto paren = all.rfind(')');
  return paren != std::string::npos && paren + 2 < all.size() && (all[paren + 2] == 'Z' || all[paren + 2] == 'X');
}

// A killed process takes a moment to finish exiting after its file descriptors close.
bool process_gone(pid_t pid) {
  for (int i = 0; i < 100; ++i) {
    if (process_gone_now(pid)) return true;
    ::usleep(20000);
  }
  return false;
}

TEST(ProbeRunner, TimeoutStopsTheWholeProcessGroupWithinTheGrace) {
  TempDir tmp;
  const std::string pids = (tmp.path() / "pids").string();
  probe::RunnerOptions o;
  o.python = "python3";  // the hang script needs no torch
  // A stand-in shim that just runs the script: this test is about the runner, not the shim.
  o.shim_dir = (tmp.path() / "no-shim").string();
  fs::create_directories(tmp.path() / "no-shim" / "perflint_probe");
  std::ofstream(tmp.path() / "no-shim" / "perflint_probe" / "__init__.py") << "";
  std::ofstream(tmp.path() / "no-shim" / "perflint_probe" / "__main__.py")
      << "import runpy, sys\n"
         "i = sys.argv.index('--')\n"
         "sys.argv = sys.argv[i + 1:]\n"
         "runpy.run_path(sys.argv[0], run_name='__main__')\n";
  o.script = kScripts + "/hang.py";
  o.args = {pids};
  o.timeout_s = 8.0;  // long enough for python3 to start and say "hanging" on a loaded machine
  o.kill_grace_s = 2.0;
  o.evidence_path = (tmp.path() / "evidence.json").string();
  o.log_path = (tmp.path() / "log.txt").string();
  const auto t0 = std::chrono::steady_clock::now();
  auto r = probe::run_probe(o);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->end, probe::RunOutcome::End::TimedOut);
  EXPECT_LT(wall, o.timeout_s + 5.0);
  EXPECT_NE(slurp(o.log_path).find("hanging"), std::string::npos);
  std::istringstream in(slurp(pids));
  pid_t script = 0, child = 0;
  in >> script >> child;
  ASSERT_GT(script, 0);
  ASSERT_GT(child, 0);
  EXPECT_TRUE(process_gone(script));
  EXPECT_TRUE(process_gone(child)) << "the script's child process was left running";
}

TEST(ProbeRunner, MissingInterpreterIsAClearError) {
  TempDir tmp;
  probe::RunnerOptions o;
  o.python = "/nonexistent/python3";
  o.script = kScripts + "/hang.py";
  o.evidence_path = (tmp.path() / "e.json").string();
  o.log_path = (tmp.path() / "log").string();
  auto r = probe::run_probe(o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("/nonexistent/python3"), std::string::npos);
}

TEST(ProbeRunner, ShimRunsARealScriptWhenTorchIsThere) {
  if (std::system("/usr/bin/python3 -c 'import torch' >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "no torch for /usr/bin/python3 (Debian: apt-get install python3-torch)";
  TempDir tmp;
  probe::RunnerOptions o;
  o.python = "/usr/bin/python3";
  o.shim_dir = kShim;
  o.script = kScripts + "/no_optimizer.py";
  o.steps = 3;
  o.warmup = 1;
  o.timeout_s = 120;
  o.evidence_path = (tmp.path() / "evidence.json").string();
  o.log_path = (tmp.path() / "log.txt").string();
  auto r = probe::run_probe(o);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->end, probe::RunOutcome::End::Exited);
  EXPECT_EQ(r->exit_code, 0) << slurp(o.log_path);
  auto ev = jsonr::parse(slurp(o.evidence_path), o.evidence_path);
  ASSERT_TRUE(ev.ok()) << ev.error().message;
  EXPECT_EQ(ev->get("exit")->string("reason"), "steps_reached");
  EXPECT_EQ(ev->get("steps")->items.size(), 4u);
}

TEST(JsonReader, ParsesValuesAndEscapes) {
  auto d = jsonr::parse(R"({"a": 1.5, "b": [true, false, null], "s": "x\n\u00e9\ud83d\ude00", "o": {}})", "t.json");
  ASSERT_TRUE(d.ok()) << d.error().message;
  EXPECT_EQ(d->num("a"), 1.5);
  EXPECT_EQ(d->get("b")->items.size(), 3u);
  EXPECT_EQ(d->string("s"), "x\n\xC3\xA9\xF0\x9F\x98\x80");
  EXPECT_TRUE(d->get("o")->is_object());
  EXPECT_EQ(d->get("missing"), nullptr);
}

TEST(JsonReader, CorruptInputNamesLineAndColumn) {
  auto d = jsonr::parse("{\n  \"steps\": [1, 2,\n}", "evidence.json");
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.error().message.find("evidence.json:3:1"), std::string::npos) << d.error().message;
  auto trunc = jsonr::parse("{\"a\": \"unterminated", "e.json");
  ASSERT_FALSE(trunc.ok());
  EXPECT_NE(trunc.error().message.find("unterminated string"), std::string::npos);
  auto deep = jsonr::parse(std::string(100000, '['), "deep.json");
  ASSERT_FALSE(deep.ok());
  EXPECT_NE(deep.error().message.find("nesting"), std::string::npos);
  auto trailing = jsonr::parse("{} x", "e.json");
  ASSERT_FALSE(trailing.ok());
}

}  // namespace
}  // namespace perflint
