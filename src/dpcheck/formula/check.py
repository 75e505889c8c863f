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
   Where a root, a logarithm or a power with a symbolic exponent may be
   non-real (``\sqrt{s - c_1 - 1}``: real balls are nan there), the points are
   tried again in complex ball arithmetic (acb, SymPy's principal values): a
   point where that enclosure of the difference excludes 0 -- typically one
   where the formula is not real -- is a ``differs`` witness (issue 40; an odd
   root of a negative number is never used: its author may mean the real root);
3. SymPy ``simplify`` of the difference gives 0 -> ``equal``.  (It is tried
   after the witness search: once a rigorous witness exists the difference
   is not 0, so simplify could not succeed, and it is the slow step.)
4. otherwise every point is evaluated in arb at high precision; if all >= 200
   enclosures contain 0 with radius < 1e-30 -> ``equal``, and the method says
   this is numerical evidence at N points, not a symbolic proof;
   else ``undecided``.

Steps 1 and 3 are skipped, with a note, when the difference's degree in SymPy's
polynomial generators is above :data:`MAX_EXACT_DEGREE` (issue 40: flint's gcd,
which no time limit interrupts, died of SIGFPE on degree 10^12); the parser
already refuses formulas of total degree above 100 000.

Symbols the quantity does not depend on (``c_1`` in a ``.lower`` quantity of
eq (9), ``c_0`` in an ``.upper`` one of eq (10)) are allowed: the formula is
compared as a function of all its symbols (the quantity is constant in the
extra ones), so it is ``equal`` only if they drop out, and a ``differs``
witness gives them values; a note names them.

Every mechanism of the algebra (issue 18, DESIGN.md "Mechanisms"): the names
``<mechanism>.<quantity>[.lower|.upper]`` (``truncated-gaussian.var``,
``clamped-geometric.mean.upper``; quantities normaliser, mean, bias,
second_moment, var, mse) are compared with
:func:`dpcheck.symbolic.mechanisms.quantity` by the same route, with three
changes: the formula is read in the mechanism's notation (the defaults s,
c_0, c_1, \lambda, \sigma, \alpha, b, or the reviewer's own,
:mod:`dpcheck.formula.notation`) and findings are printed back in it; step 1
also tries :func:`dpcheck.symbolic.atoms.is_zero` (rational in the atoms
exp(.), erf(.), α^(.)); the points satisfy the mechanism's domain (integer
s, c0, c1 and 0 < α < 1 or b > 0 for the geometric base; σ from 10^-6 to
10^6 for the Gaussian).  A symbol that is neither in the notation nor a
parameter is a new real unknown: the points give it values too.  Liu's names
(``truncated.*``, ``bit.*``, ``truncated.normaliser``) without a notation keep
the route above unchanged (Liu's notation, unknown symbols refused).
"""

from __future__ import annotations

import math
import random
import signal
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cache
from itertools import product
from typing import Any

import flint
import sympy as sp

from dpcheck.claims import checks as ck
from dpcheck.errors import InputError
from dpcheck.formula import notation as nt
from dpcheck.formula.latex_parser import ParsedFormula, _amount, parse_latex, size_of
from dpcheck.numeric import rigorous
from dpcheck.numeric.names import (
    ALIASES,
    MECHANISM_NAMES,
    MECHANISMS,
    QUANTITIES,
    QUANTITY_NAMES,
    UNAVAILABLE,
    parts,
)
from dpcheck.symbolic import atoms
from dpcheck.symbolic import laplace_family as lf
from dpcheck.symbolic.rational import is_identically_zero
from dpcheck.symbolic.symbols import alpha, c0, c1, lam, s, scale, sigma

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
#: SymPy's polynomial routines (cancel and gcd in the exact reduction, simplify) are
#: skipped when the difference's degree in their generators (``Size.exact`` of
#: :mod:`dpcheck.formula.latex_parser`: s^{p/q} counts |p|, e^{(p/q) m} counts p) is above
#: this.  They run in C (flint), where no time limit reaches them: 0.2 s at degree 10^6,
#: 2 s and 0.8 GB at 10^7, SIGFPE near 10^12 (issue 40).  The derived quantities need at
#: most 419, the formulas at the parser's ceiling of degree 10^5 about as much
MAX_EXACT_DEGREE = 1_000_000

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
    """A derived quantity that formulas can be checked against.

    ``legacy`` marks Liu's names (checked in Liu's notation by the original
    route); ``mechanism`` (canonical), ``quantity`` and ``sides`` say which
    :func:`dpcheck.symbolic.mechanisms.quantity` it is.
    """

    name: str
    description: str
    domain: str
    symbols: tuple[sp.Symbol, ...]
    derive: Callable[[], sp.Expr] = field(repr=False)
    mechanism: str = ""
    quantity: str = ""
    sides: str = "both"
    legacy: bool = False


def _two_sided(mechanism: str, name: str) -> Quantity:
    label = "truncated (Def. 2(a))" if mechanism == "truncated" else "BIT (Def. 2(b))"
    return Quantity(
        f"{mechanism}.{name}",
        f"{_NAMES[name]} of the {label} Laplace mechanism, derived by integration",
        ck.DOMAIN,
        (s, c0, c1, lam),
        lambda: lf.quantity(mechanism, name),
        ALIASES[mechanism],
        name,
        "both",
        True,
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
        ALIASES[mechanism],
        name,
        side,
        True,
    )


#: what each quantity of the general names is (issue 18; DESIGN.md "Mechanisms")
_GENERAL_NAMES = {
    "normaliser": "P(c0 <= X <= c1) under the base law (the truncation's normaliser)",
    "mean": "E Y",
    "bias": "E Y - s",
    "second_moment": "E Y^2",
    "var": "Var Y = MSE - bias^2",
    "mse": "E (Y - s)^2",
}
_GENERAL_SIDES = {
    "both": "",
    "lower": " with bounds [c0, oo) (c1 -> oo)",
    "upper": " with bounds (-oo, c1] (c0 -> -oo)",
}
#: general quantity names -> (canonical mechanism, quantity, sides)
MOMENT_NAMES = tuple(_GENERAL_NAMES)


def _general(mechanism: str, name: str, sides: str) -> Quantity:
    """``<mechanism>.<name>[.<sides>]``, derived by :func:`dpcheck.symbolic.mechanisms.quantity`."""
    bounding, base = parts(mechanism)
    symbols = [s]
    if bounding != "none":
        symbols += [c0] if sides == "lower" else [c1] if sides == "upper" else [c0, c1]
    symbols.append({"laplace": lam, "gaussian": sigma, "geometric": alpha}[base])
    how = "summation" if base == "geometric" else "integration"
    label = f"{mechanism}.{name}" + ("" if sides == "both" else f".{sides}")

    def derive() -> sp.Expr:
        from dpcheck.symbolic import mechanisms

        return mechanisms.quantity(mechanism, name, sides)

    return Quantity(
        label,
        f"{_GENERAL_NAMES[name]} of the {mechanism} mechanism{_GENERAL_SIDES[sides]},"
        f" derived by {how} (dpcheck.symbolic.mechanisms)",
        domain_text(mechanism, sides, nt.build(mechanism)),
        tuple(symbols),
        derive,
        mechanism,
        name,
        sides,
        False,
    )


def domain_text(mechanism: str, sides: str, notation: nt.Notation) -> str:
    """The domain of a quantity in the notation's names (c_0 < c_1, s in [c_0, c_1], ...)."""
    bounding, base = parts(mechanism)
    n = notation.name
    scale_text = {
        "laplace": f"{n(lam)} > 0",
        "gaussian": f"{n(sigma)} > 0",
        "geometric": f"0 < {n(alpha)} < 1 ({n(alpha)} = e^(-1/{n(scale)}), {n(scale)} > 0)",
    }[base]
    kind = "integer" if base == "geometric" else "real"
    if bounding == "none":
        where = f"{kind} {n(s)}"
    elif sides == "lower":
        where = f"{kind} {n(c0)} <= {n(s)} (bounds [{n(c0)}, oo))"
    elif sides == "upper":
        where = f"{kind} {n(s)} <= {n(c1)} (bounds (-oo, {n(c1)}])"
    else:
        where = f"{kind} {n(c0)} < {n(c1)}, {n(s)} in [{n(c0)}, {n(c1)}]"
    return f"{where}, {scale_text}"


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
        "truncated-laplace",
        "normaliser",
        "both",
        True,
    )
    return out


