"""Transformations of a noise law into a new law with the same face (issue 35).

:func:`truncate_noise` conditions the noise to |Z| <= r around the input
(OpenDP's ``radius`` on additive noise; Geng et al.'s truncated Laplace for
(ε, δ)).  The result is a :class:`~dpcheck.laws.noise.NoiseLaw` with one more
parameter, ``radius``: every derived quantity and the privacy engine apply to
it unchanged.  A log-concave law stays log-concave (its kernel times the
indicator of an interval); the support is bounded, so the pure ε is ∞ and δ(ε)
is the exact hockey-stick value of :mod:`dpcheck.laws.additive`.
"""

from __future__ import annotations

import sympy as sp

from dpcheck.errors import InputError
from dpcheck.laws.noise import NoiseLaw, Param

radius = Param("radius", "positive", "the noise radius r: |Z| <= r")


def truncate_noise(law: NoiseLaw) -> NoiseLaw:
    """The law of Z given |Z| <= radius (a new parameter ``radius``)."""
    if any(p.name == "radius" for p in law.params):
        raise InputError(f"{law.name} already has a parameter 'radius'")
    r = radius.symbol
    ok, why = law.log_concave()
    kernel = sp.Piecewise((law.kernel, sp.Abs(law.variable) <= r), (0, True))
    return NoiseLaw(
        f"{law.name} truncated to |z| <= radius",
        kernel,
        law.support,
        (*law.params, radius),
        law.scale,
        breakpoints=(*law.breakpoints, r),
        radius=r,
        log_concave_reason=f"{why}, times the indicator of [-radius, radius]" if ok else "",
        source=f"{law.source}; noise truncated to a radius (OpenDP)",
    )
