"""Elementwise ops whose results (or operands) are float32 denormals keep the SIMD speed without
changing a bit (issue 17 item 1): exp's denormal band in float32 lanes with an exact-rounding
check that hands hard lanes to the float64 lanes (Note [Denormal exp in float32 lanes]), the
product g * exp(x) of softplus' backward in exact float32 or float64 lanes, tanh/expm1/sin/log1p returning
tiny x as they already did, expm1 below -87.3 as -1 without float64 lanes. Each test compares
with a reference the old paths computed: the float64-lane exp of the same element, IEEE
float32 products, torch."""
import numpy as np
import pytest
import torch

import ember

F = ember.nn.functional


def f32range(lo, hi):
    """Every float32 between lo and hi (same sign), in order."""
    a, b = np.array([lo, hi], np.float32).view(np.int32)
    return np.arange(min(a, b), max(a, b) + 1, dtype=np.int32).view(np.float32)


def bits(a):
    return np.ascontiguousarray(a, dtype=np.float32).view(np.uint32)


BAND = f32range(-87.2, -104.5)  # exp's denormal band and a little around it (2.27M values)


def test_exp_denormal_band_float32_lanes_equal_float64_lanes():
    """Every float32 of the band: exp of a whole vector of band values (float32 lanes) has the
    bits of exp of the same value in a vector that also holds a value near overflow (which
    sends the vector to the float64 lanes, the old path)."""
    fast = ember.exp(ember.tensor(BAND)).numpy()
    wide = np.full((BAND.size, 8), 88.71, np.float32)
    wide[:, 0] = BAND
    slow = ember.exp(ember.tensor(wide)).numpy()[:, 0]
    np.testing.assert_array_equal(bits(fast), bits(slow))
    # and the float64 exp rounded once: equal but for a few hundred near-ties (1 ulp)
    want = np.exp(BAND.astype(np.float64)).astype(np.float32)
    off = bits(fast).astype(np.int64) - bits(want).astype(np.int64)
    assert np.abs(off).max() <= 1 and (off != 0).sum() < 1000


def test_exp_band_mixed_vectors_do_not_depend_on_neighbours():
    """Band values next to NaN, ±inf, in-range and overflowing lanes give the same bits as in a
    vector of their own, in every position."""
    rng = np.random.default_rng(0)
    band = rng.uniform(-104.2, -87.0, 4000).astype(np.float32)
    others = np.array([np.nan, np.inf, -np.inf, 0.5, -3.0, 88.72, 89.0, -200.0, -87.3], np.float32)
    mixed = band.copy()
    pos = rng.choice(band.size, 1500, replace=False)
    mixed[pos] = rng.choice(others, pos.size)
    got = ember.exp(ember.tensor(mixed)).numpy()
    alone = ember.exp(ember.tensor(band)).numpy()
    keep = np.ones(band.size, bool)
    keep[pos] = False
    np.testing.assert_array_equal(bits(got[keep]), bits(alone[keep]))
    want = torch.exp(torch.tensor(mixed[pos])).numpy()
    np.testing.assert_array_equal(np.isnan(got[pos]), np.isnan(want))
    ok = ~np.isnan(want)
    assert (np.abs(bits(got[pos][ok]).astype(np.int64) - bits(want[ok])) <= 1).all()


def test_softplus_and_mish_of_the_band_are_exp_and_its_product():
    """softplus(x) = log1p(e) = e for e = exp(x) < 2^-25, and mish = x * tanh(e) = x * e: the
    float32 IEEE product of x and ember's exp, bit for bit."""
    x = BAND[BAND < -88]
    e = ember.exp(ember.tensor(x)).numpy()
    np.testing.assert_array_equal(bits(F.softplus(ember.tensor(x)).numpy()), bits(e))
    np.testing.assert_array_equal(bits(F.mish(ember.tensor(x)).numpy()), bits(x * e))
    np.testing.assert_array_equal(bits(F.logsigmoid(ember.tensor(-x)).numpy()), bits(-e))
    # and within the old tolerance of torch (which is itself 1 ulp off on ~180 of them)
    np.testing.assert_allclose(F.softplus(ember.tensor(x[::97])).numpy(),
                               torch.exp(torch.tensor(x[::97])).numpy(), rtol=0, atol=2e-45)


