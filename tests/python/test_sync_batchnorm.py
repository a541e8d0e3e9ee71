"""SyncBatchNorm across 2 processes (gloo on loopback): each rank's output, input gradient
and running statistics equal a single BatchNorm over the whole batch (torch 2.13's CPU build
refuses to sync, so the oracle is torch's BatchNorm1d on the concatenated batch), and the
weight / bias gradients are each rank's local share of torch's."""
import os
import sys

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
WORKER = os.path.join(HERE, "_sync_bn_worker.py")
sys.path.insert(0, HERE)
import _distributed_launch as launch  # noqa: E402
import _sync_bn_worker as W  # noqa: E402


def test_sync_batchnorm_two_ranks_match_one_batchnorm(tmp_path):
    world = 2
    rdzv = tmp_path / "rdzv"
    rdzv.mkdir()
    outs = [tmp_path / f"r{r}.npz" for r in range(world)]
    ranks = launch.run_ranks(lambda r: [WORKER, r, world, rdzv, outs[r]], world, launch.worker_env(), 60)
    assert all(code == 0 for code, _ in ranks), "\n".join(log for _, log in ranks)
    res = [dict(np.load(o)) for o in outs]

    x, g = W.global_data(world)
    bn = torch.nn.BatchNorm1d(W.C, momentum=0.3, dtype=torch.float64)
    with torch.no_grad():
        bn.weight.copy_(torch.arange(1, W.C + 1, dtype=torch.float64))
        bn.bias.fill_(0.5)
    tx = torch.from_numpy(x).requires_grad_()
    y = bn(tx)
    y.backward(torch.from_numpy(g))
    for r in range(world):
        rows = slice(r * W.B, (r + 1) * W.B)
        np.testing.assert_allclose(res[r]["y"], y.detach().numpy()[rows], rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(res[r]["gx"], tx.grad.numpy()[rows], rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(res[r]["rm"], bn.running_mean.numpy(), rtol=1e-12)
        np.testing.assert_allclose(res[r]["rv"], bn.running_var.numpy(), rtol=1e-12)
    np.testing.assert_allclose(res[0]["gw"] + res[1]["gw"], bn.weight.grad.numpy(), rtol=1e-10)
    np.testing.assert_allclose(res[0]["gb"] + res[1]["gb"], bn.bias.grad.numpy(), rtol=1e-10)
