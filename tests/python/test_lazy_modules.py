"""Lazy modules against torch 2.13: the first forward infers the shapes, materializes the
parameters in place (an optimizer built before keeps them), initialises them as the
non-lazy layer and turns the module into its cls_to_become; state_dict, load_state_dict,
repr, UninitializedParameter/UninitializedBuffer; and nn.DataParallel on a CPU-only build."""
import copy

import numpy as np
import pytest
import torch

import ember
import ember.nn as nn
from helpers import assert_same

CASES = [
    ("LazyLinear", (3,), {}, (2, 7), "Linear"),
    ("LazyLinear", (3,), {"bias": False}, (2, 4, 5), "Linear"),
    ("LazyConv1d", (4, 3), {"padding": 1}, (2, 3, 9), "Conv1d"),
    ("LazyConv2d", (4, 3), {"stride": 2, "groups": 2}, (1, 2, 7, 7), "Conv2d"),
    ("LazyConv2d", (4, 3), {}, (2, 6, 6), "Conv2d"),  # unbatched
    ("LazyConvTranspose1d", (2, 3), {"stride": 2}, (1, 4, 5), "ConvTranspose1d"),
    ("LazyConvTranspose2d", (2, 3), {"output_padding": 1, "stride": 2}, (1, 3, 4, 4),
     "ConvTranspose2d"),
    ("LazyBatchNorm1d", (), {}, (6, 3), "BatchNorm1d"),
    ("LazyBatchNorm2d", (), {"affine": False}, (2, 3, 4, 4), "BatchNorm2d"),
    ("LazyInstanceNorm1d", (), {}, (2, 3, 5), "InstanceNorm1d"),
    ("LazyInstanceNorm2d", (), {"track_running_stats": False}, (2, 3, 4, 4), "InstanceNorm2d"),
    ("LazyInstanceNorm3d", (), {}, (2, 3, 2, 3, 2), "InstanceNorm3d"),
]


@pytest.mark.parametrize("name,args,kw,shape,becomes", CASES)
def test_lazy_module_matches_torch(name, args, kw, shape, becomes):
    em, tm = getattr(nn, name)(*args, **kw), getattr(torch.nn, name)(*args, **kw)
    assert repr(em) == repr(tm)
    assert list(em.state_dict()) == list(tm.state_dict())
    assert [repr(v) for v in em.state_dict().values()] == [repr(v) for v in
                                                           tm.state_dict().values()]
    assert em.has_uninitialized_params() and tm.has_uninitialized_params()
    params_before = list(em.parameters())
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    ye = em(ember.tensor(x))
    yt = tm(torch.tensor(x))
    assert type(em) is getattr(nn, becomes) and type(tm) is getattr(torch.nn, becomes)
    assert repr(em) == repr(tm)
    assert not any(nn.parameter.is_lazy(t) for t in list(em.parameters()) + list(em.buffers()))
    assert all(a is b for a, b in zip(params_before, em.parameters()))  # the same objects
    assert all(type(p) is nn.Parameter for p in em.parameters())
    assert {k: tuple(v.shape) for k, v in em.state_dict().items()} == \
        {k: tuple(v.shape) for k, v in tm.state_dict().items()}
    # with torch's materialized values, the outputs and gradients agree
    em.load_state_dict({k: ember.tensor(v.numpy()) for k, v in tm.state_dict().items()})
    e, t = ember.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    ye, yt = em(e), tm(t)
    assert_same(ye, yt.detach(), 1e-4, 1e-5)
    ye.pow(2).sum().backward()
    yt.pow(2).sum().backward()
    assert_same(e.grad, t.grad, 1e-4, 1e-5)


def test_initialisation_follows_the_eager_layer():
    ember.manual_seed(0)
    m = nn.LazyLinear(50)
    m(ember.ones(1, 400))
    bound = 1 / np.sqrt(400)
    w = m.weight.detach().numpy()
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.9 * bound
    bn = nn.LazyBatchNorm1d()
    bn.eval()
    bn(ember.ones(2, 4))
    assert bn.running_var.numpy().tolist() == [1.0] * 4
    assert bn.weight.numpy().tolist() == [1.0] * 4


@pytest.mark.parametrize("opt", ["SGD", "Adam"])
def test_optimizer_built_before_materialization(opt):
    x = np.random.default_rng(1).standard_normal((4, 6)).astype(np.float32)
    em, tm = nn.LazyLinear(2), torch.nn.LazyLinear(2)
    eo = getattr(ember.optim, opt)(em.parameters(), lr=0.1)
    to = getattr(torch.optim, opt)(tm.parameters(), lr=0.1)
    em(ember.tensor(x))
    tm(torch.tensor(x))
    em.load_state_dict({k: ember.tensor(v.numpy()) for k, v in tm.state_dict().items()})
    for _ in range(2):
        eo.zero_grad()
        to.zero_grad()
        em(ember.tensor(x)).pow(2).sum().backward()
        tm(torch.tensor(x)).pow(2).sum().backward()
        eo.step()
        to.step()
    assert_same(em.weight.detach(), tm.weight.detach(), 1e-5, 1e-6)


