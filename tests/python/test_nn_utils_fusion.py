"""ember.nn.utils.fusion (BatchNorm folded into the conv/linear before it), memory_format
(identity in ember: one layout) and skip_init, against torch 2.13."""
import numpy as np
import pytest
import torch

import ember
from helpers import randomize_both, to_numpy


@pytest.mark.parametrize("kind,transpose,bias,affine", [
    ("Conv2d", False, True, True), ("Conv1d", False, False, True), ("Conv2d", False, True, False),
    ("ConvTranspose2d", True, True, True), ("Conv1d", False, False, False)])
def test_fuse_conv_bn_eval_matches_torch(kind, transpose, bias, affine):
    rng = np.random.default_rng(0)
    nd = {"Conv1d": 1, "Conv2d": 2, "ConvTranspose2d": 2, }[kind]
    bn_name = f"BatchNorm{nd}d"
    mods = []
    for lib in (ember, torch):
        conv = getattr(lib.nn, kind)(3, 4, 3, bias=bias)
        bn = getattr(lib.nn, bn_name)(4, affine=affine)
        mods.append((conv.eval(), bn.eval()))
    (ec, eb), (tc, tb) = mods
    randomize_both(ec, tc, rng)
    randomize_both(eb, tb, rng)
    ef = ember.nn.utils.fuse_conv_bn_eval(ec, eb, transpose=transpose)
    tf = torch.nn.utils.fuse_conv_bn_eval(tc, tb, transpose=transpose)
    assert ef is not ec and isinstance(ef.weight, ember.nn.Parameter)
    np.testing.assert_allclose(to_numpy(ef.weight), to_numpy(tf.weight), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(to_numpy(ef.bias), to_numpy(tf.bias), rtol=1e-5, atol=1e-6)
    x = rng.standard_normal((2, 3) + (5,) * nd).astype(np.float32)
    ex = ember.from_numpy(x)
    np.testing.assert_allclose(to_numpy(ef(ex)), to_numpy(eb(ec(ex))), rtol=1e-4, atol=1e-5)
    assert (ec.bias is None) == (not bias)  # the original is untouched


def test_fuse_linear_bn_eval_matches_torch_and_weights_functions():
    rng = np.random.default_rng(1)
    el, eb = ember.nn.Linear(5, 4).eval(), ember.nn.BatchNorm1d(4).eval()
    tl, tb = torch.nn.Linear(5, 4).eval(), torch.nn.BatchNorm1d(4).eval()
    randomize_both(el, tl, rng)
    randomize_both(eb, tb, rng)
    ef, tf = ember.nn.utils.fuse_linear_bn_eval(el, eb), torch.nn.utils.fuse_linear_bn_eval(tl, tb)
    np.testing.assert_allclose(to_numpy(ef.weight), to_numpy(tf.weight), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(to_numpy(ef.bias), to_numpy(tf.bias), rtol=1e-5, atol=1e-6)
    x = ember.from_numpy(rng.standard_normal((3, 5)).astype(np.float32))
    np.testing.assert_allclose(to_numpy(ef(x)), to_numpy(eb(el(x))), rtol=1e-4, atol=1e-5)
    # the weights functions, without a linear bias and with requires_grad=False kept
    w = rng.standard_normal((4, 5)).astype(np.float32)
    rm, rv = rng.standard_normal(4).astype(np.float32), np.abs(rng.standard_normal(4)).astype(np.float32)
    bw, bb = rng.standard_normal(4).astype(np.float32), rng.standard_normal(4).astype(np.float32)
    out = [lib.nn.utils.fuse_linear_bn_weights(lib.tensor(w), None, lib.tensor(rm), lib.tensor(rv),
                                               1e-3, lib.tensor(bw), lib.tensor(bb))
           for lib in (ember, torch)]
    for e, t in zip(*out):
        assert e.requires_grad is t.requires_grad is False
        np.testing.assert_allclose(to_numpy(e), to_numpy(t), rtol=1e-5, atol=1e-6)
    out = [lib.nn.utils.fuse_conv_bn_weights(lib.tensor(w[:, :, None]), None, lib.tensor(rm),
                                             lib.tensor(rv), 1e-5, None, None)
           for lib in (ember, torch)]
    for e, t in zip(*out):
        np.testing.assert_allclose(to_numpy(e), to_numpy(t), rtol=1e-5, atol=1e-6)


def test_fusion_errors_like_torch():
    for lib in (ember, torch):
        conv, bn = lib.nn.Conv2d(2, 3, 1), lib.nn.BatchNorm2d(3)
        with pytest.raises(AssertionError, match="Fusion only for eval!"):
            lib.nn.utils.fuse_conv_bn_eval(conv, bn.eval())
        with pytest.raises(AssertionError, match="running_mean and bn.running_var must not be None"):
            lib.nn.utils.fuse_conv_bn_eval(conv.eval(),
                                           lib.nn.BatchNorm2d(3, track_running_stats=False).eval())
        lin = lib.nn.Linear(2, 5).eval()
        with pytest.raises(AssertionError, match="out_features=5 and bn.num_features=3"):
            lib.nn.utils.fuse_linear_bn_eval(lin, bn.eval())


def test_memory_format_keeps_values_and_skip_init():
    m = ember.nn.Sequential(ember.nn.Conv2d(2, 3, 3), ember.nn.Conv1d(3, 3, 1))
    before = [to_numpy(p).copy() for p in m.parameters()]
    assert ember.nn.utils.convert_conv2d_weight_memory_format(m, ember.channels_last) is m
    assert ember.nn.utils.convert_conv3d_weight_memory_format(m, ember.channels_last_3d) is m
    for b, p in zip(before, m.parameters()):
        np.testing.assert_array_equal(b, to_numpy(p))
    assert m[0].weight.is_contiguous(memory_format=ember.channels_last)
    assert m[1].weight.is_contiguous()  # Conv1d: not a 2-d convolution
    lin = ember.nn.utils.skip_init(ember.nn.Linear, 5, out_features=2)
    assert isinstance(lin, ember.nn.Linear) and tuple(lin.weight.shape) == (2, 5)
    for lib in (ember, torch):
        with pytest.raises(RuntimeError, match="Expected a Module; got"):
            lib.nn.utils.skip_init(int, 3)

        class NoDevice(lib.nn.Module):
            def __init__(self, n):
                super().__init__()
        with pytest.raises(RuntimeError, match="must support a 'device' arg"):
            lib.nn.utils.skip_init(NoDevice, 3)


def test_stateless_functional_call_is_func_functional_call():
    rng = np.random.default_rng(4)
    torch.manual_seed(0)
    t = torch.nn.Linear(3, 2)
    e = ember.nn.Linear(3, 2)
    w = rng.standard_normal((2, 3)).astype(np.float32)
    x = rng.standard_normal((4, 3)).astype(np.float32)
    with pytest.warns(FutureWarning, match="stateless.functional_call` is deprecated"):
        ey = ember.nn.utils.stateless.functional_call(e, {"weight": ember.from_numpy(w)},
                                                      (ember.from_numpy(x),))
    with pytest.warns(FutureWarning):
        ty = torch.nn.utils.stateless.functional_call(t, {"weight": torch.from_numpy(w),
                                                          "bias": torch.zeros(2)},
                                                      (torch.from_numpy(x),))
    np.testing.assert_allclose(to_numpy(ey), ty.detach().numpy() + to_numpy(e.bias), rtol=1e-5,
                               atol=1e-6)
    assert e.weight.shape == (2, 3) and not np.allclose(to_numpy(e.weight), w)  # restored
    for lib, m in ((ember, e), (torch, t)):
        with pytest.warns(FutureWarning), pytest.raises(RuntimeError, match="Unexpected key"):
            lib.nn.utils.stateless.functional_call(m, {"nope": lib.zeros(1)}, (lib.zeros(1, 3),),
                                                   strict=True)
