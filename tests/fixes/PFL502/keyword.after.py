import torch

from data import loader, Net

model = Net()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for x, y in loader:
    optimizer.zero_grad(set_to_none=True)
    loss = model(x, y)
    loss.backward()
    optimizer.step()
