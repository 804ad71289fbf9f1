"""Trains `--steps` steps (default 3), writes "ready" to the file named by argv[1], then waits forever.
`--ignore-term`: ignores SIGTERM (perflint must SIGKILL it). `--daemon PIDFILE`: first starts a
process in a new session (setsid, outside the script's process group) that ignores SIGTERM and
writes its pid to PIDFILE."""
import argparse
import os
import signal
import subprocess
import sys
import time

import torch

ap = argparse.ArgumentParser()
ap.add_argument("marker")
ap.add_argument("--steps", type=int, default=3)
ap.add_argument("--ignore-term", action="store_true")
ap.add_argument("--daemon")
args = ap.parse_args()

if args.daemon:
    code = ("import os, signal, sys, time\n"
            "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
            "open(sys.argv[1] + '.tmp', 'w').write(str(os.getpid()))\n"
            "os.rename(sys.argv[1] + '.tmp', sys.argv[1])\n"
            "while True: time.sleep(1)\n")
    subprocess.Popen([sys.executable, "-c", code, args.daemon], start_new_session=True,
                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while not os.path.exists(args.daemon):
        time.sleep(0.05)
if args.ignore_term:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)

model = torch.nn.Linear(8, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(args.steps):
    loss = model(torch.randn(4, 8)).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
with open(args.marker + ".tmp", "w") as f:
    f.write("ready")
os.rename(args.marker + ".tmp", args.marker)
print("waiting", flush=True)
while True:
    time.sleep(1)
