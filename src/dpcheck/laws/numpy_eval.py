"""Evaluate a SymPy expression elementwise in float64 (numpy), compiled once.

The float64 twin of :mod:`dpcheck.laws.arb_eval` (same whitelist, same one-line
:class:`~dpcheck.errors.InputError` for anything else): :func:`compile_numpy` walks the
SymPy tree once into nested closures over numpy ufuncs -- no eval, exec, lambdify or
strings of code -- for the vectorised densities, pmfs and closed-form tails of noise laws
(samplers, goodness-of-fit tests over 10^6 draws).  Constant subexpressions are folded at
compile time from 30-digit values.  Evaluation runs under ``np.errstate`` with every
floating-point warning silenced: an overflow is inf, an underflow 0, as float64 gives;
the accuracy is float64's, not certified (the certified values are arb_eval's).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from functools import reduce

import numpy as np
import sympy
from scipy import special
from sympy.logic.boolalg import BooleanFalse, BooleanTrue

from dpcheck.errors import InputError

Args = tuple[np.ndarray, ...]
Node = Callable[[Args], np.ndarray]

_UNARY: dict[type, Callable[[np.ndarray], np.ndarray]] = {
    sympy.exp: np.exp,
    sympy.log: np.log,
    sympy.Abs: np.abs,
    sympy.sign: np.sign,
    sympy.floor: np.floor,
    sympy.ceiling: np.ceil,
    sympy.erf: special.erf,
    sympy.erfc: special.erfc,
    sympy.gamma: special.gamma,
    sympy.tanh: np.tanh,
    sympy.sinh: np.sinh,
    sympy.cosh: np.cosh,
}
_BINARY: dict[type, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    # Γ(s, x) = Γ(s)·Q(s, x), γ(s, x) = Γ(s)·P(s, x)
    sympy.uppergamma: lambda s, x: special.gamma(s) * special.gammaincc(s, x),
    sympy.lowergamma: lambda s, x: special.gamma(s) * special.gammainc(s, x),
}
_NARY: dict[type, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    sympy.Add: np.add,
    sympy.Mul: np.multiply,
    sympy.Min: np.minimum,
    sympy.Max: np.maximum,
}
_REL: dict[type, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    sympy.StrictLessThan: np.less,
    sympy.LessThan: np.less_equal,
    sympy.StrictGreaterThan: np.greater,
    sympy.GreaterThan: np.greater_equal,
    sympy.Eq: np.equal,
    sympy.Ne: np.not_equal,
}
_SUPPORTED = (
    "numbers, pi, E, variables, +, *, **, exp, log, sqrt, Abs, sign, floor, ceiling, erf,"
    " erfc, gamma, uppergamma, lowergamma, tanh, sinh, cosh, Min, Max, Piecewise, Heaviside"
)


def _unsupported(expr: sympy.Basic) -> InputError:
    name = str(expr) if isinstance(expr, sympy.Symbol) else type(expr).__name__
    what = f"symbol {name}" if isinstance(expr, sympy.Symbol) else name
    return InputError(f"cannot evaluate {what} in float64 (supported: {_SUPPORTED})")


def _const(value: float) -> Node:
    return lambda xs: np.float64(value)


def _compile(expr: sympy.Basic, index: Mapping[sympy.Symbol, int]) -> Node:
    if isinstance(expr, sympy.Symbol):
        if expr not in index:
            raise _unsupported(expr)
        i = index[expr]
        return lambda xs: xs[i]
    if not expr.free_symbols and isinstance(expr, sympy.Expr):
        value = expr.evalf(30)
        if not value.is_real or not value.is_finite:
            raise _unsupported(expr)
        return _const(float(value))
    if isinstance(expr, sympy.Pow):
        base, exponent = _compile(expr.base, index), _compile(expr.exp, index)
        if expr.exp == sympy.Rational(1, 2):
            return lambda xs: np.sqrt(base(xs))
        return lambda xs: np.power(base(xs), exponent(xs))
    if isinstance(expr, sympy.Piecewise):
        branches = [(_compile(v, index), _condition(c, index)) for v, c in expr.args]
        return lambda xs: np.select(
            [np.broadcast_to(c(xs), np.broadcast(*xs, 0).shape) for _, c in branches],
            [np.broadcast_to(v(xs), np.broadcast(*xs, 0).shape) for v, _ in branches],
            default=np.nan,
        )
    if isinstance(expr, sympy.Heaviside):
        arg = _compile(expr.args[0], index)
        at_zero = float(expr.args[1]) if len(expr.args) > 1 else 0.5
        return lambda xs: np.heaviside(arg(xs), at_zero)
    kind = type(expr)
    if kind in _BINARY and len(expr.args) == 2:
        g, first, second = _BINARY[kind], *(_compile(a, index) for a in expr.args)
        return lambda xs: g(first(xs), second(xs))
    if kind in _UNARY and len(expr.args) == 1:
        f, arg = _UNARY[kind], _compile(expr.args[0], index)
        return lambda xs: f(arg(xs))
    if kind in _NARY:
        op, parts = _NARY[kind], [_compile(a, index) for a in expr.args]
        return lambda xs: reduce(op, (p(xs) for p in parts))
    raise _unsupported(expr)


def _condition(cond: sympy.Basic, index: Mapping[sympy.Symbol, int]) -> Node:
    if isinstance(cond, BooleanTrue):
        return lambda xs: np.True_
    if isinstance(cond, BooleanFalse):
        return lambda xs: np.False_
    if type(cond) in _REL:
        op = _REL[type(cond)]
        lhs, rhs = _compile(cond.lhs, index), _compile(cond.rhs, index)
        return lambda xs: op(lhs(xs), rhs(xs))
    if isinstance(cond, (sympy.And, sympy.Or)):
        parts = [_condition(c, index) for c in cond.args]
        op = np.logical_and if isinstance(cond, sympy.And) else np.logical_or
        return lambda xs: reduce(op, (p(xs) for p in parts))
    if isinstance(cond, sympy.Not):
        inner = _condition(cond.args[0], index)
        return lambda xs: np.logical_not(inner(xs))
    raise _unsupported(cond)


def compile_numpy(
    expr: sympy.Basic, variables: Sequence[sympy.Symbol]
) -> Callable[..., np.ndarray]:
    """f(*arrays): ``expr`` elementwise with numpy broadcasting, one argument per variable
    (floats, ints, Fractions or arrays)."""
    index = {v: i for i, v in enumerate(variables)}
    root = _compile(sympy.sympify(expr), index)
    arity = len(index)

    def f(*args: object) -> np.ndarray:
        if len(args) != arity:
            raise TypeError(f"expected {arity} arguments, got {len(args)}")
        xs = tuple(
            np.float64(float(a)) if isinstance(a, Fraction) else np.asarray(a, dtype=np.float64)
            for a in args
        )
        with np.errstate(all="ignore"):
            return np.asarray(root(xs), dtype=np.float64)

    return f


def evaluate_numpy(expr: sympy.Basic, values: Mapping[sympy.Symbol, object]) -> np.ndarray:
    """``expr`` at ``values`` (one compile, one call)."""
    names = list(values)
    return compile_numpy(expr, names)(*(values[n] for n in names))


__all__ = ["compile_numpy", "evaluate_numpy"]
