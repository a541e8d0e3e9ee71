"""max_unpool1d/2d/3d, lp_pool1d/2d/3d and fractional_max_pool2d/3d (compositions of ember
ops: scatter, avg pool of x^p, gather + max) and their layers, against torch 2.13: values,
indices, gradients, gradcheck, unbatched inputs, bad inputs."""
import math

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import ember
import ember.nn.functional as EF
from helpers import assert_same, check_grad, check_op, gradcheck_op, make_inputs


def F(m):
    return TF if m is torch else EF


def _both(arr):
    return ember.from_numpy(np.array(arr, copy=True)), torch.from_numpy(np.array(arr, copy=True))


# ---- max unpooling -----------------------------------------------------------------------------
UNPOOL_CASES = [  # (nd, input shape, pool kwargs, output_size)
    (1, (2, 3, 9), {"kernel_size": 3, "stride": 2, "padding": 1}, None),
    (1, (3, 8), {"kernel_size": 2}, [9]),
    (2, (2, 3, 6, 8), {"kernel_size": 2}, None),
    (2, (2, 3, 6, 7), {"kernel_size": (2, 3), "stride": (2, 2), "padding": (1, 1)}, [6, 7]),
    (2, (3, 5, 4), {"kernel_size": 2, "stride": 1}, None),  # unbatched, overlapping windows
    (3, (1, 2, 4, 4, 6), {"kernel_size": 2}, None),
    (3, (2, 5, 4, 4), {"kernel_size": (2, 1, 2), "stride": (2, 1, 2), "padding": (0, 0, 1)},
     (5, 4, 4)),
]


@pytest.mark.parametrize("nd,shape,kw,size", UNPOOL_CASES, ids=str)
def test_max_unpool(nd, shape, kw, size):
    pool = {1: "max_pool1d", 2: "max_pool2d", 3: "max_pool3d"}[nd]
    unpool = {1: "max_unpool1d", 2: "max_unpool2d", 3: "max_unpool3d"}[nd]

    def fn(m, x):
        y, i = getattr(F(m), pool)(x.detach(), return_indices=True, **kw)
        y = y.requires_grad_(x.requires_grad)
        out = getattr(F(m), unpool)(y, i, kw["kernel_size"], kw.get("stride"), kw.get("padding", 0),
                                    size)
        return out, y  # y: a leaf, so check_grad compares its gradient through the output

    check_op(lambda m, x: fn(m, x)[0], [shape], dtypes=["float32", "float64"])
    es, ts = make_inputs([shape], "float64")
    (eo, ey), (to, ty) = fn(ember, es[0].requires_grad_()), fn(torch, ts[0].requires_grad_())
    assert_same(eo, to.detach())
    g = np.random.default_rng(1).standard_normal(tuple(to.shape))
    eo.backward(ember.from_numpy(g.copy())), to.backward(torch.from_numpy(g.copy()))
    assert_same(ey.grad, ty.grad)


def test_max_unpool_gradcheck_and_layers():
    x = ember.randn(1, 2, 4, 6, dtype=ember.float64)
    y, i = EF.max_pool2d(x, 2, return_indices=True)
    assert ember.autograd.gradcheck(lambda v: EF.max_unpool2d(v, i, 2), [y.requires_grad_()])
    for nd, shape in ((1, (2, 3, 8)), (2, (2, 3, 4, 6)), (3, (1, 2, 4, 4, 2))):
        es, ts = make_inputs([shape], "float32")
        out = []
        for lib, x in ((ember, es[0]), (torch, ts[0])):
            pool = getattr(lib.nn, f"MaxPool{nd}d")(2, return_indices=True)
            unpool = getattr(lib.nn, {1: "MaxUnpool1d", 2: "MaxUnpool2d", 3: "MaxUnpool3d"}[nd])(2)
            y, i = pool(x)
            out.append((unpool(y, i), unpool(y, i, output_size=x.shape), repr(unpool)))
        assert_same(out[0][:2], out[1][:2])
        assert out[0][2] == out[1][2]


@pytest.mark.parametrize("mod", [ember, torch])
def test_max_unpool_bad_inputs(mod):
    f = mod.nn.functional
    y, i = f.max_pool2d(mod.ones(1, 2, 4, 4), 2, return_indices=True)
    cases = [
        (lambda: f.max_unpool2d(y, i * 5, 2), RuntimeError, r"invalid max index: \d+ \(output "
                                                            r"volumes are of size 4x4"),
        (lambda: f.max_unpool2d(y, i.int(), 2), RuntimeError, r"int64"),
        (lambda: f.max_unpool2d(y.long(), i, 2), NotImplementedError, r"max_unpool2d.*(Long|int64)"),
        (lambda: f.max_unpool2d(y, i[..., :1], 2), RuntimeError, r"shape of indices"),
        (lambda: f.max_unpool2d(y, i, 2, output_size=(9, 9)), ValueError,
         r"invalid output_size .*must be between 2 and 6"),
        (lambda: f.max_unpool2d(y[0, 0], i[0, 0], 2), RuntimeError, r"3d or 4d"),
        (lambda: f.max_unpool2d(y, i, 2, output_size=(1, 2, 3)), ValueError, r"2 or 4 elements"),
    ]
    for fn, kind, match in cases:
        with pytest.raises(kind, match=match):
            fn()


