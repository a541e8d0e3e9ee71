"""State dicts between the C++ frontend (include/ember/nn, ember::save / ember::load), ember.nn
and torch, both ways (issue 19: "a model saved from C++ loads in Python with identical
outputs, and the reverse"), and the C++ optimizers and schedulers against torch.optim.

The C++ half is tests/interop/state_dict_interop.cpp, built by CMake with the tests; ctest
runs this file with EMBER_STATE_DICT_INTEROP set to it (test cpp_python_state_dict). Run
alone, the one in the build tree of the imported ember is used (else the newest
build/*/ember_state_dict_interop of this checkout). The bit-for-bit comparisons with ember.nn
assume both halves come from one build (a sanitizer build rounds differently in the last bit)."""
import glob
import math
import os
import subprocess
import zipfile
from collections import OrderedDict

import numpy as np
import pytest
import torch

import ember
from ember.serialization import save_file

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _binary():
    exe = os.environ.get("EMBER_STATE_DICT_INTEROP")
    if exe:
        return exe
    # The build tree of the ember imported here (build/<dir>/python/ember/_C...): its own C++
    # half, compiled alike, so outputs can be compared bit for bit.
    beside = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(ember._C.__file__))),
                          "ember_state_dict_interop")
    if os.path.exists(beside):
        return beside
    found = sorted(glob.glob(os.path.join(_ROOT, "build", "*", "ember_state_dict_interop")),
                   key=os.path.getmtime)
    if not found:
        pytest.skip("ember_state_dict_interop is not built (cmake -DEMBER_BUILD_TESTS=ON)")
    return found[-1]


