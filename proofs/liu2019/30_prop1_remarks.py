"""Liu (2019) §3.2: eqs (6), (7), Proposition 1, Remarks 2 and 3, eqs (9), (10).

Sign claims are settled in the normalised distances t0 = (s-c0)/λ and
t1 = (c1-s)/λ (both >= 0, t0 + t1 = R/λ > 0): each bias is an exact
"separable" expression (G(t0) - G(t1))/(H(t0) + H(t1)) whose sign follows
from G decreasing and H positive, both machine-checked.
"""

from __future__ import annotations

from fractions import Fraction

import sympy as sp

from dpcheck.claims import checks as ck
from dpcheck.claims.model import Kind, Status, Step, Verdict, merged_basis, step
from dpcheck.claims.registry import claim
from dpcheck.numeric import rigorous
from dpcheck.papers import liu2019 as P
from dpcheck.symbolic import laplace_family as lf
from dpcheck.symbolic import signs
from dpcheck.symbolic.rational import is_identically_zero
from dpcheck.symbolic.symbols import c0, c1, lam, s

t = sp.Symbol("t", positive=True)
#: the separable forms: truncated bias/λ, BIT bias/λ, and their difference
H_DEN = 1 - sp.exp(-t)  # 2 - e^{-t0} - e^{-t1} = H(t0) + H(t1)
G_TRUNC = (1 + t) * sp.exp(-t)  # truncated bias/λ = (G(t0) - G(t1)) / (H(t0) + H(t1))
G_BIT = sp.exp(-t) / 2  # BIT bias/λ = G(t0) - G(t1)
G_GAP = t * sp.exp(-t) + sp.exp(-2 * t) / 2  # (μ1 - μ2)/λ = (G(t0) - G(t1)) / (H(t0) + H(t1))


@claim(
    "liu2019.eq6.mu1",
    source="eq (6)",
    statement=r"\mu_1=s+\frac{\frac{\lambda-c_0+s}{2}e^{(c_0-s)/\lambda}-\frac{\lambda+c_1-s}{2}"
    r"e^{(s-c_1)/\lambda}}{1-\frac12e^{(c_0-s)/\lambda}-\frac12e^{(s-c_1)/\lambda}}",
)
def eq6() -> Verdict:
    return ck.identity(
        P.EQ6_MU1.expr, lf.quantity("truncated", "mean"), rhs_name="derived E s* (truncated)"
    )


@claim(
    "liu2019.eq7.mu2",
    source="eq (7)",
    statement=r"\mu_2=s+\frac{\lambda}{2}\left[e^{(c_0-s)/\lambda}-e^{(s-c_1)/\lambda}\right]",
)
def eq7() -> Verdict:
    return ck.identity(P.EQ7_MU2.expr, lf.quantity("bit", "mean"), rhs_name="derived E s* (BIT)")


def _bias_arguments() -> dict[str, tuple[bool, dict]]:
    return {
        "truncated": ck.separable_argument(
            lf.normalised("truncated", "bias"), G_TRUNC, "difference", H_DEN
        ),
        "bit": ck.separable_argument(lf.normalised("bit", "bias"), G_BIT, "difference"),
    }


@claim("liu2019.prop1.a", source="Prop 1(a)", statement=r"\mu_1=\mu_2=s\iff c_0+c_1=2s")
def prop1_a() -> Verdict:
    return ck.arguments_verdict(
        _bias_arguments(),
        finding="each bias is λ·(G(t0) - G(t1))/den with G strictly decreasing and den > 0, so it "
        "vanishes iff t0 = t1, i.e. s - c0 = c1 - s, i.e. c0 + c1 = 2s",
        method="exact separable form + machine-checked monotonicity (signs.prove_negative)",
    )


