"""Accuracy of the float64 fast path against 50-digit mpmath (tests and bench share it).

The grid of issue 4: λ/R = 10^k for k = -8..8, s at both bounds, 1e-9·R
inside them, at the midpoint and 1e-9·R off it, and at 0.1·R and 0.7·R;
bounds [-0.7, 1.3] and [1e6, 1e6 + 3] (far from 0: the inputs' rounding).
The reference is the SymPy-derived closed form evaluated by
:func:`dpcheck.numeric.mp.adaptive` at the exact float inputs.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import mpmath
import numpy as np

from dpcheck.numeric import fast, mp

RATIOS = tuple(10.0**k for k in range(-8, 9))
BOUNDS = ((-0.7, 1.3), (1.0e6, 1.0e6 + 3.0))
#: allowed error: max(REL |value|, ABS (c1 - c0))
REL, ABS = 1e-12, 1e-15


def positions(c0: float, c1: float) -> list[float]:
    """s at, near and between the bounds."""
    r, mid = c1 - c0, (c0 + c1) / 2
    return [c0, c0 + 1e-9 * r, c0 + 0.1 * r, mid, mid + 1e-9 * r, c1 - 0.3 * r, c1 - 1e-9 * r, c1]


def reference(name: str, s: float, c0: float, c1: float, lam: float) -> mpmath.mpf:
    """The derived quantity at the exact float inputs, to 50 digits."""
    args = tuple(Fraction(v) for v in (s, c0, c1, lam))
    return mp.adaptive(mp.compiled(name), args, 50)


@dataclass(frozen=True)
class Worst:
    """The largest error of one quantity on the grid."""

    name: str
    score: float  # error / allowed; <= 1 meets the target
    relative: float  # the largest relative error where |value| > ABS·R
    at: tuple[float, float, float, float]  # (s, c0, c1, λ) of the largest score
    points: int


def score(got: float, ref: mpmath.mpf, width: float) -> tuple[float, float]:
    """(error / max(REL |ref|, ABS R), relative error)."""
    err = abs(mpmath.mpf(got) - ref)
    allowed = max(mpmath.mpf(REL) * abs(ref), mpmath.mpf(ABS) * width)
    # relative error where the relative target binds (|ref| > ABS·R); values
    # below that (e.g. e^{-5e7}-small biases) are judged absolutely
    rel = err / abs(ref) if abs(ref) > mpmath.mpf(ABS) * width else mpmath.mpf(0)
    return float(err / allowed), float(rel)


def worst_error(name: str, bounds: tuple[float, float]) -> Worst:
    """Evaluate ``name`` on the grid for ``bounds`` and return its worst point."""
    c0, c1 = bounds
    width = c1 - c0
    s_grid, lam_grid = np.meshgrid(positions(c0, c1), [r * width for r in RATIOS])
    got = fast.evaluate(name, s_grid, c0, c1, lam_grid)
    best = (0.0, (0.0, c0, c1, 0.0))
    largest_rel = 0.0
    for (i, j), value in np.ndenumerate(got):
        at = (float(s_grid[i, j]), c0, c1, float(lam_grid[i, j]))
        sc, rel = score(float(value), reference(name, *at), width)
        largest_rel = max(largest_rel, rel)
        if sc > best[0]:
            best = (sc, at)
    return Worst(name, best[0], largest_rel, best[1], got.size)


__all__ = ["BOUNDS", "RATIOS", "Worst", "positions", "reference", "score", "worst_error"]
