"""Worker DataLoader whose batches are made ahead while the first step runs slowly.

--make-ms: time a worker takes per batch (2 workers); --step-ms: the step's own time. With
--make-ms 40 --step-ms 1 the loader sets the pace (one batch per ~20 ms), but the first steps are fed
from the batches made while step 0 slept; with --make-ms 0 --step-ms 30 the workers keep up.
"""
import argparse
import time

import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset

parser = argparse.ArgumentParser()
parser.add_argument("--make-ms", type=float, default=40.0)
parser.add_argument("--step-ms", type=float, default=1.0)
args = parser.parse_args()


class Made(Dataset):
    def __len__(self):
        return 1_000_000

    def __getitem__(self, i):
        time.sleep(args.make_ms / 1000.0)  # decoding stand-in (batch_size=None: one call per batch)
        return torch.randn(16, 8), torch.zeros(16, dtype=torch.long)


if __name__ == "__main__":
    model = nn.Linear(8, 2)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    loader = DataLoader(Made(), batch_size=None, num_workers=2, prefetch_factor=2)
    for step, (x, y) in enumerate(loader):
        time.sleep(0.5 if step == 0 else args.step_ms / 1000.0)  # start-up: the workers fill up meanwhile
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
