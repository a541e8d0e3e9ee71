"""F.pad and the padding layers, Conv1d, ConvTranspose1d/2d, the 1-d and adaptive max pools
and F.interpolate / Upsample (composites in ember/nn/_padding_conv.py) against torch: outputs
and gradients of inputs, weights and biases, float32/float64, non-contiguous inputs,
finite-difference gradchecks and torch's error types on bad input."""
import math

import numpy as np
import pytest
import torch

import ember
from ember import nn
from helpers import build_pair, check_grad, check_op, gradcheck_op, make_inputs
from test_nn_layers import run_pair

DT = ["float32", "float64"]
RTOL, ATOL = 1e-4, 1e-5


def F(m):
    return m.nn.functional


def same_error(fn, exc, match):
    """torch and ember both raise `exc` (ember's message matching `match`)."""
    with pytest.raises(exc):
        fn(torch)
    with pytest.raises(exc, match=match):
        fn(ember)


# ---- F.pad -----------------------------------------------------------------------------------
CONSTANT_PADS = [((2, 3, 4), (1, 2)), ((2, 3, 4), (1, 2, 0, 3)), ((2, 3, 4), (-1, 2, 1, -2)),
                 ((2, 3, 4), (0, 0, 0, 0, 1, 1)), ((2, 3, 4), (-2, -2)), ((5,), (3, -2)),
                 ((2, 3, 4, 5), (1, 1, 2, 2, 3, 3, 1, 0))]


@pytest.mark.parametrize("shape,pad", CONSTANT_PADS)
@pytest.mark.parametrize("value", [None, 2.5])
def test_pad_constant(shape, pad, value):
    check_grad(lambda m, x: F(m).pad(x, pad, value=value), [shape], DT,
               layouts=("contiguous", "transposed", "sliced"))


def test_pad_constant_integer_bool_and_empty():
    check_op(lambda m, x: F(m).pad(x, (1, 2), value=7), [(2, 3)], ["int64", "uint8", "bool"])
    check_op(lambda m, x: F(m).pad(x, (1, 1, 1, 1)), [(0, 3)], DT)
    check_op(lambda m, x: F(m).pad(x, []), [(2, 3)], DT)
    check_op(lambda m, x: F(m).pad(x, (1, 1), "constant", 0), [(2, 3)], ["float32"])


MODE_PADS = [((3, 5), (2, 1)), ((2, 3, 5), (-1, 3)), ((2, 3, 5), (1, 2, 2, -1)),
             ((2, 2, 4, 5), (2, 0, 1, 3)), ((2, 4, 5, 6), (1, 2, 2, 1, 0, 3)),
             ((1, 2, 4, 5, 6), (1, 1, 2, 1, 3, 1))]


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
@pytest.mark.parametrize("shape,pad", MODE_PADS)
def test_pad_modes(mode, shape, pad):
    check_grad(lambda m, x: F(m).pad(x, pad, mode=mode), [shape], DT,
               layouts=("contiguous", "transposed"))


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
def test_pad_modes_integer_dtypes_and_limits(mode):
    check_op(lambda m, x: F(m).pad(x, (2, 2), mode=mode), [(2, 3)], ["int64", "uint8"])
    limit = 2 if mode == "reflect" else 3  # reflect: pad < size; circular: pad <= size
    check_grad(lambda m, x: F(m).pad(x, (limit, limit), mode=mode), [(2, 3)], DT)


def test_pad_gradcheck():
    for mode in ["constant", "reflect", "replicate", "circular"]:
        gradcheck_op(lambda m, x: F(m).pad(x, (2, -1, 1, 2), mode=mode), [(1, 2, 3, 4)])