def _general_registry() -> dict[str, Quantity]:
    out = {}
    for mechanism in MECHANISM_NAMES:
        bounding, _ = parts(mechanism)
        sides = ("both", "lower", "upper") if bounding in ("truncated", "clamped") else ("both",)
        for side in sides:
            for name in MOMENT_NAMES:
                q = _general(mechanism, name, side)
                out[q.name] = q
    return out


#: Liu's names (Liu 2019 notation, the original route), in a stable order
LIU_REGISTRY: dict[str, Quantity] = _registry()
#: every quantity name check-formula knows: Liu's, then every <mechanism>.<quantity>[.side]
REGISTRY: dict[str, Quantity] = {**LIU_REGISTRY, **_general_registry()}


def known_names() -> str:
    """The known names, briefly (Liu's listed; the general ones as a pattern)."""
    return (
        f"{', '.join(LIU_REGISTRY)}; and <mechanism>.<quantity> for mechanism one of"
        f" {', '.join(MECHANISM_NAMES)} and quantity one of {', '.join(MOMENT_NAMES)},"
        " with .lower/.upper for truncated-* and clamped-*"
    )


def get_quantity(name: str) -> Quantity:
    """The registered quantity ``name`` (an alias such as bit.normaliser is resolved);
    InputError naming the known names otherwise."""
    if not isinstance(name, str):
        raise InputError("the quantity must be a string such as 'truncated-gaussian.mean'")
    if name in REGISTRY:
        return REGISTRY[name]
    mechanism, dot, rest = name.partition(".")
    if dot and f"{ALIASES.get(mechanism, mechanism)}.{rest}" in REGISTRY:
        return REGISTRY[f"{ALIASES.get(mechanism, mechanism)}.{rest}"]
    if mechanism in UNAVAILABLE:
        raise InputError(
            f"unknown quantity {name!r}: {mechanism} is not available: {UNAVAILABLE[mechanism]}"
        )
    raise InputError(f"unknown quantity {name!r} (known: {known_names()})")


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


