"""Certified epsilon(delta) of multi-bit shuffled K-randomization: an upper and a lower bound.

Zhilyaev and Zeber (2016) §2.2, §3, §3.1; the derivation is
``derivations/krand-shuffle-bound.tex`` (:mod:`dpcheck.derivations.krand_shuffle`).

* **Lower bound** (:func:`lower_bound`): attained by an explicit neighbouring pair.  The
  candidates are the *pure* backgrounds, all n - 1 other users on one vector of an
  extreme class (|x_B| in {0, h}, |x_N| in {0, L - h}) for each Hamming distance h, whose
  N-experiment is the exact experiment (the cell histogram is sufficient there), and for
  the changed user flipping every bit, the backgrounds with j users on the flipped vector
  and the rest on the unflipped one (small j).  The best one's epsilon is found in floats,
  lowered by a margin, and certified: a certified *lower* bound on its delta exceeds delta
  there (:func:`krand_single.delta_single` / :meth:`krand_multi.PairArrays.delta_lower`).
* **Upper bound** (:func:`upper_bound`): epsilon* such that, for every h = 1..L,
  :class:`krand_cover.Cover` settles every composition of the background at epsilon*
  (delta(epsilon*) <= delta for every neighbouring pair); tried at the lower bound times
  1.1 first, then at tighter ratios (down to 1.005) while they settle and time remains, or
  at looser ones until one settles; the local epsilon L log(p/q) when none does.

Both are labelled: ``lower`` is "attained" (certified lower bound on the worst case),
``upper`` is "certified" (upper bound over every pair).

**Time and memory** (issue 40; :mod:`krand_work`).  The upper bound has the budget; the
lower bound :func:`lower_seconds` of it more (a quarter, at least LOWER_MIN_SECONDS), the
§3.1 epsilon at the pair PROBABILISTIC_SHARE of it; each phase runs under a deadline that
the evaluators check inside their loops, and gives up with what it has: a cover that runs
out says "time budget" (a looser ratio, or the local epsilon, is then printed), a lower
bound candidate that runs out is skipped, and if none is certified the histogram of one
bit gives the bound.  No evaluation allocates more than :data:`krand_work.EVAL_BYTES`
(counted before it starts: the tool gives the trivial bound 1, the candidate is skipped,
the §3.1 epsilon is "not computed"), and every cache has a byte limit, which the worker
processes share.  When delta(0) <= delta at every candidate the lower bound is 0 and the
upper bound search tries epsilon = 0, then fractions of the local epsilon (FROM_ZERO).
"""

from __future__ import annotations

import contextlib
import math
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import flint

from dpcheck.enumeration import krand_multi as km
from dpcheck.enumeration import krand_single as ks
from dpcheck.enumeration.krand_cells import PREC, Cells, _up, nclone_system, orbit_system
from dpcheck.enumeration.krand_cover import Cover, CoverResult, verdict
from dpcheck.enumeration.krand_l1_exact import LieProbability
from dpcheck.enumeration.krand_work import OutOfTime, TooLarge, deadline
from dpcheck.enumeration.krand_workers import CoverWorkers
from dpcheck.inputs.limits import ceiling

#: The upper bound is first tried at lower * TARGET_RATIO, then at TIGHTER ratios while they
#: certify, or at LOOSER ones until one does.
TARGET_RATIO = 1.1
TIGHTER = (1.05, 1.03, 1.02, 1.01, 1.005)
LOOSER = (1.15, 1.2, 1.3, 1.5, 2.0, 3.0)
#: Every attempt but the last resort may use at most this share of the time left, so that a
#: ratio that runs out of time still leaves time for a looser one.
ATTEMPT_SHARE = 0.6
#: After an attempt ran out of time, the looser ratios below this one are skipped at first
#: (they would run out too) and tried afterwards, tightest last, while time is left.
JUMP_RATIO = 1.5
#: Near-vertex backgrounds scanned for the lower bound (users on the flipped vector).
NEAR_VERTEX = (1, 2, 3, 4, 6, 8)
#: ... tried when the flip-every-bit orbit system has at most this many cells (L = 2: the
#: two-law FFT is tight; at L = 3 its certified lower bound on delta is a few per cent
#: below the upper one, too loose to certify a candidate that beats the pure one)
NEAR_VERTEX_CELLS = 3
#: From this L on, the h < L candidates are evaluated on the histogram of their B-bits
#: (single-law closed form on h + 1 cells) rather than the orbit cells (the product-law
#: evaluator costs seconds per call there).
PROJECT_FROM_L = 3


