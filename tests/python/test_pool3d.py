"""The 3-d pools (max with indices, avg, adaptive avg and max: C++ for the first three),
the *_with_indices forms and the 3-d pooling layers, against torch 2.13: values, indices,
gradients, gradcheck, ceil_mode, padding, dilation, unbatched inputs, bad inputs."""
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


MAX3D_CASES = [
    ((2, 3, 4, 5, 6), {"kernel_size": 2}),
    ((2, 2, 5, 6, 5), {"kernel_size": (2, 3, 2), "stride": (1, 2, 2), "padding": (1, 1, 0)}),
    ((1, 2, 7, 6, 6), {"kernel_size": 3, "stride": 2, "ceil_mode": True, "padding": 1}),
    ((1, 2, 7, 6, 7), {"kernel_size": (2, 2, 3), "dilation": (2, 1, 2), "padding": (1, 0, 1)}),
    ((2, 5, 5, 4), {"kernel_size": (3, 2, 2), "stride": 1}),  # unbatched
    ((0, 2, 4, 4, 4), {"kernel_size": 2}),  # empty batch
]


@pytest.mark.parametrize("shape,kw", MAX3D_CASES, ids=str)
def test_max_pool3d_values_indices_and_grad(shape, kw):
    fn = lambda m, x: F(m).max_pool3d(x, return_indices=True, **kw)  # noqa: E731
    check_op(fn, [shape], dtypes=["float32", "float64", "int64"], layouts=["contiguous",
                                                                             "transposed"])
    check_op(lambda m, x: F(m).max_pool3d_with_indices(x, **kw), [shape])
    check_grad(lambda m, x: F(m).max_pool3d(x, **kw), [shape])
    check_op(lambda m, x: m.max_pool3d(x, **kw), [shape])  # torch.max_pool3d


def test_max_pool3d_gradcheck_and_nan():
    gradcheck_op(lambda m, x: F(m).max_pool3d(x, (2, 2, 3), (1, 2, 1), 1), [(1, 2, 3, 4, 5)])
    x = np.random.default_rng(0).standard_normal((1, 1, 2, 2, 2))
    x[0, 0, 1, 0, 1] = np.nan
    e, ei = EF.max_pool3d(ember.from_numpy(x.copy()), 2, return_indices=True)
    t, ti = TF.max_pool3d(torch.from_numpy(x.copy()), 2, return_indices=True)
    assert_same(e, t), assert_same(ei, ti)


AVG3D_CASES = [
    ((2, 3, 4, 5, 6), {"kernel_size": 2}),
    ((1, 2, 5, 6, 5), {"kernel_size": (2, 3, 2), "stride": (1, 2, 2), "padding": (1, 1, 0)}),
    ((1, 2, 5, 6, 5), {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True,
                       "count_include_pad": False}),
    ((1, 2, 5, 6, 5), {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True}),
    ((2, 4, 4, 4), {"kernel_size": 2, "stride": 1, "divisor_override": 3}),  # unbatched
]


@pytest.mark.parametrize("shape,kw", AVG3D_CASES, ids=str)
def test_avg_pool3d(shape, kw):
    fn = lambda m, x: F(m).avg_pool3d(x, **kw)  # noqa: E731
    check_op(fn, [shape], dtypes=["float32", "float64", "int64"], layouts=["contiguous",
                                                                             "sliced"])
    check_grad(fn, [shape])


def test_avg_pool3d_gradcheck():
    gradcheck_op(lambda m, x: F(m).avg_pool3d(x, 3, 2, 1, True, False), [(1, 2, 4, 5, 4)])


@pytest.mark.parametrize("shape,size", [((2, 3, 5, 6, 7), (2, 3, 4)), ((2, 3, 5, 6, 7), 3),
                                        ((3, 4, 5, 3), (None, 2, 5)), ((1, 2, 3, 3, 3), (5, 4, 6)),
                                        ((1, 2, 4, 4, 4), (1, 1, 1))], ids=str)
def test_adaptive_pools_3d(shape, size):
    check_grad(lambda m, x: F(m).adaptive_avg_pool3d(x, size), [shape])
    check_op(lambda m, x: F(m).adaptive_max_pool3d(x, size, return_indices=True), [shape])
    check_op(lambda m, x: F(m).adaptive_max_pool3d_with_indices(x, size), [shape])
    check_grad(lambda m, x: F(m).adaptive_max_pool3d(x, size), [shape])


def test_adaptive_pools_3d_gradcheck():
    gradcheck_op(lambda m, x: F(m).adaptive_avg_pool3d(x, (2, 3, 2)), [(1, 2, 3, 5, 4)])
    gradcheck_op(lambda m, x: F(m).adaptive_max_pool3d(x, (2, 3, 2)), [(1, 2, 3, 5, 4)])


