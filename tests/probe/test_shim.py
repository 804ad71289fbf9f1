"""Tests of the probe shim (probe/shim/perflint_probe) with a real PyTorch on CPU.

Each test runs a real training script from scripts/ under `python -m perflint_probe` and checks the
evidence file. Run by ctest (tests/CMakeLists.txt) with the interpreter in PERFLINT_TEST_PYTHON
(default /usr/bin/python3, Debian's python3-torch); skipped, saying why, when it has no torch.
"""

import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SHIM = os.path.join(os.path.dirname(os.path.dirname(HERE)), "probe", "shim")
SCRIPTS = os.path.join(HERE, "scripts")
PYTHON = os.environ.get("PERFLINT_TEST_PYTHON", "/usr/bin/python3")


def has_torch():
    try:
        return subprocess.run([PYTHON, "-c", "import torch"], capture_output=True, timeout=120).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


HAS_TORCH = has_torch()


def probe(script, *args, steps=5, warmup=2, timeout=180):
    """Runs the shim on scripts/<script>; returns (exit code, evidence dict, stdout+stderr)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "evidence.json")
        env = dict(os.environ, PYTHONPATH=SHIM)
        cmd = [PYTHON, "-m", "perflint_probe", "--steps", str(steps), "--warmup", str(warmup), "--out", out,
               "--", os.path.join(SCRIPTS, script), *args]
        p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout, cwd=tmp)
        evidence = None
        if os.path.exists(out):
            with open(out) as f:
                evidence = json.load(f)
        leftovers = [n for n in os.listdir(tmp) if ".tmp." in n]
        assert not leftovers, "temporary evidence files left behind: %s" % leftovers
        return p.returncode, evidence, p.stdout + p.stderr


def measured(evidence):
    return [s for s in evidence["steps"] if not s["warmup"]]


@unittest.skipUnless(HAS_TORCH, "no torch for %s (Debian: apt-get install python3-torch)" % PYTHON)
class ShimTest(unittest.TestCase):
    def test_data_bound_script_waits_on_the_loader_most_of_the_step(self):
        code, ev, log = probe("data_bound.py")
        self.assertEqual(code, 0, log)
        self.assertEqual(ev["exit"]["reason"], "steps_reached")
        self.assertNotIn("finished all epochs", log)  # ended after warm-up + steps
        self.assertEqual(ev["step_marker"], "optimizer")
        steps = measured(ev)
        self.assertEqual(len(steps), 5)
        share = sum(s["data_wait_ms"] for s in steps) / sum(s["wall_ms"] for s in steps)
        self.assertGreater(share, 0.5)
        (loader,) = ev["dataloaders"]
        self.assertEqual(loader["num_workers"], 0)
        self.assertTrue(loader["site"].endswith("data_bound.py:26"), loader["site"])

    def test_in_memory_loader_with_a_heavy_model_is_not_data_bound(self):
        code, ev, log = probe("compute_bound.py")
        self.assertEqual(code, 0, log)
        steps = measured(ev)
        share = sum(s["data_wait_ms"] for s in steps) / sum(s["wall_ms"] for s in steps)
        self.assertLess(share, 0.3)
        # anomaly mode was on during every measured step, and .item() was counted at its line
        self.assertTrue(all(s["flags"]["anomaly"] for s in steps))
        sites = {(x["site"].rsplit("/", 1)[-1], x["op"]) for s in steps for x in s["syncs"]}
        self.assertIn(("compute_bound.py:17", "item"), sites)

    def test_no_optimizer_steps_on_backward(self):
        code, ev, log = probe("no_optimizer.py")
        self.assertEqual(code, 0, log)
        self.assertEqual(ev["step_marker"], "backward")
        self.assertEqual(len(ev["steps"]), 7)

    def test_crash_gives_partial_evidence_and_the_traceback(self):
        code, ev, log = probe("crash_at_3.py")
        self.assertNotEqual(code, 0)
        self.assertEqual(ev["exit"]["reason"], "crash")
        self.assertIn("boom at step 3", ev["exit"]["traceback"])
        self.assertEqual(len(ev["steps"]), 2)

    def test_early_sys_exit_keeps_the_code(self):
        code, ev, log = probe("early_exit.py")
        self.assertEqual(code, 3)
        self.assertEqual(ev["exit"], {"reason": "script_exit", "code": 3})
        self.assertEqual(len(ev["steps"]), 2)

    def test_checkpoint_calls_are_counted_per_step(self):
        code, ev, log = probe("checkpointed.py")
        self.assertEqual(code, 0, log)
        for s in measured(ev):
            self.assertEqual(s["checkpoint_calls"], 8)
            self.assertGreater(s["checkpoint_forward_ms"], 0.0)
        self.assertEqual(ev["memory"]["kind"], "rss")
        self.assertLess(ev["memory"]["peak_bytes"], ev["memory"]["total_bytes"])

    def test_script_arguments_main_module_and_worker_processes(self):
        code, ev, log = probe("args_and_workers.py", "--lr", "0.05", "--tag", "x y")
        self.assertEqual(code, 0, log)
        self.assertIn("args: 0.05 x y", log)
        (loader,) = ev["dataloaders"]
        self.assertEqual(loader["num_workers"], 2)
        self.assertTrue(loader["persistent_workers"])
        self.assertGreaterEqual(loader["batches"], 7)

    def test_sigterm_writes_the_evidence_gathered_so_far(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "evidence.json")
            env = dict(os.environ, PYTHONPATH=SHIM)
            p = subprocess.Popen([PYTHON, "-m", "perflint_probe", "--steps", "100000", "--warmup", "0", "--out", out,
                                  "--", os.path.join(SCRIPTS, "data_bound.py")], env=env, cwd=tmp,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            # Let it take a few steps (each ~20 ms after start-up), then stop it as the runner would.
            import time
            time.sleep(8)
            p.terminate()
            p.wait(timeout=60)
            with open(out) as f:
                ev = json.load(f)
            self.assertEqual(ev["exit"]["reason"], "terminated")
            self.assertEqual(p.returncode, 128 + 15)


if __name__ == "__main__":
    if not HAS_TORCH:
        print("SKIP: no torch for %s (Debian: apt-get install python3-torch)" % PYTHON)
        sys.exit(77)  # ctest SKIP_RETURN_CODE
    unittest.main(verbosity=2)