def bits_of(L: int, h: int, u: int, v: int) -> str:
    """The vector 1^u 0^(h-u) | 1^v 0^(L-h-v) as a bit string (B positions first)."""
    return "1" * u + "0" * (h - u) + "1" * v + "0" * (L - h - v)


@dataclass
class Pair:
    """A neighbouring pair: the changed user holds a = 0 in x and b in x'; the background
    is ``counts`` users on each vector of ``vectors``."""

    L: int
    h: int
    vectors: tuple[str, ...]
    counts: tuple[int, ...]

    def describe(self) -> str:
        a = "0" * self.L
        b = "1" * self.h + "0" * (self.L - self.h)
        bg = ", ".join(f"{c} x {v}" for v, c in zip(self.vectors, self.counts, strict=False) if c)
        return f"x: changed user holds {a}, x': holds {b}; background of {sum(self.counts)}: {bg}"


@dataclass
class Lower:
    epsilon: float
    float_epsilon: float
    pair: Pair
    delta_lower_at_epsilon: float
    candidates: dict[str, float | str]
    seconds: float
    how: str


@dataclass
class Upper:
    epsilon: float | None
    ratio: float | None
    certificates: dict[int, CoverResult] = field(default_factory=dict)
    #: (epsilon, result, seconds since the upper bound started when that attempt ended)
    tried: list[tuple[float, str, float]] = field(default_factory=list)
    seconds: float = 0.0
    how: str = ""


def _bisect(
    delta_of: Callable[[float], float], delta: float, hi: float, tol: float = 1e-10
) -> float:
    """Smallest eps in [0, hi] with delta_of(eps) <= delta (delta_of nonincreasing), to
    relative tolerance ``tol``; the value returned has delta_of <= delta."""
    d0 = delta_of(0.0)
    if d0 <= delta:
        return 0.0
    return _root(delta_of, delta, 0.0, d0, hi, tol)


def _root(
    delta_of: Callable[[float], float],
    delta: float,
    lo: float,
    dlo: float,
    hi: float,
    tol: float = 1e-10,
) -> float:
    """The bracket [lo, hi] (delta_of(lo) = dlo > delta) shrunk to relative width ``tol``
    around the crossing by the Illinois variant of regula falsi on log delta_of (a
    bisection step whenever a value is 0 or the bracket shrinks too little); returns hi."""
    dhi = delta_of(hi)
    if dhi > delta:
        return hi
    target = math.log(delta)

    def g(d: float) -> float:
        return math.log(d) - target if d > 0 else -math.inf

    glo, ghi = g(dlo), g(dhi)
    side = 0
    while hi - lo > tol * max(hi, 1e-6):
        width = hi - lo
        if math.isfinite(ghi) and glo - ghi > 0:
            mid = hi - ghi * (hi - lo) / (ghi - glo)
            mid = min(max(mid, lo + 0.01 * width), hi - 0.01 * width)
        else:
            mid = (lo + hi) / 2
        gm = g(delta_of(mid))
        if gm <= 0:
            hi, ghi = mid, gm
            if side == -1:
                glo /= 2
            side = -1
        else:
            lo, glo = mid, gm
            if side == 1 and math.isfinite(ghi):
                ghi /= 2
            side = 1
        if hi - lo > 0.7 * width:  # slow progress: bisect once
            mid = (lo + hi) / 2
            gm = g(delta_of(mid))
            if gm <= 0:
                hi, ghi = mid, gm
            else:
                lo, glo = mid, gm
    return hi


def pure_epsilon_bound(L: int, lie: LieProbability) -> float:
    """L log(p/q): the local epsilon, an upper bound on every shuffled epsilon."""
    q = lie.float
    return L * math.log((1 - q) / q)


def _certify_lower(
    delta_lower: Callable[[float], float], eps_float: float, delta: float
) -> tuple[float, float]:
    """The largest eps on a ladder below eps_float whose certified delta lower bound exceeds
    delta: (eps, that lower bound)."""
    for rel in (1e-9, 1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3):
        eps = eps_float * (1 - rel)
        d = delta_lower(eps)
        if d > delta:
            return eps, d
    return 0.0, 1.0


