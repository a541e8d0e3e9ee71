"""ember.nn.Module's API against torch.nn.Module: registration, the named_* orders,
state_dict keys and load_state_dict errors, train/eval, zero_grad, apply, to(dtype),
repr, hooks, containers, Parameter, and PyTorch's default initialisation."""
import copy
import math
from collections import OrderedDict

import numpy as np
import pytest
import torch

import ember
from ember import nn


def _str(s):
    return s.replace("torch", "ember")


def build_net(m):
    """A model with nesting, a shared sub-module, a shared Parameter, buffers (one not
    persistent), a None parameter and every container."""

    class Block(m.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = m.nn.Linear(4, 4)
            self.bn = m.nn.BatchNorm1d(4)
            self.register_buffer("scale", m.ones(4))
            self.register_buffer("cache", m.zeros(2), persistent=False)
            self.register_parameter("unused", None)

        def forward(self, x):
            return self.bn(self.fc(x)) * self.scale

    class Net(m.nn.Module):
        def __init__(self):
            super().__init__()
            self.alpha = m.nn.Parameter(m.ones(()))
            self.stem = m.nn.Sequential(m.nn.Linear(3, 4), m.nn.ReLU())
            self.blocks = m.nn.ModuleList([Block(), Block()])
            self.heads = m.nn.ModuleDict({"a": m.nn.Linear(4, 2), "b": m.nn.Linear(4, 1)})
            self.shared = self.stem[0]  # the same module under two names
            self.tied = m.nn.Linear(4, 3, bias=False)
            self.tied.weight = self.stem[0].weight.__class__(m.ones(3, 4))
            self.register_buffer("step", m.zeros((), dtype=m.int64))

        def forward(self, x):
            h = self.stem(x)
            for b in self.blocks:
                h = b(h)
            return self.alpha * (self.heads["a"](h) ** 2).sum() + self.heads["b"](h).sum()

    return Net()


def _x(m):
    return m.from_numpy(np.random.default_rng(0).standard_normal((5, 3)).astype(np.float32))


@pytest.fixture
def nets():
    return build_net(ember), build_net(torch)


# ---- registration --------------------------------------------------------------------------
def test_named_orders_match_torch(nets):
    e, t = nets
    assert [n for n, _ in e.named_parameters()] == [n for n, _ in t.named_parameters()]
    assert [n for n, _ in e.named_buffers()] == [n for n, _ in t.named_buffers()]
    assert [n for n, _ in e.named_children()] == [n for n, _ in t.named_children()]
    assert [n for n, _ in e.named_modules()] == [n for n, _ in t.named_modules()]
    assert [n for n, _ in e.named_modules(remove_duplicate=False)] == \
        [n for n, _ in t.named_modules(remove_duplicate=False)]
    assert [n for n, _ in e.named_parameters(remove_duplicate=False)] == \
        [n for n, _ in t.named_parameters(remove_duplicate=False)]
    assert [n for n, _ in e.named_parameters(prefix="model", recurse=False)] == \
        [n for n, _ in t.named_parameters(prefix="model", recurse=False)]
    assert [n for n, _ in e.blocks[0].named_buffers(recurse=False)] == ["scale", "cache"]
    assert len(list(e.parameters())) == len(list(t.parameters()))
    assert len(list(e.modules())) == len(list(t.modules()))
    assert len(list(e.children())) == len(list(t.children()))
    assert len(list(e.buffers())) == len(list(t.buffers()))


def test_parameters_are_the_registered_objects(nets):
    e, _ = nets
    w = e.stem[0].weight
    assert isinstance(w, nn.Parameter) and isinstance(w, ember.Tensor)
    assert w is e.stem[0].weight is e.shared.weight
    assert any(p is w for p in e.parameters())
    assert e.get_parameter("stem.0.weight") is w
    assert e.get_submodule("blocks.1.bn") is e.blocks[1].bn
    assert e.get_buffer("blocks.0.scale") is e.blocks[0].scale
    with pytest.raises(AttributeError, match="has no attribute `nope`"):
        e.get_submodule("blocks.nope")
    with pytest.raises(AttributeError, match="is not an nn.Parameter"):
        e.get_parameter("blocks.0.scale")


def test_setattr_registers_and_delattr_removes():
    m = nn.Module()
    m.p = nn.Parameter(ember.zeros(2))
    m.sub = nn.Linear(2, 2)
    m.register_buffer("buf", ember.ones(1))
    m.plain = 3
    m.buf2 = nn.Buffer(ember.ones(2), persistent=False)
    assert list(m._parameters) == ["p"] and list(m._modules) == ["sub"]
    assert list(m._buffers) == ["buf", "buf2"] and "buf2" in m._non_persistent_buffers_set
    assert "plain" in m.__dict__ and list(m.state_dict()) == ["p", "buf", "sub.weight", "sub.bias"]
    m.buf = ember.zeros(3)  # a plain tensor assigned to a buffer name replaces the buffer
    assert m.buf.shape == (3,) and m._buffers["buf"] is m.buf
    m.p = None
    assert m._parameters["p"] is None and list(m.parameters())[0] is m.sub.weight
    m.sub = None
    assert m._modules["sub"] is None
    m.sub = nn.ReLU()
    del m.sub, m.buf, m.p, m.plain
    assert not m._modules and list(m._buffers) == ["buf2"] and not m._parameters
    with pytest.raises(AttributeError, match="'Module' object has no attribute 'sub'"):
        m.sub


def test_setattr_errors_match_torch():
    for mod in (ember, torch):
        m = mod.nn.Linear(2, 2)
        with pytest.raises(TypeError, match="cannot assign .* as parameter 'weight'"):
            m.weight = mod.zeros(2, 2)
        s = mod.nn.Sequential(mod.nn.ReLU())
        with pytest.raises(TypeError, match="cannot assign 'int' as child module '0'"):
            setattr(s, "0", 3)
        m.register_buffer("b", mod.zeros(1))
        with pytest.raises(TypeError, match="cannot assign 'int' as buffer 'b'"):
            m.b = 3


@pytest.mark.parametrize("mod", [ember, torch])
def test_register_errors(mod):
    m = mod.nn.Linear(2, 2)
    with pytest.raises(KeyError, match="contain"):
        m.register_parameter("a.b", None)
    with pytest.raises(KeyError, match="empty"):
        m.register_buffer("", None)
    with pytest.raises(KeyError, match="attribute 'in_features' already exists"):
        m.register_buffer("in_features", mod.zeros(1))
    with pytest.raises(KeyError, match="attribute 'forward' already exists"):
        m.add_module("forward", mod.nn.ReLU())
    with pytest.raises(TypeError, match="cannot assign .* object to parameter 'q'"):
        m.register_parameter("q", mod.zeros(2))
    with pytest.raises(TypeError, match="is not a Module subclass"):
        m.add_module("q", 3)
    with pytest.raises(TypeError, match="name should be a string"):
        m.register_buffer(1, None)
    with pytest.raises(AttributeError, match="before Module.__init__"):
        class Bad(mod.nn.Module):
            def __init__(self):
                self.w = mod.nn.Parameter(mod.ones(1))
        Bad()


def test_forward_missing_raises():
    with pytest.raises(NotImplementedError, match='missing the required "forward"'):
        nn.Module()(ember.ones(1))


# ---- state_dict ------------------------------------------------------------------------------
def test_state_dict_keys_and_values(nets):
    e, t = nets
    esd, tsd = e.state_dict(), t.state_dict()
    assert isinstance(esd, OrderedDict)
    assert list(esd) == list(tsd)
    assert list(esd._metadata) == list(tsd._metadata)
    assert [v["version"] for v in esd._metadata.values()] == \
        [v["version"] for v in tsd._metadata.values()]
    w = esd["stem.0.weight"]
    assert not w.requires_grad and not isinstance(w, nn.Parameter)
    assert w._shares_storage(e.stem[0].weight)  # an alias, not a copy
    assert esd["step"].dtype == ember.int64
    kv = e.state_dict(keep_vars=True)
    assert kv["stem.0.weight"] is e.stem[0].weight
    assert list(e.blocks.state_dict(prefix="x.")) == list(t.blocks.state_dict(prefix="x."))


def test_load_state_dict_copies_in_place(nets):
    e, t = nets
    sd = {k: ember.from_numpy(v.detach().numpy().copy()) for k, v in t.state_dict().items()}
    w = e.stem[0].weight
    opt = ember.optim.SGD(e.parameters(), lr=0.1)
    res = e.load_state_dict(sd)
    assert repr(res) == "<All keys matched successfully>"
    assert res.missing_keys == [] and res.unexpected_keys == []
    assert e.stem[0].weight is w and w.requires_grad
    for k, v in t.state_dict().items():
        np.testing.assert_array_equal(e.state_dict()[k].numpy(), v.numpy())
    # the optimizer still updates the very tensors the model uses
    e(_x(ember)).backward()
    before = w.detach().clone()
    opt.step()
    assert not np.allclose(before.numpy(), e.stem[0].weight.detach().numpy())


def _error(fn):
    with pytest.raises(RuntimeError) as info:
        fn()
    return _str(str(info.value))


def test_load_state_dict_errors_match_torch(nets):
    e, t = nets
    for mutate in (lambda d: d.pop("blocks.0.fc.bias"),
                   lambda d: d.__setitem__("extra.weight", d["alpha"]),
                   lambda d: d.__setitem__("blocks.0.bogus", d["alpha"]),
                   lambda d: (d.pop("heads.a.weight"), d.__setitem__("zzz", d["alpha"]))):
        tsd = OrderedDict(t.state_dict())
        mutate(tsd)
        esd = OrderedDict((k, ember.from_numpy(v.numpy().copy())) for k, v in tsd.items())
        mutate_e = esd
        assert _error(lambda: e.load_state_dict(mutate_e)) == \
            _error(lambda: t.load_state_dict(tsd))
        er, tr = e.load_state_dict(esd, strict=False), t.load_state_dict(tsd, strict=False)
        assert er.missing_keys == tr.missing_keys and er.unexpected_keys == tr.unexpected_keys
        assert _str(repr(tr)) == repr(er)


def test_load_state_dict_shape_mismatch_matches_torch(nets):
    e, t = nets
    tsd = OrderedDict(t.state_dict())
    tsd["heads.b.weight"] = torch.zeros(2, 4)
    tsd["alpha"] = torch.ones(1)  # shape (1,) loads into a 0-d parameter, as in PyTorch
    esd = OrderedDict((k, ember.from_numpy(v.numpy().copy())) for k, v in tsd.items())
    assert _error(lambda: e.load_state_dict(esd)) == _error(lambda: t.load_state_dict(tsd))
    assert _error(lambda: e.load_state_dict(esd, strict=False)) == \
        _error(lambda: t.load_state_dict(tsd, strict=False))
    with pytest.raises(TypeError, match="Expected state_dict to be dict-like"):
        e.load_state_dict([1, 2])


def test_load_state_dict_assign_and_batchnorm_old_checkpoint():
    lin = nn.Linear(2, 3)
    w = ember.ones(3, 2)
    lin.load_state_dict({"weight": w, "bias": ember.zeros(3)}, assign=True)
    assert isinstance(lin.weight, nn.Parameter) and lin.weight.requires_grad
    assert lin.weight._shares_storage(w)
    bn = nn.BatchNorm1d(3)
    bn.num_batches_tracked.fill_(5)
    sd = {k: v for k, v in bn.state_dict().items() if k != "num_batches_tracked"}
    bn.load_state_dict(sd)  # no _metadata: a pre-num_batches_tracked checkpoint
    assert bn.num_batches_tracked.item() == 5


# ---- modes, gradients, apply, to ------------------------------------------------------------
def test_state_dict_hooks_private_forms_match_torch():
    # gpytorch's Module: self._register_load_state_dict_pre_hook(fn), fn without the module
    logs = []
    for lib in (ember, torch):
        log = []
        m = lib.nn.Linear(2, 2)

        def plain(state_dict, prefix, local_metadata, strict, missing, unexpected, errors):
            log.append(("plain", prefix, sorted(state_dict), strict))
            state_dict[prefix + "bias"] = state_dict[prefix + "bias"] * 0 + 7  # may rewrite

        def with_module(module, state_dict, prefix, *rest):
            log.append(("with", type(module).__name__, len(rest)))

        def post(module, state_dict, prefix, local_metadata):
            log.append(("post", type(module).__name__, sorted(state_dict)))

        h1 = m._register_load_state_dict_pre_hook(plain)
        m._register_load_state_dict_pre_hook(with_module, with_module=True)
        m.register_load_state_dict_pre_hook(with_module)
        m._register_state_dict_hook(post)
        m.load_state_dict({"weight": lib.ones(2, 2), "bias": lib.zeros(2)})
        log.append(m.bias.tolist())
        h1.remove()
        m.load_state_dict(m.state_dict())
        logs.append(log)
    assert logs[0] == logs[1]
    assert logs[0][0] == ("plain", "", ["bias", "weight"], True) and logs[0][3] == [7.0, 7.0]


def test_train_eval_propagate(nets):
    e, _ = nets
    assert e.training and e.blocks[1].bn.training
    assert e.eval() is e
    assert all(not m.training for m in e.modules())
    e.blocks.train()
    assert not e.training and all(m.training for m in e.blocks.modules())
    e.train()
    assert all(m.training for m in e.modules())
    with pytest.raises(ValueError, match="training mode is expected to be boolean"):
        e.train("yes")


def test_zero_grad_and_requires_grad(nets):
    e, _ = nets
    e(_x(ember)).backward()
    used = [p for n, p in e.named_parameters() if n != "tied.weight"]  # tied is never called
    assert all(p.grad is not None for p in used) and e.tied.weight.grad is None
    e.zero_grad(set_to_none=False)
    assert all(p.grad is not None and not p.grad.numpy().any() for p in used)
    e.zero_grad()
    assert all(p.grad is None for p in e.parameters())
    assert e.requires_grad_(False) is e
    assert not any(p.requires_grad for p in e.parameters())
    e.requires_grad_()
    assert all(p.requires_grad for p in e.parameters())


def test_apply_visits_like_torch(nets):
    e, t = nets
    seen_e, seen_t = [], []
    assert e.apply(lambda m: seen_e.append(type(m).__name__)) is e
    t.apply(lambda m: seen_t.append(type(m).__name__))
    assert seen_e == seen_t

    def init_weights(m):
        if isinstance(m, nn.Linear):
            nn.init.constant_(m.weight, 0.5)
    e.apply(init_weights)
    assert (e.heads["a"].weight.numpy() == 0.5).all()


def test_to_dtype_converts_in_place(nets):
    e, _ = nets
    w = e.stem[0].weight
    e(_x(ember)).backward()
    assert e.to(ember.float64) is e
    assert e.stem[0].weight is w and w.dtype == ember.float64 and w.requires_grad
    assert w.grad.dtype == ember.float64
    assert e.blocks[0].bn.running_mean.dtype == ember.float64
    assert e.blocks[0].bn.num_batches_tracked.dtype == ember.int64
    assert e.step.dtype == ember.int64
    out = e(ember.ones(5, 3, dtype=ember.float64))
    assert out.dtype == ember.float64
    e.float()
    assert w.dtype == ember.float32
    e.double()
    assert w.dtype == ember.float64
    e.to(ember.zeros(1))
    assert w.dtype == ember.float32
    assert e.to("cpu") is e and e.cpu() is e
    with pytest.raises(TypeError, match="only accepts floating point"):
        e.to(ember.int64)
    with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):
        e.to("cuda")  # as torch's CPU build