PAD_ERRORS = [
    (lambda m: F(m).pad(m.ones(2, 3), (1,)), RuntimeError, "divisible by 2"),
    (lambda m: F(m).pad(m.ones(2, 3), (1, 1, 1, 1, 1, 1)), RuntimeError, "Padding length"),
    (lambda m: F(m).pad(m.ones(2, 3), (-2, -2)), RuntimeError, "negative output size"),
    (lambda m: F(m).pad(m.ones(2, 3), (1.5, 1)), TypeError, "must be tuple of ints"),
    (lambda m: F(m).pad(m.ones(2, 3), (3, 0), mode="reflect"), RuntimeError, "less than"),
    (lambda m: F(m).pad(m.ones(2, 3), (4, 0), mode="circular"), RuntimeError, "wrapping"),
    (lambda m: F(m).pad(m.ones(2, 3), (-1, -3), mode="replicate"), RuntimeError, "too small"),
    (lambda m: F(m).pad(m.ones(3), (1, 1), mode="reflect"), NotImplementedError, "not supported"),
    (lambda m: F(m).pad(m.ones(2, 3, 4, 5), (1, 1), mode="replicate"), NotImplementedError,
     "Padding size 2 is not supported for 4D"),
    (lambda m: F(m).pad(m.ones(2, 3), (1, 1), mode="foo"), NotImplementedError, "foo"),
    (lambda m: F(m).pad(m.ones(2, 3), (1, 1), mode="reflect", value=2.0), RuntimeError,
     "value argument"),
    (lambda m: F(m).pad(m.ones(2, 3, dtype=m.bool), (1, 1), mode="replicate"),
     NotImplementedError, "Bool"),
    (lambda m: F(m).pad(m.ones(0, 3), (1, 1), mode="reflect"), RuntimeError, "non-zero"),
]


@pytest.mark.parametrize("fn,exc,match", PAD_ERRORS)
def test_pad_errors(fn, exc, match):
    same_error(fn, exc, match)


PAD_MODULES = [
    (lambda m: m.nn.ZeroPad1d(2), (2, 3, 4)), (lambda m: m.nn.ZeroPad1d((1, -1)), (3, 4)),
    (lambda m: m.nn.ZeroPad2d((1, 2, 0, 3)), (2, 3, 4, 5)),
    (lambda m: m.nn.ConstantPad1d(2, 3.5), (2, 3, 4)),
    (lambda m: m.nn.ConstantPad2d((1, 0, 2, 1), -1.0), (3, 4, 5)),
    (lambda m: m.nn.ReflectionPad1d(2), (2, 3, 4)), (lambda m: m.nn.ReflectionPad2d((1, 2, 3, 0)),
                                                     (2, 3, 4, 5)),
    (lambda m: m.nn.ReplicationPad1d((3, 1)), (3, 4)), (lambda m: m.nn.ReplicationPad2d(2),
                                                        (2, 3, 4, 5)),
    (lambda m: m.nn.CircularPad1d(2), (2, 3, 4)), (lambda m: m.nn.CircularPad2d((1, 2, 2, 1)),
                                                   (3, 4, 5)),
]


@pytest.mark.parametrize("build,shape", PAD_MODULES)
@pytest.mark.parametrize("dtype", DT)
def test_pad_modules(build, shape, dtype):
    e_mod, t_mod = run_pair(build, [shape], dtype)
    assert repr(e_mod) == repr(t_mod)


def test_circular_pad_module_checks_rank():
    same_error(lambda m: m.nn.CircularPad2d(1)(m.ones(3)), ValueError, "expected 3D or 4D")


# ---- conv1d and Conv1d --------------------------------------------------------------------------
CONV1D = [dict(), dict(stride=2), dict(padding=2, dilation=2), dict(stride=3, padding=1, groups=2),
          dict(padding="same", dilation=2), dict(padding="valid")]


