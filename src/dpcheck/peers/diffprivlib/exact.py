"""dpcheck's exact side: the law ``randomise()`` samples and its exact quantities.

:func:`sampled_law` derives, from the inputs at their exact binary values, the
law each diffprivlib 0.6.6 class samples: ``LaplaceTruncated`` the BIT law of
Liu (2019) Definition 2(b), ``LaplaceFolded`` the folded law (exact
``TruncationAndFoldingMixin._fold``), ``LaplaceBoundedDomain`` the truncated
law of Definition 2(a) at the library's ``_find_scale()`` b.
:func:`exact_quantity` evaluates its bias/variance with mpmath
(:mod:`dpcheck.numeric.laws_at`); :func:`exact_scale` is the calibrated scale
of the truncated law (worst-case loss = ε - log(1-δ), Holohan et al. 2018);
:func:`relative_error` with the floors of :func:`_floor` is the discrepancy
measure, and AGREE its agreement threshold.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import mpmath
from mpmath import mpf

from dpcheck.peers.diffprivlib.library import (
    _as_mpf,
    _library_scale,
    _make,
    _randomise_scale,
    _text,
)
from dpcheck.peers.diffprivlib.points import Point, _num

#: relative errors at or below this count as agreement (double precision, a few roundings)
AGREE = mpf("1e-12")
#: the absolute floor, relative to the law's natural size (docstring of dpcheck.peers.diffprivlib)
FLOOR = mpf("1e-12")
#: digits of the exact values
DPS = 20


def _mp(q: Fraction | int | float | mpf) -> mpf:
    """An mpf at the working precision (exact for dyadic Fractions with room)."""
    if isinstance(q, Fraction):
        return mpf(q.numerator) / q.denominator
    return mpf(q)


@dataclass(frozen=True)
class ExactLaw:
    """The law randomise() samples: kind (bit, truncated, folded or point) at (s, c0, c1, λ)."""

    kind: str
    s: Fraction
    c0: Fraction
    c1: Fraction
    lam: Fraction

    def describe(self) -> str:
        if self.kind == "point":
            return f"point mass at {_num(float(self.s))}"
        return f"{self.kind} law at s={_num(float(self.s))}, λ={_num(float(self.lam))}"


def _clamp(v: Fraction, lower: Fraction, upper: Fraction) -> Fraction:
    return min(max(v, lower), upper)


def fold(v: Fraction, lower: Fraction, upper: Fraction) -> Fraction:
    """``TruncationAndFoldingMixin._fold`` in exact arithmetic: reflect into [lower, upper].

    Folding is even about lower and 2R-periodic, and Lap(0, λ) is symmetric, so
    fold(v + L) has the law of fold(fold(v) + L): a value outside the bounds
    gives the folded law at s = fold(v).
    """
    width = upper - lower
    if width == 0:
        return lower
    r = (v - lower) % (2 * width)
    return lower + (r if r <= width else 2 * width - r)


def sampled_law(point: Point) -> ExactLaw | str:
    """The exact law of ``randomise(value)``, or why it is not compared."""
    sens, lower, upper, v = point.exact
    if point.mechanism == "LaplaceBoundedDomain":
        if lower == upper:
            return (
                "lower == upper: randomise() rejection-samples until a draw equals the bound"
                " (it did not return in a trial run)"
            )
        b, exc = _library_scale(point)
        b_mpf = _as_mpf(b)
        if exc is not None or b_mpf is None or not mpmath.isfinite(b_mpf) or b_mpf < 0:
            why = f"{type(exc).__name__}: {exc}" if exc is not None else _text(b)
            return f"the library's scale is {why}: no law to compare with"
        s, lam, kind = _clamp(v, lower, upper), Fraction(float(b)), "truncated"
    else:
        lam = Fraction(_randomise_scale(_make(point)))
        if point.mechanism == "LaplaceTruncated":
            s, kind = _clamp(v, lower, upper), "bit"
        else:
            s, kind = fold(v, lower, upper), "folded"
    if lam == 0 or lower == upper:
        return ExactLaw("point", s, lower, upper, Fraction(0))
    if point.mechanism == "LaplaceTruncated" and not lower <= v <= upper:
        return (
            "value outside [lower, upper]: LaplaceTruncated does not clamp it, and dpcheck's"
            " BIT law (Liu 2019, Definition 2(b)) is derived for lower <= value <= upper"
        )
    return ExactLaw(kind, s, lower, upper, lam)


def exact_quantity(law: ExactLaw, name: str, value: Fraction) -> mpf:
    """bias (E[output] - value) or variance of the law, to about DPS digits."""
    from dpcheck.numeric import laws_at

    with mpmath.workdps(DPS + 10):
        shift = _mp(law.s - value)
        if law.kind == "point":
            return shift if name == "bias" else mpf(0)
        q = {"bias": "bias", "variance": "var"}[name]
        val = laws_at.moment(law.kind, q, law.s, law.c0, law.c1, law.lam, dps=DPS)
        return val + shift if name == "bias" else val


def _floor(law: ExactLaw, name: str, point: Point) -> mpf:
    k = 1 if name == "bias" else 2
    if law.kind == "point":
        size = max(Fraction(1), *(abs(x) for x in point.exact[1:]))
    else:
        size = min(law.lam, law.c1 - law.c0)
    return FLOOR * _mp(size) ** k


def relative_error(lib: mpf, exact: mpf, floor: mpf | int = 0) -> mpf:
    """|lib - exact| / max(|exact|, floor); inf for nan, 0 for equal infinities."""
    if mpmath.isnan(lib) or mpmath.isnan(exact):
        return mpf("inf")
    if mpmath.isinf(lib) or mpmath.isinf(exact):
        return mpf(0) if lib == exact else mpf("inf")
    denominator = max(abs(exact), floor)
    if denominator == 0:
        return mpf(0) if lib == exact else mpf("inf")
    return abs(lib - exact) / denominator


def _target(point: Point) -> mpf:
    """ε - log(1 - δ) at the exact inputs (inf for ε = inf or δ = 1)."""
    if math.isinf(point.epsilon) or point.delta == 1:
        return mpf("inf")
    return _mp(Fraction(point.epsilon)) - mpmath.log(1 - _mp(Fraction(point.delta)))


def exact_scale(point: Point) -> mpf:
    """The smallest b at which the truncated law's worst-case loss is ε - log(1-δ).

    :func:`dpcheck.numeric.privacy.scale_for_loss` with target ε - log(1-δ)
    (for δ = 0 that is :func:`dpcheck.numeric.privacy.calibrated_scale`).
    """
    from dpcheck.numeric import privacy

    sens, lower, upper, _ = point.exact
    with mpmath.workdps(DPS + 20):
        target = _target(point)
        if sens == 0 or mpmath.isinf(target):
            return mpf(0)
        return privacy.scale_for_loss("truncated", sens, lower, upper, target, dps=DPS + 5)