# ---- repr ------------------------------------------------------------------------------------
def build_zoo(m):
    return m.nn.Sequential(
        m.nn.Conv2d(3, 8, 3, stride=2, padding=1, bias=False),
        m.nn.Conv2d(8, 8, (3, 5), dilation=2, groups=4, padding_mode="reflect"),
        m.nn.Conv2d(8, 8, 3, padding="same"),
        m.nn.BatchNorm2d(8, momentum=None), m.nn.ReLU(inplace=True), m.nn.LeakyReLU(0.2),
        m.nn.GELU(approximate="tanh"), m.nn.Tanh(), m.nn.Sigmoid(),
        m.nn.MaxPool2d(2), m.nn.AvgPool2d(3, stride=1, padding=1), m.nn.AdaptiveAvgPool2d((2, None)),
        m.nn.Flatten(), m.nn.Unflatten(1, (4, 4)), m.nn.Dropout(0.25), m.nn.LayerNorm([4, 4]),
        m.nn.Linear(4, 6), m.nn.BatchNorm1d(6, affine=False, track_running_stats=False),
        m.nn.Embedding(10, 3, padding_idx=-1), m.nn.Embedding(10, 3, max_norm=1.0, sparse=True),
        m.nn.Softmax(dim=1), m.nn.LogSoftmax(-1), m.nn.Identity(),
        m.nn.ModuleList([m.nn.Linear(2, 2), m.nn.Linear(2, 2), m.nn.ReLU(), m.nn.Linear(2, 2)]),
        m.nn.ModuleDict(OrderedDict(x=m.nn.ReLU(), y=m.nn.Sequential())),
        m.nn.CrossEntropyLoss(label_smoothing=0.1), m.nn.MSELoss(reduction="sum"),
        m.nn.L1Loss(), m.nn.NLLLoss(), m.nn.BCELoss(), m.nn.BCEWithLogitsLoss(),
        m.nn.SiLU(), m.nn.ReLU6(), m.nn.Hardtanh(-2, 2), m.nn.ModuleList(),
        m.nn.LayerNorm(5, elementwise_affine=False, bias=False),
    )


