"""Convolutions on oneDNN (Note [Convolution on oneDNN] in src/kernels/cpu/conv_dnnl.cpp): the
geometries the policy sends there (at least 8 input channels per group and strided, onto small
outputs, depthwise, conv3d, conv_transpose's adjoints of those), forward and every gradient
against torch, with and without bias, strided views, batches of 0 and 1, one and two threads; and
every other geometry forced onto oneDNN (EMBER_CONV_DNNL=1) or kept off it (=0) in a child
process, so both routes of each shape class are checked whatever the policy picks."""
import os
import subprocess
import sys

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import ember
from helpers import LAYOUTS, check_grad, make_inputs, to_numpy


pytestmark = pytest.mark.filterwarnings("ignore:Using padding='same'")


def F(m):
    return TF if m is torch else ember.nn.functional


# (input, weight, kwargs): conv2d / conv3d geometries the policy routes to oneDNN.
CONV_CASES = [
    ((2, 16, 12, 12), (24, 16, 4, 4), {"stride": 2, "padding": 1}),  # DCGAN's D layers
    ((3, 32, 4, 4), (1, 32, 4, 4), {}),  # DCGAN's last D layer: onto one pixel
    ((2, 16, 9, 9), (8, 16, 4, 4), {"stride": 2}),  # the last input row is never read
    ((2, 16, 7, 9), (12, 16, 3, 2), {"stride": (2, 3), "padding": (1, 0)}),
    ((2, 16, 11, 11), (8, 16, 3, 3), {"stride": 2, "padding": 2, "dilation": 2}),
    ((2, 32, 9, 9), (16, 8, 3, 3), {"stride": 2, "padding": 1, "groups": 4}),
    ((2, 12, 8, 8), (12, 1, 3, 3), {"padding": 1, "groups": 12}),  # depthwise
    ((2, 6, 8, 8), (12, 1, 3, 3), {"stride": 2, "padding": 1, "groups": 6}),  # multiplier 2
    ((2, 16, 6, 6), (16, 16, 3, 3), {"padding": "same"}),  # stride 1 onto 6x6
    ((2, 16, 5, 6), (8, 16, 2, 3), {"padding": "same"}),  # uneven 'same'
    ((2, 8, 5, 6, 6), (8, 8, 3, 3, 3), {"stride": 2, "padding": 1}),  # conv3d
]
IDS = [f"{i}-{s}-{w}-{kw}" for i, (s, w, kw) in enumerate(CONV_CASES)]


def _conv(m, x, w, b=None, **kw):
    fn = F(m).conv3d if x.dim() == 5 else F(m).conv2d
    return fn(x, w, b, **kw)


@pytest.mark.parametrize("shape,wshape,kw", CONV_CASES, ids=IDS)
def test_dnnl_conv_grad(shape, wshape, kw):
    check_grad(lambda m, x, w, b: _conv(m, x, w, b, **kw), [shape, wshape, (wshape[0],)],
               dtypes=["float32"], layouts=LAYOUTS, rtol=1e-4, atol=5e-4)
    check_grad(lambda m, x, w: _conv(m, x, w, **kw), [shape, wshape], dtypes=["float32"],
               rtol=1e-4, atol=5e-4)


# (input, weight, kwargs) of conv_transpose2d/3d: their forward is conv's backward-data.
TRANSPOSE_CASES = [
    ((2, 24, 1, 1), (24, 16, 4, 4), {}),  # DCGAN's first G layer: from one pixel
    ((2, 16, 4, 4), (16, 8, 4, 4), {"stride": 2, "padding": 1}),  # its other G layers
    ((2, 16, 4, 5), (16, 8, 3, 3), {"stride": 2, "padding": 1, "output_padding": 1}),
    ((2, 16, 5, 5), (16, 4, 3, 3), {"stride": 2, "groups": 2, "dilation": 2}),
    ((2, 16, 3, 3, 3), (16, 8, 4, 4, 4), {"stride": 2, "padding": 1}),
]


@pytest.mark.parametrize("shape,wshape,kw", TRANSPOSE_CASES,
                         ids=[f"{i}" for i in range(len(TRANSPOSE_CASES))])
def test_dnnl_conv_transpose_grad(shape, wshape, kw):
    def fn(m, x, w):
        f = F(m).conv_transpose3d if x.dim() == 5 else F(m).conv_transpose2d
        return f(x, w, **kw)
    check_grad(fn, [shape, wshape], dtypes=["float32"], layouts=["contiguous", "transposed"],
               rtol=1e-4, atol=5e-4)


