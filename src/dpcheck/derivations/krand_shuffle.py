"""Derivation: a certified upper bound on epsilon(delta) of multi-bit shuffled K-randomization.

Zhilyaev and Zeber (2016) release only the histogram of the n users' randomized L-bit
vectors (§2.2): the shuffle model.  This derivation is the argument behind
:mod:`dpcheck.enumeration.krand_bounds`; every step is checked when it is built:

* identities of laws by SymPy (symbolic in q, with p = 1 - q) for every L <= 4 and h;
* the combinatorial facts (cells, largest distances, symmetry) by enumerating the
  vectors for every L <= 4;
* the two general inequalities the argument rests on (data processing, and conditioning
  on a world-independent variable) are theorems; what the program checks is that the
  *specific* post-processing and conditioning used here reproduce the laws exactly, and
  that the resulting bound is at least the exact delta, in exact rationals, on every
  background of every small instance (n <= 3, L <= 2, q in {1/4, 1/3});
* the float evaluators against exact rationals (their certified enclosures contain the
  exact value).
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from fractions import Fraction

import sympy as sp

from dpcheck.derivations.document import Step
from dpcheck.derivations.mechanisms import Checked
from dpcheck.enumeration import krand

QS = (Fraction(1, 4), Fraction(1, 3))
#: e^eps values (rationals) at which the exact deltas are compared
RATIOS = (Fraction(1), Fraction(3, 2), Fraction(5, 2))
MAX_L = 4


# --------------------------------------------------------------------------- exact helpers
def _cell(y: int, L: int, h: int) -> tuple[int, int]:
    """(|y_B|, |y_N|) with B = the first h bits (bit i of the integer is bit i)."""
    B = (1 << h) - 1
    return ((y & B).bit_count(), (y >> h).bit_count())


def _report(x: int, y: int, L: int, q: Fraction) -> Fraction:
    d = (x ^ y).bit_count()
    return (1 - q) ** (L - d) * q**d


def _hockey(P: dict, Q: dict, r: Fraction) -> Fraction:
    keys = set(P) | set(Q)
    return sum((max(Fraction(0), P.get(s, 0) - r * Q.get(s, 0)) for s in keys), Fraction(0))


def _delta_pair(P: dict, Q: dict, r: Fraction) -> Fraction:
    return max(_hockey(P, Q, r), _hockey(Q, P, r))


def _law(types: tuple[int, ...], L: int, q: Fraction) -> dict:
    law = krand.histogram_law(types, L, q)
    return {s: Fraction(v, law.den) for s, v in law.num.items()}


def _canonical(a: int, b: int, bg: tuple[int, ...], L: int) -> tuple[int, tuple[int, ...], int]:
    """XOR with a and a permutation putting b's ones first: (b', background', h)."""
    d = a ^ b
    ones = [i for i in range(L) if d >> i & 1]
    perm = ones + [i for i in range(L) if not d >> i & 1]  # new position j <- old perm[j]

    def move(v: int) -> int:
        v ^= a
        return sum(((v >> perm[j]) & 1) << j for j in range(L))

    return move(b), tuple(sorted(move(v) for v in bg)), len(ones)


# --------------------------------------------------------------------------- checks
def _pair_laws(a: int, b: int, bg: tuple[int, ...], L: int, q: Fraction) -> tuple[dict, dict]:  # type: ignore[type-arg]
    """The exact laws of the released histogram when the changed user holds a, then b, and
    the other users hold the vectors ``bg``."""
    laws = []
    for v in (a, b):
        t = Counter(bg)
        t[v] += 1
        laws.append(_law(tuple(t[x] for x in range(2**L)), L, q))
    return laws[0], laws[1]


