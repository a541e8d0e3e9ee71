"""torch.trapezoid/trapz, cumulative_trapezoid and gradient (ember/_calculus.py) against
torch 2.13: spacings as dx, as sample points (1-d and broadcast), integer samples, empty and
size-1 dims, gradients, and the errors."""
import numpy as np
import pytest
import torch

import ember
from helpers import LAYOUTS, assert_same, check_grad, check_op


@pytest.mark.parametrize("fn", ["trapezoid", "trapz", "cumulative_trapezoid"])
def test_integration(fn):
    check_op(lambda m, y: getattr(m, fn)(y), [(3, 5)], dtypes=("float32", "float64", "int64"), layouts=LAYOUTS)
    check_op(lambda m, y: getattr(m, fn)(y, dx=0.5, dim=0), [(4, 3)], dtypes=("float32", "int64"))
    check_op(lambda m, y, x: getattr(m, fn)(y, x), [(2, 6), (6,)], dtypes=("float32", "float64"))
    check_op(lambda m, y, x: getattr(m, fn)(y, x, dim=0), [(4, 3), (4, 3)], dtypes=("float64",))
    check_op(lambda m, y: getattr(m, fn)(y), [(3, 0)])
    check_op(lambda m, y: getattr(m, fn)(y), [(2, 1)])
    check_grad(lambda m, y, x: getattr(m, fn)(y, x), [(3, 5), (5,)])


def test_integration_errors():
    with pytest.raises(IndexError):
        ember.trapezoid(ember.tensor(1.0))
    with pytest.raises(RuntimeError, match="one `x` value for each sample point"):
        ember.trapezoid(ember.ones(3), ember.ones(4))
    with pytest.raises(TypeError):
        ember.trapezoid(ember.ones(3), dx="a")


@pytest.mark.parametrize("edge_order", [1, 2])
def test_gradient(edge_order):
    check_op(lambda m, f: m.gradient(f, edge_order=edge_order), [(4, 5)], dtypes=("float32", "float64"),
             layouts=LAYOUTS)
    check_op(lambda m, f: m.gradient(f, spacing=2.0, dim=1, edge_order=edge_order), [(4, 5)])
    check_op(lambda m, f: m.gradient(f, spacing=[0.5, 3.0], edge_order=edge_order), [(4, 5)])
    check_op(lambda m, f: m.gradient(f, dim=[1], edge_order=edge_order), [(3, 4)], dtypes=("int64",))
    coords = np.array([0.0, 0.5, 2.0, 2.5, 4.0])
    for dtype in (np.float32, np.float64):
        f = np.random.default_rng(0).normal(size=(3, 5)).astype(dtype)
        want = torch.gradient(torch.from_numpy(f), spacing=(torch.from_numpy(coords.astype(dtype)),), dim=1,
                              edge_order=edge_order)
        got = ember.gradient(ember.from_numpy(f), spacing=(ember.from_numpy(coords.astype(dtype)),), dim=1,
                             edge_order=edge_order)
        assert_same(got, want, 1e-5, 1e-5)
    check_grad(lambda m, f: m.gradient(f, edge_order=edge_order)[0], [(5, 3)])


def test_gradient_errors():
    with pytest.raises(RuntimeError, match="at least edge_order\\+1"):
        ember.gradient(ember.tensor([1.0, 4.0]), edge_order=2)
    with pytest.raises(RuntimeError, match="only supports edge_order=1 and edge_order=2"):
        ember.gradient(ember.tensor([1.0, 4.0, 3.0]), edge_order=3)
    with pytest.raises(RuntimeError, match="spacing"):
        ember.gradient(ember.ones(3, 3), spacing=[1.0, 2.0, 3.0])
