"""Certify delta(eps) <= delta over every background: branch and bound over compositions.

For one Hamming distance h (:mod:`dpcheck.enumeration.krand_cells`: a = 0, b = 1^h 0^(L-h)
up to symmetry), a background is a composition m of the n - 1 other users over the
classes (u, v).  :class:`Cover` splits the simplex of compositions into boxes
lo <= m <= hi and settles each box with one *tool*, a certified upper bound on delta at
eps valid for every composition in the box; a box no tool settles is halved along its
widest class.  ``Cover.run`` returns the settled boxes (the certificate), or the first
single composition no tool settles.

The tools (each the clone lemma with a choice of components, then an evaluator):

* ``single`` (orbit cells, one clone law phi): a class-c user is a phi-clone with
  probability theta_c = min gamma_c/phi (:meth:`Cells.theta`).  The clone count M is a sum
  of independent Bernoullis, stochastically smallest in the box when the users free to
  move sit in the classes of least theta; delta_N is nonincreasing in M (adding a clone
  is a post-processing), so E delta_N(M) <= sum over blocks [m_i, m_(i+1)) of
  P(M in block) delta_N(m_i) + P(M < m_0) (:func:`block_bound`).
* ``nclone`` (h < L): the same with the N-clone cells (h + 1 cells).
* ``multi`` (cells <= 4): each class keeps its own law gamma_c/lambda_c (the extreme
  classes, lambda = 1, exactly; the others merged into one law phi_mid with their
  theta); counts at the box's lower corner (every composition of the box contains it),
  rounded down to a grid (monotone again); the users beyond the corner are mid-law
  clones placed where theta is least, up to each class's room (:func:`least_fill`, as for
  ``single``); the mid count by blocks.
* ``own`` (cells <= 4, two middle classes at the lower corner): as ``multi``, but each
  middle class is a clone of its *own* law, with its own binomial count (independent:
  :func:`product_block_bound`); the users beyond the corner revealed.  One merged law
  covers little of two unlike middle classes (L = 3, h = 3: users of weight 1 and 2),
  each one's own law most of it.

The tools are tried cheapest first (:meth:`Cover._tools`): the multi-law ones on at most
:data:`CHEAP_CELLS` cells, common-N, single, the multi-law ones on more cells, ``own``.

delta_N is evaluated by :mod:`krand_single` or :mod:`krand_multi`, both certified upper
bounds; cached by (tool, law, counts).  delta_N is nonincreasing in every clone count, so a
bound computed at fewer clones of the same laws is a bound at more: a box whose blocks are
settled by bounds already computed (at the nearest smaller counts, :class:`Monotone`;
componentwise smaller counts for common-N, :func:`_dominated`) is settled without a new
evaluation, and one that even the nearest larger counts' bounds would not settle is left
to the other tools (bound 1) without one.
"""

from __future__ import annotations

import bisect
import heapq
import itertools
import math
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np

from dpcheck.enumeration import krand_common_n as cn
from dpcheck.enumeration import krand_multi as km
from dpcheck.enumeration import krand_single as ks
from dpcheck.enumeration.krand_cells import Cells, clone_probability, nclone_system, orbit_system
from dpcheck.enumeration.krand_l1_exact import LieProbability
from dpcheck.enumeration.krand_tables import U, binom_table

#: Levels (cumulative probabilities) at which the clone count's law is cut into blocks.
LEVELS = (1e-10, 1e-7, 1e-5, 1e-4, 1e-3, 0.01, 0.05, 0.15, 0.3, 0.5, 0.7)
#: Coarser levels for the multi-law tool (each block costs a convolution).
MULTI_LEVELS = (1e-10, 1e-4, 0.01, 0.1, 0.35)
#: Multi-law tools on at most this many cells are tried first (their convolutions are
#: cheap); on more cells, last.
CHEAP_CELLS = 3
#: The ``own`` tool's most middle classes (one clone count each, product blocks).
OWN_MAX_CLASSES = 2


def ladder_down(x: int, step: float = 1 / 64) -> int:
    """The largest value <= x of the ladder 0..32 then 32 (1 + step)^k (rounded down):
    counts are rounded down to it so that nearby boxes share evaluations (delta_N is
    nonincreasing in every count, so rounding down is safe)."""
    if x <= 32:
        return x
    k = math.floor(math.log(x / 32) / math.log1p(step))
    v = math.floor(32 * (1 + step) ** k)
    while v > x:
        k -= 1
        v = math.floor(32 * (1 + step) ** k)
    return max(v, 32)


