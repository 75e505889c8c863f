"""Vectorised numpy samplers of every mechanism of the algebra (DESIGN.md, "Mechanisms").

``sample(mechanism, rng, size, **params)`` draws Y = bounding(s + noise) for any
name of :data:`dpcheck.numeric.names.MECHANISM_NAMES` (and the aliases
'truncated', 'bit'), with the parameters of
:mod:`dpcheck.numeric.mechanism_params` (s, c0, c1 -- c0 = -inf or c1 = inf for
the one-sided variants -- and lam / sigma / scale / alpha, or epsilon and
sensitivity for the Laplace base).  Every parameter may be a scalar or an
array; they broadcast like numpy's own distributions and ``size`` follows
numpy's convention (:func:`dpcheck.numeric.arrays.output_shape`).  No method
has a rejection loop: each draw costs a fixed number of uniforms or
exponentials, whatever the parameters.

The draws are the law objects' own (:func:`dpcheck.laws.draws.block`: the bounding is
the transformation, the law gives its noise and its truncated or folded inversion):
:mod:`dpcheck.laws.laplace` (Liu 2019, eq (2); Definition 2(a) by exact inversion, the
fold through the exponential's memorylessness), :mod:`dpcheck.laws.gaussian` (inversion
split at s with erf/erfinv) and :mod:`dpcheck.laws.discrete_laplace` (the base
``geometric``: a difference of two floors of exponentials; exact inversion on the
integers).  Each clamped mechanism is clip(s + Z, c0, c1).

Parameters are validated elementwise: NaN, infinite s or scale, a scale <= 0,
α outside (0, 1), c0 >= c1, s outside [c0, c1], both bounds infinite, an
infinite bound for the folded law, non-integer s/c0/c1 for the geometric base,
unknown or missing parameters, a number outside float64's range, a law unbounded on a
side whose draws would pass float64's range there (|s| + 64 scales > 1e308), more draws
than the ``sample size`` ceiling of :mod:`dpcheck.inputs.limits`: each a one-line
:class:`InputError`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from fractions import Fraction

import numpy as np
from numpy.typing import ArrayLike

from dpcheck.errors import InputError
from dpcheck.inputs.numbers import parse_number, shown
from dpcheck.laws import draws, registry
from dpcheck.laws.noise import NoiseLaw
from dpcheck.numeric.arrays import Floats
from dpcheck.numeric.mechanism_params import INFINITE, scale_words
from dpcheck.numeric.mechanism_params import allowed as allowed_keys
from dpcheck.numeric.names import canonical_mechanism, parts
from dpcheck.sampling import samplers
from dpcheck.sampling.samplers import Size, generator

# ---------------------------------------------------------------------------
# parameters
# ---------------------------------------------------------------------------


def _array(name: str, value: object, infinite: int = 0) -> Floats:
    """``value`` as float64; ``infinite`` = -1 / +1 allows -inf / +inf (a one-sided bound).

    Strings and Fractions are parsed exactly (:func:`dpcheck.inputs.numbers.parse_number`)
    and then rounded to float64; 'inf' / '-inf' words are accepted for a bound.
    """
    if isinstance(value, str) and value.strip().lower() in INFINITE:
        sign = INFINITE[value.strip().lower()]
        if sign != infinite:
            raise InputError(f"{name}={shown(value)}: {_INFINITE_HINT[infinite]}")
        return np.asarray(math.inf * sign)
    if isinstance(value, (bool, np.bool_)):
        raise InputError(f"{name}={value!r} is not a number")
    if isinstance(value, (str, Fraction, int)):
        return np.asarray(_float64(name, value, parse_number(name, value)))
    try:
        arr = np.asarray(value)
    except (TypeError, ValueError):
        raise InputError(f"{name}={shown(value)} is not a number or an array of numbers") from None
    if arr.dtype == bool or arr.dtype.kind not in "iuf":
        raise InputError(f"{name}={shown(value)} is not a number or an array of numbers")
    arr = arr.astype(np.float64, copy=False)
    bad = np.isnan(arr)
    if infinite == 0:
        bad |= np.isinf(arr)
    else:
        bad |= np.isinf(arr) & (np.sign(arr) != infinite)
    if bad.any():
        what = "is not finite" if infinite == 0 else f"must be finite or {infinite * math.inf}"
        hint = f" ({_INFINITE_HINT[infinite]})" if infinite and np.isinf(arr[bad]).any() else ""
        raise InputError(f"{name}={_first(arr, bad)} {what}{hint}")
    return arr


#: why an infinity of the wrong sign is refused, by the sign a bound may take
_INFINITE_HINT = {
    -1: "only c0 may be -inf, for an unbounded lower end; c0 = +inf leaves no room below c1",
    1: "only c1 may be +inf, for an unbounded upper end; c1 = -inf leaves no room above c0",
    0: "only c0 = -inf or c1 = inf may be infinite",
}


def _float64(name: str, value: object, exact: Fraction) -> float:
    """The exact ``value`` rounded to float64, refused in one line when it leaves float64's
    range (it would overflow, or a nonzero value would round to 0): the samplers draw in
    float64, so the law drawn would not be the one asked for."""
    try:
        x = float(exact)
    except OverflowError:
        x = math.inf
    if math.isinf(x) or (x == 0 and exact != 0):
        raise InputError(
            f"{name}={shown(value)} is outside float64's range (the samplers draw in float64:"
            " expected 5e-324 <= |x| <= 1.8e308, or 0)"
        )
    return x


def _first(arr: Floats, mask: np.ndarray) -> str:
    if arr.ndim == 0:
        return repr(float(arr))
    index = tuple(int(i) for i in np.argwhere(mask)[0])
    return f"{float(arr[index])!r} (at index {index[0] if len(index) == 1 else index})"


def _where(mask: np.ndarray) -> tuple[int, ...]:
    return tuple(int(i) for i in np.argwhere(mask)[0])


def _at(index: tuple[int, ...]) -> str:
    if not index:
        return ""
    return f" (at index {index[0] if len(index) == 1 else index})"


def _theta(law: NoiseLaw, base: str, values: Mapping[str, object]) -> tuple[Floats, Floats]:
    """(the scale, the law's draw parameter θ): λ or σ, for the discrete Laplace (base
    'geometric') b and the rate r = 1/b = -log α (``law._draw_theta``)."""
    own = law.scale
    given = list(dict.fromkeys(k for k in (own, "scale", "alpha", "epsilon") if k in values))
    if "sensitivity" in values and "epsilon" not in values:
        raise InputError("sensitivity needs epsilon too (λ = sensitivity/epsilon)")
    if len(given) != 1:
        if not given:
            raise InputError(f"missing scale: give {scale_words(base)}")
        raise InputError(f"give one scale, not {' and '.join(given)}")
    key = given[0]
    if key == "epsilon":
        if "sensitivity" not in values:
            raise InputError("epsilon needs sensitivity too (λ = sensitivity/epsilon)")
        eps = _positive("epsilon", values["epsilon"])
        sens = _positive("sensitivity", values["sensitivity"])
        with np.errstate(over="ignore"):
            lam = sens / eps
        if not np.all(np.isfinite(lam)):
            raise InputError("sensitivity/epsilon overflows float64 (expected a finite λ)")
        return lam, law._draw_theta({own: lam})
    if key == "alpha":
        a = _array("alpha", values["alpha"])
        bad = ~((a > 0) & (a < 1))
        if bad.any():
            raise InputError(f"alpha={_first(a, bad)} must lie strictly between 0 and 1")
        rate = -np.log(a)
        with np.errstate(divide="ignore"):
            return 1.0 / rate, rate
    scale = _positive(key, values[key])
    with np.errstate(over="ignore"):
        return scale, law._draw_theta({own: scale})  # a rate 1/b underflows: refused below


def _positive(name: str, value: object) -> Floats:
    arr = _array(name, value)
    bad = ~(arr > 0)
    if bad.any():
        raise InputError(f"{name}={_first(arr, bad)} must be positive")
    return arr


def parameters(
    mechanism: str, values: Mapping[str, object]
) -> tuple[str, tuple[Floats, Floats, Floats, Floats], tuple[int, ...]]:
    """(canonical name, (s, c0, c1, θ), broadcast shape) with every element validated.

    θ is λ (Laplace), σ (Gaussian) or the rate r = 1/b = -log α (geometric);
    c0 = -inf and c1 = inf for the unbounded mechanisms.  The arrays are
    returned as given (a scalar stays 0-d), known to broadcast.
    """
    name = canonical_mechanism(mechanism)
    bounding, base = parts(name)
    law = registry.of_base(base)
    allowed = list(allowed_keys(bounding, base))
    unknown = [k for k in values if k not in allowed]
    if unknown:
        raise InputError(
            f"unknown parameter {shown(unknown[0])} for {name} (expected {', '.join(allowed)})"
        )
    needed = ["s"] + (["c0", "c1"] if bounding != "none" else [])
    for key in needed:
        if key not in values:
            raise InputError(
                f"missing parameter {key!r} for {name} (need {', '.join(needed)}"
                f" and a scale: {scale_words(base)})"
            )
    s = _array("s", values["s"])
    if bounding == "none":
        c0, c1 = np.asarray(-math.inf), np.asarray(math.inf)
    else:
        c0, c1 = _array("c0", values["c0"], -1), _array("c1", values["c1"], 1)
    scale, theta = _theta(law, base, values)
    arrays = [s, c0, c1, theta]
    try:
        shape = np.broadcast_shapes(*(a.shape for a in arrays))
    except ValueError:
        shapes = ", ".join(f"{k} {np.shape(values[k])}" for k in values)
        raise InputError(f"parameter shapes do not broadcast: {shapes}") from None
    if bounding != "none":
        s_, c0_, c1_ = np.broadcast_arrays(s, c0, c1)
        both = np.isinf(c0_) & np.isinf(c1_)
        if both.any():
            raise InputError(
                f"c0 and c1 cannot both be infinite{_at(_where(both))}"
                " (use the unbounded mechanism)"
            )
        if bounding == "folded":
            inf = np.isinf(c0_) | np.isinf(c1_)
            if inf.any():
                raise InputError(
                    f"{name} needs finite c0 and c1 (folding has no one-sided form)"
                    f"{_at(_where(inf))}"
                )
        inverted = ~(c0_ < c1_)
        if inverted.any():
            i = _where(inverted)
            raise InputError(
                f"c0={float(c0_[i])!r} must be smaller than c1={float(c1_[i])!r}{_at(i)}"
            )
        outside = (s_ < c0_) | (s_ > c1_)
        if outside.any():
            i = _where(outside)
            raise InputError(
                f"s={float(s_[i])!r} is outside [c0, c1] = [{float(c0_[i])!r},"
                f" {float(c1_[i])!r}]{_at(i)}; the bounded mechanisms need c0 <= s <= c1"
            )
    if law.is_lattice:
        for key, arr in (("s", s), ("c0", c0), ("c1", c1)):
            fractional = np.isfinite(arr) & (np.floor(arr) != arr)
            if fractional.any():
                raise InputError(
                    f"{key}={_first(arr, fractional)} must be an integer: the {base} base"
                    " lives on the integers"
                )
    zero = ~(theta > 0)
    if zero.any():
        raise InputError(
            f"the {base} scale is too large{_at(_where(zero))}"
            " (its draw parameter 1/scale underflows float64; expected scale <= 1e308)"
        )
    _check_reach(law.scale, bounding, s, c0, c1, scale, shape)
    return name, (s, c0, c1, theta), shape


#: draws lie within this many scales of s but with probability below 2^-64 (the Laplace
#: difference of two exponentials needs E > 44; the Gaussian ziggurat stops near 8.3σ)
_REACH = 64.0


def _check_reach(key: str, bounding: str, s, c0, c1, scale, shape) -> None:  # type: ignore[no-untyped-def]
    """Refuse a law that is unbounded on a side and reaches beyond float64's range there:
    |s| + 64 scales > 1e308 would give draws of ±inf (or NaN, inf - inf, in the geometric
    base's difference of two floors), which no float64 sampler can avoid."""
    with np.errstate(over="ignore"):
        reach = np.abs(s) + _REACH * scale
    if bounding == "none":
        open_side = np.ones(shape, dtype=bool)
    else:
        open_side = np.isinf(c0) | np.isinf(c1)
    bad = np.broadcast_to(open_side & ~(reach <= 1e308), shape)
    if bad.any():
        i = _where(bad)
        value = float(np.broadcast_to(scale, shape)[i])
        raise InputError(
            f"s={float(np.broadcast_to(s, shape)[i])!r}, {key}={value!r}{_at(i)}: draws of this"
            " law reach beyond float64's range (|s| + 64 scales > 1e308 on an unbounded side);"
            " the samplers draw in float64"
        )


def sample(
    mechanism: str,
    rng: np.random.Generator | int | None,
    size: Size = None,
    **params: ArrayLike,
) -> Floats:
    """Draws of ``mechanism`` (any name of the algebra) as a float64 array.

    ``rng`` a numpy Generator or an int seed; ``size`` numpy's convention (None:
    the parameters' broadcast shape), at most the ``sample size`` ceiling of
    :mod:`dpcheck.inputs.limits` (10^8 draws per call); ``params`` as in
    :mod:`dpcheck.numeric.mechanism_params`, scalars or arrays.  The methods
    are those of the module docstring (inversion or a transform of numpy's
    exponential/normal draws; never a rejection loop).
    """
    gen = generator(rng)
    name, arrays, shape = parameters(mechanism, params)
    shape = samplers.checked_shape(size, shape)
    bounding, base = parts(name)
    draw = draws.block(registry.of_base(base), bounding)
    return samplers._blocked(shape, list(arrays), lambda k, *a: draw(gen, k, *a))


__all__ = ["parameters", "sample"]
