"""conv2d and the 2-d pools (max, max with indices, avg, adaptive avg): forward and backward
against torch.nn.functional, finite-difference gradchecks, and bad inputs."""
import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import ember
from helpers import LAYOUTS, check_grad, check_op, gradcheck_op, make_inputs, to_numpy

# torch warns that it copies the input for an uneven padding='same'; ember does not need to.
pytestmark = pytest.mark.filterwarnings("ignore:Using padding='same'")


def F(m):
    """The functional namespace of either library."""
    return TF if m is torch else ember._C


# ---------------------------------------------------------------- conv2d

# (input shape, weight shape, kwargs): strides, paddings, dilations, groups, 1x1 kernels,
# kernels as large as the padded input, unbatched inputs.
CONV_CASES = [
    ((2, 3, 7, 6), (4, 3, 3, 3), {}),
    ((2, 3, 7, 6), (4, 3, 3, 2), {"stride": 2}),
    ((2, 3, 7, 6), (4, 3, 3, 3), {"stride": (2, 1), "padding": (1, 2)}),
    ((2, 3, 9, 8), (2, 3, 3, 3), {"dilation": 2, "padding": 1}),
    ((2, 3, 9, 8), (2, 3, 2, 3), {"dilation": (2, 3), "stride": (1, 2)}),
    ((2, 4, 6, 6), (6, 2, 3, 3), {"groups": 2, "padding": 1}),
    ((2, 4, 6, 6), (4, 1, 3, 3), {"groups": 4}),  # depthwise
    ((2, 5, 4, 6), (3, 5, 1, 1), {}),  # 1x1: BLAS reads the image in place
    ((2, 4, 4, 6), (6, 2, 1, 1), {"groups": 2}),
    ((2, 5, 4, 6), (3, 5, 1, 1), {"stride": 2}),
    ((2, 3, 4, 5), (2, 3, 4, 5), {}),  # kernel = whole image
    ((2, 3, 3, 3), (2, 3, 5, 5), {"padding": 1}),  # kernel = whole padded image
    ((6, 5, 4), (4, 3, 3, 3), {"groups": 2, "padding": 1}),  # unbatched
    ((1, 2, 5, 5), (3, 2, 3, 3), {"padding": "same"}),
    ((2, 2, 5, 6), (3, 2, 2, 4), {"padding": "same", "dilation": (1, 2)}),  # uneven 'same'
    ((2, 2, 5, 6), (3, 2, 3, 3), {"padding": "valid"}),
]


def _conv_ids():
    return [f"{i}-{s}-{w}-{kw}" for i, (s, w, kw) in enumerate(CONV_CASES)]


