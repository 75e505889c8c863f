"""The samplers of every mechanism (dpcheck.sampling.mechanisms) against their exact laws.

Every statistical test here is seeded and sized so that a correct sampler
fails it with probability <= 1e-6: each test function splits ALPHA = 1e-6
over its cases or hypothesis examples (union bound), and
:func:`dpcheck.sampling.goodness.check_law` splits a case's share over its
moment, DKW and point-mass tests, all finite-sample bounds.  The exact values
are dpcheck.numeric.fast_mechanisms' (checked against mpmath by its own tests).

DPCHECK_STAT_SEED (default 0) shifts every seed, including hypothesis's:

    for k in $(seq 1 20); do
        DPCHECK_STAT_SEED=$k python -m pytest -q tests/test_sampling_mechanisms.py
    done
"""

from __future__ import annotations

import math
import os

import mpmath
import numpy as np
import pytest
from hypothesis import given, seed, settings
from hypothesis import strategies as st

from dpcheck.errors import InputError
from dpcheck.numeric.names import BASES, MECHANISM_NAMES, parts
from dpcheck.sampling import goodness, mechanisms, samplers

ALPHA = 1e-6
STAT_SEED = int(os.environ.get("DPCHECK_STAT_SEED", "0"))
DRAWS = 100_000
INF = math.inf


def _failed(checks: list[goodness.Check]) -> list[str]:
    return [str(c) for c in checks if not c.passed]


def _assert_law(draws: np.ndarray, mechanism: str, params: dict, alpha: float) -> None:
    checks = goodness.check_law(draws, mechanism, alpha=alpha, params=params)
    failed = _failed(checks)
    assert not failed, f"{mechanism} at {params}: " + "; ".join(failed)


#: hand-picked points of every mechanism: interior s, s at a bound, one-sided bounds,
#: each way of giving the scale
CASES = [
    ("laplace", {"s": 0.3, "lam": 0.7}),
    ("laplace", {"s": -5.0, "epsilon": 0.5, "sensitivity": 2.0}),
    ("truncated-laplace", {"s": 0.3, "c0": 0.0, "c1": 1.0, "lam": 0.7}),
    ("truncated-laplace", {"s": 0.0, "c0": 0.0, "c1": INF, "lam": 0.7}),
    ("truncated", {"s": 1.0, "c0": -INF, "c1": 1.0, "epsilon": 2.0, "sensitivity": 1.0}),
    ("clamped-laplace", {"s": 0.3, "c0": 0.0, "c1": 1.0, "lam": 0.7}),
    ("bit", {"s": 0.2, "c0": -INF, "c1": 0.5, "scale": 1.0}),
    ("folded-laplace", {"s": 0.3, "c0": 0.0, "c1": 1.0, "lam": 0.7}),
    ("folded-laplace", {"s": 0.0, "c0": 0.0, "c1": 1.0, "lam": 5.0}),
    ("gaussian", {"s": 0.3, "sigma": 0.7}),
    ("truncated-gaussian", {"s": 0.3, "c0": 0.0, "c1": 1.0, "sigma": 0.7}),
    ("truncated-gaussian", {"s": 0.3, "c0": 0.0, "c1": INF, "sigma": 0.7}),
    ("truncated-gaussian", {"s": 0.0, "c0": -INF, "c1": 0.0, "scale": 2.0}),
    ("clamped-gaussian", {"s": 0.3, "c0": 0.0, "c1": 1.0, "sigma": 0.7}),
    ("clamped-gaussian", {"s": 0.3, "c0": -INF, "c1": 1.0, "sigma": 0.7}),
    ("geometric", {"s": 3, "scale": 2.0}),
    ("geometric", {"s": 0, "alpha": 0.5}),
    ("truncated-geometric", {"s": 3, "c0": 0, "c1": 10, "scale": 2.0}),
    ("truncated-geometric", {"s": 0, "c0": 0, "c1": INF, "scale": 3.0}),
    ("clamped-geometric", {"s": 3, "c0": 0, "c1": 10, "scale": 2.0}),
    ("clamped-geometric", {"s": -2, "c0": -INF, "c1": 0, "alpha": 0.7}),
]


