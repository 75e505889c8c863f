"""Every-background L = 1 profile of K-randomization, certified (Zhilyaev and Zeber 2016, §3, §4).

Setting (as in :mod:`dpcheck.enumeration.krand_profile`): n users, the changed user
holds 1 in x and 0 in x', the other n - 1 form a background with m - 1 ones
(m = 1..n).  The background count is

    B_m ~ Bin(m - 1, p) + Bin(n - m, q),   b_m = its pmf,  S_m(u) = P[B_m >= u],

and A(x) = B_m + Bern(p), A(x') = B_m + Bern(q), so the upper tails of the two laws
at t = u + 1 are T(u) = p b_m(u) + S_m(u + 1) and T'(u) = q b_m(u) + S_m(u + 1).

**What is exact.**  B_m is a sum of independent Bernoullis, so b_m is log-concave
and P(s)/Q(s) = (p r + q)/(q r + p), r = b_m(s - 1)/b_m(s), is nondecreasing in s
(monotone likelihood ratio).  Hence {P > e^eps Q} is an upper set {s >= t} and,
with no approximation,

    delta_m(eps)   = max(0, max_u [T(u) - e^eps T'(u)]),
    eps_m(delta)   = log max(1, max_u R_m(u)),   R_m(u) = (T(u) - delta)/T'(u),
    eps_m^prob     = max(0, log P(t_m)/Q(t_m)),  t_m = largest t with P[A(x) >= t] > delta

(the last is the §3.1 quantile: the loss is nondecreasing in s, so the cells of
largest loss are the largest s).  epsilon(delta) = max over m = 1..n of eps_m(delta)
covers both orders of every neighbouring pair (x' against x at m is x against x' at
n - m + 1, read with s -> n - s).

**Windows (rigorous).**  Bernstein's inequality for B_m (n - 1 independent
Bernoullis, variance v = (n - 1)pq): P[B_m - mu_m >= t], P[B_m - mu_m <= -t] <=
exp(-t^2/(2(v + t/3))).  Below u_lo = mu_m - t(nu), nu = min(delta, 1 - delta)/2:
b_m(u) <= P[B_m <= u_lo] <= nu, so (p - q) b_m(u) < delta and R_m(u) < 1 there, and
T(u_lo) > delta (the quantile lies above).  Above u_hi = mu_m + t(delta/4): T(u) <=
P[B_m >= u] <= delta/4, so R_m(u) < 0 and T(u) - e^eps T'(u) < delta.  Only
u in [u_lo, u_hi] can set eps_m.

**Float pass over every m** (:func:`blocks`, :func:`float_pass`).  Backgrounds are
taken in blocks of h consecutive m = a .. a + h - 1 (h <= 64): B_{a+i} = D * Bin(i, p) *
Bin(h - 1 - i, q) with D ~ Bin(a - 1, p) + Bin(n - a - h + 1, q) shared.  D is a direct
convolution of two binomial windows (pmf at the mode from arb, then ratio products);
the rows come from D by halving (the low half of the block shares D * Bin(h/2, q), the
high half D * Bin(h/2, p), and so on) down to groups of 8 rows, each a direct
convolution with its small law Bin(i, p) + Bin(7 - i, q).  Every number is a sum of
products of nonnegative floats, so each float b~, S~ is within a relative

    eta = u (12 (W1 + W2) + 8 h log2(h) + 2 W + 64)

of the value for the floats' q (u = 2^-53; W1, W2 the binomial windows, W the row
window; standard bounds for sums and products of nonnegative numbers, Higham ch. 3:
ratio products 4u per step, sums gamma_k), and of the value for the exact q (the term
in W1 + W2 also covers q rounded to a float: |d log b/dq| <= (window half-widths)/(pq)
and |q~ - q| <= 3 u q).  Truncating the binomials to their windows (Bernstein tails
<= tau_b each side) and the law to its window (tail <= tau = 1e-13 delta) only removes
mass, so

    b~ (1 - eta) <= b <= b~ (1 + eta) + a_b,    S~ (1 - eta) <= S <= S~ (1 + eta) + a_S

with a_b = 4 tau_b, a_S = W a_b + tau.  From these the pass takes, for every m, an
upper bound of max_u R_m(u) (numerator rounded up, denominator down), of the quantile
loss (the quantile position taken on the high side, the loss rounded up; rows whose
quantile falls at a window edge are flagged and go to arb) and of delta_m(eps).  The
pass records which m it covered; certification refuses a pass that missed one.

**Certification** (:func:`certify_approx`, :func:`certify_prob`).  At the m with the
largest float bound, arb ball arithmetic (:func:`arb_law`: binomial windows by exact
ratio recurrences, tail masses bounded by geometric series, convolution by arb_poly,
the left-out mass added to every b and S as a ball [0, err]) gives a rigorous bracket
[lo, hi] of eps_m; then every m whose float upper bound reaches e^hi is evaluated in
arb too, and hi is raised if needed.  The printed value is the largest upper end
(rounded up to a float): every other m is below it by its float bound.
The exact supremum lies in [largest lower end, printed value]; the bracket is
printed, and the value is labelled "exact" when it is narrower than 1e-12
(relative), "upper bound" otherwise (then the printed value is still a certified
upper bound: more than :data:`MAX_ARB` backgrounds tied within the float margin keep
their float upper bounds).

**Large n** (:func:`certify_pruned`, approximate epsilon only).  For a block
m = a .. a + h - 1, B_m = D + E_m with D ~ Bin(a - 1, p) + Bin(n - a - h + 1, q) common
and E_m a law on 0..h-1, so T(u) - e^eps T'(u) = sum_j E_m(j) psi(u - j) with psi the
same expression for the pair whose background is D alone: an average is at most a max,
so delta_m(eps) <= max_w psi(w) for every m of the block (:func:`block_hockey_bound`,
floats with the error bounds above).  With eps_prune = the certified lower end of
eps at the best of the backgrounds nearest both ends, blocks whose bound is <= delta
at eps_prune are cleared (eps_m <= eps_prune <= the printed value); the others are
split, down to blocks evaluated one by one and certified as above.  The §3.1 quantile
has no such bound: the pruned search reports it over the backgrounds evaluated one by
one, as a lower bound.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

import flint
import numpy as np

U = 2.0**-53
#: arb working precision (bits) for the certification.
ARB_PREC = 192
#: Largest block of backgrounds sharing one convolution (rows per block).
MAX_BLOCK = 64
#: "exact" when the certified bracket is narrower than this (relative).
EXACT_WIDTH = 1e-12


# --------------------------------------------------------------------------- exact q
@dataclass(frozen=True)
class LieProbability:
    """q exactly: a rational q, or q = 1/(1 + e^eps0) with eps0 rational (the input)."""

    value: Fraction
    from_eps0: bool = False

    @property
    def float(self) -> float:
        if self.from_eps0:
            return 1.0 / (1.0 + math.exp(float(self.value)))
        return float(self.value)

    def ball(self) -> flint.arb:
        """q as an arb ball at the current working precision."""
        v = flint.arb(flint.fmpq(self.value.numerator, self.value.denominator))
        return 1 / (1 + v.exp()) if self.from_eps0 else v

    def describe(self) -> str:
        return f"q = 1/(1 + e^{self.value})" if self.from_eps0 else f"q = {self.value}"


# --------------------------------------------------------------------------- windows
def bernstein_t(v: float, log_inv: float) -> float:
    """t with exp(-t^2/(2(v + t/3))) = exp(-log_inv): Bernstein's tail radius."""
    L = log_inv
    return L / 3 + math.sqrt(L * L / 9 + 2 * L * v)


