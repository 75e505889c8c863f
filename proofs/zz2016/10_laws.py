"""Zhilyaev and Zeber (2016) §1-§4: the law of the histogram and the privacy ratio.

The histogram law is computed exactly by :mod:`dpcheck.enumeration.krand`
(multinomial generating functions per group of identical users) and compared
with eq (2.1) read literally (every synthetic collection enumerated).  Since
both are polynomials of degree nL in q over the common denominator, agreement at
nL + 1 values of q is agreement for every q.
"""

from __future__ import annotations

import itertools
import math
import random
from fractions import Fraction
from typing import Any

import sympy as sp

from dpcheck.claims.model import Status, Verdict
from dpcheck.claims.registry import claim
from dpcheck.enumeration import krand as ek
from dpcheck.papers import zz2016 as Z
from dpcheck.symbolic import krand as sk

QS = (Fraction(1, 4), Fraction(1, 3), Fraction(1, 10))
#: (L, largest n) of the exhaustive checks of eq (2.1) against the engine
BRUTE = ((1, 8), (2, 4), (3, 2))
#: (L, largest n) of the exhaustive maximum of the privacy ratio for L >= 2
MAX_RATIO = ((2, 7), (3, 3), (4, 2))


def _q_points(count: int) -> list[Fraction]:
    """``count`` distinct lie probabilities in (0, 1/2)."""
    return [Fraction(k, 2 * count + 3) for k in range(1, count + 1)]


# --------------------------------------------------------------------------- §1
@claim(
    "zz2016.prop1.1",
    source="Prop 1.1",
    statement=r"\mathcal{S}\text{ finite}: \epsilon\text{-DP} \iff P[A(x)=s] \le e^\epsilon "
    r"P[A(x')=s]\ \forall s",
)
def prop1_1() -> Verdict:
    # (=>) take S = {s}; (<=) Lemma 6.1 over the s in S with P[A(x') = s] > 0.  Independent
    # route: on random finite laws (some zeros), the largest P(S)/Q(S) over all 2^k - 1
    # events equals the largest pointwise ratio, exactly.
    rng = random.Random(11)
    checked, bad = 0, None
    for _ in range(400):
        k = rng.randint(1, 7)
        P = [Fraction(rng.choice((0, 0, 1, 2, 5, 9)), 1) for _ in range(k)]
        Q = [Fraction(rng.choice((0, 1, 3, 7)), 1) for _ in range(k)]
        if not sum(P) or not sum(Q):
            continue
        P = [x / sum(P) for x in P]
        Q = [x / sum(Q) for x in Q]
        point = max((x / y if y else (math.inf if x else 0)) for x, y in zip(P, Q, strict=True))
        events = max(
            (sum(P[i] for i in S) / sum(Q[i] for i in S))
            if sum(Q[i] for i in S)
            else (math.inf if sum(P[i] for i in S) else 0)
            for r in range(1, k + 1)
            for S in itertools.combinations(range(k), r)
        )
        checked += 1
        if point != events:
            bad = {"P": [str(x) for x in P], "Q": [str(x) for x in Q]}
            break
    ev: dict[str, Any] = {
        "proof": "(=>) S = {s}. (<=) if P[A(x') in S] = 0 every term is 0 and (1.2) forces "
        "P[A(x) in S] = 0; otherwise drop the s with P[A(x') = s] = 0 (then P[A(x) = s] = 0 "
        "by (1.2)) and apply Lemma 6.1 (proved) to the rest, whose b_i are > 0",
        "exact check": f"{checked} random finite law pairs (some zero masses): max over all "
        "events of P(S)/Q(S) = max pointwise ratio",
    }
    if bad:
        ev.update(finding="an event ratio exceeds every pointwise ratio", counterexample=bad)
        return Verdict(Status.REFUTED, "exhaustive events of a finite law", ev)
    ev["finding"] = (
        "holds; the printed proof applies Lemma 6.1 to all s in S, some of whose b_i = "
        "P[A(x') = s] may be 0 (the lemma needs b_i > 0): those terms have a_i = 0 by (1.2) "
        "and drop out, so the gap is cosmetic"
    )
    return Verdict(
        Status.PROVED,
        "proof step by step against Lemma 6.1; exhaustive events on random finite laws",
        ev,
        domain="every finite outcome set, every pair of laws, every eps >= 0",
    )


