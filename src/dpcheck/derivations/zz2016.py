"""Derivations of the L = 1 K-randomization recursions (Zhilyaev and Zeber 2016, §4).

The route is the one :func:`dpcheck.symbolic.krand.prove` decides the claims
by: the generating function G_{n,m}(z) = (q+pz)^m (p+qz)^(n-m) of A_n(m) is
derived from the law of one report, every shifted term P_{n-a,m-b}(s-k) with a
coefficient c(s) becomes G_{n,m}(z) times a rational function
(:func:`~dpcheck.symbolic.krand.generating_function`), and a linear identity
holds for every integer s iff the rational functions of its two sides agree.
"""

from __future__ import annotations

import sympy as sp

from dpcheck.derivations.document import Derivation, Printed, Step
from dpcheck.derivations.notation import display
from dpcheck.papers import zz2016 as Z
from dpcheck.papers.equation import Equation
from dpcheck.symbolic import krand as kr


def _names(expr: sp.Expr) -> tuple[sp.Expr, dict[sp.Symbol, str]]:
    """P(n', m', t) → a symbol printed P_{n',m'}(t) (the note's notation)."""
    names: dict[sp.Symbol, str] = {}
    sub = {}
    for term in sorted(kr.atoms(expr), key=sp.default_sort_key):
        nn, mm, t = term.args
        sym = sp.Symbol(f"_{term.func.__name__}_{len(sub)}")
        sub[term] = sym
        names[sym] = f"{term.func.__name__}_{{{sp.latex(nn)},{sp.latex(mm)}}}({sp.latex(t)})"
    return expr.xreplace(sub), names


def krand_tex(expr: sp.Expr) -> str:
    """LaTeX of an expression in P_{n,m}(s) terms, in the note's notation."""
    swapped, names = _names(expr)
    return sp.latex(swapped, symbol_names=names)


def _transform(side: sp.Expr) -> sp.Expr:
    """Σ_s side(s) z^s divided by G_{n,m}(z): each term by generating_function."""
    side = sp.expand(side)
    total = sp.Integer(0)
    for term in sorted(kr.atoms(side), key=sp.default_sort_key):
        coef = side.coeff(term)
        total += kr.generating_function(coef, kr.atom_of(term))
    return total


def _identity_steps(label: str, eqs: list[Equation]) -> list[Step]:
    lhs, rhs = eqs[0].expr, eqs[1].expr
    proof = kr.prove(lhs, rhs)
    left, right = _transform(lhs), _transform(rhs)
    residual = sp.factor(sp.cancel(sp.together(left - right)))
    if proof.holds != (residual == 0) or proof.needs_p_plus_q_1:
        raise AssertionError(f"{label}: the displayed transform disagrees with krand.prove")
    words = (
        f"{label}: multiply both sides by $z^s$ and sum over every integer $s$ "
        "($P = 0$ outside $0..n$); divide by $G_{n,m}(z)$."
    )
    return [
        Step(
            words,
            (
                display("", f"{krand_tex(lhs)} = {krand_tex(rhs)}", relation=""),
                display(r"\text{left}/G", sp.factor(left)),
                display(r"\text{right}/G", sp.factor(right)),
            ),
        ),
        Step(
            "The two rational functions agree: their difference cancels, for every "
            "$n$, $m$ and $p$, $q$ (no use of $p + q = 1$), so the identity holds for every "
            "integer $s$.",
            (display(r"\text{left}/G - \text{right}/G", residual),),
        ),
    ]


def _common_steps() -> list[Step]:
    return [
        Step(
            "A bit that is originally 1 is reported as 1 with probability $p$, one that is "
            "originally 0 with probability $q$ (§2.1): generating functions $q + pz$ and "
            "$p + qz$. $A_n(m)$, the count of reported ones when $m$ of the $n$ bits are 1, is "
            "their independent sum, so",
            (display(r"G_{n,m}(z) = \sum_s P_{n,m}(s) z^s", kr.G),),
        ),
        Step(
            "A shifted term is $G_{n,m}$ times a rational function: "
            "$\\sum_s P_{n-a,m-b}(s-k) z^s = G_{n,m}(z)\\, z^k (q+pz)^{-b} (p+qz)^{b-a}$; "
            "a factor $c(s)$ acts as $c(\\theta)$ with $\\theta = z\\,d/dz$, and "
            "$\\theta(G R) = G\\, z (R' + R\\, G'/G)$ with",
            (display(r"G'/G", kr.LOG_DERIVATIVE),),
        ),
    ]


def recursions() -> Derivation:
    """(4.1) and (4.2): conditioning on an original 1 or 0."""
    steps = _common_steps()
    steps += _identity_steps("(4.1)", Z.EQ4_1)
    steps += _identity_steps("(4.2)", Z.EQ4_2)
    return Derivation(
        "krand-recursions",
        "K-randomization, L = 1: the recursions (4.1) and (4.2)",
        "Zhilyaev and Zeber (2016), §4, eqs (4.1)-(4.2)",
        "The law of the count of reported ones, $P_{n,m}(s) = P[A_n(m) = s]$, built up one "
        "user at a time.",
        tuple(steps),
        (
            Printed("(4.1)", "zz2016.eq4.1", f"{Z.EQ4_1[0].latex} = {Z.EQ4_1[1].latex}"),
            Printed("(4.2)", "zz2016.eq4.2", f"{Z.EQ4_2[0].latex} = {Z.EQ4_2[1].latex}"),
        ),
    )


def lemma_4_1() -> Derivation:
    """Lemma 4.1, (4.3): the three-term recursion of P_{n,m}."""
    steps = _common_steps()
    steps += _identity_steps("(4.3)", Z.LEMMA4_1)
    return Derivation(
        "krand-lemma4-1",
        "K-randomization, L = 1: Lemma 4.1",
        "Zhilyaev and Zeber (2016), §4.2, Lemma 4.1, eq (4.3)",
        "A three-term recursion in $s$ for $P_{n,m}(s)$; in generating-function form it is a "
        "first-order differential equation for $G_{n,m}$.",
        tuple(steps),
        (
            Printed(
                "Lemma 4.1, (4.3)",
                "zz2016.lemma4.1",
                f"{Z.LEMMA4_1[0].latex} = {Z.LEMMA4_1[1].latex}",
            ),
        ),
    )


__all__ = ["krand_tex", "lemma_4_1", "recursions"]
