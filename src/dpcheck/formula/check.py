r"""Compare a pasted formula with a derived quantity (Liu 2019, §3 and App. B).

``check_formula('truncated.mean', r'\mu_{1}=s+\frac{...}{...}')`` parses the
formula (:mod:`dpcheck.formula.latex_parser`) and compares it with the quantity
*derived* in :mod:`dpcheck.symbolic.laplace_family` (never a formula typed in
by hand), or, with ``against_latex``, with a second pasted formula.

Route (DESIGN.md, "Verdicts": random points never prove, they only find
counterexamples that are then confirmed rigorously):

1. exact: the difference reduces to 0 as a rational function of t0, t1,
   e^-t0, e^-t1 (:func:`dpcheck.symbolic.rational.is_identically_zero`)
   -> ``equal``;
2. witness search: a point of the domain where the ball-arithmetic (python-flint
   arb) enclosure of the difference excludes 0 (:func:`dpcheck.claims.checks.find_witness`
   over :func:`~dpcheck.claims.checks.mechanism_points` and seeded random
   rational points, near and at the bounds, small and large λ) -> ``differs``;
3. SymPy ``simplify`` of the difference gives 0 -> ``equal``.  (It is tried
   after the witness search: once a rigorous witness exists the difference
   is not 0, so simplify could not succeed, and it is the slow step.)
4. otherwise every point is evaluated in arb at high precision; if all >= 200
   enclosures contain 0 with radius < 1e-30 -> ``equal``, and the method says
   this is numerical evidence at N points, not a symbolic proof;
   else ``undecided``.

Symbols the quantity does not depend on (``c_1`` in a ``.lower`` quantity of
eq (9), ``c_0`` in an ``.upper`` one of eq (10)) are allowed: the formula is
compared as a function of all its symbols (the quantity is constant in the
extra ones), so it is ``equal`` only if they drop out, and a ``differs``
witness gives them values; a note names them.
"""

from __future__ import annotations

import math
import random
import signal
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cache
from typing import Any

import flint
import sympy as sp

from dpcheck.claims import checks as ck
from dpcheck.errors import InputError
from dpcheck.formula.latex_parser import ParsedFormula, parse_latex
from dpcheck.numeric import rigorous
from dpcheck.numeric.names import MECHANISMS, QUANTITIES, QUANTITY_NAMES
from dpcheck.symbolic import laplace_family as lf
from dpcheck.symbolic.rational import is_identically_zero
from dpcheck.symbolic.symbols import c0, c1, lam, s

F = Fraction
Point = dict[sp.Symbol, Fraction]

#: seed of the random witness / evidence points (fixed: answers are reproducible)
SEED = 20190
#: random points added to :func:`dpcheck.claims.checks.mechanism_points`
RANDOM_POINTS = 100
#: fewest points at which numerical evidence may support 'equal'
MIN_EVIDENCE_POINTS = 200
#: an enclosure of the difference counts as "zero" when it contains 0 with this radius
EVIDENCE_RADIUS = 1e-30
#: precisions (digits) tried for the numerical evidence and for witness values
PRECISIONS = (60, 120, 240)
#: estimated terms of the difference over a common denominator above which the exact
#: reduction is skipped (it would take minutes: (s+c_0+c_1+\lambda+p_1)^{15} is ~8000)
MAX_TERMS = 20000
#: seconds allowed to the exact reduction and to simplify (each); then the route goes on
EXACT_SECONDS = 10.0
#: sp.simplify is skipped for differences with more operations than this
MAX_SIMPLIFY_OPS = 400

_NAMES = {
    "mean": "E s* (the paper's mu1, eq (6), for truncation; mu2, eq (7), for BIT)",
    "bias": "E s* - s",
    "second_moment": "E s*^2 (App. B)",
    "var": "Var s* = MSE - bias^2",
    "mse": "E (s* - s)^2 (Proposition 2, App. B)",
}
_SIDES = {
    "lower": ("bounds [c0, oo), the limit c1 -> oo (eq (9))", (s, c0, lam)),
    "upper": ("bounds (-oo, c1], the limit c0 -> -oo (eq (10))", (s, c1, lam)),
}


