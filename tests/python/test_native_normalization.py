"""torch's ATen-level normalization functions (python/ember/_native_normalization.py) against
torch 2.13: native_batch_norm/layer_norm/group_norm (output, statistics, running-stat updates,
gradients), native_dropout, native_norm, norm_except_dim, batch_norm_update_stats; and the
synchronized-batch-norm pieces that torch runs only on CUDA (batch_norm_stats, _elemt,
_gather_stats(_with_counts), _backward_reduce, _backward_elemt), checked by composing them into
a two-process SyncBatchNorm step and comparing with torch's F.batch_norm forward and backward
on the whole batch; bad inputs."""
import numpy as np
import pytest
import torch

import ember
from helpers import assert_same


def _both(*arrays, grad=False):
    e = [ember.from_numpy(a.copy()).requires_grad_(grad) for a in arrays]
    t = [torch.from_numpy(a.copy()).requires_grad_(grad) for a in arrays]
    return e, t


def _check_affine_norm(fn, x, w, b, rng):
    """fn(m, x, w, b) (a native_*_norm of m = ember or torch) against torch: every output, and
    the gradients of x, w and b for a random gradient of the output. Returns ember's and
    torch's x."""
    (ex, ew, eb), (tx, tw, tb) = _both(x, w, b, grad=True)
    e, t = fn(ember, ex, ew, eb), fn(torch, tx, tw, tb)
    assert_same(e, t, rtol=1e-10, atol=1e-12)
    g = rng.standard_normal(x.shape)
    e[0].backward(ember.from_numpy(g.copy()))
    t[0].backward(torch.from_numpy(g.copy()))
    for a, c in ((ex, tx), (ew, tw), (eb, tb)):
        assert_same(a.grad, c.grad, rtol=1e-9, atol=1e-10)
    return ex, tx


