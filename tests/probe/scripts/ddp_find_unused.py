"""DDP on CPU (gloo) with find_unused_parameters=True on a deep model: DDP walks the autograd graph
after every forward (PFL701), which the probe times in DistributedDataParallel.forward."""
import torch
import torch.distributed as dist
from torch import nn

dist.init_process_group("gloo")
torch.manual_seed(0)
layers = []
for _ in range(60):
    layers += [nn.Linear(16, 16), nn.ReLU()]
model = nn.parallel.DistributedDataParallel(nn.Sequential(*layers), find_unused_parameters=True)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for step in range(1000):
    x, y = torch.randn(8, 16), torch.randn(8, 16)
    loss = (model(x) - y).pow(2).mean()
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
