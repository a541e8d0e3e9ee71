"""Fits the polynomial coefficients of the float32 SIMD erf (src/kernels/cpu/erf_hwy-inl.h),
which runs in float64 lanes and rounds once to float32, so its result is within a hair of the
correctly rounded value (as std::erff's is):

    |x| < 1:      erf(x) = x * P(x^2)                      P of degree 7
    1 <= |x| < 4: erf(x) = sign(x) * Q((|x| - 2.5) / 1.5)  Q of degree 18
    |x| >= 4:     erf(x) = sign(x)                         (1 - erf(4) = 1.5e-8 < half an ulp)

and erfc, which must stay relatively accurate where it is tiny:

    |x| < 1:      erfc(x) = 1 - x P(x^2)
    x >= 1:       erfc(x) = exp(-x^2) / x * R((1/x - c) / h), R of degree 16, u = 1/x in
                  [1/10.5, 1] (erfc(10.5) = 7e-50: 0 in float32); x <= -1: 2 - erfc(-x)

Least squares on Chebyshev nodes against mpmath's erf at 40 digits; prints the C++ arrays
(highest degree first, for Horner) and the worst errors seen on a fine grid.
Run: python tools/fit_erf.py (needs numpy and mpmath, both in the dev venv)."""
import mpmath as mp
import numpy as np

mp.mp.dps = 40
DEG_SMALL, DEG_LARGE = 7, 18  # the lowest degrees whose errors stay near 1e-11
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


def large():
    x = nodes(1.0, 4.0)
    y = np.array([float(mp.erf(mp.mpf(v))) for v in x])
    t = (x - 2.5) / 1.5
    c = np.polynomial.chebyshev.Chebyshev.fit(t, y, DEG_LARGE, domain=[-1, 1]).convert(
        kind=np.polynomial.Polynomial).coef
    xt = np.linspace(1.0, 4.0, 4000)
    ref = np.array([float(mp.erf(mp.mpf(v))) for v in xt])
    return c, np.max(np.abs(np.polynomial.polynomial.polyval((xt - 2.5) / 1.5, c) - ref))


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


def show(name, c, err, what):
    print(f"// {what}: {err:.2e}")
    print(f"constexpr double {name}[] = {{")
    vals = [f"{v:.17g}" for v in c[::-1]]
    for i in range(0, len(vals), 3):
        print("    " + ", ".join(vals[i:i + 3]) + ",")
    print("};")


if __name__ == "__main__":
    show("kErfSmall", *small(), "largest relative error on [0, 1]")
    show("kErfLarge", *large(), "largest absolute error on [1, 4]")
    print(f"constexpr double kErfcTailC = {U_C:.17g}, kErfcTailH = {U_H:.17g};")
    show("kErfcTail", *tail(), "largest relative error of erfc on [1, 10.5]")
