"""Exact reduction of a mechanism's quantity to a rational function of named atoms.

The generalisation of :mod:`dpcheck.symbolic.rational` (which reduces Liu's
Laplace forms to rational functions of t0, t1, e^{-t0}, e^{-t1}) to every base
of :mod:`dpcheck.symbolic.mechanisms`:

1. the bounds and the output are written through their distances from s in
   units of the scale: c0 = s - θ·t0, c1 = s + θ·t1, y = s + θ·v (θ = λ, σ;
   θ = 1 on the lattice of the geometric law, whose distances are integers);
2. erfc(u) = 1 - erf(u) and erf(-u) = -erf(u); products of exponentials are
   merged and every exponent expanded, so that exp(Σ c_i·w_i) (c_i rational,
   w_i a monomial) is the product of atoms E_{w_i}^{c_i}; likewise every
   power α^{Σ c_i·w_i} of the geometric law's α; every erf(u) is an atom F_u;
3. what is left is a rational function of the parameters and the atoms.

Every step is an identity, so a rational function that cancels to 0 proves
the quantity is 0 on the whole domain (:func:`is_zero`: sound; not complete:
a zero that needs a relation between the atoms is not seen, and the callers
fall back to enclosures).  :func:`tidy` cancels the rational function and
writes the atoms back: the forms the numeric layer compiles.
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from dpcheck.symbolic.symbols import alpha, c0, c1, lam, s, sigma

#: distances from s in units of the scale (nonnegative for the bounds)
t0 = sp.Symbol("t_0", nonnegative=True)
t1 = sp.Symbol("t_1", nonnegative=True)
v = sp.Symbol("v", real=True)
#: the output of a CDF (the same symbol as :data:`dpcheck.symbolic.mechanisms.y`)
y = sp.Symbol("y", real=True)


@dataclass(frozen=True)
class Reduced:
    """A rational function of parameters and atoms, and the way back."""

    rational: sp.Expr
    back: dict[sp.Symbol, sp.Expr]


def _scale_of(expr: sp.Expr) -> sp.Expr:
    symbols = expr.free_symbols
    if alpha in symbols:
        return sp.Integer(1)
    if sigma in symbols:
        return sigma
    if lam in symbols:
        return lam
    return sp.Integer(1)


def _split_exponent(exponent: sp.Expr) -> list[tuple[sp.Expr, sp.Expr]]:
    """exponent = Σ coefficient·monomial, coefficients numbers (rational or not)."""
    out = []
    for term in sp.Add.make_args(sp.expand(exponent)):
        coefficient, monomial = term.as_coeff_Mul()
        out.append((coefficient, monomial))
    return out


class _Atoms:
    def __init__(self) -> None:
        self.back: dict[sp.Symbol, sp.Expr] = {}
        self._names: dict[tuple[str, sp.Expr], sp.Symbol] = {}

    def atom(self, kind: str, key: sp.Expr, value: sp.Expr) -> sp.Symbol:
        if (kind, key) not in self._names:
            symbol = sp.Symbol(f"{kind}_{len(self._names)}", positive=kind != "F")
            self._names[(kind, key)] = symbol
            self.back[symbol] = value
        return self._names[(kind, key)]

    def power(self, kind: str, base: sp.Expr, exponent: sp.Expr) -> sp.Expr:
        out = sp.Integer(1)
        for coefficient, monomial in _split_exponent(exponent):
            if monomial == 1:
                out *= base**coefficient
                continue
            generator = self.atom(
                kind, monomial, base**monomial if kind == "A" else sp.exp(monomial)
            )
            out *= generator**coefficient
        return out


def reduce(expr: sp.Expr) -> Reduced:
    """The rational function of parameters and atoms equal to ``expr`` (steps 1-3)."""
    theta = _scale_of(expr)
    expr = sp.sympify(expr).subs({c0: s - theta * t0, c1: s + theta * t1, y: s + theta * v})
    expr = expr.rewrite(sp.erf) if expr.has(sp.erfc) else expr
    expr = sp.powsimp(sp.expand(expr, power_exp=False), combine="exp")
    atoms = _Atoms()

    def swap(e: sp.Expr) -> sp.Expr:
        if isinstance(e, sp.exp):
            return atoms.power("E", sp.E, swap(e.args[0]))
        if isinstance(e, sp.Pow) and e.base == alpha and not e.exp.is_Integer:
            return atoms.power("A", alpha, swap(e.exp))
        if isinstance(e, sp.erf):
            u = sp.expand(swap(e.args[0]))
            if u.could_extract_minus_sign():
                return -atoms.atom("F", -u, sp.erf(-u))
            return atoms.atom("F", u, sp.erf(u))
        if e.args:
            return e.func(*(swap(a) for a in e.args))
        return e

    return Reduced(swap(expr), atoms.back)


def is_zero(expr: sp.Expr) -> bool:
    """True when ``expr`` reduces to the rational function 0 (a proof: every step is an
    identity); False means only that this reduction does not show it."""
    rational = reduce(expr).rational
    numerator = sp.numer(sp.together(rational))
    return sp.expand(numerator) == 0


def tidy(expr: sp.Expr) -> sp.Expr:
    """``expr`` as one cancelled fraction of the atoms, written back in the parameters."""
    theta = _scale_of(expr)
    reduced = reduce(expr)
    cancelled = sp.cancel(sp.together(reduced.rational))
    out = cancelled.subs(reduced.back)
    return out.subs({t0: (s - c0) / theta, t1: (c1 - s) / theta, v: (y - s) / theta})


__all__ = ["Reduced", "is_zero", "reduce", "t0", "t1", "tidy", "v", "y"]
