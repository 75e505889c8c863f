"""Evaluate a SymPy expression elementwise in float64 (numpy), compiled once.

The float64 twin of :mod:`dpcheck.laws.arb_eval` (same whitelist, same one-line
:class:`~dpcheck.errors.InputError` for anything else): :func:`compile_numpy` walks the
SymPy tree once (the walker of :mod:`~dpcheck.laws.expr_compile`, with this module's
tables and hooks) into nested closures over numpy ufuncs -- no eval, exec, lambdify or
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

from dpcheck.errors import InputError
from dpcheck.laws import expr_compile

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


class _Float64(expr_compile.Backend):
    """float64 arrays, elementwise; conditions are boolean arrays."""

    unary, binary, nary, rel = _UNARY, _BINARY, _NARY, _REL

    def constant(self, expr: sympy.Basic) -> Node | None:
        """A closed subexpression, folded from its 30-digit value; None if not closed."""
        if expr.free_symbols or not isinstance(expr, sympy.Expr):
            return None
        value = expr.evalf(30)
        if not value.is_real or not value.is_finite:
            raise self.unsupported(expr)
        folded = np.float64(float(value))
        return lambda xs: folded

    def power(self, expr: sympy.Pow, walk: expr_compile.Walk) -> Node:
        base, exponent = walk(expr.base), walk(expr.exp)
        if expr.exp == sympy.Rational(1, 2):
            return lambda xs: np.sqrt(base(xs))
        return lambda xs: np.power(base(xs), exponent(xs))

    def piecewise(self, branches: list[tuple[Node, Node]]) -> Node:
        return lambda xs: np.select(
            [np.broadcast_to(c(xs), np.broadcast(*xs, 0).shape) for _, c in branches],
            [np.broadcast_to(v(xs), np.broadcast(*xs, 0).shape) for v, _ in branches],
            default=np.nan,
        )

    def heaviside(self, expr: sympy.Heaviside, walk: expr_compile.Walk) -> Node:
        arg = walk(expr.args[0])
        at_zero = float(expr.args[1]) if len(expr.args) > 1 else 0.5
        return lambda xs: np.heaviside(arg(xs), at_zero)

    def relation(self, entry: Callable[..., np.ndarray], lhs: Node, rhs: Node) -> Node:
        return lambda xs: entry(lhs(xs), rhs(xs))

    def negate(self, cond: Node) -> Node:
        return lambda xs: np.logical_not(cond(xs))

    def connective(self, is_or: bool, parts: list[Node]) -> Node:
        op = np.logical_or if is_or else np.logical_and
        return lambda xs: reduce(op, (p(xs) for p in parts))

    def unsupported(self, expr: sympy.Basic) -> InputError:
        name = str(expr) if isinstance(expr, sympy.Symbol) else type(expr).__name__
        what = f"symbol {name}" if isinstance(expr, sympy.Symbol) else name
        return InputError(f"cannot evaluate {what} in float64 (supported: {_SUPPORTED})")

    def unknown_symbol(self, symbol: sympy.Symbol, index: expr_compile.Index) -> InputError:
        return self.unsupported(symbol)


_BACKEND = _Float64()


def compile_numpy(
    expr: sympy.Basic, variables: Sequence[sympy.Symbol]
) -> Callable[..., np.ndarray]:
    """f(*arrays): ``expr`` elementwise with numpy broadcasting, one argument per variable
    (floats, ints, Fractions or arrays)."""
    index = {v: i for i, v in enumerate(variables)}
    root = expr_compile.compile_tree(sympy.sympify(expr), index, _BACKEND)
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
