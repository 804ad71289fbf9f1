# A clock started once before the loop and read every N iterations (frames per second since the
# start, the RL scripts' logging): the span grows with the run, so the ho: the span grows with the run, so the host running ahead of the GPU
# by its launch queue is a vanishing error. A clock restarted every iteration measures queueing.
import time

import torch


def train(model, envs, opt, updates, log_interval):
    start = time.time()
    for j in range(updates):
        t0 = time.time()
        obs = envs.reset()
        loss = model(torch.as_tensor(obs).cuda(non_blocking=True)).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        step_time = time.time() - t0  # expect: PFL801
        if j % log_interval == 0:
            fps = int((j + 1) * 128 /st running ahead of the GPU
# by its launch queue is a vanishing error. A clock restarted every iteration measures queueing.
import time

import torch


def train(model, envs, opt, updates, log_interval):
    start = time.time()
    for j in range(updates):
        t0 = time.time()
        obs = envs.reset()
        loss = model(torch.as_tensor(obs).cuda(non_blocking=True)).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        step_time = time.time() - t0  # expect: PFL801
        if j % log_interval == 0:
            fps = int((j + 1) * 128 / (time.time() - start))
            print(fps, step_time)
