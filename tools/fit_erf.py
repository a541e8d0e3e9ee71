"""Fits the polynomial coefficients of the SIMD erf, erfc and erfinv
(src/kernels/cpu/erf_hwy-inl.h).

float32 erf runs in float32 lanes (float32 coefficients, printed with the ulp errors of a
float32 evaluation that mimics the kernel's, FMA included):

    |x| < 1:      erf(x) = x + x Q(x^2)                    Q of degree 8
    1 <= |x| < 4: erf(|x|) = 1 - E(|x| - 2.5)              E of degree 15
    (ErfCoefs; gelu's ErfCoarseCoefs: degrees 6 and 12, absolute error 8e-8)
    |x| >= 3.919206: erf(x) = sign(x)                      (where erf rounds to 1)

erfc runs in float64 lanes and rounds once (its result must stay relatively accurate where it
is tiny), as does erfinv's Newton step, which uses both:

    |x| < 1:      erfc(x) = 1 - x P(x^2)                   P of degree 7
    x >= 1:       erfc(x) = exp(-x^2) / x * R((1/x - c) / h), R of degree 16, u = 1/x in
                  [1/10.5, 1] (erfc(10.5) = 7e-50: 0 in float32); x <= -1: 2 - erfc(-x)

erfinv's Newton residual for 1/2 < |y| <= 0.9998 (0.47 < x < 2.63) is erf(x) - |y| in
float64 (no cancellation error beyond erf's absolute error, 2e-14, over a slope >= 1.1e-3):

    0.45 <= x <= 2.65: erf(x) = M(x - 1.55)               M of degree 20

Least squares on Chebyshev nodes against mpmath's erf at 40 digits; prints the C++ arrays
(highest degree first, for Horner) and the worst errors seen on a fine grid.
Run: python tools/fit_erf.py (needs numpy and mpmath, both in the dev venv)."""
import mpmath as mp
import numpy as np

mp.mp.dps = 40
DEG_SMALL = 7  # the lowest degree whose error stays near 1e-11
DEGREES = {"ErfCoefs": (8, 15), "ErfCoarseCoefs": (6, 12)}  # (Q, E)
DEG_TAIL = 16


def nodes(lo, hi, n=800):
    return (np.cos(np.linspace(0, np.pi, n)) * 0.5 + 0.5) * (hi - lo) + lo


def small():
    x = np.sqrt(nodes(0.0, 1.0))
    y = np.array([float(mp.erf(mp.mpf(v)) / v) if v else float(2 / mp.sqrt(mp.pi)) for v in x])
    c = np.polynomial.chebyshev.Chebyshev.fit(x * x, y, DEG_SMALL).convert(
        kind=np.polynomial.Polynomial).coef
    xt = np.linspace(1e-4, 1.0, 4000)
    ref = np.array([float(mp.erf(mp.mpf(v))) for v in xt])
    return c, np.max(np.abs(xt * np.polynomial.polynomial.polyval(xt * xt, c) / ref - 1))


def lstsq32(t, y, deg):
    """Least-squares coefficients, highest degree first, rounded to float32."""
    c, *_ = np.linalg.lstsq(np.vander(t, deg + 1), y, rcond=None)
    return c.astype(np.float32)


def horner32(c, t):
    """The kernel's Horner loop in float32, each step one FMA (exact product, one rounding)."""
    r = np.full_like(t, c[0])
    for v in c[1:]:
        r = (r.astype(np.float64) * t + np.float64(v)).astype(np.float32)
    return r


def float32_erf(name, deg_q, deg_e):
    x = np.sqrt(nodes(0.0, 1.0, 2000))
    q = np.array([float(mp.erf(mp.mpf(v)) / v - 1) if v else float(2 / mp.sqrt(mp.pi) - 1)
                  for v in x])
    cq = lstsq32(x * x, q, deg_q)
    x1 = nodes(1.0, 4.0, 3000)
    ce = lstsq32(x1 - 2.5, np.array([float(mp.erfc(mp.mpf(v))) for v in x1]), deg_e)

    def erf32(x):
        ax = np.minimum(np.abs(x), np.float32(4))
        small = (x.astype(np.float64) * horner32(cq, np.maximum(x * x, np.float32(2.0**-100)))
                 + x).astype(np.float32)
        e = horner32(ce, ax - np.float32(2.5))
        large = np.where(ax >= np.float32(3.919206), np.float32(1), np.float32(1) - e)
        return np.where(np.abs(x) < 1, small, np.copysign(large, x))

    xt = np.concatenate([np.linspace(-6, 6, 24001), np.random.default_rng(0).standard_normal(20000),
                         np.geomspace(1e-30, 4, 4000)]).astype(np.float32)
    want64 = np.array([float(mp.erf(mp.mpf(float(v)))) for v in xt])
    want = want64.astype(np.float32)
    key = lambda v: np.where(v.view(np.int32) < 0, -(v.view(np.int32) & 0x7FFFFFFF),
                             v.view(np.int32)).astype(np.int64)
    ulps = np.abs(key(erf32(xt)) - key(want))
    got = erf32(xt)
    print(f"// {name}: at most {ulps.max()} ulp, absolute error "
          f"{np.abs(got.astype(np.float64) - want64).max():.2e}; correctly "
          f"rounded for {(ulps[:24001] == 0).mean():.4f} of a grid on [-6, 6]")
    print(f"struct {name} {{")
    for member, c in [("q", cq), ("e", ce)]:
        vals = [np.format_float_scientific(v, unique=True, trim="-") + "f" for v in c]
        print(f"  static constexpr float {member}[] = {{" + ", ".join(vals) + "};")
    print("};")


