"""A dataset that never returns in a DataLoader worker process (a deadlock after fork, say) but
works in the main process: trains with num_workers=0; only `--apply workers=N` gets stuck."""
import time

import torch
from torch.utils.data import DataLoader, Dataset, get_worker_info


class StuckInWorkers(Dataset):
    def __len__(self):
        return 1024

    def __getitem__(self, i):
        if get_worker_info() is not None:
            time.sleep(3600)
        return torch.randn(8), torch.randn(1)


model = torch.nn.Linear(8, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for epoch in range(100):
    for x, y in DataLoader(StuckInWorkers(), batch_size=16):
        loss = torch.nn.functional.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