@claim(
    "liu2019.prop1.b",
    source="Prop 1(b)",
    statement=r"(\mu_1-s)(\mu_2-s)\ge0;\ \mu_i-s\ge0\text{ if }s-c_0\le c_1-s,\ \le0\text{ if }s-c_0\ge c_1-s",
)
def prop1_b() -> Verdict:
    return ck.arguments_verdict(
        _bias_arguments(),
        finding="sign(μ_i - s) = sign(t1 - t0) = sign((c1 - s) - (s - c0)) for both mechanisms, "
        "so the product is >= 0 (0 exactly at the midpoint)",
        method="exact separable form + machine-checked monotonicity",
    )


@claim("liu2019.prop1.c", source="Prop 1(c)", statement=r"|\mu_1-s|\ge|\mu_2-s|")
def prop1_c() -> Verdict:
    gap = lf.normalised("truncated", "bias") - lf.normalised("bit", "bias")
    arguments = {"(mu1 - mu2)/lambda": ck.separable_argument(gap, G_GAP, "difference", H_DEN)}
    arguments.update(_bias_arguments())
    return ck.arguments_verdict(
        arguments,
        finding="μ1 - μ2 = λ(f(t0) - f(t1))/den with f(t) = t e^-t + e^-2t/2 strictly decreasing: "
        "μ1 - μ2 has the sign of t1 - t0, the same as both biases (Prop 1(b)), so "
        "|μ1 - s| >= |μ2 - s|, with equality only at the midpoint",
        method="exact separable form of μ1 - μ2 + machine-checked monotonicity, combined with 1(b)",
    )


@claim(
    "liu2019.prop1.local_bounds",
    source="after Prop 1",
    statement=r"[s-m,s+m],\ m=\min(s-c_0,c_1-s)\text{ make both mechanisms unbiased}",
)
def local_bounds() -> Verdict:
    m = sp.Symbol("m", positive=True)
    ev = {}
    ok = True
    for mech in lf.MECHANISMS:
        bias = lf.quantity(mech, "bias").subs({c0: s - m, c1: s + m})
        zero = is_identically_zero(bias)
        ev[f"{mech} bias with c0 = s - m, c1 = s + m"] = "0 exactly" if zero else str(bias)
        ok = ok and zero
    ev["finding"] = "both biases are exactly 0 for bounds symmetric about s (any m > 0)"
    ev["note"] = (
        "needs c0 < s < c1 (m > 0); the bounds depend on s, so they cost privacy (as the paper says)"
    )
    # a failed reduction is not a counterexample: without a witness it stays open
    return Verdict(
        Status.PROVED if ok else Status.INCONCLUSIVE,
        "exact substitution into the derived biases",
        ev,
        domain="c0 < s < c1, lambda > 0",
        basis=[
            step(
                Kind.SYMBOLIC,
                "both derived biases with c0 = s - m, c1 = s + m (symbolic m > 0) reduced "
                "exactly to 0",
                checked=ok,
            )
        ],
    )


