"""Train a ResNet on CIFAR-10."""
import argparse

import torch
import torch.nn as nn
from data import loader, Net  # local helpers
torch.set_float32_matmul_precision("high")

model = Net().cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for x, y in loader:
    x, y = x.cuda(), y.cuda()
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
