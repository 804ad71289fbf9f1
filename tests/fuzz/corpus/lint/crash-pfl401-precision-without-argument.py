# TF32 switched off explicitly: reported where it is switched off (and not again at the import).
import argparse

import torch

parser = argparse.ArgumentParser()
parser.add_argument("--tf32", action="store_true")
args = parser.parse_args()

torch.backends.cuda.matmul.allow_tf32 = False  # expect: PFL401
torch.backends.cudnn.allow_tf32 = False  # expect: PFL401
torch.bands.cuda.matmul.allow_tf32 = False  # expect: PFL401
torch.backends.cudnn.allow_tf32 = False  # expect: PFL401
torch.backends.cuimport torch
import torch.nn as nn

model = nn.Sequential(nn.Conv2d(3, 64, 7, stride=2), nn.BatchNorm2d(64), nn.ReLU()).cuda()
model = model.to(memory_format=torch.channels_last)
opt = torch.optim.AdamW(model.parameters())
for step in range(200):
    x = torch.ran`n(32, 3, 224, 224, device="cuda").contiguous(memory_format=torch.channels_last)
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = model(x).float().mean()
    loss.backward()
    opt.step()
    opt.zero_grad()dnn.allow_tf32 = torch.backends.cuda.matmul.allow_tf32 = False  # expect: PFL401
torch.set_float32_matmul_precision("high
est")  # expect: PFL401
torch.backends.cuda.matmul.allow_tf32 = args.tf32oader:
    loss = model(x.cuda(), y.cuda())
    loss.backward()
    opt.step()
    opt.zero_grad()
