"""One rank of the SyncBatchNorm test (run by test_sync_batchnorm.py as a subprocess):

    python _sync_bn_worker.py RANK WORLD RDZV_DIR OUT_FILE

Rank r normalizes rows r*B .. (r+1)*B-1 of one global batch (NumPy seed 0) with a
SyncBatchNorm, backpropagates a fixed weighting of its output and saves what it saw."""
import sys

import numpy as np

import ember
import ember.distributed as dist

B, C = 3, 4


def global_data(world):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((B * world, C, 5))
    g = rng.standard_normal((B * world, C, 5))
    return x, g


def main():
    rank, world, rdzv, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
    ember.set_num_threads(1)
    dist.init_process_group("gloo", init_method="file://" + rdzv, rank=rank, world_size=world,
                            timeout=20.0)
    x, g = global_data(world)
    rows = slice(rank * B, (rank + 1) * B)
    bn = ember.nn.SyncBatchNorm(C, momentum=0.3).double()
    with ember.no_grad():
        bn.weight.copy_(ember.arange(1, C + 1, dtype=ember.float64))
        bn.bias.fill_(0.5)
    xi = ember.from_numpy(x[rows].copy()).requires_grad_()
    y = bn(xi)
    y.backward(ember.from_numpy(g[rows].copy()))
    np.savez(out, y=y.detach().numpy(), gx=xi.grad.numpy(), gw=bn.weight.grad.numpy(),
             gb=bn.bias.grad.numpy(), rm=bn.running_mean.numpy(), rv=bn.running_var.numpy())
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
