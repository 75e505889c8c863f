"""float64 fast path for every quantity of every mechanism of the algebra (issue 18).

``evaluate('truncated-gaussian.mean', s=..., c0=..., c1=..., sigma=...)`` and
the same for every ``<mechanism>.<quantity>`` of
:data:`dpcheck.numeric.names.MECHANISM_NAMES` (and the aliases 'truncated',
'bit'), quantity one of normaliser, mean, bias, second_moment, var, mse
(DESIGN.md, "Mechanisms"; the meanings of
:mod:`dpcheck.symbolic.mechanisms`: normaliser = P(c0 <= X <= c1) under the
base law, bias = E Y - s, mse = E (Y - s)², var = mse - bias²,
second_moment = E Y²), plus :func:`cdf`, :func:`point_masses` and, for the
geometric base, :func:`pmf`.  Parameters broadcast like numpy arrays:
``s``, ``c0``, ``c1`` (``c0 = -inf`` or ``c1 = inf`` for the one-sided
truncated/clamped variants) and the scale under the base's name (``lam``,
``sigma``) or ``scale``, or ``alpha`` = e^{-1/scale} for the geometric base.

The derived closed forms (:mod:`dpcheck.symbolic.mechanisms`, evaluated at
any precision by :mod:`dpcheck.numeric.mechanism_mp`, the reference) cancel
in float64 when the scale is far from R = c1 - c0; the forms used here are
rewritten without cancellation, with branches in units of R where the scale
dominates, and are tested against the reference (tests/test_fast_mechanisms.py):

* Liu's truncated and clamped Laplace with both bounds finite:
  :mod:`dpcheck.numeric.fast` (one engine); one-sided and folded Laplace:
  :mod:`dpcheck.numeric.fast_laplace`;
* Gaussian base: :mod:`dpcheck.numeric.fast_gaussian` (erf, erfc, erfcx
  and positive series);
* two-sided geometric base: :mod:`dpcheck.numeric.fast_geometric` (partial
  geometric sums through binomial tails, no cancellation as α → 1 or 0);
* the unbounded bases: bias 0, var = mse = 2λ², σ², 2α/(1 - α)².

Accuracy (tests/test_fast_mechanisms.py, bench/bench_mechanisms_eval.py):
relative error <= 1e-12 against the reference for scale/R from 1e-300 to
1e300 and s anywhere in [c0, c1] (measured: a few 1e-15, up to ~1e-13 for
values e^{-x} just above underflow, whose exponent x <= 745 carries the
rounding of (s - c0)/scale); where a bias or mean with both bounds finite
passes through 0 (the midpoint) the error is <= 1e-15·R absolutely (the
inputs' own rounding); values below the smallest normal float64 (~2e-308)
underflow, and values above ~1.8e308 overflow to inf (a one-sided second
moment at scale 1e200, say).  Point masses and pmfs: relative error
<= 1e-12.  CDFs: absolute error of a few ulps (relative in the base laws'
lower tails; not next to a truncation bound, where P(c0 <= X <= y) is a
difference -- e.g. 3e-4 relative at y = c0 + 1e-12 for the truncated
Gaussian, 1.4e-16 absolute).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from dpcheck.errors import InputError
from dpcheck.inputs.numbers import shown
from dpcheck.numeric import fast, fast_gaussian, fast_geometric, fast_laplace
from dpcheck.numeric.arrays import Floats, _at, _first, as_floats
from dpcheck.numeric.names import LIU_NAMES, canonical_mechanism, parts, resolve

#: the quantities of :func:`evaluate`
QUANTITIES = ("normaliser", "mean", "bias", "second_moment", "var", "mse")
#: elements per block (temporaries stay in cache)
CHUNK = 16384
#: the geometric base's s, c0, c1 must be integers of at most this size (exact differences)
MAX_INTEGER = 2.0**53
#: accepted scale keywords per base
SCALE_KEYS = {
    "laplace": ("lam", "scale"),
    "gaussian": ("sigma", "scale"),
    "geometric": ("scale", "alpha"),
}


@dataclass(frozen=True)
class _Args:
    """Validated, broadcast, flattened parameters of one call."""

    mechanism: str
    bounding: str
    base: str
    shape: tuple[int, ...]
    s: Floats
    c0: Floats  # -inf where absent
    c1: Floats  # inf where absent
    theta: Floats | None  # λ or σ (None for the geometric base)
    geo: fast_geometric.Geo | None
    extra: Floats | None  # y or k

    @property
    def size(self) -> int:
        return self.s.size

    def chunk(self, sl: slice) -> _Args:
        return _Args(
            self.mechanism,
            self.bounding,
            self.base,
            self.shape,
            self.s[sl],
            self.c0[sl],
            self.c1[sl],
            None if self.theta is None else self.theta[sl],
            None if self.geo is None else self.geo.take(sl),
            None if self.extra is None else self.extra[sl],
        )


# ---------------------------------------------------------------------------
# parameters
# ---------------------------------------------------------------------------


def _float_array(name: str, value: ArrayLike) -> Floats:
    """A number or array of numbers as float64 (no strings, no bools); checks of values
    are the callers'."""
    if isinstance(value, (str, bytes)):
        raise InputError(f"{name}={shown(value)} is not a number (expected a float or an array)")
    try:
        arr = np.asarray(value)
    except (TypeError, ValueError):
        raise InputError(f"{name}={shown(value)} is not a number or an array of numbers") from None
    if arr.dtype == bool or arr.dtype.kind not in "iuf":
        raise InputError(f"{name}={shown(value)} is not a number or an array of numbers")
    return arr.astype(np.float64, copy=False)


