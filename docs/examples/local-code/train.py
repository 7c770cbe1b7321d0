"""The local-code example's training script: trains model/net.py on random
images (no download, so it runs anywhere), on one process or, in a PyTorchJob
of several, on all of them together: the operator sets WORLD_SIZE, RANK,
MASTER_ADDR and MASTER_PORT, which init_process_group reads."""

import argparse
import os

import torch
import torch.distributed as dist
import torch.nn.functional as F

from model.net import Net


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--steps", type=int, default=50, help="batches per epoch")
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--lr", type=float, default=0.05)
    args = parser.parse_args()

    world = int(os.environ.get("WORLD_SIZE", "1"))
    if world > 1:
        dist.init_process_group(backend="gloo")
    rank = dist.get_rank() if world > 1 else 0
    torch.manual_seed(rank)

    model = Net()
    if world > 1:
        model = torch.nn.parallel.DistributedDataParallel(model)
    opt = torch.optim.SGD(model.parameters(), lr=args.lr)
    for epoch in range(1, args.epochs + 1):
        total = 0.0
        for _ in range(args.steps):
            x = torch.randn(args.batch_size, 1, 28, 28)
            y = (x.mean(dim=(1, 2, 3)) > 0).long()   # a rule the model can learn
            loss = F.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item()
        print("rank %d epoch %d loss=%.4f" % (rank, epoch, total / args.steps), flush=True)

    if world > 1:
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
