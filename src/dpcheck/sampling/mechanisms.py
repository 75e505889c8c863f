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

Laplace base (Liu 2019, eq (2)):

* ``laplace``: s + λ(E1 - E2), E1, E2 iid Exp(1) (:mod:`dpcheck.sampling.samplers`).
* ``truncated-laplace`` (Definition 2(a)), ``clamped-laplace`` (2(b)): the
  cancellation-free inversion and the clamp of :mod:`dpcheck.sampling.samplers`
  (the same code; it accepts an infinite bound as it stands).
* ``folded-laplace`` (diffprivlib's LaplaceFolded; :mod:`dpcheck.symbolic.folding`):
  fold(X), X ~ Lap(s, λ), where fold is even about c0 and 2R-periodic
  (R = c1 - c0).  By the memorylessness of the exponential, given that X
  leaves [c0, c1] through c1 its overshoot X - c1 is λE' with E' ~ Exp(1), and
  fold(X) = c1 - tri(λE' mod 2R), tri(t) = min(t, 2R - t) (likewise through
  c0).  E' mod p, p = 2R/λ, has the exponential law truncated to [0, p)
  (independent of the number of whole periods), so it is drawn directly by
  inversion, -log1p(-V·(-expm1(-p))).  Nothing loops and nothing cancels: at
  λ/R = 1e300 the overshoot modulo 2R is still exactly distributed, whereas
  ``fmod`` of a float64 Laplace draw there only sees the draw's last bits.

Gaussian base (density φ((x - s)/σ)/σ):

* ``gaussian``: s + σ·N(0, 1) (numpy's ziggurat).
* ``truncated-gaussian``: inversion of one uniform split at s, as for the
  Laplace.  With a = (s - c0)/σ, b = (c1 - s)/σ (both >= 0, since c0 <= s <= c1)
  the standard-normal masses of the two sides are m0 = erf(a/√2)/2 and
  m1 = erf(b/√2)/2, each accurate to a few ulps for any a, b (erf has no
  cancellation near 0, where σ ≫ R, and saturates at 1/2 in the tails);
  W = U(m0 + m1) picks the side and the mass w from s to the draw, and the
  draw lies √2·erfinv(2w)·σ from s.  So the law is right when σ/R is 1e-300
  (a narrow normal, nearly all of it inside) as when it is 1e300 (nearly
  uniform), and when a bound lies 30σ or more from s (the interval always
  contains s, so it can never lie wholly in a tail; the tail beyond which
  the remaining mass is below 2^-53 of the total is not reached, as with
  any inversion of one float64 uniform).  When R/σ < ~1e-290 (the masses
  would be subnormal) the law is the uniform on [c0, c1] to within 1e-580
  and is drawn so.
* ``clamped-gaussian``: clip(s + σN, c0, c1).

Geometric base (two-sided geometric on s + Z, P(Z = m) = (1-α)/(1+α) α^|m|,
α = e^{-1/b} = e^{-r}):

* ``geometric``: Z = ⌊E1/r⌋ - ⌊E2/r⌋ with E1, E2 iid Exp(1): ⌊E/r⌋ is exactly
  geometric on {0, 1, ...} with P(⌊E/r⌋ >= k) = e^{-kr} = α^k, and the
  difference of two iid such variables is the two-sided geometric.  (numpy's
  ``Generator.geometric`` is the same law but returns int64 and saturates at
  2^63 - 1 for success probabilities below about 1e-18, i.e. b above 1e18.)
* ``truncated-geometric``: exact inversion on the integers of [c0, c1], split
  at s like the Laplace: with u = s - c0 and v = c1 - s (integers, possibly
  infinite) the unnormalised masses are 1 at s and
  M(d) = α(-expm1(-d r))/(-expm1(-r)) = Σ_{m=1}^{d} α^m on each side, all
  sums of non-negative terms; a uniform picks s, the lower or the upper side,
  and the distance on that side is 1 + ⌊T/r⌋ with T ~ Exp(1) truncated to
  [0, d r) (drawn by inversion), which is P(distance = m) ∝ α^m on 1..d.
* ``clamped-geometric``: clip(s + Z, c0, c1).

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
from collections.abc import Callable, Mapping
from fractions import Fraction

import numpy as np
from numpy.typing import ArrayLike
from scipy import special

from dpcheck.errors import InputError
from dpcheck.inputs.numbers import parse_number, shown
from dpcheck.numeric.arrays import Floats
from dpcheck.numeric.mechanism_params import INFINITE, scale_words
from dpcheck.numeric.mechanism_params import allowed as allowed_keys
from dpcheck.numeric.names import BASES, canonical_mechanism, parts
from dpcheck.sampling import samplers
from dpcheck.sampling.samplers import Size, generator

_SQRT2 = math.sqrt(2.0)
#: the largest float64 below 1 (keeps erfinv's argument off its pole)
_BELOW_ONE = float(np.nextafter(1.0, 0.0))
#: caps (in units of the scale) below which the truncated exponential is drawn as uniform
_TINY = 1e-290

Draw = Callable[..., Floats]


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


def _theta(base: str, values: Mapping[str, object]) -> Floats:
    """The scale λ or σ; for the geometric base the rate r = 1/b = -log α."""
    own = BASES[base]
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
        return lam
    if key == "alpha":
        a = _array("alpha", values["alpha"])
        bad = ~((a > 0) & (a < 1))
        if bad.any():
            raise InputError(f"alpha={_first(a, bad)} must lie strictly between 0 and 1")
        return -np.log(a)
    scale = _positive(key, values[key])
    if base == "geometric":
        with np.errstate(over="ignore"):
            return 1.0 / scale  # 1/b underflows to 0 only for b > 1e308: refused below
    return scale


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
    theta = _theta(base, values)
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
    if base == "geometric":
        for key, arr in (("s", s), ("c0", c0), ("c1", c1)):
            fractional = np.isfinite(arr) & (np.floor(arr) != arr)
            if fractional.any():
                raise InputError(
                    f"{key}={_first(arr, fractional)} must be an integer: the geometric base"
                    " lives on the integers"
                )
        zero = ~(theta > 0)
        if zero.any():
            raise InputError(
                f"the geometric scale is too large{_at(_where(zero))}"
                " (1/scale underflows float64; expected scale <= 1e308)"
            )
    _check_reach(base, bounding, s, c0, c1, theta, shape)
    return name, (s, c0, c1, theta), shape


#: draws lie within this many scales of s but with probability below 2^-64 (the Laplace
#: difference of two exponentials needs E > 44; the Gaussian ziggurat stops near 8.3σ)
_REACH = 64.0


def _check_reach(base: str, bounding: str, s, c0, c1, theta, shape) -> None:  # type: ignore[no-untyped-def]
    """Refuse a law that is unbounded on a side and reaches beyond float64's range there:
    |s| + 64 scales > 1e308 would give draws of ±inf (or NaN, inf - inf, in the geometric
    base's difference of two floors), which no float64 sampler can avoid."""
    with np.errstate(over="ignore", divide="ignore"):
        scale = 1.0 / theta if base == "geometric" else theta
        reach = np.abs(s) + _REACH * scale
    if bounding == "none":
        open_side = np.ones(shape, dtype=bool)
    else:
        open_side = np.isinf(c0) | np.isinf(c1)
    bad = np.broadcast_to(open_side & ~(reach <= 1e308), shape)
    if bad.any():
        i = _where(bad)
        key = "scale" if base == "geometric" else BASES[base]
        value = float(np.broadcast_to(scale, shape)[i])
        raise InputError(
            f"s={float(np.broadcast_to(s, shape)[i])!r}, {key}={value!r}{_at(i)}: draws of this"
            " law reach beyond float64's range (|s| + 64 scales > 1e308 on an unbounded side);"
            " the samplers draw in float64"
        )


# ---------------------------------------------------------------------------
# the draws of one block (k draws; parameters 0-d or of length k)
# ---------------------------------------------------------------------------


def _clip(y: Floats, c0: Floats, c1: Floats) -> Floats:
    np.maximum(y, c0, out=y)
    np.minimum(y, c1, out=y)
    return y


def _laplace(gen: np.random.Generator, k: int, s, c0, c1, lam) -> Floats:
    y = samplers._laplace_noise(gen, k)
    y *= lam
    y += s
    return y


def _truncated_laplace(gen: np.random.Generator, k: int, s, c0, c1, lam) -> Floats:
    return _clip(samplers._inverse_draws(gen, k, s, c0, c1, lam), c0, c1)


def _clamped_laplace(gen: np.random.Generator, k: int, s, c0, c1, lam) -> Floats:
    return _clip(samplers._laplace_draws(gen, k, s, c0, c1, lam), c0, c1)


def _truncated_exponential(v: Floats, cap: Floats, scaled: bool = False) -> Floats:
    """Inversion of Exp(1) conditioned on [0, cap): -log1p(-V·(-expm1(-cap))), V ~ U[0, 1).

    With ``scaled`` the second argument is already the mass -expm1(-cap).
    """
    t = cap if scaled else -np.expm1(-cap)
    t = t * v
    np.negative(t, out=t)
    np.log1p(t, out=t)
    np.negative(t, out=t)
    return t


def _pick(index: np.ndarray, options: list) -> Floats:
    """options[index] elementwise: a table lookup when every option is a scalar, else a
    gather from the stacked options (cheaper than ``np.choose``)."""
    if all(np.ndim(o) == 0 for o in options):
        return np.array([float(o) for o in options]).take(index)
    k = index.size
    stacked = np.stack([np.broadcast_to(o, (k,)) for o in options])
    return stacked.reshape(-1)[index * k + np.arange(k)]


def _folded_laplace(gen: np.random.Generator, k: int, s, c0, c1, lam) -> Floats:
    """One block of fold(Lap(s, λ)) (see the module docstring).

    A first uniform picks the case -- inside below s, inside above s, overshoot
    through c0, overshoot through c1, with probabilities (1 - e^{-u})/2,
    (1 - e^{-v})/2, e^{-u}/2, e^{-v}/2 (u = (s - c0)/λ, v = (c1 - s)/λ) -- and a
    second one the distance d, by inversion of the exponential truncated to
    [0, u), [0, v) or, for an overshoot, [0, 2R/λ).  The draw is s - d, s + d,
    c0 + tri(d) or c1 - tri(d), tri(d) = min(d, 2R - d) (= d inside, where d <= R).
    """
    width = c1 - c0
    u = (s - c0) / lam
    v = (c1 - s) / lam
    period = 2.0 * width / lam  # the fold's period 2R in units of λ
    pick = gen.random(k)
    above = pick >= 0.5
    pick *= 2.0
    pick -= above  # uniform on [0, 1) again, given the side
    case = above.astype(np.intp)
    case += 2 * (pick < _pick(case, [np.exp(-u), np.exp(-v)]))  # P(overshoot | side)
    full = -np.expm1(-period)
    position = gen.random(k)
    dist = _truncated_exponential(
        position, _pick(case, [-np.expm1(-u), -np.expm1(-v), full, full]), scaled=True
    )
    dist *= lam
    if np.any(period < _TINY) or np.any((u > 0) & (u < _TINY)) or np.any((v > 0) & (v < _TINY)):
        # a positive cap that underflows: the truncated exponential is uniform on [0, cap)
        cap = _pick(case, [u, v, period, period])
        length = _pick(case, [s - c0, c1 - s, 2.0 * width, 2.0 * width])  # cap·λ
        dist = np.where(cap < _TINY, position * length, dist)
    # an overshoot t in [0, 2R) beyond a bound folds to tri(t) = min(t, 2R - t) inside it
    np.minimum(dist, 2.0 * width - dist, out=dist)
    np.maximum(dist, 0.0, out=dist)
    dist *= _pick(case, [-1.0, 1.0, 1.0, -1.0])
    dist += _pick(case, [s, s, c0, c1])
    return _clip(dist, c0, c1)


def _gaussian(gen: np.random.Generator, k: int, s, c0, c1, sigma) -> Floats:
    y = gen.standard_normal(k)
    y *= sigma
    y += s
    return y


def _clamped_gaussian(gen: np.random.Generator, k: int, s, c0, c1, sigma) -> Floats:
    return _clip(_gaussian(gen, k, s, c0, c1, sigma), c0, c1)


def _truncated_gaussian(gen: np.random.Generator, k: int, s, c0, c1, sigma) -> Floats:
    """One block of the truncated Gaussian by inversion split at s (module docstring)."""
    m0 = 0.5 * special.erf((s - c0) / sigma / _SQRT2)
    m1 = 0.5 * special.erf((c1 - s) / sigma / _SQRT2)
    total = m0 + m1
    u = gen.random(k)
    w = u * total
    above = w >= m0
    w -= m0 * above
    w *= 2.0
    np.minimum(w, _BELOW_ONE, out=w)
    z = special.erfinv(w)
    z *= _SQRT2 * sigma
    z *= 2.0 * above - 1.0
    z += s
    flat = np.asarray(total < _TINY)
    if flat.any():  # R/σ < ~1e-290: uniform on [c0, c1] to within 1e-580
        with np.errstate(invalid="ignore"):
            z = np.where(flat, c0 + u * (c1 - c0), z)
    return _clip(z, c0, c1)


def _geometric_noise(gen: np.random.Generator, k: int, rate) -> Floats:
    """⌊E1/r⌋ - ⌊E2/r⌋ (module docstring).  At a scale near float64's limit both floors
    may overflow to inf (E > 1.8e308·r, probability about e^-18 each at b = 1e307); the
    difference is then ±inf by the sign of E1 - E2 (|Z| below float64's range has
    probability far below 2^-53 there), never inf - inf = NaN; only the clamp of a bounded
    law sees it, and clips it to the bound on that side."""
    e1, e2 = gen.standard_exponential(k), gen.standard_exponential(k)
    z = np.floor(e1 / rate)
    with np.errstate(invalid="ignore"):  # inf - inf, replaced below
        z -= np.floor(e2 / rate)
    both = np.isnan(z)
    if both.any():
        z[both] = np.sign(e1[both] - e2[both]) * np.inf
        z[both & (e1 == e2)] = 0.0
    return z


def _geometric(gen: np.random.Generator, k: int, s, c0, c1, rate) -> Floats:
    z = _geometric_noise(gen, k, rate)
    z += s
    return z


def _clamped_geometric(gen: np.random.Generator, k: int, s, c0, c1, rate) -> Floats:
    return _clip(_geometric(gen, k, s, c0, c1, rate), c0, c1)


def _truncated_geometric(gen: np.random.Generator, k: int, s, c0, c1, rate) -> Floats:
    """One block of the truncated geometric by exact inversion on the integers.

    Unnormalised masses: 1 at s and M(d) = Σ_{m=1}^{d} α^m = α(-expm1(-d r))/(-expm1(-r))
    on a side at integer distance d (inf for an open side), sums of non-negative
    terms.  W = U(1 + M(u) + M(v)) picks s, then the lower side, then the upper
    one; on the chosen side (W - offset)/M(d) is uniform on [0, 1) and the
    distance is 1 + ⌊T/r⌋ with T = -log1p(-(W - offset)/M(d)·(-expm1(-d r))),
    the exponential truncated to [0, d r).
    """
    u_dist = s - c0  # integers (or inf)
    v_dist = c1 - s
    alpha_over = np.exp(-rate) / -np.expm1(-rate)  # α/(1 - α)
    q0 = -np.expm1(-u_dist * rate)
    q1 = -np.expm1(-v_dist * rate)
    m0 = alpha_over * q0
    m1 = alpha_over * q1
    w = gen.random(k)
    w *= 1.0 + m0 + m1
    case = (w >= 1.0).astype(np.intp)  # 0: at s, 1: below, 2: above
    case += w >= 1.0 + m0
    w -= _pick(case, [0.0, 1.0, 1.0 + m0])
    with np.errstate(invalid="ignore", divide="ignore"):
        w /= _pick(case, [1.0, m0, m1])  # uniform on [0, 1) on the chosen side
    np.clip(w, 0.0, _BELOW_ONE, out=w)
    np.nan_to_num(w, copy=False, nan=0.0)
    steps = _truncated_exponential(w, _pick(case, [0.0, q0, q1]), scaled=True)
    steps /= rate
    d = _pick(case, [0.0, u_dist, v_dist])
    if np.any(rate < _TINY):
        # caps d·r that underflow (d >= 1 on a side that can be chosen): the distance
        # is uniform on 1..d
        with np.errstate(invalid="ignore"):
            steps = np.where(d * rate < _TINY, w * d, steps)
    np.floor(steps, out=steps)
    steps += 1.0
    np.minimum(steps, d, out=steps)
    steps *= _pick(case, [0.0, -1.0, 1.0])
    steps += s
    return _clip(steps, c0, c1)


DRAWS: dict[str, Draw] = {
    "laplace": _laplace,
    "truncated-laplace": _truncated_laplace,
    "clamped-laplace": _clamped_laplace,
    "folded-laplace": _folded_laplace,
    "gaussian": _gaussian,
    "truncated-gaussian": _truncated_gaussian,
    "clamped-gaussian": _clamped_gaussian,
    "geometric": _geometric,
    "truncated-geometric": _truncated_geometric,
    "clamped-geometric": _clamped_geometric,
}


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
    draw = DRAWS[name]
    return samplers._blocked(shape, list(arrays), lambda k, *a: draw(gen, k, *a))


__all__ = ["DRAWS", "parameters", "sample"]