@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("affine", [True, False])
def test_native_batch_norm(training, affine):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 3, 5))
    w, b = rng.standard_normal(3), rng.standard_normal(3)
    rm, rv = rng.standard_normal(3), rng.uniform(0.5, 2, 3)
    (ex, ew, eb), (tx, tw, tb) = _both(x, w, b, grad=True)
    (erm, erv), (trm, trv) = _both(rm, rv)
    ew, eb, tw, tb = (ew, eb, tw, tb) if affine else (None, None, None, None)
    e = ember.native_batch_norm(ex, ew, eb, erm, erv, training, 0.1, 1e-5)
    t = torch.native_batch_norm(tx, tw, tb, trm, trv, training, 0.1, 1e-5)
    assert_same(e, t, rtol=1e-10, atol=1e-12)
    assert_same(erm, trm, rtol=1e-12)
    assert_same(erv, trv, rtol=1e-12)
    assert e[1].grad_fn is None and e[2].grad_fn is None
    g = rng.standard_normal(x.shape)
    e[0].backward(ember.from_numpy(g.copy()))
    t[0].backward(torch.from_numpy(g.copy()))
    assert_same(ex.grad, tx.grad, rtol=1e-9, atol=1e-10)
    if affine:
        assert_same(ew.grad, tw.grad, rtol=1e-9, atol=1e-10)
        assert_same(eb.grad, tb.grad, rtol=1e-9, atol=1e-10)
    # no running statistics in training; float32
    x32 = rng.standard_normal((6, 2)).astype(np.float32)
    assert_same(ember.native_batch_norm(ember.from_numpy(x32), None, None, None, None, True, 0.1, 1e-5),
                torch.native_batch_norm(torch.from_numpy(x32), None, None, None, None, True, 0.1, 1e-5),
                rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("normalized", [[5], [3, 5]])
def test_native_layer_norm(normalized):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((4, 3, 5))
    w, b = rng.standard_normal(normalized), rng.standard_normal(normalized)
    ex, tx = _check_affine_norm(lambda m, x, w, b: m.native_layer_norm(x, normalized, w, b, 1e-5),
                                x, w, b, rng)
    assert_same(ember.native_layer_norm(ex.detach(), normalized, None, None, 1e-3),
                torch.native_layer_norm(tx.detach(), normalized, None, None, 1e-3), rtol=1e-10)


def test_native_group_norm():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((4, 6, 5))
    w, b = rng.standard_normal(6), rng.standard_normal(6)
    _check_affine_norm(lambda m, x, w, b: m.native_group_norm(x, w, b, 4, 6, 5, 3, 1e-5), x, w, b, rng)


def test_native_dropout():
    x = ember.randn(200, 50, requires_grad=True)
    out, mask = ember.native_dropout(x, 0.3, True)
    assert mask.dtype == ember.bool and tuple(mask.shape) == (200, 50)
    keep = mask.numpy()
    assert 0.65 < keep.mean() < 0.75
    np.testing.assert_allclose(out.detach().numpy(), x.detach().numpy() * keep / 0.7, rtol=1e-6)
    out.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), keep / 0.7, rtol=1e-6)
    for train in (False,):
        e_out, e_mask = ember.native_dropout(x, 0.3, train)
        t_out, t_mask = torch.native_dropout(torch.from_numpy(x.detach().numpy()), 0.3, train)
        assert_same((e_out.detach(), e_mask), (t_out, t_mask))
        assert e_out is not x
    _, m = ember.native_dropout(x, 0.3, None)  # None trains, as torch
    assert not m.numpy().all()
    z, m = ember.native_dropout(x, 1.0, True)
    assert not z.detach().numpy().any() and not m.numpy().any()
    with pytest.raises(RuntimeError):
        torch.native_dropout(torch.ones(3), 1.5, True)
    with pytest.raises(RuntimeError, match="native_dropout.*p=1.5"):
        ember.native_dropout(ember.ones(3), 1.5, True)
    with pytest.raises(RuntimeError):
        torch.native_dropout(torch.tensor([1, 2]), 0.5, True)
    with pytest.raises(RuntimeError, match="native_dropout"):
        ember.native_dropout(ember.tensor([1, 2]), 0.5, True)


def test_native_norm_and_norm_except_dim():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((4, 3, 5))
    (ex,), (tx,) = _both(x, grad=True)
    # torch's dense CPU build has no native_norm (sparse only): compare with the norm it computes
    assert_same(ember.native_norm(ex), torch.linalg.vector_norm(tx), rtol=1e-12)
    assert_same(ember.native_norm(ex, 1), torch.linalg.vector_norm(tx, 1), rtol=1e-12)
    x32 = x.astype(np.float32)
    assert_same(ember.native_norm(ember.from_numpy(x32), 2, (1,), True, ember.float64),
                torch.linalg.vector_norm(torch.from_numpy(x32), 2, (1,), True, dtype=torch.float64),
                rtol=1e-12)
    with pytest.raises(NotImplementedError):
        torch.native_norm(tx)
    for p, d in ((2, 0), (2, 1), (3, 2), (2, -1), (1, -2)):
        assert_same(ember.norm_except_dim(ex, p, d), torch.norm_except_dim(tx, p, d), rtol=1e-12)
    v = rng.standard_normal(5)
    (ev,), (tv,) = _both(v, grad=True)
    assert_same(ember.norm_except_dim(ev, 2, 0), torch.norm_except_dim(tv, 2, 0), rtol=1e-12)
    e, t = ember.norm_except_dim(ex, 2, 1), torch.norm_except_dim(tx, 2, 1)
    e.sum().backward()
    t.sum().backward()
    assert_same(ex.grad, tx.grad, rtol=1e-10)
    with pytest.raises(IndexError):
        torch.norm_except_dim(tx, 2, 5)
    with pytest.raises(IndexError, match="Dimension out of range"):
        ember.norm_except_dim(ex, 2, 5)


