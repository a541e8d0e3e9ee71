"""linalg.eig / linalg.eigvals (src/ops/linalg_eig.cpp, LAPACK geev) against torch 2.13:
values for real and complex inputs, batches, empty and non-contiguous inputs, the
eigenvector convention, gradients through eigenvalues and (phase-invariant) eigenvectors,
a finite-difference check, and torch's errors."""
import numpy as np
import pytest
import torch

import ember

NP = {"float32": np.float32, "float64": np.float64, "complex64": np.complex64,
      "complex128": np.complex128}
TOL = {"float32": 2e-4, "complex64": 2e-4, "float64": 1e-10, "complex128": 1e-10}


def matrices(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape)
    if dtype.startswith("complex"):
        a = a + 1j * rng.standard_normal(shape)
    return a.astype(NP[dtype])


def by_value(L):
    """Eigenvalues sorted (real, then imaginary part) with the permutation, so that two
    libraries' orders need not agree."""
    order = np.lexsort((np.round(L.imag, 5), np.round(L.real, 5)), axis=-1)
    return np.take_along_axis(L, order, -1), order


@pytest.mark.parametrize("dtype", list(NP))
@pytest.mark.parametrize("shape", [(5, 5), (3, 4, 4), (2, 1, 3, 3), (1, 1), (0, 3, 3), (0, 0)])
def test_eig_matches_torch(dtype, shape):
    a = matrices(shape, dtype)
    L, V = ember.linalg.eig(ember.from_numpy(a))
    tL, tV = torch.linalg.eig(torch.from_numpy(a))
    assert str(L.dtype).split(".")[1] == str(tL.dtype).split(".")[1]
    assert L.shape == tL.shape and V.shape == tV.shape
    if a.size == 0:
        return
    Ln, Vn = L.numpy(), V.numpy()
    np.testing.assert_allclose(by_value(Ln)[0], by_value(tL.numpy())[0], atol=TOL[dtype] * 10)
    # A V = V diag(L); unit columns whose largest component is real (LAPACK's convention)
    np.testing.assert_allclose(a @ Vn, Vn * Ln[..., None, :], atol=TOL[dtype] * 50)
    np.testing.assert_allclose(np.linalg.norm(Vn, axis=-2), 1.0, atol=TOL[dtype])
    np.testing.assert_allclose(ember.linalg.eigvals(ember.from_numpy(a)).numpy(), Ln, atol=0)


def test_eig_non_contiguous_and_out():
    a = matrices((4, 6, 6), "float64", 1)
    x = ember.from_numpy(a).transpose(-1, -2)[::2]
    t = torch.from_numpy(a).transpose(-1, -2)[::2]
    np.testing.assert_allclose(by_value(ember.linalg.eigvals(x).numpy())[0],
                               by_value(torch.linalg.eigvals(t).numpy())[0], atol=1e-10)
    L = ember.empty(0, dtype=ember.complex128)
    V = ember.empty(0, dtype=ember.complex128)
    res = ember.linalg.eig(x, out=(L, V))
    assert res.eigenvalues is L and L.shape == (2, 6) and V.shape == (2, 6, 6)


def test_real_matrix_with_complex_pairs():
    rot = np.array([[0.0, -2.0, 0.0], [2.0, 0.0, 0.0], [0.0, 0.0, 3.0]])
    L, V = ember.linalg.eig(ember.from_numpy(rot))
    tL, tV = torch.linalg.eig(torch.from_numpy(rot))
    np.testing.assert_allclose(L.numpy(), tL.numpy(), atol=1e-12)
    Vn, tVn = V.numpy(), tV.numpy()
    np.testing.assert_allclose(Vn[:, 1], Vn[:, 0].conj(), atol=0)  # a conjugate pair
    # each column equals torch's up to a factor of modulus 1 (LAPACKs may flip the sign)
    phase = (Vn * tVn.conj()).sum(0)
    np.testing.assert_allclose(np.abs(phase), 1.0, atol=1e-12)
    np.testing.assert_allclose(Vn, tVn * phase, atol=1e-12)


