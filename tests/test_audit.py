"""The empirical privacy audit (dpcheck.sampling.audit) and its Clopper–Pearson bounds.

Every statistical assertion is seeded and sized so that a correct
implementation fails it with probability <= 1e-6 (DESIGN.md, "Habits"); the
size or margin is stated next to each one.  Run with ``-s`` to see the
observed false-alarm rates and the detection results per grid cell.
DPCHECK_STAT_SEED (default 0) shifts the seeds of the statistical tests, for
repeated runs (see tests/test_samplers.py).
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import mpmath
import numpy as np
import pytest
from false_alarms import ALARM_LEVEL, binomial_quantile

from dpcheck.cli import main
from dpcheck.errors import InputError
from dpcheck.numeric import privacy
from dpcheck.numeric.quadrature import laplace_mass
from dpcheck.sampling import audit as au
from dpcheck.sampling import binomial, samplers
from dpcheck.sampling import clopper_pearson as cp

ROOT = Path(__file__).resolve().parents[1]
STAT_SEED = int(os.environ.get("DPCHECK_STAT_SEED", "0"))
ALPHAS = (0.005, 0.025, 0.05, 0.1)
#: per-assertion failure probability allowed to a correct implementation
FAIL = 1e-6


def _setting(eps: str, delta: str, lower: str, upper: str) -> privacy.Setting:
    return privacy.Setting.parse(eps, delta, lower, upper)


# ---------------------------------------------------------------- Clopper–Pearson


@pytest.mark.parametrize("n", [1, 2, 7, 30, 1000, 10**6])
def test_cp_closed_forms(n):
    """k = 0: upper = 1 - alpha^(1/n); k = n: lower = alpha^(1/n); the trivial ends are 0, 1."""
    for a in ALPHAS:
        root = mpmath.log(a) / n
        assert cp.lower(0, n, a) == 0.0 and cp.upper(n, n, a) == 1.0
        assert cp.upper(0, n, a) == pytest.approx(float(-mpmath.expm1(root)), rel=1e-14)
        assert cp.lower(n, n, a) == pytest.approx(float(mpmath.exp(root)), rel=1e-14)


def _ulps(p: float, steps: int) -> float:
    """p moved by ``steps`` units in the last place."""
    for _ in range(abs(steps)):
        p = math.nextafter(p, math.inf if steps > 0 else -math.inf)
    return p


def _tail_ge(k: int, n: int, p: float) -> Fraction:
    """P(K >= k) for K ~ Binomial(n, p), exactly, p taken as its binary value."""
    q = Fraction(p)
    return sum(
        (Fraction(math.comb(n, j)) * q**j * (1 - q) ** (n - j) for j in range(k, n + 1)),
        Fraction(0),
    )


@pytest.mark.parametrize("alpha", ALPHAS)
def test_cp_solves_the_tail_equations_to_the_last_bits(alpha):
    """P(K >= k; lower) = alpha and P(K <= k; upper) = alpha, bracketed within 2 ulps of p."""
    n = 40
    a = Fraction(alpha)
    for k in (1, 2, 13, 20, 39, 40):
        p = cp.lower(k, n, alpha)
        below, above = _ulps(p, -2), _ulps(p, 2)
        assert _tail_ge(k, n, below) < a < _tail_ge(k, n, above)  # P(K >= k) rises with p
    for k in (0, 1, 20, 27, 38, 39):
        p = cp.upper(k, n, alpha)
        below, above = _ulps(p, -2), _ulps(p, 2)
        # P(K <= k) = 1 - P(K >= k + 1) falls with p
        assert 1 - _tail_ge(k + 1, n, below) > a > 1 - _tail_ge(k + 1, n, above)


@pytest.mark.parametrize(
    "a,b,x", [(1, 1, 0.3), (3, 28, 0.05), (370, 1631, 0.19), (1000, 1001, 0.49), (1999, 2, 0.999)]
)
def test_regularized_beta_matches_mpmath_betainc(a, b, x):
    with mpmath.workdps(45):
        reference = mpmath.betainc(a, b, 0, x, regularized=True)
        error = abs(cp.regularized_beta(x, a, b) - reference)
    assert error <= mpmath.mpf(10) ** -28 * reference


@pytest.mark.parametrize("a,b", [(3, 5000), (2500, 2501), (200, 8000)])
def test_regularized_beta_series_and_mirror_agree(a, b):
    """I_x(a, b) + I_{1-x}(b, a) = 1 with both series summed (the two evaluation routes)."""
    mean = a / (a + b)
    for x in (mean * 0.98, mean, min(mean * 1.02, 0.9999)):
        with mpmath.workdps(45):
            x_ = mpmath.mpf(x)
            total = binomial._series(x_, a, b) + binomial._series(1 - x_, b, a)
            assert abs(total - 1) < mpmath.mpf(10) ** -28


@pytest.mark.parametrize("k", [1, 20, 3000, 500000, 999999])
def test_cp_large_n_tail_equations(k):
    """n = 10^6 (where mpmath.betainc fails to converge): the root is bracketed within 2 ulps."""
    n, alpha = 10**6, 0.025
    lo, hi = cp.lower(k, n, alpha), cp.upper(k, n, alpha)
    assert 0 < lo < k / n < hi < 1

    def tail_ge(j: int, p: float) -> mpmath.mpf:  # P(K >= j) = I_p(j, n - j + 1)
        return cp.regularized_beta(p, j, n - j + 1)

    assert tail_ge(k, _ulps(lo, -2)) < alpha < tail_ge(k, _ulps(lo, 2))
    # P(K <= k) = 1 - P(K >= k + 1)
    assert 1 - tail_ge(k + 1, _ulps(hi, -2)) > alpha > 1 - tail_ge(k + 1, _ulps(hi, 2))


def test_cp_matches_scipy_where_available():
    special = pytest.importorskip("scipy.special")
    for k, n in ((1, 30), (370, 2000), (3000, 10**6), (500000, 10**6), (20, 4 * 10**6)):
        assert cp.lower(k, n, 0.025) == pytest.approx(
            special.betaincinv(k, n - k + 1, 0.025), rel=1e-9
        )
        assert cp.upper(k, n, 0.025) == pytest.approx(
            special.betaincinv(k + 1, n - k, 0.975), rel=1e-9
        )


def test_cp_monotone():
    n = 60
    lows = [cp.lower(k, n, 0.025) for k in range(n + 1)]
    ups = [cp.upper(k, n, 0.025) for k in range(n + 1)]
    assert all(x < y for x, y in zip(lows[:-1], lows[1:], strict=True))
    assert all(x < y for x, y in zip(ups[:-1], ups[1:], strict=True))
    assert all(
        lo < k / n < up or k in (0, n) for k, (lo, up) in enumerate(zip(lows, ups, strict=True))
    )
    assert all(lo < up for lo, up in zip(lows, ups, strict=True))
    for k in range(1, n):  # more confidence: wider bounds; more trials: smaller proportion
        assert cp.lower(k, n, 0.01) < cp.lower(k, n, 0.05)
        assert cp.upper(k, n, 0.01) > cp.upper(k, n, 0.05)
        assert cp.lower(k, n + 1, 0.025) < lows[k] and cp.upper(k, n + 1, 0.025) < ups[k]


def test_cp_coverage_exact_n30():
    """Exact non-coverage P(lower(K) > p) and P(upper(K) < p) is <= alpha for every p.

    The p grid includes points just beyond each bound, where the non-coverage
    comes closest to alpha (Clopper–Pearson is exact there), so the check is tight.
    """
    n, alpha = 30, 0.025
    lows = [cp.lower(k, n, alpha) for k in range(n + 1)]
    ups = [cp.upper(k, n, alpha) for k in range(n + 1)]
    ps = [i / 200 for i in range(1, 200)]
    ps += [v * (1 - 1e-9) for v in lows if v > 0] + [v * (1 + 1e-9) for v in ups if v < 1]
    worst = 0.0
    with mpmath.workdps(40):
        for p in ps:
            pmf = [
                mpmath.binomial(n, k) * mpmath.mpf(p) ** k * (1 - mpmath.mpf(p)) ** (n - k)
                for k in range(n + 1)
            ]
            miss_low = sum(pmf[k] for k in range(n + 1) if lows[k] > p)
            miss_up = sum(pmf[k] for k in range(n + 1) if ups[k] < p)
            assert miss_low <= alpha * (1 + 1e-12) and miss_up <= alpha * (1 + 1e-12)
            worst = max(worst, float(miss_low), float(miss_up))
    assert worst > 0.999 * alpha


def test_cp_is_cached():
    cp.lower(123, 4567, 0.025)
    before = cp._lower.cache_info().hits
    cp.lower(123, 4567, 0.025)
    assert cp._lower.cache_info().hits == before + 1


@pytest.mark.parametrize(
    "k,n,alpha",
    [
        (5, 4, 0.05),
        (0, 0, 0.05),
        (-1, 4, 0.05),
        (1, 4, 0.0),
        (1, 4, 1.0),
        (1, 4, math.nan),
        (1.5, 4, 0.05),
        (True, 4, 0.05),
    ],
)
def test_cp_bad_input(k, n, alpha):
    with pytest.raises(InputError):
        cp.lower(k, n, alpha)
    with pytest.raises(InputError):
        cp.upper(k, n, alpha)


# ---------------------------------------------------------------- audit_draws


def test_audit_draws_counts_and_bound():
    draws = np.array([0.0, 0.0, 0.5, 1.0, 2.0])
    prime = np.array([0.0, 1.5, 2.0, 2.0])
    r = au.audit_draws(draws, prime, (0.0, 1.0), epsilon=0.5, confidence=0.9)
    assert (r.count, r.samples, r.count_prime, r.samples_prime) == (4, 5, 1, 4)
    half = (1 - 0.9) / 2  # alpha/2 per side
    assert r.p_lower == cp.lower(4, 5, half) and r.p_prime_upper == cp.upper(1, 4, half)
    assert r.bound == pytest.approx(math.log(r.p_lower / r.p_prime_upper), rel=1e-15)
    assert r.exceeds == (r.bound > 0.5)
    data = json.loads(json.dumps(r.to_dict(), allow_nan=False))
    assert data["count"] == 4 and data["loss_lower_bound"] == r.bound


def test_audit_draws_point_event_and_certain_violation():
    """An atom event (lo == hi); all of M(s) and none of M(s') in it: a sure detection."""
    n = 10_000
    draws, prime = np.zeros(n), np.full(n, 0.25)
    r = au.audit_draws(draws, prime, (0.0, 0.0), epsilon=5.0)
    assert (r.count, r.count_prime) == (n, 0)
    expected = math.log(0.025 ** (1 / n) / -math.expm1(math.log(0.025) / n))
    assert r.bound == pytest.approx(expected, rel=1e-12) and r.exceeds


def test_audit_draws_no_hits_gives_minus_infinity():
    r = au.audit_draws(np.ones(10), np.ones(10), (2.0, 3.0), epsilon=1.0)
    assert r.bound == -math.inf and not r.exceeds and r.p_lower == 0.0
    assert json.loads(json.dumps(r.to_dict()))["loss_lower_bound"] == "-inf"


@pytest.mark.parametrize(
    "kwargs",
    [
        {"event": (1.0, 0.0)},
        {"event": (math.nan, 1.0)},
        {"event": "ab"},
        {"draws": np.array([])},
        {"draws": np.array([0.0, math.nan])},
        {"confidence": 1.5},
        {"confidence": 0.0},
        {"confidence": math.nan},
        {"epsilon": math.nan},
        {"epsilon": -1.0},
    ],
)
def test_audit_draws_bad_input(kwargs):
    args = {"draws": np.zeros(3), "draws_prime": np.zeros(3), "event": (0.0, 1.0), "epsilon": 1.0}
    args.update(kwargs)
    with pytest.raises(InputError):
        au.audit_draws(**args)


# ---------------------------------------------------------------- choosing the event


def test_choose_event_truncated_refines_with_samples():
    """Truncated at the naive scale (ε = 1, Δ = 1, [0, 2]): events [0, w] shrink toward y = c0."""
    loss = float(privacy.privacy_loss("truncated", 1, 0, 2, 1))
    events = [
        au.choose_event("truncated", 0, 1, 0, 2, 1, n, 0.95, 0) for n in (10**3, 10**5, 10**8)
    ]
    for e in events:
        assert e.lo == 0.0 and e.hi == e.width > 0 and e.side == "c0"
        assert 1.0 < e.log_ratio < loss
    assert events[0].width > events[1].width > events[2].width
    assert events[0].expected_bound < events[1].expected_bound < events[2].expected_bound
    assert events[2].log_ratio > loss - 1e-2  # the sup is approached as w -> 0


def test_choose_event_mirrors_at_c1():
    low = au.choose_event("truncated", 0, 1, 0, 2, 1, 10**5, 0.95, 0)
    high = au.choose_event("truncated", 2, 1, 0, 2, 1, 10**5, 0.95, 2)
    assert high.side == "c1" and high.hi == 2.0 and high.lo == pytest.approx(2.0 - low.width)
    assert high.probability == pytest.approx(low.probability, rel=1e-13)
    assert high.log_ratio == pytest.approx(low.log_ratio, rel=1e-13)


@pytest.mark.parametrize("mechanism", ["truncated", "bit"])
def test_event_probabilities_match_quadrature(mechanism):
    """The exact float64 event law agrees with mpmath quadrature of the Laplace density."""
    lam, c1 = mpmath.mpf(1), mpmath.mpf(2)
    for s, s_prime in ((0, 1), (0.5, 1.5), (0, 0.25)):
        e = au.choose_event(mechanism, s, s_prime, 0, 2, 1, 10**4, 0.95, 0)
        assert e.hi < 2
        with mpmath.workdps(40):
            inside = laplace_mass(mpmath.mpf(0), mpmath.mpf(e.hi), mpmath.mpf(s), lam, 40)
            if mechanism == "truncated":
                p = inside / laplace_mass(mpmath.mpf(0), c1, mpmath.mpf(s), lam, 40)
            else:
                p = inside + mpmath.exp(-mpmath.mpf(s) / lam) / 2  # the point mass at c0
        assert e.probability == pytest.approx(float(p), rel=1e-13)


def test_bit_family_contains_the_atom():
    """For BIT, w = 0 is the point mass at c0, whose ratio is exactly e^{Δ/λ} (eq (5))."""
    fam = au._family("bit", Fraction(0), Fraction(1), Fraction(0), Fraction(2), 1.0, "c0")
    assert fam.widths[0] == 0.0
    assert fam.p[0] == pytest.approx(0.5, rel=1e-15)
    assert fam.q[0] == pytest.approx(math.exp(-1) / 2, rel=1e-15)
    assert fam.log_ratios()[0] == pytest.approx(1.0, abs=1e-14)
    assert fam.log_ratios().max() <= 1.0 + 1e-14


@pytest.mark.parametrize(
    "args",
    [
        ("laplace", 0, 1, 0, 2, 1, 100, 0.95, 0),
        ("truncated", 0, 1, 0, 2, 1, 100, 0.95, 1),  # y not a bound
        ("truncated", -1, 1, 0, 2, 1, 100, 0.95, 0),  # s outside
        ("truncated", 0, 1, 2, 0, 1, 100, 0.95, 0),  # inverted bounds
        ("truncated", 0, 1, 0, 2, 0, 100, 0.95, 0),  # scale 0
        ("truncated", 0, 1, 0, 2, 1, 0, 0.95, 0),  # no samples
        ("truncated", 0, 1, 0, 2, 1, 100, 1.0, 0),  # confidence
        ("truncated", 0, 1, 0, "nan", 1, 100, 0.95, 0),
    ],
)
def test_choose_event_bad_input(args):
    with pytest.raises(InputError):
        au.choose_event(*args)


# ---------------------------------------------------------------- detection


def _binomial_cdf_below(k: int, n: int, p: float) -> float:
    """P(K < k), K ~ Binomial(n, p), exactly (regularised incomplete beta)."""
    return 0.0 if k <= 0 else 1.0 if k > n else binomial.cdf(k - 1, n, p)


def _binomial_sf_above(k: int, n: int, p: float) -> float:
    """P(K > k), exactly."""
    return 0.0 if k >= n else 1.0 if k < 0 else binomial.sf(k + 1, n, p)


def _search(f, lo: int, hi: int) -> int:
    """The smallest integer in (lo, hi] with f true, given f(lo) false and f(hi) true (monotone)."""
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if f(mid) else (mid, hi)
    return hi


def miss_probability_bound(p: float, q: float, n: int, eps: float, confidence: float) -> float:
    """An exact upper bound on P(no detection) for an event with P_s(E) = p, P_s'(E) = q.

    k1 = the smallest k with P(K < k) > FAIL/2 less one, k2 = the largest k' with
    P(K' > k') > FAIL/2 plus one; if the bound at (k1, k2) exceeds ε, every
    (K >= k1, K' <= k2) detects (the CP lower bound rises with k, the upper
    bound with k'), so P(miss) <= P(K < k1) + P(K' > k2) <= FAIL.  Returns 1
    when the bound at (k1, k2) does not exceed ε.
    """
    half, tail = (1.0 - confidence) / 2.0, FAIL / 2.0
    sd_p, sd_q = math.sqrt(n * p * (1 - p)), math.sqrt(n * q * (1 - q))
    lo = max(0, math.floor(n * p - 9 * sd_p) - 1)
    hi = min(n + 1, math.ceil(n * p) + 1)
    assert _binomial_cdf_below(lo, n, p) <= tail < _binomial_cdf_below(hi, n, p)
    k1 = _search(lambda k: _binomial_cdf_below(k, n, p) > tail, lo, hi) - 1
    lo2 = max(-1, math.floor(n * q) - 1)
    hi2 = min(n, math.ceil(n * q + 9 * sd_q) + 1)
    assert _binomial_sf_above(lo2, n, q) > tail >= _binomial_sf_above(hi2, n, q)
    k2 = _search(lambda k: _binomial_sf_above(k, n, q) <= tail, lo2, hi2)
    if k1 < 1:
        return 1.0
    bound = math.log(cp.lower(k1, n, half)) - math.log(cp.upper(k2, n, half))
    if not bound > eps:
        return 1.0
    return _binomial_cdf_below(k1, n, p) + _binomial_sf_above(k2, n, q)


def test_detects_the_liu2019_witness():
    """ε = 1, Δ = 1, [0, 2], λ = 1 (loss 1.3798854930): detected with 10^6 draws per side.

    Margin: 10^6 is ~300 times samples_needed (3311); the exact miss probability
    bound below is far under 1e-6.  The counts also agree with the exact event
    law within 5.4 standard deviations (two-sided normal tail 7e-8 per side).
    """
    setting = _setting("1", "1", "0", "2")
    n = 10**6
    pl = au.plan("truncated", setting, samples=n)
    assert pl.exact_loss == pytest.approx(1.3798854930417225, rel=1e-12)
    assert (pl.s, pl.s_prime, pl.y) == (0, 1, 0)
    ev = pl.event
    assert miss_probability_bound(ev.probability, ev.probability_prime, n, 1.0, 0.95) <= FAIL
    r = au.audit("truncated", setting, samples=n, seed=STAT_SEED)
    assert r.exceeds and r.bound > 1.0
    for k, p in ((r.test.count, ev.probability), (r.test.count_prime, ev.probability_prime)):
        assert abs(k - n * p) <= 5.4 * math.sqrt(n * p * (1 - p))
    data = json.loads(json.dumps(r.to_dict(), allow_nan=False))
    assert data["exceeds"] is True and data["samples_needed"] == pl.samples_needed


GRID = [(eps, ratio) for eps in ("0.5", "1", "2") for ratio in ("1.5", "2", "5", "20")]
#: cells with little extra loss: they show where the audit runs out of samples
HARD = [("0.1", "20"), ("0.1", "1.5"), ("0.01", "20"), ("1", "1.01")]
#: most draws per side a test audit may use
CAP = 4_000_000
FACTORS = (4, 8, 16, 32)


@pytest.mark.parametrize("eps,ratio", GRID + HARD)
def test_detection_grid(eps, ratio):
    """Truncated at λ = Δ/ε (Δ = 1, R = ratio): the extra loss of Definition 2(a) is detected.

    samples_needed makes the *expected* bound reach ε (about even odds).  The
    audit is run with the smallest m x samples_needed (m in FACTORS, at most
    CAP per side) whose exact miss-probability bound is <= 1e-6; cells where no
    such size fits under CAP are reported (printed), not skipped.
    """
    setting = _setting(eps, "1", "0", ratio)
    eps_f = float(eps)
    first = au.plan("truncated", setting, samples=1000)
    needed = first.samples_needed
    assert needed is not None and first.exact_loss > eps_f
    at_needed = au.plan("truncated", setting, samples=needed)
    assert at_needed.event.log_ratio > eps_f and at_needed.event.expected_bound > eps_f
    for m in FACTORS:
        n = m * needed
        if n > CAP:
            break
        pl = au.plan("truncated", setting, samples=n)
        ev = pl.event
        miss = miss_probability_bound(ev.probability, ev.probability_prime, n, eps_f, 0.95)
        if miss <= FAIL:
            r = au.audit("truncated", setting, samples=n, seed=1 + STAT_SEED)
            print(
                f"\ncell eps={eps} R/delta={ratio}: samples_needed={needed}, ran {n}"
                f" ({m}x, miss <= {miss:.1e}): bound {r.bound:.4f} > {eps}: {r.exceeds}"
            )
            assert r.exceeds
            return
    print(
        f"\ncell eps={eps} R/delta={ratio}: samples_needed={needed}; a detection with miss"
        f" probability <= 1e-6 needs more than {CAP} draws per side (not run)"
    )
    assert (eps, ratio) in HARD  # the regular grid must be detected


# ---------------------------------------------------------------- no extra loss


@pytest.mark.parametrize("eps", ["0.5", "1", "2"])
@pytest.mark.parametrize("ratio", ["1.5", "2", "5", "20"])
def test_no_extra_loss_bit_and_calibrated(eps, ratio):
    """BIT at Δ/ε and truncated at its calibrated scale: every event ratio is <= ε."""
    setting = _setting(eps, "1", "0", ratio)
    calibrated = privacy.calibrated_scale("truncated", setting)
    for mechanism, scale in (("bit", None), ("truncated", calibrated)):
        for n in (10**3, 10**6):
            pl = au.plan(mechanism, setting, scale=scale, samples=n)
            assert pl.event.log_ratio <= float(eps) + 1e-12
            assert pl.exact_loss <= float(eps) + 1e-12
            assert pl.samples_needed is None


@pytest.mark.parametrize("eps,delta,upper", [("1", "2", "1"), ("1", "1", "1"), ("0.5", "3", "2")])
def test_no_extra_loss_truncated_wide_sensitivity(eps, delta, upper):
    """Truncated with Δ >= R at λ = Δ/ε is ε-DP (loss εR/Δ): no event exceeds ε."""
    setting = _setting(eps, delta, "0", upper)
    pl = au.plan("truncated", setting, samples=10**5)
    assert (pl.s, pl.s_prime) == (0, Fraction(upper))
    assert pl.event.log_ratio <= float(eps) + 1e-12 and pl.samples_needed is None


# ---------------------------------------------------------------- false alarms


def test_false_alarms_bit_atom():
    """BIT at λ = Δ/ε with the atom event {c0}: its ratio is exactly e^ε, the worst case.

    K = 2000 audits of 2000 draws per side from the real sampler (independent
    rows of one stream per side), confidence 0.9.  Each alarms with probability
    <= alpha = 0.1, so alarms <= the (1 - 1e-6) quantile of Binomial(K, 0.1).
    """
    k_runs, n, confidence = 2000, 2000, 0.9
    streams = np.random.SeedSequence(2021 + STAT_SEED).spawn(2)
    rng_s, rng_t = (np.random.default_rng(q) for q in streams)
    draws = samplers.bit(rng_s, 0.0, 0.0, 2.0, 1.0, size=(k_runs, n))
    prime = samplers.bit(rng_t, 1.0, 0.0, 2.0, 1.0, size=(k_runs, n))
    alarms = sum(
        au.audit_draws(draws[i], prime[i], (0.0, 0.0), 1.0, confidence).exceeds
        for i in range(k_runs)
    )
    limit = binomial_quantile(k_runs, Fraction(1, 10), ALARM_LEVEL)
    print(f"\nBIT atom false alarms: {alarms}/{k_runs} = {alarms / k_runs:.4f} (limit {limit})")
    assert alarms <= limit


def test_false_alarms_truncated_calibrated():
    """Truncated at its calibrated scale (ε = 1, Δ = 1, [0, 2]), through audit() itself.

    K = 2000 audits (seeds 0..K-1) of 2000 draws per side, confidence 0.9; same limit.
    """
    setting = _setting("1", "1", "0", "2")
    scale = privacy.calibrated_scale("truncated", setting)
    k_runs, n, confidence = 2000, 2000, 0.9
    results = [
        au.audit("truncated", setting, scale, samples=n, seed=seed, confidence=confidence)
        for seed in range(STAT_SEED * k_runs, (STAT_SEED + 1) * k_runs)
    ]
    assert results[0].plan.event.log_ratio <= 1.0
    alarms = sum(r.exceeds for r in results)
    limit = binomial_quantile(k_runs, Fraction(1, 10), ALARM_LEVEL)
    print(
        f"\ntruncated (calibrated) false alarms: {alarms}/{k_runs} = {alarms / k_runs:.4f}"
        f" (limit {limit}); event {results[0].plan.event.describe()},"
        f" exact log ratio {results[0].plan.event.log_ratio:.4f}"
    )
    assert alarms <= limit


# ---------------------------------------------------------------- audit() API


def test_audit_is_reproducible_and_reports_progress():
    setting = _setting("1", "1", "0", "2")
    seen: list[tuple[int, int]] = []
    old = au.BLOCK
    au.BLOCK = 1000
    try:
        a = au.audit("bit", setting, samples=2500, seed=7, progress=lambda *d: seen.append(d))
        b = au.audit("bit", setting, samples=2500, seed=7)
    finally:
        au.BLOCK = old
    assert seen == [(1000, 2500), (2000, 2500), (2500, 2500)]
    assert a.to_dict() == b.to_dict()
    counts = {
        (r.test.count, r.test.count_prime)
        for r in (au.audit("bit", setting, samples=5000, seed=s) for s in range(5))
    }
    assert len(counts) > 1  # 5 seeds all giving the same counts: probability far below 1e-6


@pytest.mark.parametrize(
    "kwargs",
    [
        {"mechanism": "laplace"},
        {"setting": "eps=1"},
        {"samples": 0},
        {"samples": True},
        {"samples": 1.5},
        {"samples": "many"},
        {"seed": -1},
        {"confidence": 1.5},
        {"confidence": math.nan},
        {"confidence": "high"},
        {"scale": -1},
        {"scale": "nan"},
    ],
)
def test_audit_bad_input(kwargs):
    args = {"mechanism": "bit", "setting": _setting("1", "1", "0", "2"), "samples": 100}
    args.update(kwargs)
    with pytest.raises(InputError):
        au.audit(**args)


# ---------------------------------------------------------------- CLI

BASE = ["--epsilon", "1", "--sensitivity", "1", "--lower", "0", "--upper", "2"]


@pytest.mark.parametrize("mechanism", ["truncated", "bit"])
def test_cli_human_and_json_agree(mechanism, capsys):
    args = ["audit", mechanism, *BASE, "--samples", "20000", "--seed", "3"]
    code = main(args)
    text = capsys.readouterr().out
    assert main([*args, "--json"]) == code
    data = json.loads(capsys.readouterr().out)
    assert code == (1 if data["exceeds"] else 0)  # issue 20: exit 1 on a violation
    assert data["mechanism"] == mechanism and data["samples"] == 20000 and data["seed"] == 3
    assert (data["s"], data["s_prime"]) == ("0", "1")
    assert f"lower confidence bound on the privacy loss: {data['loss_lower_bound']:.6g}" in text
    assert "(confidence 0.95)" in text
    assert f"{data['count']} of M(s) in E, {data['count_prime']} of M(s') in E" in text
    assert ("VIOLATION: exceeds epsilon = 1" in text) == data["exceeds"]
    assert ("no violation detected" in text) == (not data["exceeds"])
    assert f"worst-case loss = {data['exact_worst_case_loss']:.12g}" in text
    if mechanism == "bit":
        assert data["samples_needed"] is None and data["exact_worst_case_loss"] == 1.0
        assert "would be needed" not in text
    else:
        assert data["exact_worst_case_loss"] == pytest.approx(1.3798854930417225)


def test_cli_too_few_samples_says_how_many(capsys):
    """With 10 draws per side no bound can exceed 1: log(0.025^0.1 / (1 - 0.025^0.1)) < 1."""
    assert main(["audit", "truncated", *BASE, "--samples", "10"]) == 0
    text = capsys.readouterr().out
    assert "no violation detected" in text
    assert "about 3311 samples per side would be needed" in text


@pytest.mark.parametrize(
    "change,word",
    [
        (["--samples", "0"], "samples"),
        (["--samples", "1.5"], "samples"),
        (["--confidence", "1.5"], "confidence"),
        (["--confidence", "nan"], "confidence"),
        (["--upper", "-1"], "upper"),
        (["--epsilon", "nan"], "epsilon"),
        (["--seed", "-1"], "seed"),
        (["--scale", "0"], "scale"),
    ],
)
def test_cli_bad_input(change, word, capsys):
    assert main(["audit", "truncated", *BASE, *change]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("dpcheck: error:") and word in err
    assert "Traceback" not in err


def test_cli_unknown_mechanism(capsys):
    assert main(["audit", "laplace3", *BASE]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "laplace3" in err
    # issue 20: the exact guide is Liu's two mechanisms only (the others: black box)
    assert main(["audit", "laplace", "--guide", "exact", *BASE[:4]]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--guide exact" in err


def test_cli_bad_input_subprocess_has_no_traceback():
    proc = subprocess.run(
        [sys.executable, "-m", "dpcheck", "audit", "bit", *BASE, "--samples", "0"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
