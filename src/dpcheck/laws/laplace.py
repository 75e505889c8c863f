"""The Laplace law Lap(0, λ): density exp(-|z|/λ)/(2λ) (Liu 2019, §2.2, eq (2)).

Everything else (normaliser, tails, moments, privacy) is derived by
:mod:`dpcheck.laws`; SymPy integrates each side in closed form.  The law gives its
float64 draws (:mod:`dpcheck.laws.draws`; draw parameter θ = λ):

* the noise: λ(E1 - E2), E1, E2 iid Exp(1) (numpy's ziggurat): the difference of two
  Exp(1) is Lap(0, 1) exactly, including the tails;
* truncated (Definition 2(a)): inversion of one uniform split at s, with no rejection
  loop.  W = U (P1(u) + P1(v)) is twice the Laplace mass between s and the draw,
  counted over [c0, s] first and then over [s, c1] (P1(x) = -expm1(-x),
  u = (s - c0)/λ, v = (c1 - s)/λ): for W < P1(u) the draw lies -λ log1p(-W) below s,
  otherwise -λ log1p(-(W - P1(u))) above it.  Every mass is a sum of non-negative
  terms computed with expm1, so nothing cancels: the law is exact up to the 2^-53
  resolution of the uniform for λ/(c1 - c0) from 1e-300 to 1e300 (a textbook inversion
  of the untruncated CDF between F(c0) and F(c1) collapses once λ ≫ c1 - c0:
  tests/test_samplers.py shows it failing at λ/R = 1e14);
* folded (diffprivlib's LaplaceFolded; :mod:`dpcheck.symbolic.folding`): fold(X),
  X ~ Lap(s, λ), where fold is even about c0 and 2R-periodic (R = c1 - c0).  By the
  memorylessness of the exponential, given that X leaves [c0, c1] through c1 its
  overshoot X - c1 is λE' with E' ~ Exp(1), and fold(X) = c1 - tri(λE' mod 2R),
  tri(t) = min(t, 2R - t) (likewise through c0).  E' mod p, p = 2R/λ, has the
  exponential law truncated to [0, p) (independent of the number of whole periods),
  so it is drawn directly by inversion.  Nothing loops and nothing cancels: at
  λ/R = 1e300 the overshoot modulo 2R is still exactly distributed, whereas ``fmod``
  of a float64 Laplace draw there only sees the draw's last bits.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction

import numpy as np
import sympy as sp

from dpcheck.laws.draws import TINY, Floats, pick, truncated_exponential
from dpcheck.laws.noise import NoiseLaw, Param, z

lam = Param("lam", "positive", "the scale lambda")


class Laplace(NoiseLaw):
    """The Laplace law with its exact float64 draws."""

    @staticmethod
    def _draw_theta(values: Mapping[str, Floats]) -> Floats:
        """θ = λ (floats or arrays of the parameters)."""
        return values["lam"]

    @staticmethod
    def _pure_dp_scale(sensitivity: Fraction, epsilon: Fraction) -> Fraction:
        """The textbook scale Δ/ε of ε-DP for x + Z (Dwork et al. 2006): the audit's default."""
        return sensitivity / epsilon

    @staticmethod
    def _standard_fourth_moment(scale: float) -> float:
        """E(Z/λ)⁴ = 24 (E|L|^k = k! for the standard Laplace)."""
        return 24.0

    @staticmethod
    def _noise_draws(gen: np.random.Generator, k: int, lam: Floats) -> Floats:
        noise = gen.standard_exponential(k)
        noise -= gen.standard_exponential(k)
        noise *= lam
        return noise

    @staticmethod
    def _truncated_draws(gen: np.random.Generator, k: int, s, c0, c1, lam) -> Floats:  # type: ignore[no-untyped-def]
        """One block of the inversion (module docstring).

        The distances are divided by λ, never multiplied by 1/λ: at a subnormal λ, 1/λ
        is inf and (c0 - s)·inf is NaN when s = c0; a quotient that overflows is -inf,
        whose expm1 is the right limit -1.
        """
        with np.errstate(over="ignore"):
            below_mass = -np.expm1((c0 - s) / lam)  # P1(u)
            total = below_mass - np.expm1((s - c1) / lam)  # P1(u) + P1(v) > 0
        w = gen.random(k)
        w *= total
        above = w >= below_mass
        w -= below_mass * above  # the mass from s to the draw, on its side
        np.negative(w, out=w)
        np.log1p(w, out=w)
        w *= lam  # -(distance from s) <= 0
        w *= 1.0 - 2.0 * above  # -distance below s, +distance above
        w += s
        return w

    @staticmethod
    def _folded_draws(gen: np.random.Generator, k: int, s, c0, c1, lam) -> Floats:  # type: ignore[no-untyped-def]
        """One block of fold(Lap(s, λ)) (module docstring).

        A first uniform picks the case -- inside below s, inside above s, overshoot
        through c0, overshoot through c1, with probabilities (1 - e^{-u})/2,
        (1 - e^{-v})/2, e^{-u}/2, e^{-v}/2 (u = (s - c0)/λ, v = (c1 - s)/λ) -- and a
        second one the distance d, by inversion of the exponential truncated to
        [0, u), [0, v) or, for an overshoot, [0, 2R/λ).  The draw is s - d, s + d,
        c0 + tri(d) or c1 - tri(d), tri(d) = min(d, 2R - d) (= d inside, where d <= R).
        """
        width = c1 - c0
        u = (s - c0) / lam
        v = (c1 - s) / lam
        period = 2.0 * width / lam  # the fold's period 2R in units of λ
        side = gen.random(k)
        above = side >= 0.5
        side *= 2.0
        side -= above  # uniform on [0, 1) again, given the side
        case = above.astype(np.intp)
        case += 2 * (side < pick(case, [np.exp(-u), np.exp(-v)]))  # P(overshoot | side)
        full = -np.expm1(-period)
        position = gen.random(k)
        dist = truncated_exponential(
            position, pick(case, [-np.expm1(-u), -np.expm1(-v), full, full]), scaled=True
        )
        dist *= lam
        if np.any(period < TINY) or np.any((u > 0) & (u < TINY)) or np.any((v > 0) & (v < TINY)):
            # a positive cap that underflows: the truncated exponential is uniform on [0, cap)
            cap = pick(case, [u, v, period, period])
            length = pick(case, [s - c0, c1 - s, 2.0 * width, 2.0 * width])  # cap·λ
            dist = np.where(cap < TINY, position * length, dist)
        # an overshoot t in [0, 2R) beyond a bound folds to tri(t) = min(t, 2R - t) inside it
        np.minimum(dist, 2.0 * width - dist, out=dist)
        np.maximum(dist, 0.0, out=dist)
        dist *= pick(case, [-1.0, 1.0, 1.0, -1.0])
        dist += pick(case, [s, s, c0, c1])
        return dist


LAW = Laplace(
    "laplace",
    sp.exp(-sp.Abs(z) / lam.symbol) / (2 * lam.symbol),
    "real",
    (lam,),
    "lam",
    source="Liu 2019, eq (2); Dwork et al. 2006",
)
