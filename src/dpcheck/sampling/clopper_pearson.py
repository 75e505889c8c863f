"""Exact Clopper–Pearson one-sided confidence bounds for a binomial proportion.

With K ~ Binomial(n, p) observed as k, the one-sided bounds at level alpha are

* lower(k, n, alpha): the p with P(K >= k; p) = alpha, i.e. I_p(k, n - k + 1) = alpha
  (0 when k = 0);
* upper(k, n, alpha): the p with P(K <= k; p) = alpha, i.e. I_{1-p}(n - k, k + 1) = alpha
  (1 when k = n),

where I_x(a, b) is the regularised incomplete beta function, so that
P(lower(K) > p) <= alpha and P(upper(K) < p) <= alpha for every p
(Clopper & Pearson 1934).  They are the building blocks of the empirical
privacy audit (:mod:`dpcheck.sampling.audit`; DP-Sniper, Bichsel et al. 2021).

I_x(a, b) is :func:`dpcheck.sampling.binomial.regularized_beta` (a series of
positive terms that converges for n of 10^9, where ``mpmath.betainc`` does
not).  The bounds are found by Newton's method on I_x, kept inside a bracket
that bisection shrinks whenever a Newton step would leave it, to a relative
accuracy of 1e-16 (in p and in 1 - p) before rounding to float64, and cached:
audits repeat the same (k, n).
"""

from __future__ import annotations

import math
from functools import lru_cache

import mpmath
import numpy as np
from mpmath import mpf

from dpcheck.errors import InputError
from dpcheck.sampling.binomial import regularized_beta

#: decimal digits of the mpmath working precision
DPS = 30
#: relative accuracy at which the Newton/bisection inversion stops
RTOL = 1e-16
_MAX_STEPS = 400


def _beta_density(x: mpf, a: int, b: int) -> mpf:
    """d/dx I_x(a, b) = x^(a-1) (1-x)^(b-1) / B(a, b)."""
    log_d = (
        (a - 1) * mpmath.log(x)
        + (b - 1) * mpmath.log1p(-x)
        - (mpmath.loggamma(a) + mpmath.loggamma(b) - mpmath.loggamma(a + b))
    )
    return mpmath.exp(log_d)


def _initial_guess(a: int, b: int, target: float) -> float:
    """A normal-approximation start for the root of I_x(a, b) = target (Wilson-like)."""
    n = a + b - 1
    mean = a / (a + b)
    z = _normal_quantile(target)
    sd = math.sqrt(mean * (1.0 - mean) / (n + 1))
    guess = mean + z * sd
    return min(max(guess, mean * 1e-3), 1.0 - (1.0 - mean) * 1e-3)


def _normal_quantile(q: float) -> float:
    """Φ^{-1}(q) in float64 (mpmath's erfinv)."""
    return float(mpmath.sqrt(2) * mpmath.erfinv(2 * mpf(q) - 1))


def _invert(a: int, b: int, target: float) -> mpf:
    """The x in (0, 1) with I_x(a, b) = target, by Newton's method safeguarded by bisection.

    Stops when a step moves x by less than RTOL·min(x, 1 - x), so that both x
    and 1 - x keep full relative accuracy.
    """
    with mpmath.workdps(DPS + 15):
        goal = mpf(target)
        lo, hi = mpf(0), mpf(1)
        x = mpf(_initial_guess(a, b, target))
        for _ in range(_MAX_STEPS):
            f = regularized_beta(x, a, b, DPS + 10) - goal
            if f == 0:
                return x
            if f < 0:
                lo = x
            else:
                hi = x
            new = x - f / _beta_density(x, a, b)
            if not lo < new < hi:
                new = _bisect(lo, hi)
            if abs(new - x) <= RTOL * min(x, 1 - x) or hi - lo <= RTOL * min(lo, 1 - hi):
                return new
            x = new
    raise ArithmeticError(f"Clopper-Pearson inversion did not converge (a={a}, b={b})")


def _bisect(lo: mpf, hi: mpf) -> mpf:
    """A point inside (lo, hi): geometric midpoint across decades, arithmetic otherwise."""
    if lo == 0:
        return hi / 8
    if hi > 4 * lo:
        return mpmath.sqrt(lo * hi)
    return (lo + hi) / 2


def _check(k: int, n: int, alpha: float) -> None:
    for name, value in (("k", k), ("n", n)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise InputError(f"{name}={value!r} must be an integer")
    if n < 1:
        raise InputError(f"n={n} must be at least 1")
    if not 0 <= k <= n:
        raise InputError(f"k={k} must be between 0 and n={n}")
    if not 0.0 < alpha < 1.0:  # also rejects NaN
        raise InputError(f"alpha={alpha!r} must be strictly between 0 and 1")


@lru_cache(maxsize=65536)
def _lower(k: int, n: int, alpha: float) -> float:
    if k == 0:
        return 0.0
    return float(_invert(k, n - k + 1, alpha))


@lru_cache(maxsize=65536)
def _upper(k: int, n: int, alpha: float) -> float:
    """P(K <= k; p) = P(n - K >= n - k; 1 - p) = I_{1-p}(n - k, k + 1) = alpha, solved for 1 - p.

    Solving the mirrored equation keeps alpha itself as the target (1 - alpha
    in float64 would lose its low digits) and 1 - p to full relative accuracy.
    """
    if k == n:
        return 1.0
    with mpmath.workdps(DPS + 15):
        return float(1 - _invert(n - k, k + 1, alpha))


def lower(k: int, n: int, alpha: float) -> float:
    """One-sided (1 - alpha) Clopper–Pearson lower bound on p from k successes in n trials.

    The p with P(K >= k; p) = I_p(k, n - k + 1) = alpha; 0 when k = 0.
    """
    k, n = _as_int(k), _as_int(n)
    _check(k, n, float(alpha))
    return _lower(k, n, float(alpha))


def upper(k: int, n: int, alpha: float) -> float:
    """One-sided (1 - alpha) Clopper–Pearson upper bound on p from k successes in n trials.

    The p with P(K <= k; p) = I_{1-p}(n - k, k + 1) = alpha; 1 when k = n.
    """
    k, n = _as_int(k), _as_int(n)
    _check(k, n, float(alpha))
    return _upper(k, n, float(alpha))


def _as_int(value: object) -> object:
    """numpy integers become Python ints (for the cache key); anything else is checked later."""
    return int(value) if isinstance(value, np.integer) else value


def cache_clear() -> None:
    """Forget the cached bounds (for timing and tests)."""
    _lower.cache_clear()
    _upper.cache_clear()


__all__ = ["DPS", "cache_clear", "lower", "regularized_beta", "upper"]
