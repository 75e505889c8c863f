"""float64 kernels of the Gaussian base: truncated and clamped N(s, σ²) on [c0, c1].

Used by :mod:`dpcheck.numeric.fast_mechanisms`; the derived references are
:func:`dpcheck.symbolic.mechanisms.quantity` ('truncated-gaussian.*',
'clamped-gaussian.*'), evaluated by :mod:`dpcheck.numeric.mechanism_mp`.

In the standardised variable z = (x - s)/σ, with a = (s - c0)/σ,
b = (c1 - s)/σ (either may be +inf: the one-sided variants) and the
partial moments of the standard normal density φ,

    E1(x) = ∫_0^x φ = erf(x/√2)/2,    E3(x) = ∫_0^x z²φ = E1(x) - xφ(x),
    Q(x)  = ∫_x^∞ φ = erfc(x/√2)/2,   ψ(x) = ∫_x^∞ (z - x)φ = φ(x) - xQ(x),

the quantities of the law are sums of non-negative terms or differences
written without cancellation:

* normaliser N = P(c0 <= X <= c1) = E1(a) + E1(b);
* truncated (condition on [c0, c1]): bias = σ(φ(a) - φ(b))/N,
  mse = σ²(E3(a) + E3(b))/N, where φ(a) - φ(b) = ±φ(min)·(-expm1(-(b-a)(b+a)/2));
* clamped (the mass outside goes to the bounds): bias = E clip(σZ, -u, v)
  = σ(ψ(a) - ψ(b)), mse = σ²(E3(a) + a²Q(a) + E3(b) + b²Q(b)).

For x <= 1, E1(x) = x φ(x) S1(x²) and E3(x) = x³ φ(x) S3(x²) with the
positive series S1(t) = Σ t^k/(2k+1)!!, S3(t) = Σ t^k/(2k+3)!! (so E3 keeps
full relative accuracy where E1 - xφ cancels); ψ(x) for x > 1 is
φ(x)(1 - x r(x)) with the Mills ratio r = √(π/2)·erfcx(x/√2) (at most
x² ulps lost, 400 at x = 20) and above x = 20 its asymptotic series
φ(x)/x² Σ (-1)^k (2k+1)!!/x^{2k} (13 terms, error < 1e-17 relative).

When σ > R = c1 - c0 (the law tends to the uniform one on [c0, c1] for the
truncation, to the two-point law at the bounds for the clamping) the forms
are multiplied through by powers of σ and written in units of R, with
α = (s - c0)/R and β = (c1 - s)/R: σN = R(α g1(a) + β g1(b)),
g1 = E1(x)/x, and so on, so that σ = 1e300 against R = 1 gives the uniform
law's moments, not 0/0.  Every value is then exact to a few ulps of its
own size (bias and mean to a few ulps of R where they pass through 0).
"""

from __future__ import annotations

from functools import cache

import numpy as np
from scipy import special

from dpcheck.numeric.arrays import Floats

INV_SQRT_2PI = 0.3989422804014327
SQRT_HALF = 0.7071067811865476
SQRT_HALF_PI = 1.2533141373155003
#: above this argument ψ uses its asymptotic series
PSI_ASYMPTOTIC = 20.0
#: beyond this argument Q, φ and ψ are 0 in float64 (Q(40) ~ 4e-350)
TAIL_CAP = 64.0


@cache
def _odd_series(first: int, terms: int) -> tuple[float, ...]:
    """Coefficients, highest power first, of Σ_k t^k / (first·(first+2)···(first+2k))."""
    out = []
    product = 1.0
    for k in range(terms):
        product *= first + 2 * k
        out.append(1.0 / product)
    return tuple(reversed(out))


def _horner(coefficients: tuple[float, ...], t: Floats) -> Floats:
    acc = np.full_like(t, coefficients[0])
    for c in coefficients[1:]:
        acc *= t
        acc += c
    return acc


def phi(x: Floats) -> Floats:
    """The standard normal density (0 for |x| beyond ~38.6, including inf)."""
    return INV_SQRT_2PI * np.exp(-0.5 * x * x)


def upper_tail(x: Floats) -> Floats:
    """Q(x) = P(Z > x) = erfc(x/√2)/2, relative accuracy in the tail."""
    return 0.5 * special.erfc(x * SQRT_HALF)


