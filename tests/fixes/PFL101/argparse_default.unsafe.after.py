import argparse

import torch
from torch.utils.data import DataLoader

from data import TrainSet, Net

parser = argparse.ArgumentParser()
parser.add_argument("--workers", type=int, default=4)
args = parser.parse_args()

loader = DataLoader(TrainSet(), batch_size=64, num_workers=args.workers, persistent_workers=True)
model = Net()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for x, y in loader:
    loss = model(x, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
