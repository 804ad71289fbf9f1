"""GPU check (PFL301): autograd anomaly detection left on in a training loop.

The hand-fixed twin is anomaly_fixed.py (no set_detect_anomaly).
"""
import torch
from torch import nn

torch.backends.cuda.matmul.allow_tf32 = True
torch.autograd.set_detect_anomaly(True)

layers = []
for _ in range(24):
    layers += [nn.Linear(1024, 1024), nn.LayerNorm(1024), nn.GELU()]
model = nn.Sequential(*layers).cuda()
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
x = torch.randn(2048, 1024, device="cuda")
for step in range(1_000_000):
    loss = model(x).square().mean()
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
