"""Evaluate a SymPy expression in ball arithmetic (python-flint ``arb``), compiled once.

:func:`compile_arb` walks the SymPy tree once into nested closures (the one walker of
:mod:`~dpcheck.laws.expr_compile`, with this module's tables and hooks; no eval, exec,
lambdify or strings).  Guarantee (interval semantics): the result contains the exact
real value at *every* point of the input balls, also at kinks and jumps (Abs, floor,
ceiling, sign, Heaviside, Piecewise: there it is the hull of the values that occur).
Where the expression may be undefined or non-real in the ball (log or fractional power
of a ball not > 0, 1 / a ball containing 0, a Piecewise with no applicable branch) the
result is ``arb.nan()`` (infinite radius, not ``is_finite()``), never a wrong finite ball.
Precision: ``flint.ctx.prec`` *at call time* (the caller sets it); constants are cached
per precision.  Arguments: ``arb``, ``int``, ``float`` (exact) or ``Fraction`` (p/q
becomes ``arb(p) / arb(q)``).
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from functools import reduce

import flint
import sympy
from flint import arb

from dpcheck.errors import InputError
from dpcheck.laws import expr_compile

Args = tuple[arb, ...]
Node = Callable[[Args], arb]
Cond = Callable[[Args], "bool | None"]  # three-valued: True / False / None (unknown)
BallLike = arb | int | float | Fraction

__all__ = ["compile_arb", "evaluate_arb", "hull"]

#: one-argument functions, looked up at compile time (tests patch entries to mutate)
_UNARY: dict[type, Callable[[arb], arb]] = {
    sympy.exp: arb.exp,
    sympy.log: arb.log,
    sympy.Abs: lambda x: hull(x.abs_lower(), x.abs_upper()),  # arb's abs keeps the radius
    sympy.sign: lambda x: x if x.is_nan() else x.sgn(),
    sympy.floor: arb.floor,  # arb's floor/ceil return the hull when the ball meets an integer
    sympy.ceiling: arb.ceil,
    sympy.erf: arb.erf,
    sympy.erfc: arb.erfc,
    sympy.gamma: arb.gamma,
    # increasing (cosh: in |x|): the hull of the exact ends' values, tight on wide balls
    sympy.tanh: lambda x: x if x.is_nan() else hull(x.lower().tanh(), x.upper().tanh()),
    sympy.sinh: lambda x: x if x.is_nan() else hull(x.lower().sinh(), x.upper().sinh()),
    sympy.cosh: lambda x: x if x.is_nan() else hull(x.abs_lower().cosh(), x.abs_upper().cosh()),
}
#: two-argument functions: the incomplete gamma functions Γ(s, x), γ(s, x) (the tails of
#: densities such as exp(-z^4), issue 35)
_BINARY: dict[type, Callable[[arb, arb], arb]] = {
    sympy.uppergamma: lambda s, x: x.gamma_upper(s),
    sympy.lowergamma: lambda s, x: x.gamma_lower(s),
}
#: n-ary associative nodes, folded left to right
_NARY: dict[type, Callable[[arb, arb], arb]] = {
    sympy.Add: operator.add,
    sympy.Mul: operator.mul,
    sympy.Min: arb.min,
    sympy.Max: arb.max,
}
#: relationals: (definitely true, definitely false); arb comparisons are True only if certain
_REL: dict[type, tuple[Callable[[arb, arb], bool], Callable[[arb, arb], bool]]] = {
    sympy.StrictLessThan: (operator.lt, operator.ge),
    sympy.LessThan: (operator.le, operator.gt),
    sympy.StrictGreaterThan: (operator.gt, operator.le),
    sympy.GreaterThan: (operator.ge, operator.lt),
    sympy.Eq: (operator.eq, operator.ne),
    sympy.Ne: (operator.ne, operator.eq),
}
_SUPPORTED = (
    "Integer, Rational, Float, pi, E, variables, +, *, **, exp, log, sqrt, Abs, sign, floor, "
    "ceiling, erf, erfc, gamma, uppergamma, lowergamma, tanh, sinh, cosh, Min, Max, Piecewise, "
    "Heaviside"
)


def hull(a: arb, b: arb) -> arb:
    """The smallest ball (up to arb's radius rounding) containing both ``a`` and ``b``."""
    return a.union(b)


def _const(make: Callable[[], arb]) -> Node:
    """A constant node, computed once per working precision."""
    cache: dict[int, arb] = {}
    return lambda _: cache[p] if (p := flint.ctx.prec) in cache else cache.setdefault(p, make())


def _to_arb(value: object) -> arb:
    if isinstance(value, Fraction):
        return arb(value.numerator) / arb(value.denominator)
    if isinstance(value, (arb, int, float)) and not isinstance(value, bool):
        return arb(value)  # exact: python-flint converts ints and floats without rounding
    raise TypeError(f"expected an arb ball, int, float or Fraction, got {type(value).__name__}")


def _ipow(x: arb, n: int) -> arb:
    """``x ** n``, n an integer: the hull of the endpoint powers on a monotone piece."""
    # (python-flint's arb ** n is NaN on a ball with midpoint 0, pessimistic on wide balls)
    if n < 0:
        return 1 / _ipow(x, -n)
    if n == 0:
        return arb(1)
    lo, hi = (x.abs_lower(), x.abs_upper()) if n % 2 == 0 else (x.lower(), x.upper())
    return hull(lo**n, hi**n)  # the endpoints are exact, so these powers are tight


def _sqrt(x: arb) -> arb:
    """Square root; indeterminate if the ball meets the negative reals."""
    lo = x.lower()
    return hull(lo.sqrt(), x.upper().sqrt()) if lo >= 0 else arb.nan()


class _Arb(expr_compile.Backend):
    """Balls: interval semantics, conditions three-valued (True, False, None: unknown)."""

    unary, binary, nary, rel = _UNARY, _BINARY, _NARY, _REL

    def constant(self, expr: sympy.Basic) -> Node | None:
        """Rational, finite Float (its exact binary value), pi, E: once per precision."""
        if isinstance(expr, sympy.Rational):  # Integer included
            p, q = int(expr.p), int(expr.q)
            return _const(lambda: arb(p) if q == 1 else arb(p) / arb(q))
        if isinstance(expr, sympy.Float) and expr.is_finite:
            sign, man, exp, _ = expr._mpf_
            return _const(lambda: arb((-man if sign else man, exp)))
        if expr is sympy.pi:
            return _const(arb.pi)
        return _const(arb.const_e) if expr is sympy.E else None

    def power(self, expr: sympy.Pow, walk: expr_compile.Walk) -> Node:
        base, exponent = walk(expr.base), expr.exp
        if isinstance(exponent, sympy.Rational) and exponent.q in (1, 2):  # x**n, sqrt(x)**n
            n, half = int(exponent.p), exponent.q == 2
            return lambda xs: _ipow(_sqrt(base(xs)) if half else base(xs), n)
        power = walk(exponent)  # exp(power * log(base)), only where base > 0
        return lambda xs: (b.log() * power(xs)).exp() if (b := base(xs)) > 0 else arb.nan()

    def piecewise(self, branches: list[tuple[Node, Cond]]) -> Node:
        def node(xs: Args) -> arb:
            acc: arb | None = None
            for value, cond in branches:
                try:
                    status = cond(xs)
                except ArithmeticError:
                    return arb.nan()
                if status is not False:  # the branch may apply somewhere
                    acc = value(xs) if acc is None else hull(acc, value(xs))
                    if status:  # it applies on the whole ball: later branches never do
                        return acc
            return arb.nan()  # some point of the ball may match no branch: undefined there

        return node

    def heaviside(self, expr: sympy.Heaviside, walk: expr_compile.Walk) -> Node:
        x = walk(expr.args[0])
        at0 = walk(expr.args[1]) if len(expr.args) > 1 else _const(lambda: arb(0.5))

        def node(xs: Args) -> arb:
            v = x(xs)
            if v.is_nan():
                return v
            values = [arb(1)] if not v <= 0 else []  # some point of the ball may be > 0
            values += [arb(0)] if not v >= 0 else []
            return reduce(hull, values + [at0(xs)] if v.contains(0) else values)

        return node

    def relation(self, entry: tuple[Callable[..., bool], ...], lhs: Node, rhs: Node) -> Cond:
        yes, no = entry

        def test(xs: Args) -> bool | None:
            if (a := lhs(xs)).is_nan() or (b := rhs(xs)).is_nan():
                raise ArithmeticError  # the condition may be undefined: the Piecewise is NaN
            return True if yes(a, b) else False if no(a, b) else None

        return test

    def negate(self, cond: Cond) -> Cond:
        return lambda xs: None if (s := cond(xs)) is None else not s

    def connective(self, decisive: bool, parts: list[Cond]) -> Cond:
        """And (decisive False) or Or (decisive True): the value that settles the whole."""

        def test(xs: Args) -> bool | None:
            unknown = False
            for part in parts:
                status = part(xs)
                if status is decisive:
                    return decisive
                unknown = unknown or status is None
            return None if unknown else not decisive

        return test

    def unsupported(self, expr: sympy.Basic) -> InputError:
        name = getattr(expr.func, "__name__", type(expr).__name__)
        return InputError(f"cannot evaluate {name} in ball arithmetic (supported: {_SUPPORTED})")

    def unknown_symbol(self, symbol: sympy.Symbol, index: expr_compile.Index) -> InputError:
        known = ", ".join(map(str, index))
        return InputError(f"cannot evaluate symbol {symbol} in ball arithmetic: not in {known}")


_BACKEND = _Arb()


def compile_arb(expr: sympy.Basic, variables: Sequence[sympy.Symbol]) -> Callable[..., arb]:
    """Compile ``expr`` once into ``f(*balls) -> arb``, one argument per variable in order.

    Raises a one-line InputError for a node off the whitelist or a symbol not in variables.
    """
    if not isinstance(expr, sympy.Basic):
        raise InputError(f"expected a SymPy expression, got {type(expr).__name__}")
    index: dict[sympy.Symbol, int] = {}
    for v in variables:
        if not isinstance(v, sympy.Symbol) or v in index:
            raise InputError(f"variables must be distinct SymPy symbols, got {v!r}")
        index[v] = len(index)
    root, arity = expr_compile.compile_tree(expr, index, _BACKEND), len(index)

    def evaluate(*values: BallLike) -> arb:
        if len(values) != arity:
            raise TypeError(f"expected {arity} values, got {len(values)}")
        return root(tuple(_to_arb(v) for v in values))

    return evaluate


def evaluate_arb(expr: sympy.Basic, values: Mapping[sympy.Symbol, BallLike]) -> arb:
    """Compile ``expr`` for the symbols of ``values`` and evaluate it there once."""
    symbols = list(values)
    return compile_arb(expr, symbols)(*(values[s] for s in symbols))
