"""Gradients of indexing (t[...], t[...] = v) and of gather/scatter/index_select."""
import numpy as np
import pytest
import torch

import ember
from helpers import LAYOUTS, check_grad, gradcheck_op


def _idx(m, values):
    return m.tensor(values)


CASES = {
    "int": (lambda m, x: x[1], [(3, 4)]),
    "slice_step": (lambda m, x: x[::2, 1:], [(5, 4)]),
    "none_ellipsis": (lambda m, x: x[None, ..., 0], [(3, 4)]),
    "int_tensor": (lambda m, x: x[_idx(m, [0, 2, 2])], [(3, 4)]),
    "two_int_tensors": (lambda m, x: x[_idx(m, [0, 2]), _idx(m, [1, 3])], [(3, 4)]),
    "mask": (lambda m, x: x[x > 0], [(3, 4)]),
    "row_mask": (lambda m, x: x[_idx(m, [True, False, True])], [(3, 4)]),
    "index_select": (lambda m, x: x.index_select(1, _idx(m, [3, 0, 3])), [(3, 4)]),
    "gather": (lambda m, x: x.gather(1, _idx(m, [[0, 0], [1, 3], [2, 2]])), [(3, 4)]),
    "masked_select": (lambda m, x: m.masked_select(x, x > 0.5), [(3, 4)]),
    "scatter_src": (lambda m, x, s: x.scatter(1, _idx(m, [[0], [1], [3]]), s), [(3, 4), (3, 1)]),
    "scatter_value": (lambda m, x: x.scatter(0, _idx(m, [[0, 1, 2, 0]]), 1.5), [(3, 4)]),
    "scatter_add": (lambda m, x, s: x.scatter_add(0, _idx(m, [[0, 1, 2, 0], [0, 0, 0, 0]]), s),
                    [(3, 4), (2, 4)]),
}


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("layout", LAYOUTS)
def test_index_grad_matches_torch(name, layout):
    fn, shapes = CASES[name]
    check_grad(fn, shapes, layouts=[layout])


@pytest.mark.parametrize("name", sorted(CASES))
def test_index_gradcheck(name):
    fn, shapes = CASES[name]
    gradcheck_op(fn, shapes)


def _setitem_cases():
    def basic(m, x, v):
        y = x * 1
        y[1:, ::2] = v
        return y

    def advanced(m, x, v):
        y = x * 1
        y[_idx(m, [0, 2])] = v
        return y

    def masked_scalar(m, x):
        y = x * 1
        y[y < 0] = 0
        return y

    def into_plain(m, v):
        y = m.zeros(3, 4, dtype=v.dtype)
        y[1] = v
        return y * 2

    return {"basic": (basic, [(3, 4), (2, 2)]), "advanced": (advanced, [(3, 4), (4,)]),
            "masked_scalar": (masked_scalar, [(3, 4)]), "into_plain": (into_plain, [(4,)])}


SET = _setitem_cases()


@pytest.mark.parametrize("name", sorted(SET))
def test_setitem_grad_matches_torch(name):
    fn, shapes = SET[name]
    check_grad(fn, shapes)
    gradcheck_op(fn, shapes)
