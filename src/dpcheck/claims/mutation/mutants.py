"""Step 1, generate: the one-place mutants of a transcription, of every kind (a SymPy
expression's sign, constant, exponent, swap and symbol mutants; wrappers of a printed
sensitivity)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import sympy as sp

from dpcheck.claims.mutation.transcription import Transcription

KINDS = ("sign", "constant", "exponent", "swap", "symbol")


@dataclass(eq=False)
class Mutant:
    """A one-place change of a transcription: ``value`` replaces ``obj.<attr>``."""

    transcription: Transcription
    kind: str
    description: str
    value: Any = field(repr=False)


def generate(t: Transcription) -> list[Mutant]:
    """Every candidate mutant of ``t`` (before selection and the equivalence filter)."""
    if t.attr == "normalised":
        return printed_mutants(t)
    return [
        Mutant(t, kind, text, value)
        for kind, text, value in expr_mutants(t.original, t.vocabulary, t.document)
    ]


Path = tuple[int, ...]
Candidate = tuple[str, str, sp.Basic]


def _short(e: Any, n: int = 60) -> str:
    text = str(e)
    return text if len(text) <= n else text[: n - 3] + "..."


def _bound(expr: sp.Basic) -> set[sp.Symbol]:
    """Variables bound by a sum, product or integral anywhere in ``expr``."""
    out: set[sp.Symbol] = set()
    for node in sp.preorder_traversal(expr):
        if isinstance(node, (sp.Sum, sp.Product, sp.Integral)):
            out |= {lim[0] for lim in node.limits}
    return out


def nodes(expr: sp.Basic, path: Path = ()) -> Iterator[tuple[Path, sp.Basic]]:
    """Every mutable subexpression with its path (argument indices), preorder.

    Indexed bases, symbols and numbers are leaves; the variable of a limit
    ``(i, a, b)`` is skipped (its bounds are visited).
    """
    yield path, expr
    if isinstance(expr, (sp.IndexedBase, sp.Symbol, sp.Number)) or not expr.args:
        return
    limits = isinstance(expr, (sp.Sum, sp.Product, sp.Integral))
    for i, arg in enumerate(expr.args):
        if limits and i > 0:
            for j, part in enumerate(arg.args):
                if j > 0:
                    yield from nodes(part, (*path, i, j))
            continue
        yield from nodes(arg, (*path, i))


def replace_at(expr: sp.Basic, path: Path, new: sp.Basic) -> sp.Basic:
    """``expr`` with the node at ``path`` replaced by ``new`` (rebuilt, so re-evaluated)."""
    if not path:
        return new
    head, rest = path[0], path[1:]
    args = list(expr.args)
    args[head] = replace_at(args[head], rest, new)
    return expr.func(*args)


def sign_candidates(expr: sp.Basic) -> list[Candidate]:
    """Negate one additive term (a non-sum top-level element as a whole)."""
    out: list[Candidate] = []
    tops = _elements(expr)
    for path, node in nodes(expr):
        if isinstance(node, sp.Add):
            for i, term in enumerate(node.args):
                out.append(("sign", f"sign of term {_short(term)} flipped", (*path, i), -term))
        elif path in tops and not isinstance(node, sp.Tuple):
            out.append(("sign", f"sign of {_short(node)} flipped", path, -node))
    return [(k, d, replace_at(expr, p, v)) for k, d, p, v in out]


def _elements(expr: sp.Basic) -> set[Path]:
    """Paths of the top-level elements: the root, or each non-Tuple leaf of nested Tuples."""
    if not isinstance(expr, sp.Tuple):
        return {()}
    out: set[Path] = set()
    for i, arg in enumerate(expr.args):
        out |= {(i, *p) for p in _elements(arg)}
    return out


def bump(value: sp.Rational) -> sp.Rational:
    """The changed constant: k -> k+1 (but -1 -> -2), p/q -> p/(q+1)."""
    if value.is_Integer:
        return sp.Integer(-2) if value == -1 else value + 1
    return sp.Rational(value.p, value.q + 1)


def _is_exponent(path: Path, parents: dict[Path, sp.Basic]) -> bool:
    parent = parents.get(path[:-1]) if path else None
    return isinstance(parent, sp.Pow) and path[-1] == 1


def constant_candidates(expr: sp.Basic) -> list[Candidate]:
    """Change one number (not a power's exponent: see :func:`exponent_candidates`)."""
    parents = dict(nodes(expr))
    out = []
    for path, node in nodes(expr):
        if isinstance(node, sp.Rational) and not _is_exponent(path, parents):
            new = bump(node)
            where = _short(parents.get(path[:-1], node))
            out.append(("constant", f"{node} -> {new} in {where}", path, new))
    return [(k, d, replace_at(expr, p, v)) for k, d, p, v in out]


def exponent_candidates(expr: sp.Basic) -> list[Candidate]:
    """Raise one power's exponent by 1 (lower it where k+1 = 0)."""
    out = []
    for path, node in nodes(expr):
        if isinstance(node, sp.Pow):
            k = node.exp
            new = k - 1 if k == -1 else k + 1
            out.append(
                ("exponent", f"exponent {k} -> {new} in {_short(node)}", path, node.base**new)
            )
    return [(kd, d, replace_at(expr, p, v)) for kd, d, p, v in out]


def swap_pairs(document: str) -> list[tuple[sp.Basic, sp.Basic]]:
    """The pairs of :func:`swap_candidates` for a document."""
    from dpcheck.symbolic import krand, sensitivity, symbols

    pairs: dict[str, list[tuple[sp.Basic, sp.Basic]]] = {
        "liu2019": [(symbols.c0, symbols.c1)],
        "liu2019s": [(sensitivity.x, sensitivity.xp), (sensitivity.y, sensitivity.yp)],
        "zz2016": [(krand.p, krand.q), (krand.s, krand.m), (krand.n, krand.m)],
    }
    return pairs.get(document, [])


def swap_candidates(expr: sp.Basic, document: str) -> list[Candidate]:
    """Exchange every occurrence of a pair of symbols (c0/c1, p/q, ...) that both occur."""
    out: list[Candidate] = []
    for a, b in swap_pairs(document):
        if expr.has(a) and expr.has(b):
            new = expr.xreplace({a: b, b: a})
            out.append(("swap", f"{a} <-> {b}", new))
    return out


def _same_kind(a: sp.Basic, b: sp.Basic) -> bool:
    if isinstance(a, sp.IndexedBase) or isinstance(b, sp.IndexedBase):
        return isinstance(a, sp.IndexedBase) and isinstance(b, sp.IndexedBase)
    return type(a) is type(b) and a.assumptions0 == b.assumptions0


def _symbol_leaves(expr: sp.Basic, bound: set[sp.Symbol]) -> list[tuple[Path, sp.Basic]]:
    """Occurrences of free symbols and of indexed bases (the base of an Indexed)."""
    parents = dict(nodes(expr))
    out = []
    for path, node in parents.items():
        parent = parents.get(path[:-1]) if path else None
        if isinstance(node, sp.IndexedBase):
            out.append((path, node))
        elif isinstance(node, sp.Symbol) and node not in bound:
            if isinstance(parent, sp.IndexedBase):
                continue  # the label of an indexed base
            out.append((path, node))
    return out


def symbol_candidates(expr: sp.Basic, vocabulary: Sequence[sp.Basic]) -> list[Candidate]:
    """Replace one occurrence of a symbol by another of the same kind.

    Partners come from the expression first (the likeliest confusion), then from
    the module's vocabulary; the k-th occurrence of a symbol takes the k-th partner
    (cyclically), so the replacements vary.
    """
    bound = _bound(expr)
    leaves = _symbol_leaves(expr, bound)
    present = sorted({s for _, s in leaves}, key=str)
    out: list[Candidate] = []
    seen: dict[sp.Basic, int] = {}
    for path, sym in leaves:
        partners = [o for o in present if o != sym and _same_kind(sym, o)]
        partners += [o for o in vocabulary if o not in partners and o != sym and _same_kind(sym, o)]
        partners = [o for o in partners if o not in bound]
        if not partners:
            continue
        k = seen.get(sym, 0)
        seen[sym] = k + 1
        other = partners[k % len(partners)]
        new = replace_at(expr, path, other)
        out.append(("symbol", f"one {sym} -> {other}", new))
    return out


def expr_mutants(expr: sp.Basic, vocabulary: Sequence[sp.Basic], document: str) -> list[Candidate]:
    """Every candidate of every kind for a SymPy expression (a Tuple included)."""
    return [
        *sign_candidates(expr),
        *constant_candidates(expr),
        *exponent_candidates(expr),
        *swap_candidates(expr, document),
        *symbol_candidates(expr, vocabulary),
    ]


# --------------------------------------------------------------------------- printed
def _scaled(value: Any, k: Fraction) -> Any:
    if isinstance(value, sp.Basic):
        return value * sp.Rational(k.numerator, k.denominator)
    return value * k


def printed_mutants(t: Transcription) -> list[Mutant]:
    """Wrappers of a printed sensitivity function (see the module docstring)."""
    f = t.original

    def negated(n: int, g: Any, e: Any) -> Any:
        return -f(n, g, e)

    def times(k: Fraction) -> Callable[[int, Any, Any], Any]:
        return lambda n, g, e: _scaled(f(n, g, e), k)

    def shifted(d: int) -> Callable[[int, Any, Any], Any]:
        return lambda n, g, e: f(n + d, g, e)

    def all_groups(n: int, g: Any, e: Any) -> Any:
        return f(n, g, g)

    return [
        Mutant(t, "sign", "value negated", negated),
        Mutant(t, "constant", "value times 3/2", times(Fraction(3, 2))),
        Mutant(t, "constant", "value times 2/3", times(Fraction(2, 3))),
        Mutant(t, "symbol", "n read as n+1", shifted(1)),
        Mutant(t, "symbol", "n read as n-1", shifted(-1)),
        Mutant(t, "symbol", "eligible groups read as all groups", all_groups),
    ]
