"""PixelShuffle/PixelUnshuffle, ChannelShuffle, InstanceNorm1d/2d/3d, LocalResponseNorm and
EmbeddingBag (+ their functional forms) against torch 2.13: forward and gradients on random
inputs, train/eval, state_dict keys, repr and bad inputs."""
import warnings

import numpy as np
import pytest
import torch

import ember
import ember.nn as nn
import ember.nn.functional as F
from helpers import assert_same, errors_of_both


def _pair(shape, seed=0, dtype=np.float32, grad=True):
    a = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    return (ember.tensor(a, requires_grad=grad), torch.tensor(a, requires_grad=grad))


def _check_fn(efn, tfn, shape, dtype=np.float64, seed=0, rtol=1e-6, atol=1e-8):
    e, t = _pair(shape, seed, dtype)
    ye, yt = efn(e), tfn(t)
    assert_same(ye, yt.detach(), rtol, atol)
    g = np.random.default_rng(seed + 1).standard_normal(tuple(yt.shape)).astype(dtype)
    ye.backward(ember.tensor(g))
    yt.backward(torch.tensor(g))
    assert_same(e.grad, t.grad, rtol, atol)


# ---- pixel and channel shuffle ---------------------------------------------------------------
@pytest.mark.parametrize("shape,r", [((2, 8, 3, 5), 2), ((18, 2, 3), 3), ((2, 1, 4, 2, 2), 1),
                                     ((3, 2, 4, 4, 1), 2)])
def test_pixel_shuffle(shape, r):
    _check_fn(lambda x: F.pixel_shuffle(x, r), lambda x: torch.nn.functional.pixel_shuffle(x, r),
              shape)


def test_pixel_shuffle_empty_batch():
    # forward only: torch's PixelShuffleBackward0 rejects its own gradient for an empty batch,
    # and torch's pixel_unshuffle returns an empty batch unreshaped, (0, 4, 2, 2)
    e, t = _pair((0, 4, 2, 2), grad=False)
    assert_same(F.pixel_shuffle(e, 2), torch.nn.functional.pixel_shuffle(t, 2))
    assert tuple(F.pixel_unshuffle(e, 2).shape) == (0, 16, 1, 1)


@pytest.mark.parametrize("shape,r", [((2, 3, 4, 6), 2), ((1, 6, 9), 3), ((2, 2, 3, 2, 2), 1),
                                     ((2, 1, 4, 4), 4)])
def test_pixel_unshuffle(shape, r):
    _check_fn(lambda x: F.pixel_unshuffle(x, r),
              lambda x: torch.nn.functional.pixel_unshuffle(x, r), shape)


def test_pixel_roundtrip_modules_and_repr():
    e, t = _pair((2, 12, 4, 6), grad=False)
    ps, tps = nn.PixelShuffle(2), torch.nn.PixelShuffle(2)
    pu, tpu = nn.PixelUnshuffle(2), torch.nn.PixelUnshuffle(2)
    assert (repr(ps), repr(pu)) == (repr(tps), repr(tpu))
    assert_same(ps(e), tps(t))
    assert_same(pu(ps(e)), t)
    assert list(ps.state_dict()) == []


@pytest.mark.parametrize("shape,g", [((2, 6, 3), 3), ((1, 4, 2, 2), 2), ((2, 6, 1, 2, 2), 6),
                                     ((3, 5, 2), 1)])
def test_channel_shuffle(shape, g):
    _check_fn(lambda x: F.channel_shuffle(x, g),
              lambda x: torch.nn.functional.channel_shuffle(x, g), shape)
    m, tm = nn.ChannelShuffle(g), torch.nn.ChannelShuffle(g)
    assert repr(m) == repr(tm)
    e, t = _pair(shape, grad=False)
    assert_same(m(e), tm(t))


