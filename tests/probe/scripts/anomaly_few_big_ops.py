"""Anomaly detection left on around a step of a few large matrix products: its per-op cost is lost
in the noise of the step, so --verify must report the fix as having no measurable effect."""
import torch
from torch import nn

torch.autograd.set_detect_anomaly(True)
weight = nn.Parameter(torch.randn(512, 512) / 23)
opt = torch.optim.SGD([weight], lr=1e-6)
for step in range(1000):
    x = torch.randn(512, 512)
    loss = (x @ weight @ weight).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