def test_cases_cover_every_mechanism() -> None:
    from dpcheck.numeric.names import canonical_mechanism

    assert {canonical_mechanism(m) for m, _ in CASES} == set(MECHANISM_NAMES)


@pytest.mark.parametrize(("mechanism", "params"), CASES)
def test_every_mechanism_matches_its_law(mechanism: str, params: dict) -> None:
    k = CASES.index((mechanism, params))
    draws = mechanisms.sample(mechanism, 100 * k + STAT_SEED, DRAWS, **params)
    assert draws.shape == (DRAWS,) and draws.dtype == np.float64
    bounding, base = parts(mechanism)
    if bounding != "none":
        assert np.all((draws >= params["c0"]) & (draws <= params["c1"]))
    if base == "geometric":
        assert np.array_equal(draws, np.round(draws))
    _assert_law(draws, mechanism, params, ALPHA / len(CASES))


# --- hypothesis: scale/R from 1e-6 to 1e6, s at, near and between the bounds -------------

POSITIONS = ("c0", "c1", "mid", "near c0", "near c1", "inside")
EXAMPLES = 12  # per mechanism
PER_EXAMPLE = ALPHA / (EXAMPLES * len(MECHANISM_NAMES))


@st.composite
def law_params(draw: st.DrawFn, mechanism: str) -> dict:
    bounding, base = parts(mechanism)
    sides = "both"
    if bounding in ("truncated", "clamped"):
        sides = draw(st.sampled_from(("both", "both", "lower", "upper")))
    if base == "geometric":
        c0 = float(draw(st.integers(-1000, 1000)))
        width = float(draw(st.integers(1, 1000)))
        scale = 10.0 ** draw(st.floats(-2, 6)) * width
    else:
        c0 = draw(st.floats(-1e3, 1e3))
        width = 10.0 ** draw(st.floats(-3, 3))
        scale = 10.0 ** draw(st.floats(-6, 6)) * width
    c1 = c0 + width
    where = draw(st.sampled_from(POSITIONS))
    s = {
        "c0": c0,
        "c1": c1,
        "mid": c0 + width / 2,
        "near c0": c0 + 1e-9 * width,
        "near c1": c1 - 1e-9 * width,
        "inside": c0 + draw(st.floats(0, 1)) * width,
    }[where]
    if base == "geometric":
        s = float(math.floor(s))
    s = min(max(s, c0), c1)
    params = {"s": s, BASES[base]: scale}
    if bounding != "none":
        params.update(
            c0=-INF if sides == "upper" else c0,
            c1=INF if sides == "lower" else c1,
        )
    return params


