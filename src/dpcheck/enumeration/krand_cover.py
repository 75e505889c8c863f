"""Certify delta(eps) <= delta over every background: branch and bound over compositions.

For one Hamming distance h (:mod:`dpcheck.enumeration.krand_cells`: a = 0, b = 1^h 0^(L-h)
up to symmetry), a background is a composition m of the n - 1 other users over the
classes (u, v).  :class:`Cover` splits the simplex of compositions into boxes
lo <= m <= hi and settles each box with one *tool*, a certified upper bound on delta at
eps valid for every composition in the box; a box no tool settles is halved along its
widest class.  ``Cover.run`` returns the settled boxes (the certificate), or the first
single composition no tool settles.  A box whose every composition has more users in class
(h, 0) than in (0, 0) is the mirror image of compositions the other boxes hold
(:func:`mirror`) and is settled without a tool.

The tools (each the clone lemma with a choice of components, then an evaluator):

* ``single`` (orbit cells, one clone law phi): a class-c user is a phi-clone with
  probability theta_c = min gamma_c/phi (:meth:`Cells.theta`).  The clone count M is a sum
  of independent Bernoullis, stochastically smallest in the box when the users free to
  move sit in the classes of least theta; delta_N is nonincreasing in M (adding a clone
  is a post-processing), so E delta_N(M) <= sum over blocks [m_i, m_(i+1)) of
  P(M in block) delta_N(m_i) + P(M < m_0) (:func:`chain_bound` of one count).
* ``nclone`` (h < L): the same with the N-clone cells (h + 1 cells).
* ``multi`` (cells <= 4): each class keeps its own law gamma_c/lambda_c (the extreme
  classes, lambda = 1, exactly; the others merged into one law phi_mid with their
  theta); counts at the box's lower corner (every composition of the box contains it),
  rounded down to a grid (monotone again); the users beyond the corner are mid-law
  clones placed where theta is least, up to each class's room (:func:`least_fill`, as for
  ``single``); the mid count by blocks.
* ``own`` (cells <= 4, two middle classes at the lower corner): as ``multi``, but each
  middle class is a clone of its *own* law, with its own binomial count (independent:
  a chain of corners, :func:`chain_bound`); the users beyond the corner revealed.  One merged law
  covers little of two unlike middle classes (L = 3, h = 3: users of weight 1 and 2),
  each one's own law most of it.

The tools are tried cheapest first (:meth:`Cover._tools`): the multi-law ones on at most
:data:`CHEAP_CELLS` cells, common-N, single, the multi-law ones on more cells, ``own``.

delta_N is evaluated by :mod:`krand_single` or :mod:`krand_multi`, both certified upper
bounds; cached by (tool, law, counts).  delta_N is nonincreasing in every clone count, so a
bound computed at fewer clones of the same laws is a bound at more: a box whose blocks are
settled by bounds already computed (at componentwise fewer users of the same laws, clones
or exact parts, :class:`MonotoneND`; for common-N, :func:`_dominated`) is settled
without a new evaluation, and one that even the bounds at more users would not settle is
left to the other tools (bound 1) without one.
"""

from __future__ import annotations

import heapq
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
from dpcheck.enumeration.krand_work import OutOfTime, TooLarge, deadline

#: Levels (cumulative probabilities) at which the clone count's law is cut into blocks.
LEVELS = (1e-10, 1e-7, 1e-5, 1e-4, 1e-3, 0.01, 0.05, 0.15, 0.3, 0.5, 0.7)
#: Coarser levels for the multi-law tools on more cells (each block costs a convolution),
#: tried coarse to fine: a box with room to spare settles at the first stage's few
#: evaluations, and the later stages reuse them.
MULTI_LEVELS = (1e-10, 1e-4, 0.01, 0.1, 0.35)
COARSE_LEVELS = (1e-10, 1e-4, 0.1)
MULTI_STAGES = (COARSE_LEVELS, MULTI_LEVELS)
#: ... and for the ``own`` tool (its chain of several counts costs one evaluation a level).
OWN_STAGES = (COARSE_LEVELS, MULTI_LEVELS, LEVELS)
#: Multi-law tools on at most this many cells are tried first (their convolutions are
#: cheap); on more cells, last.
CHEAP_CELLS = 3
#: The ``own`` tool's most middle classes (one clone count each, a chain of corners).
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
    """pmf of sum_i Bin(m_i, theta_i) on 0..sum m_i (floats; used only to cut blocks, whose
    probabilities are then bounded by :func:`chain_bound`'s rigorous tail terms).

    Each binomial enters as its table's window (the entries outside it are exact zeros),
    so a convolution costs the product of the windows' widths, not of the counts: with
    three classes of 3 * 10^4 users (n = 10^5) it took 17 s, uninterruptible, at every box
    (issue 40).  The sums of nonnegative products are those of the zero-padded arrays but
    for the zeros, so within the same relative rounding."""
    pmf = np.ones(1)
    start = total = 0
    for m, t in groups:
        if m == 0:
            continue
        total += m
        if t >= 1.0:
            start += m
            continue
        if t <= 0.0:
            continue
        tab = binom_table(m, t)
        pmf = np.convolve(pmf, tab.f)
        start += tab.lo
    out = np.zeros(total + 1)
    out[start : start + len(pmf)] = pmf
    return out


