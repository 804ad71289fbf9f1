"""A model whose forward enters autocast itself (bf16 on the CPU), called with no autocast around it;
with --autocast-outside the loop enters it around the model call instead. Either way every step runs
under autocast."""
import sys

import torch
from torch import nn

OUTSIDE = "--autocast-outside" in sys.argv


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 4))

    def forward(self, x):
        if OUTSIDE:
            return self.body(x)
        with torch.autocast("cpu", dtype=torch.bfloat16):
            return self.body(x)


torch.manual_seed(0)
model = Net()
opt = torch.optim.SGD(model.parameters(), lr=0.01)
x, y = torch.randn(16, 32), torch.randint(0, 4, (16,))
for step in range(1000):
    if OUTSIDE:
        with torch.autocast("cpu", dtype=torch.bfloat16):
            out = model(x)
    else:
        out = model(x)
    loss = nn.functional.cross_entropy(out.float(), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
