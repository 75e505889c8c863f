"""Binomial tables in floats with certified error bounds (for the multi-bit bound's evaluators).

A table is Bin(R, t) on a window lo..hi, t an exact float.  The value at the mode comes
from FLINT arb (one lgamma evaluation, correct to about one ulp); the others are ratio
products f(k+1) = f(k) (R - k)/(k + 1) t/(1 - t), each step at most 4 roundings, so every
entry is within a relative ``eta`` = (4 |k - mode| + 2) u of the exact value (u = 2^-53;
Higham, *Accuracy and Stability*, §3.1, products of nonnegative numbers); entries that
underflow are 0 (an absolute error below 1e-300).  The window holds all but
``tail`` = 2 exp(-lam) of the mass (Bernstein's inequality on each side, as in
:func:`dpcheck.enumeration.krand_l1_exact.binom_window`).

Sums of nonnegative floats: any summation order is within gamma_(m-1) = (m - 1)u/(1 - (m - 1)u)
of the exact sum (Higham, Lemma 3.1 and §4.2), which :func:`gamma` returns.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import flint
import numpy as np

from dpcheck.enumeration.krand_l1_exact import bernstein_t
from dpcheck.enumeration.krand_work import byte_cache

U = 2.0**-53
#: Windows hold all but 2 exp(-LAM) of each binomial.
LAM = 60.0


def gamma(m: int) -> float:
    """gamma_m = m u / (1 - m u): the relative error bound of a sum of m + 1 nonnegative floats."""
    mu = m * U
    return mu / (1 - mu) if mu < 0.5 else math.inf


def window(R: int, t: float, lam: float = LAM) -> tuple[int, int]:
    """[lo, hi] holding all but exp(-lam) of Bin(R, t) on each side (Bernstein)."""
    if R == 0 or t <= 0.0:
        return 0, 0
    if t >= 1.0:
        return R, R
    mu = R * t
    r = bernstein_t(R * t * (1 - t), lam)
    return max(0, math.floor(mu - r) - 1), min(R, math.ceil(mu + r) + 1)


def _pmf_at(R: int, t: float, k: int) -> float:
    """Bin(R, t) at k, to about one ulp (arb at 128 bits, t exact)."""
    with flint.ctx.workprec(128):
        ta = flint.arb(t)
        lg = (
            flint.arb(R + 1).lgamma()
            - flint.arb(k + 1).lgamma()
            - flint.arb(R - k + 1).lgamma()
            + k * ta.log()
            + (R - k) * (1 - ta).log()
        )
        return float(lg.exp().mid())


@dataclass(frozen=True)
class Table:
    """Bin(R, t) on lo..hi: f[i] = pmf(lo + i) within a relative eta; tail outside."""

    R: int
    t: float
    lo: int
    hi: int
    f: np.ndarray
    eta: float
    tail: float


#: Memory the cached tables may hold (least recently used dropped first; it was a count of
#: 20 000 tables, about 0.6 GB at n = 10^5, where a table holds some 3500 entries).
TABLE_CACHE_BYTES = 2**28


@byte_cache(lambda: TABLE_CACHE_BYTES, lambda tab: int(tab.f.nbytes) + 200)
def binom_table(R: int, t: float, lam: float = LAM) -> Table:
    """Bin(R, t) on its window (module doc), t an exact float in [0, 1]; cached within
    :data:`TABLE_CACHE_BYTES`."""
    if R == 0 or t <= 0.0:
        return Table(R, t, 0, 0, np.ones(1), 0.0, 0.0)
    if t >= 1.0:
        return Table(R, t, R, R, np.ones(1), 0.0, 0.0)
    lo, hi = window(R, t, lam)
    mode = min(max(int((R + 1) * t), lo), hi)
    f0 = _pmf_at(R, t, mode)
    odds = t / (1.0 - t)
    k = np.arange(mode, hi, dtype=float)
    right = f0 * np.cumprod((R - k) / (k + 1) * odds)
    k = np.arange(mode, lo, -1, dtype=float)
    left = f0 * np.cumprod(k / (R - k + 1) / odds)
    f = np.concatenate((left[::-1], [f0], right))
    eta = (4 * max(mode - lo, hi - mode) + 2) * U + 2 * U  # ratio products; odds rounded
    # t/(1 - t) is itself rounded (2 roundings): a relative error of |k - mode| * 2u more
    eta += 2 * U * max(mode - lo, hi - mode)
    return Table(R, t, lo, hi, f, eta, 2 * math.exp(-lam))
