"""Samplers against the exact laws of Liu (2019) Definition 2.

Every statistical test here is seeded and sized so that a correct sampler
fails it with probability <= 1e-6: each test function splits ALPHA = 1e-6
over its hypothesis examples (union bound), and
:func:`dpcheck.sampling.goodness.check_law` splits an example's share over
its mean, second-moment, DKW and point-mass tests, all finite-sample bounds.

DPCHECK_STAT_SEED (default 0) shifts every seed, including hypothesis's, so
that repeated runs draw fresh parameters and samples:

    for k in $(seq 1 20); do DPCHECK_STAT_SEED=$k python -m pytest -q tests/test_samplers.py; done
"""

from __future__ import annotations

import math
import os

import numpy as np
import pytest
from hypothesis import given, seed, settings
from hypothesis import strategies as st

from dpcheck.errors import InputError
from dpcheck.sampling import goodness, samplers
from dpcheck.sampling.goodness import dkw_threshold, ks_distance

ALPHA = 1e-6
STAT_SEED = int(os.environ.get("DPCHECK_STAT_SEED", "0"))
EXAMPLES = 50
DRAWS = 50_000
PER_EXAMPLE = ALPHA / EXAMPLES

POSITIONS = ("c0", "c1", "mid", "near c0", "near c1", "inside")


@st.composite
def mechanism_params(draw: st.DrawFn, max_log_ratio: float = 6.0) -> tuple:
    """(s, c0, c1, λ) with λ/R from 1e-6 to 1e6 and s at, near or between the bounds."""
    c0 = draw(st.floats(-1e3, 1e3))
    width = 10.0 ** draw(st.floats(-3, 3))
    c1 = c0 + width
    lam = 10.0 ** draw(st.floats(-6, max_log_ratio)) * (c1 - c0)
    where = draw(st.sampled_from(POSITIONS))
    r = c1 - c0
    s = {
        "c0": c0,
        "c1": c1,
        "mid": c0 + r / 2,
        "near c0": c0 + 1e-9 * r,
        "near c1": c1 - 1e-9 * r,
        "inside": c0 + draw(st.floats(0, 1)) * r,
    }[where]
    s = min(max(s, c0), c1)
    return s, c0, c1, lam, draw(st.integers(0, 2**32))


def _assert_law(draws: np.ndarray, mechanism: str, params: tuple, alpha: float) -> None:
    s, c0, c1, lam = params
    checks = goodness.check_law(draws, mechanism, s, c0, c1, lam, alpha)
    failed = [str(c) for c in checks if not c.passed]
    assert not failed, f"{mechanism} at (s, c0, c1, lam) = {params}: " + "; ".join(failed)


def _stat_settings(examples: int = EXAMPLES):
    return settings(max_examples=examples, deadline=None, database=None)


@seed(STAT_SEED)
@_stat_settings()
@given(mechanism_params())
def test_truncated_inverse_cdf_matches_exact_law(p: tuple) -> None:
    *params, k = p
    draws = samplers.truncated(k + STAT_SEED, *params, size=DRAWS)
    assert np.all((draws >= params[1]) & (draws <= params[2]))
    _assert_law(draws, "truncated", tuple(params), PER_EXAMPLE)


@seed(STAT_SEED + 1)
@_stat_settings()
@given(mechanism_params(max_log_ratio=1.0))
def test_truncated_rejection_matches_exact_law(p: tuple) -> None:
    """The paper's procedure (§3.1); λ/R <= 10 keeps the acceptance rate >= ~5%."""
    *params, k = p
    draws = samplers.truncated_rejection(k + STAT_SEED, *params, size=DRAWS)
    _assert_law(draws, "truncated", tuple(params), PER_EXAMPLE)


@seed(STAT_SEED + 2)
@_stat_settings()
@given(mechanism_params())
def test_bit_clamp_matches_exact_law(p: tuple) -> None:
    """Point masses at both bounds included (exact binomial tests)."""
    *params, k = p
    draws = samplers.bit(k + STAT_SEED, *params, size=DRAWS)
    _assert_law(draws, "bit", tuple(params), PER_EXAMPLE)


