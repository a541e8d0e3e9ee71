"""The SIMD kernels (src/kernels/cpu/elementwise_hwy.cpp: Highway, one copy per instruction
set, picked at run time) against PyTorch. Unary ops: edge values (NaN, ±inf, ±0, denormals,
exp overflow/underflow, log of 0 and negatives, sin/cos of huge |x|, tanh saturation,
sigmoid of large |x|, erf's tails) mixed into vectors at every offset, random data of every length 1..67
(the tails), in-place calls, results that don't depend on the position or the thread split.
add/sub/mul/div: bitwise equal to torch on every pair of special values, with scalars and
broadcasts. Every instruction set (EMBER_SIMD_TARGET) and the scalar loops
(EMBER_DISABLE_SIMD=1) run in a subprocess. Also pow with a constant exponent of 2 or -1,
which the kernel runs as square/reciprocal."""
import math
import os
import subprocess
import sys

import numpy as np
import pytest
import torch

import ember
from helpers import to_numpy

SIMD_OPS = ["exp", "expm1", "log", "log1p", "log2", "sin", "cos", "tanh", "sigmoid",
            "sqrt", "rsqrt", "reciprocal", "erf"]
FLOATS = ["float32", "float64"]
NP = {"float32": np.float32, "float64": np.float64}
# Highway's contrib/math is within 4 ULP, PyTorch's (SLEEF) within 1: a few ULP apart.
RTOL = {"float32": 2e-6, "float64": 1e-13}

nan, inf = float("nan"), float("inf")
BINARY_VALUES = [nan, inf, -inf, 0.0, -0.0, 1.0, -1.0, 3.0, 1e-40, -1e-300, 1e38, -7.5]


def edge_values(dtype):
    f = np.finfo(NP[dtype])
    v = [nan, inf, -inf, 0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, 1024.0, 2.0 ** -30, 3.0,
         float(f.tiny), -float(f.tiny), float(f.smallest_subnormal), -float(f.smallest_subnormal),
         float(f.tiny) / 3, float(f.max), -float(f.max), float(f.eps), 1e-30, -1e-30, 1e30, -1e30,
         # exp / expm1 / sigmoid: float32 overflows above 88.72, is denormal below -87.34 and 0
         # below -103.97; float64 overflows above 709.78, is 0 below -745.13
         88.0, 88.7, 88.72, 88.73, 89.0, 100.0, 104.0, 105.0, -87.3, -87.4, -88.0, -100.0,
         -103.9, -104.0, -105.0, -150.0, 709.7, 709.78, 709.79, 710.0, -708.3, -708.4, -745.0,
         -745.2, -746.0, -1000.0, 1e4, -1e4,
         # log1p: -1 and just above it
         -1.0 + float(f.eps) / 2, -0.999, -1.5,
         # sin / cos: the accurate range ends at |x| = 39000
         38999.9, 39000.0, 39000.5, -39001.0, 1e5, 1e10, -1e10, math.pi, -math.pi, 1e4 * math.pi,
         # tanh saturation
         9.0, -9.0, 10.0, 18.7, -18.7, 18.8, 20.0, -20.0, 50.0]
    with np.errstate(over="ignore"):
        return np.array(v, dtype=NP[dtype])


def domain(name, dtype, n, rng):
    big = 80.0 if dtype == "float32" else 700.0
    if name in ("exp", "expm1", "sigmoid"):
        x = rng.uniform(-big, big, n)
    elif name in ("log", "log2", "sqrt", "rsqrt"):
        x = np.exp(rng.uniform(-big, big, n))
    elif name == "log1p":
        x = rng.uniform(-0.999, 20.0, n)
    elif name in ("sin", "cos"):
        x = rng.uniform(-100.0, 100.0, n)
    elif name == "tanh":
        x = rng.uniform(-12.0, 12.0, n)
    else:
        x = rng.uniform(-10.0, 10.0, n)
    return x.astype(NP[dtype])


def assert_like_torch(got, expected, dtype):
    """NaN where torch has NaN; the same infinities and signed zeros; other values within a
    few ULP (denormal results: within the smallest normal number)."""
    g, t = to_numpy(got), to_numpy(expected)
    assert g.dtype == t.dtype and g.shape == t.shape
    np.testing.assert_array_equal(np.isnan(g), np.isnan(t))
    np.testing.assert_array_equal(g[np.isinf(t)], t[np.isinf(t)])
    zero = (t == 0) & (g == 0)
    np.testing.assert_array_equal(np.signbit(g[zero]), np.signbit(t[zero]))
    tiny = float(np.finfo(NP[dtype]).tiny)
    np.testing.assert_allclose(g, t, rtol=RTOL[dtype], atol=tiny, equal_nan=True)


