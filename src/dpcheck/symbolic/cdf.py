"""Distribution functions F(y) = P(Y <= y) of the bounded Laplace laws, at any output y.

For the truncated law (Liu 2019, Definition 2(a), eq (4); diffprivlib 0.6.6
``LaplaceBoundedDomain``), the BIT law (Definition 2(b), eq (5);
``LaplaceTruncated``) and the folded law (:mod:`dpcheck.symbolic.folding`;
``LaplaceFolded``), with c0 <= s <= c1 and c0 <= y <= c1:

    F(y) = P(Y = c0) + ∫_{c0}^{y} density(x) dx,

derived from the laws themselves, with |x - s| resolved on each side of s:
one expression for y <= s (x < s throughout) and one for y >= s (the
integral split at s).  The atom at c1 (BIT) is not in either expression: F
jumps to 1 at y = c1, and :func:`checks` proves F(c1-) + P(Y = c1) = 1.
Outside the bounds F is 0 (y < c0) and 1 (y >= c1).
"""

from __future__ import annotations

from functools import cache

import sympy as sp

from dpcheck.symbolic import folding, laws
from dpcheck.symbolic import laplace_family as lf
from dpcheck.symbolic.rational import denormalise, from_u, is_identically_zero, to_rational
from dpcheck.symbolic.symbols import c0, c1, lam, s, x

MECHANISMS = ("truncated", "bit", "folded")
#: the output at which F is taken
y = sp.Symbol("y", real=True)
#: (y - s)/λ, the output's normalised distance from s
_v = sp.Symbol("v", real=True)


def law(mechanism: str) -> laws.Law:
    """The law of the mechanism's output (derived; see the module docstring)."""
    if mechanism == "folded":
        return folding.law()
    if mechanism in ("truncated", "bit"):
        return lf.law(mechanism)
    raise KeyError(mechanism)


def _integral(density: sp.Expr, lower: sp.Expr, upper: sp.Expr, side: int) -> sp.Expr:
    """∫_lower^upper density dx with |x - s| = side·(x - s), term by term."""
    total = sp.Integer(0)
    for term in sp.Add.make_args(sp.expand(laws.resolve_abs(density, side))):
        factor, rest = term.as_independent(x, as_Add=False)
        total += factor * sp.integrate(rest, (x, lower, upper), conds="none")
    return sp.powsimp(sp.expand(total))


def _atom(mechanism: str, point: sp.Expr) -> sp.Expr:
    return sum((a.mass for a in law(mechanism).atoms if a.point == point), sp.Integer(0))


@cache
def cdf(mechanism: str, branch: str) -> sp.Expr:
    """F(y) for c0 <= y <= s (``branch='below'``) or s <= y < c1 (``'above'``)."""
    (piece,) = law(mechanism).pieces
    if (piece.lower, piece.upper) != (c0, c1):
        raise ValueError(f"{mechanism}: density on [{piece.lower}, {piece.upper}], not [c0, c1]")
    start = _atom(mechanism, c0)
    if branch == "below":
        return start + _integral(piece.density, c0, y, -1)
    if branch == "above":
        return start + _integral(piece.density, c0, s, -1) + _integral(piece.density, s, y, 1)
    raise KeyError(branch)


def tidy(expr: sp.Expr) -> sp.Expr:
    """The same function with exponentials of (s-c0)/λ, (c1-s)/λ, (y-s)/λ only.

    Reduced exactly (:func:`dpcheck.symbolic.rational.to_rational` after
    y = s + λv, c0 = s - λt0, c1 = s + λt1), then checked equal to ``expr``.
    """
    rational, back = to_rational(expr.subs(y, s + lam * _v))
    out = denormalise(from_u(rational, back)).subs(_v, (y - s) / lam)
    if not is_identically_zero(out - expr):
        raise AssertionError(f"tidy form of {expr} differs: {out}")
    return out


@cache
def compiled_form(mechanism: str, branch: str) -> sp.Expr:
    """:func:`cdf` in its tidy form: the expression compiled for evaluation."""
    return tidy(cdf(mechanism, branch))


def point_masses(mechanism: str) -> tuple[sp.Expr, sp.Expr]:
    """(P(Y = c0), P(Y = c1)): the BIT atoms, 0 for the other laws."""
    return _atom(mechanism, c0), _atom(mechanism, c1)


@cache
def checks(mechanism: str) -> dict[str, bool]:
    """Exact checks: F(c0) is the atom at c0; the branches agree at s; F(c1-) + atom = 1."""
    below, above = cdf(mechanism, "below"), cdf(mechanism, "above")
    at_c0, at_c1 = point_masses(mechanism)
    return {
        "F(c0) = P(Y = c0)": is_identically_zero(below.subs(y, c0) - at_c0),
        "branches agree at y = s": is_identically_zero(below.subs(y, s) - above.subs(y, s)),
        "F(c1-) + P(Y = c1) = 1": is_identically_zero(above.subs(y, c1) + at_c1 - 1),
    }


__all__ = ["MECHANISMS", "cdf", "checks", "compiled_form", "law", "point_masses", "tidy", "y"]
