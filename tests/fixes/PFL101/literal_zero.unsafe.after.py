import torch
from torch.utils.data import DataLoader

from data import TrainSet, Net

loader = DataLoader(
    TrainSet(),
    batch_size=64,
    num_workers=4,
    persistent_workers=True,
)
model = Net()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for x, y in loader:
    loss = model(x, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
