"""mpmath evaluation of every mechanism's quantities at any precision.

Each quantity of :mod:`dpcheck.symbolic.mechanisms` is compiled once with
``sympy.lambdify`` (common subexpressions shared) into an mpmath function of
(y, s, c0, c1, scale) -- erf and erfc are mpmath's -- and run by
:func:`dpcheck.numeric.mp.adaptive`, which raises the working precision until
two precisions agree to the requested digits (the closed forms cancel when the
scale is far from the width).  The CDF is taken branch by branch (y below
c0, in [c0, s), in [s, c1), at or above c1); the quantile inverts it by
bisection (the generalised inverse inf{y : F(y) >= p}; on the integers for
the geometric base).  Liu's two Laplace mechanisms keep the compiled forms of
:mod:`dpcheck.numeric.mp` (their normalised forms), so every earlier value
is unchanged.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from functools import cache

import mpmath
import sympy as sp

from dpcheck.errors import InputError
from dpcheck.numeric import mp
from dpcheck.numeric.mechanism_params import Params, parse
from dpcheck.numeric.names import LIU_NAMES, parts, resolve
from dpcheck.numeric.params import MechanismParams
from dpcheck.symbolic.symbols import alpha, c0, c1, lam, s, sigma

#: the compiled functions' scale argument
_THETA = sp.Symbol("theta", positive=True)
_Y = sp.Symbol("y", real=True)


def _native(base: str) -> sp.Symbol:
    return {"laplace": lam, "gaussian": sigma, "geometric": alpha}[base]


@cache
def compiled(
    mechanism: str, quantity: str, sides: str, by_alpha: bool = False
) -> Callable[..., mpmath.mpf]:
    """mpmath function (y, s, c0, c1, θ) → the quantity (θ = λ, σ, b; or α when ``by_alpha``).

    For ``cdf`` the branch y < s is compiled with ``quantity='cdf:below'`` and
    y >= s with ``'cdf:above'``.
    """
    from dpcheck.symbolic import mechanisms as sym

    _, base = parts(mechanism)
    if quantity.startswith("cdf:"):
        expr = sym.cdf_branches(mechanism, sides)[quantity[4:]]
    else:
        expr = sym.quantity(mechanism, quantity, sides)
    native = _native(base)
    if base == "geometric" and not by_alpha:
        theta_value = sp.exp(-1 / _THETA)
    else:
        theta_value = _THETA
    expr = expr.subs({native: theta_value, sym.y: _Y})
    return sp.lambdify((_Y, s, c0, c1, _THETA), expr, modules="mpmath", cse=True)


def _args(params: Params, y: Fraction | None = None) -> tuple[Fraction, ...]:
    """(y, s, c0, c1, θ) with a stand-in for an infinite bound (unused by the compiled
    one-sided forms; it only informs the cancellation estimate of :func:`mp.adaptive`)."""
    theta = params.alpha if params.alpha is not None else params.scale
    assert theta is not None
    width = theta if params.alpha is None else Fraction(1)
    lo = params.c0 if params.c0 is not None else params.s - width
    hi = params.c1 if params.c1 is not None else params.s + width
    return (params.s if y is None else y, params.s, lo, hi, theta)


def _liu_params(params: Params) -> MechanismParams | None:
    if params.mechanism in LIU_NAMES and params.sides == "both":
        assert params.c0 is not None and params.c1 is not None and params.scale is not None
        return MechanismParams(params.s, params.c0, params.c1, params.scale)
    return None


def _moment(params: Params, quantity: str, dps: int) -> mpmath.mpf:
    liu = _liu_params(params)
    if liu is not None and quantity != "normaliser":
        return mp.evaluate(f"{LIU_NAMES[params.mechanism]}.{quantity}", liu, dps)
    f = compiled(params.mechanism, quantity, params.sides, params.alpha is not None)
    power = {"normaliser": 0, "mean": 1, "bias": 1}.get(quantity, 2)
    return mp.adaptive_relative(
        f, _args(params), dps, _magnitude(params, power), what=f"{params.mechanism}.{quantity}"
    )


def _magnitude(params: Params, power: int) -> mpmath.mpf:
    """(max of 1, |s|, |c0|, |c1|, θ)^power: the size of the terms a quantity is made of."""
    values = [params.s, params.c0, params.c1, params.scale]
    with mpmath.workdps(30):
        biggest = max([mpmath.mpf(1)] + [abs(mp._mpf(v)) for v in values if v is not None])
        return biggest**power


def cdf_at(params: Params, y: Fraction, dps: int) -> mpmath.mpf:
    """P(Y <= y), branch by branch (see the module docstring)."""
    bounding, base = parts(params.mechanism)
    if params.c0 is not None and y < params.c0:
        return mpmath.mpf(0)
    if params.c1 is not None and y >= params.c1:
        return mpmath.mpf(1)
    if base == "geometric":
        y = Fraction(int(y // 1))  # P(Y <= y) = P(Y <= floor(y)) on the integers
    branch = "cdf:below" if y < params.s else "cdf:above"
    f = compiled(params.mechanism, branch, params.sides, params.alpha is not None)
    return mp.adaptive_relative(
        f, _args(params, y), dps, mpmath.mpf(1), what=f"{params.mechanism}.cdf"
    )


def quantile_at(params: Params, p: Fraction, dps: int) -> mpmath.mpf:
    """inf{y : P(Y <= y) >= p}, by bisection on the exact CDF."""
    _, base = parts(params.mechanism)
    theta = params.scale if params.scale is not None else Fraction(1)
    lo = params.c0 if params.c0 is not None else None
    hi = params.c1 if params.c1 is not None else None
    step = max(theta, Fraction(1))
    with mpmath.workdps(dps + 20):
        p = mpmath.mpf(p.numerator) / p.denominator  # type: ignore[assignment]
    if lo is None:
        lo = params.s - step
        while cdf_at(params, lo, 15) >= p:
            step *= 2
            lo = params.s - step
    if hi is None:
        step = max(theta, Fraction(1))
        hi = params.s + step
        while cdf_at(params, hi, 15) < p:
            step *= 2
            hi = params.s + step
    if cdf_at(params, lo, dps + 5) >= p:
        with mpmath.workdps(dps + 5):
            return mpmath.mpf(lo.numerator) / lo.denominator
    if base == "geometric":
        a, b = int(lo), int(hi)  # F(a) < p <= F(b)
        while b - a > 1:
            mid = (a + b) // 2
            if cdf_at(params, Fraction(mid), dps + 5) >= p:
                b = mid
            else:
                a = mid
        return mpmath.mpf(b)
    a, b = lo, hi  # F(a) < p <= F(b)
    floor = (hi - lo) * Fraction(1, 10 ** (dps + 3))
    while b - a > max(floor, Fraction(1, 10 ** (dps + 3)) * max(abs(a), abs(b))):
        mid = _round((a + b) / 2, (b - a) / 4)
        if cdf_at(params, mid, dps + 5) >= p:
            b = mid
        else:
            a = mid
    with mpmath.workdps(dps + 5):
        return mpmath.mpf(b.numerator) / b.denominator


def _round(q: Fraction, slack: Fraction) -> Fraction:
    """A short dyadic rational within ``slack`` of q (keeps the bisection's numbers small)."""
    k = 0
    while Fraction(1, 2**k) > slack:
        k += 1
    return Fraction(round(q * 2**k), 2**k)


def evaluate(name: str, values: Params | dict[str, object], dps: int = 50) -> mpmath.mpf:
    """The quantity ``name`` ('truncated-gaussian.mean', 'bit.var', ...) correct to
    about ``dps`` significant digits."""
    if dps < 1:
        raise InputError(f"dps={dps} must be a positive integer")
    mechanism, quantity = resolve(name)
    params = values if isinstance(values, Params) else parse(mechanism, values, quantity)
    if quantity == "cdf":
        assert params.y is not None
        return cdf_at(params, params.y, dps)
    if quantity == "quantile":
        assert params.p is not None
        from dpcheck.inputs import limits

        dps = limits.count("eval", "--dps (quantile)", dps, 1)
        return quantile_at(params, params.p, dps)
    return _moment(params, quantity, dps)


__all__ = ["cdf_at", "compiled", "evaluate", "quantile_at"]