def _bound(name: str, value: ArrayLike) -> Floats:
    """c0 (``-inf`` allowed) or c1 (``inf`` allowed) as float64; NaN and the wrong infinity
    are errors."""
    if isinstance(value, str) and value.strip().lower() in (
        "inf",
        "+inf",
        "-inf",
        "infinity",
        "-infinity",
        "oo",
        "-oo",
    ):
        value = float(value.strip().lower().replace("oo", "inf"))
    arr = _float_array(name, value)
    allowed = -np.inf if name == "c0" else np.inf
    bad = np.isnan(arr) | (np.isinf(arr) & (arr != allowed))
    if bad.any():
        which = "c0 = -inf" if name == "c0" else "c1 = inf"
        raise InputError(f"{name}={_first(arr, bad)} is not allowed (finite, or {which})")
    return arr


def _point(name: str, value: ArrayLike) -> Floats:
    """y for the CDF: any float, ±inf allowed, NaN not."""
    arr = _float_array(name, value)
    bad = np.isnan(arr)
    if bad.any():
        raise InputError(f"{name}={_first(arr, bad)} is not a number")
    return arr


def _parse(
    mechanism: str, params: dict[str, object], extra: tuple[str, ArrayLike] | None = None
) -> _Args:
    bounding, base = parts(mechanism)
    scale_keys = SCALE_KEYS[base]
    allowed = ["s"] + (["c0", "c1"] if bounding != "none" else []) + list(scale_keys)
    unknown = [k for k in params if k not in allowed]
    if unknown:
        raise InputError(
            f"unknown parameter {shown(unknown[0])} for {mechanism} (expected {', '.join(allowed)})"
        )
    needed = ["s"] + (["c0", "c1"] if bounding != "none" else [])
    for key in needed:
        if key not in params:
            raise InputError(
                f"missing parameter {key!r} for {mechanism} (need {', '.join(needed)} and a"
                f" scale: {' or '.join(scale_keys)})"
            )
    given = [k for k in scale_keys if k in params]
    if len(given) != 1:
        if not given:
            raise InputError(f"missing scale for {mechanism}: give {' or '.join(scale_keys)}")
        raise InputError(f"give one scale, not {' and '.join(given)}")
    key = given[0]
    s = as_floats("s", params["s"])
    theta = as_floats(key, params[key])
    named = [s, theta]
    if bounding != "none":
        c0 = _bound("c0", params["c0"])
        c1 = _bound("c1", params["c1"])
        named += [c0, c1]
    if extra is not None:
        named.append(_point(extra[0], extra[1]))
    try:
        shape = np.broadcast_shapes(*(a.shape for a in named))
    except ValueError:
        names = ["s", key] + (["c0", "c1"] if bounding != "none" else [])
        names += [extra[0]] if extra is not None else []
        shapes = ", ".join(f"{n} {a.shape}" for n, a in zip(names, named, strict=True))
        raise InputError(f"parameter shapes do not broadcast: {shapes}") from None
    flat = [np.broadcast_to(a, shape).reshape(-1) for a in named]
    s_, theta_ = flat[0], flat[1]
    if bounding != "none":
        c0_, c1_ = flat[2], flat[3]
    else:
        c0_, c1_ = np.full(s_.shape, -np.inf), np.full(s_.shape, np.inf)
    extra_ = flat[-1] if extra is not None else None
    _check_scale(key, theta_, shape)
    if bounding != "none":
        _check_bounds(mechanism, bounding, s_, c0_, c1_, shape)
    geo = None
    if base == "geometric":
        _check_integers(s_, c0_, c1_, shape)
        geo = (
            fast_geometric.from_alpha(theta_)
            if key == "alpha"
            else (fast_geometric.from_scale(theta_))
        )
        theta_ = None
    return _Args(mechanism, bounding, base, shape, s_, c0_, c1_, theta_, geo, extra_)


