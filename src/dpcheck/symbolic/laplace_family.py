"""Derived quantities of the truncated and BIT Laplace mechanisms (Liu 2019, §3).

Everything here is *derived* from the laws of :mod:`dpcheck.symbolic.laws`:
means (the paper's μ1, eq (6), and μ2, eq (7)), biases, second moments,
variances and MSEs about s (Appendix B), their forms in the normalised
distances t0 = (s-c0)/λ and t1 = (c1-s)/λ, the one-sided limits (eqs (9),
(10)) and the limits λ → 0 and λ → ∞ (§3.1, Proposition 2).  Results are
cached: each integral is done once per process.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import sympy as sp

from dpcheck.symbolic import laws
from dpcheck.symbolic.rational import denormalise, from_u, nice_normalised, to_rational
from dpcheck.symbolic.symbols import c0, c1, lam, s, t0, t1, x

MECHANISMS = ("truncated", "bit")
QUANTITIES = ("mean", "bias", "second_moment", "var", "mse")

#: distances to the bounds, positive, used for the λ-limits
d0 = sp.Symbol("d_0", positive=True)
d1 = sp.Symbol("d_1", positive=True)


@cache
def law(mechanism: str) -> laws.Law:
    """The law of s* under ``mechanism`` (Definition 2(a) truncation, 2(b) BIT clamp)."""
    if mechanism == "truncated":
        return laws.condition(laws.laplace(), c0, c1)
    if mechanism == "bit":
        return laws.clamp(laws.laplace(), c0, c1)
    if mechanism == "laplace":
        return laws.laplace()
    raise KeyError(mechanism)


@cache
def normaliser() -> sp.Expr:
    """P(c0 <= X <= c1) for X ~ Lap(s, λ): the truncated law's normaliser over 2λ (eq (4))."""
    return sp.powsimp(
        laws.integrate_piece(sp.Integer(1), laws.Piece(c0, c1, laws.laplace_density()))
    )


@dataclass(frozen=True)
class ExpectationTrace:
    """E[g(s*)] under one mechanism's law, with the pieces the engine computed.

    ``atoms`` are (point, mass) of the point masses; ``integrals`` the integrals
    of g·kernel on each side of the kink at s; ``normaliser`` what they are
    divided by (eq (4): P(c0 <= X <= c1) for truncation, 1 for BIT); ``value``
    the expectation, exactly as :func:`laws.expectation` returns it.  The
    derivations (dpcheck.derivations) print this trace.
    """

    mechanism: str
    g: sp.Expr
    atoms: tuple[laws.Atom, ...]
    integrals: tuple[laws.IntegralStep, ...]
    normaliser: sp.Expr
    value: sp.Expr


@cache
def expectation_trace(mechanism: str, g: sp.Expr) -> ExpectationTrace:
    """E[g(s*)], derived by integrating over the law, with its steps kept."""
    the_law = law(mechanism)
    steps: list[laws.IntegralStep] = []
    value = sp.powsimp(sp.expand(laws.expectation(the_law, g, steps)))
    (piece,) = the_law.pieces
    return ExpectationTrace(mechanism, g, the_law.atoms, tuple(steps), piece.normaliser, value)


@cache
def raw_moment(mechanism: str, k: int) -> sp.Expr:
    """E[(s*)^k], derived by integrating over the law."""
    return expectation_trace(mechanism, x**k).value


@cache
def central_moment_about_s(mechanism: str, k: int) -> sp.Expr:
    """E[(s* - s)^k], derived by integrating over the law."""
    return expectation_trace(mechanism, (x - s) ** k).value


@cache
def raw(mechanism: str, name: str) -> sp.Expr:
    """A named quantity exactly as the integrals return it (before tidying).

    mean = E s* (eq (6) for truncation, eq (7) for BIT); bias = E s* - s;
    second_moment = E s*²; mse = E(s* - s)² (Proposition 2, Appendix B);
    var = mse - bias².
    """
    if name == "mean":
        return raw_moment(mechanism, 1)
    if name == "second_moment":
        return raw_moment(mechanism, 2)
    if name == "bias":
        return central_moment_about_s(mechanism, 1)
    if name == "mse":
        return central_moment_about_s(mechanism, 2)
    if name == "var":
        bias = central_moment_about_s(mechanism, 1)
        return central_moment_about_s(mechanism, 2) - bias**2
    raise KeyError(name)


