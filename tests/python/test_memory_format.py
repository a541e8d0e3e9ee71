"""Memory formats (ember.channels_last & co., python/ember/_memory_format.py) against torch 2.13:
the strides each conversion gives, is_contiguous(memory_format), values and gradients through a
conversion, Module.to / convert_conv2d_weight_memory_format, training on channels-last weights,
pickling, and torch's errors."""
import pickle

import numpy as np
import pytest
import torch

import ember

FORMATS = ["contiguous_format", "channels_last", "channels_last_3d", "preserve_format"]


def pair(shape, seed=0):
    a = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    return ember.from_numpy(a.copy()), torch.from_numpy(a.copy())


# (description, function making a view from a fresh tensor of shape `shape`)
VIEWS = {
    "plain": ((2, 3, 4, 5), lambda t: t),
    "nhwc": ((2, 4, 5, 3), lambda t: t.permute(0, 3, 1, 2)),
    "transposed": ((2, 3, 4, 5), lambda t: t.transpose(2, 3)),
    "sliced": ((2, 3, 8, 5), lambda t: t[:, :, ::2]),
    "one_channel": ((2, 1, 4, 5), lambda t: t),
    "one_pixel": ((2, 3, 1, 1), lambda t: t),
    "empty": ((0, 3, 4, 5), lambda t: t),
    "three_d": ((3, 4, 5), lambda t: t),
    "five_d": ((2, 3, 4, 5, 6), lambda t: t),
    "ndhwc": ((2, 4, 5, 6, 3), lambda t: t.permute(0, 4, 1, 2, 3)),
}


def views(name, seed=0):
    shape, make = VIEWS[name]
    e, t = pair(shape, seed)
    return make(e), make(t)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("view", sorted(VIEWS))
def test_is_contiguous_as_torch(view, fmt):
    e, t = views(view)
    assert e.is_contiguous(memory_format=getattr(ember, fmt)) == \
        t.is_contiguous(memory_format=getattr(torch, fmt))


def _same_outcome(fe, ft):
    """Both raise the same exception type, or both give equal values with equal strides."""
    try:
        want = ft()
    except Exception as err:  # noqa: BLE001 - the oracle decides which type
        with pytest.raises(type(err)):
            fe()
        return None
    got = fe()
    assert got.stride() == want.stride()
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    return got, want


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("view", sorted(VIEWS))
def test_contiguous_as_torch(view, fmt):
    e, t = views(view)
    out = _same_outcome(lambda: e.contiguous(memory_format=getattr(ember, fmt)),
                        lambda: t.contiguous(memory_format=getattr(torch, fmt)))
    if out is not None and e.is_contiguous(memory_format=getattr(ember, fmt)):
        assert out[0] is e  # already laid out so: self, as torch


@pytest.mark.parametrize("fmt", ["contiguous_format", "channels_last", "channels_last_3d"])
@pytest.mark.parametrize("view", sorted(VIEWS))
def test_clone_and_to_as_torch(view, fmt):
    e, t = views(view)
    _same_outcome(lambda: e.clone(memory_format=getattr(ember, fmt)),
                  lambda: t.clone(memory_format=getattr(torch, fmt)))
    _same_outcome(lambda: ember.clone(e, memory_format=getattr(ember, fmt)),
                  lambda: torch.clone(t, memory_format=getattr(torch, fmt)))
    _same_outcome(lambda: e.to(ember.float64, memory_format=getattr(ember, fmt)),
                  lambda: t.to(torch.float64, memory_format=getattr(torch, fmt)))
    _same_outcome(lambda: e.half(memory_format=getattr(ember, fmt)),
                  lambda: t.half(memory_format=getattr(torch, fmt)))


def test_to_keeps_self_when_already_laid_out():
    e = ember.zeros(2, 3, 4, 5).contiguous(memory_format=ember.channels_last)
    assert e.to(memory_format=ember.channels_last) is e
    assert e.to(memory_format=ember.preserve_format) is e


@pytest.mark.parametrize("fmt", ["contiguous_format", "channels_last", "channels_last_3d",
                                 "preserve_format"])
@pytest.mark.parametrize("shape", [(2, 3, 4, 5), (2, 3, 4, 5, 6), (3, 4), (0, 3, 1, 2)])
def test_empty_and_like_factories_as_torch(shape, fmt):
    fe, ft = getattr(ember, fmt), getattr(torch, fmt)

    def strides(m, make):
        try:
            return make(m).stride()
        except Exception as err:  # noqa: BLE001
            return type(err)
    assert strides(ember, lambda m: m.empty(*shape, memory_format=fe)) == \
        strides(torch, lambda m: m.empty(*shape, memory_format=ft))
    if fmt == "preserve_format":
        return  # ember's *_like keep a row-major result (a documented difference)
    for name in ("empty_like", "zeros_like", "ones_like", "rand_like", "randn_like"):
        assert strides(ember, lambda m: getattr(m, name)(m.zeros(shape), memory_format=fe)) == \
            strides(torch, lambda m: getattr(m, name)(m.zeros(shape), memory_format=ft)), name
    assert strides(ember, lambda m: m.full_like(m.zeros(shape), 2.0, memory_format=fe)) == \
        strides(torch, lambda m: m.full_like(m.zeros(shape), 2.0, memory_format=ft))


def test_like_values_and_requires_grad():
    x = ember.zeros(2, 3, 4, 5)
    o = ember.full_like(x, 7.0, memory_format=ember.channels_last, requires_grad=True)
    assert o.is_leaf and o.requires_grad and bool((o == 7).all())
    assert o.is_contiguous(memory_format=ember.channels_last)


def test_only_empty_takes_a_memory_format():
    for m in (ember, torch):
        with pytest.raises(TypeError, match="memory_format"):
            m.zeros(2, 3, 4, 5, memory_format=m.channels_last)