def _where(mask: np.ndarray, shape: tuple[int, ...]) -> str:
    """' (at index i)' of the first True element of a flat mask, in ``shape``'s indices."""
    if not shape:
        return ""
    flat = int(np.flatnonzero(mask)[0])
    return _at(tuple(int(i) for i in np.unravel_index(flat, shape)))


def _check_scale(key: str, theta: Floats, shape: tuple[int, ...]) -> None:
    bad = ~(theta > 0) if key != "alpha" else ~((theta > 0) & (theta < 1))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        expected = "must lie strictly between 0 and 1" if key == "alpha" else "must be positive"
        raise InputError(f"{key}={float(theta[i])!r}{_where(bad, shape)} {expected}")


def _check_bounds(mechanism: str, bounding: str, s, c0, c1, shape) -> None:
    both = np.isinf(c0) & np.isinf(c1)
    if both.any():
        raise InputError(
            f"c0=-inf and c1=inf{_where(both, shape)}: at most one bound may be infinite"
            " (use the unbounded mechanism)"
        )
    if bounding == "folded":
        one = np.isinf(c0) | np.isinf(c1)
        if one.any():
            i = int(np.flatnonzero(one)[0])
            raise InputError(
                f"{mechanism} needs finite c0 and c1 (got c0={float(c0[i])!r},"
                f" c1={float(c1[i])!r}{_where(one, shape)}; folding has no one-sided form)"
            )
    inverted = ~(c0 < c1)
    if inverted.any():
        i = int(np.flatnonzero(inverted)[0])
        raise InputError(
            f"c0={float(c0[i])!r} must be smaller than c1={float(c1[i])!r}{_where(inverted, shape)}"
        )
    outside = (s < c0) | (s > c1)
    if outside.any():
        i = int(np.flatnonzero(outside)[0])
        raise InputError(
            f"s={float(s[i])!r} is outside [c0, c1] = [{float(c0[i])!r}, {float(c1[i])!r}]"
            f"{_where(outside, shape)}; the bounded mechanisms need c0 <= s <= c1"
        )


def _check_integers(s, c0, c1, shape) -> None:
    for name, arr in (("s", s), ("c0", c0), ("c1", c1)):
        finite = np.isfinite(arr)
        bad = finite & ((np.floor(arr) != arr) | (np.abs(arr) > MAX_INTEGER))
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise InputError(
                f"{name}={float(arr[i])!r}{_where(bad, shape)} must be an integer of magnitude"
                " at most 2^53: the geometric base lives on the integers"
            )


def _run(fn: Callable[[_Args], Floats], args: _Args) -> Floats:
    """``fn`` on CHUNK-sized blocks of ``args``; the result in the broadcast shape."""
    out = np.empty(args.size)
    with np.errstate(all="ignore"):
        for start in range(0, args.size, CHUNK):
            sl = slice(start, min(start + CHUNK, args.size))
            out[sl] = fn(args.chunk(sl))
    return out.reshape(args.shape)


# ---------------------------------------------------------------------------
# moments
# ---------------------------------------------------------------------------


def _liu_both(a: _Args) -> np.ndarray:
    """Elements of Liu's two mechanisms with both bounds finite (routed through fast.py)."""
    if a.mechanism in LIU_NAMES:
        return np.isfinite(a.c0) & np.isfinite(a.c1)
    return np.zeros(a.size, dtype=bool)


def _kernel(a: _Args) -> tuple[Floats, Floats, Floats]:
    """(normaliser, bias, mse) of the chunk's elements (Liu's both-sided ones excluded)."""
    u, v = a.s - a.c0, a.c1 - a.s
    if a.bounding == "none":
        ones, zeros = np.ones(a.size), np.zeros(a.size)
        if a.base == "laplace":
            return ones, zeros, 2.0 * a.theta * a.theta
        if a.base == "gaussian":
            return ones, zeros, a.theta * a.theta
        return ones, zeros, fast_geometric.unbounded_var(a.geo)
    if a.base == "gaussian":
        return fast_gaussian.moments(a.bounding, u, v, a.theta)
    if a.base == "geometric":
        return fast_geometric.moments(a.bounding, u, v, a.geo)
    norm = fast_laplace.normaliser(u, v, a.theta)
    if a.bounding == "folded":
        bias, mse = fast_laplace.folded(u, v, a.theta)
        return norm, bias, mse
    lower = np.isfinite(u)
    dist = np.where(lower, u, v)
    bias, mse = fast_laplace.one_sided(a.bounding, dist, np.where(lower, 1.0, -1.0), a.theta)
    return norm, bias, mse