#: The common-N tool takes its random counts at lower quantiles of this total probability
#: (times delta), which it adds to its bound.
TAU_QUANTILE = 1e-3


def _sphere_n(orbit: Cells, v: int) -> list:  # type: ignore[type-arg]
    """g_1(v): the one N-bit's law from a vector with N-bit v (L - h = 1), arb."""
    from dpcheck.enumeration.krand_cells import Lie, sphere_measure  # noqa: PLC0415

    return sphere_measure(orbit.L - orbit.h, v, Lie(orbit.lie))


def bernoulli_sum_pmf(groups: Sequence[tuple[int, float]]) -> np.ndarray:
    """pmf of sum_i Bin(m_i, theta_i) (floats; used only to cut blocks, whose probabilities
    are then bounded by :func:`block_bound`'s rigorous tail terms)."""
    pmf = np.ones(1)
    for m, t in groups:
        if m == 0:
            continue
        if t >= 1.0:
            part = np.zeros(m + 1)
            part[m] = 1.0
        elif t <= 0.0:
            part = np.zeros(m + 1)
            part[0] = 1.0
        else:
            tab = binom_table(m, t)
            part = np.zeros(m + 1)
            part[tab.lo : tab.hi + 1] = tab.f
        pmf = np.convolve(pmf, part)
    return pmf


def _cut_blocks(
    pmf: np.ndarray, levels: Sequence[float], tail_err: float
) -> tuple[float, list[tuple[float, int]]]:
    """(P(M < c_0), [(P(c_j <= M < c_(j+1)), c_j)]) for the cuts c_j at the ``levels``
    quantiles of a float pmf, each inflated by a relative 1e-9 (its rounding) and an
    absolute ``tail_err``."""
    cdf = np.cumsum(pmf)
    cuts = sorted({int(np.searchsorted(cdf, lv)) for lv in levels})
    below = (float(cdf[cuts[0] - 1]) if cuts[0] > 0 else 0.0) * (1 + 1e-9) + tail_err
    blocks = []
    for i, c in enumerate(cuts):
        nxt = cuts[i + 1] if i + 1 < len(cuts) else len(pmf)
        mass = float(pmf[c:nxt].sum()) * (1 + 1e-9) + tail_err
        if mass > 0:
            blocks.append((mass, c))
    return below, blocks


def block_bound(
    groups: Sequence[tuple[int, float]],
    value: Callable[[int], float],
    stop: float,
    levels: Sequence[float] = LEVELS,
    pmf: np.ndarray | None = None,
) -> float:
    """Upper bound on E f(M), M = sum Bin(m_i, theta_i), f nonincreasing in M with f <= 1.

    Blocks [c_j, c_(j+1)) between the ``levels`` quantiles: E f(M) <= P(M < c_0) +
    sum_j P(M in block j) f(c_j).  The float pmf's masses are inflated by a relative 1e-9
    (its rounding) and the block probabilities by its tail; stops early above ``stop``.
    ``pmf``: :func:`bernoulli_sum_pmf` of ``groups`` if already computed.
    """
    if pmf is None:
        pmf = bernoulli_sum_pmf(groups)
    total, blocks = _cut_blocks(pmf, levels, 1e-12 * len(groups))
    # the heaviest blocks first: a box that fails usually shows it at the first evaluation
    for mass, c in sorted(blocks, reverse=True):
        total += mass * value(c)
        if total > stop:
            return total
    return total


def least_fill(
    thetas: Sequence[float], lo: Sequence[int], hi: Sequence[int], free: int
) -> list[int]:
    """The ``free`` users beyond a box's lower corner, per class, placed where the clone
    probability is least, up to each class's room hi - lo (greedy).

    Every composition of the box is lo + e with 0 <= e <= hi - lo and sum e = free; the
    k-th least clone probability over the users of e is at least the k-th least over the
    greedy ones, so (coupling the Bernoullis) their clone count is stochastically larger:
    a bound nonincreasing in the count, taken at the greedy placement, holds for the box."""
    extra = [0] * len(thetas)
    for i in sorted(range(len(thetas)), key=lambda i: thetas[i]):
        extra[i] = min(free, hi[i] - lo[i])
        free -= extra[i]
    return extra


