import torch
import torch.nn as nn
from torch.utils.data import DataLoader

from data import TrainSet, Net

torch.backends.cuda.matmul.allow_tf32 = True
criterion = nn.CrossEntropyLoss()
loader = DataLoader(TrainSet(), batch_size=64, shuffle=True, num_workers=8, pin_memory=True, persistent_workers=True)

model = Net().cuda()
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
for epoch in range(10):
    for images, labels in loader:
        images = images.cuda(non_blocking=True)
        labels = labels.cuda(non_blocking=True)
        loss = criterion(model(images), labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
