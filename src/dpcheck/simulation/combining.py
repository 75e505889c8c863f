"""The multiple-synthesis combination rule used in Liu (2019) §4.2 (Figure 3).

"the inferences were then combined over the 5 sets using the rule given in
Liu [29]" (arXiv 1606.08052, model-based differentially private synthesis).
With m released sets, estimates q_l and within-set variances w_l:

    qbar = mean(q_l),   W = mean(w_l),   B = sum (q_l - qbar)^2 / (m - 1),
    T = W + B/m,        (qbar - q)/sqrt(T) ~ t_nu,  nu = (m - 1) (1 + m W / B)^2,

the partially-synthetic form of the rule (also Reiter 2003; summarised for DP
synthesis in NASEM 2024, "A Roadmap for Disclosure Avoidance in the SIPP",
Appendix B).  B = 0 gives nu = infinity (the normal quantile).

The t quantile is a degree-24 Chebyshev fit of t_{1/u, 0.975} in u = 1/nu on
[0, 1/(m-1)], fitted once to values computed with mpmath (the t CDF through the
regularised incomplete beta function); the tests bound its error by 1e-12.
"""

from __future__ import annotations

from functools import lru_cache

import mpmath
import numpy as np
from numpy.polynomial import chebyshev

from dpcheck.numeric.arrays import Floats

#: degree of the Chebyshev fit of t_{1/u} on u in [0, 1/nu_min]; nu >= m - 1 >= 1
CHEBYSHEV_DEGREE = 24


def t_quantile_exact(nu: float, level: float = 0.975, dps: int = 30) -> float:
    """The Student-t quantile t_{nu, level} (level > 1/2) with mpmath, to ``dps`` digits."""
    with mpmath.workdps(dps):
        if nu == float("inf"):
            return float(mpmath.sqrt(2) * mpmath.erfinv(2 * mpmath.mpf(level) - 1))
        nu_ = mpmath.mpf(nu)
        tail = 1 - mpmath.mpf(level)

        def upper_tail(t: mpmath.mpf) -> mpmath.mpf:
            x = nu_ / (nu_ + t * t)
            return mpmath.betainc(nu_ / 2, mpmath.mpf(1) / 2, 0, x, regularized=True) / 2 - tail

        z = mpmath.sqrt(2) * mpmath.erfinv(2 * mpmath.mpf(level) - 1)
        start = z + (z**3 + z) / (4 * nu_)
        return float(mpmath.findroot(upper_tail, start))


@lru_cache(maxsize=8)
def _chebyshev(u_max: float, level: float) -> Floats:
    """Chebyshev coefficients of u -> t_{1/u, level} on [0, u_max] (x = 2u/u_max - 1)."""
    k = np.arange(CHEBYSHEV_DEGREE + 1)
    x = np.cos(np.pi * (k + 0.5) / (CHEBYSHEV_DEGREE + 1))
    u = (x + 1) / 2 * u_max
    t = np.array([t_quantile_exact(1 / v, level, dps=20) for v in u])
    return chebyshev.chebfit(x, t, CHEBYSHEV_DEGREE)


def t_quantile(nu: Floats, level: float = 0.975, nu_min: float = 1.0) -> Floats:
    """t_{nu, level} elementwise for nu >= nu_min (inf allowed), from the Chebyshev fit."""
    nu = np.asarray(nu, dtype=float)
    u = np.where(np.isinf(nu), 0.0, 1.0 / np.where(np.isinf(nu), 1.0, nu))
    return chebyshev.chebval(2 * u * nu_min - 1, _chebyshev(1.0 / nu_min, level))


def combine(
    estimates: Floats, within: Floats, level: float = 0.95
) -> tuple[Floats, Floats, Floats]:
    """(qbar, lower, upper) of the combined interval over the sets axis (-1) of the inputs."""
    m = estimates.shape[-1]
    qbar = estimates.mean(axis=-1)
    w = within.mean(axis=-1)
    b = estimates.var(axis=-1, ddof=1)
    total = w + b / m
    with np.errstate(divide="ignore", invalid="ignore"):
        nu = np.where(b > 0, (m - 1) * (1 + m * w / np.where(b > 0, b, 1.0)) ** 2, np.inf)
    half = t_quantile(nu, 0.5 + level / 2, nu_min=m - 1) * np.sqrt(total)
    return qbar, qbar - half, qbar + half