def central(x: Floats) -> Floats:
    """E1(x) = P(0 < Z < x) = erf(x/√2)/2 (1/2 at x = inf)."""
    return 0.5 * special.erf(x * SQRT_HALF)


def g1(x: Floats) -> Floats:
    """E1(x)/x = φ(x) S1(x²) for 0 <= x <= 1 (1/√(2π) at 0)."""
    return phi(x) * _horner(_odd_series(1, 18), x * x)


def g3(x: Floats) -> Floats:
    """E3(x)/x³ = φ(x) S3(x²) for 0 <= x <= 1 (1/(3√(2π)) at 0)."""
    return phi(x) * _horner(_odd_series(3, 18), x * x)


def e3(x: Floats) -> Floats:
    """E3(x) = ∫_0^x z²φ(z) dz for x >= 0 (1/2 at inf): series below 1, E1 - xφ above."""
    out = np.empty_like(x)
    small = x <= 1.0
    xs = x[small]
    out[small] = xs * xs * xs * g3(xs)
    xl = np.minimum(x[~small], TAIL_CAP)
    out[~small] = central(x[~small]) - xl * phi(xl)
    return out


def psi(x: Floats) -> Floats:
    """ψ(x) = E(Z - x)^+ = φ(x) - xQ(x) for x >= 0 (0 at inf); see the module docstring."""
    out = np.empty_like(x)
    low = x <= 1.0
    high = x > PSI_ASYMPTOTIC
    mid = ~(low | high)
    xl = x[low]
    out[low] = phi(xl) - xl * upper_tail(xl)
    xm = x[mid]
    out[mid] = phi(xm) * (1.0 - xm * SQRT_HALF_PI * special.erfcx(xm * SQRT_HALF))
    xh = np.minimum(x[high], TAIL_CAP)
    t = 1.0 / (xh * xh)
    out[high] = phi(xh) * t * _horner(_asymptotic_psi(), t)
    return out


@cache
def _asymptotic_psi() -> tuple[float, ...]:
    """Σ_{k<13} (-1)^k (2k+1)!! t^k, highest power first (ψ(x) ~ φ(x) t Σ, t = 1/x²)."""
    out = []
    double_factorial = 1.0
    for k in range(13):
        double_factorial *= 2 * k + 1
        out.append((-1) ** k * double_factorial)
    return tuple(reversed(out))


def _h(tau: Floats) -> Floats:
    """(1 - e^{-τ})/τ for τ >= 0 (1 at 0)."""
    out = np.ones_like(tau)
    pos = tau > 0
    out[pos] = -np.expm1(-tau[pos]) / tau[pos]
    return out


def _split(mask, wide, narrow, *arrays: Floats) -> tuple[Floats, ...]:
    """Apply ``wide`` to the elements where ``mask`` is False and ``narrow`` where True."""
    idx_n = np.flatnonzero(mask)
    if idx_n.size == 0:
        return wide(*arrays)
    if idx_n.size == mask.size:
        return narrow(*arrays)
    idx_w = np.flatnonzero(~mask)
    parts_w = wide(*(a[idx_w] for a in arrays))
    parts_n = narrow(*(a[idx_n] for a in arrays))
    outs = []
    for pw, pn in zip(parts_w, parts_n, strict=True):
        out = np.empty(mask.size)
        out[idx_w] = pw
        out[idx_n] = pn
        outs.append(out)
    return tuple(outs)


def moments(bounding: str, u: Floats, v: Floats, sigma: Floats) -> tuple[Floats, Floats, Floats]:
    """(normaliser, bias, mse) for u = s - c0 >= 0, v = c1 - s >= 0 (either may be inf).

    ``bounding`` is 'truncated' or 'clamped'; flat arrays of one length.
    """
    narrow = (u + v) < sigma  # False when a bound is infinite
    kernel = _truncated if bounding == "truncated" else _clamped
    return _split(narrow, kernel[0], kernel[1], u, v, sigma)


def _common(u: Floats, v: Floats, sigma: Floats):
    a, b = u / sigma, v / sigma
    lo = np.minimum(a, b)
    sign = np.sign(v - u)
    d = np.abs(v - u) / sigma
    return a, b, lo, sign, d


