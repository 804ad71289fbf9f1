"""A small causal language model trained on synthetic tokens (GPT-style blocks).

Runs as is on the CPU or on a GPU. Its anti-patterns are marked by comments naming the rule; the
logging is guarded and the loss is accumulated on the device, so neither should be reported.

    python3 examples/train_lm.py --epochs 2 --max-steps 2
    perflint examples/train_lm.py
"""
import argparse
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint
from torch.utils.data import DataLoader, Dataset


class RandomTokens(Dataset):
    """Fixed random token sequences; targets are the inputs shifted by one."""

    def __init__(self, num_sequences, seq_len, vocab_size, seed=0):
        g = torch.Generator().manual_seed(seed)
        self.data = torch.randint(0, vocab_size, (num_sequences, seq_len + 1), generator=g)

    def __len__(self):
        return self.data.size(0)

    def __getitem__(self, index):
        row = self.data[index]
        return row[:-1], row[1:]


class Block(nn.Module):
    def __init__(self, d_model, n_heads, dropout):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.attn = nn.MultiheadAttention(d_model, n_heads, dropout=dropout, batch_first=True)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = nn.Sequential(
            nn.Linear(d_model, 4 * d_model),
            nn.GELU(),
            nn.Linear(4 * d_model, d_model),
            nn.Dropout(dropout),
        )

    def forward(self, x, causal_mask):
        h = self.ln1(x)
        h, _ = self.attn(h, h, h, attn_mask=causal_mask, need_weights=False)
        x = x + h
        return x + self.mlp(self.ln2(x))


class TinyGPT(nn.Module):
    def __init__(self, vocab_size, seq_len, d_model=128, n_heads=4, n_layers=4, dropout=0.1):
        super().__init__()
        self.tok_emb = nn.Embedding(vocab_size, d_model)
        self.pos_emb = nn.Parameter(torch.zeros(1, seq_len, d_model))
        self.blocks = nn.ModuleList(Block(d_model, n_heads, dropout) for _ in range(n_layers))
        self.ln_f = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size, bias=False)
        mask = torch.triu(torch.full((seq_len, seq_len), float("-inf")), diagonal=1)
        self.register_buffer("causal_mask", mask, persistent=False)

    def forward(self, idx):
        t = idx.size(1)
        x = self.tok_emb(idx) + self.pos_emb[:, :t]
        mask = self.causal_mask[:t, :t]
        for block in self.blocks:
            # Recompute each block's activations in backward to save memory.
            x = checkpoint(block, x, mask, use_reentrant=False)  # planted: PFL501
        return self.head(self.ln_f(x))


def parse_args():
    p = argparse.ArgumentParser(description="Tiny GPT on random tokens")
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--seq-len", type=int, default=128)
    p.add_argument("--vocab-size", type=int, default=1024)
    p.add_argument("--num-sequences", type=int, default=4096)
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--log-interval", type=int, default=50)
    p.add_argument("--max-steps", type=int, default=0, help="stop each epoch after N steps (0: no limit)")
    return p.parse_args()


def main():
    args = parse_args()
    device = "cuda" if torch.cuda.is_available() else "cpu"
    # The model has no convolutions, so the matmul flag is the TF32 switch that matters here
    # (cuDNN's own TF32 flag is on by default).
    torch.backends.cuda.matmul.allow_tf32 = True

    dataset = RandomTokens(args.num_sequences, args.seq_len, args.vocab_size)
    loader_kwargs = {"batch_size": args.batch_size, "shuffle": True, "drop_last": True}
    loader_kwargs.update(num_workers=2)
    train_loader = DataLoader(dataset, **loader_kwargs)  # planted: PFL102, PFL105

    model = TinyGPT(args.vocab_size, args.seq_len).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.1)

    step = 0
    for epoch in range(args.epochs):
        model.train()
        total_loss = torch.zeros((), device=device)
        for batch_idx, (x, y) in enumerate(train_loader):  # planted: PFL402
            x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)  # planted: PFL104

            logits = model(x)
            loss = F.cross_entropy(logits.view(-1, logits.size(-1)), y.view(-1))

            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()

            total_loss += loss.detach()
            step += 1
            if (batch_idx + 1) % args.log_interval == 0 and batch_idx > 0:
                avg = total_loss.item() / (batch_idx + 1)
                print(f"epoch {epoch} step {step}: loss {avg:.4f} ppl {math.exp(avg):.1f}")
            if args.max_steps and batch_idx + 1 >= args.max_steps:
                break
        print(f"epoch {epoch} done after {step} steps")


if __name__ == "__main__":
    main()
