"""float64 kernels of the Laplace base beyond Liu's two-sided laws: the one-sided
truncated and clamped variants, the folded law, the normaliser and their CDFs.

Liu's truncated and BIT laws with both bounds finite are *not* here: they go
through :mod:`dpcheck.numeric.fast` (one engine).  The derived references
are :func:`dpcheck.symbolic.mechanisms.quantity` for 'truncated-laplace',
'clamped-laplace' with ``sides='lower'``/``'upper'`` (the one-sided forms of
:mod:`dpcheck.symbolic.laplace_family`) and 'folded-laplace'
(:mod:`dpcheck.symbolic.folding`).  With a = (s - c0)/λ, b = (c1 - s)/λ,
P1, P2, P3 the regularised lower incomplete gamma functions of
:func:`dpcheck.numeric.fast.gamma_p` (sums of positive terms) and
p_m(x) = P_m(x)/x^m:

* normaliser P(c0 <= X <= c1) = (P1(a) + P1(b))/2 (P1(inf) = 1);
* truncated to [c0, ∞) (Liu 2019 eq (4) with c1 = ∞): Z = (1 + P1(a))/2,
  bias = λ(1 + a)e^{-a}/(2Z), mse = λ²(1 + P3(a))/Z;
* clamped to [c0, ∞) (eq (5) with c1 = ∞): bias = λe^{-a}/2,
  mse = λ²(1 + P2(a)); (-∞, c1] by reflection (bias changes sign);
* folded (diffprivlib's LaplaceFolded; :mod:`dpcheck.symbolic.folding`):
  bias = ±λ e^{-min(a,b)} P1(|b - a|)/(1 + e^{-(a+b)}), and
  mse = λ²[(1 + e^{-2b}) S(a) + (1 + e^{-2a}) S(b)]/P1(2(a + b)) with
  S(x) = 1 - e^{-2x} - 2x e^{-x} = 2e^{-x}(sinh x - x) >= 0 (its series
  2e^{-x} x³ Σ x^{2k}/(2k+3)! below x = 1).  This is the derived form
  (which cancels as λ → ∞) rearranged: its numerator over -1 + e^{-2(a+b)}
  is 2λ²[cosh b (sinh a - a) + cosh a (sinh b - b)]/sinh(a + b), multiplied
  through by 4e^{-(a+b)}; the tests compare it with the derived form.
  When λ > R = c1 - c0 the same forms are written in units of R
  (α = (s - c0)/R, β = (c1 - s)/R): λ → ∞ gives the uniform law's moments.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from dpcheck.numeric import fast
from dpcheck.numeric.arrays import Floats
from dpcheck.numeric.fast_gaussian import _horner, _split

#: P_m(x) is 1 in float64 beyond this (x^2 e^{-x} < 1e-300)
P_CAP = 750.0


def gamma_p(m: int, x: Floats) -> Floats:
    """P_m(x) for x >= 0 including inf (:func:`dpcheck.numeric.fast.gamma_p`, capped)."""
    return fast.gamma_p(m, np.minimum(x, P_CAP))


def p_over(m: int, x: Floats) -> Floats:
    """p_m(x) = P_m(x)/x^m for x >= 0 (1/m! at 0; 0 at inf), without underflow near 0.

    Below 1/2 it is e^{-x} φ_m(x) with the polynomial of
    :func:`dpcheck.numeric.fast._series` (φ_1(x) = (1 - e^{-x})/x e^{x}
    is taken as -expm1(-x)/x directly); above, P_m(x)/x/x/x.
    """
    out = np.empty_like(x)
    small = x < fast.SERIES_BELOW
    xs = x[small]
    if m == 1:
        vals = np.ones_like(xs)
        pos = xs > 0
        vals[pos] = -np.expm1(-xs[pos]) / xs[pos]
        out[small] = vals
    else:
        out[small] = np.exp(-xs) * _horner(fast._series(m), xs)
    xl = x[~small]
    big = gamma_p(m, xl)
    for _ in range(m):
        big = big / xl
    out[~small] = big
    return out


def normaliser(u: Floats, v: Floats, lam: Floats) -> Floats:
    """P(c0 <= X <= c1) = (P1(a) + P1(b))/2; in units of R when λ > R (R/λ may underflow)."""
    narrow = (u + v) < lam

    def wide(u, v, lam):
        return (0.5 * (gamma_p(1, u / lam) + gamma_p(1, v / lam)),)

    def narrow_form(u, v, lam):
        r = u + v
        return (0.5 * (r / lam) * ((u / r) * p_over(1, u / lam) + (v / r) * p_over(1, v / lam)),)

    return _split(narrow, wide, narrow_form, u, v, lam)[0]


def one_sided(bounding: str, dist: Floats, sign: Floats, lam: Floats) -> tuple[Floats, Floats]:
    """(bias, mse) of the law bounded on one side at distance ``dist`` = |s - bound| >= 0.

    ``sign`` is +1 for [c0, ∞) and -1 for (-∞, c1] (the bias's sign).
    """
    a = dist / lam
    ac = np.minimum(a, P_CAP)
    if bounding == "truncated":
        z2 = 1.0 + gamma_p(1, a)  # 2Z
        bias = sign * lam * ((1.0 + ac) * np.exp(-ac) / z2)
        mse = lam * lam * (2.0 * (1.0 + gamma_p(3, a)) / z2)
    else:
        bias = sign * lam * (0.5 * np.exp(-ac))
        mse = lam * lam * (1.0 + gamma_p(2, a))
    return bias, mse


@cache
def _sinh_series() -> tuple[float, ...]:
    """Σ_{k<11} t^k/(2k+3)!, highest power first ((sinh x - x)/x³ at t = x²)."""
    out = []
    factorial = 6.0
    for k in range(11):
        if k:
            factorial *= (2 * k + 2) * (2 * k + 3)
        out.append(1.0 / factorial)
    return tuple(reversed(out))


def _s_small(x: Floats) -> Floats:
    """S(x)/x³ = 2e^{-x}(sinh x - x)/x³ for 0 <= x <= 1."""
    return 2.0 * np.exp(-x) * _horner(_sinh_series(), x * x)


def _s_fun(x: Floats) -> Floats:
    """S(x) = 1 - e^{-2x} - 2x e^{-x} for x >= 0 (series below 1)."""
    out = np.empty_like(x)
    small = x <= 1.0
    xs = x[small]
    out[small] = xs * xs * xs * _s_small(xs)
    xl = np.minimum(x[~small], P_CAP)
    out[~small] = -np.expm1(-2.0 * xl) - 2.0 * xl * np.exp(-xl)
    return out


def folded(u: Floats, v: Floats, lam: Floats) -> tuple[Floats, Floats]:
    """(bias, mse) of the folded law (both bounds finite); see the module docstring."""
    a, b = u / lam, v / lam
    lo = np.minimum(a, b)
    sign = np.sign(v - u)
    gap = np.abs(v - u)
    d = gap / lam
    rho = (u + v) / lam
    # λ P1(d), or |v - u| p1(d) when d <= 1 (no overflow of λ, no underflow of d)
    big_d = d > 1.0
    amount = np.where(big_d, lam * gamma_p(1, np.where(big_d, d, 1.0)), gap * p_over(1, d))
    bias = sign * np.exp(-lo) * amount / (1.0 + np.exp(-np.minimum(rho, P_CAP)))

    def wide(a, b, lam, rho, u, v):
        e2a, e2b = np.exp(-2.0 * np.minimum(a, P_CAP)), np.exp(-2.0 * np.minimum(b, P_CAP))
        num = (1.0 + e2b) * _s_fun(a) + (1.0 + e2a) * _s_fun(b)
        return (lam * lam * (num / gamma_p(1, 2.0 * rho)),)

    def narrow(a, b, lam, rho, u, v):
        r = u + v
        alpha, beta = u / r, v / r
        num = (1.0 + np.exp(-2.0 * b)) * alpha**3 * _s_small(a) + (
            1.0 + np.exp(-2.0 * a)
        ) * beta**3 * _s_small(b)
        return (r * r * (num / (2.0 * p_over(1, 2.0 * rho))),)

    (mse,) = _split(rho < 1.0, wide, narrow, a, b, lam, rho, u, v)
    return bias, mse


def base_cdf(y: Floats, s: Floats, lam: Floats) -> Floats:
    """The Laplace CDF: e^{-(s-y)/λ}/2 below s, 1 - e^{-(y-s)/λ}/2 from s on."""
    half = 0.5 * np.exp(-np.abs(y - s) / lam)
    return np.where(y < s, half, 1.0 - half)


def one_sided_truncated_cdf(
    y: Floats, s: Floats, bound: Floats, lam: Floats, lower: Floats
) -> Floats:
    """P(Y <= y) of the Laplace law truncated to [bound, ∞) (``lower``) or (-∞, bound].

    [c0, ∞), y >= c0: e^{-w} P1((y - c0)/λ)/(1 + P1(a)) below s (w = (s - y)/λ),
    (P1(a) + P1((y - s)/λ))/(1 + P1(a)) above; (-∞, c1], y < c1:
    e^{-w}/(1 + P1(b)) below s, (1 + P1((y - s)/λ))/(1 + P1(b)) above.
    """
    dist = np.abs(s - bound) / lam
    den = 1.0 + gamma_p(1, dist)
    r = np.abs(y - s) / lam
    below = y < s
    low_lower = np.exp(-r) * gamma_p(1, np.abs(y - bound) / lam)
    high_lower = gamma_p(1, dist) + gamma_p(1, r)
    low_upper = np.exp(-r)
    high_upper = 1.0 + gamma_p(1, r)
    num = np.where(
        lower, np.where(below, low_lower, high_lower), np.where(below, low_upper, high_upper)
    )
    return np.clip(num / den, 0.0, 1.0)


def folded_cdf(y: Floats, s: Floats, c0: Floats, c1: Floats, lam: Floats) -> Floats:
    """P(Y <= y) of the folded law for c0 <= y <= c1.

    P(fold X <= y) = Σ_k P(2c0 - y + 2kR <= X <= y + 2kR) (fold is even about c0
    and 2R-periodic): the k = 0 interval [2c0 - y, y] gives e^{-(s-y)/λ} P1(2w)/2
    for y <= s (w = (y - c0)/λ) and (P1((y-s)/λ) + P1((y - c0 + s - c0)/λ))/2
    above; the k >= 1 and k <= -1 intervals lie on one side of s and sum to
    P1(2w)/(2 P1(2R/λ))·(e^{-(c1 - s + c1 - y)/λ} + e^{-(s - c0 + c1 - y + R)/λ}).
    """
    r_len = c1 - c0
    w = (y - c0) / lam
    rho = r_len / lam
    below = y <= s
    k0_below = np.exp(-(s - y) / lam) * gamma_p(1, 2.0 * w) * 0.5
    k0_above = 0.5 * (gamma_p(1, np.abs(y - s) / lam) + gamma_p(1, ((y - c0) + (s - c0)) / lam))
    k0 = np.where(below, k0_below, k0_above)
    wide = rho >= 1.0
    ratio = np.where(
        wide,
        0.5 * gamma_p(1, 2.0 * w) / gamma_p(1, 2.0 * np.maximum(rho, 1.0)),
        0.5 * ((y - c0) / r_len) * p_over(1, 2.0 * w) / p_over(1, 2.0 * np.minimum(rho, 1.0)),
    )
    images = np.exp(-((c1 - s) + (c1 - y)) / lam) + np.exp(-((s - c0) + (c1 - y) + r_len) / lam)
    return np.clip(k0 + ratio * images, 0.0, 1.0)


__all__ = [
    "base_cdf",
    "folded",
    "folded_cdf",
    "gamma_p",
    "normaliser",
    "one_sided",
    "one_sided_truncated_cdf",
    "p_over",
]
