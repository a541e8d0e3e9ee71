"""ember.save / ember.load in PyTorch's own format, checked against torch 2.13 both ways:
every dtype, 0-d / empty / strided views (storage sharing, offsets, strides), Parameters
and requires_grad, state dicts with _metadata, optimizer state, nested containers and plain
values, whole modules (forward equal after the trip), the archive's records, mmap, and the
choice between this format and safetensors. The allowlist and hostile files are in
test_torch_format_safety.py."""
import io
import math
import os
import zipfile
from collections import OrderedDict

import numpy as np
import pytest
import torch

import ember

DTYPES = [("float32", np.float32), ("float64", np.float64), ("int64", np.int64),
          ("int32", np.int32), ("int16", np.int16), ("int8", np.int8), ("uint8", np.uint8),
          ("bool", np.bool_)]
SHAPES = [(), (0,), (3, 0, 2), (5,), (2, 3, 4)]


def values(np_dtype, shape, seed):
    rng = np.random.default_rng(seed)
    if np_dtype == np.bool_:
        return rng.random(shape) < 0.5
    if np.issubdtype(np_dtype, np.floating):
        return rng.standard_normal(shape).astype(np_dtype)
    return rng.integers(0, 200, shape).astype(np_dtype)


def to_torch_bytes(obj):
    buf = io.BytesIO()
    torch.save(obj, buf)
    return buf.getvalue()


def to_ember_bytes(obj):
    buf = io.BytesIO()
    ember.save(obj, buf)
    return buf.getvalue()


def torch_load(data, **kw):
    return torch.load(io.BytesIO(data), **kw)


def ember_load(data, **kw):
    return ember.load(io.BytesIO(data), **kw)


