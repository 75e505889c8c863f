"""Step 2, equivalence: whether a mutant equals its original (seeded random points, then
exact tests; a grid of sizes and layouts for printed sensitivities)."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from itertools import combinations_with_replacement
from typing import Any

import sympy as sp
from sympy.core.function import AppliedUndef

from dpcheck.claims.mutation.mutants import Mutant
from dpcheck.claims.mutation.timeouts import MutantTimeout, budget
from dpcheck.symbolic.rational import is_identically_zero

NUMERIC_POINTS = 12
NUMERIC_SEED = 20160416
#: time allowed to SymPy's simplify/equals in the equivalence test (main thread only)
SIMPLIFY_SECONDS = 10.0


class _NoPoint(Exception):
    """This random point gives the expression no value."""


def _random_value(sym: sp.Symbol, rng: random.Random) -> sp.Rational:
    """Small values that respect the symbol's assumptions (sizes 0..9 for integers)."""
    if sym.is_integer:
        low = 1 if sym.is_positive else 0 if sym.is_nonnegative else -5
        return sp.Integer(rng.randint(low, 9))
    if sym.is_positive or sym.is_nonnegative:
        return sp.Rational(rng.randint(1, 29), rng.randint(2, 19))
    return sp.Rational(rng.randint(-29, 29), rng.randint(2, 19))


