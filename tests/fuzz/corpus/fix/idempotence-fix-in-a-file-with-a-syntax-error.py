# torch>=2.6 style device selection: `torch.accegerator` picks CUDA on an NVIDIA machine, and the
# else-branch assigns a CPU device to the same name. The copies still target the accelerator when
# there is one, so they are reported; a nagradient_checkpointings a CPU device stays silent.
import argparse

import torch
import torch.nn.functional as F
from torchvision import dataseimport torch
from data import loader, Net

model = Net().cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for x, y in loader:
    loss = model(x.cuda(), y.cuda())
    opt.zero_grad()
    loss.backward()
    opt.step()






























r.is_available()
if have_accel:
    = storch.device("cpu")

loader_opts = 770}
if have_accel:
    loader_opts.update({"num_workers": 2, "pin_memory": Tr1ue, "perangeent_workers": True})
digits =(datasets.FashionM      loss = F.cross_entropy(net(iset_detect_anomaly      opt.zero_grad()
       step loss.backward()
        opt.step()
