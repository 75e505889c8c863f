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
    if isinstance(dps, bool) or not isinstance(dps, int):
        from dpcheck.inputs import limits
        from dpcheck.inputs.numbers import parse_count

        c = limits.ceiling("eval", "--dps")  # as eval --dps reads it (mechanism_mp.checked_dps)
        dps = parse_count("dps", dps, 1, c.maximum, c.describe())
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

    ``args`` end with (c0, c1, λ), as every quantity of the family does; the
    ones before are locations (s, s', y, δ1).  Runs at precision w and 2w and
    doubles w until both agree to dps digits (or to 10^-dps absolutely when
    the value is 0).  w starts at dps + 20 + :func:`cancellation_digits`: the
    closed forms cancel when λ ≫ R (λ = 10^300 against R = 1 loses 300 digits
    in 1 - e^{-R/λ}, a second moment about 900), and a location far from 0
    next to a narrow [c0, c1] needs its digits just to be represented.  A
    division by an exact zero that cancellation produced means w was still
    too small; an exact zero at w and 2w is accepted only if 4w gives it too.
    The numbers' ceiling (:mod:`dpcheck.inputs.numbers`) bounds all of this.
    """
    work = dps + 20 + cancellation_digits(args)
    for _ in range(12):
        try:
            with mpmath.workdps(work):
                a = f(*(_mpf(v) for v in args))
            with mpmath.workdps(2 * work):
                b = f(*(_mpf(v) for v in args))
            if a == 0 and b == 0:
                with mpmath.workdps(4 * work):
                    b = f(*(_mpf(v) for v in args))
        except ZeroDivisionError:
            work *= 2
            continue
        with mpmath.workdps(dps + 5):
            tol = mpmath.mpf(10) ** (-dps) * max(abs(b), mpmath.mpf(10) ** (-dps))
            if abs(a - b) <= tol:
                return +b
        work *= 2
    raise ArithmeticError(f"{what} did not converge")  # pragma: no cover


def adaptive_relative(
    f: Callable[..., mpmath.mpf],
    args: tuple[Fraction | mpmath.mpf, ...],
    dps: int,
    magnitude: mpmath.mpf,
    what: str = "value",
) -> mpmath.mpf:
    """``f(*args)`` to ``dps`` significant digits, agreement being *relative* only.

    The route of every mechanism of the algebra (:mod:`dpcheck.numeric.mechanism_mp`).
    Unlike :func:`adaptive` (kept for Liu's two Laplace forms, whose values it
    reproduces), no absolute floor lets two precisions "agree" on noise: a
    value far below the size of its terms (a clamped Gaussian's variance at
    σ = 1e-100, about σ², from terms of order R²) needs the working
    precision to be raised until it is resolved.  w starts at dps + 20 +
    :func:`cancellation_digits` and doubles while the results at w and 2w
    differ relatively by more than 10^-dps (or either is an exact zero,
    which absorption can fake) up to w = 16·(dps + 20) + the cancellation
    digits; a value still unresolved there is below 10^-(w/2)·``magnitude``
    at both precisions and is returned as 0 -- exact zeros (the bias at the
    midpoint) end there too.
    """
    start = dps + 20 + cancellation_digits(args)
    cap = 16 * (dps + 20) + cancellation_digits(args)
    work = start
    a = b = mpmath.mpf(0)
    while True:
        try:
            with mpmath.workdps(work):
                a = f(*(_mpf(v) for v in args))
            with mpmath.workdps(2 * work):
                b = f(*(_mpf(v) for v in args))
        except ZeroDivisionError:
            if work >= cap:
                raise ArithmeticError(f"{what}: division by zero at {work} digits") from None
            work *= 2
            continue
        with mpmath.workdps(dps + 5):
            if a != 0 and b != 0 and abs(a - b) <= mpmath.mpf(10) ** (-dps) * abs(b):
                return +b
        if work >= cap:
            with mpmath.workdps(dps + 5):
                floor = mpmath.mpf(10) ** (-(work // 2)) * max(abs(magnitude), 1)
                if abs(a) <= floor and abs(b) <= floor:
                    return mpmath.mpf(0)
            raise ArithmeticError(f"{what} did not converge")  # pragma: no cover
        work *= 2


def _order(x: Fraction | mpmath.mpf) -> float:
    """log10 |x| (x != 0), without converting a huge Fraction to a float."""
    with mpmath.workdps(15):
        return float(mpmath.log10(abs(_mpf(x))))


def cancellation_digits(args: tuple[Fraction | mpmath.mpf, ...]) -> int:
    """Extra digits the closed forms need at (locations..., c0, c1, λ): see :func:`adaptive`."""
    *locations, lo, hi, scale = args
    width = abs(_mpf(hi) - _mpf(lo)) if len(args) >= 3 else 0
    if len(args) < 3 or not width or not scale:
        return 0
    with mpmath.workdps(max(30, int(max(_order(lo), _order(hi), 0) + 30) if lo or hi else 30)):
        width = abs(_mpf(hi) - _mpf(lo))
    r = _order(width)
    far = max([_order(v) for v in (*locations, lo, hi) if v] + [r])
    return int(4 * max(0.0, _order(scale) - r) + max(0.0, far - r)) + 1