class _Point:
    """One random point: symbol values, and free values for indexed and undefined terms."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.symbols: dict[sp.Symbol, sp.Rational] = {}
        self.table: dict[str, sp.Rational] = {}

    def symbol(self, sym: sp.Symbol) -> sp.Rational:
        if sym not in self.symbols:
            self.symbols[sym] = _random_value(sym, self.rng)
        return self.symbols[sym]

    def integer(self, atom: sp.Basic) -> int:
        key = str(atom)
        if key not in self.table:
            self.table[key] = sp.Integer(self.rng.randint(2, 4))
        value = self.table[key]
        if not value.is_Integer:
            raise _NoPoint(key)
        return int(value)

    def free(self, atom: sp.Basic) -> sp.Rational:
        key = str(atom)
        if key not in self.table:
            self.table[key] = sp.Rational(self.rng.randint(-19, 19) or 1, self.rng.randint(2, 9))
        return self.table[key]


def _bound_value(b: sp.Basic, point: _Point) -> int:
    b = b.replace(lambda a: isinstance(a, sp.Indexed), lambda a: sp.Integer(point.integer(a)))
    if not b.is_Integer:
        raise _NoPoint(str(b))
    return int(b)


def _unroll(expr: sp.Basic, point: _Point) -> sp.Basic:
    """Expand every finite sum (outer limit first), resolving indexed limits to integers."""
    if isinstance(expr, sp.Sum):
        *rest, (var, lo, hi) = expr.limits
        lo_i, hi_i = _bound_value(lo, point), _bound_value(hi, point)
        if hi_i - lo_i > 60:
            raise _NoPoint("sum too long")
        body = sp.Sum(expr.function, *rest) if rest else expr.function
        return sp.Add(*[_unroll(body.subs(var, v), point) for v in range(lo_i, hi_i + 1)])
    if not expr.args or isinstance(expr, (sp.IndexedBase, sp.Integral)):
        return expr
    return expr.func(*[_unroll(a, point) for a in expr.args])


def _quadrature(integral: sp.Integral) -> sp.Float:
    """A definite integral with numeric limits by mpmath quadrature (30 digits), split at
    the kinks of the absolute values in its integrand (SymPy's own evalf is far slower)."""
    import mpmath

    if len(integral.limits) != 1 or len(integral.limits[0]) != 3:
        raise _NoPoint("not a single definite integral")
    ((var, a, b),) = integral.limits
    if integral.function.free_symbols - {var} or not (a.is_number and b.is_number):
        raise _NoPoint("integral with free symbols")
    lo, hi = sorted((a, b), key=float)
    kinks = {
        r
        for abs_ in integral.function.atoms(sp.Abs)
        for r in sp.solve(abs_.args[0], var)
        if r.is_real and lo < r < hi
    }
    nodes_ = sorted(kinks, key=float, reverse=bool(a > b))
    f = sp.lambdify(var, integral.function, "mpmath")
    with mpmath.workdps(30):
        return sp.Float(mpmath.quad(f, [a, *nodes_, b]), 30)


def _instance(expr: sp.Basic, point: _Point) -> complex:
    """The value of ``expr`` at ``point`` (40 digits), or _NoPoint."""
    labels = {b.label for b in expr.atoms(sp.IndexedBase)}
    syms = sorted(
        (s for s in expr.free_symbols if isinstance(s, sp.Symbol) and s not in labels), key=str
    )
    e = expr.subs({s: point.symbol(s) for s in syms})
    e = _unroll(e, point)
    e = e.replace(lambda a: isinstance(a, (sp.Indexed, AppliedUndef)), point.free)
    e = e.replace(lambda a: isinstance(a, sp.Integral), _quadrature)
    value = sp.N(e, 40)
    if value.free_symbols or value.has(sp.zoo, sp.nan, sp.oo, -sp.oo):
        raise _NoPoint(str(value))
    return complex(value)


def _leaves(expr: sp.Basic) -> list[sp.Basic]:
    if isinstance(expr, sp.Tuple):
        return [leaf for a in expr.args for leaf in _leaves(a)]
    return [expr]


_EVAL_ERRORS = (_NoPoint, TypeError, ValueError, ZeroDivisionError, OverflowError)


def _values(leaves: Sequence[sp.Basic], point: _Point) -> list[complex] | None:
    try:
        return [_instance(e, point) for e in leaves]
    except _EVAL_ERRORS:
        return None


def _close(x: complex, y: complex) -> bool:
    return abs(x - y) <= 1e-12 * (1 + abs(x))


def numeric_differs(a: sp.Basic, b: sp.Basic, points: int = NUMERIC_POINTS) -> bool | None:
    """True when a and b differ at a seeded random point (or b has no value where a has
    one); False when equal at every point where a has a value; None when a has none."""
    la, lb = _leaves(a), _leaves(b)
    if len(la) != len(lb):
        return True
    evaluated = 0
    for k in range(points):
        point = _Point(NUMERIC_SEED + k)
        va = _values(la, point)
        if va is None:
            continue
        vb = _values(lb, point)
        if vb is None or not all(_close(x, y) for x, y in zip(va, vb, strict=True)):
            return True
        evaluated += 1
    return False if evaluated else None


def exactly_equal(a: sp.Basic, b: sp.Basic) -> str | None:
    """How a = b was shown ("exact", "simplify", "equals"), or None (elementwise for Tuples)."""
    la, lb = _leaves(a), _leaves(b)
    if len(la) != len(lb):
        return None
    how = "exact"
    for x, y in zip(la, lb, strict=True):
        diff = x - y
        if diff == 0 or _rational_zero(diff):
            continue
        fallback = _fallback_zero(diff)
        if fallback is None:
            return None
        how = fallback if how == "exact" else how
    return how


def _fallback_zero(diff: sp.Basic, seconds: float = SIMPLIFY_SECONDS) -> str | None:
    """ "simplify" or "equals" when SymPy shows diff = 0 within ``seconds``, else None."""
    try:
        with budget(seconds):
            if sp.simplify(diff) == 0:
                return "simplify"
            if diff.equals(0) is True:
                return "equals"
    except MutantTimeout:
        return None
    return None


def _rational_zero(diff: sp.Basic) -> bool:
    try:
        return is_identically_zero(diff)
    except Exception:  # noqa: BLE001 - the rational route does not apply to every form
        return False


def equivalence(m: Mutant) -> str | None:
    """None when the mutant is not equivalent; else how it was found equivalent:
    "exact"/"simplify"/"equals" (dropped), "grid" (printed functions), or "undecided"
    (equal at every random point, not shown equal exactly: not run)."""
    if m.transcription.attr == "normalised":
        return "grid" if printed_equal(m.transcription.original, m.value) else None
    a, b = m.transcription.original, m.value
    if a == b:
        return "exact"
    if numeric_differs(a, b):
        return None
    return exactly_equal(a, b) or "undecided"


def _grid() -> list[tuple[int, Any, Any]]:
    out: list[tuple[int, Any, Any]] = [(n, None, None) for n in range(2, 15)]
    for j in (2, 3):
        for layout in combinations_with_replacement(range(2, 6), j):
            groups = tuple(layout)
            for eligible in (tuple(sorted(set(groups))), groups[:1], groups[-1:]):
                out.append((sum(groups), groups, eligible))
    return out


def _call(f: Callable[..., Any], args: tuple[int, Any, Any]) -> Any:
    try:
        return f(*args)
    except Exception as exc:  # noqa: BLE001 - a formula may be undefined at a grid point
        return f"error: {type(exc).__name__}"


def printed_equal(f: Callable[..., Any], g: Callable[..., Any]) -> bool:
    """Equal values (exact comparison) at every point of a grid of sizes and layouts."""
    from dpcheck.papers.liu2019s_sensitivity import compare

    for args in _grid():
        a, b = _call(f, args), _call(g, args)
        if isinstance(a, str) or isinstance(b, str):
            if a != b:
                return False
            continue
        if compare(a, b) != "equal":
            return False
    return True