def binom_window(N: int, theta: float, log_inv: float) -> tuple[int, int]:
    """[lo, hi] holding all but exp(-log_inv) of Bin(N, theta) on each side (Bernstein)."""
    if N == 0:
        return 0, 0
    mu = N * theta
    t = bernstein_t(N * theta * (1 - theta), log_inv)
    return max(0, math.floor(mu - t) - 1), min(N, math.ceil(mu + t) + 1)


def _pmf_at(N: int, q: float, side: str, k: int) -> float:
    """Bin(N, theta) pmf at k, theta = q (side "q") or 1 - q (side "p"), to about one ulp
    (arb, 128 bits: 1 - q is exact there even when it rounds to 1 in floats)."""
    with flint.ctx.workprec(128):
        qa = flint.arb(q)
        th, co = (qa, 1 - qa) if side == "q" else (1 - qa, qa)
        lg = (
            flint.arb(N + 1).lgamma()
            - flint.arb(k + 1).lgamma()
            - flint.arb(N - k + 1).lgamma()
            + k * th.log()
            + (N - k) * co.log()
        )
        return float(lg.exp().mid())


def binom_pmf(N: int, q: float, side: str, lo: int, hi: int) -> np.ndarray:
    """Bin(N, theta) pmf at k = lo..hi in floats, theta = q (side "q") or p = 1 - q (side
    "p"): the mode value (arb) times ratio products.

    Each ratio f(k+1)/f(k) costs at most 4 roundings, so f(k) is within a relative
    4 |k - mode| u + u of the truth (values below 1e-308 underflow to 0).
    """
    if N == 0:
        return np.ones(1)
    theta = q if side == "q" else 1.0 - q
    mode = min(max(int((N + 1) * theta), lo), hi)
    f0 = _pmf_at(N, q, side, mode)
    odds = q / (1.0 - q) if side == "q" else (1.0 - q) / q  # theta / (1 - theta)
    k = np.arange(mode, hi, dtype=float)
    right = f0 * np.cumprod((N - k) / (k + 1) * odds)
    k = np.arange(mode, lo, -1, dtype=float)
    left = f0 * np.cumprod(k / (N - k + 1) / odds)
    return np.concatenate((left[::-1], [f0], right))


# --------------------------------------------------------------------------- float pass
@dataclass
class Block:
    """Backgrounds ``ms`` of one block, one row each, reversed: column k of row r is
    s = s1[r] - k, for k = 0..W-1 (rows have their own windows, all W long).

    ``b[r, k]`` ~ b_m(s), ``S[r, k]`` ~ the mass of the window at >= s; columns ``cols``
    hold every u in [u_lo, u_hi] of every row (module doc).  The truth satisfies
    b~(1 - eta) <= b <= b~(1 + eta) + a_b, and the same for S with a_S.
    """

    ms: np.ndarray
    s1: np.ndarray
    b: np.ndarray
    S: np.ndarray
    cols: slice
    eta: float
    a_b: float
    a_S: float

    def shifted(self, x: np.ndarray) -> np.ndarray:
        """x at u + 1 (column k - 1) on the stats columns; 0 beyond the window top."""
        k0, k1 = self.cols.start, self.cols.stop
        if k0 >= 1:
            return x[:, k0 - 1 : k1 - 1]
        return np.concatenate((np.zeros((len(self.ms), 1)), x[:, : k1 - 1]), axis=1)