@pytest.mark.parametrize("beta", [1.0, 2.0])
def test_softplus_backward_product_with_a_denormal_is_ieee(beta):
    """softplus' gradient g e / (e + 1) with e = exp(beta x) < 2^-24 is the IEEE float32 product
    g e: random g over every exponent and sign, zeros, infinities and NaN."""
    rng = np.random.default_rng(1)
    n = 400_000
    x = (rng.uniform(-104.5, -87.0, n) / beta).astype(np.float32)
    g = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32).view(np.float32).copy()
    g[:12] = [0.0, -0.0, np.inf, -np.inf, np.nan, 1, -1, 1e-45, 3e38, -3e38, 2**23, 0.5]
    leaf = ember.tensor(x).requires_grad_(True)
    F.softplus(leaf, beta=beta).backward(ember.tensor(g))
    e = ember.exp(ember.tensor(x) * beta).numpy()
    with np.errstate(invalid="ignore", over="ignore", under="ignore"):
        want = g * e
    got = leaf.grad.numpy()
    nan = np.isnan(want)
    np.testing.assert_array_equal(np.isnan(got), nan)
    np.testing.assert_array_equal(bits(got[~nan]), bits(want[~nan]))


def test_softplus_backward_float32_product_rounds_ties_as_ieee():
    """Vectors whose every e is a denormal and g e < 2^-126 take the float32-lane product
    (MulByDenormalSmallF32): g chosen so that |g| m (m = e's bits) is a half-integer (ties, to
    even) or within a rounding of one (the float32 product lands on the half-integer and its
    FMA error decides), and in the last quarter products near 2^-126 (some vectors then take
    the float64 lanes): the IEEE product g e, bit for bit, either sign."""
    rng = np.random.default_rng(4)
    n = 200_000
    x = rng.uniform(-103.0, -88.0, n).astype(np.float32)
    e = ember.exp(ember.tensor(x)).numpy()
    m = bits(e).astype(np.float64)
    k = np.floor(m * rng.uniform(0.3, 3.0, n)).clip(0, 2**23 - 2)
    g = ((k + 0.5) / m).astype(np.float32)  # |g| m a rounding away from k + 1/2
    g[::3] *= np.float32(1 + 2**-23)
    g[1::5] = rng.choice(np.array([0.5, 1.5, 0.25, 2.5, 0.125], np.float32), g[1::5].size)
    q = slice(3 * n // 4, n, 3)
    g[q] = (np.float32(2**23) / m[q].astype(np.float32)) * rng.uniform(0.999, 1.001, g[q].size)
    g *= np.where(rng.random(n) < 0.5, -1, 1).astype(np.float32)
    leaf = ember.tensor(x).requires_grad_(True)
    F.softplus(leaf).backward(ember.tensor(g))
    with np.errstate(under="ignore"):
        want = g * e
    np.testing.assert_array_equal(bits(leaf.grad.numpy()), bits(want))
    near = np.abs(np.abs(g.astype(np.float64)) * m % 1 - 0.5) < 2**-20
    assert near.sum() > n // 10  # the cases of interest are there


def test_backwards_of_denormal_results_against_torch():
    """exp, softplus, silu, sigmoid gradients of -100 inputs: torch's values (denormals
    included, within a denormal ulp where torch rounds its own exp differently). mish's is
    e (1 + x) there, as x * tanh(softplus(x))'s chain rule gives (torch's fused kernel gives e
    instead): checked against float64."""
    x = (np.random.default_rng(2).standard_normal(5000) * 0.1 - 100).astype(np.float32)
    pairs = [(ember.exp, torch.exp), (F.softplus, torch.nn.functional.softplus),
             (F.silu, torch.nn.functional.silu), (ember.sigmoid, torch.sigmoid)]
    for fn, tfn in pairs:
        leaf = ember.tensor(x).requires_grad_(True)
        fn(leaf).sum().backward()
        t = torch.tensor(x, requires_grad=True)
        tfn(t).sum().backward()
        np.testing.assert_allclose(leaf.grad.numpy(), t.grad.numpy(), rtol=1e-6, atol=3e-45)
    leaf = ember.tensor(x).requires_grad_(True)
    F.mish(leaf).sum().backward()
    x64 = x.astype(np.float64)
    # e carries ~5 bits here: its half-ulp (7e-46) times |1 + x| (~100) is the tolerance
    np.testing.assert_allclose(leaf.grad.numpy(), np.exp(x64) * (1 + x64), rtol=1e-3, atol=1.5e-43)


LIMITS = {"tanh": 2**-25, "expm1": 2**-24, "sin": 2**-12, "log1p": 2**-24}


@pytest.mark.parametrize("name", sorted(LIMITS))
def test_tiny_arguments_are_returned_bitwise(name):
    """tanh, expm1, sin and log1p of |x| below 2^-25..2^-12 (denormals included): x itself, as
    Highway's formulas gave, ±0 kept; torch's tanh and sin agree bit for bit."""
    lim = np.float32(LIMITS[name])
    tiny = np.concatenate([f32range(0, 1e-38)[::997], f32range(1e-38, lim)[::9973],
                           [0.0, 1e-45, np.nextafter(lim, np.float32(0))]]).astype(np.float32)
    tiny = np.concatenate([tiny, -tiny])
    got = getattr(ember, name)(ember.tensor(tiny)).numpy()
    np.testing.assert_array_equal(bits(got), bits(tiny))
    some = np.concatenate([tiny[::41], tiny[-60:]])  # torch's expm1 of denormals is slow
    got = bits(getattr(ember, name)(ember.tensor(some)).numpy())
    want = bits(getattr(torch, name)(torch.tensor(some)))
    if name in ("tanh", "sin"):
        np.testing.assert_array_equal(got, want)
    else:  # torch rounds expm1(-x) near 2^-24 differently (1 ulp); its log1p flushes the
        nz = np.abs(some) >= 1e-38 if name == "log1p" else some != 0  # smallest denormals
        assert (np.abs(got[nz].astype(np.int64) - want[nz]) <= 1).all()
    # one tiny lane in a vector of ordinary values changes nothing around it
    y = np.random.default_rng(3).standard_normal(64).astype(np.float32)
    z = y.copy()
    z[::7] = 1e-40
    a = getattr(ember, name)(ember.tensor(y)).numpy()
    b = getattr(ember, name)(ember.tensor(z)).numpy()
    keep = np.arange(64) % 7 != 0
    np.testing.assert_array_equal(bits(a[keep]), bits(b[keep]))


@pytest.mark.parametrize("name", ["elu", "selu", "celu"])
def test_exponential_units_below_expm1_range(name):
    """elu/selu/celu where expm1 saturates (x < -87.3, -inf): torch's values, bit for bit,
    and NaN stays NaN; values above 88.7 in the same vector still overflow as before."""
    x = np.concatenate([f32range(-87.31, -300.0)[::211], [-np.inf, np.nan, -87.3, 89.0, 100.0]])
    x = x.astype(np.float32)
    got = getattr(F, name)(ember.tensor(x)).numpy()
    want = getattr(torch.nn.functional, name)(torch.tensor(x)).numpy()
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    ok = ~np.isnan(want)
    np.testing.assert_array_equal(bits(got[ok]), bits(want[ok]))
    e = ember.expm1(ember.tensor(x)).numpy()
    assert (e[x < -87.3] == -1).all() and np.isinf(e[x > 89]).all() and np.isnan(e[np.isnan(x)]).all()
