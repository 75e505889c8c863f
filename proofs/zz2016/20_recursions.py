"""Zhilyaev and Zeber (2016) §4: the L = 1 law, its recursions and identities.

Every printed identity is compared with the law A_n(m) itself, through its
generating function (q + p z)^m (p + q z)^(n-m) derived from the law of one
randomized bit (:mod:`dpcheck.symbolic.krand`), for all n, m and s at once, and
independently on the exact laws in rationals (:mod:`dpcheck.claims.krand`).
"""

from __future__ import annotations

from fractions import Fraction

import sympy as sp

from dpcheck.claims import krand as ck
from dpcheck.claims.model import WHOLE, Kind, Status, Verdict, step
from dpcheck.claims.registry import claim
from dpcheck.enumeration import krand as ek
from dpcheck.papers import zz2016 as Z
from dpcheck.symbolic import krand as sk
from dpcheck.symbolic.krand import Fact

ALL = "every n >= 1 and 0 < q < 1/2 (p = 1 - q, symbolic)"
#: the grid on which :func:`dpcheck.claims.krand.check_chain` evaluates every line exactly
GRID = (
    f"n = 1..{ck.EXACT_N}, every m, s = -1..n+1, q in {{{', '.join(str(v) for v in ck.EXACT_QS)}}}"
)


def chain_verdict(claim_id: str, chains: list, **kw: object) -> Verdict:  # type: ignore[type-arg]
    """:func:`dpcheck.claims.krand.chain_verdict`; when the chain is proved, the basis also
    records that the generating function its symbolic route uses is the law of A_n(m)
    (derived from the mechanism in this run) and the exact grid evaluation it runs for every
    line (a second route)."""
    verdict = ck.chain_verdict(claim_id, chains, **kw)  # type: ignore[arg-type]
    if verdict.status is Status.PROVED:
        verdict.with_steps(
            *_facts_steps(sk.count_law_facts()),
            step(
                Kind.ENUMERATION,
                "every displayed line equal to its left side on the exact laws at every grid point",
                domain=GRID,
            ),
        )
    return verdict


def _facts_steps(facts: list[Fact]) -> list:  # type: ignore[type-arg]
    return [
        step(Kind(f.kind), f"{f.name}: {f.detail}", checked=f.holds, domain=f.domain or WHOLE)
        for f in facts
    ]


@claim(
    "zz2016.eq4.1",
    source="eq (4.1)",
    statement=r"P_{n,m}(s) = pP_{n-1,m-1}(s-1) + qP_{n-1,m-1}(s)",
)
def eq4_1() -> Verdict:
    return chain_verdict(
        "zz2016.eq4.1",
        [Z.EQ4_1],
        domain=f"{ALL}, 1 <= m <= n, every integer s (P := 0 outside 0..n)",
        finding_ok="(4.1) holds: conditioning on an original 1 multiplies the generating "
        "function by q + p z",
    )


@claim(
    "zz2016.eq4.2",
    source="eq (4.2)",
    statement=r"P_{n,m}(s) = qP_{n-1,m}(s-1) + pP_{n-1,m}(s)",
)
def eq4_2() -> Verdict:
    return chain_verdict(
        "zz2016.eq4.2",
        [Z.EQ4_2],
        domain=f"{ALL}, 0 <= m <= n - 1, every integer s (P := 0 outside 0..n)",
        finding_ok="(4.2) holds: conditioning on an original 0 multiplies the generating "
        "function by p + q z",
    )


@claim(
    "zz2016.lemma4.1",
    source="Lemma 4.1, (4.3)",
    statement=r"(s+1)P_{n,m}(s+1) = \{(m-s)p/q + (n-m-s)q/p\}P_{n,m}(s) + (n-s+1)P_{n,m}(s-1)",
)
def lemma4_1() -> Verdict:
    return chain_verdict(
        "zz2016.lemma4.1",
        [Z.LEMMA4_1],
        domain=f"{ALL}, 0 <= m <= n, every integer s (the lemma states 0 <= s <= n-1)",
        finding_ok="(4.3) holds for every integer s, not only 0 <= s <= n-1: with "
        "θ = z d/dz it is the differential equation G' = {m p/q + (n-m) q/p} G - "
        "(p/q + q/p) θG + z(nG - θG) of G = (q+pz)^m (p+qz)^(n-m)",
    )


