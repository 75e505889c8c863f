"""numpy samplers of the Laplace, truncated and BIT mechanisms (Liu 2019, Definition 2).

All samplers take a :class:`numpy.random.Generator` (or an int seed), broadcast
over arrays of s, c0, c1 and λ like numpy's own distributions, and follow
numpy's ``size`` convention.  Parameters are validated elementwise
(:func:`dpcheck.numeric.arrays.mechanism_params`): NaN, λ <= 0, c0 >= c1, s
outside [c0, c1] and negative sizes give a one-line InputError.

The draws are the Laplace law object's own (:mod:`dpcheck.laws.laplace`, through
:func:`dpcheck.laws.draws.block`; the same code serves
:func:`dpcheck.sampling.mechanisms.sample`):

* :func:`laplace`: s + λ(E1 - E2) with E1, E2 iid standard exponentials
  (numpy's ziggurat), exact including the tails.
* :func:`truncated`: Definition 2(a) by inversion of one uniform split at s, with no
  rejection loop and nothing cancelling, exact up to the 2^-53 resolution of the
  uniform for λ/(c1 - c0) from 1e-300 to 1e300.
* :func:`truncated_rejection`: the paper's post-hoc procedure (§3.1): redraw
  Lap(s, λ) until it lands in [c0, c1]; kept for comparison.  It needs about
  1/P(c0 <= X <= c1) draws per sample, so it refuses when that exceeds
  ``max_draws`` in total.
* :func:`bit`: Definition 2(b), the clamp of a Laplace draw to [c0, c1].
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from dpcheck.errors import InputError
from dpcheck.inputs.numbers import shown
from dpcheck.laws.draws import block
from dpcheck.numeric import names
from dpcheck.numeric.arrays import (
    Floats,
    as_floats,
    check_scale,
    mechanism_params,
    operator_index,
    output_shape,
)
from dpcheck.numeric.names import check_mechanism

if TYPE_CHECKING:
    from dpcheck.laws.laplace import Laplace

MECHANISMS = names.MECHANISMS
METHODS = ("inverse", "rejection")

#: samples per block: the temporaries of one block stay in cache
CHUNK = 65536

Size = int | Sequence[int] | None


def generator(rng: np.random.Generator | int | None) -> np.random.Generator:
    """A Generator from a Generator or an int seed (None: fresh OS entropy)."""
    if isinstance(rng, np.random.Generator):
        return rng
    if rng is None or (isinstance(rng, (int, np.integer)) and not isinstance(rng, bool)):
        if rng is not None and rng < 0:
            raise InputError(f"seed={shown(rng)} must be a non-negative integer")
        return np.random.default_rng(rng)
    raise InputError(f"rng={shown(rng)} is not a numpy Generator or an integer seed")


#: numpy's largest number of dimensions (NPY_MAXDIMS of numpy 2; numpy 1 allows 32)
_MAX_DIMS = 64


def checked_shape(size: object, params_shape: tuple[int, ...]) -> tuple[int, ...]:
    """The shape of a sample (numpy's ``size`` convention, :func:`output_shape`), refused in
    one line when it holds more draws than the ``sample size`` ceiling of
    :mod:`dpcheck.inputs.limits` (10^8 draws per call: 800 MB of float64).

    The size is read and its draws counted with Python integers *before* numpy sees it,
    so ``2**40`` or ``(2**40, 2**40)`` is refused at once instead of raising numpy's
    MemoryError (or being misread as a shape that does not broadcast); the same ceiling
    applies to the parameters' broadcast shape when ``size`` is None.
    """
    if size is not None and not isinstance(size, (bool, np.bool_)):
        try:
            dims = (
                (operator_index(size),)
                if np.ndim(size) == 0  # type: ignore[arg-type]
                else tuple(operator_index(k) for k in size)  # type: ignore[union-attr]
            )
        except (TypeError, ValueError):
            dims = None  # not integers: output_shape words the refusal
        if dims is not None:
            if len(dims) > _MAX_DIMS:
                raise InputError(
                    f"size={shown(size)} has {len(dims)} dimensions (expected at most"
                    f" {_MAX_DIMS}, numpy's limit)"
                )
            if all(k >= 0 for k in dims):
                _refuse_above(size, dims)
    shape = output_shape(size, params_shape)  # type: ignore[arg-type]
    _refuse_above(size, shape)
    return shape


def _order(n: int) -> int:
    """floor(log10 n) of a positive integer however long (no decimal text is built)."""
    import mpmath

    with mpmath.workdps(30):
        return int(mpmath.floor(mpmath.log10(n)))


def _refuse_above(size: object, dims: tuple[int, ...]) -> None:
    """InputError when ``dims`` hold more draws (or one dimension more) than the ceiling."""
    from dpcheck.inputs import limits

    ceiling = limits.ceiling("sample", "size")
    total = math.prod(dims)
    what = f"size={shown(size)}" if size is not None else f"the parameters' shape {dims}"
    if total > ceiling.maximum:
        if total < 10**30:
            count = f"{total:_}".replace("_", " ")
        else:
            count = f"about 10^{_order(total)}"
        raise InputError(f"{what} asks for {count} draws, above {ceiling.describe()}")
    if max(dims, default=0) > ceiling.maximum:  # an empty shape with a huge dimension
        raise InputError(f"{what} has a dimension of {max(dims)}, above {ceiling.describe()}")


def _blocked(
    shape: tuple[int, ...], params: list[Floats], draw: Callable[..., Floats]
) -> Floats:
    """Fill an array of ``shape`` block by block; 0-d parameters stay scalars."""
    total = int(np.prod(shape, dtype=np.int64))
    flat = [p if p.ndim == 0 else np.broadcast_to(p, shape).reshape(-1) for p in params]
    out = np.empty(total)
    # a product or quotient overflowing to ±inf is intended (a draw past a bound, clamped;
    # a mass e^(-inf) = 0), so it is not warned about
    with np.errstate(over="ignore"):
        for start in range(0, total, CHUNK):
            stop = min(start + CHUNK, total)
            args = [p if p.ndim == 0 else p[start:stop] for p in flat]
            out[start:stop] = draw(stop - start, *args)
    return out.reshape(shape)


def _scalar_or_array(*arrays: Floats) -> tuple[list[Floats], tuple[int, ...]]:
    """Keep 0-d parameters as 0-d, so that blocks broadcast scalars for free."""
    shape = np.broadcast_shapes(*(a.shape for a in arrays))
    return [np.asarray(a) for a in arrays], shape


def _validated(s, c0, c1, lam) -> tuple[list[Floats], tuple[int, ...]]:
    return _scalar_or_array(*mechanism_params(s, c0, c1, lam))


def _laplace() -> Laplace:  # the module builds the law (SymPy) only when it draws
    """The Laplace law object, whose draws these are (built on first use)."""
    from dpcheck.laws import registry

    return registry.get("laplace")  # type: ignore[return-value]


def _laplace_noise(rng: np.random.Generator, k: int) -> Floats:
    """k draws of Lap(0, 1): the law's noise draws at λ = 1 (the same float64 values)."""
    return _laplace()._noise_draws(rng, k, 1.0)


def laplace(
    rng: np.random.Generator | int | None, s: ArrayLike, lam: ArrayLike, size: Size = None
) -> Floats:
    """Draws of Lap(s, λ): s + λ(E1 - E2), E1, E2 iid Exp(1) (exact in law)."""
    gen = generator(rng)
    s_, lam_ = as_floats("s", s), as_floats("lam", lam)
    check_scale(lam_)
    params, shape = _scalar_or_array(s_, lam_)
    shape = checked_shape(size, shape)

    draw = block(_laplace(), "none")
    return _blocked(shape, params, lambda k, s_b, lam_b: draw(gen, k, s_b, None, None, lam_b))


def _bounded(
    rng: np.random.Generator | int | None,
    params: tuple[ArrayLike, ArrayLike, ArrayLike, ArrayLike],
    size: Size,
    bounding: str,
) -> Floats:
    """Validate (s, c0, c1, λ) and draw ``bounding``(Lap(s, λ)) by blocks: the Laplace law's
    own draws (:func:`dpcheck.laws.draws.block`), clipped into [c0, c1] (for BIT the clamp
    is the mechanism; for the truncated inversion it only guards against a draw rounded a
    last ulp outside)."""
    gen = generator(rng)
    arrays, shape = _validated(*params)
    shape = checked_shape(size, shape)
    draw = block(_laplace(), bounding)
    return _blocked(shape, arrays, lambda k, *a: draw(gen, k, *a))


def bit(
    rng: np.random.Generator | int | None,
    s: ArrayLike,
    c0: ArrayLike,
    c1: ArrayLike,
    lam: ArrayLike,
    size: Size = None,
) -> Floats:
    """Draws of the BIT mechanism (Definition 2(b), eq (5)): clamp(Lap(s, λ), c0, c1)."""
    return _bounded(rng, (s, c0, c1, lam), size, "clamped")


def truncated(
    rng: np.random.Generator | int | None,
    s: ArrayLike,
    c0: ArrayLike,
    c1: ArrayLike,
    lam: ArrayLike,
    size: Size = None,
) -> Floats:
    """Draws of the truncated mechanism (Definition 2(a), eq (4)) by exact inversion.

    One uniform U per draw.  W = U (P1(u) + P1(v)) is twice the Laplace mass
    between s and the draw, counted over [c0, s] first and then over [s, c1]
    (P1(x) = -expm1(-x), u = (s-c0)/λ, v = (c1-s)/λ): for W < P1(u) the draw
    lies -λ log1p(-W) below s, otherwise -λ log1p(-(W - P1(u))) above it.
    """
    return _bounded(rng, (s, c0, c1, lam), size, "truncated")


def truncated_rejection(
    rng: np.random.Generator | int | None,
    s: ArrayLike,
    c0: ArrayLike,
    c1: ArrayLike,
    lam: ArrayLike,
    size: Size = None,
    max_draws: int = 10**9,
) -> Floats:
    """The paper's procedure (§3.1): redraw Lap(s, λ) until it falls in [c0, c1].

    Exact in law (liu2019.def2.rejection_law) but it needs 1/P(c0 <= X <= c1)
    draws per sample on average; with more than ``max_draws`` expected in
    total it raises an InputError that names the acceptance probability.
    """
    from dpcheck.numeric import fast

    gen = generator(rng)
    params, shape = _validated(s, c0, c1, lam)
    shape = checked_shape(size, shape)
    s_, c0_, c1_, lam_ = (np.broadcast_to(p, shape).reshape(-1) for p in params)
    total = s_.size
    if total:
        u, v = (s_ - c0_) / lam_, (c1_ - s_) / lam_
        accept = 0.5 * (fast.gamma_p(1, u) + fast.gamma_p(1, v))
        expected = float(np.sum(1.0 / accept))
        if expected > max_draws:
            worst = float(accept.min())
            raise InputError(
                f"rejection would need about {expected:.3g} draws (acceptance probability"
                f" down to {worst:.3g}; max_draws={max_draws}); use the inverse-CDF sampler"
            )
    out = s_ + lam_ * _laplace_noise(gen, total)
    todo = np.flatnonzero((out < c0_) | (out > c1_))
    while todo.size:
        redraw = s_[todo] + lam_[todo] * _laplace_noise(gen, todo.size)
        out[todo] = redraw
        todo = todo[(redraw < c0_[todo]) | (redraw > c1_[todo])]
    return out.reshape(shape)


def sample(
    mechanism: str,
    rng: np.random.Generator | int | None,
    s: ArrayLike,
    c0: ArrayLike,
    c1: ArrayLike,
    lam: ArrayLike,
    size: Size = None,
    method: str = "inverse",
) -> Floats:
    """Dispatch: 'truncated' (method 'inverse' or 'rejection') or 'bit'."""
    check_mechanism(mechanism)
    if method not in METHODS:
        raise InputError(f"unknown method {method!r} (expected one of: inverse, rejection)")
    if mechanism == "bit":
        return bit(rng, s, c0, c1, lam, size)
    if method == "rejection":
        return truncated_rejection(rng, s, c0, c1, lam, size)
    return truncated(rng, s, c0, c1, lam, size)


__all__ = [
    "MECHANISMS",
    "METHODS",
    "bit",
    "generator",
    "laplace",
    "sample",
    "truncated",
    "truncated_rejection",
]
