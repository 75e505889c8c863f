"""delta of the multi-law N-experiment, as a certified float upper bound.

Setting (:mod:`dpcheck.enumeration.krand_cells`): the changed user's report falls in cell
c with probability alpha_c or beta_c; for each law phi_i, c_i clones fall in cells with
probabilities phi_i, independently (the counts c_i known).  The background histogram
P_B = Mult(c_1, phi_1) * Mult(c_2, phi_2) * ... (convolution over the cell counts) and

    delta_(x'||x)(eps) = sum_N (sum_k (beta_k - e^eps alpha_k) P_B(N - e_k))_+

(and the swap); the hockey-stick divergence of the exact laws of the N-experiment.

**How.**  Each multinomial is enumerated over the counts of all cells but one from
nested binomial tables (:mod:`krand_tables`: relative error eta per entry, the windows
leaving out at most their tails) and its weights are summed straight onto the
convolution box modulo its shape (:func:`folded`, one ``bincount``); the boxes are
convolved by FFT (scipy's pocketfft); P_x and P_x' are formed and sorted once into a
loss curve, so delta at any eps is a lookup (:class:`MultiCurve`).

**Error bound.**  Convolution of nonnegative arrays with relative errors adds them.  The
FFT route is bounded with Higham (*Accuracy and Stability*, 2nd ed., Thm 24.2): a
computed length-n FFT is within ||.||_2-relative log2(n) eta of the exact one, eta <=
mu + gamma_4 (sqrt 2 + mu); with the twiddle error mu <= 4u this gives eta <= 10u, and
for y = ifft(fft a . fft b)/n the computed result is within

    e_2 = eta_n (||y||_2 + 2 ||a||_2 ||b||_1 + 2 ||a||_1 ||b||_2),   eta_n = 10 u log2 n,

in the 2-norm, so within sqrt(cells) e_2 in the 1-norm (the negative rounding artefacts
are clipped to 0, which only moves values towards the true ones).  The bound is
multiplied by :data:`FFT_SAFETY`.  Then |P~ - P| summed over cells is at most
eta sum P~ + e_1 for each law of the pair, and delta <= delta~ + sum_k |d_k| (eta sum P~_B
+ e_1) + (mass left outside the windows).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import flint
import numpy as np
import scipy.fft as sfft

from dpcheck.enumeration.krand_cells import PREC, Cells, _up
from dpcheck.enumeration.krand_l1_exact import bernstein_t
from dpcheck.enumeration.krand_single import CloneLaw, _groups
from dpcheck.enumeration.krand_tables import U, binom_table, gamma
from dpcheck.enumeration.krand_work import check_bytes, check_time

#: Factor applied to the FFT error bound of Higham's theorem.
FFT_SAFETY = 10.0
#: The convolution box holds all but 2 (K - 1) exp(-LAM_BOX) of the background's mass.
LAM_BOX = 28.0
#: Threads for the FFTs (scipy.fft).
WORKERS = 2


@dataclass
class Grid:
    """A nonnegative array over the counts of cells ``cells[:-1]`` (the last cell takes
    the remainder), starting at ``offset``; entries within a relative ``eta`` plus an
    absolute 1-norm error ``err1``; ``excluded`` mass left out."""

    arr: np.ndarray
    offset: np.ndarray
    eta: float
    err1: float
    excluded: float


@dataclass
class Configs:
    """Mult(count, law) as its configurations: ``sub`` the counts of cells 0..K-2 (cell
    K-1 implied, each row distinct), ``w`` their weights within a relative ``eta``;
    ``excluded`` mass left outside the tables' windows."""

    sub: np.ndarray
    w: np.ndarray
    eta: float
    excluded: float


#: Peak bytes per configuration while :func:`multinomial_configs` builds them (counts,
#: weights and the stage's lists; measured with tracemalloc: about 97); once built they
#: hold 8 K bytes each.
CONFIG_BYTES = 100
#: Peak bytes per cell of an FFT box in :func:`pair_arrays` besides the configurations
#: (folded parts, spectra, the background and the pair of laws; measured: about 40).
BOX_BYTES = 48
#: Seconds per configuration built and per box cell convolved (measured: about 4e-8 and
#: 2.7e-7; taken low, see :func:`krand_work.check_time`).
CONFIG_SECONDS = 2e-8
CELL_SECONDS = 1e-7