@seed(STAT_SEED + 3)
@_stat_settings(10)
@given(st.floats(-1e3, 1e3), st.floats(-6, 6), st.integers(0, 2**32))
def test_laplace_matches_its_law(s: float, log_lam: float, k: int) -> None:
    lam = 10.0**log_lam
    draws = samplers.laplace(k + STAT_SEED, s, lam, size=DRAWS)

    def cdf(y: np.ndarray) -> np.ndarray:
        z = (y - s) / lam
        return np.where(z < 0, 0.5 * np.exp(np.minimum(z, 0)), 1 - 0.5 * np.exp(-np.abs(z)))

    assert ks_distance(draws, cdf) <= dkw_threshold(DRAWS, ALPHA / 10)


@pytest.mark.parametrize("mechanism", samplers.MECHANISMS)
def test_vectorised_parameters_by_probability_integral_transform(mechanism: str) -> None:
    """One draw per (s, c0, c1, λ), all different: U = F(Y) (randomised at atoms) is iid U(0,1)."""
    rng = np.random.default_rng(1000 + STAT_SEED)
    n = 200_000
    c0 = rng.uniform(-10, 10, n)
    c1 = c0 + 10.0 ** rng.uniform(-3, 3, n)
    lam = (c1 - c0) * 10.0 ** rng.uniform(-6, 6, n)
    s = c0 + (c1 - c0) * rng.choice([0.0, 1.0, 0.5, rng.random()], n)
    s = np.clip(s, c0, c1)
    draws = samplers.sample(mechanism, rng, s, c0, c1, lam)
    assert draws.shape == (n,)
    u = goodness.uniform_by_pit(draws, mechanism, s, c0, c1, lam, rng)
    assert ks_distance(u, lambda x: np.clip(x, 0, 1)) <= dkw_threshold(n, ALPHA / 2)


@pytest.mark.parametrize("ratio", [1e-14, 1e14])
def test_inverse_cdf_exact_far_beyond_the_hypothesis_range(ratio: float) -> None:
    params = (0.25, 0.0, 1.0, ratio)
    draws = samplers.truncated(STAT_SEED + 7, *params, size=100_000)
    _assert_law(draws, "truncated", params, ALPHA / 4)


def _naive_inverse_cdf(rng: np.random.Generator, s, c0, c1, lam, size) -> np.ndarray:
    """Textbook inversion between F(c0) and F(c1) of the untruncated Laplace CDF."""
    f = lambda y: np.where(y < s, 0.5 * np.exp((y - s) / lam), 1 - 0.5 * np.exp((s - y) / lam))  # noqa: E731
    u = f(c0) + rng.random(size) * (f(c1) - f(c0))
    return np.where(u < 0.5, s + lam * np.log(2 * u), s - lam * np.log(2 - 2 * u))


@pytest.mark.parametrize(
    ("label", "make", "mechanism", "params"),
    [
        (
            "scale 20% too large",
            lambda rng: samplers.truncated(rng, 0.2, 0.0, 1.0, 0.24, size=100_000),
            "truncated",
            (0.2, 0.0, 1.0, 0.2),
        ),
        (
            "clamp (BIT) draws tested as truncated",
            lambda rng: samplers.bit(rng, 0.2, 0.0, 1.0, 0.5, size=100_000),
            "truncated",
            (0.2, 0.0, 1.0, 0.5),
        ),
        (
            "truncated draws tested as BIT",
            lambda rng: samplers.truncated(rng, 0.2, 0.0, 1.0, 0.5, size=100_000),
            "bit",
            (0.2, 0.0, 1.0, 0.5),
        ),
        (
            "sides swapped",
            lambda rng: 1.0 - samplers.truncated(rng, 0.2, 0.0, 1.0, 0.5, size=100_000),
            "truncated",
            (0.2, 0.0, 1.0, 0.5),
        ),
        (
            "printed eq (5) upper mass (1 - e^{-v}/2 at c1)",
            lambda rng: np.where(
                rng.random(100_000) < 1 - 0.5 * math.exp(-0.8 / 0.5),
                1.0,
                samplers.bit(rng, 0.2, 0.0, 1.0, 0.5, size=100_000),
            ),
            "bit",
            (0.2, 0.0, 1.0, 0.5),
        ),
        (
            "textbook inverse CDF at lambda/R = 1e14",
            lambda rng: _naive_inverse_cdf(rng, 0.25, 0.0, 1.0, 1e14, 100_000),
            "truncated",
            (0.25, 0.0, 1.0, 1e14),
        ),
    ],
)
def test_the_law_tests_catch_wrong_samplers(label: str, make, mechanism: str, params) -> None:
    draws = make(np.random.default_rng(STAT_SEED + 11))
    checks = goodness.check_law(draws, mechanism, *params, alpha=1e-6)
    assert any(not c.passed for c in checks), f"{label}: not detected"


