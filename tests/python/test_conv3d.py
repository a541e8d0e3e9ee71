"""conv3d, conv_transpose3d (C++: vol2col + GEMM, and its adjoint), torch.convolution,
conv_tbc, and the 3-d layers (Conv3d, ConvTranspose3d, their lazy forms, BatchNorm3d,
LazyBatchNorm3d): forward and backward against torch 2.13, gradcheck, bad inputs."""
import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import ember
import ember.nn.functional as EF
from helpers import (assert_same, assert_same_param_grads, build_pair, check_grad, check_op,
                     gradcheck_op, make_inputs, random_array)

# torch warns that it copies the input for an uneven padding='same'; ember does not need to.
pytestmark = pytest.mark.filterwarnings("ignore:Using padding='same'")


def F(m):
    return TF if m is torch else EF


# (input shape, weight shape, kwargs): strides, paddings, dilations, groups, 1x1x1 kernels,
# kernels as large as the padded input, unbatched inputs, 'same' and 'valid'.
CONV3D_CASES = [
    ((2, 3, 4, 5, 4), (4, 3, 2, 3, 2), {}),
    ((2, 3, 5, 5, 6), (4, 3, 3, 2, 3), {"stride": (2, 1, 2), "padding": (1, 0, 1)}),
    ((1, 2, 6, 5, 5), (3, 2, 2, 2, 2), {"dilation": (2, 1, 2), "padding": 1}),
    ((2, 4, 3, 4, 4), (6, 2, 2, 2, 2), {"groups": 2, "stride": 2, "padding": 1}),
    ((2, 4, 3, 4, 4), (4, 1, 3, 3, 3), {"groups": 4, "padding": 1}),  # depthwise
    ((2, 5, 3, 4, 3), (3, 5, 1, 1, 1), {}),  # 1x1x1: BLAS reads the volume in place
    ((2, 5, 3, 4, 3), (3, 5, 1, 1, 1), {"padding": (1, 0, 0)}),  # depth padding only
    ((2, 3, 2, 3, 4), (2, 3, 2, 3, 4), {}),  # kernel = whole volume
    ((4, 3, 4, 5), (2, 4, 3, 3, 3), {"padding": 1}),  # unbatched
    ((1, 2, 4, 5, 5), (3, 2, 3, 2, 3), {"padding": "same", "dilation": (1, 2, 1)}),
    ((1, 2, 4, 5, 5), (3, 2, 3, 2, 3), {"padding": "valid"}),
]


@pytest.mark.parametrize("shape,wshape,kw", CONV3D_CASES, ids=[str(i) for i in range(len(CONV3D_CASES))])
@pytest.mark.parametrize("bias", [True, False])
def test_conv3d_forward_and_grad(shape, wshape, kw, bias):
    shapes = [shape, wshape] + ([(wshape[0],)] if bias else [])
    fn = lambda m, x, w, *b: F(m).conv3d(x, w, *b, **kw)  # noqa: E731
    check_op(fn, shapes, dtypes=["float32", "float64"], layouts=["contiguous", "transposed"],
             rtol=1e-4, atol=1e-5)
    check_grad(fn, shapes, rtol=1e-4, atol=1e-5)


def test_conv3d_int64_and_empty_batch():
    check_op(lambda m, x, w: F(m).conv3d(x, w, stride=2), [(2, 2, 4, 4, 3), (3, 2, 2, 2, 2)],
             dtypes=["int64"])
    check_op(lambda m, x, w, b: F(m).conv3d(x, w, b), [(0, 2, 3, 3, 3), (4, 2, 2, 2, 2), (4,)])


@pytest.mark.parametrize("shapes,kw", [
    ([(2, 2, 3, 4, 3), (3, 2, 2, 2, 2), (3,)], {"stride": (1, 2, 1), "padding": 1}),
    ([(1, 4, 3, 3, 3), (4, 2, 2, 1, 2), (4,)], {"groups": 2, "dilation": (1, 2, 1)}),
    ([(2, 3, 3, 3), (2, 2, 2, 2, 2), (2,)], {"padding": "same"}),
])
def test_conv3d_gradcheck(shapes, kw):
    gradcheck_op(lambda m, x, w, b: F(m).conv3d(x, w, b, **kw), shapes)


CONVT3D_CASES = [
    ((2, 4, 2, 3, 3), (4, 3, 2, 2, 2), {}),
    ((1, 4, 3, 2, 3), (4, 2, 3, 2, 2), {"stride": (2, 1, 2), "padding": (1, 0, 1),
                                         "output_padding": (1, 0, 0), "groups": 2}),
    ((2, 3, 2, 3, 2), (3, 2, 2, 2, 2), {"stride": 2, "dilation": (1, 2, 1)}),
    ((3, 2, 3, 2), (3, 2, 2, 3, 2), {"stride": (1, 2, 2)}),  # unbatched
    ((1, 2, 2, 2, 2), (2, 2, 2, 2, 2), {"stride": 1, "dilation": 2, "output_padding": 1}),
]