def law_gap(cells: Cells, c: tuple[int, int], law: ks.Law) -> float:
    """An upper bound on sum over cells |law - gamma_c| (the float stick law a candidate
    is evaluated with, against class c's exact law; c extreme, lambda = 1); the float sum
    of rounded-up terms is inflated by 1e-12 for its own rounding."""
    with flint.ctx.workprec(PREC):
        gaps = [_up(abs(a - g)) for a, g in zip(law.arb(), cells.gamma[c], strict=True)]
    return sum(gaps) * (1 + 1e-12)


def _exact_laws(lowf: Callable[[float], float], gap: float) -> Callable[[float], float]:
    """A certified lower bound on delta of the experiment with the exact laws from one with
    float laws whose background differs from it by at most ``gap`` in total variation
    (the sum over users of :func:`law_gap`): delta = sup_A P(A) - e^eps Q(A) moves by at
    most gap + e^eps gap."""
    return lambda e: lowf(e) - gap * (1 + math.exp(e) * (1 + 1e-12))


#: The lower bound's time, on top of the upper bound's budget: this share of the budget,
#: and at least LOWER_MIN_SECONDS (issue 40: it was not limited, 600 s and more at L = 4,
#: n = 5000).  Its candidates share SEARCH_SHARE of it, each but the last at most
#: CANDIDATE_SHARE of what is left; the rest certifies the best ones.
LOWER_SHARE = 0.25
LOWER_MIN_SECONDS = 2.0
SEARCH_SHARE = 0.75
CANDIDATE_SHARE = 0.6

Candidate = tuple[str, Callable[[float], float], Callable[[float], float], "Pair"]


def _projected_candidate(L: int, h: int, n: int, lie: LieProbability) -> Candidate:
    """The pure background 0^L for Hamming distance h < L through the histogram of its
    h B-bits alone (a post-processing: a certified lower bound on that experiment's delta
    is one on the pair's), with the single-law closed form on h + 1 cells."""
    bcells = nclone_system(L, h, lie)
    law_b = ks.CloneLaw.of(bcells.clone_law((0, 0)))
    up = lambda e, c=bcells, w=law_b: ks.delta_single(c, w, n - 1, e)  # noqa: E731
    lowf = _exact_laws(
        lambda e, c=bcells, w=law_b: ks.delta_single(c, w, n - 1, e, lower=True),
        (n - 1) * law_gap(bcells, (0, 0), law_b),
    )
    pair = Pair(L, h, (bits_of(L, h, 0, 0),), (n - 1,))
    name = f"h={h}, background {bits_of(L, h, 0, 0)} (histogram of the B-bits)"
    return name, up, lowf, pair


def lower_candidates(L: int, n: int, lie: LieProbability) -> list[Candidate]:
    """The lower bound's candidates in the order they are searched (module doc): for each
    h = L..1 the pure backgrounds (for L >= PROJECT_FROM_L and h < L through the histogram
    of the B-bits), after h = L the near-vertex backgrounds where the orbit system is small
    (name, float delta, certified lower bound on delta, pair)."""
    cands: list[Candidate] = []
    for h in range(L, 0, -1):
        cells = orbit_system(L, h, lie)
        Lp = L - h
        if Lp and L >= PROJECT_FROM_L:
            cands.append(_projected_candidate(L, h, n, lie))
            continue
        for c in ((0, 0), (0, Lp)) if Lp else ((0, 0),):
            g = cells.clone_law(c)
            if Lp:
                if min(cells.shape) != 2:
                    continue  # mode two needs a coordinate with two values
                g2 = g.reshape(h + 1, Lp + 1)
                law: ks.Law = ks.ProductLaw(
                    ks.CloneLaw.of(g2.sum(axis=1)), ks.CloneLaw.of(g2.sum(axis=0))
                )
            else:
                law = ks.CloneLaw.of(g)
            up = lambda e, cells=cells, law=law: ks.delta_single(cells, law, n - 1, e)  # noqa: E731
            lowf = _exact_laws(
                lambda e, cells=cells, law=law: ks.delta_single(cells, law, n - 1, e, lower=True),
                (n - 1) * law_gap(cells, c, law),
            )
            pair = Pair(L, h, (bits_of(L, h, c[0], c[1]),), (n - 1,))
            cands.append((f"h={h}, background {bits_of(L, h, c[0], c[1])}", up, lowf, pair))
        if h == L and orbit_system(L, L, lie).size <= NEAR_VERTEX_CELLS:
            # near-vertex backgrounds of the flip-every-bit pair (exact two-law experiments)
            la = km.natural_law(cells.clone_law((0, 0)))
            lb = km.natural_law(cells.clone_law((L, 0)))
            for j in NEAR_VERTEX:
                if j >= n - 1:
                    break
                parts = ((n - 1 - j, la), (j, lb))
                up = lambda e, cells=cells, parts=parts: km.pair_arrays(cells, parts).delta(e)  # noqa: E731

                def lowf_floats(e, cells=cells, parts=parts):
                    return km.pair_arrays(cells, parts).delta_lower(e)

                gap = (n - 1 - j) * law_gap(cells, (0, 0), la) + j * law_gap(cells, (L, 0), lb)
                lowf = _exact_laws(lowf_floats, gap)

                pair = Pair(L, L, ("0" * L, "1" * L), (n - 1 - j, j))
                cands.append(
                    (f"h={L}, background {n - 1 - j} x {'0' * L} + {j} x {'1' * L}", up, lowf, pair)
                )
    return cands


