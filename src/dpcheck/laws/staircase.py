"""The staircase law (Geng and Viswanath 2014, "The optimal noise-adding mechanism
in differential privacy", Definition 4 / eq (15)), parameters the design ε,
γ in [0, 1] and the step width Δ (the sensitivity it is designed for).

The density is a_γ·e^{-jε} on [jΔ, (j+γ)Δ) and a_γ·e^{-(j+1)ε} on
[(j+γ)Δ, (j+1)Δ), j = 0, 1, ..., mirrored to z < 0; one expression gives it,

    f(z) ∝ exp(-ε·⌊|z|/Δ + 1 - γ⌋).

SymPy cannot integrate the floor, so the normaliser and the moments are derived
here step by step: each step's integral of z^n is a polynomial in j times
e^{-jε}, and SymPy sums the series (:meth:`Staircase._series`).  The law is not
log-concave (its steps), so its privacy profile is not given by the monotone
route; its pure ε for a shift d is ε·⌈d/Δ⌉ (:meth:`_pure_epsilon_formula`):
for y <= 0 the log ratio is -ε times the step count between |y| and |y| + d,
at most ⌈d/Δ⌉ steps, attained when |y| is just below a step's edge.
"""

from __future__ import annotations

import sympy as sp

from dpcheck.laws.noise import NoiseLaw, Param, series_sum, t, z

epsilon = Param("epsilon", "positive", "the design epsilon")
gamma = Param("gamma", "unit", "the step split gamma in [0, 1]")
width = Param("width", "positive", "the step width (the sensitivity designed for)")
_j = sp.Symbol("j", integer=True, nonnegative=True)


class Staircase(NoiseLaw):
    """The staircase law with the step-by-step derivations above."""

    def __init__(self) -> None:
        e, g, w = epsilon.symbol, gamma.symbol, width.symbol
        super().__init__(
            "staircase",
            sp.exp(-e * sp.floor(sp.Abs(z) / w + 1 - g)),
            "real",
            (epsilon, gamma, width),
            "width",
            source="Geng and Viswanath 2014, Definition 4",
        )

    def _series(self, power: int) -> sp.Expr:
        """Σ_j ∫ over step j of t^power·f(t) dt on t >= 0 (closed form)."""
        e, g, w = epsilon.symbol, gamma.symbol, width.symbol
        low = sp.integrate(t**power, (t, _j * w, (_j + g) * w))
        high = sp.integrate(t**power, (t, (_j + g) * w, (_j + 1) * w))
        term = sp.expand(sp.exp(-_j * e) * (low + sp.exp(-e) * high))
        return series_sum(term, _j, 0)

    def _normaliser_formula(self) -> sp.Expr:
        return 2 * self._series(0)

    def _moment_formula(self, order: int) -> sp.Expr:
        if order % 2:
            return sp.Integer(0)
        return sp.simplify(2 * self._series(order) / self._normaliser_formula())

    def _pure_epsilon_formula(self, shift: sp.Expr) -> sp.Expr:
        return epsilon.symbol * sp.ceiling(shift / width.symbol)


LAW = Staircase()
