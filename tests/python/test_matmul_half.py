"""bfloat16 matrix products against torch 2.13 and a float64 reference: mm, bmm, matmul, addmm,
linear and their gradients, on odd sizes (partial AMX tiles in every direction), transposed and
non-contiguous operands, batches, empty products and k == 0. On a CPU with AMX they run ember's
tile kernel (Note [AMX bfloat16 gemm]); with EMBER_DISABLE_AMX=1, or elsewhere, oneDNN or
float32 sgemm: both must agree with torch within bfloat16 rounding. float16 products run on the
same tiles as two bfloat16 planes (Note [AMX float16 gemm]) or, without AMX, widen to float32
and run ember's float32 gemm (Note [Half matmul]): the same checks in float16, plus values at
the edges of float16 (denormals, overflow, inf and NaN)."""
import io
import os
import subprocess
import sys

import numpy as np
import pytest
import torch

import ember
from test_half_ops import pair as half_pair

AMX = ember._C.build_info()["amx_bf16_kernels"] == "on"
# Odd sizes, one row / column, k beyond one 2048 block, n beyond one 256-column panel.
SHAPES = [(1, 7, 33), (7, 33, 1), (33, 33, 33), (1, 33, 2049), (2049, 33, 7), (37, 2100, 45),
          (40, 96, 600), (64, 64, 64), (3, 5, 4)]


def pair(shape, seed, requires_grad=False, dtype="bfloat16"):
    """The same values (uniform in [-3, 3]) as an ember and a torch tensor."""
    return half_pair(shape, dtype, seed, requires_grad=requires_grad)


def f64(x):
    """An ember or torch tensor's values as a float64 NumPy array."""
    return x.detach().double().numpy()


def check(e, t, ref=None, k=None, dtype="bfloat16"):
    """e (ember) has t's (torch) dtype and shape and lies within bfloat16 rounding of t and of
    the float64 reference: one bf16 rounding of the result (2^-8 relative) plus float32
    accumulation over k terms at the scale of the terms."""
    assert str(e.dtype) == "ember." + dtype and t.dtype == getattr(torch, dtype)
    assert tuple(e.shape) == tuple(t.shape)
    got, want = f64(e), f64(t)
    if got.size == 0:
        return
    k = k or 1
    ulp = 2.0 ** -7 if dtype == "bfloat16" else 2.0 ** -10  # at 1.0: twice the rounding error
    scale = np.abs(want).max() + 1.0
    tol = ulp * np.abs(want) + k * 2.0 ** -22 * scale
    assert np.all(np.abs(got - want) <= tol), np.abs(got - want).max()
    if ref is not None:
        tol = ulp / 2 * np.abs(ref) + k * 2.0 ** -22 * scale
        assert np.all(np.abs(got - ref) <= tol), np.abs(got - ref).max()


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("m,k,n", SHAPES)
@pytest.mark.parametrize("layout", ["nn", "tn", "nt", "tt"])
def test_mm_layouts(m, k, n, layout, dtype):
    a, ta = pair((m, k) if layout[0] == "n" else (k, m), 1, dtype=dtype)
    b, tb = pair((k, n) if layout[1] == "n" else (n, k), 2, dtype=dtype)
    if layout[0] == "t":
        a, ta = a.t(), ta.t()
    if layout[1] == "t":
        b, tb = b.t(), tb.t()
    check(ember.mm(a, b), torch.mm(ta, tb), f64(ta) @ f64(tb), k, dtype=dtype)


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("m,k,n", [(33, 70, 45), (1, 2049, 7), (130, 40, 300)])
def test_non_contiguous_and_offset_operands(m, k, n, dtype):
    # Rows longer than the matrix (narrowed), a step in the inner dimension, and an offset.
    wa, twa = pair((m + 3, 2 * k + 5), 3, dtype=dtype)
    wb, twb = pair((k + 2, n + 9), 4, dtype=dtype)
    a, ta = wa[2:, 1:2 * k + 1:2], twa[2:, 1:2 * k + 1:2]
    b, tb = wb[1:k + 1, 4:n + 4], twb[1:k + 1, 4:n + 4]
    a, ta = a[:m], ta[:m]
    check(a @ b, ta @ tb, f64(ta) @ f64(tb), k, dtype=dtype)


