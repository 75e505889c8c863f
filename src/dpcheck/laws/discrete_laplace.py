"""The two-sided geometric (discrete Laplace) law on the integers: P(k) ∝ exp(-|k|/b)
(Ghosh, Roughgarden and Sundararajan 2009; OpenDP's integer Laplace).

The normaliser (1 + α)/(1 - α), α = e^{-1/b}, and every moment are SymPy's sums.  The
law gives its float64 draws (:mod:`dpcheck.laws.draws`; draw parameter θ = the rate
r = 1/b = -log α):

* the noise: Z = ⌊E1/r⌋ - ⌊E2/r⌋ with E1, E2 iid Exp(1): ⌊E/r⌋ is exactly geometric
  on {0, 1, ...} with P(⌊E/r⌋ >= k) = e^{-kr} = α^k, and the difference of two iid
  such variables is the two-sided geometric.  (numpy's ``Generator.geometric`` is the
  same law but returns int64 and saturates at 2^63 - 1 for success probabilities below
  about 1e-18, i.e. b above 1e18.)
* truncated: exact inversion on the integers of [c0, c1], split at s like the Laplace:
  with u = s - c0 and v = c1 - s (integers, possibly infinite) the unnormalised masses
  are 1 at s and M(d) = α(-expm1(-d r))/(-expm1(-r)) = Σ_{m=1}^{d} α^m on each side,
  all sums of non-negative terms; a uniform picks s, the lower or the upper side, and
  the distance on that side is 1 + ⌊T/r⌋ with T ~ Exp(1) truncated to [0, d r) (drawn
  by inversion), which is P(distance = m) ∝ α^m on 1..d.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from fractions import Fraction

import numpy as np
import sympy as sp

from dpcheck.laws.draws import BELOW_ONE, TINY, Floats, pick, truncated_exponential
from dpcheck.laws.noise import NoiseLaw, Param, k

scale = Param("scale", "positive", "the scale b (alpha = exp(-1/b))")


class DiscreteLaplace(NoiseLaw):
    """The discrete Laplace law with its exact float64 draws."""

    @staticmethod
    def _draw_theta(values: Mapping[str, Floats]) -> Floats:
        """θ = the rate 1/b (floats or arrays of the parameters)."""
        return 1.0 / values["scale"]

    @staticmethod
    def _pure_dp_scale(sensitivity: Fraction, epsilon: Fraction) -> Fraction:
        """The textbook scale Δ/ε of ε-DP for x + Z (Ghosh, Roughgarden and Sundararajan
        2009): the audit's default."""
        return sensitivity / epsilon

    @staticmethod
    def _standard_fourth_moment(scale: float) -> float:
        """E(Z/b)⁴ with α = e^{-1/b}: E Z⁴ = 2α(1 + 10α + α²)/(1 - α)⁴ (from
        Σ m⁴ α^m = α(1 + 11α + 11α² + α³)/(1 - α)⁵), divided by b⁴, written with
        (1 - α)·b = -expm1(-1/b)·b in (0, 1] so that nothing overflows at large b."""
        a = math.exp(-1.0 / scale)
        one_minus_b = -math.expm1(-1.0 / scale) * scale
        return 2.0 * a * (1.0 + 10.0 * a + a * a) / one_minus_b**4

    @staticmethod
    def _noise_draws(gen: np.random.Generator, n: int, rate: Floats) -> Floats:
        """⌊E1/r⌋ - ⌊E2/r⌋ (module docstring).  At a scale near float64's limit both
        floors may overflow to inf (E > 1.8e308·r, probability about e^-18 each at
        b = 1e307); the difference is then ±inf by the sign of E1 - E2 (|Z| below
        float64's range has probability far below 2^-53 there), never inf - inf = NaN;
        only the clamp of a bounded law sees it, and clips it to the bound on that side."""
        e1, e2 = gen.standard_exponential(n), gen.standard_exponential(n)
        z = np.floor(e1 / rate)
        with np.errstate(invalid="ignore"):  # inf - inf, replaced below
            z -= np.floor(e2 / rate)
        both = np.isnan(z)
        if both.any():
            z[both] = np.sign(e1[both] - e2[both]) * np.inf
            z[both & (e1 == e2)] = 0.0
        return z

    @staticmethod
    def _truncated_draws(gen: np.random.Generator, n: int, s, c0, c1, rate) -> Floats:  # type: ignore[no-untyped-def]
        """One block of the exact inversion on the integers (module docstring).

        W = U(1 + M(u) + M(v)) picks s, then the lower side, then the upper one; on the
        chosen side (W - offset)/M(d) is uniform on [0, 1) and the distance is
        1 + ⌊T/r⌋ with T = -log1p(-(W - offset)/M(d)·(-expm1(-d r))), the exponential
        truncated to [0, d r).
        """
        u_dist = s - c0  # integers (or inf)
        v_dist = c1 - s
        alpha_over = np.exp(-rate) / -np.expm1(-rate)  # α/(1 - α)
        q0 = -np.expm1(-u_dist * rate)
        q1 = -np.expm1(-v_dist * rate)
        m0 = alpha_over * q0
        m1 = alpha_over * q1
        w = gen.random(n)
        w *= 1.0 + m0 + m1
        case = (w >= 1.0).astype(np.intp)  # 0: at s, 1: below, 2: above
        case += w >= 1.0 + m0
        w -= pick(case, [0.0, 1.0, 1.0 + m0])
        with np.errstate(invalid="ignore", divide="ignore"):
            w /= pick(case, [1.0, m0, m1])  # uniform on [0, 1) on the chosen side
        np.clip(w, 0.0, BELOW_ONE, out=w)
        np.nan_to_num(w, copy=False, nan=0.0)
        steps = truncated_exponential(w, pick(case, [0.0, q0, q1]), scaled=True)
        steps /= rate
        d = pick(case, [0.0, u_dist, v_dist])
        if np.any(rate < TINY):
            # caps d·r that underflow (d >= 1 on a side that can be chosen): the distance
            # is uniform on 1..d
            with np.errstate(invalid="ignore"):
                steps = np.where(d * rate < TINY, w * d, steps)
        np.floor(steps, out=steps)
        steps += 1.0
        np.minimum(steps, d, out=steps)
        steps *= pick(case, [0.0, -1.0, 1.0])
        steps += s
        return steps


LAW = DiscreteLaplace(
    "discrete-laplace",
    sp.exp(-sp.Abs(k) / scale.symbol),
    "integers",
    (scale,),
    "scale",
    source="Ghosh, Roughgarden and Sundararajan 2009",
)