@pytest.mark.parametrize("kw", CONV1D)
def test_conv1d_functional(kw):
    shapes = [(2, 4, 11), (6, 4 // kw.get("groups", 1), 3), (6,)]
    check_grad(lambda m, x, w, b: F(m).conv1d(x, w, b, **kw), shapes, DT,
               layouts=("contiguous", "transposed"), rtol=RTOL, atol=ATOL)
    check_grad(lambda m, x, w: F(m).conv1d(x, w, **kw), [shapes[0][1:], shapes[1]], DT,
               rtol=RTOL, atol=ATOL)


CONV1D_MODULES = [dict(), dict(stride=2, padding=1, bias=False), dict(groups=2, dilation=2),
                  dict(padding="same"), dict(padding=2, padding_mode="reflect"),
                  dict(padding=1, padding_mode="replicate", stride=2),
                  dict(padding="same", padding_mode="circular", kernel_size=4)]


@pytest.mark.parametrize("kw", CONV1D_MODULES)
@pytest.mark.parametrize("dtype", DT)
def test_conv1d_module(kw, dtype):
    kw = dict(kw)
    k = kw.pop("kernel_size", 3)
    build = lambda m: m.nn.Conv1d(4, 6, k, **kw)  # noqa: E731
    for shape in [(2, 4, 9), (4, 9)]:
        e_mod, t_mod = run_pair(build, [shape], dtype)
    assert repr(e_mod) == repr(t_mod)
    assert list(e_mod.state_dict()) == list(t_mod.state_dict())


def test_conv1d_errors():
    same_error(lambda m: F(m).conv1d(m.ones(2, 2, 3, 3), m.ones(4, 2, 3)), RuntimeError,
               "Expected 2D \\(unbatched\\) or 3D")
    same_error(lambda m: F(m).conv1d(m.ones(1, 2, 5), m.ones(4, 3, 3)), RuntimeError,
               "to have 3 channels, but got 2")
    same_error(lambda m: m.nn.Conv1d(3, 4, 3, groups=2), ValueError, "divisible by groups")
    same_error(lambda m: m.nn.Conv1d(2, 4, 3, stride=2, padding="same"), ValueError, "strided")
    same_error(lambda m: m.nn.Conv1d(2, 4, 3, padding_mode="foo"), ValueError, "padding_mode")



# Conv2d pads as Conv1d/Conv3d do (F.pad, then the convolution): 'same' works with every
# padding_mode, and a reflect padding as large as the input raises F.pad's RuntimeError, as torch.
@pytest.mark.parametrize("kw", [dict(padding="same", padding_mode="reflect"),
                                dict(padding="same", padding_mode="circular", kernel_size=4),
                                dict(padding=(2, 1), padding_mode="replicate", stride=2)])
def test_conv2d_module_padding_modes(kw):
    kw = dict(kw)
    k = kw.pop("kernel_size", 3)
    for shape in [(2, 4, 7, 6), (4, 7, 6)]:
        e_mod, t_mod = run_pair(lambda m: m.nn.Conv2d(4, 6, k, **kw), [shape], "float64")
    assert repr(e_mod) == repr(t_mod)


def test_conv2d_reflect_padding_too_large():
    conv = lambda m: m.nn.Conv2d(2, 2, 3, padding=3, padding_mode="reflect")  # noqa: E731
    same_error(lambda m: conv(m)(m.ones(1, 2, 3, 3)), RuntimeError,
               "padding size should be less than")

# ---- conv_transpose ------------------------------------------------------------------------------
CONVT2D = [dict(), dict(stride=2), dict(stride=2, padding=1, output_padding=1),
           dict(stride=(2, 3), padding=(2, 1), output_padding=(1, 2), dilation=(2, 1)),
           dict(padding=3), dict(stride=2, groups=2), dict(dilation=2, output_padding=1)]


@pytest.mark.parametrize("kw", CONVT2D)
def test_conv_transpose2d_functional(kw):
    g = kw.get("groups", 1)
    shapes = [(2, 4, 5, 6), (4, 6 // g, 3, 4), (6,)]
    check_grad(lambda m, x, w, b: F(m).conv_transpose2d(x, w, b, **kw), shapes, DT,
               layouts=("contiguous", "transposed"), rtol=RTOL, atol=ATOL)
    check_grad(lambda m, x, w: F(m).conv_transpose2d(x, w, **kw), [shapes[0][1:], shapes[1]],
               DT, rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("kw", [dict(), dict(stride=3, padding=1, output_padding=2, groups=2),
                                dict(dilation=3, padding=4), dict(stride=2, dilation=2)])
def test_conv_transpose1d_functional(kw):
    shapes = [(2, 4, 7), (4, 3, 3), (3 * kw.get("groups", 1),)]
    check_grad(lambda m, x, w, b: F(m).conv_transpose1d(x, w, b, **kw), shapes, DT,
               layouts=("contiguous", "transposed"), rtol=RTOL, atol=ATOL)


def test_conv_transpose2d_runs_as_the_adjoint_of_conv2d():
    """Floating inputs with output_padding < stride take the C++ adjoint (conv2d's backward
    kernel), not a conv2d over a zero-stuffed input; DCGAN's generator layer as the example."""
    import ember.profiler as P
    check_grad(lambda m, x, w, b: F(m).conv_transpose2d(x, w, b, stride=2, padding=1),
               [(3, 8, 4, 4), (8, 5, 4, 4), (5,)], DT, rtol=RTOL, atol=ATOL)
    x, w = ember.randn(2, 8, 4, 4, requires_grad=True), ember.randn(8, 5, 4, 4, requires_grad=True)
    with P.profile() as prof:
        F(ember).conv_transpose2d(x, w, stride=2, padding=1).sum().backward()
    names = {e.key for e in prof.key_averages()}
    assert "conv_transpose2d" in names and "index_put_" not in names, names


def test_conv_gradcheck():
    gradcheck_op(lambda m, x, w, b: F(m).conv_transpose2d(x, w, b, 2, 1, 1, 2, 1),
                 [(1, 2, 3, 3), (2, 1, 2, 3), (2,)])
    gradcheck_op(lambda m, x, w, b: F(m).conv_transpose1d(x, w, b, 2, 0, 1, 1, 2),
                 [(1, 2, 4), (2, 2, 2), (2,)])
    gradcheck_op(lambda m, x, w: F(m).conv1d(x, w, None, 2, 1, 1, 2), [(1, 2, 6), (2, 1, 3)])


CONVT_MODULES = [(lambda m: m.nn.ConvTranspose2d(4, 6, 3), (2, 4, 5, 5)),
                 (lambda m: m.nn.ConvTranspose2d(4, 6, (3, 2), stride=2, padding=1,
                                                 output_padding=1, groups=2), (4, 5, 6)),
                 (lambda m: m.nn.ConvTranspose2d(2, 3, 3, dilation=2, bias=False), (1, 2, 4, 4)),
                 (lambda m: m.nn.ConvTranspose1d(4, 6, 3, stride=2, groups=2), (2, 4, 7)),
                 (lambda m: m.nn.ConvTranspose1d(2, 3, 4, padding=2, bias=False), (2, 6))]


@pytest.mark.parametrize("build,shape", CONVT_MODULES)
@pytest.mark.parametrize("dtype", DT)
def test_conv_transpose_modules(build, shape, dtype):
    e_mod, t_mod = run_pair(build, [shape], dtype)
    assert repr(e_mod) == repr(t_mod)
    assert {k: tuple(v.shape) for k, v in e_mod.state_dict().items()} == \
        {k: tuple(v.shape) for k, v in t_mod.state_dict().items()}


def test_conv_transpose_output_size():
    e_mod, t_mod = build_pair(lambda m: m.nn.ConvTranspose2d(2, 3, 3, stride=3, padding=1))
    es, ts = make_inputs([(1, 2, 4, 4)], "float32")
    for size in [(10, 10), (12, 11), [1, 3, 11, 12]]:
        np.testing.assert_allclose(e_mod(es[0], output_size=size).numpy(),
                                   t_mod(ts[0], output_size=size).detach().numpy(), RTOL, ATOL)
    same_error(lambda m: (e_mod if m is ember else t_mod)(
        (es if m is ember else ts)[0], output_size=(13, 10)), ValueError, "valid sizes")
    same_error(lambda m: (e_mod if m is ember else t_mod)(
        (es if m is ember else ts)[0], output_size=(10,)), ValueError, "output_size must have")


@pytest.mark.parametrize("cls,k", [("ConvTranspose2d", (3, 2)), ("ConvTranspose1d", 5),
                                   ("Conv1d", 5)])
def test_conv_default_init(cls, k):
    """kaiming_uniform_(a=sqrt(5)) on the weight: U(-1/sqrt(fan_in), 1/sqrt(fan_in)), fan_in
    from the weight's dim 1 (out // groups for the transposed layers); the bias the same."""
    mod = getattr(nn, cls)(8, 6, k, groups=2)
    w = mod.weight.detach().numpy()
    assert w.shape == tuple(getattr(torch.nn, cls)(8, 6, k, groups=2).weight.shape)
    bound = 1 / math.sqrt(math.prod(w.shape[1:]))
    assert 0.8 * bound < np.abs(w).max() <= bound
    assert np.abs(w.mean()) < 0.2 * bound
    assert np.abs(mod.bias.detach().numpy()).max() <= bound


def test_conv_transpose_errors():
    same_error(lambda m: F(m).conv_transpose2d(m.ones(1, 2, 3, 3), m.ones(2, 2, 3, 3),
                                               output_padding=1), RuntimeError, "output padding")
    same_error(lambda m: F(m).conv_transpose2d(m.ones(1, 3, 3, 3), m.ones(2, 2, 3, 3)),
               RuntimeError, "to have 2 channels, but got 3")
    same_error(lambda m: F(m).conv_transpose2d(m.ones(3, 3), m.ones(3, 2, 3, 3)), RuntimeError,
               "3D \\(unbatched\\) or 4D")
    same_error(lambda m: m.nn.ConvTranspose2d(2, 3, 3, padding_mode="reflect"), ValueError,
               "zeros")


# ---- pools ---------------------------------------------------------------------------------------
POOLS1D = [
    lambda m, x: F(m).max_pool1d(x, 3), lambda m, x: F(m).max_pool1d(x, 3, 2, 1, 2, True),
    lambda m, x: F(m).max_pool1d(x, 2, return_indices=True),
    lambda m, x: F(m).avg_pool1d(x, 3), lambda m, x: F(m).avg_pool1d(x, 4, 2, 2, True, False),
    lambda m, x: F(m).adaptive_avg_pool1d(x, 4), lambda m, x: F(m).adaptive_avg_pool1d(x, 11),
    lambda m, x: F(m).adaptive_max_pool1d(x, 4),
    lambda m, x: F(m).adaptive_max_pool1d(x, 3, return_indices=True),
]


@pytest.mark.parametrize("fn", POOLS1D)
@pytest.mark.parametrize("shape", [(2, 3, 11), (3, 10)])
def test_pools_1d(fn, shape):
    check_grad(fn, [shape], DT, layouts=("contiguous", "transposed"))


@pytest.mark.parametrize("size", [4, (3, 5), (None, 2), (7, 9), (1, 1)])
@pytest.mark.parametrize("shape", [(2, 3, 7, 9), (3, 6, 5)])
def test_adaptive_max_pool2d(size, shape):
    check_grad(lambda m, x: F(m).adaptive_max_pool2d(x, size, return_indices=True), [shape], DT,
               layouts=("contiguous", "transposed"))


POOL_MODULES = [lambda m: m.nn.MaxPool1d(3, 2, 1), lambda m: m.nn.MaxPool1d(2, return_indices=True),
                lambda m: m.nn.AvgPool1d(3, padding=1), lambda m: m.nn.AdaptiveAvgPool1d(5),
                lambda m: m.nn.AdaptiveMaxPool1d(4), lambda m: m.nn.AdaptiveMaxPool2d((3, None)),
                lambda m: m.nn.AdaptiveMaxPool2d(2, return_indices=True)]


@pytest.mark.parametrize("build", POOL_MODULES)
def test_pool_modules(build):
    shape = (2, 3, 6, 7) if "2d" in repr(build(torch)) else (2, 3, 9)
    e_mod, t_mod = run_pair(build, [shape], "float64")
    assert repr(e_mod) == repr(t_mod)


def test_pool_gradcheck():
    gradcheck_op(lambda m, x: F(m).adaptive_max_pool2d(x, (2, 3)), [(1, 2, 5, 4)])
    gradcheck_op(lambda m, x: F(m).avg_pool1d(x, 3, 2, 1), [(1, 2, 7)])


def test_pool_errors():
    same_error(lambda m: F(m).max_pool1d(m.ones(2, 3, 4, 5), 2), RuntimeError, "2D|3D")
    same_error(lambda m: F(m).adaptive_max_pool2d(m.ones(3), 2), RuntimeError, "3D or 4D")
    same_error(lambda m: F(m).adaptive_max_pool2d(m.ones(2, 0, 3), 2), RuntimeError, "non-zero")
    same_error(lambda m: F(m).max_pool1d(m.ones(1, 2, 3), 5), RuntimeError, "output size")
    same_error(lambda m: F(m).avg_pool1d(m.ones(1, 2, 3), 2, 1, 2), RuntimeError, "padding")
    same_error(lambda m: F(m).adaptive_avg_pool1d(m.ones(1, 2, 3), (2, 3)), RuntimeError,
               "list of 1 values")


def test_max_pool1d_output_lengths():
    """The ceil_mode / padding / dilation output length rule, error or shape, as torch's."""
    for n, k, s, p, d, c in [(1, 1, 1, 0, 1, True), (5, 3, 2, 1, 2, True), (7, 3, 3, 1, 1, True),
                             (2, 2, 3, 1, 1, True), (5, 3, 2, 0, 2, False), (2, 3, 1, 1, 1, True)]:
        check_op(lambda m, x: F(m).max_pool1d(x, k, s, p, d, c), [(1, 2, n)])


# ---- interpolate and Upsample ----------------------------------------------------------------
INTERP = [((2, 3, 5, 6), dict(scale_factor=2)), ((2, 3, 5, 6), dict(size=(7, 4))),
          ((2, 3, 5, 6), dict(scale_factor=(1.7, 0.6))), ((2, 3, 5), dict(size=12)),
          ((2, 3, 5, 6), dict(size=(3, 9), mode="bilinear")),
          ((2, 3, 5, 6), dict(size=(3, 9), mode="bilinear", align_corners=True)),
          ((2, 3, 5, 6), dict(scale_factor=2.5, mode="bilinear")),
          ((2, 3, 5, 6), dict(scale_factor=2.5, mode="bilinear", recompute_scale_factor=True)),
          ((2, 3, 5, 6), dict(size=(1, 1), mode="bilinear", align_corners=True)),
          ((2, 3, 5), dict(size=9, mode="linear")),
          ((2, 3, 5), dict(scale_factor=0.5, mode="linear", align_corners=True)),
          ((1, 2, 2, 3, 4), dict(size=(3, 4, 5), mode="trilinear")),
          ((1, 2, 2, 3, 4), dict(scale_factor=2)),
          ((2, 3, 5, 6), dict(size=(7, 3), mode="nearest-exact")),
          ((2, 3, 6, 7), dict(size=(3, 4), mode="area")), ((2, 3, 7), dict(size=3, mode="area"))]


@pytest.mark.parametrize("shape,kw", INTERP)
def test_interpolate(shape, kw):
    check_grad(lambda m, x: F(m).interpolate(x, **kw), [shape], DT,
               layouts=("contiguous", "transposed"))


def test_interpolate_gradcheck():
    gradcheck_op(lambda m, x: F(m).interpolate(x, size=(4, 5), mode="bilinear"), [(1, 1, 3, 2)])
    gradcheck_op(lambda m, x: F(m).interpolate(x, scale_factor=2), [(1, 1, 2, 3)])


UPSAMPLE = [lambda m: m.nn.Upsample(scale_factor=2), lambda m: m.nn.Upsample(size=(5, 3)),
            lambda m: m.nn.Upsample(scale_factor=1.5, mode="bilinear", align_corners=False),
            lambda m: m.nn.UpsamplingNearest2d(size=7),
            lambda m: m.nn.UpsamplingBilinear2d(scale_factor=2)]


@pytest.mark.parametrize("build", UPSAMPLE)
def test_upsample_modules(build):
    e_mod, t_mod = run_pair(build, [(2, 3, 4, 5)], "float32")
    assert repr(e_mod) == repr(t_mod)


INTERP_ERRORS = [
    (dict(scale_factor=2, size=3), ValueError, "only one of size or scale_factor"),
    (dict(), ValueError, "either size or scale_factor"),
    (dict(size=4, align_corners=True), ValueError, "align_corners option"),
    (dict(size=4, mode="foo"), NotImplementedError, "foo"),
    (dict(size=4, mode="bilinear"), NotImplementedError, "bilinear mode needs 4D"),
    (dict(size=(4, 4)), ValueError, "same number of spatial"),
    (dict(scale_factor=(2, 2)), ValueError, "same number of spatial"),
]


@pytest.mark.parametrize("kw,exc,match", INTERP_ERRORS)
def test_interpolate_errors(kw, exc, match):
    same_error(lambda m: F(m).interpolate(m.ones(1, 2, 3), **kw), exc, match)


def test_interpolate_dtypes():
    check_op(lambda m, x: F(m).interpolate(x, scale_factor=2), [(1, 2, 3, 3)], ["uint8"])
    for mode in ["nearest", "linear"]:
        same_error(lambda m: F(m).interpolate(m.ones(1, 2, 3, dtype=m.int64), size=5, mode=mode),
                   NotImplementedError, "not implemented")
    same_error(lambda m: F(m).interpolate(m.ones(1, 2, 3), scale_factor=0.1), RuntimeError,
               "greater than 0")


def test_small_generator_and_audio_net_match_torch():
    """A DCGAN-style generator (ConvTranspose2d + BatchNorm2d + Upsample + ReflectionPad2d) and
    a 1-d audio net (Conv1d + MaxPool1d + AdaptiveAvgPool1d) with torch's state_dict loaded."""
    def generator(m):
        return m.nn.Sequential(
            m.nn.ConvTranspose2d(8, 6, 4, 1, 0, bias=False), m.nn.BatchNorm2d(6), m.nn.ReLU(),
            m.nn.ConvTranspose2d(6, 4, 4, 2, 1, bias=False), m.nn.Upsample(scale_factor=2),
            m.nn.ReflectionPad2d(1), m.nn.Conv2d(4, 3, 3), m.nn.Tanh())

    def audio(m):
        return m.nn.Sequential(
            m.nn.Conv1d(2, 8, 5, stride=2, padding=2, padding_mode="replicate"), m.nn.ReLU(),
            m.nn.MaxPool1d(2), m.nn.Conv1d(8, 8, 3, padding="same", groups=4),
            m.nn.AdaptiveAvgPool1d(3), m.nn.Flatten(), m.nn.Linear(24, 4))

    run_pair(generator, [(2, 8, 1, 1)], "float32")
    run_pair(audio, [(3, 2, 40)], "float32")


# F.upsample (interpolate's deprecated name), F.upsample_nearest and F.upsample_bilinear (the
# latter with align_corners=True, as torch's): torch warns that they are deprecated, so do we.
UPSAMPLE_FUNCTIONS = [
    ("upsample", (2, 3, 5, 6), dict(scale_factor=2)),
    ("upsample", (2, 3, 5), dict(size=9, mode="linear")),
    ("upsample", (2, 3, 5, 6), dict(size=(3, 9), mode="bilinear", align_corners=False)),
    ("upsample_nearest", (2, 3, 5, 6), dict(size=(7, 4))),
    ("upsample_nearest", (2, 3, 4), dict(scale_factor=3)),
    ("upsample_bilinear", (2, 3, 5, 6), dict(size=(7, 4))),
    ("upsample_bilinear", (1, 2, 3, 4), dict(scale_factor=2)),
]


@pytest.mark.parametrize("name,shape,kw", UPSAMPLE_FUNCTIONS)
@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.filterwarnings("ignore::FutureWarning")
def test_upsample_functions(name, shape, kw):
    check_grad(lambda m, x: getattr(F(m), name)(x, **kw), [shape], DT,
               layouts=("contiguous", "transposed"))
    check_op(lambda m, x: getattr(F(m), name)(x, **kw), [(0,) + shape[1:]], ["float32"])
    gradcheck_op(lambda m, x: getattr(F(m), name)(x, **kw), [(1, 2) + shape[2:]])


def test_upsample_functions_warn_and_refuse_as_torch():
    for m in (torch, ember):
        with pytest.warns((UserWarning, FutureWarning)):
            F(m).upsample_nearest(m.ones(1, 1, 2, 2), scale_factor=2)
        with pytest.warns((UserWarning, FutureWarning)):
            F(m).upsample_bilinear(m.ones(1, 1, 2, 2), size=3)
    with pytest.warns((UserWarning, FutureWarning)):
        same_error(lambda m: F(m).upsample(m.ones(1, 2, 3), size=4, scale_factor=2), ValueError,
                   "only one of size or scale_factor")
    with pytest.warns((UserWarning, FutureWarning)):
        same_error(lambda m: F(m).upsample_bilinear(m.ones(1, 2, 3), size=4),
                   (ValueError, NotImplementedError), "4D|bilinear")
    with pytest.warns((UserWarning, FutureWarning)):
        same_error(lambda m: F(m).upsample_nearest(m.ones(1, 2, 3)), ValueError,
                   "either size or scale_factor")