# --------------------------------------------------------------------------- §2
@claim(
    "zz2016.sec2.bit_pmf",
    source="§2.1",
    statement=r"P[R(x) = y] = p^{L - \delta(x,y)} q^{\delta(x,y)}",
)
def bit_pmf() -> Verdict:
    p, q = sk.p, sk.q
    # one bit from the definition R(b; ξ) = bξ + (1-b)(1-ξ), ξ ~ Ber(p)
    per_bit = {}
    for b, y in itertools.product((0, 1), repeat=2):
        prob = sum((p if xi else q) for xi in (0, 1) if b * xi + (1 - b) * (1 - xi) == y)
        printed = Z.BIT_PMF.expr.subs({Z.L: 1, Z.d: int(b != y)}).subs(sk.q, q)
        per_bit[f"b={b}, y={y}"] = sp.simplify((prob - printed).subs(sk.ONE)) == 0
    # every vector pair for L <= 8 (counting ξ by how many bits are kept)
    checked = 0
    wrong = None
    for L in range(1, 9):
        for xv in range(2**L):
            law: dict[int, dict[int, int]] = {}
            for xi in range(2**L):  # bit l of xi: ξ_l
                y = xv ^ (~xi & (2**L - 1))  # R keeps bit l iff ξ_l = 1
                kept = xi.bit_count()
                law.setdefault(y, {})
                law[y][kept] = law[y].get(kept, 0) + 1
            for y, terms in law.items():
                checked += 1
                d = ek.hamming(xv, y)
                if terms != {L - d: 1}:  # printed: p^(L-d) q^d, one term
                    wrong = wrong or {"L": L, "x": xv, "y": y, "terms": str(terms)}
    ev: dict[str, Any] = {
        "one bit (from the definition)": {
            k: ("= printed" if v else "differs") for k, v in per_bit.items()
        },
        "vectors": f"all {checked} pairs (x, y), L = 1..8: exactly one ξ gives y, and it "
        "keeps L - δ(x, y) bits",
    }
    if wrong or not all(per_bit.values()):
        ev.update(finding="the printed pmf differs from the mechanism", witness=wrong or per_bit)
        return Verdict(Status.REFUTED, "enumeration of ξ", ev)
    ev["finding"] = "holds: independent bits multiply p^{I(b=y)} q^{I(b≠y)}"
    return Verdict(
        Status.PROVED,
        "per-bit law from the definition (symbolic), product over "
        "independent bits; every vector pair enumerated for L <= 8",
        ev,
        domain="every L >= 1, 0 < q < 1/2",
    )


@claim(
    "zz2016.sec2.rr_equivalence",
    source="§2.1 Remark",
    statement=r"\text{lie probability } q \text{ is randomized response with } f = 2q",
)
def rr_equivalence() -> Verdict:
    f, b = sp.symbols("f b")
    # RR: keep w.p. 1 - f, else a fair coin; P(report != b) = f/2
    lie = f * sp.Rational(1, 2)
    truth = (1 - f) + f * sp.Rational(1, 2)
    fq = Z.RR_Q.expr.subs(Z.f, f)  # printed: q = f/2
    ok = sp.simplify(lie - fq) == 0 and sp.simplify(truth - (1 - fq)) == 0
    ev = {
        "randomized response": "P(lie) = f/2, P(truth) = 1 - f/2",
        "finding": "holds: with f = 2q the lie probability is q and the truth probability "
        "p = 1 - q; 0 < q < 1/2 is 0 < f < 1"
        if ok
        else "the printed relation differs",
    }
    if not ok:
        ev["witness"] = {"lie": str(lie), "printed q": str(fq)}
        return Verdict(Status.REFUTED, "symbolic", ev)
    return Verdict(
        Status.PROVED,
        "symbolic law of one randomized-response report",
        ev,
        domain="0 < f < 1 (0 < q < 1/2)",
    )


