"""Session-wide defaults of :mod:`dpcheck.testing`, set by its pytest plugin.

Outside pytest (or with the plugin disabled, ``-p no:dpcheck``) the default
family-wise false-alarm probability of :func:`dpcheck.testing.assert_sampler_law`
is :data:`FALSE_ALARM`.  Under pytest, :mod:`dpcheck.testing.plugin` pushes the
value of ``--dpcheck-false-alarm`` (or the ``dpcheck_false_alarm`` ini option)
when the session is configured and pops it when the session ends, so nested
sessions (pytester's in-process runs) restore the outer value.  An explicit
``false_alarm=`` argument always wins.
"""

from __future__ import annotations

import math

from dpcheck.errors import InputError

#: the default family-wise false-alarm probability of one assertion
FALSE_ALARM = 1e-6

_stack: list[float] = []


def false_alarm() -> float:
    """The current default: the innermost pytest session's option, else :data:`FALSE_ALARM`."""
    return _stack[-1] if _stack else FALSE_ALARM


def push(value: float) -> None:
    """Make ``value`` the default until the matching :func:`pop` (the plugin's configure)."""
    _stack.append(check_false_alarm(value))


def pop() -> None:
    """Restore the previous default (the plugin's unconfigure)."""
    if _stack:
        _stack.pop()


def check_false_alarm(value: object, name: str = "false_alarm") -> float:
    """``value`` as a float strictly between 0 and 1; one-line InputError otherwise."""
    import numpy as np

    number = (int, float, np.integer, np.floating)
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, number):
        raise InputError(
            f"{name}={value!r} is not a number (expected a probability strictly between"
            " 0 and 1, e.g. 1e-6)"
        )
    x = float(value)
    if not (math.isfinite(x) and 0.0 < x < 1.0):
        raise InputError(
            f"{name}={value!r} must lie strictly between 0 and 1 (a false-alarm probability)"
        )
    return x
