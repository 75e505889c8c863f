"""``assert_matches_exact``: a user's float function against dpcheck's exact values.

The reference is :func:`dpcheck.numeric.mechanism_mp.evaluate` (the derived
closed forms of :mod:`dpcheck.symbolic.mechanisms` in mpmath, the working
precision raised until two precisions agree to the requested digits), taken
at the exact rational value of every float parameter, so the comparison
measures the user's function alone.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import mpmath

from dpcheck.errors import InputError
from dpcheck.inputs.numbers import shown
from dpcheck.numeric.names import resolve


@dataclass(frozen=True)
class Comparison:
    """The user's value at one point against the exact one."""

    point: dict[str, Any]
    #: fn(**point) as a float (NaN when it was not a real number)
    value: float
    #: dpcheck's value, correct to ``dps`` digits
    exact: mpmath.mpf
    #: |value - exact|
    error: float
    #: |value - exact| / |exact| (inf when exact is 0 and value is not)
    relative_error: float
    passed: bool
    #: what fn returned when it was not a real number
    note: str = ""


def _tolerance(name: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputError(f"{name}={shown(value)} is not a number (expected a float >= 0)")
    x = float(value)
    if not (math.isfinite(x) and x >= 0):
        raise InputError(f"{name}={value!r} must be a finite number >= 0")
    return x


def _as_float(value: object) -> tuple[float, str]:
    if isinstance(value, bool):
        return math.nan, f"returned {value!r}, not a real number"
    try:
        return float(value), ""  # type: ignore[arg-type]
    except (TypeError, ValueError, OverflowError):
        return math.nan, f"returned {shown(value)}, not a real number"


def _point_text(point: Mapping[str, Any]) -> str:
    return "{" + ", ".join(f"{k}={v!r}" for k, v in point.items()) + "}"


def assert_matches_exact(
    fn: Callable[..., float],
    quantity: str,
    points: Iterable[Mapping[str, Any]],
    *,
    rtol: float = 1e-12,
    atol: float = 0.0,
    dps: int | None = None,
) -> list[Comparison]:
    """Assert |fn(**point) - exact| <= atol + rtol·|exact| at every point.

    ``quantity`` is '<mechanism>.<quantity>' ('truncated-gaussian.bias',
    'bit.mse', 'clamped-geometric.cdf' with ``y`` in each point, '... .quantile'
    with ``p``); ``points`` an iterable of parameter mappings as in
    :mod:`dpcheck.numeric.mechanism_params` (each is passed to ``fn`` as keyword
    arguments, unchanged).  The exact value is computed to ``dps`` significant
    digits (default: 10 more than rtol asks for, at least 30).

    Returns one :class:`Comparison` per point on success.  Raises
    ``AssertionError`` naming the number of failing points and the worst one
    (largest error relative to its tolerance) with both values and the
    relative error; :class:`dpcheck.errors.InputError` (one line) for an
    unknown quantity, a bad point, no points or a bad tolerance.
    """
    from dpcheck.numeric import mechanism_mp

    if not callable(fn):
        raise InputError(f"fn={shown(fn)} is not callable (expected the function to test)")
    resolve(quantity)
    rtol = _tolerance("rtol", rtol)
    atol = _tolerance("atol", atol)
    if rtol == 0 and atol == 0:
        raise InputError("rtol and atol are both 0 (expected a tolerance: a float is rarely exact)")
    if dps is None:
        dps = max(30, 10 + (math.ceil(-math.log10(rtol)) if rtol > 0 else 17))
    elif isinstance(dps, bool) or not isinstance(dps, int) or not 1 <= dps <= 1000:
        raise InputError(f"dps={shown(dps)} must be an integer from 1 to 1000")
    if isinstance(points, (Mapping, str, bytes)):
        raise InputError(
            "points must be an iterable of parameter mappings (a single mapping was given:"
            " wrap it in a list)"
        )
    try:
        listed = list(points)
    except TypeError:
        raise InputError(f"points={shown(points)} is not an iterable of mappings") from None
    if not listed:
        raise InputError("points is empty (expected at least one parameter mapping)")
    exacts: list[tuple[dict[str, Any], mpmath.mpf]] = []
    for i, point in enumerate(listed):  # every point validated before fn runs
        if not isinstance(point, Mapping):
            raise InputError(f"point {i} = {shown(point)} is not a mapping of parameters")
        point = dict(point)
        try:
            exacts.append((point, mechanism_mp.evaluate(quantity, point, dps)))
        except InputError as exc:
            raise InputError(f"point {i} {_point_text(point)}: {exc}") from None
    rows: list[Comparison] = []
    for point, exact in exacts:
        value, note = _as_float(fn(**point))
        with mpmath.workdps(dps + 5):
            if math.isfinite(value):
                err = abs(mpmath.mpf(value) - exact)
                tol = atol + rtol * abs(exact)
                error, passed = float(err), bool(err <= tol)
                rel = float(err / abs(exact)) if exact != 0 else (0.0 if err == 0 else math.inf)
            else:
                error, rel, passed = math.inf, math.inf, False
        rows.append(Comparison(point, value, exact, error, rel, passed, note))
    failed = [(i, r) for i, r in enumerate(rows) if not r.passed]
    if failed:

        def excess(row: Comparison) -> float:
            tol = atol + rtol * abs(float(row.exact))
            return math.inf if tol == 0 or not math.isfinite(row.error) else row.error / tol

        i, worst = max(failed, key=lambda pair: excess(pair[1]))
        name = getattr(fn, "__qualname__", None) or shown(fn)
        got = worst.note or f"gave {worst.value!r}"
        raise AssertionError(
            f"{name} does not match dpcheck's exact {quantity} at {len(failed)} of {len(rows)}"
            f" points (rtol={rtol:g}, atol={atol:g}); worst at point {i}"
            f" {_point_text(worst.point)}: fn {got}, exact"
            f" {mpmath.nstr(worst.exact, 17)}; relative error {worst.relative_error:.3g},"
            f" absolute error {worst.error:.3g}"
        )
    return rows


__all__ = ["Comparison", "assert_matches_exact"]
