"""The public testing API dpcheck.testing (issue 20): assertions, strategies, the README example.

Statistical tests are seeded and sized so that a correct sampler fails with
probability <= 1e-6: each test function splits ALPHA over its cases (union
bound) and :func:`dpcheck.testing.assert_sampler_law` splits its share over its
checks.  The wrong samplers are caught with margin: the failing statistics are
1.5 to 100 times their thresholds at 10^6 draws (measured over seeds), so a
miss is as unlikely as a false alarm.  The samplers here are written with numpy
alone, as a user would write them, independently of dpcheck.sampling.

DPCHECK_STAT_SEED (default 0) shifts every seed, as in tests/test_sampling_mechanisms.py.
"""

from __future__ import annotations

import math
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, seed, settings
from hypothesis import strategies as st

from dpcheck.errors import InputError
from dpcheck.numeric import fast_mechanisms, mechanism_params
from dpcheck.numeric.names import MECHANISM_NAMES, parts
from dpcheck.sampling import goodness, mechanisms
from dpcheck.testing import assert_matches_exact, assert_private, assert_sampler_law
from dpcheck.testing import strategies as dps

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "docs" / "examples" / "test_my_sampler.py"
ALPHA = 1e-6
STAT_SEED = int(os.environ.get("DPCHECK_STAT_SEED", "0"))
INF = math.inf
N = 10**6


# ---------------------------------------------------------------- a user's samplers (numpy only)


def laplace_inversion(rng, n, s, c0, c1, lam, normaliser=None):
    """Truncated Laplace by inversion of the Laplace CDF G between G(c0) and G(c0) + Z;
    Z = G(c1) - G(c0) is the right normaliser (Liu 2019, Definition 2(a))."""

    def big_g(y):
        return np.where(
            y < s,
            0.5 * np.exp(np.minimum(y - s, 0) / lam),
            1 - 0.5 * np.exp(-np.maximum(y - s, 0) / lam),
        )

    def inverse(p):
        with np.errstate(all="ignore"):
            return np.where(p < 0.5, s + lam * np.log(2 * p), s - lam * np.log(2 * (1 - p)))

    z = big_g(c1) - big_g(c0) if normaliser is None else normaliser
    return np.clip(inverse(big_g(c0) + z * rng.random(n)), c0, c1)


def gaussian_rejection(rng, n, s, c0, c1, sigma):
    """N(s, σ²) conditioned on [c0, c1] by rejection (exact)."""
    kept = np.empty(0)
    while kept.size < n:
        y = rng.normal(s, sigma, 2 * n)
        kept = np.concatenate([kept, y[(c0 <= y) & (y <= c1)]])
    return kept[:n]


def two_sided_geometric(rng, n, s, b):
    """s + G1 - G2, G1, G2 geometric on {0, 1, ...} with P(G = k) = (1 - α) α^k, α = e^{-1/b}."""
    q = -math.expm1(-1.0 / b)  # numpy's geometric counts trials: subtract 1
    return s + (rng.geometric(q, n) - 1.0) - (rng.geometric(q, n) - 1.0)


def laplace_folded(rng, n, s, c0, c1, lam):
    """Laplace draws reflected at c0 and c1 until inside (exact while λ/R is moderate)."""
    y = rng.laplace(s, lam, n)
    while True:
        low, high = y < c0, y > c1
        if not (low.any() or high.any()):
            return y
        y = np.where(low, 2 * c0 - y, np.where(high, 2 * c1 - y, y))


