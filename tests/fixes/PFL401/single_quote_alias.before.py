import os
import torch as th
from data import loader, Net

print('starting', os.getpid())
model = Net().to('cuda')
opt = th.optim.SGD(model.parameters(), lr=0.1)
for x, y in loader:
    loss = model(x.to('cuda'), y.to('cuda'))
    opt.zero_grad()
    loss.backward()
    opt.step()
