"""An independent route to privacy numbers: δ(ε) and ε(δ) written from the laws alone.

Nothing here uses dpcheck.  The unbounded mechanisms have closed forms taken from the
literature or summed from the pmf:

* Gaussian: Balle and Wang (2018), Theorem 8,
  δ(ε) = Φ(Δ/2σ - εσ/Δ) - e^ε Φ(-Δ/2σ - εσ/Δ);
* Laplace: δ(ε) = 1 - e^{(ε - Δ/λ)/2} for ε < Δ/λ, else 0 (the pair (0, Δ), the
  positive part of p_0 - e^ε p_Δ integrated by hand);
* two-sided geometric, pmf (1 - α)/(1 + α) α^{|y|}: Σ_y (p_0(y) - e^ε p_d(y))_+ summed,
  the tail y <= 0 in closed form (its terms are p_0(y)(1 - e^ε α^d));

ε(δ) is the root of δ(ε) = δ by bisection at a working precision that resolves δ down
to 1e-1000 (mpmath's exponent range is unbounded).  The bounded mechanisms: the
hockey-stick divergence of one pair by quadrature of (p_s - e^ε p_s')_+ (split at its sign
changes) plus the point masses, or by summation of the pmf on the lattice.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
from mpmath import mpf


def _m(q) -> mpf:
    q = Fraction(q)
    return mpf(q.numerator) / q.denominator


def gaussian_delta(eps, d, sigma) -> mpf:
    eps, d, sigma = _m(eps), _m(d), _m(sigma)
    a, b = d / (2 * sigma), eps * sigma / d
    return mpmath.ncdf(a - b) - mpmath.exp(eps) * mpmath.ncdf(-a - b)


def laplace_delta(eps, d, lam) -> mpf:
    eps, d, lam = _m(eps), _m(d), _m(lam)
    if eps >= d / lam:
        return mpf(0)
    return -mpmath.expm1((eps - d / lam) / 2)


def geometric_delta(eps, d: int, b) -> mpf:
    """The pair (0, d) of the two-sided geometric with α = e^{-1/b}."""
    eps, b = _m(eps), _m(b)
    alpha = mpmath.exp(-1 / b)
    norm = (1 - alpha) / (1 + alpha)
    e = mpmath.exp(eps)
    total = mpf(0)
    if eps < d / b:  # y <= 0: p_0(y)(1 - e^ε α^d), summed: (1 - e^ε α^d)/(1 + α)
        total += -mpmath.expm1(eps - d / b) / (1 + alpha)
    for y in range(1, d):  # 0 < y < d
        total += max(mpf(0), norm * (alpha**y - e * alpha ** (d - y)))
    return total  # y >= d: p_0(y) - e^ε p_d(y) = p_0(y)(1 - e^ε α^{-d}) < 0


def unbounded_delta(base: str, eps, d, scale) -> mpf:
    if base == "gaussian":
        return gaussian_delta(eps, d, scale)
    if base == "laplace":
        return laplace_delta(eps, d, scale)
    return geometric_delta(eps, int(d), scale)


def epsilon_for(delta_of, delta, hi=1, steps: int = 400) -> mpf:
    """The ε with δ(ε) = δ for a non-increasing δ(ε), by bisection (60 + digits of δ)."""
    delta = _m(delta)
    if delta_of(mpf(0)) <= delta:
        return mpf(0)
    hi = mpf(hi)
    while delta_of(hi) > delta:
        hi *= 2
    lo = mpf(0)
    for _ in range(steps):
        mid = (lo + hi) / 2
        if delta_of(mid) > delta:
            lo = mid
        else:
            hi = mid
        if hi - lo <= hi * mpf(10) ** (-mpmath.mp.dps + 5):
            break
    return (lo + hi) / 2


# ---------------------------------------------------------------------- bounded


def _continuous(mech: str, s, c0, c1, scale):
    """(density, [(point, mass)]) of the bounded continuous mechanism at input s.  The
    upper atom is the survival function itself (1 - CDF would cancel to 0)."""
    bounding, base = mech.split("-")
    s, c0, c1, scale = _m(s), _m(c0), _m(c1), _m(scale)
    if base == "gaussian":
        def dens(t):
            return mpmath.npdf(t, s, scale)

        def cdf(t):
            return mpmath.ncdf((t - s) / scale)

        def sf(t):
            return mpmath.ncdf((s - t) / scale)
    else:
        def dens(t):
            return mpmath.exp(-abs(t - s) / scale) / (2 * scale)

        def cdf(t):
            x = (t - s) / scale
            return mpmath.exp(x) / 2 if x < 0 else -mpmath.expm1(-x) + mpmath.exp(-x) / 2

        def sf(t):
            return cdf(2 * s - t)
    if bounding == "truncated":
        z = 1 - cdf(c0) - sf(c1)
        return (lambda t: dens(t) / z), []
    return dens, [(c0, cdf(c0)), (c1, sf(c1))]


def truncated_log_ratio_at_c0(base: str, s, s2, c1, scale, c0=0) -> mpf:
    """log p_s(c0)/p_{s2}(c0) of the truncated mechanism: the pair's largest log ratio."""
    with mpmath.workdps(40):
        f, _ = _continuous(f"truncated-{base}", s, c0, c1, scale)
        g, _ = _continuous(f"truncated-{base}", s2, c0, c1, scale)
        return mpmath.log(f(_m(c0)) / g(_m(c0)))


