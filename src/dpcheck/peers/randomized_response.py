"""Randomized response's exact privacy, from its two-point laws (Warner 1965), shared by
``dpcheck compare dp-accounting`` and ``dpcheck compare opendp`` (issue 19).

Input bit b is kept with probability ``keep`` and flipped otherwise.  Every quantity is
taken over the four events E of {0, 1} and both ordered input pairs, masses exact
(Fractions): the hockey-stick divergence sup_E P(E) - e^ε Q(E) (Dwork and Roth 2014,
Def. 2.4), its inverse, and the pure ratio sup_E P(E)/Q(E).
"""

from __future__ import annotations

from fractions import Fraction

import mpmath

#: the four events of the outputs {0, 1}
EVENTS = (frozenset(), frozenset({0}), frozenset({1}), frozenset({0, 1}))


def laws(keep: Fraction) -> tuple[dict[int, Fraction], dict[int, Fraction]]:
    """The output laws on {0, 1} of inputs 0 and 1."""
    return {0: keep, 1: 1 - keep}, {0: 1 - keep, 1: keep}


def event_masses(keep: Fraction) -> list[tuple[Fraction, Fraction]]:
    """(P(E), Q(E)) for every event and both ordered input pairs."""
    p, q = laws(keep)
    return [
        (sum((a[o] for o in ev), Fraction(0)), sum((b[o] for o in ev), Fraction(0)))
        for a, b in ((p, q), (q, p))
        for ev in EVENTS
    ]


def _mpf(x: Fraction) -> mpmath.mpf:
    return mpmath.mpf(x.numerator) / x.denominator


def delta(keep: Fraction, eps: Fraction | mpmath.mpf) -> mpmath.mpf:
    """δ(ε) = max over events and directions of P(E) - e^ε Q(E) (>= 0: E empty)."""
    e = mpmath.exp(_mpf(eps) if isinstance(eps, Fraction) else eps)
    return max(_mpf(pa) - e * _mpf(qb) for pa, qb in event_masses(keep))


def epsilon(keep: Fraction, target: Fraction) -> mpmath.mpf:
    """ε(δ) = min{ε >= 0 : P(E) - e^ε Q(E) <= δ for every E and direction}
    = max(0, max over E with P(E) > δ of log((P(E) - δ)/Q(E))), +∞ when Q(E) = 0 < P(E) - δ."""
    best = mpmath.mpf(0)
    for pa, qb in event_masses(keep):
        if pa <= target:
            continue
        if qb == 0:
            return mpmath.inf
        best = max(best, mpmath.log(_mpf((pa - target) / qb)))
    return best


def pure_ratio(keep: Fraction) -> Fraction | None:
    """exp(pure ε) = sup_E P(E)/Q(E), exact; None when some Q(E) = 0 < P(E) (ε infinite)."""
    ratio = Fraction(1)
    for pa, qb in event_masses(keep):
        if qb == 0:
            if pa > 0:
                return None
            continue
        ratio = max(ratio, pa / qb)
    return ratio
