"""Workload for bench/probe_overhead.sh: a small CPU training loop that times its own steps.

It prints one line per step, `step <i> <ms>`, measured between optimizer steps with
time.perf_counter, so the same numbers can be read from a bare run and from a run under the probe.
With --device cuda (the GPU checks, tests/probe/gpu/run_gpu_checks.sh) the batches live on the GPU,
TF32 is on, and the per-step .item() makes the host time a step's GPU work.
"""
import argparse
import time

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=40)
parser.add_argument("--width", type=int, default=256)
parser.add_argument("--depth", type=int, default=6)
parser.add_argument("--batch", type=int, default=64)
parser.add_argument("--device", default="cpu")
args = parser.parse_args()

torch.manual_seed(0)
torch.set_num_threads(1)  # steady timings on a small machine
if args.device == "cpu":
    data = TensorDataset(torch.randn(4096, args.width), torch.randint(0, 10, (4096,)))
    loader = DataLoader(data, batch_size=args.batch, shuffle=True)
else:
    torch.backends.cuda.matmul.allow_tf32 = True
    batch = (torch.randn(args.batch, args.width, device=args.device),
             torch.randint(0, 10, (args.batch,), device=args.device))
    loader = [batch] * 64
layers = []
for _ in range(args.depth):
    layers += [nn.Linear(args.width, args.width), nn.ReLU()]
model = nn.Sequential(*layers, nn.Linear(args.width, 10)).to(args.device)
opt = torch.optim.SGD(model.parameters(), lr=0.01)

step = 0
last = time.perf_counter()
while step < args.steps:
    for x, y in loader:
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        running = loss.item()
        now = time.perf_counter()
        print("step %d %.3f" % (step, (now - last) * 1000.0), flush=True)
        last = now
        step += 1
        if step >= args.steps:
            break