def multinomial_configs(count: int, law: CloneLaw, K: int, held: float = 0.0) -> Configs:
    """Mult(count, law)'s configurations from nested binomial tables in the law's own
    order (the last cell of that order implied).  Each stage's configurations are counted
    before they are built: :class:`krand_work.TooLarge` when they (at
    :data:`CONFIG_BYTES` each) and the ``held`` bytes would exceed
    :data:`krand_work.EVAL_BYTES`."""
    order, sticks = law.order, law.sticks
    counts = np.zeros((1, K), dtype=np.int64)
    w = np.ones(1)
    rem = np.array([count], dtype=np.int64)
    eta = excluded = 0.0
    for c, t in zip(order[:-1], sticks, strict=False):
        check_time()
        new_c, new_w, new_r = [], [], []
        st_eta = st_tail = 0.0
        order_, groups = _groups(rem)
        tabs = [binom_table(R, float(t), LAM_BOX) for R, _ in groups]
        size = sum(
            (sl.stop - sl.start) * (tab.hi - tab.lo + 1)
            for (_, sl), tab in zip(groups, tabs, strict=True)
        )
        check_bytes(held + size * CONFIG_BYTES, f"Mult({count}) over {K} cells")
        check_time(size * CONFIG_SECONDS)
        counts, w = counts[order_], w[order_]
        for (R, sl), tab in zip(groups, tabs, strict=True):
            st_eta, st_tail = max(st_eta, tab.eta), max(st_tail, tab.tail)
            k = np.arange(tab.lo, tab.hi + 1)
            keep = tab.f > 0
            k, f = k[keep], tab.f[keep]
            base = counts[sl]
            rep = np.repeat(base, len(k), axis=0)
            rep[:, c] = np.tile(k, len(base))
            new_c.append(rep)
            new_w.append(np.outer(w[sl], f).ravel())
            new_r.append((R - np.tile(k, len(base))).astype(np.int64))
        counts, w, rem = np.concatenate(new_c), np.concatenate(new_w), np.concatenate(new_r)
        eta += st_eta + 2 * U
        excluded += st_tail
    counts[:, order[-1]] = rem
    return Configs(counts[:, : K - 1], w, eta, excluded)


def folded(cf: Configs, shape: Sequence[int], origin: np.ndarray | None = None) -> np.ndarray:
    """The configurations' weights summed by count vector modulo ``shape``: entry j holds
    every count vector c = origin + j (mod shape), the input of a cyclic convolution."""
    m = np.asarray(shape, dtype=np.int64)
    sub = cf.sub if origin is None else cf.sub - origin
    flat = np.ravel_multi_index(tuple((sub % m).T), tuple(int(x) for x in shape))
    return np.bincount(flat, weights=cf.w, minlength=int(np.prod(m))).reshape(tuple(shape))


def _norm2(x: np.ndarray) -> float:
    """The 2-norm by a pairwise sum of squares (not BLAS, whose threads would oversubscribe
    the cores when covers run side by side); its rounding is inside FFT_SAFETY."""
    return math.sqrt(float(np.square(x).sum()))


def cyclic_sum(parts: Sequence[Configs], offset: np.ndarray, shape: tuple[int, ...]) -> Grid:
    """The law of the sum of the parts' count vectors on the box offset + [0, shape), by
    cyclic FFT convolution on that box: mass of the sum outside the box aliases into it,
    which is at most the box's tail (added to the absolute error by the caller) (module
    doc)."""
    eta = err1 = excluded = 0.0
    spectra = None
    n = int(np.prod(shape))
    eta_n = FFT_SAFETY * 10 * U * math.log2(max(n, 2))
    norms2, norms1 = [], []
    for i, cf in enumerate(parts):
        check_time()
        # the first part carries the box's origin, so index j of the sum is origin + j
        f = sfft.rfftn(folded(cf, shape, offset if i == 0 else None), shape, workers=WORKERS)
        spectra = f if spectra is None else spectra * f
        norms2.append(_norm2(cf.w))
        norms1.append(float(cf.w.sum()))
        eta += cf.eta + 2 * U
        excluded += cf.excluded
    y = sfft.irfftn(spectra, shape, workers=WORKERS)
    np.maximum(y, 0.0, out=y)
    # Higham's bound, applied to the chain of products (each factor's spectrum error adds)
    prod1 = float(np.prod(norms1))
    e2 = eta_n * (
        _norm2(y) + 2 * len(parts) * max(norms2) * prod1 / max(min(norms1), 1e-300)
    )
    err1 += math.sqrt(n) * e2 * len(parts)
    return Grid(y, offset.astype(np.int64), eta, err1, excluded)


