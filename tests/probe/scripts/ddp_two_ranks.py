"""DDP on CPU (gloo) for `perflint --probe --nproc 2`: each rank trains a small model on its own
batches. With --slow-rank R, rank R sleeps in its data loading (a straggler by its data phase); with
--crash-rank R --crash-step N, rank R raises at step N."""
import argparse
import os
import time

import torch
import torch.distributed as dist
from torch import nn
from torch.utils.data import DataLoader, Dataset

parser = argparse.ArgumentParser()
parser.add_argument("--slow-rank", type=int, default=-1)
parser.add_argument("--crash-rank", type=int, default=-1)
parser.add_argument("--crash-step", type=int, default=3)
args = parser.parse_args()

dist.init_process_group("gloo")
rank = dist.get_rank()


class Data(Dataset):
    def __len__(self):
        return 10000

    def __getitem__(self, i):
        if rank == args.slow_rank:
            time.sleep(0.002)  # 64 samples per batch: ~130 ms of data loading per step
        return torch.randn(32), torch.randn(8)


model = nn.parallel.DistributedDataParallel(nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 8)))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
loader = DataLoader(Data(), batch_size=64, num_workers=0)
for step, (x, y) in enumerate(loader):
    if rank == args.crash_rank and step == args.crash_step:
        raise RuntimeError("rank %d failed on purpose at step %d" % (rank, step))
    loss = (model(x) - y).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    dist.all_reduce(loss.detach())  # a collective of the script's own (the probe times it)
