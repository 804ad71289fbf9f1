import torch

from data import loader, Net

torch.autograd.set_detect_anomaly(True)  # TODO: remove after debugging NaNs
model = Net()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for x, y in loader:
    loss = model(x, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