def check_symmetry(L: int, n: int, q: Fraction) -> int:
    """Every neighbouring pair has the same deltas as its canonical pair (exact)."""
    count = 0
    k = 2**L
    for bg in itertools.combinations_with_replacement(range(k), n - 1):
        for a in range(k):
            for b in range(k):
                if a == b:
                    continue
                P, Q = _pair_laws(a, b, bg, L, q)
                b2, bg2, h = _canonical(a, b, bg, L)
                assert b2 == (1 << h) - 1
                P2, Q2 = _pair_laws(0, b2, bg2, L, q)
                for r in RATIOS:
                    if _delta_pair(P, Q, r) != _delta_pair(P2, Q2, r):
                        raise AssertionError(f"symmetry fails at a={a}, b={b}, bg={bg}")
                count += 1
    return count


def check_mirror(L: int, n: int, q: Fraction) -> int:
    """The canonical pair (0 -> b = 1^h 0^(L-h)) has the same deltas with a background and
    with that background XORed with b (class (u, v) -> (h - u, v)): exact, every h and
    background."""
    count = 0
    k = 2**L
    for h in range(1, L + 1):
        b = (1 << h) - 1
        for bg in itertools.combinations_with_replacement(range(k), n - 1):
            laws = [_pair_laws(0, b, back, L, q) for back in (bg, tuple(v ^ b for v in bg))]
            for r in RATIOS:
                if _delta_pair(*laws[0], r) != _delta_pair(*laws[1], r):
                    raise AssertionError(f"the mirror fails at h={h}, bg={bg}")
            count += 1
    return count


def check_cells(L: int) -> int:
    """The changed user's laws are constant on cells and sum to the product binomials;
    the largest distance formula; the extreme classes have lambda = 1 (SymPy)."""
    q = sp.Symbol("q", positive=True)
    p = 1 - q
    checks = 0
    for h in range(1, L + 1):
        Lp = L - h
        b = (1 << h) - 1

        def R(x: int, y: int) -> sp.Expr:
            d = (x ^ y).bit_count()
            return p ** (L - d) * q**d

        cells: dict[tuple[int, int], list[int]] = {}
        for y in range(2**L):
            cells.setdefault(_cell(y, L, h), []).append(y)
        for (k, m), ys in cells.items():
            for x in (0, b):
                vals = {sp.expand(R(x, y)) for y in ys}
                assert len(vals) == 1, "law not constant on a cell"
            alpha = sum(R(0, y) for y in ys)
            beta = sum(R(b, y) for y in ys)
            a_want = (
                sp.binomial(h, k) * q**k * p ** (h - k) * sp.binomial(Lp, m) * q**m * p ** (Lp - m)
            )
            b_want = (
                sp.binomial(h, k) * p**k * q ** (h - k) * sp.binomial(Lp, m) * q**m * p ** (Lp - m)
            )
            assert sp.expand(alpha - a_want) == 0 and sp.expand(beta - b_want) == 0
            checks += 2
        for x in range(2**L):
            u, v = _cell(x, L, h)
            for (k, m), ys in cells.items():
                dmax = max((x ^ y).bit_count() for y in ys)
                want = min(u + k, 2 * h - u - k) + min(v + m, 2 * Lp - v - m)
                assert dmax == want, "largest distance formula"
                checks += 1
            if u in (0, h) and v in (0, Lp):
                lam = sum(
                    len(ys)
                    * p ** (L - max((x ^ y).bit_count() for y in ys))
                    * q ** max((x ^ y).bit_count() for y in ys)
                    for ys in cells.values()
                )
                assert sp.expand(lam - 1) == 0, "extreme class lambda"
                checks += 1
    return checks


