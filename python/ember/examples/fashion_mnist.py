"""Train a classifier on Fashion-MNIST: the job `make train` runs.

    python -m ember.examples.fashion_mnist [--model mlp|cnn] [--epochs 10] [--batch-size 64]
                                           [--lr 1e-3] [--threads 2] [--plot curves.png] [--nproc 2]

The training code is plain PyTorch code: `lib` is the ember module, or torch itself with
`--backend torch` (the same model, data, batches and initial weights: bench/ uses that to
compare seconds per epoch). Shows a progress bar (loss, accuracy, samples/s), evaluates on
the test set after each epoch, prints a summary and writes a PNG of the training curves.

With --nproc N it trains data-parallel: it re-launches itself through ember.distributed.run
(N processes on this machine); each rank trains DistributedDataParallel(model) on its
DistributedSampler share with batches of batch_size / N, so the global batch and the learning
rate are those of one process. Only rank 0 prints, evaluates and plots.
"""
import argparse
import contextlib
import importlib
import os
import sys
import time

import numpy as np

import ember

MODELS = ("mlp", "cnn")


def build_model(lib, kind):
    """The MLP (784-256-128-10) or the CNN (two conv+pool blocks, then two linear layers)."""
    nn = lib.nn
    if kind == "mlp":
        return nn.Sequential(nn.Flatten(), nn.Linear(784, 256), nn.ReLU(),
                             nn.Linear(256, 128), nn.ReLU(), nn.Linear(128, 10))
    if kind == "cnn":
        return nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                             nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                             nn.Flatten(), nn.Linear(32 * 7 * 7, 128), nn.ReLU(), nn.Linear(128, 10))
    raise ValueError(f"unknown model {kind!r} (expected one of {', '.join(MODELS)})")


def load_data(lib, limit=None):
    """((train images, labels), (test images, labels)) as `lib` tensors: images float32
    (N, 1, 28, 28) normalized by the training set's mean and std, labels int64."""
    out = []
    for train in (True, False):
        x, y = ember.datasets.FashionMNIST(train=train).tensors(normalize=True)
        if limit is not None:
            x, y = x[:limit], y[:limit]
        if lib is not ember:
            x, y = lib.from_numpy(x.numpy().copy()), lib.from_numpy(y.numpy().copy())
        out.append((x, y))
    return out


def copy_parameters(src, dst, dst_lib):
    """Gives model `dst` (of library `dst_lib`) the parameter values of model `src`."""
    with dst_lib.no_grad():
        for p, q in zip(src.parameters(), dst.parameters()):
            q.copy_(dst_lib.from_numpy(p.detach().numpy().copy()))


def autocast_region(lib, kind):
    """A fresh autocast('cpu') region for --autocast bf16/fp16, or a region doing nothing."""
    if kind is None:
        return contextlib.nullcontext()
    return lib.autocast("cpu", dtype=lib.bfloat16 if kind == "bf16" else lib.float16)


def evaluate(lib, model, x, y, batch_size=1000, amp=None):
    """(mean loss, accuracy) of `model` on (x, y), in eval mode without autograd."""
    model.eval()
    loss_sum, correct = 0.0, 0
    with lib.no_grad():
        for i in range(0, x.shape[0], batch_size):
            with autocast_region(lib, amp):
                out = model(x[i:i + batch_size])
            yb = y[i:i + batch_size]
            loss_sum += float(lib.nn.functional.cross_entropy(out, yb, reduction="sum"))
            correct += int((out.argmax(1) == yb).sum())
    model.train()
    return loss_sum / x.shape[0], correct / x.shape[0]