@claim(
    "zz2016.eq4.4",
    source="(4.4)",
    statement=r"\rho(s+1;m) = \eta(s)/\rho(s;m) + \gamma_m(s),\ "
    r"\rho(1;m) = \gamma_m(0) = mp/q + (n-m)q/p",
)
def eq4_4() -> Verdict:
    return chain_verdict(
        "zz2016.eq4.4",
        [Z.RHO_RECURSION, Z.RHO_ONE],
        domain=f"{ALL}, 0 <= m <= n, 1 <= s <= n - 1 (where ρ(s;m), ρ(s+1;m) are defined)",
        finding_ok="(4.4) and its start hold: (4.3) divided by (s+1)P_{n,m}(s) > 0; "
        "ρ(1;m) = P_{n,m}(1)/P_{n,m}(0) from the first two coefficients of G",
    )


@claim(
    "zz2016.sec4.2.gamma_mean",
    source="§4.2",
    statement=r"(s+1)\gamma_m(s) = (\mu_m - s)/(pq) - n + 2s,\ \mu_m = nq + m(p-q)",
)
def gamma_mean() -> Verdict:
    return chain_verdict(
        "zz2016.sec4.2.gamma_mean",
        [Z.GAMMA_MEAN],
        domain=f"{ALL}, every m and s (an identity of rational functions given p + q = 1)",
        finding_ok="holds, using p + q = 1 (p² + q² = 1 - 2pq)",
    )


@claim(
    "zz2016.sec4.2.pi_via_rho",
    source="§4.2",
    statement=r"\pi_n(s;m) = g(\rho_{n-1}(s;m)),\ g(x) = \frac{q+px}{p+qx}\text{ increasing},"
    r"\ \pi_n(0;m) = p/q",
)
def pi_via_rho() -> Verdict:
    verdict = chain_verdict(
        "zz2016.sec4.2.pi_via_rho",
        [Z.PI_VIA_RHO, Z.PI_AT_ZERO],
        domain=f"{ALL}, 0 <= m <= n - 1, 1 <= s <= n - 1 (ρ_{{n-1}}(s;m) defined), and s = 0",
        finding_ok="π_n = g ∘ ρ_{n-1} and π_n(0;m) = p/q hold",
    )
    # g and its derivative, derived and compared with the printed g'
    g = Z.G_OF_X.expr
    derived = sp.factor(sp.diff(g, sk.x))
    same = sp.simplify(derived - Z.G_PRIME.expr) == 0
    same_pq = sp.simplify((derived - Z.G_PRIME.expr).subs(sk.ONE)) == 0
    verdict.evidence["g'(x) derived"] = str(derived)
    verdict.evidence["g'(x) printed"] = Z.G_PRIME.latex
    verdict.evidence["g' printed = derived"] = (
        "yes, for any p, q" if same else "yes, with p + q = 1" if same_pq else "no"
    )
    increasing, why = sk.positive_on_lie_range(derived, positive=(sk.x,))
    if not (same or same_pq) and verdict.status is Status.PROVED:
        at = {sk.x: sp.Integer(1), sk.q: sp.Rational(1, 4), sk.p: sp.Rational(3, 4)}
        verdict.status = Status.REFUTED
        verdict.evidence["witness"] = {
            "g' derived": str(derived),
            "printed": Z.G_PRIME.latex,
            "at x = 1, q = 1/4": {
                "derived": str(derived.subs(at)),
                "printed": str(Z.G_PRIME.expr.subs(at)),
            },
        }
        verdict.evidence["finding"] = "the printed g' differs from the derivative of g"
        verdict.basis = [
            step(
                Kind.ENUMERATION,
                "the printed g' and the derivative of the printed g, exact",
                checked=derived.subs(at) != Z.G_PRIME.expr.subs(at),
                domain="x = 1, q = 1/4",
            )
        ]
    else:
        verdict.with_steps(
            step(
                Kind.SYMBOLIC,
                f"g'(x) = d/dx of the printed g = {derived}, equal to the "
                "printed g' " + ("for any p, q" if same else "with p + q = 1") + " (SymPy)",
                checked=same or same_pq,
            ),
            step(
                Kind.SIGN,
                f"g'(x) = {derived} > 0 for x > 0 and 0 < q < 1/2: {why}",
                checked=increasing,
            ),
        )
        if not increasing and verdict.status is Status.PROVED:
            verdict.status = Status.INCONCLUSIVE
        verdict.evidence["finding"] += (
            f"; g'(x) = {derived} = (p - q)/(p + q x)^2 with p + q = 1, > 0 for 0 < q < 1/2, "
            "so g is increasing on x > 0"
        )
    return verdict


