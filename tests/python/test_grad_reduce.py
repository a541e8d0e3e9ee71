"""Gradients of reductions and softmax against PyTorch and by finite differences."""
import numpy as np
import pytest
import torch

import ember
from helpers import LAYOUTS, check_grad, gradcheck_op

CASES = {
    "sum_all": (lambda m, x: x.sum(), [(3, 4)]),
    "sum_dim": (lambda m, x: x.sum(1), [(3, 4)]),
    "sum_dims_keep": (lambda m, x: x.sum((0, 2), keepdim=True), [(2, 3, 4)]),
    "sum_dtype": (lambda m, x: x.sum(0, dtype=m.float64), [(3, 4)]),
    "mean_all": (lambda m, x: x.mean(), [(3, 4)]),
    "mean_dim": (lambda m, x: x.mean(-1, keepdim=True), [(3, 4)]),
    "prod_all": (lambda m, x: x.prod(), [(2, 3)]),
    "prod_dim": (lambda m, x: x.prod(1), [(3, 4)]),
    "amax": (lambda m, x: x.amax(1), [(3, 4)]),
    "amin_keep": (lambda m, x: x.amin((0, 1), keepdim=True), [(3, 4)]),
    "max_all": (lambda m, x: x.max(), [(3, 4)]),
    "min_all": (lambda m, x: x.min(), [(3, 4)]),
    "max_dim": (lambda m, x: x.max(1)[0], [(3, 4)]),
    "min_dim_keep": (lambda m, x: x.min(0, keepdim=True)[0], [(3, 4)]),
    "var": (lambda m, x: x.var(1), [(3, 4)]),
    "var_all": (lambda m, x: x.var(), [(3, 4)]),
    "std": (lambda m, x: x.std(0, keepdim=True), [(3, 4)]),
    "norm": (lambda m, x: x.norm(), [(3, 4)]),
    "norm_dim": (lambda m, x: x.norm(dim=1), [(3, 4)]),
    "norm_p1": (lambda m, x: x.norm(p=1), [(3, 4)]),
    "norm_p3": (lambda m, x: x.norm(p=3, dim=0), [(3, 4)]),
    "norm_inf": (lambda m, x: x.norm(p=float("inf")), [(3, 4)]),
    "logsumexp": (lambda m, x: m.logsumexp(x, 1), [(3, 4)]),
    "softmax": (lambda m, x: m.softmax(x, 1), [(3, 4)]),
    "softmax_dim0": (lambda m, x: x.softmax(0), [(3, 4)]),
    "log_softmax": (lambda m, x: m.log_softmax(x, -1), [(3, 4)]),
}


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("layout", LAYOUTS)
def test_reduce_grad_matches_torch(name, layout):
    fn, shapes = CASES[name]
    if name == "std" and layout == "expanded":
        # Rows of an expanded input are identical: torch's Welford std is exactly 0 there (and
        # its gradient masked to 0); ember's two-pass std is ~1e-8, so the gradient is not.
        pytest.xfail("std of identical values is not exactly 0 in ember's two-pass kernel")
    check_grad(fn, shapes, layouts=[layout])


@pytest.mark.parametrize("name", sorted(CASES))
def test_reduce_gradcheck(name):
    fn, shapes = CASES[name]
    gradcheck_op(fn, shapes)


def test_prod_grad_with_zeros():
    import ember, torch
    for vals in ([1.0, 0.0, 3.0], [0.0, 0.0, 2.0], [2.0, 3.0, 4.0]):
        xe = ember.tensor(vals, requires_grad=True)
        xt = torch.tensor(vals, requires_grad=True)
        xe.prod().backward()
        xt.prod().backward()
        assert xe.grad.tolist() == xt.grad.tolist()


def test_max_ties_split_like_torch():
    check_grad(lambda m, x: x.max(), [(4,)], dtypes=["float64"], low=1, high=1)
    check_grad(lambda m, x: x.amax(0), [(3, 2)], dtypes=["float64"], low=1, high=1)


def test_reduce_double_backward():
    gradcheck_op(lambda m, x: m.autograd.grad([x.softmax(1).sum(0).norm()], [x], create_graph=True)[0], [(3, 4)])
    gradcheck_op(lambda m, x: m.autograd.grad([x.var(1).sum()], [x], create_graph=True)[0], [(3, 4)])


@pytest.mark.parametrize("log", [False, True])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_softmax_backward_fused_rows(log, dtype):
    """Along the last dim the backward is one kernel pass per row (softmax_backward): long
    rows, rows with -inf (a causal mask), a non-contiguous incoming gradient, empty rows."""
    rng = np.random.default_rng(0)
    for shape in [(5, 33), (2, 3, 1000), (4, 0), (0, 7), (7,)]:
        x = rng.standard_normal(shape).astype(dtype)
        if len(shape) == 2 and shape[0] and shape[1] > 1:
            x[np.triu_indices(shape[0], 1, shape[1])] = -np.inf
        g = rng.standard_normal(shape[::-1]).astype(dtype).T  # a transposed (strided) gradient
        outs = []
        for m in (ember, torch):
            t = m.from_numpy(x.copy()).requires_grad_(True)
            y = (m.log_softmax if log else m.softmax)(t, -1)
            y.backward(m.from_numpy(np.ascontiguousarray(g.T)).T if g.ndim == 2 else m.from_numpy(g.copy()))
            outs.append(t.grad.numpy())
        np.testing.assert_allclose(outs[0], outs[1], rtol=1e-5 if dtype == "float32" else 1e-12,
                                   atol=1e-6 if dtype == "float32" else 1e-13)
