"""Workloads of C++ extensions (issue 19; imported by run.py to register them).

The LLTM cell of PyTorch's C++ extension tutorial at the tutorial's sizes (batch 16, 32 input
features, state 128), forward + backward: composed of library ops (ember and torch, autograd doing
the backward), and built from examples/cpp_extension/lltm.cpp with ember.utils.cpp_extension
.load_inline (cached in the default build root; the first run compiles it). The extension rows'
torch column is torch's composed cell: compare their ember column with the composed row's.
"""
import os
import sys

from common import Skip, workload

LLTM_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples", "cpp_extension")
sys.path.insert(0, LLTM_DIR)
from lltm import composed, lltm_function  # noqa: E402  (the tutorial's Python side)

BATCH, FEATURES, STATE = 16, 32, 128


def _inputs(m, seed=0):
    import numpy as np
    rng = np.random.default_rng(seed)
    shapes = [(BATCH, FEATURES), (3 * STATE, FEATURES + STATE), (3 * STATE,), (BATCH, STATE),
              (BATCH, STATE)]
    return [m.tensor(rng.standard_normal(s).astype("float32"), requires_grad=True) for s in shapes]


def _step(cell, xs):
    def run():
        for x in xs:
            x.grad = None
        new_h, new_cell = cell(*xs)
        (new_h.sum() + new_cell.sum()).backward()
    return run


def _extension():
    from ember.utils.cpp_extension import load_inline
    with open(os.path.join(LLTM_DIR, "lltm.cpp")) as f:
        return load_inline("lltm_cpp", f.read())


def _rows(L, ember_cell):
    return {"ember": _step(ember_cell, _inputs(L["ember"])),
            "torch": _step(composed(L["torch"]), _inputs(L["torch"])),
            "numpy": Skip("no autograd")}


@workload("LLTM cell fwd+bwd, 16x32 state 128, composed of ops",
          note="cat, linear, chunk, sigmoid, elu, tanh; autograd backward")
def lltm_composed(L):
    return _rows(L, composed(L["ember"]))


@workload("LLTM cell fwd+bwd, C++ extension, Python Function",
          note="ember: load_inline of the tutorial's lltm.cpp in its autograd.Function; torch: composed")
def lltm_extension_python_function(L):
    return _rows(L, lltm_function(L["ember"], _extension()))


@workload("LLTM cell fwd+bwd, C++ extension, C++ Function",
          note="ember: the same forward/backward as one torch::autograd::Function; torch: composed")
def lltm_extension_cpp_function(L):
    return _rows(L, _extension().lltm)
