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


def probe(script, *args, steps=5, warmup=2, timeout=180, apply=(), env=None):
    """Runs the shim on scripts/<script>; returns (exit code, evidence dict, stdout+stderr).
    `apply`: --apply values; `env`: extra environment variables."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "evidence.json")
        env = dict(os.environ, PYTHONPATH=SHIM, **(env or {}))
        cmd = [PYTHON, "-m", "perflint_probe", "--steps", str(steps), "--warmup", str(warmup), "--out", out,
               *[a for fix in apply for a in ("--apply", fix)], "--", os.path.join(SCRIPTS, script), *args]
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

    def test_warm_up_lasts_until_the_loaders_batches_made_ahead_are_used(self):
        # The workers make a batch in 60 ms each (2 of them: two batches every 60 ms, 30 ms a step on
        # average); the step itself takes 1 ms. The 4 batches made while step 0 slept feed the next
        # steps at once: measuring those would time steps far faster than the loader allows.
        code, ev, log = probe("prefetched_loader.py", "--make-ms", "60", steps=6, warmup=1)
        self.assertEqual(code, 0, log)
        self.assertEqual(ev["warmup_requested"], 1)
        self.assertGreater(ev["warmup_added"], 0, ev["steps"])
        self.assertEqual(ev["warmup"], 1 + ev["warmup_added"])
        self.assertIn("no batch made ahead", ev["warmup_reason"])
        walls = [s["wall_ms"] for s in measured(ev)]
        self.assertEqual(len(walls), 6)
        # the loader's pace (30 ms on average; ~11 ms when the stock's batches are measured)
        self.assertGreater(sum(walls) / len(walls), 18.0, walls)
        # Workers that keep up: warm-up grows by at most num_workers x prefetch_factor steps.
        code, ev, log = probe("prefetched_loader.py", "--make-ms", "0", "--step-ms", "30", steps=3, warmup=2)
        self.assertEqual(code, 0, log)
        self.assertLessEqual(ev["warmup_added"], 4 + 1, ev["steps"])
        if ev["warmup_added"]:
            self.assertIn("keeps up", ev["warmup_reason"])
        # No worker loader: the warm-up asked for.
        code, ev, log = probe("data_bound.py", steps=3, warmup=2)
        self.assertEqual((ev["warmup"], ev["warmup_added"]), (2, 0))
        # Several ranks step together: no rank lengthens its warm-up alone.
        code, ev, log = probe("prefetched_loader.py", "--make-ms", "60", steps=2, warmup=1,
                              env={"WORLD_SIZE": "2", "RANK": "0", "LOCAL_RANK": "0"})
        self.assertEqual(code, 0, log)
        self.assertEqual((ev["warmup"], ev["warmup_added"]), (1, 0))

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

    def test_steps_on_cuda_take_their_time_from_the_gpu_timeline(self):
        # The host queues a GPU-bound step in a fraction of its GPU time: on an H200 the host clock
        # said 2.1 ms for a 30.3 ms fp32 step. The step events put the GPU's time in wall_ms.
        code, ev, log = probe("fake_gpu_clock.py", steps=4, warmup=2)
        self.assertEqual(code, 0, log)
        self.assertEqual(ev["step_clock"], "cuda_events", log)
        for s in measured(ev):
            self.assertAlmostEqual(s["wall_ms"], 30.0)
            self.assertLess(s["host_wall_ms"], 30.0)
        self.assertNotIn("host_wall_ms", ev["steps"][0])  # no event before the first step: host time

    def test_crash_gives_partial_evidence_and_the_traceback(self):
        code, ev, log = probe("crash_at_3.py")
        self.assertNotEqual(code, 0)
        self.assertEqual(ev["exit"]["reason"], "crash")
        self.assertIn("boom at step 3", ev["exit"]["traceback"])
        self.assertEqual(len(ev["steps"]), 2)

    def test_a_script_that_does_not_compile_is_a_crash_with_its_error(self):
        with tempfile.TemporaryDirectory() as tmp:
            bad = os.path.join(tmp, "bad.py")
            with open(bad, "w") as f:
                f.write("import torch\nfor x in range(3)\n    pass\n")
            code, ev, log = probe(bad)
        self.assertEqual(code, 1, log)
        self.assertEqual(ev["exit"]["reason"], "crash")
        self.assertIn("SyntaxError", ev["exit"]["traceback"])
        self.assertIn("bad.py", ev["exit"]["traceback"])

    def test_reads_are_the_users_not_torchs_own(self):
        code, ev, log = probe("adam_reads.py", steps=4, warmup=1)
        self.assertEqual(code, 0, log)
        sites = {}
        for s in ev["steps"]:
            for r in s["syncs"]:
                sites[r["site"].rsplit("/", 1)[-1]] = sites.get(r["site"].rsplit("/", 1)[-1], 0) + r["count"]
        # Only the script's own read, every other step: none at opt.step() (Adam's internal reads).
        self.assertEqual(set(sites), {"adam_reads.py:14"}, ev["steps"])
        self.assertIn(sites["adam_reads.py:14"], (2, 3))

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
        # The script runs from the shim's top-level frame (runpy's two for `-m`, the shim's module):
        # anomaly mode records this stack at every op, so each extra frame is a per-step cost.
        frames = int(log.split("frames under the script: ")[1].split()[0])
        self.assertLessEqual(frames, 3, log)
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


def applied(evidence, fix):
    """The evidence's `applied` entry for one --apply value."""
    (entry,) = [a for a in evidence["applied"] if a["fix"] == fix]
    return entry