def test_bmm_matmul_batched_and_broadcast():
    x, tx = pair((4, 33, 70), 5)
    y, ty = pair((4, 70, 41), 6)
    check(ember.bmm(x, y), torch.bmm(tx, ty), f64(tx) @ f64(ty), 70)
    check(ember.bmm(x, y.transpose(1, 2).contiguous().transpose(1, 2)), torch.bmm(tx, ty),
          f64(tx) @ f64(ty), 70)
    w, tw = pair((70, 41), 7)
    check(ember.matmul(x, w), torch.matmul(tx, tw), f64(tx) @ f64(tw), 70)
    z, tz = pair((2, 1, 33, 70), 8)
    check(ember.matmul(z, y), torch.matmul(tz, ty), f64(tz) @ f64(ty), 70)


@pytest.mark.parametrize("beta,alpha", [(1.0, 1.0), (0.5, 2.0), (0.0, 1.0), (0.0, -0.75)])
def test_addmm_and_linear(beta, alpha):
    a, ta = pair((45, 130), 9)
    b, tb = pair((130, 300), 10)
    c, tc = pair((45, 300), 11)
    ref = beta * f64(tc) + alpha * (f64(ta) @ f64(tb))
    check(ember.addmm(c, a, b, beta=beta, alpha=alpha), torch.addmm(tc, ta, tb, beta=beta, alpha=alpha),
          ref, 130)
    bias, tbias = pair((300,), 12)
    w, tw = pair((300, 130), 13)
    check(ember.nn.functional.linear(a, w, bias), torch.nn.functional.linear(ta, tw, tbias),
          f64(ta) @ f64(tw).T + f64(tbias), 130)
    check(ember.nn.functional.linear(a, w), torch.nn.functional.linear(ta, tw), f64(ta) @ f64(tw).T, 130)
    # beta == 0 ignores NaN in c, as torch.
    cn, tcn = c.clone(), tc.clone()
    cn[0, 0] = float("nan")
    tcn[0, 0] = float("nan")
    check(ember.addmm(cn, a, b, beta=0.0), torch.addmm(tcn, ta, tb, beta=0.0), f64(ta) @ f64(tb), 130)


def test_empty_and_zero_k():
    a, ta = pair((0, 40), 14)
    b, tb = pair((40, 70), 15)
    check(ember.mm(a, b), torch.mm(ta, tb))
    a, ta = pair((40, 0), 16)
    b, tb = pair((0, 70), 17)
    check(ember.mm(a, b), torch.mm(ta, tb), np.zeros((40, 70)))
    c, tc = pair((40, 70), 18)
    check(ember.addmm(c, a, b, beta=0.5), torch.addmm(tc, ta, tb, beta=0.5), 0.5 * f64(tc))
    x, tx = pair((3, 40, 0), 19)
    y, ty = pair((3, 0, 70), 20)
    check(ember.bmm(x, y), torch.bmm(tx, ty), np.zeros((3, 40, 70)))


def test_inf_and_nan_propagate_as_torch():
    a, ta = pair((40, 64), 21)
    b, tb = pair((64, 50), 22)
    for e, t, v in ((a, ta, float("inf")), (b, tb, float("nan"))):
        e[3, 5] = v
        t[3, 5] = v
    e, t = ember.mm(a, b).float().numpy(), torch.mm(ta, tb).float().numpy()
    assert np.array_equal(np.isnan(e), np.isnan(t))
    assert np.array_equal(np.isinf(e), np.isinf(t))
    fin = np.isfinite(t)
    assert np.allclose(e[fin], t[fin], rtol=2.0 ** -7, atol=1e-2)


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("m,k,n", [(33, 70, 45), (1, 130, 300), (70, 2100, 9)])
def test_gradients(m, k, n, dtype):
    a, ta = pair((m, k), 23, requires_grad=True, dtype=dtype)
    b, tb = pair((k, n), 24, requires_grad=True, dtype=dtype)
    g, tg = pair((m, n), 25, dtype=dtype)
    ember.mm(a, b).backward(g)
    torch.mm(ta, tb).backward(tg)
    check(a.grad, ta.grad, f64(tg) @ f64(tb).T, n, dtype=dtype)
    check(b.grad, tb.grad, f64(ta).T @ f64(tg), m, dtype=dtype)
    # linear with bias: the weight's gradient is a transposed product, the bias's a sum.
    x, tx = pair((m, k), 26, requires_grad=True, dtype=dtype)
    w, tw = pair((n, k), 27, requires_grad=True, dtype=dtype)
    bias, tbias = pair((n,), 28, requires_grad=True, dtype=dtype)
    ember.nn.functional.linear(x, w, bias).backward(g)
    torch.nn.functional.linear(tx, tw, tbias).backward(tg)
    check(x.grad, tx.grad, f64(tg) @ f64(tw), n, dtype=dtype)
    check(w.grad, tw.grad, f64(tg).T @ f64(tx), m, dtype=dtype)
    check(bias.grad, tbias.grad, f64(tg).sum(0), m, dtype=dtype)