def test_batch_norm_update_stats():
    rng = np.random.default_rng(4)
    x = rng.standard_normal((4, 3, 5))
    (ex, erm, erv), (tx, trm, trv) = _both(x, np.zeros(3), np.ones(3))
    assert_same(ember.batch_norm_update_stats(ex, erm, erv, 0.1),
                torch.batch_norm_update_stats(tx, trm, trv, 0.1), rtol=1e-12)
    assert_same((erm, erv), (trm, trv), rtol=1e-12)
    assert_same(ember.batch_norm_update_stats(ex, None, None, 0.1),
                torch.batch_norm_update_stats(tx, None, None, 0.1), rtol=1e-12)


def test_sync_batch_norm_pieces_compose_to_batch_norm():
    """Two 'processes' each hold half the batch: stats -> gather -> elemt forward, then
    backward_reduce -> (sum over processes) -> backward_elemt, equal to F.batch_norm on the
    whole batch (torch's values and gradients), and the running statistics updated as torch's
    batch norm updates them."""
    rng = np.random.default_rng(5)
    parts = [rng.standard_normal((3, 4, 5)), rng.standard_normal((5, 4, 5))]
    w, b = rng.standard_normal(4), rng.standard_normal(4)
    eps, momentum = 1e-5, 0.1
    e_parts = [ember.from_numpy(p) for p in parts]
    ew, eb = ember.from_numpy(w), ember.from_numpy(b)
    erm, erv = ember.zeros(4, dtype=ember.float64), ember.ones(4, dtype=ember.float64)
    stats = [ember.batch_norm_stats(p, eps) for p in e_parts]
    counts = ember.tensor([15.0, 25.0], dtype=ember.float64)
    mean, invstd = ember.batch_norm_gather_stats_with_counts(
        e_parts[0], ember.stack([s[0] for s in stats]), ember.stack([s[1] for s in stats]),
        erm, erv, momentum, eps, counts)
    outs = [ember.batch_norm_elemt(p, ew, eb, mean, invstd, eps) for p in e_parts]
    tx = torch.from_numpy(np.concatenate(parts)).requires_grad_()
    tw, tb = torch.from_numpy(w).requires_grad_(), torch.from_numpy(b).requires_grad_()
    trm, trv = torch.zeros(4, dtype=torch.float64), torch.ones(4, dtype=torch.float64)
    ty = torch.nn.functional.batch_norm(tx, trm, trv, tw, tb, True, momentum, eps)
    assert_same(ember.cat(outs), ty.detach(), rtol=1e-10, atol=1e-12)
    assert_same((erm, erv), (trm, trv), rtol=1e-10)
    g = rng.standard_normal(ty.shape)
    ty.backward(torch.from_numpy(g))
    g_parts = [ember.from_numpy(g[:3].copy()), ember.from_numpy(g[3:].copy())]
    reduced = [ember.batch_norm_backward_reduce(gp, p, mean, invstd, ew, True, True, True)
               for gp, p in zip(g_parts, e_parts)]
    sum_dy = reduced[0][0] + reduced[1][0]
    sum_dy_xmu = reduced[0][1] + reduced[1][1]
    assert_same(reduced[0][2] + reduced[1][2], tw.grad, rtol=1e-9, atol=1e-10)
    assert_same(reduced[0][3] + reduced[1][3], tb.grad, rtol=1e-9, atol=1e-10)
    count = ember.tensor([15, 25], dtype=ember.int32)
    grads = [ember.batch_norm_backward_elemt(gp, p, mean, invstd, ew, sum_dy, sum_dy_xmu, count)
             for gp, p in zip(g_parts, e_parts)]
    assert_same(ember.cat(grads), tx.grad, rtol=1e-9, atol=1e-10)
    # the same count for every process; parts not asked for are None
    m2, i2 = ember.batch_norm_gather_stats(e_parts[0], ember.stack([stats[0][0]] * 2),
                                           ember.stack([stats[0][1]] * 2), None, None, 0.1, eps, 15)
    np.testing.assert_allclose(m2.numpy(), stats[0][0].numpy(), rtol=1e-10)
    np.testing.assert_allclose(i2.numpy(), stats[0][1].numpy(), rtol=1e-10)
    r = ember.batch_norm_backward_reduce(g_parts[0], e_parts[0], mean, invstd, None, False, False, True)
    assert r[0] is None and r[1] is None and r[2] is None and r[3] is not None
    tp = torch.from_numpy(parts[0])
    want = (tp - torch.from_numpy(mean.numpy())[:, None]) * torch.from_numpy(invstd.numpy())[:, None]
    assert_same(ember.batch_norm_elemt(e_parts[0], None, None, mean, invstd, eps), want, rtol=1e-12)


