"""Image-classification training in the style of the torchvision reference scripts.

This is perflint's main demo: it runs as is (synthetic data, falls back to the CPU), and it carries
the performance mistakes that real training scripts carry, each marked by a comment naming its rule.

    python3 examples/train.py --epochs 1 --max-steps 2
    perflint examples/train.py
"""
import argparse

import torch  # planted: PFL401
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

# Left on after chasing a NaN last month; it re-checks every backward op.
torch.autograd.set_detect_anomaly(True)  # planted: PFL301


def get_args_parser():
    parser = argparse.ArgumentParser(description="Image classification training (synthetic data)")
    parser.add_argument("-j", "--workers", default=0, type=int, help="number of data loading workers")
    parser.add_argument("-b", "--batch-size", default=64, type=int, help="images per batch")
    parser.add_argument("--epochs", default=90, type=int, help="number of total epochs to run")
    parser.add_argument("--lr", default=0.1, type=float, help="initial learning rate")
    parser.add_argument("--momentum", default=0.9, type=float)
    parser.add_argument("--wd", "--weight-decay", default=1e-4, type=float, dest="weight_decay")
    parser.add_argument("-p", "--print-freq", default=10, type=int, help="print frequency (steps)")
    parser.add_argument("--train-size", default=50000, type=int, help="synthetic training images")
    parser.add_argument("--val-size", default=10000, type=int, help="synthetic validation images")
    parser.add_argument("--max-steps", default=0, type=int, help="stop each epoch after N steps (0: no limit)")
    return parser


class SyntheticImages(Dataset):
    """CIFAR-shaped random images, so the script runs without a download."""

    def __init__(self, size, num_classes=10, image_size=32, seed=0):
        g = torch.Generator().manual_seed(seed)
        self.images = torch.randn(size, 3, image_size, image_size, generator=g)
        self.labels = torch.randint(0, num_classes, (size,), generator=g)

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, index):
        return self.images[index], self.labels[index]


def conv_bn(c_in, c_out, stride=1):
    return nn.Sequential(
        nn.Conv2d(c_in, c_out, kernel_size=3, stride=stride, padding=1, bias=False),  # planted: PFL503
        nn.BatchNorm2d(c_out),
        nn.ReLU(inplace=True),
    )


class SmallResNetish(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.features = nn.Sequential(
            conv_bn(3, 32),
            conv_bn(32, 64, stride=2),
            conv_bn(64, 128, stride=2),
            conv_bn(128, 128),
        )
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(128, num_classes)

    def forward(self, x):
        x = self.pool(self.features(x))
        return self.fc(torch.flatten(x, 1))


def train_one_epoch(model, criterion, optimizer, data_loader, device, epoch, args):
    model.train()
    running_loss = 0.0
    correct = 0
    total = 0
    for i, (images, target) in enumerate(data_loader):  # planted: PFL402
        images = images.to(device)  # planted: PFL103
        target = target.to(device)  # planted: PFL103

        output = model(images)
        loss = criterion(output, target)

        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

        running_loss += loss.item()  # planted: PFL201
        preds, labels = output.argmax(dim=1).cpu().numpy(), target.cpu().numpy()  # planted: PFL202
        correct += (preds == labels).sum()
        total += labels.shape[0]

        if i % args.print_freq == 0:
            print(f"Epoch [{epoch}] [{i}/{len(data_loader)}]  loss {loss.item():.4f}  "
                  f"avg {running_loss / (i + 1):.4f}  acc {100.0 * correct / total:.2f}%")
        if args.max_steps and i + 1 >= args.max_steps:
            break
    return running_loss / max(1, i + 1)


@torch.no_grad()
def evaluate(model, criterion, data_loader, device, max_steps=0):
    model.eval()
    loss_sum = 0.0
    correct = 0
    seen = 0
    for i, (images, target) in enumerate(data_loader):
        images = images.to(device)
        target = target.to(device)
        output = model(images)
        loss_sum += criterion(output, target).item() * target.size(0)
        correct += (output.argmax(dim=1) == target).sum().item()
        seen += target.size(0)
        if max_steps and i + 1 >= max_steps:
            break
    print(f"Test: loss {loss_sum / seen:.4f}  acc@1 {100.0 * correct / seen:.2f}%")
    return correct / seen


def main(args):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    train_set = SyntheticImages(args.train_size, seed=0)
    val_set = SyntheticImages(args.val_size, seed=1)
    train_loader = DataLoader(train_set, batch_size=args.batch_size, shuffle=True, num_workers=args.workers)  # planted: PFL101, PFL102
    # Only the evaluation loop reads this one: not a training step.
    val_loader = DataLoader(val_set, batch_size=args.batch_size, shuffle=False, num_workers=args.workers)

    model = SmallResNetish(num_classes=10).to(device)
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum,
                                weight_decay=args.weight_decay)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)

    best_acc = 0.0
    for epoch in range(args.epochs):
        train_loss = train_one_epoch(model, criterion, optimizer, train_loader, device, epoch, args)
        scheduler.step()
        acc = evaluate(model, criterion, val_loader, device, max_steps=args.max_steps)
        best_acc = max(best_acc, acc)
        print(f"Epoch {epoch}: train loss {train_loss:.4f}, best acc@1 {100.0 * best_acc:.2f}%")


if __name__ == "__main__":
    main(get_args_parser().parse_args())