@pytest.mark.parametrize("layout", ["nn", "tn", "nt"])
def test_float16_products_and_addmm(layout):
    """Large enough (>= 2^21 multiply-adds) for oneDNN's sgemm inside ember's float32 gemm
    where there is no AMX."""
    m, k, n = 130, 300, 260
    a, ta = pair((m, k) if layout[0] == "n" else (k, m), 34, dtype="float16")
    b, tb = pair((k, n) if layout[1] == "n" else (n, k), 35, dtype="float16")
    if layout[0] == "t":
        a, ta = a.t(), ta.t()
    if layout[1] == "t":
        b, tb = b.t(), tb.t()
    check(a @ b, ta @ tb, f64(ta) @ f64(tb), k, dtype="float16")
    c, tc = pair((m, n), 36, dtype="float16")
    check(ember.addmm(c, a, b, beta=0.5, alpha=2.0), torch.addmm(tc, ta, tb, beta=0.5, alpha=2.0),
          0.5 * f64(tc) + 2.0 * (f64(ta) @ f64(tb)), k, dtype="float16")


def f16(x):
    """A float16 ember and torch tensor from NumPy values (exactly representable)."""
    x = np.asarray(x, dtype=np.float16)
    return ember.from_numpy(x.copy()), torch.from_numpy(x.copy())


def same_specials(e, t):
    """e and t (ember, torch results) have NaN at the same places, infinities of the same sign
    at the same places, and equal finite values to within float16 rounding."""
    e, t = e.float().numpy(), t.float().numpy()
    assert np.array_equal(np.isnan(e), np.isnan(t))
    assert np.array_equal(np.where(np.isinf(e), np.sign(e), 0), np.where(np.isinf(t), np.sign(t), 0))
    fin = np.isfinite(t)
    tol = 2.0 ** -10 * np.abs(t[fin]) + 1e-7 * np.abs(t[fin]).max() + 2.0 ** -24  # denormal ulp
    assert np.all(np.abs(e[fin] - t[fin]) <= tol)


@pytest.mark.parametrize("scale", [2.0 ** -24, 1e-3, 1.0, 30.0, 2000.0])
def test_float16_magnitudes_and_denormals(scale):
    """Denormal operands (2^-24 units: exact in the bfloat16 planes, not flushed, as torch),
    products below float16's range, and results beyond it (inf on rounding, as torch): within
    float16 rounding of the float64 product rounded once, infinities where torch has them."""
    rng = np.random.default_rng(40)
    m, k, n = 64, 300, 80
    if scale == 2.0 ** -24:
        av = rng.integers(-1023, 1024, (m, k)) * scale  # every float16 denormal pattern's range
        bv = rng.standard_normal((k, n))
    else:
        av, bv = rng.standard_normal((m, k)) * scale, rng.standard_normal((k, n)) * scale
    (a, ta), (b, tb) = f16(av), f16(bv)
    e, t = ember.mm(a, b), torch.mm(ta, tb)
    same_specials(e, t)
    ref = f64(ta) @ f64(tb)
    with np.errstate(over="ignore"):
        r16 = ref.astype(np.float16).astype(np.float64)
    got = f64(e)
    fin = np.isfinite(r16)
    assert np.array_equal(np.isinf(got), ~fin)
    assert np.all(np.abs(got[fin] - r16[fin]) <= 2.0 ** -10 * np.abs(r16[fin]) + 2.0 ** -24)
    assert np.count_nonzero(got) == np.count_nonzero(r16)