@dataclass(frozen=True)
class Geometry:
    """Window sizes for n, q and the deltas in use (module doc, "Windows")."""

    n: int
    q: float
    h: int  # rows per block
    W: int  # columns per row
    top: int  # s1 = ceil(mu_m + top): the window's highest s
    k_stats: int  # first stats column (u = u_hi)
    log_tau_b: float  # binomial windows: Bernstein tails <= exp(-log_tau_b) per side
    tau: float  # mass of B_m above the window

    def s1(self, m: np.ndarray) -> np.ndarray:
        mu = (m - 1) * (1.0 - self.q) + (self.n - m) * self.q
        return np.ceil(mu + self.top).astype(np.int64)


def geometry(n: int, q: float, delta_lo: float, delta_hi: float) -> Geometry:
    """Windows for every background: the right edge holds all but tau = 1e-20 delta_lo,
    the stats start at u_hi (tail <= delta_lo/4), the left edge at u_lo (tail <= nu)."""
    p = 1.0 - q
    v = (n - 1) * p * q
    tau = 1e-13 * delta_lo
    t_top = bernstein_t(v, -math.log(tau))
    t_delta = bernstein_t(v, math.log(4 / delta_lo))
    nu = min(delta_lo, 1 - delta_hi, delta_hi) / 2
    t_nu = bernstein_t(v, -math.log(nu))
    top = math.ceil(t_top) + 1
    W = top + math.ceil(t_nu) + 3 + GROUP
    k_stats = max(0, top - math.ceil(t_delta) - 3)
    sd = math.sqrt(v) + 1
    h = max(1, min(MAX_BLOCK, n, 2 ** int(math.log2(max(1.0, 4 * sd)))))
    return Geometry(n, q, h, W, top, k_stats, -math.log(tau) + math.log(1e10), tau)


def _binom_segment(N: int, q: float, side: str, log_inv: float) -> tuple[int, np.ndarray]:
    lo, hi = binom_window(N, q if side == "q" else 1.0 - q, log_inv)
    return lo, binom_pmf(N, q, side, lo, hi)


def _restrict(lo: int, f: np.ndarray, a: int, b: int) -> np.ndarray:
    """f (values at lo..) on a..b, zero outside its range."""
    out = np.zeros(b - a + 1)
    x0, x1 = max(a, lo), min(b, lo + len(f) - 1)
    if x1 >= x0:
        out[x0 - a : x1 - a + 1] = f[x0 - lo : x1 - lo + 1]
    return out


#: Rows per group: the leaves of the halving, computed together from one segment.
GROUP = 8


def _block(g: Geometry, a: int, hb: int, small: dict) -> Block:  # type: ignore[type-arg]
    """Rows m = a..a+hb-1: B_{a+i} = D * Bin(i, p) * Bin(hb - 1 - i, q), D ~ Bin(a - 1, p) +
    Bin(n - a - hb + 1, q), by halving: the low half shares D * Bin(h2, q), the high half
    D * Bin(h1, p), down to groups of <= GROUP rows, whose rows are D' * E_i with the
    small laws E_i ~ Bin(i, p) + Bin(g - 1 - i, q) (module doc).  ``small`` caches the
    kernels (they depend on q and the sizes only)."""
    n, q = g.n, g.q
    ms = np.arange(a, a + hb)
    s1m = g.s1(ms)
    W = g.W
    lo1, f1 = _binom_segment(a - 1, q, "p", g.log_tau_b)
    lo2, f2 = _binom_segment(n - a - hb + 1, q, "q", g.log_tau_b)
    need_lo, need_hi = int(s1m[0]) - W + 1 - (hb - 1), int(s1m[-1])
    D = _restrict(lo1 + lo2, np.convolve(f1, f2), need_lo, need_hi)
    rows = np.empty((hb, W))
    s1 = np.empty(hb, dtype=np.int64)

    def kernel(k: int, side: str) -> np.ndarray:
        key = (k, side)
        if key not in small:
            small[key] = binom_pmf(k, q, side, 0, k)
        return small[key]

    def laws(hn: int) -> np.ndarray:
        key = (hn, "E")
        if key not in small:
            small[key] = np.array(
                [np.convolve(kernel(i, "p"), kernel(hn - 1 - i, "q")) for i in range(hn)]
            )
        return small[key]

    def node(F: np.ndarray, F_lo: int, i0: int, hn: int) -> None:
        # F on F_lo..: B_{a+i} = F * Bin(i - i0, p) * Bin(i0 + hn - 1 - i, q), i in [i0, i0+hn)
        if hn <= GROUP:
            top = int(s1m[i0 + hn - 1])
            E = laws(hn)
            base = top - W + 1 - F_lo  # F index of s = top - W + 1 at j = 0
            acc = np.zeros((hn, W))
            for j in range(hn):
                # row i: sum_j E_i(j) F(s - j), s = top - W + 1 .. top
                acc += E[:, j : j + 1] * F[base - j : base - j + W]
            rows[i0 : i0 + hn] = acc[:, ::-1]
            s1[i0 : i0 + hn] = top
            return
        h1 = hn // 2
        h2 = hn - h1
        for j0, hc, K in ((i0, h1, kernel(h2, "q")), (i0 + h1, h2, kernel(h1, "p"))):
            c_lo, c_hi = int(s1m[j0]) - W + 1 - (hc - 1), int(s1m[j0 + hc - 1])
            seg = F[c_lo - (len(K) - 1) - F_lo : c_hi + 1 - F_lo]
            node(np.convolve(seg, K, "valid"), c_lo, j0, hc)

    node(D, need_lo, 0, hb)
    S = np.cumsum(rows, axis=1)
    depth = max(1, math.ceil(math.log2(hb))) if hb > 1 else 1
    eta = U * (12 * (len(f1) + len(f2)) + 8 * hb * depth + 2 * W + 64) * 1.01
    a_b = 4 * math.exp(-g.log_tau_b)
    a_S = W * a_b + g.tau
    return Block(ms, s1, rows, S, slice(g.k_stats, W), eta, a_b, a_S)


