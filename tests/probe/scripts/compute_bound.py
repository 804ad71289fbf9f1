"""The same loader over in-memory tensors with a heavy model: data loading is not the bottleneck."""
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

data = TensorDataset(torch.randn(4096, 256), torch.randint(0, 10, (4096,)))
loader = DataLoader(data, batch_size=64, shuffle=True)
model = nn.Sequential(*[nn.Sequential(nn.Linear(256, 256), nn.ReLU()) for _ in range(24)], nn.Linear(256, 10))
optimizer = torch.optim.Adam(model.parameters())
torch.autograd.set_detect_anomaly(True)
for epoch in range(100):
    for x, y in loader:
        loss = nn.functional.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        running = loss.item()