def lower_bound(
    L: int, n: int, lie: LieProbability, delta: float, max_seconds: float = math.inf
) -> Lower:
    """A certified lower bound on epsilon(delta), attained by an explicit pair (module doc).

    Candidates are tried in turn; one whose delta at the best epsilon so far is already
    <= delta cannot beat it and is not searched further (recorded as "<= best").

    Time and memory (issue 40): the search of the candidates may use SEARCH_SHARE of
    ``max_seconds``, each candidate but the last at most CANDIDATE_SHARE of what is left;
    a candidate that runs out of it is recorded as "time budget (skipped)", one whose
    evaluation would exceed the memory limit as "too large to evaluate (skipped)".  The
    rest of ``max_seconds`` certifies the best ones.  If none is certified in time, the
    cheapest candidate (the histogram of one bit, h = 1: a binomial law, microseconds per
    evaluation) is searched and certified without a limit, so there is always an attained
    bound."""
    start = time.perf_counter()
    top = pure_epsilon_bound(L, lie)
    cands = lower_candidates(L, n, lie)
    best_eps, best = -1.0, None
    found: dict[str, float | str] = {}
    with deadline(SEARCH_SHARE * max_seconds):
        for i, (name, up, lowf, pair) in enumerate(cands):
            left = SEARCH_SHARE * max_seconds - (time.perf_counter() - start)
            share = 1.0 if i == len(cands) - 1 else CANDIDATE_SHARE
            try:
                with deadline(share * left):
                    if best is not None and up(best_eps) <= delta:
                        found[name] = "<= best"
                        continue
                    eps = (
                        _bisect(up, delta, top)
                        if best is None
                        else _bisect_from(up, delta, best_eps, top)
                    )
            except (TooLarge, MemoryError):
                found[name] = "too large to evaluate (skipped)"
                continue
            except OutOfTime:
                found[name] = "time budget (skipped)"
                continue
            found[name] = eps
            if eps > best_eps:
                best_eps, best = eps, (name, up, lowf, pair)
    # certify in order of float epsilon; a candidate whose float epsilon is at most the best
    # certified one cannot improve it
    ranked = sorted(
        ((v, c) for c in cands if isinstance(v := found.get(c[0]), float)),
        key=lambda vc: -vc[0],
    )
    eps, dlow, pair, best_eps = 0.0, 1.0, None, best_eps
    with deadline(max_seconds - (time.perf_counter() - start)):
        for v, (_name, _upper, lowf, cand_pair) in ranked:
            if v <= eps:
                break
            try:
                e, d = _certify_lower(lowf, v, delta)
            except (TooLarge, MemoryError, OutOfTime):
                continue
            if e > eps:
                eps, dlow, pair, best_eps = e, d, cand_pair, v
    fallback = ""
    if eps <= 0 or pair is None:
        name, up, lowf, one_bit = _projected_candidate(L, 1, n, lie)
        v = found[name] if isinstance(found.get(name), float) else _bisect(up, delta, top)
        found[name] = v
        e, d = _certify_lower(lowf, v, delta) if v > 0 else (0.0, 1.0)
        if e > 0:
            eps, dlow, pair, best_eps = e, d, one_bit, v
            fallback = (
                "; no candidate above was certified within the time, so the histogram of"
                " one bit (h = 1) gives it"
            )
        else:  # delta(0) <= delta at the candidates searched: epsilon >= 0 is all we know
            how = (
                "no candidate's epsilon is certified above 0 (delta(0) <= delta at those"
                " searched, or their certification failed): 0, the trivial lower bound"
            )
            seconds = time.perf_counter() - start
            return Lower(0.0, max(best_eps, 0.0), one_bit, 0.0, found, seconds, how)
    assert pair is not None
    how = (
        f"attained by the explicit pair below: its delta at this epsilon is > {dlow:.6g} > delta"
        " (a certified lower bound: floats with error bounds; for a pure or two-vector"
        " background of extreme vectors the cell histogram is sufficient, so the N-experiment"
        " is the exact experiment); candidates: the pure backgrounds on the extreme vectors 0^L"
        " and 0^h 1^(L-h) for every Hamming distance h (for L >= 3 and h < L through the"
        " histogram of the B-bits alone, a post-processing)"
        + (
            f", and the flip-every-bit pair with {', '.join(str(j) for j in NEAR_VERTEX)} users"
            " moved to the flipped vector"
            if orbit_system(L, L, lie).size <= NEAR_VERTEX_CELLS
            else ""
        )
        + "; the candidate of largest certified epsilon is printed"
        + fallback
    )
    return Lower(eps, best_eps, pair, dlow, found, time.perf_counter() - start, how)


