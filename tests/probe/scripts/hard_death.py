"""Dies without a Python exception after `--at` optimizer steps (default 3): `--how segv` (a real
segfault through ctypes), `--how exit` (os._exit(0): no atexit, no finally), or `--how huge` (prints
one line of `--mb` MiB, then raises). Prints "step N" after each step unless `--quiet`."""
import argparse
import ctypes
import os
import sys

import torch

ap = argparse.ArgumentParser()
ap.add_argument("--at", type=int, default=3)
ap.add_argument("--how", choices=["segv", "exit", "huge"], default="segv")
ap.add_argument("--mb", type=int, default=64)
ap.add_argument("--quiet", action="store_true")
args = ap.parse_args()

model = torch.nn.Linear(8, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(1000):
    if step == args.at:
        if args.how == "segv":
            ctypes.string_at(0)  # reads address 0: SIGSEGV
        elif args.how == "exit":
            os._exit(0)
        else:
            sys.stdout.write("x" * (args.mb << 20) + "\n")
            sys.stdout.flush()
            raise RuntimeError("died after printing a huge line")
    loss = model(torch.randn(4, 8)).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
    if not args.quiet:
        print("step", step, flush=True)