def blocks(
    n: int, q: float, delta_lo: float, delta_hi: float, ms: Sequence[int] | None = None
) -> Iterator[Block]:
    """The backgrounds m = 1..n (or blocks holding ``ms``), block by block (module doc).

    ``delta_lo``/``delta_hi``: the smallest and largest delta the caller will use.
    """
    g = geometry(n, q, delta_lo, delta_hi)
    h = g.h
    if ms is None:
        starts = list(range(1, n + 1, h))
    else:  # blocks of h covering the requested backgrounds, left to right
        starts, end = [], 0
        for m in sorted(set(ms)):
            if m > end:
                starts.append(max(1, min(m, n - h + 1)))
                end = starts[-1] + h - 1
    small: dict = {}  # type: ignore[type-arg]
    for a in starts:
        yield _block(g, a, min(h, n - a + 1), small)


@dataclass
class FloatPass:
    """Per background m (index m - 1), per delta: float estimates and upper bounds.

    ``ratio_hi[j][m-1]`` >= max_u R_m(u) at deltas[j] (so eps_m <= log of it);
    ``ratio[j]`` the plain float value; ``loss_hi``/``loss`` the quantile loss (§3.1);
    ``hockey_hi``/``hockey`` delta_m(eps) at each eps of ``epsilons``.
    """

    n: int
    q: float
    deltas: list[float]
    epsilons: list[float]
    ratio: list[np.ndarray]
    ratio_hi: list[np.ndarray]
    loss: list[np.ndarray]
    loss_hi: list[np.ndarray]
    hockey: list[np.ndarray]
    hockey_hi: list[np.ndarray]
    seen: np.ndarray
    eta: float = 0.0
    unresolved: list[int] = field(default_factory=list)

    def eps(self, j: int = 0) -> np.ndarray:
        return np.log(np.maximum(self.ratio[j], 1.0))

    def eps_hi(self, j: int = 0) -> np.ndarray:
        return np.log(np.maximum(self.ratio_hi[j], 1.0))


def float_pass(
    n: int,
    q: float,
    deltas: Sequence[float],
    epsilons: Sequence[float] = (),
    ms: Sequence[int] | None = None,
    want_prob: bool = True,
    estimates: bool = True,
) -> FloatPass:
    """Every background m = 1..n (or ``ms``), one pass over the blocks (module doc).

    ``estimates``: also the plain float values (else only the upper bounds).
    """
    p = 1.0 - q
    deltas = [float(d) for d in deltas]
    epsilons = [float(e) for e in epsilons]
    nd, ne = len(deltas), len(epsilons)

    def arrs(k: int) -> list[np.ndarray]:
        return [np.full(n, -np.inf) for _ in range(k)]

    out = FloatPass(
        n,
        q,
        deltas,
        epsilons,
        arrs(nd if estimates else 0),
        arrs(nd),
        arrs(nd if want_prob and estimates else 0),
        arrs(nd if want_prob else 0),
        arrs(ne if estimates else 0),
        arrs(ne),
        np.zeros(n, dtype=bool),
    )
    dlo = min(deltas) if deltas else 1e-25
    dhi = max(deltas) if deltas else 0.5
    unresolved: set[int] = set()
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for blk in blocks(n, q, dlo, dhi, ms):
            idx = blk.ms - 1
            out.seen[idx] = True
            out.eta = max(out.eta, blk.eta)
            eta = blk.eta
            bu = blk.b[:, blk.cols]
            Su1 = blk.shifted(blk.S)
            num = p * bu + Su1  # T_m(u+1) = P[A(x) >= u + 1]
            den = q * bu + Su1  # T_{m-1}(u+1) = P[A(x') >= u + 1]
            num_hi = num * (1 + eta) + (p * blk.a_b + blk.a_S)
            den_lo = den * (1 - eta)
            for j, d in enumerate(deltas):
                # den = 0 only where num = 0: -inf there (a_num < d)
                _raise(out.ratio_hi[j], idx, ((num_hi - d) / den_lo).max(axis=1))
                if estimates:
                    _raise(out.ratio[j], idx, ((num - d) / den).max(axis=1))
                if want_prob:
                    hi, bad = _quantile_loss(blk, bu, num_hi > d, p, q, eta, True)
                    _raise(out.loss_hi[j], idx, hi)
                    unresolved.update(blk.ms[bad].tolist())
                    if estimates:
                        est, _ = _quantile_loss(blk, bu, num > d, p, q, eta, False)
                        _raise(out.loss[j], idx, est)
            if ne:
                zero = np.zeros((len(idx), 1))
                Sfull = np.concatenate((zero, blk.S[:, :-1]), axis=1)  # S(u + 1)
                for j, e in enumerate(epsilons):
                    ee = math.exp(e)
                    al, cc = p - q * ee, ee - 1
                    up = al * (1 + eta) if al > 0 else al * (1 - eta)
                    hi = up * blk.b + max(al, 0.0) * blk.a_b - cc * (1 - eta) * Sfull
                    _raise(out.hockey_hi[j], idx, np.maximum(hi.max(axis=1), 0.0))
                    if estimates:
                        val = al * blk.b - cc * Sfull
                        _raise(out.hockey[j], idx, np.maximum(val.max(axis=1), 0.0))
    out.unresolved = sorted(unresolved)
    return out