@dataclass
class MultiCurve:
    """The N-experiment's pair of laws on the grid, sorted by privacy loss, with the
    error terms; :meth:`delta` is a certified upper bound at any eps (both orders)."""

    loss: np.ndarray  # log P_x'/P_x, decreasing
    cP1: np.ndarray  # cumulative P_x' in that order
    cP0: np.ndarray
    mass0: float  # sum P~_B (for the error terms)
    eta: float
    err1: float
    excluded: float
    alpha_hi: np.ndarray
    beta_hi: np.ndarray

    def _side(self, eps: float, flip: bool) -> float:
        # cells with loss > eps (flip: loss < -eps, roles exchanged)
        E = math.exp(eps)
        if not flip:
            j = int(np.searchsorted(-self.loss, -eps, side="left"))
            v = (self.cP1[j - 1] - E * self.cP0[j - 1]) if j > 0 else 0.0
        else:
            j = int(np.searchsorted(-self.loss, eps, side="right"))
            tot1, tot0 = self.cP1[-1], self.cP0[-1]
            # cells from index j on (loss < -eps): P_x - e^eps P_x'
            a1 = tot1 - (self.cP1[j - 1] if j > 0 else 0.0)
            a0 = tot0 - (self.cP0[j - 1] if j > 0 else 0.0)
            v = a0 - E * a1
        return max(0.0, float(v))

    def delta(self, eps: float) -> float:
        E = math.exp(eps) * (1 + 4 * U)
        dmax = float(np.max(self.beta_hi + E * self.alpha_hi))
        # rounding of the sorted cumulative sums: gamma of their length times the masses
        csum = gamma(len(self.loss) + 2) * (self.cP1[-1] + E * self.cP0[-1])
        err = dmax * (self.eta * self.mass0 + self.err1) * len(self.alpha_hi) + csum
        best = max(self._side(eps, False), self._side(eps, True))
        x = best + err + self.excluded
        return min(1.0, math.nextafter(x * (1 + 8 * U), math.inf))


def _ball_hi(b: flint.arb) -> float:
    return _up(b)


def _box(
    cells: Cells, parts: Sequence[tuple[int, CloneLaw]], lam: float
) -> tuple[np.ndarray, tuple[int, ...], float]:
    """(offset, shape, tail): a box over the free cells 0..K-2 holding the background
    count vector with all but ``tail`` of the mass (Bernstein per cell, union bound)."""
    K = cells.size
    lo, hi = [], []
    total = sum(c for c, _ in parts)
    for c in range(K - 1):
        mu = var = 0.0
        for count, law in parts:
            f = float(law.arb()[c].mid())
            mu += count * f
            var += count * f * (1 - f)
        r = bernstein_t(var, lam)
        lo.append(max(0, math.floor(mu - r) - 1))
        hi.append(min(total, math.ceil(mu + r) + 1))
    lo_a = np.array(lo, dtype=np.int64)
    # widened to lengths the FFT factors well (a larger box only holds more of the mass)
    shape = tuple(
        sfft.next_fast_len(int(b - a + 1), real=True) for a, b in zip(lo, hi, strict=False)
    )
    return lo_a, shape, 2 * (K - 1) * math.exp(-lam)


@dataclass
class PairArrays:
    """The N-experiment's two laws on the grid (floats) with their error terms."""

    P0: np.ndarray
    P1: np.ndarray
    mass0: float
    eta: float
    err1: float
    excluded: float
    alpha_hi: np.ndarray
    beta_hi: np.ndarray

    def error(self, eps: float) -> float:
        """What is added to the float hockey-stick sum to bound the exact one."""
        E = math.exp(eps) * (1 + 4 * U)
        dmax = float(np.max(self.beta_hi + E * self.alpha_hi))
        csum = gamma(len(self.P0) + 2) * (float(self.P1.sum()) + E * float(self.P0.sum()))
        return (
            dmax * (self.eta * self.mass0 + self.err1) * len(self.alpha_hi) + csum + self.excluded
        )

    def _best(self, eps: float) -> float:
        E = math.exp(eps)
        buf = np.empty_like(self.P0)
        out = 0.0
        for a, b in ((self.P1, self.P0), (self.P0, self.P1)):  # sum (a - E b)_+
            np.multiply(b, -E, out=buf)
            buf += a
            np.maximum(buf, 0.0, out=buf)
            out = max(out, float(buf.sum()))
        return out

    def delta(self, eps: float) -> float:
        """A certified upper bound on delta(eps), both orders."""
        return min(1.0, math.nextafter((self._best(eps) + self.error(eps)) * (1 + 8 * U), math.inf))

    def delta_lower(self, eps: float) -> float:
        """A certified lower bound on delta(eps) (mass left out only lowers the sum)."""
        x = self._best(eps) * (1 - 8 * U) - (self.error(eps) - self.excluded)
        return max(0.0, math.nextafter(x, -math.inf))


