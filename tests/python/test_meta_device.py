"""Meta tensors (Note [Meta tensors]): device 'meta' for creation functions, the default-device
context, nn modules built there (transformers' from_pretrained builds every model so), .to('meta'),
Module.to_empty, and torch's refusals to read or copy out their (absent) data; compared with torch
2.13 wherever both answer."""
import pytest
import torch

import ember


def both(fn):
    return fn(ember), fn(torch)


def meta_facts(t):
    return (t.is_meta, str(t.device), tuple(t.shape), str(t.dtype).split(".")[1], t.requires_grad)


@pytest.mark.parametrize("make", [
    lambda m: m.empty(2, 3, device="meta"),
    lambda m: m.zeros(4, dtype=m.int64, device="meta"),
    lambda m: m.ones((2, 2), device=m.device("meta"), requires_grad=True),
    lambda m: m.full((3,), 7.0, device="meta"),
    lambda m: m.arange(5, device="meta"),
    lambda m: m.randn(2, 5, device="meta"),
    lambda m: m.rand(3, device="meta", dtype=m.float64),
    lambda m: m.randint(0, 4, (2,), device="meta"),
    lambda m: m.linspace(0, 1, 4, device="meta"),
    lambda m: m.eye(3, device="meta"),
    lambda m: m.tensor([1.0, 2.0], device="meta"),
    lambda m: m.empty_like(m.empty(2, device="meta")),
    lambda m: m.zeros_like(m.empty(2, 2, device="meta"), dtype=m.int32),
    lambda m: m.full_like(m.empty(3, device="meta"), 2.0),
    lambda m: m.ones(2, 3).to("meta"),
    lambda m: m.empty(2, 3, device="meta").t(),
    lambda m: m.empty(2, 3, device="meta")[0],
    lambda m: m.empty(2, 3, device="meta").to(m.float64),
    lambda m: m.nn.Parameter(m.empty(2, device="meta")),
    lambda m: m.empty(2, device="meta").detach(),
    lambda m: m.empty(2, device="meta").data,
])
def test_meta_tensors_as_torch(make):
    e, t = both(make)
    assert meta_facts(e) == meta_facts(t)
    assert repr(e).replace("ember.", "torch.") == repr(t)


def test_default_device_meta_builds_modules_on_meta():
    facts = []
    for m in (ember, torch):
        with m.device("meta"):
            lin, emb, ln = m.nn.Linear(3, 2), m.nn.Embedding(5, 4), m.nn.LayerNorm(4)
            made = m.arange(3)
        facts.append([meta_facts(p) for p in [*lin.parameters(), *emb.parameters(), *ln.parameters(), made]]
                     + [meta_facts(m.zeros(2))])
        assert m.get_default_device() == m.device("cpu")
    assert facts[0] == facts[1]


def test_to_empty_materializes_and_to_meta_drops_data():
    for m in (ember, torch):
        lin = m.nn.Linear(3, 2, device="meta")
        lin.to_empty(device="cpu")
        assert not lin.weight.is_meta and lin.weight.device == m.device("cpu")
        assert isinstance(lin.weight, m.nn.Parameter)
        lin.reset_parameters()
        assert m.isfinite(lin(m.ones(1, 3))).all()
        lin.to("meta")
        assert lin.weight.is_meta and lin.bias.is_meta and isinstance(lin.weight, m.nn.Parameter)
        assert m.nn.Linear(2, 2).to_empty(device="meta").weight.is_meta


def test_meta_data_cannot_be_read_as_torch():
    for m in (ember, torch):
        x = m.empty(2, 3, device="meta")
        with pytest.raises(NotImplementedError, match="Cannot copy out of meta tensor; no data!"):
            x.cpu()
        with pytest.raises(NotImplementedError, match="Cannot copy out of meta tensor; no data!"):
            x.to("cpu")
        with pytest.raises(NotImplementedError, match="Cannot copy out of meta tensor; no data!"):
            x.tolist()
        with pytest.raises(NotImplementedError, match="Cannot copy out of meta tensor; no data!"):
            m.ones(2, 3).copy_(x)
        with pytest.raises(TypeError, match="can't convert meta device type tensor to numpy"):
            x.numpy()
        with pytest.raises(RuntimeError, match=r"Tensor.item\(\) cannot be called on meta tensors"):
            x[0, 0].item()
        with pytest.raises(NotImplementedError, match="Please use torch.nn.Module.to_empty"):
            m.nn.Linear(2, 2, device="meta").to("cpu")


def test_writes_into_meta_tensors_are_skipped():
    # as torch's meta kernels: an initializer or a copy into a meta tensor leaves it as it was
    for m in (ember, torch):
        x = m.empty(3, device="meta")
        assert m.nn.init.normal_(x) is x and x.is_meta
        assert x.copy_(m.ones(3)) is x and x.fill_(2.0) is x and x.zero_() is x and x.is_meta
        assert x.uniform_() is x and x.is_meta


def test_transformers_style_loading_into_a_meta_model():
    # build on meta, replace what a checkpoint holds, materialize and initialize the rest
    src = ember.nn.Sequential(ember.nn.Linear(3, 4), ember.nn.Linear(4, 2))
    sd = {k: v for k, v in src.state_dict().items() if not k.startswith("1.")}
    with ember.device("meta"):
        model = ember.nn.Sequential(ember.nn.Linear(3, 4), ember.nn.Linear(4, 2))
    model.load_state_dict(sd, strict=False, assign=True)
    missing = [n for n, p in model.named_parameters() if p.is_meta]
    assert missing == ["1.weight", "1.bias"]
    for name in missing:
        mod = model[1]
        old = getattr(mod, name.split(".")[1])
        setattr(mod, name.split(".")[1], ember.nn.Parameter(ember.empty_like(old, device="cpu")))
    model[1].reset_parameters()
    x = ember.randn(2, 3)
    assert ember.equal(model[0](x), src[0](x))
    assert not any(p.is_meta for p in model.parameters())
