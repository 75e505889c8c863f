"""Zhilyaev and Zeber (2016) §6: ratios of sums (Lemmas 6.1-6.3, Corollary 6.1).

Each lemma is reduced to an identity that SymPy checks (the printed proof's key
step), after which the conclusion follows from signs the hypotheses fix.  A
seeded search over exact rationals, including extreme magnitudes, then tries to
break the lemma directly: hypotheses drawn, conclusion evaluated exactly.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import sympy as sp

from dpcheck.claims.model import Status, Verdict
from dpcheck.claims.registry import claim

SEARCH = 3000  # random instances per lemma
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


def _verdict(
    claim_id: str,
    steps: dict[str, bool],
    searched: tuple[int, dict | None],
    *,
    finding: str,
    domain: str,
    evidence: dict[str, Any],
) -> Verdict:
    tried, counter = searched
    ev = dict(evidence)
    ev["symbolic steps"] = {k: ("holds" if v else "FAILS") for k, v in steps.items()}
    ev["exact random search"] = (
        f"{tried} instances (seed {SEED}, magnitudes 1e-30..1e30) meeting the hypotheses: "
        + ("no counterexample" if counter is None else "counterexample found")
    )
    if counter is not None:
        ev["counterexample"] = counter
        ev["finding"] = "the conclusion fails on an instance meeting the hypotheses"
        return Verdict(Status.REFUTED, "exact evaluation of a random instance", ev)
    if not all(steps.values()):
        ev["finding"] = "a step of the proof does not reduce; no counterexample found"
        return Verdict(Status.INCONCLUSIVE, "symbolic reduction", ev)
    ev["finding"] = finding
    return Verdict(
        Status.PROVED,
        "the printed proof's key identity checked symbolically, the rest from signs fixed by "
        "the hypotheses; a seeded exact search found no counterexample",
        ev,
        domain=domain,
    )


def _zero(expr: sp.Expr) -> bool:
    return sp.expand(sp.cancel(sp.together(expr))) == 0


# --------------------------------------------------------------------------- Lemma 6.1
@claim(
    "zz2016.lemma6.1",
    source="Lemma 6.1",
    statement=r"\frac{a_1 + \dots + a_m}{b_1 + \dots + b_m} \le \max_i \frac{a_i}{b_i},"
    r"\ b_i > 0",
)
def lemma6_1() -> Verdict:
    steps = {}
    for k in range(1, 9):
        a, b = sp.symbols(f"a1:{k + 1}"), sp.symbols(f"b1:{k + 1}", positive=True)
        total = sum(b)
        weights = [bi / total for bi in b]
        steps[f"m = {k}: sum a / sum b = sum (a_i/b_i) w_i, w_i = b_i / sum b"] = _zero(
            sum(a) / total - sum(ai / bi * w for ai, bi, w in zip(a, b, weights, strict=True))
        )
        steps[f"m = {k}: sum w_i = 1"] = _zero(sum(weights) - 1)

    def draw(rng: random.Random) -> dict[str, Any]:
        k = rng.randint(1, 6)
        out: dict[str, Any] = {}
        for i in range(k):
            out[f"a{i + 1}"] = _positive(rng) * rng.choice((-1, 1))
            out[f"b{i + 1}"] = _positive(rng)
        return out

    def holds(d: dict[str, Any]) -> bool:
        k = len(d) // 2
        a = [d[f"a{i + 1}"] for i in range(k)]
        b = [d[f"b{i + 1}"] for i in range(k)]
        return sum(a) / sum(b) <= max(x / y for x, y in zip(a, b, strict=True))

    return _verdict(
        "zz2016.lemma6.1",
        steps,
        _search(draw, holds),
        finding="holds: the ratio of sums is the average of the a_i/b_i with weights "
        "b_i / sum b > 0 summing to 1 (identity checked for m = 1..8; for general m it is "
        "term-by-term), so it is at most their maximum",
        domain="every m >= 1, real a_i, b_i > 0",
        evidence={},
    )


# --------------------------------------------------------------------------- Lemma 6.2
def _pair_terms(i: int, j: int, a, ap, lam, mu):  # type: ignore[no-untyped-def]
    return (a[i] * ap[j] - a[j] * ap[i]) * (lam[i] * mu[j] - lam[j] * mu[i])


@claim(
    "zz2016.lemma6.2",
    source="Lemma 6.2",
    statement=r"(6.2)\ \lambda_i/\mu_i \ge \lambda_j/\mu_j\text{ and }(6.3)\ a_i/a_j \ge a'_i/a'_j"
    r"\ (i<j)\implies(6.1)",
)
def lemma6_2() -> Verdict:
    steps = {}
    for k in range(2, 7):
        a = sp.symbols(f"a1:{k + 1}", positive=True)
        ap = sp.symbols(f"ap1:{k + 1}", positive=True)
        lam = sp.symbols(f"lambda1:{k + 1}", positive=True)
        mu = sp.symbols(f"mu1:{k + 1}", positive=True)
        lhs = sum(a[i] * lam[i] for i in range(k)) * sum(ap[j] * mu[j] for j in range(k)) - sum(
            ap[j] * lam[j] for j in range(k)
        ) * sum(a[i] * mu[i] for i in range(k))
        pairs = sum(_pair_terms(i, j, a, ap, lam, mu) for i in range(k) for j in range(i + 1, k))
        steps[
            f"m = {k}: cross-multiplied (6.1) = sum_(i<j) (a_i a'_j - a_j a'_i)(λ_i μ_j - λ_j μ_i)"
        ] = _zero(lhs - pairs)
    # general m: the i = j terms cancel and each unordered pair contributes this 2-term identity
    ai, aj, api, apj, li, lj, mi, mj = sp.symbols("a_i a_j ap_i ap_j l_i l_j m_i m_j")
    steps["any m: pair {i, j} of the double sums equals its product term"] = _zero(
        ai * apj * li * mj
        + aj * api * lj * mi
        - ai * apj * lj * mi
        - aj * api * li * mj
        - (ai * apj - aj * api) * (li * mj - lj * mi)
    )

    def draw(rng: random.Random) -> dict[str, Any]:
        k = rng.randint(2, 5)
        # (6.2): λ_i/μ_i non-increasing; (6.3): a_i/a'_i non-increasing (same as a_i/a_j >= a'_i/a'_j)
        r = sorted((_positive(rng) for _ in range(k)), reverse=True)
        t = sorted((_positive(rng) for _ in range(k)), reverse=True)
        out: dict[str, Any] = {}
        for i in range(k):
            mu_i, ap_i = _positive(rng), _positive(rng)
            out.update(
                {
                    f"lambda{i + 1}": r[i] * mu_i,
                    f"mu{i + 1}": mu_i,
                    f"a{i + 1}": t[i] * ap_i,
                    f"ap{i + 1}": ap_i,
                }
            )
        if rng.random() < 0.5:  # the remark: every inequality reversed
            for i in range(k):
                out[f"lambda{i + 1}"], out[f"mu{i + 1}"] = out[f"mu{i + 1}"], out[f"lambda{i + 1}"]
                out[f"a{i + 1}"], out[f"ap{i + 1}"] = out[f"ap{i + 1}"], out[f"a{i + 1}"]
        return out

    def holds(d: dict[str, Any]) -> bool:
        k = len(d) // 4
        g = lambda name: [d[f"{name}{i + 1}"] for i in range(k)]  # noqa: E731
        a, ap, lam, mu = g("a"), g("ap"), g("lambda"), g("mu")
        dot = lambda u, v: sum(x * y for x, y in zip(u, v, strict=True))  # noqa: E731
        return dot(a, lam) / dot(a, mu) >= dot(ap, lam) / dot(ap, mu)

    return _verdict(
        "zz2016.lemma6.2",
        steps,
        _search(draw, holds),
        finding="holds, and with every inequality of (6.2), (6.3) reversed: the cross-"
        "multiplied difference is the printed sum over i < j of products of two factors "
        "that (6.2) and (6.3) make non-negative (or both non-positive)",
        domain="every m >= 2, all a_i, a'_i, λ_i, μ_i > 0",
        evidence={},
    )


# --------------------------------------------------------------------------- Corollary 6.1
@claim(
    "zz2016.cor6.1",
    source="Corollary 6.1",
    statement=r"\frac{q a_1 + p a_2}{p a_1 + q a_2} \ge \frac{q a'_1 + p a'_2}{p a'_1 + q a'_2}"
    r"\text{ whenever } a_2/a_1 \ge a'_2/a'_1",
)
def cor6_1() -> Verdict:
    p, q, a1, a2, b1, b2 = sp.symbols("p q a1 a2 ap1 ap2", positive=True)
    diff = (q * a1 + p * a2) / (p * a1 + q * a2) - (q * b1 + p * b2) / (p * b1 + q * b2)
    target = (p**2 - q**2) * (a2 * b1 - a1 * b2) / ((p * a1 + q * a2) * (p * b1 + q * b2))
    steps = {
        "LHS - RHS = (p² - q²)(a_2 a'_1 - a_1 a'_2) / ((p a_1 + q a_2)(p a'_1 + q a'_2))": _zero(
            diff - target
        )
    }

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

    return _verdict(
        "zz2016.cor6.1",
        steps,
        _search(draw, holds),
        finding="holds: the difference factors as (p² - q²)(a_2 a'_1 - a_1 a'_2) over positive "
        "denominators, and p > q, a_2/a_1 >= a'_2/a'_1 make it non-negative (it is Lemma 6.2 "
        "with every inequality reversed, λ = (q, p), μ = (p, q))",
        domain="0 < q < p < 1, all a_i, a'_i > 0",
        evidence={},
    )


# --------------------------------------------------------------------------- Lemma 6.3
@claim(
    "zz2016.lemma6.3",
    source="Lemma 6.3",
    statement=r"ac' \ge a'c,\ ab' \le a'b,\ bc' \ge b'c \implies "
    r"\frac{a\lambda + b\mu}{c\lambda + a\mu} \ge \frac{a'\lambda + b'\mu}{c'\lambda + a'\mu}",
)
def lemma6_3() -> Verdict:
    a, ap, lam, mu = sp.symbols("a ap lambda mu", positive=True)
    b, bp, c, cp = sp.symbols("b bp c cp", nonnegative=True)
    cross = (a * lam + b * mu) * (cp * lam + ap * mu) - (ap * lam + bp * mu) * (c * lam + a * mu)
    quad = (a * cp - ap * c) * lam**2 + (b * cp - bp * c) * lam * mu + (ap * b - a * bp) * mu**2
    steps = {
        "cross-multiplied (6.4) = (ac' - a'c)λ² + (bc' - b'c)λμ + (a'b - ab')μ²": _zero(
            cross - quad
        ),
        "denominators cλ + aμ, c'λ + a'μ > 0 (a, a', μ > 0; c, c', λ >= 0)": True,
    }

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

    return _verdict(
        "zz2016.lemma6.3",
        steps,
        _search(draw, holds),
        finding="holds: cross-multiplying over positive denominators gives a quadratic form in "
        "(λ, μ) whose three coefficients (6.5) makes non-negative",
        domain="a, a', λ, μ > 0 and b, b', c, c' >= 0",
        evidence={},
    )
