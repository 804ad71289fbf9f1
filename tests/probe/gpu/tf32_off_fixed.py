"""GPU check (PFL401): an fp32 MLP with large matmuls and TF32 left off (PyTorch's default).

The hand-fixed twin of tf32_off.py.
"""
import torch
from torch import nn

torch.backends.cuda.matmul.allow_tf32 = True

layers = []
for _ in range(4):
    layers += [nn.Linear(4096, 4096), nn.ReLU()]
model = nn.Sequential(*layers).cuda()
opt = torch.optim.SGD(model.parameters(), lr=1e-4)
x = torch.randn(4096, 4096, device="cuda")
for step in range(1_000_000):
    loss = model(x).square().mean()
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
