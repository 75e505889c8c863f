"""Narrowing a certified bracket [lo, hi] of a monotone decision, guided by estimates
(issue 35): ε(δ) (:func:`dpcheck.laws.additive.epsilon_by_narrowing`) and the
calibrated scale (:mod:`dpcheck.laws.calibrate`) both look for the point where a
certified decision ("δ(ε) <= δ?", "(ε, δ)-DP at this scale?") turns from no to yes.

Each probe is a certified decision: ``judge(x)`` returns (True: x is on the upper side,
False: the lower side, None: undecided) and a float ``gap``, an estimate of
log(δ(x)/target) (positive below the root, negative above; NaN when there is none), a float or an
mpmath number.
Where both ends carry a gap, the next probe is the Illinois variant of regula falsi
(Dowell and Jarratt 1971: the end kept twice has its gap halved), which converges
superlinearly instead of bisection's one bit per probe; every probe is clipped at
least ``rtol·hi/4`` inside the bracket, and without gaps the probe is the midpoint.
The estimates only choose where to probe: the bracket's ends are always certified
decisions, so a poor estimate costs probes, never correctness.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction

import mpmath

#: a gap estimate: a float, or an mpmath number where it may fall below float64's range
#: (the quantile's CDF gaps at 1000 digits)
Gap = float | mpmath.mpf
#: a probe: (decision, gap estimate)
Judge = Callable[[Fraction], tuple[bool | None, Gap]]


def log_gap(value: object, target: Fraction) -> float:
    """log(value/target) as a float (value a Fraction or an mpmath number); NaN unless
    value > 0.  The gap a probe reports."""
    if isinstance(value, Fraction):
        v = mpmath.mpf(value.numerator) / value.denominator
    else:
        v = mpmath.mpf(value)  # type: ignore[arg-type]
    if not v > 0:
        return math.nan
    return float(mpmath.log(v)) - (math.log(target.numerator) - math.log(target.denominator))


def _short(x: Fraction, lo: Fraction, hi: Fraction) -> Fraction:
    """x as a float's dyadic when that stays strictly inside (lo, hi): short numbers keep
    the balls cheap."""
    try:
        y = Fraction(float(x))
    except OverflowError:  # pragma: no cover - beyond float64: keep x
        return x
    return y if lo < y < hi else x


def _probe(lo: Fraction, hi: Fraction, g_lo: Gap, g_hi: Gap, rtol: Fraction) -> Fraction:
    mid = _short((lo + hi) / 2, lo, hi)
    if not (mpmath.isfinite(g_lo) and mpmath.isfinite(g_hi) and g_lo > 0 > g_hi):
        return mid
    margin = rtol * abs(hi) / 4
    if hi - lo <= 2 * margin:
        return mid
    weight = Fraction(float(g_lo / (g_lo - g_hi)))  # where the chord of the gaps crosses 0
    x = lo + weight * (hi - lo)
    x = min(max(x, lo + margin), hi - margin)
    return _short(x, lo, hi)


def narrow(
    lo: Fraction, hi: Fraction, rtol: Fraction, judge: Judge,
    g_lo: Gap = math.nan, g_hi: Gap = math.nan,
) -> tuple[Fraction, Fraction, int]:
    """Narrow the certified bracket (judge(lo) False, judge(hi) True) until
    hi - lo <= rtol·|hi| or a probe is undecided.  Returns (lo, hi, probes)."""
    lo, hi, probes, _ = narrow_to_point(lo, hi, rtol, judge, g_lo, g_hi)
    return lo, hi, probes


def narrow_to_point(
    lo: Fraction, hi: Fraction, rtol: Fraction, judge: Judge,
    g_lo: Gap = math.nan, g_hi: Gap = math.nan,
) -> tuple[Fraction, Fraction, int, Fraction | None]:
    """:func:`narrow`, and the undecided probe where it stopped (None when the bracket
    closed): the root lies next to it, within what the decisions cannot resolve."""
    kept = 0  # +1: hi kept last time, -1: lo kept
    probes = 0
    while hi - lo > rtol * abs(hi):
        x = _probe(lo, hi, g_lo, g_hi, rtol)
        if not lo < x < hi:
            break
        got, gap = judge(x)
        probes += 1
        if got is None:
            return lo, hi, probes, x
        if got:
            hi, g_hi = x, gap
            if kept == -1:
                g_lo /= 2  # Illinois: lo kept twice in a row
            kept = -1
        else:
            lo, g_lo = x, gap
            if kept == 1:
                g_hi /= 2
            kept = 1
    return lo, hi, probes, None


__all__ = ["Judge", "log_gap", "narrow", "narrow_to_point"]