def same_tensor(e, t):
    """An ember and a torch tensor with the same dtype, shape, strides, offset and values."""
    assert isinstance(e, ember.Tensor) and isinstance(t, torch.Tensor)
    assert str(e.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
    assert tuple(e.shape) == tuple(t.shape)
    assert tuple(e.stride()) == tuple(t.stride())
    assert e.storage_offset() == t.storage_offset()
    assert e.requires_grad == t.requires_grad
    np.testing.assert_array_equal(e.detach().numpy(), t.detach().numpy())


# ---- tensors of every dtype, both ways -------------------------------------------------------

@pytest.mark.parametrize("name,np_dtype", DTYPES, ids=[d[0] for d in DTYPES])
def test_every_dtype_and_shape_both_ways(name, np_dtype):
    arrays = {f"t{i}": values(np_dtype, s, i) for i, s in enumerate(SHAPES)}
    e_obj = {k: ember.tensor(a) if a.ndim else ember.tensor(a.item(), dtype=getattr(ember, name))
             for k, a in arrays.items()}
    t_obj = {k: torch.from_numpy(np.array(a)) for k, a in arrays.items()}
    from_ember = torch_load(to_ember_bytes(e_obj))
    from_torch = ember_load(to_torch_bytes(t_obj))
    for k in arrays:
        same_tensor(e_obj[k], from_ember[k])
        same_tensor(from_torch[k], t_obj[k])


@pytest.mark.parametrize("view", ["transposed", "sliced", "offset_row", "expanded", "diagonal_step"])
def test_views_keep_offset_stride_and_share_one_storage(view):
    base = np.arange(48, dtype=np.float32).reshape(6, 8)
    pick = {"transposed": lambda b: b.t(), "sliced": lambda b: b[1::2, ::3],
            "offset_row": lambda b: b[4], "expanded": lambda b: b[2:3].expand(5, 8),
            "diagonal_step": lambda b: b.reshape(-1)[5::9]}[view]
    e_base, t_base = ember.tensor(base), torch.tensor(base)
    e_obj, t_obj = {"base": e_base, "view": pick(e_base)}, {"base": t_base, "view": pick(t_base)}
    out_t = torch_load(to_ember_bytes(e_obj))
    same_tensor(e_obj["view"], out_t["view"])
    assert out_t["view"].untyped_storage().data_ptr() == out_t["base"].untyped_storage().data_ptr()
    out_e = ember_load(to_torch_bytes(t_obj))
    same_tensor(out_e["view"], t_obj["view"])
    assert out_e["view"]._shares_storage(out_e["base"])
    out_e["base"].view(-1)[:] = -1.0  # one storage: writing the base shows through the view
    assert (out_e["view"].numpy() == -1).all()


def test_view_saved_alone_keeps_the_whole_storage_as_torch():
    e = ember.arange(10.0)[7:]
    t = torch.arange(10.0)[7:]
    from_e = torch_load(to_ember_bytes(e))
    same_tensor(e, from_e)
    assert from_e.untyped_storage().nbytes() == 40
    assert zipfile.ZipFile(io.BytesIO(to_ember_bytes(e))).getinfo("archive/data/0").file_size == \
        zipfile.ZipFile(io.BytesIO(to_torch_bytes(t))).getinfo("archive/data/0").file_size


def test_same_tensor_twice_loads_as_one_object():
    e = ember.randn(3)
    out = torch_load(to_ember_bytes([e, e, {"again": e}]))
    assert out[0] is out[1] is out[2]["again"]
    t = torch.randn(3)
    back = ember_load(to_torch_bytes([t, t]))
    assert back[0] is back[1]


def test_requires_grad_and_parameters_both_ways():
    e_obj = {"p": ember.nn.Parameter(ember.randn(2, 3)),
             "frozen": ember.nn.Parameter(ember.randn(2), requires_grad=False),
             "leaf": ember.randn(4, requires_grad=True), "plain": ember.randn(2)}
    out = torch_load(to_ember_bytes(e_obj))
    assert type(out["p"]) is torch.nn.Parameter and out["p"].requires_grad
    assert type(out["frozen"]) is torch.nn.Parameter and not out["frozen"].requires_grad
    for k in e_obj:
        same_tensor(e_obj[k], out[k])
    t_obj = {"p": torch.nn.Parameter(torch.randn(2, 3)), "leaf": torch.randn(4, requires_grad=True)}
    back = ember_load(to_torch_bytes(t_obj))
    assert isinstance(back["p"], ember.nn.Parameter) and back["p"].requires_grad
    assert back["leaf"].requires_grad and not isinstance(back["leaf"], ember.nn.Parameter)
    for k in t_obj:
        same_tensor(back[k], t_obj[k])


def test_non_leaf_saves_its_values_as_torch():
    x = ember.randn(3, requires_grad=True)
    y = x * 2
    out = torch_load(to_ember_bytes(y))
    tx = torch.tensor(x.detach().numpy(), requires_grad=True)
    ty = torch_load(to_torch_bytes(tx * 2))
    assert out.requires_grad == ty.requires_grad
    np.testing.assert_allclose(out.detach().numpy(), y.detach().numpy())


# ---- state dicts, optimizers, containers, plain values ------------------------------------------

def small_models():
    ember.manual_seed(0)
    e = ember.nn.Sequential(ember.nn.Linear(4, 8), ember.nn.BatchNorm1d(8), ember.nn.ReLU(),
                            ember.nn.Linear(8, 2))
    t = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.BatchNorm1d(8), torch.nn.ReLU(),
                            torch.nn.Linear(8, 2))
    return e, t


def test_state_dict_with_metadata_both_ways():
    e, t = small_models()
    sd = e.state_dict()
    out = torch_load(to_ember_bytes(sd))
    assert type(out) is OrderedDict and list(out) == list(sd)
    assert out._metadata == sd._metadata
    t.load_state_dict(out)
    x = np.random.default_rng(0).standard_normal((5, 4)).astype(np.float32)
    e.eval(), t.eval()
    np.testing.assert_allclose(t(torch.tensor(x)).detach().numpy(),
                               e(ember.tensor(x)).detach().numpy(), rtol=1e-5, atol=1e-6)
    t.train()
    t(torch.tensor(x))  # change the running stats, then carry them back to ember
    back = ember_load(to_torch_bytes(t.state_dict()))
    assert type(back) is OrderedDict and back._metadata == t.state_dict()._metadata
    e.load_state_dict(back)
    e.eval(), t.eval()
    np.testing.assert_allclose(e(ember.tensor(x)).detach().numpy(),
                               t(torch.tensor(x)).detach().numpy(), rtol=1e-5, atol=1e-6)
    assert back["1.num_batches_tracked"].dtype == ember.int64


