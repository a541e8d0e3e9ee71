"""autograd.forward_ad (dual numbers) against torch 2.13: tangents of composite functions,
unpack of non-dual tensors, levels and errors (Note [forward_ad on reverse mode])."""
import numpy as np
import pytest
import torch

import ember


def _tangents(m, x, v, w):
    fw = m.autograd.forward_ad
    out = []
    with fw.dual_level():
        d = fw.make_dual(m.from_numpy(x.copy()), m.from_numpy(v.copy()))
        W = m.from_numpy(w.copy())
        for y in [(d.sin() * d).exp(), W @ d, d.softmax(0), (d * d).sum(), d, d * 0 + 1,
                  m.from_numpy(x.copy()), d.detach()]:
            primal, tangent = fw.unpack_dual(y)
            out.append((None if tangent is None else tangent.numpy().copy(),
                        primal.detach().numpy().copy(), primal.requires_grad))
    out.append(fw.unpack_dual(y).tangent)  # after the level: no tangent
    return out


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_tangents_match_torch(dtype):
    rng = np.random.default_rng(0)
    x, v = rng.standard_normal(3).astype(dtype), rng.standard_normal(3).astype(dtype)
    w = rng.standard_normal((2, 3)).astype(dtype)
    want, got = _tangents(torch, x, v, w), _tangents(ember, x, v, w)
    assert want[-1] is None and got[-1] is None
    for (wt, wp, wr), (gt, gp, gr) in zip(want[:-1], got[:-1]):
        assert (wt is None) == (gt is None) and wr == gr
        np.testing.assert_allclose(gp, wp, rtol=1e-6)
        if wt is not None:
            np.testing.assert_allclose(gt, wt, rtol=1e-5, atol=1e-6)


def test_two_duals_and_decorator():
    def run(m):
        fw = m.autograd.forward_ad

        @fw.dual_level()
        def f():
            a = fw.make_dual(m.tensor([1.0, 2.0]), m.tensor([1.0, 0.0]))
            b = fw.make_dual(m.tensor([3.0, -1.0]), m.tensor([0.5, 2.0]))
            return fw.unpack_dual((a * b).sum() + a.exp().sum()).tangent.item()
        return f()
    assert abs(run(ember) - run(torch)) < 1e-5


def test_errors_as_torch():
    for m in (torch, ember):
        fw = m.autograd.forward_ad
        x, v = m.ones(3), m.ones(3)
        with pytest.raises(RuntimeError, match="no level exists"):
            fw.make_dual(x, v)
        with pytest.raises(RuntimeError, match="Dual level must be a positive number"):
            fw.exit_dual_level()
        assert fw.unpack_dual(x) == (x, None)
        with fw.dual_level():
            with pytest.raises(RuntimeError, match=r"size \[3\] while the given forward "
                                                   r"gradient is of size \[2\]"):
                fw.make_dual(x, v[:2])
            with pytest.raises(ValueError, match="Expected primal to be floating point"):
                fw.make_dual(m.arange(3), v)
            with pytest.raises(ValueError, match="Expected tangent to be floating point"):
                fw.make_dual(x, m.arange(3))