def background_grid(
    cells: Cells, parts: Sequence[tuple[int, CloneLaw]], cell_bytes: float = BOX_BYTES
) -> tuple[Grid, float]:
    """(the law of the clones' cell histogram over cells 0..K-2, cell K-1 implied; the mass
    left outside its box, which is also aliased into it).

    Memory: the box at ``cell_bytes`` per cell (what the caller builds on it) with the
    parts' configurations (:func:`multinomial_configs`) must fit in
    :data:`krand_work.EVAL_BYTES`, checked before either is allocated
    (:class:`krand_work.TooLarge`)."""
    K = cells.size
    if not parts:
        return Grid(np.ones((1,) * (K - 1)), np.zeros(K - 1, dtype=np.int64), 0.0, 0.0, 0.0), 0.0
    offset, shape, box_tail = _box(cells, parts, LAM_BOX)
    cells_in_box = float(np.prod([s + 1 for s in shape], dtype=float))
    held = cells_in_box * cell_bytes
    check_bytes(held, f"an FFT box of {' x '.join(str(s) for s in shape)} cells")
    check_time(cells_in_box * CELL_SECONDS)
    configs = []
    for count, law in parts:
        configs.append(multinomial_configs(count, law, K, held))
        held += configs[-1].sub.nbytes + configs[-1].w.nbytes
    return cyclic_sum(configs, offset, shape), box_tail


@functools.lru_cache(maxsize=2)
def pair_arrays(cells: Cells, parts: tuple[tuple[int, CloneLaw], ...]) -> PairArrays:
    """The laws of the N-experiment with ``parts`` = ((count, law), ...) clones; every
    law must be in natural order (cell K - 1 last: :func:`natural_law`)."""
    K = cells.size
    for _, law in parts:
        if law.order[-1] != K - 1:
            raise ValueError("multi-law parts need laws with the last cell last (natural_law)")
    g, box_tail = background_grid(cells, parts)
    B = g.arr
    shape = tuple(s + 1 for s in B.shape)
    a_mid = np.array([float(x.mid()) for x in cells.alpha])
    b_mid = np.array([float(x.mid()) for x in cells.beta])
    with flint.ctx.workprec(PREC):
        a_err = max(_up(abs(x - m)) for x, m in zip(cells.alpha, a_mid, strict=False))
        b_err = max(_up(abs(x - m)) for x, m in zip(cells.beta, b_mid, strict=False))

    tmp = np.empty_like(B)

    def add(law: np.ndarray) -> np.ndarray:
        out = np.zeros(shape)
        np.multiply(B, law[K - 1], out=out[tuple(slice(0, s) for s in B.shape)])
        for k in range(K - 1):
            sl = [slice(0, s) for s in B.shape]
            sl[k] = slice(1, B.shape[k] + 1)
            np.multiply(B, law[k], out=tmp)
            out[tuple(sl)] += tmp
        return out.ravel()

    mass0 = float(B.sum())
    extra = (a_err + b_err) * mass0 * K  # alpha, beta replaced by their mids
    return PairArrays(
        add(a_mid),
        add(b_mid),
        mass0,
        g.eta + 4 * U,
        g.err1 + extra + 2 * box_tail,  # mass outside the box: aliased in, and missing
        g.excluded + box_tail,
        np.abs(a_mid) + a_err,
        np.abs(b_mid) + b_err,
    )


def multi_curve(cells: Cells, parts: tuple[tuple[int, CloneLaw], ...]) -> MultiCurve:
    """The loss curve (for many eps) of :func:`pair_arrays`."""
    pa = pair_arrays(cells, parts)
    keep = (pa.P0 > 0) | (pa.P1 > 0)
    P0, P1 = pa.P0[keep], pa.P1[keep]
    with np.errstate(divide="ignore", invalid="ignore"):
        loss = np.log(P1) - np.log(P0)
    order = np.argsort(-loss, kind="stable")
    return MultiCurve(
        loss[order],
        np.cumsum(P1[order]),
        np.cumsum(P0[order]),
        pa.mass0,
        pa.eta,
        pa.err1,
        pa.excluded,
        pa.alpha_hi,
        pa.beta_hi,
    )


def natural_law(phi: Sequence[float]) -> CloneLaw:
    """A stick law with the cells in their natural order (for :func:`multi_curve`)."""
    phi = np.asarray(phi, dtype=float)
    phi = phi / phi.sum()
    rest = 1.0
    sticks = []
    for i in range(len(phi) - 1):
        t = 0.0 if rest <= 0 else min(1.0, max(0.0, float(phi[i]) / rest))
        sticks.append(t)
        rest -= float(phi[i])
    return CloneLaw(tuple(range(len(phi))), tuple(sticks))


def delta_multi(cells: Cells, parts: Sequence[tuple[int, CloneLaw]], eps: float) -> float:
    """Certified upper bound on delta(eps) (both orders) of the multi-law N-experiment."""
    key = tuple((int(c), law) for c, law in parts if c > 0)
    return pair_arrays(cells, key).delta(eps)