@cache
def quantity(mechanism: str, name: str) -> sp.Expr:
    """The quantity as a function of (s, c0, c1, λ), in its tidy cancelled form.

    Same value as :func:`raw` (the rational reduction is exact); the tidy form
    has one fraction with exponentials exp((c0-s)/λ), exp((s-c1)/λ) only.
    """
    rational, back = to_rational(raw(mechanism, name))
    return denormalise(from_u(rational, back))


#: power of λ that makes each scale-free quantity a function of (t0, t1)
SCALE_POWER = {"bias": 1, "mse": 2, "var": 2}


@cache
def normalised(mechanism: str, name: str) -> sp.Expr:
    """bias/λ, mse/λ², var/λ² as functions of (t0, t1) only (§3.2 in t0, t1)."""
    expr = nice_normalised(raw(mechanism, name) / lam ** SCALE_POWER[name])
    if expr.free_symbols - {t0, t1}:
        raise AssertionError(f"{mechanism}.{name} is not scale-free: {expr}")
    return expr


def from_normalised(mechanism: str, name: str) -> sp.Expr:
    """Any quantity through the normalised forms, back in (s, c0, c1, λ).

    bias, mse, var = λ^k · normalised(t0, t1); mean = s + λ·b; second moment
    = s² + 2sλ·b + λ²·m (b = bias/λ, m = mse/λ²).  This is the form compiled
    for evaluation: two exponentials, then arithmetic.
    """
    if name in SCALE_POWER:
        return lam ** SCALE_POWER[name] * denormalise(normalised(mechanism, name))
    b_n = denormalise(normalised(mechanism, "bias"))
    if name == "mean":
        return s + lam * b_n
    if name == "second_moment":
        return s**2 + 2 * s * lam * b_n + lam**2 * denormalise(normalised(mechanism, "mse"))
    raise KeyError(name)


@cache
def one_sided(mechanism: str, name: str, side: str) -> sp.Expr:
    """The limit c1 → ∞ (``side='lower'``: bounds [c0, ∞), eq (9)) or c0 → -∞
    (``side='upper'``: bounds (-∞, c1], eq (10)) of any named quantity.

    bias, mse, var are taken in the normalised form: c1 → ∞ is t1 → ∞ with t0
    fixed.  mean = s + bias and second moment = s² + 2s·bias + mse (expanding
    (s* - s + s)²), as in :func:`from_normalised`.
    """
    if name == "mean":
        return s + one_sided(mechanism, "bias", side)
    if name == "second_moment":
        bias, mse = one_sided(mechanism, "bias", side), one_sided(mechanism, "mse", side)
        return s**2 + 2 * s * bias + mse
    expr = normalised(mechanism, name)
    var = {"lower": t1, "upper": t0}[side]
    value = sp.limit(expr, var, sp.oo)
    return sp.simplify(lam ** SCALE_POWER[name] * denormalise(value))


@cache
def small_scale_ratio(mechanism: str, name: str) -> sp.Expr:
    """lim_{λ→0+} quantity/λ^k for c0 < s < c1 (k = 1 for bias, 2 for mse, var).

    As λ → 0 with s inside, t0 = (s-c0)/λ and t1 = (c1-s)/λ both → ∞.  The
    normalised form is a continuous function of u_i = e^{-t_i} and
    t_i^j·u_i, all of which → 0, so the joint limit equals the iterated limit
    t1 → ∞ then t0 → ∞ taken here.
    """
    expr = normalised(mechanism, name)
    return sp.simplify(sp.limit(sp.limit(expr, t1, sp.oo), t0, sp.oo))


@cache
def scale_limit(mechanism: str, name: str, to: str) -> sp.Expr:
    """The limit λ → 0+ (``to='zero'``) or λ → ∞ (``to='infinity'``), c0 < s < c1.

    λ → 0: λ^k · :func:`small_scale_ratio` → 0.  λ → ∞: with s - c0 = d0 and
    c1 - s = d1 fixed and z = 1/λ → 0+, t0 = d0·z, t1 = d1·z, and the limit
    of z^{-k}·normalised(d0·z, d1·z) is taken by series at z = 0.
    """
    if to == "zero":
        return sp.limit(lam ** SCALE_POWER[name] * small_scale_ratio(mechanism, name), lam, 0, "+")
    z = sp.Symbol("z", positive=True)
    expr = normalised(mechanism, name).subs({t0: d0 * z, t1: d1 * z}) / z ** SCALE_POWER[name]
    value = sp.limit(expr, z, 0, "+")
    return sp.factor(sp.simplify(value.subs({d0: s - c0, d1: c1 - s})))