def _bisect_from(delta_of: Callable[[float], float], delta: float, lo: float, hi: float) -> float:
    """As :func:`_bisect` knowing delta_of(lo) > delta."""
    return _root(delta_of, delta, lo, delta_of(lo), hi)


def certify_at(
    L: int,
    n: int,
    lie: LieProbability,
    delta: float,
    eps: float,
    max_seconds: float = math.inf,
    workers: CoverWorkers | None = None,
) -> tuple[bool, dict[int, CoverResult], str]:
    """Whether delta(eps) <= delta over every pair: a :class:`Cover` per h, h = L first, in
    sequence, or side by side on ``workers`` (:mod:`krand_workers`: the same covers)."""
    hs = list(range(L, 0, -1))
    if workers is not None:
        results = workers.covers(L, n, lie, delta, eps, max_seconds)
        ok, why = verdict(results, hs)
        return ok, results, why
    results = {}
    start = time.perf_counter()
    for h in hs:
        left = max_seconds - (time.perf_counter() - start)
        results[h] = Cover(L, h, lie, n, delta, eps).run(max_seconds=max(left, 1.0))
        if not results[h].ok:
            break
    ok, why = verdict(results, hs)
    return ok, results, why


#: Worker processes for the covers of one upper bound (:mod:`krand_workers`), used up to
#: PARALLEL_MAX_L bits and PARALLEL_MAX_N users: from L = 4 on the covers' caches would
#: not fit in memory twice (L = 4 alone peaks at about 11 GB); at n = 10^4 the covers are
#: dominated by FFTs that already use both cores (side by side, each worker on one
#: thread, L = 2 reached 1.1 x lower in 243 s against 217 s in sequence, and 1.05 not
#: at all in the budget).
PROCESSES = min(2, os.cpu_count() or 1)
PARALLEL_MAX_L = 3
PARALLEL_MAX_N = 2000


def upper_bound(
    L: int,
    n: int,
    lie: LieProbability,
    delta: float,
    lower: float,
    max_seconds: float = 600.0,
    progress: Callable[[str], None] | None = None,
    processes: int | None = None,
) -> Upper:
    """The smallest lower * ratio certified by :func:`certify_at` within the time budget:
    ratio 1.1 first, then tighter ratios while they certify (down to 1.005) and the last
    attempt's time still fits in the budget, looser ones while 1.1 does not (up to the local
    epsilon).  Each attempt may use ATTEMPT_SHARE of the time left (the last one all of it);
    after one runs out of time the search jumps to JUMP_RATIO and, once that certifies,
    comes back down through the ratios it skipped.  The covers run on ``processes``
    persistent workers (default :data:`PROCESSES` for 2 <= L <= :data:`PARALLEL_MAX_L`
    and n <= :data:`PARALLEL_MAX_N`, else in this process)."""
    if processes is None:
        processes = PROCESSES if 2 <= L <= PARALLEL_MAX_L and n <= PARALLEL_MAX_N else 1
    with CoverWorkers(processes) if processes > 1 else contextlib.nullcontext() as workers:
        return _upper_bound(L, n, lie, delta, lower, max_seconds, progress, workers)