CORRECT = [
    ("gaussian", {"s": 0.3, "sigma": 0.7}, lambda r, n: r.normal(0.3, 0.7, n)),
    ("laplace", {"s": -2.0, "lam": 1.5}, lambda r, n: r.laplace(-2.0, 1.5, n)),
    (
        "laplace",
        {"s": 0.0, "epsilon": 0.5, "sensitivity": 2.0},
        lambda r, n: r.laplace(0.0, 4.0, n),
    ),
    (
        "truncated-gaussian",
        {"s": 0.3, "c0": 0.0, "c1": 2.0, "sigma": 0.7},
        lambda r, n: gaussian_rejection(r, n, 0.3, 0.0, 2.0, 0.7),
    ),
    (
        "truncated-gaussian",
        {"s": 0.0, "c0": 0.0, "c1": INF, "sigma": 2.0},
        lambda r, n: gaussian_rejection(r, n, 0.0, 0.0, INF, 2.0),
    ),
    (
        "truncated",
        {"s": 0.3, "c0": 0.0, "c1": 1.0, "lam": 0.7},
        lambda r, n: laplace_inversion(r, n, 0.3, 0.0, 1.0, 0.7),
    ),
    (
        "truncated-laplace",
        {"s": 5.0, "c0": 4.0, "c1": 5.0, "lam": 30.0},
        lambda r, n: laplace_inversion(r, n, 5.0, 4.0, 5.0, 30.0),
    ),
    (
        "clamped-gaussian",
        {"s": 0.3, "c0": 0.0, "c1": 1.0, "sigma": 0.7},
        lambda r, n: np.clip(r.normal(0.3, 0.7, n), 0.0, 1.0),
    ),
    (
        "bit",
        {"s": 0.3, "c0": 0.0, "c1": 1.0, "lam": 0.7},
        lambda r, n: np.clip(r.laplace(0.3, 0.7, n), 0.0, 1.0),
    ),
    (
        "clamped-laplace",
        {"s": 1.0, "c0": -INF, "c1": 1.0, "lam": 0.5},
        lambda r, n: np.minimum(r.laplace(1.0, 0.5, n), 1.0),
    ),
    (
        "folded-laplace",
        {"s": 0.3, "c0": 0.0, "c1": 1.0, "lam": 0.7},
        lambda r, n: laplace_folded(r, n, 0.3, 0.0, 1.0, 0.7),
    ),
    ("geometric", {"s": 3, "scale": 2.0}, lambda r, n: two_sided_geometric(r, n, 3, 2.0)),
    (
        "geometric",
        {"s": 0, "alpha": 0.5},
        lambda r, n: two_sided_geometric(r, n, 0, -1 / math.log(0.5)),
    ),
    (
        "clamped-geometric",
        {"s": 3, "c0": 0, "c1": 10, "scale": 2.0},
        lambda r, n: np.clip(two_sided_geometric(r, n, 3, 2.0), 0, 10),
    ),
    (
        "truncated-geometric",
        {"s": 2, "c0": 0, "c1": 6, "scale": 3.0},
        lambda r, n: mechanisms.sample("truncated-geometric", r, n, s=2, c0=0, c1=6, scale=3.0),
    ),
]


def test_correct_samplers_pass() -> None:
    """Draws of the right law pass for every kind of mechanism (numpy samplers)."""
    rng = np.random.default_rng(STAT_SEED + 2001)
    for mechanism, params, make in CORRECT:
        checks = assert_sampler_law(
            make(rng, 200_000), mechanism, false_alarm=ALPHA / len(CORRECT), **params
        )
        assert all(c.passed for c in checks)
        # the checks' levels add up to the false alarm (union bound; support costs none)
        assert math.isclose(sum(c.alpha for c in checks), ALPHA / len(CORRECT), rel_tol=1e-12)
        assert {"mean", "second moment about s", "law (sup |F_n - F|)", "support"} <= {
            c.name for c in checks
        }


def test_every_mechanism_name_is_covered() -> None:
    names = {parts(m) for m, _, _ in CORRECT}
    assert names == {parts(m) for m in MECHANISM_NAMES}


