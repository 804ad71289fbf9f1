"""GPU check (PFL501): activation checkpointing on a model whose activations fit easily.

The hand-fixed twin is checkpointed_fixed.py (the blocks are called directly).
"""
import torch
from torch import nn
from torch.utils.checkpoint import checkpoint

torch.backends.cuda.matmul.allow_tf32 = True


class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(width, 4 * width), nn.GELU(), nn.Linear(4 * width, width))
        self.norm = nn.LayerNorm(width)

    def forward(self, x):
        return x + self.net(self.norm(x))


class Model(nn.Module):
    def __init__(self, width=1024, depth=8):
        super().__init__()
        self.blocks = nn.ModuleList(Block(width) for _ in range(depth))

    def forward(self, x):
        for block in self.blocks:
            x = checkpoint(block, x, use_reentrant=False)
        return x


model = Model().cuda()
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
x = torch.randn(8192, 1024, device="cuda")
for step in range(1_000_000):
    loss = model(x).square().mean()
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
