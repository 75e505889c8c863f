"""Uniform noise on [-b, b]: density 1/(2b) there, 0 outside.

Its support is bounded (radius b), so its pure epsilon is infinite for any
sensitivity > 0; it is log-concave (the indicator of an interval), which
SymPy's check cannot see through the Piecewise, so the law states it.
"""

from __future__ import annotations

import sympy as sp

from dpcheck.laws.noise import NoiseLaw, Param, z

b = Param("b", "positive", "the half-width b")
LAW = NoiseLaw(
    "uniform",
    sp.Piecewise((1 / (2 * b.symbol), sp.Abs(z) <= b.symbol), (0, True)),
    "real",
    (b,),
    "b",
    breakpoints=(b.symbol,),
    radius=b.symbol,
    log_concave_reason="a constant on [-b, b] and 0 outside: the indicator of an interval",
    source="uniform noise",
)
