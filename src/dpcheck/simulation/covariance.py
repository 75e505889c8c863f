"""Simulation study 1 (Liu 2019 §4.1, Table 1, Figure 1): sanitising a 2x2 covariance matrix.

For each setting (S11, S22, r), sample size n and mechanism, ``reps``
independent sanitisations of the fixed matrix S are drawn:

1. S11* and S22* within Table 1's bounds (0, n R_j^2 / (4(n-1))), with
   global sensitivity R_j^2/n and budget epsilon/3 each (λ = 3 R_j^2/(n epsilon));
2. S12* within ±sqrt(S11* S22*) (the interval need not contain S12), with
   global sensitivity R_1 R_2/n and budget epsilon/3;
3. r* = S12*/sqrt(S11* S22*), undefined (NaN) when S11* S22* = 0, which
   happens only under BIT, when a variance is released at its bound 0.

Everything is vectorised over (setting, n, repetition).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from dpcheck.numeric.arrays import Floats
from dpcheck.simulation import summaries
from dpcheck.simulation.mechanisms import MECHANISMS, sanitise

#: §4.1: "(1, 2, 0), (1, 2, -0.4), and (1, 2, 0.7)"
SETTINGS = ((1.0, 2.0, 0.0), (1.0, 2.0, -0.4), (1.0, 2.0, 0.7))
#: §4.1: "[c10, c11] at [-3, 3] and [c20, c21] at [-4.5, 4.5]"
BOUNDS = ((-3.0, 3.0), (-4.5, 4.5))
#: §4.1: "n from 50 to 800"; the paper does not list its grid, this one is evenly spaced
SIZES = tuple(range(50, 801, 50))
STATISTICS = ("S11", "S22", "S12", "r")


@dataclass(frozen=True)
class Study1Design:
    """The design of §4.1; the defaults are the paper's (500 sanitisations a cell, epsilon = 1)."""

    settings: tuple[tuple[float, float, float], ...] = SETTINGS
    bounds: tuple[tuple[float, float], ...] = BOUNDS
    sizes: tuple[int, ...] = SIZES
    epsilon: float = 1.0
    reps: int = 500
    seed: int = 20190401

    def scales(self, n: Floats) -> dict[str, Floats]:
        """λ of S11, S22, S12 (Table 1 sensitivities, budget epsilon/3 each)."""
        (a0, a1), (b0, b1) = self.bounds
        r1, r2 = a1 - a0, b1 - b0
        share = self.epsilon / 3
        return {"S11": r1**2 / n / share, "S22": r2**2 / n / share, "S12": r1 * r2 / n / share}

    def variance_upper(self, n: Floats) -> dict[str, Floats]:
        """Table 1's upper bounds n R_j^2 / (4(n - 1)) of S11 and S22."""
        (a0, a1), (b0, b1) = self.bounds
        return {
            "S11": n * (a1 - a0) ** 2 / (4 * (n - 1)),
            "S22": n * (b1 - b0) ** 2 / (4 * (n - 1)),
        }


@dataclass
class Study1Result:
    """Draws[mechanism][statistic] of shape (settings, sizes, reps), with their summaries.

    ``at_bound`` is the fraction of draws released on a bound of a proper interval
    (a covariance forced to 0 by a zero variance is not counted).
    """

    design: Study1Design
    draws: dict[str, dict[str, Floats]] = field(default_factory=dict)
    at_bound: dict[str, dict[str, Floats]] = field(default_factory=dict)

    def truth(self, statistic: str) -> Floats:
        """The original S11, S22, S12 or r of each setting."""
        s11, s22, r = (np.array(col) for col in zip(*self.design.settings, strict=True))
        return {"S11": s11, "S22": s22, "S12": r * np.sqrt(s11 * s22), "r": r}[statistic]

    def spread(self, mechanism: str, statistic: str) -> summaries.SpreadSummary:
        return summaries.spread(self.draws[mechanism][statistic])


def run_study1(
    design: Study1Design | None = None, progress: Callable[[int], None] | None = None
) -> Study1Result:
    """Run study 1: both mechanisms, every setting, size and repetition (§4.1)."""
    d = design or Study1Design()
    rng = np.random.default_rng(d.seed)
    n = np.array(d.sizes, dtype=float)[None, :, None]
    s11, s22, r = (np.array(col)[:, None, None] for col in zip(*d.settings, strict=True))
    shape = (len(d.settings), len(d.sizes), d.reps)
    lam, upper = d.scales(n), d.variance_upper(n)
    result = Study1Result(d)
    for mechanism in MECHANISMS:
        v11 = sanitise(rng, mechanism, np.broadcast_to(s11, shape), 0.0, upper["S11"], lam["S11"])
        v22 = sanitise(rng, mechanism, np.broadcast_to(s22, shape), 0.0, upper["S22"], lam["S22"])
        half = np.sqrt(v11 * v22)
        c12 = sanitise(rng, mechanism, r * np.sqrt(s11 * s22), -half, half, lam["S12"])
        with np.errstate(invalid="ignore", divide="ignore"):
            corr = np.where(half > 0, c12 / np.where(half > 0, half, 1.0), np.nan)
        result.draws[mechanism] = {"S11": v11, "S22": v22, "S12": c12, "r": corr}
        result.at_bound[mechanism] = {
            "S11": ((v11 <= 0) | (v11 >= upper["S11"])).mean(axis=-1),
            "S22": ((v22 <= 0) | (v22 >= upper["S22"])).mean(axis=-1),
            "S12": (((c12 <= -half) | (c12 >= half)) & (half > 0)).mean(axis=-1),
            "r": (((c12 <= -half) | (c12 >= half)) & (half > 0)).mean(axis=-1),
        }
        if progress:
            progress(1)
    return result
