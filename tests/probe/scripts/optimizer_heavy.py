"""Many small parameter tensors under Adam: the optimizer's per-tensor work is most of the step.
Every parameter keeps a gradient (zero_grad(set_to_none=False)), so Adam updates all 5000 of them,
while forward and backward touch only two."""
import torch
from torch import nn

params = nn.ParameterList([nn.Parameter(torch.randn(4)) for _ in range(5000)])
for p in params:
    p.grad = torch.zeros_like(p)
opt = torch.optim.Adam(params, lr=1e-3)
for step in range(1000):
    loss = params[0].sum() + params[1].sum()
    opt.zero_grad(set_to_none=False)
    loss.backward()
    opt.step()
