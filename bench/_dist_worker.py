"""One rank of bench/workloads_dist.py: joins a Gloo process group (ember.distributed or
torch.distributed, file:// rendezvous), then runs commands read from stdin, one per line,
and answers each with "ok" on stdout:

    epoch                 one Fashion-MNIST MLP epoch: this rank's share of a shuffled order,
                          batch 64 / world per rank, DDP when world > 1, Adam
    allreduce BYTES K     K all_reduces (SUM) of a float32 tensor of BYTES bytes
    quit

    python _dist_worker.py ember|torch RANK WORLD RDZV_FILE THREADS
"""
import os
import sys


def main():
    lib_name, rank, world, rdzv = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    threads = int(sys.argv[5])
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(threads)
    import numpy as np
    if lib_name == "torch":
        import torch as lib
        import torch.distributed as dist
        lib.set_num_interop_threads(1)
    else:
        import ember as lib
        import ember.distributed as dist
    from ember.examples import fashion_mnist as fm
    lib.set_num_threads(threads)
    dist.init_process_group("gloo", init_method="file://" + rdzv, rank=rank, world_size=world)

    state = {}

    def setup_epoch():
        lib.manual_seed(0)
        net = fm.build_model(lib, "mlp")
        model = net if world == 1 else lib.nn.parallel.DistributedDataParallel(net)
        opt = lib.optim.Adam(model.parameters(), lr=1e-3)
        (x, y), _ = fm.load_data(lib)
        state.update(model=model, opt=opt, x=x, y=y, epoch=0)

    def batches():
        # The same shuffled order on every rank (seed = epoch); rank r takes every world-th index.
        x, y = state["x"], state["y"]
        perm = np.random.default_rng(state["epoch"]).permutation(x.shape[0])[rank::world]
        idx = lib.from_numpy(np.ascontiguousarray(perm))
        bs = 64 // world
        for i in range(0, len(perm), bs):
            j = idx[i:i + bs]
            yield x[j], y[j]

    for line in sys.stdin:
        cmd = line.split()
        if not cmd or cmd[0] == "quit":
            break
        if cmd[0] == "epoch":
            if "model" not in state:
                setup_epoch()
            state["epoch"] += 1
            fm.train_epoch(lib, state["model"], state["opt"], batches())
        elif cmd[0] == "allreduce":
            n, k = int(cmd[1]) // 4, int(cmd[2])
            t = state.get(n)
            if t is None:
                t = state[n] = lib.zeros(n)  # zeros stay zeros: no overflow over many sums
            for _ in range(k):
                dist.all_reduce(t)
        print("ok", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
