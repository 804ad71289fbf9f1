"""Independent step timer for the GPU checks (does not use perflint's shim).

    python3 ab.py [--warmup W] [--steps N] SCRIPT [ARGS...]

Runs SCRIPT, records a CUDA event after every optimizer step (torch's global step post-hook), and
after W + N steps prints one JSON line: the median and mean GPU-timeline time between consecutive
steps (CUDA events, which include the GPU's idle gaps) and the median host time per step
(perf_counter), then ends the process. The A/B of a GPU check is this timer on a script and on its
hand-fixed twin.
"""
import argparse
import json
import os
import runpy
import statistics
import sys
import time

import torch
from torch.optim.optimizer import register_optimizer_step_post_hook

parser = argparse.ArgumentParser()
parser.add_argument("--warmup", type=int, default=5)
parser.add_argument("--steps", type=int, default=30)
parser.add_argument("script")
parser.add_argument("args", nargs=argparse.REMAINDER)
opts = parser.parse_args()

events, host = [], []


def after_step(optimizer, args, kwargs):
    event = torch.cuda.Event(enable_timing=True)
    event.record()
    events.append(event)
    host.append(time.perf_counter())
    if len(events) < opts.warmup + opts.steps + 1:
        return
    torch.cuda.synchronize()
    gpu = [a.elapsed_time(b) for a, b in zip(events[opts.warmup:], events[opts.warmup + 1:])]
    cpu = [(b - a) * 1e3 for a, b in zip(host[opts.warmup:], host[opts.warmup + 1:])]
    print(json.dumps({"script": opts.script, "steps": len(gpu), "gpu_median_ms": statistics.median(gpu),
                      "gpu_mean_ms": statistics.fmean(gpu), "host_median_ms": statistics.median(cpu),
                      "max_allocated_mib": torch.cuda.max_memory_allocated() / 2**20}), flush=True)
    sys.stderr.flush()
    os._exit(0)


register_optimizer_step_post_hook(after_step)
sys.argv = [opts.script] + opts.args
runpy.run_path(opts.script, run_name="__main__")