@claim(
    "zz2016.sec4.4.cdf_recursions",
    source="§4.4",
    statement=r"F_{n,m}(x) = pF_{n-1,m-1}(x-1) + qF_{n-1,m-1}(x),\ "
    r"F_{n,m}(x) = qF_{n-1,m}(x-1) + pF_{n-1,m}(x)",
)
def cdf_recursions() -> Verdict:
    return chain_verdict(
        "zz2016.sec4.4.cdf_recursions",
        [Z.CDF_RECURSION_1, Z.CDF_RECURSION_2],
        domain=f"{ALL}, m in the printed ranges, every real x (both sides are constant on "
        "[k, k+1): checked at the integers)",
        finding_ok="both CDF recursions hold (partial sums of (4.1), (4.2): generating "
        "functions divided by 1 - z)",
    )


@claim(
    "zz2016.sec4.4.cdf_differences",
    source="§4.4",
    statement=r"F_{n,m}(x) - F_{n,m-1}(x) = -(p-q)P_{n-1,m-1}(\lfloor x\rfloor),\ "
    r"F_{n,m}(x+1) - F_{n,m-1}(x) = q\{\dots\}\text{ and the two chains of inequalities}",
)
def cdf_differences() -> Verdict:
    verdict = chain_verdict(
        "zz2016.sec4.4.cdf_differences",
        [Z.CDF_DIFFERENCE_1, Z.CDF_DIFFERENCE_2],
        domain=f"{ALL}, 1 <= m <= n, every real x (checked at the integers s = ⌊x⌋)",
        finding_ok="every displayed line of both differences holds",
    )
    if verdict.status is not Status.PROVED:
        return verdict
    # the chains: each "smaller <= larger" gap (as printed, Z.CDF_CHAINS) certified as a
    # positive combination of probabilities of A_{n-1}(m-1)
    P1 = lambda t: sk.P(sk.n - 1, sk.m - 1, t)  # noqa: E731
    s_ = sk.s
    candidates = [
        [(sk.p - sk.q, P1(s_))],
        [(sk.q, P1(s_)), (sk.q, P1(s_ + 1))],
        [(sk.q, P1(s_ - 1)), (sk.q, P1(s_))],
    ]
    chains = {}
    facts: list[Fact] = []
    for eq in Z.CDF_CHAINS:
        found = None
        for comb in candidates:
            got = sk.certify(eq.expr, 1, comb, eq.label)
            if got[0].holds:
                found = got
                break
        found = found or sk.certify(eq.expr, 1, candidates[0], eq.label)
        facts += found
        ok = all(f.holds for f in found)
        chains[eq.label] = (
            f"{eq.latex}: gap = {found[0].detail.split(' = ', 1)[1]}" if ok else "not reduced"
        )
        if not ok:
            verdict.status = Status.INCONCLUSIVE
    verdict.with_steps(*_facts_steps(facts))
    verdict.evidence["inequalities"] = chains
    verdict.evidence["finding"] += (
        "; the chains F_{n,m}(x) <= F_{n,m-1}(x) <= F_{n,m}(x+1) and F_{n,m-1}(x-1) <= "
        "F_{n,m}(x) <= F_{n,m-1}(x) follow: each gap is (p - q) or q times probabilities"
    )
    return verdict


@claim(
    "zz2016.sec4.4.pmf_differences",
    source="§4.4",
    statement=r"P_{n,m}(s) - P_{n,m-1}(s) = -(p-q)\{P_{n-1,m-1}(s) - P_{n-1,m-1}(s-1)\},\ "
    r"P_{n,m}(s+1) - P_{n,m-1}(s) = q\{P_{n-1,m-1}(s+1) - P_{n-1,m-1}(s-1)\}",
)
def pmf_differences() -> Verdict:
    return chain_verdict(
        "zz2016.sec4.4.pmf_differences",
        [Z.PMF_DIFFERENCE_1, Z.PMF_DIFFERENCE_2],
        domain=f"{ALL}, 1 <= m <= n, every integer s",
        finding_ok="both pmf difference identities hold",
    )


