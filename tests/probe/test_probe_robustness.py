"""`perflint --probe` against scripts that die hard, hang, print too much or leave processes behind,
and against signals sent to perflint itself (docs/robustness-probe.md lists each case).

Each test runs the real perflint binary (PERFLINT_BINARY) on a real torch script from scripts/ with
PERFLINT_TEST_PYTHON (default /usr/bin/python3); skipped, saying why, when that has no torch.
Run by ctest as `probe_robustness` (about 40 s: four torch start-ups, two 5 s kill graces).
"""

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from test_shim import HAS_TORCH, PYTHON, SCRIPTS  # noqa: E402

PERFLINT = os.environ.get("PERFLINT_BINARY", "")


def pid_alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except OSError:
        return False


class Run:
    """perflint --probe on scripts/<script>, in its own TMPDIR (to see what it leaves there)."""

    def __init__(self, script, *args, steps=5, warmup=1, fmt="json", extra=()):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name
        self.cmd = [PERFLINT, "--probe", "--steps", str(steps), "--warmup", str(warmup), "--python", PYTHON,
                    "--no-color", "--output-format", fmt, *extra, os.path.join(SCRIPTS, script), "--", *args]
        self.env = dict(os.environ, TMPDIR=self.dir)

    def run(self, timeout=300):
        p = subprocess.run(self.cmd, capture_output=True, env=self.env, timeout=timeout)
        return p.returncode, p.stdout, p.stderr.decode(errors="replace")

    def start(self):
        return subprocess.Popen(self.cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=self.env)

    def probe_dirs(self):
        return [n for n in os.listdir(self.dir) if n.startswith("perflint-probe-")]

    def path(self, name):
        return os.path.join(self.dir, name)

    def wait_for(self, path, proc, seconds=240):
        deadline = time.monotonic() + seconds
        while not os.path.exists(path):
            if proc.poll() is not None or time.monotonic() > deadline:
                out, err = proc.communicate()
                raise AssertionError("%s never appeared (perflint: %s)\n%s%s" % (path, proc.returncode, out.decode(), err.decode()))
            time.sleep(0.05)


@unittest.skipUnless(PERFLINT and os.path.exists(PERFLINT), "PERFLINT_BINARY is not set to the built perflint")
@unittest.skipUnless(HAS_TORCH, "no torch for %s (Debian: apt-get install python3-torch)" % PYTHON)
class ProbeRobustnessTest(unittest.TestCase):
    def test_a_segfault_keeps_every_completed_step_and_is_named(self):
        r = Run("hard_death.py", "--how", "segv", "--at", "3")
        code, out, err = r.run()
        self.assertEqual(code, 3, err)
        doc = json.loads(out)
        probe = doc["probe"]
        self.assertEqual(probe["steps"], 2, "3 steps completed, 1 of them warm-up")
        self.assertEqual(probe["exit"]["reason"], "crash")
        self.assertEqual(probe["exit"]["signal"], "killed by SIGSEGV")
        self.assertEqual(probe["exit"]["code"], 128 + signal.SIGSEGV)
        self.assertGreater(probe["median_step_ms"], 0.0)
        # The report names the log (it holds "step 2"), so its directory stays.
        self.assertEqual(len(r.probe_dirs()), 1)

    def test_os_exit_keeps_every_completed_step(self):
        r = Run("hard_death.py", "--how", "exit", "--at", "4", "--quiet", fmt="text")
        code, out, err = r.run()
        self.assertEqual(code, 3, err)
        text = out.decode()
        self.assertIn("3 measured of 5 requested", text)
        self.assertIn("ended         script_exit (exit code 0)", text)

    def test_a_silent_death_before_the_first_step_leaves_no_directory_behind(self):
        r = Run("hard_death.py", "--how", "segv", "--at", "0", "--quiet", fmt="text")
        code, out, err = r.run()
        self.assertEqual(code, 3, err)
        text = out.decode()
        self.assertIn("crash (killed by SIGSEGV)", text)
        self.assertIn("no step was recorded", text)
        self.assertNotIn("exit code -1", text)
        self.assertEqual(r.probe_dirs(), [], "nothing in the report points into the probe's directory")

    def test_a_huge_output_line_is_not_embedded_in_the_report(self):
        r = Run("hard_death.py", "--how", "huge", "--at", "1", "--mb", "64", fmt="text")
        code, out, err = r.run()
        self.assertEqual(code, 3, err)
        self.assertLess(len(out), 64 * 1024, "the report embeds the script's huge line")
        text = out.decode()
        self.assertIn("died after printing a huge line", text)
        self.assertIn("bytes, its end shown]", text)

    def test_sigterm_to_perflint_stops_a_script_that_ignores_it_and_its_setsid_daemon(self):
        r = Run("stubborn.py", "MARKER", "--ignore-term", "--daemon", "DAEMON", steps=50)
        marker, daemon = r.path("ready"), r.path("daemon.pid")
        r.cmd[-4:] = [marker, "--ignore-term", "--daemon", daemon]
        p = r.start()
        r.wait_for(marker, p)
        with open(daemon) as f:
            daemon_pid = int(f.read())
        self.assertTrue(pid_alive(daemon_pid))
        p.send_signal(signal.SIGTERM)
        out, err = p.communicate(timeout=120)
        self.assertEqual(p.returncode, 3, err.decode())
        probe = json.loads(out)["probe"]
        self.assertEqual(probe["exit"]["reason"], "interrupted")
        self.assertEqual(probe["exit"]["signal"], "SIGTERM to perflint")
        self.assertEqual(probe["steps"], 2, "the steps before the SIGKILL are kept")
        self.assertFalse(pid_alive(daemon_pid), "the setsid daemon was left running")
        self.assertTrue(any("pid %d " % daemon_pid in s for s in probe["exit"]["stopped_strays"]), probe["exit"])

    def test_sighup_to_perflint_still_prints_the_report(self):
        r = Run("stubborn.py", "MARKER", steps=50, fmt="text")
        marker = r.path("ready")
        r.cmd[-1] = marker
        p = r.start()
        r.wait_for(marker, p)
        p.send_signal(signal.SIGHUP)
        out, err = p.communicate(timeout=120)
        self.assertEqual(p.returncode, 3, err.decode())
        text = out.decode()
        self.assertIn("interrupted (SIGHUP to perflint)", text)
        self.assertIn("2 measured of 50 requested", text)


if __name__ == "__main__":
    unittest.main()