@pytest.mark.parametrize("call", [
    lambda m: m.nn.functional.pixel_shuffle(m.ones(2, 5, 3, 3), 2),
    lambda m: m.nn.functional.pixel_shuffle(m.ones(4, 3), 2),
    lambda m: m.nn.functional.pixel_shuffle(m.ones(1, 4, 2, 2), 0),
    lambda m: m.nn.functional.pixel_unshuffle(m.ones(1, 1, 3, 4), 2),
    lambda m: m.nn.functional.pixel_unshuffle(m.ones(1, 1, 4, 3), 2),
    lambda m: m.nn.functional.pixel_unshuffle(m.ones(3, 4), 2),
    lambda m: m.nn.functional.channel_shuffle(m.ones(1, 5, 2, 2), 2),
    lambda m: m.nn.functional.channel_shuffle(m.ones(1, 4), 2),
    lambda m: m.nn.functional.channel_shuffle(m.ones(1, 4, 2), 0),
])
def test_shuffle_errors_match_torch(call):
    e, t = errors_of_both(call)
    assert e == t.split("\n")[0]


# ---- instance norm ---------------------------------------------------------------------------
CASES = [(nn.InstanceNorm1d, (3, 4, 7)), (nn.InstanceNorm1d, (4, 7)),
         (nn.InstanceNorm2d, (2, 4, 3, 5)), (nn.InstanceNorm2d, (4, 3, 5)),
         (nn.InstanceNorm3d, (2, 4, 2, 3, 2))]


@pytest.mark.parametrize("cls,shape", CASES)
@pytest.mark.parametrize("affine,track", [(False, False), (True, False), (True, True),
                                          (False, True)])
def test_instance_norm_module(cls, shape, affine, track):
    tcls = getattr(torch.nn, cls.__name__)
    m = cls(4, affine=affine, track_running_stats=track, momentum=0.3).double()
    tm = tcls(4, affine=affine, track_running_stats=track, momentum=0.3).double()
    assert repr(m) == repr(tm)
    assert list(m.state_dict()) == list(tm.state_dict())
    if affine:
        with torch.no_grad():
            tm.weight.uniform_(0.5, 1.5)
            tm.bias.uniform_(-1, 1)
        m.load_state_dict({k: ember.tensor(v.numpy()) for k, v in tm.state_dict().items()})
    for step in range(2):
        e, t = _pair(shape, seed=step, dtype=np.float64)
        ye, yt = m(e), tm(t)
        assert_same(ye, yt.detach(), 1e-6, 1e-8)
        ye.pow(3).sum().backward()
        yt.pow(3).sum().backward()
        assert_same(e.grad, t.grad, 1e-6, 1e-8)
        if affine:
            assert_same(m.weight.grad, tm.weight.grad, 1e-6, 1e-8)
            assert_same(m.bias.grad, tm.bias.grad, 1e-6, 1e-8)
    for k, v in tm.state_dict().items():
        assert_same(m.state_dict()[k], v, 1e-6, 1e-8)
    m.eval()
    tm.eval()
    e, t = _pair(shape, seed=5, dtype=np.float64, grad=False)
    assert_same(m(e), tm(t), 1e-6, 1e-8)


def test_instance_norm_functional_and_errors():
    _check_fn(lambda x: F.instance_norm(x), lambda x: torch.nn.functional.instance_norm(x),
              (2, 3, 5))
    rm, rv = ember.zeros(3, dtype=ember.float64), ember.ones(3, dtype=ember.float64)
    trm, trv = torch.zeros(3, dtype=torch.float64), torch.ones(3, dtype=torch.float64)
    _check_fn(lambda x: F.instance_norm(x, rm, rv, momentum=0.5),
              lambda x: torch.nn.functional.instance_norm(x, trm, trv, momentum=0.5), (4, 3, 6))
    assert_same(rm, trm)
    assert_same(rv, trv)
    for shape in [(1, 3), (2, 3, 1)]:
        with pytest.raises(ValueError, match="Expected more than 1 spatial element when training"):
            F.instance_norm(ember.ones(*shape))
    with pytest.raises(ValueError, match="expected 2D or 3D input \\(got 4D input\\)"):
        nn.InstanceNorm1d(3)(ember.ones(2, 3, 4, 5))
    with pytest.raises(ValueError, match="expected 3D or 4D input \\(got 2D input\\)"):
        nn.InstanceNorm2d(3)(ember.ones(3, 4))
    with pytest.raises(ValueError, match="expected input's size at dim=1 to match num_features"):
        nn.InstanceNorm1d(3, affine=True)(ember.ones(2, 4, 5))
    with pytest.warns(UserWarning, match="does not match num_features"):
        nn.InstanceNorm1d(3)(ember.ones(2, 4, 5))


