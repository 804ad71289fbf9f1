"""GPU check (no finding should be confirmed): pinned loader with workers, non_blocking copies, TF32
on, cudnn.benchmark on, no per-step host sync.
"""
import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset

torch.backends.cuda.matmul.allow_tf32 = True
torch.backends.cudnn.benchmark = True


class Images(Dataset):
    def __init__(self):
        self.data = torch.randn(512, 3, 64, 64)

    def __len__(self):
        return 1_000_000

    def __getitem__(self, i):
        return self.data[i % 512], i % 10


def block(cin, cout, stride):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU())


model = nn.Sequential(block(3, 64, 2), block(64, 128, 2), block(128, 256, 2), nn.AdaptiveAvgPool2d(1),
                      nn.Flatten(), nn.Linear(256, 10)).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
loader = DataLoader(Images(), batch_size=128, num_workers=4, pin_memory=True, persistent_workers=True)
for x, y in loader:
    x = x.to("cuda", non_blocking=True)
    y = y.to("cuda", non_blocking=True)
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
