import torch
from data import loader, Net
torch.set_float32_matmul_precision("high")

model = Net().cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for x, y in loader:
    loss = model(x.cuda(), y.cuda())
    opt.zero_grad()
    loss.backward()
    opt.step()