def assert_bitwise_like_torch(got, expected):
    g, t = to_numpy(got), to_numpy(expected)
    assert g.dtype == t.dtype and g.shape == t.shape
    np.testing.assert_array_equal(np.isnan(g), np.isnan(t))
    ok = ~np.isnan(t)
    np.testing.assert_array_equal(g[ok], t[ok])
    np.testing.assert_array_equal(np.signbit(g[ok]), np.signbit(t[ok]))


def run_both(name, x, inplace=False):
    e, t = ember.from_numpy(x.copy()), torch.from_numpy(x.copy())
    if inplace:
        getattr(e, name + "_")()
        getattr(t, name + "_")()
        return e, t
    return getattr(ember, name)(e), getattr(torch, name)(t)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("name", SIMD_OPS)
def test_edge_values(name, dtype):
    edges = edge_values(dtype)
    rng = np.random.default_rng(0)
    assert_like_torch(*run_both(name, edges), dtype)  # edges side by side
    # Each edge value alone among ordinary values, at every lane position of a vector.
    for offset in range(17):
        x = domain(name, dtype, 3 * len(edges) + 20, rng)
        x[offset::3][: len(edges)] = edges
        assert_like_torch(*run_both(name, x), dtype)
        assert_like_torch(*run_both(name, x, inplace=True), dtype)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("name", SIMD_OPS)
def test_random_every_length(name, dtype):
    rng = np.random.default_rng(1)
    for n in range(1, 68):
        x = domain(name, dtype, n, rng)
        assert_like_torch(*run_both(name, x), dtype)
        assert_like_torch(*run_both(name, x, inplace=True), dtype)
    # unaligned starts: contiguous views at odd offsets
    base = domain(name, dtype, 100, rng)
    for k in range(1, 9):
        assert_like_torch(getattr(ember, name)(ember.from_numpy(base)[k:]),
                          getattr(torch, name)(torch.from_numpy(base)[k:]), dtype)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("name", SIMD_OPS)
def test_result_does_not_depend_on_position_or_threads(name, dtype):
    """Tails go through the same vector code, so an element's result is the same at any
    position and with any thread split (bitwise)."""
    x = domain(name, dtype, 100_003, np.random.default_rng(2))
    e = ember.from_numpy(x)
    full = to_numpy(getattr(ember, name)(e))
    for k in (1, 3, 7, 100_000):
        np.testing.assert_array_equal(to_numpy(getattr(ember, name)(e[k:])), full[k:])
    threads = ember.get_num_threads()
    try:
        ember.set_num_threads(1)
        np.testing.assert_array_equal(to_numpy(getattr(ember, name)(e)), full)
    finally:
        ember.set_num_threads(threads)


def test_large_arrays_against_torch():
    for dtype in FLOATS:
        for name in SIMD_OPS:
            x = domain(name, dtype, 300_001, np.random.default_rng(3))
            x[::1001] = np.resize(edge_values(dtype), x[::1001].shape)
            assert_like_torch(*run_both(name, x), dtype)


def test_strided_input_still_right():
    for name in SIMD_OPS:
        y = domain(name, "float32", (64, 37), np.random.default_rng(5))
        e, t = ember.from_numpy(y).t(), torch.from_numpy(y).t()
        assert_like_torch(getattr(ember, name)(e), getattr(torch, name)(t), "float32")


# ---- every instruction set, and the scalar loop, in a subprocess ---------------------------

CHILD = r"""
import sys, numpy as np, ember
data = dict(np.load(sys.argv[1]))
op = lambda k: getattr(ember, k.split("|")[0])
out = {k: (op(k)(ember.from_numpy(v)) if v.ndim == 1 else  # unary; binary: rows 0 and 1
           op(k)(ember.from_numpy(v[0].copy()), ember.from_numpy(v[1].copy()))).numpy()
       for k, v in data.items()}
np.savez(sys.argv[2], **out)
"""


def cpu_flags():
    try:
        with open("/proc/cpuinfo") as f:
            flags = [line for line in f if line.startswith("flags")]
        return flags[0].split(":", 1)[1].split() if flags else []
    except OSError:
        return []