LAW = "law (sup |F_n - F|)"
#: (label, draws of a wrong sampler, mechanism and parameters claimed, checks that must fail)
WRONG = [
    (
        "Gaussian sigma 3% too large",
        lambda r: r.normal(0.3, 0.7 * 1.03, N),
        "gaussian",
        {"s": 0.3, "sigma": 0.7},
        {"second moment about s", LAW},
    ),
    (
        "Gaussian sigma 3% too small",
        lambda r: r.normal(0.3, 0.7 * 0.97, N),
        "gaussian",
        {"s": 0.3, "sigma": 0.7},
        {"second moment about s", LAW},
    ),
    (
        "truncated Gaussian sigma 3% too large",
        lambda r: gaussian_rejection(r, N, 0.3, 0.0, 2.0, 0.7 * 1.03),
        "truncated-gaussian",
        {"s": 0.3, "c0": 0.0, "c1": 2.0, "sigma": 0.7},
        {LAW},
    ),
    (
        "Laplace lambda 3% too large",
        lambda r: r.laplace(0.3, 0.7 * 1.03, N),
        "laplace",
        {"s": 0.3, "lam": 0.7},
        {LAW},
    ),
    (
        "Gaussian mean shifted by 2% of sigma",
        lambda r: r.normal(0.3 + 0.02 * 0.7, 0.7, N),
        "gaussian",
        {"s": 0.3, "sigma": 0.7},
        {LAW},
    ),
    (
        "clamped Gaussian without its point mass at c1 (clamped just below c1)",
        lambda r: np.clip(r.normal(0.3, 0.7, N), 0.0, np.nextafter(1.0, 0.0)),
        "clamped-gaussian",
        {"s": 0.3, "c0": 0.0, "c1": 1.0, "sigma": 0.7},
        {"point mass at c1", LAW},
    ),
    (
        "clamped geometric without its point mass at c0 (clamped to c0 + 1)",
        lambda r: np.clip(two_sided_geometric(r, N, 3, 2.0), 1, 10),
        "clamped-geometric",
        {"s": 3, "c0": 0, "c1": 10, "scale": 2.0},
        {"point mass at c0", LAW},
    ),
    (
        "truncated Laplace sampled as clamped",
        lambda r: np.clip(r.laplace(0.3, 0.7, N), 0.0, 1.0),
        "truncated-laplace",
        {"s": 0.3, "c0": 0.0, "c1": 1.0, "lam": 0.7},
        {LAW, "mean", "second moment about s"},
    ),
    (
        "truncated Laplace with a wrong normaliser (mass about the midpoint, not s)",
        lambda r: laplace_inversion(r, N, 0.3, 0.0, 1.0, 0.7, 1 - math.exp(-1 / (2 * 0.7))),
        "truncated",
        {"s": 0.3, "c0": 0.0, "c1": 1.0, "lam": 0.7},
        {LAW, "mean"},
    ),
    (
        "truncated Gaussian sampled unbounded (draws outside [c0, c1])",
        lambda r: r.normal(0.3, 0.7, N),
        "truncated-gaussian",
        {"s": 0.3, "c0": 0.0, "c1": 2.0, "sigma": 0.7},
        {"support", LAW},
    ),
]


@pytest.mark.parametrize(
    ("label", "make", "mechanism", "params", "expected"), WRONG, ids=[w[0] for w in WRONG]
)
def test_wrong_samplers_fail_with_a_message_naming_each_failing_statistic(
    label, make, mechanism, params, expected
) -> None:
    draws = make(np.random.default_rng(STAT_SEED + 2002))
    with pytest.raises(AssertionError) as info:
        assert_sampler_law(draws, mechanism, **params)
    message = str(info.value)
    # the engine on the same draws, independently of the wording
    checks = goodness.check_law(draws, mechanism, alpha=1e-6, params=params)
    failed = [c for c in checks if not c.passed]
    assert expected <= {c.name for c in failed}, f"{label}: {message}"
    head, *lines = message.splitlines()
    assert f"{len(failed)} of {len(checks)} checks failed" in head
    assert f"n = {draws.size}" in head and mechanism in head
    assert len(lines) == len(failed)
    for check, line in zip(failed, lines, strict=True):
        assert line.startswith(f"- {check.name}:")
        if check.name == "support":
            assert "impossible under the law" in line and "draws not in" in line
            continue
        assert f"threshold {check.threshold:.4g} at level {check.alpha:.3g}" in line
        assert "p-value" in line
        if check.name == LAW:
            assert "empirical F_n =" in line and "exact F =" in line
        else:
            assert f"observed {check.observed:.10g}, expected {check.expected:.10g}" in line
    # the p-values the message quotes are consistent with the verdicts
    for check in failed:
        if check.p_value is not None and check.name != "support":
            assert check.p_value <= check.alpha * (1 + 1e-6)


