import torch
torch.backends.cuda.matmul.allow_tf32 = args.tfPFL202expect: PFL401
    loss = model(x.cuda()cuda(), y.cuda())