"""Tests of draws against an exact law, each with a stated false-alarm probability.

A sampler is compared with the exact law of Liu (2019) Definition 2 (eqs (4),
(5)) by four tests whose false-alarm probability for a correct sampler is
bounded by a stated ``alpha`` without any asymptotic approximation:

* the mean, by Bernstein's inequality with the exact variance (|X - μ| <= R);
* the second moment about s, by Bernstein's inequality with
  Var((X-s)²) <= R² E(X-s)² (bounded by the exact MSE);
* the whole law, by the Dvoretzky–Kiefer–Wolfowitz inequality with
  Massart's constant, P(sup|F_n - F| > t) <= 2 e^{-2nt²}, which holds for any
  F, point masses included (:func:`ks_distance` takes the sup over the jumps
  of both F_n and F);
* each point mass of the BIT law, by an exact two-sided binomial test.

The exact values come from :mod:`dpcheck.numeric.fast`, itself checked
against 50-digit mpmath of the derived forms.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from dpcheck.errors import InputError
from dpcheck.numeric import fast
from dpcheck.sampling.binomial import two_sided_p_value


def dkw_threshold(n: int, alpha: float) -> float:
    """t with 2 exp(-2 n t²) = alpha: P(sup|F_n - F| > t) <= alpha (DKW, Massart 1990)."""
    return math.sqrt(math.log(2 / alpha) / (2 * n))


def bernstein_halfwidth(n: int, variance: float, bound: float, alpha: float) -> float:
    """t with P(|mean_n - μ| >= t) <= alpha when |X - μ| <= bound and Var X <= variance.

    Bernstein: P(|mean_n - μ| >= t) <= 2 exp(-n t² / (2σ² + 2bt/3)); t is the
    positive root of n t² = L (2σ² + 2bt/3) with L = log(2/alpha).
    """
    log_term = math.log(2 / alpha)
    linear = 2 * bound * log_term / 3
    return (linear + math.sqrt(linear * linear + 8 * n * log_term * variance)) / (2 * n)


def ks_distance(
    draws: ArrayLike,
    cdf: Callable[[np.ndarray], np.ndarray],
    atoms: Sequence[tuple[float, float]] = (),
) -> float:
    """sup_y |F_n(y) - F(y)| over the jumps of both, point masses included.

    ``cdf`` maps an array of outputs to F there (vectorised); ``atoms`` lists
    the (y, P(Y = y)) of the law.  Between consecutive jumps F_n is constant
    and F continuous and nondecreasing, so the sup is approached at the jumps:
    compare F_n(y) with F(y) and F_n(y-) with F(y-) = F(y) - P(Y = y) at every
    distinct draw and every atom.
    """
    xs = np.sort(np.asarray(draws, dtype=np.float64).reshape(-1))
    n = xs.size
    if n == 0:
        raise InputError("no draws to test (expected at least one)")
    atom_at = {float(y): float(p) for y, p in atoms}
    points = np.unique(np.concatenate([xs, np.array(sorted(atom_at), dtype=np.float64)]))
    below = np.searchsorted(xs, points, side="left") / n
    upto = np.searchsorted(xs, points, side="right") / n
    f_y = np.asarray(cdf(points), dtype=np.float64)
    jump = np.array([atom_at.get(float(y), 0.0) for y in points]) if atom_at else 0.0
    f_left = f_y - jump
    return float(max(np.max(np.abs(upto - f_y)), np.max(np.abs(below - f_left))))


@dataclass(frozen=True)
class Check:
    """One test of draws against the exact law: passes when statistic <= threshold."""

    name: str
    statistic: float
    threshold: float
    alpha: float
    detail: str

    @property
    def passed(self) -> bool:
        return bool(self.statistic <= self.threshold)

    def __str__(self) -> str:
        verdict = "ok" if self.passed else "FAILED"
        return (
            f"{self.name}: {self.statistic:.4g} vs threshold {self.threshold:.4g}"
            f" (false alarm <= {self.alpha:.2g}) {verdict}; {self.detail}"
        )


def check_law(
    draws: ArrayLike,
    mechanism: str,
    s: float,
    c0: float,
    c1: float,
    lam: float,
    alpha: float = 1e-6,
) -> list[Check]:
    """Test draws of ``mechanism`` at scalar (s, c0, c1, λ) against the exact law.

    The tests together have false-alarm probability <= ``alpha`` (a union
    bound: alpha/4 each for mean, second moment and law; for BIT the law's
    share is split with the two point masses).  Returns every check, passed
    or not.
    """
    x = np.asarray(draws, dtype=np.float64).reshape(-1)
    n = x.size
    if n == 0:
        raise InputError("no draws to test (expected at least one)")
    width = c1 - c0
    mean, var, mse = (
        float(fast.evaluate(f"{mechanism}.{q}", s, c0, c1, lam)) for q in ("mean", "var", "mse")
    )
    share = alpha / 4 if mechanism == "truncated" else alpha / 6
    checks = []
    t_mean = bernstein_halfwidth(n, var, width, share)
    checks.append(
        Check(
            "mean",
            abs(float(x.mean()) - mean),
            t_mean,
            share,
            f"sample mean {x.mean():.10g}, exact {mean:.10g} (Bernstein, exact variance {var:.4g})",
        )
    )
    sq = (x - s) ** 2
    t_sq = bernstein_halfwidth(n, width * width * mse, width * width, share)
    checks.append(
        Check(
            "second moment about s",
            abs(float(sq.mean()) - mse),
            t_sq,
            share,
            f"sample {sq.mean():.10g}, exact MSE {mse:.10g} (Bernstein, Var <= R^2 MSE)",
        )
    )
    atoms: list[tuple[float, float]] = []
    if mechanism == "bit":
        p0, p1 = (float(p) for p in fast.point_masses("bit", s, c0, c1, lam))
        atoms = [(c0, p0), (c1, p1)]
    ks = ks_distance(x, lambda ys: fast.cdf(mechanism, ys, s, c0, c1, lam), atoms)
    checks.append(
        Check(
            "law (sup |F_n - F|)",
            ks,
            dkw_threshold(n, share),
            share,
            f"n = {n}, exact CDF of the {mechanism} law (DKW with Massart's constant)",
        )
    )
    for where, (y, p) in zip(("c0", "c1"), atoms, strict=False):
        count = int(np.count_nonzero(x == y))
        p_value = two_sided_p_value(count, n, p)
        # statistic log(1/p) passes while p >= share
        checks.append(
            Check(
                f"point mass at {where}",
                0.0 - math.log(max(p_value, 1e-300)),
                -math.log(share),
                share,
                f"{count}/{n} draws at {where}, exact mass {p:.6g}, two-sided binomial p = "
                f"{p_value:.3g}",
            )
        )
    return checks


def uniform_by_pit(
    draws: ArrayLike,
    mechanism: str,
    s: ArrayLike,
    c0: ArrayLike,
    c1: ArrayLike,
    lam: ArrayLike,
    rng: np.random.Generator,
) -> np.ndarray:
    """Randomised probability integral transform: iid Uniform(0, 1) iff the law is right.

    U = F(y-) + V (F(y) - F(y-)), V ~ Uniform(0, 1) independent: for draws with
    heterogeneous parameters (one draw per (s, c0, c1, λ)) this reduces the
    test of a vectorised sampler to a test of uniformity.
    """
    y = np.asarray(draws, dtype=np.float64)
    f_y = fast.cdf(mechanism, y, s, c0, c1, lam)
    jump = np.zeros_like(f_y)
    if mechanism == "bit":
        p0, p1 = fast.point_masses("bit", s, c0, c1, lam)
        c0_, c1_ = np.broadcast_arrays(np.asarray(c0, dtype=float), np.asarray(c1, dtype=float))
        jump = np.where(y == np.broadcast_to(c0_, y.shape), np.broadcast_to(p0, y.shape), jump)
        jump = np.where(y == np.broadcast_to(c1_, y.shape), np.broadcast_to(p1, y.shape), jump)
    return f_y - jump * rng.random(y.shape)


__all__ = [
    "Check",
    "bernstein_halfwidth",
    "check_law",
    "dkw_threshold",
    "ks_distance",
    "uniform_by_pit",
]