def losses(m, A, which):
    L, V = m.linalg.eig(A)
    w = m.arange(1, L.shape[-1] + 1, dtype=A.dtype if not A.is_complex() else None)
    if which == "values":
        return (L.real * w).sum() + (L.imag ** 2).sum()
    if which == "abs_vectors":  # |V| is invariant under each eigenvector's phase
        return (V.abs() ** 2 * w).sum() + L.abs().sum()
    return m.linalg.eigvals(A).abs().sum()


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex128"])
@pytest.mark.parametrize("which", ["values", "abs_vectors", "eigvals"])
def test_eig_gradients_match_torch(dtype, which):
    a = matrices((2, 4, 4), dtype, 2)
    ea = ember.from_numpy(a).requires_grad_()
    ta = torch.from_numpy(a).requires_grad_()
    losses(ember, ea, which).backward()
    losses(torch, ta, which).backward()
    assert ea.grad.dtype == ea.dtype
    np.testing.assert_allclose(ea.grad.numpy(), ta.grad.numpy(), rtol=TOL[dtype] * 50,
                               atol=TOL[dtype] * 50)


def test_eig_finite_differences():
    a = matrices((4, 4), "float64", 3)

    def f(x):
        return losses(ember, ember.from_numpy(x), "abs_vectors").item()

    ea = ember.from_numpy(a).requires_grad_()
    losses(ember, ea, "abs_vectors").backward()
    num = np.zeros_like(a)
    h = 1e-6
    for i in np.ndindex(a.shape):
        d = np.zeros_like(a)
        d[i] = h
        num[i] = (f(a + d) - f(a - d)) / (2 * h)
    np.testing.assert_allclose(ea.grad.numpy(), num, rtol=1e-5, atol=1e-6)


def test_phase_dependent_loss_raises_as_torch():
    a = matrices((3, 3), "complex128", 4)
    for m in (ember, torch):
        A = m.from_numpy(a).requires_grad_()
        V = m.linalg.eig(A).eigenvectors
        with pytest.raises(RuntimeError, match="specified up to multiplication by e"):
            V.real.sum().backward()


@pytest.mark.parametrize("make,match", [
    (lambda m: m.ones(3, 4), "must be batches of square matrices"),
    (lambda m: m.ones(3), "at least 2 dimensions"),
])
def test_bad_input_raises_as_torch(make, match):
    for m in (ember, torch):
        with pytest.raises(RuntimeError, match=match):
            m.linalg.eig(make(m))
        with pytest.raises(RuntimeError, match=match):
            m.linalg.eigvals(make(m))


@pytest.mark.parametrize("fn", ["eig", "eigvals"])
def test_half_is_not_implemented_as_torch(fn):
    for m in (ember, torch):
        with pytest.raises(NotImplementedError, match="linalg_eig_out_cpu.*Half"):
            getattr(m.linalg, fn)(m.ones(2, 2, dtype=m.float16))


@pytest.mark.parametrize("bad", [float("nan"), float("inf")])
def test_non_finite_input(bad):
    """eig refuses as torch; eigvals answers NaN for those matrices (torch passes them to
    LAPACK) and the eigenvalues of the others."""
    for m in (ember, torch):
        with pytest.raises(RuntimeError, match="should not contain infs or NaNs"):
            m.linalg.eig(m.tensor([[1.0, bad], [2.0, 1.0]]))
    L = ember.linalg.eigvals(ember.tensor([[[1.0, bad], [2.0, 1.0]], [[1.0, 0.0], [0.0, 2.0]]]))
    assert L.shape == (2, 2) and L.dtype == ember.complex64 and L[0].isnan().all()
    assert L[1].tolist() == [1, 2]


def test_integer_input_raises():
    with pytest.raises(RuntimeError, match="Expected a floating point or complex tensor"):
        ember.linalg.eig(ember.ones(2, 2, dtype=ember.int64))
    with pytest.raises(RuntimeError):
        torch.linalg.eig(torch.ones(2, 2, dtype=torch.int64))
