"""Fits the polynomial coefficients of the SIMD erf, erfc and erfinv
(src/kernels/cpu/erf_hwy-inl.h).

float32 erf runs in float32 lanes (float32 coefficients, printed with the ulp errors of a
float32 evaluation that mimics the kernel's, FMA included):

    |x| < 1:      erf(x) = x + x Q(x^2)                    Q of degree 8
    1 <= |x| < 4: erf(|x|) = 1 - E(|x| - 2.5)              E of degree 15
    (ErfCoefs; gelu's ErfCoarseCoefs: degrees 6 and 12, absolute error 8e-8)
    |x| >= 3.919206: erf(x) = sign(x)                      (where erf rounds to 1)

float32 erfc runs in float32 lanes up to |x| = 2.65 (1 - x as a pair and erf's Q below 1/2;
show_erfc_tables: per-lane polynomials with float32 pairs on 8 intervals above, fitted to erfc
by relative least squares), and in float64 lanes beyond (its result must stay relatively
accurate where it is tiny), where it rounds once; so do narrower targets' erfc and erfinv's
float64 Newton step near ±1 (erfinv's start: show_erfinv_start; its float32-pair residual:
show_taylor). The float64 polynomials:

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


# float32 erfc for 0.5 <= |x| <= 2.65 in float32 lanes: 8 intervals of equal width in x^2 (so
# that 2 x t, which sets the size of the higher terms relative to erfc, is about the same on
# each: <= 0.45), on each a polynomial in t = x - centre (exact) of degree 9 fitted to erfc by
# weighted (relative) least squares on Chebyshev nodes; a2 .. a9 are rounded to float32 one at
# a time, lowest degree first, the rest refitted after each, and a0, a1 are float32 pairs.
ERFC_LO, ERFC_HI, ERFC_K, ERFC_DEG = 0.5, 2.65, 8, 9


def erfc_tables():
    scale = ERFC_K / (ERFC_HI ** 2 - ERFC_LO ** 2)  # interval index: (x^2 - lo^2) * scale
    edges = [np.sqrt(ERFC_LO ** 2 + i / scale) for i in range(ERFC_K + 1)]
    cent = [float(np.float32((edges[i] + edges[i + 1]) / 2)) for i in range(ERFC_K)]
    rows, worst = [], 0.0
    for i, c in enumerate(cent):
        lo, hi = edges[i] - c - 2e-3, edges[i + 1] - c + 2e-3  # a little beyond: the index is
        t = nodes(lo, hi, 600)  # computed in float32
        y = np.array([float(mp.erfc(mp.mpf(c) + mp.mpf(v))) for v in t])
        fixed = {}
        for k in range(2, ERFC_DEG + 2):
            free = [j for j in range(ERFC_DEG + 1) if j not in fixed]
            rhs = y - sum(fixed[j] * t ** j for j in fixed)
            a = np.vander(t, ERFC_DEG + 1, increasing=True)[:, free] / y[:, None]
            sol, *_ = np.linalg.lstsq(a, rhs / y, rcond=None)
            coef = dict(zip(free, sol))
            if k <= ERFC_DEG:
                fixed[k] = float(np.float32(coef[k]))
        coef.update(fixed)
        a = [coef[j] for j in range(ERFC_DEG + 1)]
        hi0, hi1 = np.float32(a[0]), np.float32(a[1])
        lo0, lo1 = np.float32(a[0] - float(hi0)), np.float32(a[1] - float(hi1))
        tt = np.linspace(edges[i] - c, edges[i + 1] - c, 2001)
        ref = np.array([float(mp.erfc(mp.mpf(c) + mp.mpf(v))) for v in tt])
        worst = max(worst, np.max(np.abs(np.polynomial.polynomial.polyval(tt, a) / ref - 1)))
        rows.append([np.float32(v) for v in a[:1:-1]] + [lo1, lo0, hi1, hi0])
    return scale, cent, rows, worst


def c_float(v):
    s = f"{float(v):.9g}"
    return s + (".0f" if s.lstrip("-").isdigit() else "f")


def show_erfc_tables():
    scale, cent, rows, worst = erfc_tables()
    print(f"// erfc tables on [{ERFC_LO}, {ERFC_HI}], {ERFC_K} intervals, index (x^2 - "
          f"{ERFC_LO ** 2}) * {scale:.9g}, "
          f"relative error {worst:.1e}")
    print(f"constexpr float kErfcCentre[8] = {{" + ", ".join(c_float(c) for c in cent) + "};")
    print(f"constexpr float kErfcTable[{len(rows[0])}][8] = {{")
    for j in range(len(rows[0])):
        print("    {" + ", ".join(c_float(r[j]) for r in rows) + "},")
    print("};")


# erfinv's start for |y| <= 0.9966 (w = -log(1 - y^2) < 5): erfinv(y) = y G(w - 2.5), as
# Giles' single-precision approximation (degree 8, relative error 4e-7) but of degree 6: the
# Newton step squares the start's error (x^3 e^2 for a relative error e), so ~1e-5 suffices.
# w's log: log(m) = u L(u), u = m - 1, m in [sqrt(2)/2, sqrt(2)) (no division), degree 5.
GILES_DEG, LOG_DEG = 6, 5


def erfinv_start():
    w = nodes(1e-9, 5.0, 1200)
    y = [mp.sqrt(-mp.expm1(-mp.mpf(v))) for v in w]
    cg = lstsq32(w - 2.5, np.array([float(mp.erfinv(v) / v) for v in y]), GILES_DEG)
    wt = np.linspace(1e-7, 5.0, 20001)
    yt = [mp.sqrt(-mp.expm1(-mp.mpf(v))) for v in wt]
    ref = np.array([float(mp.erfinv(v) / v) for v in yt])
    err_g = np.max(np.abs(np.polyval(cg.astype(np.float64), wt - 2.5) / ref - 1))
    u = nodes(np.sqrt(0.5) - 1, np.sqrt(2) - 1, 2000)
    cl = lstsq32(u, np.log1p(u) / u, LOG_DEG)
    ut = np.linspace(np.sqrt(0.5) - 1, np.sqrt(2) - 1, 100001)
    err_l = np.max(np.abs(ut * np.polyval(cl.astype(np.float64), ut) - np.log1p(ut)))
    return cg, err_g, cl, err_l


def show_erfinv_start():
    cg, err_g, cl, err_l = erfinv_start()
    fmt = lambda c: ", ".join(np.format_float_scientific(v, unique=True, trim="-") + "f" for v in c)
    print(f"// erfinv start: G of degree {GILES_DEG}, relative error {err_g:.1e}; log's L of "
          f"degree {LOG_DEG}, absolute error {err_l:.1e}")
    print(f"constexpr float kErfinvCentral[] = {{{fmt(cg)}}};")
    print(f"constexpr float kErfinvLog[] = {{{fmt(cl)}}};")


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
    show_erfc_tables()
    show_erfinv_start()
