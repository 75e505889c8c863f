"""Rigorous ball arithmetic (python-flint ``arb``) on SymPy expressions.

Used wherever a verdict depends on a sign or on two numbers being different:
a counterexample found in floating point is confirmed here, where every
result is an interval guaranteed to contain the exact value (DESIGN.md,
"Honest verdicts").  Inputs are exact rationals.  erf and erfc (the Gaussian
quantities of issue 18) are enclosed by arb's own functions; anything without
an enclosure raises :class:`NotRigorous`.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction

import flint
import sympy as sp

Number = Fraction | int


class NotRigorous(ValueError):
    """The expression contains something this evaluator cannot enclose."""


def _arb_rational(q: Fraction | sp.Rational) -> flint.arb:
    return flint.arb(int(q.numerator)) / flint.arb(int(q.denominator))


def arb_eval(expr: sp.Expr, env: Mapping[sp.Symbol, Number], dps: int = 40) -> flint.arb:
    """An enclosure of ``expr`` with symbols replaced by exact rationals from ``env``."""
    old = flint.ctx.dps
    flint.ctx.dps = dps
    try:
        return _walk(sp.sympify(expr), env)
    finally:
        flint.ctx.dps = old


def _walk(e: sp.Basic, env: Mapping[sp.Symbol, Number]) -> flint.arb:
    if e.is_Symbol:
        if e not in env:
            raise NotRigorous(f"no value for symbol {e}")
        return _arb_rational(Fraction(env[e]))
    if e.is_Integer:
        return flint.arb(int(e))
    if e.is_Rational:
        return _arb_rational(e)
    if e is sp.pi:
        return flint.arb.pi()
    if e is sp.E:
        return flint.arb(1).exp()
    if e.is_Float:
        raise NotRigorous(f"floating constant {e} in an exact check")
    args = [_walk(a, env) for a in e.args] if not isinstance(e, sp.Pow) else None
    if isinstance(e, sp.Add):
        total = flint.arb(0)
        for a in args:
            total += a
        return total
    if isinstance(e, sp.Mul):
        total = flint.arb(1)
        for a in args:
            total *= a
        return total
    if isinstance(e, sp.Pow):
        base = _walk(e.base, env)
        if e.exp.is_Integer:
            k = int(e.exp)
            if base.contains(0):  # arb's own power is nan on such a ball
                return _power_by_products(base, k)
            return base**k if k >= 0 else 1 / base ** (-k)
        if e.exp == sp.S.Half:  # sqrt: a tighter ball than the general power
            return base.sqrt()
        if e.exp == -sp.S.Half:
            return 1 / base.sqrt()
        return base ** _walk(e.exp, env)
    if isinstance(e, sp.exp):
        return args[0].exp()
    if isinstance(e, sp.log):
        return args[0].log()
    if isinstance(e, sp.Abs):
        return abs(args[0])
    if isinstance(e, sp.erf):  # the Gaussian quantities (issue 18): arb's own erf/erfc
        return args[0].erf()
    if isinstance(e, sp.erfc):
        return args[0].erfc()
    if isinstance(e, sp.gamma):
        return args[0].gamma()
    if isinstance(e, sp.sign):
        a = args[0]
        if a > 0:
            return flint.arb(1)
        if a < 0:
            return flint.arb(-1)
        if a == 0:
            return flint.arb(0)
        raise NotRigorous(f"sign of {e.args[0]} undecided at this precision")
    if isinstance(e, (sp.Max, sp.Min)):
        out = args[0]
        for a in args[1:]:
            out = out.max(a) if isinstance(e, sp.Max) else out.min(a)
        return out
    raise NotRigorous(f"cannot enclose {type(e).__name__}: {e}")


def _power_by_products(base: flint.arb, k: int) -> flint.arb:
    """base^k by repeated squaring (|base| for even k): a valid enclosure also when the
    ball contains 0, where python-flint's ``arb ** int`` returns nan (a bias that is 0 at
    the midpoint of [c0, c1] is such a ball, and its square must still be enclosed)."""
    if k < 0:
        return 1 / _power_by_products(base, -k)
    factor = abs(base) if k % 2 == 0 else base
    out = flint.arb(1)
    while k:
        if k & 1:
            out *= factor
        factor *= factor
        k >>= 1
    return out


def sign(expr: sp.Expr, env: Mapping[sp.Symbol, Number], dps: int = 40) -> int | None:
    """+1, -1 or 0 (exact zero ball) if certain; None when the ball straddles 0.

    The precision is raised up to 8× before giving up.
    """
    for scale in (1, 2, 4, 8):
        value = arb_eval(expr, env, dps * scale)
        if value > 0:
            return 1
        if value < 0:
            return -1
        if value.is_exact() and value == 0:
            return 0
    return None


def digits(value: flint.arb, n: int = 30) -> str:
    """The midpoint to ``n`` significant digits, for reports."""
    return value.str(n, radius=False)