def test_the_correct_samplers_pass_where_the_wrong_ones_fail() -> None:
    """Controls for WRONG: the right law at each wrong case's parameters passes at 10^6 draws."""
    rng = np.random.default_rng(STAT_SEED + 2003)
    controls = [
        ("gaussian", {"s": 0.3, "sigma": 0.7}, lambda r: r.normal(0.3, 0.7, N)),
        (
            "truncated-gaussian",
            {"s": 0.3, "c0": 0.0, "c1": 2.0, "sigma": 0.7},
            lambda r: gaussian_rejection(r, N, 0.3, 0.0, 2.0, 0.7),
        ),
        ("laplace", {"s": 0.3, "lam": 0.7}, lambda r: r.laplace(0.3, 0.7, N)),
        (
            "clamped-gaussian",
            {"s": 0.3, "c0": 0.0, "c1": 1.0, "sigma": 0.7},
            lambda r: np.clip(r.normal(0.3, 0.7, N), 0.0, 1.0),
        ),
        (
            "clamped-geometric",
            {"s": 3, "c0": 0, "c1": 10, "scale": 2.0},
            lambda r: np.clip(two_sided_geometric(r, N, 3, 2.0), 0, 10),
        ),
        (
            "truncated",
            {"s": 0.3, "c0": 0.0, "c1": 1.0, "lam": 0.7},
            lambda r: laplace_inversion(r, N, 0.3, 0.0, 1.0, 0.7),
        ),
    ]
    for mechanism, params, make in controls:
        assert_sampler_law(make(rng), mechanism, false_alarm=ALPHA / len(controls), **params)


def test_infinite_draws_fail_the_support_check_even_when_rare() -> None:
    """One infinite draw among 10^5 escapes the moment, law and point-mass tests (a
    1e-5 fraction), but a draw the law cannot produce fails the support check."""
    draws = np.random.default_rng(STAT_SEED + 2004).normal(0.0, 1.0, 100_000)
    draws[123] = np.inf
    with pytest.raises(AssertionError, match=r"- support: 1/100000 draws not finite.*index 123"):
        assert_sampler_law(draws, "gaussian", s=0.0, sigma=1.0)
    draws = two_sided_geometric(np.random.default_rng(STAT_SEED + 2005), 100_000, 0, 2.0)
    draws[7] += 0.5
    with pytest.raises(AssertionError, match=r"draws not integers"):
        assert_sampler_law(draws, "geometric", s=0, scale=2.0)


@pytest.mark.parametrize(
    ("call", "needle"),
    [
        (lambda: assert_sampler_law([1.0], "gauss", s=0, sigma=1), "unknown mechanism"),
        (lambda: assert_sampler_law([1.0], "folded-gaussian", s=0, c0=0, c1=1, sigma=1), "not"),
        (lambda: assert_sampler_law([1.0], "gaussian", s=0, lam=1), "unknown parameter 'lam'"),
        (lambda: assert_sampler_law([1.0], "gaussian", s=0), "missing scale"),
        (lambda: assert_sampler_law([0.5], "truncated", s=0, c0=1, c1=0, lam=1), "c0=1 must"),
        (lambda: assert_sampler_law([0.5], "gaussian", s=0, sigma=-1), "sigma=-1 must be"),
        (lambda: assert_sampler_law([1], "geometric", s=0.5, scale=1), "integer"),
        (
            lambda: assert_sampler_law([1.0], "gaussian", false_alarm=0, s=0, sigma=1),
            "between 0 and 1",
        ),
        (
            lambda: assert_sampler_law([1.0], "gaussian", false_alarm=1, s=0, sigma=1),
            "between 0 and 1",
        ),
        (lambda: assert_sampler_law([1.0], "gaussian", false_alarm=math.nan, s=0, sigma=1), "nan"),
        (lambda: assert_sampler_law([1.0], "gaussian", false_alarm=True, s=0, sigma=1), "True"),
        (lambda: assert_sampler_law([1.0], "gaussian", false_alarm="0.1", s=0, sigma=1), "'0.1'"),
        (lambda: assert_sampler_law([], "gaussian", s=0, sigma=1), "empty"),
        (lambda: assert_sampler_law([0.0, math.nan], "gaussian", s=0, sigma=1), "NaN"),
        (lambda: assert_sampler_law("0.5", "gaussian", s=0, sigma=1), "not an array"),
        (lambda: assert_sampler_law([1j], "gaussian", s=0, sigma=1), "complex"),
        (lambda: assert_sampler_law([True], "gaussian", s=0, sigma=1), "bool"),
        (lambda: assert_sampler_law([[1.0], [2.0, 3.0]], "gaussian", s=0, sigma=1), "draws"),
    ],
)
def test_bad_input_is_one_line_input_error_not_assertion(call, needle: str) -> None:
    with pytest.raises(InputError) as info:
        call()
    message = str(info.value)
    assert needle in message and "\n" not in message
    assert not isinstance(info.value, AssertionError)


