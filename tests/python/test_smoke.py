"""Smoke tests of the package: import, dtypes, printing, NumPy sharing."""
import numpy as np
import pytest
import torch

import ember
from helpers import assert_same, check_op, LAYOUTS


def test_import_names_match_torch():
    for name in ["float32", "float", "float64", "double", "int64", "long", "int32", "int",
                 "uint8", "bool", "FloatTensor", "Tensor", "tensor", "zeros", "add", "exp"]:
        assert hasattr(ember, name), name


def test_math_constants_match_torch():
    # x-transformers: `from torch import nn, pi`
    import math
    for name in ("pi", "e", "inf", "nan", "newaxis"):
        a, b = getattr(ember, name), getattr(torch, name)
        assert type(a) is type(b) and (a == b or (a != a and b != b)), name
    assert ember.pi == math.pi and ember.newaxis is None
    x = ember.arange(3.0)
    assert x[:, ember.newaxis].shape == torch.arange(3.0)[:, torch.newaxis].shape == (3, 1)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_add_broadcast_matches_torch(layout):
    check_op(lambda m, x, y: x + y, [(3, 4), (3, 4)], dtypes=["float32", "float64", "int64"],
             layouts=[layout])


def test_numpy_shares_memory_both_ways():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    t = ember.from_numpy(a)
    a[0, 0] = 42
    assert t[0, 0].item() == 42 if hasattr(ember.Tensor, "__getitem__") else t.tolist()[0][0] == 42
    n = t.numpy()
    n[1, 2] = -1
    assert a[1, 2] == -1


def test_repr_like_torch():
    assert repr(ember.tensor([1.5, 2.0])) == repr(torch.tensor([1.5, 2.0])).replace("torch", "ember")
    assert repr(ember.tensor([[1, 2], [3, 4]])) == repr(torch.tensor([[1, 2], [3, 4]]))
