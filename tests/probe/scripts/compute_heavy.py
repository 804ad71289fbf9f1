"""A wide MLP on random inputs made on the fly: forward and backward are nearly the whole step."""
import torch
from torch import nn

model = nn.Sequential(nn.Linear(256, 1024), nn.ReLU(), nn.Linear(1024, 1024), nn.ReLU(), nn.Linear(1024, 256))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for step in range(1000):
    x = torch.randn(64, 256)
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
