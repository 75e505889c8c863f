"""The two-sided geometric (discrete Laplace) law on the integers: P(k) ∝ exp(-|k|/b)
(Ghosh, Roughgarden and Sundararajan 2009; OpenDP's integer Laplace).

The normaliser (1 + α)/(1 - α), α = e^{-1/b}, and every moment are SymPy's sums.
"""

from __future__ import annotations

import sympy as sp

from dpcheck.laws.noise import NoiseLaw, Param, k

scale = Param("scale", "positive", "the scale b (alpha = exp(-1/b))")
LAW = NoiseLaw(
    "discrete-laplace",
    sp.exp(-sp.Abs(k) / scale.symbol),
    "integers",
    (scale,),
    "scale",
    source="Ghosh, Roughgarden and Sundararajan 2009",
)
