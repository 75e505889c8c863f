"""The discrete Gaussian N_Z(0, σ²) on the integers: P(k) ∝ exp(-k²/(2σ²))
(Canonne, Kamath and Steinke 2020, Definition 1).

SymPy leaves its normaliser (a theta function) unevaluated, so every quantity
comes from the certified lattice sums of :mod:`dpcheck.laws.numeric` (the pmf is
log-concave, which bounds the tails).
"""

from __future__ import annotations

import sympy as sp

from dpcheck.laws.noise import NoiseLaw, Param, k

sigma = Param("sigma", "positive", "the scale sigma (sigma^2 is not the variance)")
LAW = NoiseLaw(
    "discrete-gaussian",
    sp.exp(-(k**2) / (2 * sigma.symbol**2)),
    "integers",
    (sigma,),
    "sigma",
    source="Canonne, Kamath and Steinke 2020, Definition 1",
)