@pytest.mark.parametrize("env", [{"EMBER_SIMD_TARGET": "avx3"}, {"EMBER_SIMD_TARGET": "avx2"},
                                 {"EMBER_SIMD_TARGET": "sse4"}, {"EMBER_SIMD_TARGET": "scalar"},
                                 {"EMBER_DISABLE_SIMD": "1"}])
def test_every_instruction_set(env, tmp_path):
    rng = np.random.default_rng(6)
    data = {}
    for dtype in FLOATS:
        for name in SIMD_OPS:
            x = np.concatenate([edge_values(dtype), domain(name, dtype, 203, rng)])
            data[f"{name}|{dtype}"] = x
        for name in ["add", "sub", "mul", "div"]:
            with np.errstate(over="ignore", under="ignore"):
                v = np.array(BINARY_VALUES, dtype=NP[dtype])
            data[f"{name}|{dtype}"] = np.stack([np.repeat(v, len(v)), np.tile(v, len(v))])
    np.savez(tmp_path / "in.npz", **data)
    pkg = os.path.dirname(os.path.dirname(os.path.abspath(ember.__file__)))
    path = pkg + os.pathsep + os.environ.get("PYTHONPATH", "")
    child_env = {**os.environ, **env, "PYTHONPATH": path}
    child_env.pop("EMBER_DISABLE_SIMD" if "EMBER_SIMD_TARGET" in env else "EMBER_SIMD_TARGET", None)
    r = subprocess.run([sys.executable, "-c", CHILD, str(tmp_path / "in.npz"),
                        str(tmp_path / "out.npz")],
                       env=child_env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    want = env.get("EMBER_SIMD_TARGET")
    if want:
        assert "EMBER_SIMD_TARGET=" + want in r.stderr, r.stderr
        needs = {"avx3": "avx512bw", "avx2": "avx2", "sse4": "sse4_2", "scalar": None}[want]
        if needs is None or needs in cpu_flags():
            assert r.stderr.strip().endswith("run on " + want.upper()), r.stderr
    out = np.load(tmp_path / "out.npz")
    for key, x in data.items():
        name, dtype = key.split("|")
        if x.ndim == 1:
            assert_like_torch(out[key], getattr(torch, name)(torch.from_numpy(x)), dtype)
        else:
            ta, tb = torch.from_numpy(x[0].copy()), torch.from_numpy(x[1].copy())
            expected = getattr(torch, name)(ta, tb)
            assert_bitwise_like_torch(out[key], expected)


def test_unknown_target_is_reported_and_ignored():
    code = "import ember; print(ember.exp(ember.tensor([0.0])).tolist())"
    pkg = os.path.dirname(os.path.dirname(os.path.abspath(ember.__file__)))
    env = {**os.environ, "EMBER_SIMD_TARGET": "neon9",
           "PYTHONPATH": pkg + os.pathsep + os.environ.get("PYTHONPATH", "")}
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0 and r.stdout.strip() == "[1.0]"
    assert "neon9 is not one of" in r.stderr


# ---- binary arithmetic (add/sub with alpha 1, mul, div): exact IEEE operations ------------

@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("op", ["add", "sub", "mul", "div"])
def test_binary_special_values_exact(op, dtype):
    with np.errstate(over="ignore", under="ignore"):
        v = np.array(BINARY_VALUES, dtype=NP[dtype])
    a, b = np.repeat(v, len(v)), np.tile(v, len(v))  # every pair
    ea, eb, ta, tb = (ember.from_numpy(a), ember.from_numpy(b), torch.from_numpy(a),
                      torch.from_numpy(b))
    f = lambda m, x, y: getattr(m, op)(x, y)  # noqa: E731
    assert_bitwise_like_torch(f(ember, ea, eb), f(torch, ta, tb))
    for s in v.tolist():  # a Python scalar on either side: a stride-0 operand
        assert_bitwise_like_torch(f(ember, ea, s), f(torch, ta, s))
        assert_bitwise_like_torch(f(ember, ember.tensor(s, dtype=ea.dtype), eb),
                                  f(torch, torch.tensor(s, dtype=ta.dtype), tb))
    e2, t2 = ea.clone(), ta.clone()
    getattr(e2, op + "_")(eb)
    getattr(t2, op + "_")(tb)
    assert_bitwise_like_torch(e2, t2)
    e3, t3 = eb.clone(), tb.clone()
    getattr(e3, op + "_")(2.5)
    getattr(t3, op + "_")(2.5)
    assert_bitwise_like_torch(e3, t3)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("op", ["add", "sub", "mul", "div"])
def test_binary_every_length_and_broadcast(op, dtype):
    rng = np.random.default_rng(7)
    for n in list(range(1, 68)) + [100_003]:
        a, b = rng.uniform(-5, 5, n).astype(NP[dtype]), rng.uniform(0.5, 5, n).astype(NP[dtype])
        got = getattr(ember, op)(ember.from_numpy(a), ember.from_numpy(b))
        assert_bitwise_like_torch(got, getattr(torch, op)(torch.from_numpy(a), torch.from_numpy(b)))
    # a row (contiguous runs), a column (a stride-0 run per row) and a transposed input
    x = rng.uniform(-5, 5, (37, 29)).astype(NP[dtype])
    for other in [rng.uniform(1, 5, (29,)), rng.uniform(1, 5, (37, 1))]:
        o = other.astype(NP[dtype])
        for ex, tx in [(ember.from_numpy(x), torch.from_numpy(x)),
                       (ember.from_numpy(x.T.copy()).t(), torch.from_numpy(x.T.copy()).t())]:
            eo, to = ember.from_numpy(o), torch.from_numpy(o)
            assert_bitwise_like_torch(getattr(ember, op)(ex, eo), getattr(torch, op)(tx, to))
            assert_bitwise_like_torch(getattr(ember, op)(eo, ex), getattr(torch, op)(to, tx))


def test_add_with_alpha_takes_the_scalar_loop():
    a = np.linspace(-3, 3, 101, dtype=np.float32)
    for alpha in (2, -0.5):
        b = a[::-1].copy()
        assert_like_torch(ember.add(ember.from_numpy(a), ember.from_numpy(b), alpha=alpha),
                          torch.add(torch.from_numpy(a), torch.from_numpy(b), alpha=alpha),
                          "float32")


# ---- pow with a constant exponent --------------------------------------------------------

POW_VALUES = [nan, inf, -inf, 0.0, -0.0, 4.0, -4.0, 1e-30, 3e38, -2.5, 0.1]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("p", [2, 2.0, -1, -1.0, 0.5, 3, 1.5])
def test_pow_constant_exponent(p, dtype):
    with np.errstate(over="ignore"):
        x = np.array(POW_VALUES * 7, dtype=NP[dtype])
    e, t = ember.from_numpy(x.copy()), torch.from_numpy(x.copy())
    assert_like_torch(e ** p, t ** p, dtype)
    assert_like_torch(ember.pow(e, p), torch.pow(t, p), dtype)
    e2, t2 = e.clone(), t.clone()
    e2.pow_(p)
    t2.pow_(p)
    assert_like_torch(e2, t2, dtype)  # pow_(0.5) is sqrt in both (sqrt(-0) = -0)
    pt = torch.tensor(p, dtype=t.dtype)  # a 0-d exponent tensor: pow semantics in torch
    assert_like_torch(ember.pow(e, ember.tensor(p, dtype=e.dtype)), torch.pow(t, pt), dtype)
    assert_like_torch(e[::2] ** p, t[::2] ** p, dtype)  # strided


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("p", [3, 3.0, -2, -2.0, -0.5, 2, -1])
def test_pow_by_products_is_torchs_bits(p, dtype):
    """x ** 3 = (x * x) * x, x ** -2 = 1 / (x * x), x ** -0.5 = rsqrt: torch's bits exactly,
    out of place, in place (pow_ reads x twice: through a buffer) and strided."""
    rng = np.random.default_rng(5)
    with np.errstate(over="ignore"):
        x = np.concatenate([np.array(POW_VALUES, dtype=NP[dtype]),
                            (rng.standard_normal(4099) * 3).astype(NP[dtype]),
                            np.array([2e12, -3e-13, 1e-20], dtype=NP[dtype])])
    e, t = ember.from_numpy(x.copy()), torch.from_numpy(x.copy())
    assert_bitwise_like_torch(e ** p, t ** p)
    e2, t2 = e.clone(), t.clone()
    e2.pow_(p)
    t2.pow_(p)
    assert_bitwise_like_torch(e2, t2)
    assert_bitwise_like_torch(e[1::3] ** p, t[1::3] ** p)
    ex = ember.from_numpy(x.copy()).requires_grad_()
    tx = torch.from_numpy(x.copy()).requires_grad_()
    (ex ** p).sum().backward()
    (tx ** p).sum().backward()
    assert_like_torch(ex.grad, tx.grad, dtype)
