"""Unit tests of the shim's phase timing (probe/shim/perflint_probe/phases.py) on synthetic input:
the host-clock nesting rules, and the CUDA-event timer with fake events (no GPU here; the real
torch.cuda.Event path is listed in docs/probe-validation.md as to run on a GPU)."""

import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "probe", "shim"))

from perflint_probe.phases import EventPhases, HostPhases, StepClock, apply_step_clock  # noqa: E402


class FakeClock:
    """A GPU stream: record() stamps the event with the stream's time; an event completes once the
    stream has run past it (advance)."""

    def __init__(self):
        self.queued = 0.0  # where the host has enqueued up to
        self.done = 0.0    # where the GPU has executed up to

    def event(self):
        clock = self

        class Event:
            def __init__(self):
                self.at = None

            def record(self):
                self.at = clock.queued

            def query(self):
                return self.at is not None and clock.done >= self.at

            def elapsed_time(self, end):
                assert self.query() and end.query(), "elapsed_time on an event that has not completed"
                return end.at - self.at

        return Event()


class HostPhasesTest(unittest.TestCase):
    def test_nested_modules_count_once_and_forwards_inside_backward_do_not_count(self):
        h = HostPhases()
        h.forward_enter()          # the model
        h.forward_enter()          # a submodule
        h.forward_exit()
        self.assertEqual(h.totals["forward"], 0.0)  # still inside the model
        h.forward_exit()
        first = h.totals["forward"]
        self.assertGreater(first, 0.0)
        h.in_backward = True       # checkpointing re-runs a forward inside backward
        h.forward_enter()
        h.forward_exit()
        self.assertEqual(h.totals["forward"], first)
        h.forward_exit()           # an unmatched exit (a forward that raised) changes nothing
        self.assertEqual(h.totals["forward"], first)

    def test_other_is_the_rest_of_the_step_and_never_negative(self):
        h = HostPhases()
        h.add("backward", 0.004)
        h.add("optimizer", 0.001)
        rec = h.record(wall_seconds=0.010, data_seconds=0.002)
        self.assertAlmostEqual(rec["data_ms"], 2.0)
        self.assertAlmostEqual(rec["other_ms"], 3.0)
        self.assertEqual(sorted(rec), ["backward_ms", "data_ms", "forward_ms", "h2d_ms", "optimizer_ms", "other_ms"])
        self.assertEqual(h.record(wall_seconds=0.001, data_seconds=0.002)["other_ms"], 0.0)


class EventPhasesTest(unittest.TestCase):
    def test_intervals_resolve_only_once_the_gpu_has_run_past_them(self):
        gpu = FakeClock()
        ev = EventPhases(gpu.event)
        gpu.queued = 10.0
        ev.start("forward")
        gpu.queued = 25.0
        ev.stop("forward", step=0)
        ev.start("backward")
        gpu.queued = 60.0
        ev.stop("backward", step=0)
        out = ev.resolve({})
        self.assertEqual(out, {})  # nothing ran yet: no sync forced, nothing resolved
        gpu.done = 30.0
        out = ev.resolve({})
        self.assertEqual(out, {0: {"forward": 15.0}})  # backward's end has not run
        gpu.done = 60.0
        ev.resolve(out)
        self.assertEqual(out, {0: {"forward": 15.0, "backward": 35.0}})
        self.assertEqual(ev.pending, [])

    def test_events_are_pooled_and_a_spent_pool_stops_timing_instead_of_growing(self):
        gpu = FakeClock()
        ev = EventPhases(gpu.event, pool_size=4)
        for step in range(3):
            ev.start("optimizer")
            gpu.queued += 5.0
            ev.stop("optimizer", step)
            gpu.done = gpu.queued
            ev.resolve({})
        self.assertEqual(ev.created, 2)  # two events, reused every step
        stuck = EventPhases(gpu.event, pool_size=4)
        for step in range(5):  # a GPU that never gets there: the pool runs out, no unbounded growth
            stuck.start("forward")
            gpu.queued += 1.0
            stuck.stop("forward", step)
            stuck.resolve({})
        self.assertEqual(stuck.created, 4)
        self.assertLessEqual(len(stuck.pending), 2)



class StepClockTest(unittest.TestCase):
    """A GPU-bound run: the host queues each 30 ms step in 2 ms, so its clock says 2 ms a step (what
    the probe reported for an fp32 MLP on an H200 before the step clock: 2.1 ms against 30.3 ms)."""

    def run_ahead(self, steps=5, gpu_ms=30.0, host_ms=2.0, warmup=1):
        gpu = FakeClock()
        clock = StepClock(gpu.event)
        records = []
        for i in range(steps):
            gpu.queued += gpu_ms
            clock.mark(i)
            records.append({"index": i, "warmup": i < warmup, "wall_ms": host_ms})
        return gpu, clock, records

    def test_steps_take_their_gpu_time_once_the_gpu_has_run_them(self):
        gpu, clock, records = self.run_ahead()
        gpu.done = 65.0  # the GPU is two steps behind: only what completed is read
        self.assertEqual(sorted(clock.walls(len(records))), [1])
        self.assertEqual(apply_step_clock(records, clock.walls(len(records))), "host")
        self.assertEqual([r["wall_ms"] for r in records], [2.0] * 5)  # unchanged: not every measured step
        gpu.done = gpu.queued  # the final synchronize()
        walls = clock.walls(len(records))
        self.assertEqual(walls, {1: 30.0, 2: 30.0, 3: 30.0, 4: 30.0})
        self.assertEqual(apply_step_clock(records, walls), "cuda_events")
        self.assertEqual([r["wall_ms"] for r in records], [2.0, 30.0, 30.0, 30.0, 30.0])
        self.assertEqual([r.get("host_wall_ms") for r in records], [None, 2.0, 2.0, 2.0, 2.0])
        self.assertEqual(apply_step_clock(records, walls), "cuda_events")  # a second call changes nothing
        self.assertEqual(records[1]["host_wall_ms"], 2.0)

    def test_without_warmup_the_first_step_has_no_start_event_and_the_host_clock_stays(self):
        gpu, clock, records = self.run_ahead(warmup=0)
        gpu.done = gpu.queued
        self.assertEqual(apply_step_clock(records, clock.walls(len(records))), "host")
        self.assertEqual(records[0]["wall_ms"], 2.0)

    def test_device_marks_place_every_boundary_on_the_end_clock(self):
        gpu, clock, records = self.run_ahead(steps=3)
        gpu.queued += 5.0
        end = gpu.event()
        end.record()
        gpu.done = gpu.queued
        marks = clock.device_marks(3, end, end_ns=10_000_000_000)
        # boundaries at 30, 60, 90 ms of stream time; the end event at 95 ms = 10 s on CUPTI's clock
        self.assertEqual(marks, [10_000_000_000 - 65_000_000, 10_000_000_000 - 35_000_000, 10_000_000_000 - 5_000_000])
        del clock.events[1]  # a boundary without an event: no marks at all, never misaligned ones
        self.assertIsNone(clock.device_marks(3, end, end_ns=10_000_000_000))

if __name__ == "__main__":
    unittest.main()