def _truncated_wide(u, v, sigma):
    a, b, lo, sign, d = _common(u, v, sigma)
    norm = central(a) + central(b)
    tau = 0.5 * d * (a + b)
    bias = sigma * (sign * phi(lo) * -np.expm1(-tau)) / norm
    mse = sigma * sigma * ((e3(a) + e3(b)) / norm)
    return norm, bias, mse


def _narrow_parts(u, v, sigma):
    r = u + v
    alpha, beta = u / r, v / r
    a, b, lo, sign, d = _common(u, v, sigma)
    rho = r / sigma
    tau = 0.5 * d * rho
    # σ²(φ(a) - φ(b)) / R², and σN / R
    dphi = sign * phi(lo) * 0.5 * np.abs(beta - alpha) * _h(tau)
    return r, alpha, beta, a, b, rho, dphi


def _truncated_narrow(u, v, sigma):
    r, alpha, beta, a, b, rho, dphi = _narrow_parts(u, v, sigma)
    den = alpha * g1(a) + beta * g1(b)
    bias = r * (dphi / den)
    mse = r * r * ((alpha**3 * g3(a) + beta**3 * g3(b)) / den)
    return rho * den, bias, mse


def _clamped_wide(u, v, sigma):
    a, b, _, _, _ = _common(u, v, sigma)
    norm = central(a) + central(b)
    bias = sigma * (psi(a) - psi(b))
    ac, bc = np.minimum(a, TAIL_CAP), np.minimum(b, TAIL_CAP)
    tails = ac * (ac * upper_tail(ac)) + bc * (bc * upper_tail(bc))
    mse = sigma * sigma * (e3(a) + e3(b) + tails)
    return norm, bias, mse


def _clamped_narrow(u, v, sigma):
    r, alpha, beta, a, b, rho, dphi = _narrow_parts(u, v, sigma)
    g1a, g1b = g1(a), g1(b)
    bias = r * (0.5 * (beta - alpha) + rho * (dphi + alpha * alpha * g1a - beta * beta * g1b))
    mse = (
        r
        * r
        * (alpha * alpha * (a * g3(a) + upper_tail(a)) + beta * beta * (b * g3(b) + upper_tail(b)))
    )
    return rho * (alpha * g1a + beta * g1b), bias, mse


_truncated = (_truncated_wide, _truncated_narrow)
_clamped = (_clamped_wide, _clamped_narrow)


def truncated_cdf(y: Floats, s: Floats, c0: Floats, c1: Floats, sigma: Floats) -> Floats:
    """P(Y <= y) of the truncated law for c0 <= y < c1 (elementwise; flat arrays).

    P(c0 <= X <= y)/N: E1(a) + E1(w) for y >= s (w = (y - s)/σ), and for
    y < s, with m = (s - y)/σ <= a, E1(a) - E1(m) (m < 1) or Q(m) - Q(a)
    (m >= 1, relative accuracy in the lower tail); in units of R when σ > R.
    Absolute error a few ulps.
    """
    u, v = s - c0, c1 - s
    narrow = (u + v) < sigma

    def wide(y, s, u, v, sigma):
        a, b = u / sigma, v / sigma
        w = (y - s) / sigma
        above = w >= 0
        m = np.abs(w)
        ea = central(a)
        num = np.where(
            above,
            ea + central(m),
            np.where(m < 1.0, ea - central(m), upper_tail(m) - upper_tail(a)),
        )
        return (num / (ea + central(b)),)

    def narrow_form(y, s, u, v, sigma):
        a, b = u / sigma, v / sigma
        dy = y - s
        m = np.abs(dy) / sigma
        ua = u * g1(a)
        num = np.where(dy >= 0, ua + np.abs(dy) * g1(m), ua - np.abs(dy) * g1(m))
        return (num / (ua + v * g1(b)),)

    (out,) = _split(narrow, wide, narrow_form, y, s, u, v, sigma)
    return np.clip(out, 0.0, 1.0)


def base_cdf(y: Floats, s: Floats, sigma: Floats) -> Floats:
    """Φ((y - s)/σ) (scipy's ndtr: relative accuracy in the lower tail)."""
    return special.ndtr((y - s) / sigma)


__all__ = [
    "base_cdf",
    "central",
    "e3",
    "g1",
    "g3",
    "moments",
    "phi",
    "psi",
    "truncated_cdf",
    "upper_tail",
]