def train_epoch(lib, model, opt, loader, progress=None, world=1, amp=None):
    """One pass over `loader`; returns (mean loss, accuracy, seconds). With `world` ranks
    training alike, the progress bar counts every rank's samples. `amp` ('bf16', 'fp16' or
    None): the forward pass and the loss run under autocast('cpu') with that dtype."""
    F = lib.nn.functional
    model.train()
    loss_sum, correct, seen = 0.0, 0, 0
    start = time.perf_counter()
    for xb, yb in loader:
        with autocast_region(lib, amp):
            out = model(xb)
            loss = F.cross_entropy(out, yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        n = yb.shape[0]
        loss_sum += loss.item() * n
        correct += int((out.argmax(1) == yb).sum())
        seen += n
        if progress is not None:
            elapsed = time.perf_counter() - start
            progress.update(n * world)
            progress.set_postfix(loss=f"{loss_sum / seen:.4f}", acc=f"{correct / seen:.4f}",
                                 samples_s=f"{seen * world / max(elapsed, 1e-9):,.0f}", refresh=False)
    return loss_sum / seen, correct / seen, time.perf_counter() - start


def make_loader(lib, x, y, batch_size, seed):
    data = lib.utils.data
    gen = lib.Generator().manual_seed(seed)
    return data.DataLoader(data.TensorDataset(x, y), batch_size=batch_size, shuffle=True, generator=gen)


def make_distributed_loader(lib, x, y, batch_size, seed, rank, world):
    """This rank's share of each epoch, in batches of batch_size / world (call
    sampler.set_epoch(e) before each epoch: every rank then shuffles alike)."""
    data = lib.utils.data
    dataset = data.TensorDataset(x, y)
    sampler = data.DistributedSampler(dataset, num_replicas=world, rank=rank, shuffle=True, seed=seed)
    return data.DataLoader(dataset, batch_size=max(1, batch_size // world), sampler=sampler), sampler


def launch(args, argv):
    """Runs this example on args.nproc processes through the launcher; returns its exit code."""
    import socket

    from ember.distributed import run
    with socket.socket() as s:  # MASTER_PORT: free, for --backend torch's TCPStore
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    argv = sys.argv[1:] if argv is None else list(argv)
    return run.main(["--nproc-per-node", str(args.nproc), "--master-port", str(port),
                     "-m", "ember.examples.fashion_mnist"] + argv)


def dist_module(lib):
    """ember.distributed or torch.distributed."""
    return importlib.import_module(lib.__name__ + ".distributed")


def init_distributed(lib):
    """(rank, world size): joins the process group when started by the launcher."""
    world = int(os.environ.get("WORLD_SIZE", "1"))
    if world == 1:
        return 0, 1
    dist = dist_module(lib)
    dist.init_process_group("gloo")
    return dist.get_rank(), dist.get_world_size()


def all_ranks_mean(lib, loss, acc, n):
    """(loss, accuracy) over every rank's samples of the epoch."""
    dist = dist_module(lib)
    t = lib.tensor([loss * n, acc * n, float(n)], dtype=lib.float64)
    dist.all_reduce(t)
    total = t.tolist()
    return total[0] / total[2], total[1] / total[2]


def set_threads(lib, threads):
    lib.set_num_threads(threads)
    if lib is not ember:  # torch also has a second pool for inter-op work
        try:
            lib.set_num_interop_threads(1)
        except RuntimeError:
            pass


def plot(history, path, title):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    epochs = [h["epoch"] for h in history]
    fig, (ax_loss, ax_acc) = plt.subplots(1, 2, figsize=(10, 4))
    ax_loss.plot(epochs, [h["train_loss"] for h in history], "o-", label="train")
    ax_loss.plot(epochs, [h["test_loss"] for h in history], "o-", label="test")
    ax_loss.set(xlabel="epoch", ylabel="cross-entropy", title="loss")
    ax_acc.plot(epochs, [h["train_acc"] for h in history], "o-", label="train")
    ax_acc.plot(epochs, [h["test_acc"] for h in history], "o-", label="test")
    ax_acc.set(xlabel="epoch", ylabel="accuracy", title="accuracy")
    for ax in (ax_loss, ax_acc):
        ax.grid(alpha=0.3)
        ax.legend()
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def parse_args(argv=None):
    p = argparse.ArgumentParser(prog="python -m ember.examples.fashion_mnist", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--model", choices=MODELS, default="mlp")
    p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--lr", type=float, default=1e-3, help="Adam's learning rate")
    p.add_argument("--threads", type=int, default=None,
                   help="threads per process (default: the cores divided among the processes)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--autocast", choices=("bf16", "fp16"), default=None,
                   help="train and evaluate under autocast('cpu') to bfloat16 or float16")
    p.add_argument("--limit", type=int, default=None, help="use only the first N images of each split")
    p.add_argument("--plot", default=None, help="PNG of the training curves (default: fashion_mnist_<model>.png)")
    p.add_argument("--backend", choices=("ember", "torch"), default="ember",
                   help="run the same code on PyTorch, for comparison")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--nproc", type=int, default=1,
                   help="train data-parallel on this many processes (DistributedDataParallel)")
    args = p.parse_args(argv)
    for name in ("epochs", "batch_size", "threads", "nproc"):
        if getattr(args, name) is not None and getattr(args, name) < 1:
            p.error(f"--{name.replace('_', '-')} must be at least 1")
    if args.limit is not None and args.limit < 1:
        p.error("--limit must be at least 1")
    if args.batch_size % args.nproc:
        p.error(f"--batch-size ({args.batch_size}) must be a multiple of --nproc ({args.nproc})")
    return args


def main(argv=None):
    args = parse_args(argv)
    if args.nproc > 1 and "WORLD_SIZE" not in os.environ:
        code = launch(args, argv)
        if code:
            sys.exit(code)
        return None
    if args.backend == "torch":
        import torch as lib
    else:
        lib = ember
    rank, world = init_distributed(lib)
    lead = rank == 0  # only rank 0 prints, evaluates and plots
    if args.threads is None:
        args.threads = max(1, (os.cpu_count() or 1) // world)
    set_threads(lib, args.threads)
    lib.manual_seed(args.seed)
    try:
        (x_train, y_train), (x_test, y_test) = load_data(lib, args.limit)
    except (FileNotFoundError, ValueError) as e:
        sys.exit(f"fashion_mnist: {e}")
    net = build_model(lib, args.model)
    model = net if world == 1 else lib.nn.parallel.DistributedDataParallel(net)
    opt = lib.optim.Adam(model.parameters(), lr=args.lr)
    # The learning rate falls along a half cosine to 0 at the last epoch: the final epochs
    # settle instead of bouncing (+0.5-1% test accuracy at 10 epochs).
    schedule = lib.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=args.epochs)
    sampler = None
    if world == 1:
        loader = make_loader(lib, x_train, y_train, args.batch_size, args.seed)
    else:
        loader, sampler = make_distributed_loader(lib, x_train, y_train, args.batch_size, args.seed,
                                                  rank, world)
    n_params = sum(p.numel() for p in net.parameters())
    parallel = (f", data-parallel on {world} processes (batch {args.batch_size // world} each)"
                if world > 1 else "")
    if lead:
        print(f"{args.backend} {getattr(lib, '__version__', '')}: {args.model} ({n_params:,} parameters), "
              f"{x_train.shape[0]} training / {x_test.shape[0]} test images, batch {args.batch_size}, "
              f"Adam lr {args.lr} (cosine), {args.threads} thread(s){parallel}", flush=True)

    show_bar = lead and not args.no_progress
    if show_bar:
        try:
            from tqdm import tqdm
        except ImportError:  # the wheel does not require tqdm: train without a bar
            print("(no progress bar: pip install tqdm for one)", flush=True)
            show_bar = False
    history = []
    for epoch in range(1, args.epochs + 1):
        if sampler is not None:
            sampler.set_epoch(epoch)
        bar = (tqdm(total=x_train.shape[0], desc=f"epoch {epoch}/{args.epochs}", unit="img",
                    leave=True, file=sys.stdout) if show_bar else None)
        train_loss, train_acc, seconds = train_epoch(lib, model, opt, loader, bar, world, args.autocast)
        if bar is not None:
            bar.close()
        schedule.step()
        if world > 1:
            train_loss, train_acc = all_ranks_mean(lib, train_loss, train_acc, len(sampler))
        if not lead:
            continue
        test_loss, test_acc = evaluate(lib, net, x_test, y_test, amp=args.autocast)
        history.append(dict(epoch=epoch, train_loss=train_loss, train_acc=train_acc, test_loss=test_loss,
                            test_acc=test_acc, seconds=seconds))
        print(f"epoch {epoch:2d}: train loss {train_loss:.4f} acc {train_acc:.4f} | "
              f"test loss {test_loss:.4f} acc {test_acc:.4f} | {seconds:.1f} s "
              f"({x_train.shape[0] / seconds:,.0f} samples/s)", flush=True)
    if world > 1:
        dist_module(lib).destroy_process_group()
    if not lead:
        return None

    best = max(history, key=lambda h: h["test_acc"])
    per_epoch = sorted(h["seconds"] for h in history)[len(history) // 2]
    print(f"summary: {args.backend} {args.model}, {args.epochs} epochs{parallel}: final test accuracy "
          f"{history[-1]['test_acc']:.4f} (best {best['test_acc']:.4f} at epoch {best['epoch']}), "
          f"median {per_epoch:.2f} s per epoch")
    path = args.plot or f"fashion_mnist_{args.model}.png"
    procs = f", {world} processes" if world > 1 else ""
    try:
        plot(history, path, f"Fashion-MNIST, {args.model} on {args.backend}{procs}")
        print(f"training curves: {os.path.abspath(path)}")
    except ImportError:  # nor matplotlib
        print("(no training-curve plot: pip install matplotlib for one)")
    return history


if __name__ == "__main__":
    main()
