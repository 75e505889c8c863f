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
  hockey-stick divergence); epsilon(delta) = max_m eps_m(delta);
* probabilistic (epsilon, delta) of §3.1 (the draft leaves it undefined; here: for
  every x, x', P_{s ~ A(x)}[pi(s; x, x') > e^eps] <= delta): the (1 - delta)
  quantile of the privacy loss log P/Q under P, maximised over m.

**What is printed, and why it is safe** (:func:`summary`, L = 1).  Both epsilons are
the supremum over EVERY background m = 1..n, computed by
:mod:`dpcheck.enumeration.krand_l1_exact` (its docstring has the argument in full):

1. exact formulas: B is log-concave, so P/Q is nondecreasing in s and
   eps_m(delta) = log max(1, max_t (P[A(x) >= t] - delta)/P[A(x') >= t]) with no
   bisection; the §3.1 quantile is the loss at the largest t with P[A(x) >= t] > delta;
2. Bernstein's inequality bounds the outcomes t that can matter (rigorous windows);
3. a float pass over every m (blocks of backgrounds sharing one convolution) gives for
   each m an UPPER bound of its value, from floats with a derived error bound (sums and
   products of nonnegative numbers; the windows' left-out mass added);
4. FLINT arb ball arithmetic brackets the value at the m with the largest bound, and at
   every other m whose float upper bound reaches the arb value;
5. the printed epsilon is the largest arb upper end (rounded up to a float): every
   other background is below it by step 3.  The bracket [largest certified lower end,
   printed value] holds the exact supremum; "kind" is "exact" when it is narrower than
   1e-12 (relative), "upper bound" otherwise.

Above the work limit :data:`EVERY_BACKGROUND_WORK` (n times the window width) the
pass over every m is replaced by a pruned search (:func:`krand_l1_exact.certify_pruned`):
the approximate epsilon still covers every background (blocks of backgrounds are cleared
by a rigorous bound on their common part, the rest evaluated one by one as above), but
the probabilistic epsilon, a quantile with no such block bound, is then the largest over
the backgrounds evaluated one by one: a "lower bound".  Above :data:`PRUNED_WORK` (flat
profiles, e.g. small eps0 at large n), backgrounds are searched on a grid over m with
local refinement and both epsilons are printed as lower bounds (arb certifies that the
explicit worst pair found reaches them).  :func:`confirm` (mpmath, 40 digits) is kept
as an independent cross-check of delta at the printed epsilon.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

import flint
import mpmath
import numpy as np

from dpcheck.enumeration import krand
from dpcheck.enumeration import krand_l1_exact as kx
from dpcheck.enumeration.krand import as_q
from dpcheck.errors import InputError
from dpcheck.inputs.limits import ceiling
from dpcheck.numeric.params import parse_count, parse_number, parse_real, shown

#: Float pass over every background while n * (window width) stays below this (~7 s
#: here: n = 1e5 at eps0 = 0.1; the width grows like sqrt(n pq)); above, a grid search
#: whose epsilons are printed as lower bounds.
EVERY_BACKGROUND_WORK = 2.5e8
#: Above it, the pruned search (:func:`krand_l1_exact.certify_pruned`: the approximate
#: epsilon over every background by block bounds) within this work (~15 s here; n = 1e7
#: at eps0 = 4 takes ~9 s); above, the grid search (lower bounds).
PRUNED_WORK = 5e8
GRID_POINTS = 65
MAX_N = ceiling("krand profile", "--n").maximum
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


def lie_from(q: object = None, eps0: object = None) -> kx.LieProbability:
    """q exactly (as given: a rational q, or 1/(1 + e^eps0) with the eps0 given)."""
    q_from(q, eps0)  # validation, one-line errors
    if q is not None:
        return kx.LieProbability(as_q(q))
    return kx.LieProbability(parse_number("eps0", eps0), from_eps0=True)


def check_local_epsilon(L: int, qf: float, q: object, eps0: object) -> None:
    """For L >= 2 (floats throughout): q must differ from 1/2 in floating point, and the
    local epsilon L ln(p/q) stay within the ceiling ``krand profile L x eps0`` (e^epsilon
    finite), else a one-line refusal naming the limit (issue 40's hostile inputs: the
    evaluators overflowed or divided by zero)."""
    given = f"eps0 = {shown(eps0)}" if eps0 is not None else f"q = {shown(q)}"
    if not qf < 0.5:
        what = "q = 1/(1 + e^eps0)" if eps0 is not None else "q"
        raise InputError(
            f"{given}: {what} rounds to 1/2 in floating point, where L >= 2 is computed"
            " (eps0 = ln(p/q) must be at least about 1e-15)"
        )
    top = ceiling("krand profile", "L x eps0")
    local = L * math.log((1 - qf) / qf)
    if local > top.maximum:
        raise InputError(
            f"{given}, L = {L}: the local epsilon L ln(p/q) = {local:.6g} is above"
            f" {top.describe()}"
        )


def check_delta(delta: object) -> float:
    return parse_real("delta", delta, lambda d: 1e-25 <= d < 1, "in [1e-25, 1)")


def check_n(n: object) -> int:
    return parse_count("n", n, 1, MAX_N, ceiling("krand profile", "--n").describe())


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


def every_background(n: int, q: float, deltas: Sequence[float]) -> bool:
    """Whether the float pass over every background fits :data:`EVERY_BACKGROUND_WORK`."""
    g = kx.geometry(n, q, min(deltas), max(deltas))
    return n * g.W <= EVERY_BACKGROUND_WORK


def _candidates(n: int) -> list[int]:
    """The grid over m used above the work limit (a lower-bound search)."""
    grid = np.unique(np.round(np.linspace(1, n, GRID_POINTS)).astype(int))
    return sorted(set(grid.tolist()) | {1, 2, n - 1, n} & set(range(1, n + 1)))


@dataclass
class Profile:
    """epsilon at delta over the backgrounds examined, with the maximising m (floats)."""

    n: int
    q: float
    delta: float
    kind: str  # "approximate" or "probabilistic"
    epsilon: float
    m: int
    examined: Sequence[int] = field(default_factory=list)
    exhaustive: bool = True

    @property
    def assumption(self) -> str:
        if self.exhaustive:
            return f"every background m = 1..{self.n} (both orders), float pass"
        return (
            f"LOWER BOUND: backgrounds searched on a {GRID_POINTS}-point grid over m with"
            f" local refinement ({len(self.examined)} of {self.n} examined; the pass over"
            " every background is above the work limit EVERY_BACKGROUND_WORK)"
        )


def _search(n: int, value) -> tuple[float, int, list[int]]:  # type: ignore[no-untyped-def]
    """Grid over m with integer ternary refinement (a lower bound: explicit pairs)."""
    from dpcheck.enumeration.krand_profile_general import refine_grid_max

    cache: dict[int, float] = {}

    def f(m: int) -> float:
        if m not in cache:
            cache[m] = value(m)
        return cache[m]

    cands = _candidates(n)
    refine_grid_max(cands, f)
    best = max(cache, key=cache.__getitem__)
    return cache[best], best, sorted(cache)


def _profile(n: int, q: float, delta: float, kind: str, prune: bool = True) -> Profile:
    n, delta = check_n(n), check_delta(delta)
    if every_background(n, q, [delta]):
        fp = kx.float_pass(n, q, [delta], want_prob=kind == "probabilistic")
        vals = fp.eps(0) if kind == "approximate" else fp.loss[0]
        m = int(np.argmax(vals)) + 1
        return Profile(n, q, delta, kind, float(vals[m - 1]), m, range(1, n + 1), True)
    if kind == "approximate" and prune:
        pr = kx.certify_pruned(n, kx.LieProbability(Fraction(q)), delta, PRUNED_WORK)
        if pr is not None:
            c = pr.approx
            return Profile(n, q, delta, kind, c.value, c.m, range(1, n + 1), True)
    hi = pure_epsilon(q)

    def value(m: int) -> float:
        pr = pair(n, m, q)
        if kind == "approximate":
            return _eps_of_delta(pr.P, pr.Q, delta, hi)
        return _eps_prob(pr.P, pr.Q, delta)

    eps, m, seen = _search(n, value)
    return Profile(n, q, delta, kind, eps, m, seen, False)


def epsilon_at_delta(n: int, q: float, delta: float) -> Profile:
    """Approximate DP: epsilon(delta) = max_m eps_m(delta) over every background (the
    float pass, or above its work limit the pruned search, certified), else a grid: a
    lower bound, ``exhaustive`` False."""
    return _profile(n, q, delta, "approximate")


def probabilistic_epsilon(n: int, q: float, delta: float) -> Profile:
    """§3.1: smallest eps with pi <= e^eps except on outcomes of probability <= delta."""
    return _profile(n, q, delta, "probabilistic")


def delta_at_epsilon(n: int, q: float, eps: float, ms: list[int] | None = None) -> float:
    """max over backgrounds m (default: every m) of the hockey-stick divergence (floats)."""
    n = check_n(n)
    if ms is None and every_background(n, q, [1e-25]):
        fp = kx.float_pass(n, q, [], [eps], want_prob=False)
        return float(fp.hockey[0].max())
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
def _mp_binom_window(N: int, theta, start: int, length: int, comp=None) -> list:  # type: ignore[no-untyped-def]
    """Bin(N, theta) pmf at start .. start+length-1 in mpmath (loggamma, then ratios);
    ``comp`` = 1 - theta when given (kept exact for a tiny q)."""
    out = []
    if length <= 0:
        return out
    co = 1 - theta if comp is None else comp
    k = start
    val = mpmath.exp(
        mpmath.loggamma(N + 1)
        - mpmath.loggamma(k + 1)
        - mpmath.loggamma(N - k + 1)
        + k * mpmath.log(theta)
        + (N - k) * mpmath.log(co)
    )
    ratio = theta / co
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
    windows (Bernstein radii for e^-80) in mpmath; s* by bisection on the sign of the
    terms, in mpmath.  An independent cross-check of the arb certification (not itself
    rigorous: the mass outside the windows is dropped).  ``q``: a number or a
    :class:`kx.LieProbability` (then q = 1/(1 + e^eps0) is evaluated in mpmath).
    """
    with mpmath.workdps(dps):
        if isinstance(q, kx.LieProbability):
            v = mpmath.mpf(q.value.numerator) / q.value.denominator
            qq = 1 / (1 + mpmath.exp(v)) if q.from_eps0 else v
            qf = q.float
        else:
            qq = mpmath.mpf(Fraction(str(q)).numerator) / Fraction(str(q)).denominator
            qf = float(q)  # type: ignore[arg-type]
        pp = 1 - qq
        e = mpmath.exp(mpmath.mpf(eps))
        s1, h1 = kx.binom_window(m - 1, 1 - qf, _CUT)
        s2, h2 = kx.binom_window(n - m, qf, _CUT)
        b1 = _mp_binom_window(m - 1, pp, s1, h1 - s1 + 1, qq)
        b2 = _mp_binom_window(n - m, qq, s2, h2 - s2 + 1, pp)
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

        # s* = first s with a positive term (the terms' sign is monotone: bisection)
        lo, hi = s1 + s2, s1 + s2 + len(b1) + len(b2) - 1  # A = B + Bern on the windows
        if term(hi) <= 0:
            return {"delta": "0", "s_star": None, "dps": dps}
        while hi - lo > 1:
            mid = (lo + hi) // 2
            lo, hi = (lo, mid) if term(mid) > 0 else (mid, hi)
        s_star = hi if term(lo) <= 0 else lo
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
MAX_L = ceiling("krand profile", "--L").maximum


def summary(
    n: object,
    L: object,
    q: object = None,
    eps0: object = None,
    delta: object = 1e-6,
    curve_deltas: Sequence[float] | None = None,
    budget: float = 120.0,
    progress: Callable[[str], None] | None = None,
) -> dict:  # type: ignore[type-arg]
    """Everything `dpcheck krand profile` prints (§3, §3.1, §4; FMT for comparison).

    L = 1 by this module; L >= 2 by :mod:`krand_profile_general` (exhaustive over the
    backgrounds for small n, over the worst-case families above, assumption printed).
    ``curve_deltas`` (L >= 2): also return epsilon(delta) there, from the same search.
    """
    n = check_n(n)
    L = parse_count("L", L, 1, MAX_L, ceiling("krand profile", "--L").describe())
    qf = q_from(q, eps0)
    d = check_delta(delta)
    if L >= 2:
        check_local_epsilon(L, qf, q, eps0)
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
        from dpcheck.enumeration import krand_bounds as kb
        from dpcheck.enumeration import krand_profile_general as kg

        if n > kg.EXHAUSTIVE_N.get(L, 0) and L <= kb.MAX_L:
            out.update(_summary_bounds(n, L, q, eps0, d, budget, progress))
            return out
        q_exact = as_q(q) if q is not None else Fraction(str(qf))
        out.update(_summary_general(n, L, q_exact, d, curve_deltas))
        pb = out["probabilistic"]
        if pb["kind"] == "lower bound" and pb["epsilon"] > out["pure epsilon"]:
            # a float quantile of log P/Q rounded above its exact maximum L log(p/q)
            # (zz2016.sec3.max_ratio): the maximum is the larger lower bound
            pb["epsilon"] = out["pure epsilon"]
        return out
    out["approximate"], out["probabilistic"] = l1_epsilons(n, lie_from(q, eps0), d)
    _add_fmt(out, n, e0, d)
    return out


def l1_certified(
    n: int, lie: kx.LieProbability, d: float
) -> tuple[kx.Certified, kx.Certified, str, str]:
    """(approximate, probabilistic, how each was established).

    Within :data:`EVERY_BACKGROUND_WORK`: the float pass over every m, both certified
    ("exact" / "upper bound").  Above, within :data:`PRUNED_WORK`: the pruned search
    (approximate over every background; probabilistic over the backgrounds evaluated one
    by one: "lower bound").  Above that: the grid search, both "lower bound".
    """
    qf = lie.float
    if every_background(n, qf, [d]):
        fp = kx.float_pass(n, qf, [d], estimates=False)
        ca, cp = kx.certify_approx(n, lie, d, fp), kx.certify_prob(n, lie, d, fp)
        how = f"every background m = 1..{n} (both orders): float pass at every m (error bound"
        how += f" eta = {fp.eta:.1e}), an upper bound at each m"
        return ca, cp, how, how
    pr = kx.certify_pruned(n, lie, d, PRUNED_WORK)
    if pr is not None:
        how_a = (
            f"every background m = 1..{n} (both orders): {pr.one_by_one} evaluated one by one"
            f" (float pass, error bound eta = {pr.eta:.1e}), the other {pr.pruned} cleared in"
            f" {pr.blocks} blocks by a bound on their common part at eps = {pr.eps_prune:.12g}"
            " (delta_m(eps) <= delta there for every m of the block)"
        )
        how_p = (
            f"the largest over the {pr.one_by_one} backgrounds evaluated one by one (the §3.1"
            " quantile has no block bound, so the other backgrounds are not covered)"
        )
        return pr.approx, pr.prob, how_a, how_p
    out = []
    for kind, at in (("approximate", kx.arb_eps_at), ("probabilistic", kx.arb_quantile_at)):
        prof = _profile(n, qf, d, kind, prune=False)
        lo, hi = at(n, prof.m, lie, d)
        lo = max(0.0, lo - 1e-12 * lo)  # a margin, so that delta(lo) > delta shows
        out.append(kx.Certified(lo, lo, prof.m, "lower bound", [prof.m], pair_upper=hi))
        examined = len(prof.examined)
    how = (
        f"the largest on a {GRID_POINTS}-point grid over m with local refinement ({examined}"
        f" of {n} backgrounds: every-background passes are above the work limits"
        " EVERY_BACKGROUND_WORK and PRUNED_WORK)"
    )
    return out[0], out[1], how, how


def _established(c: kx.Certified, how: str) -> str:
    shown = ", ".join(str(m) for m in c.arb_ms[:6]) + (", ..." if len(c.arb_ms) > 6 else "")
    if c.kind == "lower bound":
        return (
            f"attained by the explicit pair at background m = {c.m}, {how}; FLINT arb"
            f" ({kx.ARB_PREC}-bit balls) certifies that its epsilon is >= this value"
        )
    text = (
        f"{how}; FLINT arb ({kx.ARB_PREC}-bit balls) at m = {shown};"
        f" the supremum lies in [{c.lower:.12g}, {c.value:.12g}]"
    )
    if c.float_bounded:
        text += f"; {c.float_bounded} backgrounds near the top kept at their float bound"
    if not c.resolved:
        text += "; a quantile position left unresolved in arb (its high side taken)"
    return text


def _bracket(c: kx.Certified) -> list[float | None]:
    """[lo, hi]: for exact / upper-bound values the supremum over every background lies
    in it; for lower bounds, the epsilon of the explicit pair does (the supremum >= lo)."""
    if c.kind == "lower bound":
        return [c.value, c.pair_upper]
    return [c.lower, c.value]


def l1_epsilons(n: int, lie: kx.LieProbability, d: float) -> tuple[dict, dict]:  # type: ignore[type-arg]
    """The "approximate" and "probabilistic" entries of :func:`summary` at L = 1."""
    ca, cp, how_a, how_p = l1_certified(n, lie, d)
    m, eps = ca.m, ca.value
    float_eps = float(kx.float_pass(n, lie.float, [d], ms=[m], want_prob=False).eps(0)[m - 1])
    mp = confirm(n, m, lie, eps)
    d_lo, d_hi = kx.arb_delta_at(n, m, lie, eps, d)
    approximate = {
        "epsilon": eps,
        "kind": ca.kind,
        "established": _established(ca, how_a),
        "bracket": _bracket(ca),
        "float epsilon": float_eps,
        "worst background m": m,
        "worst pair": f"x: {m} ones (changed user 1), x': {m - 1} ones (changed user 0)",
        # an upper bound (<= delta) for exact / upper-bound values, a lower bound (> delta:
        # the pair attains the value) for lower bounds
        "arb delta at epsilon": f"{d_lo if ca.kind == 'lower bound' else d_hi:.15g}",
        "mpmath delta at epsilon": mp["delta"],
        "mpmath dps": mp["dps"],
    }
    probabilistic = {
        "epsilon": cp.value,
        "kind": cp.kind,
        "established": _established(cp, how_p),
        "bracket": _bracket(cp),
        "worst background m": cp.m,
        "definition": PROBABILISTIC_DEFINITION,
    }
    return approximate, probabilistic


PROBABILISTIC_DEFINITION = (
    "smallest eps with P_{s~A(x)}[pi(s; x, x') > e^eps] <= delta for all"
    " neighbours (§3.1 leaves it undefined; this reading)"
)


def _add_fmt(out: dict, n: int, local_eps: float, d: float) -> None:  # type: ignore[type-arg]
    """FMT upper bounds for a local_eps-LDP randomizer, shuffled (the histogram is the
    shuffled multiset of reports), and what comparing our epsilon with them shows."""
    fmt = {"closed form (FMT code, closedformanalysis)": fmt_closed_form(n, local_eps, d)}
    ref = fmt_reference(n, local_eps, d)
    if ref:
        fmt["README numerical range"] = [ref["lower"], ref["upper"]]
    out["FMT upper bounds"] = fmt
    closed = fmt["closed form (FMT code, closedformanalysis)"]
    bounds = [v for v in (closed, ref and ref["upper"]) if v]
    ap = out["approximate"]
    below = all(ap["epsilon"] <= b for b in bounds)
    out["epsilon <= FMT upper bounds"] = below
    out["FMT comparison"] = fmt_words(ap["kind"], below, bool(bounds))


def kind_words(kind: str) -> str:
    """The "kind" of a printed epsilon, in words (text output)."""
    return {
        "exact": "exact: the worst case over every neighbouring pair",
        "upper bound": "certified upper bound on the worst case",
        "lower bound": "LOWER BOUND: attained by an explicit pair, worst case not proven",
    }[kind]


def fmt_words(kind: str, below: bool, any_bound: bool) -> str:
    """What epsilon <= (or >) the FMT upper bounds means for a value of this kind."""
    if not any_bound:
        return "no FMT bound applies at these parameters"
    if kind == "exact":
        return (
            "the exact epsilon lies at or below every FMT upper bound (consistent)"
            if below
            else "the exact epsilon EXCEEDS an FMT upper bound: inconsistent, to be checked"
        )
    if kind == "upper bound":
        return (
            "our certified upper bound lies at or below every FMT upper bound (consistent)"
            if below
            else "our upper bound exceeds an FMT upper bound: no contradiction (ours may be loose)"
        )
    return (
        "our lower bound lies at or below every FMT upper bound (consistent; only a lower"
        " bound above them would contradict FMT)"
        if below
        else "our lower bound EXCEEDS an FMT upper bound: inconsistent, to be checked"
    )


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
    hi = conf["epsilon"] if conf else 0.0
    delta_hi = conf["delta at epsilon"] if conf else None
    lo, delta_lo = _certified_below(mode, ap.pair, q, d, ap.epsilon)
    exhaustive = mode == "exhaustive"
    how_lo = "exact rationals" if exhaustive else f"FLINT arb at {kg.CONFIRM_DPS} digits"
    out: dict = {}  # type: ignore[type-arg]
    out["approximate"] = {
        "epsilon": hi if exhaustive else lo,
        "kind": "exact" if exhaustive else "lower bound",
        "established": (
            "every background orbit and every changed vector b (up to XOR and bit-permutation"
            " symmetry), both orders, on the exact laws (float search across pairs, so exact"
            " up to float rounding between near-tied pairs, ~1e-12 relative); at the worst"
            f" pair exact rationals give delta(epsilon) <= delta and delta(lo) > delta, so its"
            f" epsilon lies in [{lo:.12g}, {hi:.12g}]"
            if exhaustive
            else "attained by the explicit pair below (family H: an assumption about where the"
            f" worst case lies, so the supremum may be larger); {how_lo} certifies"
            f" delta(epsilon) > delta at this pair and delta(eps) <= delta at eps = {hi:.12g},"
            f" so the pair's own epsilon lies in [{lo:.12g}, {hi:.12g}]"
        ),
        "bracket": [lo, hi],
        "float epsilon": ap.epsilon,
        "worst pair": ap.pair.describe(),
        "worst pair in family H": kg.in_families(ap.pair),
        "assumption": prof.assumption,
        "confirmation": conf["how"] if conf else "epsilon = 0: delta(0) <= delta in floats",
        "delta at epsilon": delta_hi if exhaustive else delta_lo,
    }
    if not exhaustive:
        out["approximate"]["delta at the pair's upper end"] = delta_hi
    prob = {
        "epsilon": pb.epsilon,
        "kind": "exact" if exhaustive else "lower bound",
        "established": (
            "float quantile over every background orbit and b (both orders) picks the worst"
            " pair; its quantile is recomputed there in exact rationals ('exact epsilon')"
            if exhaustive
            else "float quantile at an explicit pair of family H (see the note: the worst"
            " case can lie outside H)"
        ),
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
    one = epsilon_at_delta(n, float(q), d)
    out["L = 1 epsilon at the same n, q"] = one.epsilon
    out["L = 1 kind"] = "exact (floats, every background)" if one.exhaustive else "lower bound"
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


def _summary_bounds(
    n: int,
    L: int,
    q: object,
    eps0: object,
    d: float,
    budget: float,
    progress: Callable[[str], None] | None,
) -> dict:  # type: ignore[type-arg]
    """L = 2..4 above the exhaustive range: the certified bounds of :mod:`krand_bounds`."""
    from dpcheck.enumeration import krand_bounds as kb
    from dpcheck.enumeration import krand_profile_general as kg

    top = kb.MAX_N[L]
    if n > top:
        raise InputError(
            f"n = {n} is above the certified-bound limit n <= {top} for L = {L} (the"
            f" ceiling of {ceiling('krand profile', f'--n (L = {L})').key}: its time and"
            " memory are in the README)"
        )
    lie = lie_from(q, eps0)
    e0 = math.log((1 - lie.float) / lie.float)
    most = ceiling("krand profile", "--eps0 (certified bounds)")
    if e0 > most.maximum:
        # the float evaluators need p = 1 - q distinct from 1 (q > 2^-53: eps0 < 36.7),
        # with room for the laws' products
        raise InputError(
            f"eps0 = ln(p/q) = {e0:.6g} is above {most.describe()}; n <="
            f" {kg.EXHAUSTIVE_N.get(L, 0)} is computed exactly at any eps0"
        )
    out = kb.summary_bounds(n, L, lie, d, budget, progress)
    ap = {
        "epsilon": out["upper"]["epsilon"],
        "kind": "upper bound",
        "certified by": "clone-lemma cover"
        if out["upper"]["kind"] == "upper bound"
        else "local epsilon (post-processing)",
        "established": out["upper"]["established"],
        "bracket": [out["lower"]["epsilon"], out["upper"]["epsilon"]],
        "worst pair": out["lower"]["attained by"],
        "upper / lower": out["upper / lower"],
    }
    out["approximate"] = ap
    one = epsilon_at_delta(n, lie.float, d) if n <= 2000 else None
    if one is not None:
        out["L = 1 epsilon at the same n, q"] = one.epsilon
    _add_fmt(out, n, L * math.log((1 - lie.float) / lie.float), d)
    out["FMT note"] = "bounds for an (L*eps0)-LDP randomizer, shuffled: upper bounds here too"
    return out


def _rational_above_exp(eps: float) -> Fraction:
    """A rational r >= e^eps (mpmath at 50 digits, then raised by 1e-45 relative)."""
    with mpmath.workdps(50):
        e = mpmath.exp(mpmath.mpf(eps)) * (1 + mpmath.mpf(10) ** -45)
        man, exp = e.man_exp
    return Fraction(int(man)) * Fraction(2) ** int(exp)


def _certified_below(mode: str, pair, q: Fraction, delta: float, eps: float) -> tuple[float, str]:  # type: ignore[no-untyped-def]
    """(lo, delta(lo)): lo <= eps with delta(lo) > delta certified at the pair, so the
    pair's epsilon exceeds lo: exact rationals at r >= e^lo (exhaustive) or the lower end
    of an arb ball (family).  Relative steps down from 1e-12."""
    from dpcheck.enumeration import krand_profile_general as kg

    if eps <= 0:
        return 0.0, "0"
    if mode == "exhaustive":
        laws = kg.exact_pair_laws(pair, q)[1:]
    else:
        with flint.ctx.workdps(kg.CONFIRM_DPS):
            arb_laws = kg.reduced_laws_arb(pair, q)
    step, cur = 1e-12 * max(eps, 1e-6), eps
    for _ in range(40):
        if cur <= 0:
            break
        if mode == "exhaustive":
            dv = kg.exact_delta(pair, q, _rational_above_exp(cur), laws)
            if dv > Fraction(delta):
                return cur, f"{float(dv):.15g}"
        else:
            ball = kg.arb_delta(pair, q, cur, laws=arb_laws)
            if ball > flint.arb(delta):  # every point of the ball
                return cur, ball.lower().str(15, radius=False)
        cur -= step
        step *= 4
    return 0.0, "0"  # pragma: no cover - delta(0) > delta when eps > 0


def grid_epsilon_at_delta(n: int, q: float, delta: float) -> Profile:
    """The search used before every-background passes (and above the work limit): a
    grid over m with local refinement.  A lower bound; kept for comparison (bench)."""
    hi = pure_epsilon(q)

    def value(m: int) -> float:
        pr = pair(n, m, q)
        return _eps_of_delta(pr.P, pr.Q, delta, hi)

    eps, m, seen = _search(n, value)
    return Profile(n, q, delta, "approximate", eps, m, seen, False)


def curve(n: int, q: float, deltas: np.ndarray) -> np.ndarray:
    """epsilon(delta) for each delta (approximate DP, floats): one pass over every
    background within the work limit (:func:`curve_is_every_background`), else the
    grid search at each delta (lower bounds; the figures mark them)."""
    ds = [float(d) for d in deltas]
    if every_background(n, q, ds):
        fp = kx.float_pass(n, q, ds, want_prob=False)
        return np.array([fp.eps(j).max() for j in range(len(ds))])
    return np.array([_profile(n, q, d, "approximate", prune=False).epsilon for d in ds])


def curve_is_every_background(n: int, q: float, deltas: Sequence[float]) -> bool:
    """Whether :func:`curve` covers every background (else its values are lower bounds)."""
    return every_background(n, q, [float(d) for d in deltas])