def continuous_hockey(mech: str, eps, s, s2, c0, c1, scale) -> mpf:
    """∫ (p_s - e^ε p_s')_+ over [c0, c1] plus the atoms' (m - e^ε m')_+, by quadrature
    split at the sign changes of the integrand (found by bisection on a grid)."""
    p, pa = _continuous(mech, s, c0, c1, scale)
    q, qa = _continuous(mech, s2, c0, c1, scale)
    e = mpmath.exp(_m(eps))
    lo, hi = _m(c0), _m(c1)
    grid = sorted(set(mpmath.linspace(lo, hi, 257)) | {v for v in (_m(s), _m(s2)) if lo < v < hi})

    def diff(t):
        return p(t) - e * q(t)

    # the pieces: the ends, the kinks (s, s') and the sign changes of the integrand
    pts = {lo, hi} | {v for v in (_m(s), _m(s2)) if lo < v < hi}
    pts |= {g for g in grid if diff(g) == 0}  # a crossing on a grid point
    for a, b in zip(grid, grid[1:], strict=False):
        if diff(a) * diff(b) < 0:
            u, v = a, b
            for _ in range(mpmath.mp.prec):
                m = (u + v) / 2
                u, v = (m, v) if diff(u) * diff(m) > 0 else (u, m)
            pts.add((u + v) / 2)
    pts = sorted(pts)
    total = mpf(0)
    for a, b in zip(pts, pts[1:], strict=False):
        if diff((a + b) / 2) > 0:  # the integrand keeps its sign on each piece
            total += mpmath.quad(diff, [a, b])
    for (_, m1), (_, m2) in zip(pa, qa, strict=True):
        total += max(m1 - e * m2, 0)
    return total


def lattice_law(mech: str, s: int, c0: int, c1: int, b) -> dict[int, mpf]:
    """P(Y = k) of the truncated or clamped two-sided geometric, α = e^{-1/b}."""
    alpha = mpmath.exp(-1 / _m(b))
    norm = (1 - alpha) / (1 + alpha)
    inner = {k: norm * alpha ** abs(k - s) for k in range(c0, c1 + 1)}
    if mech == "truncated-geometric":
        z = sum(inner.values())
        return {k: v / z for k, v in inner.items()}
    inner[c0] = alpha ** (s - c0) / (1 + alpha)  # P(X <= c0 - s), s >= c0
    inner[c1] = alpha ** (c1 - s) / (1 + alpha)
    return inner


def lattice_hockey(mech: str, eps, s: int, s2: int, c0: int, c1: int, b) -> mpf:
    p, q = lattice_law(mech, s, c0, c1, b), lattice_law(mech, s2, c0, c1, b)
    e = mpmath.exp(_m(eps))
    return sum((max(mpf(0), p[k] - e * q[k]) for k in p), mpf(0))


def hockey(mech: str, eps, s, s2, c0, c1, scale) -> mpf:
    if mech.endswith("geometric"):
        return lattice_hockey(mech, eps, int(s), int(s2), int(c0), int(c1), scale)
    return continuous_hockey(mech, eps, s, s2, c0, c1, scale)


def edge_pairs(mech: str, sens, c0, c1, points: int = 9) -> list[tuple[Fraction, Fraction]]:
    """Pairs (s, s + step) and (s + step, s) at ``points`` inputs along the edge."""
    c0, c1, sens = Fraction(c0), Fraction(c1), Fraction(sens)
    step = min(Fraction(int(sens)) if mech.endswith("geometric") else sens, c1 - c0)
    top = c1 - step
    if mech.endswith("geometric"):
        inputs = sorted({int(c0 + (top - c0) * i / (points - 1)) for i in range(points)})
        inputs = [Fraction(v) for v in inputs]
    else:
        inputs = [c0 + (top - c0) * Fraction(i, points - 1) for i in range(points)]
    return [pair for s in inputs for pair in ((s, s + step), (s + step, s))]