#: Gaussian σ far from the width of [c0, c1]: the erf arguments reach 10^6
EXTREME_SIGMAS = (F(1, 10**6), F(1, 1000), F(1000), F(10**6))


def gaussian_points() -> list[Point]:
    """The points of :func:`domain_points` with σ for λ, then σ from 10^-6 to 10^6 with
    s at, near (1/1000 of the width) and between the bounds."""
    points = [{sigma if k == lam else k: v for k, v in p.items()} for p in domain_points()]
    for (lo, hi), scale_v in product(((F(0), F(1)), (F(-2), F(3))), EXTREME_SIGMAS):
        for frac in (F(0), F(1, 1000), F(1, 2), F(1)):
            points.append({c0: lo, c1: hi, sigma: scale_v, s: lo + frac * (hi - lo)})
    return points


#: α = e^{-1/b} of the geometric points (near 0 and near 1 included), and the b used
#: when a formula is written in b
GEOMETRIC_ALPHAS = (F(1, 2), F(1, 3), F(9, 10), F(1, 10), F(99, 100))
GEOMETRIC_SCALES = (F(1), F(2), F(1, 2), F(10), F(1, 10))


def geometric_points(in_scale: bool = False, count: int = 150, seed: int = SEED) -> list[Point]:
    """Integer points c0 < c1, c0 <= s <= c1 with α in (0, 1) (or b > 0 when ``in_scale``):
    every s of small boxes first, then seeded random boxes with s at a bound, one step
    from it, or inside, and α from 1/1000 to 999/1000."""
    key = scale if in_scale else alpha
    values = GEOMETRIC_SCALES if in_scale else GEOMETRIC_ALPHAS
    points: list[Point] = []
    boxes = [(0, 1), (-1, 1), (0, 2), (-1, 2), (1, 3), (-2, 3), (0, 5)]
    for (lo, hi), value in product(boxes, values):
        for s_v in range(lo, hi + 1):
            points.append({c0: F(lo), c1: F(hi), key: value, s: F(s_v)})
    rng = random.Random(seed)
    extra = [F(1, 1000), F(1, 100), F(100), F(1000)] if in_scale else [F(1, 1000), F(999, 1000)]
    for i in range(count):
        lo = rng.randint(-30, 30)
        hi = lo + rng.randint(1, 40)
        s_v = [lo, lo + 1, hi - 1, hi, rng.randint(lo, hi)][i % 5]
        if i % 3 == 0:
            value = extra[rng.randrange(len(extra))]
        elif in_scale:
            value = F(rng.randint(1, 60), rng.randint(1, 9))
        else:
            q = rng.randint(2, 60)
            value = F(rng.randint(1, q - 1), q)
        points.append({c0: F(lo), c1: F(hi), key: value, s: F(min(max(s_v, lo), hi))})
    return points