def test_gradient_flows_through_a_conversion():
    e, t = pair((2, 3, 4, 5))
    e.requires_grad_(True)
    t.requires_grad_(True)
    w = np.random.default_rng(1).standard_normal((2, 3, 4, 5)).astype(np.float32)
    for x, m in ((e, ember), (t, torch)):
        y = x.contiguous(memory_format=m.channels_last).to(memory_format=m.contiguous_format)
        (y * m.from_numpy(w)).sum().backward()
    np.testing.assert_array_equal(e.grad.numpy(), t.grad.numpy())


def test_bad_format_argument():
    e = ember.zeros(2, 3, 4, 5)
    for call in (lambda: e.contiguous(memory_format=1), lambda: e.is_contiguous(memory_format="x"),
                 lambda: e.clone(memory_format=ember.float32), lambda: e.to(memory_format=3)):
        with pytest.raises(TypeError, match="memory_format"):
            call()
    with pytest.raises(RuntimeError, match=r"required rank 4 tensor.*\[3, 4, 5\]"):
        ember.zeros(3, 4, 5).contiguous(memory_format=ember.channels_last)
    with pytest.raises(RuntimeError, match="preserve memory format"):
        e.transpose(2, 3).contiguous(memory_format=ember.preserve_format)


def test_names_repr_and_pickle():
    assert isinstance(ember.channels_last, ember.memory_format)
    assert repr(ember.channels_last_3d) == "ember.channels_last_3d"
    for f in ("contiguous_format", "channels_last", "channels_last_3d", "preserve_format"):
        assert pickle.loads(pickle.dumps(getattr(ember, f))) is getattr(ember, f)


def _conv_net(m):
    m.manual_seed(0)
    return m.nn.Sequential(m.nn.Conv2d(3, 8, 3), m.nn.ReLU(), m.nn.Conv2d(8, 4, 3),
                           m.nn.Flatten(), m.nn.Linear(4 * 4 * 4, 2))


def _copy_weights(src, dst):
    with torch.no_grad():
        for p, q in zip(src.parameters(), dst.parameters()):
            q.copy_(torch.from_numpy(p.detach().numpy().copy()))


def test_module_to_and_convert_weights_as_torch():
    e, t = _conv_net(ember), _conv_net(torch)
    e.to(memory_format=ember.channels_last)
    t.to(memory_format=torch.channels_last)
    assert [p.stride() for p in e.parameters()] == [p.stride() for p in t.parameters()]
    e2, t2 = _conv_net(ember), _conv_net(torch)
    ember.nn.utils.convert_conv2d_weight_memory_format(e2, ember.channels_last)
    torch.nn.utils.convert_conv2d_weight_memory_format(t2, torch.channels_last)
    assert [p.stride() for p in e2.parameters()] == [p.stride() for p in t2.parameters()]
    c3e, c3t = ember.nn.Conv3d(2, 4, 3), torch.nn.Conv3d(2, 4, 3)
    ember.nn.utils.convert_conv3d_weight_memory_format(c3e, ember.channels_last_3d)
    torch.nn.utils.convert_conv3d_weight_memory_format(c3t, torch.channels_last_3d)
    assert c3e.weight.stride() == c3t.weight.stride()
    with pytest.raises(RuntimeError, match="rank 4"):  # as torch: a 5-d weight can't be NHWC
        ember.nn.Conv3d(2, 4, 3).to(memory_format=ember.channels_last)


def test_training_on_channels_last_weights_equals_row_major():
    """Adam steps on a channels-last model and its input give the row-major model's values."""
    plain, nhwc = _conv_net(ember), _conv_net(ember)
    nhwc.to(memory_format=ember.channels_last)
    x, _ = pair((4, 3, 8, 8), seed=3)
    y = ember.tensor([0, 1, 1, 0])
    for model, inp in ((plain, x), (nhwc, x.contiguous(memory_format=ember.channels_last))):
        opt = ember.optim.Adam(model.parameters(), lr=1e-2)
        for _ in range(3):
            opt.zero_grad()
            ember.nn.functional.cross_entropy(model(inp), y).backward()
            opt.step()
    assert nhwc[0].weight.is_contiguous(memory_format=ember.channels_last)
    for p, q in zip(plain.parameters(), nhwc.parameters()):
        np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), rtol=1e-6, atol=1e-6)


def test_forward_on_channels_last_matches_torch():
    e_net, t_net = _conv_net(ember), _conv_net(torch)
    _copy_weights(e_net, t_net)
    e_net.to(memory_format=ember.channels_last)
    t_net.to(memory_format=torch.channels_last)
    e, t = pair((2, 3, 8, 8), seed=5)
    got = e_net(e.contiguous(memory_format=ember.channels_last))
    want = t_net(t.contiguous(memory_format=torch.channels_last))
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-5, atol=1e-5)


def test_shape_prop_reports_the_layout():
    from ember.fx.passes.shape_prop import ShapeProp

    class Net(ember.nn.Module):
        def forward(self, x):
            return x.contiguous(memory_format=ember.channels_last), x.transpose(2, 3)

    gm = ember.fx.symbolic_trace(Net())
    ShapeProp(gm).propagate(ember.zeros(2, 3, 4, 5))
    metas = [n.meta.get("tensor_meta") for n in gm.graph.nodes if n.op == "call_method"]
    assert [m.memory_format for m in metas] == [ember.channels_last, None]


def test_make_tensor_lays_out_as_asked():
    for m in (ember, torch):
        t = m.testing.make_tensor(2, 3, 4, 5, dtype=m.float32, device="cpu",
                                  memory_format=m.channels_last)
        assert t.stride() == (60, 1, 15, 3)