def test_optimizer_state_dict_both_ways():
    e, t = small_models()
    t.load_state_dict(torch_load(to_ember_bytes(e.state_dict())))
    x = np.random.default_rng(1).standard_normal((6, 4)).astype(np.float32)
    e_opt = ember.optim.Adam(e.parameters(), lr=0.01, betas=(0.8, 0.9))
    t_opt = torch.optim.Adam(t.parameters(), lr=0.01, betas=(0.8, 0.9))
    for model, opt, lib in ((e, e_opt, ember), (t, t_opt, torch)):
        model(lib.tensor(x)).sum().backward()
        opt.step()
    sd = e_opt.state_dict()
    out = torch_load(to_ember_bytes(sd))
    assert out["param_groups"][0]["betas"] == (0.8, 0.9) and set(out["state"]) == set(sd["state"])
    t_opt.load_state_dict(out)
    back = ember_load(to_torch_bytes(t_opt.state_dict()))
    e_opt.load_state_dict(back)
    for k, st in back["state"].items():
        for name, v in st.items():
            if isinstance(v, ember.Tensor):
                same_tensor(v, t_opt.state_dict()["state"][k][name])


def test_nested_containers_and_plain_values_both_ways():
    obj = {"ints": [1, -2, 2 ** 40, -2 ** 70], "floats": (0.5, float("inf"), -0.0), "s": "héllo",
           "b": b"\x00\xff", "none": None, "flags": [True, False], "nested": {1: {"x": [[], {}]}},
           "od": OrderedDict([("b", 1), ("a", 2)]), "set": {1, 2}, "c": 1 + 2j, "epoch": 3}
    out_t = torch_load(to_ember_bytes(obj))
    out_e = ember_load(to_torch_bytes(obj))
    assert out_t == obj and out_e == obj
    assert type(out_t["od"]) is OrderedDict and type(out_e["floats"]) is tuple
    nan = ember_load(to_ember_bytes(float("nan")))
    assert math.isnan(nan)


def test_dtype_device_and_size_objects_use_torch_names():
    obj = {"dtype": ember.float64, "device": ember.device("cpu"), "size": ember.zeros(2, 3).shape}
    out = torch_load(to_ember_bytes(obj))
    assert out["dtype"] is torch.float64 and out["device"] == torch.device("cpu")
    assert out["size"] == torch.Size([2, 3]) and type(out["size"]) is torch.Size
    back = ember_load(to_torch_bytes({"dtype": torch.int32, "device": torch.device("cpu"),
                                      "size": torch.Size([4])}))
    assert back["dtype"] is ember.int32 and str(back["device"]) == "cpu" and tuple(back["size"]) == (4,)


# ---- whole modules ------------------------------------------------------------------------

