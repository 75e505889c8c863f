"""Liu (2019) §3.1: the laws of Definition 2, eqs (4)-(5), their limits, Remark 1."""

from __future__ import annotations

from fractions import Fraction
from itertools import product

import sympy as sp

from dpcheck.claims import checks as ck
from dpcheck.claims.model import Kind, Status, Verdict, merged_basis, step
from dpcheck.claims.registry import claim
from dpcheck.papers import liu2019 as P
from dpcheck.symbolic import laplace_family as lf
from dpcheck.symbolic import laws
from dpcheck.symbolic.rational import is_identically_zero
from dpcheck.symbolic.symbols import c0, c1, lam, s, x

INTERVAL = ("the printed law on [c0, c1]", "derived")


@claim(
    "liu2019.eq4.normalizer",
    source="eq (4)",
    statement=r"\int_{c_0}^{c_1}\frac{e^{-|x-s|/\lambda}}"
    r"{2\lambda(1-\frac12e^{-(c_1-s)/\lambda}-\frac12e^{(c_0-s)/\lambda})}dx=1",
)
def eq4_normalizer() -> Verdict:
    mass = laws.integrate_piece(sp.Integer(1), laws.Piece(c0, c1, P.EQ4_TRUNCATED_DENSITY.expr))
    v = ck.identity(mass, sp.Integer(1), lhs_name="integral of eq (4) over [c0, c1]", rhs_name="1")
    # the printed denominator, transcribed on its own: it must be 2λ P(c0 <= X <= c1)
    den = ck.identity(
        P.EQ4_NORMALISER.expr,
        2 * lam * lf.normaliser(),
        lhs_name="printed denominator",
        rhs_name="2 lambda P(c0 <= X <= c1)",
    )
    v.evidence["derived normaliser P(c0<=X<=c1)"] = str(lf.normaliser())
    v.evidence["printed denominator"] = str(P.EQ4_NORMALISER.expr)
    v.evidence["printed denominator = 2 lambda P(c0 <= X <= c1)"] = {
        "status": den.status.value,
        "finding": den.evidence.get("finding"),
    }
    if den.status is Status.REFUTED and v.status is not Status.REFUTED:
        v.evidence["finding"] = "the printed denominator is not 2λ P(c0 <= X <= c1)"
        return Verdict(Status.REFUTED, den.method, v.evidence, basis=den.basis)
    if v.status is Status.PROVED and den.status is not Status.PROVED:
        v.evidence["finding"] = "the printed denominator was not shown to be 2λ P(c0 <= X <= c1)"
        return Verdict(Status.INCONCLUSIVE, v.method, v.evidence, basis=[*v.basis, *den.basis])
    if v.status is Status.PROVED:
        v.basis.extend(den.basis)
    return v


def _printed_bit_law() -> laws.Law:
    return laws.Law(
        "eq (5) as printed",
        (laws.Atom(c0, P.EQ5_BIT_MASS_LOWER.expr), laws.Atom(c1, P.EQ5_BIT_MASS_UPPER.expr)),
        (laws.Piece(c0, c1, P.EQ5_BIT_DENSITY.expr),),
    )


def _compare_with_clamp() -> dict[str, Verdict]:
    derived = lf.law("bit")
    printed = _printed_bit_law()
    return {
        "mass at c0": ck.identity(printed.atoms[0].mass, derived.atoms[0].mass),
        "density on (c0, c1)": ck.identity(printed.pieces[0].density, derived.pieces[0].density),
        "mass at c1": ck.identity(printed.atoms[1].mass, derived.atoms[1].mass),
    }