@pytest.mark.parametrize("requires", [(True, False, False), (False, True, False),
                                      (False, False, True), (False, True, True)])
def test_dnnl_conv_partial_grads(requires):
    """Only the gradients asked for; grad_bias alone still runs backward-weights."""
    check_grad(lambda m, x, w, b: F(m).conv2d(x, w, b, stride=2, padding=1),
               [(2, 16, 8, 8), (8, 16, 4, 4), (8,)], dtypes=["float32"], requires=list(requires),
               atol=5e-4)


def test_dnnl_conv_batch_of_one_zero_and_unbatched():
    kw = {"stride": 2, "padding": 1}
    for shape in [(1, 16, 8, 8), (16, 8, 8)]:
        check_grad(lambda m, x, w: F(m).conv2d(x, w, **kw), [shape, (8, 16, 4, 4)],
                   dtypes=["float32"], atol=5e-4)
    x = ember.zeros(0, 16, 8, 8, requires_grad=True)
    w = ember.ones(8, 16, 4, 4, requires_grad=True)
    y = ember.nn.functional.conv2d(x, w, **kw)
    assert tuple(y.shape) == (0, 8, 4, 4)
    y.sum().backward()
    assert tuple(x.grad.shape) == (0, 16, 8, 8)
    np.testing.assert_array_equal(to_numpy(w.grad), np.zeros((8, 16, 4, 4), np.float32))


@pytest.mark.parametrize("threads", [1, 2])
def test_dnnl_conv_thread_counts(threads):
    """Each thread count matches torch (oneDNN's weight gradient may differ between thread
    counts in the last bits; the Note says so)."""
    old = ember.get_num_threads()
    try:
        ember.set_num_threads(threads)
        check_grad(lambda m, x, w, b: F(m).conv2d(x, w, b, stride=2, padding=1),
                   [(5, 32, 10, 10), (16, 32, 4, 4), (16,)], dtypes=["float32"], atol=5e-4)
        check_grad(lambda m, x, w: F(m).conv_transpose2d(x, w, stride=2, padding=1),
                   [(5, 32, 5, 5), (32, 16, 4, 4)], dtypes=["float32"], atol=5e-4)
    finally:
        ember.set_num_threads(old)


def test_dnnl_conv_non_finite_values():
    """inf and NaN land where torch puts them (no padded zero times inf)."""
    es, ts = make_inputs([(2, 16, 8, 8), (8, 16, 4, 4)], "float32")
    for e, t in zip(es, ts):
        for a in (e, t):
            a[0, 1, 2, 3] = float("inf")
        e.requires_grad_(True), t.requires_grad_(True)
    ye = ember.nn.functional.conv2d(*es, stride=2, padding=1)
    yt = TF.conv2d(*ts, stride=2, padding=1)
    np.testing.assert_allclose(to_numpy(ye), to_numpy(yt), rtol=1e-4, atol=5e-4)
    g = np.random.default_rng(0).uniform(-1, 1, tuple(yt.shape)).astype(np.float32)
    ye.backward(ember.from_numpy(g.copy()))
    yt.backward(torch.from_numpy(g.copy()))
    for e, t in zip(es, ts):
        np.testing.assert_allclose(to_numpy(e.grad), to_numpy(t.grad), rtol=1e-4, atol=5e-4)


BF16_CASES = [
    ((2, 16, 8, 8), (8, 16, 4, 4), (8,), {"stride": 2, "padding": 1}, False),
    ((2, 3, 9, 9), (4, 3, 3, 3), (4,), {"padding": 1}, False),  # few channels: still oneDNN
    ((2, 8, 6, 6), (8, 1, 3, 3), None, {"padding": 1, "groups": 8}, False),
    ((2, 16, 4, 4), (16, 8, 4, 4), None, {"stride": 2, "padding": 1}, True),
]


def _bf16_grads(m, arrs, kw, transpose, layout="contiguous"):
    ts = [m.from_numpy(a.copy()).to(m.bfloat16) for a in arrs]
    if layout == "transposed":  # a strided input view
        ts[0] = ts[0].transpose(2, 3).contiguous().transpose(2, 3)
    ts = [t.requires_grad_(True) for t in ts]
    f = F(m).conv_transpose2d if transpose else F(m).conv2d
    y = f(*ts, **kw)
    g = np.random.default_rng(1).uniform(-1, 1, tuple(y.shape)).astype(np.float32)
    y.backward(m.from_numpy(g).to(m.bfloat16))
    assert str(y.dtype).endswith("bfloat16") and all(str(t.grad.dtype).endswith("bfloat16")
                                                     for t in ts)
    return [y.detach().float().numpy()] + [t.grad.float().numpy() for t in ts]