@claim(
    "zz2016.eq2.1",
    source="eq (2.1)",
    statement=r"P[A(\mathbf{x}) = s] = \sum_{\mathbf{y}: \Phi(\mathbf{y}) = s} "
    r"p^{nL - \delta(\mathbf{x},\mathbf{y})} q^{\delta(\mathbf{x},\mathbf{y})}",
)
def eq2_1() -> Verdict:
    checked = 0
    for L, n_max in BRUTE:
        k = 2**L
        for nv in range(1, n_max + 1):
            for types in ek.compositions(nv, k):
                collection = [v for v in range(k) for _ in range(types[v])]
                for qq in _q_points(nv * L + 1):
                    brute = ek.brute_force_law(collection, L, qq)
                    law = ek.histogram_law(types, L, qq)
                    checked += 1
                    if brute.num != law.num or brute.den != law.den:
                        wit = next(
                            s for s in set(brute.num) | set(law.num) if brute.prob(s) != law.prob(s)
                        )
                        return Verdict(
                            Status.REFUTED,
                            "brute force of eq (2.1)",
                            {
                                "finding": "eq (2.1) differs from the law",
                                "witness": {
                                    "L": L,
                                    "types": types,
                                    "q": str(qq),
                                    "s": wit,
                                    "eq (2.1)": str(brute.prob(wit)),
                                    "law": str(law.prob(wit)),
                                },
                            },
                        )
    domain = "; ".join(f"L = {L}, n = 1..{nm}" for L, nm in BRUTE)
    return Verdict(
        Status.VERIFIED,
        "eq (2.1) read literally (all 2^(nL) synthetic collections) against the law from "
        "multinomial generating functions, exact; both are polynomials of degree nL in q, "
        "compared at nL + 1 values of q",
        {
            "finding": f"eq (2.1) equals the law for every collection and histogram "
            f"({checked} (collection, q) cases), hence for every q",
            "note": "δ(x, y) for collections is read as the sum of the users' Hamming distances "
            "(the note defines it for vectors only)",
        },
        domain=f"every collection with {domain}; every 0 < q < 1/2",
    )


# --------------------------------------------------------------------------- §3
@claim(
    "zz2016.sec3.full_support",
    source="§3",
    statement=r"P[A(\mathbf{x}) = s] > 0\ \forall s \in \mathcal{S}_n, \forall \mathbf{x}",
)
def full_support() -> Verdict:
    checked = 0
    for L, n_max in BRUTE:
        for nv in range(1, n_max + 2):
            for types in ek.compositions(nv, 2**L):
                law = ek.histogram_law(types, L, QS[0])
                checked += 1
                if len(law) != ek.outcome_count(nv, L) or min(law.num.values()) <= 0:
                    return Verdict(
                        Status.REFUTED,
                        "exact law",
                        {
                            "finding": "a histogram of S_n has probability 0",
                            "counterexample": {"L": L, "types": types},
                        },
                    )
    return Verdict(
        Status.PROVED,
        "every term p^(nL-δ) q^δ of eq (2.1) is > 0 for 0 < q < 1 and every s in S_n has a "
        "preimage y (list s_1 copies of d_1, ...); exact laws as a second route",
        {
            "finding": "holds: every s in S_n has positive probability from every x",
            "exact check": f"{checked} collections: the law has all |S_n| = C(n + 2^L - 1, 2^L - 1) "
            "histograms, each with positive mass",
        },
        domain="every n, L >= 1, 0 < q < 1/2",
    )


