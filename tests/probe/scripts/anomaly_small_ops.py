"""Anomaly detection left on around a model of many small ops: every op records a traceback, so
turning it off is a large, measurable saving (the --verify anomaly test)."""
import torch
from torch import nn

torch.autograd.set_detect_anomaly(True)
model = nn.Sequential(*[nn.Sequential(nn.Linear(32, 32), nn.Tanh()) for _ in range(40)])
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for step in range(1000):
    loss = model(torch.randn(8, 32)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
