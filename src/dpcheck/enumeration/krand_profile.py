"""Privacy profiles of K-randomization for L = 1 (Zhilyaev and Zeber 2016, §3, §3.1, §4).

(L >= 2: :mod:`dpcheck.enumeration.krand_profile_general`, reached through
:func:`summary`; at L = 1 it reproduces this module's values, tested.)

Neighbours x, x' share a background of n - 1 users, m - 1 of them holding a 1,
and differ in one user who holds 1 in x and 0 in x' (m = 1..n).  With the
background count B ~ Bin(m - 1, p) + Bin(n - m, q) (§4),

    P(s) = P[A(x) = s]  = p B(s - 1) + q B(s)
    Q(s) = P[A(x') = s] = q B(s - 1) + p B(s)                        (eq (3.1))

The other order (x' against x) at m is the same pair at n - m + 1 read backwards
(s → n - s swaps p and q), so scanning m = 1..n in this order covers both.

* pure epsilon (Proposition 1.1): log max_s P/Q = log(p/q), attained at s = n
  (each term of P is at most p/q times the matching term of Q);
* approximate (epsilon, delta): delta(eps) = max_m sum_s max(0, P - e^eps Q) (the
  hockey-stick divergence); epsilon(delta) = max_m eps_m(delta), each by bisection;
* probabilistic (epsilon, delta) of §3.1 (the draft leaves it undefined; here: for
  every x, x', P_{s ~ A(x)}[pi(s; x, x') > e^eps] <= delta): the (1 - delta)
  quantile of the privacy loss log P/Q under P, maximised over m.

Floats work on windows of the two binomials holding all but e^-80 of their mass,
in log space (lgamma), so n up to 10^6 costs milliseconds per background.  For
n <= EXHAUSTIVE_N every m is examined; above, a grid over m with local
refinement (an assumption printed with the result).  The final value is
confirmed in mpmath at the maximising background (:func:`confirm`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction

import mpmath
import numpy as np

from dpcheck.enumeration import krand
from dpcheck.enumeration.krand import as_q
from dpcheck.errors import InputError
from dpcheck.numeric.params import parse_count, parse_real

EXHAUSTIVE_N = 2000
GRID_POINTS = 65
MAX_N = 10**7
_CUT = 80.0  # window: log pmf within _CUT of its maximum

_lgamma = np.frompyfunc(math.lgamma, 1, 1)


# --------------------------------------------------------------------------- input
def q_from(q: object = None, eps0: object = None) -> float:
    """The lie probability q in (0, 1/2) from q or from eps0 = ln(p/q) > 0 (§2.1)."""
    if (q is None) == (eps0 is None):
        raise InputError("give exactly one of q and eps0")
    if q is not None:
        return float(as_q(q))
    e = parse_real("eps0", eps0, lambda x: 0 < x < 700, "in (0, 700): q = 1/(1 + e^eps0)")
    return 1.0 / (1.0 + math.exp(e))


def check_delta(delta: object) -> float:
    return parse_real("delta", delta, lambda d: 1e-25 <= d < 1, "in [1e-25, 1)")


def check_n(n: object) -> int:
    return parse_count("n", n, 1, MAX_N, f"the profile limit of {MAX_N} (MAX_N)")


# --------------------------------------------------------------------------- laws
def _log_binom_window(N: int, theta: float) -> tuple[int, np.ndarray]:
    """(start, log pmf) of Bin(N, theta) on the window holding all but ~e^-80 of it."""
    if N == 0:
        return 0, np.zeros(1)
    mode = int((N + 1) * theta)
    half = int(_CUT * math.sqrt(N * theta * (1 - theta)) + _CUT) + 2
    lo, hi = max(0, mode - half), min(N, mode + half)
    k = np.arange(lo, hi + 1, dtype=float)
    logc = math.lgamma(N + 1) - _lgamma(k + 1).astype(float) - _lgamma(N - k + 1).astype(float)
    logp = logc + k * math.log(theta) + (N - k) * math.log1p(-theta)
    keep = logp > logp.max() - _CUT
    idx = np.nonzero(keep)[0]
    return lo + int(idx[0]), logp[idx[0] : idx[-1] + 1]


@dataclass
class Pair:
    """P, Q on s = start .. start + len - 1 for the neighbours at background m (module doc)."""

    n: int
    m: int
    q: float
    start: int
    P: np.ndarray
    Q: np.ndarray


def pair(n: int, m: int, q: float) -> Pair:
    """P = law of A(x), Q = law of A(x') for background m (eq (3.1)), floats on a window."""
    p = 1.0 - q
    s1, l1 = _log_binom_window(m - 1, p)
    s2, l2 = _log_binom_window(n - m, q)
    top = l1.max() + l2.max()
    b = np.convolve(np.exp(l1 - l1.max()), np.exp(l2 - l2.max())) * math.exp(top)
    start = s1 + s2
    ext = np.concatenate(([0.0], b, [0.0]))  # B(s-1) and B(s) for s = start .. start+len(b)
    prev, cur = ext[:-1], ext[1:]
    return Pair(n, m, q, start, p * prev + q * cur, q * prev + p * cur)


def _hockey(P: np.ndarray, Q: np.ndarray, eps: float) -> float:
    return float(np.maximum(P - math.exp(eps) * Q, 0.0).sum())


def _eps_of_delta(P: np.ndarray, Q: np.ndarray, delta: float, hi: float) -> float:
    """Smallest eps in [0, hi] with hockey(eps) <= delta, by bisection (upper end returned)."""
    if _hockey(P, Q, 0.0) <= delta:
        return 0.0
    lo = 0.0
    for _ in range(60):
        mid = (lo + hi) / 2
        if _hockey(P, Q, mid) <= delta:
            hi = mid
        else:
            lo = mid
        if hi - lo < 1e-13 * max(hi, 1e-300):
            break
    return hi


def _eps_prob(P: np.ndarray, Q: np.ndarray, delta: float) -> float:
    """Smallest eps >= 0 with P[log P/Q > eps] <= delta under P (§3.1, as read here)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        loss = np.where((P > 0) & (Q > 0), np.log(P) - np.log(Q), -np.inf)
    order = np.argsort(-loss, kind="stable")
    mass = np.cumsum(P[order])
    j = int(np.searchsorted(mass, delta, side="right"))
    if j >= len(order):
        return 0.0
    return max(0.0, float(loss[order[j]]))


# --------------------------------------------------------------------------- profiles
def pure_epsilon(q: float, L: int = 1) -> float:
    """log max pi = L log(p/q) (Proposition 1.1; exhaustively confirmed by max_ratio)."""
    return L * math.log((1 - q) / q)


def _candidates(n: int) -> list[int]:
    if n <= EXHAUSTIVE_N:
        return list(range(1, n + 1))
    grid = np.unique(np.round(np.linspace(1, n, GRID_POINTS)).astype(int))
    return sorted(set(grid.tolist()) | {1, 2, n - 1, n})


@dataclass
class Profile:
    """epsilon at delta over the backgrounds examined, with the maximising m."""

    n: int
    q: float
    delta: float
    kind: str  # "approximate" or "probabilistic"
    epsilon: float
    m: int
    examined: list[int] = field(default_factory=list)
    exhaustive: bool = True

    @property
    def assumption(self) -> str:
        if self.exhaustive:
            return f"exhaustive over every background m = 1..{self.n} (both orders)"
        return (
            f"backgrounds searched on a {GRID_POINTS}-point grid over m with local refinement"
            f" ({len(self.examined)} of {self.n} examined): assumes eps_m(delta) has no"
            " narrower peak between grid points"
        )


def _search(n: int, value) -> tuple[float, int, list[int]]:  # type: ignore[no-untyped-def]
    cache: dict[int, float] = {}

    def f(m: int) -> float:
        if m not in cache:
            cache[m] = value(m)
        return cache[m]

    cands = _candidates(n)
    best = max(cands, key=f)
    if n > EXHAUSTIVE_N:  # integer ternary refinement between the neighbouring grid points
        from dpcheck.enumeration.krand_profile_general import refine_grid_max

        refine_grid_max(cands, f)
        best = max(cache, key=cache.__getitem__)
    return cache[best], best, sorted(cache)


def epsilon_at_delta(n: int, q: float, delta: float) -> Profile:
    """Approximate DP: epsilon(delta) = max_m eps_m(delta) by the hockey-stick divergence."""
    n, delta = check_n(n), check_delta(delta)
    hi = pure_epsilon(q)

    def value(m: int) -> float:
        pr = pair(n, m, q)
        return _eps_of_delta(pr.P, pr.Q, delta, hi)

    eps, m, seen = _search(n, value)
    return Profile(n, q, delta, "approximate", eps, m, seen, n <= EXHAUSTIVE_N)


def probabilistic_epsilon(n: int, q: float, delta: float) -> Profile:
    """§3.1: smallest eps with pi <= e^eps except on outcomes of probability <= delta."""
    n, delta = check_n(n), check_delta(delta)

    def value(m: int) -> float:
        pr = pair(n, m, q)
        return _eps_prob(pr.P, pr.Q, delta)

    eps, m, seen = _search(n, value)
    return Profile(n, q, delta, "probabilistic", eps, m, seen, n <= EXHAUSTIVE_N)


def delta_at_epsilon(n: int, q: float, eps: float, ms: list[int] | None = None) -> float:
    """max over backgrounds m (default: as in :func:`epsilon_at_delta`) of the hockey-stick."""
    n = check_n(n)
    return max(_hockey(pair(n, m, q).P, pair(n, m, q).Q, eps) for m in (ms or _candidates(n)))


def naive_epsilon_at_delta(n: int, q: float, delta: float, ms: list[int]) -> tuple[float, int]:
    """Straightforward reference: full-length pmfs by direct convolution, recomputed per step."""
    p = 1.0 - q
    best = (0.0, ms[0])
    for m in ms:

        def law(m: int = m) -> tuple[np.ndarray, np.ndarray]:
            def binom(N: int, th: float) -> np.ndarray:
                return np.exp(
                    [
                        math.lgamma(N + 1)
                        - math.lgamma(k + 1)
                        - math.lgamma(N - k + 1)
                        + k * math.log(th)
                        + (N - k) * math.log1p(-th)
                        for k in range(N + 1)
                    ]
                )

            b = np.convolve(binom(m - 1, p), binom(n - m, q))
            ext = np.concatenate(([0.0], b, [0.0]))
            return p * ext[:-1] + q * ext[1:], q * ext[:-1] + p * ext[1:]

        lo, hi = 0.0, pure_epsilon(q)
        for _ in range(40):
            mid = (lo + hi) / 2
            P, Q = law()
            if _hockey(P, Q, mid) <= delta:
                hi = mid
            else:
                lo = mid
        if hi > best[0]:
            best = (hi, m)
    return best


# --------------------------------------------------------------------------- confirmation
def _mp_binom_window(N: int, theta, start: int, length: int) -> list:  # type: ignore[no-untyped-def]
    """Bin(N, theta) pmf at start .. start+length-1 in mpmath (loggamma, then ratios)."""
    out = []
    if length <= 0:
        return out
    k = start
    val = mpmath.exp(
        mpmath.loggamma(N + 1)
        - mpmath.loggamma(k + 1)
        - mpmath.loggamma(N - k + 1)
        + k * mpmath.log(theta)
        + (N - k) * mpmath.log(1 - theta)
    )
    ratio = theta / (1 - theta)
    for k in range(start, start + length):
        out.append(val)
        val = val * (N - k) / (k + 1) * ratio
    return out


def confirmed_epsilon(n: int, m: int, q: object, eps: float, delta: float) -> dict:  # type: ignore[type-arg]
    """eps nudged up (relative steps from 1e-10) until mpmath confirms delta_m(eps) <= delta."""
    step = 1e-10 * max(eps, 1e-6)
    cur = eps
    for _ in range(60):
        c = confirm(n, m, q, cur)
        if c.get("delta_value", 0) <= delta:
            c.update(epsilon=cur, float_epsilon=eps)
            return c
        cur += step
        step *= 4
    raise RuntimeError("mpmath could not confirm the float epsilon")  # pragma: no cover


def confirm(n: int, m: int, q: object, eps: float, dps: int = 40) -> dict:  # type: ignore[type-arg]
    """delta_m(eps) in mpmath at ``dps`` digits (eq (3.1), tails of the log-concave B).

    B is a sum of independent Bernoullis, hence log-concave, so the loss log P/Q is
    nondecreasing in s and {P > e^eps Q} is an upper tail {s >= s*}; then
    delta_m(eps) = sum_{s >= s*} P(s) - e^eps Q(s), evaluated from the two binomial
    windows (mass outside < e^-80) in mpmath.  s* is checked in mpmath too.
    """
    with mpmath.workdps(dps):
        qq = mpmath.mpf(Fraction(str(q)).numerator) / Fraction(str(q)).denominator
        pp = 1 - qq
        e = mpmath.exp(mpmath.mpf(eps))
        s1, l1 = _log_binom_window(m - 1, 1 - float(q))
        s2, l2 = _log_binom_window(n - m, float(q))
        b1 = _mp_binom_window(m - 1, pp, s1, len(l1))
        b2 = _mp_binom_window(n - m, qq, s2, len(l2))
        # tails of the second binomial: t2[j] = P[B2 >= s2 + j]
        t2 = [mpmath.mpf(0)] * (len(b2) + 1)
        for j in range(len(b2) - 1, -1, -1):
            t2[j] = t2[j + 1] + b2[j]

        def B(s: int):  # type: ignore[no-untyped-def]
            tot = mpmath.mpf(0)
            for i, w in enumerate(b1):
                j = s - s1 - i - s2
                if 0 <= j < len(b2):
                    tot += w * b2[j]
            return tot

        def T(s: int):  # type: ignore[no-untyped-def]  # P[B >= s]
            tot = mpmath.mpf(0)
            for i, w in enumerate(b1):
                j = s - s1 - i - s2
                tot += w * (t2[0] if j <= 0 else (t2[j] if j < len(t2) else 0))
            return tot

        def term(s: int):  # type: ignore[no-untyped-def]
            prev, cur = B(s - 1), B(s)
            return (pp * prev + qq * cur) - e * (qq * prev + pp * cur)

        pr = pair(n, m, float(q))
        pos = np.nonzero(pr.P - math.exp(eps) * pr.Q > 0)[0]
        if len(pos) == 0:
            return {"delta": "0", "s_star": None, "dps": dps}
        s_star = pr.start + int(pos[0])
        # adjust s* in mpmath: first s with a positive term
        while term(s_star) <= 0:
            s_star += 1
        while s_star > 0 and term(s_star - 1) > 0:
            s_star -= 1
        t_prev, t_cur = T(s_star - 1), T(s_star)
        delta = (pp * t_prev + qq * t_cur) - e * (qq * t_prev + pp * t_cur)
        return {"delta": mpmath.nstr(delta, 15), "delta_value": delta, "s_star": s_star, "dps": dps}


# --------------------------------------------------------------------------- literature
#: Feldman, McMillan, Talwar (FOCS 2021), public code README: n = 1e5, eps0 = 4, delta = 1e-6.
FMT_README = {"n": 100000, "eps0": 4.0, "delta": 1e-6, "lower": 0.1675, "upper": 0.1728}


def fmt_closed_form(n: int, eps0: float, delta: float) -> float | None:
    """Feldman, McMillan and Talwar's closed-form shuffling bound, or None outside its regime.

    As their public code computes it (apple/ml-shuffling-amplification,
    computeamplification.py, ``closedformanalysis``): with
    a = 8 sqrt(e^eps0 log(4/delta))/sqrt(n), c = 8 e^eps0/n,
    e = log(1 + a + c), b = 1 - e^-eps0 and d = 1 + e^(-eps0 - e),
    eps = log(1 + (b/d)(a + c)); valid for eps0 <= log(n/(16 log(4/delta))).
    It bounds every eps0-LDP randomizer, so binary randomized response must
    lie at or below it.
    """
    if n <= 16 * math.log(4 / delta) or eps0 > math.log(n / (16 * math.log(4 / delta))):
        return None
    a = 8 * math.sqrt(math.exp(eps0) * math.log(4 / delta)) / math.sqrt(n)
    c = 8 * math.exp(eps0) / n
    e = math.log1p(a + c)
    b = -math.expm1(-eps0)
    d = 1 + math.exp(-eps0 - e)
    return math.log1p(b / d * (a + c))


def fmt_reference(n: int, eps0: float, delta: float) -> dict | None:  # type: ignore[type-arg]
    """The README's numerical range when (n, eps0, delta) is its example, else None."""
    r = FMT_README
    if n == r["n"] and abs(eps0 - r["eps0"]) < 1e-12 and abs(delta - r["delta"]) < 1e-18:
        return {"lower": r["lower"], "upper": r["upper"]}
    return None


# --------------------------------------------------------------------------- summary
MAX_L = 20


def summary(
    n: object,
    L: object,
    q: object = None,
    eps0: object = None,
    delta: object = 1e-6,
    curve_deltas: Sequence[float] | None = None,
) -> dict:  # type: ignore[type-arg]
    """Everything `dpcheck krand profile` prints (§3, §3.1, §4; FMT for comparison).

    L = 1 by this module; L >= 2 by :mod:`krand_profile_general` (exhaustive over the
    backgrounds for small n, over the worst-case families above, assumption printed).
    ``curve_deltas`` (L >= 2): also return epsilon(delta) there, from the same search.
    """
    n = check_n(n)
    L = parse_count("L", L, 1, MAX_L, f"the profile limit of {MAX_L} (MAX_L: 2^L reports)")
    qf = q_from(q, eps0)
    d = check_delta(delta)
    e0 = math.log((1 - qf) / qf)
    out: dict = {  # type: ignore[type-arg]
        "n": n,
        "L": L,
        "q": qf,
        "eps0": e0,
        "delta": d,
        "pure epsilon": pure_epsilon(qf, L),
        "pure epsilon note": "L*log(p/q): each term of P[A(x)=s] is at most (p/q)^L times the"
        " matching term of P[A(x')=s], with equality at s = n reports of x's changed vector",
        "local RR epsilon": L * e0,
    }
    if L != 1:
        q_exact = as_q(q) if q is not None else Fraction(str(qf))
        out.update(_summary_general(n, L, q_exact, d, curve_deltas))
        return out
    ap = epsilon_at_delta(n, qf, d)
    pb = probabilistic_epsilon(n, qf, d)
    conf = confirmed_epsilon(n, ap.m, qf, ap.epsilon, d) if ap.epsilon > 0 else None
    out["approximate"] = {
        "epsilon": conf["epsilon"] if conf else 0.0,
        "float epsilon": ap.epsilon,
        "worst background m": ap.m,
        "worst pair": f"x: {ap.m} ones (changed user 1), x': {ap.m - 1} ones (changed user 0)",
        "assumption": ap.assumption,
        "mpmath delta at epsilon": conf["delta"] if conf else "0",
        "mpmath dps": conf["dps"] if conf else None,
    }
    out["probabilistic"] = {
        "epsilon": pb.epsilon,
        "worst background m": pb.m,
        "definition": PROBABILISTIC_DEFINITION,
        "assumption": pb.assumption,
    }
    _add_fmt(out, n, e0, d)
    return out


PROBABILISTIC_DEFINITION = (
    "smallest eps with P_{s~A(x)}[pi(s; x, x') > e^eps] <= delta for all"
    " neighbours (§3.1 leaves it undefined; this reading)"
)


def _add_fmt(out: dict, n: int, local_eps: float, d: float) -> None:  # type: ignore[type-arg]
    """FMT upper bounds for a local_eps-LDP randomizer, shuffled (the histogram is the
    shuffled multiset of reports), and whether the exact value lies below them."""
    fmt = {"closed form (FMT code, closedformanalysis)": fmt_closed_form(n, local_eps, d)}
    ref = fmt_reference(n, local_eps, d)
    if ref:
        fmt["README numerical range"] = [ref["lower"], ref["upper"]]
    out["FMT upper bounds"] = fmt
    closed = fmt["closed form (FMT code, closedformanalysis)"]
    bounds = [v for v in (closed, ref and ref["upper"]) if v]
    out["exact <= FMT upper bounds"] = all(out["approximate"]["epsilon"] <= b for b in bounds)


def _summary_general(
    n: int, L: int, q: Fraction, d: float, curve_deltas: Sequence[float] | None
) -> dict:  # type: ignore[type-arg]
    """The L >= 2 part of :func:`summary` (module krand_profile_general)."""
    from dpcheck.enumeration import krand_profile_general as kg

    mode = kg.check_profile_size(n, L)
    deltas = [d, *(float(x) for x in (curve_deltas or []))]
    prof = kg.profile(n, L, q, deltas, mode)
    ap, pb = prof.approximate[0], prof.probabilistic[0]
    assert ap.pair is not None and pb.pair is not None
    conf = kg.confirm(mode, ap.pair, q, d, ap.epsilon) if ap.epsilon > 0 else None
    out: dict = {}  # type: ignore[type-arg]
    out["approximate"] = {
        "epsilon": conf["epsilon"] if conf else 0.0,
        "float epsilon": ap.epsilon,
        "worst pair": ap.pair.describe(),
        "worst pair in family H": kg.in_families(ap.pair),
        "assumption": prof.assumption,
        "confirmation": conf["how"] if conf else "epsilon = 0: delta(0) <= delta in floats",
        "delta at epsilon": conf["delta at epsilon"] if conf else None,
    }
    prob = {
        "epsilon": pb.epsilon,
        "worst pair": pb.pair.describe(),
        "definition": PROBABILISTIC_DEFINITION,
        "assumption": prof.assumption,
    }
    if mode == "exhaustive":
        exact_eps, ratio = kg.exact_probabilistic(pb.pair, q, d)
        prob["exact epsilon"] = exact_eps
        prob["exact ratio P/Q at the quantile"] = str(ratio)
    else:
        prob["note"] = kg.PROBABILISTIC_CAVEAT
    out["probabilistic"] = prob
    if mode == "family":
        out["family evidence"] = kg.FAMILY_EVIDENCE
    one_bit = epsilon_at_delta(n, float(q), d).epsilon if n <= MAX_N else None
    out["L = 1 epsilon at the same n, q"] = one_bit
    out["L = 1 note"] = (
        "a lower bound on the L-bit epsilon: counting the reports' first bit is a"
        " post-processing of the L-bit histogram with neighbours differing in that bit"
    )
    out["search"] = {
        "mode": mode,
        "ordered pairs examined": prof.pairs_examined,
        "cells per law": prof.cells,
        "cells examined": prof.outcomes_examined,
        "report histograms C(n + 2^L - 1, 2^L - 1)": krand.outcome_count(n, L),
        "naive enumeration 2^(nL) per collection": f"2^{n * L}",
    }
    _add_fmt(out, n, L * math.log((1 - float(q)) / float(q)), d)
    out["FMT note"] = "bounds for an (L*eps0)-LDP randomizer, shuffled: upper bounds here too"
    if curve_deltas is not None:
        out["curve"] = {
            "delta": deltas[1:],
            "mode": mode,
            "approximate": [w.epsilon for w in prof.approximate[1:]],
            "probabilistic": [w.epsilon for w in prof.probabilistic[1:]],
        }
    return out


def curve(n: int, q: float, deltas: np.ndarray) -> np.ndarray:
    """epsilon(delta) for each delta (approximate DP, worst background as in epsilon_at_delta)."""
    return np.array([epsilon_at_delta(n, q, float(d)).epsilon for d in deltas])
