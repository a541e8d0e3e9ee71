"""The direct float32 convolution (src/kernels/cpu/conv_direct.cpp: stride 1, at least 4
output channels per group, a CPU with AVX2 or AVX-512): forward and all three gradients
against torch, on shapes that reach its edge cases (grid rows wider than a vector, padding
wider than the kernel, batch chunks of the weight gradient, groups, dilation, views), the
im2col fallbacks it hands grad_input to (few input channels, non-finite weights), results
that do not depend on the thread count, and the AVX2 copy of its kernels."""
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
    return TF if m is torch else ember._C


DIRECT_CASES = [
    ((3, 16, 14, 14), (32, 16, 3, 3), {"padding": 1}),  # the Fashion-MNIST CNN's 2nd layer
    ((3, 1, 28, 28), (16, 1, 3, 3), {"padding": 1}),  # its 1st layer (grad_input: im2col)
    ((2, 4, 5, 37), (5, 4, 3, 3), {"padding": 1}),  # rows of 37: vectors straddle rows
    ((2, 4, 9, 20), (6, 4, 3, 2), {"padding": (2, 1)}),  # rows of 21 padded to 32
    ((2, 5, 6, 7), (4, 5, 2, 3), {"padding": (3, 4)}),  # padding wider than the kernel
    ((2, 6, 9, 8), (4, 6, 3, 3), {"dilation": (2, 3), "padding": 2}),
    ((2, 8, 7, 7), (12, 4, 3, 3), {"groups": 2, "padding": 1}),
    ((2, 12, 6, 5), (12, 4, 1, 3), {"groups": 3, "padding": (0, 1)}),  # grad_input: im2col
    ((2, 7, 5, 6), (9, 7, 1, 1), {}),  # 1x1
    ((2, 4, 6, 6), (20, 4, 4, 4), {"padding": "same"}),  # uneven 'same', 20 = 16 + 4 rows
    ((1, 4, 1, 1), (4, 4, 1, 1), {}),  # one pixel
    ((2, 4, 3, 3), (4, 4, 5, 5), {"padding": 1}),  # kernel = whole padded image
]
IDS = [f"{i}-{s}-{w}-{kw}" for i, (s, w, kw) in enumerate(DIRECT_CASES)]


@pytest.mark.parametrize("shape,wshape,kw", DIRECT_CASES, ids=IDS)
def test_direct_conv2d_grad(shape, wshape, kw):
    shapes = [shape, wshape, (wshape[0],)]
    check_grad(lambda m, x, w, b: F(m).conv2d(x, w, b, **kw), shapes, dtypes=["float32"],
               layouts=LAYOUTS, rtol=1e-4, atol=2e-4)


def test_direct_conv2d_unbatched_and_no_bias():
    check_grad(lambda m, x, w: F(m).conv2d(x, w, padding=1), [(8, 9, 10), (8, 8, 3, 3)],
               dtypes=["float32"], atol=2e-4)


def test_direct_conv2d_channels_last_and_strided_views():
    for view in [lambda t: t.permute(0, 3, 1, 2), lambda t: t[:, ::2, 1::2, :].permute(0, 3, 1, 2)]:
        check_grad(lambda m, x, w, b: F(m).conv2d(view(x), w, b, padding=1),
                   [(3, 10, 18, 5), (8, 5, 3, 3), (8,)], dtypes=["float32"], atol=2e-4)


def _grads(shapes, kw, threads, requires=(True, True, True)):
    es, _ = make_inputs(shapes, "float32")
    old = ember.get_num_threads()
    try:
        ember.set_num_threads(threads)
        xs = [t.detach().requires_grad_(r) for t, r in zip(es, requires)]
        y = ember._C.conv2d(*xs, **kw)
        ember.autograd.backward([y], [ember.ones(*y.shape)])
        return [to_numpy(y)] + [to_numpy(t.grad) for t, r in zip(xs, requires) if r]
    finally:
        ember.set_num_threads(old)


@pytest.mark.parametrize("shapes,kw", [
    ([(37, 16, 14, 14), (32, 16, 3, 3), (32,)], {"padding": 1}),  # several batch chunks
    ([(5, 1, 28, 28), (16, 1, 3, 3), (16,)], {"padding": 1}),  # taps split for threads
    ([(1, 8, 30, 30), (8, 8, 3, 3), (8,)], {"padding": 1}),  # one image: tiles split
    ([(9, 8, 11, 11), (16, 4, 3, 3), (16,)], {"groups": 2, "dilation": 2}),
])
def test_direct_conv2d_same_result_for_any_thread_count(shapes, kw):
    """Note [Deterministic convolution gradients]: bit-identical for 1 and 2 threads, and
    equal to torch."""
    if shapes[0][0] == 1 and os.environ.get("EMBER_DISABLE_SIMD", "0") not in ("", "0"):
        pytest.skip("im2col path: one image's GEMMs run on BLAS's threads, whose sums "
                    "depend on the thread count")
    one, two = _grads(shapes, kw, 1), _grads(shapes, kw, 2)
    for a, b in zip(one, two):
        np.testing.assert_array_equal(a, b)
    check_grad(lambda m, x, w, b: F(m).conv2d(x, w, b, **kw), shapes, dtypes=["float32"],
               rtol=2e-4, atol=5e-4)