@pytest.mark.parametrize("shape,wshape,kw", CONV_CASES, ids=_conv_ids())
@pytest.mark.parametrize("bias", [True, False])
def test_conv2d_forward(shape, wshape, kw, bias):
    shapes = [shape, wshape] + ([(wshape[0],)] if bias else [])
    check_op(lambda m, x, w, *b: F(m).conv2d(x, w, *b, **kw), shapes,
             dtypes=["float32", "float64"], layouts=LAYOUTS, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("shape,wshape,kw", CONV_CASES, ids=_conv_ids())
@pytest.mark.parametrize("bias", [True, False])
def test_conv2d_grad(shape, wshape, kw, bias):
    shapes = [shape, wshape] + ([(wshape[0],)] if bias else [])
    check_grad(lambda m, x, w, *b: F(m).conv2d(x, w, *b, **kw), shapes, layouts=LAYOUTS,
               rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("requires", [[True, False, False], [False, True, False],
                                      [False, False, True], [False, True, True]])
def test_conv2d_grad_of_some_inputs(requires):
    check_grad(lambda m, x, w, b: F(m).conv2d(x, w, b, padding=1), [(2, 3, 5, 5), (4, 3, 3, 3), (4,)],
               requires=requires, atol=1e-4)


def test_conv2d_channels_last_and_strided_views():
    """Inputs whose rows are not contiguous reach im2col through their strides."""
    for view in [lambda t: t.permute(0, 3, 1, 2), lambda t: t[:, ::2, 1::2, :].permute(0, 3, 1, 2)]:
        es, ts = make_inputs([(2, 10, 12, 3), (4, 3, 3, 3)], "float32")
        e = ember._C.conv2d(view(es[0]), es[1], padding=1)
        t = TF.conv2d(view(ts[0]), ts[1], padding=1)
        np.testing.assert_allclose(to_numpy(e), to_numpy(t), rtol=1e-4, atol=1e-5)
    # 1x1 kernels on a permuted input cannot be read in place: im2col copies them
    check_grad(lambda m, x, w: F(m).conv2d(x.permute(0, 3, 1, 2), w), [(2, 4, 5, 3), (2, 3, 1, 1)])


def test_conv2d_larger_batch_uses_threads_and_blocks():
    """More images than threads and than grad_weight blocks (Note [Deterministic convolution
    gradients]); the result must not depend on the thread count."""
    kw = {"padding": 1, "stride": 1}
    check_grad(lambda m, x, w, b: F(m).conv2d(x, w, b, **kw), [(37, 3, 12, 12), (8, 3, 3, 3), (8,)],
               dtypes=["float64"], atol=1e-8)
    es, _ = make_inputs([(37, 3, 12, 12), (8, 3, 3, 3), (8,)], "float32")
    grads = []
    old = ember.get_num_threads()
    try:
        for n in (1, 2):
            ember.set_num_threads(n)
            xs = [t.detach().requires_grad_(True) for t in es]
            y = ember._C.conv2d(*xs, **kw)
            ember.autograd.backward([y], [ember.ones(*y.shape)])
            grads.append([to_numpy(t.grad) for t in xs])
    finally:
        ember.set_num_threads(old)
    for a, b in zip(*grads):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8"])
def test_conv2d_integer_dtypes(dtype):
    check_op(lambda m, x, w, b: F(m).conv2d(x, w, b, padding=1, stride=2),
             [(2, 3, 6, 5), (4, 3, 3, 3), (4,)], dtypes=[dtype])


def test_conv2d_empty():
    check_op(lambda m, x, w, b: F(m).conv2d(x, w, b), [(0, 3, 5, 5), (4, 3, 3, 3), (4,)])
    # no input channels: the output is the bias (torch returns an empty (2, 0, 3, 3) here)
    e = ember._C.conv2d(ember.ones(2, 0, 5, 5), ember.ones(4, 0, 3, 3), ember.arange(4.0))
    assert tuple(e.shape) == (2, 4, 3, 3)
    np.testing.assert_array_equal(to_numpy(e), np.broadcast_to(np.arange(4.0).reshape(4, 1, 1), (2, 4, 3, 3)))
    check_grad(lambda m, x, w, b: F(m).conv2d(x, w, b), [(0, 3, 5, 5), (4, 3, 3, 3), (4,)])


@pytest.mark.parametrize("shapes,kw", [
    ([(2, 2, 5, 4), (3, 2, 3, 2), (3,)], {"stride": (2, 1), "padding": 1}),
    ([(1, 4, 5, 5), (4, 2, 2, 2), (4,)], {"groups": 2, "dilation": 2}),
    ([(2, 5, 4), (3, 2, 3, 3), (3,)], {"padding": "same"}),
    ([(2, 3, 3, 4), (2, 3, 1, 1), (2,)], {}),
])
def test_conv2d_gradcheck(shapes, kw):
    gradcheck_op(lambda m, x, w, b: F(m).conv2d(x, w, b, **kw), shapes)


def test_conv2d_grad_fn_name_and_no_grad():
    x = ember.randn(1, 2, 4, 4, requires_grad=True)
    w = ember.randn(3, 2, 3, 3)
    assert type(ember._C.conv2d(x, w).grad_fn).__name__ == "ConvolutionBackward0" or \
        "Convolution" in str(ember._C.conv2d(x, w).grad_fn)
    with ember.no_grad():
        assert not ember._C.conv2d(x, w).requires_grad


def _raises(kind, match, fn):
    with pytest.raises(kind, match=match):
        fn()


def test_conv2d_bad_inputs():
    x, w = ember.ones(2, 3, 5, 5), ember.ones(4, 3, 3, 3)
    c = ember._C.conv2d
    _raises(RuntimeError, r"conv2d.*3-d \(unbatched\) or 4-d.*\(3, 5\)", lambda: c(ember.ones(3, 5), w))
    _raises(RuntimeError, r"conv2d.*4-d weight.*\(4, 3, 3\)", lambda: c(x, ember.ones(4, 3, 3)))
    _raises(RuntimeError, r"conv2d.*\(4, 2, 3, 3\).*\(2, 3, 5, 5\).*2 channels, but got 3",
            lambda: c(x, ember.ones(4, 2, 3, 3)))
    _raises(RuntimeError, r"conv2d.*Kernel size can't be greater", lambda: c(x, ember.ones(4, 3, 6, 6)))
    _raises(RuntimeError, r"conv2d.*Kernel size: \(7 x 7\)", lambda: c(x, ember.ones(4, 3, 3, 3), dilation=3))
    _raises(RuntimeError, r"conv2d.*groups=2.*not divisible by 2",
            lambda: c(x, ember.ones(4, 1, 3, 3), groups=2))
    _raises(RuntimeError, r"conv2d.*groups=3.*divisible by 3", lambda: c(x, ember.ones(4, 1, 3, 3), groups=3))
    _raises(RuntimeError, r"conv2d.*bias.*4 elements.*\(3,\)", lambda: c(x, w, ember.ones(3)))
    _raises(RuntimeError, r"conv2d.*stride", lambda: c(x, w, stride=0))
    _raises(RuntimeError, r"conv2d.*stride", lambda: c(x, w, stride=(1, 1, 1)))
    _raises(RuntimeError, r"conv2d.*padding", lambda: c(x, w, padding=-1))
    _raises(RuntimeError, r"conv2d.*dilation", lambda: c(x, w, dilation=0))
    _raises(RuntimeError, r"conv2d.*groups", lambda: c(x, w, groups=0))
    _raises(RuntimeError, r"conv2d.*same.*strided", lambda: c(x, w, padding="same", stride=2))
    _raises(RuntimeError, r"conv2d.*padding string 'foo'", lambda: c(x, w, padding="foo"))
    _raises(RuntimeError, r"conv2d.*weight", lambda: c(x, ember.ones(0, 3, 3, 3)))
    _raises(RuntimeError, r"conv2d.*kernel size must be positive", lambda: c(x, ember.ones(4, 3, 0, 3)))
    _raises(TypeError, r"conv2d.*float32.*float64", lambda: c(x, w.double()))
    _raises(TypeError, r"conv2d.*bias", lambda: c(x, w, ember.ones(4, dtype=ember.float64)))
    _raises(NotImplementedError, r"conv2d.*bool", lambda: c(x.bool(), w.bool()))
    _raises(TypeError, r"conv2d.*stride", lambda: c(x, w, stride=1.5))
    _raises(TypeError, r"conv2d.*stride", lambda: c(x, w, stride=None))


def test_conv2d_error_leaves_inputs_untouched_and_versions():
    x = ember.randn(1, 2, 5, 5, requires_grad=True)
    w = ember.randn(3, 2, 3, 3, requires_grad=True)
    y = ember._C.conv2d(x, w)
    with ember.no_grad():
        w.mul_(2)  # modified after being saved for backward
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        ember.autograd.backward([y], [ember.ones(*y.shape)])


# ---------------------------------------------------------------- pooling

MAX_CASES = [
    ((2, 3, 8, 7), {"kernel_size": 2}),  # 2x2 and 3x3 windows inside the input: a fast path
    ((2, 3, 7, 8), {"kernel_size": 3, "stride": 1}),
    ((2, 3, 8, 7), {"kernel_size": (3, 2), "stride": (2, 1)}),
    ((2, 3, 8, 7), {"kernel_size": 3, "stride": 2, "padding": 1}),
    ((2, 3, 9, 9), {"kernel_size": 3, "stride": 2, "dilation": 2, "padding": 1}),
    ((2, 3, 8, 7), {"kernel_size": 3, "stride": 2, "ceil_mode": True}),
    ((2, 3, 5, 5), {"kernel_size": 2, "stride": 2, "padding": 1, "ceil_mode": True}),
    ((3, 6, 6), {"kernel_size": 2}),  # unbatched
    ((1, 1, 1, 1), {"kernel_size": 1}),
]


@pytest.mark.parametrize("shape,kw", MAX_CASES, ids=[str(i) for i in range(len(MAX_CASES))])
def test_max_pool2d(shape, kw):
    check_op(lambda m, x: F(m).max_pool2d(x, **kw), [shape], dtypes=["float32", "float64", "int64",
                                                                       "int32", "uint8"],
             layouts=LAYOUTS)
    check_op(lambda m, x: F(m).max_pool2d_with_indices(x, **kw), [shape], layouts=LAYOUTS)
    check_op(lambda m, x: F(m).max_pool2d(x, return_indices=True, **kw), [shape])
    check_grad(lambda m, x: F(m).max_pool2d(x, **kw), [shape], layouts=LAYOUTS)
    check_grad(lambda m, x: F(m).max_pool2d_with_indices(x, **kw)[0], [shape])


def test_max_pool2d_gradcheck_and_overlapping_windows():
    # overlapping windows: one input can be the max of several outputs (gradients add up)
    gradcheck_op(lambda m, x: F(m).max_pool2d(x, 3, stride=1, padding=1), [(2, 2, 5, 4)])
    gradcheck_op(lambda m, x: F(m).max_pool2d(x, 2, ceil_mode=True), [(3, 5, 5)])


def test_max_pool2d_nan_and_infinity():
    t = torch.tensor([[[[float("nan"), 1.0], [float("nan"), 2.0]],
                       [[-float("inf"), -float("inf")], [-float("inf"), -float("inf")]]]])
    e = ember.from_numpy(t.numpy().copy())
    for kw in [{}, {"padding": 1}, {"stride": 1}]:  # the fast path and the general one
        for i, j in zip(ember._C.max_pool2d_with_indices(e, 2, **kw), TF.max_pool2d_with_indices(t, 2, **kw)):
            np.testing.assert_array_equal(to_numpy(i), to_numpy(j))


AVG_CASES = [
    ((2, 3, 8, 7), {"kernel_size": 2}),
    ((2, 3, 8, 7), {"kernel_size": (3, 2), "stride": (2, 1)}),
    ((2, 3, 8, 7), {"kernel_size": 3, "stride": 2, "padding": 1}),
    ((2, 3, 8, 7), {"kernel_size": 3, "stride": 2, "padding": 1, "count_include_pad": False}),
    ((2, 3, 8, 7), {"kernel_size": 3, "stride": 2, "ceil_mode": True}),
    ((2, 3, 5, 5), {"kernel_size": 2, "padding": 1, "ceil_mode": True}),
    ((2, 3, 5, 6), {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True,
                    "count_include_pad": False}),
    ((2, 3, 5, 6), {"kernel_size": 2, "padding": 1, "divisor_override": 3}),
    ((3, 6, 6), {"kernel_size": 2}),  # unbatched
]


@pytest.mark.parametrize("shape,kw", AVG_CASES, ids=[str(i) for i in range(len(AVG_CASES))])
def test_avg_pool2d(shape, kw):
    check_op(lambda m, x: F(m).avg_pool2d(x, **kw), [shape], dtypes=["float32", "float64", "int64"],
             layouts=LAYOUTS)
    check_grad(lambda m, x: F(m).avg_pool2d(x, **kw), [shape], layouts=LAYOUTS)
    gradcheck_op(lambda m, x: F(m).avg_pool2d(x, **kw), [shape])


ADAPTIVE_CASES = [((2, 3, 8, 7), 2), ((2, 3, 8, 7), (3, 5)), ((2, 3, 5, 5), 7), ((2, 3, 5, 6), 1),
                  ((2, 3, 5, 6), (None, 4)), ((3, 6, 5), (2, 3)), ((2, 3, 4, 4), 0),
                  ((2, 3, 6, 6), 6)]


@pytest.mark.parametrize("shape,size", ADAPTIVE_CASES, ids=[str(i) for i in range(len(ADAPTIVE_CASES))])
def test_adaptive_avg_pool2d(shape, size):
    check_op(lambda m, x: F(m).adaptive_avg_pool2d(x, size), [shape], dtypes=["float32", "float64"],
             layouts=LAYOUTS)
    if size == 0:
        return  # torch refuses the backward of an empty output
    check_grad(lambda m, x: F(m).adaptive_avg_pool2d(x, size), [shape], layouts=LAYOUTS)
    gradcheck_op(lambda m, x: F(m).adaptive_avg_pool2d(x, size), [shape])


def test_pools_empty_batch():
    for fn in [lambda m, x: F(m).max_pool2d(x, 2), lambda m, x: F(m).avg_pool2d(x, 2),
               lambda m, x: F(m).adaptive_avg_pool2d(x, 2)]:
        check_op(fn, [(0, 3, 4, 5)])
        check_grad(fn, [(0, 3, 4, 5)])


def test_pools_unsupported_dtypes():
    x = ember.ones(1, 1, 4, 4)
    _raises(NotImplementedError, r"max_pool2d.*bool", lambda: ember._C.max_pool2d(x.bool(), 2))
    _raises(NotImplementedError, r"avg_pool2d.*int32", lambda: ember._C.avg_pool2d(x.int(), 2))
    _raises(NotImplementedError, r"adaptive_avg_pool2d.*int64",
            lambda: ember._C.adaptive_avg_pool2d(x.long(), 2))


def test_pool_bad_inputs():
    x = ember.ones(2, 3, 5, 5)
    mp, ap, ad = ember._C.max_pool2d, ember._C.avg_pool2d, ember._C.adaptive_avg_pool2d
    _raises(RuntimeError, r"max_pool2d.*3-d or 4-d.*\(5, 5\)", lambda: mp(ember.ones(5, 5), 2))
    _raises(RuntimeError, r"max_pool2d.*\(2, 0, 4, 5\)", lambda: mp(ember.ones(2, 0, 4, 5), 2))
    _raises(RuntimeError, r"max_pool2d.*\(2, 3, 5, 5\).*\(0 x 0\) is too small", lambda: mp(x, 6))
    _raises(RuntimeError, r"max_pool2d.*pad should be at most half", lambda: mp(x, 3, padding=2))
    # half of the kernel, not of the dilated kernel (PyTorch's rule)
    _raises(RuntimeError, r"max_pool2d.*pad should be at most half", lambda: mp(x, 3, dilation=2, padding=2))
    _raises(RuntimeError, r"max_pool2d.*kernel size should be greater than zero", lambda: mp(x, 0, 1))
    _raises(RuntimeError, r"max_pool2d.*stride", lambda: mp(x, 2, stride=0))
    _raises(RuntimeError, r"max_pool2d.*dilation", lambda: mp(x, 2, dilation=0))
    _raises(RuntimeError, r"max_pool2d.*pad must be non-negative", lambda: mp(x, 2, padding=-1))
    _raises(RuntimeError, r"max_pool2d.*kernel_size", lambda: mp(x, (2, 2, 2)))
    _raises(RuntimeError, r"max_pool2d_with_indices.*too small",
            lambda: ember._C.max_pool2d_with_indices(x, 6))
    _raises(RuntimeError, r"avg_pool2d.*too small", lambda: ap(x, 6))
    _raises(RuntimeError, r"avg_pool2d.*pad should be at most half", lambda: ap(x, 3, padding=2))
    _raises(RuntimeError, r"avg_pool2d.*divisor must be not zero", lambda: ap(x, 2, divisor_override=0))
    _raises(RuntimeError, r"avg_pool2d.*3-d or 4-d", lambda: ap(ember.ones(5, 5), 2))
    _raises(RuntimeError, r"adaptive_avg_pool2d.*greater than or equal to 0", lambda: ad(x, -1))
    _raises(RuntimeError, r"adaptive_avg_pool2d.*\(2, 3, 0, 5\)", lambda: ad(ember.ones(2, 3, 0, 5), 2))
    _raises(RuntimeError, r"adaptive_avg_pool2d.*output_size", lambda: ad(x, (2, 2, 2)))
    _raises(TypeError, r"max_pool2d.*kernel_size", lambda: mp(x, "a"))


def test_small_cnn_trains_like_torch():
    """conv -> relu -> pool -> conv -> relu -> pool -> mean, as in a Fashion-MNIST CNN: the
    gradients of every parameter match torch."""
    def net(m, x, w1, b1, w2, b2):
        f = F(m)
        h = f.max_pool2d(f.conv2d(x, w1, b1, padding=1).relu(), 2)
        h = f.max_pool2d(f.conv2d(h, w2, b2).relu(), 2)
        return f.adaptive_avg_pool2d(h, 1)
    check_grad(net, [(4, 1, 12, 12), (8, 1, 3, 3), (8,), (6, 8, 3, 3), (6,)], atol=1e-4)
