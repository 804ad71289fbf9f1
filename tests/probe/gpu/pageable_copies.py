"""GPU check (PFL102, PFL103): batches from a DataLoader without pin_memory, copied with a plain .to().

A cheap model, so the host-to-device copy of a 25 MB batch is a large share of the step.
The hand-fixed twin is pageable_copies_fixed.py (pin_memory=True, non_blocking=True).
"""
import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset

torch.backends.cuda.matmul.allow_tf32 = True


class Images(Dataset):
    def __init__(self):
        self.data = torch.randn(512, 3, 128, 128)

    def __len__(self):
        return 1_000_000

    def __getitem__(self, i):
        return self.data[i % 512], i % 10


model = nn.Sequential(nn.Flatten(), nn.Linear(3 * 128 * 128, 256), nn.ReLU(), nn.Linear(256, 10)).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.01)
loader = DataLoader(Images(), batch_size=128, num_workers=4, persistent_workers=True)
for x, y in loader:
    x = x.to("cuda")
    y = y.to("cuda")
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