def _from_moments(quantity: str, s: Floats, norm, bias, mse) -> Floats:
    """The quantity from (normaliser, bias, mse): mean = s + bias, var = mse - bias²,
    second_moment = mean² + var."""
    if quantity == "normaliser":
        return norm
    if quantity == "bias":
        return bias
    if quantity == "mse":
        return mse
    if quantity == "mean":
        return s + bias
    var = np.where(np.isinf(mse), mse, np.maximum(mse - bias * bias, 0.0))
    if quantity == "var":
        return var
    mean = s + bias
    return mean * mean + var


def _quantity(a: _Args, quantity: str) -> Floats:
    liu = _liu_both(a)
    if not liu.any():
        return _from_moments(quantity, a.s, *_kernel(a))
    out = np.empty(a.size)
    idx = np.flatnonzero(liu)
    s, c0, c1, lam = a.s[idx], a.c0[idx], a.c1[idx], a.theta[idx]
    if quantity == "normaliser":
        out[idx] = fast_laplace.normaliser(s - c0, c1 - s, lam)
    else:
        out[idx] = fast.evaluate(f"{LIU_NAMES[a.mechanism]}.{quantity}", s, c0, c1, lam)
    rest = np.flatnonzero(~liu)
    if rest.size:
        sub = a.chunk(rest)  # fancy indexing works like a slice here
        out[rest] = _from_moments(quantity, sub.s, *_kernel(sub))
    return out


def evaluate(name: str, **params: ArrayLike) -> Floats:
    """The quantity ``name`` ('truncated-gaussian.var', 'bit.mse', ...) in float64, elementwise.

    Quantities: normaliser, mean, bias, second_moment, var, mse
    (:mod:`dpcheck.symbolic.mechanisms`); parameters as in the module
    docstring, broadcast, validated (one-line InputError naming the value).
    """
    mechanism, quantity = resolve(name)
    if quantity not in QUANTITIES:
        raise InputError(
            f"{mechanism}.{quantity} has no float64 fast path (expected one of"
            f" {', '.join(QUANTITIES)}; the CDF is fast_mechanisms.cdf)"
        )
    args = _parse(mechanism, params)
    if (
        mechanism in LIU_NAMES
        and quantity != "normaliser"
        and np.isfinite(args.c0).all()
        and np.isfinite(args.c1).all()
    ):  # all of it through numeric.fast at once
        liu = f"{LIU_NAMES[mechanism]}.{quantity}"
        return fast.evaluate(liu, args.s, args.c0, args.c1, args.theta).reshape(args.shape)
    return _run(lambda a: _quantity(a, quantity), args)


# ---------------------------------------------------------------------------
# distribution functions
# ---------------------------------------------------------------------------


def _cdf_inside(a: _Args) -> Floats:
    """P(Y <= y) for the chunk (every y; the outside values are fixed by the caller)."""
    y, s = a.extra, a.s
    if a.base == "geometric":
        k = np.floor(y)
        inside = np.where((k >= a.c0) & (k < a.c1), k, s)  # placeholder outside
        return fast_geometric.cdf(a.bounding, inside, s, a.c0, a.c1, a.geo)
    yy = np.where((y >= a.c0) & (y < a.c1), y, s)
    if a.base == "gaussian":
        if a.bounding == "truncated":
            return fast_gaussian.truncated_cdf(yy, s, a.c0, a.c1, a.theta)
        return fast_gaussian.base_cdf(yy, s, a.theta)
    if a.bounding == "none":
        return fast_laplace.base_cdf(yy, s, a.theta)
    if a.bounding == "folded":
        return fast_laplace.folded_cdf(yy, s, a.c0, a.c1, a.theta)
    out = np.empty(a.size)
    both = np.isfinite(a.c0) & np.isfinite(a.c1)
    idx = np.flatnonzero(both)
    if idx.size:  # Liu's two laws: numeric.fast
        liu = LIU_NAMES[a.mechanism]
        out[idx] = fast.cdf(liu, yy[idx], s[idx], a.c0[idx], a.c1[idx], a.theta[idx])
    idx = np.flatnonzero(~both)
    if idx.size:
        if a.bounding == "clamped":
            out[idx] = fast_laplace.base_cdf(yy[idx], s[idx], a.theta[idx])
        else:
            lower = np.isfinite(a.c0[idx])
            bound = np.where(lower, a.c0[idx], a.c1[idx])
            out[idx] = fast_laplace.one_sided_truncated_cdf(
                yy[idx], s[idx], bound, a.theta[idx], lower
            )
    return out


