"""Validation of float64 array parameters (the fast path and the samplers share it).

The bounded mechanisms of Liu (2019) Definition 2 need, elementwise, finite
values, λ > 0, c0 < c1 and c0 <= s <= c1 (see :mod:`dpcheck.numeric.params`
for the exact, scalar counterpart).  A bad element gives a one-line
:class:`~dpcheck.errors.InputError` naming the parameter, the value and, for
arrays, its index.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike, NDArray

from dpcheck.errors import InputError

Floats = NDArray[np.float64]


def as_floats(name: str, value: ArrayLike) -> Floats:
    """``value`` as a float64 array; bools, strings, objects and non-finite values are errors."""
    if isinstance(value, (str, bytes)):
        raise InputError(f"{name}={value!r} is not a number (expected a float or an array of them)")
    try:
        arr = np.asarray(value)
    except (TypeError, ValueError):
        raise InputError(f"{name}={value!r} is not a number or an array of numbers") from None
    if arr.dtype == bool or arr.dtype.kind not in "iuf":
        raise InputError(f"{name}={value!r} is not a number or an array of numbers")
    arr = arr.astype(np.float64, copy=False)
    bad = ~np.isfinite(arr)
    if bad.any():
        raise InputError(f"{name}={_first(arr, bad)} is not finite (expected finite numbers)")
    return arr


def _first(arr: Floats, mask: NDArray[np.bool_]) -> str:
    """The first offending element, with its index when ``arr`` is an array."""
    if arr.ndim == 0:
        return repr(float(arr))
    index = tuple(int(i) for i in np.argwhere(mask)[0])
    where = index[0] if len(index) == 1 else index
    return f"{float(arr[index])!r} (at index {where})"


def mechanism_params(
    s: ArrayLike, c0: ArrayLike, c1: ArrayLike, lam: ArrayLike
) -> tuple[Floats, Floats, Floats, Floats]:
    """(s, c0, c1, λ) as float64 arrays, validated elementwise on their broadcast (Definition 2).

    The arrays are returned as given (not broadcast), so that a scalar stays a
    0-d array and costs no memory traffic; they are known to broadcast.
    """
    arrays = [as_floats(n, v) for n, v in (("s", s), ("c0", c0), ("c1", c1), ("lam", lam))]
    try:
        s_, c0_, c1_, lam_ = np.broadcast_arrays(*arrays)
    except ValueError:
        names = ("s", "c0", "c1", "lam")
        shapes = ", ".join(f"{n} {a.shape}" for n, a in zip(names, arrays, strict=True))
        raise InputError(f"parameter shapes do not broadcast: {shapes}") from None
    check_scale(lam_)
    inverted = ~(c0_ < c1_)
    if inverted.any():
        i = _index(inverted)
        raise InputError(f"c0={float(c0_[i])!r} must be smaller than c1={float(c1_[i])!r}{_at(i)}")
    outside = (s_ < c0_) | (s_ > c1_)
    if outside.any():
        i = _index(outside)
        raise InputError(
            f"s={float(s_[i])!r} is outside [c0, c1] = [{float(c0_[i])!r}, {float(c1_[i])!r}]"
            f"{_at(i)}"
            " (Liu 2019, Definition 2 needs c0 <= s <= c1)"
        )
    return arrays[0], arrays[1], arrays[2], arrays[3]


def check_scale(lam: Floats) -> None:
    """λ > 0 elementwise."""
    bad = ~(lam > 0)
    if bad.any():
        raise InputError(f"lam={_first(lam, bad)} must be positive")


def _index(mask: NDArray[np.bool_]) -> tuple[int, ...]:
    return tuple(int(i) for i in np.argwhere(mask)[0])


def _at(index: tuple[int, ...]) -> str:
    if not index:
        return ""
    return f" (at index {index[0] if len(index) == 1 else index})"


def output_shape(
    size: int | Sequence[int] | None, params_shape: tuple[int, ...]
) -> tuple[int, ...]:
    """The shape of a sample: ``size`` (numpy's convention) or the parameters' shape."""
    if size is None:
        return params_shape
    if isinstance(size, (bool, np.bool_)):
        raise InputError(f"size={size!r} is not a non-negative integer")
    try:
        shape = (operator_index(size),) if np.ndim(size) == 0 else tuple(
            operator_index(k) for k in size  # type: ignore[union-attr]
        )
    except TypeError:
        raise InputError(f"size={size!r} is not a non-negative integer or tuple of them") from None
    if any(k < 0 for k in shape):
        raise InputError(f"size={size!r} must be >= 0")
    try:
        full = np.broadcast_shapes(shape, params_shape)
    except ValueError:
        full = None
    if full != shape:
        raise InputError(
            f"size={size!r} does not hold the parameters' shape {params_shape}"
            " (expected a size the parameters broadcast to)"
        )
    return shape


def operator_index(k: object) -> int:
    """int(k) for integer types only (numpy's rule for sizes); TypeError otherwise."""
    if isinstance(k, (bool, np.bool_)):
        raise TypeError("bool is not a size")
    return operator.index(k)  # type: ignore[arg-type]
