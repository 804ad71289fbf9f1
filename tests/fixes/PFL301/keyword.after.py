import torch
from torch import autograd

from data import loader, Net


def train(model, opt):
    autograd.set_detect_anomaly(mode=False, check_nan=True)
    for x, y in loader:
        loss = model(x, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
