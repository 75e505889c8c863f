"""The folded law and the CDFs, against independent plain-mpmath quadrature.

Nothing on the reference side uses SymPy or dpcheck.symbolic: the folded
density is the image sum Σ_k [p(y + 2kR) + p(2c0 - y + 2kR)] of the Laplace
density written out below, truncated where the terms fall below the working
precision, and integrated with mpmath.quad.
"""

from __future__ import annotations

import math
from fractions import Fraction as F

import mpmath
import pytest
import sympy as sp

from dpcheck.numeric import laws_at
from dpcheck.symbolic import cdf as sym_cdf
from dpcheck.symbolic import folding, laws
from dpcheck.symbolic.rational import is_identically_zero
from dpcheck.symbolic.symbols import x

DPS = 20

#: (s, c0, c1, λ): s at a bound, inside, λ small and large against R, an offset
POINTS = [
    (F(1, 3), F(0), F(1), F(1, 2)),
    (F(0), F(0), F(1), F(1, 5)),
    (F(7, 4), F(-1), F(2), F(3, 2)),
    (F(10**6 + 1, 1), F(10**6), F(10**6 + 1), F(1, 10)),
    (F(1, 2), F(0), F(1), F(1, 50)),
]


def mpf(q: F) -> mpmath.mpf:
    return mpmath.mpf(q.numerator) / q.denominator


def laplace(t, s, lam):
    return mpmath.exp(-abs(t - s) / lam) / (2 * lam)


def folded_density(y, s, c0, c1, lam):
    """Σ over the images of y under folding, to 10^-(DPS+10) relative."""
    width = c1 - c0
    reach = int(math.ceil(float(lam * (DPS + 15) * math.log(10) / (2 * width)))) + 2
    return mpmath.fsum(
        laplace(y + 2 * k * width, s, lam) + laplace(2 * c0 - y + 2 * k * width, s, lam)
        for k in range(-reach, reach + 1)
    )


def quad_law(density, s, c0, c1, g):
    return mpmath.quad(lambda t: g(t) * density(t), [c0, s, c1] if c0 < s < c1 else [c0, c1])


# --------------------------------------------------------------------------- folded law


def test_folded_total_mass_is_exactly_one():
    assert folding.check_total_mass()


@pytest.mark.slow
def test_folded_law_through_the_expectation_engine():
    """laws.expectation integrates the folded Law itself (split at s): mass exactly 1.

    (SymPy's Risch route for the geometric factor takes ~5 s; folding.expectation,
    term by term, is the fast equivalent used everywhere else.)
    """
    assert is_identically_zero(laws.total_mass(folding.law()) - 1)


def test_only_the_direct_k0_image_keeps_the_kink():
    kinks = [(fam, k) for fam, k, term in folding.image_terms() if term.has(sp.Abs)]
    assert kinks == [("direct", "k=0")]
    (piece,) = folding.law().pieces
    assert piece.density.count(sp.Abs) == 1
    assert piece.density.free_symbols >= {x}


def test_tidy_bias_is_the_raw_bias():
    assert is_identically_zero(folding.tidy("bias") - folding.quantity("bias"))


@pytest.mark.parametrize("point", POINTS)
def test_folded_mean_and_variance_against_quadrature(point):
    s, c0, c1, lam = point
    with mpmath.workdps(DPS + 10):
        args = [mpf(q) for q in point]
        dens = lambda t: folded_density(t, *args)  # noqa: E731
        mass = quad_law(dens, args[0], args[1], args[2], lambda t: 1)
        mean = quad_law(dens, args[0], args[1], args[2], lambda t: t - args[0])
        var = quad_law(dens, args[0], args[1], args[2], lambda t: (t - args[0] - mean) ** 2)
        assert abs(mass - 1) < mpmath.mpf(10) ** (-DPS)
        bias = laws_at.moment("folded", "bias", s, c0, c1, lam, dps=DPS)
        variance = laws_at.moment("folded", "var", s, c0, c1, lam, dps=DPS)
        scale = min(mpf(lam), mpf(c1 - c0))
        assert abs(bias - mean) <= mpmath.mpf(10) ** (-DPS + 5) * scale
        assert abs(variance - var) <= mpmath.mpf(10) ** (-DPS + 5) * abs(var)
        mean_ = laws_at.moment("folded", "mean", s, c0, c1, lam, dps=DPS)
        assert abs(mean_ - args[0] - bias) <= mpmath.mpf(10) ** (-DPS + 5) * (abs(args[0]) + 1)


