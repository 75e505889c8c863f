"""The symbolic layer: laws, derived quantities, limits, exact zero test."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest
import sympy as sp

from dpcheck.numeric.params import MechanismParams
from dpcheck.numeric.quadrature import quad_quantity
from dpcheck.symbolic import laplace_family as lf
from dpcheck.symbolic import laws
from dpcheck.symbolic.rational import is_identically_zero
from dpcheck.symbolic.symbols import c0, c1, lam, s, t0, t1


@pytest.mark.parametrize("mechanism", lf.MECHANISMS)
def test_laws_have_total_mass_one(mechanism):
    assert is_identically_zero(laws.total_mass(lf.law(mechanism)) - 1)


@pytest.mark.parametrize("mechanism", lf.MECHANISMS)
@pytest.mark.parametrize("name", ["bias", "mse", "var"])
def test_normalised_forms_are_scale_free_and_equal(mechanism, name):
    expr = lf.normalised(mechanism, name)
    assert expr.free_symbols <= {t0, t1}
    assert is_identically_zero(lf.from_normalised(mechanism, name) - lf.quantity(mechanism, name))
    assert is_identically_zero(lf.quantity(mechanism, name) - lf.raw(mechanism, name))


@pytest.mark.parametrize("mechanism", lf.MECHANISMS)
@pytest.mark.parametrize("name", lf.QUANTITIES)
def test_evaluation_form_equals_the_derivation(mechanism, name):
    assert is_identically_zero(lf.from_normalised(mechanism, name) - lf.quantity(mechanism, name))


def test_variance_is_second_moment_minus_mean_squared():
    for m in lf.MECHANISMS:
        var = lf.quantity(m, "second_moment") - lf.quantity(m, "mean") ** 2
        assert is_identically_zero(var - lf.quantity(m, "var"))


def test_large_scale_limits():
    R = c1 - c0
    assert sp.simplify(lf.scale_limit("truncated", "bias", "infinity") - ((c0 + c1) / 2 - s)) == 0
    assert sp.simplify(lf.scale_limit("truncated", "var", "infinity") - R**2 / 12) == 0
    assert sp.simplify(lf.scale_limit("bit", "var", "infinity") - R**2 / 4) == 0
    assert sp.simplify(lf.scale_limit("bit", "bias", "infinity") - ((c0 + c1) / 2 - s)) == 0


def test_small_scale_limits():
    for m in lf.MECHANISMS:
        assert lf.small_scale_ratio(m, "mse") == 2
        assert lf.small_scale_ratio(m, "bias") == 0
        assert lf.scale_limit(m, "mse", "zero") == 0


def test_one_sided_limits_against_quadrature_with_far_bound():
    """c1 → ∞: the derived limit equals quadrature with c1 pushed 200 scales away."""
    expr = s + lf.one_sided("truncated", "bias", "lower")
    value = expr.subs({s: sp.Rational(1, 3), c0: 0, lam: sp.Rational(1, 2)})
    p = MechanismParams(Fraction(1, 3), Fraction(0), Fraction(100), Fraction(1, 2))
    with mpmath.workdps(40):
        assert abs(mpmath.mpf(sp.N(value, 40)) - quad_quantity("truncated.mean", p, dps=40)) < 1e-35


def test_zero_test_is_not_fooled():
    assert not is_identically_zero(sp.exp((c0 - s) / lam) - sp.exp((s - c1) / lam))
    assert is_identically_zero(sp.exp(2 * (c0 - s) / lam) - sp.exp((c0 - s) / lam) ** 2)
