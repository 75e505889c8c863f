"""Truncated and BIT draws for the simulation studies (Liu 2019, Definition 2, used in §4).

The library samplers (:mod:`dpcheck.sampling.samplers`) take c0 <= s <= c1, as
Definition 2 does.  Study 1 needs two more cases:

* the covariance is sanitised within ±sqrt(S11* S22*), an interval that need
  not contain S12 (§4.1: "The interval constraint on S12* does not have to
  contain the original S12");
* that interval is a single point when a BIT variance sits on its bound 0.

For the truncated mechanism the density on [c0, c1] is proportional to
exp(-|x - s|/λ); for s > c1 that is exp((x - s)/λ) ∝ exp(-|x - c1|/λ), so the law
is that of s = c1 (and of s = c0 for s < c0): :func:`sanitise` draws it with
s clamped into the bounds (the identity is checked in the tests).  For BIT the
draw is clamp(Lap(s, λ), c0, c1) for every s.  On a one-point interval both
return the point.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from dpcheck.errors import InputError
from dpcheck.numeric.arrays import Floats
from dpcheck.sampling import samplers

MECHANISMS = ("truncated", "bit")


def check_mechanism(mechanism: str) -> None:
    """A one-line error for a mechanism other than 'truncated' or 'bit'."""
    if mechanism not in MECHANISMS:
        raise InputError(f"mechanism={mechanism!r} is not one of {', '.join(MECHANISMS)}")


def sanitise(
    rng: np.random.Generator,
    mechanism: str,
    s: ArrayLike,
    c0: ArrayLike,
    c1: ArrayLike,
    lam: ArrayLike,
) -> Floats:
    """One draw of the truncated or BIT mechanism per element of the broadcast (s, c0, c1, λ).

    Any finite s is allowed (see the module docstring); c0 = c1 gives c0.
    """
    check_mechanism(mechanism)
    s_, c0_, c1_, lam_ = (np.asarray(a, dtype=float) for a in (s, c0, c1, lam))
    s_, c0_, c1_, lam_ = np.broadcast_arrays(s_, c0_, c1_, lam_)
    if np.any(c1_ < c0_):
        raise InputError("the upper bound c1 is below c0 somewhere (expected c0 <= c1)")
    if mechanism == "bit":
        return np.clip(samplers.laplace(rng, s_, lam_), c0_, c1_)
    out = c0_.copy()
    open_ = c1_ > c0_
    if open_.any():
        lo, hi = c0_[open_], c1_[open_]
        out[open_] = samplers.truncated(rng, np.clip(s_[open_], lo, hi), lo, hi, lam_[open_])
    return out
