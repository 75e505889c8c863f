"""The Gaussian law N(0, σ²): density exp(-z²/(2σ²))/(σ√(2π)).

Everything else is derived by :mod:`dpcheck.laws` (SymPy's tails are erfc).
"""

from __future__ import annotations

import sympy as sp

from dpcheck.laws.noise import NoiseLaw, Param, z

sigma = Param("sigma", "positive", "the standard deviation sigma")
LAW = NoiseLaw(
    "gaussian",
    sp.exp(-(z**2) / (2 * sigma.symbol**2)) / (sigma.symbol * sp.sqrt(2 * sp.pi)),
    "real",
    (sigma,),
    "sigma",
    source="Dwork and Roth 2014, Appendix A",
)