def chain_corners(cdfs: Sequence[np.ndarray], levels: Sequence[float]) -> list[tuple[int, ...]]:
    """The chain of :func:`chain_bound`: at each level, every count's quantile (its first
    value whose cdf reaches the level, at most its largest), repeats dropped."""
    corners: list[tuple[int, ...]] = []
    for lv in levels:
        a = tuple(min(int(np.searchsorted(c, lv)), len(c) - 1) for c in cdfs)
        if not corners or a != corners[-1]:
            corners.append(a)
    return corners


def chain_bound(
    cdfs: Sequence[np.ndarray],
    value: Callable[[tuple[int, ...]], float],
    stop: float,
    levels: Sequence[float] = LEVELS,
    tail_err: float = 1e-12,
) -> float:
    """Upper bound on E f(M), M = (M_1, ..., M_k) independent counts, f nonincreasing in
    every count with 0 <= f <= 1; ``cdfs[i][x]`` is P(M_i <= x) in floats, within a
    relative 1e-9 (rounding) and an absolute ``tail_err`` (the tables' windows).

    The chain: corners a_j, every count's ``levels[j]`` quantile (nondecreasing in j), and
    the nested events A_j = {M >= a_j}; on A_j minus A_(j+1), f(M) <= f(a_j), so

        E f(M) <= P(not A_0) + sum_j P(A_j minus A_(j+1)) f(a_j),

    with P(not A_0) <= sum_i P(M_i < a_0i) and P(A_j) = prod_i P(M_i >= a_ji)
    (independence), each probability bounded on the safe side from the cdfs' errors.  One
    count: the blocks [a_j, a_(j+1)).  A chain of k counts costs as many evaluations as one
    count, not the product of their cuts.  The heaviest blocks are evaluated first (a box
    that fails usually shows it there); stops early above ``stop``.
    """
    rel = 1e-9

    def cdf_hi(c: np.ndarray, x: int) -> float:
        return min(1.0, float(c[x]) * (1 + rel) + tail_err) if x >= 0 else 0.0

    def cdf_lo(c: np.ndarray, x: int) -> float:
        return max(0.0, float(c[x]) * (1 - rel) - tail_err) if x >= 0 else 0.0

    corners = chain_corners(cdfs, levels)
    k = len(cdfs)
    grow, shrink = 1 + 4 * (k + 1) * U, 1 - 4 * (k + 1) * U
    # P(A_j) from above and below (products of the counts' upper tails)
    p_hi = [
        math.prod(1.0 - cdf_lo(c, x - 1) for c, x in zip(cdfs, a, strict=True)) * grow
        for a in corners
    ]
    p_lo = [
        math.prod(1.0 - cdf_hi(c, x - 1) for c, x in zip(cdfs, a, strict=True)) * shrink
        for a in corners
    ] + [0.0]
    total = math.fsum(cdf_hi(c, x - 1) for c, x in zip(cdfs, corners[0], strict=True)) * grow
    blocks = [(max(0.0, p_hi[j] - p_lo[j + 1]) * (1 + 2 * U), a) for j, a in enumerate(corners)]
    # the heaviest blocks first: a box that fails usually shows it at the first evaluation
    for mass, a in sorted(blocks, reverse=True):
        if mass > 0:
            total += mass * value(a) * (1 + 2 * U)
            if total > stop:
                return total
    # the rounding of the sum of nonnegative terms
    return total * (1 + 2 * (len(blocks) + 1) * U)


