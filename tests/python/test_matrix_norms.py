"""torch.frobenius_norm, torch.nuclear_norm and torch.renorm (ember/_matrix_norms.py) against
torch 2.13: values over dims and keepdim, every renorm p and dim, gradients, and the errors."""
import pytest
import torch

import ember
from helpers import LAYOUTS, assert_same, check_grad, check_op


def test_frobenius_and_nuclear():
    check_op(lambda m, x: m.frobenius_norm(x, (0, 1)), [(3, 4)], dtypes=("float32", "float64"), layouts=LAYOUTS)
    check_op(lambda m, x: m.frobenius_norm(x, 1, keepdim=True), [(2, 3, 4)])
    check_op(lambda m, x: m.nuclear_norm(x), [(4, 3)], dtypes=("float64",), rtol=1e-6)
    check_op(lambda m, x: m.nuclear_norm(x, dim=(0, 2), keepdim=True), [(3, 2, 4)], dtypes=("float64",))
    check_grad(lambda m, x: m.frobenius_norm(x, (0, 1)), [(3, 4)])
    check_grad(lambda m, x: m.nuclear_norm(x), [(3, 3)], dtypes=("float64",))
    with pytest.raises(RuntimeError, match="at most 2 dimensions"):
        ember.frobenius_norm(ember.ones(3, 4, 2), dim=(0, 1, 2))
    with pytest.raises(RuntimeError):
        ember.nuclear_norm(ember.ones(3))


@pytest.mark.parametrize("p", [1, 2, 3.5, float("inf")])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_renorm(p, dim):
    check_op(lambda m, x: m.renorm(x, p, dim, 1.5), [(4, 5)], dtypes=("float32", "float64"), layouts=LAYOUTS)
    check_op(lambda m, x: x.renorm(p, dim, 0.5), [(3, 2, 4)])
    check_grad(lambda m, x: m.renorm(x, p, dim, 1.5), [(3, 4)], dtypes=("float64",))
    e, t = ember.ones(3, 4) * 2, torch.ones(3, 4) * 2
    assert e.renorm_(p, dim, 1.0) is e
    assert_same(e, t.renorm_(p, dim, 1.0))


def test_renorm_errors():
    x = ember.ones(3, 3)
    with pytest.raises(RuntimeError, match="non-positive-norm"):
        ember.renorm(x, -1, 0, 1.0)
    with pytest.raises(RuntimeError, match="maxnorm to be >= 0"):
        ember.renorm(x, 2, 0, -1.0)
    with pytest.raises(RuntimeError, match="floating point"):
        ember.renorm(ember.ones(3, 3, dtype=ember.int64), 2, 0, 1.0)
    with pytest.raises(IndexError):
        ember.renorm(x, 2, 2, 1.0)