#: values given to symbols the notation does not know (cycled, shifted per symbol)
STRAY_VALUES = (F(1, 3), F(2), F(7, 5), F(1, 7), F(5), F(3, 4), F(11), F(1, 2), F(-5, 2), F(-2, 3))


def with_stray(points: list[Point], stray: list[sp.Symbol]) -> list[Point]:
    """``points`` with a value for every stray symbol (a new unknown of the formula)."""
    if not stray:
        return points
    n = len(STRAY_VALUES)
    return [
        {**p, **{sym: STRAY_VALUES[(i + 3 * j) % n] for j, sym in enumerate(stray)}}
        for i, p in enumerate(points)
    ]


def mechanism_domain_points(base: str, in_scale: bool = False) -> list[Point]:
    """The witness and evidence points of a base (>= MIN_EVIDENCE_POINTS, each in the
    domain of every quantity of every bounding of that base)."""
    if base == "gaussian":
        return gaussian_points()
    if base == "geometric":
        return geometric_points(in_scale)
    return domain_points()


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


def power_too_large(expr: sp.Expr) -> bool:
    """True when one integer power of a sum in ``expr`` alone expands to more than
    MAX_TERMS terms ((s+c_0+c_1+\\sigma)^{900}).  The guard of the general route, whose
    atoms (exp, erf, α^) make :func:`estimated_terms` overestimate the work of
    :func:`dpcheck.symbolic.atoms.is_zero` by orders of magnitude (the textbook variance
    of the truncated Gaussian: estimated > 20000 terms, reduced in 0.05 s); the time
    limit EXACT_SECONDS bounds the rest."""
    for sub in sp.preorder_traversal(expr):
        if isinstance(sub, sp.Pow) and sub.exp.is_Integer:
            n = len(sp.Add.make_args(sub.base))
            k = min(abs(int(sub.exp)), MAX_TERMS)
            if n > 1 and math.comb(n + k - 1, k) > MAX_TERMS:
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
    #: the reviewer's notation (LaTeX symbol -> parameter), None in Liu's default route
    notation: dict[str, str] | None = None
    #: internal symbol -> the symbol printed for it (the reviewer's names); empty: as is
    display: Mapping[sp.Basic, sp.Basic] = field(default_factory=dict, repr=False)

    def shown(self, expr: sp.Expr) -> sp.Expr:
        """``expr`` in the reviewer's symbols (for printing only)."""
        return expr.xreplace(dict(self.display)) if self.display else expr

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: strings for expressions and numbers (exact rationals for the point)."""
        reference = self.shown(self.reference)
        out: dict[str, Any] = {
            "quantity": self.quantity,
            "description": self.description,
            "verdict": self.verdict,
            "method": self.method,
            "formula": _formula_dict(self.formula, self.shown),
            "reference": {
                "name": self.reference_name,
                "expr": str(reference),
                "latex": sp.latex(reference),
            },
            "domain": self.domain,
            "notes": list(self.notes),
            "seconds": round(self.seconds, 3),
        }
        if self.notation is not None:
            out["notation"] = dict(self.notation)
        if self.against is not None:
            out["against"] = _formula_dict(self.against, self.shown)
        if self.witness is not None:
            out["witness"] = self.witness
        if self.points_checked is not None:
            out["points_checked"] = self.points_checked
        return out


def _formula_dict(
    parsed: ParsedFormula, shown: Callable[[sp.Expr], sp.Expr] = lambda e: e
) -> dict[str, Any]:
    expr = shown(parsed.expr)
    return {
        "source": parsed.source,
        "lhs": parsed.lhs,
        "expr": str(expr),
        "latex": sp.latex(expr),
    }


def _extra_symbols(quantity: Quantity, exprs: Iterable[sp.Expr]) -> list[sp.Symbol]:
    free: set[sp.Symbol] = set().union(*(e.free_symbols for e in exprs))
    return sorted(free - set(quantity.symbols), key=str)


#: failures of a SymPy reduction that mean "not shown" (RecursionError: a very deep tree)
_NOT_SHOWN = (sp.PolynomialError, TypeError, ValueError, NotImplementedError, RecursionError)


def exact_degree(expr: sp.Expr) -> int:
    """The degree SymPy's polynomial routines would see in ``expr`` (an upper bound)."""
    return size_of(expr).exact


