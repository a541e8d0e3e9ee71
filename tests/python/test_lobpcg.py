"""torch.lobpcg (ember/_lobpcg.py) against torch 2.13 and the exact eigendecomposition: the k
largest and smallest eigenpairs, the generalized problem with B, a given initial block, a
preconditioner, batches, float32, the eigenvalues' gradient, and the errors."""
import numpy as np
import pytest
import torch

import ember


def _sym(m, seed, spectrum=None):
    rng = np.random.default_rng(seed)
    Q = np.linalg.qr(rng.normal(size=(m, m)))[0]
    w = np.linspace(1, 10, m) if spectrum is None else spectrum
    return (Q * w) @ Q.T, np.sort(w)


@pytest.mark.parametrize("largest", [True, False])
def test_lobpcg_eigenpairs(largest):
    A, w = _sym(30, 0)
    E, X = ember.lobpcg(ember.from_numpy(A), k=3, largest=largest)
    tE, _ = torch.lobpcg(torch.from_numpy(A), k=3, largest=largest)
    want = w[::-1][:3] if largest else w[:3]
    np.testing.assert_allclose(E.numpy(), want, rtol=1e-7)
    np.testing.assert_allclose(E.numpy(), tE.numpy(), rtol=1e-7)
    Xn = X.numpy()
    np.testing.assert_allclose(Xn.T @ Xn, np.eye(3), atol=1e-7)
    np.testing.assert_allclose(A @ Xn, Xn * E.numpy(), atol=1e-6)


def test_lobpcg_generalized_given_block_preconditioner_batch_float32():
    A, _ = _sym(24, 1)
    rng = np.random.default_rng(2)
    Bm = rng.normal(size=(24, 24))
    Bm = Bm @ Bm.T + 24 * np.eye(24)
    E, X = ember.lobpcg(ember.from_numpy(A), k=2, B=ember.from_numpy(Bm))
    tE, _ = torch.lobpcg(torch.from_numpy(A), k=2, B=torch.from_numpy(Bm))
    np.testing.assert_allclose(E.numpy(), tE.numpy(), rtol=1e-7)
    np.testing.assert_allclose(X.numpy().T @ Bm @ X.numpy(), np.eye(2), atol=1e-7)
    X0 = rng.normal(size=(24, 4))
    iK = np.diag(1 / np.diag(A))
    E, _ = ember.lobpcg(ember.from_numpy(A), k=2, X=ember.from_numpy(X0), iK=ember.from_numpy(iK))
    tE, _ = torch.lobpcg(torch.from_numpy(A), k=2, X=torch.from_numpy(X0), iK=torch.from_numpy(iK))
    np.testing.assert_allclose(E.numpy(), tE.numpy(), rtol=1e-7)
    batch = np.stack([_sym(15, s)[0] for s in (3, 4)])
    E, X = ember.lobpcg(ember.from_numpy(batch), k=1)
    assert tuple(E.shape) == (2, 1) and tuple(X.shape) == (2, 15, 1)
    np.testing.assert_allclose(E.numpy()[:, 0], [10.0, 10.0], rtol=1e-7)
    E32, _ = ember.lobpcg(ember.from_numpy(A.astype(np.float32)), k=2)
    assert E32.dtype == ember.float32
    np.testing.assert_allclose(E32.numpy(), [10.0, 10 - 9 / 23], rtol=1e-4)


def test_lobpcg_eigenvalue_gradient():
    A, _ = _sym(18, 5)
    ea = ember.from_numpy(A).requires_grad_()
    E, X = ember.lobpcg(ea, k=2)
    E.sum().backward()
    ta = torch.from_numpy(A).requires_grad_()
    torch.linalg.eigvalsh(ta)[-2:].sum().backward()
    np.testing.assert_allclose(ea.grad.numpy(), ta.grad.numpy(), atol=1e-7)
    ea.grad = None
    _, X = ember.lobpcg(ea, k=2)
    with pytest.raises(NotImplementedError, match="eigenvectors"):
        X.sum().backward()


def test_lobpcg_errors():
    with pytest.raises(ValueError, match="smaller than 3 x the number of requested eigenpairs"):
        ember.lobpcg(ember.eye(5, dtype=ember.float64), k=2)
    with pytest.raises(AssertionError, match="square"):
        ember.lobpcg(ember.ones(4, 5))
    with pytest.raises(AssertionError, match="same shape"):
        ember.lobpcg(ember.eye(9), B=ember.eye(8))
