"""Probability laws on the real line, written once, and expectations under them.

A :class:`Law` is a finite set of point masses (:class:`Atom`) plus densities on
intervals (:class:`Piece`).  The Laplace law of Liu (2019) eq (1)-(2) is the only
law typed in by hand; the truncated law (Definition 2(a), eq (4)) is derived from
it by :func:`condition` and the BIT law (Definition 2(b), eq (5)) by
:func:`clamp`.  Every moment used elsewhere comes from :func:`expectation`,
which integrates piece by piece, splitting each integral at the kink of
``|x - s|`` so that SymPy integrates plain exponentials.

Throughout, ``c0 <= s <= c1`` (the statistic lies within its bounds; see the
README, "s outside the bounds").
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from dpcheck.symbolic.symbols import c0, c1, lam, s, x

#: Known order of the symbolic points, used to place the kink of |x - s|.
_ORDER = {-sp.oo: 0, c0: 1, s: 2, c1: 3, sp.oo: 4}


@dataclass(frozen=True)
class Atom:
    """A point mass ``mass`` at ``point``."""

    point: sp.Expr
    mass: sp.Expr


@dataclass(frozen=True)
class Piece:
    """A density ``kernel / normaliser`` (``kernel`` an expression in :data:`x`) on
    ``[lower, upper]``.

    The normaliser is kept apart (1 unless the law was conditioned, eq (4)) so
    that an integral over the piece is the integral of the plain kernel divided
    by one constant: the derivations show exactly those integrals.
    """

    lower: sp.Expr
    upper: sp.Expr
    kernel: sp.Expr
    normaliser: sp.Expr = sp.Integer(1)

    @property
    def density(self) -> sp.Expr:
        """The density itself, kernel / normaliser."""
        return self.kernel if self.normaliser == 1 else self.kernel / self.normaliser


@dataclass(frozen=True)
class Law:
    """A law: point masses plus densities on intervals; ``name`` is for reports."""

    name: str
    atoms: tuple[Atom, ...]
    pieces: tuple[Piece, ...]


@dataclass(frozen=True)
class IntegralStep:
    """One integral the expectation engine evaluated (kept for derivations).

    ``integrand`` is g(x) times the piece's kernel with |x - s| resolved on
    (lower, upper); ``value`` its integral, before any division by the
    piece's normaliser.
    """

    lower: sp.Expr
    upper: sp.Expr
    integrand: sp.Expr
    value: sp.Expr


def laplace_density(location: sp.Expr = s, scale: sp.Expr = lam) -> sp.Expr:
    """Lap(s, λ) density exp(-|x - s|/λ)/(2λ) (Liu 2019, §2.2, eq (2))."""
    return sp.exp(-sp.Abs(x - location) / scale) / (2 * scale)


def laplace() -> Law:
    """The Laplace law Lap(s, λ) on the whole line (Liu 2019, eq (2))."""
    return Law("Laplace", (), (Piece(-sp.oo, sp.oo, laplace_density()),))


def resolve_abs(expr: sp.Expr, side: int, a: sp.Expr = x, b: sp.Expr = s) -> sp.Expr:
    """Replace |a - b| by (a - b)·side: valid where sign(a - b) = side.

    The one place where an absolute value of the Laplace density is resolved
    (expectations, CDFs, the folded law's images, privacy-loss ratios).
    """
    target = sp.expand(a - b)
    return expr.replace(
        lambda e: isinstance(e, sp.Abs) and sp.expand(e.args[0] ** 2 - target**2) == 0,
        lambda e: side * target,
    )


def split_at_kink(lower: sp.Expr, upper: sp.Expr) -> list[tuple[sp.Expr, sp.Expr, int]]:
    """Split ``[lower, upper]`` at ``s``; return (a, b, sign of x - s on (a, b))."""
    lo, hi, mid = _ORDER[lower], _ORDER[upper], _ORDER[s]
    if hi <= mid:
        return [(lower, upper, -1)]
    if lo >= mid:
        return [(lower, upper, 1)]
    return [(lower, s, -1), (s, upper, 1)]


def integrate_piece(g: sp.Expr, piece: Piece, steps: list[IntegralStep] | None = None) -> sp.Expr:
    """∫ g(x)·density(x) dx over the piece: split at the kink of |x - s|,
    integrate g·kernel on each part, add, divide by the normaliser."""
    total = sp.Integer(0)
    for a, b_, side in split_at_kink(piece.lower, piece.upper):
        integrand = resolve_abs(sp.expand(g * piece.kernel), side)
        value = sp.integrate(integrand, (x, a, b_), conds="none")
        value = sp.powsimp(sp.expand(value))
        if steps is not None:
            steps.append(IntegralStep(a, b_, integrand, value))
        total += value
    return total if piece.normaliser == 1 else total / piece.normaliser


def expectation(law: Law, g: sp.Expr, steps: list[IntegralStep] | None = None) -> sp.Expr:
    """E[g(X)] for X ~ law: Σ mass·g(point) + Σ ∫ g·density."""
    total = sp.Integer(0)
    for atom in law.atoms:
        total += atom.mass * g.subs(x, atom.point)
    for piece in law.pieces:
        total += integrate_piece(g, piece, steps)
    return total


def condition(law: Law, lower: sp.Expr = c0, upper: sp.Expr = c1) -> Law:
    """The law conditioned on [lower, upper] and renormalised (truncation, eq (4)).

    Derived: the normaliser is P(lower <= X <= upper) computed from ``law``.
    """
    (piece,) = law.pieces
    mass = integrate_piece(sp.Integer(1), Piece(lower, upper, piece.density))
    return Law(
        f"{law.name} conditioned on [{lower}, {upper}]",
        (),
        (Piece(lower, upper, piece.density, mass),),
    )


def clamp(law: Law, lower: sp.Expr = c0, upper: sp.Expr = c1) -> Law:
    """The law of min(max(X, lower), upper) (boundary inflation, eq (5)).

    Derived: the point masses are the tail probabilities P(X <= lower) and
    P(X >= upper) of ``law``; the density is unchanged inside.
    """
    (piece,) = law.pieces
    below = integrate_piece(sp.Integer(1), Piece(-sp.oo, lower, piece.density))
    above = integrate_piece(sp.Integer(1), Piece(upper, sp.oo, piece.density))
    return Law(
        f"{law.name} clamped to [{lower}, {upper}]",
        (Atom(lower, below), Atom(upper, above)),
        (Piece(lower, upper, piece.density),),
    )


def total_mass(law: Law) -> sp.Expr:
    """Total probability of the law (1 for a law)."""
    return expectation(law, sp.Integer(1))


def cdf(law: Law, y: sp.Expr) -> sp.Expr:
    """P(X <= y) for y one of the ordered points (-oo, c0, s, c1, oo)."""
    total = sp.Integer(0)
    for atom in law.atoms:
        if _ORDER[atom.point] <= _ORDER[y]:
            total += atom.mass
    for piece in law.pieces:
        if _ORDER[y] <= _ORDER[piece.lower]:
            continue
        upper = piece.upper if _ORDER[piece.upper] <= _ORDER[y] else y
        total += integrate_piece(sp.Integer(1), Piece(piece.lower, upper, piece.density))
    return total


__all__ = [
    "Atom",
    "IntegralStep",
    "Law",
    "Piece",
    "cdf",
    "clamp",
    "condition",
    "expectation",
    "integrate_piece",
    "laplace",
    "laplace_density",
    "resolve_abs",
    "split_at_kink",
    "total_mass",
]
