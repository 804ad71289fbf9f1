"""GPU check (PFL503): a fixed-shape convolutional net trained without cudnn.benchmark.

The hand-fixed twin of cudnn_off.py.
"""
import torch
from torch import nn

torch.backends.cuda.matmul.allow_tf32 = True
torch.backends.cudnn.benchmark = True


def block(cin, cout, stride):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU())


model = nn.Sequential(
    block(3, 64, 2), block(64, 64, 1), block(64, 128, 2), block(128, 128, 1), block(128, 256, 2),
    block(256, 256, 1), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(256, 10)).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
x = torch.randn(128, 3, 160, 160, device="cuda")
y = torch.randint(0, 10, (128,), device="cuda")
for step in range(1_000_000):
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
