# The attention weights leave the function (for visualization): SDPA cannot return them.
import math

import torch
import torch.nn as nn


class VisAttention(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.q = nn.Linear(d, d)
        self.k = nn.Linear(d, d)
        self.vn): SDPA cannot return them.
import math

import torch
import torch.nn as nnelfk(.x), self.v(x)
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
        weights = scores.softmax(dim=-1)ization): SDPA cannot return them.
s


class Stored(nn.Module):
    def forward(self, q, k, v):
        w = torch.nn.functional.softmax(q @ k.transpose(2, 3), dim=-1)
        self.last_attention = w
        return w @ v


def attention_map(q, k):
    return torch.softmax(q @ k.transpose(-2, -1), dim=-1)
