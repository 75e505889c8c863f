"""Noise laws and mechanisms as objects (issue 35).

A noise law is defined by its density or pmf (:class:`~dpcheck.laws.noise.NoiseLaw`);
everything else is derived: certified quantities (:mod:`~dpcheck.laws.numeric`), the
privacy of the additive mechanism x + Z (:mod:`~dpcheck.laws.additive`), float64
functions and samplers (:mod:`~dpcheck.laws.float64`), and the vectorised draws of a
law under a bounding (:mod:`~dpcheck.laws.draws`, from the law's own methods).
Shipped laws, one module each: :mod:`~dpcheck.laws.laplace`, :mod:`~dpcheck.laws.gaussian`,
:mod:`~dpcheck.laws.discrete_laplace`, :mod:`~dpcheck.laws.discrete_gaussian`,
:mod:`~dpcheck.laws.staircase`, :mod:`~dpcheck.laws.uniform`; k-ary randomized
response (:mod:`~dpcheck.laws.krr`); :func:`~dpcheck.laws.transforms.truncate_noise`.

>>> import dpcheck
>>> dg = dpcheck.law(r"e^{-\\frac{z^2}{2w^2}}", support="integers", params=["w>0"])
>>> dpcheck.laws.var(dg, w=2)            # certified lattice sum, 30 digits
>>> dpcheck.laws.delta(dg, 1, sensitivity=1, w=2)   # δ(1) of x + Z, the worst pair
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import mpmath

from dpcheck.laws.noise import NoiseLaw, Param
from dpcheck.laws.registry import LAWS, get, law
from dpcheck.laws.transforms import truncate_noise


def var(noise: NoiseLaw | str, dps: int = 30, **params: object) -> mpmath.mpf:
    """Var Z at ``params`` (certified to ``dps`` digits, or a labelled estimate)."""
    from dpcheck.laws.quantities import evaluate

    ball, _ = evaluate(get(noise), "var", {k: str(v) for k, v in params.items()}, dps)
    return ball.mpf()


def delta(noise: NoiseLaw | str, epsilon: object, *, sensitivity: object, **params: object) -> Any:
    """δ(ε) of the additive mechanism x + Z: a :class:`dpcheck.numeric.profile.Profile`
    (certified upper bound ``upper``, attained ``lower``, the worst pair)."""
    from dpcheck.inputs.numbers import parse_number
    from dpcheck.laws.additive import Additive

    law_ = get(noise)
    mech = Additive(law_, law_.parse(params), parse_number("sensitivity", sensitivity))
    return mech.delta(Fraction(parse_number("epsilon", epsilon)))


__all__ = ["LAWS", "NoiseLaw", "Param", "delta", "get", "law", "truncate_noise", "var"]