def test_array_shapes_are_flattened() -> None:
    draws = np.random.default_rng(STAT_SEED + 2006).laplace(0.0, 1.0, (400, 250))
    checks = assert_sampler_law(draws, "laplace", s=0.0, lam=1.0)
    assert "n = 100000" in next(c for c in checks if c.name == LAW).detail


@pytest.mark.parametrize("n", [10, 1000, 10**6])
@pytest.mark.parametrize("alpha", [1e-9, 1e-6, 0.05])
def test_p_values_invert_the_thresholds(n: int, alpha: float) -> None:
    """The p-values quoted in messages are the tail bounds the thresholds are solved from:
    at the threshold each equals the level (DKW, Bernstein exactly; the median of means
    within its 1e-6 safety margin), and they decrease beyond it."""
    t = goodness.dkw_threshold(n, alpha)
    assert math.isclose(goodness.dkw_p_value(n, t), alpha, rel_tol=1e-9)
    assert goodness.dkw_p_value(n, 1.1 * t) < alpha
    variance, bound = 0.3, 2.0
    t = goodness.bernstein_halfwidth(n, variance, bound, alpha)
    assert math.isclose(goodness.bernstein_p_value(n, variance, bound, t), alpha, rel_tol=1e-9)
    assert goodness.bernstein_p_value(n, variance, bound, 1.1 * t) < alpha
    t, blocks = goodness.median_of_means_halfwidth(n, variance, alpha)
    p = goodness.median_of_means_p_value(n, variance, blocks, t)
    assert alpha * (1 - 1e-4) <= p <= alpha
    assert goodness.median_of_means_p_value(n, variance, blocks, 1.1 * t) < alpha
    assert goodness.median_of_means_p_value(n, variance, blocks, 1e-200) == 1.0  # t² underflows


def test_ks_witness_names_where_the_gap_is() -> None:
    rng = np.random.default_rng(STAT_SEED + 2011)
    draws = np.clip(rng.laplace(0.3, 0.7, 5000), 0.0, 1.0)
    params = {"s": 0.3, "c0": 0.0, "c1": 1.0, "lam": 0.7}
    p0, p1 = (float(v) for v in fast_mechanisms.point_masses("bit", **params))
    atoms = [(0.0, p0), (1.0, p1)]

    def cdf(ys):
        return fast_mechanisms.cdf("bit", ys, **params)

    distance, y, side, f_n, f = goodness.ks_witness(draws, cdf, atoms)
    assert distance == goodness.ks_distance(draws, cdf, atoms) == abs(f_n - f)
    left = side == "y-"
    assert f_n == np.count_nonzero(draws < y if left else draws <= y) / draws.size
    jump = dict(atoms).get(y, 0.0) if left else 0.0
    assert math.isclose(f, float(cdf(np.array([y]))[0]) - jump, abs_tol=1e-15)
    # brute force over every draw and atom, both sides
    xs = np.unique(np.concatenate([draws, [0.0, 1.0]]))
    at = np.abs(np.searchsorted(np.sort(draws), xs, "right") / draws.size - cdf(xs))
    below = np.abs(
        np.searchsorted(np.sort(draws), xs, "left") / draws.size
        - (cdf(xs) - np.array([dict(atoms).get(float(v), 0.0) for v in xs]))
    )
    assert math.isclose(distance, max(at.max(), below.max()), rel_tol=1e-12)


# ---------------------------------------------------------------- assert_matches_exact


def textbook_truncated_gaussian_bias(s, c0, c1, sigma):
    """E[Y] - s = σ (φ(a) - φ(b)) / (Φ(b) - Φ(a)), a = (c0 - s)/σ, b = (c1 - s)/σ."""
    a, b = (c0 - s) / sigma, (c1 - s) / sigma
    phi_a, phi_b = (math.exp(-z * z / 2) / math.sqrt(2 * math.pi) for z in (a, b))
    cdf_a, cdf_b = (math.erfc(-z / math.sqrt(2)) / 2 for z in (a, b))
    return sigma * (phi_a - phi_b) / (cdf_b - cdf_a)


