"""The black-box privacy auditor (dpcheck.sampling.blackbox, issue 20).

Every statistical assertion is seeded and sized so that a correct
implementation fails it with probability <= 1e-6 (DESIGN.md, "Habits"): a
"no alarm" assertion runs at confidence 1 - 1e-6 (the auditor's own
guarantee), a detection is asserted only where the oracle margin below is at
least 5 standard deviations (normal tail 2.9e-7), and the false-alarm counts
are compared with the (1 - 1e-6) quantile of a binomial.  Run with ``-s`` to
see the bounds.  DPCHECK_STAT_SEED (default 0) shifts the seeds.

The oracle (:func:`oracle`) is independent of the auditor: from the exact
CDFs (scipy's Laplace and normal, the two-sided geometric in closed form,
truncation and clamping written out here) it finds the half-line event with
the largest expected Clopper-Pearson bound at the auditor's test size and
Bonferroni level (normal approximation), and its standard deviation.  The
auditor, which never sees the law, should come close to it (measured: within
0.01 of it on every cell of the grid).
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from fractions import Fraction

import numpy as np
import pytest
from false_alarms import ALARM_LEVEL, binomial_quantile
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from dpcheck.errors import InputError
from dpcheck.numeric import privacy, profile
from dpcheck.sampling import blackbox as bb
from dpcheck.sampling import clopper_pearson as cp
from dpcheck.sampling import mechanisms

STAT_SEED = int(os.environ.get("DPCHECK_STAT_SEED", "0"))
N = 1_000_000
#: confidence of the "no alarm" runs: the auditor's false alarm is then <= 1e-6
SURE = 1 - 1e-6
#: oracle margin (in standard deviations of the bound) above which detection is asserted
#: (normal tail 2.9e-7)
MARGIN_SD = 5.0
#: draws per side tried in the grid, smallest first
SIZES = (N, 2 * N)


def sampler_of(name: str, **params: object) -> bb.Sampler:
    return lambda x, rng, size: mechanisms.sample(name, rng, size, s=x, **params)


def randomized_response(log_odds: float) -> bb.Sampler:
    """Keeps the bit x with probability e^L/(1 + e^L): the loss is exactly L."""
    keep = 1.0 / (1.0 + math.exp(-log_odds))
    return lambda x, rng, size: np.where(rng.random(size) < keep, x, 1 - x)


def edge_pairs(c0: float, c1: float, d: float = 1.0) -> list[tuple[float, float]]:
    """What a user who does not know the worst pair tries: both edges and the middle."""
    mid = (c0 + c1) / 2
    return [(c0, c0 + d), (c1 - d, c1), (mid - d / 2, mid + d / 2)]


# ---------------------------------------------------------------- the oracle


def _laplace_cdf(t, s, lam):
    return stats.laplace.cdf(t, loc=s, scale=lam)


def _geometric_cdf(t, s, b):
    """Two-sided geometric on s + Z, P(Z = m) = (1-a)/(1+a) a^|m|, a = e^{-1/b}."""
    a = math.exp(-1.0 / b)
    m = np.floor(t - s)
    below = a ** (-m) / (1 + a)  # m < 0: sum_{k <= m} = a^{|m|}/(1+a)
    above = 1 - a ** (m + 1) / (1 + a)  # m >= 0
    return np.where(m < 0, below, above)


def truncated(cdf, c0, c1):
    def f(t, s, *a):
        lo, hi = cdf(c0, s, *a), cdf(c1, s, *a)
        return np.clip((cdf(t, s, *a) - lo) / (hi - lo), 0.0, 1.0)

    return f


def clamped(cdf, c0, c1):
    def f(t, s, *a):
        return np.where(t >= c1, 1.0, np.where(t < c0, 0.0, cdf(t, s, *a)))

    return f


def oracle(
    cdf: Callable,
    args: tuple,
    pairs: list,
    grid: np.ndarray,
    mirror: float,
    delta: float = 0.0,
    n: int = N,
) -> tuple[float, float]:
    """(best expected bound, its standard deviation) over the lower half-lines {Y <= t}
    of every pair in both directions, at the auditor's test size and level.

    The laws here are symmetric: P_s(Y >= t) = P_{mirror - s}(Y <= mirror - t), so the
    direction s' against s (upper half-lines) is the pair (mirror - s', mirror - s).
    """
    n2 = n - min(-(-n // bb.SELECT_DIVISOR), bb.SELECT_CAP)
    z = stats.norm.isf(0.05 / (4 * len(pairs)))
    best = (-math.inf, 0.0)
    for s, s2 in pairs:
        for u, v in ((s, s2), (mirror - s2, mirror - s)):
            p, q = cdf(grid, u, *args), cdf(grid, v, *args)
            ok = (p > delta) & (q > 0)
            p, q = p[ok], q[ok]
            sp, sq = np.sqrt(p * (1 - p) / n2), np.sqrt(q * (1 - q) / n2)
            with np.errstate(divide="ignore", invalid="ignore"):
                expected = np.log(p - z * sp - delta) - np.log(q + z * sq)
            expected = np.where(np.isfinite(expected), expected, -np.inf)
            i = int(np.argmax(expected))
            sd = math.sqrt((sp[i] / (p[i] - delta)) ** 2 + (sq[i] / q[i]) ** 2)
            if expected[i] > best[0]:
                best = (float(expected[i]), sd)
    return best


# ---------------------------------------------------------------- the required cases


def test_naive_truncated_laplace_is_caught():
    """Liu's naive truncated Laplace on [0, 10], Δ = 1, λ = 1 claims ε = 1; its loss is
    1.4898 (derived, :func:`dpcheck.numeric.privacy.privacy_loss`), attained at the
    pair (0, 1).  Caught with the edges-and-middle pairs a user would try and with the
    single right pair; the oracle margins are > 20 standard deviations."""
    loss = float(privacy.privacy_loss("truncated", 1, 0, 10, 1))
    assert loss == pytest.approx(1.4898, abs=1e-4)
    s = sampler_of("truncated-laplace", c0=0, c1=10, lam=1)
    for pairs in ([(0, 1), (9, 10), (5, 6)], [(0, 1)]):
        cdf = truncated(_laplace_cdf, 0, 10)
        grid = np.linspace(0, 10, 20001)
        expected, sd = oracle(cdf, (1.0,), pairs, grid, 10.0)
        assert expected - 1.0 > 20 * sd
        r = bb.audit_sampler(s, pairs, epsilon=1.0, samples=N, seed=STAT_SEED)
        print(f"\nnaive truncated {pairs}: bound {r.bound:.4f} (oracle {expected:.4f}), {r.event}")
        assert r.exceeds and r.bound > expected - 5 * sd  # as good as the oracle
        assert r.pair in ((0, 1), (10, 9))
        assert r.delta_bound > 0


@pytest.mark.parametrize("eps", [0.5, 1.0])
def test_randomized_response_at_twice_the_claim_is_caught(eps):
    """Randomized response keeping the bit with probability e^{2ε}/(1 + e^{2ε}) while
    claiming ε: the loss 2ε is bounded to within 0.02 (the bound's sd is about 0.0015)."""
    r = bb.audit_sampler(randomized_response(2 * eps), [(0, 1)], epsilon=eps, seed=STAT_SEED)
    print(f"\nrandomized response 2 x {eps}: bound {r.bound:.4f}, event {r.event}")
    assert r.exceeds and r.bound > 2 * eps - 0.02
    assert r.event in ("{0}", "{1}")


@pytest.mark.parametrize(
    "name,params,pairs,eps,delta",
    [
        ("clamped-laplace", {"c0": 0, "c1": 10, "lam": 1}, edge_pairs(0, 10), 1.0, 0.0),
        ("laplace", {"lam": 1}, [(0, 1)], 1.0, 0.0),
        # sensitivity 2 (the pair (0, 2)): floor(Δ)/b = 4
        ("geometric", {"scale": 0.5}, [(0, 1), (0, 2)], 4.0, 0.0),
        ("truncated-geometric", {"c0": 0, "c1": 6, "scale": 1}, [(0, 1), (5, 6)], None, 0.0),
        ("gaussian", {"sigma": 2}, [(0, 1)], None, 1e-3),
    ],
)
def test_correct_mechanisms_are_not_flagged(name, params, pairs, eps, delta):
    """At the exact claim (pure ε: BIT, Laplace and geometric at Δ/λ, the truncated
    geometric's certified pure ε; the Gaussian's certified ε(δ)), run at confidence
    1 - 1e-6: by the auditor's guarantee an alarm has probability <= 1e-6."""
    if name == "gaussian":
        nb = profile.neighbours(name, 1, None, None, params["sigma"])
        eps = float(profile.epsilon_for_delta(nb, Fraction(delta)).as_dict()["epsilon"])
    elif eps is None:
        nb = profile.neighbours(name, 1, params["c0"], params["c1"], params["scale"])
        eps = float(profile.pure_epsilon(nb).as_dict()["pure epsilon"])
    r = bb.audit_sampler(
        sampler_of(name, **params),
        pairs,
        epsilon=eps,
        delta=delta,
        samples=400_000,
        confidence=SURE,
        seed=STAT_SEED,
    )
    print(f"\n{name} at its exact claim {eps:.6g}: bound {r.bound:.4f}")
    assert not r.exceeds and r.delta_bound <= delta


# ---------------------------------------------------------------- the family grid


def _grid_cases():
    cases = []
    for eps in (0.25, 0.5, 1.0, 2.0, 4.0):
        lam = 1 / (1.2 * eps)
        cases.append(
            (
                f"laplace-{eps}",
                sampler_of("laplace", lam=lam),
                [(0, 1)],
                eps,
                0.0,
                (_laplace_cdf, (lam,), np.linspace(-60, 60, 240001), 1.0),
            )
        )
        cases.append((f"rr-{eps}", randomized_response(1.2 * eps), [(0, 1)], eps, 0.0, None))
    for eps in (0.5, 1.0, 2.0):
        b = 1 / (1.2 * eps)
        cases.append(
            (
                f"geometric-{eps}",
                sampler_of("geometric", scale=b),
                [(0, 1)],
                eps,
                0.0,
                (_geometric_cdf, (b,), np.arange(-200, 201) + 0.5, 1.0),
            )
        )
    for sigma, delta in ((1, 1e-2), (2, 1e-2), (2, 1e-3), (5, 1e-2), (1, 1e-4), (2, 1e-5)):
        nb = profile.neighbours("gaussian", 1, None, None, sigma)
        true = float(profile.epsilon_for_delta(nb, Fraction(delta)).as_dict()["epsilon lower"])
        cases.append(
            (
                f"gaussian-{sigma}-{delta}",
                sampler_of("gaussian", sigma=sigma),
                [(0, 1)],
                true / 1.2,
                delta,
                (
                    lambda t, s, sg: stats.norm.cdf(t, loc=s, scale=sg),
                    (float(sigma),),
                    np.linspace(-40, 40, 160001),
                    1.0,
                ),
            )
        )
    for width in (2, 10):
        for lam in (0.5, 1.0, 2.0):
            grid = np.linspace(0, width, 40001)
            for bounding, liu, law in (
                ("truncated", "truncated", truncated),
                ("clamped", "bit", clamped),
            ):
                loss = float(privacy.privacy_loss(liu, 1, 0, width, Fraction(lam)))
                cases.append(
                    (
                        f"{bounding}-R{width}-lam{lam}",
                        sampler_of(f"{bounding}-laplace", c0=0, c1=width, lam=lam),
                        edge_pairs(0, width),
                        loss / 1.2,
                        0.0,
                        (law(_laplace_cdf, 0, width), (lam,), grid, float(width)),
                    )
                )
    return cases


GRID = _grid_cases()


def _oracle_of(case, n: int) -> tuple[float, float]:
    name, _, pairs, claim, delta, law = case
    if law is None:  # randomized response: the event {1} (or {0}) has the whole ratio
        p = 1.0 / (1.0 + math.exp(-1.2 * claim))
        n2 = n - -(-n // bb.SELECT_DIVISOR)
        z = stats.norm.isf(0.05 / 4)
        sd1 = math.sqrt(p * (1 - p) / n2)
        expected = math.log(p - z * sd1) - math.log(1 - p + z * sd1)
        return expected, math.hypot(sd1 / p, sd1 / (1 - p))
    cdf, args, grid, mirror = law
    return oracle(cdf, args, pairs, grid, mirror, delta, n)


def _size_needed(case) -> tuple[int | None, float, float]:
    """The smallest size of SIZES whose oracle margin is >= MARGIN_SD sd (None: none)."""
    for n in SIZES:
        expected, sd = _oracle_of(case, n)
        if expected - case[3] >= MARGIN_SD * sd:
            return n, expected, sd
    return None, expected, sd


@pytest.mark.slow
@pytest.mark.parametrize("case", GRID, ids=[c[0] for c in GRID])
def test_twenty_percent_over_the_claim_is_caught(case):
    """True loss 1.2 x the claim (ε(δ) for the Gaussian): caught with 10^6 draws per side
    (2 x 10^6 for the one cell whose oracle margin at 10^6 is just under 5 sd) wherever
    the oracle margin is >= 5 standard deviations.  The others must be the known hard
    ones -- a Gaussian with a small δ: the event must hold more than δ under M(x) and be
    resolved under M(x'), which needs far more draws -- and are printed."""
    name, sampler, pairs, claim, delta, _ = case
    n, expected, sd = _size_needed(case)
    r = bb.audit_sampler(
        sampler, pairs, epsilon=claim, delta=delta, samples=n or N, seed=1 + STAT_SEED
    )
    print(
        f"\n{name}: claim {claim:.4f} true {1.2 * claim:.4f}; {n or N} draws: oracle"
        f" {expected:.4f} ± {sd:.4f}; bound {r.bound:.4f}"
        f" ({'caught' if r.exceeds else 'missed'}; asserted: {n is not None})"
    )
    if n is None:
        assert name.startswith("gaussian") and delta <= 1e-4
        return
    assert r.exceeds
    assert r.bound > expected - MARGIN_SD * sd  # as good as the oracle, within its noise


def test_grid_feasibility_is_not_vacuous():
    """Every cell but the two Gaussian ones with δ <= 1e-4 is asserted by the grid test
    (oracle margin >= 5 sd at 10^6 or 2 x 10^6 draws), checked without sampling; every
    pure-ε cell but one at 10^6 draws."""
    at_two = []
    for case in GRID:
        n, _, _ = _size_needed(case)
        if case[4] <= 1e-4 and case[0].startswith("gaussian"):
            assert n is None, case[0]  # else move it out of the hard ones
            continue
        assert n is not None, case[0]
        if n > N:
            at_two.append(case[0])
    print(f"\ncells needing 2 x 10^6 draws per side: {at_two}")
    assert len(at_two) <= 3


@settings(max_examples=40, deadline=None, derandomize=True)
@given(
    log_step=st.floats(-300, 300),
    eps=st.floats(0.01, 10),
    base=st.sampled_from(["laplace", "gaussian", "geometric"]),
)
def test_extreme_scales_no_alarm_at_the_exact_claim(log_step, eps, base):
    """Δ from 1e-300 to 1e300 (the geometric: whole Δ up to 1e15), the mechanism at its exact
    claim: no alarm (confidence 1 - 1e-8 per example: 40 examples, at most 4e-7 in all),
    nothing fails and the numbers are finite.  The pair is given as a numpy array."""
    if base == "geometric":
        step = float(max(1, round(10 ** (abs(log_step) % 15))))
        params, delta = {"scale": step / eps}, 0.0
    elif base == "laplace":
        step = 10.0**log_step
        params, delta = {"lam": step / eps}, 0.0
    else:
        step, delta = 10.0**log_step, 1e-3
        params = {"sigma": step * 2.0}
        nb = profile.neighbours("gaussian", 1, None, None, 2)
        eps = float(profile.epsilon_for_delta(nb, Fraction(delta)).as_dict()["epsilon"])
    r = bb.audit_sampler(
        sampler_of(base, **params),
        np.array([[0.0, step]]),
        epsilon=eps,
        delta=delta,
        samples=2000,
        confidence=1 - 1e-8,
        seed=STAT_SEED,
    )
    assert not r.exceeds and r.delta_bound <= delta
    assert all(math.isfinite(a.p_lower) and 0 < a.p_prime_upper <= 1 for a in r.audits)


# ---------------------------------------------------------------- false alarms


@pytest.mark.parametrize(
    "name,sampler,runs,samples",
    [
        ("randomized response", randomized_response(1.0), 1000, 1000),
        ("laplace", sampler_of("laplace", lam=1.0), 300, 2000),
    ],
)
def test_false_alarm_rate_at_the_exact_claim(name, sampler, runs, samples):
    """ε = 1 exactly (randomized response with odds e, the Laplace at λ = 1), many
    seeds, confidence 0.5: each run alarms with probability <= 0.5, so the alarms are
    at most the (1 - 1e-6) quantile of Binomial(runs, 0.5).  (Observed: about 11% and
    6%; an auditor with point estimates instead of Clopper-Pearson bounds alarms in
    about 75% of the runs.)"""
    seeds = range(STAT_SEED * runs, (STAT_SEED + 1) * runs)
    alarms = sum(
        bb.audit_sampler(
            sampler, [(0, 1)], epsilon=1.0, samples=samples, confidence=0.5, seed=s
        ).exceeds
        for s in seeds
    )
    limit = binomial_quantile(runs, Fraction(1, 2), ALARM_LEVEL)
    print(f"\n{name}: {alarms}/{runs} false alarms (limit {limit})")
    assert alarms <= limit


# ---------------------------------------------------------------- the bounds reported


def test_reported_bounds_are_clopper_pearson_at_the_bonferroni_level():
    """Recomputed from the reported counts: each bound at alpha/(2m), m = 2 x pairs,
    eps_lo = log((p_lo - δ)/p_hi), delta_lo = max(0, p_lo - e^ε p_hi), and the
    verdict agrees with both."""
    pairs = [(0, 1), (3, 4), (9, 10)]
    r = bb.audit_sampler(
        sampler_of("truncated-laplace", c0=0, c1=10, lam=1),
        pairs,
        epsilon=1.2,
        delta=0.01,
        samples=40_000,
        confidence=0.9,
        seed=5,
    )
    level = 0.1 / (4 * len(pairs))
    assert len(r.audits) == 2 * len(pairs)
    assert {(a.x, a.x_prime) for a in r.audits} == set(pairs) | {(b, a) for a, b in pairs}
    for a in r.audits:
        assert a.level == pytest.approx(level, rel=1e-12)
        assert a.samples == 30_000 and a.selection_samples == 10_000
        assert a.p_lower == cp.lower(a.count, a.samples, level)
        assert a.p_prime_upper == cp.upper(a.count_prime, a.samples, level)
        top = a.p_lower - 0.01
        if top > 0:
            assert a.bound == pytest.approx(math.log(top / a.p_prime_upper), rel=1e-12)
        else:
            assert a.bound == -math.inf
        assert a.delta_bound == pytest.approx(
            max(0.0, a.p_lower - math.exp(1.2) * a.p_prime_upper), abs=1e-15
        )
    assert r.bound == max(a.bound for a in r.audits)
    assert r.delta_bound == max(a.delta_bound for a in r.audits)
    assert r.exceeds == (r.bound > 1.2) == (r.delta_bound > 0.01)
    assert (r.pair, r.event) == ((r.worst.x, r.worst.x_prime), r.worst.event)


def test_certain_outputs_give_the_exact_extreme_bounds():
    """M(0) = 0 and M(1) = 1 always (infinite loss): the event {0} holds every test
    draw of M(0) and none of M(1), in the direction 0 against 1, and {1} in the other."""
    r = bb.audit_sampler(
        lambda x, rng, size: np.full(size, float(x)), [(0, 1)], epsilon=5.0, samples=1000
    )
    level = 0.05 / 4
    for a, events in zip(r.audits, (("{0}", "Y <= 0"), ("{1}", "Y >= 1")), strict=True):
        assert (a.count, a.count_prime) == (750, 0) and a.event in events
        expected = math.log(cp.lower(750, 750, level)) - math.log(cp.upper(0, 750, level))
        assert a.bound == pytest.approx(expected, rel=1e-12)
    assert r.exceeds and r.bound > 5.0


def test_seed_reproducible_streams_independent_and_progress():
    seen: list[tuple[int, int]] = []
    old = bb.BLOCK
    bb.BLOCK = 700
    calls: list[np.ndarray] = []

    def uniform(x, rng, size):
        u = rng.random(size)
        calls.append(u[:3].copy())
        return u + x

    try:
        a = bb.audit_sampler(
            uniform, [(0, 0.5)], epsilon=1, samples=2000, seed=3, progress=lambda *d: seen.append(d)
        )
        b = bb.audit_sampler(uniform, [(0, 0.5)], epsilon=1, samples=2000, seed=3)
    finally:
        bb.BLOCK = old
    assert a.to_dict() == b.to_dict()
    # blocks: 500 + 500 first-batch draws, then 700 + 700 + 100 test draws per side
    assert seen[-1] == (4000, 4000) and [d for d, _ in seen] == sorted(d for d, _ in seen)
    assert len(seen) == 2 * (1 + 3)
    starts = calls[: len(calls) // 2]  # the first run: side 0 batch 0, side 1 batch 0, ...
    firsts = [tuple(c) for c in starts]
    assert len(set(firsts)) == len(firsts)  # every block a fresh stretch of some stream
    c = bb.audit_sampler(uniform, [(0, 0.5)], epsilon=1, samples=2000, seed=4)
    assert c.to_dict() != a.to_dict()


# ---------------------------------------------------------------- cells


@settings(max_examples=200, deadline=None, derandomize=True)
@given(
    points=st.lists(st.integers(-20, 20), min_size=0, max_size=12, unique=True),
    atoms=st.lists(st.booleans(), min_size=12, max_size=12),
    ys=st.lists(st.integers(-25, 25) | st.sampled_from([-math.inf, math.inf]), max_size=60),
    data=st.data(),
)
def test_cells_index_describe_and_membership_agree(points, atoms, ys, data):
    """A draw's cell (searchsorted) is the one whose bounds, written out, contain it; an
    event's description (union of intervals) contains exactly the draws of its cells."""
    pts = np.array(sorted(points), dtype=float) / 2
    cells = bb.Cells(pts, np.array(atoms[: len(pts)], dtype=bool))
    y = np.array(ys, dtype=float) / 2
    bounds = cells._bounds()
    assert len(bounds) == cells.size
    index = cells.index(y)
    for v, i in zip(y, index, strict=True):
        hits = [k for k, b in enumerate(bounds) if _inside(v, b)]
        assert hits == [i]
    assert cells.counts(y).sum() == len(y)
    mask = np.array(data.draw(st.lists(st.booleans(), min_size=cells.size, max_size=cells.size)))
    text = cells.describe(mask, limit=100)
    pieces = [] if text.startswith("{} ") else [_parse(p) for p in text.split(" u ")]
    for v, i in zip(y, index, strict=True):
        assert mask[i] == any(_inside(v, p) for p in pieces)


def _inside(v: float, b: tuple[str, float, float, str]) -> bool:
    left, lo, hi, right = b
    ok_lo = v >= lo if left == "[" else v > lo
    ok_hi = v <= hi if right == "]" else v < hi
    return ok_lo and ok_hi


def _parse(piece: str) -> tuple[str, float, float, str]:
    """The description's pieces back as bounds (the test's own reading of them)."""
    if piece.startswith("{"):
        v = float(piece[1:-1])
        return ("[", v, v, "]")
    if piece.startswith("Y "):
        _, op, v = piece.split(" ")
        t = float(v)
        return {
            "<=": ("[", -math.inf, t, "]"),
            "<": ("[", -math.inf, t, ")"),
            ">=": ("[", t, math.inf, "]"),
            ">": ("(", t, math.inf, "]"),
        }[op]
    lo, hi = piece[1:-1].split(", ")
    return (piece[0], float(lo), float(hi), piece[-1])


def test_cells_from_discrete_clamped_and_continuous_draws():
    rng = np.random.default_rng(0)
    rr = rng.integers(0, 2, 1000).astype(float)
    c = bb.cells_from(rr)
    assert list(c.points) == [0.0, 1.0] and c.atom.all()
    clamped = np.clip(rng.laplace(0.0, 1.0, 20_000), -1.0, 1.0)
    c = bb.cells_from(clamped)
    assert sorted(c.points[c.atom]) == [-1.0, 1.0]
    counts = c.counts(clamped)
    assert counts.sum() == clamped.size
    atom_cells = c.index(np.array([-1.0, 1.0]))
    assert list(counts[atom_cells]) == [np.sum(clamped == -1.0), np.sum(clamped == 1.0)]
    body = counts[np.setdiff1d(np.arange(c.size), atom_cells)]
    assert body.max() <= 3 * clamped.size / bb.BODY_BINS  # equal-mass bins (up to ties)
    continuous = rng.normal(size=50_000)
    c = bb.cells_from(continuous)
    assert not c.atom.any()
    assert bb.BODY_BINS - 1 <= len(c.points) <= bb.BODY_BINS + 40
    tail = c.counts(continuous)
    assert tail[0] <= 2 * bb.TAIL_MIN and tail[-1] <= 2 * bb.TAIL_MIN  # refined tails


# ---------------------------------------------------------------- bad input


def _good(x, rng, size):
    return rng.random(size)


@pytest.mark.parametrize(
    "sampler,words",
    [
        (lambda x, rng, size: rng.random(size + 1), "shape"),
        (lambda x, rng, size: rng.random((size, 1)), "shape"),
        (lambda x, rng, size: 0.5, "shape"),
        (lambda x, rng, size: np.full(size, np.nan), "NaN"),
        (lambda x, rng, size: np.array(["1"] * size), "dtype"),
        (lambda x, rng, size: np.ones(size) * 1j, "dtype"),
        (lambda x, rng, size: [object()] * size, "dtype"),
    ],
)
def test_bad_sampler_output_is_one_line_naming_the_pair(sampler, words):
    with pytest.raises(InputError) as e:
        bb.audit_sampler(sampler, [(0, 1)], epsilon=1, samples=100)
    msg = str(e.value)
    assert "\n" not in msg and words in msg and "pair 0: (0, 1)" in msg and "x=0" in msg


@pytest.mark.parametrize(
    "kwargs,word",
    [
        ({"sampler": 3}, "sampler"),
        ({"neighbours": []}, "neighbours"),
        ({"neighbours": "ab"}, "neighbours"),
        ({"neighbours": [(0, 1, 2)]}, "neighbours[0]"),
        ({"neighbours": [0]}, "neighbours[0]"),
        ({"epsilon": math.nan}, "epsilon"),
        ({"epsilon": -1}, "epsilon"),
        ({"epsilon": math.inf}, "epsilon"),
        ({"delta": 1}, "delta"),
        ({"delta": -0.1}, "delta"),
        ({"samples": 1}, "samples"),
        ({"samples": 1.5}, "samples"),
        ({"samples": True}, "samples"),
        ({"samples": 10**11}, "samples"),
        ({"confidence": 1.0}, "confidence"),
        ({"confidence": "high"}, "confidence"),
        ({"seed": -1}, "seed"),
        ({"progress": 5}, "progress"),
    ],
)
def test_bad_arguments(kwargs, word):
    args = {"sampler": _good, "neighbours": [(0, 1)], "epsilon": 1.0, "samples": 100}
    args.update(kwargs)
    sampler = args.pop("sampler")
    neighbours = args.pop("neighbours")
    with pytest.raises(InputError) as e:
        bb.audit_sampler(sampler, neighbours, **args)
    assert "\n" not in str(e.value) and word in str(e.value)


def test_report_text_and_json():
    import json

    r = bb.audit_sampler(randomized_response(2.0), [(0, 1)], epsilon=1, samples=4000, seed=1)
    data = json.loads(json.dumps(r.to_dict(), allow_nan=False))
    assert data["exceeds"] is True and data["pair"] in ([0, 1], [1, 0])
    assert data["audits"] == 2 and len(data["directions"]) == 2
    text = str(r)
    assert "VIOLATION: exceeds epsilon = 1" in text
    assert f"lower confidence bound on epsilon at delta = 0: {r.bound:.6g}" in text
    assert f"{r.worst.count} of M(x) in E, {r.worst.count_prime} of M(x') in E" in text
    assert "level 0.05/4 = 0.0125 (Bonferroni)" in text
    low = bb.audit_sampler(lambda x, rng, size: rng.random(size), [(0, 1)], epsilon=1, samples=10)
    assert "no violation detected" in str(low) and not low.exceeds
