"""torch.svd_lowrank and torch.pca_lowrank (ember/_lowrank.py) against torch 2.13. The sketch
is random, so the factors are compared through what is determined: on a matrix of rank <= q
the singular values equal torch's (and the exact ones), U S V^T rebuilds the matrix, U and V
have orthonormal columns; pca's V spans torch's principal directions."""
import numpy as np
import pytest
import torch

import ember


def _low_rank(m, n, r, seed=0, batch=()):
    rng = np.random.default_rng(seed)
    return rng.normal(size=batch + (m, r)) @ rng.normal(size=batch + (r, n))


@pytest.mark.parametrize("shape", [(8, 5), (5, 9), (2, 7, 6)])
def test_svd_lowrank_exact_on_low_rank(shape):
    a = _low_rank(shape[-2], shape[-1], 3, batch=shape[:-2])
    ember.manual_seed(0)
    U, S, V = ember.svd_lowrank(ember.from_numpy(a), q=4)
    tU, tS, tV = torch.svd_lowrank(torch.from_numpy(a), q=4)
    assert tuple(U.shape) == tuple(tU.shape) and tuple(V.shape) == tuple(tV.shape)
    np.testing.assert_allclose(S.numpy()[..., :3], tS.numpy()[..., :3], rtol=1e-8)
    np.testing.assert_allclose((U @ ember.diag_embed(S) @ V.mT).numpy(), a, atol=1e-8)
    eye = np.broadcast_to(np.eye(4), U.shape[:-2] + (4, 4))
    np.testing.assert_allclose((U.mT @ U).numpy(), eye, atol=1e-8)
    np.testing.assert_allclose((V.mT @ V).numpy(), eye, atol=1e-8)


def test_svd_lowrank_with_M_and_grad():
    a = _low_rank(6, 5, 2, seed=1)
    mean = np.random.default_rng(2).normal(size=(1, 5))
    U, S, V = ember.svd_lowrank(ember.from_numpy(a + mean), q=3, M=ember.from_numpy(mean))
    np.testing.assert_allclose(S.numpy()[:2], torch.svd_lowrank(torch.from_numpy(a), q=3)[1].numpy()[:2],
                               rtol=1e-8)
    x = ember.from_numpy(a).requires_grad_()
    ember.svd_lowrank(x, q=2)[1].sum().backward()  # d(sum of singular values) = U V^T
    t = torch.from_numpy(a).requires_grad_()
    torch.linalg.svdvals(t)[:2].sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), atol=1e-6)


def test_pca_lowrank():
    rng = np.random.default_rng(3)
    data = rng.normal(size=(40, 3)) @ np.diag([5.0, 2.0, 0.5]) @ rng.normal(size=(3, 3)) + 7.0
    U, S, V = ember.pca_lowrank(ember.from_numpy(data), q=3)
    tU, tS, tV = torch.pca_lowrank(torch.from_numpy(data), q=3)
    np.testing.assert_allclose(S.numpy(), tS.numpy(), rtol=1e-8)
    np.testing.assert_allclose(np.abs(V.numpy().T @ tV.numpy()), np.eye(3), atol=1e-8)
    assert ember.pca_lowrank(ember.from_numpy(data), center=False)[1].shape == (3,)


def test_lowrank_errors():
    with pytest.raises(ValueError, match="q\\(=7\\) must be non-negative integer"):
        ember.pca_lowrank(ember.randn(5, 4), q=7)
    with pytest.raises(RuntimeError, match="at least 2 dimensions"):
        ember.svd_lowrank(ember.randn(5))
    with pytest.raises(RuntimeError, match="floating point"):
        ember.svd_lowrank(ember.ones(3, 3, dtype=ember.int64))