@pytest.mark.parametrize("point", POINTS)
@pytest.mark.parametrize("where", [F(1, 10), F(1, 2), F(9, 10)])
def test_folded_cdf_against_quadrature(point, where):
    s, c0, c1, lam = point
    y = c0 + where * (c1 - c0)
    with mpmath.workdps(DPS + 10):
        a = [mpf(q) for q in point]
        breaks = sorted({a[1], min(max(a[0], a[1]), mpf(y)), mpf(y)})
        ref = mpmath.quad(lambda t: folded_density(t, *a), breaks)
        got = laws_at.cdf("folded", y, s, c0, c1, lam, dps=DPS)
        assert abs(got - ref) <= mpmath.mpf(10) ** (-DPS + 5)


# --------------------------------------------------------------------------- truncated, BIT CDFs


def _inside(y, s, c0, lam):
    """∫_{c0}^{y} of the Laplace density, split at s when s is inside."""
    breaks = sorted({c0, min(max(s, c0), y), y})
    if len(breaks) < 2:
        return mpmath.mpf(0)
    return mpmath.quad(lambda t: laplace(t, s, lam), breaks)


def truncated_cdf(y, s, c0, c1, lam):
    return _inside(y, s, c0, lam) / _inside(c1, s, c0, lam)


def bit_cdf(y, s, c0, c1, lam):
    return mpmath.quad(lambda t: laplace(t, s, lam), [-mpmath.inf, c0]) + _inside(y, s, c0, lam)


@pytest.mark.parametrize("mechanism", ["truncated", "bit"])
@pytest.mark.parametrize("point", POINTS)
@pytest.mark.parametrize("where", [F(0), F(1, 7), F(1, 2), F(6, 7)])
def test_truncated_and_bit_cdf_against_quadrature(mechanism, point, where):
    s, c0, c1, lam = point
    y = c0 + where * (c1 - c0)
    reference = {"truncated": truncated_cdf, "bit": bit_cdf}[mechanism]
    with mpmath.workdps(DPS + 10):
        ref = reference(mpf(y), *(mpf(q) for q in point))
        got = laws_at.cdf(mechanism, y, s, c0, c1, lam, dps=DPS)
        assert abs(got - ref) <= mpmath.mpf(10) ** (-DPS + 5)


@pytest.mark.parametrize("mechanism", sym_cdf.MECHANISMS)
def test_cdf_exact_checks(mechanism):
    assert all(sym_cdf.checks(mechanism).values()), sym_cdf.checks(mechanism)


@pytest.mark.parametrize("mechanism", sym_cdf.MECHANISMS)
@pytest.mark.parametrize("point", POINTS[:3])
def test_cdf_ends_and_jumps_are_the_point_masses(mechanism, point):
    """F = 0 below c0; F(c0) = P(Y = c0); F(c1-) = 1 - P(Y = c1); F(c1) = 1."""
    s, c0, c1, lam = point
    tiny = (c1 - c0) / 10**40
    p0, p1 = laws_at.point_masses(mechanism, s, c0, c1, lam, dps=DPS)
    cdf = lambda y: laws_at.cdf(mechanism, y, s, c0, c1, lam, dps=DPS)  # noqa: E731
    with mpmath.workdps(DPS + 10):
        tol = mpmath.mpf(10) ** (-DPS + 3)
        assert cdf(c0 - tiny) == 0
        assert abs(cdf(c0) - p0) <= tol
        assert abs(cdf(c1 - tiny) - (1 - p1)) <= tol
        assert cdf(c1) == 1
        if mechanism == "bit":
            assert abs(p0 - mpmath.exp(-mpf(s - c0) / mpf(lam)) / 2) <= tol
            assert abs(p1 - mpmath.exp(-mpf(c1 - s) / mpf(lam)) / 2) <= tol
        else:
            assert p0 == 0 and p1 == 0


def test_cdf_rejects_bad_parameters():
    from dpcheck.errors import InputError

    with pytest.raises(InputError, match="outside"):
        laws_at.cdf("folded", F(0), F(2), F(0), F(1), F(1))
    with pytest.raises(InputError, match="unknown mechanism"):
        laws_at.cdf("gaussian", F(0), F(0), F(0), F(1), F(1))
    with pytest.raises(InputError, match="lam"):
        laws_at.moment("bit", "var", F(0), F(0), F(1), F(0))
