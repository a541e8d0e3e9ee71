"""Writes the seed corpus of the PyTorch-format fuzz target (fuzz_torch_format.py) into
tests/fuzz/torch_corpus: small files written by torch.save (tensors of each dtype, views,
a Parameter, a state dict, optimizer state, containers and plain values) and by ember.save,
the hostile files of tests/python/test_torch_format_safety.py, and bare data.pkl pickles
(pkl_*, which the fuzz target wraps in an archive). Run from the repository
root with ember and torch importable (bad_fuzz_* files are inputs the fuzzer found, kept by
hand as seeds):

    .venv/bin/python tests/fuzz/make_torch_corpus.py
"""
import io
import os
import sys
import zipfile

import torch

import ember

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
from test_torch_format_safety import CASES  # noqa: E402


def saved(lib, obj):
    buf = io.BytesIO()
    lib.save(obj, buf)
    return buf.getvalue()


def main():
    out = os.path.join(HERE, "torch_corpus")
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    base = torch.arange(12.0).reshape(3, 4)
    model = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.BatchNorm1d(2))
    opt = torch.optim.Adam(model.parameters())
    model(torch.randn(4, 3)).sum().backward()
    opt.step()
    files = {
        "torch_dtypes": saved(torch, {str(dt): torch.zeros(2, dtype=dt) for dt in (
            torch.float32, torch.float64, torch.int64, torch.int32, torch.uint8, torch.bool)}),
        "torch_views": saved(torch, {"base": base, "t": base.t(), "row": base[1], "step": base[:, ::2]}),
        "torch_zero_d_empty": saved(torch, [torch.tensor(1.5), torch.zeros(0, 3)]),
        "torch_parameter": saved(torch, torch.nn.Parameter(torch.randn(2, 2))),
        "torch_state_dict": saved(torch, model.state_dict()),
        "torch_optimizer": saved(torch, opt.state_dict()),
        "torch_plain_values": saved(torch, {"a": [1, 2.5, "s", None, True, b"x"], "t": (1, {2})}),
        "ember_state_dict": saved(ember, ember.nn.Linear(2, 2).state_dict()),
        "ember_views": saved(ember, {"b": ember.arange(6.0), "v": ember.arange(6.0)[2:]}),
    }
    files.update({"bad_" + name: data for name, data in CASES.items()})
    for name in ("torch_views", "torch_state_dict", "torch_parameter", "torch_plain_values"):
        with zipfile.ZipFile(io.BytesIO(files[name])) as z:  # bare pickles: the fuzzer wraps them
            files["pkl_" + name] = z.read("archive/data.pkl")
    for name, data in files.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)
    print(f"wrote {len(files)} files to {out}")


if __name__ == "__main__":
    main()
