"""Zhilyaev and Zeber (2016) §6: ratios of sums (Lemmas 6.1-6.3, Corollary 6.1).

Every lemma is proved for the printed statement (:mod:`dpcheck.papers.zz2016`, read at
check time) by steps a program checks:

* Lemmas 6.1 and 6.2 for a symbolic number of terms m: the key identity by induction on m
  (m = 1, and the step m -> m + 1 with every sum peeled and split by linearity, each
  rewriting checked by SymPy), each summand's sign by coefficients after the hypotheses are
  written as new non-negative variables, and the finite-sum lemma
  (:func:`dpcheck.symbolic.krand.finite_sum_facts`);
* Corollary 6.1 and Lemma 6.3 (fixed size): the hypotheses written as new non-negative
  variables, and the expanded numerator and denominator of the conclusion's gap shown to
  have only non-negative coefficients (:func:`dpcheck.symbolic.krand.nonneg_rational`).

A seeded search over exact rationals (extreme magnitudes included) corroborates each lemma
(basis kind ``sampling``: it never settles anything).  When a machine step fails, the printed
formulas are evaluated on random instances for an exact counterexample.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import sympy as sp

from dpcheck.claims.krand import fact_steps
from dpcheck.claims.model import Kind, Status, Verdict, step
from dpcheck.claims.registry import claim
from dpcheck.papers import zz2016 as Z
from dpcheck.symbolic import krand as sk
from dpcheck.symbolic.krand import Fact

SEARCH = 3000  # random instances per lemma
PRINTED_SEARCH = 3000  # random instances of the printed formulas, when a machine step fails
SEED = 2016
MAGNITUDES = (Fraction(1, 10**30), Fraction(1, 1000), Fraction(1), Fraction(1000), Fraction(10**30))


def _positive(rng: random.Random) -> Fraction:
    """A positive rational, now and then of an extreme magnitude."""
    base = Fraction(rng.randint(1, 10**6), rng.randint(1, 10**6))
    return base * rng.choice(MAGNITUDES) if rng.random() < 0.3 else base


def _search(
    draw: Callable[[random.Random], dict[str, Any] | None],
    conclusion: Callable[[dict[str, Any]], bool],
) -> tuple[int, dict[str, str] | None]:
    """Draw instances meeting the hypotheses; the first one where the conclusion fails."""
    rng = random.Random(SEED)
    tried = 0
    while tried < SEARCH:
        inst = draw(rng)
        if inst is None:
            continue
        tried += 1
        if not conclusion(inst):
            return tried, {k: str(v) for k, v in inst.items()}
    return tried, None


def _value(expr: sp.Expr, values: dict[sp.Basic, Fraction]) -> Fraction | None:
    """expr at exact rational values (None if it is not a finite rational there)."""
    try:
        out = sp.sympify(expr).xreplace(
            {k: sp.Rational(v.numerator, v.denominator) for k, v in values.items()}
        )
    except ZeroDivisionError:
        return None
    if not out.is_Rational:
        return None
    return Fraction(int(out.p), int(out.q))


def _small(rng: random.Random) -> Fraction:
    return Fraction(rng.randint(1, 9), rng.randint(1, 9))


def _printed_counterexample(
    draw: Callable[[random.Random], dict[sp.Basic, Fraction]],
    hypotheses: Callable[[dict[sp.Basic, Fraction]], list[sp.Expr]],
    conclusion: Callable[[dict[sp.Basic, Fraction]], sp.Expr],
) -> dict[str, str] | None:
    """Random instances of the printed formulas: the first where every hypothesis gap is
    >= 0 and the conclusion gap is < 0, evaluated exactly."""
    rng = random.Random(SEED + 1)
    for _ in range(PRINTED_SEARCH):
        vals = draw(rng)
        hyp = [_value(h, vals) for h in hypotheses(vals)]
        if any(h is None or h < 0 for h in hyp):
            continue
        gap = _value(conclusion(vals), vals)
        if gap is not None and gap < 0:
            out = {str(k): str(v) for k, v in vals.items()}
            out["conclusion gap (printed)"] = str(gap)
            return out
    return None


def _verdict(
    claim_id: str,
    facts: list[Fact],
    searched: tuple[int, dict | None],
    printed_search: Callable[[], dict[str, str] | None],
    *,
    finding: str,
    domain: str,
    evidence: dict[str, Any] | None = None,
) -> Verdict:
    tried, counter = searched
    ev: dict[str, Any] = dict(evidence or {})
    ev["machine-checked steps"] = {f.name: ("holds" if f.holds else "NOT shown") for f in facts}
    ev["exact random search"] = (
        f"{tried} instances (seed {SEED}, magnitudes 1e-30..1e30) meeting the hypotheses: "
        + ("no counterexample" if counter is None else "counterexample found")
    )
    sampling = step(
        Kind.SAMPLING,
        f"exact evaluation of the lemma on {tried} random instances meeting its hypotheses",
        domain=f"{tried} random instances (seed {SEED})",
    )
    basis = [*fact_steps(facts), sampling]
    reproduce = f"dpcheck verify {claim_id} --format json"
    if all(f.holds for f in facts) and counter is None:
        ev["finding"] = finding
        return Verdict(
            Status.PROVED,
            "machine-checked proof: the key identity reduced to 0 by SymPy and every sign "
            "decided by machine (hypotheses as new non-negative variables); a seeded exact "
            "search as corroboration",
            ev,
            reproduce=reproduce,
            domain=domain,
            basis=basis,
        )
    if all(f.holds for f in facts):  # and the search found a counterexample
        ev["counterexample"] = counter
        ev["conflict"] = "the machine-checked proof says it holds; the random search disagrees"
        ev["finding"] = "the two routes disagree"
        return Verdict(Status.INCONCLUSIVE, "routes disagree", ev, reproduce=reproduce, basis=basis)
    wit = printed_search()
    what = (
        "the printed hypotheses evaluated exactly are >= 0 and the printed conclusion's gap is < 0"
    )
    if wit is None and counter is not None:
        wit = counter
        what = "the lemma evaluated exactly on an instance meeting its hypotheses fails"
    if wit is not None:
        ev["counterexample"] = wit
        ev["finding"] = "the printed conclusion fails on an instance meeting the printed hypotheses"
        return Verdict(
            Status.REFUTED,
            "exact evaluation of the printed formulas at a counterexample",
            ev,
            reproduce=reproduce,
            basis=[
                *basis,
                step(
                    Kind.ENUMERATION,
                    what,
                    domain=", ".join(f"{k} = {v}" for k, v in wit.items()),
                ),
            ],
        )
    ev["finding"] = (
        "a machine step of the proof did not close: "
        + ", ".join(f.name for f in facts if not f.holds)
        + "; no counterexample to the printed formulas found"
    )
    return Verdict(
        Status.INCONCLUSIVE, "machine-checked proof attempt", ev, reproduce=reproduce, basis=basis
    )


def _frozen(expr: sp.Expr, table: dict[sp.Sum, sp.Symbol]) -> sp.Expr:
    """Each Sum replaced by a symbol (one per distinct Sum), for a polynomial comparison."""
    for su in sorted(expr.atoms(sp.Sum), key=str):
        table.setdefault(su, sp.Symbol(f"S{len(table)}"))
    return expr.xreplace(table)


def _peel_all(expr: sp.Expr, M: sp.Symbol) -> tuple[bool, sp.Expr]:
    """``expr`` at M + 1 with every Σ_{i=1}^{M+1} peeled into Σ_{i=1}^{M} + its last term."""
    shifted = expr.subs(M, M + 1)
    ok, rep = True, {}
    for su in shifted.atoms(sp.Sum):
        ((index, lo, hi),) = su.limits
        if sp.simplify(hi - (M + 1)) != 0:
            return False, shifted
        good, peeled = sk.peel(su.function, index, lo, M)
        ok &= good
        rep[su] = peeled
    return ok, shifted.xreplace(rep)


def _plain(expr: sp.Expr, names: dict[sp.Basic, sp.Symbol]) -> sp.Expr:
    return sp.sympify(expr).xreplace(names)


def _solve_for(hyp_gap: sp.Expr, var: sp.Symbol, slack: sp.Symbol) -> sp.Expr | None:
    """The unique var with hyp_gap = slack (the hypothesis 'gap >= 0' as slack >= 0)."""
    sol = sp.solve(sp.Eq(hyp_gap, slack), var, dict=True)
    if len(sol) != 1 or var not in sol[0]:
        return None
    return sol[0][var]


# --------------------------------------------------------------------------- Lemma 6.1
@claim(
    "zz2016.lemma6.1",
    source="Lemma 6.1",
    statement=r"\frac{a_1 + \dots + a_m}{b_1 + \dots + b_m} \le \max_i \frac{a_i}{b_i},"
    r"\ b_i > 0",
)
def lemma6_1() -> Verdict:
    left, ratio = Z.LEMMA6_1[0].expr, Z.LEMMA6_1[1].expr
    i, M, a, b, mx = Z.i6, Z.M6, Z.A6, Z.B6, Z.MX6
    sum_b = sp.Sum(b[i], (i, 1, M))
    decomposition = sp.Sum(b[i] * (mx - ratio), (i, 1, M))
    ident = sp.simplify((mx - left) * sum_b - decomposition) == 0
    ai, bi = sp.Symbol("a_i", real=True), sp.Symbol("b_i", positive=True)
    u = sp.Symbol("u", nonnegative=True)
    term = _plain(b[i] * (mx - ratio), {a[i]: ai, b[i]: bi})
    r_i = _plain(ratio, {a[i]: ai, b[i]: bi})
    sign, why = sk.nonneg_rational(term.subs(mx, r_i + u), (bi,), (u,))
    facts = [
        Fact(
            "identity (symbolic m)",
            "symbolic",
            ident,
            f"(M - left)·Σ_i b_i = Σ_i b_i (M - {ratio}) with M = max_i {ratio}, for a "
            "symbolic number of terms m (SymPy simplify; sums combined by linearity)",
        ),
        Fact(
            "each summand >= 0",
            "sign",
            sign,
            f"with M = {r_i} + u, u >= 0 (M is the largest ratio) and b_i > 0, the summand "
            f"is {sp.factor(term.subs(mx, r_i + u))}: {why}",
        ),
        *sk.finite_sum_facts(),
    ]

    def draw(rng: random.Random) -> dict[str, Any]:
        k = rng.randint(1, 6)
        out: dict[str, Any] = {}
        for j in range(k):
            out[f"a{j + 1}"] = _positive(rng) * rng.choice((-1, 1))
            out[f"b{j + 1}"] = _positive(rng)
        return out

    def holds(d: dict[str, Any]) -> bool:
        k = len(d) // 2
        av = [d[f"a{j + 1}"] for j in range(k)]
        bv = [d[f"b{j + 1}"] for j in range(k)]
        return sum(av) / sum(bv) <= max(x / y for x, y in zip(av, bv, strict=True))

    def printed() -> dict[str, str] | None:
        rng = random.Random(SEED + 1)
        for _ in range(PRINTED_SEARCH):
            k = rng.randint(1, 3)
            vals = {a[j]: _small(rng) * rng.choice((-1, 1)) for j in range(1, k + 1)}
            vals.update({b[j]: _small(rng) for j in range(1, k + 1)})
            lv = _value(left.subs(M, k).doit(), vals)
            rs = [_value(ratio.subs(i, j), vals) for j in range(1, k + 1)]
            if lv is None or any(r is None for r in rs):
                continue
            if lv > max(rs):  # type: ignore[type-var]
                out = {str(key): str(v) for key, v in vals.items()}
                out.update({"left (printed)": str(lv), "max (printed)": str(max(rs))})  # type: ignore[type-var]
                return out
        return None

    return _verdict(
        "zz2016.lemma6.1",
        facts,
        _search(draw, holds),
        printed,
        finding="holds for every m: (max - ratio of sums)·Σb_i = Σ_i b_i (max - a_i/b_i) "
        "(checked for symbolic m), each term is b_i·(a slack >= 0), and the sums are >= 0 "
        "and > 0 by the finite-sum lemma",
        domain="every m >= 1, real a_i, b_i > 0",
    )


# --------------------------------------------------------------------------- Lemma 6.2
def _pair(i: sp.Expr, j: sp.Expr) -> sp.Expr:
    a, ap, lam, mu = Z.A6, Z.AP6, Z.LAM6, Z.MU6
    return (a[i] * ap[j] - a[j] * ap[i]) * (lam[i] * mu[j] - lam[j] * mu[i])


def lemma6_2_identity_facts() -> list[Fact]:
    """(6.1)'s gap × Σa_iμ_i × Σa'_iμ_i = Σ_{i<j} pair(i, j), by induction on m."""
    i, j, M = Z.i6, Z.j6, Z.M6
    a, ap, mu = Z.A6, Z.AP6, Z.MU6
    gap = Z.LEMMA6_2[0].expr
    den = sp.Sum(a[i] * mu[i], (i, 1, M)) * sp.Sum(ap[i] * mu[i], (i, 1, M))
    lhs = sp.expand(gap * den)
    # the outer sum over j of the inner sum I(j) = Σ_{i<j} pair(i, j), with I opaque
    inner_f = sp.Function("I")
    rhs = sp.Sum(inner_f(j), (j, 2, M))
    base = sp.expand(lhs.subs(M, 1).doit()) == 0 and rhs.subs(M, 1).doit() == 0
    peel_l, lhs_next = _peel_all(lhs, M)
    peel_r, rhs_next = sk.peel(inner_f(j), j, 2, M)
    increment = sp.simplify(rhs_next - rhs)  # = I(M + 1)
    at_last = sp.Sum(_pair(i, j), (i, 1, j - 1)).subs(j, M + 1)
    same = increment == inner_f(M + 1) and at_last == sp.Sum(_pair(i, M + 1), (i, 1, M))
    split_ok, split = sk.split_sum(at_last)
    table: dict[sp.Sum, sp.Symbol] = {}
    step_ok = sp.expand(_frozen(lhs_next - lhs, table) - _frozen(split, table)) == 0
    ok = base and peel_l and peel_r and split_ok and same and step_ok and lhs.has(sp.Sum)
    return [
        Fact(
            "key identity (induction on m)",
            "symbolic",
            ok,
            "(6.1)'s gap × (Σa_iμ_i)(Σa'_iμ_i) = Σ_{i<j} (a_i a'_j - a_j a'_i)(λ_i μ_j - "
            "λ_j μ_i): equal at m = 1, and at m + 1 the left side grows by Σ_{i<=m} of the "
            "pair term with j = m + 1, as the right side does (every sum peeled and split by "
            "linearity, each rewriting checked by SymPy; the rest is a polynomial identity in "
            "the partial sums)",
        )
    ]


def lemma6_2_sign_facts() -> list[Fact]:
    """Each pair term >= 0 under (6.2) and (6.3) (and under both reversed)."""
    i, j = Z.i6, Z.j6
    a, ap, lam, mu = Z.A6, Z.AP6, Z.LAM6, Z.MU6
    names = {
        x[k]: sp.Symbol(f"{x.label}_{k}", positive=True) for x in (a, ap, lam, mu) for k in (i, j)
    }
    pair = _plain(_pair(i, j), names)
    h62, h63 = (_plain(e.expr, names) for e in Z.LEMMA6_2[1:])
    u, v = sp.Symbol("u", nonnegative=True), sp.Symbol("v", nonnegative=True)
    lam_i, a_i = names[lam[i]], names[a[i]]
    facts = []
    for label, su, sv in (("(6.2), (6.3)", u, v), ("both reversed", -u, -v)):
        sol_l, sol_a = _solve_for(h62, lam_i, sv), _solve_for(h63, a_i, su)
        if sol_l is None or sol_a is None:
            facts.append(
                Fact(f"pair term >= 0 under {label}", "sign", False, "hypothesis not solvable")
            )
            continue
        term = pair.xreplace({lam_i: sol_l, a_i: sol_a})
        rest = sorted(set(names.values()) - {lam_i, a_i}, key=str)
        ok, why = sk.nonneg_rational(term, rest, (u, v))
        facts.append(
            Fact(
                f"pair term >= 0 under {label}",
                "sign",
                ok,
                f"with the hypotheses' gaps written as slacks ({h62} = {sv}, {h63} = {su}; "
                f"u, v >= 0) the pair term is {sp.factor(term)}: {why}",
            )
        )
    return facts


@claim(
    "zz2016.lemma6.2",
    source="Lemma 6.2",
    statement=r"(6.2)\ \lambda_i/\mu_i \ge \lambda_j/\mu_j\text{ and }(6.3)\ a_i/a_j \ge a'_i/a'_j"
    r"\ (i<j)\implies(6.1)",
)
def lemma6_2() -> Verdict:
    facts = [*lemma6_2_identity_facts(), *lemma6_2_sign_facts(), *sk.finite_sum_facts()]

    def draw(rng: random.Random) -> dict[str, Any]:
        k = rng.randint(2, 5)
        # (6.2): λ_i/μ_i non-increasing; (6.3): a_i/a'_i non-increasing (same as a_i/a_j >= a'_i/a'_j)
        r = sorted((_positive(rng) for _ in range(k)), reverse=True)
        t = sorted((_positive(rng) for _ in range(k)), reverse=True)
        out: dict[str, Any] = {}
        for idx in range(k):
            mu_i, ap_i = _positive(rng), _positive(rng)
            out.update(
                {
                    f"lambda{idx + 1}": r[idx] * mu_i,
                    f"mu{idx + 1}": mu_i,
                    f"a{idx + 1}": t[idx] * ap_i,
                    f"ap{idx + 1}": ap_i,
                }
            )
        if rng.random() < 0.5:  # the remark: every inequality reversed
            for idx in range(k):
                out[f"lambda{idx + 1}"], out[f"mu{idx + 1}"] = (
                    out[f"mu{idx + 1}"],
                    out[f"lambda{idx + 1}"],
                )
                out[f"a{idx + 1}"], out[f"ap{idx + 1}"] = out[f"ap{idx + 1}"], out[f"a{idx + 1}"]
        return out

    def holds(d: dict[str, Any]) -> bool:
        k = len(d) // 4
        g = lambda name: [d[f"{name}{idx + 1}"] for idx in range(k)]  # noqa: E731
        a, ap, lam, mu = g("a"), g("ap"), g("lambda"), g("mu")
        dot = lambda u, v: sum(x * y for x, y in zip(u, v, strict=True))  # noqa: E731
        return dot(a, lam) / dot(a, mu) >= dot(ap, lam) / dot(ap, mu)

    def printed() -> dict[str, str] | None:
        gap, h62, h63 = (e.expr for e in Z.LEMMA6_2)
        k = 2

        def draw_p(rng: random.Random) -> dict[sp.Basic, Fraction]:
            return {
                x[idx]: _small(rng) for x in (Z.A6, Z.AP6, Z.LAM6, Z.MU6) for idx in range(1, k + 1)
            }

        def hyps(_: dict) -> list[sp.Expr]:
            return [h.subs({Z.i6: 1, Z.j6: 2}) for h in (h62, h63)]

        return _printed_counterexample(draw_p, hyps, lambda _: gap.subs(Z.M6, k).doit())

    return _verdict(
        "zz2016.lemma6.2",
        facts,
        _search(draw, holds),
        printed,
        finding="holds for every m, and with every inequality of (6.2), (6.3) reversed: the "
        "cross-multiplied difference is the printed sum over i < j of (a_i a'_j - a_j a'_i)"
        "(λ_i μ_j - λ_j μ_i) (identity checked by induction on m), and each term is a "
        "product of two slacks that (6.2) and (6.3) make non-negative (or both non-positive)",
        domain="every m >= 1, all a_i, a'_i, λ_i, μ_i > 0",
    )


# --------------------------------------------------------------------------- Corollary 6.1
@claim(
    "zz2016.cor6.1",
    source="Corollary 6.1",
    statement=r"\frac{q a_1 + p a_2}{p a_1 + q a_2} \ge \frac{q a'_1 + p a'_2}{p a'_1 + q a'_2}"
    r"\text{ whenever } a_2/a_1 \ge a'_2/a'_1",
)
def cor6_1() -> Verdict:
    a, ap, p, q = Z.A6, Z.AP6, sk.p, sk.q
    names = {x[k]: sp.Symbol(f"{x.label}_{k}", positive=True) for x in (a, ap) for k in (1, 2)}
    gap, hyp = (_plain(e.expr, names) for e in Z.COR6_1)
    a1, a2, b1, b2 = names[a[1]], names[a[2]], names[ap[1]], names[ap[2]]
    target = (p**2 - q**2) * (a2 * b1 - a1 * b2) / ((p * a1 + q * a2) * (p * b1 + q * b2))
    ident = sp.expand(sp.cancel(sp.together(gap - target))) == 0
    t, u = sp.Symbol("t", positive=True), sp.Symbol("u", nonnegative=True)
    sol = _solve_for(hyp, a2, u)
    if sol is None:
        sign, why, shown = False, "the hypothesis is not solvable for a_2", ""
    else:
        shown = sp.factor(gap.xreplace({a2: sol}).subs(p, q + t))
        sign, why = sk.nonneg_rational(shown, (q, t, a1, b1, b2), (u,))
    facts = [
        Fact(
            "factorisation",
            "symbolic",
            ident,
            "LHS - RHS = (p² - q²)(a_2 a'_1 - a_1 a'_2) / ((p a_1 + q a_2)(p a'_1 + q a'_2)) "
            "(SymPy cancel)",
        ),
        Fact(
            "sign",
            "sign",
            sign,
            f"with p = q + t (t > 0: q < p) and the hypothesis' gap written as a slack u >= 0 "
            f"(solved for a_2), LHS - RHS = {shown}: {why}",
        ),
    ]

    def draw(rng: random.Random) -> dict[str, Any]:
        qv = Fraction(rng.randint(1, 499), 1000)
        a1v, b1v = _positive(rng), _positive(rng)
        r_hi, r_lo = sorted((_positive(rng), _positive(rng)), reverse=True)
        return {"q": qv, "a1": a1v, "a2": r_hi * a1v, "ap1": b1v, "ap2": r_lo * b1v}

    def holds(d: dict[str, Any]) -> bool:
        qv = d["q"]
        pv = 1 - qv
        f = lambda x1, x2: (qv * x1 + pv * x2) / (pv * x1 + qv * x2)  # noqa: E731
        return f(d["a1"], d["a2"]) >= f(d["ap1"], d["ap2"])

    def printed() -> dict[str, str] | None:
        g, h = (e.expr for e in Z.COR6_1)

        def draw_p(rng: random.Random) -> dict[sp.Basic, Fraction]:
            qv = Fraction(rng.randint(1, 49), 100)
            vals: dict[sp.Basic, Fraction] = {
                q: qv,
                p: qv + Fraction(rng.randint(1, 50), 100) * (1 - qv),
            }
            vals.update({x[k]: _small(rng) for x in (a, ap) for k in (1, 2)})
            return vals

        return _printed_counterexample(draw_p, lambda _: [h], lambda _: g)

    return _verdict(
        "zz2016.cor6.1",
        facts,
        _search(draw, holds),
        printed,
        finding="holds: the difference factors as (p² - q²)(a_2 a'_1 - a_1 a'_2) over positive "
        "denominators; with p = q + t and a_2 from the hypothesis' slack, numerator and "
        "denominator have only non-negative coefficients (it is Lemma 6.2 with every "
        "inequality reversed, λ = (q, p), μ = (p, q))",
        domain="0 < q < p < 1, all a_i, a'_i > 0",
    )


# --------------------------------------------------------------------------- Lemma 6.3
@claim(
    "zz2016.lemma6.3",
    source="Lemma 6.3",
    statement=r"ac' \ge a'c,\ ab' \le a'b,\ bc' \ge b'c \implies "
    r"\frac{a\lambda + b\mu}{c\lambda + a\mu} \ge \frac{a'\lambda + b'\mu}{c'\lambda + a'\mu}",
)
def lemma6_3() -> Verdict:
    pos = {x: sp.Symbol(str(x), positive=True) for x in (Z.a63, Z.ap63, Z.lam63, Z.mu63)}
    nonneg = {x: sp.Symbol(str(x), nonnegative=True) for x in (Z.b63, Z.bp63, Z.c63, Z.cp63)}
    names = {**pos, **nonneg}
    gap, h1, h2, h3 = (_plain(e.expr, names) for e in Z.LEMMA6_3)
    u1, u2 = sp.Symbol("u_1", nonnegative=True), sp.Symbol("u_2", nonnegative=True)
    cp, b = nonneg[Z.cp63], nonneg[Z.b63]
    sol_c, sol_b = _solve_for(h1, cp, u1), _solve_for(h2, b, u2)
    if sol_c is None or sol_b is None:
        sign, why, shown, third, why3 = False, "a hypothesis is not solvable", "", False, ""
    else:
        sub = {cp: sol_c, b: sol_b}
        shown = sp.factor(gap.xreplace(sub))
        free = (*pos.values(), nonneg[Z.bp63], nonneg[Z.c63])
        sign, why = sk.nonneg_rational(shown, free[:4], (*free[4:], u1, u2))
        third, why3 = sk.nonneg_rational(h3.xreplace(sub), free[:4], (*free[4:], u1, u2))
    facts = [
        Fact(
            "sign of (6.4)",
            "sign",
            sign,
            f"the first two conditions of (6.5) as slacks u_1, u_2 >= 0 (solved for c' and b): "
            f"LHS - RHS of (6.4) = {shown}: {why}",
        ),
    ]

    def draw(rng: random.Random) -> dict[str, Any] | None:
        d = {
            "a": _positive(rng),
            "ap": _positive(rng),
            "lambda": _positive(rng),
            "mu": _positive(rng),
        }
        for k in ("b", "bp", "c", "cp"):
            d[k] = Fraction(0) if rng.random() < 0.15 else _positive(rng)
        ok = (
            d["a"] * d["cp"] >= d["ap"] * d["c"]
            and d["a"] * d["bp"] <= d["ap"] * d["b"]
            and d["b"] * d["cp"] >= d["bp"] * d["c"]
        )
        return d if ok else None

    def holds(d: dict[str, Any]) -> bool:
        lam_, mu_ = d["lambda"], d["mu"]
        left = (d["a"] * lam_ + d["b"] * mu_) / (d["c"] * lam_ + d["a"] * mu_)
        right = (d["ap"] * lam_ + d["bp"] * mu_) / (d["cp"] * lam_ + d["ap"] * mu_)
        return left >= right

    def printed() -> dict[str, str] | None:
        g, *hs = (e.expr for e in Z.LEMMA6_3)

        def draw_p(rng: random.Random) -> dict[sp.Basic, Fraction]:
            vals: dict[sp.Basic, Fraction] = {x: _small(rng) for x in pos}
            vals.update({x: Fraction(0) if rng.random() < 0.2 else _small(rng) for x in nonneg})
            return vals

        return _printed_counterexample(draw_p, lambda _: hs, lambda _: g)

    return _verdict(
        "zz2016.lemma6.3",
        facts,
        _search(draw, holds),
        printed,
        finding="holds: with ac' - a'c = u_1 >= 0 and a'b - ab' = u_2 >= 0 as new variables, the "
        "gap of (6.4) is a ratio of polynomials with non-negative coefficients (the third "
        "condition of (6.5) is then implied: bc' - b'c has non-negative coefficients too"
        + ("" if third else " [not shown]")
        + ")",
        domain="a, a', λ, μ > 0 and b, b', c, c' >= 0",
        evidence={"third condition of (6.5) from the first two": why3 or "not shown"},
    )
