"""The privacy of a folded mechanism, for any noise law on the real line (issue 35).

The output is s + Z reflected into [c0, c1] at both bounds (diffprivlib 0.6.6
``LaplaceFolded``; :mod:`dpcheck.laws.bounded`); neighbours are s, s' in [c0, c1] with
|s - s'| <= Δ, so the largest shift is step = min(Δ, c1 - c0).

* **Upper bound, certified.**  Folding is a function of the additive mechanism's output,
  so by the data-processing inequality δ(ε) and the pure ε are at most those of the
  additive mechanism s + Z at the shift ``step`` (:class:`~dpcheck.laws.additive.Additive`,
  certified in ball arithmetic).
* **Lower value, attained.**  The folded likelihood ratio is not proved monotone, so the
  optimal event is not known to be a half-line; the printed lower value is the largest
  H_ε(s, s') = P_s(E) - e^ε P_s'(E) found over half-line events E = {Y <= t} or {Y >= t}
  on a grid of the edge |s - s'| = step, each evaluated in ball arithmetic from the folded
  law's certified CDF (:meth:`dpcheck.laws.bounded.Bounded.folded_cdf`) and rounded down.
  It is a true value of the mechanism, so the exact δ(ε) lies in [lower, upper].

Before issue 35 this was derived for the Laplace base only; it now holds for every law
whose additive mechanism the law engine certifies (log-concave, closed-form CDF).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property

import flint
import mpmath
import numpy as np
import sympy as sp

from dpcheck.errors import InputError
from dpcheck.inputs.numbers import short
from dpcheck.laws.additive import Additive
from dpcheck.laws.bounded import MAX_IMAGES, Bounded
from dpcheck.laws.float64 import LawAt
from dpcheck.laws.noise import NoiseLaw
from dpcheck.laws.numeric import precision, to_mpf
from dpcheck.numeric.profile import (
    Epsilon,
    Profile,
    Pure,
    _le,
    _num,
    _round_down,
    _round_up,
    rational,
)

#: grid of the edge: inputs s in [c0, c1 - step], thresholds t in (c0, c1)
INPUTS, THRESHOLDS = 33, 1024
#: finer grids around the best point of the first
REFINE = 3
#: at most this many float64 CDF terms (images x thresholds) in one pass of the search
FLOATS = 200_000
#: bisection steps of the attained lower value of ε(δ)
EPSILON_STEPS = 40
DPS = 40

ATTAINED_RATIO = "the lower value is the log probability ratio of a half-line event on a" \
    " grid of the edge, in ball arithmetic"


def _log_ratio(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """log x/y where both are positive, -inf elsewhere (the pure ε's search score)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.log(x) - np.log(y)
    out[~((x > 0) & (y > 0) & np.isfinite(out))] = -np.inf
    return out


def _event(a: Fraction, b: Fraction, t: Fraction) -> str:
    """The printed half-line event of the pair (a, b): below t when a < b, else above."""
    return f"Y {'<=' if a < b else '>='} {_num(t)}"


UPPER = "upper bound by post-processing (folding is a function of the additive mechanism's"
ATTAINED = "the lower value is attained by a half-line event on a grid of the edge (the" \
    " folded likelihood ratio is not proved monotone)"


@dataclass
class FoldedMechanism:
    """s + Z folded into [c0, c1], s in [c0, c1], neighbours |s - s'| <= Δ."""

    law: NoiseLaw
    values: dict[str, Fraction]
    c0: Fraction
    c1: Fraction
    sensitivity: Fraction

    def __post_init__(self) -> None:
        if self.law.is_lattice:
            raise InputError(f"folded {self.law.name}: folding is defined for laws on the"
                             " real line")
        if not self.c0 < self.c1:
            raise InputError(f"c0 = {short(self.c0)}, c1 = {short(self.c1)}: expected c0 < c1")
        if self.sensitivity <= 0:
            raise InputError(f"sensitivity {short(self.sensitivity)}: expected > 0")

    @property
    def step(self) -> Fraction:
        return min(self.sensitivity, self.c1 - self.c0)

    @cached_property
    def additive(self) -> Additive:
        """The unfolded mechanism at the largest shift: its privacy bounds the fold's."""
        return Additive(self.law, self.values, self.step)

    # -- pure epsilon ---------------------------------------------------------------
    def pure_epsilon(self) -> Pure:
        """The additive mechanism's pure ε as the certified upper value; the lower value is
        the largest log P_s(E)/P_s'(E) found over half-line events on the grid of the edge
        (every event's log ratio is at most the pure ε), in ball arithmetic, rounded down."""
        return self._pure

    @cached_property
    def _pure(self) -> Pure:
        value = self.additive.pure_epsilon()
        upper = mpmath.inf if value is sp.oo else rational(value)
        if upper is None:
            raise InputError(f"the pure epsilon {value} is not rational")
        lower, where = Fraction(0), {}
        _, a, b, t = self._search(_log_ratio)
        if t is not None:
            with precision(DPS):
                pa, pb = self._event_masses(a, b, t)
                if pa > 0 and pb > 0:
                    ratio = (pa / pb).log()
                    if ratio.lower() > 0:
                        lower = Fraction(str(_round_down(to_mpf(ratio.lower()))))
                        where = {"s": short(a), "s'": short(b), "event": _event(a, b, t)}
        lower = min(lower, upper) if upper != mpmath.inf else lower
        return Pure(upper, lower,
                    f"upper bound (post-processing of the additive {self.law.name} mechanism);"
                    f" {ATTAINED_RATIO}", where,
                    "data-processing inequality; half-line events on a grid of the edge")

    # -- delta(epsilon) -------------------------------------------------------------
    def delta(self, eps: Fraction) -> Profile:
        pure = self.pure_epsilon()
        if _le(pure.upper_value, eps):
            return Profile(
                eps, mpmath.mpf(0), mpmath.mpf(0), Fraction(0), self.step, "none needed",
                f"exact: 0 (pure epsilon {pure.as_dict()['pure epsilon']} <= epsilon,"
                f" compared exactly; {pure.kind})", pure.method, [],
            )
        bound = self.additive.delta(eps)
        lower, s, s_prime, event = self._attained(eps)
        upper = max(bound.upper, lower)
        kind = f"{UPPER} output: its delta, certified in arb); {ATTAINED}"
        method = (f"additive {self.law.name} at the shift {_num(self.step)} (data-processing"
                  f" inequality); half-line events on a {INPUTS} x {THRESHOLDS} grid of the"
                  f" edge refined {REFINE} times (float64 search, the best confirmed in ball"
                  " arithmetic)")
        return Profile(eps, upper, lower, s, s_prime, event, kind, method, [])

    def _attained(self, eps: Fraction) -> tuple[mpmath.mpf, Fraction, Fraction, str]:
        """The largest attained H_ε: (value rounded down, s, s', event).  A float64 search
        over the grid (:meth:`_search`) picks the pair and event; the value printed is that
        event's H_ε in ball arithmetic from the certified folded CDF, rounded down."""
        e = math.exp(float(eps))
        _, a, b, t = self._search(lambda x, y: x - e * y)
        lower = mpmath.mpf(0)
        if t is not None:
            with precision(DPS):
                e = (flint.arb(eps.numerator) / eps.denominator).exp()
                pa, pb = self._event_masses(a, b, t)
                h = pa - e * pb
                if h.lower() > 0:
                    lower = mpmath.mpf(_round_down(to_mpf(h.lower())))
        if not lower > 0:
            return mpmath.mpf(0), self.c0, self.c0 + self.step, "empty event"
        return lower, a, b, _event(a, b, t)

    def _event_masses(self, a: Fraction, b: Fraction, t: Fraction) -> tuple:
        """(P_a(E), P_b(E)) in ball arithmetic for the half-line event of the search's
        pair (a, b): {Y <= t} when a < b, else {Y >= t} (:func:`_event`)."""
        fa, fb = self._cdf(a)(t), self._cdf(b)(t)
        return (fa, fb) if a < b else (1 - fa, 1 - fb)

    def _search(self, score: Callable[[np.ndarray, np.ndarray], np.ndarray]
                ) -> tuple[float, Fraction, Fraction, Fraction | None]:
        """(score, s, s', t) of the largest float64 score(P_s(E), P_s'(E)) over half-line
        events E (H_ε: x - e^ε y; the pure ε: log x/y): a grid of the edge, then
        :data:`REFINE` finer grids around the best point (a guide only: the value printed
        is recomputed in ball arithmetic)."""
        d = self.step
        # a wide law folds over many images: fewer thresholds keep each pass's arrays small
        points = max(32, min(THRESHOLDS, FLOATS // (2 * self._images + 1)))
        best: tuple[float, Fraction, Fraction, Fraction | None] = (0.0, self.c0, self.c0, None)
        s_lo, s_hi, t_lo, t_hi = self.c0, self.c1 - d, self.c0, self.c1
        for _ in range(REFINE + 1):
            inputs = sorted({s_lo + (s_hi - s_lo) * Fraction(i, INPUTS - 1)
                             for i in range(INPUTS)})
            ts = sorted({t_lo + (t_hi - t_lo) * Fraction(j, points)
                         for j in range(points + 1)} - {self.c0, self.c1})
            grid = np.array([float(t) for t in ts])
            for a in inputs:
                fa, fb = self._float_cdf(a, grid), self._float_cdf(a + d, grid)
                for h, pair in ((score(fa, fb), (a, a + d)), (score(1 - fb, 1 - fa), (a + d, a))):
                    j = int(np.argmax(h))
                    if h[j] > best[0]:
                        best = (float(h[j]), *pair, ts[j])
            if best[3] is None:
                break
            a = min(best[1], best[2])
            ds = (s_hi - s_lo) / (INPUTS - 1)
            dt = (t_hi - t_lo) / THRESHOLDS
            s_lo, s_hi = max(self.c0, a - ds), min(self.c1 - d, a + ds)
            reach = dt + 2 * ds  # the best threshold moves with the input
            t_lo, t_hi = max(self.c0, best[3] - reach), min(self.c1, best[3] + reach)
        return best

    def _float_cdf(self, s: Fraction, ys: np.ndarray) -> np.ndarray:
        """P(Y <= y) of the fold at input s in float64: the mass of the preimages of
        [c0, y], over the images that hold more than e^-45 of the law's scale units."""
        c0, width = float(self.c0), float(self.c1 - self.c0)
        n = self._images
        shifts = 2 * width * np.arange(-n, n + 1)[:, None]
        law = self._float_law
        z = -float(s)
        low = law.cdf(c0 + z + shifts)
        out = law.cdf(ys[None, :] + z + shifts) - low + low - law.cdf(2 * c0 - ys[None, :] + z
                                                                     + shifts)
        return np.clip(out.sum(axis=0), 0.0, 1.0)

    @cached_property
    def _images(self) -> int:
        """Images of the fold on each side holding more than e^-45 in the law's scale units."""
        scale = float(self.values[self.law.scale])
        return min(MAX_IMAGES, math.ceil(45 * scale / (2 * float(self.c1 - self.c0))) + 1)

    @cached_property
    def _float_law(self) -> LawAt:
        return LawAt(self.law, self.values)

    def _cdf(self, s: Fraction):  # type: ignore[no-untyped-def]
        return Bounded(self.law, self.values, "folded", s, self.c0, self.c1).output_cdf

    # -- epsilon(delta) -------------------------------------------------------------
    def epsilon(self, delta: Fraction) -> Epsilon:
        """ε(δ): the additive mechanism's certified ε(δ) is a safe upper value; the lower
        value is the largest ε (bisection) at which an attained half-line event still has
        H_ε > δ."""
        if not 0 <= delta < 1:
            raise InputError(f"delta {short(delta)}: expected 0 <= delta < 1")
        pure = self.pure_epsilon()
        if delta == 0:
            return Epsilon(delta, pure.upper_value, pure.lower_value, pure.kind, None)
        bound = self.additive.epsilon(delta)
        hi = Fraction(str(_round_up(bound.upper_value)))
        if hi == 0:
            return Epsilon(delta, hi, hi, f"exact: 0 ({UPPER} output: its epsilon(delta) is 0)",
                           self.delta(hi))
        lo, top = Fraction(0), hi
        for _ in range(EPSILON_STEPS):  # the float64 guide, then confirmed below
            mid = Fraction(float((lo + top) / 2))
            e = math.exp(float(mid))
            if self._search(lambda x, y, e=e: x - e * y)[0] > float(delta):
                lo = mid
            else:
                top = mid
        while lo > 0 and _le(self._attained(lo)[0], delta):
            lo = Fraction(float(lo / 2)) if lo > Fraction(1, 2**40) else Fraction(0)
        kind = (f"{UPPER} output: its epsilon(delta), certified); the lower value violates it"
                " (an attained half-line event on a grid), so the true epsilon(delta) lies"
                " between them")
        return Epsilon(delta, hi, lo, kind, self.delta(hi))
