"""DataLoader worker processes started with spawn: each worker re-runs the script's top level, and
the lambda collate_fn cannot be sent to a worker (pickling fails). Trains with num_workers=0, so
only `--apply workers=N` starts workers. `--unguarded` builds the loader at the top level."""
import sys

import torch
from torch.utils.data import DataLoader, TensorDataset

torch.multiprocessing.set_start_method("spawn", force=True)
data = TensorDataset(torch.randn(256, 8), torch.randn(256, 1))
collate = lambda batch: [torch.stack(column) for column in zip(*batch)]  # noqa: E731


def train(loader):
    model = torch.nn.Linear(8, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    for epoch in range(100):
        for x, y in loader:
            loss = torch.nn.functional.mse_loss(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()


if "--unguarded" in sys.argv:
    train(DataLoader(data, batch_size=16, collate_fn=collate))

if __name__ == "__main__":
    train(DataLoader(data, batch_size=16, collate_fn=collate))