def test_float16_inf_and_nan_propagate_as_torch():
    """inf * x stays inf (the planes alone would add inf * 0 = NaN from a zero low plane: those
    sums are redone, Note [AMX float16 gemm]); inf * 0, inf - inf and NaN give NaN, as torch."""
    rng = np.random.default_rng(41)
    av = rng.integers(-4, 5, (40, 300)).astype(np.float64)  # exact in bfloat16: low planes 0
    bv = rng.integers(-4, 5, (300, 70)).astype(np.float64)
    av[3, 5], av[7, 9], av[10, 11] = np.inf, -np.inf, np.nan
    bv[9, :] = 0  # row 7's -inf meets zeros: NaN only where the sum also has inf - inf
    av[12, 20], av[12, 21] = np.inf, -np.inf  # inf - inf in one row
    bv[40, 4], bv[41, 5] = np.inf, -np.inf
    bv[:, 60] = 1.0 / 3.0  # a column with non-zero low planes
    (a, ta), (b, tb) = f16(av), f16(bv)
    same_specials(ember.mm(a, b), torch.mm(ta, tb))
    same_specials(ember.mm(b.t(), a.t()), torch.mm(tb.t(), ta.t()))
    c, tc = f16(rng.standard_normal((40, 70)))
    same_specials(ember.addmm(c, a, b, beta=0.5, alpha=2.0), torch.addmm(tc, ta, tb, beta=0.5, alpha=2.0))


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("m,k,n", [(300, 700, 520), (300, 700, 200), (70, 4100, 90)])
def test_one_and_two_threads_agree_bit_for_bit(m, k, n, dtype):
    """Several 256-column panels, one panel (its rows split between the threads), k > 2048."""
    a, _ = pair((m, k), 29, dtype=dtype)
    b, _ = pair((k, n), 30, dtype=dtype)
    before = ember.get_num_threads()
    try:
        ember.set_num_threads(1)
        one = ember.mm(a, b).float().numpy()
        ember.set_num_threads(2)
        two = ember.mm(a, b).float().numpy()
    finally:
        ember.set_num_threads(before)
    assert np.array_equal(one, two)


def test_bad_inputs_raise_as_torch():
    a, ta = pair((3, 4), 31)
    b, tb = pair((5, 6), 32)
    with pytest.raises(RuntimeError):
        torch.mm(ta, tb)
    # ember raises ValueError / TypeError here for every dtype (torch: RuntimeError).
    with pytest.raises(ValueError, match=r"mm: shapes \(3, 4\) and \(5, 6\)"):
        ember.mm(a, b)
    with pytest.raises(RuntimeError):
        torch.mm(ta, torch.ones(4, 2))
    with pytest.raises(TypeError, match="mm: expected both operands to have the same dtype"):
        ember.mm(a, ember.ones(4, 2))


@pytest.mark.skipif(not AMX, reason="torch's AMX path flushes denormals; other paths keep them")
def test_denormal_inputs_count_as_zero_as_torch():
    a, ta = ember.full((40, 64), 1e-39).bfloat16(), torch.full((40, 64), 1e-39).bfloat16()
    b, tb = ember.ones(64, 40).bfloat16(), torch.ones(64, 40).bfloat16()
    assert np.array_equal((a @ b).float().numpy(), (ta @ tb).float().numpy())
    assert (a @ b).float().abs().max().item() == 0.0


@pytest.mark.skipif(not AMX, reason="the CPU (or the OS) has no AMX: only one path to compare")
@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_amx_and_fallback_paths_agree(dtype):
    """The same products in a process with EMBER_DISABLE_AMX=1 (oneDNN or sgemm): within one
    rounding of the AMX results, and the fallback process reports the AMX kernels off."""
    code = (
        "import sys, numpy as np, ember\n"
        "print(ember._C.build_info()['amx_bf16_kernels'])\n"
        "rng = np.random.default_rng(33)\n"
        "for m, k, n in [(33, 70, 45), (2049, 33, 7), (64, 2100, 300)]:\n"
        f"    a = ember.from_numpy(rng.standard_normal((m, k)).astype(np.float32)).to(ember.{dtype})\n"
        f"    b = ember.from_numpy(rng.standard_normal((k, n)).astype(np.float32)).to(ember.{dtype})\n"
        "    np.save(sys.stdout.buffer, (a @ b).float().numpy())\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    outs = []
    for disable in ("0", "1"):
        env_run = dict(env)
        if disable == "1":
            env_run["EMBER_DISABLE_AMX"] = "1"
        else:
            env_run.pop("EMBER_DISABLE_AMX", None)
        p = subprocess.run([sys.executable, "-c", code], env=env_run, capture_output=True, check=True)
        buf = io.BytesIO(p.stdout)
        flag = buf.readline().strip().decode()
        assert flag == ("off" if disable == "1" else "on")
        outs.append([np.load(buf) for _ in range(3)])
    ulp = 2.0 ** -7 if dtype == "bfloat16" else 2.0 ** -10
    for x, y in zip(*outs):
        assert np.all(np.abs(x - y) <= ulp * np.abs(y) + 1e-3 * (np.abs(y).max() + 1))