def test_bad_inputs():
    x, tx = ember.randn(4, 3, 5), torch.randn(4, 3, 5)
    with pytest.raises(RuntimeError, match="Given normalized_shape=\\[4\\]"):
        torch.native_layer_norm(tx, [4], None, None, 1e-5)
    with pytest.raises(RuntimeError, match="Given normalized_shape=\\[4\\]"):
        ember.native_layer_norm(x, [4], None, None, 1e-5)
    with pytest.raises(RuntimeError, match="Expected weight to be of same shape"):
        torch.native_layer_norm(tx, [5], torch.ones(4), None, 1e-5)
    with pytest.raises(RuntimeError, match="Expected weight to be of same shape"):
        ember.native_layer_norm(x, [5], ember.ones(4), None, 1e-5)
    with pytest.raises(RuntimeError, match="divisible by num_groups"):
        torch.native_group_norm(tx, None, None, 4, 3, 5, 2, 1e-5)
    with pytest.raises(RuntimeError, match="divisible by num_groups"):
        ember.native_group_norm(x, None, None, 4, 3, 5, 2, 1e-5)
    with pytest.raises(RuntimeError):
        torch.native_group_norm(tx, None, None, 4, 3, 4, 3, 1e-5)
    with pytest.raises(RuntimeError, match="native_group_norm: input of shape \\(4, 3, 5\\)"):
        ember.native_group_norm(x, None, None, 4, 3, 4, 3, 1e-5)
    with pytest.raises(IndexError):
        torch.native_batch_norm(torch.randn(3), None, None, None, None, True, 0.1, 1e-5)
    with pytest.raises(IndexError, match="native_batch_norm"):
        ember.native_batch_norm(ember.randn(3), None, None, None, None, True, 0.1, 1e-5)
    # torch reads past a too-short weight and crashes on missing running stats in eval: ember refuses
    with pytest.raises(RuntimeError, match="native_batch_norm: expected weight of shape \\(3,\\)"):
        ember.native_batch_norm(x, ember.ones(4), None, None, None, True, 0.1, 1e-5)
    with pytest.raises(RuntimeError, match="running_mean and running_var must be given"):
        ember.native_batch_norm(x, None, None, None, None, False, 0.1, 1e-5)
    with pytest.raises(RuntimeError, match="batch_norm_update_stats: expected running_mean"):
        ember.batch_norm_update_stats(x, ember.zeros(4), None, 0.1)
    with pytest.raises(RuntimeError, match="batch_norm_backward_reduce: grad_out"):
        ember.batch_norm_backward_reduce(ember.randn(2, 3), x, ember.zeros(3), ember.ones(3),
                                         None, True, True, True)
    with pytest.raises(RuntimeError, match="batch_norm_gather_stats_with_counts: expected mean"):
        ember.batch_norm_gather_stats_with_counts(x, ember.zeros(3), ember.ones(3), None, None,
                                                  0.1, 1e-5, ember.ones(2))
    with pytest.raises(TypeError):
        ember.batch_norm_stats([1.0], 1e-5)
