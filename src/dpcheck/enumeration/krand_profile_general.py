"""Privacy profiles of K-randomization for L >= 1 bits (Zhilyaev and Zeber 2016, §2.2, §3, §3.1).

Neighbours (§1, "differ in one row"; §3, eq (3.1)): x = a background of n - 1 users
(their type counts) plus one user holding vector a; x' = the same background plus
that user holding b != a.  Two symmetries cut the work:

* XOR with a relabels vectors and reports (w -> w ^ a), a bijection on histograms
  that carries the laws of A(x), A(x') to those of the pair (background ^ a, 0, a ^ b):
  a = 0 loses nothing (as in :func:`dpcheck.enumeration.krand.max_ratio`).
* A permutation of the L bit positions fixes 0 and carries (background, 0, b) to
  (permuted background, 0, permuted b), again relabelling the reports.  So only the
  S_L-orbit of the background matters, and for a given background only the orbit of
  b under the background's stabiliser (for the all-equal backgrounds, only |b|).

Every quantity below (hockey-stick divergence, the privacy-loss distribution) is
invariant under these relabellings, so examining one pair per orbit is exhaustive.

For an ordered pair with laws P = A(x), Q = A(x') (§2.2, eq (2.1)):

* approximate (eps, delta): delta(eps) = sum_s max(0, P(s) - e^eps Q(s)) (hockey
  stick), epsilon(delta) its inverse; both orders of every pair count;
* probabilistic (eps, delta) of §3.1 (the draft leaves the definition unfinished; read
  as in :mod:`dpcheck.enumeration.krand_profile`): the smallest eps with
  P_{s~A(x)}[pi(s; x', x)^-1 = P(s)/Q(s) > e^eps] <= delta, i.e. the (1 - delta)
  quantile of the privacy loss log P/Q under P;
* both are computed from the loss sorted once per pair (:class:`LossCurve`): on
  each interval between consecutive loss values delta(eps) = cP - e^eps cQ (cumulative
  masses of the cells above eps), so eps(delta) is solved in closed form there.

Always eps_approx(delta) <= eps_prob(delta) <= L log(p/q) (pure epsilon): for each pair
delta(eps) = E_P[(1 - e^(eps - loss))_+] <= P_P[loss > eps], and loss <= L log(p/q).

Two searches:

* exhaustive (n <= :data:`EXHAUSTIVE_N`[L]): every background orbit and every b,
  both orders, from the exact integer laws of :func:`krand.histogram_law` (eq (2.1)),
  turned into floats for the search;
* family (larger n): the family H of pairs with b = ā (the changed user flips every
  bit) and a background on a and on one more vector e, |e| = w: member (w, r) has
  n - 1 - r users on a and r on e (w = 1..L, r = 0..n - 1; w = L puts them on ā, and
  was the expected worst case; w = 1 puts them one bit away from a).  The exhaustive
  runs find the approximate-DP worst case in H at every n, L, q and delta tried
  (:data:`FAMILY_EVIDENCE`) but not always in H_L alone; above the exhaustive range H is
  an assumption, printed with the result.  The probabilistic epsilon's worst case is not
  always in H (:data:`PROBABILISTIC_CAVEAT`): there the family value is a lower bound.

Sufficient statistics (:func:`reduced_laws`): group the bit positions so that every
vector of the pair (background, a, b) is constant on each group; then a report's
likelihood P[R(v) = w] = prod_groups p^(m - d) q^d depends on w only through its weights
on the groups, for every user.  Given the histogram t of those weight tuples the report
histogram is multinomial(t_c; uniform on the reports of class c) whatever x is, so t is
sufficient: P(s)/Q(s) = P_T(t(s))/Q_T(t(s)) and the profiles of (P, Q) and (P_T, Q_T) are
equal.  For H_w there are (w + 1)(L - w + 1) classes, so C(n + K - 1, K - 1) cells with
K <= (L/2 + 1)^2 instead of C(n + 2^L - 1, 2^L - 1); for w = L, t is the Hamming-weight
histogram.  At L = 1 H is the whole L = 1 problem (r = n - m of krand_profile).

The final approximate epsilon is confirmed at the worst pair: in exact rationals for
the exhaustive search (delta at a rational r <= e^eps), in FLINT arb ball arithmetic
at 40 digits for the family (a certified upper bound on delta(eps) on the class
histograms of the pair).

What the printed values are (the "kind" of :func:`dpcheck.enumeration.krand_profile.summary`):

* exhaustive search: "exact": every background orbit and every b, both orders (the two
  symmetries above lose nothing, and tests/test_krand.py checks the orbit search against
  every ordered neighbour pair by brute force); the worst pair is chosen in floats and
  bracketed at that pair in exact rationals;
* family search: "lower bound": the epsilon is attained by an explicit pair (the summary
  prints the lower end certified in arb, delta > delta there), while H holding the worst
  case is an assumption; the family's probabilistic epsilon is a lower bound too
  (:data:`PROBABILISTIC_CAVEAT`).
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction

import flint
import mpmath
import numpy as np

from dpcheck.enumeration import krand
from dpcheck.errors import InputError

#: Exhaustive search over every background orbit and b up to this n (by L): each stays
#: under ~11 s (bench/bench_krand.py); at L = 1, H is everything (see krand_profile).
EXHAUSTIVE_N = {1: 40, 2: 14, 3: 6, 4: 3, 5: 2, 6: 2}
#: Work allowed per family law: cells x classes of the largest H_w law (memory ~ 16 bytes
#: per unit).  At ~0.3 s per million cells for a pair of laws and <= 33 members per w on
#: the grids, a CLI call stays under ~30 s: L = 2: n <= 206, L = 3: n <= 37.
MAX_FAMILY_WORK = 6_000_000
#: Family search: every member while n * (cells of one law) stays below this, else a grid
#: of GRID_POINTS over r for each w, with refinement.
FAMILY_ALL_CELLS = 15_000_000
GRID_POINTS = 33
CONFIRM_DPS = 40

#: What the exhaustive runs found (scripted in tests/test_krand.py, slow tests).
FAMILY_EVIDENCE = (
    "exhaustive search over every background and b (L = 2: n <= 14, L = 3: n <= 6,"
    " L = 4: n <= 3, L = 5, 6: n = 2; q = 0.49, 0.45, 1/3, 0.269 (eps0 = 1), 1/4, 1/10,"
    " 0.018 (eps0 = 4); 94 deltas in [1e-12, 0.3]) found the approximate-DP worst case in H"
    " at every point but one (q = 0.49, L = 3, n = 5, delta = 1.1e-6: background 3 x 100,"
    " 1 x 110, 1.5e-6 nats above H); H_L alone (background on a and ā) falls short by up"
    " to 0.09 nats"
)
PROBABILISTIC_CAVEAT = (
    "a lower bound on the worst case: the probabilistic epsilon, a quantile of a discrete"
    " loss, had worst neighbours outside H at some (n, delta) of the exhaustive runs"
    " (gaps up to 0.47 nats, at L = 6, n = 2, q = 1/3)"
)


# --------------------------------------------------------------------------- simplex index
@functools.lru_cache(maxsize=8)
def _binom_table(top: int, K: int) -> np.ndarray:
    """C(x, r) for x = 0..top, r = 0..K - 1 (int64, saturated at 2^62: the ranks in use
    stay far below it, and the columns stay nondecreasing for the unranking search)."""
    t = np.zeros((top + 1, K), dtype=np.int64)
    for x in range(top + 1):
        for r in range(min(x, K - 1) + 1):
            t[x, r] = min(math.comb(x, r), 2**62)
    return t


def simplex_size(N: int, K: int) -> int:
    """C(N + K - 1, K - 1): histograms of N items in K cells."""
    return math.comb(N + K - 1, K - 1)


@functools.lru_cache(maxsize=8)
def simplex(N: int, K: int) -> np.ndarray:
    """Every histogram of N items in K cells, row r = the one of colex rank r.

    The histogram s maps to the bar positions c_i = s_0 + .. + s_i + i (i < K - 1),
    a (K - 1)-subset of {0..N + K - 2}, ranked by sum_i C(c_i, i + 1).  The ranks of
    the histograms of N are a prefix of those of N + 1 (same subsets), so adding an
    item to the last cell keeps the rank.
    """
    size = simplex_size(N, K)
    if K == 1:
        return np.full((1, 1), N, dtype=np.int32)
    tab = _binom_table(N + K, K)
    r = np.arange(size, dtype=np.int64)
    bars = np.empty((size, K - 1), dtype=np.int64)
    for i in range(K - 2, -1, -1):
        col = tab[:, i + 1]
        c = np.searchsorted(col, r, side="right") - 1
        bars[:, i] = c
        r = r - col[c]
    out = np.empty((size, K), dtype=np.int32)
    out[:, 0] = bars[:, 0]
    out[:, 1 : K - 1] = np.diff(bars, axis=1) - 1
    out[:, K - 1] = N + K - 2 - bars[:, K - 2]
    return out


_SHIFT_CACHE: dict[tuple[int, int], np.ndarray] = {}
_SHIFT_BUDGET = 30_000_000  # cached rank entries (int32), about 120 MB


def _shift_ranks(N: int, K: int) -> np.ndarray:
    """R[c, r] = rank (in the histograms of N + 1) of histogram r of N plus one item in c."""
    key = (N, K)
    if key in _SHIFT_CACHE:
        return _SHIFT_CACHE[key]
    size = simplex_size(N, K)
    R = np.empty((K, size), dtype=np.int64)
    R[K - 1] = np.arange(size)
    if K > 1:
        tab = _binom_table(N + K + 1, K)
        bars = np.cumsum(simplex(N, K)[:, : K - 1], axis=1) + np.arange(K - 1)
        low = np.stack([tab[bars[:, i], i + 1] for i in range(K - 1)])  # rank terms as they are
        high = np.stack([tab[bars[:, i] + 1, i + 1] for i in range(K - 1)])  # bar moved up
        pre = np.vstack([np.zeros(size, dtype=np.int64), np.cumsum(low, axis=0)])
        suf = np.vstack([np.cumsum(high[::-1], axis=0)[::-1], np.zeros(size, dtype=np.int64)])
        for c in range(K - 1):
            R[c] = pre[c] + suf[c]
    R32 = R.astype(np.int32)
    used = sum(a.size for a in _SHIFT_CACHE.values())
    if used + R32.size > _SHIFT_BUDGET:
        _SHIFT_CACHE.clear()
    _SHIFT_CACHE[key] = R32
    return R32


def add_user(law: np.ndarray, N: int, probs: Sequence) -> np.ndarray:  # type: ignore[type-arg]
    """Law of N + 1 users from the law of N and one more user with cell probabilities.

    ``law`` is indexed by :func:`simplex` rank; floats or an object array (arb balls).
    eq (3.1): P[A = s] = sum_w P[R(v) = w] P[A(background) = s - i_w].
    """
    K = len(probs)
    R = _shift_ranks(N, K)
    size = simplex_size(N + 1, K)
    if law.dtype == object:
        out = np.empty(size, dtype=object)
        out[:] = flint.arb(0)
    else:
        out = np.zeros(size)
    for c in range(K):
        out[R[c]] += probs[c] * law
    return out


def multinomial_law(N: int, probs: Sequence[float]) -> np.ndarray:
    """P[counts = s] for N users with cell probabilities ``probs``, floats, by simplex rank."""
    K = len(probs)
    S = simplex(N, K)
    lg = np.array([math.lgamma(t + 1) for t in range(N + 1)])
    logp = lg[N] - lg[S].sum(axis=1) + S @ np.log(np.asarray(probs, dtype=float))
    return np.exp(logp)


def multinomial_law_arb(N: int, probs: Sequence) -> np.ndarray:  # type: ignore[type-arg]
    """As :func:`multinomial_law` in arb balls (``probs`` arb), object array."""
    K = len(probs)
    S = simplex(N, K)
    fact = [flint.arb(1)]
    for t in range(1, N + 1):
        fact.append(fact[-1] * t)
    out = np.empty(len(S), dtype=object)
    out[:] = fact[N]
    for c in range(K):
        g = [flint.arb(1)] * (N + 1)
        pw = flint.arb(1)
        for t in range(N + 1):
            g[t] = pw / fact[t]
            pw = pw * probs[c]
        out = out * np.array(g, dtype=object)[S[:, c]]
    return out


# --------------------------------------------------------------------------- loss curve
#: Cells where both laws are below this are dropped before sorting (at most ~1e-38 of mass
#: in all, against delta >= 1e-25).
TINY = 1e-45


@dataclass
class LossCurve:
    """The privacy-loss distribution of one ordered pair (P = A(x), Q = A(x')), sorted.

    loss[i] = log P/Q of the i-th cell, largest first (+inf where Q underflowed, -inf
    where P did); cP, cQ cumulative masses.
    """

    loss: np.ndarray
    P: np.ndarray
    Q: np.ndarray
    cP: np.ndarray
    cQ: np.ndarray

    @classmethod
    def of(cls, P: np.ndarray, Q: np.ndarray) -> LossCurve:
        return cls.both(P, Q)[0]

    @classmethod
    def both(cls, P: np.ndarray, Q: np.ndarray) -> tuple[LossCurve, LossCurve]:
        """The curves of (P, Q) and of (Q, P), from one sort (the second loss is -loss)."""
        keep = (P > TINY) | (Q > TINY)
        P, Q = P[keep], Q[keep]
        with np.errstate(divide="ignore", invalid="ignore"):
            loss = np.log(P) - np.log(Q)
        order = np.argsort(-loss, kind="stable")
        P, Q, loss = P[order], Q[order], loss[order]
        Pr, Qr, lr = Q[::-1], P[::-1], -loss[::-1]
        return (
            cls(loss, P, Q, np.cumsum(P), np.cumsum(Q)),
            cls(lr, Pr, Qr, np.cumsum(Pr), np.cumsum(Qr)),
        )

    def delta_at(self, eps: float) -> float:
        """sum max(0, P - e^eps Q), cell by cell (the hockey-stick divergence)."""
        return float(np.maximum(self.P - math.exp(eps) * self.Q, 0.0).sum())

    @functools.cached_property
    def _breakpoints(self) -> tuple[float, float, np.ndarray]:
        """(delta(0), mass of the Q = 0 cells, D) with D[c] = delta at eps = loss[c]."""
        loss, cP, cQ = self.loss, self.cP, self.cQ
        size = len(loss)
        top = np.isposinf(loss)
        inf_mass = float(self.P[top].sum())
        # cells 0..c-1 lie above loss[c] (ties contribute 0); at the +inf breakpoints
        # only the Q = 0 cells count
        D = np.empty(size + 1)
        D[0] = 0.0
        with np.errstate(over="ignore", invalid="ignore"):
            e = np.exp(np.where(top[1:], 0.0, loss[1:]))
            D[1:size] = np.where(top[1:], inf_mass, cP[:-1] - e * cQ[:-1])
        D[size] = math.inf
        return self.delta_at(0.0), inf_mass, np.maximum.accumulate(D)

    def eps_approx(self, delta: float) -> float:
        """Smallest eps >= 0 with delta(eps) <= delta.

        delta(eps) is nonincreasing; between consecutive loss values it is
        cP - e^eps cQ over the cells above, so it is solved there in closed form.
        """
        tv, inf_mass, D = self._breakpoints
        if tv <= delta:
            return 0.0
        if inf_mass > delta:
            return math.inf
        loss, cP, cQ = self.loss, self.cP, self.cQ
        size = len(loss)
        c = int(np.searchsorted(D, delta, side="right"))  # solution in [loss[c], loss[c-1]]
        i = c - 1  # cells 0..i lie above eps
        eps = math.log((cP[i] - delta) / cQ[i]) if cQ[i] > 0 and cP[i] > delta else math.inf
        hi = loss[c - 1] if c >= 1 else math.inf
        lo = loss[c] if c < size else -math.inf
        return float(max(0.0, min(max(eps, lo), hi)))

    def eps_prob(self, delta: float) -> float:
        """Smallest eps >= 0 with P[log P/Q > eps] <= delta under P (§3.1, as read here)."""
        j = int(np.searchsorted(self.cP, delta, side="right"))
        if j >= len(self.loss):
            return 0.0
        return max(0.0, float(self.loss[j]))


# --------------------------------------------------------------------------- pairs
def bits(v: int, L: int) -> str:
    """Vector v as its L bits, bit 0 first (the report/vector numbering of krand)."""
    return "".join(str(v >> i & 1) for i in range(L))


@dataclass(frozen=True)
class Pair:
    """x = background + changed user holding 0, x' = background + changed user holding b."""

    L: int
    background: tuple[int, ...]  # type counts of the n - 1 others, by vector
    b: int

    @property
    def n(self) -> int:
        return sum(self.background) + 1

    def reversed(self) -> Pair:
        """(x', x) as a pair with x's changed user at 0 (XOR with b, §3 symmetry)."""
        bg = [0] * len(self.background)
        for v, c in enumerate(self.background):
            bg[v ^ self.b] += c
        return Pair(self.L, tuple(bg), self.b)

    def in_family(self) -> bool:
        k = 2**self.L
        return self.b == k - 1 and all(
            c == 0 for v, c in enumerate(self.background) if v not in (0, k - 1)
        )

    def describe(self) -> str:
        held = ", ".join(f"{c} x {bits(v, self.L)}" for v, c in enumerate(self.background) if c)
        return (
            f"x: changed user holds {bits(0, self.L)}, x': holds {bits(self.b, self.L)};"
            f" background of {self.n - 1}: {held or 'none'}"
        )


def h_pair(n: int, L: int, w: int, r: int) -> Pair:
    """Member (w, r) of the family H: n - 1 - r background users on a = 0 and r on
    e = 1..10..0 (its w lowest bits set), changed user 0 -> ā (b = 1..1)."""
    k = 2**L
    bg = [0] * k
    bg[0] += n - 1 - r
    bg[(1 << w) - 1] += r
    return Pair(L, tuple(bg), k - 1)


def family_pair(n: int, L: int, j: int) -> Pair:
    """H_L (the family F): j background users on a = 0, n - 1 - j on ā."""
    return h_pair(n, L, L, n - 1 - j)


def g_pair(n: int, L: int, r: int) -> Pair:
    """H_1 (the family G): n - 1 - r background users on a = 0, r on e = 10..0."""
    return h_pair(n, L, 1, r)


def h_weight(pair: Pair) -> int | None:
    """w if the ordered pair is a member of H_w with r >= 1, L if its background is all on
    a, else None."""
    k = 2**pair.L
    held = {v for v, c in enumerate(pair.background) if c} - {0}
    if pair.b != k - 1 or len(held) > 1:
        return None
    if not held:
        return pair.L
    (e,) = held
    w = e.bit_count()
    return w if e == (1 << w) - 1 else None


def in_families(pair: Pair) -> bool:
    """Whether the ordered pair, or its reversal, lies in H up to a permutation of bits:
    b = ā and the background on a and at most one other vector."""

    def member(p: Pair) -> bool:
        k = 2**p.L
        return p.b == k - 1 and len({v for v, c in enumerate(p.background) if c} - {0}) <= 1

    return member(pair) or member(pair.reversed())


def _bit_perms(L: int) -> list[list[int]]:
    """Each permutation of the bit positions as a map on the 2^L vectors."""
    out = []
    for perm in itertools.permutations(range(L)):
        out.append([sum(((v >> i) & 1) << perm[i] for i in range(L)) for v in range(2**L)])
    return out


def background_orbits(n_bg: int, L: int) -> Iterator[tuple[tuple[int, ...], list[int]]]:
    """(background, b's) for one background per S_L orbit and one b per stabiliser orbit."""
    k = 2**L
    perms = _bit_perms(L)
    for bg in krand.compositions(n_bg, k):
        images = []
        for pm in perms:
            im = [0] * k
            for v, c in enumerate(bg):
                im[pm[v]] = c
            images.append(tuple(im))
        if max(images) != bg:
            continue
        stab = [pm for pm, im in zip(perms, images, strict=True) if im == bg]
        bs = [b for b in range(1, k) if all(pm[b] <= b for pm in stab)]
        yield bg, bs


# --------------------------------------------------------------------------- laws
def _q_exact(q: object) -> Fraction:
    return krand.as_q(q)


def _exact_background(background: Sequence[int], L: int, q: Fraction) -> dict:  # type: ignore[type-arg]
    k = 2**L
    if sum(background) == 0:
        return {(0,) * k: 1}
    return krand.histogram_law(tuple(background), L, q).num


def exact_pair_laws(
    pair: Pair, q: object
) -> tuple[list[tuple[int, ...]], list[int], list[int], int]:
    """Outcomes, numerators of P = A(x) and Q = A(x'), common denominator (exact, eq (3.1))."""
    qq = _q_exact(q)
    L, k = pair.L, 2**pair.L
    W = krand.report_weights(L, qq)
    base = _exact_background(pair.background, L, qq)
    p0 = krand._with_user(base, W[0], k)
    pb = krand._with_user(base, W[pair.b], k)
    keys = list(p0)
    return keys, [p0[s] for s in keys], [pb[s] for s in keys], qq.denominator ** (pair.n * L)


def bit_groups(vectors: Sequence[int], L: int) -> list[list[int]]:
    """Bit positions grouped by their column (v_i for v in vectors): the coarsest partition
    on whose groups every vector is constant."""
    cols: dict[tuple[int, ...], list[int]] = {}
    for i in range(L):
        cols.setdefault(tuple((v >> i) & 1 for v in vectors), []).append(i)
    return list(cols.values())


def class_probs(v: int, groups: Sequence[Sequence[int]], q, one=1.0) -> list:  # type: ignore[no-untyped-def]
    """P[class of R(v) = c]: the class of a report is its weight on each group (mixed radix).

    v is constant on each group of m bits: its report's weight there is Bin(m, q) if
    those bits are 0 and Bin(m, p) if they are 1 (§2.1).  ``one`` sets the number type.
    """
    p = one - q
    out = [one]
    for g in groups:
        m = len(g)
        flip, keep = (p, q) if (v >> g[0]) & 1 else (q, p)
        w = [math.comb(m, h) * flip**h * keep ** (m - h) for h in range(m + 1)]
        out = [a * b for a in out for b in w]
    return out


def simplex_rank(S: np.ndarray) -> np.ndarray:
    """The colex rank (row of :func:`simplex`) of each histogram (row) of S."""
    K = S.shape[1]
    if K == 1:
        return np.zeros(len(S), dtype=np.int64)
    bars = np.cumsum(S[:, : K - 1], axis=1) + np.arange(K - 1)
    tab = _binom_table(int(bars.max(initial=0)) + 1, K)
    return sum(tab[bars[:, i], i + 1] for i in range(K - 1))


def _h_background(pair: Pair, w: int, q, one):  # type: ignore[no-untyped-def]
    """Closed form of the background law of an H_w member on its (w+1)(L-w+1) classes.

    Classes (hA, hB): a report's weight on the w bits of e and on the other L - w bits
    (index hA (L - w + 1) + hB, the order of :func:`bit_groups`).  Every background
    user (on 0 or on e) has the other L - w bits at 0, so their report weights there
    are iid Bin(L - w, q) whatever the first w bits do: given the counts u of the
    weights on e's bits (the H_w law in w bits, u ~ Law_A, the L = w analogue of §4's
    Bin(m, p) + Bin(n - m, q)), the class counts t[hA, .] are independent Mult(u_hA).
    """
    L, nb = pair.L, pair.n - 1
    r = pair.background[(1 << w) - 1]
    p = one - q
    KA, KB = w + 1, L - w + 1
    zero = [math.comb(w, h) * q**h * p ** (w - h) for h in range(KA)]
    ones = zero[::-1]
    arb = not isinstance(one, float)
    first, add = (multinomial_law_arb, add_user) if arb else (multinomial_law, add_user)
    big, small, pb, ps = (nb - r, r, zero, ones) if 2 * r <= nb else (r, nb - r, ones, zero)
    law_a = first(big, pb)
    for N in range(big, big + small):
        law_a = add(law_a, N, ps)
    if KB == 1:
        return law_a
    S = simplex(nb, KA * KB)
    T = S.reshape(len(S), KA, KB)
    U = T.sum(axis=2)
    base = law_a[simplex_rank(U)]
    pi = [math.comb(L - w, h) * q**h * p ** (L - w - h) for h in range(KB)]
    if not arb:
        lg = np.array([math.lgamma(t + 1) for t in range(nb + 1)])
        logm = lg[U].sum(axis=1) - lg[S].sum(axis=1) + S @ np.log(np.array(pi * KA))
        return base * np.exp(logm)
    fact = [one]
    for t in range(1, nb + 1):
        fact.append(fact[-1] * t)
    fact_arr = np.array(fact, dtype=object)
    out = base
    for a in range(KA):
        out = out * fact_arr[U[:, a]]
    for c in range(KA * KB):
        g, pw = [], one
        for t in range(nb + 1):
            g.append(pw / fact[t])
            pw = pw * pi[c % KB]
        out = out * np.array(g, dtype=object)[S[:, c]]
    return out


def _reduced(pair: Pair, q, one, first, add):  # type: ignore[no-untyped-def]
    vectors = sorted({0, pair.b} | {v for v, c in enumerate(pair.background) if c})
    groups = bit_groups(vectors, pair.L)
    blocks = sorted(((c, v) for v, c in enumerate(pair.background) if c), reverse=True)
    N = pair.n - 1
    w = h_weight(pair)
    if w is not None and pair.n > 1:
        law = _h_background(pair, w, q, one)
    elif not blocks:
        law = first(0, [one] * math.prod(len(g) + 1 for g in groups))
    else:
        law = first(blocks[0][0], class_probs(blocks[0][1], groups, q, one))
        N = blocks[0][0]
        for c, v in blocks[1:]:
            probs = class_probs(v, groups, q, one)
            for _ in range(c):
                law = add(law, N, probs)
                N += 1
    return (
        add(law, N, class_probs(0, groups, q, one)),
        add(law, N, class_probs(pair.b, groups, q, one)),
    )


def reduced_laws(pair: Pair, q: float) -> tuple[np.ndarray, np.ndarray]:
    """P, Q of the pair on its class histograms (floats): sufficient statistics (module doc).

    The bit positions are grouped so that every vector of the pair (background, 0, b)
    is constant on each group; a report's likelihood then depends on its weights on
    the groups only, for every user, so the histogram of those weight tuples is
    sufficient: C(n + K - 1, K - 1) cells, K = prod (group size + 1), instead of
    C(n + 2^L - 1, 2^L - 1).  The largest block of equal users is a closed-form
    multinomial, the others are added one user at a time (eq (3.1)).
    """
    return _reduced(pair, float(q), 1.0, multinomial_law, add_user)


def reduced_laws_arb(pair: Pair, q: Fraction) -> tuple[np.ndarray, np.ndarray]:
    """As :func:`reduced_laws` in arb balls (working precision set by the caller)."""
    qa = flint.arb(flint.fmpq(q.numerator, q.denominator))
    return _reduced(pair, qa, flint.arb(1), multinomial_law_arb, add_user)


# --------------------------------------------------------------------------- limits
def family_classes(L: int) -> int:
    """Most classes of an H_w member: max over w of (w + 1)(L - w + 1)."""
    return max((w + 1) * (L - w + 1) for w in range(1, L + 1))


def family_cells(n: int, L: int) -> int:
    """Cells of the largest H_w law for n users."""
    return simplex_size(n, family_classes(L))


def max_profile_n(L: int) -> int:
    """Largest n with (cells x classes) of every H_w law within MAX_FAMILY_WORK."""
    K = family_classes(L)
    n = 1
    while simplex_size(n + 1, K) * K <= MAX_FAMILY_WORK:
        n += 1
    return n


def check_profile_size(n: int, L: int) -> str:
    """'exhaustive' or 'family' for (n, L), or a one-line InputError naming the limit."""
    if n <= EXHAUSTIVE_N.get(L, 0):
        return "exhaustive"
    top = max_profile_n(L)
    if n > top:
        raise InputError(
            f"n = {n}, L = {L} is beyond the profile limit n <= {top} for L = {L}"
            f" (MAX_FAMILY_WORK = {MAX_FAMILY_WORK}: class histograms x classes per law)"
        )
    return "family"


# --------------------------------------------------------------------------- search
@dataclass
class Worst:
    """The largest epsilon at one delta and where it is attained."""

    epsilon: float = -1.0
    pair: Pair | None = None


@dataclass
class GeneralProfile:
    """epsilon(delta) over the pairs examined, per delta, approximate and probabilistic."""

    n: int
    L: int
    q: float
    deltas: list[float]
    mode: str  # "exhaustive" or "family"
    approximate: list[Worst]
    probabilistic: list[Worst]
    pairs_examined: int = 0  # ordered pairs (both orders of each law computed)
    outcomes_examined: int = 0  # cells summed over the ordered pairs
    cells: int = 0  # cells of the largest law
    laws: int = 0  # pairs of laws (P, Q) computed
    all_members: bool = True

    @property
    def assumption(self) -> str:
        if self.mode == "exhaustive":
            return (
                f"exhaustive over every background of n - 1 = {self.n - 1} users and every b"
                f" ({self.pairs_examined} ordered pairs up to XOR and bit-permutation symmetry,"
                " exact laws)"
            )
        scan = "every r" if self.all_members else f"r on {GRID_POINTS}-point grids with refinement"
        return (
            f"ASSUMPTION (n > {EXHAUSTIVE_N.get(self.L, 0)} at L = {self.L}; hence a lower"
            " bound): worst neighbours searched only in the family H: changed user a -> ā"
            " (every bit flipped),"
            " background of n-1-r users on a and r on one vector e, |e| = w = 1..L"
            f" (both orders; {scan} for each w; {self.laws} pairs of laws on class"
            " histograms)"
        )


def _update(worst: list[Worst], values: Sequence[float], pair: Pair) -> None:
    for w, v in zip(worst, values, strict=True):
        if v > w.epsilon:
            w.epsilon, w.pair = v, pair


def _values(lc: LossCurve, deltas: Sequence[float]) -> tuple[list[float], list[float]]:
    return [lc.eps_approx(d) for d in deltas], [lc.eps_prob(d) for d in deltas]


def _new(n: int, L: int, q: float, deltas: Sequence[float], mode: str) -> GeneralProfile:
    return GeneralProfile(
        n, L, q, list(deltas), mode, [Worst() for _ in deltas], [Worst() for _ in deltas]
    )


def exhaustive_profile(n: int, L: int, q: object, deltas: Sequence[float]) -> GeneralProfile:
    """Every background orbit, every b, both orders, from the exact laws (eq (2.1), (3.1)).

    The exact integer numerators of :func:`krand.histogram_law` (background, once per
    orbit) and :func:`krand._with_user` (the changed user) are divided by b^(nL) into
    floats for the search; the winner is confirmed exactly by :func:`confirm`.
    """
    qq = _q_exact(q)
    prof = _new(n, L, float(qq), deltas, "exhaustive")
    k = 2**L
    W = krand.report_weights(L, qq)
    den = qq.denominator ** (n * L)
    for bg, bs in background_orbits(n - 1, L):
        base = _exact_background(bg, L, qq)
        p0 = krand._with_user(base, W[0], k)
        keys = list(p0)
        P = np.array([p0[s] / den for s in keys])
        for b in bs:
            pb = krand._with_user(base, W[b], k)
            Q = np.array([pb[s] / den for s in keys])
            pair = Pair(L, bg, b)
            for pr, lc in zip((pair, pair.reversed()), LossCurve.both(P, Q), strict=True):
                ap, pbv = _values(lc, deltas)
                _update(prof.approximate, ap, pr)
                _update(prof.probabilistic, pbv, pr)
            prof.laws += 1
            prof.pairs_examined += 2
            prof.outcomes_examined += 2 * len(P)
            prof.cells = len(P)
    return prof


def family_profile(
    n: int, L: int, q: float, deltas: Sequence[float], every: bool | None = None
) -> GeneralProfile:
    """The family H (module doc) on class histograms, both orders of each pair.

    Every member while n * cells <= FAMILY_ALL_CELLS (or if ``every``), else for each w a
    grid over r with integer ternary refinement around the best grid point, per delta
    and kind (like the L = 1 grid krand_profile falls back to above its work limit; a
    search for explicit pairs, so its values are lower bounds).
    """
    prof = _new(n, L, q, deltas, "family")
    cache: dict[Pair, tuple[list[float], list[float]]] = {}

    def value(pair: Pair) -> tuple[list[float], list[float]]:
        if pair not in cache:
            P, Q = reduced_laws(pair, q)
            fwd, rev = LossCurve.both(P, Q)
            cache[pair] = _values(fwd, deltas)
            cache[pair.reversed()] = _values(rev, deltas)
            prof.laws += 1
            prof.pairs_examined += 2
            prof.outcomes_examined += 2 * len(P)
            prof.cells = max(prof.cells, len(P))
        return cache[pair]

    def best_of(pair: Pair, kind: int, i: int) -> float:
        return max(value(pair)[kind][i], cache[pair.reversed()][kind][i])

    families: list[tuple[range, Callable[[int], Pair]]] = [
        (range(0 if w == L else 1, n), lambda r, w=w: h_pair(n, L, w, r))
        for w in range(L, 0, -1)
        if n >= 2 or w == L
    ]
    prof.all_members = n * family_cells(n, L) <= FAMILY_ALL_CELLS if every is None else every
    for span, make in families:
        if prof.all_members:
            for t in span:
                value(make(t))
            continue
        ends = {span[0], span[0] + 1, span[-1] - 1, span[-1]}
        points = np.round(np.linspace(span[0], span[-1], GRID_POINTS)).astype(int).tolist()
        grid = sorted(t for t in set(points) | ends if t in span)
        for t in grid:
            value(make(t))
        for kind in (0, 1):
            for i in range(len(deltas)):
                refine_grid_max(
                    grid, lambda t, i=i, kind=kind, make=make: best_of(make(t), kind, i)
                )
    for pair, (ap, pb) in cache.items():
        _update(prof.approximate, ap, pair)
        _update(prof.probabilistic, pb, pair)
    return prof


def refine_grid_max(grid: list[int], f: Callable[[int], float]) -> None:
    """Integer ternary search between the grid neighbours of the best grid point (calls f;
    the caller caches and reads off the maximum)."""
    best = max(grid, key=f)
    i = grid.index(best)
    lo, hi = grid[max(i - 1, 0)], grid[min(i + 1, len(grid) - 1)]
    while hi - lo > 2:
        a, b = lo + (hi - lo) // 3, hi - (hi - lo) // 3
        if f(a) < f(b):
            lo = a
        else:
            hi = b
    for j in range(lo, hi + 1):
        f(j)


def profile(
    n: int, L: int, q: object, deltas: Sequence[float], mode: str | None = None
) -> GeneralProfile:
    """epsilon(delta) at each delta, approximate and probabilistic.

    ``mode`` "exhaustive" or "family"; by default exhaustive up to EXHAUSTIVE_N[L].
    """
    chosen = check_profile_size(n, L)
    mode = mode or chosen
    if mode == "exhaustive":
        return exhaustive_profile(n, L, q, deltas)
    return family_profile(n, L, float(_q_exact(q)), deltas)


# --------------------------------------------------------------------------- confirmation
def _rational_below_exp(eps: float) -> Fraction:
    """A rational r <= e^eps (mpmath at 50 digits, then lowered by 1e-45 relative)."""
    with mpmath.workdps(50):
        e = mpmath.exp(mpmath.mpf(eps)) * (1 - mpmath.mpf(10) ** -45)
        man, exp = e.man_exp
    return Fraction(int(man)) * Fraction(2) ** int(exp)


def exact_delta(
    pair: Pair, q: object, r: Fraction, laws: tuple[list[int], list[int], int] | None = None
) -> Fraction:
    """delta at e^eps = r for the ordered pair (P = A(x), Q = A(x')), exact rationals
    (``laws``: numerators of P, Q and their denominator, from :func:`exact_pair_laws`)."""
    pn, qn, den = exact_pair_laws(pair, q)[1:] if laws is None else laws
    tot = sum(max(0, x * r.denominator - r.numerator * y) for x, y in zip(pn, qn, strict=True))
    return Fraction(tot, den * r.denominator)


def exact_probabilistic(pair: Pair, q: object, delta: float) -> tuple[float, Fraction]:
    """(eps, P/Q at the quantile cell): the §3.1 epsilon of one ordered pair, exactly.

    Cells sorted by the exact ratio P/Q, largest first; the first cell at which the
    exact P-mass above exceeds delta gives eps = log of its ratio (0 if below 1).
    """
    _, pn, qn, den = exact_pair_laws(pair, q)
    cells = sorted(((Fraction(x, y), x) for x, y in zip(pn, qn, strict=True) if x), reverse=True)
    bound, mass = Fraction(delta), Fraction(0)
    for ratio, x in cells:
        mass += Fraction(x, den)
        if mass > bound:
            return max(0.0, math.log(ratio)), ratio
    return 0.0, Fraction(1)  # pragma: no cover - delta < 1 is reached before the end


def arb_delta(
    pair: Pair,
    q: Fraction,
    eps: float,
    dps: int = CONFIRM_DPS,
    laws: tuple[np.ndarray, np.ndarray] | None = None,
) -> flint.arb:
    """A ball holding delta(eps) = sum max(0, P - e^eps Q) for the pair, arb at ``dps``
    (``laws``: the pair's arb laws from :func:`reduced_laws_arb`, at least that precise)."""
    with flint.ctx.workdps(dps):
        P, Q = reduced_laws_arb(pair, q) if laws is None else laws
        r = flint.arb(eps).exp()
        tot = flint.arb(0)
        for x, y in zip(P, Q, strict=True):
            tot += (x - r * y).nonnegative_part()
        return tot


def confirm(mode: str, pair: Pair, q: object, delta: float, eps: float) -> dict:  # type: ignore[type-arg]
    """eps nudged up (relative steps from 1e-12) until delta(eps) <= delta is certified.

    exhaustive: exact rational delta at a rational r <= e^eps (delta(r) >= delta(e^eps));
    family: the upper end of an arb ball (40 digits) holding delta(e^eps), on the class
    histograms of the pair.
    """
    qq = _q_exact(q)
    step = 1e-12 * max(eps, 1e-6)
    cur = eps
    if mode == "exhaustive":
        exact = exact_pair_laws(pair, qq)[1:]
    else:
        with flint.ctx.workdps(CONFIRM_DPS):
            laws = reduced_laws_arb(pair, qq)
    for _ in range(40):
        if mode == "exhaustive":
            d = exact_delta(pair, qq, _rational_below_exp(cur), exact)
            ok, shown = d <= Fraction(delta), f"{float(d):.15g}"
            how = "exact rationals (delta at a rational r <= e^epsilon)"
        else:
            ball = arb_delta(pair, qq, cur, laws=laws)
            ok = bool(ball <= flint.arb(delta))  # every point of the ball (arb semantics)
            shown = ball.upper().str(15, radius=False)
            how = f"FLINT arb ball arithmetic at {CONFIRM_DPS} digits (upper end of the ball)"
        if ok:
            return {"epsilon": cur, "float epsilon": eps, "delta at epsilon": shown, "how": how}
        cur += step
        step *= 4
    raise RuntimeError("could not confirm the float epsilon")  # pragma: no cover