def block_cdf(groups: Sequence[tuple[int, float]]) -> np.ndarray:
    """The float cdf of sum_i Bin(m_i, theta_i) (:func:`bernoulli_sum_pmf`)."""
    return np.cumsum(bernoulli_sum_pmf(groups))


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


class MonotoneND:
    """Bounds on a quantity nonincreasing in every count of a vector (delta_N in each
    part's count: adding a user of a fixed law, clone or exact, is a post-processing), at
    the vectors evaluated so far."""

    def __init__(self) -> None:
        self._vecs: list[tuple[int, ...]] = []
        self._bounds: list[float] = []
        self._arr = np.zeros((0, 0), dtype=np.int64)
        self._barr = np.zeros(0)

    def add(self, M: tuple[int, ...], bound: float) -> None:
        self._vecs.append(tuple(M))
        self._bounds.append(bound)
        self._arr = np.array(self._vecs, dtype=np.int64)
        self._barr = np.array(self._bounds)

    @property
    def known(self) -> list[tuple[tuple[int, ...], float]]:
        return list(zip(self._vecs, self._bounds, strict=True))

    def above(self, M: tuple[int, ...]) -> float:
        """A bound at M: the least one at a vector <= M componentwise (1 if none)."""
        if not self._vecs:
            return 1.0
        mask = (self._arr <= np.asarray(M)).all(axis=1)
        return float(self._barr[mask].min()) if mask.any() else 1.0

    def below(self, M: tuple[int, ...]) -> float:
        """An estimate from below (not a bound): the largest at a vector >= M (0 if none)."""
        if not self._vecs:
            return 0.0
        mask = (self._arr >= np.asarray(M)).all(axis=1)
        return float(self._barr[mask].max()) if mask.any() else 0.0


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
        # bounds computed so far per family (tool, laws), by the vector of the parts' counts
        self._known: dict[tuple, MonotoneND] = {}  # type: ignore[type-arg]
        self._current: tuple[int, ...] | None = None  # the box :meth:`run` works on

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

    def _by_chain(
        self,
        cdfs: Sequence[np.ndarray],
        family: tuple,  # type: ignore[type-arg]
        vector: Callable[[tuple[int, ...]], tuple[int, ...]],
        evaluate: Callable[[tuple[int, ...]], float],
        stages: Sequence[Sequence[float]] = (LEVELS,),
        slack: float = 0.0,
        tail_err: float = 1e-12,
    ) -> float:
        """:func:`chain_bound` over random counts M (float ``cdfs``) of a family of bounds
        nonincreasing in every count of ``vector``(M) (the counts rounded down, which is
        safe, and the other parts' fixed counts), evaluated by ``evaluate`` and cached, plus
        ``slack``.  Bounds already computed for the family at componentwise fewer users
        settle the box without evaluating (:meth:`MonotoneND.above`); if even the estimates
        from below (:meth:`MonotoneND.below`) do not settle it at the finest levels,
        evaluating would not either, and 1 (the trivial bound) is returned.  Otherwise the
        level ``stages`` are tried coarse to fine (a box with room to spare settles at a few
        evaluations; the finer stages reuse them), the first that settles returned; after
        the first, one evaluation at the finest stage's top corner tells whether any could
        (if not, the first stage's bound is returned)."""
        known = self._known.setdefault(family, MonotoneND())
        goal = self.delta - slack
        for levels in stages:
            b = chain_bound(cdfs, lambda M: known.above(vector(M)), goal, levels, tail_err)
            if b <= goal:
                return b + slack
        estimate = chain_bound(
            cdfs, lambda M: known.below(vector(M)), math.inf, stages[-1], tail_err
        )
        if estimate > goal:
            return 1.0

        def value(M: tuple[int, ...]) -> float:
            vec = vector(M)
            key = (family, vec)
            if key not in self.cache:
                self.evaluations += 1
                try:
                    self.cache[key] = evaluate(vec)
                except ks.TooLarge:
                    self.cache[key] = 1.0  # not evaluated: the box is not settled by it
                    return 1.0
                known.add(vec, self.cache[key])
            return self.cache[key]

        for i, levels in enumerate(stages):
            b = chain_bound(cdfs, value, goal, levels, tail_err)
            if b <= goal:
                break
            if i == 0 and len(stages) > 1:
                # every stage's corners lie at or below the finest stage's top corner, where
                # delta_N is least: if even there it exceeds the goal (times the mass of the
                # chain, 1 - P(not A_0) >= 1 - k * levels[0]), no stage can settle
                (top,) = chain_corners(cdfs, (max(stages[-1]),))
                if value(top) * (1 - len(cdfs) * min(stages[-1])) > goal:
                    break
        return b + slack

    def _by_blocks(
        self,
        groups: Sequence[tuple[int, float]],
        family: tuple,  # type: ignore[type-arg]
        rounded: Callable[[int], int],
        evaluate: Callable[[int], float],
        stages: Sequence[Sequence[float]] = (LEVELS,),
        slack: float = 0.0,
        fixed: tuple[int, ...] = (),
    ) -> float:
        """:meth:`_by_chain` of one clone count M, the sum of the ``groups``' Bernoullis,
        with ``evaluate``(M) at M ``rounded`` down, the other parts' counts ``fixed``."""
        return self._by_chain(
            [block_cdf(groups)],
            family,
            lambda M: (*fixed, rounded(M[0])),
            lambda vec: evaluate(vec[-1]),
            stages,
            slack,
            1e-12 * len(groups),
        )

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
        parts_fixed, slack, fixed = self._fixed_extremes(cells, lo)

        def evaluate(M: int) -> float:
            parts = parts_fixed + (((M, mid_law),) if mid_law is not None and M > 0 else ())
            return km.delta_multi(cells, parts, self.eps)

        # no random count (empty groups): the one block M = 0
        return self._by_blocks(
            mid_groups, ("multi", cells.kind), ladder_down, evaluate, self._stages(cells),
            slack, fixed,
        )

    def _own(self, cells: Cells, lo: Sequence[int], hi: Sequence[int]) -> float:
        """The ``own`` tool: every class keeps its own law, the extreme classes exactly
        (counts at the lower corner), each other class c present at the lower corner as
        clones of its own law gamma_c/lambda_c, Bin(lo_c, theta_c) of them independently
        (the counts by a chain of corners, :func:`chain_bound`).  The users beyond
        the lower corner are revealed (a post-processing).  For the compositions of
        several middle classes, where one merged law's theta is small."""
        mids = [
            (i, c) for i, c in enumerate(self.classes) if lo[i] > 0 and not cells.is_extreme(c)
        ]
        if not mids or len(mids) > OWN_MAX_CLASSES:
            return 1.0
        parts_fixed, slack, fixed = self._fixed_extremes(cells, lo)
        laws = [self._natural(cells, c) for _, c in mids]
        groups = [
            (lo[i], self._theta(cells, law)[c]) for (i, c), law in zip(mids, laws, strict=True)
        ]
        # one family per system: every class with its own law, a vector of counts per part
        # (the extreme classes' and the middle classes' clones, 0 where absent)
        family = ("own", cells.kind)
        slot = {c: j for j, c in enumerate(c for c in self.classes if not cells.is_extreme(c))}

        def rounded(M: tuple[int, ...]) -> tuple[int, ...]:
            vec = [0] * len(slot)
            for (_, c), x in zip(mids, M, strict=True):
                vec[slot[c]] = ladder_down(x)
            return (*fixed, *vec)

        def evaluate(vec: tuple[int, ...]) -> float:
            parts = parts_fixed + tuple(
                (cnt, law)
                for (_, c), law in zip(mids, laws, strict=True)
                if (cnt := vec[len(fixed) + slot[c]]) > 0
            )
            return km.delta_multi(cells, parts, self.eps)

        cdfs = [block_cdf([g]) for g in groups]
        return self._by_chain(cdfs, family, rounded, evaluate, OWN_STAGES, slack)

    @staticmethod
    def _stages(cells: Cells) -> Sequence[Sequence[float]]:
        """Block level stages for the multi-law tools: fine where a convolution is cheap,
        coarse first where it is not."""
        return (LEVELS,) if cells.size <= 3 else MULTI_STAGES

    def _natural(self, cells: Cells, c: tuple[int, int]) -> ks.CloneLaw:
        key = ("natural", cells.kind, c)
        if key not in self._laws:
            self._laws[key] = km.natural_law(cells.clone_law(c))
        return self._laws[key]  # type: ignore[return-value]

    def _fixed_extremes(
        self, cells: Cells, lo: Sequence[int]
    ) -> tuple[tuple[tuple[int, ks.CloneLaw], ...], float, tuple[int, ...]]:
        """The extreme classes' users at the box's lower corner as exact parts (count
        rounded down, :func:`ladder_down`; natural law), :meth:`_not_all_clones` of them,
        and their counts per extreme class (0 where absent), the fixed part of the vector a
        family's bounds are indexed by (for the ``multi`` and ``own`` tools)."""
        counts = [
            (c, ladder_down(lo[i]) if lo[i] > 0 else 0)
            for i, c in enumerate(self.classes)
            if cells.is_extreme(c)
        ]
        parts = tuple((m, self._natural(cells, c)) for c, m in sorted(counts) if m > 0)
        return (
            parts,
            self._not_all_clones(cells, [(c, m) for c, m in counts if m > 0]),
            tuple(m for _, m in counts),
        )

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

        family = ("rest", cells.kind, e)
        slack = self._not_all_clones(cells, [(e, fixed)])
        # no random count (empty groups): the one block M = 0
        return self._by_blocks(
            groups, family, ladder_down, evaluate, self._stages(cells), slack, (fixed,)
        )

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
        """The least bound any tool gives for the box (stops at the first below delta); a
        tool whose evaluation would exceed the memory limit (:class:`krand_work.TooLarge`)
        gives the trivial bound 1, as does one that meets a MemoryError (the machine had
        less memory than the limit assumes)."""
        best, tool = 1.0, "none"
        for name, bound in self._tools(lo, hi):
            try:
                b = bound()
            except (TooLarge, MemoryError):
                continue
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

    def _mirrored(self, lo: Sequence[int], hi: Sequence[int]) -> bool:
        """Whether every composition of the box has more users in class (h, 0) than in
        (0, 0): each is then the mirror (:func:`mirror`) of one with fewer, which the boxes
        not so skipped cover, with the same delta."""
        return hi[self.classes.index((0, 0))] < lo[self.classes.index((self.h, 0))]

    def run(
        self,
        max_boxes: int = 100_000,
        max_seconds: float = math.inf,
        stop: Callable[[], bool] | None = None,
    ) -> CoverResult:
        """Settle every composition, or stop at the first one no tool settles, beyond
        ``max_boxes`` or ``max_seconds``, or once ``stop()`` is true (checked between
        boxes; the result then says ``stopped``).  ``max_seconds`` is also the deadline of
        the evaluations (:func:`krand_work.deadline`): one that runs past it is abandoned
        and the result says ``out_of_budget``, as between boxes."""
        start = time.perf_counter()
        res = CoverResult(False)
        with deadline(max_seconds):
            try:
                self._run(res, start, max_boxes, max_seconds, stop)
            except OutOfTime:  # in an evaluation: the box being worked on is not settled
                res.out_of_budget = True
                res.failed = self._current
        res.evaluations = self.evaluations
        res.seconds = time.perf_counter() - start
        return res

    def _run(
        self,
        res: CoverResult,
        start: float,
        max_boxes: int,
        max_seconds: float,
        stop: Callable[[], bool] | None,
    ) -> None:
        """The search of :meth:`run`, filling ``res``; the box being worked on is
        ``self._current``."""
        K = len(self.classes)
        S = self.n - 1
        root = (tuple([0] * K), tuple([S] * K))
        heap = [(self._priority(root[0]), 0, root)]
        tick = 1
        while heap:
            if stop is not None and stop():
                res.stopped = True
                break
            _, _, (lo, hi) = heapq.heappop(heap)
            res.boxes += 1
            self._current = lo
            if res.boxes > max_boxes or time.perf_counter() - start > max_seconds:
                res.out_of_budget = True
                res.failed = lo
                break
            if self._mirrored(lo, hi):
                res.settled.append(Settled(lo, hi, MIRROR, math.nan))
                continue
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


#: The "tool" of the boxes settled by :func:`mirror` symmetry.
MIRROR = "mirror image"


def mirror(classes: Sequence[tuple[int, int]], h: int, m: Sequence[int]) -> tuple[int, ...]:
    """The composition of the background XORed with 1^h 0^(L-h): class (u, v) -> (h - u, v).

    XOR of every vector and report with b = 1^h 0^(L-h) carries the pair (0 -> b) with
    background m to the pair (b -> 0) with this background (derivation Step 1), whose
    deltas are those of (0 -> b) in the other order; the cover bounds both orders, so delta
    is the same at m and at its mirror, and a cover need only settle the compositions with
    at least as many users in class (0, 0) as in (h, 0) (every other one is the mirror of
    one of those)."""
    index = {c: i for i, c in enumerate(classes)}
    out = [0] * len(m)
    for (u, v), x in zip(classes, m, strict=True):
        out[index[(h - u, v)]] = x
    return tuple(out)


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