def test_instance_norm_old_checkpoint_running_stats_dropped():
    m = nn.InstanceNorm1d(3)
    sd = {"running_mean": ember.zeros(3), "running_var": ember.ones(3)}
    with pytest.raises(RuntimeError, match="Unexpected running stats buffer"):
        m.load_state_dict(sd)


# ---- local response norm ---------------------------------------------------------------------
@pytest.mark.parametrize("shape,size", [((2, 5, 7), 3), ((2, 6, 3, 4), 4), ((1, 3, 2, 2, 2), 5),
                                        ((2, 4, 3), 1), ((0, 3, 4), 2)])
def test_local_response_norm(shape, size):
    _check_fn(lambda x: F.local_response_norm(x, size, 1e-2, 0.7, 2.0),
              lambda x: torch.nn.functional.local_response_norm(x, size, 1e-2, 0.7, 2.0), shape)
    m, tm = nn.LocalResponseNorm(size), torch.nn.LocalResponseNorm(size)
    assert repr(m) == repr(tm)
    e, t = _pair(shape, grad=False)
    assert_same(m(e), tm(t), 1e-5, 1e-6)


def test_local_response_norm_bad_input():
    with pytest.raises(ValueError, match="got 2 dimensions"):
        F.local_response_norm(ember.ones(2, 3), 2)
    with pytest.raises(ValueError, match="got 2 dimensions"):
        torch.nn.functional.local_response_norm(torch.ones(2, 3), 2)


# ---- embedding bag ---------------------------------------------------------------------------
def _bag_pair(num=10, dim=4, seed=0):
    w = np.random.default_rng(seed).standard_normal((num, dim))
    return ember.tensor(w, requires_grad=True), torch.tensor(w, requires_grad=True)


BAGS = [
    dict(input=[[1, 2, 4], [4, 3, 2]]),
    dict(input=[1, 2, 4, 5, 4, 3, 2, 9], offsets=[0, 4]),
    dict(input=[1, 2, 4, 5, 4, 3, 2, 9], offsets=[0, 2, 2, 7]),  # an empty bag
    # the last offset is the input's length, as documented (torch's float64 path and its
    # float32 path disagree when it is not)
    dict(input=[1, 2, 4, 5, 4, 3, 2, 9], offsets=[0, 3, 5, 8], include_last_offset=True),
    dict(input=[1, 0, 4, 0, 4, 3, 0, 9], offsets=[0, 2, 4], padding_idx=0),
    dict(input=[[0, 0], [1, 0]], padding_idx=0),  # an all-padding bag
    dict(input=[3, 3, 1], offsets=[0, 1], padding_idx=-7),
    dict(input=[], offsets=[0, 0]),
]


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("case", range(len(BAGS)))
def test_embedding_bag_matches_torch(mode, case):
    kw = dict(BAGS[case])
    inp = kw.pop("input")
    offs = kw.pop("offsets", None)
    we, wt = _bag_pair()
    ie, it = ember.tensor(inp, dtype=ember.int64), torch.tensor(inp, dtype=torch.int64)
    oe = None if offs is None else ember.tensor(offs, dtype=ember.int64)
    ot = None if offs is None else torch.tensor(offs, dtype=torch.int64)
    ye = F.embedding_bag(ie, we, oe, mode=mode, **kw)
    yt = torch.nn.functional.embedding_bag(it, wt, ot, mode=mode, **kw)
    assert_same(ye, yt.detach())
    g = np.random.default_rng(1).standard_normal(tuple(yt.shape))
    ye.backward(ember.tensor(g))
    yt.backward(torch.tensor(g))
    assert_same(we.grad, wt.grad)


