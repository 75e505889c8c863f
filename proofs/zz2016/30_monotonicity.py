"""Zhilyaev and Zeber (2016) §4.2-§4.8, §5.1: monotonicity, Proposition 4.1, quantiles.

Two routes per claim.  Symbolic: the monotonicity statements reduce, through
(4.1)/(4.2) (:func:`dpcheck.symbolic.krand.prove`), to log-concavity of the pmf
of A_{n-1}(m), which holds for every n by induction (one convolution step keeps
it, an identity checked here).  Exhaustive: every n <= N_MAX, every m and s
(and every real delta or alpha, through the breakpoints of the step
functions) for the lie probabilities of ``Q_SET``, in exact integer
arithmetic (:mod:`dpcheck.enumeration.krand_exhaustive`).  A counterexample is
the smallest one (n, then m, then s) with exact values.
"""

from __future__ import annotations

from typing import Any

import sympy as sp

from dpcheck.claims.model import Status, Verdict
from dpcheck.claims.registry import claim
from dpcheck.enumeration import krand_exhaustive as kx
from dpcheck.papers import zz2016 as Z
from dpcheck.symbolic import krand as sk
from dpcheck.symbolic.krand import P, m, n, p, q, s

QTEXT = "{" + ", ".join(str(v) for v in kx.Q_SET) + "}"
EXHAUSTIVE = f"n = 1..{kx.N_MAX}, q in {QTEXT}"


def _c(t: int) -> sp.Expr:
    """c_t = P_{n-1,m}(s + t): the law one record back."""
    return P(n - 1, m, s + t)


def _lc(t: int) -> sp.Expr:
    """c_t² - c_{t-1} c_{t+1}: log-concavity of A_{n-1}(m) at s + t."""
    return _c(t) ** 2 - _c(t - 1) * _c(t + 1)


#: one convolution step keeps strict log-concavity: with P_{n,m}(t) = q c_{t-1} + p c_t
#: (eq (4.2)), the gap at s is p² LC_s + q² LC_{s-1} + pq (c_s c_{s-1} - c_{s-2} c_{s+1}),
#: and the last bracket is > 0 for 1 <= s <= n-1 when c is strictly log-concave.
LC_STEP = (
    P(n, m, s) ** 2 - P(n, m, s - 1) * P(n, m, s + 1),
    p**2 * _lc(0) + q**2 * _lc(-1) + p * q * (_c(0) * _c(-1) - _c(-2) * _c(1)),
)
#: ρ_n(s; m+1) > ρ_n(s; m): cross-multiplied, (p² - q²) times log-concavity of A_{n-1}(m)
RHO_IN_M = (
    P(n, m + 1, s) * P(n, m, s - 1) - P(n, m + 1, s - 1) * P(n, m, s),
    (p**2 - q**2) * _lc(-1),
)
#: ρ_n(s; m) >= ρ_n(s+1; m+1) (so π_{n+1}(s;m) >= π_{n+1}(s+1;m+1)): cross-multiplied
NET = (
    P(n, m, s) * P(n, m + 1, s) - P(n, m + 1, s + 1) * P(n, m, s - 1),
    p * q * (_lc(-1) + _lc(0)) + q**2 * (_c(-1) * _c(0) - _c(1) * _c(-2)),
)


def _steps(**identities: tuple[sp.Expr, sp.Expr]) -> tuple[bool, dict[str, str]]:
    out, ok = {}, True
    for name, (lhs, rhs) in identities.items():
        pr = sk.prove(lhs, rhs)
        ok &= pr.holds
        out[name] = f"{lhs} = {rhs}: " + (pr.text() if pr.holds else "NOT reduced")
    return ok, out


def _scan_evidence(scan: kx.Scan) -> dict[str, Any]:
    ev: dict[str, Any] = {"exhaustive": scan.domain, "instances": scan.checked}
    if scan.counterexample:
        ev["counterexample"] = scan.counterexample
    return ev