def _n_experiment_bound(bg: tuple[int, ...], L: int, h: int, q: Fraction, r: Fraction) -> Fraction:
    """The clone lemma's bound E_S delta_N at e^eps = r, exact: every background user a
    sphere clone (orbit cells) with probability lambda, its cell by gamma/lambda."""
    b = (1 << h) - 1
    cells = sorted({_cell(y, L, h) for y in range(2**L)})
    index = {c: i for i, c in enumerate(cells)}

    def cell_law(x: int) -> list[Fraction]:
        out = [Fraction(0)] * len(cells)
        for y in range(2**L):
            out[index[_cell(y, L, h)]] += _report(x, y, L, q)
        return out

    def gamma(x: int) -> list[Fraction]:
        out = [Fraction(0)] * len(cells)
        for c in cells:
            ys = [y for y in range(2**L) if _cell(y, L, h) == c]
            out[index[c]] = len(ys) * min(_report(x, y, L, q) for y in ys)
        return out

    alpha, beta = cell_law(0), cell_law(b)
    users = [gamma(x) for x in bg]
    total = Fraction(0)
    for S in itertools.product((0, 1), repeat=len(users)):  # 1 = clone
        prob = Fraction(1)
        laws: dict[tuple[int, ...], Fraction] = {(0,) * len(cells): Fraction(1)}
        for s, g in zip(S, users, strict=False):
            lam = sum(g)
            prob *= lam if s else 1 - lam
            if s and lam:
                new: dict[tuple[int, ...], Fraction] = {}
                for hist, w in laws.items():
                    for i, gi in enumerate(g):
                        if gi:
                            t = list(hist)
                            t[i] += 1
                            new[tuple(t)] = new.get(tuple(t), 0) + w * gi / lam
                laws = new
        if prob == 0:
            continue

        def with_user(law: list[Fraction], laws: dict = laws) -> dict:  # type: ignore[type-arg]
            out: dict[tuple[int, ...], Fraction] = {}
            for hist, w in laws.items():
                for i, a in enumerate(law):
                    t = list(hist)
                    t[i] += 1
                    out[tuple(t)] = out.get(tuple(t), 0) + w * a
            return out

        total += prob * _delta_pair(with_user(alpha), with_user(beta), r)
    return total


def check_lemma(L: int, n: int, q: Fraction) -> tuple[int, int]:
    """On every background of the canonical pairs: exact delta <= the lemma's bound, with
    equality for the pure backgrounds on extreme vectors (the cell histogram is sufficient)."""
    k = 2**L
    checks = equal = 0
    for h in range(1, L + 1):
        b = (1 << h) - 1
        for bg in itertools.combinations_with_replacement(range(k), n - 1):
            P, Q = _pair_laws(0, b, bg, L, q)
            extreme = len(set(bg)) == 1 and all(
                _cell(x, L, h)[0] in (0, h) and _cell(x, L, h)[1] in (0, L - h) for x in bg
            )
            for r in RATIOS:
                exact = _delta_pair(P, Q, r)
                bound = _n_experiment_bound(bg, L, h, q, r)
                if exact > bound:
                    raise AssertionError(f"lemma fails: bg={bg}, h={h}, r={r}: {exact} > {bound}")
                if extreme:
                    assert exact == bound, "pure extreme background not exact"
                    equal += 1
                checks += 1
    return checks, equal


def check_experiment_identity() -> int:
    """Mult(M; phi)(N - e_c) pi_c = Mult(M + 1; phi)(N) pi_c N_c / ((M + 1) phi_c) (SymPy)."""
    M = sp.Symbol("M", integer=True, positive=True)
    Ns = sp.symbols("N0:3", integer=True, positive=True)
    ph = sp.symbols("f0:3", positive=True)
    checks = 0
    for c in range(3):
        lhs = (
            sp.factorial(M)
            / (sp.factorial(Ns[c] - 1) * sp.Mul(*[sp.factorial(Ns[j]) for j in range(3) if j != c]))
            * ph[c] ** (Ns[c] - 1)
            * sp.Mul(*[ph[j] ** Ns[j] for j in range(3) if j != c])
        )
        mult = (
            sp.factorial(M + 1)
            / sp.Mul(*[sp.factorial(x) for x in Ns])
            * sp.Mul(*[ph[j] ** Ns[j] for j in range(3)])
        )
        rhs = mult * Ns[c] / ((M + 1) * ph[c])
        ratio = sp.simplify(sp.combsimp(lhs / rhs))
        assert ratio == 1
        checks += 1
    return checks