def _exactly_zero(diff: sp.Expr) -> bool:
    """Step 1: exact rational reduction (a proof when it gives 0); not tried above
    MAX_EXACT_DEGREE (flint's gcd would run for minutes or die of SIGFPE)."""
    if exact_degree(diff) > MAX_EXACT_DEGREE:
        return False
    try:
        return is_identically_zero(diff)
    except _NOT_SHOWN:
        return False


def simplifies_to_zero(diff: sp.Expr) -> bool:
    """Step 3: SymPy simplify, on small differences only."""
    if sp.count_ops(diff) > MAX_SIMPLIFY_OPS or exact_degree(diff) > MAX_EXACT_DEGREE:
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


# ---------------------------------------------------------------------------
# formulas that are not real on the domain (issue 40)
# ---------------------------------------------------------------------------


def may_be_complex(expr: sp.Expr) -> bool:
    """True when ``expr`` has a part that may be non-real for real values of its symbols:
    a power with a non-integer exponent (a root or b^x) of a base not known to be >= 0,
    or a logarithm of an argument not known to be > 0 (constants were checked by the
    parser; √λ and log λ are real, λ > 0)."""

    def risky(sub: sp.Basic) -> bool:
        if isinstance(sub, sp.log):
            return bool(sub.args[0].free_symbols) and not sub.args[0].is_positive
        if isinstance(sub, sp.Pow) and not sub.exp.is_Integer:
            return bool(sub.free_symbols) and not sub.base.is_nonnegative
        return False

    return any(risky(sub) for sub in sp.preorder_traversal(expr))


class _OddRoot(Exception):
    """An odd root of a possibly negative number: SymPy's principal value is complex, but
    the formula's author may mean the real root, so no witness is taken there."""


_ACB_FUNCTIONS: dict[type, Callable[[flint.acb], flint.acb]] = {
    sp.exp: lambda z: z.exp(),
    sp.log: lambda z: z.log(),
    sp.erf: lambda z: z.erf(),
    sp.erfc: lambda z: z.erfc(),
}


def complex_ball(expr: sp.Expr, point: Point, dps: int) -> flint.acb:
    """An enclosure of ``expr``'s principal value (SymPy's reading: √-2 = i√2, log(-1) = iπ,
    (-1)^s = e^{iπs}) at ``point`` in complex ball arithmetic (python-flint acb).

    Raises :class:`~dpcheck.numeric.rigorous.NotRigorous` for what it cannot enclose and
    :class:`_OddRoot` for an odd root of a number that may be negative.
    """
    old = flint.ctx.dps
    flint.ctx.dps = dps
    try:
        return _acb_walk(expr, point)
    finally:
        flint.ctx.dps = old


def _acb_walk(e: sp.Basic, point: Point) -> flint.acb:
    if e.is_Symbol:
        if e not in point:
            raise rigorous.NotRigorous(f"no value for symbol {e}")
        value = Fraction(point[e])
        return flint.acb(flint.arb(value.numerator) / value.denominator)
    if e.is_Rational:
        return flint.acb(flint.arb(int(e.p)) / int(e.q))
    if e is sp.pi:
        return flint.acb.pi()
    if e is sp.E:
        return flint.acb(1).exp()
    if e is sp.I:
        return flint.acb(0, 1)
    if isinstance(e, sp.Pow):
        base = _acb_walk(e.base, point)
        if e.exp.is_Integer:
            return base ** int(e.exp)
        if e.exp.is_Rational and e.exp.q % 2 == 1 and not base.real > 0:
            raise _OddRoot(str(e))
        if e.exp == sp.S.Half:
            return base.sqrt()
        return base ** _acb_walk(e.exp, point)
    args = [_acb_walk(a, point) for a in e.args]
    if isinstance(e, sp.Add):
        total = flint.acb(0)
        for a in args:
            total += a
        return total
    if isinstance(e, sp.Mul):
        total = flint.acb(1)
        for a in args:
            total *= a
        return total
    for kind, fn in _ACB_FUNCTIONS.items():
        if isinstance(e, kind):
            return fn(args[0])
    raise rigorous.NotRigorous(f"cannot enclose {type(e).__name__} in acb: {e}")


def _excludes_zero(z: flint.acb) -> bool:
    """The ball is finite and 0 is certainly not in it (its real or imaginary part)."""
    return z.is_finite() and (z.real > 0 or z.real < 0 or z.imag > 0 or z.imag < 0)


def _fmt_complex(z: flint.acb) -> str:
    re_part, im_part = ck.fmt(z.real), ck.fmt(z.imag)
    if z.imag.is_zero():
        return re_part
    sign = "-" if im_part.startswith("-") else "+"
    return f"{re_part} {sign} {im_part.lstrip('-')}i"