def test_direct_conv2d_batch_chunks_sum_in_order():
    """A batch of many chunks (about 1 MB of padded images each) still matches float64."""
    shapes = [(300, 8, 20, 20), (8, 8, 3, 3), (8,)]
    es, _ = make_inputs(shapes, "float32")
    x, w, b = [t.detach().requires_grad_(True) for t in es]
    y = ember._C.conv2d(x, w, b, padding=1)
    ember.autograd.backward([y], [ember.ones(*y.shape)])
    xd, wd, bd = [torch.from_numpy(to_numpy(t).astype(np.float64)).requires_grad_(True) for t in es]
    yd = TF.conv2d(xd, wd, bd, padding=1)
    yd.backward(torch.ones_like(yd))
    np.testing.assert_allclose(to_numpy(w.grad), wd.grad.numpy(), rtol=1e-4, atol=2e-3)
    np.testing.assert_allclose(to_numpy(b.grad), bd.grad.numpy(), rtol=1e-5, atol=1e-3)
    np.testing.assert_allclose(to_numpy(x.grad), xd.grad.numpy(), rtol=1e-4, atol=1e-4)


def test_direct_conv2d_non_finite_values():
    """inf / NaN land where torch puts them: grad_input with non-finite weights runs the
    im2col path (a padded zero times inf would be NaN), the weight gradient visits only
    real pixels."""
    es, ts = make_inputs([(2, 8, 6, 7), (8, 8, 3, 3), (8,)], "float32", seed=3)
    xe, we, be = [to_numpy(t).copy() for t in es]
    xe[0, 1, 2, 3] = np.inf
    xe[1, 0, 0, 0] = np.nan
    we[2, 3, 1, 1] = -np.inf
    out = []
    for m in (torch, ember):
        x, w, b = [m.tensor(a).requires_grad_(True) for a in (xe, we, be)]
        y = F(m).conv2d(x, w, b, padding=1)
        g = m.tensor(np.linspace(-1, 1, int(np.prod(y.shape)), dtype=np.float32).reshape(tuple(y.shape)))
        gx, gw, gb = m.autograd.grad(y, (x, w, b), g)
        out.append([to_numpy(t) for t in (y, gx, gw, gb)])
    for e, t in zip(out[1], out[0]):
        np.testing.assert_array_equal(np.isnan(e), np.isnan(t))
        np.testing.assert_array_equal(np.isinf(e), np.isinf(t))
        fin = np.isfinite(t)
        np.testing.assert_allclose(e[fin], t[fin], rtol=1e-4, atol=1e-3)


def test_direct_conv2d_float64_and_integers_keep_im2col():
    check_grad(lambda m, x, w, b: F(m).conv2d(x, w, b, padding=1),
               [(2, 4, 6, 6), (8, 4, 3, 3), (8,)], dtypes=["float64"], atol=1e-9)


_AVX2_SCRIPT = r"""
import numpy as np, torch, ember
rng = np.random.default_rng(0)
for xs, ws, kw in [((3, 16, 14, 14), (32, 16, 3, 3), dict(padding=1)),
                   ((2, 4, 5, 37), (5, 4, 3, 3), dict(padding=1)),
                   ((2, 8, 7, 7), (12, 4, 3, 3), dict(groups=2, padding=1, dilation=(1, 2)))]:
    a = [rng.standard_normal(s).astype(np.float32) for s in (xs, ws, ws[:1])]
    r = []
    for m in (torch, ember):
        x, w, b = [m.tensor(v).requires_grad_(True) for v in a]
        f = torch.nn.functional.conv2d if m is torch else ember.nn.functional.conv2d
        y = f(x, w, b, **kw)
        g = m.tensor(np.ones(tuple(y.shape), np.float32))
        r.append([y.detach().numpy() if m is torch else np.asarray(y.detach())]
                 + [t.numpy() if m is torch else np.asarray(t) for t in m.autograd.grad(y, (x, w, b), g)])
    for e, t in zip(r[1], r[0]):
        np.testing.assert_allclose(e, t, rtol=1e-4, atol=5e-4)
print("ok")
"""


def test_direct_conv2d_avx2_copy():
    """The AVX2 kernels (EMBER_SIMD_TARGET=avx2 caps the instruction set for the process)."""
    env = dict(os.environ, EMBER_SIMD_TARGET="avx2")
    r = subprocess.run([sys.executable, "-c", _AVX2_SCRIPT], env=env, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0 and r.stdout.strip().endswith("ok"), r.stdout + r.stderr