def check_monotone(q: Fraction) -> int:
    """delta_N is nonincreasing in the clone count (exact, small instances)."""
    checks = 0
    L, h = 2, 2
    for M in range(0, 4):
        lo = _n_experiment_bound((0,) * (M + 1), L, h, q, Fraction(3, 2))
        hi = _n_experiment_bound((0,) * M, L, h, q, Fraction(3, 2))
        assert lo <= hi
        checks += 1
    return checks


def _binomial_sum_pmf(groups: list[tuple[int, Fraction]]) -> list[Fraction]:
    """pmf of sum_i Bin(m_i, theta_i), exact."""
    pmf = [Fraction(1)]
    for m, t in groups:
        for _ in range(m):
            new = [Fraction(0)] * (len(pmf) + 1)
            for k, w in enumerate(pmf):
                new[k] += w * (1 - t)
                new[k + 1] += w * t
            pmf = new
    return pmf


def check_least_fill() -> int:
    """The users beyond a box's lower corner placed where the clone probability is least,
    up to each class's room (krand_cover.least_fill), give a clone count stochastically
    smaller than every other placement in the box (exact cdfs, every placement)."""
    from dpcheck.enumeration.krand_cover import least_fill  # noqa: PLC0415

    checks = 0
    thetas = (Fraction(1, 5), Fraction(2, 3), Fraction(1, 2), Fraction(1, 7))
    for room in itertools.product(range(3), repeat=3):
        for k in range(len(thetas) - 2):
            th = thetas[k : k + 3]
            for free in range(sum(room) + 1):
                zeros = [0, 0, 0]
                greedy = least_fill([float(t) for t in th], zeros, list(room), free)
                pmf_g = _binomial_sum_pmf(list(zip(greedy, th, strict=True)))
                cdf_g = list(itertools.accumulate(pmf_g))
                for e in itertools.product(*(range(r + 1) for r in room)):
                    if sum(e) != free:
                        continue
                    pmf = _binomial_sum_pmf(list(zip(e, th, strict=True)))
                    cdf = list(itertools.accumulate(pmf))
                    assert all(a >= b for a, b in zip(cdf_g, cdf, strict=True))
                    checks += 1
    return checks


def check_chain_blocks() -> int:
    """For independent clone counts M_i ~ Bin(m_i, theta_i), f nonincreasing in each,
    0 <= f <= 1, and corners a_0 <= a_1 <= ... (componentwise), A_j = {M >= a_j}:
    E f(M) <= sum_i P(M_i < a_0i) + sum_j (P(A_j) - P(A_(j+1))) f(a_j), P(A_j) the product
    of the counts' upper tails (exact, two and three counts, several chains and f)."""
    checks = 0
    fs = (
        lambda M: Fraction(1, 1 + M[0] + 2 * sum(M[1:])),
        lambda M: Fraction(1, 2 ** sum(M)),
        lambda M: Fraction(1) if sum(M) < 4 else Fraction(0),
    )
    cases = (
        (
            ((4, Fraction(1, 3)), (3, Fraction(3, 4))),
            (((0, 0), (1, 2), (2, 2)), ((1, 1),), ((0, 1), (2, 1), (3, 3)), ((2, 0), (2, 3))),
        ),
        (
            ((3, Fraction(1, 2)), (2, Fraction(1, 4)), (3, Fraction(2, 3))),
            (((0, 0, 1), (1, 1, 2), (3, 1, 3)), ((1, 0, 0), (1, 2, 2))),
        ),
    )
    for groups, chains in cases:
        pm = [_binomial_sum_pmf([g]) for g in groups]

        def tail(i: int, a: int, pm: list = pm) -> Fraction:  # type: ignore[type-arg]
            return sum(pm[i][a:], Fraction(0))

        for f in fs:
            exact = sum(
                (math.prod(p[x] for p, x in zip(pm, M, strict=True)) * f(M)
                 for M in itertools.product(*(range(len(p)) for p in pm))),
                Fraction(0),
            )
            for chain in chains:
                prob = [math.prod(tail(i, a) for i, a in enumerate(c)) for c in chain] + [0]
                below = sum((1 - tail(i, a) for i, a in enumerate(chain[0])), Fraction(0))
                bound = below + sum(
                    ((prob[j] - prob[j + 1]) * f(c) for j, c in enumerate(chain)), Fraction(0)
                )
                assert exact <= bound
                checks += 1
    return checks