@claim(
    "liu2019.remark2.budget_split",
    source="Remark 2, eq (8)",
    statement=r"\frac{\delta_{1j}}{w_j\epsilon}=\frac{\delta_1}{\epsilon},\ w_j=\delta_{1j}/\delta_1",
)
def budget_split() -> Verdict:
    from dpcheck.symbolic.symbols import delta1, epsilon

    lhs = P.EQ8_SCALE_LHS.expr
    rhs_printed = P.EQ8_SCALE_RHS.expr
    read = {P.delta: delta1, P.delta_j: P.delta_1j}
    positive = "all positive delta_1j, delta_1, epsilon"
    v = ck.identity(
        rhs_printed.subs(read),
        delta1 / epsilon,
        lhs_name="delta_1j/(w_j eps)",
        rhs_name="delta_1/eps",
        normalise=False,
        domain=positive,
    )
    # the other printed pieces of the statement, with the same reading of the notation
    parts = {
        "w_j = delta_1j/delta_1": ck.identity(
            P.EQ8_WEIGHT.expr.subs(read),
            P.delta_1j / delta1,
            lhs_name="printed w_j",
            rhs_name="delta_1j/delta_1",
            normalise=False,
            domain=positive,
        ),
        "Remark 2's lambda_j = delta_1/eps": ck.identity(
            P.EQ8_SCALE.expr.subs(read),
            delta1 / epsilon,
            lhs_name="printed lambda_j",
            rhs_name="delta_1/eps",
            normalise=False,
            domain=positive,
        ),
    }
    v.evidence["eq (8) left scale = delta_1/eps"] = sp.simplify(lhs - delta1 / epsilon) == 0
    v.evidence["eq (2) scale, 002 (delta_j read as delta_1) = 000's delta_1/eps"] = (
        sp.simplify(P.EQ2_SCALE_JOURNAL.expr.subs(P.delta_j, delta1) - P.EQ2_SCALE.expr) == 0
    )
    v.evidence["parts"] = {
        k: {"status": p.status.value, "finding": p.evidence.get("finding")}
        for k, p in parts.items()
    }
    v.evidence["notation"] = (
        "the paper's w_j = delta_1j/delta uses an undefined delta, and Remark 2 "
        "writes delta_j for delta_1j; read as delta = delta_1, delta_j = delta_1j"
    )
    refuted = {k: p for k, p in parts.items() if p.status is Status.REFUTED}
    if refuted and v.status is not Status.REFUTED:
        v.evidence["finding"] = "wrong (with the notation read as delta = delta_1): " + ", ".join(
            refuted
        )
        return Verdict(Status.REFUTED, v.method, v.evidence, basis=merged_basis(refuted))
    if v.status is Status.PROVED and any(p.status is not Status.PROVED for p in parts.values()):
        v.evidence["finding"] = "some printed piece of eq (8) was not shown"
        return Verdict(Status.INCONCLUSIVE, v.method, v.evidence, basis=v.basis)
    if v.status is Status.PROVED:
        v.basis.extend(merged_basis(parts))
        v.evidence["finding"] = (
            "every coordinate gets the same scale delta_1/eps: the split is exact "
            "(with the notation read as delta = delta_1)"
        )
    return v


def _one_sided(side: str, eq_mu1: P.Equation, eq_mu2: P.Equation) -> Verdict:
    mu1 = lf.one_sided("truncated", "mean", side)
    mu2 = lf.one_sided("bit", "mean", side)
    v1 = ck.identity(eq_mu1.expr, mu1, lhs_name=f"{eq_mu1.label}", rhs_name="limit of derived μ1")
    v2 = ck.identity(eq_mu2.expr, mu2, lhs_name=f"{eq_mu2.label}", rhs_name="limit of derived μ2")
    ev = {"mu1": v1.evidence, "mu2": v2.evidence}
    ok = v1.status is Status.PROVED and v2.status is Status.PROVED
    bad = v1.status is Status.REFUTED or v2.status is Status.REFUTED
    limit = "c1 → ∞" if side == "lower" else "c0 → -∞"
    ev["finding"] = (
        f"both printed means equal the limits {limit} of the derived means"
        if ok
        else ("a printed one-sided mean differs from the limit")
    )
    status = Status.PROVED if ok else (Status.REFUTED if bad else Status.INCONCLUSIVE)
    basis = [
        step(Kind.LIMIT, f"SymPy limit {limit} of the derived means (laplace_family.one_sided)"),
        *merged_basis({"mu1": v1, "mu2": v2}),
    ]
    return Verdict(
        status,
        f"SymPy limit {limit} of the derived normalised bias, then exact comparison",
        ev,
        domain="c0 <= s (lower) or s <= c1 (upper), lambda > 0",
        basis=basis,
    )


@claim(
    "liu2019.eq9.one_sided_lower",
    source="eq (9)",
    statement=r"[c_0,\infty):\ \mu_1=s+\frac{\frac{\lambda-c_0+s}{2}e^{(c_0-s)/\lambda}}"
    r"{1-\frac12e^{(c_0-s)/\lambda}},\ \mu_2=s+\frac\lambda2e^{(c_0-s)/\lambda}",
)
def eq9() -> Verdict:
    return _one_sided("lower", P.EQ9_MU1, P.EQ9_MU2)