def _upper_bound(
    L: int,
    n: int,
    lie: LieProbability,
    delta: float,
    lower: float,
    max_seconds: float,
    progress: Callable[[str], None] | None,
    workers: CoverWorkers | None,
) -> Upper:
    start = time.perf_counter()
    up = Upper(None, None)
    top = pure_epsilon_bound(L, lie)
    if lower <= 0:
        _upper_from_zero(L, n, lie, delta, max_seconds, progress, workers, up, start)
    else:
        _upper_by_ratios(L, n, lie, delta, lower, max_seconds, progress, workers, up, start)
    if up.epsilon is None:
        up.epsilon, up.ratio = top, top / lower if lower > 0 else None
        up.how = (
            "the local epsilon L log(p/q) (shuffling is a post-processing of the local reports)"
        )
    else:
        boxes = sum(c.boxes for c in up.certificates.values())
        settled = sum(len(c.settled) for c in up.certificates.values())
        tools: dict[str, int] = {}
        for c in up.certificates.values():
            for s in c.settled:
                k = s.tool.split(" of class")[0]
                tools[k] = tools.get(k, 0) + 1
        up.how = (
            "for every Hamming distance h = 1..L, every composition of the other n - 1 users over"
            " the classes (|x_B|, |x_N|) lies in one of "
            f"{settled} boxes ({boxes} examined), each settled at this epsilon by a certified"
            " bound on delta (the clone lemma with orbit or N-clone cells) or the mirror image"
            " of compositions so settled (every background XORed with the changed user's"
            " flip: the same delta); tools "
            + ", ".join(f"{k}: {v}" for k, v in sorted(tools.items()))
            + "; so delta(epsilon) <= delta for every neighbouring pair"
        )
    up.seconds = time.perf_counter() - start
    return up


#: With a lower bound of 0 (delta(0) <= delta at every candidate) there is no ratio to
#: aim at: epsilon = 0 is tried, then these fractions of the local epsilon.
FROM_ZERO = (0.0, 1 / 64, 1 / 16, 1 / 4)


def _upper_from_zero(
    L: int,
    n: int,
    lie: LieProbability,
    delta: float,
    max_seconds: float,
    progress: Callable[[str], None] | None,
    workers: CoverWorkers | None,
    up: Upper,
    start: float,
) -> None:
    """The upper-bound search when the lower bound is 0: :data:`FROM_ZERO` in turn, each
    but the last with ATTEMPT_SHARE of the time left, until one settles."""
    top = pure_epsilon_bound(L, lie)
    for i, frac in enumerate(FROM_ZERO):
        eps = frac * top
        left = max_seconds - (time.perf_counter() - start)
        if left <= 1.0:
            up.tried.append((eps, "time budget", time.perf_counter() - start))
            return
        if progress:
            progress(f"certifying epsilon = {eps:.6g} ({frac:g} x the local epsilon)")
        share = 1.0 if i == len(FROM_ZERO) - 1 else ATTEMPT_SHARE
        ok, certs, why = certify_at(L, n, lie, delta, eps, max(1.0, share * left), workers)
        up.tried.append((eps, why, time.perf_counter() - start))
        if ok:
            up.epsilon, up.ratio, up.certificates = eps, None, certs
            return