@claim(
    "zz2016.eq3.1",
    source="eq (3.1)",
    statement=r"\pi(s;\tilde{x}, x_1, x_1') = \frac{\sum_j P[R(x_1') = d_j] P[A(\tilde{x}) = "
    r"s - i_j]}{\sum_j P[A(x_1) = i_j] P[A(\tilde{x}) = s - i_j]}",
)
def eq3_1() -> Verdict:
    checked = 0
    literal_witness = None
    for L, n_max in ((1, 6), (2, 4), (3, 2)):
        k = 2**L
        for qq in QS[:2]:
            W = ek.report_weights(L, qq)
            den1 = qq.denominator**L
            for nv in range(1, n_max + 1):
                for bg in ek.compositions(nv - 1, k):
                    base = ek.histogram_law(bg, L, qq) if nv > 1 else None

                    def bprob(t: tuple[int, ...], base: ek.Law | None = base) -> Fraction:
                        return base.prob(t) if base else Fraction(int(not any(t)))

                    for x1, x1p in itertools.permutations(range(k), 2):
                        tx = list(bg)
                        tx[x1] += 1
                        txp = list(bg)
                        txp[x1p] += 1
                        lx, lxp = ek.histogram_law(tx, L, qq), ek.histogram_law(txp, L, qq)
                        for s in lx.num:
                            shifted = [
                                tuple(c - (w == j) for w, c in enumerate(s)) for j in range(k)
                            ]
                            terms = [bprob(t) if min(t) >= 0 else Fraction(0) for t in shifted]
                            num = sum(Fraction(W[x1p][j], den1) * terms[j] for j in range(k))
                            den = sum(Fraction(W[x1][j], den1) * terms[j] for j in range(k))
                            # first printed form: P[A(x1') = i_j] in numerator AND denominator
                            first = num / num
                            truth = lxp.prob(s) / lx.prob(s)
                            checked += 1
                            if num / den != truth:
                                return Verdict(
                                    Status.REFUTED,
                                    "exact laws",
                                    {
                                        "finding": "the second printed form differs from π",
                                        "witness": {"L": L, "n": nv, "s": s, "q": str(qq)},
                                    },
                                )
                            if first != truth and literal_witness is None:
                                literal_witness = {
                                    "L": L,
                                    "n": nv,
                                    "background types": bg,
                                    "x1": x1,
                                    "x1'": x1p,
                                    "s": s,
                                    "q": str(qq),
                                    "first printed form": str(first),
                                    "π": str(truth),
                                }
    return Verdict(
        Status.VERIFIED,
        "the conditioning formula evaluated on exact laws against π = P[A(x')=s]/P[A(x)=s] "
        "from the full laws, for every background, changed record and histogram",
        {
            "finding": "the second printed form (P[R(x_1') = d_j] over P[A(x_1) = i_j]) equals "
            f"π at all {checked} cases; the first printed form has P[A(x_1') = i_j] in both "
            "numerator and denominator, so as printed it is 1: a misprint of x_1' for x_1 in "
            "its denominator",
            "literal reading": {"holds": False, "witness": literal_witness},
            "reading": "first form's denominator P[A(x_1') = i_j] read as P[A(x_1) = i_j]",
        },
        domain="L = 1 (n <= 6), L = 2 (n <= 4), L = 3 (n <= 2), q in {1/4, 1/3}, every "
        "background, changed pair and histogram; with the first form's denominator read as "
        "P[A(x_1) = i_j]",
    )


