"""Tests of the shim's per-step signals that need no script-level scenario of their own: host syncs
attributed through torch's sync debug warnings, zero_grad fills, compile counters.

The CUDA sync debug mode cannot run without a GPU, so its warning path is driven here with the same
warning torch raises ("called a synchronizing CUDA operation"), through the real warnings module.
Run by ctest (`probe_shim_signals`) with PERFLINT_TEST_PYTHON (default /usr/bin/python3).
"""

import os
import sys
import unittest
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from test_shim import HAS_TORCH, PYTHON, SHIM, measured, probe  # noqa: E402

sys.path.insert(0, SHIM)


class FakeProbe:
    def __init__(self, torch):
        self.torch = torch
        self.counted = []

    def in_user_code(self):
        return True

    def count_sync(self, op, site, cuda):
        self.counted.append((op, site, cuda))


def user_sync():
    warnings.warn("called a synchronizing CUDA operation", UserWarning)  # a sync from this line


@unittest.skipUnless(HAS_TORCH, "no torch for %s (Debian: apt-get install python3-torch)" % PYTHON)
class SyncDebugTest(unittest.TestCase):
    def setUp(self):
        import torch
        from perflint_probe import patches

        self.saved = (list(warnings.filters), warnings.showwarning)
        self.fake = FakeProbe(torch)
        self.sync = patches.SyncDebug(self.fake)

    def tearDown(self):
        warnings.filters[:] = self.saved[0]
        warnings.showwarning = self.saved[1]

    def line_of_user_sync(self):
        import inspect

        return inspect.getsourcelines(user_sync)[1] + 1

    def test_every_sync_is_counted_at_the_users_line_and_nothing_is_printed(self):
        printed = []
        warnings.showwarning = lambda *a, **k: printed.append(a)
        self.sync.reassert()
        for _ in range(3):  # the default filter would show a warning once per line: every one counts
            user_sync()
        self.assertEqual([c[0] for c in self.fake.counted], ["sync"] * 3)
        self.assertEqual(self.fake.counted[0][1], "%s:%d" % (os.path.abspath(__file__), self.line_of_user_sync()))
        self.assertTrue(all(c[2] for c in self.fake.counted))
        self.assertEqual(printed, [])

    def test_other_warnings_still_reach_the_scripts_handler(self):
        printed = []
        warnings.showwarning = lambda msg, *a, **k: printed.append(str(msg))
        self.sync.reassert()
        warnings.warn("something else", UserWarning)
        self.assertEqual(printed, ["something else"])
        self.assertEqual(self.fake.counted, [])

    def test_a_script_that_turns_warnings_into_errors_is_not_broken_after_the_next_step(self):
        self.sync.reassert()
        warnings.simplefilter("error")  # the script's own choice, made after the probe started
        with self.assertRaises(UserWarning):
            warnings.warn("the script's own warning", UserWarning)
        self.sync.reassert()  # what the probe does at every step boundary
        user_sync()  # must be counted, not raised
        self.assertEqual(len(self.fake.counted), 1)
        with self.assertRaises(UserWarning):
            warnings.warn("the script's own warning", UserWarning)

    def test_a_replaced_showwarning_is_wrapped_again(self):
        self.sync.reassert()
        seen = []
        warnings.showwarning = lambda msg, *a, **k: seen.append(str(msg))  # e.g. logging.captureWarnings
        self.sync.reassert()
        user_sync()
        warnings.warn("other", UserWarning)
        self.assertEqual(len(self.fake.counted), 1)
        self.assertEqual(seen, ["other"])

    def test_not_started_without_cuda(self):
        from perflint_probe import patches

        self.assertFalse(patches.SyncDebug.start(self.fake))  # this machine has no CUDA


@unittest.skipUnless(HAS_TORCH, "no torch for %s (Debian: apt-get install python3-torch)" % PYTHON)
class StepSignalsTest(unittest.TestCase):
    def test_zero_grad_fills_and_time_per_step(self):
        import torch

        code, ev, log = probe("data_bound.py", steps=3, warmup=1)
        self.assertEqual(code, 0, log)
        steps = measured(ev)
        self.assertTrue(all(s["zero_grad_calls"] == 1 for s in steps), steps)
        # data_bound.py calls optimizer.zero_grad() with no argument: a fill before torch 2.0.
        fills = 1 if torch.__version__.startswith("1.") else 0
        self.assertTrue(all(s["zero_grad_fill_calls"] == fills for s in steps), steps)
        self.assertTrue(all(s["zero_grad_ms"] >= 0.0 for s in steps))
        self.assertFalse(ev["sync_debug"])  # CPU: never started

    def test_compile_counter_is_absent_without_dynamo_and_linear_gemm_shapes_are_seen(self):
        import torch

        code, ev, log = probe("compute_bound.py", steps=2, warmup=1)
        self.assertEqual(code, 0, log)
        # 24 Linear(256, 256) and one Linear(256, 10) on batches of 64, counted over the first two
        # steps: after them only the outermost module (the Sequential) is hooked.
        self.assertEqual(ev["gemm_shapes"][0], {"m": 64, "n": 256, "k": 256, "calls": 24 * 2})
        self.assertEqual(ev["gemm_shapes"][1], {"m": 64, "n": 10, "k": 256, "calls": 2})
        if not hasattr(torch, "compile"):
            self.assertTrue(all(s["compiles"] is None for s in ev["steps"]))


@unittest.skipUnless(HAS_TORCH, "no torch for %s (Debian: apt-get install python3-torch)" % PYTHON)
class ForwardHooksTest(unittest.TestCase):
    """The global module hooks narrow to the outermost modules at the end of warm-up, unless that
    would lose autocast entered inside a forward."""

    def test_hooks_narrow_to_the_outermost_module_and_the_forward_phase_is_still_timed(self):
        code, ev, log = probe("compute_bound.py", steps=4, warmup=3)
        self.assertEqual(code, 0, log)
        self.assertEqual(ev["forward_hooks"], "outermost: 1 module")
        steps = measured(ev)
        self.assertEqual(len(steps), 4)
        # 25 Linear layers of 64x256x256: the forward phase is a real share of every measured step.
        self.assertTrue(all(s["phases"]["forward_ms"] > 0.05 * s["wall_ms"] for s in steps), steps)
        self.assertEqual(ev["gemm_shapes"][0]["calls"], 24 * 3)  # the three warm-up steps only

    def test_autocast_entered_inside_forward_keeps_the_global_hooks(self):
        code, ev, log = probe("autocast_inside.py", steps=3, warmup=2)
        self.assertEqual(code, 0, log)
        self.assertEqual(ev["forward_hooks"], "global: autocast entered inside a module's forward")
        self.assertTrue(all(s["autocast"] for s in ev["steps"]), ev["steps"])

    def test_autocast_around_the_model_call_is_seen_by_the_outermost_hooks(self):
        code, ev, log = probe("autocast_inside.py", "--autocast-outside", steps=3, warmup=2)
        self.assertEqual(code, 0, log)
        self.assertEqual(ev["forward_hooks"], "outermost: 1 module")
        self.assertTrue(all(s["autocast"] for s in measured(ev)), ev["steps"])
        self.assertTrue(all(s["phases"]["forward_ms"] > 0 for s in measured(ev)), ev["steps"])


if __name__ == "__main__":
    if not HAS_TORCH:
        print("SKIP: no torch for %s (Debian: apt-get install python3-torch)" % PYTHON)
        sys.exit(77)
    unittest.main(verbosity=2)
