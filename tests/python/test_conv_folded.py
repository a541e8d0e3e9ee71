"""The batch-folded convolution (Note [Batch-folded convolution] in src/kernels/cpu/conv.cpp: the
im2col columns of several images side by side, one GEMM per pass): the geometries the policy sends
there (4x4 kernels onto at most 16 pixels per image: DCGAN's last stride-2 D layer, its first two
G layers' adjoints), forward and every gradient against torch, with and without bias, strided
views, batches of 0 and 1, one and two threads, inf and NaN; then every geometry the path can run
forced onto it (EMBER_CONV_FOLD=1, in a child process): strides, padding, dilation, float64 and
its finite-difference gradcheck, conv_transpose2d with output_padding."""
import os
import subprocess
import sys

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import ember
from helpers import LAYOUTS, check_grad, make_inputs, on_thread_counts, to_numpy


def F(m):
    return TF if m is torch else ember.nn.functional


# (input, weight, kwargs) that the policy folds: >= 16 taps, <= 16 output pixels, >= 8 channels.
CONV_CASES = [
    ((4, 16, 8, 8), (16, 16, 4, 4), {"stride": 2, "padding": 1}),  # DCGAN's D4, narrower
    ((3, 8, 4, 4), (12, 8, 4, 4), {}),  # onto one pixel (DCGAN's G1 adjoint)
    ((2, 8, 9, 7), (8, 8, 4, 4), {"stride": 2}),  # the last row is never read; 3x2 output
    ((2, 8, 8, 8), (8, 8, 4, 5), {"stride": (2, 3), "padding": (1, 2)}),
    ((2, 8, 9, 9), (8, 8, 4, 4), {"stride": 2, "padding": 1, "dilation": 2}),
    ((40, 64, 8, 8), (16, 64, 4, 4), {"stride": 2, "padding": 1}),  # two chunks: 32 + 8 images
]
IDS = [f"{i}-{s}-{w}-{kw}" for i, (s, w, kw) in enumerate(CONV_CASES)]


@pytest.mark.parametrize("shape,wshape,kw", CONV_CASES, ids=IDS)
def test_folded_conv_grad(shape, wshape, kw):
    check_grad(lambda m, x, w, b: F(m).conv2d(x, w, b, **kw), [shape, wshape, (wshape[0],)],
               dtypes=["float32"], layouts=LAYOUTS, rtol=1e-4, atol=5e-4)
    check_grad(lambda m, x, w: F(m).conv2d(x, w, **kw), [shape, wshape], dtypes=["float32"],
               rtol=1e-4, atol=5e-4)


@pytest.mark.parametrize("shape,wshape,kw", [
    ((2, 16, 1, 1), (16, 8, 4, 4), {}),  # DCGAN's G1: from one pixel
    ((3, 16, 4, 4), (16, 8, 4, 4), {"stride": 2, "padding": 1}),  # its G2
    ((2, 16, 3, 4), (16, 8, 4, 4), {"stride": 2, "padding": 1, "output_padding": 1}),
], ids=["G1", "G2", "output_padding"])
def test_folded_conv_transpose_grad(shape, wshape, kw):
    check_grad(lambda m, x, w: F(m).conv_transpose2d(x, w, **kw), [shape, wshape],
               dtypes=["float32"], layouts=["contiguous", "transposed"], rtol=1e-4, atol=5e-4)


@pytest.mark.parametrize("requires", [(True, False, False), (False, True, False),
                                      (False, False, True), (False, True, True)])
def test_folded_conv_partial_grads(requires):
    check_grad(lambda m, x, w, b: F(m).conv2d(x, w, b, stride=2, padding=1),
               [(3, 16, 8, 8), (16, 16, 4, 4), (16,)], dtypes=["float32"],
               requires=list(requires), atol=5e-4)


