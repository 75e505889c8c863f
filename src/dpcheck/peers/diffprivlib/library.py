"""Calls into diffprivlib 0.6.6 (the library under test), and nothing else.

Imports ``diffprivlib.mechanisms`` lazily (an InputError saying how to install
it otherwise), constructs ``LaplaceTruncated`` / ``LaplaceFolded`` /
``LaplaceBoundedDomain`` at a :class:`~dpcheck.peers.diffprivlib.points.Point`,
calls it with numpy's warnings silenced (its exceptions are results here),
reproduces ``Laplace.randomise``'s float scale λ = Δ/(ε - log(1-δ)), caches
``LaplaceBoundedDomain._find_scale()`` (Holohan et al. 2018/2020) per setting,
and turns the library's values into text and mpf.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from types import ModuleType
from typing import Any

from mpmath import mpf

from dpcheck.errors import InputError
from dpcheck.peers.diffprivlib.points import Point

_PIP = "pip install 'dpcheck[peers]' (diffprivlib 0.6.6 needs scikit-learn < 1.6)"


def _library() -> ModuleType:
    """diffprivlib.mechanisms, or an InputError saying how to install it."""
    try:
        from diffprivlib import mechanisms
    except ImportError as exc:
        raise InputError(f"diffprivlib is not importable ({exc}): {_PIP}") from None
    return mechanisms


def _call(f: Callable[[], Any]) -> tuple[Any, BaseException | None]:
    """Call the library with its numpy warnings silenced; return (value, exception)."""
    import numpy as np

    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            return f(), None
        except Exception as exc:  # the library's failures are results here
            return None, exc


def _make(point: Point, seed: int | None = None) -> Any:
    cls = getattr(_library(), point.mechanism)
    return cls(
        epsilon=point.epsilon,
        delta=point.delta,
        sensitivity=point.sensitivity,
        lower=point.lower,
        upper=point.upper,
        random_state=seed,
    )


def _randomise_scale(mech: Any) -> float:
    """The scale Laplace.randomise uses: sensitivity / (epsilon - log(1 - delta)), in floats."""
    import numpy as np

    with np.errstate(all="ignore"):
        return float(mech.sensitivity / (mech.epsilon - np.log(1 - mech.delta)))


_SCALES: dict[tuple[Any, ...], tuple[Any, BaseException | None]] = {}


def _library_scale(point: Point) -> tuple[Any, BaseException | None]:
    """``LaplaceBoundedDomain._find_scale()`` for the point's setting (cached)."""
    key = point.setting[1:]
    if key not in _SCALES:
        mech = _make(Point("LaplaceBoundedDomain", *key, point.value))
        _SCALES[key] = _call(mech._find_scale)
    return _SCALES[key]


def _text(value: Any) -> str:
    """A library value as text: numpy scalars as plain floats ('nan', not np.float64(nan))."""
    try:
        return repr(float(value))
    except (TypeError, ValueError):
        return repr(value)


def _as_mpf(value: Any) -> mpf | None:
    try:
        return mpf(float(value))
    except (TypeError, ValueError):
        return None
