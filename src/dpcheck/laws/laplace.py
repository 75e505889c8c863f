"""The Laplace law Lap(0, λ): density exp(-|z|/λ)/(2λ) (Liu 2019, §2.2, eq (2)).

Everything else (normaliser, tails, moments, privacy) is derived by
:mod:`dpcheck.laws`; SymPy integrates each side in closed form.
"""

from __future__ import annotations

import sympy as sp

from dpcheck.laws.noise import NoiseLaw, Param, z

lam = Param("lam", "positive", "the scale lambda")
LAW = NoiseLaw(
    "laplace",
    sp.exp(-sp.Abs(z) / lam.symbol) / (2 * lam.symbol),
    "real",
    (lam,),
    "lam",
    source="Liu 2019, eq (2); Dwork et al. 2006",
)