def _upper_by_ratios(
    L: int,
    n: int,
    lie: LieProbability,
    delta: float,
    lower: float,
    max_seconds: float,
    progress: Callable[[str], None] | None,
    workers: CoverWorkers | None,
    up: Upper,
    start: float,
) -> None:
    """The upper-bound search at ratios to a positive lower bound (:func:`upper_bound`)."""
    top = pure_epsilon_bound(L, lie)
    last = [0.0]
    timed_out = [False]

    def attempt(r: float, optional: bool = False, share: float = ATTEMPT_SHARE) -> bool:
        eps = lower * r
        if eps >= top:
            up.tried.append((top, "the local epsilon", time.perf_counter() - start))
            return False
        left = max_seconds - (time.perf_counter() - start)
        if left <= 1.0 or (optional and last[0] > left):
            up.tried.append((eps, "time budget", time.perf_counter() - start))
            return False
        began = time.perf_counter()
        if progress:
            progress(f"certifying epsilon = {eps:.6g} (lower x {r:g})")
        ok, certs, why = certify_at(L, n, lie, delta, eps, max(1.0, share * left), workers)
        up.tried.append((eps, why, time.perf_counter() - start))
        last[0] = time.perf_counter() - began
        timed_out[0] = any(c.out_of_budget for c in certs.values())
        if ok and (up.epsilon is None or eps < up.epsilon):
            up.epsilon, up.ratio, up.certificates = eps, r, certs
        return ok

    if attempt(TARGET_RATIO):
        for r in TIGHTER:
            if not attempt(r, optional=True):
                break
    else:
        skipped: list[float] = []
        for i, r in enumerate(LOOSER):
            if timed_out[0] and r < JUMP_RATIO:
                skipped.append(r)
                continue
            final = i == len(LOOSER) - 1 or lower * LOOSER[i + 1] >= top
            if attempt(r, share=1.0 if final else ATTEMPT_SHARE) or lower * r >= top:
                break
        if up.epsilon is not None and up.ratio is not None:
            for r in sorted((r for r in skipped if r < up.ratio), reverse=True):
                if not attempt(r, optional=True):
                    break


#: Time for the §3.1 epsilon at the attained pair (one FFT of the pair's laws): this share
#: of the budget, at least LOWER_MIN_SECONDS.
PROBABILISTIC_SHARE = 0.05


def probabilistic_at(
    pair: Pair, lie: LieProbability, delta: float, max_seconds: float = math.inf
) -> float | None:
    """The §3.1 probabilistic epsilon at the pair (floats), where the cells allow (<= 4);
    None there and when the pair's laws exceed the memory limit or ``max_seconds``
    (:func:`probabilistic_why` says which)."""
    return _probabilistic(pair, lie, delta, max_seconds)[0]


def probabilistic_why(
    pair: Pair, lie: LieProbability, delta: float, max_seconds: float = math.inf
) -> tuple[float | None, str]:
    """(:func:`probabilistic_at`, why it is None: "" when it is not)."""
    return _probabilistic(pair, lie, delta, max_seconds)


def _probabilistic(
    pair: Pair, lie: LieProbability, delta: float, max_seconds: float
) -> tuple[float | None, str]:
    cells = orbit_system(pair.L, pair.h, lie)
    if cells.size > 4 or pair.L != pair.h:
        return None, "computed only at a flip-every-bit pair (h = L) of at most 4 cells"
    from dpcheck.enumeration.krand_profile_general import LossCurve  # noqa: PLC0415

    parts = []
    for v, c in zip(pair.vectors, pair.counts, strict=False):
        u = v.count("1")
        parts.append((c, km.natural_law(cells.clone_law((u, 0)))))
    try:
        with deadline(max_seconds):
            pa = km.pair_arrays(cells, tuple((c, law) for c, law in parts if c > 0))
    except (TooLarge, MemoryError) as exc:
        return None, f"the attained pair's laws exceed the memory limit ({exc})"
    except OutOfTime:
        return None, f"the attained pair's laws took more than their {max_seconds:.3g} s"
    a, b = LossCurve.both(pa.P0, pa.P1)
    return max(a.eps_prob(delta), b.eps_prob(delta)), ""


def lower_seconds(budget: float) -> float:
    """The lower bound's time for an upper-bound budget (LOWER_SHARE, at least
    LOWER_MIN_SECONDS)."""
    return max(LOWER_MIN_SECONDS, LOWER_SHARE * budget)


def bounds(
    L: int,
    n: int,
    lie: LieProbability,
    delta: float,
    max_seconds: float = 600.0,
    progress: Callable[[str], None] | None = None,
) -> tuple[Lower, Upper]:
    """Both bounds (module doc); ``max_seconds`` is the upper bound's budget, the lower
    bound has :func:`lower_seconds` of it on top."""
    if progress:
        progress("lower bound: pure and near-pure backgrounds")
    lo = lower_bound(L, n, lie, delta, max_seconds=lower_seconds(max_seconds))
    up = upper_bound(L, n, lie, delta, lo.epsilon, max_seconds=max_seconds, progress=progress)
    return lo, up