class Monotone:
    """Bounds on a quantity nonincreasing in a count M (delta_N in one clone count: adding
    a clone is a post-processing), at the counts evaluated so far (kept sorted)."""

    def __init__(self) -> None:
        self.counts: list[int] = []
        self.bounds: list[float] = []

    def add(self, M: int, bound: float) -> None:
        j = bisect.bisect_left(self.counts, M)
        self.counts.insert(j, M)
        self.bounds.insert(j, bound)

    def above(self, M: int) -> float:
        """A bound at M: the one at the nearest evaluated count <= M (1 if none)."""
        j = bisect.bisect_right(self.counts, M)
        return self.bounds[j - 1] if j else 1.0

    def below(self, M: int) -> float:
        """An estimate from below: the bound at the nearest evaluated count >= M (0 if none).
        Not a bound on anything; used only to skip evaluations that would not settle."""
        j = bisect.bisect_left(self.counts, M)
        return self.bounds[j] if j < len(self.counts) else 0.0


class MonotoneND:
    """Bounds on a quantity nonincreasing in every count of a vector (delta_N in each
    law's clone count), at the vectors evaluated so far."""

    def __init__(self) -> None:
        self.known: list[tuple[tuple[int, ...], float]] = []

    def add(self, M: tuple[int, ...], bound: float) -> None:
        self.known.append((M, bound))

    def above(self, M: tuple[int, ...]) -> float:
        """A bound at M: the least one at a vector <= M componentwise (1 if none)."""
        return min(
            (b for k, b in self.known if all(a <= m for a, m in zip(k, M, strict=True))),
            default=1.0,
        )

    def below(self, M: tuple[int, ...]) -> float:
        """An estimate from below (not a bound): the largest at a vector >= M (0 if none)."""
        return max(
            (b for k, b in self.known if all(a >= m for a, m in zip(k, M, strict=True))),
            default=0.0,
        )


def product_block_bound(
    groups: Sequence[tuple[int, float]],
    value: Callable[[tuple[int, ...]], float],
    stop: float,
    levels: Sequence[float] = LEVELS,
) -> float:
    """Upper bound on E f(M_1, ..., M_k), M_i ~ Bin(m_i, theta_i) independent, f
    nonincreasing in every count with 0 <= f <= 1: :func:`block_bound` per count, the
    product blocks' probabilities multiplied (independence), their lower corners
    evaluated, and P(some M_i below its first cut) <= the sum of those tails added.
    Stops early above ``stop``."""
    per = []
    total = 0.0
    for group in groups:
        below, blocks = _cut_blocks(bernoulli_sum_pmf([group]), levels, 1e-12)
        total += below
        per.append(blocks)
    combos = sorted(
        itertools.product(*per), key=lambda combo: -math.prod(w for w, _ in combo)
    )
    for combo in combos:
        total += math.prod(w for w, _ in combo) * (1 + 1e-12) * value(tuple(c for _, c in combo))
        if total > stop:
            return total
    return total


@dataclass
class Settled:
    lo: tuple[int, ...]
    hi: tuple[int, ...]
    tool: str
    bound: float


@dataclass
class CoverResult:
    ok: bool
    settled: list[Settled] = field(default_factory=list)
    failed: tuple[int, ...] | None = None
    failed_bound: float = 0.0
    boxes: int = 0
    evaluations: int = 0
    seconds: float = 0.0
    out_of_budget: bool = False
    stopped: bool = False  # asked to stop (another h failed): neither settled nor failed


def verdict(results: dict[int, CoverResult], hs: Sequence[int]) -> tuple[bool, str]:
    """(every h settled, why not): the first genuine failure in the order ``hs`` (a cover
    stopped because another failed is not one)."""
    for h in hs:
        res = results.get(h)
        if res is None or res.stopped:
            continue
        if not res.ok:
            why = "time budget" if res.out_of_budget else f"composition {res.failed} not settled"
            return False, f"h={h}: {why}"
    if all(h in results and results[h].ok for h in hs):
        return True, "settled"
    return False, "stopped"