def complex_witness(
    formula: sp.Expr,
    reference: sp.Expr,
    points: Iterable[Point],
    names: tuple[str, str],
) -> tuple[dict[str, Any] | None, Point | None, int]:
    """The first point where the complex-ball enclosure of formula - reference excludes 0
    (e.g. a formula that is not real there), with its witness values; and the number of
    points passed over because of an odd root of a negative number."""
    diff = formula - reference
    odd = 0
    for point in points:
        for dps in PRECISIONS[:2]:
            try:
                d = complex_ball(diff, point, dps)
            except _OddRoot:
                odd += 1
                break
            except (rigorous.NotRigorous, ZeroDivisionError, ValueError, RecursionError):
                break
            if not _excludes_zero(d):
                continue
            try:
                a = complex_ball(formula, point, dps)
                b = complex_ball(reference, point, dps)
            except (_OddRoot, rigorous.NotRigorous, ZeroDivisionError, ValueError):
                break
            used = sorted(diff.free_symbols, key=str) or sorted(point, key=str)
            not_real = a.is_finite() and (a.imag > 0 or a.imag < 0)
            why = (
                f"the {names[0]} is not real there (its imaginary part excludes 0)"
                if not_real
                else f"the {names[0]} and the {names[1]} differ there"
            )
            witness = {
                "point": ck.point_str({k: point[k] for k in sorted(point, key=str) if k in used}),
                names[0]: _fmt_complex(a),
                names[1]: _fmt_complex(b),
                "difference": _fmt_complex(d),
                "difference_enclosure": d.str(20, radius=True),
                "sign": None,
                "digits": dps,
                "confirmed": (
                    "the acb (complex ball) enclosure of formula - reference excludes 0 with "
                    f"SymPy's principal values of roots and logs: {why}"
                ),
            }
            return witness, point, odd
    return None, None, odd


_ACB = (
    "counterexample confirmed in complex ball arithmetic (python-flint acb): the formula is"
    " not real at this point of the domain"
)
_ACB_DIFFERS = "counterexample confirmed in complex ball arithmetic (python-flint acb)"


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


ARB_METHOD = "counterexample confirmed in ball arithmetic (python-flint arb)"


@dataclass
class _Outcome:
    verdict: str
    method: str
    witness: dict[str, Any] | None = None
    points: int | None = None
    #: the witness point itself (exact values, keyed by symbol)
    point: Point | None = None


def atoms_zero(diff: sp.Expr) -> bool:
    """Step 1 of the general route: :func:`dpcheck.symbolic.atoms.is_zero` (a proof when
    it gives 0: a rational function of the parameters and the atoms exp, erf, α^)."""
    try:
        return atoms.is_zero(diff)
    except _NOT_SHOWN:
        return False


def _exact_step(
    diff: sp.Expr,
    notes: list[str],
    zero_test: Callable[[sp.Expr], bool] | None = None,
    guard: Callable[[sp.Expr], bool] | None = None,
) -> bool:
    """Step 1, skipped for huge differences and cut off after EXACT_SECONDS."""
    if (guard or too_large)(diff):
        notes.append(f"exact reduction skipped: more than about {MAX_TERMS} terms once expanded")
        return False
    _degree_note(diff, notes)
    done, zero = within(EXACT_SECONDS, zero_test or _exactly_zero, diff)
    if not done:
        notes.append(f"exact reduction stopped after {EXACT_SECONDS:g} s")
    return bool(zero)


@dataclass(frozen=True)
class _Route:
    """What the comparison needs besides the two sides: its points and its exact test."""

    points: Callable[[], list[Point]]
    zero_test: Callable[[sp.Expr], bool] | None = None
    guard: Callable[[sp.Expr], bool] | None = None
    exact_method: str = (
        "exact symbolic reduction of the difference to 0 (rational form in t0, t1, e^-t0, e^-t1)"
    )


def _degree_note(diff: sp.Expr, notes: list[str]) -> None:
    """Say (once) that SymPy's polynomial routines are skipped for a high degree."""
    degree = exact_degree(diff)
    note = (
        f"SymPy's polynomial reduction and simplify skipped: degree {_amount(degree)} in one"
        f" generator (above {_amount(MAX_EXACT_DEGREE)}; large exponent numerators count)"
    )
    if degree > MAX_EXACT_DEGREE and note not in notes:
        notes.append(note)