def laplace_cdf(s, lam, y):
    return 0.5 * math.exp((y - s) / lam) if y < s else 1 - 0.5 * math.exp(-(y - s) / lam)


GRID = [
    {"s": s, "c0": 0.0, "c1": 1.0, "sigma": sigma}
    for s in (0.0, 0.3, 0.9, 1.0)
    for sigma in (0.05, 0.7, 3.0)
]


def test_matches_exact_passes_correct_formulas() -> None:
    rows = assert_matches_exact(textbook_truncated_gaussian_bias, "truncated-gaussian.bias", GRID)
    assert len(rows) == len(GRID) and all(r.passed for r in rows)
    assert max(r.relative_error for r in rows) < 1e-14  # measured 1.7e-15
    assert_matches_exact(
        lambda s, lam: 2 * lam * lam,
        "laplace.var",
        [{"s": 0.0, "lam": lam} for lam in (1e-8, 0.5, 3.0, 1e100)],
        rtol=1e-15,
    )
    assert_matches_exact(
        laplace_cdf,
        "laplace.cdf",
        [{"s": 0.25, "lam": 2.0, "y": y} for y in (-3.0, 0.0, 0.25, 1.0, 7.5)],
        rtol=1e-14,
    )
    # a quantile: the Laplace's inverse CDF
    assert_matches_exact(
        lambda s, lam, p: s + lam * math.log(2 * p) if p < 0.5 else s - lam * math.log(2 - 2 * p),
        "laplace.quantile",
        [{"s": 1.0, "lam": 0.5, "p": p} for p in (0.01, 0.3, 0.5, 0.9)],
        rtol=1e-13,
    )


def test_matches_exact_names_the_worst_point_and_counts_the_failures() -> None:
    def sign_error(s, c0, c1, sigma):
        return -textbook_truncated_gaussian_bias(s, c0, c1, sigma)

    with pytest.raises(AssertionError) as info:
        assert_matches_exact(sign_error, "truncated-gaussian.bias", GRID)
    message = str(info.value)
    assert message.startswith("test_matches_exact_names_the_worst_point_and_counts")
    assert f"at {len(GRID)} of {len(GRID)} points" in message
    assert "relative error 2" in message  # |-b - b|/|b| = 2 everywhere

    # errors 0, 1e-9 and 1e-6 at three points: two fail at rtol 1e-10, the worst is point 2
    points = [{"s": 0.3, "c0": 0.0, "c1": 1.0, "sigma": sigma} for sigma in (0.5, 0.7, 0.9)]
    errors = {0.5: 0.0, 0.7: 1e-9, 0.9: 1e-6}

    def perturbed(s, c0, c1, sigma):
        return textbook_truncated_gaussian_bias(s, c0, c1, sigma) * (1 + errors[sigma])

    with pytest.raises(AssertionError) as info:
        assert_matches_exact(perturbed, "truncated-gaussian.bias", points, rtol=1e-10)
    message = str(info.value)
    assert "at 2 of 3 points" in message
    assert "worst at point 2 {s=0.3, c0=0.0, c1=1.0, sigma=0.9}" in message
    exact = textbook_truncated_gaussian_bias(0.3, 0.0, 1.0, 0.9)
    assert f"fn gave {exact * (1 + 1e-6)!r}" in message
    assert re.search(r"relative error 1(\.0+)?e-06", message), message


def test_matches_exact_catches_cancellation_in_a_textbook_formula() -> None:
    """The textbook bias at σ = 100 R loses 4 digits to Φ(b) - Φ(a): caught at rtol 1e-12."""
    point = {"s": 0.3, "c0": 0.0, "c1": 1.0, "sigma": 100.0}
    with pytest.raises(AssertionError, match=r"at 1 of 1 points.*relative error [0-9.]+e-1[12]"):
        assert_matches_exact(textbook_truncated_gaussian_bias, "truncated-gaussian.bias", [point])
    rows = assert_matches_exact(
        textbook_truncated_gaussian_bias, "truncated-gaussian.bias", [point], rtol=1e-9
    )
    assert 1e-13 < rows[0].relative_error < 1e-9


