"""The Gaussian law N(0, σ²): density exp(-z²/(2σ²))/(σ√(2π)).

Everything else is derived by :mod:`dpcheck.laws` (SymPy's tails are erfc).  The law
gives its float64 draws (:mod:`dpcheck.laws.draws`; draw parameter θ = σ):

* the noise: σ·N(0, 1) (numpy's ziggurat);
* truncated: inversion of one uniform split at s, as for the Laplace.  With
  a = (s - c0)/σ, b = (c1 - s)/σ (both >= 0, since c0 <= s <= c1) the standard-normal
  masses of the two sides are m0 = erf(a/√2)/2 and m1 = erf(b/√2)/2, each accurate to
  a few ulps for any a, b (erf has no cancellation near 0, where σ ≫ R, and saturates
  at 1/2 in the tails); W = U(m0 + m1) picks the side and the mass w from s to the
  draw, and the draw lies √2·erfinv(2w)·σ from s.  So the law is right when σ/R is
  1e-300 (a narrow normal, nearly all of it inside) as when it is 1e300 (nearly
  uniform), and when a bound lies 30σ or more from s (the interval always contains
  s, so it can never lie wholly in a tail; the tail beyond which the remaining mass
  is below 2^-53 of the total is not reached, as with any inversion of one float64
  uniform).  When R/σ < ~1e-290 (the masses would be subnormal) the law is the
  uniform on [c0, c1] to within 1e-580 and is drawn so.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
import sympy as sp
from scipy import special

from dpcheck.laws.draws import BELOW_ONE, TINY, Floats
from dpcheck.laws.noise import NoiseLaw, Param, z

_SQRT2 = math.sqrt(2.0)

sigma = Param("sigma", "positive", "the standard deviation sigma")


class Gaussian(NoiseLaw):
    """The Gaussian law with its float64 draws."""

    @staticmethod
    def _draw_theta(values: Mapping[str, Floats]) -> Floats:
        """θ = σ (floats or arrays of the parameters)."""
        return values["sigma"]

    @staticmethod
    def _standard_fourth_moment(scale: float) -> float:
        """E(Z/σ)⁴ = 3."""
        return 3.0

    @staticmethod
    def _noise_draws(gen: np.random.Generator, k: int, sigma: Floats) -> Floats:
        y = gen.standard_normal(k)
        y *= sigma
        return y

    @staticmethod
    def _truncated_draws(gen: np.random.Generator, k: int, s, c0, c1, sigma) -> Floats:  # type: ignore[no-untyped-def]
        """One block of the inversion split at s (module docstring)."""
        m0 = 0.5 * special.erf((s - c0) / sigma / _SQRT2)
        m1 = 0.5 * special.erf((c1 - s) / sigma / _SQRT2)
        total = m0 + m1
        u = gen.random(k)
        w = u * total
        above = w >= m0
        w -= m0 * above
        w *= 2.0
        np.minimum(w, BELOW_ONE, out=w)
        y = special.erfinv(w)
        y *= _SQRT2 * sigma
        y *= 2.0 * above - 1.0
        y += s
        flat = np.asarray(total < TINY)
        if flat.any():  # R/σ < ~1e-290: uniform on [c0, c1] to within 1e-580
            with np.errstate(invalid="ignore"):
                y = np.where(flat, c0 + u * (c1 - c0), y)
        return y


LAW = Gaussian(
    "gaussian",
    sp.exp(-(z**2) / (2 * sigma.symbol**2)) / (sigma.symbol * sp.sqrt(2 * sp.pi)),
    "real",
    (sigma,),
    "sigma",
    source="Dwork and Roth 2014, Appendix A",
)
