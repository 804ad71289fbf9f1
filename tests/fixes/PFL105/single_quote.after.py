import torch
from torch.utils.data import DataLoader

from data import TrainSet, Net

torch.backends.cuda.matmul.allow_tf32 = True
loader = DataLoader(TrainSet('train'), batch_size=64, num_workers=8, pin_memory=True, persistent_workers=True)
model = Net().cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(10):
    for x, y in loader:
        x, y = x.to('cuda', non_blocking=True), y.to('cuda', non_blocking=True)
        loss = model(x, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
