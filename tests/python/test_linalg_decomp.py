"""ember.linalg's decompositions on LAPACK (eigh, eigvalsh, svd, svdvals, qr, and torch.svd /
torch.qr) against torch 2.13: values, gradients, finite differences, batches, views, empty
shapes and errors. Eigen- and singular vectors are unique up to sign, so they are compared
through sign-invariant functions (v * v, the reconstruction), and the gradients through
gauge-invariant losses, as torch's own tests do."""
import numpy as np
import pytest
import torch

import ember
from helpers import LAYOUTS, check_grad, check_op, gradcheck_op, make_inputs

pytestmark = pytest.mark.filterwarnings("ignore:torch.qr is deprecated")


def sym(m, a):
    return a + a.mT


def svd_parts(m, a):
    U, S, Vh = m.linalg.svd(a, full_matrices=False)
    return S, U * U, Vh * Vh


CASES = {
    "eigh": (lambda m, a: (lambda r: (r.eigenvalues, r.eigenvectors ** 2))(m.linalg.eigh(sym(m, a))),
             [(2, 4, 4)]),
    "eigh_upper": (lambda m, a: (lambda r: (r[0], r[1] ** 2))(m.linalg.eigh(a.triu() + 5 * m.eye(3, dtype=a.dtype), UPLO="U")),
                   [(3, 3)]),
    "eigh_values_only_used": (lambda m, a: m.linalg.eigh(sym(m, a))[0], [(3, 3)]),
    "eigh_vectors_only_used": (lambda m, a: m.linalg.eigh(sym(m, a))[1] ** 2, [(3, 3)]),
    "eigvalsh": (lambda m, a: m.linalg.eigvalsh(sym(m, a)), [(2, 3, 3)]),
    "svd_tall": (svd_parts, [(5, 3)]),
    "svd_wide": (svd_parts, [(2, 3, 5)]),
    "svd_square": (svd_parts, [(4, 4)]),
    "svd_S_only": (lambda m, a: m.linalg.svd(a, full_matrices=False).S, [(4, 3)]),
    "svd_full_S": (lambda m, a: m.linalg.svd(a)[1], [(2, 4, 3)]),
    "svd_U_only": (lambda m, a: m.linalg.svd(a, full_matrices=False)[0] ** 2, [(4, 3)]),
    "svd_Vh_only": (lambda m, a: m.linalg.svd(a, full_matrices=False)[2] ** 2, [(3, 4)]),
    "svdvals": (lambda m, a: m.linalg.svdvals(a), [(2, 3, 4)]),
    "svd_old": (lambda m, a: (lambda r: (r.S, r.U ** 2, r.V ** 2))(m.svd(a)), [(4, 3)]),
    "svd_old_method": (lambda m, a: a.svd()[1], [(3, 5)]),
    "qr_tall": (lambda m, a: m.linalg.qr(a), [(2, 5, 3)]),
    "qr_square": (lambda m, a: m.linalg.qr(a), [(4, 4)]),
    "qr_wide": (lambda m, a: m.linalg.qr(a), [(3, 5)]),
    "qr_complete_square": (lambda m, a: m.linalg.qr(a, mode="complete"), [(3, 3)]),
    "qr_complete_wide": (lambda m, a: m.linalg.qr(a, mode="complete"), [(2, 4)]),
    "qr_Q_only": (lambda m, a: m.linalg.qr(a)[0], [(4, 3)]),
    "qr_R_only": (lambda m, a: m.linalg.qr(a)[1], [(4, 3)]),
    "qr_old": (lambda m, a: tuple(m.qr(a)), [(4, 3)]),
    "qr_old_method": (lambda m, a: tuple(a.qr()), [(3, 4)]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_forward_and_grad_match_torch(name):
    fn, shapes = CASES[name]
    check_grad(fn, shapes, rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("name", sorted(set(CASES) - {"eigh_upper"}))
def test_gradcheck(name):
    fn, shapes = CASES[name]
    gradcheck_op(fn, shapes)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("name", ["eigh", "svd_wide", "qr_tall", "svdvals"])
def test_views(name, layout):
    fn, shapes = CASES[name]
    check_op(fn, shapes, dtypes=("float32", "float64"), layouts=(layout,), rtol=1e-4, atol=1e-4)


def test_reconstruction_and_full_matrices():
    a = ember.randn(3, 5, 4, dtype=ember.float64)
    U, S, Vh = ember.linalg.svd(a)
    assert tuple(U.shape) == (3, 5, 5) and tuple(Vh.shape) == (3, 4, 4)
    np.testing.assert_allclose((U[..., :4] * S.unsqueeze(-2) @ Vh).numpy(), a.numpy(), atol=1e-12)
    np.testing.assert_allclose((U.mT @ U).numpy(), np.broadcast_to(np.eye(5), (3, 5, 5)), atol=1e-12)
    Q, R = ember.linalg.qr(a, mode="complete")
    assert tuple(Q.shape) == (3, 5, 5) and tuple(R.shape) == (3, 5, 4)
    np.testing.assert_allclose((Q @ R).numpy(), a.numpy(), atol=1e-12)
    L, V = ember.linalg.eigh(a.mT @ a)
    np.testing.assert_allclose((V * L.unsqueeze(-2) @ V.mT).numpy(), (a.mT @ a).numpy(), atol=1e-10)


@pytest.mark.parametrize("fn,shape", [
    (lambda m, a: m.linalg.eigh(a)[0], (0, 3, 3)), (lambda m, a: m.linalg.eigh(a), (2, 0, 0)),
    (lambda m, a: m.linalg.eigvalsh(a), (0, 0)),
    (lambda m, a: m.linalg.svdvals(a), (2, 0, 3)), (lambda m, a: m.linalg.svd(a), (2, 0, 3)),
    (lambda m, a: m.linalg.svd(a, full_matrices=False), (3, 0)),
    (lambda m, a: m.linalg.qr(a), (0, 3, 2)), (lambda m, a: m.linalg.qr(a), (2, 0)),
    (lambda m, a: m.linalg.qr(a, mode="complete"), (3, 0)),
])
def test_empty(fn, shape):
    check_op(fn, [shape], dtypes=("float32", "float64"))


def test_qr_mode_r():
    e = ember.linalg.qr(ember.ones(2, 3), mode="r")
    t = torch.linalg.qr(torch.ones(2, 3), mode="r")
    assert tuple(e.Q.shape) == tuple(t.Q.shape) == (0,)
    np.testing.assert_allclose(e.R.numpy(), t.R.numpy(), atol=1e-6)
    a = ember.ones(2, 3, requires_grad=True)
    for m, x in ((ember, a), (torch, torch.ones(2, 3, requires_grad=True))):
        with pytest.raises(RuntimeError, match="mode='r'"):
            m.linalg.qr(x, mode="r").R.sum().backward()


def test_svd_compute_uv_false():
    e = ember.svd(ember.ones(2, 3), compute_uv=False)
    t = torch.svd(torch.ones(2, 3), compute_uv=False)
    for x, y in zip(e, t):
        np.testing.assert_allclose(x.numpy(), y.numpy(), atol=1e-6)


@pytest.mark.parametrize("fn,shape,dtype", [
    (lambda m, a: m.linalg.eigh(a), (2, 3), "float32"),
    (lambda m, a: m.linalg.eigh(a, UPLO="X"), (3, 3), "float32"),
    (lambda m, a: m.linalg.eigvalsh(a), (3,), "float64"),
    (lambda m, a: m.linalg.svd(a), (3,), "float32"),
    (lambda m, a: m.linalg.svdvals(a), (3, 3), "int64"),
    (lambda m, a: m.linalg.qr(a, mode="x"), (3, 3), "float32"),
])
def test_bad_inputs(fn, shape, dtype):
    es, ts = make_inputs([shape], dtype)
    with pytest.raises((RuntimeError, NotImplementedError)) as texc:
        fn(torch, *ts)
    with pytest.raises(RuntimeError) as eexc:
        fn(ember, *es)
    if isinstance(texc.value, RuntimeError) and type(texc.value) is RuntimeError:
        assert str(eexc.value) == str(texc.value)


@pytest.mark.parametrize("fn", [
    lambda m, x: m.linalg.eigh(x), lambda m, x: m.linalg.eigvalsh(x), lambda m, x: m.linalg.svd(x),
    lambda m, x: m.linalg.qr(x), lambda m, x: m.linalg.lu_factor(x), lambda m, x: m.geqrf(x),
    lambda m, x: m.linalg.matrix_exp(x), lambda m, x: m.linalg.cholesky(x),
])
def test_integer_input_same_error_as_torch(fn):
    with pytest.raises(Exception) as texc:
        fn(torch, torch.ones(3, 3, dtype=torch.int64))
    with pytest.raises(Exception) as eexc:
        fn(ember, ember.ones(3, 3, dtype=ember.int64))
    assert type(eexc.value) is type(texc.value) and str(eexc.value) == str(texc.value)