# ---- power-average pooling ---------------------------------------------------------------------
LP_CASES = [
    (1, (2, 3, 9), 2.0, {"kernel_size": 3, "stride": 2}),
    (1, (3, 8), 3, {"kernel_size": 2, "ceil_mode": True, "stride": 3}),
    (2, (2, 3, 6, 7), 2, {"kernel_size": (2, 3)}),
    (2, (3, 6, 7), 1.5, {"kernel_size": 3, "stride": (1, 2), "ceil_mode": True}),
    (2, (1, 2, 5, 5), math.inf, {"kernel_size": 2}),
    (3, (1, 2, 4, 5, 6), 2, {"kernel_size": 2}),
    (3, (2, 4, 4, 5), 4, {"kernel_size": (2, 2, 3), "stride": 1}),
]


@pytest.mark.parametrize("nd,shape,p,kw", LP_CASES, ids=str)
def test_lp_pool(nd, shape, p, kw):
    fn = lambda m, x: getattr(F(m), f"lp_pool{nd}d")(x, p, **kw)  # noqa: E731
    low = 0.1 if p != 2 else -2.0  # x^1.5 and x^3 of negatives: NaN / negative sums
    check_op(fn, [shape], dtypes=["float32", "float64"], low=low, high=2.0, rtol=1e-4, atol=1e-5)
    check_grad(fn, [shape], low=low, high=2.0)
    layer = {1: "LPPool1d", 2: "LPPool2d", 3: "LPPool3d"}[nd]
    e_mod = getattr(ember.nn, layer)(p, **kw)
    t_mod = getattr(torch.nn, layer)(p, **kw)
    assert repr(e_mod) == repr(t_mod)
    es, ts = make_inputs([shape], "float64", low=low, high=2.0)
    assert_same(e_mod(es[0]), t_mod(ts[0]))


def test_lp_pool_gradcheck_and_errors():
    gradcheck_op(lambda m, x: F(m).lp_pool2d(x, 2, 2), [(1, 2, 4, 4)], low=0.5, high=2.0)
    for mod in (ember, torch):
        with pytest.raises(RuntimeError):
            mod.nn.functional.lp_pool3d(mod.ones(1, 2, 4, 4, 4), 2, 5)  # window > input
        with pytest.raises(RuntimeError):
            mod.nn.functional.lp_pool3d(mod.ones(2, 3), 2, 2)  # wrong rank


# ---- fractional max pooling -----------------------------------------------------------------
FRAC_CASES = [  # (nd, shape, kernel, output_size, output_ratio)
    (2, (2, 3, 9, 8), (2, 3), (4, 5), None),
    (2, (2, 3, 9, 8), 2, None, (0.5, 0.7)),
    (2, (3, 7, 7), 3, 5, None),  # unbatched
    (2, (1, 2, 5, 6), 2, (1, 5), None),  # one window along a dim
    (3, (2, 2, 7, 8, 6), (2, 3, 2), (4, 5, 3), None),
    (3, (2, 6, 6, 7), 2, None, 0.5),  # unbatched
]


@pytest.mark.parametrize("nd,shape,k,size,ratio", FRAC_CASES, ids=str)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_fractional_max_pool(nd, shape, k, size, ratio, dtype):
    n = shape[0] if len(shape) == nd + 2 else 1
    c = shape[-nd - 1]
    samples = np.random.default_rng(3).random((n, c, nd)).astype(dtype)
    name = {2: "fractional_max_pool2d", 3: "fractional_max_pool3d"}[nd]
    with_indices = {2: "fractional_max_pool2d_with_indices",
                    3: "fractional_max_pool3d_with_indices"}[nd]

    def fn(m, x):
        s = m.from_numpy(samples.copy())
        return getattr(F(m), name)(x, k, output_size=size, output_ratio=ratio,
                                   return_indices=True, _random_samples=s)

    check_op(fn, [shape], dtypes=[dtype])
    check_op(lambda m, x: getattr(F(m), with_indices)(
        x, k, size, ratio, _random_samples=m.from_numpy(samples.copy())), [shape], dtypes=[dtype])
    check_grad(lambda m, x: fn(m, x)[0], [shape], dtypes=[dtype])


