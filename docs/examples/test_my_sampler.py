"""Testing my own DP code with dpcheck.testing: run `python -m pytest test_my_sampler.py`."""

import math

import numpy as np

from dpcheck.testing import assert_matches_exact, assert_private, assert_sampler_law


def my_truncated_gaussian(rng, size, s, c0, c1, sigma):
    """My sampler: N(s, sigma^2) conditioned on [c0, c1], by rejection."""
    kept = np.empty(0)
    while kept.size < size:
        y = rng.normal(s, sigma, 2 * size)
        kept = np.concatenate([kept, y[(c0 <= y) & (y <= c1)]])
    return kept[:size]


def my_truncated_gaussian_bias(s, c0, c1, sigma):
    """My formula: E[Y] - s = sigma (phi(a) - phi(b)) / (Phi(b) - Phi(a))."""
    a, b = (c0 - s) / sigma, (c1 - s) / sigma
    phi_a, phi_b = (math.exp(-z * z / 2) / math.sqrt(2 * math.pi) for z in (a, b))
    Phi_a, Phi_b = (math.erfc(-z / math.sqrt(2)) / 2 for z in (a, b))
    return sigma * (phi_a - phi_b) / (Phi_b - Phi_a)


def my_laplace_mechanism(x, rng, size, epsilon=1.0, sensitivity=1.0):
    """My epsilon-DP release of a number x with sensitivity 1."""
    return x + rng.laplace(0.0, sensitivity / epsilon, size)


def test_my_sampler_follows_the_exact_law(dpcheck_rng):
    # dpcheck_rng: seeded from the test's id (the plugin prints the seed on failure)
    params = dict(s=0.3, c0=0.0, c1=1.0, sigma=0.7)
    draws = my_truncated_gaussian(dpcheck_rng, 10**6, **params)
    assert_sampler_law(draws, "truncated-gaussian", **params)  # false alarm <= 1e-6


def test_my_bias_formula_matches_the_exact_value():
    points = [
        dict(s=s, c0=0.0, c1=1.0, sigma=sigma)
        for s in (0.0, 0.3, 0.9, 1.0)
        for sigma in (0.05, 0.7, 3.0)
    ]
    assert_matches_exact(my_truncated_gaussian_bias, "truncated-gaussian.bias", points)


def test_my_laplace_mechanism_is_private():
    # a violation is reported falsely with probability <= 1 - confidence
    assert_private(
        my_laplace_mechanism,
        epsilon=1.0,
        neighbours=[(0.0, 1.0)],
        samples=200_000,
        confidence=1 - 1e-6,
    )