def as_json(lo: Lower, up: Upper) -> dict:  # type: ignore[type-arg]
    """The "upper" and "lower" entries of ``dpcheck krand profile --json``."""
    ratio = up.epsilon / lo.epsilon if (up.epsilon and lo.epsilon) else None
    return {
        "lower": {
            "epsilon": lo.epsilon,
            "kind": "lower bound",
            "attained by": lo.pair.describe(),
            "float epsilon at the pair": lo.float_epsilon,
            "certified delta at epsilon is above": lo.delta_lower_at_epsilon,
            "candidates": lo.candidates,
            "established": lo.how,
            "seconds": round(lo.seconds, 2),
        },
        "upper": {
            "epsilon": up.epsilon,
            "kind": "upper bound" if up.certificates else "upper bound (local epsilon)",
            "established": up.how,
            "tried": [
                {
                    "epsilon": e,
                    "ratio to lower": e / lo.epsilon if lo.epsilon else None,
                    "result": w,
                    "seconds so far": round(t, 2),
                }
                for e, w, t in up.tried
            ],
            "seconds to ratio <= 1.1": next(
                (
                    round(t, 2)
                    for e, w, t in up.tried
                    if w == "settled" and e <= TARGET_RATIO * lo.epsilon * (1 + 1e-12)
                ),
                None,
            ),
            "boxes per h": {str(h): len(c.settled) for h, c in up.certificates.items()},
            "evaluations": sum(c.evaluations for c in up.certificates.values()),
            "seconds": round(up.seconds, 2),
        },
        "upper / lower": ratio,
    }


#: L handled by the certified bounds (single-law cells <= 5; multi-law cells <= 4).
MAX_L = 4
#: Largest n per L for the certified bounds (time and memory of the evaluators): the
#: ceilings ``krand profile --n (L = 2)`` etc. of :mod:`dpcheck.inputs.limits`.
MAX_N = {L: ceiling("krand profile", f"--n (L = {L})").maximum for L in (2, 3, 4)}


def summary_bounds(
    n: int,
    L: int,
    lie: LieProbability,
    delta: float,
    budget: float = 600.0,
    progress: Callable[[str], None] | None = None,
    family_lower: tuple[float, str] | None = None,
) -> dict:  # type: ignore[type-arg]
    """The L >= 2 entries of ``dpcheck krand profile`` above the exhaustive range: the
    certified upper and the attained lower bound, the §3.1 epsilon at the attained pair, the
    generic shuffle bounds at eps0 = L log(p/q) and the gain over the best of them."""
    from dpcheck.enumeration import shuffle_generic as sg  # noqa: PLC0415

    lo, up = bounds(L, n, lie, delta, max_seconds=budget, progress=progress)
    out = as_json(lo, up)
    if family_lower is not None and family_lower[0] > lo.epsilon:
        out["lower"]["family H search"] = {"epsilon": family_lower[0], "pair": family_lower[1]}
    local = pure_epsilon_bound(L, lie)
    if progress:
        progress("generic shuffle bounds")
    gen = sg.generic_bounds(n, local, delta)
    name, best = sg.best_generic(gen)
    out["generic shuffle bounds"] = {
        "local epsilon eps0 = L log(p/q)": local,
        **gen,
        "best": name,
        "best / upper": best / up.epsilon if up.epsilon else None,
        "note": "upper bounds for every eps0-LDP randomizer shuffled among n users"
        " (shuffle_generic); K-randomization is one, so each is also an upper bound here",
    }
    if progress:
        progress("§3.1 epsilon at the attained pair")
    prob, why = probabilistic_why(
        lo.pair, lie, delta, max(LOWER_MIN_SECONDS, PROBABILISTIC_SHARE * budget)
    )
    out["probabilistic"] = {
        "epsilon": prob,
        "kind": "lower bound" if prob is not None else "not computed",
        "established": "§3.1 quantile of the privacy loss at the attained pair (floats); no upper"
        " bound: the probabilistic epsilon is not monotone under post-processing, so the clone"
        " lemma does not bound it"
        if prob is not None
        else why,
        "worst pair": lo.pair.describe(),
    }
    return out