def _cdf(a: _Args) -> Floats:
    y = a.extra
    inside = _cdf_inside(a)
    below = y < a.c0
    above = y >= a.c1
    out = np.where(below, 0.0, np.where(above, 1.0, inside))
    out = np.where(y == -np.inf, 0.0, out)
    return np.where(y == np.inf, 1.0, out)


def cdf(mechanism: str, y: ArrayLike, **params: ArrayLike) -> Floats:
    """P(Y <= y), point masses included, elementwise (absolute error a few ulps).

    From the base CDF F by the bounding (:func:`dpcheck.symbolic.mechanisms.cdf_branches`):
    truncated (F(y) - F(c0-))/(F(c1) - F(c0-)), clamped F(y) on [c0, c1) and 1 from
    c1 on; the folded Laplace law's sum over images (:func:`fast_laplace.folded_cdf`).
    ``y`` may be ±inf.
    """
    mech = canonical_mechanism(mechanism)
    args = _parse(mech, params, ("y", y))
    return _run(_cdf, args)


def point_masses(mechanism: str, **params: ArrayLike) -> tuple[Floats, Floats]:
    """(P(Y = c0), P(Y = c1)): the clamped laws' atoms, zeros for the other laws.

    Clamped Laplace: e^{-(s-c0)/λ}/2, e^{-(c1-s)/λ}/2 (Liu 2019 eq (5), through
    :func:`dpcheck.numeric.fast.point_masses`); clamped Gaussian: Q((s - c0)/σ),
    Q((c1 - s)/σ); clamped geometric: P(X <= c0) = α^{s-c0}/(1 + α) and
    P(X >= c1) = α^{c1-s}/(1 + α) (the lattice mass at the bound included).
    0 at an infinite bound.
    """
    mech = canonical_mechanism(mechanism)
    args = _parse(mech, params)

    def masses(a: _Args) -> Floats:
        u, v = a.s - a.c0, a.c1 - a.s
        if a.bounding != "clamped":
            return np.zeros((2, a.size))
        if a.base == "gaussian":
            return np.stack(
                [fast_gaussian.upper_tail(u / a.theta), fast_gaussian.upper_tail(v / a.theta)]
            )
        if a.base == "geometric":
            return np.stack(fast_geometric.point_masses(u, v, a.geo))
        out = np.stack([0.5 * np.exp(-u / a.theta), 0.5 * np.exp(-v / a.theta)])
        both = np.flatnonzero(np.isfinite(u) & np.isfinite(v))
        if both.size:
            low, high = fast.point_masses("bit", a.s[both], a.c0[both], a.c1[both], a.theta[both])
            out[0, both], out[1, both] = low, high
        return out

    low = np.empty(args.size)
    high = np.empty(args.size)
    with np.errstate(all="ignore"):
        for start in range(0, args.size, CHUNK):
            sl = slice(start, min(start + CHUNK, args.size))
            low[sl], high[sl] = masses(args.chunk(sl))
    return low.reshape(args.shape), high.reshape(args.shape)


def pmf(mechanism: str, k: ArrayLike, **params: ArrayLike) -> Floats:
    """P(Y = k) of a geometric mechanism, elementwise (0 at non-integer k and outside [c0, c1]).

    :func:`dpcheck.numeric.fast_geometric.pmf`: the base pmf (1 - α)/(1 + α) α^{|k-s|},
    divided by the normaliser for the truncated law, the clamped law's atoms at the bounds.
    """
    mech = canonical_mechanism(mechanism)
    if parts(mech)[1] != "geometric":
        raise InputError(
            f"pmf is defined for the geometric mechanisms only, not {mech}"
            " (use cdf or point_masses)"
        )
    args = _parse(mech, params, ("k", k))

    def fn(a: _Args) -> Floats:
        kk = a.extra
        integer = np.isfinite(kk) & (np.floor(kk) == kk)
        safe = np.where(integer, kk, a.s)
        out = fast_geometric.pmf(a.bounding, safe, a.s, a.c0, a.c1, a.geo)
        return np.where(integer, out, 0.0)

    return _run(fn, args)


__all__ = ["QUANTITIES", "SCALE_KEYS", "cdf", "evaluate", "pmf", "point_masses"]
