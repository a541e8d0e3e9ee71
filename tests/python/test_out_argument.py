"""torch's out= on the elementwise functions of include/ember/ops.def (every unary, binary and
comparison row), against torch 2.13: the result written into out and out returned, a
non-contiguous out, an empty out resized quietly, a non-empty one resized with torch's warning,
a dtype that cannot hold the result refused, and out= refused under autograd."""
import warnings

import numpy as np
import pytest
import torch

import ember
from helpers import assert_same

OPS = [(name, family) for name, family, _ in ember._C._op_info()]
DOMAIN = {"acosh": (1.1, 3.0), "log": (0.2, 3.0), "log2": (0.2, 3.0), "log10": (0.2, 3.0),
          "sqrt": (0.2, 3.0), "rsqrt": (0.2, 3.0), "log1p": (0.2, 3.0), "lgamma": (0.2, 3.0),
          "digamma": (0.2, 3.0), "erfinv": (-0.9, 0.9), "atanh": (-0.9, 0.9),
          "acos": (-0.9, 0.9), "asin": (-0.9, 0.9)}
INTEGER_ONLY = {"bitwise_and", "bitwise_or", "bitwise_xor", "gcd", "lcm"}


def _inputs(name, family):
    rng = np.random.default_rng(len(name))
    lo, hi = DOMAIN.get(name, (0.5, 3.0))
    if name in INTEGER_ONLY:
        arrays = [rng.integers(1, 9, (3, 4)), rng.integers(1, 9, (4,))]
    else:
        arrays = [rng.uniform(lo, hi, (3, 4)), rng.uniform(lo, hi, (4,))]
    n = 1 if family == "unary" else 2
    return ([ember.from_numpy(a.copy()) for a in arrays[:n]],
            [torch.from_numpy(a.copy()) for a in arrays[:n]])


@pytest.mark.parametrize("name,family", OPS, ids=[n for n, _ in OPS])
def test_out_matches_torch(name, family):
    if not hasattr(torch, name):
        pytest.skip(f"torch has no torch.{name}")
    es, ts = _inputs(name, family)
    expected = getattr(torch, name)(*ts)
    e_out = ember.empty(4, 3, dtype=getattr(ember, str(expected.dtype).split(".")[1])).t()
    t_out = torch.empty(4, 3, dtype=expected.dtype).t()
    try:
        getattr(torch, name)(*ts, out=t_out)
    except TypeError:
        pytest.skip(f"torch.{name} takes no out=")  # (torch.relu); ember's accepts it
    got = getattr(ember, name)(*es, out=e_out)
    assert got is e_out
    assert_same(e_out, t_out, rtol=1e-5, atol=1e-6)
    assert e_out.stride() == (1, 3)  # written through the non-contiguous view
    empty = ember.empty(0, dtype=e_out.dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an empty out is resized without a warning
        getattr(ember, name)(*es, out=empty)
    assert_same(empty, expected, rtol=1e-5, atol=1e-6)


def test_out_resize_warning_dtype_and_autograd_as_torch():
    for lib in (torch, ember):
        x = lib.tensor([1.0, 4.0, 9.0])
        with pytest.warns(UserWarning, match="resized since it had shape"):
            o = lib.ones(2)
            lib.mul(x, x, out=o)
        assert o.tolist() == [1.0, 16.0, 81.0]
        with pytest.raises(RuntimeError, match="can't be cast to the desired output type"):
            lib.sqrt(x, out=lib.empty(3, dtype=lib.int64))
        with pytest.raises(RuntimeError, match="don't support automatic differentiation"):
            lib.exp(x.clone().requires_grad_(), out=lib.empty(3))
        with pytest.raises(TypeError):
            lib.exp(x, out=3)
        with lib.no_grad():  # no autograd recording: allowed
            lib.exp(x.clone().requires_grad_(), out=lib.empty(3))
        assert lib.lt(x, 2, out=lib.empty(3, dtype=lib.bool)).tolist() == [True, False, False]
        y = x.clone()
        assert lib.add(y, 1, out=y) is y and y.tolist() == [2.0, 5.0, 10.0]  # out aliases input


# out= beyond the elementwise table: the joins, index_select and the scans (PyG's collate and
# loaders pass out=, often out=None).
JOIN_AND_SCAN = [
    ("cat", lambda lib, x, **k: lib.cat([x, x], 1, **k)),
    ("stack", lambda lib, x, **k: lib.stack([x, x], 0, **k)),
    ("index_select", lambda lib, x, **k: lib.index_select(x, 1, lib.tensor([2, 0, 2]), **k)),
    ("cumsum", lambda lib, x, **k: lib.cumsum(x, 1, **k)),
    ("cumprod", lambda lib, x, **k: lib.cumprod(x, dim=0, **k)),
    ("cumsum_dtype", lambda lib, x, **k: lib.cumsum(x, 0, dtype=lib.float64, **k)),
]


@pytest.mark.parametrize("name,call", JOIN_AND_SCAN, ids=[n for n, _ in JOIN_AND_SCAN])
def test_out_on_joins_index_select_and_scans(name, call):
    arr = np.random.default_rng(3).uniform(-2, 2, (4, 3)).astype(np.float32)
    results = {}
    for lib in (torch, ember):
        x = lib.from_numpy(arr.copy())
        want = call(lib, x)
        assert call(lib, x, out=None).tolist() == want.tolist()  # out=None: a new tensor
        out = lib.empty(0, dtype=want.dtype)
        got = call(lib, x, out=out)
        assert got is out
        dims = list(range(want.dim()))[::-1]
        strided = lib.empty(tuple(want.shape)[::-1], dtype=want.dtype).permute(dims)  # strided
        call(lib, x, out=strided)
        with pytest.warns(UserWarning, match="resized since it had shape"):
            call(lib, x, out=lib.ones(1, dtype=want.dtype))
        results[lib] = (out, strided)
    assert_same(results[ember][0], results[torch][0])
    assert_same(results[ember][1], results[torch][1])


def test_out_on_joins_refuses_what_torch_refuses():
    for lib in (torch, ember):
        x = lib.ones(2, 3)
        with pytest.raises(TypeError):
            lib.cat([x, x], out=3)
        with pytest.raises(RuntimeError, match="don't support automatic differentiation"):
            lib.cumsum(x.clone().requires_grad_(), 0, out=lib.empty(0))
