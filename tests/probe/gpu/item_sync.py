"""GPU check (PFL201): loss.item() every step, in a step whose host work could overlap the GPU's.

Each step does 3 ms of host work (a stand-in for logging or batch preparation) and about 10 ms of
GPU work; the .item() makes the host wait for the GPU before it starts the next step's host work.
The hand-fixed twin is item_sync_fixed.py (the loss is accumulated on the GPU, read every 100 steps).
"""
import time

import torch
from torch import nn

torch.backends.cuda.matmul.allow_tf32 = True

layers = []
for _ in range(8):
    layers += [nn.Linear(4096, 4096), nn.ReLU()]
model = nn.Sequential(*layers).cuda()
opt = torch.optim.SGD(model.parameters(), lr=1e-4)
x = torch.randn(4096, 4096, device="cuda")
losses = []
for step in range(1_000_000):
    time.sleep(0.003)  # host work
    loss = model(x).square().mean()
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    losses.append(loss.item())