@claim(
    "liu2019.eq5.bit_law",
    source="eq (5)",
    statement=r"\tfrac12e^{-(s-c_0)/\lambda}\delta_{c_0}+\mathrm{Lap}(s,\lambda)|_{(c_0,c_1)}"
    r"+(1-\tfrac12e^{-(c_1-s)/\lambda})\delta_{c_1}\text{ is a probability law, the law of clamping}",
)
def eq5_bit_law() -> Verdict:
    total = laws.total_mass(_printed_bit_law())
    v = ck.identity(total, sp.Integer(1), lhs_name="total mass of eq (5)", rhs_name="1")
    parts = _compare_with_clamp()
    v.evidence["components vs the law of clamp(Lap(s, lambda))"] = {
        k: {"status": p.status.value, "finding": p.evidence.get("finding")}
        for k, p in parts.items()
    }
    v.evidence["total mass"] = str(sp.simplify(total))
    # what the printed mass at c1 is: the complement of the tail mass P(X >= c1)?
    upper = P.EQ5_BIT_MASS_UPPER.expr
    tail = lf.law("bit").atoms[1].mass
    complement = is_identically_zero(upper - (1 - tail))
    v.evidence["printed mass at c1 = 1 - P(X >= c1)"] = complement
    if v.status is Status.REFUTED:
        v.evidence["finding"] = (
            "total mass is 2 - exp(-(c1-s)/lambda) > 1: the printed mass at c1, "
            "1 - exp(-(c1-s)/lambda)/2, should be exp(-(c1-s)/lambda)/2 = P(X >= c1)"
            if complement
            else f"total mass is {sp.simplify(total)}, not 1: the printed mass at c1, {upper}, "
            f"differs from P(X >= c1) = {tail}"
        )
        v.reproduce = "dpcheck verify liu2019.eq5.bit_law --format json"
    return v


@claim(
    "liu2019.def2.rejection_law",
    source="§3.1",
    statement=r"\text{redrawing Lap}(s,\lambda)\text{ until }s^*\in[c_0,c_1]\text{ has the law of eq (4)}",
)
def rejection_law() -> Verdict:
    k = sp.Symbol("k", integer=True, positive=True)
    q = sp.Symbol("q", positive=True)
    accept = lf.normaliser()
    # density of the output: sum over the draw k that is accepted first
    geometric = sp.summation((1 - q) ** (k - 1), (k, 1, sp.oo))
    geometric = sp.piecewise_fold(geometric)
    if isinstance(geometric, sp.Piecewise):
        geometric = geometric.args[0][0]  # |1 - q| < 1 holds: 0 < q <= 1
    derived = laws.laplace_density() * geometric.subs(q, accept)
    v = ck.identity(
        P.EQ4_TRUNCATED_DENSITY.expr,
        derived,
        lhs_name="eq (4)",
        rhs_name="density of the first accepted draw",
    )
    v.evidence["sum over draws"] = (
        f"sum_k (1-q)^(k-1) f(x) = f(x)/q with q = P(c0<=X<=c1) = {accept}"
    )
    v.method = "law of the first accepted draw summed symbolically; " + v.method
    return _with_sampling(v, "rejection")


def _with_sampling(v: Verdict, procedure: str) -> Verdict:
    """Add the sampling half (statistical corroboration, never proof) to a symbolic verdict.

    If the draws of the paper's procedure contradict the derived law, the two
    routes disagree and the verdict becomes inconclusive until that is explained.
    """
    from dpcheck.sampling.corroborate import corroborate

    evidence = corroborate(procedure)
    v.evidence["sampling corroboration"] = evidence
    v.basis.append(
        step(
            Kind.SAMPLING,
            f"draws of the {procedure} procedure tested against the derived law "
            "(corroboration only)",
            checked=bool(evidence["consistent"]),
            domain="the sampled settings",
        )
    )
    if not evidence["consistent"]:
        return Verdict(
            Status.INCONCLUSIVE,
            "symbolic and sampling routes disagree: " + v.method,
            v.evidence,
        )
    if procedure == "clamp" and v.status is Status.REFUTED:
        v.evidence["sampling corroboration"]["summary"] = (
            "the clamp's draws follow the derived law at every point, and their count at c1"
            + (" rejects" if evidence["printed_eq5_upper_mass_rejected"] else " does NOT reject")
            + " eq (5)'s printed mass wherever it differs from the derived one"
        )
    return v


@claim(
    "liu2019.def2.clamp_law",
    source="§3.1",
    statement=r"\min(\max(X,c_0),c_1),\ X\sim\mathrm{Lap}(s,\lambda)\text{ has the law of eq (5)}",
)
def clamp_law() -> Verdict:
    parts = _compare_with_clamp()
    bad = [k for k, p in parts.items() if p.status is Status.REFUTED]
    evidence = {k: p.evidence for k, p in parts.items()}
    basis = merged_basis({k: p for k, p in parts.items() if not bad or k in bad})
    if bad:
        evidence["finding"] = (
            f"differs in the {', '.join(bad)}: clamping puts P(X >= c1) = "
            "exp(-(c1-s)/lambda)/2 at c1, eq (5) prints 1 - exp(-(c1-s)/lambda)/2"
        )
        return _with_sampling(
            Verdict(
                Status.REFUTED,
                "each component compared with the derived law of the clamp; "
                "difference confirmed in ball arithmetic",
                evidence,
                basis=basis,
            ),
            "clamp",
        )
    if all(p.status is Status.PROVED for p in parts.values()):
        evidence["finding"] = "every component equals the law of the clamp"
        return _with_sampling(
            Verdict(
                Status.PROVED,
                "exact comparison of each component",
                evidence,
                domain=ck.DOMAIN,
                basis=basis,
            ),
            "clamp",
        )
    return Verdict(Status.INCONCLUSIVE, "some component undecided", evidence, basis=basis)


