"""No optimizer: steps are backward passes (manual SGD)."""
import torch

w = torch.randn(64, 64, requires_grad=True)
for step in range(1000):
    x = torch.randn(32, 64)
    loss = (x @ w).pow(2).mean()
    loss.backward()
    with torch.no_grad():
        w -= 0.01 * w.grad
        w.grad = None