def test_repr_matches_torch():
    e, t = build_zoo(ember), build_zoo(torch)
    assert repr(e) == _str(repr(t))
    assert [n for n, _ in e.named_parameters()] == [n for n, _ in t.named_parameters()]
    assert list(e.state_dict()) == list(t.state_dict())
    assert repr(build_net(ember)) == _str(repr(build_net(torch)))


def test_extra_repr_multiline_and_parameter_containers():
    def reprs(mod):
        class Custom(mod.nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = mod.nn.Linear(1, 1)

            def extra_repr(self):
                return "first line\nsecond line"
        return [repr(Custom()),
                repr(mod.nn.ParameterList([mod.nn.Parameter(mod.ones(2, 3)), mod.zeros(1)])),
                repr(mod.nn.ParameterDict({"b": mod.ones(2), "a": mod.nn.Parameter(mod.ones(1))}))]
    assert reprs(ember) == [_str(r) for r in reprs(torch)]


def test_parameter_basics():
    d = ember.ones(2, 2)
    p = nn.Parameter(d)
    assert isinstance(p, ember.Tensor) and p.requires_grad and p.is_leaf
    assert p._shares_storage(d) and not d.requires_grad
    assert repr(p) == _str(repr(torch.nn.Parameter(torch.ones(2, 2))))
    assert repr(nn.Parameter(ember.zeros(3), requires_grad=False)) == \
        _str(repr(torch.nn.Parameter(torch.zeros(3), requires_grad=False)))
    assert repr(nn.Parameter()) == _str(repr(torch.nn.Parameter()))
    assert str(p) == repr(p)
    q = copy.deepcopy(p)
    assert isinstance(q, nn.Parameter) and q.requires_grad and not q._shares_storage(p)
    assert type(p * 2) is ember.Tensor
    with ember.no_grad():
        assert nn.Parameter(ember.ones(1)).requires_grad


# ---- hooks -----------------------------------------------------------------------------------
def test_forward_hooks():
    lin = nn.Linear(2, 2)
    calls = []
    h1 = lin.register_forward_pre_hook(lambda m, args: (args[0] * 0,))
    h2 = lin.register_forward_hook(lambda m, args, out: calls.append(out.shape) or out + 1)
    out = lin(ember.ones(3, 2))
    np.testing.assert_allclose(out.detach().numpy(), (lin.bias + 1).detach().expand(3, 2).numpy())
    assert calls == [(3, 2)]
    h1.remove()
    h2.remove()
    np.testing.assert_allclose(lin(ember.ones(1, 2)).detach().numpy(),
                               (lin.weight.sum(1) + lin.bias).detach().numpy()[None], rtol=1e-6)
    h3 = lin.register_forward_pre_hook(lambda m, a, k: ((a[0] * 2,), k), with_kwargs=True)
    with h3:
        pass
    assert not lin._forward_pre_hooks


# ---- containers ------------------------------------------------------------------------------
@pytest.mark.parametrize("mod", [ember, torch])
def test_sequential_ops(mod):
    seq = mod.nn.Sequential(mod.nn.ReLU(), mod.nn.Tanh(), mod.nn.Sigmoid())
    assert len(seq) == 3 and isinstance(seq[-1], mod.nn.Sigmoid)
    sl = seq[1:]
    assert isinstance(sl, mod.nn.Sequential) and list(sl._modules) == ["1", "2"]
    seq.append(mod.nn.Identity()).insert(0, mod.nn.Identity())
    assert [type(m).__name__ for m in seq] == ["Identity", "ReLU", "Tanh", "Sigmoid", "Identity"]
    del seq[1]
    assert list(seq._modules) == ["0", "1", "2", "3"]
    assert type(seq.pop(0)).__name__ == "Identity"
    seq[0] = mod.nn.ReLU()
    seq.extend([mod.nn.Tanh()])
    assert [type(m).__name__ for m in seq] == ["ReLU", "Sigmoid", "Identity", "Tanh"]
    assert len(seq + seq) == 8 and len(seq * 2) == 8
    with pytest.raises(IndexError, match="index 9 is out of range"):
        seq[9]
    named = mod.nn.Sequential(OrderedDict([("act", mod.nn.ReLU()), ("out", mod.nn.Tanh())]))
    assert list(named._modules) == ["act", "out"] and isinstance(named.act, mod.nn.ReLU)


@pytest.mark.parametrize("mod", [ember, torch])
def test_modulelist_and_moduledict_ops(mod):
    ml = mod.nn.ModuleList([mod.nn.ReLU() for _ in range(3)])
    ml.append(mod.nn.Tanh())
    ml += [mod.nn.Sigmoid()]
    ml.insert(1, mod.nn.Identity())
    assert [type(m).__name__ for m in ml] == ["ReLU", "Identity", "ReLU", "ReLU", "Tanh", "Sigmoid"]
    del ml[0]
    assert list(ml._modules) == [str(i) for i in range(5)]
    assert isinstance(ml[-1], mod.nn.Sigmoid) and len(ml[1:3]) == 2
    with pytest.raises(IndexError):
        ml[10]
    md = mod.nn.ModuleDict([("b", mod.nn.ReLU()), ("a", mod.nn.Tanh())])
    md["c"] = mod.nn.Identity()
    assert list(md.keys()) == ["b", "a", "c"] and "a" in md and len(md) == 3
    assert isinstance(md.pop("b"), mod.nn.ReLU) and list(md) == ["a", "c"]
    md.update({"z": mod.nn.Sigmoid()})
    assert [k for k, _ in md.items()] == ["a", "c", "z"]
    md.clear()
    assert len(md) == 0
    with pytest.raises(NotImplementedError):
        ml(1)


def test_parameter_containers_register():
    pl = nn.ParameterList([ember.ones(2), nn.Parameter(ember.zeros(3))])
    assert [n for n, _ in pl.named_parameters()] == ["0", "1"]
    assert all(isinstance(p, nn.Parameter) for p in pl)
    pd = nn.ParameterDict({"w": ember.ones(2)})
    pd["v"] = ember.zeros(1)
    assert [n for n, _ in pd.named_parameters()] == ["w", "v"] and "v" in pd
    with pytest.raises(RuntimeError, match="ParameterList should not be called"):
        pl(1)


# ---- initialisation --------------------------------------------------------------------------
def _np(t):
    return t.detach().numpy().astype(np.float64)


def test_linear_default_init_statistics():
    ember.manual_seed(0)
    lin = nn.Linear(1000, 1000)
    bound = 1 / math.sqrt(1000)  # kaiming_uniform_(a=sqrt(5)) reduces to this
    w, b = _np(lin.weight), _np(lin.bias)
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.999 * bound
    assert abs(w.std() - bound / math.sqrt(3)) < 0.01 * bound / math.sqrt(3)
    assert abs(w.mean()) < 0.01 * bound
    assert np.abs(b).max() <= bound and b.std() > 0.5 * bound / math.sqrt(3)
    t = torch.nn.Linear(1000, 1000)
    assert abs(w.std() - t.weight.detach().numpy().std()) < 0.01 * bound


def test_conv_embedding_norm_default_init():
    ember.manual_seed(1)
    conv = nn.Conv2d(16, 32, 3)
    fan_in = 16 * 9
    w = _np(conv.weight)
    assert w.shape == (32, 16, 3, 3)
    assert np.abs(w).max() <= 1 / math.sqrt(fan_in)
    assert abs(w.std() - 1 / math.sqrt(3 * fan_in)) < 0.05 / math.sqrt(3 * fan_in)
    assert np.abs(_np(conv.bias)).max() <= 1 / math.sqrt(fan_in)
    emb = nn.Embedding(1000, 64, padding_idx=3)
    ew = _np(emb.weight)
    assert abs(ew.std() - 1) < 0.02 and abs(ew.mean()) < 0.02 and not ew[3].any()
    bn = nn.BatchNorm2d(5)
    assert (_np(bn.weight) == 1).all() and not _np(bn.bias).any()
    assert not _np(bn.running_mean).any() and (_np(bn.running_var) == 1).all()
    assert bn.num_batches_tracked.dtype == ember.int64 and bn.num_batches_tracked.item() == 0
    ln = nn.LayerNorm((2, 3))
    assert (_np(ln.weight) == 1).all() and not _np(ln.bias).any() and ln.weight.shape == (2, 3)
    assert nn.Linear(2, 3, dtype=ember.float64).weight.dtype == ember.float64


def test_calculate_gain_matches_torch():
    for name, param in [("linear", None), ("conv2d", None), ("sigmoid", None), ("tanh", None),
                        ("relu", None), ("leaky_relu", None), ("leaky_relu", 0.2),
                        ("leaky_relu", math.sqrt(5)), ("selu", None)]:
        assert nn.init.calculate_gain(name, param) == torch.nn.init.calculate_gain(name, param)
    with pytest.raises(ValueError, match="Unsupported nonlinearity"):
        nn.init.calculate_gain("foo")
    with pytest.raises(ValueError, match="not a valid number"):
        nn.init.calculate_gain("leaky_relu", "x")


@pytest.mark.parametrize("mode", ["fan_in", "fan_out"])
def test_kaiming_and_xavier_bounds(mode):
    ember.manual_seed(2)
    w = nn.Parameter(ember.empty(200, 300))
    fan = 300 if mode == "fan_in" else 200
    out = nn.init.kaiming_uniform_(w, mode=mode, nonlinearity="relu")
    assert out is w and w.requires_grad
    bound = math.sqrt(2) * math.sqrt(3 / fan)
    assert np.abs(_np(w)).max() <= bound and np.abs(_np(w)).max() > 0.99 * bound
    nn.init.kaiming_normal_(w, a=0.1, mode=mode)
    std = nn.init.calculate_gain("leaky_relu", 0.1) / math.sqrt(fan)
    assert abs(_np(w).std() - std) < 0.03 * std
    nn.init.xavier_uniform_(w, gain=2.0)
    a = 2.0 * math.sqrt(6 / 500)
    assert np.abs(_np(w)).max() <= a and np.abs(_np(w)).max() > 0.99 * a
    nn.init.xavier_normal_(w)
    assert abs(_np(w).std() - math.sqrt(2 / 500)) < 0.03 * math.sqrt(2 / 500)
    with pytest.raises(ValueError, match="Mode fan_avg not supported"):
        nn.init.kaiming_uniform_(w, mode="fan_avg")


def test_simple_initialisers():
    w = nn.Parameter(ember.empty(3, 4))
    assert nn.init.constant_(w, 0.3) is w and np.allclose(_np(w), 0.3)
    nn.init.ones_(w)
    assert (_np(w) == 1).all()
    nn.init.zeros_(w)
    assert not _np(w).any()
    nn.init.eye_(w)
    assert (_np(w) == np.eye(3, 4)).all()
    nn.init.uniform_(w, -2, -1)
    assert (_np(w) >= -2).all() and (_np(w) <= -1).all()
    nn.init.normal_(w, 5.0, 0.01)
    assert abs(_np(w).mean() - 5) < 0.05
    g1 = ember.Generator().manual_seed(7)
    g2 = ember.Generator().manual_seed(7)
    a = _np(nn.init.uniform_(ember.empty(5), generator=g1))
    b = _np(nn.init.uniform_(ember.empty(5), generator=g2))
    assert (a == b).all() and ((a >= 0) & (a < 1)).all()
    assert w.grad_fn is None and w.requires_grad
    with pytest.raises(ValueError, match="fewer than 2 dimensions"):
        nn.init.xavier_uniform_(ember.empty(3))
    with pytest.raises(ValueError, match="Only tensors with 2 dimensions"):
        nn.init.eye_(ember.empty(3))
    with pytest.warns(UserWarning, match="zero-element"):
        nn.init.kaiming_uniform_(ember.empty(0, 3))


# ---- set_submodule, to_empty, compile, xpu/mtia (torch.nn.Module's, against torch) -----------


def _nested(m):
    return m.nn.Sequential(m.nn.Linear(2, 2), m.nn.Sequential(m.nn.ReLU()))


@pytest.mark.parametrize("target, strict", [("1.0", False), ("1.5", False), ("2.0", False),
                                            ("0.weight", False), ("1.7", True), ("", False)])
def test_set_submodule_as_torch(target, strict):
    outcomes = []
    for m in (ember, torch):
        net = _nested(m)
        try:
            net.set_submodule(target, m.nn.Tanh(), strict=strict)
            outcomes.append(repr(net).replace("ember.", "").replace("torch.", ""))
        except Exception as err:  # noqa: BLE001 - compared across the libraries
            outcomes.append((type(err), str(err)))
    assert outcomes[0] == outcomes[1]
    for m in (ember, torch):
        with pytest.raises(ValueError, match="not an nn.Module"):
            _nested(m).set_submodule("1.0", 3)


def test_to_empty_keeps_parameters_and_shapes():
    lin = ember.nn.Linear(3, 2)
    weight = lin.weight
    opt = ember.optim.SGD(lin.parameters(), lr=0.1)
    assert lin.to_empty(device="cpu") is lin
    assert lin.weight is weight and lin.weight.shape == (2, 3)  # the optimizer's still
    assert opt.param_groups[0]["params"][0] is lin.weight
    for m in (ember, torch):
        with pytest.raises(AssertionError, match="CUDA"):
            m.nn.Linear(3, 2).to_empty(device="cuda")


def test_xpu_and_mtia_raise_as_torch_cpu_build():
    for name in ("xpu", "mtia"):
        errors = []
        for m in (ember, torch):
            with pytest.raises(AssertionError) as err:
                getattr(m.nn.Linear(2, 2), name)()
            errors.append(str(err.value))
        assert errors[0] == errors[1]


def test_module_compile_replays_in_place():
    ember.manual_seed(0)
    net = ember.nn.Sequential(ember.nn.Linear(3, 4), ember.nn.ReLU(), ember.nn.Linear(4, 1))
    x = ember.randn(5, 3)
    eager = net(x)
    assert net.compile() is None
    assert ember.equal(net(x), eager) and ember.equal(net(x), eager)  # capture, then replay
    with ember.no_grad():
        net[0].weight.mul_(2)  # the replay sees the new weights, as eager does
    assert ember.equal(net(x), net._call_impl(x))
    copied = copy.deepcopy(net)  # a compiled call is not copied or pickled
    assert copied._compiled_call_impl is None and ember.equal(copied(x), net(x))