@dataclass(frozen=True)
class Quantity:
    """A derived quantity that formulas can be checked against."""

    name: str
    description: str
    domain: str
    symbols: tuple[sp.Symbol, ...]
    derive: Callable[[], sp.Expr] = field(repr=False)


def _two_sided(mechanism: str, name: str) -> Quantity:
    label = "truncated (Def. 2(a))" if mechanism == "truncated" else "BIT (Def. 2(b))"
    return Quantity(
        f"{mechanism}.{name}",
        f"{_NAMES[name]} of the {label} Laplace mechanism, derived by integration",
        ck.DOMAIN,
        (s, c0, c1, lam),
        lambda: lf.quantity(mechanism, name),
    )


def _one_sided(mechanism: str, name: str, side: str) -> Quantity:
    text, symbols = _SIDES[side]
    label = "truncated" if mechanism == "truncated" else "BIT"
    return Quantity(
        f"{mechanism}.{name}.{side}",
        f"{_NAMES[name]} of the {label} mechanism with {text}",
        f"{'c0 <= s' if side == 'lower' else 's <= c1'}, lambda > 0 ({text})",
        symbols,
        lambda: lf.one_sided(mechanism, name, side),
    )


def _registry() -> dict[str, Quantity]:
    out = {}
    for mechanism in MECHANISMS:
        for name in QUANTITIES:
            out[f"{mechanism}.{name}"] = _two_sided(mechanism, name)
    for mechanism in MECHANISMS:
        for name in QUANTITIES:
            for side in _SIDES:
                q = _one_sided(mechanism, name, side)
                out[q.name] = q
    out["truncated.normaliser"] = Quantity(
        "truncated.normaliser",
        "P(c0 <= X <= c1) for X ~ Lap(s, lambda): eq (4)'s denominator over 2 lambda",
        ck.DOMAIN,
        (s, c0, c1, lam),
        lf.normaliser,
    )
    return out


#: every quantity name check-formula knows, in a stable order
REGISTRY: dict[str, Quantity] = _registry()


def get_quantity(name: str) -> Quantity:
    """The registered quantity ``name``; InputError listing the known names otherwise."""
    if name not in REGISTRY:
        raise InputError(f"unknown quantity {name!r} (known: {', '.join(REGISTRY)})")
    return REGISTRY[name]


@cache
def derived(name: str) -> sp.Expr:
    """The derived expression of quantity ``name`` (cached: each derivation runs once)."""
    return get_quantity(name).derive()


# ---------------------------------------------------------------------------
# points
# ---------------------------------------------------------------------------


def random_points(count: int = RANDOM_POINTS, seed: int = SEED) -> list[Point]:
    """Seeded random rational points with c0 < c1, s in [c0, c1] and λ from 1/100 to 100.

    A quarter of them put s at a bound or within 1/1000 of the width from it.
    """
    rng = random.Random(seed)
    lams = [F(1, 100), F(1, 20), F(1, 7), F(1, 3), F(2, 3), F(3, 2), F(5), F(17), F(100)]
    edge = [F(0), F(1), F(1, 1000), F(999, 1000)]
    points = []
    for i in range(count):
        lo = F(rng.randint(-40, 40), rng.randint(1, 6))
        width = F(rng.randint(1, 60), rng.randint(1, 8))
        frac = edge[i % 4] if i % 4 == 0 or i % 8 == 3 else F(rng.randint(1, 99), 100)
        scale = (
            lams[rng.randrange(len(lams))] if i % 2 else F(rng.randint(1, 40), rng.randint(1, 9))
        )
        points.append({c0: lo, c1: lo + width, lam: scale, s: lo + frac * width})
    return points


def domain_points() -> list[Point]:
    """The small-integer points of :func:`dpcheck.claims.checks.mechanism_points`, then
    :func:`random_points` (250 in all; they satisfy every quantity's domain)."""
    return [dict(p) for p in ck.mechanism_points()] + random_points()


# ---------------------------------------------------------------------------
# cost guard
# ---------------------------------------------------------------------------


