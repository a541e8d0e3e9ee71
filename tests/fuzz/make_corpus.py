"""Writes the seed corpus of the safetensors fuzz target into tests/fuzz/corpus: valid files
(every dtype, 0-d, empty, metadata, ember's nested objects, a file from the safetensors
package) and one broken file per loader check (the hand-crafted hostile files of
tests/python/test_serialization.py). Run from the repository root with ember importable:

    PYTHONPATH=build/<dir>/python .venv/bin/python tests/fuzz/make_corpus.py
"""
import io
import os
import sys

import numpy as np

import ember

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
from test_serialization import HOSTILE, craft  # noqa: E402


def ember_bytes(obj, metadata=None):
    buf = io.BytesIO()
    ember.save(obj, buf, metadata=metadata, format="safetensors")
    return buf.getvalue()


def main():
    out = os.path.join(HERE, "corpus")
    os.makedirs(out, exist_ok=True)
    ember.manual_seed(0)
    valid = {
        "valid_every_dtype": ember._C._save_bytes({
            "f32": ember.randn(2, 3), "f64": ember.randn(2, dtype=ember.float64),
            "i64": ember.arange(3), "i32": ember.arange(3, dtype=ember.int32),
            "u8": ember.arange(4, dtype=ember.uint8), "b": ember.tensor([True, False])}, {}),
        "valid_zero_d_and_empty": ember._C._save_bytes(
            {"s": ember.tensor(1.5), "e": ember.zeros(0, 3), "e2": ember.zeros(2, 0, dtype=ember.int64)}, {}),
        "valid_no_tensors": ember._C._save_bytes({}, {}),
        "valid_metadata": ember._C._save_bytes({"w": ember.ones(2)}, {"format": "pt", "k\u00e9": "v\n"}),
        "valid_nested_object": ember_bytes({"model": {"0.weight": ember.randn(2, 2)},
                                            "optim": {"state": {0: {"step": ember.tensor(1.0)}},
                                                      "param_groups": [{"lr": 0.1, "betas": (0.9, 0.99)}]}}),
        "valid_single_tensor": ember_bytes(ember.arange(5.0)),
    }
    try:
        from safetensors.numpy import save
        valid["valid_from_safetensors"] = save({"a": np.arange(6, dtype=np.float32).reshape(2, 3),
                                                "b": np.array([1, 2], dtype=np.int64)})
    except ImportError:
        pass
    for name, data in valid.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)
    broken = {name: data for name, (data, _) in HOSTILE.items() if len(data) <= 65536}  # -max_len
    deep = "[" * 100 + "]" * 100
    broken["deep_nesting_small"] = craft('{"a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4], '
                                         '"x": ' + deep + '}}', b"\0" * 4)
    for name, data in broken.items():
        with open(os.path.join(out, "bad_" + name), "wb") as f:
            f.write(data)
    print(f"{len(os.listdir(out))} files in {out}")


if __name__ == "__main__":
    main()