@pytest.mark.parametrize("twod", [False, True])
def test_embedding_bag_per_sample_weights(twod):
    we, wt = _bag_pair()
    inp = [[1, 2, 4], [4, 3, 9]] if twod else [1, 2, 4, 4, 3, 9]
    offs = None if twod else [0, 1]
    psw = np.random.default_rng(2).standard_normal(np.shape(inp))
    pe, pt = ember.tensor(psw, requires_grad=True), torch.tensor(psw, requires_grad=True)
    ye = F.embedding_bag(ember.tensor(inp), we, None if offs is None else ember.tensor(offs),
                         mode="sum", per_sample_weights=pe)
    yt = torch.nn.functional.embedding_bag(torch.tensor(inp), wt,
                                           None if offs is None else torch.tensor(offs),
                                           mode="sum", per_sample_weights=pt)
    assert_same(ye, yt.detach())
    ye.sum().backward()
    yt.sum().backward()
    assert_same(we.grad, wt.grad)
    assert_same(pe.grad, pt.grad)


def test_embedding_bag_module():
    m = nn.EmbeddingBag(10, 3, mode="max", padding_idx=-1)
    tm = torch.nn.EmbeddingBag(10, 3, mode="max", padding_idx=-1)
    assert repr(m) == repr(tm) and repr(nn.EmbeddingBag(5, 2)) == repr(torch.nn.EmbeddingBag(5, 2))
    assert m.padding_idx == tm.padding_idx == 9
    assert list(m.state_dict()) == list(tm.state_dict()) == ["weight"]
    assert float(m.weight[9].abs().sum()) == 0
    w = np.random.default_rng(3).standard_normal((4, 2)).astype(np.float32)
    me = nn.EmbeddingBag.from_pretrained(ember.tensor(w), mode="sum")
    mt = torch.nn.EmbeddingBag.from_pretrained(torch.tensor(w), mode="sum")
    assert not me.weight.requires_grad
    assert_same(me(ember.tensor([0, 3, 1]), ember.tensor([0, 1])),
                mt(torch.tensor([0, 3, 1]), torch.tensor([0, 1])))
    with pytest.raises(AssertionError, match="padding_idx must be within num_embeddings"):
        nn.EmbeddingBag(3, 2, padding_idx=3)


@pytest.mark.parametrize("args,kw", [
    (([1, 2, 3], [1]), {}), (([1, 2, 3], [0, 5]), {}), (([1, 2, 10], [0]), {}),
    (([1, 2, -1], [0]), {}), (([1, 2, 3], [0, 1]), {"padding_idx": 10}),
])
def test_embedding_bag_runtime_errors_match_torch(args, kw):
    inp, offs = args
    with pytest.raises(RuntimeError) as te:
        torch.nn.functional.embedding_bag(torch.tensor(inp), torch.ones(10, 3),
                                          torch.tensor(offs), **kw)
    with pytest.raises(RuntimeError) as ee:
        F.embedding_bag(ember.tensor(inp), ember.ones(10, 3), ember.tensor(offs), **kw)
    assert str(ee.value) == str(te.value).split("\n")[0]


def test_embedding_bag_value_errors():
    w = ember.ones(10, 3)
    i2 = ember.tensor([[1, 2]])
    with pytest.raises(ValueError, match="offsets has to be None"):
        F.embedding_bag(i2, w, ember.tensor([0]))
    with pytest.raises(ValueError, match="offsets has to be a 1D Tensor but got None"):
        F.embedding_bag(ember.tensor([1, 2]), w)
    with pytest.raises(ValueError, match="input has to be 1D or 2D Tensor"):
        F.embedding_bag(ember.ones(1, 1, 1, dtype=ember.int64), w)
    with pytest.raises(ValueError, match="mode has to be one of sum, mean or max"):
        F.embedding_bag(i2, w, mode="min")
    with pytest.raises(ValueError, match="weight has to be a 2D Tensor"):
        F.embedding_bag(i2, ember.ones(10))
    with pytest.raises(ValueError, match="must have the same shape as the input"):
        F.embedding_bag(i2, w, mode="sum", per_sample_weights=ember.ones(3))
    with pytest.raises(NotImplementedError, match="only supported for mode='sum'"):
        F.embedding_bag(i2, w, mode="max", per_sample_weights=ember.ones(1, 2))
    with pytest.raises(NotImplementedError, match="only supported for mode='sum'"):
        torch.nn.functional.embedding_bag(torch.tensor([[1, 2]]), torch.ones(10, 3), mode="max",
                                          per_sample_weights=torch.ones(1, 2))