@pytest.mark.parametrize("mechanism", MECHANISM_NAMES)
def test_samplers_match_their_laws_over_the_parameter_range(mechanism: str) -> None:
    index = MECHANISM_NAMES.index(mechanism)

    @seed(STAT_SEED + 1000 + index)
    @settings(max_examples=EXAMPLES, deadline=None, database=None)
    @given(law_params(mechanism), st.integers(0, 2**32))
    def run(params: dict, k: int) -> None:
        draws = mechanisms.sample(mechanism, k + STAT_SEED, DRAWS // 2, **params)
        _assert_law(draws, mechanism, params, PER_EXAMPLE)

    run()


# --- extremes (slow): 1e6 draws ------------------------------------------------------------

EXTREMES = [
    (m, p)
    for base, key in BASES.items()
    for m in MECHANISM_NAMES
    if parts(m)[1] == base and parts(m)[0] != "none"
    for p in (
        # scale/R = 1e-6 and 1e6 (R = 1, or 10 on the integers)
        {
            "s": 0.5 if base != "geometric" else 5,
            "c0": 0,
            "c1": 1 if base != "geometric" else 10,
            key: 1e-6 if base != "geometric" else 1e-5,
        },
        {
            "s": 0,
            "c0": 0,
            "c1": 1 if base != "geometric" else 10,
            key: 1e6 if base != "geometric" else 1e7,
        },
        # a bound 30 scales from s, s at the other bound
        {"s": 0, "c0": 0, "c1": 30, key: 1.0},
        # s at a bound, one-sided (folding has no one-sided form)
        *(
            []
            if parts(m)[0] == "folded"
            else [{"s": 0, "c0": -INF, "c1": 0, key: 0.5 if base != "geometric" else 3.0}]
        ),
    )
]


@pytest.mark.slow
@pytest.mark.parametrize(("mechanism", "params"), EXTREMES)
def test_samplers_at_extreme_parameters(mechanism: str, params: dict) -> None:
    k = EXTREMES.index((mechanism, params))
    draws = mechanisms.sample(mechanism, 7000 + k + STAT_SEED, 1_000_000, **params)
    _assert_law(draws, mechanism, params, ALPHA / len(EXTREMES))


@pytest.mark.slow
@pytest.mark.parametrize("ratio", [1e-300, 1e300])
def test_truncated_gaussian_and_folded_laplace_at_absurd_scales(ratio: float) -> None:
    """Far beyond the hypothesis range: the nearly-degenerate and nearly-uniform laws.

    At scale 1e-300 the draws must be resolvable in float64, so s = 0 (not 0.25,
    where every draw would round to s itself).
    """
    for k, mechanism in enumerate(("truncated-gaussian", "folded-laplace", "truncated-laplace")):
        key = BASES[parts(mechanism)[1]]
        s, c0 = (0.0, -0.25) if ratio < 1 else (0.25, 0.0)
        params = {"s": s, "c0": c0, "c1": c0 + 1.0, key: ratio}
        draws = mechanisms.sample(mechanism, 9000 + k + STAT_SEED, 1_000_000, **params)
        _assert_law(draws, mechanism, params, ALPHA / 6)


@pytest.mark.parametrize("width", [1e-10, 1e-30])
@pytest.mark.parametrize("mechanism", ["truncated-gaussian", "folded-laplace"])
def test_uniform_limit_below_the_normal_float64_range(mechanism: str, width: float) -> None:
    """R/scale = 1e-310 and 1e-330 (scale = 1e300): the law is uniform on [c0, c1] to
    within 1e-600, and the masses of the inversion would be subnormal or 0 (the
    samplers' uniform branch).  DKW against the uniform CDF."""
    key = BASES[parts(mechanism)[1]]
    c0 = 0.0
    params = {"s": c0 + width / 4, "c0": c0, "c1": c0 + width, key: 1e300}
    draws = mechanisms.sample(mechanism, STAT_SEED + 41, DRAWS, **params)
    assert np.all((draws >= c0) & (draws <= c0 + width))
    dist = goodness.ks_distance(draws, lambda y: np.clip((y - c0) / width, 0.0, 1.0))
    assert dist <= goodness.dkw_threshold(DRAWS, ALPHA / 4)


# --- the tests can fail ----------------------------------------------------------------------


def _naive_truncated_gaussian(rng, s, c0, c1, sigma, size):
    """Textbook inversion between Φ(a) and Φ(b) of the untruncated normal CDF."""
    from scipy.special import ndtr, ndtri

    lo, hi = ndtr((c0 - s) / sigma), ndtr((c1 - s) / sigma)
    return s + sigma * ndtri(lo + rng.random(size) * (hi - lo))


def _naive_fold(rng, s, c0, c1, lam, size):
    """fold(X) by fmod of a float64 Laplace draw: exact in law until λ/R ~ 1e15."""
    t = np.mod(s + rng.laplace(0.0, lam, size) - c0, 2 * (c1 - c0))
    return c0 + np.minimum(t, 2 * (c1 - c0) - t)


WRONG = [
    # label, draws(rng), mechanism tested against, its params, checks expected to fail (or None)
    (
        "truncated Gaussian with a 5% larger sigma",
        lambda rng: mechanisms.sample(
            "truncated-gaussian", rng, 300_000, s=0.3, c0=0, c1=2, sigma=1.05
        ),
        "truncated-gaussian",
        {"s": 0.3, "c0": 0, "c1": 2, "sigma": 1.0},
        None,
    ),
    (
        "Gaussian with a 5% larger sigma: second moment (median of means) and law",
        lambda rng: mechanisms.sample("gaussian", rng, 1_000_000, s=0.3, sigma=1.05),
        "gaussian",
        {"s": 0.3, "sigma": 1.0},
        {"second moment about s", "law (sup |F_n - F|)"},
    ),
    (
        "Gaussian shifted by 0.05 sigma: mean (median of means)",
        lambda rng: mechanisms.sample("gaussian", rng, 1_000_000, s=0.35, sigma=1.0),
        "gaussian",
        {"s": 0.3, "sigma": 1.0},
        {"mean"},
    ),
    (
        "clamped Gaussian draws tested as truncated",
        lambda rng: mechanisms.sample("clamped-gaussian", rng, DRAWS, s=0.3, c0=0, c1=1, sigma=0.7),
        "truncated-gaussian",
        {"s": 0.3, "c0": 0, "c1": 1, "sigma": 0.7},
        None,
    ),
    (
        "truncated Gaussian draws tested as clamped: point masses",
        lambda rng: mechanisms.sample(
            "truncated-gaussian", rng, DRAWS, s=0.3, c0=0, c1=1, sigma=0.7
        ),
        "clamped-gaussian",
        {"s": 0.3, "c0": 0, "c1": 1, "sigma": 0.7},
        {"point mass at c0", "point mass at c1"},
    ),
    (
        "geometric with alpha where alpha^2 was meant (scale b for b/2)",
        lambda rng: mechanisms.sample("geometric", rng, DRAWS, s=0, scale=2.0),
        "geometric",
        {"s": 0, "scale": 1.0},
        {"point mass at s"},
    ),
    (
        "clamped geometric draws tested as truncated",
        lambda rng: mechanisms.sample("clamped-geometric", rng, DRAWS, s=2, c0=0, c1=5, scale=2.0),
        "truncated-geometric",
        {"s": 2, "c0": 0, "c1": 5, "scale": 2.0},
        None,
    ),
    (
        "one-sided truncated Laplace with a 5% larger lambda: law",
        lambda rng: mechanisms.sample(
            "truncated-laplace", rng, 300_000, s=0, c0=0, c1=INF, lam=1.05
        ),
        "truncated-laplace",
        {"s": 0, "c0": 0, "c1": INF, "lam": 1.0},
        None,
    ),
    (
        "folded draws tested as truncated",
        lambda rng: mechanisms.sample("folded-laplace", rng, DRAWS, s=0.3, c0=0, c1=1, lam=0.7),
        "truncated-laplace",
        {"s": 0.3, "c0": 0, "c1": 1, "lam": 0.7},
        None,
    ),
    (
        "naive fmod fold at lambda/R = 1e20 (every draw lands on c0)",
        lambda rng: _naive_fold(rng, 0.3, 0.0, 1.0, 1e20, DRAWS),
        "folded-laplace",
        {"s": 0.3, "c0": 0.0, "c1": 1.0, "lam": 1e20},
        None,
    ),
    (
        "textbook truncated-normal inverse CDF at sigma/R = 1e14",
        lambda rng: _naive_truncated_gaussian(rng, 0.25, 0.0, 1.0, 1e14, DRAWS),
        "truncated-gaussian",
        {"s": 0.25, "c0": 0.0, "c1": 1.0, "sigma": 1e14},
        None,
    ),
    (
        "numpy Generator.geometric at b = 1e20 (saturates at 2^63 - 1)",
        lambda rng: (
            5.0
            + rng.geometric(-math.expm1(-1e-20), DRAWS).astype(float)
            - rng.geometric(-math.expm1(-1e-20), DRAWS).astype(float)
        ),
        "geometric",
        {"s": 5, "scale": 1e20},
        None,
    ),
]


@pytest.mark.parametrize(
    ("label", "make", "mechanism", "params", "expected"), WRONG, ids=[w[0] for w in WRONG]
)
def test_the_law_tests_catch_wrong_samplers(label, make, mechanism, params, expected) -> None:
    draws = make(np.random.default_rng(STAT_SEED + 11))
    checks = goodness.check_law(draws, mechanism, alpha=1e-6, params=params)
    failed = {c.name for c in checks if not c.passed}
    assert failed, f"{label}: not detected"
    if expected is not None:
        assert expected <= failed, f"{label}: failed {failed}, expected {expected}"


def test_the_same_correct_samplers_pass_where_the_wrong_ones_fail() -> None:
    """Controls for WRONG: the right draws at the parameters of each wrong one pass."""
    rng = np.random.default_rng(STAT_SEED + 12)
    controls = [
        ("gaussian", {"s": 0.3, "sigma": 1.0}),
        ("folded-laplace", {"s": 0.3, "c0": 0.0, "c1": 1.0, "lam": 1e20}),
        ("truncated-gaussian", {"s": 0.25, "c0": 0.0, "c1": 1.0, "sigma": 1e14}),
        ("geometric", {"s": 5, "scale": 1e20}),
    ]
    for mechanism, params in controls:
        _assert_law(
            mechanisms.sample(mechanism, rng, DRAWS, **params),
            mechanism,
            params,
            ALPHA / len(controls),
        )


def test_naive_fold_agrees_where_it_is_exact() -> None:
    """At λ/R = 0.7 the fmod fold of a Laplace draw is exact: it passes the folded law too."""
    params = {"s": 0.3, "c0": 0.0, "c1": 1.0, "lam": 0.7}
    draws = _naive_fold(np.random.default_rng(STAT_SEED + 13), 0.3, 0.0, 1.0, 0.7, DRAWS)
    _assert_law(draws, "folded-laplace", params, ALPHA)


# --- one engine: Liu's mechanisms are the old samplers --------------------------------------


def test_liu_mechanisms_draw_through_the_validated_samplers() -> None:
    for alias, old in (("truncated", samplers.truncated), ("bit", samplers.bit)):
        new = mechanisms.sample(alias, 5, 1000, s=0.3, c0=0.0, c1=1.0, lam=0.5)
        assert np.array_equal(new, old(5, 0.3, 0.0, 1.0, 0.5, size=1000))
    assert np.array_equal(
        mechanisms.sample("laplace", 5, 1000, s=0.3, lam=0.5), samplers.laplace(5, 0.3, 0.5, 1000)
    )


def test_liu_check_law_path_is_unchanged() -> None:
    """Positional 'truncated'/'bit' keep the original tests (3 and 5 checks, alpha/4, alpha/6)."""
    draws = samplers.bit(3, 0.3, 0.0, 1.0, 0.5, size=20_000)
    checks = goodness.check_law(draws, "bit", 0.3, 0.0, 1.0, 0.5, alpha=1e-6)
    assert [c.name for c in checks] == [
        "mean",
        "second moment about s",
        "law (sup |F_n - F|)",
        "point mass at c0",
        "point mass at c1",
    ]
    assert all(c.alpha == 1e-6 / 6 for c in checks)
    checks = goodness.check_law(draws, "truncated", 0.3, 0.0, 1.0, 0.5)
    assert len(checks) == 3 and all(c.alpha == 1e-6 / 4 for c in checks)


# --- vectorisation -------------------------------------------------------------------------


@pytest.mark.parametrize("mechanism", MECHANISM_NAMES)
def test_array_parameters_give_each_draw_its_own_law(mechanism: str) -> None:
    """Two parameter points interleaved in one call: each half follows its own law."""
    bounding, base = parts(mechanism)
    key = BASES[base]
    geometric = base == "geometric"
    points = [
        {"s": 2.0 if geometric else 0.2, key: 3.0 if geometric else 0.3},
        {"s": 7.0 if geometric else 0.9, key: 1.5 if geometric else 2.0},
    ]
    if bounding != "none":
        for p in points:
            p.update(c0=0.0, c1=10.0 if geometric else 1.0)
    n = 40_000
    arrays = {k: np.tile([points[0][k], points[1][k]], n) for k in points[0]}
    draws = mechanisms.sample(
        mechanism, STAT_SEED + 21 + MECHANISM_NAMES.index(mechanism), **arrays
    )
    assert draws.shape == (2 * n,)
    for i, p in enumerate(points):
        _assert_law(draws[i::2], mechanism, p, ALPHA / (2 * len(MECHANISM_NAMES)))


def test_shapes_broadcasting_and_seeding() -> None:
    s = np.linspace(0, 1, 6).reshape(2, 3)
    assert mechanisms.sample("truncated-gaussian", 1, s=s, c0=0, c1=1, sigma=0.3).shape == (2, 3)
    assert mechanisms.sample("clamped-gaussian", 1, (4, 2, 3), s=s, c0=0, c1=1, sigma=1).shape == (
        4,
        2,
        3,
    )
    assert mechanisms.sample("folded-laplace", 1, 0, s=0.5, c0=0, c1=1, lam=1).shape == (0,)
    assert np.ndim(mechanisms.sample("geometric", 1, s=0, scale=1)) == 0
    for name in MECHANISM_NAMES:
        bounding, base = parts(name)
        params = {"s": 1, BASES[base]: 0.7}
        if bounding != "none":
            params.update(c0=0, c1=3)
        a = mechanisms.sample(name, 42, 1000, **params)
        b = mechanisms.sample(name, np.random.default_rng(42), 1000, **params)
        c = mechanisms.sample(name, 43, 1000, **params)
        assert np.array_equal(a, b) and not np.array_equal(a, c), name
        # blocks: a sample larger than one block is still seeded and in range
        big = mechanisms.sample(name, 3, samplers.CHUNK * 2 + 5, **params)
        assert np.array_equal(big, mechanisms.sample(name, 3, big.size, **params))
        assert np.all(np.isfinite(big))


def test_api_sample_delegates_here() -> None:
    from dpcheck import mechanism

    m = mechanism("truncated-gaussian")
    got = m.sample(9, 100, s=0.3, c0=0, c1=1, sigma=0.7)
    assert np.array_equal(
        got, mechanisms.sample("truncated-gaussian", 9, 100, s=0.3, c0=0, c1=1, sigma=0.7)
    )


def test_exact_strings_and_infinite_words_are_accepted() -> None:
    a = mechanisms.sample("truncated-gaussian", 4, 10, s="0.3", c0="0", c1="inf", sigma="7/10")
    b = mechanisms.sample("truncated-gaussian", 4, 10, s=0.3, c0=0.0, c1=INF, sigma=0.7)
    assert np.array_equal(a, b)


# --- the moment bounds the tests rely on -----------------------------------------------------


@pytest.mark.parametrize("scale", [1e-2, 0.3, 1.0, 7.0, 1e3])
def test_base_fourth_moments_against_quadrature_and_summation(scale: float) -> None:
    """goodness.base_fourth_moment against mpmath: E((X - s)/θ)⁴ of each base law."""
    mpmath.mp.dps = 30
    lap = mpmath.quad(lambda x: x**4 * mpmath.exp(-abs(x)) / 2, [-mpmath.inf, 0, mpmath.inf])
    gau = mpmath.quad(
        lambda x: x**4 * mpmath.exp(-(x**2) / 2) / mpmath.sqrt(2 * mpmath.pi),
        [-mpmath.inf, 0, mpmath.inf],
    )
    a = mpmath.exp(-1 / mpmath.mpf(scale))
    geo = 2 * (1 - a) / (1 + a) * mpmath.nsum(lambda m: m**4 * a**m, [1, mpmath.inf]) / scale**4
    for base, exact in (("laplace", lap), ("gaussian", gau), ("geometric", geo)):
        got = goodness.base_fourth_moment(base, scale)
        assert abs(got - float(exact)) <= 1e-12 * float(exact), (base, got, exact)


@pytest.mark.parametrize("n", [1, 50, 10_000, 10**6])
@pytest.mark.parametrize("alpha", [1e-3, 1e-7])
def test_median_of_means_threshold_keeps_its_false_alarm(n: int, alpha: float) -> None:
    """The binomial tail of the returned (K, p) is <= alpha, recomputed exactly (mpmath)."""
    t, blocks = goodness.median_of_means_halfwidth(n, 2.0, alpha)
    m = n // blocks
    p = mpmath.mpf(2.0) / (m * mpmath.mpf(t) ** 2)  # Chebyshev's block probability at t
    j = (blocks + 1) // 2
    mpmath.mp.dps = 40
    tail = mpmath.fsum(
        mpmath.binomial(blocks, i) * p**i * (1 - p) ** (blocks - i) for i in range(j, blocks + 1)
    )
    assert tail <= alpha
    assert blocks % 2 == 1 and t > 0


def test_median_of_means_covers_in_simulation() -> None:
    """A sanity check of the block bound with a heavy-ish tail (Laplace, var 2): at
    alpha = 0.2 the median of means leaves [μ - t, μ + t] in far fewer than 20% of 2000 runs."""
    rng = np.random.default_rng(STAT_SEED + 31)
    t, blocks = goodness.median_of_means_halfwidth(1000, 2.0, 0.2)
    misses = sum(
        abs(goodness.median_of_means(rng.laplace(0, 1, 1000), blocks)) > t for _ in range(2000)
    )
    # P(Bin(2000, 0.2) <= 300) < 1e-9, so a test whose real rate were 0.2 would fail here
    assert misses < 300


# --- bad input -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "needle"),
    [
        (lambda: mechanisms.sample("gauss", 0, 5, s=0, sigma=1), "unknown mechanism 'gauss'"),
        (
            lambda: mechanisms.sample("folded-gaussian", 0, 5, s=0, c0=0, c1=1, sigma=1),
            "not available",
        ),
        (lambda: mechanisms.sample("gaussian", 0, 5, s=0), "missing scale"),
        (lambda: mechanisms.sample("gaussian", 0, 5, sigma=1), "missing parameter 's'"),
        (lambda: mechanisms.sample("truncated-gaussian", 0, 5, s=0, c0=0, sigma=1), "'c1'"),
        (
            lambda: mechanisms.sample("gaussian", 0, 5, s=0, sigma=1, lam=1),
            "unknown parameter 'lam'",
        ),
        (lambda: mechanisms.sample("gaussian", 0, 5, s=0, sigma=1, scale=1), "give one scale"),
        (lambda: mechanisms.sample("gaussian", 0, 5, s=0, sigma=0.0), "sigma=0.0 must be positive"),
        (lambda: mechanisms.sample("gaussian", 0, 5, s=0, sigma=-1), "sigma=-1.0 must be positive"),
        (lambda: mechanisms.sample("gaussian", 0, 5, s=np.nan, sigma=1), "s=nan is not finite"),
        (lambda: mechanisms.sample("gaussian", 0, 5, s=INF, sigma=1), "s=inf is not finite"),
        (lambda: mechanisms.sample("gaussian", 0, 5, s=0, sigma=INF), "sigma=inf is not finite"),
        (
            lambda: mechanisms.sample("truncated-laplace", 0, 5, s=0.5, c0=1, c1=0, lam=1),
            "c0=1.0 must be smaller than c1=0.0",
        ),
        (
            lambda: mechanisms.sample("truncated-laplace", 0, 5, s=1.5, c0=0, c1=1, lam=1),
            "s=1.5 is outside",
        ),
        (
            lambda: mechanisms.sample("truncated-laplace", 0, 5, s=0, c0=-INF, c1=INF, lam=1),
            "cannot both be infinite",
        ),
        (
            lambda: mechanisms.sample("truncated-laplace", 0, 5, s=0, c0=INF, c1=INF, lam=1),
            "c0=inf must be finite or -inf",
        ),
        (
            lambda: mechanisms.sample("truncated-laplace", 0, 5, s=0, c0="inf", c1=1, lam=1),
            "only c0 may be -inf",
        ),
        (
            lambda: mechanisms.sample("folded-laplace", 0, 5, s=0, c0=0, c1=INF, lam=1),
            "needs finite c0 and c1",
        ),
        (lambda: mechanisms.sample("laplace", 0, 5, s=0, epsilon=1), "epsilon needs sensitivity"),
        (
            lambda: mechanisms.sample("laplace", 0, 5, s=0, sensitivity=1, lam=1),
            "sensitivity needs epsilon",
        ),
        (
            lambda: mechanisms.sample("laplace", 0, 5, s=0, epsilon=0, sensitivity=1),
            "epsilon=0.0 must be positive",
        ),
        (lambda: mechanisms.sample("geometric", 0, 5, s=0.5, scale=1), "s=0.5 must be an integer"),
        (
            lambda: mechanisms.sample("truncated-geometric", 0, 5, s=0, c0=0, c1=2.5, scale=1),
            "c1=2.5 must be an integer",
        ),
        (
            lambda: mechanisms.sample("geometric", 0, 5, s=0, alpha=1.0),
            "alpha=1.0 must lie strictly between 0 and 1",
        ),
        (lambda: mechanisms.sample("geometric", 0, 5, s=0, alpha=0), "alpha=0.0 must lie strictly"),
        (
            lambda: mechanisms.sample("gaussian", "x", 5, s=0, sigma=1),
            "rng='x' is not a numpy Generator",
        ),
        (lambda: mechanisms.sample("gaussian", -3, 5, s=0, sigma=1), "seed=-3"),
        (lambda: mechanisms.sample("gaussian", 0, -1, s=0, sigma=1), "size=-1 must be >= 0"),
        (lambda: mechanisms.sample("gaussian", 0, 2.5, s=0, sigma=1), "size=2.5"),
        (lambda: mechanisms.sample("gaussian", 0, 3, s=[0, 1], sigma=1), "does not hold"),
        (
            lambda: mechanisms.sample("gaussian", 0, None, s=[0, 1], sigma=[1, 2, 3]),
            "do not broadcast",
        ),
        (lambda: mechanisms.sample("gaussian", 0, 5, s="abc", sigma=1), "s='abc'"),
        (lambda: mechanisms.sample("gaussian", 0, 5, s=True, sigma=1), "s=True is not a number"),
        (lambda: mechanisms.sample("gaussian", 0, 5, s=[0, np.nan], sigma=1), "(at index 1)"),
        (lambda: mechanisms.sample(3, 0, 5, s=0, sigma=1), "must be a string"),
        (lambda: goodness.check_law([1.0], "gaussian", s=0, sigma=1, alpha=2), "alpha=2"),
        (
            lambda: goodness.check_law([1.0], "gaussian", s=0, params={"s": 1, "sigma": 1}),
            "given twice",
        ),
        (lambda: goodness.check_law([1.0], "gaussian", s=0, lam=1), "unknown parameter 'lam'"),
        (lambda: goodness.check_law([], "gaussian", s=0, sigma=1), "no draws"),
        (lambda: goodness.check_law([1.0], "gauss", s=0, sigma=1), "unknown mechanism"),
    ],
)
def test_bad_input_is_one_line(call, needle: str) -> None:
    with pytest.raises(InputError) as err:
        call()
    assert needle in str(err.value)
    assert "\n" not in str(err.value)
