"""ember.linalg's LU family (lu_factor(_ex), lu, lu_solve, solve_ex, torch.lu, lu_unpack,
lu_solve) on LAPACK getrf against torch 2.13: values, pivots, gradients (square), finite
differences, batches, views, empty shapes and errors."""
import numpy as np
import pytest
import torch

import ember
from helpers import LAYOUTS, check_grad, check_op, errors_of_both, gradcheck_op, make_inputs

pytestmark = pytest.mark.filterwarnings("ignore:torch.lu is deprecated",
                                        "ignore:torch.lu_solve is deprecated")


def wc(m, a):
    return a + 2 * a.shape[-1] * m.eye(a.shape[-1], dtype=a.dtype)


def lus(m, a, b, **kw):
    LU, piv = m.linalg.lu_factor(wc(m, a))
    return m.linalg.lu_solve(LU, piv, b, **kw)


CASES = {
    "lu_factor": (lambda m, a: m.linalg.lu_factor(a).LU, [(2, 4, 4)]),
    "lu": (lambda m, a: tuple(m.linalg.lu(a)), [(3, 3)]),
    "lu_L_only": (lambda m, a: m.linalg.lu(a).L, [(2, 3, 3)]),
    "lu_U_only": (lambda m, a: m.linalg.lu(a).U, [(4, 4)]),
    "lu_solve": (lambda m, a, b: lus(m, a, b), [(2, 3, 3), (2, 3, 2)]),
    "lu_solve_broadcast": (lambda m, a, b: lus(m, a, b), [(3, 3), (2, 3, 2)]),
    "lu_solve_adjoint": (lambda m, a, b: lus(m, a, b, adjoint=True), [(3, 3), (3, 2)]),
    "lu_solve_right": (lambda m, a, b: lus(m, a, b, left=False), [(3, 3), (2, 3)]),
    "lu_solve_right_adjoint": (lambda m, a, b: lus(m, a, b, left=False, adjoint=True), [(3, 3), (2, 3)]),
    "solve_ex": (lambda m, a, b: m.linalg.solve_ex(wc(m, a), b).result, [(2, 3, 3), (2, 3)]),
    "lu_top": (lambda m, a: m.lu(a)[0], [(3, 3)]),
    "lu_solve_top": (lambda m, b, a: m.lu_solve(b, *m.linalg.lu_factor(wc(m, a))), [(3, 2), (3, 3)]),
    "lu_unpack": (lambda m, a: tuple(m.lu_unpack(*m.linalg.lu_factor(a))), [(2, 3, 3)]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_forward_and_grad_match_torch(name):
    fn, shapes = CASES[name]
    check_grad(fn, shapes, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradcheck(name):
    fn, shapes = CASES[name]
    gradcheck_op(fn, shapes)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_views_and_pivots(layout):
    check_op(lambda m, a: tuple(m.linalg.lu_factor_ex(a)), [(2, 4, 4)],
             dtypes=("float32", "float64"), layouts=(layout,), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("shape", [(3, 5), (2, 5, 3)])
def test_rectangular(shape):
    check_op(lambda m, a: tuple(m.linalg.lu(a)), [shape], dtypes=("float32", "float64"))
    check_op(lambda m, a: tuple(m.linalg.lu_factor(a)), [shape], dtypes=("float64",))


@pytest.mark.parametrize("shape", [(0, 3, 3), (2, 0, 0), (0, 0)])
def test_empty(shape):
    check_op(lambda m, a: tuple(m.linalg.lu_factor_ex(a)), [shape], dtypes=("float32",))
    check_op(lambda m, a: tuple(m.linalg.lu(a)), [shape], dtypes=("float64",))


def test_singular():
    z = np.zeros((2, 3, 3))
    e = ember.linalg.lu_factor_ex(ember.from_numpy(z))
    t = torch.linalg.lu_factor_ex(torch.from_numpy(z))
    assert e.info.tolist() == t.info.tolist() == [1, 1]
    e, t = errors_of_both(lambda m: m.linalg.lu_factor(m.from_numpy(z)),
                          ember_exc=ember.linalg.LinAlgError)
    assert e == t
    r = ember.linalg.solve_ex(ember.from_numpy(z), ember.ones(2, 3, dtype=ember.float64))
    assert r.info.tolist() == [1, 1]
    with pytest.raises(ember.linalg.LinAlgError):
        ember.linalg.solve_ex(ember.from_numpy(z), ember.ones(2, 3, dtype=ember.float64),
                              check_errors=True)


@pytest.mark.parametrize("fn,shapes", [
    (lambda m, a: m.linalg.lu_factor(a, pivot=False), [(3, 3)]),
    (lambda m, a: m.linalg.lu_factor(a), [(3,)]),
    (lambda m, a, b: m.linalg.lu_solve(*m.linalg.lu_factor(a), b), [(3, 3), (4, 2)]),
    (lambda m, a, b: m.linalg.lu_solve(*m.linalg.lu_factor(a), b.double()), [(3, 3), (3, 2)]),
])
def test_bad_inputs(fn, shapes):
    es, ts = make_inputs(shapes, "float32")
    e, t = errors_of_both(fn, es, ts)
    assert e == t


def test_rectangular_gradient_not_implemented():
    a = ember.randn(3, 5, dtype=ember.float64, requires_grad=True)
    with pytest.raises(NotImplementedError, match="lu_factor"):
        ember.linalg.lu_factor(a).LU.sum().backward()


@pytest.mark.parametrize("shape", [(4, 4), (2, 3, 5, 5)])
def test_ldl(shape):
    def sym(m, a):
        return a + a.mT
    check_op(lambda m, a: tuple(m.linalg.ldl_factor_ex(sym(m, a))), [shape],
             dtypes=("float32", "float64"), rtol=1e-4, atol=1e-5)
    check_op(lambda m, a, b: m.linalg.ldl_solve(*m.linalg.ldl_factor(sym(m, a)), b),
             [shape, shape[:-1] + (2,)], dtypes=("float64",), rtol=1e-6, atol=1e-8)


def test_ldl_errors_and_no_derivative():
    z = ember.zeros(2, 3, 3)
    assert ember.linalg.ldl_factor_ex(z).info.tolist() == torch.linalg.ldl_factor_ex(
        torch.zeros(2, 3, 3)).info.tolist()
    with pytest.raises(ember.linalg.LinAlgError, match="ldl_factor"):
        ember.linalg.ldl_factor(z)  # torch raises an internal assert (RuntimeError) here
    es, ts = make_inputs([(4, 4), (3, 2)], "float64")
    e, t = errors_of_both(lambda m, a, b: m.linalg.ldl_solve(*m.linalg.ldl_factor(a + a.mT), b), es, ts)
    assert e == t
    x = ember.randn(3, 3, dtype=ember.float64, requires_grad=True)
    with pytest.raises(RuntimeError, match="derivative for aten::linalg_ldl_factor_ex"):
        ember.linalg.ldl_factor(x + x.mT).LD.sum().backward()
