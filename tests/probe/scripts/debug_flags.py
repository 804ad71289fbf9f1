"""Debugging aids and slow settings left on in a training loop: anomaly detection and a profiler
around every step, determinism, TF32 and cuDNN autotuning off, CUDA_LAUNCH_BLOCKING, zero-filled
gradients. The run-time fixes of `--apply` undo each; the script sets them back before its loop."""
import os

import torch
from torch import nn

os.environ["CUDA_LAUNCH_BLOCKING"] = "1"
torch.backends.cudnn.benchmark = False
torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
torch.use_deterministic_algorithms(True)

model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for step in range(1000):
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
        with torch.autograd.detect_anomaly():
            loss = model(torch.randn(16, 32)).pow(2).mean()
            opt.zero_grad(set_to_none=False)
            loss.backward()
            opt.step()
    if step == 0:
        prof.export_chrome_trace("trace.json")
    summary = prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=3)
    assert isinstance(summary, str)
