"""The same kind of image-classification training as train.py, written the way perflint wants.

perflint must report nothing here: worker processes that persist across epochs, pinned batches
copied asynchronously, the loss kept on the device and read back only when logging, TF32 on, no
anomaly mode, cuDNN autotuning on, forward and loss under bf16 autocast, and the model and its
inputs in channels_last. Runs on the CPU too (the device falls back).

    python3 examples/clean_train.py --epochs 2 --max-steps 2 --workers 2
    perflint examples/clean_train.py
"""
import argparse
import os

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset


class SyntheticImages(Dataset):
    def __init__(self, size, num_classes=10, image_size=32, seed=0):
        g = torch.Generator().manual_seed(seed)
        self.images = torch.randn(size, 3, image_size, image_size, generator=g)
        self.labels = torch.randint(0, num_classes, (size,), generator=g)

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, index):
        return self.images[index], self.labels[index]


class Net(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 32, 3, padding=1)
        self.conv2 = nn.Conv2d(32, 64, 3, stride=2, padding=1)
        self.conv3 = nn.Conv2d(64, 128, 3, stride=2, padding=1)
        self.fc = nn.Linear(128, num_classes)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.relu(self.conv2(x))
        x = F.relu(self.conv3(x))
        x = F.adaptive_avg_pool2d(x, 1).flatten(1)
        return self.fc(x)


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--workers", type=int, default=min(8, os.cpu_count() or 1))
    p.add_argument("--batch-size", type=int, default=256)
    p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--lr", type=float, default=0.05)
    p.add_argument("--log-every", type=int, default=100)
    p.add_argument("--train-size", type=int, default=50000)
    p.add_argument("--max-steps", type=int, default=0, help="stop each epoch after N steps (0: no limit)")
    return p.parse_args()


@torch.no_grad()
def evaluate(model, loader, device):
    model.eval()
    correct = torch.zeros((), dtype=torch.long, device=device)
    seen = 0
    for images, target in loader:
        images = images.to(device, non_blocking=True)
        target = target.to(device, non_blocking=True)
        correct += (model(images).argmax(dim=1) == target).sum()
        seen += target.size(0)
    return correct.item() / max(1, seen)


def main():
    args = parse_args()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    torch.backends.cuda.matmul.allow_tf32 = True
    torch.backends.cudnn.allow_tf32 = True
    torch.backends.cudnn.benchmark = True

    train_set = SyntheticImages(args.train_size, seed=0)
    val_set = SyntheticImages(max(args.batch_size, args.train_size // 10), seed=1)
    loader_kwargs = dict(num_workers=args.workers, pin_memory=True, persistent_workers=True)
    train_loader = DataLoader(train_set, batch_size=args.batch_size, shuffle=True, drop_last=True,
                              **loader_kwargs)
    val_loader = DataLoader(val_set, batch_size=args.batch_size, **loader_kwargs)

    model = Net().to(device, memory_format=torch.channels_last)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9, nesterov=True)

    for epoch in range(args.epochs):
        model.train()
        loss_sum = torch.zeros((), device=device)
        for step, (images, target) in enumerate(train_loader):
            images = images.to(device, non_blocking=True, memory_format=torch.channels_last)
            target = target.to(device, non_blocking=True)

            # bf16 keeps fp32's exponent range: no GradScaler needed.
            with torch.autocast(device_type=device.type, dtype=torch.bfloat16):
                loss = F.cross_entropy(model(images), target)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()

            loss_sum += loss.detach()
            if step % args.log_every == 0:
                print(f"epoch {epoch} step {step}: loss {loss_sum.item() / (step + 1):.4f}")
            if args.max_steps and step + 1 >= args.max_steps:
                break
        print(f"epoch {epoch}: val acc {100.0 * evaluate(model, val_loader, device):.2f}%")


if __name__ == "__main__":
    main()