@claim(
    "zz2016.sec3.max_ratio",
    source="§3 TODO",
    statement=r"\max \pi = (p/q)^L\text{, independent of } n",
)
def max_ratio() -> Verdict:
    p, q, L = sk.p, sk.q, sp.Symbol("L", positive=True, integer=True)
    # attained: s = n copies of x_1', x_1 its complement; every other factor cancels
    attained = sp.simplify(p**L / q**L - (p / q) ** L) == 0
    rows = []
    for qq in QS:
        for nv in range(1, 61):
            r = ek.max_ratio_L1(nv, qq)
            if r.ratio != (1 - qq) / qq:
                return Verdict(
                    Status.REFUTED,
                    "exhaustive L = 1",
                    {
                        "finding": "max ratio differs from p/q",
                        "counterexample": {"n": nv, "q": str(qq), "max": str(r.ratio)},
                    },
                )
        rows.append(f"L = 1, q = {qq}: max = p/q = {(1 - qq) / qq} for every n = 1..60")
    for (Lv, n_max), qq in itertools.product(MAX_RATIO, QS[:2]):
        for nv in range(1, n_max + 1):
            r = ek.max_ratio(nv, Lv, qq)
            if r.ratio != ((1 - qq) / qq) ** Lv:
                return Verdict(
                    Status.REFUTED,
                    "exhaustive",
                    {
                        "finding": "max ratio differs from (p/q)^L",
                        "counterexample": {"n": nv, "L": Lv, "q": str(qq), "max": str(r.ratio)},
                    },
                )
        rows.append(f"L = {Lv}, q = {qq}: max = (p/q)^{Lv} for every n = 1..{n_max}")
    ev = {
        "upper bound": "by (3.1) and Lemma 6.1, π <= max_j P[R(x_1')=d_j]/P[R(x_1)=d_j] = "
        "max_j (p/q)^(δ(x_1,d_j) - δ(x_1',d_j)) <= (p/q)^L (triangle inequality)",
        "attained": "x_1 = complement of x_1', s = all n reports equal to x_1': π = p^L/q^L "
        "for every background and every n" + ("" if attained else " (FAILED)"),
        "exhaustive": rows,
        "finding": "holds: max π = (p/q)^L for every n (bound and attainment are general; "
        "exhaustive enumeration agrees)",
    }
    return Verdict(
        Status.PROVED,
        "general bound (Lemma 6.1, §2.1) and an attaining pair; "
        "exhaustive exact enumeration as a second route",
        ev,
        domain="every n, L >= 1, 0 < q < 1/2",
    )


@claim(
    "zz2016.general_L.max_ratio",
    source="§3, general L",
    statement=r"L \ge 2: \max \pi = (p/q)^L\text{ (exact enumeration)}",
)
def general_l_max_ratio() -> Verdict:
    rows = []
    for Lv, n_max in MAX_RATIO:
        for qq in QS:
            for nv in range(1, n_max + 1):
                r = ek.max_ratio(nv, Lv, qq)
                if r.ratio != ((1 - qq) / qq) ** Lv:
                    return Verdict(
                        Status.REFUTED,
                        "exhaustive",
                        {
                            "finding": "max ratio differs from (p/q)^L",
                            "counterexample": {
                                "n": nv,
                                "L": Lv,
                                "q": str(qq),
                                "max": str(r.ratio),
                                "x": r.x,
                                "x'": r.x_prime,
                                "s": r.s,
                            },
                        },
                    )
            rows.append(
                {
                    "L": Lv,
                    "q": str(qq),
                    "n": f"1..{n_max}",
                    "max": str(((1 - qq) / qq) ** Lv),
                    "pairs": r.pairs,
                    "outcomes at largest n": r.outcomes,
                    "attained at x": r.x,
                    "x'": r.x_prime,
                    "s": r.s,
                }
            )
    dom = "; ".join(f"L = {L}, n = 1..{nm}" for L, nm in MAX_RATIO)
    return Verdict(
        Status.VERIFIED,
        "exact maximum of π over every histogram and every neighbouring pair (every "
        "background up to the XOR symmetry), in rationals",
        {"finding": "max π = (p/q)^L at every (n, L) examined", "enumeration": rows},
        domain=f"{dom}; q in {{1/4, 1/3, 1/10}}",
    )