def _monotone(
    claim_id: str, scans: list[kx.Scan], proved: bool, steps: dict[str, str], finding: str,
    domain: str,
) -> Verdict:
    ev: dict[str, Any] = {"symbolic": steps}
    for i, sc in enumerate(scans):
        ev[f"scan {i + 1}"] = _scan_evidence(sc)
    broken = [sc for sc in scans if not sc.holds]
    if broken:
        ev["counterexample"] = broken[0].counterexample
        ev["finding"] = "fails: " + str(broken[0].counterexample)
        if proved:
            ev["conflict"] = "the symbolic route says it holds; the two routes disagree"
            return Verdict(Status.INCONCLUSIVE, "routes disagree", ev)
        return Verdict(Status.REFUTED, "exhaustive exact scan; smallest counterexample", ev,
                       reproduce=f"dpcheck verify {claim_id} --format json")
    ev["finding"] = finding
    if proved:
        return Verdict(Status.PROVED, "reduction by (4.1)/(4.2) to strict log-concavity of "
                       "A_{n-1}(m) (an induction whose step is checked symbolically); "
                       "exhaustive exact scan as a second route", ev, domain=domain)
    return Verdict(Status.VERIFIED, "exhaustive exact scan", ev, domain=EXHAUSTIVE)


LC_NOTE = (
    "A_n(m) is strictly log-concave on 0..n for every n: true for n = 1, and one step of "
    "(4.1)/(4.2) keeps it (LC step identity; the pq term is > 0 for 1 <= s <= n-1)"
)


# --------------------------------------------------------------------------- §4.2
@claim(
    "zz2016.sec4.2.rho_monotone_s",
    source="§4.2 TODO",
    statement=r"\rho_n(s;m)\text{ is decreasing in } s \text{ for fixed } m",
)
def rho_monotone_s() -> Verdict:
    ok, steps = _steps(lc_step_4_2=LC_STEP)
    return _monotone(
        "zz2016.sec4.2.rho_monotone_s", [kx.rho_decreasing_in_s()], ok, steps,
        finding="holds, strictly: ρ_n(s;m) > ρ_n(s+1;m) is log-concavity; " + LC_NOTE,
        domain="every n >= 2, 0 <= m <= n, 1 <= s <= n-1, 0 < q < 1/2",
    )


