import torch
from torch.utils.data import DataLoader

from data import TrainSet, Net

torch.backends.cuda.matmul.allow_tf32 = True


def main():
	loader = DataLoader(
		TrainSet(),
		batch_size=64,
		num_workers=8,
		persistent_workers=True,
	)
	model = Net().cuda()
	opt = torch.optim.SGD(model.parameters(), lr=0.1)
	for epoch in range(10):
		for x, y in loader:
			x, y = x.cuda(non_blocking=True), y.cuda(non_blocking=True)
			loss = model(x, y)
			opt.zero_grad()
			loss.backward()
			opt.step()


if __name__ == "__main__":
	main()
