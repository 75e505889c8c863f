"""The float64 draws are the law objects' own (issue 35, dpcheck.laws.draws): a bounding
is a transformation (clamp works for any law with noise draws), a law without the draw a
bounding needs is refused in one line, a transformed law does not inherit its base's
draws, and the scalar sampler of a law object uses the law's exact draws."""

from __future__ import annotations

from fractions import Fraction as F

import numpy as np
import pytest
import sympy as sp

from dpcheck.errors import InputError
from dpcheck.laws import draws, registry
from dpcheck.laws.float64 import sampler
from dpcheck.laws.noise import NoiseLaw, Param, z
from dpcheck.laws.transforms import truncate_noise
from dpcheck.sampling import mechanisms
from dpcheck.testing import assert_sampler_law

SHIPPED = {"laplace": "lam", "gaussian": "sigma", "discrete-laplace": "scale"}


class _NormalNoise(NoiseLaw):
    """A law that gives only its noise draws (N(0, θ²)); every bounding but clamp is
    its own to give."""

    @staticmethod
    def _noise_draws(gen, k, theta):  # type: ignore[no-untyped-def]
        return gen.standard_normal(k) * theta


def _normal_noise() -> _NormalNoise:
    w = Param("w", "positive")
    return _NormalNoise("only noise", sp.exp(-(z**2) / (2 * w.symbol**2)), "real", (w,), "w")


def test_the_clamp_is_the_same_transformation_of_any_law_with_noise_draws():
    law = _normal_noise()
    s = np.array([0.0, 0.5, 1.0])
    y = draws.block(law, "clamped")(np.random.default_rng(3), 3, s, 0.0, 1.0, 2.0)
    expected = np.clip(s + np.random.default_rng(3).standard_normal(3) * 2.0, 0.0, 1.0)
    assert np.array_equal(y, expected)
    plain = draws.block(law, "none")(np.random.default_rng(3), 3, s, None, None, 2.0)
    assert np.array_equal(plain, s + np.random.default_rng(3).standard_normal(3) * 2.0)


@pytest.mark.parametrize("bounding", ["truncated", "folded"])
def test_a_bounding_the_law_cannot_draw_is_refused_in_one_line(bounding):
    with pytest.raises(InputError, match=f"only noise has no vectorised float64 sampler of the"
                                         f" {bounding} only noise") as info:
        draws.block(_normal_noise(), bounding)
    assert "\n" not in str(info.value)
    for name in ("discrete-gaussian", "staircase"):
        with pytest.raises(InputError, match="no vectorised float64 sampler of the noise"):
            draws.block(registry.get(name), "clamped")
    with pytest.raises(InputError, match="bounding 'reflected'"):
        draws.block(registry.get("laplace"), "reflected")


def test_a_transformed_law_does_not_inherit_its_bases_draws():
    """truncate_noise(laplace) is a new law (|Z| <= r): it must not reuse the Laplace's
    exact draws, which are unbounded, and goes the generic way (polynomial inversion)."""
    law = truncate_noise(registry.get("laplace"))
    assert not hasattr(law, "_noise_draws")
    x = sampler(law, {"lam": F(1), "radius": F(1, 2)})(np.random.default_rng(11), 100_000)
    assert np.all(np.abs(x) <= 0.5)
    with pytest.raises(InputError, match="no vectorised float64 sampler"):
        draws.block(law, "clamped")


@pytest.mark.parametrize("name", list(SHIPPED))
def test_the_scalar_sampler_of_a_shipped_law_is_its_own_exact_draw(name):
    """float64.sampler(law) gives exactly the law's _noise_draws at its draw parameter (the
    same code as the named mechanisms' samplers), and the draws pass the exact law's test
    (false alarm <= 1e-6).  The named sampler draws in blocks of 65 536, so the streams
    agree draw for draw within one block."""
    law = registry.get(name)
    draw = sampler(law, {SHIPPED[name]: F(3, 2)})
    unbounded = "geometric" if name == "discrete-laplace" else name
    block = mechanisms.sample(unbounded, 20261129, 60_000, s=0.0, **{SHIPPED[name]: 1.5})
    assert np.array_equal(draw(np.random.default_rng(20261129), 60_000), block)
    x = draw(np.random.default_rng(20261129), 400_000)
    assert_sampler_law(x, law, **{SHIPPED[name]: 1.5})


@pytest.mark.parametrize("name", list(SHIPPED))
def test_a_wrong_draw_parameter_is_noticed(name, monkeypatch):
    """Mutation: the draw parameter of a 3% wider scale (λ, σ; a 3% smaller rate) fails the
    exact law's test at 400 000 draws."""
    law = registry.get(name)
    right = law._draw_theta
    factor = 0.97 if name == "discrete-laplace" else 1.03
    monkeypatch.setattr(law, "_draw_theta", lambda values: right(values) * factor)
    x = sampler(law, {SHIPPED[name]: F(3, 2)})(np.random.default_rng(20261129), 400_000)
    with pytest.raises(AssertionError, match="do not follow its exact law"):
        assert_sampler_law(x, law, **{SHIPPED[name]: 1.5})