def _raise(target: np.ndarray, idx: np.ndarray, values: np.ndarray) -> None:
    target[idx] = np.maximum(target[idx], values)


def _quantile_loss(blk: Block, bu, mask, p, q, eta, up):  # type: ignore[no-untyped-def]
    """The §3.1 loss log P/Q at the quantile t_m, per row (estimate, or upper bound).

    Stats columns run from u_hi down to u_lo and T_m(u + 1) = num; t_m - 1 = the
    largest u with num > delta (``mask``; with num rounded up for the upper bound: a
    superset, and the loss is nondecreasing in t).  Rows whose first column passes or
    that never pass (window too narrow: not expected, Bernstein) are flagged, as are
    unbounded values.
    """
    rows = np.arange(len(blk.ms))
    k = np.argmax(mask, axis=1)
    x = bu[rows, k]  # b(t - 1)
    y = blk.shifted(blk.b)[rows, k]  # b(t)
    P, Q = p * x + q * y, q * x + p * y
    if up:
        P, Q = P * (1 + eta) + blk.a_b, Q * (1 - eta)
    val = np.where(Q > 0, np.log(P / Q), np.inf)
    bad = ((k == 0) & mask[:, 0]) | ~mask.any(axis=1) | ~np.isfinite(val)
    return np.maximum(val, 0.0), bad


# --------------------------------------------------------------------------- arb
@dataclass
class ArbLaw:
    """b_m in arb balls on s = lo .. lo + len(b) - 1 (window values, each a lower
    bound of the truth), ``err`` >= the mass left out (so b_true(s) <= b(s) + err and
    S_true(u) <= S_window(u) + err), and S[k] = mass of the window at s >= lo + k."""

    n: int
    m: int
    lo: int
    b: list
    S: list
    err: flint.arb
    p: flint.arb
    q: flint.arb


def _arb_binom(
    N: int, theta: flint.arb, comp: flint.arb, lo: int, hi: int
) -> tuple[list, flint.arb]:
    """Bin(N, theta) at lo..hi in arb (mode value by lgamma, then exact ratios), and an
    upper bound on the mass outside (geometric tails: the ratios are monotone).  ``comp``
    = 1 - theta, passed separately (1 - (1 - q) would lose a tiny q)."""
    if N == 0:
        return [flint.arb(1)], flint.arb(0)
    th, ph = theta, comp
    mode = min(max(int((N + 1) * float(theta.mid())), lo), hi)
    f0 = (
        flint.arb(N + 1).lgamma()
        - flint.arb(mode + 1).lgamma()
        - flint.arb(N - mode + 1).lgamma()
        + mode * th.log()
        + (N - mode) * ph.log()
    ).exp()
    odds = th / ph
    vals = {mode: f0}
    f = f0
    for k in range(mode, hi):
        f = f * (N - k) / (k + 1) * odds
        vals[k + 1] = f
    f = f0
    for k in range(mode, lo, -1):
        f = f * k / (N - k + 1) / odds
        vals[k - 1] = f
    out = [vals[k] for k in range(lo, hi + 1)]
    err = flint.arb(0)
    if hi < N:  # f(hi + j) <= f(hi) rho^j, rho = f(hi+1)/f(hi) < 1 (hi above the mode)
        rho = odds * (N - hi) / (hi + 1)
        assert rho.upper() < 1, "window edge below the mode"
        err += out[-1] * rho / (1 - rho)
    if lo > 0:
        rho = lo / (odds * (N - lo + 1))
        assert rho.upper() < 1, "window edge above the mode"
        err += out[0] * rho / (1 - rho)
    return out, err


def arb_law(n: int, m: int, lie: LieProbability, log_inv: float = 150.0) -> ArbLaw:
    """b_m in arb at the current precision (call inside flint.ctx.workprec)."""
    q = lie.ball()
    p = 1 - q
    qf = lie.float
    lo1, hi1 = binom_window(m - 1, 1 - qf, log_inv)
    lo2, hi2 = binom_window(n - m, qf, log_inv)
    f1, e1 = _arb_binom(m - 1, p, q, lo1, hi1)
    f2, e2 = _arb_binom(n - m, q, p, lo2, hi2)
    b = (flint.arb_poly(f1) * flint.arb_poly(f2)).coeffs()
    length = (hi1 - lo1) + (hi2 - lo2) + 1
    b = list(b) + [flint.arb(0)] * (length - len(b))
    S = [flint.arb(0)] * (length + 1)
    for k in range(length - 1, -1, -1):
        S[k] = S[k + 1] + b[k]
    return ArbLaw(n, m, lo1 + lo2, b, S, (e1 + e2).upper(), p, q)


