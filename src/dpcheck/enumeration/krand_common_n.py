"""delta of the orbit-cell N-experiment when every clone has the same N-law (any B-laws).

Orbit cells (k, l) = (|y_B|, |y_N|) (:mod:`dpcheck.enumeration.krand_cells`); here
L' = L - h = 1 (N is one bit: the N-cells are its two values).  Every clone draws its
B-cell from its own law and its N-bit from one common law phi_N, independently; the
changed user's B-cell from alpha_B or beta_B and its N-bit from alpha_N = Bin(1, q).
Let T be the B-cell histogram of all M + 1 reports and Q the clones' B-cell law (a
multi-law convolution, :func:`krand_multi.background_grid` on the B-cells).  Given T, the
N-bits of the reports in B-cell k are independent of everything else, so with h_k the
number of N-bits equal to 0 among them (exact, from eq (2.1) by conditioning):

    P_w(H) = prod_k Bin(T_k, phi_N0)(h_k) * sum_k pi_w(k) Q(T - e_k) c_k(h_k),
    c_k(h) = alpha_N0 h/(T_k phi_N0) + alpha_N1 (T_k - h)/(T_k phi_N1)

(the changed user is one of the T_k reports of its cell; its N-bit law over the clones').
So delta_(x'||x)(eps) = sum_T E[(C(T) + sum_k w_k(T) h_k)_+], h_k ~ Bin(T_k, phi_N0)
independent, with C = sum_k d_k Q(T - e_k) alpha_N1/phi_N1, w_k = d_k Q(T - e_k)
(alpha_N0/phi_N0 - alpha_N1/phi_N1)/T_k, d_k = beta_k - e^eps alpha_k (and the swap).

**Evaluation.**  For each T the range of C + sum w_k h_k over the windows of the h_k
decides: never positive, the term is 0; never negative, it is C + sum w_k T_k phi_N0
(the exact mean).  The other T are bounded by Chernoff (x_+ <= e^(theta x - 1)/theta,
theta > 0, minimised over a grid of theta), applied to X_+ directly or through
E[X_+] = E[X] + E[(-X)_+] (:func:`chernoff_settle`), as long as the slacks add up to at
most ``budget``; the rest exactly: the h_k of all cells but one enumerated and the last one
summed in closed form (suffix or prefix sums of its table), as in :mod:`krand_single`.

**Error bound.**  Q carries the relative and absolute (FFT) errors of
:class:`krand_multi.Grid`; since E c_k = 1 given T (E h_k = T_k phi_N0), an error e(T) in
Q moves the sum by at most sum_k |d_k| e(T - e_k) in expectation, so the 1-norm error of
Q times max |d_k| bounds it, as in :mod:`krand_multi`.  The windows of the h_k leave out
at most their tails, which contribute at most tail * (C + sum max(w_k, 0) T_k)_+ (and the
same for the negative part of the never-negative terms); sums of nonnegative floats carry
gamma_m, signed ones gamma_m times the sum of absolute values.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import flint
import numpy as np

from dpcheck.enumeration import krand_multi as km
from dpcheck.enumeration.krand_cells import PREC, Cells, _up
from dpcheck.enumeration.krand_single import CloneLaw, linear_positive_part
from dpcheck.enumeration.krand_tables import U, binom_table, gamma
from dpcheck.enumeration.krand_work import check_time

#: Windows of the N-bit splits hold all but 2 exp(-LAM) of each binomial.
LAM = 32.0
#: Peak bytes per cell of the grid of T (the background's box plus one in every
#: direction): the per-T coefficients and ranges of one order at a time (measured with
#: tracemalloc with the background's configurations and FFT: about 308 at L = 4, h = 3
#: when the shifted copies of Q, the grid of indices and the windows were held as whole
#: arrays, 180 since they are not).
CELL_BYTES = 180
#: Seconds per cell of the grid of T for both orders' coefficients and ranges (measured:
#: about 1e-6 at L = 4, h = 3; taken low, see :func:`krand_work.check_time`).
CELL_SECONDS = 3e-7


def _mid_err(balls: Sequence[flint.arb]) -> tuple[np.ndarray, float]:
    mids = np.array([float(b.mid()) for b in balls])
    with flint.ctx.workprec(PREC):
        err = max(_up(abs(b - m)) for b, m in zip(balls, mids, strict=False))
    return mids, err


def delta_common_n(
    orbit: Cells,
    bcells: Cells,
    parts: Sequence[tuple[int, CloneLaw]],
    phiN: CloneLaw,
    eps: float,
    budget: float = 1e-10,
    target: float | None = None,
) -> float:
    """Certified upper bound on delta(eps), both orders (module doc).  ``bcells`` is the
    B-cell system (:func:`krand_cells.nclone_system`), ``parts`` the clones' B-laws
    (natural order), ``phiN`` their common N-law (two cells).

    With a ``target`` the evaluation stops refining as soon as its bound is below the
    target, or an estimate from below (the exact means, E[X_+] >= E[X]_+) shows it cannot
    get there: the value returned is still a certified upper bound, only not always the
    tightest one, and 1 (the trivial bound) once one order alone is above the target (a
    caller that asks "is delta <= target?" gets the same answer, faster)."""
    if orbit.shape[1] != 2 or bcells.size != orbit.shape[0]:
        raise ValueError("the common-N evaluator needs L - h = 1")
    K = bcells.size
    parts = tuple((int(c), law) for c, law in parts if c > 0)
    g, box_tail = km.background_grid(bcells, parts, CELL_BYTES)
    Q = g.arr
    off = g.offset
    Mbg = sum(c for c, _ in parts)
    R0 = Mbg + 1
    aB, aB_err = _mid_err(bcells.alpha)
    bB, bB_err = _mid_err(bcells.beta)
    aN, aN_err = _mid_err(orbit.factors[2])
    if phiN.order[0] != 0 or phiN.size != 2:
        raise ValueError("phi_N must be a natural-order law on the two N-cells (natural_law)")
    t0 = phiN.sticks[0]  # exact: P(N-bit 0)
    if not 0.0 < t0 < 1.0:
        raise ValueError("phi_N must give both N-bit values positive mass")
    base = aN[1] / (1.0 - t0)  # alpha_N1 / phi_N1 (1 - t0: 1 rounding, inside the mids' error)
    slope = aN[0] / t0 - base  # per unit of h/T_k
    E = math.exp(eps)
    # Q(T - e_k) on the grid of T: T = T' + e_k, T' on Q's box; T over cells 0..K-2
    shape_T = tuple(s + 1 for s in Q.shape)
    check_time(math.prod(shape_T) * CELL_SECONDS)
    Qk = _Shifted(Q, shape_T)
    # the free counts as broadcastable ranges (each T_i varies along its own axis only)
    Tfree = [
        (np.arange(shape_T[i], dtype=np.int64) + off[i]).reshape(
            tuple(-1 if j == i else 1 for j in range(K - 1))
        )
        for i in range(K - 1)
    ]
    Tlast = R0 - sum(Tfree)
    Ts = [*Tfree, Tlast]
    valid = Tlast >= 0
    for t in Ts:
        valid &= t >= 0
    dmax = float(np.max(np.abs(bB) + bB_err + E * (np.abs(aB) + aB_err)))
    # Q's error, and the changed user's law replaced by mids (|change| <= err per cell)
    q_err = dmax * (g.eta * float(Q.sum()) + g.err1 + 2 * box_tail) * K
    mids_err = (aB_err + bB_err + aN_err * 4 / min(t0, 1 - t0)) * float(Q.sum()) * K * 2
    extra = q_err + mids_err + g.excluded + box_tail
    # what each direction's (value + err) may reach for the whole to stay below the target
    goal = None if target is None else (target - extra) / (1 + g.eta + 8 * U) * (1 - 1e-9)
    best = 0.0
    err_total = 0.0
    for num, den in ((bB, aB), (aB, bB)):
        d = num - E * den
        value, err = _one_direction(d, Qk, Ts, valid, t0, base, slope, budget, goal)
        best = max(best, value)
        err_total = max(err_total, err)
        if goal is not None and value + err > goal:
            return 1.0  # above the target whatever the other order gives: not evaluated
    x = best * (1 + g.eta + 8 * U) + err_total + extra
    return min(1.0, math.nextafter(x, math.inf))


class _Shifted:
    """Q(T - e_k) on the grid of T, for k = 0..K-1 (``[k]``: Q shifted by one along axis k,
    none for the implied cell K - 1, zero elsewhere): built when asked for, one at a
    time, rather than K arrays of the grid held at once (issue 40: memory)."""

    def __init__(self, Q: np.ndarray, shape_T: tuple[int, ...]) -> None:
        self.Q, self.shape_T = Q, shape_T

    def __len__(self) -> int:
        return len(self.shape_T) + 1

    def __getitem__(self, k: int) -> np.ndarray:
        a = np.zeros(self.shape_T)
        sl = [slice(0, s) for s in self.Q.shape]
        if k < len(self.shape_T):
            sl[k] = slice(1, self.Q.shape[k] + 1)
        a[tuple(sl)] = self.Q
        return a


def _table(T: int, t: float) -> tuple[int, np.ndarray, float, float]:
    tab = binom_table(T, t, LAM)
    return tab.lo, tab.f, tab.eta, tab.tail


def _one_direction(
    d: np.ndarray,
    Qk: Sequence[np.ndarray] | _Shifted,
    Ts: Sequence[np.ndarray],
    valid: np.ndarray,
    t0: float,
    base: float,
    slope: float,
    budget: float,
    goal: float | None = None,
) -> tuple[float, float]:
    """(an upper bound on the sum over T of E[(C + sum_k w_k h_k)_+], its absolute error
    bound) (module doc).  The mixed T not settled by Chernoff within ``budget`` are summed
    exactly, those of largest Chernoff slack first; with a ``goal`` the rest are left to
    Chernoff as soon as value + error is below it, or the exact means show it cannot be."""
    K = len(d)
    C = np.zeros(valid.shape)  # Ts may be broadcastable ranges: valid has the grid's shape
    W = []
    for k in range(K):
        coef = d[k] * Qk[k]
        C += coef * base
        with np.errstate(divide="ignore", invalid="ignore"):
            W.append(np.where(Ts[k] > 0, coef * slope / np.maximum(Ts[k], 1), 0.0))
    # ranges of sum w_k h_k over the windows, per T
    lo_sum = np.zeros(C.shape)
    hi_sum = np.zeros(C.shape)
    full_hi = np.zeros(C.shape)  # over every h_k in 0..T_k
    full_lo = np.zeros(C.shape)
    for k in range(K):
        Tk = np.where(valid, Ts[k], 0)
        mu = Tk * t0
        r = np.sqrt(2 * LAM * Tk * t0 * (1 - t0)) + LAM / 3 * 2 + 2
        hlo = np.clip(np.floor(mu - r) - 1, 0, Tk)
        hhi = np.clip(np.ceil(mu + r) + 1, 0, Tk)
        lo_sum += np.minimum(W[k] * hlo, W[k] * hhi)
        hi_sum += np.maximum(W[k] * hlo, W[k] * hhi)
        full_hi += np.maximum(W[k] * Tk, 0.0)
        full_lo += np.minimum(W[k] * Tk, 0.0)
    tail = 2 * K * math.exp(-LAM)
    neg = valid & (C + hi_sum <= 0)
    pos = valid & (C + lo_sum >= 0)
    mixed = valid & ~neg & ~pos
    mean = C + sum(W[k] * np.where(valid, Ts[k], 0) * t0 for k in range(K))
    total = float(np.where(pos, mean, 0.0).sum())
    err = float(
        np.where(
            pos, np.abs(C) + sum(np.abs(W[k]) * np.where(valid, Ts[k], 0) for k in range(K)), 0.0
        ).sum()
    ) * gamma(K + 4)
    err += tail * float(np.where(pos, -np.minimum(C + full_lo, 0.0), 0.0).sum())
    err += tail * float(np.where(neg, np.maximum(C + full_hi, 0.0), 0.0).sum())
    # the mixed T of smallest Chernoff slack (chernoff_settle) are settled by it while the
    # slacks sum to at most ``budget``; the rest exactly (largest slack first), or by
    # Chernoff too once the goal is decided
    if not mixed.any():
        return total * (1 + gamma(int(valid.sum()) + 4)), err * (1 + 1e-6)
    sel = np.nonzero(mixed)
    Cm = C[sel]
    Wm = [W[k][sel] for k in range(K)]
    Tm = [np.broadcast_to(Ts[k], valid.shape)[sel].astype(float) for k in range(K)]
    mean_m = mean[sel]
    bnd, slack, use_mean = chernoff_settle(Cm, Wm, Tm, mean_m, t0)
    # rounding of the float mean a by-mean Chernoff bound carries, per point
    mean_err = np.where(
        use_mean, np.abs(Cm) + sum(np.abs(Wm[k]) * Tm[k] for k in range(K)), 0.0
    ) * gamma(K + 4)
    order = np.argsort(slack)
    cut = int(np.searchsorted(np.cumsum(slack[order]), budget, side="right"))
    floor = total + float(np.maximum(mean_m, 0.0).sum())  # E[X_+] >= E[X]_+ (an estimate)
    total += float(bnd[order[:cut]].sum())
    err += float(mean_err[order[:cut]].sum())
    pending = order[cut:][::-1]  # exactly, largest slack first
    rest_bnd = np.concatenate(([0.0], np.cumsum(bnd[pending][::-1])))[::-1]
    rest_err = np.concatenate(([0.0], np.cumsum(mean_err[pending][::-1])))[::-1]
    scale = 1 + gamma(int(valid.sum()) + 4)
    eta = 0.0
    for i, j in enumerate(pending):
        if i % 16 == 0:
            check_time()
        if goal is not None and i % 16 == 0:
            up = (total + rest_bnd[i]) * (scale + eta * K) + (err + rest_err[i]) * (1 + 1e-6)
            if up <= goal or floor > goal:
                total += float(rest_bnd[i])
                err += float(rest_err[i])
                break
        c = float(Cm[j])
        ws = [float(Wm[k][j]) for k in range(K)]
        tks = [int(Tm[k][j]) for k in range(K)]
        value, e_abs, e_rel = _exact_point(c, ws, tks, t0)
        total += value
        err += e_abs
        eta = max(eta, e_rel)
        floor += value - max(float(mean_m[j]), 0.0)
    return total * (scale + eta * K), err * (1 + 1e-6)


def _exact_point(
    c: float, ws: Sequence[float], tks: Sequence[int], t0: float
) -> tuple[float, float, float]:
    """(E[(c + sum_k ws_k h_k)_+], its absolute error bound, the tables' relative eta),
    h_k ~ Bin(tks_k, t0) on their windows: the h_k of cells 0..K-2 enumerated, the last one
    summed in closed form (:func:`krand_single.linear_positive_part`)."""
    K = len(ws)
    eta = 0.0
    tail = 2 * K * math.exp(-LAM)
    grid_v = np.zeros(1) + c
    grid_w = np.ones(1)
    for k in range(K - 1):
        lo, f, e, _ = _table(tks[k], t0)
        h = np.arange(lo, lo + len(f))
        grid_v = (grid_v[:, None] + ws[k] * h[None, :]).ravel()
        grid_w = (grid_w[:, None] * f[None, :]).ravel()
        eta = max(eta, e)
    lo, f, e, _ = _table(tks[K - 1], t0)
    eta = max(eta, e)
    pos, err_w = linear_positive_part(grid_v, ws[K - 1], lo, f, tks[K - 1])
    value = float((grid_w * pos).sum())
    err = float((grid_w * err_w).sum()) * gamma(len(f) + 8)
    err += tail * max(0.0, c + sum(max(w * t, 0.0) for w, t in zip(ws, tks, strict=False)))
    return value, err, eta


#: Multiples z of 1/sd tried as the Chernoff parameter theta.
THETA_GRID = (0.125, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0, 16.0, 32.0)


def chernoff_settle(
    C: np.ndarray, W: Sequence[np.ndarray], T: Sequence[np.ndarray], mean: np.ndarray, t0: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(bound, slack, by_mean) per point for E[(C + sum_k W_k h_k)_+], h_k ~ Bin(T_k, t0)
    independent: x_+ <= e^(theta x - 1)/theta (theta > 0) bounds E[X_+] by
    e^(theta C - 1) prod_k (1 - t0 + t0 e^(theta W_k))^(T_k) / theta, and E[X_+] = E[X] +
    E[(-X)_+] <= mean + the same bound on (-X)_+; whichever bound is smaller is taken, its
    slack being that Chernoff value (``mean`` is E[X], exact)."""
    K = len(W)
    sd = np.sqrt(sum(W[k] ** 2 * T[k] for k in range(K)) * t0 * (1 - t0)) + 1e-300
    ch = []
    for sign in (1.0, -1.0):
        logb = np.full(len(C), np.inf)
        for z in THETA_GRID:
            th = z / sd
            lg = th * sign * C - 1.0 - np.log(th)
            for k in range(K):
                lg = lg + T[k] * np.logaddexp(math.log1p(-t0), math.log(t0) + th * sign * W[k])
            logb = np.minimum(logb, lg)
        ch.append(np.exp(logb) * (1 + 1e-9))
    ch_pos, ch_neg = ch
    by_mean = ch_neg < ch_pos
    slack = np.where(by_mean, ch_neg, ch_pos)
    bound = np.where(by_mean, np.maximum(mean + ch_neg, 0.0), ch_pos)
    return bound, slack, by_mean