def test_matches_exact_absolute_tolerance_and_non_numbers() -> None:
    point = {"s": 0.5, "c0": 0.0, "c1": 1.0, "sigma": 0.7}  # the midpoint: the bias is 0
    rows = assert_matches_exact(lambda **p: 1e-17, "truncated-gaussian.bias", [point], atol=1e-16)
    assert rows[0].relative_error == math.inf and rows[0].passed
    with pytest.raises(AssertionError, match="relative error inf"):
        assert_matches_exact(lambda **p: 1e-17, "truncated-gaussian.bias", [point])
    with pytest.raises(AssertionError, match=r"fn returned None, not a real number"):
        assert_matches_exact(lambda **p: None, "truncated-gaussian.bias", [point])
    with pytest.raises(AssertionError, match=r"fn gave nan"):
        assert_matches_exact(lambda **p: math.nan, "truncated-gaussian.bias", [point])


@pytest.mark.parametrize(
    ("call", "needle"),
    [
        (lambda: assert_matches_exact(abs, "gaussian.kurtosis", [{}]), "unknown quantity"),
        (lambda: assert_matches_exact(abs, "gauss.mean", [{}]), "unknown"),
        (lambda: assert_matches_exact(3.0, "gaussian.mean", [{}]), "not callable"),
        (lambda: assert_matches_exact(abs, "gaussian.mean", []), "points is empty"),
        (lambda: assert_matches_exact(abs, "gaussian.mean", {"s": 0}), "single mapping"),
        (lambda: assert_matches_exact(abs, "gaussian.mean", [1.0]), "point 0 = 1.0"),
        (
            lambda: assert_matches_exact(
                abs, "truncated.mean", [{"s": 0, "c0": 0, "c1": 1, "lam": 1}, {"s": 2}]
            ),
            "point 1 {s=2}: missing parameter 'c0'",
        ),
        (lambda: assert_matches_exact(abs, "gaussian.mean", [{"s": 0}], rtol=-1), "rtol=-1"),
        (lambda: assert_matches_exact(abs, "gaussian.mean", [{"s": 0}], rtol=0), "both 0"),
        (lambda: assert_matches_exact(abs, "gaussian.mean", [{"s": 0}], atol=math.inf), "atol"),
        (lambda: assert_matches_exact(abs, "gaussian.mean", [{"s": 0}], dps=0), "dps=0"),
    ],
)
def test_matches_exact_bad_input(call, needle: str) -> None:
    with pytest.raises(InputError) as info:
        call()
    assert needle in str(info.value) and "\n" not in str(info.value)


# ---------------------------------------------------------------- assert_private


def test_assert_private_wraps_the_black_box_audit() -> None:
    from dpcheck.sampling.blackbox import audit_sampler

    def laplace(x, rng, size):
        return x + rng.laplace(0.0, 1.0, size)

    def laplace_half_scale(x, rng, size):  # true loss 2 at sensitivity 1
        return x + rng.laplace(0.0, 0.5, size)

    setting = {"epsilon": 1.0, "neighbours": [(0.0, 1.0)], "samples": 100_000}
    audit = assert_private(laplace, confidence=1 - ALPHA, seed=STAT_SEED, **setting)
    assert not audit.exceeds and audit.bound <= 1.0
    with pytest.raises(AssertionError) as info:
        assert_private(laplace_half_scale, confidence=1 - ALPHA, seed=STAT_SEED, **setting)
    again = audit_sampler(laplace_half_scale, confidence=1 - ALPHA, seed=STAT_SEED, **setting)
    assert again.exceeds and str(info.value) == str(again)
    with pytest.raises(InputError):
        assert_private(laplace, epsilon=-1.0, neighbours=[(0.0, 1.0)], samples=1000)


# ---------------------------------------------------------------- strategies