@pytest.mark.parametrize("shape,wshape,bshape,kw,transpose", BF16_CASES,
                         ids=[str(i) for i in range(len(BF16_CASES))])
@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
def test_dnnl_conv_bfloat16(shape, wshape, bshape, kw, transpose, layout):
    """Note [bfloat16 convolution]: bfloat16 in and out, float32 sums rounded once: within one
    bfloat16 rounding of torch's (its CPU convolution rounds the same way)."""
    rng = np.random.default_rng(0)
    arrs = [rng.uniform(-2, 2, s).astype(np.float32) for s in (shape, wshape, bshape) if s]
    for a, b in zip(_bf16_grads(ember, arrs, kw, transpose, layout),
                    _bf16_grads(torch, arrs, kw, transpose, layout)):
        np.testing.assert_allclose(a, b, rtol=2 ** -7, atol=2 ** -7 * np.abs(b).max())


_BOTH_ROUTES = r"""
import numpy as np, torch, torch.nn.functional as TF, ember
cases = [((2, 1, 9, 9), (4, 1, 3, 3), (4,), {"padding": 1}),  # few channels: ember's im2col
         ((2, 3, 12, 12), (8, 3, 4, 4), None, {"stride": 2, "padding": 1}),
         ((2, 8, 15, 15), (8, 8, 3, 3), (8,), {"padding": 1}),  # ember's direct kernels
         ((2, 8, 6, 7), (16, 8, 1, 1), (16,), {}),  # 1x1: BLAS in place
         ((2, 16, 8, 8), (8, 16, 4, 4), None, {"stride": 2, "padding": 1}),
         ((2, 8, 8, 8), (8, 1, 3, 3), (8,), {"padding": 1, "groups": 8})]
rng = np.random.default_rng(0)
for xs, ws, bs, kw in cases:
    arrs = [rng.uniform(-2, 2, s).astype(np.float32) for s in (xs, ws, bs) if s]
    e = [ember.from_numpy(a.copy()).requires_grad_(True) for a in arrs]
    t = [torch.from_numpy(a.copy()).requires_grad_(True) for a in arrs]
    ye, yt = ember.nn.functional.conv2d(*e, **kw), TF.conv2d(*t, **kw)
    g = rng.uniform(-1, 1, tuple(yt.shape)).astype(np.float32)
    ye.backward(ember.from_numpy(g.copy())), yt.backward(torch.from_numpy(g.copy()))
    np.testing.assert_allclose(ye.detach().numpy(), yt.detach().numpy(), rtol=1e-4, atol=5e-4)
    for a, b in zip(e, t):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-4, atol=5e-4)
    xt = torch.from_numpy(arrs[0][:1].copy()).requires_grad_(True)  # conv_transpose: adjoint
    wt = torch.from_numpy(rng.uniform(-2, 2, (xs[1], 4) + ws[2:]).astype(np.float32))
    kt = {k: v for k, v in kw.items() if k != "groups" and v != "same"}
    ot = TF.conv_transpose2d(xt, wt, **kt)
    oe = ember.nn.functional.conv_transpose2d(ember.from_numpy(xt.detach().numpy().copy()),
                                   ember.from_numpy(wt.numpy().copy()), **kt)
    np.testing.assert_allclose(oe.numpy(), ot.detach().numpy(), rtol=1e-4, atol=5e-4)
    xb, wb = (ember.from_numpy(a.copy()).to(ember.bfloat16) for a in arrs[:2])  # native/widened
    yb = ember.nn.functional.conv2d(xb, wb, **kw).float().numpy()
    ytb = TF.conv2d(*(torch.from_numpy(a.copy()).bfloat16() for a in arrs[:2]), **kw).float()
    np.testing.assert_allclose(yb, ytb.numpy(), rtol=2 ** -7, atol=2 ** -7 * ytb.abs().max().item())
print("ok")
"""


@pytest.mark.parametrize("route", ["0", "1"])
def test_conv_both_routes(route):
    """EMBER_CONV_DNNL=1 sends every float32 geometry oneDNN takes to it, =0 none: each shape
    class is then right on the route the policy does not pick for it."""
    env = dict(os.environ, EMBER_CONV_DNNL=route)
    r = subprocess.run([sys.executable, "-c", _BOTH_ROUTES], env=env, capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr[-3000:]