def _density_limit(density: sp.Expr) -> sp.Expr:
    """lim_{λ→∞} of a density at a point x in [c0, s] and in [s, c1]."""
    d0, d1, a = (sp.Symbol(n, positive=True) for n in ("d0", "d1", "a"))
    z = sp.Symbol("z", positive=True)
    values = []
    for x_at in (s - a, s + a):
        e = density.subs(x, x_at).subs({c0: s - d0, c1: s + d1}).subs(lam, 1 / z)
        values.append(sp.simplify(sp.limit(e, z, 0, "+").subs({d0: s - c0, d1: c1 - s})))
    return values


@claim(
    "liu2019.sec31.limit_uniform",
    source="§3.1",
    statement=r"\lambda\to\infty:\ \text{truncated law}\to\mathrm{Unif}(c_0,c_1)",
)
def limit_uniform() -> Verdict:
    left, right = _density_limit(lf.law("truncated").pieces[0].density)
    uniform = 1 / (c1 - c0)
    ok = sp.simplify(left - uniform) == 0 and sp.simplify(right - uniform) == 0
    ev = {
        "limit of the density left of s": str(left),
        "right of s": str(right),
        "finding": f"the density tends to {uniform} at every point of [c0, c1]" if ok else "no",
    }
    status = Status.PROVED if ok else Status.INCONCLUSIVE
    return Verdict(
        status,
        "SymPy limit λ → ∞ of the derived density, pointwise (Scheffé: the laws "
        "converge in total variation)",
        ev,
        domain="c0 < c1, c0 <= s <= c1, every x in [c0, c1]",
        basis=[
            step(
                Kind.LIMIT,
                "SymPy limit λ → ∞ of the derived truncated density at x = s - a and x = s + a "
                "(symbolic a > 0, both sides of the kink) equals 1/(c1 - c0)",
                checked=ok,
            )
        ],
    )


@claim(
    "liu2019.sec31.limit_two_point",
    source="§3.1",
    statement=r"\lambda\to\infty:\ \text{BIT law}\to\tfrac12\delta_{c_0}+\tfrac12\delta_{c_1}",
)
def limit_two_point() -> Verdict:
    z = sp.Symbol("z", positive=True)
    bit = lf.law("bit")
    lims = {
        "mass at c0": sp.limit(bit.atoms[0].mass.subs(lam, 1 / z), z, 0, "+"),
        "mass at c1": sp.limit(bit.atoms[1].mass.subs(lam, 1 / z), z, 0, "+"),
        "mass inside (c0, c1)": sp.limit(lf.normaliser().subs(lam, 1 / z), z, 0, "+"),
        "eq (5) printed mass at c1": sp.limit(
            P.EQ5_BIT_MASS_UPPER.expr.subs(lam, 1 / z), z, 0, "+"
        ),
    }
    half = sp.Rational(1, 2)
    ok = (
        lims["mass at c0"] == half
        and lims["mass at c1"] == half
        and lims["mass inside (c0, c1)"] == 0
    )
    ev = {k: str(v) for k, v in lims.items()}
    ev["finding"] = (
        (
            "masses 1/2 at c0 and at c1, nothing inside: a two-point law (eq (5)'s wrong "
            "upper mass also tends to 1/2)"
        )
        if ok
        else "limit differs"
    )
    return Verdict(
        Status.PROVED if ok else Status.REFUTED,
        "SymPy limits λ → ∞ of the derived masses",
        ev,
        domain="c0 < c1, c0 <= s <= c1",
        basis=[
            step(
                Kind.LIMIT,
                "SymPy limits λ → ∞ of the derived BIT masses at c0, at c1 and inside: "
                + ", ".join(f"{k} -> {v}" for k, v in lims.items()),
            )
        ],
    )