@seed(STAT_SEED + 2007)
@settings(max_examples=300, deadline=None, database=None)
@given(dps.cases(aliases=True))
def test_strategies_give_valid_parameters(case) -> None:
    """Every example is accepted by the exact parser and the float64 path (finite mean), and
    dpcheck's sampler draws inside the support."""
    mechanism, params = case
    parsed = mechanism_params.parse(mechanism, params)
    bounding, base = parts(mechanism)
    assert set(params) == {"s", {"laplace": "lam", "gaussian": "sigma"}.get(base, "scale")} | (
        set() if bounding == "none" else {"c0", "c1"}
    )
    if base == "geometric":
        assert all(isinstance(v, int) or math.isinf(v) for k, v in params.items() if k != "scale")
    assert 1e-8 <= float(parsed.scale) <= 1e300
    mean = float(fast_mechanisms.evaluate(f"{mechanism}.mean", **params))
    assert math.isfinite(mean)
    if bounding != "none":
        assert params["c0"] <= mean <= params["c1"]
    draws = mechanisms.sample(mechanism, np.random.default_rng(0), 8, **params)
    assert np.isfinite(draws).all()
    assert (draws >= params.get("c0", -INF)).all() and (draws <= params.get("c1", INF)).all()


def test_strategies_reach_the_extremes() -> None:
    """The strategies do draw the extremes they promise, for every base: scales 1e-8 and
    1e300, one-sided bounds each way, s at each bound, narrow and wide intervals; and every
    mechanism."""
    seen: set[str] = set()

    @seed(STAT_SEED + 2008)
    @settings(max_examples=500, deadline=None, database=None)
    @given(dps.cases())
    def collect(case) -> None:
        mechanism, params = case
        base = parts(mechanism)[1]
        seen.add(mechanism)
        scale = params.get("lam", params.get("sigma", params.get("scale")))
        features = [{1e-8: "smallest scale", 1e300: "largest scale"}.get(scale, "")]
        if "c0" in params:
            features += [
                "c0 = -inf" if params["c0"] == -INF else "",
                "c1 = inf" if params["c1"] == INF else "",
                "s = c0" if params["s"] == params["c0"] else "",
                "s = c1" if params["s"] == params["c1"] else "",
            ]
            if math.isfinite(params["c0"]) and math.isfinite(params["c1"]):
                width = params["c1"] - params["c0"]
                features.append("narrow" if width <= 1e-3 else "wide" if width >= 1e3 else "")
        seen.update(f"{base}: {f}" for f in features if f)

    collect()
    wanted = set(MECHANISM_NAMES)
    for base in ("laplace", "gaussian", "geometric"):
        features = ["smallest scale", "largest scale", "c0 = -inf", "c1 = inf", "s = c0"]
        features += ["s = c1", "wide"] + ([] if base == "geometric" else ["narrow"])
        wanted |= {f"{base}: {f}" for f in features}
    assert wanted <= seen, wanted - seen


@seed(STAT_SEED + 2009)
@settings(max_examples=60, deadline=None, database=None)
@given(dps.cases(), st.integers(0, 2**32 - 1))
def test_dpcheck_samplers_pass_over_the_strategies(case, k: int) -> None:
    """dpcheck's own samplers pass assert_sampler_law at every drawn parameter, extremes
    included (ALPHA split over the examples)."""
    mechanism, params = case
    draws = mechanisms.sample(mechanism, np.random.default_rng([STAT_SEED, k]), 4000, **params)
    assert_sampler_law(draws, mechanism, false_alarm=ALPHA / 60, **params)


@pytest.mark.slow
@seed(STAT_SEED + 2010)
@settings(max_examples=1000, deadline=None, database=None)
@given(dps.cases(aliases=True), st.integers(0, 2**32 - 1))
def test_dpcheck_samplers_pass_over_the_strategies_wide(case, k: int) -> None:
    mechanism, params = case
    draws = mechanisms.sample(mechanism, np.random.default_rng([STAT_SEED, k]), 4000, **params)
    assert_sampler_law(draws, mechanism, false_alarm=ALPHA / 1000, **params)


# ---------------------------------------------------------------- the README's example file


def _readme_example_block() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.index("## Testing your own code (dpcheck.testing)")
    end = text.index("\n## ", section + 1)
    found = re.search(r"```python\n(.*?)```\n", text[section:end], re.S)
    assert found, "no python block in the README section"
    return found.group(1)


def test_readme_shows_the_example_file_verbatim() -> None:
    assert _readme_example_block() == EXAMPLE.read_text(encoding="utf-8")


def _pytest(path: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rf", str(path)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONHASHSEED": "0"},
    )


def test_the_example_file_passes_under_pytest() -> None:
    run = _pytest(EXAMPLE, ROOT)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "3 passed" in run.stdout