def _ball_plus(x: flint.arb, err: flint.arb) -> flint.arb:
    """x + [0, err] as a ball."""
    return x + flint.arb(err / 2, err / 2) if err > 0 else x


def _tails(law: ArbLaw) -> Iterator[tuple[int, flint.arb, flint.arb]]:
    """(u, T(u), T'(u)) over the window: T = P[A(x) >= u+1], T' = P[A(x') >= u+1]."""
    for k, bk in enumerate(law.b):
        bb = _ball_plus(bk, law.err)
        S1 = _ball_plus(law.S[k + 1], law.err)
        yield law.lo + k, law.p * bb + S1, law.q * bb + S1


def arb_eps(law: ArbLaw, delta: float) -> tuple[float, float]:
    """Certified [lo, hi] of eps_m(delta) = log max(1, max_u R_m(u)) (module doc).

    Outside the window b <= err and S(u+1) >= S(window top) or T <= err: R < 1 there
    when (p - q) err < delta and err < delta (checked).
    """
    d = flint.arb(delta)
    assert (law.err * 2 < d) is True, "arb window too narrow"
    best_lo, best_hi = flint.arb(1), flint.arb(1)
    for _, T, Tq in _tails(law):
        if (T.upper() <= d) is True:
            continue
        R = (T - d) / Tq
        best_lo = best_lo.max(flint.arb(R.lower()))
        best_hi = best_hi.max(flint.arb(R.upper()))
    return _down(best_lo.log()), _up(best_hi.log())


def arb_delta(law: ArbLaw, eps: float) -> flint.arb:
    """An upper bound (arb, exact) of delta_m(eps) = max(0, max_u T(u) - e^eps T'(u))."""
    e = flint.arb(eps).exp()
    best = flint.arb(0)
    for _, T, Tq in _tails(law):
        best = best.max(flint.arb((T - e * Tq).upper()))
    return best.max(flint.arb(law.err))  # u outside the window: T <= err


def arb_quantile_loss(law: ArbLaw, delta: float) -> tuple[float, float, bool]:
    """Certified [lo, hi] of the §3.1 loss at the quantile, and whether t_m is resolved.

    t_m = largest t with T(t - 1) > delta: lo from the largest t certified above delta,
    hi from the largest t that may be above (the loss is nondecreasing in t).
    """
    d = flint.arb(delta)
    sure = maybe = first = None
    for u, T, _ in _tails(law):
        first = u if first is None else first
        if (T > d) is True:
            sure = u
        if (T <= d) is not True:
            maybe = u
    assert first is not None, "arb window is empty"

    def loss(u: int) -> flint.arb:  # at t = u + 1: b(t - 1) = b(u), b(t) = b(u + 1)
        k = u - law.lo
        x = _ball_plus(law.b[k], law.err)
        y = _ball_plus(law.b[k + 1] if k + 1 < len(law.b) else flint.arb(0), law.err)
        return ((law.p * x + law.q * y) / (law.q * x + law.p * y)).log()

    if sure is None:
        # no t in the window is certainly above delta (delta near 1 at small n: issue 40's
        # hostile inputs): t_m is at most the window's last possible one, or lies below the
        # window, where the loss (nondecreasing in t) is at most its value at the first
        # point; the loss is clamped at 0 from below, the trivial lower end
        hi = loss(maybe if maybe is not None else first)
        return 0.0, max(0.0, _up(hi)), False
    assert maybe is not None
    lo, hi = loss(sure), loss(maybe)
    return max(0.0, _down(lo)), max(0.0, _up(hi)), sure == maybe


def _up(x: flint.arb) -> float:
    """A float >= every point of the ball."""
    v = float(x.upper().mid())
    return v if flint.arb(v) >= x.upper() else math.nextafter(v, math.inf)


def _down(x: flint.arb) -> float:
    """A float <= every point of the ball."""
    v = float(x.lower().mid())
    return v if flint.arb(v) <= x.lower() else math.nextafter(v, -math.inf)


# --------------------------------------------------------------------------- certification
#: At most this many backgrounds are evaluated in arb; the rest keep their float bounds.
MAX_ARB = 64


@dataclass
class Certified:
    """One certified epsilon over every background (module doc, "Certification").

    ``value`` >= the supremum over m = 1..n (the printed number); ``lower`` <= it,
    attained at background ``m``; ``arb_ms`` the backgrounds evaluated in arb.
    """

    value: float
    lower: float
    m: int
    kind: str
    arb_ms: list[int]
    float_bounded: int = 0  # flagged backgrounds left at their float upper bound
    resolved: bool = True  # the §3.1 quantile position certified at every arb background
    pair_upper: float | None = None  # lower bounds: the explicit pair's epsilon is <= this

    @property
    def bracket(self) -> tuple[float, float]:
        return self.lower, self.value


