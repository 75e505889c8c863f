"""The false-alarm budget of the statistical tests that repeat a seeded run (issues 19, 20).

A correct implementation may fail one such test with probability at most 1e-6: a test
that counts alarms over ``k`` independent runs, each alarming with probability at most
``alpha``, allows ``binomial_quantile(k, alpha, ALARM_LEVEL)`` of them.
"""

from __future__ import annotations

import math
from fractions import Fraction

ALARM_LEVEL = 1 - Fraction(1, 10**6)


def binomial_quantile(k: int, alpha: Fraction, level: Fraction) -> int:
    """The smallest m with P(Binomial(k, alpha) <= m) >= level, in exact rational arithmetic."""
    total = Fraction(0)
    for m in range(k + 1):
        total += math.comb(k, m) * alpha**m * (1 - alpha) ** (k - m)
        if total >= level:
            return m
    return k
