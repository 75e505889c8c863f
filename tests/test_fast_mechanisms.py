"""The float64 fast path of every mechanism (numeric.fast_mechanisms) against mpmath.

Reference: the SymPy-derived quantity of :mod:`dpcheck.symbolic.mechanisms`,
evaluated at the exact float inputs by :mod:`dpcheck.numeric.mechanism_mp`
(``evaluate(name, {...}, dps=40)`` on the grid; beyond scale/R = 1e±8 its
compiled form at a working precision sized for the cancellation in both
directions, see :func:`strict`).  The float formulas under test are never
the reference.

Comparison (``allowed``): |fast - ref| <= 1e-12 |ref|, except

* mean and bias with both bounds finite, which pass through 0 at the
  midpoint: also allowed 1e-15·R absolutely, R = c1 - c0 -- the inputs' own
  rounding (s - c0 and c1 - s) is of that size; for the one-sided and
  unbounded laws the bias is relative only and the mean may be off by
  1e-15 (|s| + scale) (s + bias passing through 0); :func:`test_tails`
  checks the biases near one bound relatively, down to 1e-300;
* values below 1e-300 (float64 underflow): allowed 1e-300 absolutely;
* values beyond float64's range: the fast value must be ±inf;
* CDFs, point masses and pmfs: 1e-12 relative or 1e-15 absolute (a CDF is
  a probability; near a bound its relative error is that of s - c0).

The default suite checks normaliser, bias and mse directly against
mechanism_mp on the grid (scale/R = 1e-8..1e8, s at, near and between the
bounds, one-sided variants) and mean, var, second_moment against the same
40-digit values combined in mpmath (mean = s + bias, var = mse - bias², E Y² =
mean² + var: identities of the definitions); the slow suite compares those
three with mechanism_mp's own derived forms, and runs hypothesis from
scale/R = 1e-300 to 1e300.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dpcheck.errors import InputError
from dpcheck.numeric import fast, fast_gaussian, fast_geometric, fast_mechanisms, mechanism_mp, mp
from dpcheck.numeric.mechanism_params import parse
from dpcheck.numeric.names import MECHANISM_NAMES, parts

F = Fraction
QUANTITIES = fast_mechanisms.QUANTITIES
DIRECT = ("normaliser", "bias", "mse")
DERIVED = ("mean", "var", "second_moment")
RATIOS = [10.0**k for k in range(-8, 9)]
ONE_SIDED_RATIOS = [10.0**k for k in range(-8, 9, 2)]
BOUNDED = [m for m in MECHANISM_NAMES if parts(m)[0] in ("truncated", "clamped")]
CASES = [(m, "both") for m in MECHANISM_NAMES] + [
    (m, side) for m in BOUNDED for side in ("lower", "upper")
]
FLOAT_MAX = mpmath.mpf(np.finfo(float).max)
TINY = 1e-300


# ---------------------------------------------------------------------------
# references and comparison
# ---------------------------------------------------------------------------


def _text(value: float) -> str:
    if value == np.inf:
        return "inf"
    if value == -np.inf:
        return "-inf"
    return str(F(value))


def values_of(
    mechanism: str, s: float, c0: float, c1: float, scale: float, key: str = "scale"
) -> dict[str, str]:
    """The exact float inputs as mechanism_mp parameters."""
    out = {"s": _text(s), key: _text(scale)}
    if parts(mechanism)[0] != "none":
        out["c0"], out["c1"] = _text(c0), _text(c1)
    return out


def fast_kwargs(mechanism: str, s, c0, c1, scale, key: str = "scale") -> dict[str, object]:
    out = {"s": s, key: scale}
    if parts(mechanism)[0] != "none":
        out["c0"], out["c1"] = c0, c1
    return out


def length_of(s: float, c0: float, c1: float, scale: float) -> tuple[float, float]:
    """The absolute floors (for bias, for mean) of the module docstring.

    Both bounds finite: 1e-15 R for each (the bias passes through 0 at the
    midpoint, and s - c0, c1 - s carry the inputs' rounding).  One-sided or
    unbounded: the bias never passes through 0 (no floor); the mean s + bias
    may, with an error of a few ulps of |s| + scale.
    """
    if math.isfinite(c0) and math.isfinite(c1):
        return 1e-15 * (c1 - c0), 1e-15 * (c1 - c0)
    return 0.0, 1e-15 * (abs(s) + scale)


def allowed(quantity: str, ref: mpmath.mpf, floors: tuple[float, float]) -> mpmath.mpf:
    tol = mpmath.mpf(1e-12) * abs(ref)
    if quantity == "bias":
        tol = max(tol, mpmath.mpf(floors[0]))
    if quantity == "mean":
        tol = max(tol, mpmath.mpf(floors[1]))
    return max(tol, mpmath.mpf(TINY))


def score(quantity: str, got: float, ref: mpmath.mpf, floors: tuple[float, float]) -> float:
    """error / allowed (<= 1 passes); overflow must give inf of the right sign."""
    if abs(ref) > FLOAT_MAX:
        return 0.0 if got == (np.inf if ref > 0 else -np.inf) else np.inf
    if not math.isfinite(got):
        return np.inf
    return float(abs(mpmath.mpf(got) - ref) / allowed(quantity, ref, floors))


def derived_reference(quantity: str, s: float, norm_bias_mse: tuple) -> mpmath.mpf:
    """mean, var, second_moment from 40-digit bias and mse (the definitions' identities)."""
    _, bias, mse = norm_bias_mse
    with mpmath.workdps(60):
        mean = mpmath.mpf(s) + bias
        var = mse - bias * bias
        return {"mean": mean, "var": var, "second_moment": mean * mean + var}[quantity]


def strict(name: str, values: dict[str, str], dps: int = 30, extra: int = 0) -> mpmath.mpf:
    """The derived quantity at generous working precision, two precisions agreeing.

    mechanism_mp's compiled form of the quantity; the working precision adds to
    :func:`dpcheck.numeric.mp.cancellation_digits` (scale ≫ R) the digits lost
    when the scale is ≪ R or ≪ |s|, |c0|, |c1| (the clamped Gaussian's terms
    c0², s², ... cancel down to σ²), since two precisions can agree on a
    wrong value when whole terms are absorbed at both.  mean and bias may be
    exactly 0 (the midpoint): there 10^-dps R absolutely.  ``extra`` digits more
    for values far below the terms they are made of (a bias of e^{-a²/2}).
    """
    mechanism, quantity = name.split(".")
    params = parse(mechanism, values, quantity)
    f = mechanism_mp.compiled(params.mechanism, quantity, params.sides, params.alpha is not None)
    args = mechanism_mp._args(params)
    theta = params.scale if params.scale is not None else F(1)
    finite = params.c0 is not None and params.c1 is not None
    width = params.c1 - params.c0 if finite else theta
    sizes = [abs(v) for v in (params.s, params.c0, params.c1, width, theta) if v]
    small = min(theta, width) if params.alpha is None else F(1)
    ratio = abs(math.log10(theta / width)) if params.alpha is None else 10.0
    far = 2 * max(0.0, math.log10(max(sizes) / small))
    work = dps + 20 + extra + mp.cancellation_digits(args) + int(4 * ratio + far)
    floor = mpmath.mpf(10) ** (-dps) * (float(width) if quantity in ("mean", "bias") else 0)
    for _ in range(8):
        try:
            with mpmath.workdps(work):
                a = f(*(mp._mpf(v) for v in args))
            with mpmath.workdps(2 * work):
                b = f(*(mp._mpf(v) for v in args))
        except ZeroDivisionError:
            work *= 2
            continue
        with mpmath.workdps(dps + 5):
            if abs(a - b) <= mpmath.mpf(10) ** (-dps) * max(abs(b), floor):
                return +b
        work *= 2
    raise AssertionError(f"reference for {name} at {values} did not converge")


# ---------------------------------------------------------------------------
# the grid
# ---------------------------------------------------------------------------


def grid(mechanism: str, side: str, ratios=None) -> list[tuple[float, float, float, float]]:
    """(s, c0, c1, scale): s at, near and between the bounds; scale/R over ``ratios``."""
    geometric = parts(mechanism)[1] == "geometric"
    bounding = parts(mechanism)[0]
    points = []
    if geometric:
        layouts = [
            (-3.0, 7.0, [-3.0, -2.0, 0.0, 2.0, 6.0, 7.0]),
            (0.0, 1000.0, [0.0, 1.0, 300.0, 500.0, 999.0, 1000.0]),
        ]
    else:
        c0, c1 = -0.7, 1.3
        r = c1 - c0
        mid = 0.3
        layouts = [
            (
                c0,
                c1,
                [
                    c0,
                    c0 + 1e-9 * r,
                    c0 + 0.1 * r,
                    mid,
                    mid + 1e-9 * r,
                    c1 - 0.3 * r,
                    c1 - 1e-9 * r,
                    c1,
                ],
            ),
            (1e6, 1e6 + 3.0, [1e6, 1e6 + 1.5, 1e6 + 2.0, 1e6 + 3.0]),
        ]
    if ratios is None:
        ratios = RATIOS if side == "both" else ONE_SIDED_RATIOS
    for c0, c1, positions in layouts:
        if bounding == "none":
            positions = positions[:2]
        for ratio in ratios:
            scale = ratio * (c1 - c0)
            for s in positions:
                lo = -np.inf if side == "upper" else c0
                hi = np.inf if side == "lower" else c1
                points.append((s, lo, hi, scale))
    return points


def _reference_triple(mechanism: str, point, dps: int = 40) -> tuple:
    values = values_of(mechanism, *point)
    return tuple(mechanism_mp.evaluate(f"{mechanism}.{q}", values, dps) for q in DIRECT)


def worst_on_grid(
    mechanism: str, side: str, quantities=QUANTITIES, points=None, direct_derived: bool = False
) -> tuple[float, str]:
    """The largest score over the grid, and where."""
    points = points if points is not None else grid(mechanism, side)
    s, c0, c1, scale = (np.array(col) for col in zip(*points, strict=True))
    kwargs = fast_kwargs(mechanism, s, c0, c1, scale)
    got = {q: fast_mechanisms.evaluate(f"{mechanism}.{q}", **kwargs) for q in quantities}
    worst, where = 0.0, ""
    for i, point in enumerate(points):
        triple = _reference_triple(mechanism, point)
        for q in quantities:
            if q in DIRECT:
                ref = triple[DIRECT.index(q)]
            elif direct_derived:
                ref = mechanism_mp.evaluate(f"{mechanism}.{q}", values_of(mechanism, *point), 40)
            else:
                ref = derived_reference(q, point[0], triple)
            sc = score(q, float(got[q][i]), ref, length_of(*point))
            if not sc <= worst:
                worst, where = sc, f"{q} at {point}: fast {float(got[q][i])!r}, ref {ref}"
    return worst, where


@pytest.mark.parametrize(("mechanism", "side"), CASES, ids=[f"{m}-{s}" for m, s in CASES])
def test_grid_against_mechanism_mp(mechanism: str, side: str) -> None:
    worst, where = worst_on_grid(mechanism, side)
    assert worst <= 1.0, f"{worst:.3g} x allowed: {where}"


CONTINUOUS_BOUNDED = [
    (m, side) for m, side in CASES if parts(m)[1] != "geometric" and parts(m)[0] != "none"
]
#: distances of s from the near bound in units of the scale: every branch of psi, e3, ...
TAIL_DISTANCES = [0.0, 1e-9, 0.5, 1.0, 1.5, 2.0, 5.0, 10.0, 19.9, 20.1, 25.0, 30.0, 35.0, 37.0]


def worst_in_tails(mechanism: str, side: str, quantities) -> tuple[float, str]:
    c0, c1 = -0.7, 1.3
    scale = 1e-3 * (c1 - c0)
    points = []
    for a in TAIL_DISTANCES:
        s = c1 - a * scale if side == "upper" else c0 + a * scale
        points.append(
            (s, -np.inf if side == "upper" else c0, np.inf if side == "lower" else c1, scale)
        )
    s, lo, hi, sc = (np.array(col) for col in zip(*points, strict=True))
    kwargs = fast_kwargs(mechanism, s, lo, hi, sc)
    worst, where = 0.0, ""
    for q in quantities:
        got = fast_mechanisms.evaluate(f"{mechanism}.{q}", **kwargs)
        for i, (a, point) in enumerate(zip(TAIL_DISTANCES, points, strict=True)):
            # the clamped Gaussian's derived bias is σψ(a) ~ e^{-a²/2} out of terms ~ 1:
            # a²/(2 ln 10) more digits (mechanism_mp.evaluate at 40 digits returns 0 there)
            extra = int(a * a / 4.6) + 10
            ref = strict(f"{mechanism}.{q}", values_of(mechanism, *point), 30, extra=extra)
            sc_ = score(q, float(got[i]), ref, (0.0, 0.0))
            if not sc_ <= worst:
                worst, where = sc_, f"{q} at {point}: fast {float(got[i])!r}, ref {ref}"
    return worst, where


@pytest.mark.parametrize(
    ("mechanism", "side"), CONTINUOUS_BOUNDED, ids=[f"{m}-{s}" for m, s in CONTINUOUS_BOUNDED]
)
def test_tails(mechanism: str, side: str) -> None:
    """s at a·scale from one bound, the other 1000 scales away: normaliser, bias and mse to
    1e-12 relative (no absolute floor: the bias there is e^{-a}-, φ(a)- or ψ(a)-small, not a
    difference that passes through 0), down to 1e-300; every branch of ψ, E3, ..."""
    worst, where = worst_in_tails(mechanism, side, DIRECT)
    assert worst <= 1.0, f"{worst:.3g} x allowed: {where}"


@pytest.mark.slow
@pytest.mark.parametrize(
    ("mechanism", "side"), CONTINUOUS_BOUNDED, ids=[f"{m}-{s}" for m, s in CONTINUOUS_BOUNDED]
)
def test_tails_derived_quantities(mechanism: str, side: str) -> None:
    worst, where = worst_in_tails(mechanism, side, DERIVED)
    assert worst <= 1.0, f"{worst:.3g} x allowed: {where}"


def test_the_tail_check_can_fail(monkeypatch: pytest.MonkeyPatch) -> None:
    """ψ's asymptotic series with the sign of its 3/x⁴ term flipped is caught."""
    right = fast_gaussian._asymptotic_psi()
    wrong = (*right[:-2], -right[-2], right[-1])
    monkeypatch.setattr(fast_gaussian, "_asymptotic_psi", lambda: wrong)
    assert worst_in_tails("clamped-gaussian", "lower", ("bias",))[0] > 1e3


@pytest.mark.slow
@pytest.mark.parametrize(("mechanism", "side"), CASES, ids=[f"{m}-{s}" for m, s in CASES])
def test_grid_derived_quantities_against_their_own_forms(mechanism: str, side: str) -> None:
    """mean, var, second_moment against mechanism_mp's derived forms of each."""
    worst, where = worst_on_grid(mechanism, side, DERIVED, direct_derived=True)
    assert worst <= 1.0, f"{worst:.3g} x allowed: {where}"


def test_the_grid_check_can_fail(monkeypatch: pytest.MonkeyPatch) -> None:
    """E3(x)/x³ by the textbook (E1(x) - xφ(x))/x³ (cancels for x ≪ 1, i.e. σ ≫ R) is caught."""

    def textbook_g3(x):
        return (fast_gaussian.central(x) - x * fast_gaussian.phi(x)) / x**3

    monkeypatch.setattr(fast_gaussian, "g3", textbook_g3)
    worst, _ = worst_on_grid(
        "truncated-gaussian",
        "both",
        ("mse",),
        points=grid("truncated-gaussian", "both", [1e4, 1e8]),
    )
    assert worst > 1e3


def test_the_geometric_check_can_fail(monkeypatch: pytest.MonkeyPatch) -> None:
    """Q2 by its closed form α(1 - nα^{n-1} + (n-1)α^n)/ω² (cancels as α → 1) is caught."""

    def textbook(n, g, third=True):
        a, w = g.alpha, g.omega
        q1 = (1 - a**n) / w
        q2 = a * (1 - n * a ** (n - 1) + (n - 1) * a**n) / (w * w)
        q3 = fast_geometric.q_large(n, g)[2]
        return q1, q2, q3

    monkeypatch.setattr(fast_geometric, "q_small", textbook)
    worst, _ = worst_on_grid(
        "clamped-geometric", "both", ("mse",), points=grid("clamped-geometric", "both", [1e3, 1e6])
    )
    assert worst > 1e3


# ---------------------------------------------------------------------------
# hypothesis
# ---------------------------------------------------------------------------


def _point(
    mechanism: str, side: str, log_ratio: float, where: float, c0: float, log_width: float
) -> tuple[float, float, float, float]:
    if parts(mechanism)[1] == "geometric":
        c0 = float(round(c0))
        c1 = c0 + max(1.0, float(round(10.0**log_width)))
        s = float(round(c0 + where * (c1 - c0)))
    else:
        c1 = c0 + 10.0**log_width
        s = min(max(c0 + where * (c1 - c0), c0), c1)
    scale = 10.0**log_ratio * (c1 - c0)
    lo = -np.inf if side == "upper" else c0
    hi = np.inf if side == "lower" else c1
    return s, lo, hi, scale


WHERE = st.one_of(st.floats(0, 1), st.sampled_from([0.0, 1e-9, 0.5, 1 - 1e-9, 1.0]))


@settings(
    max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
@given(
    case=st.sampled_from(CASES),
    log_ratio=st.floats(-8, 8),
    where=WHERE,
    c0=st.floats(-1e3, 1e3),
    log_width=st.floats(-2, 3),
    quantity=st.sampled_from(DIRECT),
)
def test_hypothesis_against_mechanism_mp(case, log_ratio, where, c0, log_width, quantity) -> None:
    mechanism, side = case
    point = _point(mechanism, side, log_ratio, where, c0, log_width)
    got = float(
        fast_mechanisms.evaluate(f"{mechanism}.{quantity}", **fast_kwargs(mechanism, *point))
    )
    ref = mechanism_mp.evaluate(f"{mechanism}.{quantity}", values_of(mechanism, *point), 40)
    assert score(quantity, got, ref, length_of(*point)) <= 1.0, (point, got, ref)


@pytest.mark.slow
@settings(
    max_examples=300, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
@given(
    case=st.sampled_from(CASES),
    log_ratio=st.one_of(st.floats(-300, 300), st.sampled_from([-300.0, -150.0, 150.0, 300.0])),
    where=WHERE,
    c0=st.floats(-1e3, 1e3),
    log_width=st.floats(-2, 3),
    quantity=st.sampled_from(QUANTITIES),
)
def test_hypothesis_extreme_scales(case, log_ratio, where, c0, log_width, quantity) -> None:
    """scale/R from 1e-300 to 1e300 against the strict reference, every quantity."""
    mechanism, side = case
    point = _point(mechanism, side, log_ratio, where, c0, log_width)
    got = float(
        fast_mechanisms.evaluate(f"{mechanism}.{quantity}", **fast_kwargs(mechanism, *point))
    )
    ref = strict(f"{mechanism}.{quantity}", values_of(mechanism, *point))
    assert score(quantity, got, ref, length_of(*point)) <= 1.0, (point, got, ref)


@pytest.mark.slow
@settings(
    max_examples=150, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
@given(
    mechanism=st.sampled_from(["truncated-geometric", "clamped-geometric", "geometric"]),
    side=st.sampled_from(["both", "lower", "upper"]),
    alpha=st.one_of(st.floats(1e-300, 1 - 1e-16), st.sampled_from([1e-300, 0.5, 1 - 2**-52])),
    c0=st.integers(-50, 50),
    width=st.integers(1, 3000),
    where=st.floats(0, 1),
    quantity=st.sampled_from(QUANTITIES),
)
def test_hypothesis_geometric_by_alpha(mechanism, side, alpha, c0, width, where, quantity) -> None:
    """The geometric base given by α (near 0 and near 1) against the strict reference."""
    if mechanism == "geometric":
        side = "both"
    c1 = c0 + width
    s = float(round(c0 + where * width))
    lo = -np.inf if side == "upper" else float(c0)
    hi = np.inf if side == "lower" else float(c1)
    got = float(
        fast_mechanisms.evaluate(
            f"{mechanism}.{quantity}", **fast_kwargs(mechanism, s, lo, hi, alpha, "alpha")
        )
    )
    ref = strict(f"{mechanism}.{quantity}", values_of(mechanism, s, lo, hi, alpha, "alpha"))
    floors = length_of(s, lo, hi, -1 / math.log(alpha))
    assert score(quantity, got, ref, floors) <= 1.0, (s, lo, hi, alpha, got, ref)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(
    case=st.sampled_from(CASES),
    log_ratio=st.floats(-300, 300),
    where=WHERE,
    c0=st.floats(-1e3, 1e3),
    log_width=st.floats(-2, 3),
)
def test_extreme_scales_are_sane(case, log_ratio, where, c0, log_width) -> None:
    """No nan, and the law's own bounds, at any scale (no reference: cheap, default suite).

    0 <= normaliser <= 1; var >= 0; c0 <= mean <= c1 for the bounded laws
    (up to rounding); |bias| <= max(s - c0, c1 - s); mse <= max(s-c0, c1-s)²
    when both bounds are finite.
    """
    mechanism, side = case
    s, lo, hi, scale = _point(mechanism, side, log_ratio, where, c0, log_width)
    kwargs = fast_kwargs(mechanism, s, lo, hi, scale)
    got = {q: float(fast_mechanisms.evaluate(f"{mechanism}.{q}", **kwargs)) for q in QUANTITIES}
    assert not any(math.isnan(v) for v in got.values()), got
    assert 0.0 <= got["normaliser"] <= 1.0
    assert got["var"] >= 0 and got["mse"] >= 0 and got["second_moment"] >= 0
    if math.isfinite(lo) and math.isfinite(hi) and parts(mechanism)[0] != "none":
        reach = max(s - lo, hi - s)
        slack = 1e-15 * (hi - lo) + 1e-15 * abs(s)
        assert lo - slack <= got["mean"] <= hi + slack, got
        assert abs(got["bias"]) <= reach * (1 + 1e-15)
        assert got["mse"] <= reach * reach * (1 + 1e-14)
        assert all(math.isfinite(v) for v in got.values()), got


# ---------------------------------------------------------------------------
# CDF, point masses, pmf
# ---------------------------------------------------------------------------


def _cdf_points(mechanism: str) -> tuple[list, list]:
    if parts(mechanism)[1] == "geometric":
        return [-3.0, 0.0, 2.0, 7.0], [-5.0, -3.0, -2.5, -1.0, 0.0, 1.0, 2.0, 3.5, 6.0, 7.0, 9.0]
    c0, c1 = -0.7, 1.3
    return (
        [c0, c0 + 2e-9, 0.3, 0.7, c1],
        [-1.0, c0, c0 + 1e-12, c0 + 1e-3, -0.2, 0.3, 0.31, 1.0, c1 - 1e-9, c1, 2.0],
    )


@pytest.mark.parametrize(("mechanism", "side"), CASES, ids=[f"{m}-{s}" for m, s in CASES])
def test_cdf_against_mechanism_mp(mechanism: str, side: str) -> None:
    geometric = parts(mechanism)[1] == "geometric"
    positions, ys = _cdf_points(mechanism)
    c0, c1 = (-3.0, 7.0) if geometric else (-0.7, 1.3)
    lo = -np.inf if side == "upper" else c0
    hi = np.inf if side == "lower" else c1
    worst, where = 0.0, ""
    for ratio in (1e-8, 1e-3, 0.1, 1.0, 10.0, 1e3, 1e8):
        scale = ratio * (c1 - c0)
        for s in positions:
            if parts(mechanism)[0] == "none" and s != positions[0]:
                continue
            got = fast_mechanisms.cdf(
                mechanism, np.array(ys), **fast_kwargs(mechanism, s, lo, hi, scale)
            )
            for y, g in zip(ys, got, strict=True):
                values = values_of(mechanism, s, lo, hi, scale)
                values["y"] = _text(math.floor(y) if geometric else y)
                ref = mechanism_mp.evaluate(f"{mechanism}.cdf", values, 40)
                err = abs(mpmath.mpf(float(g)) - ref) / (mpmath.mpf(1e-12) * abs(ref) + 1e-15)
                if not err <= worst:
                    worst, where = float(err), f"y={y} s={s} scale={scale}: {g} vs {ref}"
    assert worst <= 1.0, f"{worst:.3g} x allowed: {where}"


def test_cdf_limits_and_infinite_points() -> None:
    for mechanism in MECHANISM_NAMES:
        geometric = parts(mechanism)[1] == "geometric"
        kwargs = fast_kwargs(mechanism, 0.0, -2.0, 3.0, 1.5)
        out = fast_mechanisms.cdf(mechanism, [-np.inf, np.inf, -1e300, 1e300], **kwargs)
        assert list(out) == [0.0, 1.0, 0.0, 1.0], mechanism
        ys = np.linspace(-2.5, 3.5, 61 if not geometric else 7)
        values = fast_mechanisms.cdf(mechanism, ys, **kwargs)
        assert np.all(np.diff(values) >= -1e-15), mechanism  # non-decreasing


def test_point_masses_against_mechanism_mp() -> None:
    for mechanism in MECHANISM_NAMES:
        bounding, base = parts(mechanism)
        geometric = base == "geometric"
        c0, c1 = (-3.0, 7.0) if geometric else (-0.7, 1.3)
        for side in (
            ("both", "lower", "upper") if bounding in ("truncated", "clamped") else ("both",)
        ):
            lo = -np.inf if side == "upper" else c0
            hi = np.inf if side == "lower" else c1
            for ratio in (1e-3, 0.1, 1.0, 1e4):
                scale = ratio * (c1 - c0)
                for s in (c0, 0.0, c1):
                    kwargs = fast_kwargs(mechanism, s, lo, hi, scale)
                    low, high = (
                        float(v) for v in fast_mechanisms.point_masses(mechanism, **kwargs)
                    )
                    if bounding != "clamped":
                        assert low == 0.0 and high == 0.0
                        continue
                    values = values_of(mechanism, s, lo, hi, scale)
                    ref_low = ref_high = mpmath.mpf(0)
                    if math.isfinite(lo):  # P(Y = c0) = P(Y <= c0)
                        ref_low = mechanism_mp.evaluate(
                            f"{mechanism}.cdf", {**values, "y": _text(lo)}, 40
                        )
                    if math.isfinite(hi):  # P(Y = c1) = 1 - P(Y < c1)
                        below = hi - 1 if geometric else hi
                        params = parse(mechanism, {**values, "y": _text(below)}, "cdf")
                        branch = "cdf:above" if below >= s else "cdf:below"
                        f = mechanism_mp.compiled(mechanism, branch, params.sides)
                        # 330 digits: 1 - F(c1-) down to 1e-300
                        with mpmath.workdps(700):
                            ref_high = 1 - mp.adaptive(f, mechanism_mp._args(params, F(below)), 330)
                    for g, r in ((low, ref_low), (high, ref_high)):
                        assert abs(g - r) <= 1e-12 * abs(r) + 1e-300, (
                            mechanism,
                            side,
                            s,
                            scale,
                            g,
                            r,
                        )


def test_point_masses_and_normaliser_exhaust_the_clamped_law() -> None:
    """P(Y = c0) + P(c0 < X < c1) + P(Y = c1) = 1 for the continuous bases."""
    for mechanism in ("clamped-laplace", "clamped-gaussian"):
        s = np.linspace(-0.7, 1.3, 9)
        for scale in (1e-3, 0.5, 7.0):
            kwargs = fast_kwargs(mechanism, s, -0.7, 1.3, scale)
            low, high = fast_mechanisms.point_masses(mechanism, **kwargs)
            norm = fast_mechanisms.evaluate(f"{mechanism}.normaliser", **kwargs)
            assert np.allclose(low + high + norm, 1.0, rtol=0, atol=4e-16)


@pytest.mark.parametrize("mechanism", ["truncated-geometric", "clamped-geometric", "geometric"])
def test_pmf_against_mechanism_mp(mechanism: str) -> None:
    bounded = parts(mechanism)[0] != "none"
    for side in ("both", "lower", "upper") if bounded else ("both",):
        c0, c1 = -3.0, 7.0
        lo = -np.inf if side == "upper" else c0
        hi = np.inf if side == "lower" else c1
        for scale in (0.01, 0.7, 10.0, 1e6):
            for s in (-3.0, 1.0, 7.0):
                ks = np.arange(-6.0, 11.0)
                kwargs = fast_kwargs(mechanism, s, lo, hi, scale)
                got = fast_mechanisms.pmf(mechanism, ks, **kwargs)
                values = values_of(mechanism, s, lo, hi, scale)
                for k, g in zip(ks, got, strict=True):
                    # F(k) - F(k - 1) at 330 digits: pmfs down to 1e-300 next to F ~ 1
                    with mpmath.workdps(700):
                        ref = mechanism_mp.evaluate(
                            f"{mechanism}.cdf", {**values, "y": _text(k)}, 330
                        ) - mechanism_mp.evaluate(
                            f"{mechanism}.cdf", {**values, "y": _text(k - 1)}, 330
                        )
                    assert abs(float(g) - ref) <= 1e-12 * abs(ref) + 1e-300, (
                        mechanism,
                        side,
                        scale,
                        s,
                        k,
                        g,
                        ref,
                    )
    zero = fast_mechanisms.pmf(
        mechanism, [0.5, 2.25], **fast_kwargs(mechanism, 1.0, -3.0, 7.0, 2.0)
    )
    assert list(zero) == [0.0, 0.0]


def test_pmf_sums_to_one() -> None:
    ks = np.arange(-3.0, 8.0)
    for mechanism in ("truncated-geometric", "clamped-geometric"):
        for scale in (1e-3, 1.0, 1e3, 1e300):
            total = fast_mechanisms.pmf(mechanism, ks, s=2.0, c0=-3.0, c1=7.0, scale=scale).sum()
            assert abs(total - 1) < 1e-14, (mechanism, scale, total)


# ---------------------------------------------------------------------------
# Liu's mechanisms go through numeric.fast
# ---------------------------------------------------------------------------


def test_liu_mechanisms_agree_with_numeric_fast() -> None:
    rng = np.random.default_rng(7)
    s = rng.random(500)
    lam = 10.0 ** rng.uniform(-9, 9, 500)
    for general, liu in (("truncated-laplace", "truncated"), ("clamped-laplace", "bit")):
        for q in fast.QUANTITIES:
            want = fast.evaluate(f"{liu}.{q}", s, 0.0, 1.0, lam)
            for name in (f"{general}.{q}", f"{liu}.{q}"):
                got = fast_mechanisms.evaluate(name, s=s, c0=0.0, c1=1.0, lam=lam)
                assert np.array_equal(got, want), name
        ys = rng.uniform(-0.2, 1.2, 500)
        assert np.array_equal(
            fast_mechanisms.cdf(general, ys, s=s, c0=0.0, c1=1.0, lam=lam),
            fast.cdf(liu, ys, s, 0.0, 1.0, lam),
        )
        got = fast_mechanisms.point_masses(general, s=s, c0=0.0, c1=1.0, scale=lam)
        want = fast.point_masses(liu, s, 0.0, 1.0, lam)
        assert all(np.array_equal(g, w) for g, w in zip(got, want, strict=True))


def test_fast_py_below_lambda_over_r_1e154() -> None:
    """numeric.fast's P3(x) overflowed to -inf for x > 1e154 (λ/R < 1e-154: mse nan)."""
    for lam in (1e-160, 1e-200, 1e-300):
        for q in ("mse", "var"):
            got = float(
                fast_mechanisms.evaluate(f"truncated-laplace.{q}", s=0.3, c0=0.0, c1=1.0, lam=lam)
            )
            ref = strict(
                f"truncated-laplace.{q}", values_of("truncated-laplace", 0.3, 0.0, 1.0, lam, "lam")
            )
            assert score(q, got, ref, length_of(0.3, 0.0, 1.0, lam)) <= 1.0, (lam, q, got, ref)


# ---------------------------------------------------------------------------
# shapes and validation
# ---------------------------------------------------------------------------


def test_broadcasting_and_shapes() -> None:
    s = np.linspace(0, 1, 6).reshape(2, 3)
    out = fast_mechanisms.evaluate(
        "truncated-gaussian.var", s=s, c0=0.0, c1=1.0, sigma=np.array([[0.5], [2.0]])
    )
    assert out.shape == (2, 3) and out.dtype == np.float64
    one = fast_mechanisms.evaluate("truncated-gaussian.var", s=s[1, 2], c0=0.0, c1=1.0, sigma=2.0)
    assert np.ndim(one) == 0 and out[1, 2] == one
    big = fast_mechanisms.evaluate(
        "clamped-geometric.mean",
        s=np.full(40_000, 3.0),
        c0=0,
        c1=10,
        scale=np.geomspace(1e-3, 1e3, 40_000),
    )
    assert np.all(np.diff(big) >= -1e-13)  # the mean moves monotonically towards 5
    mixed = fast_mechanisms.evaluate(
        "truncated-gaussian.mean", s=0.5, c0=[0.0, -np.inf, 0.0], c1=[1.0, 1.0, np.inf], sigma=1.0
    )
    for i, (lo, hi) in enumerate([(0.0, 1.0), (-np.inf, 1.0), (0.0, np.inf)]):
        assert mixed[i] == fast_mechanisms.evaluate(
            "truncated-gaussian.mean", s=0.5, c0=lo, c1=hi, sigma=1.0
        )
    cdf = fast_mechanisms.cdf(
        "clamped-gaussian", np.zeros((4, 1)), s=0.0, c0=-1.0, c1=1.0, sigma=[1.0, 2.0]
    )
    assert cdf.shape == (4, 2)
    masses = fast_mechanisms.point_masses("clamped-geometric", s=[0, 1], c0=0, c1=5, alpha=0.5)
    assert masses[0].shape == (2,)


def test_scale_alpha_and_names_agree() -> None:
    a = fast_mechanisms.evaluate("clamped-geometric.var", s=2, c0=0, c1=9, scale=3.0)
    b = fast_mechanisms.evaluate("clamped-geometric.var", s=2, c0=0, c1=9, alpha=math.exp(-1 / 3))
    assert abs(a - b) <= 1e-14 * a
    lam = fast_mechanisms.evaluate("folded-laplace.mse", s=0.1, c0=0, c1=1, lam=0.3)
    assert lam == fast_mechanisms.evaluate("folded-laplace.mse", s=0.1, c0=0, c1=1, scale=0.3)


@pytest.mark.parametrize(
    ("call", "needle"),
    [
        (
            lambda: fast_mechanisms.evaluate(
                "truncated-gaussian.mean", s=np.nan, c0=0, c1=1, sigma=1
            ),
            "s=nan",
        ),
        (
            lambda: fast_mechanisms.evaluate(
                "truncated-gaussian.mean", s=0.5, c0=0, c1=1, sigma=[1, -1]
            ),
            "sigma=-1.0 (at index 1) must be",
        ),
        (
            lambda: fast_mechanisms.evaluate("clamped-geometric.mean", s=0, c0=0, c1=1, alpha=1.0),
            "alpha=1.0 must lie strictly between 0 and 1",
        ),
        (
            lambda: fast_mechanisms.evaluate("clamped-laplace.var", s=0.5, c0=1, c1=0, lam=1),
            "c0=1.0 must be smaller than c1=0.0",
        ),
        (
            lambda: fast_mechanisms.evaluate("clamped-laplace.var", s=[0.5, 2], c0=0, c1=1, lam=1),
            "s=2.0 is outside [c0, c1] = [0.0, 1.0] (at index 1)",
        ),
        (
            lambda: fast_mechanisms.evaluate(
                "clamped-laplace.var", s=0.5, c0=-np.inf, c1=np.inf, lam=1
            ),
            "at most one bound may be infinite",
        ),
        (
            lambda: fast_mechanisms.evaluate("clamped-laplace.var", s=0.5, c0=np.inf, c1=1, lam=1),
            "c0=inf is not allowed",
        ),
        (
            lambda: fast_mechanisms.evaluate("folded-laplace.var", s=0.5, c0=0, c1=np.inf, lam=1),
            "needs finite c0 and c1",
        ),
        (
            lambda: fast_mechanisms.evaluate("truncated-geometric.var", s=0.5, c0=0, c1=3, scale=1),
            "s=0.5 must be an integer",
        ),
        (
            lambda: fast_mechanisms.evaluate(
                "truncated-geometric.var", s=0, c0=0, c1=2.0**60, scale=1
            ),
            "c1=1.152921504606847e+18 must be",
        ),
        (
            lambda: fast_mechanisms.evaluate("truncated-gaussian.var", s=0.5, c0=0, c1=1, lam=1),
            "unknown parameter 'lam' for truncated-gaussian",
        ),
        (
            lambda: fast_mechanisms.evaluate("gaussian.var", s=0.5, c0=0, sigma=1),
            "unknown parameter 'c0'",
        ),
        (
            lambda: fast_mechanisms.evaluate("truncated-gaussian.var", s=0.5, c0=0, sigma=1),
            "missing parameter 'c1'",
        ),
        (
            lambda: fast_mechanisms.evaluate("truncated-gaussian.var", s=0.5, c0=0, c1=1),
            "missing scale",
        ),
        (
            lambda: fast_mechanisms.evaluate(
                "truncated-gaussian.var", s=0.5, c0=0, c1=1, sigma=1, scale=1
            ),
            "give one scale, not sigma and scale",
        ),
        (
            lambda: fast_mechanisms.evaluate("truncated-gaussian.varr", s=0.5, c0=0, c1=1, sigma=1),
            "unknown quantity 'varr'",
        ),
        (
            lambda: fast_mechanisms.evaluate("folded-gaussian.var", s=0.5, c0=0, c1=1, sigma=1),
            "folded-gaussian is not available",
        ),
        (
            lambda: fast_mechanisms.evaluate("truncated-gaussian.cdf", s=0.5, c0=0, c1=1, sigma=1),
            "has no float64 fast path",
        ),
        (
            lambda: fast_mechanisms.evaluate(
                "truncated-gaussian.var", s="0.5", c0=0, c1=1, sigma=1
            ),
            "s='0.5' is not a number",
        ),
        (
            lambda: fast_mechanisms.evaluate(
                "truncated-gaussian.var", s=[0.5, 0.5], c0=0, c1=1, sigma=[1, 1, 1]
            ),
            "do not broadcast",
        ),
        (
            lambda: fast_mechanisms.cdf("truncated-gaussian", np.nan, s=0.5, c0=0, c1=1, sigma=1),
            "y=nan is not a number",
        ),
        (
            lambda: fast_mechanisms.pmf("truncated-gaussian", 1, s=0.5, c0=0, c1=1, sigma=1),
            "pmf is defined for the geometric mechanisms only",
        ),
        (
            lambda: fast_mechanisms.point_masses("clamped-whatever", s=0.5, c0=0, c1=1, sigma=1),
            "unknown mechanism 'clamped-whatever'",
        ),
    ],
)
def test_bad_input(call, needle: str) -> None:
    with pytest.raises(InputError) as err:
        call()
    assert needle in str(err.value), str(err.value)
    assert "\n" not in str(err.value)