def _cap(n: int) -> int:
    return min(n, MAX_TERMS + 1)


def estimated_terms(expr: sp.Expr) -> tuple[int, int]:
    """Upper estimates of (numerator, denominator) terms once ``expr`` is expanded over a
    common denominator -- the work of the exact reduction; capped just above MAX_TERMS."""
    if expr.is_Atom:
        return 1, 1
    if isinstance(expr, sp.Add):
        parts = [estimated_terms(a) for a in expr.args]
        den = math.prod(d for _, d in parts)
        num = sum(n * den // max(d, 1) for n, d in parts)
        return _cap(num), _cap(den)
    if isinstance(expr, sp.Mul):
        parts = [estimated_terms(a) for a in expr.args]
        return _cap(math.prod(n for n, _ in parts)), _cap(math.prod(d for _, d in parts))
    if isinstance(expr, sp.Pow) and expr.exp.is_Integer:
        k = int(expr.exp)
        n, d = estimated_terms(expr.base)
        up, down = (n, d) if k > 0 else (d, n)
        k = min(abs(k), MAX_TERMS)
        return _cap(math.comb(up + k - 1, k)), _cap(math.comb(down + k - 1, k))
    for arg in expr.args:  # exp, log, roots: their arguments are reduced on their own
        estimated_terms(arg)
    return 1, 1


def too_large(expr: sp.Expr) -> bool:
    """True when the exact reduction of ``expr`` is expected to be too slow (it is then
    skipped; the witness search and the arb evidence still run)."""
    if max(estimated_terms(expr)) > MAX_TERMS:
        return True
    for sub in sp.preorder_traversal(expr):
        if isinstance(sub, (sp.exp, sp.log)) or (
            isinstance(sub, sp.Pow) and not sub.exp.is_Integer
        ):
            if any(max(estimated_terms(arg)) > MAX_TERMS for arg in sub.args):
                return True
    return False


class _Timeout(Exception):
    """Raised by the alarm of :func:`within`."""


def within(seconds: float, fn: Callable[..., Any], *args: Any) -> tuple[bool, Any]:
    """(True, fn(*args)), or (False, None) if it ran longer than ``seconds``.

    Uses SIGALRM, so the limit applies in the main thread of a POSIX process
    (the CLI) when no other alarm is pending; elsewhere ``fn`` runs without a limit.
    """
    if (
        threading.current_thread() is not threading.main_thread()
        or not hasattr(signal, "setitimer")
        or signal.getitimer(signal.ITIMER_REAL)[0] > 0  # someone else's alarm is pending
    ):
        return True, fn(*args)
    armed = [True]

    def on_alarm(signum: int, frame: Any) -> None:
        if armed[0]:
            raise _Timeout

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        value = fn(*args)
        armed[0] = False
        return True, value
    except _Timeout:
        return False, None
    finally:
        armed[0] = False
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


# ---------------------------------------------------------------------------
# the check
# ---------------------------------------------------------------------------


@dataclass
class FormulaCheck:
    """The answer of ``dpcheck check-formula``: verdict 'equal', 'differs' or 'undecided'."""

    quantity: str
    verdict: str
    method: str
    formula: ParsedFormula
    reference_name: str
    reference: sp.Expr
    domain: str
    against: ParsedFormula | None = None
    witness: dict[str, Any] | None = None
    points_checked: int | None = None
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0
    description: str = ""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: strings for expressions and numbers (exact rationals for the point)."""
        out: dict[str, Any] = {
            "quantity": self.quantity,
            "description": self.description,
            "verdict": self.verdict,
            "method": self.method,
            "formula": _formula_dict(self.formula),
            "reference": {
                "name": self.reference_name,
                "expr": str(self.reference),
                "latex": sp.latex(self.reference),
            },
            "domain": self.domain,
            "notes": list(self.notes),
            "seconds": round(self.seconds, 3),
        }
        if self.against is not None:
            out["against"] = _formula_dict(self.against)
        if self.witness is not None:
            out["witness"] = self.witness
        if self.points_checked is not None:
            out["points_checked"] = self.points_checked
        return out


def _formula_dict(parsed: ParsedFormula) -> dict[str, Any]:
    return {
        "source": parsed.source,
        "lhs": parsed.lhs,
        "expr": str(parsed.expr),
        "latex": sp.latex(parsed.expr),
    }


def _extra_symbols(quantity: Quantity, exprs: Iterable[sp.Expr]) -> list[sp.Symbol]:
    free: set[sp.Symbol] = set().union(*(e.free_symbols for e in exprs))
    return sorted(free - set(quantity.symbols), key=str)


#: failures of a SymPy reduction that mean "not shown" (RecursionError: a very deep tree)
_NOT_SHOWN = (sp.PolynomialError, TypeError, ValueError, NotImplementedError, RecursionError)


def _exactly_zero(diff: sp.Expr) -> bool:
    """Step 1: exact rational reduction (a proof when it gives 0)."""
    try:
        return is_identically_zero(diff)
    except _NOT_SHOWN:
        return False


def _simplifies_to_zero(diff: sp.Expr) -> bool:
    """Step 3: SymPy simplify, on small differences only."""
    if sp.count_ops(diff) > MAX_SIMPLIFY_OPS:
        return False
    try:
        return sp.simplify(diff) == 0
    except _NOT_SHOWN:
        return False


def _ball(expr: sp.Expr, point: Point, dps: int) -> flint.arb | None:
    try:
        return rigorous.arb_eval(expr, point, dps)
    except (rigorous.NotRigorous, ZeroDivisionError, ValueError, RecursionError):
        return None


def witness_values(
    formula: sp.Expr, reference: sp.Expr, point: Point, names: tuple[str, str]
) -> dict[str, Any]:
    """Both sides and their difference in arb at the first precision where the
    difference's enclosure excludes 0 (the rigorous confirmation of the witness)."""
    diff = formula - reference
    for dps in (40, 80, 160, 320, 640):
        d = _ball(diff, point, dps)
        if d is not None and (d > 0 or d < 0):
            break
    else:  # pragma: no cover - find_witness only returns points where this succeeds
        raise AssertionError(f"witness {point} not confirmed")
    a = rigorous.arb_eval(formula, point, dps)
    b = rigorous.arb_eval(reference, point, dps)
    used = sorted(diff.free_symbols, key=str) or sorted(point, key=str)
    return {
        "point": ck.point_str({k: point[k] for k in sorted(point, key=str) if k in used}),
        names[0]: ck.fmt(a),
        names[1]: ck.fmt(b),
        "difference": ck.fmt(d),
        "difference_enclosure": d.str(20, radius=True),
        "sign": 1 if d > 0 else -1,
        "digits": dps,
        "confirmed": "the arb enclosure of formula - reference excludes 0",
    }


def numerical_evidence(diff: sp.Expr, points: Iterable[Point]) -> tuple[int, Point | None]:
    """Step 4: (number of points where the enclosure of ``diff`` contains 0 with radius
    < EVIDENCE_RADIUS, first point where it excludes 0 or None)."""
    good = 0
    for point in points:
        for dps in PRECISIONS:
            d = _ball(diff, point, dps)
            if d is None:
                break
            if d > 0 or d < 0:
                return good, point
            if d.contains(0) and float(d.rad()) < EVIDENCE_RADIUS:
                good += 1
                break
    return good, None


_ARB = "counterexample confirmed in ball arithmetic (python-flint arb)"


@dataclass
class _Outcome:
    verdict: str
    method: str
    witness: dict[str, Any] | None = None
    points: int | None = None


def _exact_step(diff: sp.Expr, notes: list[str]) -> bool:
    """Step 1, skipped for huge differences and cut off after EXACT_SECONDS."""
    if too_large(diff):
        notes.append(f"exact reduction skipped: more than about {MAX_TERMS} terms once expanded")
        return False
    done, zero = within(EXACT_SECONDS, _exactly_zero, diff)
    if not done:
        notes.append(f"exact reduction stopped after {EXACT_SECONDS:g} s")
    return bool(zero)


def _simplify_step(diff: sp.Expr, notes: list[str]) -> bool:
    """Step 3, cut off after EXACT_SECONDS."""
    done, zero = within(EXACT_SECONDS, _simplifies_to_zero, diff)
    if not done:
        notes.append(f"simplify stopped after {EXACT_SECONDS:g} s")
    return bool(zero)


def _compare(
    formula: sp.Expr, reference: sp.Expr, names: tuple[str, str], notes: list[str]
) -> _Outcome:
    """The route of the module doc: exact, witness, simplify, numerical evidence."""
    diff = formula - reference
    if _exact_step(diff, notes):
        return _Outcome(
            "equal",
            "exact symbolic reduction of the difference to 0 "
            "(rational form in t0, t1, e^-t0, e^-t1)",
        )
    points = domain_points()
    hit = ck.find_witness(diff, points)
    if hit is not None:
        return _Outcome("differs", _ARB, witness_values(formula, reference, hit[0], names))
    if _simplify_step(diff, notes):
        return _Outcome("equal", "SymPy simplify reduces the difference to 0")
    good, excluded = numerical_evidence(diff, points)
    if excluded is not None:
        return _Outcome("differs", _ARB, witness_values(formula, reference, excluded, names))
    if good >= MIN_EVIDENCE_POINTS:
        return _Outcome(
            "equal",
            f"numerical evidence, not a symbolic proof: at {good} of {len(points)} rational "
            f"points of the domain the arb enclosure of the difference contains 0 with radius "
            f"< {EVIDENCE_RADIUS:g} (none excludes 0); exact reduction and simplify did not "
            "reach 0",
            points=good,
        )
    return _Outcome(
        "undecided",
        f"not reduced to 0, no witness found, and only {good} of {len(points)} points "
        "gave a tight enclosure of 0",
        points=good,
    )


_EVAL_NAMES = {"s": "s", "c_0": "c0", "c_1": "c1", "lambda": "lam"}


def _eval_command(quantity: str, point: dict[str, str]) -> str:
    """The ``dpcheck eval`` command that prints the derived value at the witness."""
    args = " ".join(f"{_EVAL_NAMES[k]}={v}" for k, v in point.items() if k in _EVAL_NAMES)
    return f"dpcheck eval {quantity} {args} --dps 30"


def check_formula(quantity: str, latex: str, against_latex: str | None = None) -> FormulaCheck:
    """Compare the pasted ``latex`` with the derived ``quantity`` (or with ``against_latex``).

    ``quantity`` names a registered quantity ('truncated.mean' for eq (6),
    'bit.mean' for eq (7), 'truncated.mean.lower' for eq (9), ...); it fixes
    the symbols and the domain even when comparing two pasted formulas.
    """
    start = time.perf_counter()
    q = get_quantity(quantity)
    parsed = parse_latex(latex)
    against = parse_latex(against_latex) if against_latex is not None else None
    if against is None:
        reference, ref_name = derived(quantity), f"derived {quantity}"
        names = ("formula", "derived")
    else:
        reference, ref_name = against.expr, "the --against-latex formula"
        names = ("formula", "against")
    notes = []
    extra = _extra_symbols(q, [parsed.expr] + ([against.expr] if against else []))
    if extra:
        notes.append(
            f"the formula uses {', '.join(map(str, extra))}, which {quantity} does not depend "
            "on; compared as a function of all its symbols (equal only if they drop out)"
        )
    outcome = _compare(parsed.expr, reference, names, notes)
    if outcome.witness is not None and against is None and quantity in QUANTITY_NAMES:
        outcome.witness["reproduce"] = _eval_command(quantity, outcome.witness["point"])
    return FormulaCheck(
        quantity=quantity,
        verdict=outcome.verdict,
        method=outcome.method,
        formula=parsed,
        reference_name=ref_name,
        reference=reference,
        domain=q.domain,
        against=against,
        witness=outcome.witness,
        points_checked=outcome.points,
        notes=notes,
        seconds=time.perf_counter() - start,
        description=q.description,
    )


__all__ = [
    "REGISTRY",
    "FormulaCheck",
    "Quantity",
    "check_formula",
    "derived",
    "domain_points",
    "get_quantity",
    "numerical_evidence",
    "random_points",
]
