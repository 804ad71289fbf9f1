"""A DataLoader-bound training script: heavy per-sample work, tiny model, num_workers=0."""
import argparse
import time

import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset


class SlowDataset(Dataset):
    def __len__(self):
        return 100000

    def __getitem__(self, i):
        time.sleep(0.001)  # decoding / augmentation stand-in
        return torch.randn(32), torch.tensor(i % 4)


parser = argparse.ArgumentParser()
parser.add_argument("--workers", type=int, default=0)
parser.add_argument("--epochs", type=int, default=100)
args = parser.parse_args()

model = nn.Linear(32, 4)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
loader = DataLoader(SlowDataset(), batch_size=16, shuffle=True, num_workers=args.workers)
for epoch in range(args.epochs):
    for x, y in loader:
        loss = nn.functional.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
print("finished all epochs")
