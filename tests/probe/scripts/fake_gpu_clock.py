"""A CPU training loop that tells the probe CUDA is in use and stands in a fake GPU timeline for
torch.cuda.Event: each step "runs" for 30 ms on it while the host takes a few. The shim's step clock
(phases.StepClock, runtime._settle_gpu) must then report 30 ms steps, keep the host's in
host_wall_ms, and say step_clock "cuda_events". A test double for tests/probe/test_shim.py on a
machine without a GPU; the real path is checked by tests/probe/gpu/run_gpu_checks.sh.
"""
import torch
from torch import nn

GPU_MS_PER_STEP = 30.0
timeline = {"now": 0.0, "syncs": 0}


class FakeEvent:
    def __init__(self, enable_timing=False):
        self.at = None

    def record(self, stream=None):
        self.at = timeline["now"]

    def query(self):
        return self.at is not None

    def elapsed_time(self, end):
        return end.at - self.at


def synchronize(device=None):
    timeline["syncs"] += 1


torch.cuda.is_initialized = lambda: True
torch.cuda.Event = FakeEvent
torch.cuda.synchronize = synchronize

model = nn.Linear(8, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(4, 8)
for step in range(1000):
    timeline["now"] += GPU_MS_PER_STEP
    loss = model(x).square().mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
