"""NumPy's argument names, which torch takes for four parameters of its functions and methods:
axis= for dim=, keepdims= for keepdim=, x=/a=/x1= for input=, x2= for other=
(python/bindings/numpy_names.cpp). torchmetrics writes `p.sum(axis=-1, keepdim=True)` and
`torch.prod(x, axis=0)`."""
import pytest
import torch

import ember
from helpers import LAYOUTS, check_grad, check_op

CALLS = [
    lambda m, x: m.sum(x, axis=0),
    lambda m, x: x.sum(axis=-1, keepdim=True),
    lambda m, x: x.sum(axis=(0, 1), keepdims=True),
    lambda m, x: m.mean(x, axis=1, keepdims=True),
    lambda m, x: m.prod(x, axis=0),
    lambda m, x: x.prod(axis=1, keepdims=True),
    lambda m, x: m.amax(x, axis=0),
    lambda m, x: m.max(x, axis=1),
    lambda m, x: x.min(axis=0, keepdims=True),
    lambda m, x: m.argmax(x, axis=1),
    lambda m, x: m.std(x, axis=0),
    lambda m, x: x.var(axis=1),
    lambda m, x: m.logsumexp(x, axis=1, keepdims=True),
    lambda m, x: m.cumsum(x, axis=0),
    lambda m, x: m.softmax(x, axis=-1),
    lambda m, x: m.cat([x, x], axis=1),
    lambda m, x: m.stack([x, x], axis=0),
    lambda m, x: m.topk(x, 2, axis=0),
    lambda m, x: m.sort(x, axis=0),
    lambda m, x: x.unsqueeze(axis=0),
    lambda m, x: m.squeeze(x[:1], axis=0),
    lambda m, x: m.sum(a=x),
    lambda m, x: m.sum(x=x, axis=1),
]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("call", range(len(CALLS)))
def test_numpy_names_match_torch(call, layout):
    check_op(CALLS[call], [(3, 4)], ["float32", "float64"], [layout])


def test_numpy_names_bool_reductions():
    check_op(lambda m, x: m.any(x > 0, axis=0), [(3, 4)])
    check_op(lambda m, x: (x > 0).all(axis=1, keepdims=True), [(3, 4)])


def test_numpy_names_gradients():
    check_grad(lambda m, x: x.sum(axis=0, keepdims=True), [(3, 4)])
    check_grad(lambda m, x: m.prod(x, axis=1), [(3, 4)])
    check_grad(lambda m, x: m.logsumexp(x, axis=0), [(3, 4)])


def test_numpy_names_errors_as_torch():
    for lib in (ember, torch):
        x = lib.ones(2, 3)
        with pytest.raises(TypeError):
            lib.sum(x, 0, axis=0)  # given twice
        with pytest.raises(TypeError):
            lib.sum(x, axis=0, dim=1)
        with pytest.raises(TypeError):
            lib.sum(x, axes=0)  # not a name torch knows
        with pytest.raises(TypeError):
            x.sum(axis="a")
    # the ordinary keyword still works after a NumPy-named call
    assert ember.ones(2, 3).sum(dim=1).tolist() == [3.0, 3.0]
