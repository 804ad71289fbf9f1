"""A small model wrapped in activation checkpointing (it fits in memory many times over)."""
import torch
from torch import nn
from torch.utils.checkpoint import checkpoint

blocks = nn.ModuleList([nn.Sequential(nn.Linear(128, 128), nn.GELU()) for _ in range(8)])
head = nn.Linear(128, 1)
opt = torch.optim.SGD(list(blocks.parameters()) + list(head.parameters()), lr=0.01)
for step in range(1000):
    x = torch.randn(64, 128)
    for block in blocks:
        x = checkpoint(block, x, use_reentrant=False)
    loss = head(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
