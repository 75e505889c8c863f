"""An independent route to every mechanism's quantities: quadrature and summation.

Nothing here uses SymPy or dpcheck's symbolic layer.  Each base law is a plain
mpmath function (the Laplace and Gaussian densities, the two-sided geometric
pmf), and each quantity E g(Y) is computed straight from the mechanism's
definition:

* truncated: ∫_{c0}^{c1} g·f / ∫_{c0}^{c1} f (Σ over the integers for the
  geometric law);
* clamped: g(c0)·P(X < c0) + ∫_{c0}^{c1} g·f + g(c1)·P(X > c1), the tails by
  quadrature too (P(X <= c0) on the lattice keeps the point c0 inside);
* folded (Laplace): the density of fold(X) as the sum of the Laplace density
  over the images y + 2kR and 2c0 - y + 2kR, |k| <= K with the remainder far
  below the working precision.

Quadrature ranges are split at s and at s ± θ·2^k (θ the scale) so that
tanh-sinh sees a smooth integrand on each piece, however small θ is; mass
beyond 60θ from s is below e^{-60} (Laplace) and e^{-1800} (Gaussian) of
the total and is dropped only where that is far below the requested digits
(the Laplace tails are integrated to infinity).
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

import mpmath
from mpmath import mpf

F = Fraction


def _mpf(q: Fraction | int) -> mpf:
    q = Fraction(q)
    return mpf(q.numerator) / q.denominator


def laplace_density(x: mpf, s: mpf, lam: mpf) -> mpf:
    return mpmath.exp(-abs(x - s) / lam) / (2 * lam)


def gaussian_density(x: mpf, s: mpf, sigma: mpf) -> mpf:
    return mpmath.exp(-((x - s) ** 2) / (2 * sigma**2)) / (sigma * mpmath.sqrt(2 * mpmath.pi))


def _points(a: mpf, b: mpf, s: mpf, theta: mpf) -> list[mpf]:
    """a, b and the split points s, s ± θ·2^k (k = -3..12) strictly inside (a, b)."""
    pts = {a, b}
    if a < s < b:
        pts.add(s)
    for k in range(-3, 13):
        for p in (s - theta * 2**k, s + theta * 2**k):
            if a < p < b:
                pts.add(p)
    return sorted(pts)


def integrate(g: Callable[[mpf], mpf], f: Callable[[mpf], mpf], a, b, s, theta) -> mpf:
    """∫_a^b g·f (a may be -inf, b inf), split so every piece is smooth and short."""
    lo = a if a != -mpmath.inf else s - 200 * theta
    hi = b if b != mpmath.inf else s + 200 * theta
    if a == -mpmath.inf:
        lo = min(lo, b - 200 * theta) if b != mpmath.inf else lo
    if b == mpmath.inf:
        hi = max(hi, a + 200 * theta) if a != -mpmath.inf else hi
    pts = _points(lo, hi, s, theta)
    total = mpmath.quad(lambda t: g(t) * f(t), pts)
    if a == -mpmath.inf:
        total += mpmath.quad(lambda t: g(t) * f(t), [-mpmath.inf, lo])
    if b == mpmath.inf:
        total += mpmath.quad(lambda t: g(t) * f(t), [hi, mpmath.inf])
    return total


def continuous_expectation(
    g: Callable[[mpf], mpf], base: str, bounding: str, s, c0, c1, theta, dps: int = 40
) -> mpf:
    """E g(Y) for a Laplace or Gaussian base (c0 = None: -inf; c1 = None: inf)."""
    with mpmath.workdps(dps):
        s_, th = _mpf(s), _mpf(theta)
        a = -mpmath.inf if c0 is None else _mpf(c0)
        b = mpmath.inf if c1 is None else _mpf(c1)
        dens = laplace_density if base == "laplace" else gaussian_density

        def f(t):
            return dens(t, s_, th)

        if bounding == "folded":
            return _folded(g, s_, a, b, th, dps)
        inside = integrate(g, f, a, b, s_, th)
        if bounding == "truncated":
            return inside / integrate(lambda t: mpf(1), f, a, b, s_, th)
        if bounding == "clamped":
            total = inside
            if c0 is not None:
                total += g(a) * integrate(lambda t: mpf(1), f, -mpmath.inf, a, s_, th)
            if c1 is not None:
                total += g(b) * integrate(lambda t: mpf(1), f, b, mpmath.inf, s_, th)
            return total
        if bounding == "none":
            return integrate(g, f, -mpmath.inf, mpmath.inf, s_, th)
        raise KeyError(bounding)


def _folded(g, s, a, b, lam, dps) -> mpf:
    width = b - a
    k_max = int(mpmath.ceil((dps + 10) * mpmath.log(10) * lam / (2 * width))) + 2

    def density(y):
        total = mpf(0)
        for k in range(-k_max, k_max + 1):
            total += laplace_density(y + 2 * k * width, s, lam)
            total += laplace_density(2 * a - y + 2 * k * width, s, lam)
        return total

    return integrate(g, density, a, b, s, lam)


def geometric_expectation(
    g: Callable[[mpf], mpf], bounding: str, s: int, c0, c1, scale, dps: int = 40
) -> mpf:
    """E g(Y) for the two-sided geometric base, α = e^{-1/scale}, by summation.

    Finite runs are summed term by term; an infinite tail is summed term by
    term until pmf(k)·(1+|k|)² is below 10^-(dps+10) of the running total (at most
    10^6 terms; the tests keep the scale small enough).
    """
    with mpmath.workdps(dps):
        alpha = mpmath.exp(-1 / _mpf(scale))
        norm = (1 - alpha) / (1 + alpha)

        def pmf(k):
            return norm * alpha ** abs(k - s)

        def tail(start, step, h):
            total, k = mpf(0), start
            for _ in range(10**6):
                term = h(mpf(k)) * pmf(k)
                total += term
                # the test is on pmf(k)·(1+|k|)², not on the term: h(k) = k is 0 at
                # k = 0, and a zero term must not end the tail (moments have degree <= 2)
                bound = pmf(k) * (1 + abs(k)) ** 2
                small = bound < mpf(10) ** (-dps - 10) * max(abs(total), mpf(10) ** -dps)
                if small and abs(k - s) > 10:
                    return total
                k += step
            raise ArithmeticError("tail did not converge")

        def run(h, lo, hi):
            """Σ_{k=lo}^{hi} h(k)·pmf(k), lo None: -inf, hi None: inf (s in the run)."""
            a = lo if lo is not None else s
            b = hi if hi is not None else s
            total = sum((h(mpf(k)) * pmf(k) for k in range(int(a), int(b) + 1)), mpf(0))
            if lo is None:
                total += tail(s - 1, -1, h)
            if hi is None:
                total += tail(s + 1, 1, h)
            return total

        if bounding == "none":
            return run(g, None, None)
        inside = run(g, c0, c1)
        if bounding == "truncated":
            return inside / run(lambda t: mpf(1), c0, c1)
        if bounding == "clamped":
            total = inside
            if c0 is not None:
                total += g(mpf(c0)) * tail(c0 - 1, -1, lambda t: mpf(1))
            if c1 is not None:
                total += g(mpf(c1)) * tail(c1 + 1, 1, lambda t: mpf(1))
            return total
        if bounding == "mass":
            return run(lambda t: mpf(1), c0, c1)
        raise KeyError(bounding)


def quantity(mechanism: str, name: str, s, c0, c1, theta, dps: int = 40) -> mpf:
    """mean, bias, second_moment, var, mse or normaliser of ``mechanism`` at the point."""
    bounding, _, base = mechanism.rpartition("-")
    bounding = bounding or "none"
    with mpmath.workdps(dps):
        s_ = _mpf(s)
        if name == "normaliser":  # P(c0 <= X <= c1) under the base law
            if bounding == "none":
                return mpf(1)
            if base == "geometric":
                return geometric_expectation(lambda t: mpf(1), "mass", s, c0, c1, theta, dps)
            dens = laplace_density if base == "laplace" else gaussian_density
            th = _mpf(theta)
            a = -mpmath.inf if c0 is None else _mpf(c0)
            b = mpmath.inf if c1 is None else _mpf(c1)
            return integrate(lambda t: mpf(1), lambda t: dens(t, s_, th), a, b, s_, th)

        def e(g):
            if base == "geometric":
                return geometric_expectation(g, bounding, s, c0, c1, theta, dps)
            return continuous_expectation(g, base, bounding, s, c0, c1, theta, dps)

        if name == "mean":
            return e(lambda t: t)
        if name == "second_moment":
            return e(lambda t: t * t)
        if name == "bias":
            return e(lambda t: t - s_)
        if name == "mse":
            return e(lambda t: (t - s_) ** 2)
        if name == "var":
            mean = e(lambda t: t)
            return e(lambda t: (t - mean) ** 2)
        raise KeyError(name)
