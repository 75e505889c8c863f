"""Exact quadratic polynomials over the rationals, and their extremes over a box.

A :class:`Quad` is a polynomial of total degree <= 2 with
:class:`fractions.Fraction` coefficients, stored as ``{monomial: coefficient}``
with monomials ``()`` (constant), ``(i,)`` and ``(i, j)`` with ``i <= j``.
Multiplying two polynomials whose product would have degree > 2 raises, so a
statistic written with :class:`Quad` variables is *checked* to be quadratic.

:func:`box_candidates` is the KKT enumeration of the sensitivity engine
(``dpcheck.enumeration.sensitivity``, fact 2): for every assignment of each
variable to {lower, upper, free} it solves ``grad_free P = 0`` with the other
variables fixed, in exact rational arithmetic, and yields the unique solutions
that lie in the box.  Why this finds max P and min P over the box:
P attains its maximum at some x*; let F be the face whose relative interior
holds x* (the coordinates of x* at a bound are fixed, the others free).  x* is
a local maximum of P on the affine hull of F, so ``grad_free P(x*) = 0``.  If
that linear system has a unique solution, it is x* and it is yielded.  If not,
its solution set is an affine set L of dimension >= 1 through x* on which
``grad_free P = 0``, so P is constant on L (its derivative along L vanishes);
L meets the boundary of F at a point y with P(y) = P(x*), and y lies on a face
of lower dimension, where the same argument applies.  The dimension drops
each time, and a vertex (no free variable) is always yielded, so some
maximiser is yielded.  The candidate set is the same for P and -P, so one pass
gives both extremes.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from fractions import Fraction
from itertools import product

Number = Fraction | int
Mono = tuple[int, ...]

_ZERO = Fraction(0)
_ONE = Fraction(1)


class Quad:
    """A polynomial of degree <= 2 with exact rational coefficients."""

    __slots__ = ("c",)

    def __init__(self, coefficients: dict[Mono, Fraction] | None = None) -> None:
        self.c: dict[Mono, Fraction] = coefficients if coefficients is not None else {}

    # construction --------------------------------------------------------------------
    @staticmethod
    def var(i: int) -> Quad:
        return Quad({(i,): _ONE})

    @staticmethod
    def const(value: Number) -> Quad:
        value = Fraction(value)
        return Quad({(): value} if value else {})

    @staticmethod
    def lift(value: Quad | Number) -> Quad:
        return value if isinstance(value, Quad) else Quad.const(value)

    # arithmetic ----------------------------------------------------------------------
    def __add__(self, other: Quad | Number) -> Quad:
        out = dict(self.c)
        for m, v in Quad.lift(other).c.items():
            s = out.get(m, _ZERO) + v
            if s:
                out[m] = s
            else:
                out.pop(m, None)
        return Quad(out)

    __radd__ = __add__

    def __neg__(self) -> Quad:
        return Quad({m: -v for m, v in self.c.items()})

    def __sub__(self, other: Quad | Number) -> Quad:
        return self + (-Quad.lift(other))

    def __rsub__(self, other: Quad | Number) -> Quad:
        return Quad.lift(other) + (-self)

    def __mul__(self, other: Quad | Number) -> Quad:
        if not isinstance(other, Quad):
            k = Fraction(other)
            return Quad({m: v * k for m, v in self.c.items()}) if k else Quad()
        out: dict[Mono, Fraction] = {}
        for m1, v1 in self.c.items():
            for m2, v2 in other.c.items():
                m = tuple(sorted(m1 + m2))
                if len(m) > 2:
                    raise ArithmeticError("product of degree > 2: the statistic is not quadratic")
                out[m] = out.get(m, _ZERO) + v1 * v2
        return Quad({m: v for m, v in out.items() if v})

    __rmul__ = __mul__

    def __truediv__(self, other: Number) -> Quad:
        return self * (1 / Fraction(other))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Quad):
            return self.c == other.c
        if isinstance(other, (int, Fraction)):
            return self.c == Quad.const(other).c
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        terms = [f"{v}*{'*'.join(f'v{i}' for i in m) or '1'}" for m, v in sorted(self.c.items())]
        return "Quad(" + (" + ".join(terms) or "0") + ")"

    # inspection ----------------------------------------------------------------------
    def coefficient(self, *variables: int) -> Fraction:
        return self.c.get(tuple(sorted(variables)), _ZERO)

    def degree(self) -> int:
        return max((len(m) for m in self.c), default=0)

    def variables(self) -> set[int]:
        return {i for m in self.c for i in m}

    def evaluate(self, point: Sequence[Number]) -> Fraction:
        total = _ZERO
        for m, v in self.c.items():
            term = v
            for i in m:
                term *= point[i]
            total += term
        return total

    def renamed(self, mapping: dict[int, int]) -> Quad:
        """The polynomial with variable i replaced by mapping.get(i, i)."""
        return Quad({tuple(sorted(mapping.get(i, i) for i in m)): v for m, v in self.c.items()})


def solve_exact(matrix: list[list[Fraction]], rhs: list[Fraction]) -> list[Fraction] | None:
    """The unique solution of ``matrix @ x = rhs`` (Gauss-Jordan over Q); None if singular."""
    size = len(rhs)
    rows = [list(r) + [b] for r, b in zip(matrix, rhs, strict=True)]
    for col in range(size):
        pivot = next((r for r in range(col, size) if rows[r][col] != 0), None)
        if pivot is None:
            return None
        rows[col], rows[pivot] = rows[pivot], rows[col]
        p = rows[col][col]
        rows[col] = [v / p for v in rows[col]]
        for r in range(size):
            if r != col and rows[r][col] != 0:
                f = rows[r][col]
                rows[r] = [a - f * b for a, b in zip(rows[r], rows[col], strict=True)]
    return [rows[r][size] for r in range(size)]


LOWER, UPPER, FREE = "lower", "upper", "free"
ALL_CHOICES: tuple[str, ...] = (LOWER, UPPER, FREE)


def box_candidates(
    poly: Quad,
    nvars: int,
    choices: Sequence[Sequence[str]] | None = None,
    lower: Fraction = _ZERO,
    upper: Fraction = _ONE,
) -> Iterator[tuple[Fraction, tuple[Fraction, ...]]]:
    """KKT candidates ``(P(x), x)`` of ``poly`` over ``[lower, upper]^nvars``.

    ``choices[i]`` restricts the assignments tried for variable i (default: all
    three).  Restricting a variable to ``free`` is complete only when its
    bound cases are covered elsewhere (the caller's configurations do that).
    Each yielded point is the unique stationary point of one face (see the
    module docstring for why the maximum and minimum are among them).
    """
    if choices is None:
        choices = [ALL_CHOICES] * nvars
    grad_const = [poly.coefficient(i) for i in range(nvars)]
    hess = [[_ZERO] * nvars for _ in range(nvars)]
    for m, v in poly.c.items():
        if len(m) == 2:
            i, j = m
            if i == j:
                hess[i][i] += 2 * v
            else:
                hess[i][j] += v
                hess[j][i] += v
    for assignment in product(*choices):
        point: list[Fraction] = [_ZERO] * nvars
        free = [i for i, a in enumerate(assignment) if a == FREE]
        for i, a in enumerate(assignment):
            if a == LOWER:
                point[i] = lower
            elif a == UPPER:
                point[i] = upper
        if free:
            fixed = [i for i in range(nvars) if i not in free]
            matrix = [[hess[i][j] for j in free] for i in free]
            rhs = [-(grad_const[i] + sum(hess[i][j] * point[j] for j in fixed)) for i in free]
            sol = solve_exact(matrix, rhs)
            if sol is None or any(not lower <= s <= upper for s in sol):
                continue
            for i, s in zip(free, sol, strict=True):
                point[i] = s
        yield poly.evaluate(point), tuple(point)


def face_count(choices: Sequence[Sequence[str]]) -> int:
    """How many faces :func:`box_candidates` examines for these choices."""
    total = 1
    for c in choices:
        total *= len(c)
    return total
