"""Liu (2019) §2.2, eq (3): the generalised Gaussian density (both extractions)."""

from __future__ import annotations

from fractions import Fraction

import sympy as sp

from dpcheck.claims import checks as ck
from dpcheck.claims.model import Status
from dpcheck.claims.registry import claim
from dpcheck.papers import liu2019 as P
from dpcheck.symbolic.symbols import b, mu, p, x

y = sp.Symbol("y", positive=True)


def total_mass(density: sp.Expr) -> sp.Expr:
    """∫ density dx over the real line, by x = μ ± b·y (y > 0) on each side of μ."""
    right = sp.integrate(density.subs(x, mu + b * y) * b, (y, 0, sp.oo), conds="none")
    left = sp.integrate(density.subs(x, mu - b * y) * b, (y, 0, sp.oo), conds="none")
    return sp.simplify(sp.gammasimp(right + left))


def _verdict(eq: P.Equation):  # type: ignore[no-untyped-def]
    mass = total_mass(eq.expr)
    points = [{p: Fraction(k), b: Fraction(1), mu: Fraction(0)} for k in (2, 1, 3, 4)]
    v = ck.identity(
        mass,
        sp.Integer(1),
        lhs_name="integral of printed density",
        rhs_name="1",
        points=points,
        normalise=False,
        domain="all p > 0, b > 0, real mu",
        evidence={"printed": str(eq.expr), "latex": eq.latex, "note": eq.note},
    )
    sigma2 = sp.Symbol("sigma2", positive=True)
    gauss = sp.exp(-((x - mu) ** 2) / (2 * sigma2)) / sp.sqrt(2 * sp.pi * sigma2)
    at2 = sp.simplify(eq.expr.subs(p, 2) - gauss.subs(sigma2, b**2 / 2))
    v.evidence["p=2 minus N(mu, b^2/2) density"] = str(at2)
    if v.status is Status.PROVED:
        if at2 != 0:
            v.status = Status.REFUTED
            v.evidence["finding"] = "integrates to 1 but p = 2 is not N(mu, b^2/2)"
        else:
            v.evidence["finding"] = "integrates to 1 for every p > 0; p = 2 is exactly N(mu, b^2/2)"
    else:
        v.evidence["finding"] = (
            f"total mass is {mass}, not 1 (p = 2 gives {sp.simplify(mass.subs(p, 2))}); "
            "the p = 2 case is not a normal density"
        )
    return v


@claim(
    "liu2019.eq3.gg_density",
    source="eq (3), 000",
    statement=r"\frac{p}{2b\Gamma(1/p)}e^{-(|x-\mu|/b)^p}\text{ is a density; }p=2: N(\mu,b^2/2)",
)
def gg_density():
    """The catalogued statement: 000's normaliser p/(2bΓ(1/p)) with exp(-(|x-μ|/b)^p).

    000's LaTeX literally prints exp{\\!(|s*-s|/b)^p} with no minus sign; that
    literal reading (not integrable) is recorded in the evidence.
    """
    kernel = sp.exp(-((sp.Abs(x - mu) / b) ** p))
    normaliser = P.EQ3_GG_DENSITY.expr.subs(sp.exp((sp.Abs(x - mu) / b) ** p), 1)
    eq = P.Equation(
        P.EQ3_GG_DENSITY.label,
        P.EQ3_GG_DENSITY.source,
        P.EQ3_GG_DENSITY.latex,
        normaliser * kernel,
        P.EQ3_GG_DENSITY.note,
    )
    v = _verdict(eq)
    literal = P.EQ3_GG_DENSITY.expr.subs({p: 2, b: 1, mu: 0})
    v.evidence["literal_000_latex"] = (
        "000's LaTeX has no minus sign in the exponent (\\exp\\{\\!(...)^p\\}); read literally "
        f"the density at p=2, b=1, mu=0 is {literal}, which grows without bound and has "
        "infinite integral. The catalogued statement (with the minus) is what is checked."
    )
    return v


@claim(
    "liu2019.eq3.gg_density_journal",
    source="eq (3), 002",
    statement=r"\frac{p}{2b\Gamma(p/2)}e^{-(|x-\mu|/b)^p}\text{ is a density}",
)
def gg_density_journal():
    v = _verdict(P.EQ3_GG_DENSITY_JOURNAL)
    # 002's Γ(p/2) where 000 has Γ(1/p): is that the only difference from a density?
    read = P.EQ3_GG_DENSITY_JOURNAL.expr.xreplace({sp.gamma(p / 2): sp.gamma(1 / p)})
    v.evidence["with 000's Gamma(1/p) in place of Gamma(p/2)"] = {
        "integrates to 1": bool(sp.simplify(total_mass(read) - 1) == 0),
    }
    return v