def test_fractional_max_pool_gradcheck_random_samples_and_layers():
    s = ember.rand(1, 2, 2, dtype=ember.float64)
    gradcheck_op(lambda m, x: EF.fractional_max_pool2d(x, 2, (3, 3), _random_samples=s),
                 [(1, 2, 5, 5)])
    ember.manual_seed(0)
    x = ember.randn(2, 3, 9, 9)
    y, i = EF.fractional_max_pool2d(x, 3, output_size=4, return_indices=True)  # drawn samples
    assert tuple(y.shape) == (2, 3, 4, 4)
    flat = x.flatten(2).gather(2, i.flatten(2)).reshape(y.shape)
    np.testing.assert_array_equal(flat.numpy(), y.numpy())  # indices point at the maxima
    for nd, shape, kw in ((2, (2, 3, 8, 9), {"output_size": (4, 5)}),
                          (3, (1, 2, 6, 7, 6), {"output_ratio": 0.5})):
        samples = np.random.default_rng(0).random((shape[0], shape[1], nd)).astype(np.float32)
        es, ts = make_inputs([shape], "float32")
        e_mod = getattr(ember.nn, f"FractionalMaxPool{nd}d")(
            2, return_indices=True, _random_samples=ember.from_numpy(samples.copy()), **kw)
        t_mod = getattr(torch.nn, f"FractionalMaxPool{nd}d")(
            2, return_indices=True, _random_samples=torch.from_numpy(samples.copy()), **kw)
        assert_same(e_mod(es[0]), t_mod(ts[0]))
        assert list(e_mod.state_dict()) == list(t_mod.state_dict()) == ["_random_samples"]


@pytest.mark.parametrize("mod", [ember, torch])
def test_fractional_max_pool_bad_inputs(mod):
    f, x = mod.nn.functional, mod.ones(1, 2, 4, 4)
    cases = [
        (lambda: f.fractional_max_pool2d(x, 3, output_size=3), RuntimeError,
         r"pool height 3 too large relative to input height 4"),
        (lambda: f.fractional_max_pool3d(mod.ones(1, 2, 4, 4, 4), 2, output_size=(2, 3, 3)),
         RuntimeError, r"pool (width|height) 2 too large relative to input (width|height) 4"),
        (lambda: f.fractional_max_pool2d(x, 2, output_size=3, _random_samples=mod.rand(1, 2, 3)),
         RuntimeError, r"_random_samples"),
        (lambda: f.fractional_max_pool2d(x, 2, output_size=3,
                                         _random_samples=mod.rand(1, 2, 2, dtype=mod.float64)),
         RuntimeError, r"dtype"),
        (lambda: f.fractional_max_pool2d(x, 2), ValueError, r"output_size or an output_ratio"),
    ]
    for fn, kind, match in cases:
        with pytest.raises(kind, match=match):
            fn()
    with pytest.raises(ValueError, match="output_ratio must be between 0 and 1"):
        mod.nn.FractionalMaxPool2d(2, output_ratio=1.5)
    with pytest.raises(ValueError, match="only one of output_size and output_ratio"):
        mod.nn.FractionalMaxPool3d(2, output_size=2, output_ratio=0.5)


def test_non_tensor_arguments_raise_type_error_naming_the_op():
    x = ember.ones(1, 2, 4, 4)
    for fn, match in [(lambda: EF.max_unpool2d(x, [0], 2), r"max_unpool2d.*indices"),
                      (lambda: EF.lp_pool2d([1.0], 2, 2), r"lp_pool2d.*input"),
                      (lambda: EF.fractional_max_pool2d(3, 2, 2), r"fractional_max_pool2d.*input"),
                      (lambda: ember.conv_tbc(x, 1, x), r"conv_tbc.*weight"),
                      (lambda: ember.convolution(None, x, None, 1, 0, 1, False, 0, 1),
                       r"convolution.*input")]:
        with pytest.raises(TypeError, match=match):
            fn()


@pytest.mark.parametrize("mod", [ember, torch])
def test_unpool_lp_layers_and_with_indices_bad_inputs(mod):
    nn, f = mod.nn, mod.nn.functional
    y, i = f.max_pool3d(mod.ones(1, 2, 4, 4, 4), 2, return_indices=True)
    with pytest.raises(RuntimeError):
        f.max_unpool3d(y, i * 9, 2)  # an index past the output
    with pytest.raises(RuntimeError):
        nn.MaxUnpool3d(2)(y[0, 0], i[0, 0])  # 3-d input to a 3-d unpool
    with pytest.raises(RuntimeError):
        nn.MaxUnpool1d(2)(mod.ones(2), mod.zeros(2, dtype=mod.int64))
    with pytest.raises(RuntimeError):
        nn.LPPool1d(2, 3)(mod.ones(1, 2, 2))  # window larger than the input
    with pytest.raises(RuntimeError):
        nn.LPPool3d(2, 2)(mod.ones(2, 3))
    with pytest.raises(RuntimeError):
        f.fractional_max_pool2d_with_indices(mod.ones(1, 2, 4, 4), 3, 3)
    with pytest.raises(RuntimeError):
        f.fractional_max_pool3d_with_indices(mod.ones(1, 2, 4, 4, 4), 2, (2, 3, 3))