def _certify(
    bounds: np.ndarray, evaluate, log_space: bool
) -> tuple[float, float, int, list[int], int, bool]:  # type: ignore[no-untyped-def]
    """Largest arb upper end over the backgrounds whose float upper bound reaches it."""
    order = np.argsort(-bounds, kind="stable")
    done: dict[int, tuple[float, float, bool]] = {}

    def run(m: int) -> None:
        done[m] = evaluate(m)

    run(int(order[0]) + 1)
    left_out = 0
    value = max(v[1] for v in done.values())
    while True:
        thr = value if log_space else math.exp(value)
        thr -= 4 * U * max(abs(thr), 1.0)
        cand = [int(i) + 1 for i in order if bounds[i] >= thr]
        new = [m for m in cand if m not in done]
        if not new:
            break
        room = MAX_ARB - len(done)
        for m in new[: max(room, 0)]:
            run(m)
        rest = new[max(room, 0) :]
        value = max(v[1] for v in done.values())
        if rest:
            left_out = len(rest)
            top = max(bounds[m - 1] for m in rest)
            top = float(top) if log_space else math.log(max(float(top), 1.0))
            value = max(value, math.nextafter(top, math.inf))
            break
    m_best = max(done, key=lambda m: done[m][0])
    lower = done[m_best][0]
    resolved = all(v[2] for v in done.values())
    return value, lower, m_best, sorted(done), left_out, resolved


def _kind(value: float, lower: float, left_out: int, resolved: bool) -> str:
    tight = value - lower <= EXACT_WIDTH * max(abs(value), 1e-300) or value == lower
    return "exact" if tight and not left_out and resolved else "upper bound"


def _every(fp: FloatPass) -> None:
    """The pass must have covered every background m = 1..n (else: refuse)."""
    if not fp.seen.all():
        missing = np.nonzero(~fp.seen)[0][:5] + 1
        raise RuntimeError(f"float pass missed backgrounds m = {missing.tolist()}...")


def _certify_eps(
    n: int, lie: LieProbability, delta: float, fp: FloatPass
) -> tuple[float, float, int, list[int], int]:
    """epsilon(delta) in arb at the float maximiser and at every m whose float upper bound
    reaches the arb value: (value, lower, m, the m evaluated in arb, backgrounds left)."""
    with flint.ctx.workprec(ARB_PREC):
        log_inv = -math.log(delta * 1e-20)

        def evaluate(m: int) -> tuple[float, float, bool]:
            lo, hi = arb_eps(arb_law(n, m, lie, log_inv), delta)
            return lo, hi, True

        value, lower, m, arb_ms, left, _ = _certify(fp.ratio_hi[0], evaluate, False)
    return value, lower, m, arb_ms, left


def certify_approx(n: int, lie: LieProbability, delta: float, fp: FloatPass) -> Certified:
    """epsilon(delta) over every background: arb at the float maximiser and at every m
    whose float upper bound reaches the arb value (module doc)."""
    _every(fp)
    value, lower, m, arb_ms, left = _certify_eps(n, lie, delta, fp)
    return Certified(value, lower, m, _kind(value, lower, left, True), arb_ms, left)


def certify_prob(n: int, lie: LieProbability, delta: float, fp: FloatPass) -> Certified:
    """The §3.1 epsilon over every background, certified as :func:`certify_approx`."""
    _every(fp)
    with flint.ctx.workprec(ARB_PREC):
        log_inv = -math.log(delta * 1e-20)

        def evaluate(m: int) -> tuple[float, float, bool]:
            return arb_quantile_loss(arb_law(n, m, lie, log_inv), delta)

        bounds = np.maximum(fp.loss_hi[0], 0.0)
        for m in fp.unresolved:
            bounds[m - 1] = np.inf
        value, lower, m, arb_ms, left, res = _certify(bounds, evaluate, True)
    return Certified(value, lower, m, _kind(value, lower, left, res), arb_ms, left, res)


def arb_delta_at(
    n: int, m: int, lie: LieProbability, eps: float, delta: float
) -> tuple[float, float]:
    """Certified [lo, hi] of delta_m(eps), FLINT arb (shown beside the value)."""
    with flint.ctx.workprec(ARB_PREC):
        law = arb_law(n, m, lie, -math.log(delta * 1e-20))
        e = flint.arb(eps).exp()
        lo = flint.arb(0)
        for _, T, Tq in _tails(law):
            lo = lo.max(flint.arb((T - e * Tq).lower()))
        return _down(lo), _up(arb_delta(law, eps))


def arb_eps_at(n: int, m: int, lie: LieProbability, delta: float) -> tuple[float, float]:
    """Certified [lo, hi] of eps_m(delta) at one background."""
    with flint.ctx.workprec(ARB_PREC):
        return arb_eps(arb_law(n, m, lie, -math.log(delta * 1e-20)), delta)


def arb_quantile_at(n: int, m: int, lie: LieProbability, delta: float) -> tuple[float, float]:
    """Certified [lo, hi] of the §3.1 epsilon at one background."""
    with flint.ctx.workprec(ARB_PREC):
        lo, hi, _ = arb_quantile_loss(arb_law(n, m, lie, -math.log(delta * 1e-20)), delta)
        return lo, hi


# --------------------------------------------------------------------------- pruning
#: Backgrounds at each end evaluated one by one before the block search (large n).
PRUNE_SEEDS = 256
#: Blocks of at most this many backgrounds are evaluated one by one.
PRUNE_LEAF = 64
#: Sub-blocks per block that its bound does not clear.
PRUNE_SPLIT = 8


