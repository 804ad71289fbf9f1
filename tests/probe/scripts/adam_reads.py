"""Adam on CPU reads its step counts with .item() inside torch (torch 1.x: once per parameter per step);
the script itself reads the loss every other step (line 14)."""
import torch

model = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.Linear(8, 1))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
x = torch.randn(4, 8)
for step in range(1000):
    loss = model(x).square().mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 2 == 0:
        print(loss.item())