MODULES = {
    "linear": (lambda nn: nn.Linear(4, 3), (2, 4)),
    "cnn": (lambda nn: nn.Sequential(nn.Conv2d(2, 3, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                                     nn.Flatten(), nn.Linear(12, 5)), (1, 2, 4, 4)),
    "batchnorm": (lambda nn: nn.BatchNorm1d(4), (3, 4)),
    "layernorm": (lambda nn: nn.LayerNorm(4), (2, 4)),
    "lstm": (lambda nn: nn.LSTM(4, 5, num_layers=2), (3, 2, 4)),
    "gru": (lambda nn: nn.GRU(4, 5), (3, 2, 4)),
    "encoder_layer": (lambda nn: nn.TransformerEncoderLayer(4, 2, 8, dropout=0.0), (2, 3, 4)),
    "conv1d": (lambda nn: nn.Conv1d(2, 3, 3), (1, 2, 5)),
    "groupnorm": (lambda nn: nn.GroupNorm(2, 4), (2, 4, 3)),
    "prelu_dropout": (lambda nn: nn.Sequential(nn.PReLU(), nn.Dropout(0.5)), (2, 3)),
}


def first(out):
    return out[0] if isinstance(out, tuple) else out


@pytest.mark.parametrize("name", list(MODULES))
def test_whole_module_both_ways(name):
    make, shape = MODULES[name]
    x = np.random.default_rng(2).standard_normal(shape).astype(np.float32)
    e = make(ember.nn)
    e.eval()
    t = torch_load(to_ember_bytes(e), weights_only=False)
    assert type(t).__module__.startswith("torch.nn.modules.") and not t.training
    np.testing.assert_allclose(first(t(torch.tensor(x))).detach().numpy(),
                               first(e(ember.tensor(x))).detach().numpy(), rtol=1e-5, atol=1e-5)
    t2 = make(torch.nn)
    t2.eval()
    e2 = ember_load(to_torch_bytes(t2), weights_only=False)
    assert isinstance(e2, ember.nn.Module) and not e2.training
    np.testing.assert_allclose(first(e2(ember.tensor(x))).detach().numpy(),
                               first(t2(torch.tensor(x))).detach().numpy(), rtol=1e-5, atol=1e-5)
    assert list(e2.state_dict()) == list(t2.state_dict())


def test_pickled_module_carries_torch_module_layout():
    t = torch_load(to_ember_bytes(ember.nn.Linear(2, 2)), weights_only=False)
    assert set(torch.nn.Linear(2, 2).__dict__) <= set(t.__dict__)
    t.register_forward_hook(lambda *a: None)  # torch's hook machinery finds its dicts
    t(torch.zeros(1, 2)).sum().backward()
    assert t.weight.grad is not None


def test_weights_only_module_under_safe_globals_in_both_libraries():
    """word_language_model's pattern: torch.save(model), then torch.load under
    safe_globals([the classes]); the same list works in ember with ember's classes."""
    e = ember.nn.Sequential(ember.nn.Embedding(10, 4), ember.nn.Dropout(0.1), ember.nn.Linear(4, 3))
    data = to_ember_bytes(e)
    with pytest.raises(Exception, match="Unsupported global"):
        torch_load(data)
    with torch.serialization.safe_globals([torch.nn.Sequential, torch.nn.Embedding,
                                           torch.nn.Dropout, torch.nn.Linear, set]):
        t = torch_load(data)
    assert isinstance(t[2], torch.nn.Linear)
    with pytest.raises(Exception, match="Unsupported global"):
        ember_load(data)
    nn = ember.nn
    with ember.serialization.safe_globals([nn.Sequential, nn.Embedding, nn.Dropout, nn.Linear, set]):
        back = ember_load(to_torch_bytes(t))
    assert isinstance(back[2], ember.nn.Linear)
    np.testing.assert_array_equal(back[0].weight.detach().numpy(), e[0].weight.detach().numpy())
    assert ember.serialization.get_safe_globals() == []


# ---- the archive, files and formats ----------------------------------------------------------

def test_archive_records_as_torch_writes_them(tmp_path):
    ember.save({"a": ember.ones(3), "b": ember.zeros(2, dtype=ember.int64)}, tmp_path / "ckpt.pt")
    torch.save({"a": torch.ones(3), "b": torch.zeros(2, dtype=torch.int64)}, tmp_path / "ref.pt")
    ours = zipfile.ZipFile(tmp_path / "ckpt.pt")
    ref = zipfile.ZipFile(tmp_path / "ref.pt")
    assert [n.split("/", 1)[1] for n in ours.namelist()] == [n.split("/", 1)[1] for n in ref.namelist()]
    assert ours.namelist()[0] == "ckpt/data.pkl"
    for name in ("byteorder", "version", ".format_version", ".storage_alignment"):
        assert ours.read(f"ckpt/{name}") == ref.read(f"ref/{name}")
    sid = ours.read("ckpt/.data/serialization_id")
    assert len(sid) == 40 and sid.isdigit()
    for info in ours.infolist():
        assert info.compress_type == zipfile.ZIP_STORED
        if "/data/" in info.filename:
            with open(tmp_path / "ckpt.pt", "rb") as f:
                f.seek(info.header_offset + 26)
                n, e = np.frombuffer(f.read(4), np.uint16)
            assert (info.header_offset + 30 + int(n) + int(e)) % 64 == 0
    assert torch.load(tmp_path / "ckpt.pt", mmap=True)["a"].sum() == 3  # torch's mmap needs the alignment
    ember.save({"a": ember.ones(3)}, tmp_path / "nobo.pt", _disable_byteorder_record=True)
    torch.save({"a": torch.ones(3)}, tmp_path / "nobo_ref.pt", _disable_byteorder_record=True)
    assert [n.split("/", 1)[1] for n in zipfile.ZipFile(tmp_path / "nobo.pt").namelist()] == \
        [n.split("/", 1)[1] for n in zipfile.ZipFile(tmp_path / "nobo_ref.pt").namelist()]
    assert ember.load(tmp_path / "nobo_ref.pt")["a"].tolist() == [1.0, 1.0, 1.0]


def test_paths_mmap_and_copy_on_write(tmp_path):
    path = tmp_path / "w.pt"
    base = torch.arange(1000.0)
    torch.save({"w": base, "v": base[10:20]}, path)
    before = path.read_bytes()
    out = ember.load(path, mmap=True)
    np.testing.assert_array_equal(out["v"].numpy(), np.arange(10.0, 20.0, dtype=np.float32))
    assert out["v"]._shares_storage(out["w"])
    out["w"].mul_(2)
    assert path.read_bytes() == before
    out2 = ember.load(str(path), map_location="cpu")
    assert out2["w"][5].item() == 5.0
    with pytest.raises(ValueError, match="mmap=True needs a file path"):
        ember.load(io.BytesIO(before), mmap=True)
    with pytest.raises(ValueError, match="CPU only"):
        ember.load(path, map_location="cuda:0")


def test_format_choice_suffix_argument_and_sniffing(tmp_path):
    obj = {"w": ember.ones(2)}
    ember.save(obj, tmp_path / "a.safetensors")
    ember.save(obj, tmp_path / "b.pt")
    ember.save(obj, tmp_path / "c.bin", format="safetensors")
    buf = io.BytesIO()
    ember.save(obj, buf, metadata={"k": "v"})
    assert not zipfile.is_zipfile(tmp_path / "a.safetensors") and zipfile.is_zipfile(tmp_path / "b.pt")
    assert not zipfile.is_zipfile(tmp_path / "c.bin") and not zipfile.is_zipfile(io.BytesIO(buf.getvalue()))
    for p in ("a.safetensors", "b.pt", "c.bin"):
        assert ember.load(tmp_path / p)["w"].tolist() == [1.0, 1.0]
    assert ember.load(io.BytesIO(buf.getvalue()))["w"].tolist() == [1.0, 1.0]
    with pytest.raises(ValueError, match="format must be"):
        ember.save(obj, tmp_path / "d.pt", format="npz")
    with pytest.raises(ValueError, match="legacy"):
        ember.save(obj, tmp_path / "d.pt", _use_new_zipfile_serialization=False)
    assert not os.path.exists(tmp_path / "d.pt")


def test_save_failure_leaves_the_old_file(tmp_path):
    path = tmp_path / "x.pt"
    ember.save({"w": ember.ones(1)}, path)
    before = path.read_bytes()

    class Unpicklable:
        def __reduce__(self):
            raise TypeError("cannot pickle this")
    with pytest.raises(TypeError, match="cannot pickle"):
        ember.save({"w": ember.zeros(1), "x": Unpicklable()}, path)
    assert path.read_bytes() == before and os.listdir(tmp_path) == ["x.pt"]


def test_every_nn_class_has_torch_path_and_is_reachable_there():
    """class_paths names each ember.nn class by torch's module path, checked against torch
    itself, and ember.nn.modules.<file>.<Name> is the same class (for the drop-in runner)."""
    import importlib
    from ember.serialization.class_paths import nn_classes
    table = nn_classes()
    by_class = {cls: name for name, cls in table.items()}
    checked = 0
    for name, cls in vars(ember.nn).items():
        if not (isinstance(cls, type) and issubclass(cls, ember.nn.Module)) or not hasattr(torch.nn, name):
            continue
        tcls = getattr(torch.nn, name)
        assert by_class[cls] == f"{tcls.__module__}.{tcls.__qualname__}", name
        checked += 1
    for full, cls in table.items():
        module, _, name = full.rpartition(".")
        assert getattr(importlib.import_module("ember" + module[len("torch"):]), name) is cls, full
    assert checked > 100
    from ember.nn.modules.linear import NonDynamicallyQuantizableLinear
    assert issubclass(NonDynamicallyQuantizableLinear, ember.nn.Linear)
    assert table["torch.nn.modules.linear.NonDynamicallyQuantizableLinear"] is NonDynamicallyQuantizableLinear


# ---- pytorch/examples word_language_model: torch.save(model), load under safe_globals -----------

def rnn_model_class(nn):
    class RNNModel(nn.Module):
        def __init__(self, ntoken=20, ninp=6, nhid=5, nlayers=2):
            super().__init__()
            self.drop = nn.Dropout(0.2)
            self.encoder = nn.Embedding(ntoken, ninp)
            self.rnn = nn.LSTM(ninp, nhid, nlayers, dropout=0.2)
            self.decoder = nn.Linear(nhid, ntoken)
            self.rnn_type, self.nhid, self.nlayers = "LSTM", nhid, nlayers

        def forward(self, input, hidden):
            output, hidden = self.rnn(self.drop(self.encoder(input)), hidden)
            return self.decoder(self.drop(output)), hidden

    RNNModel.__qualname__ = RNNModel.__name__ = "RNNModel"  # one name for both libraries' class
    return RNNModel


def test_word_language_model_checkpoint_both_ways():
    import sys
    me = sys.modules[__name__]
    t_cls, e_cls = rnn_model_class(torch.nn), rnn_model_class(ember.nn)
    tokens = np.random.default_rng(3).integers(0, 20, (7, 2))
    hidden = np.zeros((2, 2, 5), np.float32)

    def run(model, lib):
        h = (lib.tensor(hidden), lib.tensor(hidden))
        return model(lib.tensor(tokens), h)[0].detach().numpy()

    torch_list = [t_cls, torch.nn.modules.rnn.LSTM, torch.nn.modules.dropout.Dropout,
                  torch.nn.modules.sparse.Embedding, torch.nn.modules.linear.Linear,
                  torch.nn.modules.linear.NonDynamicallyQuantizableLinear, set]
    ember_list = [e_cls, ember.nn.modules.rnn.LSTM, ember.nn.modules.dropout.Dropout,
                  ember.nn.modules.sparse.Embedding, ember.nn.modules.linear.Linear,
                  ember.nn.modules.linear.NonDynamicallyQuantizableLinear, set]
    try:
        me.RNNModel = t_cls  # torch.save finds the class at its module path
        t_model = t_cls().eval()
        data = to_torch_bytes(t_model)
        with ember.serialization.safe_globals(ember_list[1:] + [(e_cls, f"{__name__}.RNNModel")]):
            e_model = ember_load(data)
        assert type(e_model) is e_cls
        np.testing.assert_allclose(run(e_model, ember), run(t_model, torch), rtol=1e-5, atol=1e-6)

        me.RNNModel = e_cls
        e_model2 = e_cls().eval()
        data2 = to_ember_bytes(e_model2)
        me.RNNModel = t_cls  # what torch's side imports by that name
        with torch.serialization.safe_globals(torch_list):
            t_model2 = torch_load(data2)
        assert type(t_model2) is t_cls and isinstance(t_model2.rnn, torch.nn.LSTM)
        np.testing.assert_allclose(run(t_model2, torch), run(e_model2, ember), rtol=1e-5, atol=1e-6)
    finally:
        del me.RNNModel


@pytest.mark.parametrize("mmap", [False, True])
def test_storages_view_the_file_bytes_without_copies(tmp_path, mmap):
    path = tmp_path / "two.pt"
    torch.save({"a": torch.arange(100.0), "b": torch.arange(50, dtype=torch.int64)}, path)
    out = ember.load(path, mmap=mmap)
    z = zipfile.ZipFile(path)

    def data_offset(name):
        info = z.getinfo(f"two/{name}")
        with open(path, "rb") as f:
            f.seek(info.header_offset + 26)
            n, e = np.frombuffer(f.read(4), np.uint16)
        return info.header_offset + 30 + int(n) + int(e)
    # both records are views of one buffer holding the whole file: their addresses differ
    # by their distance in the file
    assert out["b"].data_ptr() - out["a"].data_ptr() == data_offset("data/1") - data_offset("data/0")
    assert out["a"].data_ptr() % 64 == out["b"].data_ptr() % 64


def test_tensor_attributes_travel_both_ways():
    # torch writes a tensor that carries Python attributes as _rebuild_from_type_v2(...,
    # state) and a Parameter's as _rebuild_parameter_with_state; ember reads and writes both
    def through(save, load, obj, **kw):
        buf = io.BytesIO()
        save(obj, buf)
        buf.seek(0)
        return load(buf, **kw)

    for lib, save, load in ((torch, torch.save, ember.load), (ember, ember.save, torch.load),
                            (ember, ember.save, ember.load)):
        t = lib.arange(3.0)
        t.tag, t.n = "a", 3
        p = lib.nn.Parameter(lib.ones(2))
        p.note = [1, 2]
        out = through(save, load, {"t": t, "p": p, "plain": lib.ones(1)})
        assert out["t"].tolist() == [0.0, 1.0, 2.0] and out["t"].__dict__ == {"tag": "a", "n": 3}
        assert out["p"].__dict__ == {"note": [1, 2]} and out["p"].requires_grad
        assert out["plain"].__dict__ == {}
        assert type(out["p"]).__name__ == "Parameter" and type(out["t"]).__name__ == "Tensor"
    # the state goes through the restricted unpickler: an object it does not allow is refused
    t = torch.ones(1)
    t.bad = OrderedDict(x=os.getcwd)
    buf = io.BytesIO()
    torch.save(t, buf)
    buf.seek(0)
    with pytest.raises(Exception, match="getcwd|Unsupported|global"):
        ember.load(buf)


def test_rebuild_from_type_v2_takes_only_tensor_rebuilds():
    from ember.serialization.torch_format import _rebuild_from_type_v2, _rebuild_parameter
    with pytest.raises(TypeError, match="expects a tensor rebuild function"):
        _rebuild_from_type_v2(print, ember.Tensor, ("x",), {})
    with pytest.raises(TypeError, match="expects a Tensor class"):
        _rebuild_from_type_v2(_rebuild_parameter, int, (ember.ones(1), True, None), {})
    with pytest.raises(TypeError, match="state must be a dict"):
        _rebuild_from_type_v2(_rebuild_parameter, ember.nn.Parameter, (ember.ones(1), True, None),
                              [("a", 1)])
    p = _rebuild_from_type_v2(_rebuild_parameter, ember.nn.Parameter, (ember.ones(1), True, None),
                              ({"a": 1}, {"b": 2}))
    assert (p.a, p.b) == (1, 2)