U_LO, U_HI = 1 / 10.5, 1.0
U_C, U_H = (U_HI + U_LO) / 2, (U_HI - U_LO) / 2


def tail():
    u = nodes(U_LO, U_HI)
    y = np.array([float(mp.erfc(1 / mp.mpf(v)) * mp.exp(1 / mp.mpf(v) ** 2) / mp.mpf(v)) for v in u])
    c = np.polynomial.chebyshev.Chebyshev.fit((u - U_C) / U_H, y, DEG_TAIL, domain=[-1, 1]).convert(
        kind=np.polynomial.Polynomial).coef
    xt = np.linspace(1.0, 10.5, 4000)
    ref = np.array([float(mp.erfc(mp.mpf(v))) for v in xt])
    got = np.exp(-xt * xt) / xt * np.polynomial.polynomial.polyval((1 / xt - U_C) / U_H, c)
    return c, np.max(np.abs(got / ref - 1))


MID_LO, MID_HI, MID_C, DEG_MID = 0.45, 2.65, 1.55, 20


def middle():
    x = nodes(MID_LO, MID_HI, 1500)
    y = np.array([float(mp.erf(mp.mpf(v))) for v in x])
    dom = [MID_LO - MID_C, MID_HI - MID_C]
    c = np.polynomial.chebyshev.Chebyshev.fit(x - MID_C, y, DEG_MID, domain=dom).convert(
        kind=np.polynomial.Polynomial, domain=dom, window=dom).coef
    xt = np.linspace(MID_LO, MID_HI, 5001)
    got = np.polynomial.polynomial.polyval(xt - MID_C, c)
    return c, max(abs(float(mp.erf(mp.mpf(v)) - g)) for v, g in zip(xt, got))


# erfinv's float32 residual for 1/2 < |y| <= 0.9966 (x in [0.45, 2.66]): 8 intervals, each a
# Taylor expansion of erf at its float32 centre in t = x - centre (exact), a0 and a1 as float32
# pairs (hi, lo); the kernel picks a lane's interval by a table lookup.
TAY_LO, TAY_HI, TAY_K, TAY_DEG = 0.45, 2.66, 8, 9


def taylor_tables():
    w = (TAY_HI - TAY_LO) / TAY_K
    cent = [float(np.float32(TAY_LO + (i + 0.5) * w)) for i in range(TAY_K)]
    rows = []
    for c in cent:
        cm = mp.mpf(c)
        a = [mp.erf(cm)] + [mp.diff(mp.erf, cm, k) / mp.factorial(k) for k in range(1, TAY_DEG + 1)]
        hi0, hi1 = np.float32(float(a[0])), np.float32(float(a[1]))
        lo0, lo1 = np.float32(float(a[0] - mp.mpf(float(hi0)))), np.float32(float(a[1] - mp.mpf(float(hi1))))
        # highest degree first (Horner), then a1 lo, a0 lo, a1 hi, a0 hi
        rows.append([np.float32(float(v)) for v in a[:1:-1]] + [lo1, lo0, hi1, hi0])
    return 1 / w, cent, rows


def show_taylor():
    inv_w, cent, rows = taylor_tables()
    pad = lambda v: v + [v[-1]] * (16 - len(v))  # 16 lanes (AVX-512); 8-lane targets read 8
    print(f"// erf Taylor tables on [{TAY_LO}, {TAY_HI}], {TAY_K} intervals, 1/width {inv_w:.9g}")
    print("constexpr float kErfTaylorCentre[16] = {" + ", ".join(f"{c:.9g}f" for c in pad(cent)) + "};")
    print(f"constexpr float kErfTaylor[{len(rows[0])}][16] = {{")
    for j in range(len(rows[0])):
        print("    {" + ", ".join(f"{float(r[j]):.9g}f" for r in pad(rows)) + "},")
    print("};")


def show(name, c, err, what):
    print(f"// {what}: {err:.2e}")
    print(f"constexpr double {name}[] = {{")
    vals = [f"{v:.17g}" for v in c[::-1]]
    for i in range(0, len(vals), 3):
        print("    " + ", ".join(vals[i:i + 3]) + ",")
    print("};")


if __name__ == "__main__":
    show("kErfSmall", *small(), "largest relative error on [0, 1]")
    for name, degrees in DEGREES.items():
        float32_erf(name, *degrees)
    print(f"constexpr double kErfcTailC = {U_C:.17g}, kErfcTailH = {U_H:.17g};")
    show("kErfcTail", *tail(), "largest relative error of erfc on [1, 10.5]")
    show("kErfMiddle", *middle(), f"largest absolute error on [{MID_LO}, {MID_HI}]")
    show_taylor()
