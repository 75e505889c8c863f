"""delta of the single-law N-experiment, as a certified float upper bound.

Setting (:mod:`dpcheck.enumeration.krand_cells`, the lemma): the changed user's report
falls in cell c with probability alpha_c (world x) or beta_c (world x'); M clones each
fall in cell c with probability phi_c, independently.  With N ~ Mult(M + 1, phi) the cell
histogram of all M + 1 reports, the laws of the N-experiment are
P_x(N) = Mult(N) sum_c alpha_c N_c / (phi_c (M + 1)) and the same with beta, so

    delta_(x'||x)(eps) = E[(sum_c g_c N_c)_+] / (M + 1),   g_c = (beta_c - e^eps alpha_c)/phi_c,

and the other order with alpha and beta exchanged (exact, no approximation).

**How E[(T)_+] is computed.**  Mode ``one``: phi is defined by *sticks*, exact floats
t_i = P(cell order[i] | not an earlier cell), rarest cells first; the counts of all but the
two commonest cells are enumerated by nested binomial tables, and given them
T = A + D j with j ~ Bin(R, t) the count of the second-commonest cell, so E[(A + D j)_+]
is a suffix (D > 0) or prefix (D < 0) sum of the table and of j times it.  Mode ``two``
(orbit cells (h + 1) x (L' + 1), product law phi = phi_B (x) phi_N, one coordinate with
two values): g = c_l G_k, so given the split M_0 ~ Bin(M + 1, pi_0) of the clones by that
coordinate, T = a_0 X_0 + a_1 X_1 with X_i independent linear statistics of Mult(M_i, psi)
over the other coordinate, enumerated as atoms; E[(a_0 X_0 + a_1 X_1)_+] by sorting one
side and suffix sums.

**Why the result is an upper bound.**  The coefficients are the midpoints of arb balls
of the exact g (alpha, beta, e^eps and phi enclosed): |g_c - g~_c| <= gerr, and the float
value of T is within gamma_K sum |g~_c| N_c of sum g~_c N_c, so T <= T~ + (M + 1) m with
m = gerr + gamma_K max |g~| and E[T_+] <= E[T~_+] + (M + 1) m.  Table entries carry a
relative error (:mod:`krand_tables`); sums of nonnegative floats a relative gamma_m;
signed sums an absolute error at most gamma_m times the sum of absolute values; every
configuration outside the windows has mass at most the windows' tails and contributes at
most (M + 1) max(g~)_+ + (M + 1) m.  :class:`Bound` adds these; delta is its upper end
divided by M + 1, rounded up.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

import flint
import numpy as np

from dpcheck.enumeration.krand_cells import PREC, Cells, _up
from dpcheck.enumeration.krand_tables import U, binom_table, gamma
from dpcheck.enumeration.krand_work import TooLarge, byte_cache, check_bytes, check_time


# --------------------------------------------------------------------------- clone laws
@dataclass(frozen=True)
class CloneLaw:
    """A law on cells 0..size-1 defined exactly by stick floats (module doc).

    ``order`` lists the cells, rarest first; ``sticks[i]`` (i < size - 1) is the exact
    conditional probability of ``order[i]`` given none of the earlier cells.
    """

    order: tuple[int, ...]
    sticks: tuple[float, ...]

    @classmethod
    def of(cls, phi: Sequence[float]) -> CloneLaw:
        """A stick law close to ``phi`` (nonnegative floats; normalised here)."""
        phi = np.asarray(phi, dtype=float)
        phi = phi / phi.sum()
        order = tuple(int(i) for i in np.argsort(phi, kind="stable"))
        rest = 1.0
        sticks = []
        for i in order[:-1]:
            t = 0.0 if rest <= 0 else min(1.0, max(0.0, float(phi[i]) / rest))
            sticks.append(t)
            rest -= float(phi[i])
        return cls(order, tuple(sticks))

    @property
    def size(self) -> int:
        return len(self.order)

    def arb(self) -> list[flint.arb]:
        """The exact cell probabilities (arb)."""
        out = [flint.arb(0)] * self.size
        with flint.ctx.workprec(PREC):
            left = flint.arb(1)
            for c, t in zip(self.order, self.sticks, strict=False):
                out[c] = left * flint.arb(t)
                left = left * (1 - flint.arb(t))
            out[self.order[-1]] = left
        return out

    def floats(self) -> np.ndarray:
        return np.array([float(x.mid()) for x in self.arb()])


@dataclass(frozen=True)
class ProductLaw:
    """phi_B (x) phi_N on the orbit grid (h + 1) x (L' + 1)."""

    first: CloneLaw
    second: CloneLaw

    @property
    def size(self) -> int:
        return self.first.size * self.second.size

    def arb(self) -> list[flint.arb]:
        a, b = self.first.arb(), self.second.arb()
        with flint.ctx.workprec(PREC):
            return [x * y for x in a for y in b]

    def floats(self) -> np.ndarray:
        return np.array([float(x.mid()) for x in self.arb()])


Law = CloneLaw | ProductLaw


# --------------------------------------------------------------------------- bounds
@dataclass
class Bound:
    """E[T_+] lies in [value (1 - rel) - err, value (1 + rel) + err + tail]: ``err`` covers
    rounding (either way), ``tail`` the mass left outside the windows (only adds)."""

    value: float = 0.0
    rel: float = 0.0
    err: float = 0.0
    tail: float = 0.0

    @property
    def upper(self) -> float:
        x = self.value * (1 + self.rel) + self.err + self.tail
        return math.nextafter(x * (1 + 4 * U), math.inf)

    @property
    def lower(self) -> float:
        x = self.value * (1 - self.rel) - self.err
        return max(0.0, math.nextafter(x * (1 - 4 * U), -math.inf))


def _exp_ball(eps: float) -> flint.arb:
    with flint.ctx.workprec(PREC):
        return flint.arb(eps).exp()


def _mids(balls: Sequence[flint.arb]) -> tuple[np.ndarray, float]:
    mids = np.array([float(b.mid()) for b in balls])
    with flint.ctx.workprec(PREC):
        err = max(_up(abs(b - m)) for b, m in zip(balls, mids, strict=False))
    return mids, err


def _ratio(num: flint.arb, den: flint.arb) -> flint.arb:
    return num / den if den.upper() > 0 else flint.arb(0)


def coefficients(
    cells: Cells, law: Sequence[flint.arb], eps: float
) -> tuple[list[np.ndarray], float]:
    """g for both orders (x'||x: beta - e^eps alpha; x||x': the swap), float mids and
    gerr >= max |g - mid| (arb).  Cells the clones never reach get 0 (N_c = 0 there)."""
    E = _exp_ball(eps)
    out, err = [], 0.0
    with flint.ctx.workprec(PREC):
        for num, den in ((cells.beta, cells.alpha), (cells.alpha, cells.beta)):
            g, e = _mids([_ratio(x - E * y, f) for x, y, f in zip(num, den, law, strict=False)])
            out.append(g)
            err = max(err, e)
    return out, err


# --------------------------------------------------------------------------- enumeration
@dataclass
class Atoms:
    """Configurations of enumerated counts: weight, partial value, remaining count."""

    w: np.ndarray
    a: np.ndarray
    rem: np.ndarray
    eta: float  # relative error of every weight
    excluded: float  # mass of the configurations left outside the windows


def _groups(rem: np.ndarray) -> tuple[np.ndarray, list[tuple[int, slice]]]:
    """A stable order sorting ``rem`` and the slices of equal values in it."""
    order = np.argsort(rem, kind="stable")
    r = rem[order]
    vals, starts = np.unique(r, return_index=True)
    ends = list(starts[1:]) + [len(r)]
    runs = zip(vals, starts, ends, strict=False)
    return order, [(int(v), slice(int(a), int(b))) for v, a, b in runs]


#: Peak bytes per configuration while :func:`one_atoms` (or :func:`enumerate_counts`)
#: builds them (measured with tracemalloc: about 70; once built they hold 20).
ATOM_BYTES = 72
#: Seconds per configuration built (measured: about 3.4e-7; taken low, see
#: :func:`krand_work.check_time`).
ATOM_SECONDS = 2e-7


def enumerate_counts(
    R0: int, cells: Sequence[int], sticks: Sequence[float], g: np.ndarray
) -> Atoms:
    """Counts of ``cells`` in Mult(R0, law), by nested binomial tables (module doc).

    Each stage's configurations are counted before they are built: :class:`TooLarge`
    above :data:`krand_work.EVAL_BYTES` (at :data:`ATOM_BYTES` each); the deadline is
    checked at every stage (:func:`krand_work.check_time`)."""
    w, a = np.ones(1), np.zeros(1)
    rem = np.array([R0], dtype=np.int64)
    eta = excluded = 0.0
    for c, t in zip(cells, sticks, strict=False):
        check_time()
        ws, as_, rs = [], [], []
        stage_eta = stage_tail = 0.0
        order, groups = _groups(rem)
        tabs = [binom_table(R, float(t)) for R, _ in groups]
        size = sum(
            (sl.stop - sl.start) * (tab.hi - tab.lo + 1)
            for (_, sl), tab in zip(groups, tabs, strict=True)
        )
        check_bytes(size * ATOM_BYTES, f"Mult({R0}) over {len(cells) + 2} cells")
        check_time(size * ATOM_SECONDS)
        w, a = w[order], a[order]
        for (R, sl), tab in zip(groups, tabs, strict=True):
            stage_eta, stage_tail = max(stage_eta, tab.eta), max(stage_tail, tab.tail)
            k = np.arange(tab.lo, tab.hi + 1)
            keep = tab.f > 0
            k, f = k[keep], tab.f[keep]
            ws.append(np.outer(w[sl], f).ravel())
            as_.append((a[sl][:, None] + g[c] * k[None, :]).ravel())
            rs.append(np.broadcast_to(R - k[None, :], (sl.stop - sl.start, len(k))).ravel())
        w, a, rem = np.concatenate(ws), np.concatenate(as_), np.concatenate(rs)
        eta += stage_eta + 2 * U
        excluded += stage_tail
    return Atoms(w, a, rem.astype(np.int64), eta, excluded)


def _suffix(x: np.ndarray) -> np.ndarray:
    out = np.zeros(len(x) + 1)
    out[:-1] = np.cumsum(x[::-1])[::-1]
    return out


def _prefix(x: np.ndarray) -> np.ndarray:
    out = np.zeros(len(x) + 1)
    out[1:] = np.cumsum(x)
    return out


def linear_positive_part(
    A: np.ndarray, D: float, lo: int, f: np.ndarray, R: int
) -> tuple[np.ndarray, np.ndarray]:
    """Per entry a of A: (sum_j f_j (a + D j)_+ over the table j = lo, lo + 1, ... (f a
    binomial table of R trials), and the weight e with |float - exact| <= gamma(len(f) + 8)
    e).  Closed form: the positive terms are a suffix (D > 0) or a prefix (D < 0) of the
    table, summed from suffix or prefix sums of f and j f."""
    j = np.arange(lo, lo + len(f), dtype=float)
    n = len(f)
    if D > 0:  # A + D j > 0 iff j >= floor(-A/D) + 1: suffix sums from there
        S0, S1 = _suffix(f), _suffix(j * f)
        idx = np.clip(np.floor(-A / D) + 1 - lo, 0, n).astype(np.int64)
        # the float quotient may be off by one: settle the two neighbours by the sign
        # of A + D j itself (a float sign is wrong only within rounding of 0)
        back = (idx > 0) & (A + D * (lo + idx - 1) > 0)
        idx = idx - back
        fwd = (idx < n) & (A + D * (lo + np.minimum(idx, n - 1)) <= 0)
        idx = idx + fwd
    elif D < 0:  # iff j <= ceil(-A/D) - 1: prefix sums up to there
        S0, S1 = _prefix(f), _prefix(j * f)
        idx = np.clip(np.ceil(-A / D) - lo, 0, n).astype(np.int64)
        fwd = (idx < n) & (A + D * (lo + np.minimum(idx, n - 1)) > 0)
        idx = idx + fwd
        back = (idx > 0) & (A + D * (lo + idx - 1) <= 0)
        idx = idx - back
    else:
        S0 = np.array([float(f.sum()), 0.0])
        S1 = np.array([float((j * f).sum()), 0.0])
        idx = np.where(A > 0, 0, 1)
    s0, s1 = S0[idx], S1[idx]
    # signed sums: gamma times the sum of absolute values; a boundary term whose float
    # sign is wrong has |A + D j| within rounding of 0: covered by the same bound
    fmax = float(f.max())
    return np.maximum(A * s0 + D * s1, 0.0), np.abs(A) * (s0 + fmax) + abs(D) * (s1 + R * fmax)


@dataclass(frozen=True)
class OneAtoms:
    """The configurations of the counts of all but the two commonest cells of Mult(R0, law)
    (mode ``one``), which do not depend on eps: weights ``w`` and the counts ``k`` of each
    enumerated cell (in the law's order), sorted stably by the remaining count as
    :func:`positive_part_one` sums them, with the ``runs`` (R, start, stop) of equal
    remaining count R; ``eta`` and ``excluded`` as in :class:`Atoms`."""

    w: np.ndarray
    k: tuple[np.ndarray, ...]
    runs: tuple[tuple[int, int, int], ...]
    eta: float
    excluded: float


#: Memory the cached :class:`OneAtoms` may hold (least recently used dropped first): the
#: same experiment is evaluated at many eps (the lower bound's bisection, both orders of
#: delta, the covers' attempts), and enumerating and sorting its configurations was most
#: of an evaluation's time.
ONE_CACHE_BYTES = 2**29


def _one_bytes(atoms: OneAtoms) -> int:
    return int(atoms.w.nbytes + sum(x.nbytes for x in atoms.k))


@byte_cache(lambda: ONE_CACHE_BYTES, _one_bytes)
def one_atoms(R0: int, law: CloneLaw) -> OneAtoms:
    """:class:`OneAtoms` of Mult(R0, law), built as :func:`enumerate_counts` builds its atoms
    (the same tables, order and weights; counts kept instead of the values, which depend on
    eps), cached within :data:`ONE_CACHE_BYTES`.  :class:`TooLarge` above the memory limit
    (:data:`ATOM_BYTES` per configuration), the deadline checked at every stage."""
    K = law.size
    cells, sticks = law.order[: K - 2], law.sticks[: K - 2]
    w = np.ones(1)
    cols: list[np.ndarray] = []
    rem = np.array([R0], dtype=np.int64)
    eta = excluded = 0.0
    for t in sticks:
        check_time()
        stage_eta = stage_tail = 0.0
        order, groups = _groups(rem)
        tabs = [binom_table(R, float(t)) for R, _ in groups]
        size = sum(
            (sl.stop - sl.start) * (tab.hi - tab.lo + 1)
            for (_, sl), tab in zip(groups, tabs, strict=True)
        )
        check_bytes(size * ATOM_BYTES, f"Mult({R0}) over {K} cells")
        check_time(size * ATOM_SECONDS)
        w, cols = w[order], [x[order] for x in cols]
        ws: list[np.ndarray] = []
        rs: list[np.ndarray] = []
        olds: list[list[np.ndarray]] = [[] for _ in cols]
        new: list[np.ndarray] = []
        for (R, sl), tab in zip(groups, tabs, strict=True):
            stage_eta, stage_tail = max(stage_eta, tab.eta), max(stage_tail, tab.tail)
            k = np.arange(tab.lo, tab.hi + 1)
            keep = tab.f > 0
            k, f = k[keep], tab.f[keep]
            n_sl = sl.stop - sl.start
            ws.append(np.outer(w[sl], f).ravel())
            for j, x in enumerate(cols):
                olds[j].append(np.repeat(x[sl], len(k)))
            new.append(np.tile(k.astype(np.int32), n_sl))
            rs.append(np.broadcast_to(R - k[None, :], (n_sl, len(k))).ravel())
        w, rem = np.concatenate(ws), np.concatenate(rs).astype(np.int64)
        del ws, rs
        cols = [np.concatenate(olds.pop(0)) for _ in range(len(olds))] + [np.concatenate(new)]
        del new
        eta += stage_eta + 2 * U
        excluded += stage_tail
    order, groups = _groups(rem)
    del rem
    w = w[order]
    for j in range(len(cols)):
        cols[j] = cols[j][order]
    for x in (w, *cols):
        x.setflags(write=False)
    runs = tuple((R, sl.start, sl.stop) for R, sl in groups)
    assert len(cols) == len(cells)
    return OneAtoms(w, tuple(cols), runs, eta, excluded)


def positive_part_one(law: CloneLaw, M: int, g: np.ndarray, margin: float) -> Bound:
    """Bound on E[(sum_c g_c N_c)_+], N ~ Mult(M + 1, law), when T <= T~ + (M + 1) margin.

    The configurations come from :func:`one_atoms` (cached across eps and both orders);
    each one's partial value sum_c g_c N_c is accumulated cell by cell in the law's order,
    as :func:`enumerate_counts` does, so the sums are those of the enumeration."""
    K, R0 = law.size, M + 1
    shift = R0 * margin
    gpos = max(0.0, float(np.max(g)))
    if K == 1:
        return Bound(max(0.0, float(g[law.order[0]]) * R0), 4 * U, shift)
    atoms = one_atoms(R0, law)
    gk = [g[c] for c in law.order[: K - 2]]
    ca, cb = law.order[K - 2], law.order[K - 1]
    t = law.sticks[K - 2]  # P(cell ca | {ca, cb}); j counts cell ca
    D = float(g[ca]) - float(g[cb])
    total = err_abs = 0.0
    tail_abs = atoms.excluded * (gpos * R0 + shift)
    eta_tab = 0.0
    n_terms = 0
    if len(atoms.runs) == len(atoms.w) > 1:  # one configuration per remaining count (K = 3)
        return _one_per_run(atoms, gk, float(g[cb]), D, float(t), tail_abs, shift)
    for R, a0, b0 in atoms.runs:
        check_time()
        w = atoms.w[a0:b0]
        a = np.zeros(b0 - a0)
        for gc, col in zip(gk, atoms.k, strict=True):
            a = a + gc * col[a0:b0]
        A = a + float(g[cb]) * R
        tab = binom_table(R, float(t))
        eta_tab = max(eta_tab, tab.eta)
        pos, err_w = linear_positive_part(A, D, tab.lo, tab.f, R)
        total += float((w * pos).sum())
        err_abs += float((w * err_w).sum()) * gamma(len(tab.f) + 8)
        tail_abs += float((w * np.maximum(A + max(D, 0.0) * R, 0.0)).sum()) * tab.tail
        n_terms += len(w)
    rel = atoms.eta + eta_tab + gamma(n_terms + 2) + 4 * U
    return Bound(total, rel, err_abs * (1 + 1e-6) + shift, tail_abs)


@dataclass(frozen=True)
class StackedTables:
    """The tables of the runs of a :class:`OneAtoms` with one configuration per run,
    stacked into arrays (one row per run, left aligned, padded with zeros), with their
    suffix and prefix sums of f and j f: everything :func:`_one_per_run` needs that does
    not depend on eps."""

    lo: np.ndarray
    n: np.ndarray
    R: np.ndarray
    suffix0: np.ndarray
    suffix1: np.ndarray
    prefix0: np.ndarray
    prefix1: np.ndarray
    total0: np.ndarray
    total1: np.ndarray
    fmax: np.ndarray
    gam: np.ndarray
    tails: np.ndarray
    eta: float


#: Memory the cached :class:`StackedTables` may hold (least recently used dropped first).
STACKED_CACHE_BYTES = 2**28


def _stacked_bytes(st: StackedTables) -> int:
    return int(sum(x.nbytes for x in (st.suffix0, st.suffix1, st.prefix0, st.prefix1)))


@byte_cache(lambda: STACKED_CACHE_BYTES, _stacked_bytes)
def stacked_tables(runs: tuple[int, ...], t: float) -> StackedTables:
    """:class:`StackedTables` of the tables Bin(R, t), R in ``runs`` (cached).  The padding
    adds exact zeros after the last real entry of a prefix sum and before the first of a
    suffix sum, so each row's sums are those of :func:`_suffix` and :func:`_prefix` of its
    table."""
    tabs = [binom_table(R, t) for R in runs]
    width = max(len(tab.f) for tab in tabs)
    check_bytes(len(tabs) * (width + 1) * 8 * 10, "stacked binomial tables")
    check_time(len(tabs) * width * ATOM_SECONDS / 4)  # four cumulative sums, fast
    F = np.zeros((len(tabs), width))
    for i, tab in enumerate(tabs):
        F[i, : len(tab.f)] = tab.f
    lo = np.array([tab.lo for tab in tabs], dtype=np.int64)
    JF = (lo[:, None] + np.arange(width)[None, :]).astype(float) * F
    suffix0 = np.zeros((len(tabs), width + 1))
    suffix1 = np.zeros((len(tabs), width + 1))
    suffix0[:, :-1] = np.cumsum(F[:, ::-1], axis=1)[:, ::-1]
    suffix1[:, :-1] = np.cumsum(JF[:, ::-1], axis=1)[:, ::-1]
    prefix0 = np.zeros((len(tabs), width + 1))
    prefix1 = np.zeros((len(tabs), width + 1))
    prefix0[:, 1:] = np.cumsum(F, axis=1)
    prefix1[:, 1:] = np.cumsum(JF, axis=1)
    del F, JF
    total0 = np.array([float(tab.f.sum()) for tab in tabs])
    total1 = np.array(
        [float((np.arange(tab.lo, tab.lo + len(tab.f), dtype=float) * tab.f).sum()) for tab in tabs]
    )
    return StackedTables(
        lo,
        np.array([len(tab.f) for tab in tabs], dtype=np.int64),
        np.array(runs, dtype=np.int64),
        suffix0,
        suffix1,
        prefix0,
        prefix1,
        total0,
        total1,
        np.array([float(tab.f.max()) for tab in tabs]),
        np.array([gamma(len(tab.f) + 8) for tab in tabs]),
        np.array([tab.tail for tab in tabs]),
        max(tab.eta for tab in tabs),
    )


def _one_per_run(
    atoms: OneAtoms,
    gk: Sequence[float],
    g_last: float,
    D: float,
    t: float,
    tail_abs: float,
    shift: float,
) -> Bound:
    """The loop of :func:`positive_part_one` when every remaining count R holds one
    configuration (a single enumerated cell: 2466 runs at n = 10^5, each a dozen small
    array operations, 0.6 s an evaluation): all runs at once on their tables stacked
    (:func:`stacked_tables`, cached).  Every entry is the one the loop computes (the same
    operations on the same numbers), and the running sums over the runs are accumulated
    in the loop's order (cumulative sums from the loop's starting values)."""
    st = stacked_tables(tuple(R for R, _, _ in atoms.runs), t)
    lo, n, R = st.lo, st.n, st.R
    w = np.asarray(atoms.w)
    a = np.zeros(len(w))
    for gc, col in zip(gk, atoms.k, strict=True):
        a = a + gc * col
    A = a + g_last * R
    rows = np.arange(len(w))
    if D > 0:  # A + D j > 0 iff j >= floor(-A/D) + 1 (linear_positive_part)
        idx = np.clip(np.floor(-A / D) + 1 - lo, 0, n).astype(np.int64)
        back = (idx > 0) & (A + D * (lo + idx - 1) > 0)
        idx = idx - back
        fwd = (idx < n) & (A + D * (lo + np.minimum(idx, n - 1)) <= 0)
        idx = idx + fwd
        s0, s1 = st.suffix0[rows, idx], st.suffix1[rows, idx]
    elif D < 0:
        idx = np.clip(np.ceil(-A / D) - lo, 0, n).astype(np.int64)
        fwd = (idx < n) & (A + D * (lo + np.minimum(idx, n - 1)) > 0)
        idx = idx + fwd
        back = (idx > 0) & (A + D * (lo + idx - 1) <= 0)
        idx = idx - back
        s0, s1 = st.prefix0[rows, idx], st.prefix1[rows, idx]
    else:
        s0 = np.where(A > 0, st.total0, 0.0)
        s1 = np.where(A > 0, st.total1, 0.0)
    pos = np.maximum(A * s0 + D * s1, 0.0)
    err_w = np.abs(A) * (s0 + st.fmax) + abs(D) * (s1 + R * st.fmax)
    total = float(np.cumsum(np.concatenate(([0.0], w * pos)))[-1])
    err_abs = float(np.cumsum(np.concatenate(([0.0], (w * err_w) * st.gam)))[-1])
    tail_terms = (w * np.maximum(A + max(D, 0.0) * R, 0.0)) * st.tails
    tail_abs = float(np.cumsum(np.concatenate(([tail_abs], tail_terms)))[-1])
    rel = atoms.eta + st.eta + gamma(len(w) + 2) + 4 * U
    return Bound(total, rel, err_abs * (1 + 1e-6) + shift, tail_abs)


#: Most configurations :func:`count_atoms` builds (memory: 8 (K + 2) bytes each); above,
#: :class:`TooLarge` (the callers skip the candidate or leave the box unsettled).
MAX_ATOMS = 2_000_000
#: Memory the cached configurations of :func:`count_atoms` may hold (least recently used
#: dropped first; it was a count of 4096 entries, up to 100 MB each).
ATOMS_CACHE_BYTES = 2**28


def _atoms_bytes(value: tuple[np.ndarray, np.ndarray, float, float]) -> int:
    return int(value[0].nbytes + value[1].nbytes)


@byte_cache(lambda: ATOMS_CACHE_BYTES, _atoms_bytes)
def count_atoms(R: int, law: CloneLaw) -> tuple[np.ndarray, np.ndarray, float, float]:
    """(weights, counts, eta, excluded): every configuration of Mult(R, law) in the windows,
    its counts per cell as the rows of an integer matrix (independent of eps: cached within
    :data:`ATOMS_CACHE_BYTES`).  Raises :class:`TooLarge` above :data:`MAX_ATOMS`
    configurations."""
    K = law.size
    w = np.ones(1)
    counts = np.zeros((1, K), dtype=np.int64)
    rem = np.array([R], dtype=np.int64)
    eta = excluded = 0.0
    for c, t in zip(law.order[:-1], law.sticks, strict=False):
        check_time()
        ws, cs, rs = [], [], []
        stage_eta = stage_tail = 0.0
        order, groups = _groups(rem)
        w, counts = w[order], counts[order]
        size = 0
        for Rr, sl in groups:
            tab = binom_table(Rr, float(t))
            size += (sl.stop - sl.start) * (tab.hi - tab.lo + 1)
            if size > MAX_ATOMS:
                raise TooLarge(f"Mult({R}) over {K} cells: more than {MAX_ATOMS} configurations")
            stage_eta, stage_tail = max(stage_eta, tab.eta), max(stage_tail, tab.tail)
            k = np.arange(tab.lo, tab.hi + 1)
            keep = tab.f > 0
            k, f = k[keep], tab.f[keep]
            base = counts[sl]
            rep = np.repeat(base, len(k), axis=0)
            rep[:, c] = np.tile(k, len(base))
            ws.append(np.outer(w[sl], f).ravel())
            cs.append(rep)
            rs.append(np.repeat(Rr - 0 * base[:, 0], len(k)) - np.tile(k, len(base)))
        w, counts, rem = np.concatenate(ws), np.concatenate(cs), np.concatenate(rs)
        eta += stage_eta + 2 * U
        excluded += stage_tail
    counts[:, law.order[-1]] = rem
    counts.setflags(write=False)
    w.setflags(write=False)
    return w, counts, eta, excluded


def _atoms_full(
    R: int, law: CloneLaw, v: np.ndarray
) -> tuple[np.ndarray, np.ndarray, float, float]:
    """(weights, values, eta, excluded): the configurations of Mult(R, law), value sum v_c N_c."""
    w, counts, eta, excluded = count_atoms(R, law)
    # column by column, not ``counts @ v``: a matrix product would start BLAS threads,
    # which oversubscribe the cores when covers run side by side (krand_workers)
    x = counts[:, 0] * float(v[0])
    for c in range(1, counts.shape[1]):
        x += counts[:, c] * float(v[c])
    return w, x, eta, excluded


@dataclass(frozen=True)
class _Side:
    """One group's values a X sorted, its weights in the same order, with suffix sums of
    w (CW[0]: their total), w y and w |y|."""

    y: np.ndarray
    w: np.ndarray
    CW: np.ndarray
    CWY: np.ndarray
    CAY: np.ndarray
    eta: float
    excluded: float


#: Memory the cached sorted sides may hold (least recently used dropped first): a side of
#: a large multinomial holds millions of configurations, so a count limit is not enough.
SIDE_CACHE_BYTES = 2 * 2**30


class _SideCache:
    """Sorted sides by key, least recently used dropped first once their arrays hold more
    than :data:`SIDE_CACHE_BYTES` (the newest is always kept)."""

    def __init__(self) -> None:
        self._sides: OrderedDict[tuple, _Side] = OrderedDict()  # type: ignore[type-arg]
        self.bytes = 0

    @staticmethod
    def size(side: _Side) -> int:
        return sum(x.nbytes for x in (side.y, side.w, side.CW, side.CWY, side.CAY))

    def get(self, key: tuple) -> _Side | None:  # type: ignore[type-arg]
        side = self._sides.get(key)
        if side is not None:
            self._sides.move_to_end(key)
        return side

    def put(self, key: tuple, side: _Side) -> None:  # type: ignore[type-arg]
        self._sides[key] = side
        self.bytes += self.size(side)
        while self.bytes > SIDE_CACHE_BYTES and len(self._sides) > 1:
            _, old = self._sides.popitem(last=False)
            self.bytes -= self.size(old)


_SIDES = _SideCache()


def _sorted_side(M: int, law: CloneLaw, v: tuple[float, ...], a: float) -> _Side:
    """Mult(M, law)'s values a sum v_c N_c sorted, with their weights and suffix sums
    (cached within :data:`SIDE_CACHE_BYTES`)."""
    key = (M, law, v, a)
    side = _SIDES.get(key)
    if side is not None:
        return side
    w, x, eta, excluded = _atoms_full(M, law, np.asarray(v))
    y = a * x
    o = np.argsort(y, kind="stable")
    y, w = y[o], w[o]
    side = _Side(y, w, _suffix(w), _suffix(w * y), _suffix(w * np.abs(y)), eta, excluded)
    _SIDES.put(key, side)
    return side


def positive_part_two(
    split: CloneLaw, inner: CloneLaw, M: int, a: Sequence[float], v: np.ndarray, margin: float
) -> Bound:
    """Bound on E[(a_0 X_0 + a_1 X_1)_+] (mode ``two``), T <= T~ + (M + 1) margin.

    Both groups' values are sorted (cached per count): a value x of group 0 meets a
    positive sum only if x > -max y, so only that suffix of group 0 is visited (the others
    add 0 to the sum and to its error weight)."""
    if split.size != 2:
        raise ValueError("mode two needs a coordinate with two values")
    R0 = M + 1
    shift = R0 * margin
    first = split.order[0]  # its count k ~ Bin(R0, sticks[0]); the other group has R0 - k
    tab = binom_table(R0, split.sticks[0])
    a0, a1 = float(a[0]), float(a[1])
    top = max(abs(a0), abs(a1)) * float(np.max(np.abs(v))) * R0
    total = err_abs = 0.0
    eta = tab.eta
    excluded = tab.tail
    n_terms = 0
    v_key = tuple(float(x) for x in v)
    for i, k in enumerate(range(tab.lo, tab.hi + 1)):
        pm = float(tab.f[i])
        if pm == 0.0:
            continue
        check_time()
        M0 = k if first == 0 else R0 - k
        side0 = _sorted_side(M0, inner, v_key, a0)
        side = _sorted_side(R0 - M0, inner, v_key, a1)
        start = int(np.searchsorted(side0.y, -side.y[-1], side="right")) if len(side.y) else 0
        x, w0 = side0.y[start:], side0.w[start:]
        # keys ascending (-x reversed): numpy's search reuses the previous position
        idx = np.searchsorted(side.y, -x[::-1], side="right")[::-1]
        total += pm * float((w0 * np.maximum(x * side.CW[idx] + side.CWY[idx], 0.0)).sum())
        err_abs += (
            pm
            * float((w0 * (np.abs(x) * side.CW[idx] + side.CAY[idx])).sum())
            * gamma(len(side.y) + 4)
        )
        # ties at the boundary: x + y within rounding of 0 contribute at most that much
        err_abs += pm * float(side0.CW[0]) * gamma(8) * top
        eta = max(eta, tab.eta + side0.eta + side.eta)
        excluded = max(excluded, tab.tail + side0.excluded + side.excluded)
        n_terms += len(side0.y)
    rel = eta + gamma(n_terms + 4) + 8 * U
    return Bound(total, rel, err_abs * (1 + 1e-6) + shift, excluded * (top + shift))


# --------------------------------------------------------------------------- delta
def _finish(bounds: Sequence[Bound], M: int, lower: bool = False) -> float:
    if lower:
        return max(0.0, math.nextafter(max(b.lower for b in bounds) / (M + 1), -math.inf))
    best = max(b.upper for b in bounds) / (M + 1)
    return min(1.0, math.nextafter(best, math.inf))


def delta_one(cells: Cells, law: CloneLaw, M: int, eps: float, lower: bool = False) -> float:
    """Certified upper bound on delta(eps), both orders (mode ``one``); with ``lower``, a
    certified lower bound instead (the windows' tails left out)."""
    gs, gerr = coefficients(cells, law.arb(), eps)
    return _finish(
        [positive_part_one(law, M, g, gerr + gamma(law.size) * float(np.abs(g).max())) for g in gs],
        M,
        lower,
    )


def delta_two(cells: Cells, law: ProductLaw, M: int, eps: float, lower: bool = False) -> float:
    """Certified upper bound (mode ``two``): orbit cells, product law, one coordinate of
    the grid with two values (the L' = 1 or the h = 1 orbit systems)."""
    if cells.kind != "orbit":
        raise ValueError("mode two is for the orbit cells")
    n0, n1 = cells.shape
    axis = 1 if n1 == 2 else 0 if n0 == 2 else None
    if axis is None:
        raise ValueError("mode two needs h = 1 or L' = 1")
    E = _exp_ball(eps)
    aB, bB, aN = cells.factors
    phiB, phiN = law.first.arb(), law.second.arb()
    bounds = []
    with flint.ctx.workprec(PREC):
        c = [_ratio(x, f) for x, f in zip(aN, phiN, strict=False)]
        for num, den in ((bB, aB), (aB, bB)):
            G = [_ratio(x - E * y, f) for x, y, f in zip(num, den, phiB, strict=False)]
            cm, ec = _mids(c)
            Gm, eG = _mids(G)
            gerr = max(
                _up(abs(cl * Gk - float(cm[i]) * float(Gm[k])))
                for k, Gk in enumerate(G)
                for i, cl in enumerate(c)
            )
            gmax = float(np.abs(np.outer(Gm, cm)).max())
            margin = gerr + gamma(8) * gmax
            if axis == 1:  # split by l: a = c, inner values G over k
                bounds.append(positive_part_two(law.second, law.first, M, cm, Gm, margin))
            else:  # split by k: a = G, inner values c over l
                bounds.append(positive_part_two(law.first, law.second, M, Gm, cm, margin))
    return _finish(bounds, M, lower)


def delta_single(cells: Cells, law: Law, M: int, eps: float, lower: bool = False) -> float:
    """Certified upper (or, with ``lower``, lower) bound on delta(eps) of the single-law
    N-experiment, the larger of the two orders."""
    if isinstance(law, ProductLaw):
        return delta_two(cells, law, M, eps, lower)
    return delta_one(cells, law, M, eps, lower)