def test_with_indices_forms_of_1d_and_2d():
    check_op(lambda m, x: F(m).max_pool1d_with_indices(x, 3, 2, 1), [(2, 3, 9)])
    check_op(lambda m, x: m.max_pool1d_with_indices(x, 2), [(3, 8)])  # torch.max_pool1d_with_indices
    check_op(lambda m, x: F(m).adaptive_max_pool1d_with_indices(x, 4), [(2, 3, 9)])
    check_op(lambda m, x: F(m).adaptive_max_pool2d_with_indices(x, (3, 2)), [(2, 3, 7, 5)])


@pytest.mark.parametrize("mod", [ember, torch])
def test_pool3d_bad_inputs(mod):
    f, x = mod.nn.functional, mod.ones(1, 2, 4, 4, 4)
    cases = [
        (lambda: f.max_pool3d(mod.ones(2, 3), 2), RuntimeError, r"4D or 5D|4-d or 5-d"),
        (lambda: f.max_pool3d(mod.ones(2, 0, 4, 4, 4), 2), RuntimeError, r"non-batch|non-zero"),
        (lambda: f.max_pool3d(x, 5), RuntimeError, r"too small"),
        (lambda: f.max_pool3d(x, 3, padding=2), RuntimeError, r"pad should be at most half"),
        (lambda: f.max_pool3d(x, (2, 2)), RuntimeError, r"kernel_size"),
        (lambda: f.max_pool3d(x, 2, stride=0), RuntimeError, r"stride"),
        (lambda: f.avg_pool3d(x, 5), RuntimeError, r"kernel size|too small"),
        (lambda: f.avg_pool3d(x, 2, divisor_override=0), RuntimeError, r"divisor must be not zero"),
        (lambda: f.adaptive_avg_pool3d(x, -1), RuntimeError, r"greater than or equal to 0"),
        (lambda: f.adaptive_avg_pool3d(x.long(), 2), NotImplementedError, r"Long|int64"),
        (lambda: f.adaptive_max_pool3d(mod.ones(2, 3), 2), RuntimeError, r"4D or 5D"),
    ]
    for fn, kind, match in cases:
        with pytest.raises(kind, match=match):
            fn()


def test_pool3d_errors_name_the_op_and_shape():
    with pytest.raises(RuntimeError, match=r"max_pool3d.*\(1, 2, 4, 4, 4\).*\(0 x 0 x 0\)"):
        EF.max_pool3d(ember.ones(1, 2, 4, 4, 4), 5)
    with pytest.raises(RuntimeError, match=r"avg_pool3d.*\(2, 3\)"):
        EF.avg_pool3d(ember.ones(2, 3), 2)


# ---- layers ----------------------------------------------------------------------------------
@pytest.mark.parametrize("build,shape", [
    (lambda m: m.nn.MaxPool3d(2, stride=1, padding=1, dilation=(1, 2, 1)), (2, 3, 4, 5, 4)),
    (lambda m: m.nn.MaxPool3d((2, 3, 2), return_indices=True, ceil_mode=True), (1, 2, 5, 5, 5)),
    (lambda m: m.nn.AvgPool3d(3, 2, 1, count_include_pad=False), (2, 3, 5, 5, 4)),
    (lambda m: m.nn.AdaptiveAvgPool3d((2, None, 3)), (2, 3, 5, 4, 6)),
    (lambda m: m.nn.AdaptiveMaxPool3d(2, return_indices=True), (3, 5, 4, 6)),
])
def test_pool3d_layers(build, shape):
    e_mod, t_mod = build(ember), build(torch)
    assert repr(e_mod) == repr(t_mod)
    es, ts = make_inputs([shape], "float64")
    e, t = es[0].requires_grad_(), ts[0].requires_grad_()
    ye, yt = e_mod(e), t_mod(t)
    assert_same(ye, tuple(v.detach() for v in yt) if isinstance(yt, tuple) else yt.detach())
    first_e, first_t = (ye[0], yt[0]) if isinstance(yt, tuple) else (ye, yt)
    first_e.pow(2).sum().backward()
    first_t.pow(2).sum().backward()
    assert_same(e.grad, t.grad)


def test_adaptive_max_pool_non_int_output_size_is_a_type_error():
    for mod in (ember, torch):
        with pytest.raises(TypeError):
            mod.nn.functional.adaptive_max_pool3d(mod.ones(1, 2, 3, 3, 3), (1, math.inf, 2))
    with pytest.raises(TypeError, match=r"adaptive_max_pool2d.*output_size"):
        EF.adaptive_max_pool2d(ember.ones(1, 2, 3, 3), (1.5, 2))