@claim(
    "liu2019.eq10.one_sided_upper",
    source="eq (10)",
    statement=r"(-\infty,c_1]:\ \mu_1=s-\frac{\frac{\lambda+c_1-s}{2}e^{(s-c_1)/\lambda}}"
    r"{1-\frac12e^{(s-c_1)/\lambda}},\ \mu_2=s-\frac\lambda2e^{(s-c_1)/\lambda}",
)
def eq10() -> Verdict:
    return _one_sided("upper", P.EQ10_MU1, P.EQ10_MU2)


def _gap(side: str, eq: P.Equation) -> Verdict:
    derived = lf.one_sided("truncated", "bias", side) - lf.one_sided("bit", "bias", side)
    return ck.identity(
        eq.expr,
        derived,
        rhs_name="derived mu1 - mu2 (one-sided)",
        domain="c0 <= s (lower) or s <= c1 (upper), lambda > 0",
    )


@claim(
    "liu2019.remark3.gap_lower",
    source="Remark 3",
    statement=r"[c_0,\infty):\ \mu_1-\mu_2=\Big[\frac{1-(c_0-s)/\lambda}{1-e^{(c_0-s)/\lambda}/2}-1\Big]"
    r"\frac\lambda2e^{(c_0-s)/\lambda}",
)
def gap_lower() -> Verdict:
    return _gap("lower", P.REMARK3_GAP_LOWER)


@claim(
    "liu2019.remark3.gap_upper",
    source="Remark 3",
    statement=r"(-\infty,c_1]:\ \mu_1-\mu_2=\Big[1-\frac{1+(c_1-s)/\lambda}{1-e^{(s-c_1)/\lambda}/2}\Big]"
    r"\frac\lambda2e^{(s-c_1)/\lambda}",
)
def gap_upper() -> Verdict:
    return _gap("upper", P.REMARK3_GAP_UPPER)


def _in_t(expr: sp.Expr, side: str) -> sp.Expr:
    """Write a one-sided expression through t = (s - c0)/λ or t = (c1 - s)/λ, λ = 1."""
    sub = {c0: s - lam * t} if side == "lower" else {c1: s + lam * t}
    return sp.simplify(expr.subs(sub))


def _range_claim(side: str, pairs: list[tuple[P.Equation, str]]) -> Verdict:
    """Check printed strict ranges 'lower < expr < upper' for s strictly inside (t > 0)."""
    ev = {}
    refuted = False
    basis: list[Step] = []
    for eq, tag in pairs:
        lo, hi = eq.extra["lower"], eq.extra["upper"]
        e_t = _in_t(eq.expr, side)
        entry: dict = {"expr": str(eq.expr), "asserted": f"{lo} < . < {hi}", "in t": str(e_t)}
        for bound, kind in ((lo, "lower"), (hi, "upper")):
            if bound in (sp.oo, -sp.oo):
                continue
            diff = e_t - bound if kind == "lower" else bound - e_t
            proof = signs.prove_positive(diff, t)
            if proof:
                entry[f"{kind} bound"] = {"holds": True, "holds for every t > 0": proof}
                basis.append(step(Kind.SIGN, f"{tag}: {kind} bound, sign certificate for t > 0"))
                continue
            for tv in (Fraction(1), Fraction(2), Fraction(1, 2), Fraction(5)):
                sg = rigorous.sign(diff, {t: tv})
                if sg is not None and sg <= 0:
                    val = rigorous.arb_eval(e_t, {t: tv})
                    entry[f"{kind} bound"] = {
                        "holds": False,
                        "fails at t": str(tv),
                        "value": ck.fmt(val),
                        "bound": str(bound),
                    }
                    refuted = True
                    basis.append(
                        step(
                            Kind.ENCLOSURE,
                            f"{tag}: {kind} bound fails; arb enclosure of the margin <= 0",
                            domain=f"t = {tv}",
                        )
                    )
                    break
            else:
                entry[f"{kind} bound"] = "undecided"
                basis.append(step(Kind.SIGN, f"{tag}: {kind} bound undecided", checked=False))
        ev[tag] = entry
    what = "(s - c0)/λ" if side == "lower" else "(c1 - s)/λ"
    if refuted:
        ev["finding"] = (
            f"a printed range fails (t = {what}; e.g. at t = 1); the true range of "
            "1 - e^-t/2 is (1/2, 1)"
        )
        return Verdict(
            Status.REFUTED,
            "sign certificates in t; failure confirmed in ball arithmetic",
            ev,
            reproduce=f"dpcheck verify liu2019.remark3.range_{side} --format json",
            basis=[s for s in basis if s.kind is Kind.ENCLOSURE],
        )
    ok = all(isinstance(v, dict) and "undecided" not in str(v) for v in ev.values())
    ev["finding"] = "all printed ranges hold"
    return Verdict(
        Status.PROVED if ok else Status.INCONCLUSIVE,
        "sign certificates in t",
        ev,
        domain=f"t = {what} > 0",
        basis=basis,
    )


