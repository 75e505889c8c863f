"""The discrete Gaussian N_Z(0, σ²) on the integers: P(k) ∝ exp(-k²/(2σ²))
(Canonne, Kamath and Steinke 2020, Definition 1).

SymPy leaves its normaliser unevaluated.  It is a Jacobi theta function,
Σ_k q^{k²} = θ₃(0, τ) with q = e^{iπτ} = e^{-1/(2σ²)}, and Σ_k k² q^{k²} =
-θ₃''(0, τ)/(4π²) (differentiate θ₃(z, τ) = Σ_k q^{k²} e^{2πikz} twice in z), which
arb evaluates with certified error bounds at any σ (python-flint's
``acb.modular_theta``, using the modular transformation for small q); so the
normaliser, E Z = 0 and E Z² need no lattice sum.  The tails and the CDF are the
certified lattice sums of :mod:`dpcheck.laws.numeric` (the pmf is log-concave,
which bounds their rest).
"""

from __future__ import annotations

import flint
import sympy as sp

from dpcheck.laws.noise import NoiseLaw, Param, k

sigma = Param("sigma", "positive", "the scale sigma (sigma^2 is not the variance)")


class DiscreteGaussian(NoiseLaw):
    """The law, with its normaliser and moments as theta functions."""

    _ball_label = "Jacobi theta function (arb)"

    @staticmethod
    def _thetas(s: flint.arb, derivative: int) -> flint.arb:
        """θ₃^{(derivative)}(0, τ), τ = i/(2πσ²), as a real ball."""
        tau = flint.acb(0, 1 / (2 * flint.arb.pi() * s * s))
        value = flint.acb(0).modular_theta(tau, r=derivative)[2]
        return value.real

    def _normaliser_ball(self, s: flint.arb) -> flint.arb | None:
        return _tight(self._thetas(s, 0))

    def _moment_ball(self, order: int, s: flint.arb) -> flint.arb | None:
        if order == 1:
            return flint.arb(0)  # symmetric, with finite mean
        if order == 2:
            return _tight(-self._thetas(s, 2) / (4 * flint.arb.pi() ** 2 * self._thetas(s, 0)))
        return None


def _tight(ball: flint.arb) -> flint.arb | None:
    """The ball if it is accurate to the working precision (less 30 bits), else None: the
    lattice sum then takes over (at tiny σ θ₃'' cancels; a handful of terms is exact)."""
    return ball if ball.rel_accuracy_bits() >= flint.ctx.prec - 30 else None


LAW = DiscreteGaussian(
    "discrete-gaussian",
    sp.exp(-(k**2) / (2 * sigma.symbol**2)),
    "integers",
    (sigma,),
    "sigma",
    source="Canonne, Kamath and Steinke 2020, Definition 1",
)
