"""GPU check (CUPTI held by another profiler): the training loop runs inside torch.profiler, which
takes CUPTI through Kineto. Under PERFLINT_CUPTI=1 the probe must not crash and must say that GPU
tracing was unavailable (or work alongside it).
"""
import torch
from torch import nn
from torch.profiler import ProfilerActivity, profile

torch.backends.cuda.matmul.allow_tf32 = True

model = nn.Sequential(nn.Linear(2048, 2048), nn.ReLU(), nn.Linear(2048, 2048)).cuda()
opt = torch.optim.SGD(model.parameters(), lr=1e-4)
x = torch.randn(4096, 2048, device="cuda")
with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
    for step in range(1_000_000):
        loss = model(x).square().mean()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        prof.step()