@pytest.mark.parametrize("shape,wshape,kw", CONVT3D_CASES, ids=[str(i) for i in range(len(CONVT3D_CASES))])
def test_conv_transpose3d_forward_and_grad(shape, wshape, kw):
    shapes = [shape, wshape, (wshape[1] * kw.get("groups", 1),)]
    fn = lambda m, x, w, b: F(m).conv_transpose3d(x, w, b, **kw)  # noqa: E731
    check_op(fn, shapes, dtypes=["float32", "float64"], rtol=1e-4, atol=1e-5)
    check_grad(fn, shapes, rtol=1e-4, atol=1e-5)
    gradcheck_op(fn, shapes)


def test_torch_convolution_dispatches_by_rank():
    cases = [  # (input, weight, bias, stride, padding, dilation, transposed, output_padding, groups)
        ([(2, 4, 7), (6, 2, 3), (6,)], ([2], [1], [1], False, [0], 2)),
        ([(2, 3, 5, 6), (4, 3, 2, 3), (4,)], ([1, 2], [1, 0], [1, 1], False, [0, 0], 1)),
        ([(1, 2, 3, 4, 4), (3, 2, 2, 2, 2), (3,)], ([1, 1, 2], [0, 1, 1], [1, 1, 1], False,
                                                    [0, 0, 0], 1)),
        ([(2, 3, 4, 4), (3, 2, 2, 2), (2,)], ([2, 2], [0, 0], [1, 1], True, [1, 0], 1)),
        ([(1, 2, 2, 3, 2), (2, 3, 2, 2, 2), (3,)], ([2, 1, 1], [0, 0, 0], [1, 1, 1], True,
                                                    [1, 0, 0], 1)),
    ]
    for shapes, args in cases:
        check_grad(lambda m, x, w, b: m.convolution(x, w, b, *args), shapes, dtypes=["float64"])
    with pytest.raises(RuntimeError, match="convolution"):
        ember.convolution(ember.ones(1, 2, 3), ember.ones(2, 2), None, [1], [0], [1], False,
                          [0], 1)


def test_conv_tbc_matches_torch():
    for pad in (0, 1, 2):
        check_grad(lambda m, x, w, b: m.conv_tbc(x, w, b, pad), [(6, 2, 3), (3, 3, 4), (4,)])
    check_op(lambda m, x, w, b: F(m).conv_tbc(x, w, b), [(5, 1, 2), (2, 2, 3), (3,)])
    x, w, b = ember.ones(5, 2, 3), ember.ones(2, 3, 4), ember.ones(4)
    for args, match in [((ember.ones(5, 2), w, b), "3 dims"),
                        ((x, ember.ones(2, 4, 4), b), "input channels"),
                        ((x, w, ember.ones(5)), "output channels")]:
        for lib, a in ((ember, args), (torch, [torch.from_numpy(t.numpy()) for t in args])):
            with pytest.raises(RuntimeError):
                lib.conv_tbc(*a, 1)
        with pytest.raises(RuntimeError, match=match):
            ember.conv_tbc(*args, 1)


@pytest.mark.parametrize("mod", [ember, torch])
def test_conv3d_bad_inputs(mod):
    x, w = mod.ones(1, 3, 4, 4, 4), mod.ones(2, 3, 2, 2, 2)
    f = mod.nn.functional
    cases = [
        (lambda: f.conv3d(mod.ones(3, 4), w), r"4D|4-d"),
        (lambda: f.conv3d(x, mod.ones(2, 3, 2, 2)), r"weight|stride"),
        (lambda: f.conv3d(x, mod.ones(2, 3, 5, 5, 5)), r"Kernel size can't be greater"),
        (lambda: f.conv3d(x, mod.ones(2, 3, 3, 3, 3), dilation=2), r"Kernel size can't be greater"),
        (lambda: f.conv3d(x, mod.ones(2, 2, 2, 2, 2)), r"channels"),
        (lambda: f.conv3d(x, w, stride=(1, 1)), r"stride"),
        (lambda: f.conv3d(x, w, stride=0), r"stride"),
        (lambda: f.conv3d(x, w, padding=-1), r"padding"),
        (lambda: f.conv3d(x, w, groups=2), r"groups|channels|divisible"),
        (lambda: f.conv3d(x, w.double()), r"dtype|Double|scalar type"),
        (lambda: f.conv_transpose3d(x, mod.ones(4, 3, 1, 1, 1)), r"channels"),
        (lambda: f.conv_transpose3d(x, mod.ones(3, 3, 1, 1, 1), output_padding=1),
         r"output[ _]padding"),
    ]
    for fn, match in cases:
        with pytest.raises(RuntimeError, match=match):
            fn()