# --------------------------------------------------------------------------- §4
@claim(
    "zz2016.sec4.sum_of_binomials",
    source="§4",
    statement=r"L = 1: A_n(m) \sim \mathrm{Bin}(m,p) + \mathrm{Bin}(n-m,q)",
)
def sum_of_binomials() -> Verdict:
    p, q, z = sk.p, sk.q, sk.z
    # the count of ones is a sum of independent indicators I(R(x_i) = 1)
    one, zero = q + p * z, p + q * z  # generating functions of I(R(1)=1), I(R(0)=1)
    binomials = sp.expand((q + p * z) ** 3 * (p + q * z) ** 2)  # Bin(3,p)+Bin(2,q) at n=5, m=3
    ok_gf = sp.expand(one**3 * zero**2) == binomials
    checked = 0
    for nv in range(1, 11):
        for mv in range(nv + 1):
            for qq in _q_points(nv + 1):
                brute = ek.brute_force_law([1] * mv + [0] * (nv - mv), 1, qq)
                pv = 1 - qq
                for sv in range(nv + 1):
                    direct = sum(
                        math.comb(mv, j)
                        * pv**j
                        * qq ** (mv - j)
                        * math.comb(nv - mv, sv - j)
                        * qq ** (sv - j)
                        * pv ** (nv - mv - sv + j)
                        for j in range(max(0, sv - (nv - mv)), min(mv, sv) + 1)
                    )
                    checked += 1
                    if brute.prob((nv - sv, sv)) != direct:
                        return Verdict(
                            Status.REFUTED,
                            "exact",
                            {
                                "finding": "the count of ones is not Bin(m,p) + Bin(n-m,q)",
                                "counterexample": {"n": nv, "m": mv, "s": sv, "q": str(qq)},
                            },
                        )
    return Verdict(
        Status.PROVED,
        "generating function: a product of q + p z per original 1 and p + q z per original 0, "
        "i.e. that of Bin(m, p) + Bin(n - m, q); eq (2.1) enumerated against the binomial "
        "convolution as a second route",
        {
            "finding": "holds" + ("" if ok_gf else " (generating function check FAILED)"),
            "exact check": f"{checked} values P[A_n(m) = s], n = 1..10, every m, s, at n + 1 values "
            "of q (polynomials of degree n in q: equal for every q)",
        },
        domain="every n >= 1, 0 <= m <= n, 0 < q < 1/2",
    )


@claim(
    "zz2016.sec4.ratio_cases",
    source="§4",
    statement=r"\pi((s,n-s); x, x') = \pi_n(s;m-1)\ (x_1 = 1),\ \pi_n(s;m)^{-1}\ (x_1 = 0)",
)
def ratio_cases() -> Verdict:
    checked = 0
    for qq in QS[:2]:
        for nv in range(1, 9):
            rows = [ek.pmf(nv, mv, qq) for mv in range(nv + 1)]

            def pi_n(sv: int, mv: int, rows: list[list[Fraction]] = rows) -> Fraction:
                return rows[mv][sv] / rows[mv + 1][sv]

            for mv in range(nv + 1):
                for x1 in (0, 1):
                    if (x1 == 1 and mv == 0) or (x1 == 0 and mv == nv):
                        continue
                    x = [x1] + [1] * (mv - x1) + [0] * (nv - mv - (1 - x1))
                    xp = [1 - x1] + x[1:]
                    tx, txp = ek.types_of(x, 1), ek.types_of(xp, 1)
                    for sv in range(nv + 1):
                        ratio = ek.privacy_ratio((nv - sv, sv), txp, tx, 1, qq)
                        printed = pi_n(sv, mv - 1) if x1 == 1 else 1 / pi_n(sv, mv)
                        checked += 1
                        if ratio != printed:
                            return Verdict(
                                Status.REFUTED,
                                "exact",
                                {
                                    "finding": "the printed case differs from the privacy ratio",
                                    "counterexample": {
                                        "n": nv,
                                        "m": mv,
                                        "x1": x1,
                                        "s": sv,
                                        "q": str(qq),
                                        "π": str(ratio),
                                        "printed": str(printed),
                                    },
                                },
                            )
    return Verdict(
        Status.PROVED,
        "the law depends on x only through m (sum_of_binomials); x' has m - 1 ones if x_1 = 1, "
        "m + 1 if x_1 = 0; exact privacy ratios of the general-L engine as a second route",
        {
            "finding": "holds (π = P[A(x')=s]/P[A(x)=s] as defined in §3)",
            "exact check": f"{checked} cases, n = 1..8, every m, x_1, s, q in {{1/4, 1/3}}",
        },
        domain="every n >= 1, 0 <= m <= n, 0 < q < 1/2",
    )


