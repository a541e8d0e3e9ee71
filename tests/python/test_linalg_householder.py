"""torch.geqrf and torch.linalg.householder_product (torch.orgqr) on LAPACK geqrf/orgqr against
torch 2.13: values, batches, views, empty shapes, errors, and the missing derivatives (torch
has none for geqrf; ember has none yet for householder_product, and says so at backward)."""
import pytest
import torch

import ember
from helpers import LAYOUTS, check_op, make_inputs


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
    with pytest.raises(RuntimeError) as texc:
        torch.linalg.householder_product(*ts)
    with pytest.raises(RuntimeError) as eexc:
        ember.linalg.householder_product(*es)
    assert str(eexc.value) == str(texc.value)


def test_no_derivative():
    for fn in (lambda m, x: m.geqrf(x)[0], lambda m, x: m.linalg.householder_product(x, x[:2, 0])):
        x = ember.randn(4, 3, requires_grad=True)
        y = fn(ember, x)
        assert y.requires_grad
        with pytest.raises(NotImplementedError, match="derivative"):
            y.sum().backward()


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
