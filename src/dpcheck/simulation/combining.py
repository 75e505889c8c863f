"""The multiple-synthesis combination rule used in Liu (2019) §4.2 (Figure 3).

"the inferences were then combined over the 5 sets using the rule given in
Liu [29]" (arXiv 1606.08052, model-based differentially private synthesis).
With m released sets, estimates q_l and within-set variances w_l:

    qbar = mean(q_l),   W = mean(w_l),   B = sum (q_l - qbar)^2 / (m - 1),
    T = W + B/m,        (qbar - q)/sqrt(T) ~ t_nu,  nu = (m - 1) (1 + m W / B)^2,

the partially-synthetic form of the rule (also Reiter 2003; summarised for DP
synthesis in NASEM 2024, "A Roadmap for Disclosure Avoidance in the SIPP",
Appendix B).  B = 0 gives nu = infinity (the normal quantile).

The t quantile is scipy's ``special.stdtrit`` (the inverse of the t CDF, which
gives the normal quantile at nu = infinity); :func:`t_quantile_exact` computes
it independently with mpmath (the t CDF through the regularised incomplete beta
function) and the tests bound the difference by 1e-12.
"""

from __future__ import annotations

import mpmath
import numpy as np
from scipy import special

from dpcheck.numeric.arrays import Floats


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


def t_quantile(nu: Floats, level: float = 0.975, nu_min: float = 1.0) -> Floats:
    """t_{nu, level} elementwise for nu >= nu_min (inf allowed): scipy's ``stdtrit``.

    ``nu_min`` is kept for the callers (it bounded the range of an earlier fit).
    """
    nu = np.asarray(nu, dtype=float)
    return special.stdtrit(nu, level)


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