@unittest.skipUnless(HAS_TORCH, "no torch for %s (Debian: apt-get install python3-torch)" % PYTHON)
class FixTest(unittest.TestCase):
    """--apply FIX (probe/shim/perflint_probe/fixes.py): what `perflint --probe --verify` runs."""

    def test_loader_fixes_change_the_users_dataloader(self):
        code, ev, log = probe("data_bound.py", steps=3, warmup=1, apply=["workers=2", "pin_memory,persistent_workers"])
        self.assertEqual(code, 0, log)
        self.assertEqual(ev["exit"]["reason"], "steps_reached")
        (loader,) = ev["dataloaders"]
        self.assertEqual((loader["num_workers"], loader["pin_memory"], loader["persistent_workers"]), (2, True, True))
        self.assertEqual(loader["fixes"], ["workers=2", "pin_memory", "persistent_workers"])
        for fix in ("workers=2", "pin_memory", "persistent_workers"):
            self.assertEqual(applied(ev, fix), {"fix": fix, "applied": 1, "error": None, "notes": []})

    def test_a_loader_fix_with_a_site_changes_only_the_loader_built_there(self):
        script = os.path.join(SCRIPTS, "data_bound.py")
        here, elsewhere = script + ":26", script + ":25"
        code, ev, log = probe("data_bound.py", steps=2, warmup=0, apply=["workers=2@" + elsewhere, "pin_memory@" + here])
        self.assertEqual(code, 0, log)
        (loader,) = ev["dataloaders"]
        self.assertEqual(loader["site"], here)  # the string the fix matched
        self.assertEqual((loader["num_workers"], loader["pin_memory"]), (0, True))
        self.assertEqual(applied(ev, "workers=2@" + elsewhere)["applied"], 0)
        self.assertEqual(applied(ev, "pin_memory@" + here)["applied"], 1)

    def test_a_worker_that_cannot_start_is_a_crash_with_its_traceback(self):
        code, ev, log = probe("spawn_workers.py", steps=2, warmup=0, apply=["workers=2"], timeout=120)
        self.assertEqual(code, 1, log)
        self.assertEqual(ev["exit"]["reason"], "crash")
        self.assertIn("Can't pickle <function <lambda>", ev["exit"]["traceback"])
        self.assertEqual(applied(ev, "workers=2")["applied"], 1)

    def test_a_stuck_worker_is_a_crash_not_a_hang(self):
        code, ev, log = probe("stuck_worker.py", steps=2, warmup=0, apply=["workers=1"], timeout=120,
                              env={"PERFLINT_PROBE_WORKER_TIMEOUT": "2"})
        self.assertEqual(code, 1, log)
        self.assertEqual(ev["exit"]["reason"], "crash")
        self.assertIn("DataLoader timed out after 2.0 seconds", ev["exit"]["traceback"])

    def test_no_spawned_workers_for_a_loader_built_outside_the_main_guard(self):
        code, ev, log = probe("spawn_workers.py", "--unguarded", steps=2, warmup=0, apply=["workers=2"])
        self.assertEqual(code, 0, log)
        (loader,) = ev["dataloaders"]
        self.assertEqual(loader["num_workers"], 0)
        entry = applied(ev, "workers=2")
        self.assertEqual(entry["applied"], 0)
        self.assertIn('outside `if __name__ == "__main__":`', entry["notes"][0])

    def test_no_anomaly_on_a_script_that_turns_it_on(self):
        code, ev, log = probe("compute_bound.py", steps=3, warmup=1, apply=["no_anomaly"])
        self.assertEqual(code, 0, log)
        self.assertEqual(len(ev["steps"]), 4)
        self.assertFalse(any(s["flags"]["anomaly"] for s in ev["steps"]))
        self.assertEqual(applied(ev, "no_anomaly")["applied"], 1)  # its one set_detect_anomaly(True)

    def test_no_checkpoint_calls_the_blocks_directly(self):
        code, ev, log = probe("checkpointed.py", steps=3, warmup=1, apply=["no_checkpoint"])
        self.assertEqual(code, 0, log)
        self.assertEqual(ev["exit"]["reason"], "steps_reached")
        # The probe's timing wrapper stays around the pass-through: the 8 calls a step are still seen.
        self.assertEqual([s["checkpoint_calls"] for s in ev["steps"]], [8] * 4)
        self.assertEqual(applied(ev, "no_checkpoint")["applied"], 32)

    def test_flag_fixes_hold_although_the_script_sets_the_flags_back(self):
        code, ev, log = probe("debug_flags.py", steps=3, warmup=1)
        self.assertEqual(code, 0, log)
        self.assertEqual(ev["applied"], [])
        before = ev["steps"][-1]["flags"]
        self.assertTrue(before["anomaly"] and before["profiler"] and before["launch_blocking"])
        self.assertFalse(before["tf32_matmul"] or before["cudnn_benchmark"])

        fixes = ["tf32", "cudnn_benchmark", "no_anomaly", "no_profiler", "no_deterministic", "no_launch_blocking",
                 "set_to_none", "non_blocking"]
        code, ev, log = probe("debug_flags.py", steps=3, warmup=1, apply=[",".join(fixes)])
        self.assertEqual(code, 0, log)
        self.assertEqual(len(ev["steps"]), 4)
        for s in ev["steps"]:  # the first step too: the first forward of a step re-asserts
            f = s["flags"]
            self.assertTrue(f["tf32_matmul"] and f["tf32_cudnn"] and f["cudnn_benchmark"], f)
            self.assertFalse(f["anomaly"] or f["profiler"] or f["launch_blocking"], f)
            self.assertFalse(f.get("deterministic_algorithms", False), f)
        counts = {a["fix"]: a["applied"] for a in ev["applied"]}
        self.assertEqual([a["error"] for a in ev["applied"]], [None] * len(fixes))
        self.assertEqual(list(counts), fixes)
        # one profiler, one detect_anomaly() and one zero_grad(set_to_none=False) a step
        self.assertEqual((counts["no_profiler"], counts["no_anomaly"], counts["set_to_none"]), (4, 4, 4))
        # set at install, and again once the script set it back before its loop
        self.assertEqual((counts["tf32"], counts["cudnn_benchmark"]), (2, 2))
        self.assertEqual((counts["no_deterministic"], counts["no_launch_blocking"]), (1, 1))
        self.assertEqual(counts["non_blocking"], 0)  # no CUDA here

    def test_unknown_or_malformed_fix_is_a_usage_error(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "evidence.json")
            for value, says in (("tf32,warp_speed", "unknown fix 'warp_speed'"), ("workers", "workers=N"),
                                ("workers=two", "workers=N"), ("tf32@x.py:3", "takes no @SITE"),
                                ("no_anomaly=1", "takes no value")):
                p = subprocess.run([PYTHON, "-m", "perflint_probe", "--out", out, "--apply", value, "--",
                                    os.path.join(SCRIPTS, "crash_at_3.py")], capture_output=True, text=True,
                                   env=dict(os.environ, PYTHONPATH=SHIM), timeout=60)
                self.assertEqual(p.returncode, 2, value)
                self.assertIn(says, p.stderr)
                self.assertFalse(os.path.exists(out))

    def test_apply_values_split_on_commas_but_not_inside_a_site(self):
        sys.path.insert(0, SHIM)
        from perflint_probe import fixes

        got = [(f.name, f.count, f.site, f.given)
               for f in fixes.parse(["workers=2@/a,b/t.py:7,tf32", "pin_memory", "tf32", "pin_memory@/a,b/t.py:9"])]
        self.assertEqual(got, [("workers", 2, "/a,b/t.py:7", "workers=2@/a,b/t.py:7"), ("tf32", None, None, "tf32"),
                               ("pin_memory", None, None, "pin_memory"),
                               ("pin_memory", None, "/a,b/t.py:9", "pin_memory@/a,b/t.py:9")])

    def test_non_blocking_goes_where_the_call_put_it(self):
        sys.path.insert(0, SHIM)
        import torch
        from perflint_probe.fixes import _to_non_blocking

        t = torch.zeros(1)
        cases = [
            (("cuda",), {}, ("cuda",), {"non_blocking": True}),
            (("cuda", torch.float16), {}, ("cuda", torch.float16), {"non_blocking": True}),
            (("cuda", torch.float16, False), {}, ("cuda", torch.float16, True), {}),
            (("cuda", None, False), {}, ("cuda", None, True), {}),
            ((t, False), {}, (t, True), {}),
            ((), {"device": "cuda", "non_blocking": False}, (), {"device": "cuda", "non_blocking": True}),
        ]
        for args, kwargs, want_args, want_kwargs in cases:
            got_args, got_kwargs = _to_non_blocking(torch, args, kwargs)
            self.assertEqual((got_args, got_kwargs), (want_args, want_kwargs))
            # torch reads them as a non-blocking copy to CUDA
            self.assertTrue(torch._C._nn._parse_to(*got_args, **got_kwargs)[2])


if __name__ == "__main__":
    if not HAS_TORCH:
        print("SKIP: no torch for %s (Debian: apt-get install python3-torch)" % PYTHON)
        sys.exit(77)  # ctest SKIP_RETURN_CODE
    unittest.main(verbosity=2)