@claim(
    "liu2019.remark3.range_lower",
    source="Remark 3",
    statement=r"s>c_0:\ 0<1-e^{(c_0-s)/\lambda}/2<1/2,\ 1-(c_0-s)/\lambda>1",
)
def range_lower() -> Verdict:
    return _range_claim(
        "lower", [(P.REMARK3_LOWER_DENOMINATOR, "denominator"), (P.REMARK3_LOWER_FACTOR, "factor")]
    )


@claim(
    "liu2019.remark3.range_upper",
    source="Remark 3",
    statement=r"s<c_1:\ 0<1-e^{(s-c_1)/\lambda}/2<1/2,\ 1+(c_1-s)/\lambda>1",
)
def range_upper() -> Verdict:
    return _range_claim(
        "upper",
        [
            (P.REMARK3_UPPER_DENOMINATOR_JOURNAL, "denominator (002)"),
            (P.REMARK3_UPPER_DENOMINATOR, "denominator (000, exp((c1-s)/λ))"),
            (P.REMARK3_UPPER_FACTOR, "factor"),
        ],
    )


def _gap_sign(side: str, eq: P.Equation, sign: int) -> Verdict:
    e_t = _in_t(eq.expr, side) / lam
    steps = signs.prove_positive(sign * e_t, t)
    at0 = sp.simplify(e_t.subs(t, 0))
    ok = steps is not None and sign * at0 > 0
    ev = {
        "gap/lambda in t": str(e_t),
        "proof for t > 0": steps or "not shown",
        "value at t = 0": str(at0),
    }
    ev["finding"] = (
        f"the printed gap is {'> 0' if sign > 0 else '< 0'} for every t >= 0"
        if ok
        else "sign not established"
    )
    return Verdict(
        Status.PROVED if ok else Status.INCONCLUSIVE,
        "sign certificate in t (signs.prove_positive)",
        ev,
        domain="s >= c0 (lower) / s <= c1 (upper), lambda > 0",
        basis=[
            step(Kind.SIGN, "sign certificate of the gap/λ for t > 0", checked=steps is not None),
            step(Kind.SYMBOLIC, f"value at t = 0: {at0} (exact)", checked=bool(sign * at0 > 0)),
        ],
    )


@claim(
    "liu2019.remark3.gap_lower_sign", source="Remark 3", statement=r"[c_0,\infty):\ \mu_1-\mu_2>0"
)
def gap_lower_sign() -> Verdict:
    return _gap_sign("lower", P.REMARK3_GAP_LOWER, 1)


@claim(
    "liu2019.remark3.gap_upper_sign", source="Remark 3", statement=r"(-\infty,c_1]:\ \mu_1-\mu_2<0"
)
def gap_upper_sign() -> Verdict:
    return _gap_sign("upper", P.REMARK3_GAP_UPPER, -1)