# --------------------------------------------------------------------------- document
def derivation() -> Checked:
    sym = sum(check_symmetry(L, 3, q) for L in (1, 2) for q in QS)
    cells = sum(check_cells(L) for L in range(1, MAX_L + 1))
    mirrored = sum(check_mirror(L, n, q) for L, n in ((1, 4), (2, 4), (3, 3)) for q in QS)
    lemma = [check_lemma(L, n, q) for L, n in ((1, 2), (1, 3), (2, 2), (2, 3), (3, 2)) for q in QS]
    lemma_checks, lemma_equal = sum(a for a, _ in lemma), sum(b for _, b in lemma)
    ident = check_experiment_identity()
    mono = sum(check_monotone(q) for q in QS)
    fill = check_least_fill()
    chain_blocks = check_chain_blocks()
    steps = (
        Step(
            "Symmetry (\\S 2.2).  XOR of every vector and report with the changed user's vector"
            " $a$, and a permutation of the bit positions, are bijections on histograms that"
            " carry a neighbouring pair $(a \\to b)$ to $a = 0$, $b = 1^h 0^{L-h}$ with"
            " $h = |a \\oplus b|$; the two orders of a pair are the two hockey-stick"
            " directions.  Checked: the exact deltas of every pair and of its canonical pair"
            f" agree ({sym} pairs, $L \\le 2$, $n = 3$, $q \\in \\{{1/4, 1/3\\}}$, three values"
            " of $e^\\varepsilon$).",
        ),
        Step(
            "Cells.  With $B$ the first $h$ positions and $N$ the other $L' = L - h$, a report"
            " $y$ falls in cell $(k, l) = (|y_B|, |y_N|)$.  The changed user's laws are"
            " constant on cells, with masses",
            (
                "\\[ \\alpha(k,l) = \\binom{h}{k} q^k p^{h-k} \\binom{L'}{l} q^l p^{L'-l}, \\qquad"
                " \\beta(k,l) = \\binom{h}{k} p^k q^{h-k} \\binom{L'}{l} q^l p^{L'-l}. \\]",
            ),
        ),
        Step(
            "Sub-measures.  A background user holding $x$, of class $(u, v) = (|x_B|, |x_N|)$,"
            " reports each $y$ of cell $(k, l)$ with probability at least $p^{L-d} q^d$,"
            " $d = \\max_{y \\in (k,l)} d(x, y) = \\min(u+k, 2h-u-k) + \\min(v+l, 2L'-v-l)$"
            " ($p^{L-d}q^d$ falls in $d$ as $q < p$), so its law is at least"
            " $\\sum_{k,l} \\gamma_{u,v}(k,l)\\,\\mathrm{U}_{k,l}$ with $\\mathrm{U}_{k,l}$"
            " uniform on the cell and",
            (
                "\\[ \\gamma_{u,v}(k,l) = \\binom{h}{k}\\binom{L'}{l}\\, p^{L-d} q^{d}, \\qquad"
                " \\lambda_{u,v} = \\sum_{k,l} \\gamma_{u,v}(k,l) \\le 1, \\]",
                "with $\\lambda = 1$ for the extreme classes $u \\in \\{0, h\\}$,"
                " $v \\in \\{0, L'\\}$ (their laws are constant on cells).  Checked by SymPy and"
                f" enumeration for every $L \\le {MAX_L}$, every $h$, class and cell ({cells}"
                " checks).",
            ),
        ),
        Step(
            "The clone lemma.  Let each background user be, independently, a \\emph{clone}"
            " with probability $\\lambda$ (its report uniform on a cell drawn from"
            " $\\gamma/\\lambda$) and otherwise a left-over user.  The released histogram is"
            " a post-processing of the cell histogram $N$ of the changed user and the clones"
            " (draw each report uniformly in its cell, add the left-over reports), whatever"
            " the world; and the clone set is independent of the world.  By the data-processing"
            " inequality and the joint convexity of the hockey-stick divergence (conditioning"
            " on the clone set), for every $\\varepsilon$",
            (
                "\\[ \\delta_{x,x'}(\\varepsilon) \\le \\mathbb{E}_{S}\\,"
                " \\delta_{N}(\\varepsilon \\mid S). \\]",
                "Checked in exact rationals on every background of every canonical pair with"
                f" $L \\le 2$, $n \\le 3$ and $L = 3$, $n = 2$, $q \\in \\{{1/4, 1/3\\}}$"
                f" ({lemma_checks} cases): the"
                " exact delta never exceeds the bound, and equals it for the pure backgrounds"
                f" on extreme vectors ({lemma_equal} cases), which is why those give the lower"
                " bound.",
            ),
        ),
        Step(
            "The N-experiment.  With $M$ clones of one law $\\varphi$, $N \\sim"
            " \\mathrm{Mult}(M+1, \\varphi)$ and",
            (
                "\\[ \\delta_N(\\varepsilon) = \\frac{1}{M+1}\\,\\mathbb{E}\\Big[\\Big(\\sum_c"
                " \\frac{\\beta_c - e^{\\varepsilon}\\alpha_c}{\\varphi_c} N_c\\Big)_+\\Big] \\]",
                "(and the swap), from $\\mathrm{Mult}(M;\\varphi)(N - e_c)\\,\\pi_c ="
                " \\mathrm{Mult}(M+1;\\varphi)(N)\\,\\pi_c N_c/((M+1)\\varphi_c)$: checked by"
                f" SymPy ({ident} identities).  A class is a $\\varphi$-clone with probability"
                " $\\theta = \\min_c \\gamma(c)/\\varphi(c)$ (the lemma again).",
            ),
        ),
        Step(
            "Monotonicity and blocks.  Adding a clone is a post-processing (an independent"
            " draw added to $N$), so $\\delta_N$ is nonincreasing in every clone count; the"
            " clone count $M$ is a sum of independent Bernoullis, so for cut points"
            " $m_0 < m_1 < \\dots$,",
            (
                "\\[ \\mathbb{E}\\,\\delta_N(M) \\le P(M < m_0) + \\sum_j P(m_j \\le M <"
                " m_{j+1})\\, \\delta_N(m_j). \\]",
                f"Checked: nonincreasing in $M$ in exact rationals ({mono} cases).  With"
                " several laws the clone counts $M_i \\sim \\mathrm{Bin}(m_i, \\theta_i)$ are"
                " independent: for corners $a_0 \\le a_1 \\le \\dots$ (componentwise) the"
                " events $A_j = \\{M \\ge a_j\\}$ are nested, $P(A_j) = \\prod_i"
                " P(M_i \\ge a_{j,i})$, and $\\mathbb{E}\\,\\delta_N(M) \\le \\sum_i"
                " P(M_i < a_{0,i}) + \\sum_{j} (P(A_j) - P(A_{j+1}))\\, \\delta_N(a_j)$, one"
                " evaluation per corner (checked in exact rationals,"
                f" {chain_blocks} cases).  In a box $lo \\le m \\le hi$ the users beyond the"
                " lower corner may sit in any class with room; placed greedily where the"
                " clone probability is least, up to each class's room, their clone count is"
                " stochastically smallest (the $k$-th least probability of any placement is at"
                " least the greedy one's; coupled Bernoullis), so a bound nonincreasing in the"
                " count at that placement holds for the box (checked: exact cdfs of every"
                f" placement, {fill} cases).",
            ),
        ),
        Step(
            "The certificate.  For each $h$ the compositions of the $n-1$ other users over the"
            " classes are covered by boxes; each box is settled at $\\varepsilon^*$ by one tool"
            " (one clone law; two laws, the extreme class with the most users keeping its own;"
            " on at most four cells the extreme classes' own laws with one merged law for the"
            " others, or every class its own law, each middle class's count independent;"
            " the N-clone cells"
            " $S_B(k) \\otimes R_N(0)$, a class $(u, v)$ user a clone with probability"
            " $r^v \\lambda_h(u)$, $r = q/p$), using the lower corner of the box (the users"
            " beyond it revealed) or the greedy placement of Step 6.  The evaluators are floats"
            " with certified error bounds (binomial tables from an arb value at the mode and"
            " ratio products; sums of nonnegative terms; Higham's FFT bound, times 10), and"
            " the float laws they use for the extreme classes are those classes' exact laws"
            " only up to rounding: their users are clones with probability"
            " $\\theta \\approx 1 - 10^{-15}$, and $\\sum m_c (1 - \\theta_c)$ is added"
            " (for the lower bound, the total variation $\\sum m_c \\lVert \\varphi_c -"
            " \\gamma_c \\rVert_1$ times $1 + e^\\varepsilon$ is subtracted); by"
            " Step 6 a bound computed at fewer clones of the same laws is also a bound at more,"
            " so bounds are reused across boxes; a box"
            " is settled only if the bound is at most $\\delta$, or if every composition in it"
            " has more users in class $(h, 0)$ than in $(0, 0)$: XOR with $b$ carries the"
            " background to one with fewer, which another box holds, and the pair"
            " $(0 \\to b)$ to $(b \\to 0)$, the other order, whose delta the bound also"
            " covers (Step 1; checked: the exact deltas of every background and of its mirror"
            f" agree, {mirrored} backgrounds, $L \\le 3$).  Then"
            " $\\delta_{x,x'}(\\varepsilon^*) \\le \\delta$ for every neighbouring pair, and"
            " $\\varepsilon(\\delta) \\le \\varepsilon^*$.",
        ),
    )
    checks = (
        f"Symmetry: {sym} neighbouring pairs against their canonical pairs (exact);"
        f" mirror: {mirrored} backgrounds against their mirrors (exact).",
        f"Cells, largest distances, extreme classes: {cells} checks (SymPy, enumeration).",
        f"Clone lemma: {lemma_checks} exact cases, {lemma_equal} with equality.",
        f"N-experiment identity: {ident} (SymPy); monotonicity: {mono} (exact).",
        f"Chains of corners: {chain_blocks} (exact); greedy placement: {fill} placements (exact).",
    )
    return Checked(
        name="krand-shuffle-bound",
        title="K-randomization, L >= 2: a certified bound on epsilon(delta) of the shuffled"
        " histogram",
        source="Zhilyaev and Zeber (2016), \\S 2.2, \\S 3, \\S 3.1;"
        " dpcheck.enumeration.krand\\_bounds",
        summary=(
            "The released histogram is the shuffle model.  An upper bound on"
            " $\\varepsilon(\\delta)$ over every neighbouring pair follows from a clone"
            " decomposition of the other users' laws on cells of reports, and a branch and"
            " bound over their compositions; the lower bound is attained by an explicit pair."
        ),
        steps=steps,
        printed=(),
        checks=checks,
        reproduce=(
            "dpcheck derive krand-shuffle-bound",
            "dpcheck krand profile --n 1000 --L 2 --eps0 1",
        ),
    )