def _simplify_step(diff: sp.Expr, notes: list[str]) -> bool:
    """Step 3, cut off after EXACT_SECONDS."""
    _degree_note(diff, notes)
    done, zero = within(EXACT_SECONDS, simplifies_to_zero, diff)
    if not done:
        notes.append(f"simplify stopped after {EXACT_SECONDS:g} s")
    return bool(zero)


def _compare(
    formula: sp.Expr,
    reference: sp.Expr,
    names: tuple[str, str],
    notes: list[str],
    route: _Route | None = None,
) -> _Outcome:
    """The route of the module doc: exact, witness, simplify, numerical evidence."""
    route = route or _Route(domain_points)
    diff = formula - reference
    if _exact_step(diff, notes, route.zero_test, route.guard):
        return _Outcome("equal", route.exact_method)
    points = route.points()
    hit = ck.find_witness(diff, points)
    if hit is not None:
        witness = witness_values(formula, reference, hit[0], names)
        return _Outcome("differs", ARB_METHOD, witness, point=hit[0])
    if may_be_complex(diff):
        # a root or log of a negative value: real ball arithmetic only sees nan there
        witness, point, odd = complex_witness(formula, reference, points, names)
        if witness is not None:
            method = _ACB if "not real" in witness["confirmed"] else _ACB_DIFFERS
            return _Outcome("differs", method, witness, point=point)
        if odd:
            notes.append(
                f"at {odd} points an odd root of a negative number (SymPy reads it as its"
                " complex principal value; for the real root write the minus sign outside)"
                " was not used as a witness"
            )
    if _simplify_step(diff, notes):
        return _Outcome("equal", "SymPy simplify reduces the difference to 0")
    good, excluded = numerical_evidence(diff, points)
    if excluded is not None:
        witness = witness_values(formula, reference, excluded, names)
        return _Outcome("differs", ARB_METHOD, witness, point=excluded)
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


def check_formula(
    quantity: str,
    latex: str,
    against_latex: str | None = None,
    notation: Mapping[str, str] | str | None = None,
) -> FormulaCheck:
    """Compare the pasted ``latex`` with the derived ``quantity`` (or with ``against_latex``).

    ``quantity`` names a registered quantity ('truncated.mean' for eq (6),
    'bit.mean' for eq (7), 'truncated.mean.lower' for eq (9),
    'truncated-gaussian.var', 'clamped-geometric.mean.upper', ...); it fixes
    the symbols and the domain even when comparing two pasted formulas.
    ``notation`` maps the reviewer's LaTeX symbols to the parameters
    ({'\\theta': 's', 'b': 'lam'} or the string '\\theta=s,b=lam';
    :mod:`dpcheck.formula.notation`); findings are then printed in them.
    """
    start = time.perf_counter()
    q = get_quantity(quantity)
    if not q.legacy or notation is not None:
        return _check_general(q, latex, against_latex, notation, start)
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


def _general_zero_test(base: str, used: list[str]) -> Callable[[sp.Expr], bool]:
    """Step 1 of the general route: Liu's rational reduction for the Laplace base, then
    :func:`dpcheck.symbolic.atoms.is_zero`; ``used`` records which one reached 0."""

    def test(diff: sp.Expr) -> bool:
        if base == "laplace" and _exactly_zero(diff):
            used.append("rational form in t0, t1, e^-t0, e^-t1")
            return True
        if atoms_zero(diff):
            used.append(
                "rational function of the parameters and the atoms exp(.), erf(.), alpha^(.):"
                " dpcheck.symbolic.atoms.is_zero"
            )
            return True
        return False

    return test


def _names(symbols: Iterable[sp.Symbol], latex_names: Mapping[sp.Basic, str]) -> str:
    return ", ".join(latex_names.get(x, str(x)) for x in symbols)


def _general_eval_command(q: Quantity, point: Point, in_b: bool) -> str:
    """``dpcheck eval`` printing the derived value at the witness (one-sided: c1=inf or
    c0=-inf; the geometric scale as alpha= or scale=)."""
    bounding, base = parts(q.mechanism)
    args = [f"s={point[s]}"]
    if bounding != "none":
        args.append("c0=-inf" if q.sides == "upper" else f"c0={point[c0]}")
        args.append("c1=inf" if q.sides == "lower" else f"c1={point[c1]}")
    key = {"laplace": lam, "gaussian": sigma, "geometric": scale if in_b else alpha}[base]
    args.append(f"{nt.WORDS[key]}={point[key]}")
    return f"dpcheck eval {q.mechanism}.{q.quantity} {' '.join(args)} --dps 30"


