"""The float64 fast path against 50-digit mpmath of the derived closed forms.

Target (issue 4): relative error <= 1e-12, or absolute <= 1e-15 (c1 - c0)
where the value is near 0, for λ/R from 1e-8 to 1e8 and s at, near and
between the bounds.  The reference is :func:`dpcheck.numeric.mp.adaptive` on
the SymPy-derived expressions, evaluated at the exact float inputs.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpcheck.errors import InputError
from dpcheck.numeric import fast, fast_check, laws_at

NAMES = [f"{m}.{q}" for m in fast.MECHANISMS for q in fast.QUANTITIES]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("bounds", fast_check.BOUNDS, ids=["[-0.7,1.3]", "[1e6,1e6+3]"])
def test_fast_path_grid_against_50_digits(name: str, bounds: tuple[float, float]) -> None:
    worst = fast_check.worst_error(name, bounds)
    assert worst.points == len(fast_check.RATIOS) * 8
    assert worst.score <= 1.0, f"{name}: error {worst.score:.3g} x allowed at {worst.at}"


def test_the_grid_check_can_fail(monkeypatch: pytest.MonkeyPatch) -> None:
    """A fast path with the textbook closed form (cancellation at λ ≫ R) is caught."""

    def textbook(mechanism, quantity, s, c0, c1, lam):
        u, v = (s - c0) / lam, (c1 - s) / lam
        return lam * lam * (2 - (1 + u) * np.exp(-u) - (1 + v) * np.exp(-v))

    monkeypatch.setattr(fast, "_quantity", textbook)
    assert fast_check.worst_error("bit.mse", fast_check.BOUNDS[0]).score > 1e3


@settings(max_examples=60, deadline=None, derandomize=True)
@given(
    c0=st.floats(-1e4, 1e4),
    log_width=st.floats(-3, 3),
    log_ratio=st.floats(-8, 8),
    where=st.floats(0, 1),
    name=st.sampled_from(NAMES),
)
def test_fast_path_hypothesis(
    c0: float, log_width: float, log_ratio: float, where: float, name: str
) -> None:
    width = 10.0**log_width
    c1 = c0 + width
    s = min(max(c0 + where * (c1 - c0), c0), c1)
    lam = 10.0**log_ratio * (c1 - c0)
    got = float(fast.evaluate(name, s, c0, c1, lam))
    score, _ = fast_check.score(got, fast_check.reference(name, s, c0, c1, lam), c1 - c0)
    assert score <= 1.0


@settings(max_examples=80, deadline=None, derandomize=True)
@given(
    c0=st.floats(-1e4, 1e4),
    log_width=st.floats(-3, 3),
    log_ratio=st.one_of(st.floats(8, 300), st.sampled_from([8.0, 100.0, 200.0, 300.0, 305.0])),
    where=st.sampled_from([0.0, 1e-9, 0.3, 0.5, 1.0]),
    name=st.sampled_from(NAMES),
)
def test_fast_path_huge_scales(
    c0: float, log_width: float, log_ratio: float, where: float, name: str
) -> None:
    """λ/R up to 1e305 (issue 18): the forms in lengths keep 1e-12 (a mean of 0.3 at
    λ = 1e200 used to come out as s, the variance as nan)."""
    width = 10.0**log_width
    c1 = c0 + width
    s = min(max(c0 + where * (c1 - c0), c0), c1)
    lam = 10.0**log_ratio * (c1 - c0)
    if not np.isfinite(lam):
        return
    got = float(fast.evaluate(name, s, c0, c1, lam))
    score, _ = fast_check.score(got, fast_check.reference(name, s, c0, c1, lam), c1 - c0)
    assert score <= 1.0, (got, float(fast_check.reference(name, s, c0, c1, lam)))


def test_fast_path_at_lambda_1e200() -> None:
    """The case of issue 18: truncated mean about 0.5 (the uniform limit), variance 1/12."""
    assert abs(fast.evaluate("truncated.mean", 0.3, 0, 1, 1e200) - 0.5) < 1e-12
    assert abs(fast.evaluate("truncated.var", 0.3, 0, 1, 1e200) - 1 / 12) < 1e-12
    assert abs(fast.evaluate("bit.var", 0.3, 0, 1, 1e300) - 0.25) < 1e-12


@pytest.mark.parametrize("m", [1, 2, 3])
def test_gamma_p_against_mpmath(m: int) -> None:
    x = np.concatenate([[0.0], 10.0 ** np.linspace(-300, 3, 400), [0.4999, 0.5, 0.5001]])
    got = fast.gamma_p(m, x)
    for xi, gi in zip(x, got, strict=True):
        with mpmath.workdps(40):
            ref = mpmath.gammainc(m, 0, mpmath.mpf(xi), regularized=True)
            if ref < 1e-300:  # below float64's normal range: must underflow quietly
                assert 0 <= gi <= 1e-300
                continue
            assert abs((gi - ref) / ref) < 1e-13, (m, xi, gi, ref)


@pytest.mark.parametrize("mechanism", fast.MECHANISMS)
@pytest.mark.parametrize("ratio", [1e-6, 0.1, 1.0, 1e6])
def test_cdf_against_derived(mechanism: str, ratio: float) -> None:
    c0, c1 = -0.7, 1.3
    lam = ratio * (c1 - c0)
    for s in (c0, 0.1, c1):
        ys = [c0 - 1, c0, c0 + 1e-9, -0.3, s, 0.5, c1 - 1e-9, c1, c1 + 1]
        got = fast.cdf(mechanism, ys, s, c0, c1, lam)
        for y, g in zip(ys, got, strict=True):
            ref = laws_at.cdf(mechanism, Fraction(y), Fraction(s), Fraction(c0), Fraction(c1),
                              Fraction(lam), dps=20)
            assert abs(g - ref) <= 2e-15, (mechanism, ratio, s, y, g, ref)
    masses = fast.point_masses(mechanism, 0.1, c0, c1, lam)
    ref = laws_at.point_masses(mechanism, Fraction(0.1), Fraction(c0), Fraction(c1),
                               Fraction(lam), dps=20)
    for g, r in zip(masses, ref, strict=True):
        assert abs(float(g) - r) <= 1e-16 + 1e-14 * r


def test_broadcasting_and_shapes() -> None:
    s = np.linspace(0, 1, 6).reshape(2, 3)
    out = fast.evaluate("bit.mse", s, 0.0, 1.0, np.array([[0.5], [2.0]]))
    assert out.shape == (2, 3)
    one = fast.evaluate("bit.mse", s[1, 2], 0.0, 1.0, 2.0)
    assert out[1, 2] == one
    assert np.ndim(fast.evaluate("truncated.mean", 0.5, 0, 1, 1)) == 0
    big = fast.evaluate("truncated.var", np.full(100_000, 0.25), 0.0, 1.0, 0.3)
    assert np.all(big == big[0])


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("bit.mse", float("nan"), 0, 1, 1), "s=nan"),
        (("bit.mse", 0.5, 0, 1, 0), "lam=0.0 must be positive"),
        (("bit.mse", 0.5, 0, 1, -1), "lam=-1.0"),
        (("bit.mse", 0.5, 1, 0, 1), "c0=1.0 must be smaller than c1=0.0"),
        (("bit.mse", 2.0, 0, 1, 1), "s=2.0 is outside"),
        (("bit.mse", [0.5, 3.0], 0, 1, 1), "at index 1"),
        (("bit.mse", 0.5, 0, float("inf"), 1), "c1=inf is not finite"),
        (("bit.msee", 0.5, 0, 1, 1), "unknown quantity 'bit.msee'"),
        (("bit.mse", "0.5", 0, 1, 1), "s='0.5' is not a number"),
        (("bit.mse", [0.5, 0.5], 0, 1, [1, 1, 1]), "do not broadcast"),
    ],
)
def test_bad_input(args: tuple, needle: str) -> None:
    with pytest.raises(InputError) as err:
        fast.evaluate(*args)
    assert needle in str(err.value)
    assert "\n" not in str(err.value)


def test_quantity_names_match_the_symbolic_layer() -> None:
    from dpcheck.numeric import names
    from dpcheck.symbolic import laplace_family as lf

    assert names.MECHANISMS == lf.MECHANISMS and names.QUANTITIES == lf.QUANTITIES
