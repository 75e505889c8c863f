"""Sign proofs for exponential-rational expressions on a positive orthant.

Used by the privacy-loss derivation (Liu 2019, Definition 2): the sign of a
partial derivative of a log-likelihood ratio, written in coordinates
``z_1, ..., z_k > 0`` in which every exponent is a linear form.

The argument is mechanical and sound:

1. every ``exp(m)`` with ``m`` a monomial of the coordinates is replaced by a
   generator ``g_m = exp(m) > 1`` (:func:`dpcheck.symbolic.rational.to_rational`);
2. each generator is written ``g_m = 1 + p_m`` with ``p_m > 0`` (true because
   ``m > 0``);
3. the result is a fraction of polynomials in positive symbols; each
   irreducible factor whose coefficients all have one sign has that sign.

Treating the generators as independent only enlarges the domain, so a sign
found this way holds on the original domain.  When some factor has
coefficients of both signs, nothing is claimed (``None``).
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from dpcheck.symbolic.rational import to_rational


@dataclass(frozen=True)
class SignProof:
    """The sign (+1, -1 or 0) of an expression and the factors that show it."""

    sign: int
    factors: tuple[str, ...]

    def describe(self) -> str:
        word = {1: "positive", -1: "negative", 0: "identically zero"}[self.sign]
        if self.sign == 0:
            return "reduces exactly to 0"
        shown = "; ".join(self.factors)
        return f"{word}: with exp(m) = 1 + p_m (p_m > 0), its factors are [{shown}]"


def _factor_sign(poly: sp.Expr) -> int | None:
    symbols = sorted(poly.free_symbols, key=str)
    if not all(sym.is_positive for sym in symbols) or not poly.is_polynomial(*symbols):
        return None
    coeffs = sp.Poly(poly, *symbols).coeffs() if symbols else [poly]
    if all(c > 0 for c in coeffs):
        return 1
    if all(c < 0 for c in coeffs):
        return -1
    return None


def prove_sign(expr: sp.Expr, coordinates: dict[sp.Symbol, sp.Expr]) -> SignProof | None:
    """The sign of ``expr`` after substituting ``coordinates`` (symbol → expression).

    The substituted expression must involve only positive symbols, with every
    exponential of a linear form in them.  Returns None when the sign is not
    shown.
    """
    rational, back = to_rational(sp.expand(sp.sympify(expr).subs(coordinates)), normalise=False)
    if rational == 0:
        return SignProof(0, ())
    for gen, value in back.items():
        if not value.args[0].is_positive:
            return None
        del gen
    shifted = rational.subs({g: 1 + sp.Dummy(f"p_{back[g].args[0]}", positive=True) for g in back})
    num, den = sp.fraction(sp.together(shifted))
    sign = 1
    shown: list[str] = []
    for part in (num, den):
        constant, factors = sp.factor_list(sp.expand(part))
        if constant == 0:
            return None
        sign *= 1 if constant > 0 else -1
        for factor, power in factors:
            got = _factor_sign(factor)
            if got is None:
                return None
            sign *= got**power
            if factor.free_symbols:
                shown.append(f"({factor})^{power}: {'+' if got > 0 else '-'}")
    return SignProof(sign, tuple(shown))


__all__ = ["SignProof", "prove_sign"]
