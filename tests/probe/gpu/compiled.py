"""GPU check (torch 2.x): a torch.compile'd model. The probe must not add recompiles or graph breaks:
with PERFLINT_GPU_COUNTERS=FILE the script writes torch._dynamo's counters to FILE after every step
(the probe ends the script with os._exit, so an atexit hook would not run).
"""
import json
import os

import torch
from torch import nn

torch.backends.cuda.matmul.allow_tf32 = True

layers = []
for _ in range(6):
    layers += [nn.Linear(2048, 2048), nn.GELU()]
model = torch.compile(nn.Sequential(*layers).cuda())
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
x = torch.randn(4096, 2048, device="cuda")
counters_file = os.environ.get("PERFLINT_GPU_COUNTERS")
for step in range(1_000_000):
    loss = model(x).square().mean()
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    if counters_file:
        from torch._dynamo.utils import counters

        with open(counters_file, "w") as f:
            json.dump({k: dict(v) for k, v in counters.items()}, f)