def test_load_state_dict_materializes_without_forward():
    src = nn.Linear(4, 3)
    m = nn.LazyLinear(3)
    m.load_state_dict(src.state_dict())
    assert type(m) is nn.LazyLinear and not m.has_uninitialized_params()  # as torch
    assert np.array_equal(m.weight.detach().numpy(), src.weight.detach().numpy())
    assert type(m(ember.ones(1, 4))) is ember.Tensor and type(m) is nn.Linear


def test_uninitialized_tensors():
    p, b = nn.parameter.UninitializedParameter(), nn.parameter.UninitializedBuffer()
    assert (repr(p), repr(b)) == ("<UninitializedParameter>", "<UninitializedBuffer>")
    assert p.requires_grad and not b.requires_grad
    assert nn.parameter.is_lazy(p) and not nn.parameter.is_lazy(nn.Parameter(ember.ones(1)))
    with pytest.raises(RuntimeError, match="Can't access the shape of an uninitialized"):
        p.shape
    with pytest.raises(RuntimeError, match="Can't access the shape of an uninitialized"):
        torch.nn.parameter.UninitializedParameter().shape
    p.materialize((2, 3), dtype=ember.float64)
    assert type(p) is nn.Parameter and tuple(p.shape) == (2, 3) and p.dtype == ember.float64
    b.materialize((4,))
    assert tuple(b.shape) == (4,) and not nn.parameter.is_lazy(b)
    m = copy.deepcopy(nn.LazyLinear(2))
    assert m.has_uninitialized_params()


def test_lazy_errors_match_torch():
    for lib in (nn, torch.nn):
        with pytest.raises(RuntimeError, match="Expected 3D \\(unbatched\\) or 4D \\(batched\\) "
                                               "input to LazyConv2d"):
            lib.LazyConv2d(4, 3)((ember if lib is nn else torch).ones(2, 3))
        with pytest.raises(ValueError, match="in_channels must be divisible by groups"):
            lib.LazyConv2d(4, 3, groups=2)((ember if lib is nn else torch).ones(1, 3, 5, 5))


# ---- DataParallel ------------------------------------------------------------------------------
def test_data_parallel_is_a_pass_through_wrapper_as_cpu_torch():
    inner = nn.Linear(3, 2)
    dp, tdp = nn.DataParallel(inner), torch.nn.DataParallel(torch.nn.Linear(3, 2))
    assert nn.parallel.DataParallel is nn.DataParallel
    assert repr(dp).replace("ember", "torch") == repr(tdp)
    assert dp.module is inner and dp.device_ids == tdp.device_ids == []
    assert list(dp.state_dict()) == list(tdp.state_dict()) == ["module.weight", "module.bias"]
    x = ember.randn(4, 3)
    assert np.array_equal(dp(x).detach().numpy(), inner(x).detach().numpy())
    dp(x).sum().backward()
    assert inner.weight.grad is not None
    # a checkpoint of the wrapped model loads into the bare one after stripping 'module.'
    sd = {k[len("module."):]: v for k, v in dp.state_dict().items()}
    nn.Linear(3, 2).load_state_dict(sd)
    nn.DataParallel(inner, device_ids=[0], output_device=0, dim=1)  # accepted, as torch


def test_data_parallel_function_raises_as_cpu_torch():
    with pytest.raises(RuntimeError, match="device type could not be determined"):
        torch.nn.parallel.data_parallel(torch.nn.Linear(2, 2), torch.ones(1, 2))
    with pytest.raises(RuntimeError, match="device type could not be determined"):
        nn.parallel.data_parallel(nn.Linear(2, 2), ember.ones(1, 2))


def test_scatter_gather_copies_structure_as_cpu_torch():
    import collections
    import importlib
    import warnings
    P = collections.namedtuple("P", "a b")
    got = []
    for lib in ("ember", "torch"):
        sg = importlib.import_module(f"{lib}.nn.parallel.scatter_gather")
        out = [sg.scatter(inp, [0, 1]) for inp in
               [(1, "a"), [1, [2, 3]], {"k": 1, "j": (2,)}, P(1, 2), 5, (), []]]
        out += [sg.scatter_kwargs((1,), {"a": 2}, [0, 1]), sg.scatter_kwargs((), {"a": 2}, [0, 1, 2]),
                sg.scatter_kwargs((1, 2), {}, [0, 1]), sg.gather([{"a": None}, {"a": None}], 0),
                sg.gather([P(None, None), P(None, None)], 0)]
        with pytest.warns(FutureWarning, match="is_namedtuple` is deprecated"):
            out.append(sg.is_namedtuple(P(1, 2)))
        m = importlib.import_module(lib)
        with pytest.raises(ValueError, match="Expected a non cpu device, but got: cpu"):
            sg.scatter((m.ones(4),), ["cpu"])
        with pytest.raises(AssertionError, match="Gather function not implemented for CPU tensors"):
            sg.gather([m.ones(2), m.ones(2)], -1)
        with pytest.raises(ValueError, match="same number of keys"):
            sg.gather([{"a": 1}, {}], 0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got.append(out)
    assert got[0] == got[1]
    with pytest.raises(RuntimeError, match=r"scatter: ember runs on the CPU only; .* shape \(2,\)"):
        ember.nn.parallel.scatter_gather.scatter(ember.ones(2), [0])
