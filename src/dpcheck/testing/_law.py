"""``assert_sampler_law``: draws against the exact law of a mechanism (dpcheck.testing).

The tests are those of :func:`dpcheck.sampling.goodness.check_law` (its
module docstring): the mean and the second moment about s by Bernstein's
inequality or a median of means with the exact variance, the whole law by the
Dvoretzky-Kiefer-Wolfowitz inequality (Massart's constant; point masses and
lattice laws included), each point mass by an exact two-sided binomial test,
and the support (a draw the law cannot produce has probability 0, so that
check costs no false alarm).  With K statistical tests each runs at level
false_alarm/K, so a correct sampler fails with probability <= false_alarm
(union bound).  This module only validates the input and words the failure.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from numpy.typing import ArrayLike

from dpcheck.errors import InputError
from dpcheck.inputs.numbers import shown
from dpcheck.numeric.names import canonical_mechanism
from dpcheck.sampling.goodness import Check, check_law
from dpcheck.testing import _defaults


def _draws(draws: ArrayLike) -> np.ndarray:
    """The draws as a flat float64 array; one-line InputError for anything else."""
    if isinstance(draws, (str, bytes, Mapping)):
        raise InputError(f"draws={shown(draws)} is not an array of numbers")
    try:
        arr = np.asarray(draws)
    except (TypeError, ValueError):
        raise InputError(f"draws={shown(draws)} is not an array of numbers") from None
    if arr.dtype == bool or arr.dtype.kind not in "iuf":
        raise InputError(
            f"draws of dtype {arr.dtype} are not real numbers (expected a numpy array of floats"
            " or integers)"
        )
    x = arr.astype(np.float64, copy=False).reshape(-1)
    if x.size == 0:
        raise InputError("draws is empty (expected at least one draw)")
    nan = np.isnan(x)
    if nan.any():
        i = int(np.flatnonzero(nan)[0])
        raise InputError(
            f"draws contain {int(nan.sum())} NaN value(s), the first at flat index {i}"
            " (expected real numbers)"
        )
    return x


def _p_text(check: Check) -> str:
    """'p-value = 3e-9' (exact binomial) or 'p-value <= 3e-9' (an inequality's bound)."""
    p = check.p_value
    assert p is not None
    relation = "=" if check.name.startswith("point mass") else "<="
    if p == 0.0:  # below the float range: the bound is astronomically small
        return f"p-value {'<' if relation == '=' else '<='} 1e-300"
    return f"p-value {relation} {p:.3g}"


def _describe(check: Check) -> str:
    """One line: the statistic, observed vs expected, threshold and level, the p-value."""
    if check.name == "support":
        return f"- support: {check.detail}; impossible under the law (p-value 0)"
    head = f"- {check.name}:"
    if check.name.startswith("law"):
        # observed F_n and expected F at the largest gap are named in the detail
        head += f" sup |F_n - F| = {check.statistic:.4g}"
    elif check.observed is not None and check.expected is not None:
        head += (
            f" observed {check.observed:.10g}, expected {check.expected:.10g};"
            f" statistic {check.statistic:.4g}"
        )
    else:
        head += f" statistic {check.statistic:.4g}"
    head += f" > threshold {check.threshold:.4g} at level {check.alpha:.3g}"
    if check.p_value is not None:
        head += f"; {_p_text(check)}"
    return f"{head}; {check.detail}"


def assert_sampler_law(
    draws: ArrayLike,
    mechanism: str,
    *,
    false_alarm: float | None = None,
    **params: object,
) -> list[Check]:
    """Assert that ``draws`` follow the exact law of ``mechanism`` at ``params``.

    ``mechanism`` is any name of the algebra (``dpcheck.numeric.names.MECHANISM_NAMES``:
    'truncated-gaussian', 'clamped-geometric', 'laplace', ...; Liu's aliases
    'truncated' and 'bit'); ``params`` as in :mod:`dpcheck.numeric.mechanism_params`
    (``s``, ``c0``, ``c1`` with ``c0=-inf`` or ``c1=inf`` for one-sided bounds,
    and the scale ``lam``/``sigma``/``scale``, or ``alpha`` for the geometric base,
    or ``epsilon`` and ``sensitivity`` for the Laplace base).

    ``false_alarm`` bounds the probability that draws of the correct law fail
    (family-wise over all the checks, by a union bound; default 1e-6, or the
    pytest option ``--dpcheck-false-alarm`` when the dpcheck plugin is active).
    How many draws detect a given error depends on the error: a 3% error in a
    Gaussian scale needs about 10^6.

    Returns the list of :class:`dpcheck.sampling.goodness.Check` on success.
    Raises ``AssertionError`` naming, for every failing check, the statistic,
    the observed and expected values, the threshold and its level, and the
    p-value (an upper bound for the inequality-based tests, exact for the
    binomial ones); :class:`dpcheck.errors.InputError` (one line) for bad input:
    an unknown mechanism, bad parameters, ``false_alarm`` outside (0, 1), empty
    draws or NaN draws.
    """
    level = (
        _defaults.false_alarm() if false_alarm is None else _defaults.check_false_alarm(false_alarm)
    )
    name = canonical_mechanism(mechanism)
    x = _draws(draws)
    checks = check_law(x, name, alpha=level, params=params)
    failed = [c for c in checks if not c.passed]
    if failed:
        given = ", ".join(f"{k}={v!r}" for k, v in params.items())
        lines = [
            f"draws of {mechanism} ({given}; n = {x.size}) do not follow its exact law:"
            f" {len(failed)} of {len(checks)} checks failed (family-wise false alarm"
            f" <= {level:.3g})",
            *(_describe(c) for c in failed),
        ]
        raise AssertionError("\n".join(lines))
    return checks


__all__ = ["assert_sampler_law"]