@claim(
    "zz2016.sec4.2.rho_monotone_m",
    source="§4.2 TODO",
    statement=r"\rho_n(s;m)\text{ is increasing in } m \text{ for fixed } s",
)
def rho_monotone_m() -> Verdict:
    ok, steps = _steps(lc_step_4_2=LC_STEP, rho_in_m=RHO_IN_M)
    return _monotone(
        "zz2016.sec4.2.rho_monotone_m", [kx.rho_increasing_in_m()], ok, steps,
        finding="holds, strictly: P_{n,m+1}(s)P_{n,m}(s-1) - P_{n,m+1}(s-1)P_{n,m}(s) = "
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
    ok, steps = _steps(lc_step_4_2=LC_STEP, rho_in_m=RHO_IN_M, net=NET)
    scans = [kx.pi_decreasing_in_s(), kx.pi_increasing_in_m(), kx.pi_net_decreasing()]
    return _monotone(
        "zz2016.sec4.5.pi_monotone", scans, ok, steps,
        finding="all three hold: π_n = g ∘ ρ_{n-1} with g increasing (sec4.2.pi_via_rho), "
        "ρ_{n-1} decreasing in s and increasing in m, and ρ_{n-1}(s;m) >= ρ_{n-1}(s+1;m+1) "
        "(the net identity: pq(LC_{s-1} + LC_s) + q²(c_{s-1}c_s - c_{s+1}c_{s-2}) >= 0); "
        + LC_NOTE,
        domain="every n >= 1, m and s where both sides are defined, 0 < q < 1/2",
    )


# --------------------------------------------------------------------------- §4.3
@claim(
    "zz2016.sec4.3.R_monotone",
    source="§4.3",
    statement=r"R_m(\delta) \le R_m(\delta')\ (\delta \le \delta'),\ "
    r"s_m(\delta+1) = (s_m(\delta) - 1) \vee 1",
)
def r_monotone() -> Verdict:
    x = sp.Symbol("x", real=True)
    ceil_shift = sp.simplify(sp.ceiling(x - 1) - (sp.ceiling(x) - 1)) == 0
    # max(k - 1, 1) = max(max(k, 1) - 1, 1) for every integer k: piecewise linear in k with
    # its only kink in between 0 and 2, so k = -2..3 covers every case
    clamp = all(max(k - 1, 1) == max(max(k, 1) - 1, 1) for k in range(-2, 4))
    ok, steps = _steps(lc_step_4_2=LC_STEP)
    steps["ceil(x - 1) = ceil(x) - 1"] = "holds" if ceil_shift else "FAILS"
    steps["(k - 1) ∨ 1 = ((k ∨ 1) - 1) ∨ 1"] = "holds for every integer k" if clamp else "FAILS"
    return _monotone(
        "zz2016.sec4.3.R_monotone", [kx.R_monotone()], ok and ceil_shift and clamp, steps,
        finding="holds: s_m(δ) is non-increasing in δ and ρ(·;m) is decreasing in s, so R_m "
        "is non-decreasing; the shift identity is ⌈x - 1⌉ = ⌈x⌉ - 1 through the clamp",
        domain="every n >= 1, 0 <= m <= n, every real δ <= δ', 0 < q < 1/2",
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
    ev.update({k: scan.extra[k] for k in ("smallest_m_ge_1", "unclamped", "proof_assumption")
               if k in scan.extra})
    if scan.holds:
        ev["finding"] = "no counterexample"
        return Verdict(Status.VERIFIED, "exhaustive exact scan over every real δ > npq", ev,
                       domain=EXHAUSTIVE)
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
        + ("; under the proof's own assumption s_0(δ) >= 2 there is no counterexample "
           f"({EXHAUSTIVE}; that region is empty for q = 1/20, 1/10 at n <= 60)"
           if assumed.get("holds") else "")
        + ("; nor where neither s is clamped" if unclamped.get("holds") else "")
    )
    return Verdict(
        Status.REFUTED,
        "exhaustive exact scan over every real δ > npq (every piece of the step functions "
        "s_m(δ), s_0(δ+1)); smallest counterexample in rationals",
        ev,
        reproduce="dpcheck verify zz2016.prop4.1 --format json",
    )


@claim(
    "zz2016.prop4.1.proof_identities",
    source="proof of Prop 4.1",
    statement=r"\eta(s_m)-\eta(s_0)\text{ identity; }\eta(s_0)\gamma_m(s_m)-\eta(s_m)\gamma_0(s_0)"
    r"\text{ identity; } s_m - s_0 = \lceil m(p-q)\rceil;\ (n+2)(R_0(\delta)-1) < "
    r"(\delta'+1)/(pq)",
)
def proof_identities() -> Verdict:
    items: dict[str, Any] = {}

    def chain(name: str, eqs: list) -> bool:  # type: ignore[type-arg]
        ok = all(sp.simplify(e.expr - eqs[0].expr) == 0 for e in eqs[1:])
        items[name] = "holds (symbolic, any p, q)" if ok else "FAILS"
        return ok

    eta_ok = chain("η(s_m) - η(s_0) = -(n+2)(s_m - s_0)/((s_0+1)(s_m+1))", Z.ETA_DIFFERENCE)
    eg_ok = chain("η(s_0)γ_m(s_m) - η(s_m)γ_0(s_0), both displayed lines", Z.ETA_GAMMA)
    k = (Z.s0 + 1) * (Z.sm + 1)
    e46 = sp.simplify(Z.EQ4_5.expr * k - Z.EQ4_6.expr) == 0
    items["(4.5) times (s_0+1)(s_m+1) = (4.6)"] = "holds" if e46 else "FAILS"
    # (4.6) with s_m - s_0 = c, μ_m - μ_0 = a and μ_0 - s_0 = δ' + 1 gives the printed line
    sub = {Z.sm: Z.s0 + Z.c_, Z.mum: Z.mu0 + Z.a_}
    applied = Z.EQ4_6.expr.xreplace(sub).subs(Z.s0, Z.mu0 - Z.dp - 1)
    app_ok = sp.simplify(applied - Z.EQ4_6_APPLIED.expr) == 0
    items["(4.6) with s_m - s_0 = ⌈m(p-q)⌉, μ_0 - s_0 = δ'+1"] = (
        "gives the printed expression" if app_ok else "FAILS"
    )
    # the last display: a/c <= 1, with equality when m(p - q) is an integer
    strict_witness = {"q": "1/4", "m": 2, "m(p-q)": "1", "⌈m(p-q)⌉": "1",
                      "middle": "(δ'+1)/pq · 1", "right": "(δ'+1)/pq",
                      "printed": "middle < right", "true": "middle = right"}
    items["last '<' (m(p-q)/⌈m(p-q)⌉ < 1)"] = (
        "false when m(p - q) is an integer (e.g. q = 1/4, m = 2): there it is '='"
    )
    ceil = kx.proof_ceiling_identity()
    items["s_m - s_0 = ⌈m(p-q)⌉ (case δ' = δ_0, the one proved)"] = ceil.extra.get("case_delta_0")
    items["case δ' = δ_m ('similar')"] = ceil.extra.get("case_delta_m")
    ev: dict[str, Any] = {"items": items, "exhaustive": ceil.domain}
    algebra_ok = eta_ok and eg_ok and e46 and app_ok
    if not algebra_ok:
        ev["finding"] = "an algebraic identity of the proof does not reduce"
        return Verdict(Status.INCONCLUSIVE, "symbolic", ev)
    if ceil.holds:
        ev["witness"] = strict_witness
        ev["finding"] = (
            "the identities hold; only the last strict '<' fails when m(p-q) is an integer"
        )
        return Verdict(Status.REFUTED, "symbolic identities; exact witness", ev,
                       reproduce="dpcheck verify zz2016.prop4.1.proof_identities --format json")
    region = ceil.extra.get("in_proof_region", {})
    # the witness: the smallest instance inside the proof's region (s_0(δ) >= 2) if any
    ev["witness"] = region.get("counterexample") or ceil.counterexample
    ev["smallest instance at any δ > npq"] = ceil.counterexample
    ev["strictness witness"] = strict_witness
    w = ev["witness"] or {}
    where = f"n = {w.get('n')}, m = {w.get('m')}, q = {w.get('q')}, δ = {w.get('delta')}"
    ev["finding"] = (
        "the η-difference and ηγ identities, (4.5) => (4.6) and the substituted form hold "
        "symbolically; s_m - s_0 = ⌈m(p-q)⌉ holds in the case δ' = δ_0 that is worked out, but "
        "in the case δ' = δ_m, called 'similar', s_m - s_0 = ⌊m(p-q)⌋ (smallest instance "
        f"with s_0(δ) >= 2 as the proof assumes: {where}), which is 0 when m(p-q) < 1, where the last step divides by it; the last "
        "'<' is '=' when m(p-q) is an integer; and the proof stops without reaching a "
        "contradiction with δ > npq (Proposition 4.1 itself is false: zz2016.prop4.1)"
    )
    return Verdict(
        Status.REFUTED,
        "symbolic identities; exhaustive exact scan of the ceiling step over every real δ > npq",
        ev,
        reproduce="dpcheck verify zz2016.prop4.1.proof_identities --format json",
    )


# --------------------------------------------------------------------------- §4.6
QUANTILE_PROOF = (
    "from the proved §4.4 identities F_{n,m}(x) - F_{n,m-1}(x) = -(p-q)P_{n-1,m-1}(⌊x⌋) <= 0 "
    "and F_{n,m}(x+1) - F_{n,m-1}(x) = q{...} >= 0 (zz2016.sec4.4.cdf_differences), the "
    "printed argument is complete"
)


@claim(
    "zz2016.sec4.6.quantile_step",
    source="§4.6 Claim",
    statement=r"\tau_n(m) \in \{\tau_n(m-1), \tau_n(m-1)+1\}",
)
def quantile_step() -> Verdict:
    scan = kx.quantile_step()
    return _monotone(
        "zz2016.sec4.6.quantile_step", [scan], True,
        {"argument": QUANTILE_PROOF},
        finding="holds for every α in (0, 1]: α <= F_{n,m}(τ_n(m)) <= F_{n,m-1}(τ_n(m)) gives "
        "τ_n(m) >= τ_n(m-1), and F_{n,m}(τ_n(m-1)+1) >= F_{n,m-1}(τ_n(m-1)) >= α the other side",
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
    return _monotone(
        "zz2016.sec4.6.quantile_iff", [scan], True,
        {"argument": "τ_n(m) = τ_n(m-1) iff F_{n,m}(τ_n(m-1)) >= α (by quantile_step), and "
         "F_{n,m}(t) = F_{n,m-1}(t) - (p-q)P_{n-1,m-1}(t) (proved); " + QUANTILE_PROOF},
        finding="holds for every α in (0, 1]",
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
    if not scan.holds:
        ev["finding"] = "the exact error does not scale like n^(-1/2) on the examined range"
        return Verdict(Status.INCONCLUSIVE, "exact sup error", ev)
    ev["finding"] = (
        "the approximation is good only to order n^(-1/2): the exact worst error D_n = "
        "max_m sup_x |F_{n,m}(x) - F_{n,0}(x - m(p-q))| times sqrt(n) is nearly constant in n "
        "(see 'table'); it is attained at large m, where the skew of the two laws differs and "
        "m(p-q) is not an integer, so the lattice steps do not line up"
    )
    return Verdict(Status.VERIFIED, "exact sup over every real x and every m, in rationals",
                   ev, domain=scan.domain)


# --------------------------------------------------------------------------- §5.1
@claim(
    "zz2016.claim5.1",
    source="§5.1 Claim (5.1)",
    statement=r"\frac{P[A(\mathbf{1}) = s]}{P[A(\mathbf{1}) = s-1]} \ge "
    r"\frac{P[A(\mathbf{y}) = s]}{P[A(\mathbf{y}) = s-1]}\ \forall \mathbf{y}",
)
def claim5_1() -> Verdict:
    ok, steps = _steps(lc_step_4_2=LC_STEP, rho_in_m=RHO_IN_M)
    steps["reduction"] = "the law of A(y) depends on y only through its number of ones m " \
        "(zz2016.sec4.sum_of_binomials), and ρ_n(s;m) is increasing in m"
    return _monotone(
        "zz2016.claim5.1", [kx.claim_5_1()], ok, steps,
        finding="holds: the all-ones collection (m = n) maximises ρ_n(s;m) = P[A=s]/P[A=s-1]",
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
    gap_ok = sp.simplify(gap - n * p / (q * s * (s - 1))) == 0
    ev = {
        "ratio": f"{Z.BINOMIAL_RATIO[0].latex} simplifies to {ratio}",
        "gap": f"(n-s+1)/(s-1)·p/q - (n-s)/s·p/q = {gap} > 0 for 2 <= s <= n-1",
    }
    if eq_ok and gap_ok:
        ev["finding"] = "holds (with strict inequality); at s = 1 the right side is undefined "\
            "and the note handles that case separately"
        return Verdict(Status.PROVED, "symbolic (combsimp of the binomial ratio)", ev,
                       domain="every n >= 3, 2 <= s <= n-1, 0 < q < 1/2")
    ev["finding"] = "the printed ratio or bound differs"
    ev["witness"] = {"ratio": str(ratio), "gap": str(gap)}
    return Verdict(Status.REFUTED, "symbolic", ev)


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
    if not scan.holds:
        ev["finding"] = f"no single pattern: {answer}"
        return Verdict(Status.INCONCLUSIVE, "exhaustive exact scan", ev)
    ev["finding"] = f"enumeration answers the TODO: {answer}"
    return Verdict(Status.VERIFIED, "exhaustive exact scan of every background", ev,
                   domain=scan.domain)
