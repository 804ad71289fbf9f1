"""A DataLoader-bound script whose loader cannot move to worker processes: the spawn start method
pickles the collate_fn, and a lambda cannot be pickled. More workers (PFL101's fix) breaks it, and
`--verify` must say so with the error instead of a saving."""
import time

import torch
from torch.utils.data import DataLoader, Dataset


class SlowDataset(Dataset):
    def __len__(self):
        return 100000

    def __getitem__(self, i):
        time.sleep(0.001)
        return torch.randn(8), torch.randn(1)


def main():
    torch.multiprocessing.set_start_method("spawn", force=True)
    collate = lambda batch: [torch.stack(column) for column in zip(*batch)]  # noqa: E731
    loader = DataLoader(SlowDataset(), batch_size=16, collate_fn=collate)
    model = torch.nn.Linear(8, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    for epoch in range(100):
        for x, y in loader:
            loss = torch.nn.functional.mse_loss(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()


if __name__ == "__main__":
    main()
