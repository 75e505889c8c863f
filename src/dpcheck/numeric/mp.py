"""mpmath evaluation of the derived quantities at any precision.

Each quantity of :mod:`dpcheck.symbolic.laplace_family` is compiled once with
``sympy.lambdify`` (common subexpressions shared) into a plain mpmath function
of (s, c0, c1, λ), from its normalised form (two exponentials e^{-t0},
e^{-t1}, then arithmetic); no ``evalf(subs=...)`` per point.  Because the
closed forms cancel (1 - ½e^{-t0} - ½e^{-t1} is tiny when λ ≫ R),
:func:`evaluate` runs the compiled function at two working precisions and
raises them until the results agree to the requested number of digits.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from functools import cache

import mpmath
import sympy as sp

from dpcheck.errors import InputError
from dpcheck.numeric.names import QUANTITY_NAMES, split_name  # noqa: F401  (re-exported)
from dpcheck.numeric.params import MechanismParams
from dpcheck.symbolic import laplace_family as lf
from dpcheck.symbolic.symbols import c0, c1, lam, s


@cache
def compiled(name: str) -> Callable[..., mpmath.mpf]:
    """The mpmath function (s, c0, c1, lam) → value of the derived quantity ``name``."""
    mechanism, quantity = split_name(name)
    expr = lf.from_normalised(mechanism, quantity)
    return sp.lambdify((s, c0, c1, lam), expr, modules="mpmath", cse=True)


def _mpf(q: Fraction | mpmath.mpf | int) -> mpmath.mpf:
    if isinstance(q, Fraction):
        return mpmath.mpf(q.numerator) / q.denominator
    return mpmath.mpf(q)


def evaluate(name: str, params: MechanismParams, dps: int = 50) -> mpmath.mpf:
    """The quantity at ``params`` correct to about ``dps`` significant digits.

    Runs the compiled closed form at precision w and 2w (w = dps + 20) and
    doubles w until both agree to dps digits (or to 10^-dps absolutely when
    the value is 0, e.g. the bias at the midpoint).
    """
    if dps < 1:
        raise InputError(f"dps={dps} must be a positive integer")
    args = (params.s, params.c0, params.c1, params.lam)
    return adaptive(compiled(name), args, dps, what=f"{name} at {params}")


def adaptive(
    f: Callable[..., mpmath.mpf],
    args: tuple[Fraction | mpmath.mpf, ...],
    dps: int,
    what: str = "value",
) -> mpmath.mpf:
    """``f(*args)`` correct to about ``dps`` digits, by agreement of two precisions.

    Runs at precision w and 2w (w = dps + 20) and doubles w until both agree to
    dps digits (or to 10^-dps absolutely when the value is 0).
    """
    work = dps + 20
    for _ in range(12):
        with mpmath.workdps(work):
            a = f(*(_mpf(v) for v in args))
        with mpmath.workdps(2 * work):
            b = f(*(_mpf(v) for v in args))
        with mpmath.workdps(dps + 5):
            tol = mpmath.mpf(10) ** (-dps) * max(abs(b), mpmath.mpf(10) ** (-dps))
            if abs(a - b) <= tol:
                return +b
        work *= 2
    raise ArithmeticError(f"{what} did not converge")  # pragma: no cover
