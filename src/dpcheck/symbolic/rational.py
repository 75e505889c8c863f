"""Exact zero tests for exponential-polynomial expressions.

Every quantity of Liu (2019) is a rational function of polynomials in
(s, c0, c1, λ) and of exponentials of linear forms such as (c0 - s)/λ.  After
the substitution c0 = s - λ·t0, c1 = s + λ·t1 the exponents are linear in t0,
t1 (and possibly other monomials).  Replacing each exp(k·m) by g_m^k, with a
fresh positive generator g_m for each monomial m (u0 = exp(-t0),
u1 = exp(-t1)), turns the expression into a rational function.  If that
rational function cancels to 0, the original expression is identically 0:
treating the exponentials as independent can only make a zero test harder,
never wrongly succeed.  This is the "exact symbolic reduction to 0" of
DESIGN.md.
"""

from __future__ import annotations

import sympy as sp

from dpcheck.symbolic.symbols import NORMALISE, c0, c1, lam, s, t0, t1, u0, u1

_FIXED = {t0: u0, t1: u1}


def _exp_generators(expr: sp.Expr, back: dict[sp.Symbol, sp.Expr]) -> sp.Expr:
    def rewrite(e: sp.exp) -> sp.Expr:
        arg = sp.expand(e.args[0])
        out = sp.Integer(1)
        rest = sp.Integer(0)
        for term in sp.Add.make_args(arg):
            coeff, monomial = term.as_coeff_Mul()
            if not coeff.is_Rational or monomial == 1:
                rest += term
                continue
            if monomial in _FIXED:
                out *= _FIXED[monomial] ** (-coeff)
                continue
            key = sp.Dummy(f"e_{monomial}", positive=True)
            for gen, m in back.items():
                if m == sp.exp(monomial):
                    key = gen
                    break
            back[key] = sp.exp(monomial)
            out *= key**coeff
        return out * (sp.exp(rest) if rest != 0 else 1)

    return expr.replace(lambda e: isinstance(e, sp.exp), rewrite)


def to_rational(expr: sp.Expr, normalise: bool = True) -> tuple[sp.Expr, dict[sp.Symbol, sp.Expr]]:
    """Rewrite as a cancelled rational function in the exponential generators.

    Returns the rational form and the map from fresh generators back to the
    exponentials they stand for (u0, u1 stand for exp(-t0), exp(-t1)).
    """
    if normalise:
        expr = expr.subs(NORMALISE)
    back: dict[sp.Symbol, sp.Expr] = {}
    rational = _exp_generators(sp.expand(expr), back)
    return sp.cancel(sp.together(rational)), back


def is_identically_zero(expr: sp.Expr, normalise: bool = True) -> bool:
    """True when ``expr`` reduces exactly to 0 (a proof); False means "not shown"."""
    rational, _ = to_rational(expr, normalise)
    return rational == 0


def from_u(expr: sp.Expr, back: dict[sp.Symbol, sp.Expr] | None = None) -> sp.Expr:
    """Put the exponentials back: u0 → exp(-t0), u1 → exp(-t1), generators → exp."""
    mapping = {u0: sp.exp(-t0), u1: sp.exp(-t1)}
    mapping.update(back or {})
    return expr.subs(mapping)


def denormalise(expr: sp.Expr) -> sp.Expr:
    """t0 → (s - c0)/λ, t1 → (c1 - s)/λ."""
    return expr.subs({t0: (s - c0) / lam, t1: (c1 - s) / lam})


def nice_normalised(expr: sp.Expr) -> sp.Expr:
    """A readable normalised form: a fraction of polynomials in t and exp(-t)."""
    rational, back = to_rational(expr)
    num, den = sp.fraction(sp.factor(rational))
    gens = [u0, u1]
    num = sp.collect(sp.expand(num), gens)
    den = sp.collect(sp.expand(den), gens)
    return from_u(num, back) / from_u(den, back)
