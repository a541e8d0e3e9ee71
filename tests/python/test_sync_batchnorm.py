"""SyncBatchNorm across 2 processes (gloo on loopback): each rank's output, input gradient
and running statistics equal a single BatchNorm over the whole batch (torch 2.13's CPU build
refuses to sync, so the oracle is torch's BatchNorm1d on the concatenated batch), and the
weight / bias gradients are each rank's local share of torch's."""
import os
import subprocess
import sys

import numpy as np
import torch

import ember

HERE = os.path.dirname(os.path.abspath(__file__))
WORKER = os.path.join(HERE, "_sync_bn_worker.py")
sys.path.insert(0, HERE)
import _sync_bn_worker as W  # noqa: E402


def _env():
    env = dict(os.environ)
    pkg = os.path.dirname(os.path.dirname(os.path.abspath(ember.__file__)))
    env["PYTHONPATH"] = os.pathsep.join([pkg, HERE] + [p for p in [env.get("PYTHONPATH")] if p])
    env["OMP_NUM_THREADS"] = "1"
    return env


def test_sync_batchnorm_two_ranks_match_one_batchnorm(tmp_path):
    world = 2
    rdzv = tmp_path / "rdzv"
    rdzv.mkdir()
    outs = [tmp_path / f"r{r}.npz" for r in range(world)]
    procs = [subprocess.Popen([sys.executable, WORKER, str(r), str(world), str(rdzv), str(outs[r])],
                              env=_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True) for r in range(world)]
    logs = []
    try:
        for p in procs:
            logs.append(p.communicate(timeout=60)[0])
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    assert all(p.returncode == 0 for p in procs), "\n".join(logs)
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
