"""Binomial tail probabilities for any n, through the regularised incomplete beta.

P(K >= k) = I_p(k, n - k + 1) and P(K <= k) = I_{1-p}(n - k, k + 1) for
K ~ Binomial(n, p).  :func:`regularized_beta` evaluates I_x(a, b) in mpmath
from the series of positive terms

    I_x(a, b) = x^a (1 - x)^b / (a B(a, b)) · 2F1(a + b, 1; a + 1; x),

or from its mirror 1 - I_{1-x}(b, a), whichever needs fewer terms (no
cancellation inside the series; the prefactor is taken through logarithms at
extra precision).  ``mpmath.betainc`` itself sums a terminating series with
alternating signs that fails to converge for n of about 10^5-10^6, which is
where sampling tests and audits live.  The exact binomial tests of
:mod:`dpcheck.sampling.goodness` and the Clopper–Pearson bounds of
:mod:`dpcheck.sampling.clopper_pearson` both use it.
"""

from __future__ import annotations

import math

import mpmath
from mpmath import mpf

from dpcheck.errors import InputError

#: decimal digits of the mpmath working precision
DPS = 30
_MAX_TERMS = 10**8


def _series_cost(x: float, a: float, b: float) -> float:
    """Rough number of terms the series of I_x(a, b) needs (growth + decay phases)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return math.inf
    growth = max(0.0, (x * (a + b) - a) / (1.0 - x))
    peak = math.sqrt(a * (a + b) / b)
    tail = 70.0 / -math.log(x)
    return growth + 12.0 * peak + tail


def _series(x: mpf, a: int, b: int) -> mpf:
    """x^a (1-x)^b / (a B(a, b)) · 2F1(a+b, 1; a+1; x): all terms positive, 0 < x < 1."""
    log_prefactor = (
        a * mpmath.log(x)
        + b * mpmath.log1p(-x)
        - mpmath.log(a)
        - (mpmath.loggamma(a) + mpmath.loggamma(b) - mpmath.loggamma(a + b))
    )
    hyp = mpmath.hyp2f1(a + b, 1, a + 1, x, maxterms=_MAX_TERMS)
    return mpmath.exp(log_prefactor) * hyp


def regularized_beta(x: object, a: int, b: int, dps: int = DPS) -> mpf:
    """I_x(a, b), the regularised incomplete beta function, for integers a, b >= 1.

    P(K >= k) = I_p(k, n - k + 1) for K ~ Binomial(n, p).  Accurate to about
    ``dps`` digits relative to max(I, 1 - I) for any a, b up to ~10^9.
    """
    if a < 1 or b < 1:
        raise InputError(f"regularized_beta needs a, b >= 1 (got a={a}, b={b})")
    with mpmath.workdps(dps + 15):
        x = mpf(x)
        if not 0 <= x <= 1:
            raise InputError(f"regularized_beta needs 0 <= x <= 1 (got x={x})")
        if x == 0:
            return mpf(0)
        if x == 1:
            return mpf(1)
        fx = float(x)
        if _series_cost(fx, a, b) <= _series_cost(1.0 - fx, b, a):
            value = _series(x, a, b)
        else:
            value = 1 - _series(1 - x, b, a)
    with mpmath.workdps(dps):
        return +value


def _check(k: int, n: int, p: float) -> None:
    if n < 0 or not 0 <= k <= n:
        raise InputError(f"k={k}, n={n}: expected 0 <= k <= n")
    if not 0.0 <= p <= 1.0:
        raise InputError(f"p={p!r} is not a probability (expected 0 <= p <= 1)")


def cdf(k: int, n: int, p: float) -> float:
    """P(K <= k) = I_{1-p}(n - k, k + 1) for K ~ Bin(n, p)."""
    _check(k, n, p)
    if k == n:
        return 1.0
    return float(regularized_beta(1 - mpf(p), n - k, k + 1))


def sf(k: int, n: int, p: float) -> float:
    """P(K >= k) = I_p(k, n - k + 1) for K ~ Bin(n, p)."""
    _check(k, n, p)
    if k == 0:
        return 1.0
    return float(regularized_beta(p, k, n - k + 1))


def two_sided_p_value(k: int, n: int, p: float) -> float:
    """2·min(P(K <= k), P(K >= k)), capped at 1: the exact two-sided binomial test."""
    return min(1.0, 2.0 * min(cdf(k, n, p), sf(k, n, p)))


__all__ = ["cdf", "regularized_beta", "sf", "two_sided_p_value"]
