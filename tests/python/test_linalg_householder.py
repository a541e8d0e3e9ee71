"""torch.geqrf and torch.linalg.householder_product (torch.orgqr) on LAPACK geqrf/orgqr against
torch 2.13: values, batches, views, empty shapes, errors; the gradients of householder_product,
orgqr and ormqr against torch's and by finite differences, and geqrf's missing derivative (torch
has none either: both say so at backward)."""
import pytest
import torch

import ember
from helpers import LAYOUTS, check_grad, check_op, errors_of_both, gradcheck_op, make_inputs


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shape", [(5, 3), (2, 4, 4)])
def test_geqrf_and_householder_product(shape, layout):
    if layout == "expanded" and len(shape) == 2:
        pytest.skip("an expanded 2-d matrix has equal rows: rank 1, its reflectors past the "
                    "first are rounding noise in both libraries")
    check_op(lambda m, a: tuple(m.geqrf(a)), [shape], dtypes=("float32", "float64"),
             layouts=(layout,), rtol=1e-4, atol=1e-5)
    check_op(lambda m, a: m.linalg.householder_product(*m.geqrf(a)), [shape],
             dtypes=("float32", "float64"), layouts=(layout,), rtol=1e-4, atol=1e-5)
    check_op(lambda m, a: m.orgqr(*m.geqrf(a)), [shape], dtypes=("float64",), layouts=(layout,))


def test_fewer_reflectors_and_empty():
    check_op(lambda m, a, t: m.linalg.householder_product(a, t), [(5, 3), (2,)], dtypes=("float64",))
    check_op(lambda m, a: m.linalg.householder_product(*m.geqrf(a)), [(0, 4, 3)], dtypes=("float64",))
    check_op(lambda m, a: tuple(m.geqrf(a)), [(3, 0)], dtypes=("float64",))


@pytest.mark.parametrize("shapes", [[(3, 4), (2,)], [(4, 3), (4,)], [(2, 4, 3), (3,)]])
def test_bad_shapes(shapes):
    es, ts = make_inputs(shapes, "float32")
    e, t = errors_of_both(lambda m, a, tau: m.linalg.householder_product(a, tau), es, ts)
    assert e == t


def test_geqrf_has_no_derivative():
    for lib in (torch, ember):
        x = lib.randn(4, 3, requires_grad=True)
        y = lib.geqrf(x)[0]
        assert y.requires_grad
        with pytest.raises((NotImplementedError, RuntimeError), match="derivative"):
            y.sum().backward()


# (A, tau) shapes: square, tall, fewer reflectors than columns, batched
GRAD_SHAPES = [[(4, 4), (4,)], [(5, 3), (3,)], [(6, 4), (2,)], [(2, 5, 3), (2, 3)]]


@pytest.mark.parametrize("shapes", GRAD_SHAPES)
def test_householder_product_gradient(shapes):
    """Any tau (not only geqrf's): the gradients of A's strictly lower part and of tau."""
    check_grad(lambda m, a, t: m.linalg.householder_product(a, t), shapes, dtypes=("float64",),
               layouts=("contiguous", "transposed"), rtol=1e-7, atol=1e-9, low=-1.0, high=1.0)
    check_grad(lambda m, a, t: m.orgqr(a, t), shapes, dtypes=("float32",), rtol=1e-4, atol=1e-5,
               low=-1.0, high=1.0)
    gradcheck_op(lambda m, a, t: m.linalg.householder_product(a, t), shapes, low=-1.0, high=1.0)


@pytest.mark.parametrize("left,transpose", [(True, False), (False, True)])
def test_ormqr_gradient(left, transpose):
    def fn(m, a, t, c):
        return m.ormqr(a, t, c if left else c.mT, left, transpose)
    shapes = [(5, 3), (3,), (5, 2)]
    check_grad(fn, shapes, dtypes=("float64",), rtol=1e-7, atol=1e-9, low=-1.0, high=1.0)
    gradcheck_op(fn, shapes, low=-1.0, high=1.0)


def test_householder_product_gradient_edges():
    # no reflectors: Q does not depend on A or tau, neither gets a gradient (as torch)
    for lib in (torch, ember):
        a = lib.randn(3, 3, dtype=lib.float64, requires_grad=True)
        t = lib.zeros(0, dtype=lib.float64, requires_grad=True)
        lib.linalg.householder_product(a, t).sum().backward()
        assert a.grad is None and t.grad is None
    # an upstream gradient through only part of Q (the other outputs' None)
    check_grad(lambda m, a, t: m.linalg.householder_product(a, t)[:, :1], [(4, 3), (3,)],
               dtypes=("float64",), rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("transpose", [False, True])
@pytest.mark.parametrize("shape", [(5, 3), (2, 4, 4)])
def test_ormqr(shape, left, transpose):
    def fn(m, a, c):
        c = c if left else c.mT
        return m.ormqr(*m.geqrf(a), c, left, transpose)
    check_op(fn, [shape, shape[:-1] + (2,)], dtypes=("float32", "float64"), rtol=1e-4, atol=1e-5)


def test_ormqr_bad_shape():
    es, ts = make_inputs([(5, 3), (4, 2)], "float32")
    with pytest.raises(RuntimeError):
        torch.ormqr(*torch.geqrf(ts[0]), ts[1])
    with pytest.raises(RuntimeError, match="ormqr"):
        ember.ormqr(*ember.geqrf(es[0]), es[1])
