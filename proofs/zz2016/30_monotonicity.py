"""Zhilyaev and Zeber (2016) §4.2-§4.8, §5.1: monotonicity, Proposition 4.1, quantiles.

Two routes per claim.  Machine-checked proof: every monotonicity statement is read from
:mod:`dpcheck.papers.zz2016` as a gap that must be >= 0, multiplied by probabilities inside
the support and reduced by (4.1)/(4.2) (:func:`dpcheck.symbolic.krand.certify`, for all n, m,
s at once) to a combination, with coefficients positive for 0 < q < 1/2, of log-concavity
terms of a law; that every law A_n(m) is strictly log-concave on its support is an induction
whose base and step are checked by machine (:func:`dpcheck.symbolic.krand.log_concavity_facts`,
both (4.1) and (4.2), so m = n is included).  Exhaustive: every n <= N_MAX, every m and s
(and every real delta or alpha, through the breakpoints of the step functions) for the lie
probabilities of ``Q_SET``, in exact integer arithmetic
(:mod:`dpcheck.enumeration.krand_exhaustive`); the printed gaps themselves are also evaluated
on the exact laws of a small grid.  A counterexample is the smallest one (n, then m, then s)
with exact values.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

import sympy as sp

from dpcheck.claims.krand import fact_steps, failed_facts
from dpcheck.claims.model import Kind, Status, Step, Verdict, step
from dpcheck.claims.registry import claim
from dpcheck.enumeration import krand_exhaustive as kx
from dpcheck.papers import zz2016 as Z
from dpcheck.papers.equation import Equation
from dpcheck.symbolic import krand as sk
from dpcheck.symbolic.krand import Fact, P, lc, m, n, p, q, s, xc

QTEXT = "{" + ", ".join(str(v) for v in kx.Q_SET) + "}"
EXHAUSTIVE = f"n = 1..{kx.N_MAX}, q in {QTEXT}"
#: the grid on which the printed gaps are evaluated on the exact laws
GRID_N = 6
GRID_QS = (Fraction(1, 4), Fraction(1, 3), Fraction(1, 10))
GRID_TEXT = f"n = 1..{GRID_N}, q in {{1/4, 1/3, 1/10}}"
LC_NOTE = (
    "every A_n(m) is strictly log-concave on 0..n (induction on n, base and step checked "
    "by machine, through (4.2) for m <= n-1 and (4.1) for m >= 1, so m = n is included)"
)


def _scan_evidence(scan: kx.Scan) -> dict[str, Any]:
    ev: dict[str, Any] = {"exhaustive": scan.domain, "instances": scan.checked}
    if scan.counterexample:
        ev["counterexample"] = scan.counterexample
    return ev


def _where(d: dict) -> str:
    keys = [k for k in ("n", "m", "s", "q", "delta", "alpha") if k in d]
    return ", ".join(f"{k} = {d[k]}" for k in keys) or str(d)


Points = Callable[[int, int, int], bool]


def _grid(keep: Points) -> list[tuple[int, int, int]]:
    return [pt for pt in sk.grid(GRID_N, 0, 0, -1, 1) if keep(*pt)]


def _monotone(
    claim_id: str,
    facts: list[Fact],
    gaps: Sequence[tuple[Equation, Points]],
    scans: Sequence[kx.Scan],
    *,
    finding: str,
    domain: str,
) -> Verdict:
    """The verdict of a monotonicity claim: its machine-checked facts, the printed gaps on the
    exact laws of a small grid (a negative value refutes), and the exhaustive scans."""
    reproduce = f"dpcheck verify {claim_id} --format json"
    ev: dict[str, Any] = {
        "machine-checked steps": {f.name: ("holds" if f.holds else "NOT shown") for f in facts},
    }
    basis = fact_steps(facts)
    for eq, keep in gaps:
        neg = sk.negative_point(eq.expr, _grid(keep), GRID_QS)
        if neg is not None:
            ev["counterexample"] = neg
            ev["finding"] = (
                f"fails: {eq.label} ({eq.latex}) is negative at {_where(neg)}: {neg['value']}"
            )
            basis.append(
                step(
                    Kind.ENUMERATION,
                    f"{eq.label} evaluated on the exact laws is negative",
                    domain=_where(neg),
                )
            )
            return Verdict(
                Status.REFUTED,
                "the printed statement on the exact laws; smallest counterexample in rationals",
                ev,
                reproduce,
                basis=basis,
            )
    if gaps:
        ev["printed on the exact laws"] = (
            f"every printed gap >= 0 at every grid point ({GRID_TEXT})"
        )
        basis.append(
            step(
                Kind.ENUMERATION,
                "every printed gap evaluated on the exact laws is >= 0",
                domain=GRID_TEXT,
            )
        )
    for i, sc in enumerate(scans):
        ev[f"scan {i + 1}"] = _scan_evidence(sc)
        basis.append(
            step(
                Kind.ENUMERATION,
                f"exhaustive exact scan: {sc.domain}",
                checked=sc.holds,
                domain=EXHAUSTIVE,
            )
        )
    broken = [sc for sc in scans if not sc.holds]
    proved = not failed_facts(facts)
    if broken:
        ce = broken[0].counterexample or {}
        ev["counterexample"] = ce
        ev["finding"] = "fails: " + str(ce)
        if proved:
            ev["conflict"] = "the machine-checked proof says it holds; the two routes disagree"
            return Verdict(Status.INCONCLUSIVE, "routes disagree", ev, reproduce, basis=basis)
        basis.append(
            step(Kind.ENUMERATION, "the scan's smallest counterexample, exact", domain=_where(ce))
        )
        return Verdict(
            Status.REFUTED,
            "exhaustive exact scan; smallest counterexample",
            ev,
            reproduce,
            basis=basis,
        )
    if proved:
        ev["finding"] = finding
        return Verdict(
            Status.PROVED,
            "machine-checked: each printed gap times probabilities in the support reduced by "
            "(4.1)/(4.2) (generating functions) to a combination of log-concavity terms with "
            "coefficients > 0 on 0 < q < 1/2, and log-concavity by a checked induction; "
            "exhaustive exact scans and the printed gaps on exact laws as a second route",
            ev,
            reproduce,
            domain=domain,
            basis=basis,
        )
    if not gaps:
        ev["finding"] = "not shown in general: " + ", ".join(failed_facts(facts))
        return Verdict(
            Status.INCONCLUSIVE, "machine-checked proof attempt", ev, reproduce, basis=basis
        )
    ev["finding"] = (
        "not shown in general (" + ", ".join(failed_facts(facts)) + "); the printed gaps are >= 0 "
        f"on the exact laws for {GRID_TEXT}"
    )
    return Verdict(
        Status.VERIFIED,
        "the printed statement on the exact laws",
        ev,
        reproduce,
        domain=GRID_TEXT,
        basis=basis,
    )


def _rho_s_facts(gap: sp.Expr, name: str) -> list[Fact]:
    """gap = ρ_n(s;m) - ρ_n(s+1;m): times P_{n,m}(s-1)P_{n,m}(s) it is LC_{n,m}(s) > 0."""
    return sk.certify(gap, P(n, m, s - 1) * P(n, m, s), [(1, lc(n, m, s))], name)


def _rho_m_facts(gap: sp.Expr, name: str) -> list[Fact]:
    """gap = ρ_n(s;m+1) - ρ_n(s;m): times P_{n,m+1}(s-1)P_{n,m}(s-1) it is
    (p² - q²) LC_{n-1,m}(s-1) (reduction to A_{n-1}(m) by (4.1), (4.2))."""
    return sk.certify(
        gap, P(n, m + 1, s - 1) * P(n, m, s - 1), [(p**2 - q**2, lc(n - 1, m, s - 1))], name
    )


# --------------------------------------------------------------------------- §4.2
@claim(
    "zz2016.sec4.2.rho_monotone_s",
    source="§4.2 TODO",
    statement=r"\rho_n(s;m)\text{ is decreasing in } s \text{ for fixed } m",
)
def rho_monotone_s() -> Verdict:
    eq = Z.RHO_MONOTONE[0]
    facts = [*sk.log_concavity_facts(), *_rho_s_facts(eq.expr, "ρ(s) - ρ(s+1)")]
    return _monotone(
        "zz2016.sec4.2.rho_monotone_s",
        facts,
        [(eq, lambda nv, mv, sv: nv >= 2 and 1 <= sv <= nv - 1)],
        [kx.rho_decreasing_in_s()],
        finding="holds, strictly, for every m including m = n: (ρ_n(s;m) - ρ_n(s+1;m)) "
        "P_{n,m}(s-1)P_{n,m}(s) = LC_{n,m}(s) > 0; " + LC_NOTE,
        domain="every n >= 2, 0 <= m <= n, 1 <= s <= n-1, 0 < q < 1/2",
    )


@claim(
    "zz2016.sec4.2.rho_monotone_m",
    source="§4.2 TODO",
    statement=r"\rho_n(s;m)\text{ is increasing in } m \text{ for fixed } s",
)
def rho_monotone_m() -> Verdict:
    eq = Z.RHO_MONOTONE[1]
    facts = [*sk.log_concavity_facts(), *_rho_m_facts(eq.expr, "ρ(s;m+1) - ρ(s;m)")]
    return _monotone(
        "zz2016.sec4.2.rho_monotone_m",
        facts,
        [(eq, lambda nv, mv, sv: mv <= nv - 1 and 1 <= sv <= nv)],
        [kx.rho_increasing_in_m()],
        finding="holds, strictly: (ρ_n(s;m+1) - ρ_n(s;m)) P_{n,m+1}(s-1)P_{n,m}(s-1) = "
        "(p² - q²)(c_{s-1}² - c_{s-2} c_s) with c the law of A_{n-1}(m), > 0; " + LC_NOTE,
        domain="every n >= 1, 0 <= m <= n-1, 1 <= s <= n, 0 < q < 1/2",
    )


# --------------------------------------------------------------------------- §4.5
@claim(
    "zz2016.sec4.5.pi_monotone",
    source="§4.5",
    statement=r"\pi\text{ decreasing in } s\text{, increasing in } m\text{, and }"
    r"\pi(s;m) \ge \pi(s+1;m+1)",
)
def pi_monotone() -> Verdict:
    e_s, e_m, e_net = Z.PI_MONOTONE
    c2 = p**2 - q**2
    facts = [
        *sk.log_concavity_facts(),
        *sk.certify(
            e_s.expr,
            P(n, m + 1, s) * P(n, m + 1, s + 1),
            [(c2, lc(n - 1, m, s))],
            "π decreasing in s",
        ),
        *sk.certify(
            e_m.expr,
            P(n, m + 1, s) * P(n, m + 2, s),
            [(c2**2, lc(n - 2, m, s - 1))],
            "π increasing in m",
        ),
        *sk.certify(
            e_net.expr,
            P(n, m + 1, s) * P(n, m + 2, s + 1),
            [
                (p * q * c2, lc(n - 2, m, s - 1)),
                (p * q * c2, lc(n - 2, m, s)),
                (q**2 * c2, xc(n - 2, m, s)),
            ],
            "π(s;m) >= π(s+1;m+1)",
        ),
    ]
    scans = [kx.pi_decreasing_in_s(), kx.pi_increasing_in_m(), kx.pi_net_decreasing()]
    return _monotone(
        "zz2016.sec4.5.pi_monotone",
        facts,
        [
            (e_s, lambda nv, mv, sv: mv <= nv - 1 and 0 <= sv <= nv - 1),
            (e_m, lambda nv, mv, sv: mv <= nv - 2 and 0 <= sv <= nv),
            (e_net, lambda nv, mv, sv: mv <= nv - 2 and 0 <= sv <= nv - 1),
        ],
        scans,
        finding="all three hold: cross-multiplied, π(s;m) - π(s+1;m) is (p² - q²) LC of "
        "A_{n-1}(m) at s (> 0), π(s;m+1) - π(s;m) is (p² - q²)² LC of A_{n-2}(m) at s-1 "
        "(>= 0, = 0 at s = 0 and s = n), and π(s;m) - π(s+1;m+1) is pq(p² - q²)(LC_{s-1} + "
        "LC_s) + q²(p² - q²) X_s of A_{n-2}(m) (>= 0); " + LC_NOTE,
        domain="every n >= 1, 0 < q < 1/2, and m, s where both sides are defined: π(s;m) >= "
        "π(s+1;m) for m <= n-1, s <= n-1 (strictly); π(s;m) <= π(s;m+1) for m <= n-2, "
        "0 <= s <= n; π(s;m) >= π(s+1;m+1) for m <= n-2, s <= n-1",
    )


# --------------------------------------------------------------------------- §4.3
def s_m_facts() -> list[Fact]:
    """The printed s_m(δ) = ⌈μ_m - δ⌉ ∨ 1 is non-increasing in δ, lies in 1..n for δ > 0, and
    satisfies the printed shift s_m(δ+1) = (s_m(δ) - 1) ∨ 1."""
    facts: list[Fact] = []
    sm, delta = Z.S_M.expr, Z.delta
    parts = sm.args if isinstance(sm, sp.Max) else ()
    ceil = [a for a in parts if isinstance(a, sp.ceiling)]
    form = (
        isinstance(sm, sp.Max)
        and len(parts) == 2
        and sp.Integer(1) in parts
        and len(ceil) == 1
        and sp.diff(ceil[0].args[0], delta) == -1
    )
    A = sp.expand(ceil[0].args[0] + delta) if ceil else sp.nan
    facts.append(
        Fact(
            "s_m(δ): form",
            "symbolic",
            form and A.free_symbols.isdisjoint({delta}),
            f"the printed s_m(δ) = {sm} is ⌈A - δ⌉ ∨ 1 with A = {A} free of δ",
        )
    )
    # ceiling is non-decreasing: x - e <= j < x - e + 1 and x <= k < x + 1 (definition of
    # j = ⌈x - e⌉, k = ⌈x⌉), e >= 0  =>  k + 1 - j > 0, an integer, so j <= k
    x, e = sp.Symbol("x", real=True), sp.Symbol("e", nonnegative=True)
    k, j = sp.symbols("k j", integer=True)
    ident = sp.expand((k + 1 - j) - ((x - e + 1 - j) + e + (k - x))) == 0
    a_, b_, c_ = (
        sp.Symbol("a", positive=True),
        sp.Symbol("b", nonnegative=True),
        sp.Symbol("c", nonnegative=True),
    )
    w = sp.Symbol("w", integer=True, positive=True)
    sign = (a_ + b_ + c_).is_positive is True and (w - 1).is_nonnegative is True
    facts.append(
        Fact(
            "⌈·⌉ non-decreasing",
            "symbolic",
            ident,
            "with j = ⌈x - e⌉, k = ⌈x⌉, e >= 0: k + 1 - j = (x - e + 1 - j) + e + (k - x) "
            "(SymPy expand)",
        )
    )
    facts.append(
        Fact(
            "⌈·⌉ non-decreasing: signs",
            "sign",
            sign,
            "x - e + 1 - j > 0, e >= 0 and k - x >= 0 (definition of ⌈·⌉) give k + 1 - j > 0; "
            "an integer w > 0 has w - 1 >= 0 (SymPy assumptions): j <= k",
        )
    )
    # ∨ 1 is non-decreasing on the integers: a = b + e, every case of b and a about the kink
    u, v, ee = (sp.Symbol(t, integer=True, nonnegative=True) for t in "uve")
    mx = lambda t: sp.Max(t, 1)  # noqa: E731
    cases = [
        mx(1 + u + ee) - mx(1 + u),  # b >= 1
        mx(-u) - mx(-u),  # b <= 0, a <= 0 (both clamp to 1)
        mx(1 + v) - mx(-u),  # b <= 0, a >= 1
    ]
    facts.append(
        Fact(
            "∨ 1 non-decreasing",
            "sign",
            all(sp.simplify(c).is_nonnegative is True for c in cases),
            "for integers a >= b: (a ∨ 1) - (b ∨ 1) is e (b = 1 + u, a = b + e), 0 (a, b <= 0) "
            "or v (b <= 0, a = 1 + v), each >= 0 (SymPy, u, v, e >= 0)",
        )
    )
    # 1 <= s_m(δ) <= n for δ > 0: μ_m = nq + m(p-q) <= n
    mm, vv = sp.Symbol("m", nonnegative=True), sp.Symbol("v", nonnegative=True)
    top = sk.on_lie_range(n - Z.MU).subs(m, mm).subs(n, mm + vv)
    ok_top, why = sk.nonneg_rational(top, (sk.T_Q,), (mm, vv))
    facts.append(
        Fact(
            "s_m(δ) in 1..n",
            "sign",
            ok_top,
            f"n - μ_m = (n - m)p + mq >= 0 ({why}; n = m + v), so ⌈μ_m - δ⌉ <= ⌈μ_m⌉ <= n for "
            "δ > 0, and ∨ 1 gives >= 1: ρ(s_m(δ); m) is defined",
        )
    )
    # the printed shift
    kk = sp.Symbol("k", integer=True)
    xs = sp.Symbol("x", real=True)
    ceil_shift = sp.simplify(sp.ceiling(xs - 1) - sp.ceiling(xs) + 1) == 0
    ok_shift = False
    if ceil:
        lhs = sm.subs(delta, delta + 1).xreplace({ceil[0]: kk})
        rhs = Z.S_M_SHIFT.expr.subs(Z.SD, sm).xreplace({ceil[0]: kk})
        ok_shift = lhs.has(kk) and all(
            sp.simplify((lhs - rhs).subs(kk, val)) == 0 for val in (1 + u, -u)
        )
    facts.append(
        Fact(
            "shift s_m(δ+1) = (s_m(δ) - 1) ∨ 1",
            "symbolic",
            ceil_shift and ok_shift,
            "⌈x - 1⌉ = ⌈x⌉ - 1 (SymPy), so with k = ⌈μ_m - δ⌉ the printed identity reads "
            "(k - 1) ∨ 1 = ((k ∨ 1) - 1) ∨ 1, checked for k = 1 + u and k = -u (u >= 0 "
            "integer), which are all integers",
        )
    )
    return facts


@claim(
    "zz2016.sec4.3.R_monotone",
    source="§4.3",
    statement=r"R_m(\delta) \le R_m(\delta')\ (\delta \le \delta'),\ "
    r"s_m(\delta+1) = (s_m(\delta) - 1) \vee 1",
)
def r_monotone() -> Verdict:
    rm = Z.R_M.expr
    t = sp.Symbol("t", integer=True)
    R = sp.Function("R")
    tele = sp.Sum(R(t) - R(t + 1), (t, sp.Symbol("a", integer=True), s - 1)).doit()
    ok_tele = sp.simplify(tele - (R(sp.Symbol("a", integer=True)) - R(s))) == 0
    facts = [
        *sk.log_concavity_facts(),
        *_rho_s_facts(rm.subs(Z.SD, s) - rm.subs(Z.SD, s + 1), "R_m as a function of s_m"),
        Fact(
            "telescoping",
            "symbolic",
            ok_tele,
            "R(a) - R(s) = Σ_{t=a}^{s-1} (R(t) - R(t+1)) (SymPy), each term >= 0 by the line "
            "above (R(t) = the printed R_m at s_m(δ) = t); with the finite-sum lemma, "
            "R_m is non-increasing in s_m",
        ),
        *sk.finite_sum_facts(),
        *s_m_facts(),
    ]
    return _monotone(
        "zz2016.sec4.3.R_monotone",
        facts,
        [],
        [kx.R_monotone()],
        finding="holds: s_m(δ) = ⌈μ_m - δ⌉ ∨ 1 is non-increasing in δ and in 1..n, and "
        "ρ(·;m) is decreasing on 1..n, so R_m is non-decreasing; the shift identity is "
        "⌈x - 1⌉ = ⌈x⌉ - 1 through the clamp; " + LC_NOTE,
        domain="every n >= 1, 0 <= m <= n, every real 0 < δ <= δ', 0 < q < 1/2",
    )


def _m1(scan: kx.Scan) -> str:
    c = scan.extra.get("smallest_m_ge_1")
    if not c:
        return ""
    return (
        f"; with m >= 1: n = {c['n']}, m = {c['m']}, q = {c['q']}: R_m(δ) = {c['R_m_delta']} > "
        f"R_0(δ+1) = {c['R_0_delta_plus_1']}"
    )


@claim(
    "zz2016.prop4.1",
    source="Prop 4.1",
    statement=r"R_m(\delta) < R_0(\delta + 1)\ \forall m,\ \text{provided } \delta > npq",
)
def prop4_1() -> Verdict:
    scan = kx.proposition_4_1()
    ev = _scan_evidence(scan)
    ev.update(
        {
            k: scan.extra[k]
            for k in ("smallest_m_ge_1", "unclamped", "proof_assumption")
            if k in scan.extra
        }
    )
    scan_step = step(Kind.ENUMERATION, f"exhaustive exact scan: {scan.domain}", domain=EXHAUSTIVE)
    if scan.holds:
        ev["finding"] = "no counterexample"
        return Verdict(
            Status.VERIFIED,
            "exhaustive exact scan over every real δ > npq",
            ev,
            domain=EXHAUSTIVE,
            basis=[scan_step],
        )
    ce = scan.counterexample or {}
    unclamped = scan.extra.get("unclamped", {})
    assumed = scan.extra.get("proof_assumption", {})
    ev["finding"] = (
        f"false: smallest counterexample n = {ce.get('n')}, m = {ce.get('m')}, q = "
        f"{ce.get('q')}, every δ > npq: R_m(δ) = {ce.get('R_m_delta')}, R_0(δ+1) = "
        f"{ce.get('R_0_delta_plus_1')} (equal, so '<' fails){_m1(scan)}; every "
        "failure has s_0(δ+1) = 1, where the clamp s ∨ 1 stops s_0 from decreasing (for "
        "δ >= μ_n - 1 all s_m(δ) = 1 and R_m = ρ(1;m) = mp/q + (n-m)q/p grows with m, while "
        "R_0(δ+1) = ρ(1;0) = nq/p)"
        + (
            "; under the proof's own assumption s_0(δ) >= 2 there is no counterexample "
            f"({EXHAUSTIVE}; that region is empty for q = 1/20, 1/10 at n <= 60)"
            if assumed.get("holds")
            else ""
        )
        + ("; nor where neither s is clamped" if unclamped.get("holds") else "")
    )
    return Verdict(
        Status.REFUTED,
        "exhaustive exact scan over every real δ > npq (every piece of the step functions "
        "s_m(δ), s_0(δ+1)); smallest counterexample in rationals",
        ev,
        reproduce="dpcheck verify zz2016.prop4.1 --format json",
        basis=[
            scan_step,
            step(
                Kind.ENUMERATION,
                "R_m(δ) and R_0(δ+1) in exact rationals at the smallest "
                "counterexample (every δ > npq)",
                domain=_where(ce),
            ),
        ],
    )


def strictness_witness() -> dict[str, Any]:
    """The last '<' of the proof's final display fails where m(p - q) is an integer.

    Searched: q in ``Q_SET``, m = 1..N_MAX, for the smallest m (then q) with m(p - q) an
    integer; confirmed exactly on the printed display (Z.FINAL_CHAIN): with a = m(p-q),
    c = ⌈a⌉ = a, the middle minus the right side is 0 for every δ' (SymPy), so '<' is '='.
    """
    hits = [
        (mv, qq)
        for qq in kx.Q_SET
        for mv in range(1, kx.N_MAX + 1)
        if (mv * (1 - 2 * qq)).denominator == 1
    ]
    if not hits:
        return {}
    mv, qq = min(hits)
    a = mv * (1 - 2 * qq)
    vals = {
        Z.a_: sp.Integer(int(a)),
        Z.c_: sp.Integer(math.ceil(a)),
        q: sp.Rational(qq.numerator, qq.denominator),
        p: 1 - sp.Rational(qq.numerator, qq.denominator),
    }
    middle = Z.FINAL_CHAIN.expr.subs(vals)
    right = Z.FINAL_CHAIN.extra["upper"].subs(vals)
    equal = sp.simplify(middle - right) == 0
    return {
        "q": str(qq),
        "m": mv,
        "n": f">= {mv} (any n with m <= n)",
        "m(p-q)": str(a),
        "⌈m(p-q)⌉": str(math.ceil(a)),
        "middle": str(middle),
        "right": str(right),
        "printed": "middle < right",
        "true": "middle = right for every δ'" if equal else "middle != right",
        "confirmed": equal,
        "search": f"smallest m (then q) over q in {QTEXT}, m = 1..{kx.N_MAX}",
    }


@claim(
    "zz2016.prop4.1.proof_identities",
    source="proof of Prop 4.1",
    statement=r"\eta(s_m)-\eta(s_0)\text{ identity; }\eta(s_0)\gamma_m(s_m)-\eta(s_m)\gamma_0(s_0)"
    r"\text{ identity; } s_m - s_0 = \lceil m(p-q)\rceil;\ (n+2)(R_0(\delta)-1) < "
    r"(\delta'+1)/(pq)",
)
def proof_identities() -> Verdict:
    items: dict[str, Any] = {}
    basis: list[Step] = []

    def record(name: str, ok: bool, detail: str) -> bool:
        items[name] = "holds (symbolic, any p, q)" if ok else "FAILS"
        basis.append(step(Kind.SYMBOLIC, f"{name}: {detail}", checked=ok))
        return ok

    def chain(name: str, eqs: list) -> bool:  # type: ignore[type-arg]
        ok = all(sp.simplify(e.expr - eqs[0].expr) == 0 for e in eqs[1:])
        return record(name, ok, "each displayed line minus the left side simplifies to 0")

    eta_ok = chain("η(s_m) - η(s_0) = -(n+2)(s_m - s_0)/((s_0+1)(s_m+1))", Z.ETA_DIFFERENCE)
    eg_ok = chain("η(s_0)γ_m(s_m) - η(s_m)γ_0(s_0), both displayed lines", Z.ETA_GAMMA)
    k = (Z.s0 + 1) * (Z.sm + 1)
    e46 = record(
        "(4.5) times (s_0+1)(s_m+1) = (4.6)",
        sp.simplify(Z.EQ4_5.expr * k - Z.EQ4_6.expr) == 0,
        "SymPy simplify",
    )
    # (4.6) with s_m - s_0 = c, μ_m - μ_0 = a and μ_0 - s_0 = δ' + 1 gives the printed line
    sub = {Z.sm: Z.s0 + Z.c_, Z.mum: Z.mu0 + Z.a_}
    applied = Z.EQ4_6.expr.xreplace(sub).subs(Z.s0, Z.mu0 - Z.dp - 1)
    app_ok = record(
        "(4.6) with s_m - s_0 = ⌈m(p-q)⌉, μ_0 - s_0 = δ'+1",
        sp.simplify(applied - Z.EQ4_6_APPLIED.expr) == 0,
        "the substituted (4.6) minus the printed expression simplifies to 0",
    )
    items["(4.6) with s_m - s_0 = ⌈m(p-q)⌉, μ_0 - s_0 = δ'+1"] = (
        "gives the printed expression" if app_ok else "FAILS"
    )
    strict = strictness_witness()
    items["last '<' (m(p-q)/⌈m(p-q)⌉ < 1)"] = (
        f"false when m(p - q) is an integer (e.g. q = {strict.get('q')}, m = {strict.get('m')}): "
        "there it is '='"
        if strict.get("confirmed")
        else "not confirmed"
    )
    ceil = kx.proof_ceiling_identity()
    items["s_m - s_0 = ⌈m(p-q)⌉ (case δ' = δ_0, the one proved)"] = ceil.extra.get("case_delta_0")
    items["case δ' = δ_m ('similar')"] = ceil.extra.get("case_delta_m")
    ev: dict[str, Any] = {"items": items, "exhaustive": ceil.domain}
    reproduce = "dpcheck verify zz2016.prop4.1.proof_identities --format json"
    basis.append(
        step(
            Kind.ENUMERATION,
            f"exhaustive exact scan of the ceiling step: {ceil.domain}",
            domain=EXHAUSTIVE,
        )
    )
    if strict.get("confirmed"):
        basis.append(
            step(
                Kind.SYMBOLIC,
                "the final display at a = m(p-q) = ⌈m(p-q)⌉: middle - right simplifies to 0 for "
                "symbolic δ' (searched, then confirmed exactly)",
                domain=f"q = {strict['q']}, m = {strict['m']}, every n >= m, every δ'",
            )
        )
    algebra_ok = eta_ok and eg_ok and e46 and app_ok
    if not algebra_ok:
        ev["finding"] = "an algebraic identity of the proof does not reduce"
        return Verdict(Status.INCONCLUSIVE, "symbolic", ev, reproduce, basis=basis)
    if ceil.holds:
        if not strict.get("confirmed"):
            ev["finding"] = "the identities hold and no failing step was found"
            return Verdict(
                Status.INCONCLUSIVE,
                "symbolic identities; exhaustive scan",
                ev,
                reproduce,
                basis=basis,
            )
        ev["witness"] = strict
        ev["finding"] = (
            "the identities hold; only the last strict '<' fails when m(p-q) is an integer"
        )
        return Verdict(
            Status.REFUTED, "symbolic identities; exact witness", ev, reproduce, basis=basis
        )
    region = ceil.extra.get("in_proof_region", {})
    # the witness: the smallest instance inside the proof's region (s_0(δ) >= 2) if any
    ev["witness"] = region.get("counterexample") or ceil.counterexample
    ev["smallest instance at any δ > npq"] = ceil.counterexample
    ev["strictness witness"] = strict
    w = ev["witness"] or {}
    basis.append(
        step(
            Kind.ENUMERATION,
            "s_m - s_0 and ⌈m(p-q)⌉ in exact arithmetic at the witness (case δ' = δ_m)",
            domain=_where(w),
        )
    )
    where = f"n = {w.get('n')}, m = {w.get('m')}, q = {w.get('q')}, δ = {w.get('delta')}"
    ev["finding"] = (
        "the η-difference and ηγ identities, (4.5) => (4.6) and the substituted form hold "
        "symbolically; s_m - s_0 = ⌈m(p-q)⌉ holds in the case δ' = δ_0 that is worked out, but "
        "in the case δ' = δ_m, called 'similar', s_m - s_0 = ⌊m(p-q)⌋ (smallest instance "
        f"with s_0(δ) >= 2 as the proof assumes: {where}), which is 0 when m(p-q) < 1, where "
        "the last step divides by it; the last '<' is '=' when m(p-q) is an integer "
        f"(q = {strict.get('q')}, m = {strict.get('m')}, confirmed exactly); and the proof "
        "stops without reaching a contradiction with δ > npq (Proposition 4.1 itself is "
        "false: zz2016.prop4.1)"
    )
    return Verdict(
        Status.REFUTED,
        "symbolic identities; exhaustive exact scan of the ceiling step over every real δ > npq",
        ev,
        reproduce,
        basis=basis,
    )


# --------------------------------------------------------------------------- §4.6
def quantile_step_facts() -> list[Fact]:
    """The two printed inequalities of the §4.6 proof, as gaps, are positive combinations of
    probabilities of A_{n-1}(m-1) (the §4.4 identities, re-proved here)."""
    g1, g2 = (e.expr for e in Z.QUANTILE_STEP)
    P1 = lambda t: P(n - 1, m - 1, t)  # noqa: E731
    return [
        *sk.certify(g1, 1, [(p - q, P1(s))], "F_{n,m}(τ) <= F_{n,m-1}(τ)"),
        *sk.certify(g2, 1, [(q, P1(s)), (q, P1(s + 1))], "F_{n,m}(τ+1) >= F_{n,m-1}(τ)"),
    ]


QUANTILE_GLUE = (
    "with τ_n(m) = min{t: F_{n,m}(t) >= α} (the definition): α <= F_{n,m}(τ_n(m)) <= "
    "F_{n,m-1}(τ_n(m)) gives τ_n(m-1) <= τ_n(m), and F_{n,m}(τ_n(m-1)+1) >= "
    "F_{n,m-1}(τ_n(m-1)) >= α gives τ_n(m) <= τ_n(m-1) + 1"
)


@claim(
    "zz2016.sec4.6.quantile_step",
    source="§4.6 Claim",
    statement=r"\tau_n(m) \in \{\tau_n(m-1), \tau_n(m-1)+1\}",
)
def quantile_step() -> Verdict:
    scan = kx.quantile_step()
    return _monotone(
        "zz2016.sec4.6.quantile_step",
        quantile_step_facts(),
        [(eq, lambda nv, mv, sv: mv >= 1) for eq in Z.QUANTILE_STEP],
        [scan],
        finding="holds for every α in (0, 1]: both inequalities of the printed proof are "
        "(p - q) or q times probabilities (checked for all n, m, τ); " + QUANTILE_GLUE,
        domain="every n >= 1, 1 <= m <= n, 0 < α <= 1, 0 < q < 1/2",
    )


@claim(
    "zz2016.sec4.6.quantile_iff",
    source="§4.6",
    statement=r"\tau_n(m) = \tau_n(m-1) \iff F_{n,m-1}(\tau_n(m-1)) - \alpha \ge "
    r"(p-q)P[A_{n-1}(m-1) = \tau_n(m-1)]",
)
def quantile_iff() -> Verdict:
    scan = kx.quantile_iff()
    first, printed = (e.expr for e in Z.QUANTILE_IFF)
    try:
        pr = sk.prove(first, printed)
        same, how = pr.holds, pr.text()
    except ValueError as exc:
        same, how = False, str(exc)
    facts = [
        *quantile_step_facts(),
        Fact(
            "the printed condition",
            "symbolic",
            same,
            f"({first}) = ({printed}) for all n, m, τ ({how}): the printed condition is "
            "F_{n,m}(τ_n(m-1)) >= α; with τ_n(m) in {τ_n(m-1), τ_n(m-1)+1} (the claim above) "
            "and F_{n,m}(τ_n(m-1)-1) <= F_{n,m-1}(τ_n(m-1)-1) < α, τ_n(m) = τ_n(m-1) iff "
            "F_{n,m}(τ_n(m-1)) >= α (definition of τ)",
        ),
    ]
    if not same:
        pts = _grid(lambda nv, mv, sv: mv >= 1 and 0 <= sv <= nv)
        hit = next(
            sk.exact_residuals(first.subs(Z.alpha, 0), printed.subs(Z.alpha, 0), pts, GRID_QS), None
        )
        ev: dict[str, Any] = {
            "machine-checked steps": {f.name: ("holds" if f.holds else "NOT shown") for f in facts},
            "finding": "the printed condition is not F_{n,m}(τ_n(m-1)) >= α"
            + (
                f": they differ at n = {hit[0]}, m = {hit[1]}, τ = {hit[2]}, q = {hit[3]} "
                f"({hit[4]} vs {hit[5]}, α-free parts)"
                if hit
                else ""
            ),
            "scan (the condition as coded in the scan)": _scan_evidence(scan),
        }
        return Verdict(
            Status.INCONCLUSIVE,
            "machine-checked proof attempt",
            ev,
            "dpcheck verify zz2016.sec4.6.quantile_iff --format json",
            basis=fact_steps(facts),
        )
    return _monotone(
        "zz2016.sec4.6.quantile_iff",
        facts,
        [(eq, lambda nv, mv, sv: mv >= 1) for eq in Z.QUANTILE_STEP],
        [scan],
        finding="holds for every α in (0, 1]: the printed condition is identically "
        "F_{n,m}(τ_n(m-1)) >= α (checked for all n, m, τ), and " + QUANTILE_GLUE,
        domain="every n >= 1, 1 <= m <= n, 0 < α <= 1, 0 < q < 1/2",
    )


# --------------------------------------------------------------------------- §4.8
@claim(
    "zz2016.sec4.8.location_shift",
    source="§4.8",
    statement=r"F_{n,m}(x) \approx F_{n,0}(x - m(p-q))\text{: the error and its scaling in } n",
)
def location_shift() -> Verdict:
    scan = kx.location_shift()
    ev = _scan_evidence(scan)
    ev["table"] = scan.extra.get("table")
    for key in ("max_over_min", "consecutive_ratios"):
        if key in scan.extra:
            ev[key] = scan.extra[key]
    basis = [
        step(
            Kind.ENUMERATION,
            "exact sup over every real x and every m of "
            "|F_{n,m}(x) - F_{n,0}(x - m(p-q))|, in rationals",
            domain=scan.domain,
        )
    ]
    if not scan.holds:
        ev["finding"] = "the exact error does not scale like n^(-1/2) on the examined range"
        return Verdict(Status.INCONCLUSIVE, "exact sup error", ev, basis=basis)
    ev["finding"] = (
        "the approximation is good only to order n^(-1/2): the exact worst error D_n = "
        "max_m sup_x |F_{n,m}(x) - F_{n,0}(x - m(p-q))| times sqrt(n) is nearly constant in n "
        "(see 'table'); it is attained at large m, where the skew of the two laws differs and "
        "m(p-q) is not an integer, so the lattice steps do not line up"
    )
    return Verdict(
        Status.VERIFIED,
        "exact sup over every real x and every m, in rationals",
        ev,
        domain=scan.domain,
        basis=basis,
    )


# --------------------------------------------------------------------------- §5.1
@claim(
    "zz2016.claim5.1",
    source="§5.1 Claim (5.1)",
    statement=r"\frac{P[A(\mathbf{1}) = s]}{P[A(\mathbf{1}) = s-1]} \ge "
    r"\frac{P[A(\mathbf{y}) = s]}{P[A(\mathbf{y}) = s-1]}\ \forall \mathbf{y}",
)
def claim5_1() -> Verdict:
    gap = Z.CLAIM5_1.expr
    kk = sp.Symbol("k", integer=True)
    R = sp.Function("R")
    tele = sp.Sum(R(kk + 1) - R(kk), (kk, m, n - 1)).doit()
    ok_tele = sp.simplify(tele - (R(n) - R(m))) == 0
    derived = (R(n) - R(m)).replace(R, sp.Lambda(kk, sk.rho(n, kk, s)))
    ok_match = sp.simplify(gap - derived) == 0
    facts = [
        *sk.count_law_facts(),
        *sk.log_concavity_facts(),
        Fact(
            "telescoping",
            "symbolic",
            ok_tele and ok_match,
            f"the printed gap {gap} equals Σ_{{k=m}}^{{n-1}} (ρ_n(s;k+1) - ρ_n(s;k)) (SymPy "
            "telescoping; A(1) ~ A_n(n) and A(y) ~ A_n(m) for y with m ones, by the law of "
            "the count of ones above)",
        ),
        *_rho_m_facts(sk.rho(n, m + 1, s) - sk.rho(n, m, s), "each term ρ(s;k+1) - ρ(s;k)"),
        *sk.finite_sum_facts(),
    ]
    return _monotone(
        "zz2016.claim5.1",
        facts,
        [(Z.CLAIM5_1, lambda nv, mv, sv: 1 <= sv <= nv)],
        [kx.claim_5_1()],
        finding="holds: the all-ones collection (m = n) maximises ρ_n(s;m) = P[A=s]/P[A=s-1]: "
        "the gap is a telescoping sum of ρ_n(s;k+1) - ρ_n(s;k) > 0; " + LC_NOTE,
        domain="every n >= 1, every collection y of n bits, 1 <= s <= n, 0 < q < 1/2",
    )


@claim(
    "zz2016.claim5.1.binomial_ratio",
    source="§5.1",
    statement=r"A(\mathbf{1}) \sim \mathrm{Bin}(n-1,p): \frac{n-s}{s}\frac{p}{q} \le "
    r"\frac{n-s+1}{s-1}\frac{p}{q}",
)
def binomial_ratio() -> Verdict:
    ratio = sp.combsimp(Z.BINOMIAL_RATIO[0].expr)
    eq_ok = sp.simplify(ratio - Z.BINOMIAL_RATIO[1].expr) == 0
    gap = sp.factor(Z.BINOMIAL_RATIO_BOUND.expr - Z.BINOMIAL_RATIO[1].expr)
    w, v = sp.Symbol("w", nonnegative=True), sp.Symbol("v", nonnegative=True)
    shifted = (Z.BINOMIAL_RATIO_BOUND.expr - Z.BINOMIAL_RATIO[1].expr).subs(
        {s: 2 + w, n: 3 + w + v}, simultaneous=True
    )
    gap_ok, why = sk.nonneg_rational(shifted, (p, q), (w, v), strict=True)
    ev: dict[str, Any] = {
        "ratio": f"{Z.BINOMIAL_RATIO[0].latex} simplifies to {ratio}",
        "gap": f"(n-s+1)/(s-1)·p/q - (n-s)/s·p/q = {gap} > 0 for 2 <= s <= n-1",
    }
    basis = [
        step(
            Kind.SYMBOLIC,
            f"the printed binomial ratio simplifies to {ratio}, the printed "
            "(n-s)/s·p/q (SymPy combsimp)",
            checked=eq_ok,
        ),
        step(
            Kind.SIGN,
            f"bound minus ratio = {gap}, with s = 2 + w, n = 3 + w + v (w, v >= 0): {why}",
            checked=gap_ok,
        ),
    ]
    if eq_ok and gap_ok:
        ev["finding"] = (
            "holds (with strict inequality); at s = 1 the right side is undefined "
            "and the note handles that case separately"
        )
        return Verdict(
            Status.PROVED,
            "symbolic (combsimp of the binomial ratio; sign by coefficients)",
            ev,
            domain="every n >= 3, 2 <= s <= n-1, 0 < q < 1/2",
            basis=basis,
        )
    ev["finding"] = "the printed ratio or bound differs"
    ev["witness"] = {"ratio": str(ratio), "gap": str(gap)}
    at = {n: sp.Integer(4), s: sp.Integer(2), q: sp.Rational(1, 4), p: sp.Rational(3, 4)}
    left = Z.BINOMIAL_RATIO[0].expr.subs(at)
    mid = Z.BINOMIAL_RATIO[1].expr.subs(at)
    right = Z.BINOMIAL_RATIO_BOUND.expr.subs(at)
    bad = left != mid or not mid <= right
    ev["witness"]["at n = 4, s = 2, q = 1/4"] = {
        "ratio": str(left),
        "printed": str(mid),
        "bound": str(right),
    }
    if bad:
        basis.append(
            step(
                Kind.ENUMERATION,
                "the printed ratio and bound in exact rationals",
                domain="n = 4, s = 2, q = 1/4",
            )
        )
        return Verdict(Status.REFUTED, "symbolic; exact witness", ev, basis=basis)
    return Verdict(Status.INCONCLUSIVE, "symbolic", ev, basis=basis)


@claim(
    "zz2016.sec5.x1_zero",
    source="§5.1 TODO",
    statement=r"x_1 = 0\text{: which collection maximises } \pi(s, \mathbf{x}, x_1')",
)
def x1_zero() -> Verdict:
    scan = kx.x1_zero_maximiser()
    ev = _scan_evidence(scan)
    ev.update({k: v for k, v in scan.extra.items() if k != "seconds"})
    answer = scan.extra.get("answer", "")
    basis = [
        step(
            Kind.ENUMERATION,
            "every background enumerated, the maximiser of π found exactly",
            domain=scan.domain,
        )
    ]
    if not scan.holds:
        ev["finding"] = f"no single pattern: {answer}"
        return Verdict(Status.INCONCLUSIVE, "exhaustive exact scan", ev, basis=basis)
    ev["finding"] = f"enumeration answers the TODO: {answer}"
    return Verdict(
        Status.VERIFIED,
        "exhaustive exact scan of every background",
        ev,
        domain=scan.domain,
        basis=basis,
    )