def _check_general(
    q: Quantity,
    latex: str,
    against_latex: str | None,
    notation: Mapping[str, str] | str | None,
    start: float,
) -> FormulaCheck:
    """check_formula for every ``<mechanism>.<quantity>`` (module doc, last paragraph)."""
    nota = nt.build(q.mechanism, notation)
    fresh: dict[str, sp.Symbol] = {}
    parsed = parse_latex(latex, nota.table, fresh)
    against = parse_latex(against_latex, nota.table, fresh) if against_latex is not None else None
    _, base = parts(q.mechanism)
    written = [parsed.expr] + ([against.expr] if against is not None else [])
    # a geometric formula written in b (α = e^{-1/b}) is compared in b throughout
    in_b = base == "geometric" and any(scale in e.free_symbols for e in written)
    to_b = {alpha: sp.exp(-1 / scale)} if in_b else {}
    formula = parsed.expr.xreplace(to_b) if in_b else parsed.expr
    if against is None:
        reference, ref_name = derived(q.name), f"derived {q.name}"
        names = ("formula", "derived")
    else:
        reference, ref_name = against.expr, "the --against-latex formula"
        names = ("formula", "against")
    if in_b:
        reference = reference.xreplace(to_b)
    params = tuple(scale if (in_b and x == alpha) else x for x in q.symbols)
    all_params = nt.parameter_symbols(q.mechanism)
    stray = list(fresh.values())
    latex_names: dict[sp.Basic, str] = {x: nota.name(x) for x in all_params}
    latex_names.update({x: name for name, x in fresh.items()})
    shown = {x: nt.display_symbol(name) for x, name in latex_names.items()}
    free = formula.free_symbols | reference.free_symbols
    extra = sorted(free - set(params) - set(stray), key=str)
    notes = []
    if extra:
        notes.append(
            f"the formula uses {_names(extra, latex_names)}, which {q.name} does not depend on;"
            " compared as a function of all its symbols (equal only if they drop out)"
        )
    if stray:
        notes.append(
            f"{_names(stray, latex_names)}: neither in the notation nor a parameter of"
            f" {q.mechanism} ({_names(all_params, latex_names)}); treated as unknown real"
            " numbers that the points give values to (equal only if they drop out)"
        )
    if in_b:
        notes.append(
            f"compared in {latex_names[scale]} (the scale; {latex_names[alpha]} ="
            f" e^(-1/{latex_names[scale]}))"
        )
    used: list[str] = []
    route = _Route(
        lambda: with_stray(mechanism_domain_points(base, in_b), stray),
        zero_test=_general_zero_test(base, used),
        guard=power_too_large,
        exact_method="exact symbolic reduction of the difference to 0",
    )
    outcome = _compare(formula, reference, names, notes, route)
    if outcome.verdict == "equal" and used:
        outcome.method = f"{outcome.method} ({used[-1]})"
    witness = outcome.witness
    if witness is not None and outcome.point is not None:
        raw = outcome.point
        diff_symbols = (formula - reference).free_symbols
        order = [*params, *extra, *stray]
        witness["point"] = {
            latex_names[x]: str(raw[x])
            for x in order
            if x in raw and (x in params or x in diff_symbols)
        }
        if against is None:
            witness["reproduce"] = _general_eval_command(q, raw, in_b)
    return FormulaCheck(
        quantity=q.name,
        verdict=outcome.verdict,
        method=outcome.method,
        formula=parsed,
        reference_name=ref_name,
        reference=reference,
        domain=domain_text(q.mechanism, q.sides, nota),
        against=against,
        witness=witness,
        points_checked=outcome.points,
        notes=notes,
        seconds=time.perf_counter() - start,
        description=q.description,
        notation=dict(nota.given),
        display=shown,
    )


__all__ = [
    "ARB_METHOD",
    "LIU_REGISTRY",
    "REGISTRY",
    "FormulaCheck",
    "Quantity",
    "atoms_zero",
    "check_formula",
    "derived",
    "domain_points",
    "domain_text",
    "gaussian_points",
    "geometric_points",
    "get_quantity",
    "known_names",
    "mechanism_domain_points",
    "numerical_evidence",
    "power_too_large",
    "random_points",
    "simplifies_to_zero",
    "with_stray",
]