def test_folded_conv_batch_of_one_zero_and_unbatched():
    kw = {"stride": 2, "padding": 1}
    for shape in [(1, 16, 8, 8), (16, 8, 8)]:  # one image: the policy keeps oneDNN
        check_grad(lambda m, x, w: F(m).conv2d(x, w, **kw), [shape, (16, 16, 4, 4)],
                   dtypes=["float32"], atol=5e-4)
    x = ember.zeros(0, 16, 8, 8, requires_grad=True)
    w = ember.ones(16, 16, 4, 4, requires_grad=True)
    b = ember.ones(16, requires_grad=True)
    y = ember.nn.functional.conv2d(x, w, b, **kw)
    assert tuple(y.shape) == (0, 16, 4, 4)
    y.sum().backward()
    assert tuple(x.grad.shape) == (0, 16, 8, 8)
    np.testing.assert_array_equal(to_numpy(w.grad), np.zeros((16, 16, 4, 4), np.float32))
    np.testing.assert_array_equal(to_numpy(b.grad), np.zeros(16, np.float32))


def test_folded_conv_thread_counts():
    """Each thread count matches torch (the GEMM's sums may differ between thread counts in the
    last bits, as oneDNN's: the Note says so)."""
    def run():
        check_grad(lambda m, x, w, b: F(m).conv2d(x, w, b, stride=2, padding=1),
                   [(5, 32, 8, 8), (16, 32, 4, 4), (16,)], dtypes=["float32"], atol=5e-4)
        check_grad(lambda m, x, w: F(m).conv_transpose2d(x, w, stride=2, padding=1),
                   [(5, 32, 4, 4), (32, 16, 4, 4)], dtypes=["float32"], atol=5e-4)
    on_thread_counts(run)


@pytest.mark.parametrize("where", ["input", "weight", "grad_out"])
def test_folded_conv_non_finite_values(where):
    """inf and NaN land where torch puts them: col's padded zeros never meet an inf (forward with
    a non-finite weight and grad_weight with a non-finite grad_out run oneDNN)."""
    es, ts = make_inputs([(3, 16, 8, 8), (16, 16, 4, 4)], "float32")
    if where != "grad_out":
        k = 0 if where == "input" else 1
        for a in (es[k], ts[k]):
            a[0, 1, 2, 3] = float("inf")
            a[1, 2, 0, 0] = float("nan")
    for a in es + ts:
        a.requires_grad_(True)
    ye = ember.nn.functional.conv2d(*es, stride=2, padding=1)
    yt = TF.conv2d(*ts, stride=2, padding=1)
    np.testing.assert_allclose(to_numpy(ye), to_numpy(yt), rtol=1e-4, atol=5e-4)
    g = np.random.default_rng(0).uniform(-1, 1, tuple(yt.shape)).astype(np.float32)
    if where == "grad_out":
        g[0, 3, 0, 0], g[2, 5, 3, 3] = float("inf"), float("nan")
    ye.backward(ember.from_numpy(g.copy()))
    yt.backward(torch.from_numpy(g.copy()))
    for e, t in zip(es, ts):
        np.testing.assert_allclose(to_numpy(e.grad), to_numpy(t.grad), rtol=1e-4, atol=5e-4)


def test_folded_conv_bad_input():
    """A folded geometry's bad calls raise before any kernel runs (ember's errors, as
    test_conv_pool's), and leave the inputs as they were."""
    x, w = ember.ones(2, 16, 8, 8), ember.ones(16, 16, 4, 4)
    c = ember.nn.functional.conv2d
    with pytest.raises(RuntimeError, match=r"conv2d.*\(16, 12, 4, 4\).*\(2, 16, 8, 8\).*12 chan"):
        c(x, ember.ones(16, 12, 4, 4), stride=2, padding=1)
    with pytest.raises(TypeError, match=r"conv2d.*float32.*float64"):
        c(x, w.double(), stride=2, padding=1)
    with pytest.raises(RuntimeError, match=r"conv2d.*padding"):
        c(x, w, stride=2, padding=-1)
    with pytest.raises(RuntimeError, match=r"conv_transpose2d.*output padding"):
        ember.nn.functional.conv_transpose2d(ember.ones(2, 16, 4, 4), w, stride=2, padding=1,
                                             output_padding=2)
    assert (x.numpy() == 1).all() and (w.numpy() == 1).all()


