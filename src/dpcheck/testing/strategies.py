"""Hypothesis strategies for valid parameters of every mechanism (dpcheck.testing).

``params(mechanism)`` draws a parameter mapping accepted by
:func:`dpcheck.numeric.mechanism_params.parse`, :func:`dpcheck.numeric.fast_mechanisms.evaluate`
and :func:`dpcheck.sampling.mechanisms.sample`: ``s``, and ``c0``/``c1`` for a
bounded mechanism, and the scale under the base's own name -- ``lam`` (Laplace),
``sigma`` (Gaussian), ``scale`` (the two-sided geometric's b, α = e^{-1/b}).
The draws cover the extremes on purpose:

* scales log-uniform over [1e-8, 1e300] with the end points and 1 drawn often;
* bound widths c1 - c0 log-uniform over [1e-6, 1e6] (integers 1 .. 10^6 for the
  geometric base), bounds located anywhere in [-1e6, 1e6];
* s at c0, at c1, at the midpoint or anywhere between;
* one-sided bounds (c0 = -inf or c1 = inf) for the truncated and clamped
  variants (folding has no one-sided form);
* integers s, c0, c1 for the geometric base (which lives on the integers).

``mechanisms()`` draws a mechanism name (``dpcheck.numeric.names.MECHANISM_NAMES``),
``cases()`` a pair (name, params).  Example::

    from hypothesis import given
    from dpcheck.testing import strategies as dps

    @given(dps.cases())
    def test_my_mean(case):
        mechanism, params = case
        ...

Requires ``hypothesis`` (``pip install dpcheck[test]``).
"""

from __future__ import annotations

import math
from typing import Any

from hypothesis import strategies as st

from dpcheck.numeric.names import ALIASES, MECHANISM_NAMES, parts

#: the default range of scales (λ, σ, b)
SCALES = (1e-8, 1e300)
#: the default range of bound widths c1 - c0 (continuous bases)
WIDTHS = (1e-6, 1e6)
#: bounds and s lie within [-LOCATION, LOCATION]
LOCATION = 1e6
#: the geometric base's widths are integers from 1 to this
INTEGER_WIDTH = 10**6


def mechanisms(*, aliases: bool = False) -> st.SearchStrategy[str]:
    """A mechanism name of the algebra (with Liu's aliases 'truncated', 'bit' if asked)."""
    names = list(MECHANISM_NAMES) + (list(ALIASES) if aliases else [])
    return st.sampled_from(names)


def log_uniform(low: float, high: float) -> st.SearchStrategy[float]:
    """Floats in [low, high] (0 < low < high) uniform in log10, the end points and 1 included."""
    if not 0 < low < high:
        raise ValueError(f"log_uniform needs 0 < low < high (got {low!r}, {high!r})")
    special = [low, high] + ([1.0] if low <= 1.0 <= high else [])
    lo, hi = math.log10(low), math.log10(high)
    spread = st.floats(lo, hi, allow_nan=False, allow_infinity=False).map(
        lambda e: min(max(10.0**e, low), high)
    )
    return st.one_of(st.sampled_from(special), spread)


def scales(low: float = SCALES[0], high: float = SCALES[1]) -> st.SearchStrategy[float]:
    """A scale (λ, σ or b) log-uniform in [low, high], extremes included."""
    return log_uniform(low, high)


def _fraction() -> st.SearchStrategy[float]:
    """Where s sits between the bounds: 0 (at c0), 1 (at c1), 1/2, or anywhere."""
    return st.one_of(st.sampled_from([0.0, 1.0, 0.5]), st.floats(0.0, 1.0))


def _locations(location: float) -> st.SearchStrategy[float]:
    return st.one_of(st.just(0.0), st.floats(-location, location, allow_subnormal=False))


@st.composite
def _continuous(
    draw: Any,
    bounding: str,
    key: str,
    scale: st.SearchStrategy[float],
    widths: tuple[float, float],
    location: float,
    one_sided: bool,
) -> dict[str, float]:
    theta = draw(scale)
    if bounding == "none":
        return {"s": draw(_locations(location)), key: theta}
    sides = ["both"] + (["lower", "upper"] if one_sided and bounding != "folded" else [])
    side = draw(st.sampled_from(sides))
    where = draw(_locations(location))
    width = draw(log_uniform(*widths))
    u = draw(_fraction())
    if side == "lower":  # [c0, inf)
        return {"s": where + u * width, "c0": where, "c1": math.inf, key: theta}
    if side == "upper":  # (-inf, c1]
        return {"s": where - u * width, "c0": -math.inf, "c1": where, key: theta}
    c0, c1 = where, where + width
    if not c0 < c1:  # the width is below the spacing of floats at `where`
        c1 = math.nextafter(c0, math.inf)
    s = c0 if u == 0.0 else c1 if u == 1.0 else min(max(c0 + u * (c1 - c0), c0), c1)
    return {"s": s, "c0": c0, "c1": c1, key: theta}


@st.composite
def _integer(
    draw: Any,
    bounding: str,
    scale: st.SearchStrategy[float],
    width: int,
    location: int,
    one_sided: bool,
) -> dict[str, Any]:
    b = draw(scale)
    where = draw(st.one_of(st.just(0), st.integers(-location, location)))
    if bounding == "none":
        return {"s": where, "scale": b}
    sides = ["both"] + (["lower", "upper"] if one_sided else [])
    side = draw(st.sampled_from(sides))
    w = draw(st.one_of(st.sampled_from([1, 2, width]), st.integers(1, width)))
    k = draw(st.one_of(st.sampled_from([0, w]), st.integers(0, w)))
    if side == "lower":
        return {"s": where + k, "c0": where, "c1": math.inf, "scale": b}
    if side == "upper":
        return {"s": where - k, "c0": -math.inf, "c1": where, "scale": b}
    return {"s": where + k, "c0": where, "c1": where + w, "scale": b}


def params(
    mechanism: str,
    *,
    scale: st.SearchStrategy[float] | None = None,
    widths: tuple[float, float] = WIDTHS,
    location: float = LOCATION,
    one_sided: bool = True,
) -> st.SearchStrategy[dict[str, Any]]:
    """Valid parameters of ``mechanism`` (module docstring); ``scale`` overrides the scale
    strategy (default :func:`scales` over [1e-8, 1e300]), ``widths`` the range of c1 - c0,
    ``location`` the magnitude of the bounds and s, ``one_sided=False`` keeps both bounds
    finite."""
    from dpcheck.laws import registry

    bounding, base = parts(mechanism)
    law = registry.of_base(base)
    theta = scale if scale is not None else scales()
    if law.is_lattice:
        return _integer(
            bounding,
            theta,
            min(INTEGER_WIDTH, max(1, int(widths[1]))),
            int(min(location, 2**52)),
            one_sided,
        )
    return _continuous(bounding, law.scale, theta, widths, location, one_sided)


def cases(*, aliases: bool = False, **options: Any) -> st.SearchStrategy[tuple[str, dict]]:
    """A pair (mechanism, params) over every mechanism; ``options`` as in :func:`params`."""
    return mechanisms(aliases=aliases).flatmap(
        lambda name: params(name, **options).map(lambda p: (name, p))
    )


__all__ = [
    "INTEGER_WIDTH",
    "LOCATION",
    "SCALES",
    "WIDTHS",
    "cases",
    "log_uniform",
    "mechanisms",
    "params",
    "scales",
]
