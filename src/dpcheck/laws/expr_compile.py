"""The one walker compiling a SymPy expression tree into nested closures (no eval, exec,
lambdify or strings of code), for a :class:`Backend`: :mod:`dpcheck.laws.arb_eval` (arb
balls, three-valued conditions) or :mod:`dpcheck.laws.numpy_eval` (float64, elementwise).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import reduce
from typing import Any, Protocol

import sympy
from sympy.logic.boolalg import BooleanFalse, BooleanTrue

from dpcheck.errors import InputError

Node = Callable[[tuple[Any, ...]], Any]  # argument tuple -> value, or a condition's truth
Walk = Callable[[sympy.Basic], Node]
Index = Mapping[sympy.Symbol, int]  # symbol -> its position in the argument tuple


class Backend(Protocol):
    """One arithmetic: its tables (read at compile time, so patched entries count) and hooks."""

    unary: Mapping[type, Callable[[Any], Any]]
    binary: Mapping[type, Callable[[Any, Any], Any]]
    nary: Mapping[type, Callable[[Any, Any], Any]]  # folded left to right
    rel: Mapping[type, Any]  # relational class -> the entry :meth:`relation` takes

    def constant(self, expr: sympy.Basic) -> Node | None: ...  # None: not a constant here
    def power(self, expr: sympy.Pow, walk: Walk) -> Node: ...
    def heaviside(self, expr: sympy.Heaviside, walk: Walk) -> Node: ...
    def piecewise(self, branches: list[tuple[Node, Node]]) -> Node: ...  # (value, condition)
    def relation(self, entry: Any, lhs: Node, rhs: Node) -> Node: ...
    def negate(self, cond: Node) -> Node: ...
    def connective(self, is_or: bool, parts: list[Node]) -> Node: ...
    def unsupported(self, expr: sympy.Basic) -> InputError: ...
    def unknown_symbol(self, symbol: sympy.Symbol, index: Index) -> InputError: ...


def compile_tree(expr: sympy.Basic, index: Index, be: Backend) -> Node:
    """``expr`` as a closure over the argument tuple, by the tables and hooks of ``be``."""

    def node(e: sympy.Basic) -> Node:
        if isinstance(e, sympy.Symbol):
            if e not in index:
                raise be.unknown_symbol(e, index)
            i = index[e]
            return lambda xs: xs[i]
        if (const := be.constant(e)) is not None:
            return const
        if isinstance(e, sympy.Pow):
            return be.power(e, node)
        if isinstance(e, sympy.Piecewise):
            return be.piecewise([(node(v), cond(c)) for v, c in e.args])
        if isinstance(e, sympy.Heaviside):
            return be.heaviside(e, node)
        kind = type(e)
        if kind in be.binary and len(e.args) == 2:
            g, first, second = be.binary[kind], *(node(a) for a in e.args)
            return lambda xs: g(first(xs), second(xs))
        if kind in be.unary and len(e.args) == 1:
            f, arg = be.unary[kind], node(e.args[0])
            return lambda xs: f(arg(xs))
        if kind in be.nary:
            op, parts = be.nary[kind], [node(a) for a in e.args]
            return lambda xs: reduce(op, (p(xs) for p in parts))
        raise be.unsupported(e)

    def cond(c: sympy.Basic) -> Node:
        if isinstance(c, (BooleanTrue, BooleanFalse)):
            truth = bool(c)
            return lambda xs: truth
        if type(c) in be.rel:
            return be.relation(be.rel[type(c)], node(c.lhs), node(c.rhs))
        if isinstance(c, sympy.Not):
            return be.negate(cond(c.args[0]))
        if isinstance(c, (sympy.And, sympy.Or)):
            return be.connective(isinstance(c, sympy.Or), [cond(a) for a in c.args])
        raise be.unsupported(c)

    return node(expr)