def test_shapes_and_seeding() -> None:
    s = np.linspace(0, 1, 6).reshape(2, 3)
    assert samplers.truncated(1, s, 0.0, 1.0, 0.3).shape == (2, 3)
    assert samplers.bit(1, s, 0.0, 1.0, 0.3, size=(4, 2, 3)).shape == (4, 2, 3)
    assert samplers.truncated(1, 0.5, 0.0, 1.0, 0.3, size=0).shape == (0,)
    assert samplers.laplace(1, 0.0, 1.0, size=5).shape == (5,)
    assert np.ndim(samplers.bit(1, 0.5, 0.0, 1.0, 0.3)) == 0
    for f in (samplers.truncated, samplers.bit, samplers.truncated_rejection):
        a = f(42, 0.3, 0.0, 1.0, 0.5, size=1000)
        b = f(np.random.default_rng(42), 0.3, 0.0, 1.0, 0.5, size=1000)
        c = f(43, 0.3, 0.0, 1.0, 0.5, size=1000)
        assert np.array_equal(a, b) and not np.array_equal(a, c)
    # blocks: a sample larger than one block is the same law and still seeded
    big = samplers.truncated(3, 0.3, 0.0, 1.0, 0.5, size=samplers.CHUNK * 2 + 5)
    assert np.array_equal(big, samplers.truncated(3, 0.3, 0.0, 1.0, 0.5, size=big.size))


def test_rejection_refuses_hopeless_acceptance() -> None:
    with pytest.raises(InputError, match="acceptance probability"):
        samplers.truncated_rejection(0, 0.5, 0.0, 1.0, 1e12, size=1000)


@pytest.mark.parametrize(
    ("call", "needle"),
    [
        (lambda: samplers.truncated(0, 0.5, 0, 1, 1, size=-1), "size=-1 must be >= 0"),
        (lambda: samplers.bit(0, 0.5, 0, 1, 0.0), "lam=0.0 must be positive"),
        (lambda: samplers.bit(0, 0.5, 0, 1, -2.0), "lam=-2.0 must be positive"),
        (lambda: samplers.truncated(0, 0.5, 1, 0, 1), "c0=1.0 must be smaller than c1=0.0"),
        (lambda: samplers.truncated(0, float("nan"), 0, 1, 1), "s=nan is not finite"),
        (lambda: samplers.bit(0, 0.5, 0, 1, float("nan")), "lam=nan is not finite"),
        (lambda: samplers.truncated(0, 1.5, 0, 1, 1), "s=1.5 is outside"),
        (lambda: samplers.laplace(0, 0.0, 0.0), "lam=0.0 must be positive"),
        (lambda: samplers.bit("x", 0.5, 0, 1, 1), "rng='x' is not a numpy Generator"),
        (lambda: samplers.bit(-3, 0.5, 0, 1, 1), "seed=-3"),
        (lambda: samplers.bit(0, [0.5, 0.2], 0, 1, 1, size=3), "does not hold"),
        (lambda: samplers.bit(0, 0.5, 0, 1, 1, size=2.5), "size=2.5"),
        (lambda: samplers.sample("gauss", 0, 0.5, 0, 1, 1), "unknown mechanism 'gauss'"),
        (lambda: samplers.sample("truncated", 0, 0.5, 0, 1, 1, method="x"), "unknown method"),
    ],
)
def test_bad_input_is_one_line(call, needle: str) -> None:
    with pytest.raises(InputError) as err:
        call()
    assert needle in str(err.value)
    assert "\n" not in str(err.value)


def test_corroboration_of_the_paper_procedures() -> None:
    from dpcheck.sampling.corroborate import corroborate

    clamp = corroborate("clamp", draws=50_000)
    assert clamp["consistent"] and clamp["printed_eq5_upper_mass_rejected"]
    assert corroborate("rejection", draws=50_000)["consistent"]


def test_corroboration_can_fail(monkeypatch: pytest.MonkeyPatch) -> None:
    """Clamped draws passed off as the rejection procedure are caught."""
    from dpcheck.sampling import corroborate as cb

    monkeypatch.setitem(cb._SAMPLERS, "rejection", ("truncated", samplers.bit))
    assert not cb.corroborate("rejection", draws=50_000)["consistent"]
