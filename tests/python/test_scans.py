"""cummax, cummin, logcumsumexp (python/ember/_scans.py) and mode (_statistics.py) against
PyTorch 2.13: values and indices (NaN and ties as torch), every layout, gradients,
gradchecks, 0-d/empty and bad inputs."""
import math

import pytest
import torch

import ember
from helpers import LAYOUTS, assert_same, check_grad, check_op, gradcheck_op

NUM = ["uint8", "int32", "int64", "float32", "float64"]
FLOAT = ["float32", "float64"]

FORWARD = {
    "cummax": (lambda m, x: tuple(m.cummax(x, 1)), [(3, 9)], NUM),
    "cummax_dim0": (lambda m, x: tuple(x.cummax(0)), [(7, 3)], NUM),
    "cummin": (lambda m, x: tuple(m.cummin(x, -1)), [(3, 9)], NUM),
    "cummax_ties": (lambda m, x: tuple(m.cummax(x.round(), 1)), [(3, 17)], FLOAT),
    "cummin_ties_int": (lambda m, x: tuple(m.cummin(x, 1)), [(3, 33)], ["int64"]),
    "cummax_nan": (lambda m, x: tuple(m.cummax(m.where(x > 2, x * math.nan, x), 1)), [(3, 20)], FLOAT),
    "cummin_nan": (lambda m, x: tuple(m.cummin(m.where(x < -2, x * math.nan, x), 1)), [(3, 20)], FLOAT),
    "logcumsumexp": (lambda m, x: m.logcumsumexp(x * 300, 1), [(3, 13)], FLOAT),
    "logcumsumexp_dim0": (lambda m, x: x.logcumsumexp(0), [(5, 4)], FLOAT),
    "logcumsumexp_inf": (lambda m, x: m.logcumsumexp(m.log(x.clamp(min=0)), 1), [(3, 9)], FLOAT),
    "mode": (lambda m, x: tuple(m.mode(x.round())), [(4, 9)], NUM),
    "mode_dim0": (lambda m, x: tuple(x.round().mode(0, keepdim=True)), [(9, 4)], FLOAT),
}


@pytest.mark.parametrize("name", sorted(FORWARD))
def test_forward_matches_torch(name):
    fn, shapes, dtypes = FORWARD[name]
    layouts = LAYOUTS if "dim0" not in name else ["contiguous", "transposed", "sliced"]
    check_op(fn, shapes, dtypes=dtypes, layouts=layouts, rtol=1e-5, atol=1e-5)


GRADS = {
    "cummax": (lambda m, x: m.cummax(x, 1).values, [(3, 7)]),
    "cummin": (lambda m, x: m.cummin(x, 0).values, [(7, 3)]),
    "logcumsumexp": (lambda m, x: m.logcumsumexp(x, 1), [(3, 7)]),
    "mode": (lambda m, x: m.mode(x.round() + x * 0, 1).values, [(3, 7)]),
}


@pytest.mark.parametrize("name", sorted(GRADS))
def test_grad_matches_torch(name):
    fn, shapes = GRADS[name]
    check_grad(fn, shapes, layouts=["contiguous", "transposed", "sliced"])


@pytest.mark.parametrize("name", ["cummax", "cummin", "logcumsumexp"])
def test_gradcheck(name):
    fn, shapes = GRADS[name]
    gradcheck_op(fn, shapes)


def test_0d_and_empty():
    for fn in (lambda m, x: tuple(m.cummax(x, 0)), lambda m, x: tuple(m.cummin(x, 0)),
               lambda m, x: m.logcumsumexp(x, 0)):
        check_op(fn, [()], dtypes=FLOAT)
        check_op(fn, [(0,)], dtypes=FLOAT)
        check_op(fn, [(2, 0)], dtypes=FLOAT)
    check_op(lambda m, x: tuple(m.mode(x, 0)), [()], dtypes=FLOAT)


def test_bad_inputs():
    x = ember.ones(3, 4)
    with pytest.raises(IndexError, match="cummax.*5"):
        ember.cummax(x, 5)
    with pytest.raises(TypeError, match="cummin"):
        ember.cummin(x, "a")
    with pytest.raises(NotImplementedError, match="logcumsumexp"):
        ember.logcumsumexp(ember.ones(3, dtype=ember.int64), 0)
    with pytest.raises(IndexError, match="mode"):
        ember.mode(ember.ones(3, 0), 1)
    for call in (lambda m: m.cummax(m.ones(3, 4), 5), lambda m: m.mode(m.ones(3, 0), 1)):
        with pytest.raises(IndexError):
            call(torch)
    with pytest.raises(NotImplementedError):
        torch.logcumsumexp(torch.ones(3, dtype=torch.int64), 0)