@claim(
    "zz2016.sec4.5.pi_ratio_identity",
    source="§4.5",
    statement=r"\text{the displayed expressions for }\pi(s;m)\text{ and }\pi(s;m)/\pi(s;m-1)",
)
def pi_ratio_identity() -> Verdict:
    return chain_verdict(
        "zz2016.sec4.5.pi_ratio_identity",
        [Z.PI_DIFFERENCE_FORM, Z.PI_RATIO],
        domain=f"{ALL}, 1 <= m <= n - 1, 0 <= s <= n",
        finding_ok="every displayed line for π(s;m) and π(s;m)/π(s;m-1) holds",
    )


@claim(
    "zz2016.sec4.8.moments",
    source="§4.8",
    statement=r"\mathsf{E} A_n(m) = nq + m(p-q),\ \mathrm{Var}\,A_n(m) = npq",
)
def moments() -> Verdict:
    g = sk.G
    g1 = sp.diff(g, sk.z).subs(sk.z, 1)
    g2 = sp.diff(g, sk.z, 2).subs(sk.z, 1)
    mean = sp.simplify(g1.subs(sk.ONE))
    var = sp.factor(sp.simplify((g2 + g1 - g1**2).subs(sk.ONE)))
    ok_mean = sp.simplify(mean - Z.MOMENTS["mean"].expr.subs(sk.ONE)) == 0
    ok_var = sp.simplify(var - Z.MOMENTS["variance"].expr.subs(sk.ONE)) == 0
    # independent route: exact moments of the exact laws
    exact = []
    for qq in (Fraction(1, 4), Fraction(1, 3)):
        for nv in range(1, 9):
            for mv in range(nv + 1):
                law = ek.pmf(nv, mv, qq)
                e1 = sum(k * v for k, v in enumerate(law))
                e2 = sum(k * k * v for k, v in enumerate(law))
                pq = (1 - qq) * qq
                exact.append(e1 == nv * qq + mv * (1 - 2 * qq) and e2 - e1**2 == nv * pq)
    facts = [
        *sk.count_law_facts(),
        Fact("mean", "symbolic", ok_mean, f"G'(1) = {mean} = the printed mean (SymPy, p = 1 - q)"),
        Fact(
            "variance",
            "symbolic",
            ok_var,
            f"G''(1) + G'(1) - G'(1)² = {var} = the printed variance (SymPy, p = 1 - q)",
        ),
    ]
    basis = [
        *_facts_steps(facts),
        step(
            Kind.ENUMERATION,
            "both moments of the exact laws as printed",
            checked=all(exact),
            domain="n = 1..8, every m, q in {1/4, 1/3}",
        ),
    ]
    ev = {
        "mean from G'(1)": str(mean),
        "variance from G''(1) + G'(1) - G'(1)^2": str(var),
        "exact laws": f"{sum(exact)} of {len(exact)} laws (n = 1..8, q = 1/4, 1/3) have "
        "both moments as printed",
    }
    if ok_mean and ok_var and all(exact):
        ev["finding"] = "E A_n(m) = nq + m(p-q) and Var A_n(m) = npq, from the generating function"
        return Verdict(
            Status.PROVED,
            "moments from derivatives of the generating function at "
            "z = 1; exact laws as a second route",
            ev,
            domain=f"{ALL}, 0 <= m <= n",
            basis=basis,
        )
    ev["finding"] = "a printed moment differs from the derived one"
    ev["witness"] = {"mean": str(mean), "variance": str(var)}
    bad = next(
        (
            (nv, mv, qq)
            for qq in (Fraction(1, 4), Fraction(1, 3))
            for nv in range(1, 9)
            for mv in range(nv + 1)
            if sk.evaluate(Z.MOMENTS["mean"].expr, nv, mv, 0, qq)
            != sum(k * v for k, v in enumerate(ek.pmf(nv, mv, qq)))
            or sk.evaluate(Z.MOMENTS["variance"].expr, nv, mv, 0, qq)
            != sum(k * k * v for k, v in enumerate(ek.pmf(nv, mv, qq)))
            - sum(k * v for k, v in enumerate(ek.pmf(nv, mv, qq))) ** 2
        ),
        None,
    )
    basis = _facts_steps(facts)
    if bad is not None:
        ev["witness"]["exact law"] = {"n": bad[0], "m": bad[1], "q": str(bad[2])}
        basis.append(
            step(
                Kind.ENUMERATION,
                "the printed moments and those of the exact law",
                domain=f"n = {bad[0]}, m = {bad[1]}, q = {bad[2]}",
            )
        )
        return Verdict(Status.REFUTED, "moments from the generating function", ev, basis=basis)
    return Verdict(Status.INCONCLUSIVE, "moments from the generating function", ev, basis=basis)
