"""Where each step's time goes: data wait, host-to-device copies, forward, backward, optimizer, and
the rest (Python, logging, syncs).

On the host clock (CPU runs) a phase is the wall time spent inside it: the outermost module call
(nested modules are not counted twice), Tensor.backward / torch.autograd.backward, the optimizer's
step(), and Tensor.to / .cuda calls that move a host tensor to a device. The data wait is the
DataLoader's __next__ (runtime.StepCounters.data_wait). "Other" is the step's wall time minus the
phases, never below zero.

On CUDA the host clock only sees kernel launches: the GPU runs behind. There each phase is also
bracketed with CUDA events (EventPhases below): pooled, recorded on the current stream at the
phase's start and end, and resolved later with query() — never synchronize() — so timing them does
not change the step it measures. Steps whose events have not completed when the evidence is written
keep their host-clock phases.
"""

import time

PHASES = ("data", "h2d", "forward", "backward", "optimizer")


class HostPhases:
    """Per-step host-clock phase totals, in seconds; `depth` counts nested module calls."""

    __slots__ = ("totals", "forward_depth", "forward_start", "in_backward")

    def __init__(self):
        self.totals = dict.fromkeys(PHASES, 0.0)
        self.forward_depth = 0
        self.forward_start = 0.0
        self.in_backward = False

    def add(self, phase, seconds):
        self.totals[phase] += seconds

    # The outermost module call only: submodules run inside it. Forwards re-run inside backward
    # (activation checkpointing) belong to backward.
    def forward_enter(self):
        if self.in_backward:
            return
        if self.forward_depth == 0:
            self.forward_start = time.perf_counter()
        self.forward_depth += 1

    def forward_exit(self):
        if self.in_backward or self.forward_depth == 0:
            return
        self.forward_depth -= 1
        if self.forward_depth == 0:
            self.totals["forward"] += time.perf_counter() - self.forward_start

    def record(self, wall_seconds, data_seconds):
        """The step's phases in ms; `other` is what the phases do not cover."""
        t = dict(self.totals)
        t["data"] = data_seconds
        out = {name + "_ms": t[name] * 1000.0 for name in PHASES}
        covered = sum(t.values())
        out["other_ms"] = max(0.0, (wall_seconds - covered) * 1000.0)
        return out


class EventPhases:
    """CUDA-event timing of phases, resolved without forcing a sync.

    `make_event()` returns an object with record(), query() and elapsed_time(other) in ms — a
    torch.cuda.Event(enable_timing=True) on a GPU, a fake in the unit tests. Events are pooled.
    """

    def __init__(self, make_event, pool_size=256):
        self.make_event = make_event
        self.free = []
        self.pool_size = pool_size
        self.pending = []  # (step index, phase, start event, end event)
        self.open = {}     # phase -> start event
        self.created = 0

    def _event(self):
        if self.free:
            return self.free.pop()
        if self.created >= self.pool_size:
            return None  # the pool is spent (events not completing): stop timing on the GPU
        self.created += 1
        return self.make_event()

    def start(self, phase):
        if phase in self.open:
            return
        e = self._event()
        if e is not None:
            e.record()
            self.open[phase] = e

    def stop(self, phase, step):
        start = self.open.pop(phase, None)
        if start is None:
            return
        end = self._event()
        if end is None:
            self.free.append(start)
            return
        end.record()
        self.pending.append((step, phase, start, end))

    def resolve(self, out):
        """Adds the completed intervals to out[step][phase] (ms); keeps the others pending. Uses
        query() only: an interval whose end event has not completed waits for a later call."""
        still = []
        for step, phase, start, end in self.pending:
            if end.query():
                ms = start.elapsed_time(end)
                per = out.setdefault(step, {})
                per[phase] = per.get(phase, 0.0) + ms
                self.free.extend((start, end))
            else:
                still.append((step, phase, start, end))
        self.pending = still
        return out


class StepClock:
    """Step boundaries on the GPU timeline.

    On CUDA the host runs ahead of the GPU: a step whose host code only queues kernels takes a
    fraction of its GPU time on the host clock, until the queue is full. A CUDA event recorded at
    every step boundary (on the current stream) marks where the GPU reached that boundary; the time
    between two such events is the step's length as the GPU ran it, idle gaps included. The events
    are read when the measured steps are over — after one synchronize() at the end of the run, which
    no measured step pays for — or, on an early end, as far as they have completed (query()).
    `make_event()` returns an object with record(), query() and elapsed_time(other) in ms.
    """

    def __init__(self, make_event):
        self.make_event = make_event
        self.events = {}  # step index -> the event recorded at the end of that step

    def mark(self, index):
        e = self.make_event()
        e.record()
        self.events[index] = e

    def walls(self, count, completed_only=True):
        """{step index: ms} for the steps among the first `count` whose start (the previous step's
        event) and end events are both known and, with completed_only, have completed."""
        out = {}
        for i in range(1, count):
            start, end = self.events.get(i - 1), self.events.get(i)
            if start is None or end is None:
                continue
            if completed_only and not end.query():
                continue
            out[i] = start.elapsed_time(end)
        return out

    def device_marks(self, count, end_event, end_ns):
        """Every boundary's time on the clock of `end_ns` (CUPTI's), from each event's distance to
        `end_event`, a completed event whose GPU time was `end_ns`; None unless all `count`
        boundaries have an event."""
        if count <= 0 or any(i not in self.events for i in range(count)):
            return None
        marks = [end_ns - int(round(self.events[i].elapsed_time(end_event) * 1e6)) for i in range(count)]
        return marks if all(a <= b for a, b in zip(marks, marks[1:])) else None


def apply_step_clock(records, walls):
    """Makes the GPU timeline the steps' clock when it covers every measured step: each such
    record's wall_ms becomes the GPU time and host_wall_ms keeps the host's. Returns the clock in
    force, "cuda_events" or "host" (then the records are left as they were)."""
    measured = [r for r in records if not r.get("warmup")]
    if not measured or any(r["index"] not in walls for r in measured):
        return "host"
    for r in records:
        ms = walls.get(r["index"])
        if ms is not None and "host_wall_ms" not in r:
            r["host_wall_ms"] = r["wall_ms"]
            r["wall_ms"] = ms
    return "cuda_events"
