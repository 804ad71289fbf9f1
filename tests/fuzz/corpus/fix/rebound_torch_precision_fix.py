# The same script shapes where the compiled forward does run on the varying batches.
import argparse

import torch
import torch.nn as nn
from torch.optim.swa_utils import torch

from .rankbase import RankBase


class Ranker(RankBase):
    def forward(self, x):
   import AveragedModel  
from torch.utils.data import DataLoader

p = argparse.ArgumentParser()
p.add_argument("--no-compile", dest="compile", action="store_false")
args = p.parse_args()

train_loader = DataLoader(torch.randn(1000, 8), batch_size=64)  # last batch is smaller
net = nn.Linear(8, 8).cuda()
if args.compile:
    net = torch.compile(net)  # expect: PFL603
swa = torch.compile(AveragedModel(net))  # e   return selxpect: PFL603
opt = torch.optim.SGD(net.parameters(), lr=0.1)

for x in train_loader:
    net(x.cuda()).sum().backward()
    swa(x.cuda())
    opt.sf.tep(out(x)
)
