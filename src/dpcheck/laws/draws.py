"""Vectorised float64 draws of a law under a bounding (issue 35): ``block(law, bounding)``.

A law gives its draws the way it gives a closed form (scipy.stats' ``_*_formula``
pattern, :mod:`dpcheck.laws.noise`): through optional methods, each for one block of
``k`` draws whose parameters are scalars or arrays of length ``k``:

* ``_noise_draws(gen, k, theta)``: k draws of the noise Z, at the law's *draw
  parameter* θ (``_draw_theta(values)`` gives it from the law's parameters, floats or
  arrays: λ for the
  Laplace, σ for the Gaussian, the rate 1/b for the discrete Laplace);
* ``_truncated_draws(gen, k, s, c0, c1, theta)``: s + Z conditioned on [c0, c1]
  (Liu 2019, Definition 2(a));
* ``_folded_draws(gen, k, s, c0, c1, theta)``: s + Z reflected into [c0, c1].

The bounding is the transformation; only what cannot be derived is the law's:

* no bounding: s + Z;
* ``clamped`` (Definition 2(b)): clip(s + Z, c0, c1), for *every* law with noise draws;
* ``truncated`` and ``folded``: the law's own inversion (no rejection loop, nothing
  cancels: each shipped law's method says how), clipped into [c0, c1] against a last
  rounding.

A law without the method a bounding needs is refused in one line; its scalar-parameter
sampler is :func:`dpcheck.laws.float64.sampler`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np

from dpcheck.errors import InputError
from dpcheck.laws.noise import NoiseLaw

Floats = np.ndarray
Draw = Callable[..., Floats]

#: the largest float64 below 1 (keeps an inverse CDF's argument off its pole)
BELOW_ONE = float(np.nextafter(1.0, 0.0))
#: caps (in units of the scale) below which a truncated exponential is drawn as uniform
TINY = 1e-290

BOUNDINGS = ("none", "truncated", "clamped", "folded")


def clip(y: Floats, c0: Floats, c1: Floats) -> Floats:
    """y clipped into [c0, c1] in place."""
    np.maximum(y, c0, out=y)
    np.minimum(y, c1, out=y)
    return y


def truncated_exponential(v: Floats, cap: Floats, scaled: bool = False) -> Floats:
    """Inversion of Exp(1) conditioned on [0, cap): -log1p(-V·(-expm1(-cap))), V ~ U[0, 1).

    With ``scaled`` the second argument is already the mass -expm1(-cap).
    """
    t = cap if scaled else -np.expm1(-cap)
    t = t * v
    np.negative(t, out=t)
    np.log1p(t, out=t)
    np.negative(t, out=t)
    return t


def pick(index: np.ndarray, options: list) -> Floats:
    """options[index] elementwise: a table lookup when every option is a scalar, else a
    gather from the stacked options (cheaper than ``np.choose``)."""
    if all(np.ndim(o) == 0 for o in options):
        return np.array([float(o) for o in options]).take(index)
    k = index.size
    stacked = np.stack([np.broadcast_to(o, (k,)) for o in options])
    return stacked.reshape(-1)[index * k + np.arange(k)]


#: the method each bounding needs of the law (the clamp is the same transformation of any
#: law that draws its noise)
NEEDS = {
    "none": "_noise_draws",
    "clamped": "_noise_draws",
    "truncated": "_truncated_draws",
    "folded": "_folded_draws",
}


def has_own(law: NoiseLaw, bounding: str) -> bool:
    """Whether the law draws ``bounding``(s + Z) itself (else the scalar generic route of
    :func:`dpcheck.laws.float64.bounded_sampler`)."""
    return hasattr(law, NEEDS[bounding])


def theta(law: NoiseLaw, values: Mapping[str, object]) -> Floats:
    """The law's draw parameter at its (exact or float) parameters."""
    return law._draw_theta({k: float(v) for k, v in values.items()})  # type: ignore[attr-defined, arg-type]


def _method(law: NoiseLaw, bounding: str) -> Draw:
    name = NEEDS[bounding]
    method = getattr(law, name, None)
    if method is None:
        what = "noise" if bounding in ("none", "clamped") else f"{bounding} {law.name}"
        raise InputError(
            f"{law.name} has no vectorised float64 sampler of the {what} (expected a law"
            f" with {name}; dpcheck.laws.float64.sampler draws any law at scalar parameters)"
        )
    return method  # type: ignore[no-any-return]


def block(law: NoiseLaw, bounding: str) -> Draw:
    """``draw(gen, k, s, c0, c1, theta)``: one block of k draws of ``bounding``(s + Z)."""
    if bounding not in BOUNDINGS:
        raise InputError(f"bounding {bounding!r} (expected one of: {', '.join(BOUNDINGS)})")
    if bounding in ("truncated", "folded"):
        own = _method(law, bounding)
        return lambda gen, k, s, c0, c1, theta: clip(own(gen, k, s, c0, c1, theta), c0, c1)
    noise = _method(law, bounding)

    def shifted(gen: np.random.Generator, k: int, s, c0, c1, theta) -> Floats:  # type: ignore[no-untyped-def]
        y = noise(gen, k, theta)
        y += s
        return y if bounding == "none" else clip(y, c0, c1)

    return shifted


__all__ = [
    "BOUNDINGS", "NEEDS", "block", "clip", "has_own", "pick", "theta", "truncated_exponential",
]