@claim(
    "zz2016.sec4.1.shift_bullets",
    source="§4.1 bullets",
    statement=r"P_{n,m}(0) \le P_{n-1,m}(0);\ P_{n,m}(s)\text{ between }P_{n-1,m}(s-1), "
    r"P_{n-1,m}(s);\ P_{n,m}(s), P_{n,m+1}(s)\text{ between consecutive pmf values of } A_{n-1}(m)",
)
def shift_bullets() -> Verdict:
    P, n, m, s, p, q = sk.P, sk.n, sk.m, sk.s, sk.p, sk.q
    lower = sk.prove(P(n, m, s), q * P(n - 1, m, s - 1) + p * P(n - 1, m, s))
    upper = sk.prove(P(n, m + 1, s), p * P(n - 1, m, s - 1) + q * P(n - 1, m, s))
    zero = sk.prove(P(n, m, 0), p * P(n - 1, m, 0))
    ok = lower.holds and upper.holds and zero.holds
    # independent route: the bullets on exact laws
    checked = 0
    for qq in QS:
        for nv in range(2, 31):
            prev, den_prev = ek.pmf_rows(nv - 1, qq)
            rows, den = ek.pmf_rows(nv, qq)
            b = qq.denominator  # den = den_prev * b
            for mv in range(nv):
                c = [x * b for x in prev[mv]] + [0]  # A_{n-1}(m) over den, s = 0..n
                checked += 1
                if not rows[mv][0] <= c[0]:
                    ok = False
                for sv in range(1, nv + 1):
                    lo_, hi_ = sorted((c[sv - 1], c[sv]))
                    for val in (rows[mv][sv], rows[mv + 1][sv]):
                        checked += 1
                        if not lo_ <= val <= hi_:
                            ok = False
    ev = {
        "P_{n,m}(0) = p P_{n-1,m}(0)": zero.text() if zero.holds else "FAILED",
        "P_{n,m}(s) = q P_{n-1,m}(s-1) + p P_{n-1,m}(s)": lower.text(),
        "P_{n,m+1}(s) = p P_{n-1,m}(s-1) + q P_{n-1,m}(s)": upper.text(),
        "exact check": f"{checked} inequalities, n = 2..30, every m <= n-1 and s, q in "
        "{1/4, 1/3, 1/10}",
    }
    if not ok:
        ev["finding"] = "a bullet fails"
        ev["witness"] = "see exact check"
        return Verdict(Status.REFUTED, "exact", ev)
    ev["finding"] = (
        "holds: P_{n,m}(0) = p P_{n-1,m}(0) <= P_{n-1,m}(0), and P_{n,m}(s), P_{n,m+1}(s) are "
        "convex combinations (weights p, q) of P_{n-1,m}(s-1) and P_{n-1,m}(s) by (4.2), (4.1)"
    )
    return Verdict(
        Status.PROVED,
        "(4.1), (4.2) proved by generating functions; convex "
        "combinations; exact laws as a second route",
        ev,
        domain="every n >= 1, 0 <= m <= n - 1, 0 < q < 1/2",
    )