class Cover:
    """Branch and bound over compositions for one (L, h) at one eps (module doc)."""

    def __init__(self, L: int, h: int, lie: LieProbability, n: int, delta: float, eps: float):
        self.L, self.h, self.n, self.delta, self.eps = L, h, n, delta, eps
        self.orbit = orbit_system(L, h, lie)
        self.nclone = nclone_system(L, h, lie) if h < L else None
        self.classes = self.orbit.classes
        self.cache: dict[tuple, float] = {}
        self.evaluations = 0
        self.grid = max(1, n // 200)  # deterministic counts rounded down to multiples
        self._laws: dict[tuple, object] = {}
        # common-N bounds computed so far, per majority N-class: (clone counts, bound)
        self._cn_known: dict[int, list[tuple[tuple[int, ...], float]]] = {}
        # bounds computed so far per family (tool, law, fixed counts), by clone count
        self._known: dict[tuple, Monotone] = {}  # type: ignore[type-arg]
        self._known_nd: dict[tuple, MonotoneND] = {}  # type: ignore[type-arg]

    # ------------------------------------------------------------------ laws
    def _single_law(self, cells: Cells, c: tuple[int, int]) -> ks.Law:
        key = ("single", cells.kind, c)
        if key not in self._laws:
            if cells.kind == "orbit" and cells.shape[1] > 1:
                h, Lp = cells.shape[0] - 1, cells.shape[1] - 1
                g = cells.clone_law(c).reshape(h + 1, Lp + 1)
                law: ks.Law = ks.ProductLaw(
                    ks.CloneLaw.of(g.sum(axis=1)), ks.CloneLaw.of(g.sum(axis=0))
                )
            else:
                law = ks.CloneLaw.of(cells.clone_law(c))
            self._laws[key] = law
        return self._laws[key]  # type: ignore[return-value]

    def _theta(self, cells: Cells, law: ks.Law) -> dict[tuple[int, int], float]:
        key = ("theta", cells.kind, id(law))
        if key not in self._laws:
            arb = law.arb()
            self._laws[key] = {c: cells.theta(c, arb) for c in self.classes}
        return self._laws[key]  # type: ignore[return-value]

    # ------------------------------------------------------------------ tools
    def _single(self, cells: Cells, law: ks.Law, lo: Sequence[int], hi: Sequence[int]) -> float:
        th = self._theta(cells, law)
        extra = self._least_fill(th, lo, hi)
        groups = [(lo[i] + extra[i], th[c]) for i, c in enumerate(self.classes) if lo[i] + extra[i]]
        return self._by_blocks(
            groups,
            ("s", cells.kind, id(law)),
            lambda M: ladder_down(M, 1 / 256),
            lambda M: ks.delta_single(cells, law, M, self.eps),
        )

    def _least_fill(
        self, th: dict[tuple[int, int], float], lo: Sequence[int], hi: Sequence[int]
    ) -> list[int]:
        """:func:`least_fill` of the box with the classes' clone probabilities ``th``."""
        return least_fill([th[c] for c in self.classes], lo, hi, self.n - 1 - sum(lo))

    def _by_blocks(
        self,
        groups: Sequence[tuple[int, float]],
        family: tuple,  # type: ignore[type-arg]
        rounded: Callable[[int], int],
        evaluate: Callable[[int], float],
        levels: Sequence[float] = LEVELS,
        slack: float = 0.0,
    ) -> float:
        """:func:`block_bound` of a family of bounds nonincreasing in the clone count M,
        evaluated at ``rounded``(M) (down: safe) and cached, plus ``slack``.  Bounds
        already computed for the family settle the box without evaluating
        (:meth:`Monotone.above`); if even the estimates from below (:meth:`Monotone.below`)
        do not settle it, evaluating would not either, and 1 (the trivial bound) is
        returned."""
        known = self._known.setdefault(family, Monotone())
        pmf = bernoulli_sum_pmf(groups)
        goal = self.delta - slack
        b = block_bound(groups, lambda M: known.above(rounded(M)), goal, levels, pmf)
        if b <= goal:
            return b + slack
        if block_bound(groups, lambda M: known.below(rounded(M)), math.inf, levels, pmf) > goal:
            return 1.0

        def value(M: int) -> float:
            M = rounded(M)
            key = (family, M)
            if key not in self.cache:
                self.evaluations += 1
                try:
                    self.cache[key] = evaluate(M)
                except ks.TooLarge:
                    self.cache[key] = 1.0  # not evaluated: the box is not settled by it
                    return 1.0
                known.add(M, self.cache[key])
            return self.cache[key]

        return block_bound(groups, value, goal, levels, pmf) + slack

    def _mid_law(self, cells: Cells) -> ks.CloneLaw:
        """One fixed law for the non-extreme classes of a system: their gammas, summed."""
        key = ("mid", cells.kind)
        if key not in self._laws:
            g = sum(
                cells.clone_law(c) * float(cells.lam(c).mid())
                for c in self.classes
                if not cells.is_extreme(c)
            )
            self._laws[key] = km.natural_law(g)
        return self._laws[key]  # type: ignore[return-value]

    def _multi(self, cells: Cells, lo: Sequence[int], hi: Sequence[int]) -> float:
        """The ``multi`` tool: extreme classes with their own exact laws (counts at the
        lower corner), the other classes as clones of one fixed mid law (by blocks).  The
        users beyond the lower corner may sit in any class with room, extreme ones
        included: they are mid-law clones placed where theta is least
        (:meth:`_least_fill`), not revealed."""
        mid_groups = []
        mid_law = None
        for i, c in enumerate(self.classes):
            if lo[i] > 0 and not cells.is_extreme(c):
                mid_law = mid_law or self._mid_law(cells)
                mid_groups.append((lo[i], self._theta(cells, mid_law)[c]))
        if sum(lo) < self.n - 1 and any(not cells.is_extreme(c) for c in self.classes):
            mid_law = mid_law or self._mid_law(cells)
            th = self._theta(cells, mid_law)
            extra = self._least_fill(th, lo, hi)
            mid_groups += [(extra[i], th[c]) for i, c in enumerate(self.classes) if extra[i]]
        parts_fixed, slack = self._fixed_extremes(cells, lo)

        def evaluate(M: int) -> float:
            parts = parts_fixed + (((M, mid_law),) if mid_law is not None and M > 0 else ())
            return km.delta_multi(cells, parts, self.eps)

        family = ("multi", cells.kind, tuple((cnt, id(law)) for cnt, law in parts_fixed))
        # no random count (empty groups): the one block M = 0
        return self._by_blocks(
            mid_groups, family, ladder_down, evaluate, self._levels(cells), slack
        )

    def _own(self, cells: Cells, lo: Sequence[int], hi: Sequence[int]) -> float:
        """The ``own`` tool: every class keeps its own law, the extreme classes exactly
        (counts at the lower corner), each other class c present at the lower corner as
        clones of its own law gamma_c/lambda_c, Bin(lo_c, theta_c) of them independently
        (the counts by product blocks, :func:`product_block_bound`).  The users beyond
        the lower corner are revealed (a post-processing).  For the compositions of
        several middle classes, where one merged law's theta is small."""
        mids = [
            (i, c) for i, c in enumerate(self.classes) if lo[i] > 0 and not cells.is_extreme(c)
        ]
        if not mids or len(mids) > OWN_MAX_CLASSES:
            return 1.0
        parts_fixed, slack = self._fixed_extremes(cells, lo)
        laws = [self._natural(cells, c) for _, c in mids]
        groups = [
            (lo[i], self._theta(cells, law)[c]) for (i, c), law in zip(mids, laws, strict=True)
        ]
        family = (
            "own",
            cells.kind,
            tuple((cnt, id(law)) for cnt, law in parts_fixed),
            tuple(c for _, c in mids),
        )
        known = self._known_nd.setdefault(family, MonotoneND())

        def rounded(M: tuple[int, ...]) -> tuple[int, ...]:
            return tuple(ladder_down(x) for x in M)

        levels = self._levels(cells)
        goal = self.delta - slack
        b = product_block_bound(groups, lambda M: known.above(rounded(M)), goal, levels)
        if b <= goal:
            return b + slack
        if product_block_bound(groups, lambda M: known.below(rounded(M)), math.inf, levels) > goal:
            return 1.0

        def value(M: tuple[int, ...]) -> float:
            M = rounded(M)
            key = (family, M)
            if key not in self.cache:
                self.evaluations += 1
                parts = parts_fixed + tuple(
                    (cnt, law) for cnt, law in zip(M, laws, strict=True) if cnt > 0
                )
                self.cache[key] = km.delta_multi(cells, parts, self.eps)
                known.add(M, self.cache[key])
            return self.cache[key]

        return product_block_bound(groups, value, goal, levels) + slack

    @staticmethod
    def _levels(cells: Cells) -> Sequence[float]:
        """Block levels for the multi-law tools: fine where a convolution is cheap."""
        return LEVELS if cells.size <= 3 else MULTI_LEVELS

    def _natural(self, cells: Cells, c: tuple[int, int]) -> ks.CloneLaw:
        key = ("natural", cells.kind, c)
        if key not in self._laws:
            self._laws[key] = km.natural_law(cells.clone_law(c))
        return self._laws[key]  # type: ignore[return-value]

    def _fixed_extremes(
        self, cells: Cells, lo: Sequence[int]
    ) -> tuple[tuple[tuple[int, ks.CloneLaw], ...], float]:
        """The extreme classes' users at the box's lower corner as exact parts (count
        rounded down, :func:`ladder_down`; natural law), and :meth:`_not_all_clones` of
        them (for the ``multi`` and ``own`` tools)."""
        counts = sorted(
            (c, ladder_down(lo[i]))
            for i, c in enumerate(self.classes)
            if lo[i] > 0 and cells.is_extreme(c)
        )
        parts = tuple((m, self._natural(cells, c)) for c, m in counts)
        return parts, self._not_all_clones(cells, counts)

    def _not_all_clones(self, cells: Cells, counts: Sequence[tuple[tuple[int, int], int]]) -> float:
        """P(some user of ``counts`` (class, count) is not a clone of its class's natural
        law), union bound: the extreme classes' laws are those float laws only up to
        rounding, so each user is a clone with probability theta (about 1 - 1e-15), not
        1.  A tool that counts them as sure clones adds this to its bound (on the event
        that all are clones its bound holds; off it, delta <= 1)."""
        out = 0.0
        for c, m in counts:
            th = self._theta(cells, self._natural(cells, c))[c]
            out += m * (1.0 - th)
        return math.nextafter(out * (1 + 4 * U), math.inf) if out > 0 else 0.0

    def _rest_law(self, cells: Cells, e: tuple[int, int]) -> ks.CloneLaw:
        """One fixed law for every class but the extreme class e: their gammas, summed."""
        key = ("rest", cells.kind, e)
        if key not in self._laws:
            g = sum(cells.clone_law(c) * float(cells.lam(c).mid()) for c in self.classes if c != e)
            self._laws[key] = km.natural_law(g)
        return self._laws[key]  # type: ignore[return-value]

    def _rest(
        self, cells: Cells, e: tuple[int, int], lo: Sequence[int], hi: Sequence[int]
    ) -> float:
        """The ``rest`` tool: the users of the extreme class e keep their exact law (count at
        the lower corner), every other user is a clone of one fixed law with its theta, the
        users free to move placed where theta is least (two laws, one random count)."""
        ie = self.classes.index(e)
        rest_law = self._rest_law(cells, e)
        th = self._theta(cells, rest_law)
        # the users beyond the lower corner may sit anywhere, e included: clones of the rest
        # law placed where theta is least
        extra = self._least_fill(th, lo, hi)
        fixed = ladder_down(lo[ie])
        law_e = self._natural(cells, e)
        groups = [(lo[i], th[c]) for i, c in enumerate(self.classes) if i != ie and lo[i] > 0]
        groups += [(extra[i], th[c]) for i, c in enumerate(self.classes) if extra[i]]

        def evaluate(M: int) -> float:
            parts = tuple(p for p in ((fixed, law_e), (M, rest_law)) if p[0] > 0)
            return km.delta_multi(cells, parts, self.eps)

        family = ("rest", cells.kind, e, fixed)
        slack = self._not_all_clones(cells, [(e, fixed)])
        # no random count (empty groups): the one block M = 0
        return self._by_blocks(groups, family, ladder_down, evaluate, self._levels(cells), slack)

    def _as(self, cells: Cells, i: int) -> tuple[int, int]:
        """Class i as the system sees it (the N-clone cells ignore nothing: same classes)."""
        return self.classes[i]

    def _common_n(self, lo: Sequence[int]) -> float:
        """The ``common-N`` tool (L - h = 1): every clone draws its N-bit from the N-law of
        the users' majority N-class v* (a class of the other N-class is such a clone with
        probability r = q/p on its N-part); B-laws: the extreme ones exact, the others one
        fixed mid law; counts at the lower corner, the random ones at a lower quantile of
        total probability TAU_QUANTILE * delta (added)."""
        orbit, bcells = self.orbit, self.nclone
        assert bcells is not None
        h = self.h
        v_star = max(
            (0, 1), key=lambda v: sum(lo[i] for i, c in enumerate(self.classes) if c[1] == v)
        )
        phiN = self._natural_n(v_star)
        thN = {v: self._theta_n(v, phiN) for v in (0, 1)}
        groups: dict[str, list[tuple[int, float]]] = {}
        for i, c in enumerate(self.classes):
            if lo[i] == 0:
                continue
            u, v = c
            if u in (0, h):
                # the B-part is a clone of the natural B-law with probability theta_B (1 up
                # to that float law's rounding)
                th_b = self._theta(bcells, self._natural(bcells, (u, 0)))[(u, 0)]
                groups.setdefault(f"b{u}", []).append((lo[i], thN[v] * th_b))
            else:
                th_mid = bcells.theta((u, 0), self._mid_law(bcells).arb())
                groups.setdefault("mid", []).append((lo[i], thN[v] * th_mid))
        tau = TAU_QUANTILE * self.delta / max(1, len(groups))
        parts = []
        names = ("b0", f"b{h}", "mid")
        counts = dict.fromkeys(names, 0)
        for name, grp in sorted(groups.items()):
            pmf = bernoulli_sum_pmf(grp)
            cnt = int(np.searchsorted(np.cumsum(pmf) * (1 + 1e-9) + 1e-12, tau))
            law = (
                self._natural(bcells, (int(name[1:]), 0))
                if name != "mid"
                else self._mid_law(bcells)
            )
            parts.append((ladder_down(cnt), law))
            counts[name] = ladder_down(cnt)
        key = ("cn", v_star, tuple((c, id(law)) for c, law in parts))
        target = self.delta - TAU_QUANTILE * self.delta * (1 + 1e-6)
        if key not in self.cache:
            vec = tuple(counts[nm] for nm in names)
            known = self._cn_known.setdefault(v_star, [])
            value = _dominated(known, vec, target)
            if value is None:
                self.evaluations += 1
                value = cn.delta_common_n(
                    orbit, bcells, parts, phiN, self.eps, 2e-3 * self.delta, target=target
                )
                known.append((vec, value))
            self.cache[key] = value
        return self.cache[key] + TAU_QUANTILE * self.delta * (1 + 1e-6)

    def _natural_n(self, v: int) -> ks.CloneLaw:
        key = ("naturalN", v)
        if key not in self._laws:
            g = np.array([float(x.mid()) for x in _sphere_n(self.orbit, v)])
            self._laws[key] = km.natural_law(g)
        return self._laws[key]  # type: ignore[return-value]

    def _theta_n(self, v: int, phiN: ks.CloneLaw) -> float:
        """min over N-cells of g_1(v)/phi_N: the N-part's clone probability."""
        return clone_probability(_sphere_n(self.orbit, v), phiN.arb())

    def _single_ok(self, cells: Cells) -> bool:
        return cells.kind == "nclone" or cells.shape[1] == 1 or min(cells.shape) == 2

    def _multi_law_tools(
        self, cells: Cells, lo: Sequence[int], hi: Sequence[int]
    ) -> Iterator[tuple[str, Callable[[], float]]]:
        if cells.size > 4 or sum(lo) == 0:
            return
        # two laws: the extreme class with the most users keeps its own
        ext = [i for i in range(len(self.classes)) if cells.is_extreme(self._as(cells, i))]
        if ext:
            i = max(ext, key=lambda i: lo[i])
            e = self._as(cells, i)
            yield f"two-law {cells.kind}", lambda: self._rest(cells, e, lo, hi)
        yield f"multi {cells.kind}", lambda: self._multi(cells, lo, hi)

    def _tools(
        self, lo: Sequence[int], hi: Sequence[int]
    ) -> Iterator[tuple[str, Callable[[], float]]]:
        """The tools for a box, cheapest first: the multi-law ones on at most
        :data:`CHEAP_CELLS` cells (an evaluation is a small FFT), common-N, the single-law
        ones (the classes with the most users at the lower corner first), the multi-law
        ones on more cells, then ``own`` where two middle classes are present (each of its
        evaluations convolves one more law)."""
        systems = [self.orbit] + ([self.nclone] if self.nclone is not None else [])
        for cells in systems:
            if cells.size <= CHEAP_CELLS:
                yield from self._multi_law_tools(cells, lo, hi)
        if self.nclone is not None and self.orbit.shape[1] == 2 and sum(lo) > 0:
            yield "common-N orbit", lambda: self._common_n(lo)
        present = [i for i in range(len(self.classes)) if hi[i] > 0]
        present.sort(key=lambda i: -(lo[i] + hi[i]))
        for cells in systems:
            if not self._single_ok(cells):
                continue
            for i in present[:3]:
                c = self.classes[i] if cells.kind != "nclone" else (self.classes[i][0], 0)
                law = self._single_law(cells, c)
                yield (
                    f"single {cells.kind} law of class {c}",
                    lambda cells=cells, law=law: self._single(cells, law, lo, hi),
                )
        for cells in systems:
            if cells.size > CHEAP_CELLS:
                yield from self._multi_law_tools(cells, lo, hi)
        for cells in systems:
            mids = sum(1 for i, c in enumerate(self.classes) if lo[i] and not cells.is_extreme(c))
            if cells.size <= 4 and mids > 1:
                yield f"own laws {cells.kind}", lambda cells=cells: self._own(cells, lo, hi)

    def box_bound(self, lo: Sequence[int], hi: Sequence[int]) -> tuple[float, str]:
        """The least bound any tool gives for the box (stops at the first below delta)."""
        best, tool = 1.0, "none"
        for name, bound in self._tools(lo, hi):
            b = bound()
            if b < best:
                best, tool = b, name
            if best <= self.delta:
                break
        return best, tool

    # ------------------------------------------------------------------ search
    def _priority(self, lo: Sequence[int]) -> int:
        """Boxes nearest an extreme vertex first: a certificate that fails usually fails
        there, and fails fast."""
        return -max(lo[i] for i, c in enumerate(self.classes) if self.orbit.is_extreme(c))

    def run(
        self,
        max_boxes: int = 100_000,
        max_seconds: float = math.inf,
        stop: Callable[[], bool] | None = None,
    ) -> CoverResult:
        """Settle every composition, or stop at the first one no tool settles, beyond
        ``max_boxes`` or ``max_seconds``, or once ``stop()`` is true (checked between
        boxes; the result then says ``stopped``)."""
        K = len(self.classes)
        S = self.n - 1
        start = time.perf_counter()
        res = CoverResult(False)
        root = (tuple([0] * K), tuple([S] * K))
        heap = [(self._priority(root[0]), 0, root)]
        tick = 1
        while heap:
            if stop is not None and stop():
                res.stopped = True
                break
            _, _, (lo, hi) = heapq.heappop(heap)
            res.boxes += 1
            if res.boxes > max_boxes or time.perf_counter() - start > max_seconds:
                res.out_of_budget = True
                res.failed = lo
                break
            b, tool = self.box_bound(lo, hi)
            if b <= self.delta:
                res.settled.append(Settled(lo, hi, tool, b))
                continue
            widths = [hi[i] - lo[i] for i in range(K)]
            if max(widths) == 0:
                res.failed, res.failed_bound = lo, b
                break
            i = int(np.argmax(widths))
            mid = (lo[i] + hi[i]) // 2
            for a, c in ((mid + 1, hi[i]), (lo[i], mid)):
                box = _tighten(lo, hi, i, a, c, S)
                if box is not None:
                    heapq.heappush(heap, (self._priority(box[0]), tick, box))
                    tick += 1
        else:
            res.ok = True
        res.evaluations = self.evaluations
        res.seconds = time.perf_counter() - start
        return res


def _dominated(
    known: list[tuple[tuple[int, ...], float]], vec: tuple[int, ...], target: float
) -> float | None:
    """A bound for clone counts ``vec`` from one already computed, or None.

    delta_N is nonincreasing in every clone count (adding a clone of a fixed law is a
    post-processing), so a bound computed at counts <= vec (componentwise) is a bound at
    vec: it is returned if it settles (<= target).  If counts >= vec did not settle, vec
    will not either: 1 (the trivial bound) is returned without evaluating."""
    for kv, value in known:
        if value <= target and all(a <= b for a, b in zip(kv, vec, strict=True)):
            return value
        if value > target and all(a >= b for a, b in zip(kv, vec, strict=True)):
            return 1.0
    return None


def _tighten(
    lo: Sequence[int], hi: Sequence[int], i: int, a: int, c: int, S: int
) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """The box with class i restricted to [a, c], tightened by sum m = S (None if empty)."""
    lo2, hi2 = list(lo), list(hi)
    lo2[i], hi2[i] = a, c
    for _ in range(2):
        for v in range(len(lo2)):
            lo2[v] = max(lo2[v], S - (sum(hi2) - hi2[v]))
            hi2[v] = min(hi2[v], S - (sum(lo2) - lo2[v]))
            if lo2[v] > hi2[v]:
                return None
    return tuple(lo2), tuple(hi2)