@claim(
    "liu2019.remark1.sum_bounds",
    source="Remark 1",
    statement=r"s_1+s_2=c:\ s_1\in[\max(c-c_{12},c_{01}),\min(c-c_{02},c_{11})],\ "
    r"s_2\in[\max(c-c_{11},c_{02}),\min(c-c_{01},c_{12})]",
)
def sum_bounds() -> Verdict:
    c, c01, c11, c02, c12 = P.c, P.c01, P.c11, P.c02, P.c12
    s1 = sp.Symbol("s1", real=True)
    # Each constraint on s2 = c - s1 is the same linear inequality as one on s1:
    # (c - s1) - c02 >= 0  <=>  (c - c02) - s1 >= 0, etc.; checked as identities.
    steps = {
        "c02 <= c - s1  <=>  s1 <= c - c02": sp.expand(((c - s1) - c02) - ((c - c02) - s1)) == 0,
        "c - s1 <= c12  <=>  c - c12 <= s1": sp.expand((c12 - (c - s1)) - (s1 - (c - c12))) == 0,
    }
    lo1, hi1 = P.REMARK1_S1_BOUNDS.expr
    lo2, hi2 = P.REMARK1_S2_BOUNDS.expr
    # The feasible s1 are {max(c01, c - c12) <= s1 <= min(c11, c - c02)}; s2 = c - s1 maps it
    # to [c - min(...), c - max(...)].  Compare with the printed bounds symbolically ...
    symbolic = {
        "s1 lower": sp.simplify(lo1 - sp.Max(c - c12, c01)) == 0,
        "s1 upper": sp.simplify(hi1 - sp.Min(c - c02, c11)) == 0,
        # c - min(a, b) = max(c - a, c - b) and c - max(a, b) = min(c - a, c - b)
        "s2 lower = c - (s1 upper)": sp.simplify(lo2 - sp.Max(c - (c - c02), c - c11)) == 0,
        "s2 upper = c - (s1 lower)": sp.simplify(hi2 - sp.Min(c - (c - c12), c - c01)) == 0,
    }
    # ... and, as a second route, exhaustively on a grid of integer bounds and sums.
    grid = range(-2, 3)
    checked = 0
    mismatches = []
    for b01, b11, b02, b12, cc in product(grid, repeat=5):
        if b01 > b11 or b02 > b12:
            continue
        feasible1 = [
            Fraction(k, 2)
            for k in range(-12, 13)
            if b01 <= Fraction(k, 2) <= b11 and b02 <= cc - Fraction(k, 2) <= b12
        ]
        env = {c: cc, c01: b01, c11: b11, c02: b02, c12: b12}
        p_lo1, p_hi1 = (Fraction(str(e.subs(env))) for e in (lo1, hi1))
        p_lo2, p_hi2 = (Fraction(str(e.subs(env))) for e in (lo2, hi2))
        want1 = [v for v in (Fraction(k, 2) for k in range(-12, 13)) if p_lo1 <= v <= p_hi1]
        want2 = [v for v in (Fraction(k, 2) for k in range(-12, 13)) if p_lo2 <= v <= p_hi2]
        got2 = sorted(cc - v for v in feasible1 if -6 <= cc - v <= 6)
        checked += 1
        if feasible1 != want1 or got2 != want2:
            mismatches.append(env)
    ok = all(steps.values()) and all(symbolic.values()) and not mismatches
    ev = {
        "equivalences": steps,
        "printed vs intersection": symbolic,
        "grid cases checked": checked,
        "grid mismatches": [ck.point_str(m) for m in mismatches[:3]],
        "finding": "both printed ranges are exactly the feasible sets (empty when lower > upper)"
        if ok
        else "mismatch",
    }
    sym_ok = all(steps.values()) and all(symbolic.values())
    grid_domain = "integer c, bounds in -2..2, s1 on the half-integers of [-6, 6]"
    return Verdict(
        Status.PROVED if ok else Status.REFUTED,
        "linear inequalities rewritten as checked identities; the intersection of two "
        "intervals is [max of lowers, min of uppers]; exhaustive half-integer grid as a second route",
        ev,
        domain="all real c, c01 <= c11, c02 <= c12",
        basis=[
            step(
                Kind.SYMBOLIC,
                "each constraint on s2 = c - s1 rewritten as one on s1 (identities reduced to "
                "0); the printed bounds equal max/min of the rewritten constraints (SymPy)",
                checked=sym_ok,
            ),
            step(
                Kind.ENUMERATION,
                f"feasible sets enumerated exactly at {checked} grid cases"
                + (f"; {len(mismatches)} mismatch(es)" if mismatches else ", all equal"),
                domain=grid_domain if not mismatches else ck.point_str(mismatches[0]).__str__(),
            ),
        ],
    )