def test_conv3d_error_names_op_and_shapes():
    with pytest.raises(RuntimeError, match=r"conv3d.*\(2 x 2 x 2\).*\(3 x 3 x 3\).*\(1, 1, 2, 2, 2\)"):
        EF.conv3d(ember.ones(1, 1, 2, 2, 2), ember.ones(1, 1, 3, 3, 3))


# ---- layers ----------------------------------------------------------------------------------
def _run_layer(build, shape, dtype="float64", train=True, rtol=1e-6, atol=1e-8):
    e_mod, t_mod = build_pair(build, dtype, train)
    es, ts = make_inputs([shape], dtype)
    e, t = es[0].requires_grad_(), ts[0].requires_grad_()
    ye, yt = e_mod(e), t_mod(t)
    assert_same(ye, yt.detach(), rtol, atol)
    g = random_array(tuple(yt.shape), dtype, np.random.default_rng(1))
    ye.backward(ember.from_numpy(g.copy()))
    yt.backward(torch.from_numpy(g.copy()))
    assert_same(e.grad, t.grad, rtol, atol)
    assert_same_param_grads(e_mod, t_mod, rtol, atol)
    assert repr(e_mod) == repr(t_mod)
    return e_mod, t_mod


@pytest.mark.parametrize("kw", [
    {}, {"stride": 2, "padding": 1, "bias": False}, {"groups": 2, "dilation": (1, 2, 1)},
    {"padding": "same"}, {"padding": 1, "padding_mode": "reflect"},
    {"padding": (1, 0, 1), "padding_mode": "circular"},
    {"padding": "same", "padding_mode": "replicate"},
], ids=str)
def test_conv3d_layer(kw):
    _run_layer(lambda m: m.nn.Conv3d(4, 6, (2, 3, 2), **kw), (2, 4, 4, 5, 4))


@pytest.mark.parametrize("kw", [{}, {"stride": 2, "output_padding": 1, "groups": 2},
                                {"dilation": 2, "padding": 1}], ids=str)
def test_conv_transpose3d_layer(kw):
    e, t = _run_layer(lambda m: m.nn.ConvTranspose3d(4, 6, 2, **kw), (2, 4, 2, 3, 2))
    es, ts = make_inputs([(1, 4, 2, 3, 2)], "float64")
    size = [2 * s + 1 for s in (2, 3, 2)] if kw.get("stride") == 2 else None
    if size:  # output_size picks the output padding, as torch
        assert_same(e(es[0], output_size=size), t(ts[0], output_size=size).detach(), 1e-6, 1e-8)


def test_lazy_conv3d_and_batchnorm3d_become_their_layers():
    for name, args, becomes, shape in [("LazyConv3d", (4, 2), "Conv3d", (1, 3, 3, 4, 3)),
                                       ("LazyConvTranspose3d", (4, 2), "ConvTranspose3d",
                                        (1, 3, 2, 2, 2)),
                                       ("LazyBatchNorm3d", (), "BatchNorm3d", (2, 3, 2, 2, 2))]:
        em, tm = getattr(ember.nn, name)(*args), getattr(torch.nn, name)(*args)
        assert repr(em) == repr(tm)
        x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
        em(ember.tensor(x)), tm(torch.tensor(x))
        assert type(em) is getattr(ember.nn, becomes) and type(tm) is getattr(torch.nn, becomes)
        assert {k: tuple(v.shape) for k, v in em.state_dict().items()} == \
            {k: tuple(v.shape) for k, v in tm.state_dict().items()}


@pytest.mark.parametrize("kw", [{}, {"momentum": None}, {"affine": False},
                                {"track_running_stats": False}], ids=str)
def test_batchnorm3d(kw):
    e, t = _run_layer(lambda m: m.nn.BatchNorm3d(3, **kw), (4, 3, 2, 3, 2))
    for seed in (1, 2):  # running statistics follow torch's
        es, ts = make_inputs([(4, 3, 2, 3, 2)], "float64", seed=seed)
        assert_same(e(es[0]), t(ts[0]).detach(), 1e-6, 1e-8)
    e.eval(), t.eval()
    es, ts = make_inputs([(2, 3, 2, 2, 2)], "float64", seed=5)
    assert_same(e(es[0]), t(ts[0]).detach(), 1e-6, 1e-8)
    for mod in (ember, torch):
        with pytest.raises(ValueError, match=r"expected 5D input \(got 4D input\)"):
            mod.nn.BatchNorm3d(3)(mod.ones(2, 3, 4, 4))
