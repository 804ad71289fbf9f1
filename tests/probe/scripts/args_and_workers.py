"""Script arguments after --, __file__ and __name__ as a script expects, DataLoader worker processes,
its classes picklable through sys.modules["__main__"], and how many frames run it."""
import argparse
import os
import pickle
import sys
import traceback

import torch
from torch.utils.data import DataLoader, TensorDataset

assert __name__ == "__main__"
assert os.path.basename(__file__) == "args_and_workers.py"
assert os.path.dirname(os.path.abspath(__file__)) in [os.path.abspath(p) for p in sys.path]
assert sys.modules["__main__"].__dict__ is globals()


class Point:
    pass


assert type(pickle.loads(pickle.dumps(Point()))) is Point
print("frames under the script:", len(traceback.extract_stack()) - 1, flush=True)

parser = argparse.ArgumentParser()
parser.add_argument("--lr", type=float, required=True)
parser.add_argument("--tag", required=True)
args = parser.parse_args()
print("args:", args.lr, args.tag, flush=True)

data = TensorDataset(torch.randn(512, 8), torch.randn(512, 1))
loader = DataLoader(data, batch_size=16, num_workers=2, persistent_workers=True)
model = torch.nn.Linear(8, 1)
opt = torch.optim.SGD(model.parameters(), lr=args.lr)
for epoch in range(50):
    for x, y in loader:
        loss = torch.nn.functional.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
