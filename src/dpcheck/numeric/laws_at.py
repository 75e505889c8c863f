"""mpmath evaluation of the laws' CDFs and of the folded law's moments.

* :func:`cdf`: F(y) = P(Y <= y) of the truncated (Liu 2019, Definition 2(a)),
  BIT (Definition 2(b)) and folded (diffprivlib 0.6.6 ``LaplaceFolded``) laws
  at any output y, from the derived expressions of
  :mod:`dpcheck.symbolic.cdf` (point masses included: F jumps to 1 at c1);
* :func:`moment`: mean, bias, second moment, variance, MSE about s, for the
  folded law from :func:`dpcheck.symbolic.folding.tidy` and for the other two
  from :func:`dpcheck.numeric.mp.compiled`.

Each expression is compiled once with :func:`sympy.lambdify` (mpmath, shared
subexpressions) and evaluated with :func:`dpcheck.numeric.mp.adaptive`: two
working precisions, raised until they agree to ``dps`` digits, so that
cancellation (λ ≫ c1 - c0) costs precision, not accuracy.  Arguments are
Fractions (exact) or mpf.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from functools import cache

import mpmath
import sympy as sp
from mpmath import mpf

from dpcheck.errors import InputError
from dpcheck.numeric import mp
from dpcheck.symbolic import cdf as sym_cdf
from dpcheck.symbolic import folding
from dpcheck.symbolic import laplace_family as lf
from dpcheck.symbolic.symbols import c0, c1, lam, s

MECHANISMS = ("truncated", "bit", "folded")
QUANTITIES = lf.QUANTITIES

Number = Fraction | mpf | int


def _check(mechanism: str, s_: Number, c0_: Number, c1_: Number, lam_: Number) -> None:
    if mechanism not in MECHANISMS:
        expected = ", ".join(MECHANISMS)
        raise InputError(f"unknown mechanism {mechanism!r} (expected one of: {expected})")
    if not _le(c0_, c1_) or _le(c1_, c0_):
        raise InputError(f"c0={c0_} must be smaller than c1={c1_}")
    if not lam_ > 0:
        raise InputError(f"lam={lam_} must be positive")
    if not (_le(c0_, s_) and _le(s_, c1_)):
        raise InputError(f"s={s_} is outside [c0, c1] = [{c0_}, {c1_}]")


def _le(a: Number, b: Number) -> bool:
    """a <= b, exactly for Fractions and ints, at 200 digits otherwise."""
    if isinstance(a, (Fraction, int)) and isinstance(b, (Fraction, int)):
        return a <= b
    with mpmath.workdps(200):
        return bool(mp._mpf(a) <= mp._mpf(b))


@cache
def _cdf_compiled(mechanism: str, branch: str) -> Callable[..., mpf]:
    expr = sym_cdf.compiled_form(mechanism, branch)
    return sp.lambdify((sym_cdf.y, s, c0, c1, lam), expr, modules="mpmath", cse=True)


def cdf(
    mechanism: str, y: Number, s: Number, c0: Number, c1: Number, lam: Number, dps: int = 30
) -> mpf:
    """P(Y <= y) for Y the output of ``mechanism`` at (s, c0, c1, λ), to ``dps`` digits."""
    _check(mechanism, s, c0, c1, lam)
    if not _le(c0, y):
        return mpf(0)
    if _le(c1, y):
        return mpf(1)
    branch = "below" if _le(y, s) else "above"
    f = _cdf_compiled(mechanism, branch)
    return mp.adaptive(f, (y, s, c0, c1, lam), dps, what=f"{mechanism} CDF at y={y}")


def point_masses(
    mechanism: str, s: Number, c0: Number, c1: Number, lam: Number, dps: int = 30
) -> tuple[mpf, mpf]:
    """(P(Y = c0), P(Y = c1)): nonzero for the BIT law only."""
    _check(mechanism, s, c0, c1, lam)
    return tuple(  # type: ignore[return-value]
        mp.adaptive(_atom_compiled(mechanism, i), (s, c0, c1, lam), dps) for i in (0, 1)
    )


@cache
def _atom_compiled(mechanism: str, index: int) -> Callable[..., mpf]:
    expr = sym_cdf.point_masses(mechanism)[index]
    return sp.lambdify((s, c0, c1, lam), expr, modules="mpmath")


@cache
def _folded_compiled(name: str) -> Callable[..., mpf]:
    return sp.lambdify((s, c0, c1, lam), folding.tidy(name), modules="mpmath", cse=True)


def moment(
    mechanism: str, name: str, s: Number, c0: Number, c1: Number, lam: Number, dps: int = 30
) -> mpf:
    """The quantity ``name`` (mean, bias, second_moment, var, mse) of the law, to ``dps`` digits."""
    _check(mechanism, s, c0, c1, lam)
    if name not in QUANTITIES:
        raise InputError(f"unknown quantity {name!r} (expected one of: {', '.join(QUANTITIES)})")
    if mechanism == "folded":
        f = _folded_compiled(name)
    else:
        f = mp.compiled(f"{mechanism}.{name}")
    return mp.adaptive(f, (s, c0, c1, lam), dps, what=f"{mechanism}.{name}")


__all__ = ["MECHANISMS", "QUANTITIES", "cdf", "moment", "point_masses"]