_FORCED = r"""
import numpy as np, torch, torch.nn.functional as TF, ember
E = ember.nn.functional
rng = np.random.default_rng(0)
def pair(arrs):
    e = [ember.from_numpy(a.copy()).requires_grad_(True) for a in arrs]
    t = [torch.from_numpy(a.copy()).requires_grad_(True) for a in arrs]
    return e, t
def same(fe, ft, arrs, tol):
    e, t = pair(arrs)
    ye, yt = fe(*e), ft(*t)
    g = rng.uniform(-1, 1, tuple(yt.shape)).astype(arrs[0].dtype)
    ye.backward(ember.from_numpy(g.copy())), yt.backward(torch.from_numpy(g.copy()))
    np.testing.assert_allclose(ye.detach().numpy(), yt.detach().numpy(), rtol=tol, atol=tol)
    for a, b in zip(e, t):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=tol, atol=tol)
conv = [((2, 3, 9, 9), (4, 3, 3, 3), {"padding": 1}),  # few channels, stride 1
        ((1, 5, 7, 8), (6, 5, 3, 2), {"stride": (2, 3), "padding": (1, 0)}),  # batch 1
        ((3, 4, 11, 10), (5, 4, 3, 3), {"stride": 2, "padding": 2, "dilation": 2}),
        ((2, 6, 5, 6), (4, 6, 2, 3), {"padding": "same"}),
        ((2, 4, 6, 6), (3, 4, 6, 6), {}),  # kernel = image: one pixel
        ((2, 4, 6, 6), (3, 4, 7, 7), {"padding": 1, "stride": 3}),
        ((9, 16, 30, 30), (8, 16, 3, 3), {"padding": 1})]  # chunks of 4, 4 and 1 images
for dtype, tol in (("float32", 5e-4), ("float64", 1e-10)):
    for xs, ws, kw in conv:
        arrs = [rng.uniform(-2, 2, s).astype(dtype) for s in (xs, ws, ws[:1])]
        same(lambda x, w, b: E.conv2d(x, w, b, **kw), lambda x, w, b: TF.conv2d(x, w, b, **kw),
             arrs, tol)
        same(lambda x, w: E.conv2d(x.transpose(2, 3), w, **kw),  # a strided input
             lambda x, w: TF.conv2d(x.transpose(2, 3), w, **kw), arrs[:2], tol)
        same(lambda x: E.conv2d(x, ember.from_numpy(arrs[1]), **kw)[0],  # unbatched
             lambda x: TF.conv2d(x, torch.from_numpy(arrs[1]), **kw)[0], [arrs[0][0]], tol)
    x = rng.uniform(-2, 2, (2, 4, 5, 5)).astype(dtype)
    w = rng.uniform(-2, 2, (4, 3, 3, 3)).astype(dtype)
    for kw in ({"stride": 2, "padding": 1, "output_padding": 1}, {"stride": 3, "dilation": 2}):
        same(lambda x, w: E.conv_transpose2d(x, w, **kw),
             lambda x, w: TF.conv_transpose2d(x, w, **kw), [x, w], tol)
xe = ember.zeros(0, 4, 6, 6, requires_grad=True)
we = ember.ones(3, 4, 3, 3, requires_grad=True)
ye = E.conv2d(xe, we, stride=2)
ye.sum().backward()
assert tuple(ye.shape) == (0, 3, 2, 2) and not we.grad.numpy().any()
for xs, ws, bs, kw in (((2, 3, 7, 6), (4, 3, 3, 3), (4,), {"stride": 2, "padding": 1}),
                       ((1, 2, 5, 5), (3, 2, 2, 3), None, {"dilation": (2, 1)})):
    args = [ember.from_numpy(rng.uniform(-1, 1, s)).requires_grad_(True)
            for s in (xs, ws, bs) if s]
    assert ember.autograd.gradcheck(lambda *a: E.conv2d(*a, **kw), args, eps=1e-6, atol=1e-5,
                                    rtol=1e-3)
    assert ember.autograd.gradcheck(lambda x, w: E.conv_transpose2d(x, w.transpose(0, 1), **kw),
                                    args[:2], eps=1e-6, atol=1e-5, rtol=1e-3)
print("ok")
"""


def test_folded_conv_forced_everywhere():
    """EMBER_CONV_FOLD=1 sends every float32 and float64 2-d convolution without groups (but
    1x1 stride 1) to the folded path: each against torch, and float64 by finite differences."""
    env = dict(os.environ, EMBER_CONV_FOLD="1")
    r = subprocess.run([sys.executable, "-c", _FORCED], env=env, capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr[-3000:]