def block_hockey_bound(n: int, q: float, a: int, h: int, eps: float, delta: float) -> float:
    """An upper bound of delta_m(eps) for every m = a .. a + h - 1 (floats, with the error
    bounds of the module doc), from their common part D ~ Bin(a - 1, p) +
    Bin(n - a - h + 1, q): B_m = D + E_m with E_m a law on 0..h-1, so

        delta_m(eps) = max(0, max_u sum_j E_m(j) psi(u - j)) <= max(0, max_w psi(w)),
        psi(w) = (p - q e^eps) D(w) - (e^eps - 1) P[D >= w + 1]

    (the hockey-stick of the pair with background D alone; an average is at most a max).
    """
    p = 1.0 - q
    log_tau_b = -math.log(1e-9 * delta)  # a_D below 1e-8 delta: enough to clear a block
    lo1, f1 = _binom_segment(a - 1, q, "p", log_tau_b)
    lo2, f2 = _binom_segment(n - a - h + 1, q, "q", log_tau_b)
    D = np.convolve(f1, f2)
    eta = U * (12 * (len(f1) + len(f2)) + 2 * len(D) + 64) * 1.01
    a_D = 4 * math.exp(-log_tau_b)  # D_true <= D~ (1 + eta) + a_D, also outside the window
    above = np.concatenate((np.cumsum(D[::-1])[::-1][1:], [0.0]))  # window mass at >= w + 1
    ee = math.exp(eps)
    al, cc = p - q * ee, ee - 1
    up = al * (1 + eta) if al > 0 else al * (1 - eta)
    psi = up * D + max(al, 0.0) * a_D - cc * (1 - eta) * above
    return max(float(psi.max()), max(al, 0.0) * a_D, 0.0)


@dataclass
class PrunedSearch:
    """The approximate epsilon over every background for large n (module doc), with the
    probabilistic one over the backgrounds evaluated one by one (a lower bound)."""

    approx: Certified
    prob: Certified
    eta: float
    one_by_one: int  # backgrounds evaluated by the float pass
    blocks: int  # block bounds computed
    pruned: int  # backgrounds cleared by a block bound
    eps_prune: float  # the level the block bounds clear (<= approx.value)


def _merge(a: FloatPass, b: FloatPass) -> None:
    for x, y in zip(a.ratio_hi + a.loss_hi, b.ratio_hi + b.loss_hi, strict=True):
        np.maximum(x, y, out=x)
    a.seen |= b.seen
    a.eta = max(a.eta, b.eta)
    a.unresolved = sorted(set(a.unresolved) | set(b.unresolved))


def certify_pruned(
    n: int, lie: LieProbability, delta: float, max_work: float
) -> PrunedSearch | None:
    """Seeds at both ends, then blocks split until their bound (:func:`block_hockey_bound`)
    clears eps_prune = the certified lower end at the best seed, or they are short enough
    to evaluate one by one; None when the work (in the units of n * W of the full pass)
    would exceed ``max_work``.

    Why it covers every m: a cleared block has delta_m(eps_prune) <= delta, so
    eps_m <= eps_prune <= the printed value; every other m went through the float pass
    and the certification of :func:`certify_approx`.
    """
    q = lie.float
    g = geometry(n, q, delta, delta)
    K = min(PRUNE_SEEDS, n)
    seeds = sorted(set(range(1, K + 1)) | set(range(max(1, n - K + 1), n + 1)))
    fp = float_pass(n, q, [delta], ms=seeds, estimates=False)
    work = float(fp.seen.sum()) * g.W
    m0 = int(np.argmax(fp.ratio_hi[0])) + 1
    eps_prune = arb_eps_at(n, m0, lie, delta)[0]
    first, last = K + 1, n - K
    queue: list[tuple[int, int]] = []
    if first <= last:
        size = max(PRUNE_LEAF, math.ceil((last - first + 1) / 64))
        queue = [(a, min(size, last - a + 1)) for a in range(first, last + 1, size)]
    cleared = np.zeros(n, dtype=bool)
    leaves: list[int] = []
    count = 0
    sd = math.sqrt(n * q * (1 - q)) + 1
    block_cost = 0.6 * sd * sd + 7000  # a convolution of two windows, measured in units
    while queue:
        a, h = queue.pop()
        count += 1
        work += block_cost
        if block_hockey_bound(n, q, a, h, eps_prune, delta) <= delta:
            cleared[a - 1 : a - 1 + h] = True
        elif h <= PRUNE_LEAF:
            leaves.extend(range(a, a + h))
            work += h * g.W
        else:
            step = math.ceil(h / PRUNE_SPLIT)
            queue.extend((b, min(step, a + h - b)) for b in range(a, a + h, step))
        if work > max_work:
            return None
    if leaves:
        _merge(fp, float_pass(n, q, [delta], ms=leaves, estimates=False))
    if not (fp.seen | cleared).all():
        raise RuntimeError("pruned search left backgrounds uncovered")  # pragma: no cover
    value, lower, m, arb_ms, left = _certify_eps(n, lie, delta, fp)
    if eps_prune > value:
        raise RuntimeError("pruning level above the certified value")  # pragma: no cover
    approx = Certified(value, lower, m, _kind(value, lower, left, True), arb_ms, left)
    bounds = np.where(fp.seen, np.maximum(fp.loss_hi[0], 0.0), -np.inf)
    mp = int(np.argmax(bounds)) + 1
    plo, phi = arb_quantile_at(n, mp, lie, delta)
    plo = max(0.0, plo - 1e-12 * plo)
    prob = Certified(plo, plo, mp, "lower bound", [mp], pair_upper=phi)
    one = int(fp.seen.sum())
    return PrunedSearch(approx, prob, fp.eta, one, count, int(cleared.sum()), eps_prune)