def cpp(*args):
    r = subprocess.run([_binary(), *map(str, args)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, f"ember_state_dict_interop {' '.join(map(str, args))}: {r.stderr}"
    return r.stdout


class Zoo:
    """The C++ Zoo (state_dict_interop.cpp) in either library: every layer kind of the C++
    frontend (the cells too), with the same state dict keys."""

    def __new__(cls, nn):
        class _Zoo(nn.Module):
            def __init__(self):
                super().__init__()
                self.cnn = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(),
                                         nn.MaxPool2d(2), nn.Flatten(), nn.Linear(64, 10))
                self.conv1d = nn.Sequential(nn.Conv1d(3, 5, 3, padding=1), nn.BatchNorm1d(5))
                self.emb = nn.Embedding(20, 8, padding_idx=0)
                self.lstm = nn.LSTM(8, 16, num_layers=2, batch_first=True, bidirectional=True)
                self.gru = nn.GRU(32, 12, batch_first=True)
                self.norm = nn.LayerNorm(12)
                self.head = nn.Linear(12, 3)
                self.lcell = nn.LSTMCell(3, 5)
                self.gcell = nn.GRUCell(3, 5)

            def forward(self, images, signals, tokens):
                seq = self.head(self.norm(self.gru(self.lstm(self.emb(tokens))[0])[0]))
                first = signals[:, :, 0]
                state = first[:, :1].expand(-1, 5)
                return {"cnn": self.cnn(images), "conv1d": self.conv1d(signals), "seq": seq,
                        "lcell": self.lcell(first, (state, state * 0.5))[1], "gcell": self.gcell(first, state)}
        return _Zoo()


def _np(t):
    return t.detach().numpy() if isinstance(t, torch.Tensor) else np.asarray(t.detach().numpy())


def _to_torch(sd):
    return OrderedDict((k, torch.from_numpy(np.array(_np(v)))) for k, v in sd.items())


def _outputs(lib, model, inputs):
    model.eval()
    with lib.no_grad():
        out = model(*(lib.from_numpy(np.array(inputs[k])) for k in ("images", "signals", "tokens")))
    return {k: _np(v) for k, v in out.items()}


def _read(path):
    return {k: _np(v) for k, v in ember.load(path).items()}


# ---- C++ -> Python --------------------------------------------------------------------------

@pytest.fixture(scope="module")
def cpp_saved(tmp_path_factory):
    d = tmp_path_factory.mktemp("cpp_saved")
    cpp("save", d)
    return d


@pytest.mark.parametrize("name", ["cpp_model.pt", "cpp_model.safetensors"])
def test_cpp_state_dict_loads_in_ember_with_identical_outputs(cpp_saved, name):
    inputs, want = _read(cpp_saved / "inputs.safetensors"), _read(cpp_saved / "cpp_outputs.safetensors")
    model = Zoo(ember.nn)
    model.load_state_dict(ember.load(cpp_saved / name))  # strict: every key, every shape
    got = _outputs(ember, model, inputs)
    for k in want:  # the same ops in the same order: the same numbers
        np.testing.assert_array_equal(got[k], want[k], err_msg=k)


@pytest.mark.parametrize("name", ["cpp_model.pt", "cpp_model.safetensors"])
def test_cpp_state_dict_loads_in_torch(cpp_saved, name):
    inputs, want = _read(cpp_saved / "inputs.safetensors"), _read(cpp_saved / "cpp_outputs.safetensors")
    if name.endswith(".pt"):
        sd = torch.load(cpp_saved / name, weights_only=True)  # torch's own reader, restricted
        assert isinstance(sd, OrderedDict)
    else:
        sd = _to_torch(ember.load(cpp_saved / name))
    assert sd["cnn.1.num_batches_tracked"].dtype == torch.int64 and int(sd["cnn.1.num_batches_tracked"]) == 3
    model = Zoo(torch.nn)
    model.load_state_dict(sd)
    got = _outputs(torch, model, inputs)
    for k in want:
        np.testing.assert_allclose(got[k], want[k], rtol=1e-5, atol=1e-5, err_msg=k)


def test_cpp_zip_is_torchs_layout(cpp_saved):
    with zipfile.ZipFile(cpp_saved / "cpp_model.pt") as z:
        assert z.testzip() is None  # every CRC
        names = [i.filename for i in z.infolist()]
        assert names[0] == "cpp_model/data.pkl" and all(n.startswith("cpp_model/") for n in names)
        for rec in ("version", "byteorder", ".format_version", ".storage_alignment", ".data/serialization_id"):
            assert f"cpp_model/{rec}" in names
        raw = open(cpp_saved / "cpp_model.pt", "rb").read()
        for info in z.infolist():
            assert info.compress_type == zipfile.ZIP_STORED
            n, e = int.from_bytes(raw[info.header_offset + 26:info.header_offset + 28], "little"), \
                int.from_bytes(raw[info.header_offset + 28:info.header_offset + 30], "little")
            assert (info.header_offset + 30 + n + e) % 64 == 0, info.filename  # aligned records


# ---- Python -> C++ --------------------------------------------------------------------------

@pytest.fixture(scope="module")
def py_saved(tmp_path_factory):
    """A torch Zoo trained a little; its state dict saved by torch.save and by ember.save."""
    d = tmp_path_factory.mktemp("py_saved")
    torch.manual_seed(0)
    model = Zoo(torch.nn)
    inputs = {"images": torch.randn(4, 1, 8, 8), "signals": torch.randn(4, 3, 10),
              "tokens": torch.randint(0, 20, (4, 6))}
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    for _ in range(3):
        loss = sum((y * y).mean() for y in model(**inputs).values())
        opt.zero_grad()
        loss.backward()
        opt.step()
    sd = model.state_dict()
    torch.save(sd, d / "torch_model.pt")
    torch.save(sd, d / "torch_model_p4.pt", pickle_protocol=4)
    ember_sd = OrderedDict((k, ember.from_numpy(v.numpy().copy())) for k, v in sd.items())
    ember.save(ember_sd, d / "ember_model.pt")
    ember.save(ember_sd, d / "ember_model.safetensors")
    # The same archive with deflated records (zip tools rewrite files so): read through zlib.
    with zipfile.ZipFile(d / "torch_model.pt") as src, \
            zipfile.ZipFile(d / "torch_model_deflated.pt", "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            dst.writestr(info.filename, src.read(info))
    save_file({k: ember.from_numpy(v.numpy()) for k, v in inputs.items()}, d / "inputs.safetensors")
    return d, _outputs(torch, model, {k: v.numpy() for k, v in inputs.items()})


@pytest.mark.parametrize("name", ["torch_model.pt", "torch_model_p4.pt", "torch_model_deflated.pt",
                                  "ember_model.pt", "ember_model.safetensors"])
def test_python_state_dict_loads_in_cpp_with_identical_outputs(py_saved, name):
    d, want = py_saved
    cpp("run", d, name)
    got = _read(d / f"{name}.outputs.safetensors")
    # ember.nn runs the same ops as the C++ modules: equal to the last bit.
    model = Zoo(ember.nn)
    # torch's weights-only unpickler refuses protocol 4's FRAME opcode, and so does ember's;
    # the C++ reader takes it (it builds nothing but containers and tensors either way).
    model.load_state_dict(ember.load(d / name, weights_only="_p4" not in name))
    same = _outputs(ember, model, _read(d / "inputs.safetensors"))
    for k in want:
        np.testing.assert_allclose(got[k], want[k], rtol=1e-5, atol=1e-5, err_msg=k)
        np.testing.assert_array_equal(got[k], same[k], err_msg=k)


def test_cpp_reads_nested_checkpoints_with_dotted_names(tmp_path):
    lin = torch.nn.Linear(3, 2)
    opt = torch.optim.Adam(lin.parameters())
    lin(torch.ones(1, 3)).sum().backward()
    opt.step()
    torch.save({"model": lin.state_dict(), "optim": opt.state_dict(), "epoch": 7,
                "tied": [lin.weight.data, lin.weight.data[0]]}, tmp_path / "ckpt.pt")
    lines = cpp("inspect", tmp_path / "ckpt.pt").splitlines()
    assert "model.weight float32 (2, 3)" in lines and "model.bias float32 (2)" in lines
    assert "optim.state.0.exp_avg float32 (2, 3)" in lines and "optim.state.0.step float32 ()" in lines
    assert "tied.1 float32 (3)" in lines
    assert not any(line.startswith("epoch") for line in lines)  # not a tensor


def test_cpp_refuses_what_is_not_a_state_dict(tmp_path):
    torch.save({"layer": torch.nn.Linear(2, 2)}, tmp_path / "module.pt")
    r = subprocess.run([_binary(), "inspect", str(tmp_path / "module.pt")], capture_output=True, text=True)
    assert r.returncode == 1
    assert "torch.nn.modules.linear.Linear" in r.stderr and "module.pt" in r.stderr, r.stderr
    # A list that holds itself (through the memo): refused, and freed (ASan builds check).
    with zipfile.ZipFile(tmp_path / "cycle.pt", "w") as z:
        z.writestr("archive/data.pkl", b"\x80\x02}q\x00X\x01\x00\x00\x00a]q\x01h\x01as.")
    r = subprocess.run([_binary(), "inspect", str(tmp_path / "cycle.pt")], capture_output=True, text=True)
    assert r.returncode == 1 and "nested deeper than 64" in r.stderr, r.stderr
    raw = open(tmp_path / "module.pt", "rb").read()
    (tmp_path / "cut.pt").write_bytes(raw[:len(raw) // 2])
    r = subprocess.run([_binary(), "inspect", str(tmp_path / "cut.pt")], capture_output=True, text=True)
    assert r.returncode == 1 and "cut.pt" in r.stderr, r.stderr


# ---- optimizers and schedulers ----------------------------------------------------------------

def _torch_configs():
    O, S = torch.optim, torch.optim.lr_scheduler
    return {
        "sgd_nesterov_step": (lambda p: O.SGD(p, lr=0.1, momentum=0.9, weight_decay=1e-2, nesterov=True),
                              lambda o: S.StepLR(o, 2, 0.5)),
        "adam_cosine": (lambda p: O.Adam(p, lr=0.05, amsgrad=True), lambda o: S.CosineAnnealingLR(o, 4, 1e-3)),
        "adamw_linear": (lambda p: O.AdamW(p, lr=0.05, weight_decay=0.1), lambda o: S.LinearLR(o, 0.5, 1.0, 3)),
        "sgd_onecycle": (lambda p: O.SGD(p, lr=0.1, momentum=0.9), lambda o: S.OneCycleLR(o, 0.2, total_steps=6)),
        "adam_onecycle_linear_three_phase": (
            lambda p: O.Adam(p, lr=0.01),
            lambda o: S.OneCycleLR(o, 0.1, total_steps=6, anneal_strategy="linear", three_phase=True)),
        "rmsprop_lambda": (lambda p: O.RMSprop(p, lr=0.01, momentum=0.5, centered=True),
                           lambda o: S.LambdaLR(o, lambda e: 0.9 ** e)),
        "adagrad_exponential": (lambda p: O.Adagrad(p, lr=0.1), lambda o: S.ExponentialLR(o, 0.8)),
        "sgd_multistep": (lambda p: O.SGD(p, lr=0.1), lambda o: S.MultiStepLR(o, [2, 4], 0.3)),
    }


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    d = tmp_path_factory.mktemp("train")
    g = torch.Generator().manual_seed(0)
    init = {"weight": torch.randn(3, 5, generator=g), "bias": torch.randn(3, generator=g),
            "x": torch.randn(16, 5, generator=g), "y": torch.randn(16, 3, generator=g)}
    save_file({k: ember.from_numpy(v.numpy()) for k, v in init.items()}, d / "train_init.safetensors")
    cpp("train", d)
    return d, init


@pytest.mark.parametrize("config", sorted(_torch_configs()))
def test_cpp_optimizers_and_schedulers_match_torch(trained, config):
    d, init = trained
    make_opt, make_sched = _torch_configs()[config]
    model = torch.nn.Linear(5, 3)
    model.load_state_dict({"weight": init["weight"], "bias": init["bias"]})
    opt = make_opt(model.parameters())
    sched = make_sched(opt)
    lrs = []
    for _ in range(6):
        lrs.append(opt.param_groups[0]["lr"])
        loss = torch.nn.functional.mse_loss(model(init["x"]), init["y"])
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
    got = _read(d / f"train_{config}.safetensors")
    for i, (a, b) in enumerate(zip(got["lrs"], lrs)):  # torch's formulas in double: to the last bits
        assert math.isclose(a, b, rel_tol=1e-14, abs_tol=1e-300), (config, i, a, b)
    np.testing.assert_allclose(got["weight"], model.weight.detach().numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got["bias"], model.bias.detach().numpy(), rtol=1e-5, atol=1e-6)


def test_cpp_resumes_a_checkpoint_torch_saved(trained):
    """torch trains 3 Adam (amsgrad) steps and saves {"model", "optim"} state dicts; C++ loads
    both (the optimizer state by torch's names) and continues 3 steps; torch continues too."""
    d, init = trained
    model = torch.nn.Linear(5, 3)
    model.load_state_dict({"weight": init["weight"], "bias": init["bias"]})
    opt = torch.optim.Adam(model.parameters(), lr=0.05, amsgrad=True)

    def steps(n):
        for _ in range(n):
            loss = torch.nn.functional.mse_loss(model(init["x"]), init["y"])
            opt.zero_grad()
            loss.backward()
            opt.step()
    steps(3)
    torch.save({"model": model.state_dict(), "optim": opt.state_dict(), "epoch": 3}, d / "torch_ckpt.pt")
    cpp("resume", d)
    steps(3)
    got = _read(d / "resumed.safetensors")
    np.testing.assert_allclose(got["weight"], model.weight.detach().numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got["bias"], model.bias.detach().numpy(), rtol=1e-5, atol=1e-6)
    state = opt.state_dict()["state"]
    for i in (0, 1):
        assert got[f"state.{i}.step"] == 6
        for name in ("exp_avg", "exp_avg_sq", "max_exp_avg_sq"):
            np.testing.assert_allclose(got[f"state.{i}.{name}"], state[i][name].numpy(), rtol=1e-5, atol=1e-7)
