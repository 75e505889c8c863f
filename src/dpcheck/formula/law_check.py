r"""Compare a pasted formula with a quantity of a law object (issue 35: check-formula for
every law, shipped or the user's own).

``check_law_formula(law, "var", r"\sigma^2")`` parses the formula with the
law's parameters as its symbols (``\sigma``, ``\gamma``, ``\varepsilon`` for
Greek names, the plain name otherwise, or the reviewer's own names through a
notation ``'\tau=sigma'``) and compares it with the quantity *derived* from the
law's density or pmf (:mod:`dpcheck.laws.noise`, :mod:`dpcheck.laws.numeric`):

- ``mean``, ``second_moment``, ``var``: of the noise Z (functions of the parameters);
- ``cdf`` / ``sf``: P(Z <= y) / P(Z > y), functions of the parameters and y;
- ``pdf`` (real support) / ``pmf`` (integers): the normalised density at z
  (the formula's variable is ``z``, or ``k`` on the integers);
- of a bounded law ``<bounding>-<law>`` (``folded-gaussian``, ``truncated-staircase``;
  :mod:`dpcheck.laws.bounded`): ``normaliser``, ``mean``, ``bias``, ``second_moment``,
  ``var``, ``mse`` of the output Y at input s with bounds c_0 < c_1, and ``cdf`` at y
  (the symbols ``s``, ``c_0``, ``c_1``, integers on the lattice; no closed form here:
  compared with the certified balls at each point).

Route (DESIGN.md, "Verdicts": points never prove, they only find counterexamples
that are then confirmed rigorously):

1. exact: where the law has a closed form for the quantity (SymPy found the
   integral or sum, or the law states it), the difference is reduced to 0 by
   :func:`dpcheck.symbolic.atoms.is_zero` or SymPy ``simplify`` (each cut off after
   :data:`~dpcheck.formula.check.EXACT_SECONDS`) -> ``equal``, proved;
2. witness: at seeded rational points of the parameters' domains (and of y, z) the
   formula is enclosed in an arb ball (:mod:`dpcheck.laws.arb_eval`) and the quantity
   by the same certified evaluator as ``dpcheck eval`` (closed form, or a lattice sum
   with its tail bound in the radius): disjoint balls -> ``differs``, with the point,
   both values and the ``dpcheck eval`` command that reproduces the derived one;
   a value that is only an estimate (quadrature) is never a witness;
3. otherwise, if at >= :data:`~dpcheck.formula.check.MIN_EVIDENCE_POINTS` points the
   difference is enclosed within :data:`~dpcheck.formula.check.EVIDENCE_RADIUS` of 0:
   ``equal`` as numerical evidence (the method says it is not a proof); else
   ``undecided``.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property

import flint
import sympy as sp

from dpcheck.errors import InputError
from dpcheck.formula import notation as nt
from dpcheck.formula.check import (
    ARB_METHOD,
    EVIDENCE_RADIUS,
    EXACT_SECONDS,
    MIN_EVIDENCE_POINTS,
    FormulaCheck,
    atoms_zero,
    power_too_large,
    simplifies_to_zero,
    within,
)
from dpcheck.formula.latex_parser import _GREEK, parse_latex
from dpcheck.laws.arb_eval import evaluate_arb
from dpcheck.laws.bounded import BOUNDINGS, Bounded
from dpcheck.laws.noise import NoiseLaw, Param, u
from dpcheck.laws.numeric import Evaluator, precision

#: the quantities a formula may be checked against, and the variable each takes
LAW_QUANTITIES: Mapping[str, str | None] = {
    "mean": None,
    "second_moment": None,
    "var": None,
    "cdf": "y",
    "sf": "y",
    "pdf": "z",
    "pmf": "k",
}
_WHAT = {
    "mean": "E Z",
    "second_moment": "E Z^2",
    "var": "Var Z",
    "cdf": "P(Z <= y)",
    "sf": "P(Z > y)",
    "pdf": "the density of Z at z",
    "pmf": "P(Z = k)",
}
#: the quantities of a bounded law (:mod:`dpcheck.laws.bounded`), and their variable
BOUNDED_QUANTITIES: Mapping[str, str | None] = {
    "normaliser": None,
    "mean": None,
    "bias": None,
    "second_moment": None,
    "var": None,
    "mse": None,
    "cdf": "y",
}
_BOUNDED_WHAT = {
    "normaliser": "P(c0 <= s + Z <= c1)",
    "mean": "E Y",
    "bias": "E Y - s",
    "second_moment": "E Y^2",
    "var": "Var Y",
    "mse": "E (Y - s)^2",
    "cdf": "P(Y <= y)",
}
#: the input and the bounds of a bounded law, as the formula writes them
_S = sp.Symbol("s", real=True)
_C0 = sp.Symbol("c_0", real=True)
_C1 = sp.Symbol("c_1", real=True)
_BOUND_WORDS = {"s": (_S, "s"), "c0": (_C0, "c_0"), "c1": (_C1, "c_1")}
#: seed of the points (fixed: answers are reproducible)
SEED = 35
#: how many points the witness search and the evidence use
POINTS = MIN_EVIDENCE_POINTS + 20
#: digits of the balls compared at each point
DPS = 60
#: the scale's range at the points
SCALE_RANGE = (Fraction(1, 1000), Fraction(1000))

#: the formula's variable of each quantity (real for y, z; an integer k on the lattice)
_Y = sp.Symbol("y", real=True)
_Z = sp.Symbol("z", real=True)
_K = sp.Symbol("k", integer=True)


def default_latex_name(name: str) -> list[str]:
    r"""The LaTeX names a parameter goes by: '\sigma' for sigma, '\varepsilon' and
    '\epsilon' for epsilon, 'b' for b, '\mathrm{width}' for a longer plain name."""
    if name == "epsilon":
        return ["\\varepsilon", "\\epsilon"]
    if name in _GREEK:
        return ["\\" + name]
    if name == "lam":
        return ["\\lambda"]
    if len(name) > 1:  # the parser reads 'width' as w·i·d·t·h: written upright instead
        return ["\\mathrm{" + name + "}"]
    return [name]


@dataclass(frozen=True)
class LawQuantity:
    """One quantity of one law, with the symbols a formula for it is written in."""

    law: NoiseLaw
    quantity: str
    #: truncated, clamped or folded (:mod:`dpcheck.laws.bounded`), or None
    bounding: str | None = None

    @property
    def mechanism(self) -> str:
        return self.law.name if self.bounding is None else f"{self.bounding}-{self.law.name}"

    @property
    def name(self) -> str:
        return f"{self.mechanism}.{self.quantity}"

    @property
    def variable(self) -> sp.Symbol | None:
        table = LAW_QUANTITIES if self.bounding is None else BOUNDED_QUANTITIES
        return {"y": _Y, "z": _Z, "k": _K, None: None}[table[self.quantity]]

    @cached_property
    def words(self) -> dict[str, sp.Symbol]:
        """Every symbol the formula is written in, by its word: the law's parameters, then
        s, c0, c1 (bounded), then y, z or k; the keys of a point."""
        out = {p.name: p.symbol for p in self.law.params}
        if self.bounding is not None:
            out.update({word: symbol for word, (symbol, _) in _BOUND_WORDS.items()})
        if self.variable is not None:
            out[str(self.variable)] = self.variable
        return out

    @property
    def description(self) -> str:
        if self.bounding is not None:
            return (
                f"{_BOUNDED_WHAT[self.quantity]} for Y the {self.bounding} output of s + Z,"
                f" Z ~ {self.law.name}, in [c0, c1] (dpcheck.laws.bounded)"
            )
        return f"{_WHAT[self.quantity]} for Z ~ {self.law.name}, derived from its kernel"

    @cached_property
    def reference(self) -> sp.Expr | None:
        """The closed form of the quantity in the law's symbols (None: numeric only)."""
        law, q = self.law, self.quantity
        if self.bounding is not None:
            return None
        if q in ("mean", "second_moment"):
            return law.moment(1 if q == "mean" else 2)
        if q == "var":
            m1, m2 = law.moment(1), law.moment(2)
            return None if m1 is None or m2 is None else sp.simplify(m2 - m1**2)
        if q in ("pdf", "pmf"):
            norm = law.normaliser
            if norm is None:
                return None
            return law.kernel.subs(law.variable, self.variable) / norm
        if law.is_lattice:  # the CDF of a lattice law is a step function: numeric only
            return None
        low, high = law.tail(-1), law.tail(1)
        if low is None or high is None:
            return None
        y = self.variable
        sf = sp.Piecewise((1 - low.subs(u, -y), y < 0), (high.subs(u, y), True))
        return sf if q == "sf" else 1 - sf

    def value(self, point: Mapping[str, Fraction]) -> flint.arb | None:
        """The certified ball of the quantity at a point (the evaluator of ``dpcheck
        eval``), or None when it is only an estimate or cannot be resolved."""
        params = {p.name: point[p.name] for p in self.law.params}
        at = None if self.variable is None else point[str(self.variable)]
        q = self.quantity
        if self.bounding is not None:
            try:
                b = Bounded(self.law, params, self.bounding, point["s"], point["c0"], point["c1"])
                return b.output_cdf(at) if q == "cdf" else b.quantity(q)
            except InputError:
                return None
        ev = Evaluator(self.law, params)
        try:
            if q == "mean":
                ball = ev.mean()
            elif q == "second_moment":
                ball = ev.moment(2)
            elif q == "var":
                ball = ev.var()
            elif q == "cdf":
                ball = ev.cdf(at)
            elif q == "sf":
                ball = ev.sf(at)
            else:
                ball = ev.pmf(at)
        except InputError:
            return None
        return ball.ball if ball.certified else None


def law_quantity(law: NoiseLaw, quantity: str, bounding: str | None = None) -> LawQuantity:
    """The quantity, or a one-line InputError naming the expected ones."""
    if bounding is not None and bounding not in BOUNDINGS:
        raise InputError(f"bounding {bounding!r} (expected one of: {', '.join(BOUNDINGS)})")
    if bounding is None:
        known = [q for q in LAW_QUANTITIES if q != ("pdf" if law.is_lattice else "pmf")]
    else:
        known = list(BOUNDED_QUANTITIES)
    if quantity not in known:
        where = law.name if bounding is None else f"{bounding}-{law.name}"
        raise InputError(
            f"unknown quantity {quantity!r} of {where} (expected one of: {', '.join(known)})"
        )
    return LawQuantity(law, quantity, bounding)


def notation_table(
    q: LawQuantity, mapping: Mapping[str, str] | str | None
) -> tuple[dict[str, sp.Expr], dict[sp.Symbol, str], dict[str, str]]:
    """(the parser's table, each symbol's LaTeX name, the mapping as given).

    The defaults are :func:`default_latex_name` of each parameter and y, z or k; a
    reviewer's ``'\\tau=sigma'`` renames one (the default name is then free)."""
    words = dict(q.words)
    given = (
        nt.parse_mapping(mapping)
        if isinstance(mapping, str)
        else dict(mapping)
        if mapping is not None
        else {}
    )
    params = {p.name for p in q.law.params}

    def defaults(word: str) -> list[str]:
        if word in _BOUND_WORDS:
            return [_BOUND_WORDS[word][1], word] if word != "s" else ["s"]
        return default_latex_name(word) if word in params else [word]

    names: dict[sp.Symbol, str] = {symbol: defaults(word)[0] for word, symbol in words.items()}
    table: dict[str, sp.Expr] = {"e": sp.E}
    renamed: set[sp.Symbol] = set()
    for latex, word in given.items():
        key = word.replace("{", "").replace("}", "").lstrip("\\")
        key = {"varepsilon": "epsilon", "c_0": "c0", "c_1": "c1"}.get(key, key)
        if key not in words:
            raise InputError(
                f"notation {latex}={word}: {q.name} has no parameter {word!r} (expected one of:"
                f" {', '.join(words)})"
            )
        if words[key] in renamed:
            raise InputError(f"notation: parameter {word!r} given twice")
        renamed.add(words[key])
        table[latex] = words[key]
        names[words[key]] = latex
    for word, symbol in words.items():
        if symbol in renamed:
            continue
        for latex in defaults(word):
            table.setdefault(latex, symbol)
    return table, names, given


# -- points ------------------------------------------------------------------


def _draw(param: Param, rng: random.Random, is_scale: bool) -> Fraction:
    """A rational in the parameter's domain (log-uniform over SCALE_RANGE for a scale)."""
    if param.domain == "positive integer":
        return Fraction(rng.randint(1, 50))
    if param.domain in ("unit", "open unit"):
        value = Fraction(rng.randint(1, 999), 1000)
        if param.domain == "unit" and rng.random() < 0.1:
            return Fraction(rng.choice((0, 1)))
        return value
    low, high = SCALE_RANGE if is_scale else (Fraction(1, 100), Fraction(20))
    exponent = rng.uniform(math.log10(low), math.log10(high))
    value = Fraction(10**exponent).limit_denominator(1000)
    if param.domain == "nonnegative" and rng.random() < 0.05:
        return Fraction(0)
    return value if value > 0 else low


def points(q: LawQuantity, count: int = POINTS, seed: int = SEED) -> list[dict[str, Fraction]]:
    """Seeded rational points of the parameters' domains (and of y, z or k: within four
    scales of 0, integers on the lattice)."""
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        point = {p.name: _draw(p, rng, p.name == q.law.scale) for p in q.law.params}
        scale = point[q.law.scale]
        lattice = q.law.is_lattice
        centre = Fraction(0)
        if q.bounding is not None:
            # c0 within 5 scales of 0, a width of 1/10 to 10 scales, s in [c0, c1]
            c0 = _uniform(rng, -5 * scale - 1, 5 * scale + 1, lattice)
            width = max(_uniform(rng, scale / 10, 10 * scale + 1, lattice), Fraction(1, 1000))
            if lattice:
                width = max(width, Fraction(1))
            c1 = c0 + width
            where = rng.random()
            s = c0 if where < 0.1 else c1 if where < 0.2 else _uniform(rng, c0, c1, lattice)
            point |= {"s": s, "c0": c0, "c1": c1}
            centre = s
        if q.variable is not None:
            spread = 4 * scale + 2
            point[str(q.variable)] = centre + _uniform(
                rng, -spread, spread, lattice or q.variable is _K
            )
        out.append(point)
    return out


def _uniform(rng: random.Random, low: Fraction, high: Fraction, integer: bool) -> Fraction:
    """A seeded rational in [low, high] (denominator <= 1000), or an integer."""
    if integer:
        return Fraction(rng.randint(math.ceil(low), max(math.ceil(low), math.floor(high))))
    value = Fraction(rng.uniform(float(low), float(high))).limit_denominator(1000)
    return min(max(value, low), high)


def _domain(q: LawQuantity, names: Mapping[sp.Symbol, str]) -> str:
    parts = [f"{names[p.symbol]} {p.expected.split(' ', 1)[1]}" for p in q.law.params]
    if q.bounding is not None:
        kind = "integers" if q.law.is_lattice else "real"
        parts.append(
            f"{kind} {names[_C0]} < {names[_C1]}, {names[_S]} in [{names[_C0]}, {names[_C1]}]"
        )
    if q.variable is not None:
        kind = "integer" if q.variable is _K or q.law.is_lattice else "real"
        parts.append(f"{kind} {names[q.variable]}")
    return "; ".join(parts)


# -- the check ---------------------------------------------------------------


def _zero(diff: sp.Expr) -> str | None:
    """How the difference was reduced to 0 (a proof), or None: the general route's exact
    steps (:func:`~dpcheck.formula.check.atoms_zero`, also with sinh/cosh written in exp,
    then :func:`~dpcheck.formula.check.simplifies_to_zero`)."""
    if power_too_large(diff):
        return None
    if atoms_zero(diff) or atoms_zero(diff.rewrite(sp.exp)):
        return "rational in the atoms exp(.), erf(.): dpcheck.symbolic.atoms.is_zero"
    if simplifies_to_zero(diff):
        return "SymPy simplify"
    return None


def _plain(latex: str) -> str:
    r"""'\mathrm{width}' -> 'width' (how a report names an upright parameter)."""
    return latex[len("\\mathrm{") : -1] if latex.startswith("\\mathrm{") else latex


def _fmt(ball: flint.arb) -> str:
    return ball.str(20, radius=False)


def check_law_formula(
    law: NoiseLaw,
    quantity: str,
    latex: str,
    against_latex: str | None = None,
    notation: Mapping[str, str] | str | None = None,
    *,
    bounding: str | None = None,
    reproduce_with: str = "",
) -> FormulaCheck:
    """Compare ``latex`` with ``quantity`` of ``law`` (or with ``against_latex``).

    ``notation`` renames parameters ('\\tau=sigma'); ``reproduce_with`` is what names a
    user's law on the command line (``--density ... --param ...``), for the witness's
    ``dpcheck eval`` command; ``bounding`` (truncated, clamped, folded) checks a quantity
    of the bounded law instead.
    """
    start = time.perf_counter()
    q = law_quantity(law, quantity, bounding)
    table, names, given = notation_table(q, notation)
    parsed = parse_latex(latex, table)
    against = parse_latex(against_latex, table) if against_latex is not None else None
    notes: list[str] = []
    symbols = {symbol: word for word, symbol in q.words.items()}
    if against is None:
        reference = q.reference
        ref_name = f"derived {q.name}"
        if reference is None and bounding is not None:
            notes.append(
                f"{q.name} is compared with its certified value at each point (the bounded"
                " law's pieces in ball arithmetic, dpcheck.laws.bounded)"
            )
        elif reference is None:
            notes.append(
                f"{q.name} has no closed form (SymPy leaves the"
                f" {'sum' if law.is_lattice else 'integral'}); compared with its certified"
                " value at each point"
            )
    else:
        reference, ref_name = against.expr, "the --against formula"
    method, witness, good = _compare(q, parsed.expr, reference, against is None, symbols, notes)
    verdict = method[0]
    names = {x: _plain(name) for x, name in names.items()}
    shown = {x: nt.display_symbol(name) for x, name in names.items()}
    if witness is not None:
        raw = witness["raw"]
        witness["point"] = {names[symbol]: str(raw[word]) for word, symbol in q.words.items()}
        if against is None:
            variable = None if q.variable is None else str(q.variable)
            args = " ".join(f"{k}={raw[k]}" for k in q.words if k != variable)
            if variable is not None:
                where = "y" if quantity in ("cdf", "sf") else "z"  # eval's names
                args += f" {where}={raw[variable]}"
            if law.source == "user-defined":
                tail = f" {reproduce_with}" if reproduce_with else " (with the law's --density)"
                witness["reproduce"] = f"dpcheck eval {quantity} {args} --dps 30{tail}"
            else:
                witness["reproduce"] = f"dpcheck eval {q.name} {args} --dps 30"
        del witness["raw"]
    return FormulaCheck(
        quantity=q.name,
        verdict=verdict,
        method=method[1],
        formula=parsed,
        reference_name=ref_name,
        reference=reference if reference is not None else _NUMERIC,
        domain=_domain(q, names),
        against=against,
        witness=witness,
        points_checked=good or None,
        notes=notes,
        seconds=time.perf_counter() - start,
        description=q.description,
        notation=dict(given) if given else None,
        display=shown,
    )


def _compare(
    q: LawQuantity,
    formula: sp.Expr,
    reference: sp.Expr | None,
    derived: bool,
    symbols: Mapping[sp.Symbol, str],
    notes: list[str],
) -> tuple[tuple[str, str], dict | None, int]:
    """((verdict, method), witness or None, points where the balls agree)."""
    stray = formula.free_symbols - set(symbols)
    if reference is not None:
        stray |= reference.free_symbols - set(symbols)
    if stray:
        raise InputError(
            f"the formula uses {', '.join(sorted(map(str, stray)))}, which is not a parameter of"
            f" {q.mechanism} ({', '.join(symbols.values())})"
        )
    if reference is not None:
        done, how = within(EXACT_SECONDS, _zero, formula - reference)
        if not done:
            notes.append(f"exact reduction stopped after {EXACT_SECONDS:g} s")
        elif how is not None:
            return ("equal", f"exact symbolic reduction of the difference to 0 ({how})"), None, 0
    good = 0
    pts = points(q)
    with precision(DPS):
        for point in pts:
            env = {x: point[word] for x, word in symbols.items()}
            try:
                a = evaluate_arb(formula, env)
                if derived:
                    b = q.value(point)
                else:
                    b = evaluate_arb(reference, env)
            except (InputError, ZeroDivisionError, ValueError):
                continue
            if b is None or not a.is_finite() or not b.is_finite():
                continue
            d = a - b
            if d > 0 or d < 0:
                witness = {
                    "raw": point,
                    "formula": _fmt(a),
                    "derived" if derived else "against": _fmt(b),
                    "difference": _fmt(d),
                    "difference_enclosure": d.str(20, radius=True),
                    "sign": 1 if d > 0 else -1,
                    "digits": DPS,
                    "confirmed": "the arb enclosures of the formula and of the quantity are"
                    " disjoint",
                }
                return ("differs", ARB_METHOD), witness, good
            if float(d.rad()) < EVIDENCE_RADIUS:
                good += 1
    low, high = SCALE_RANGE
    if good >= MIN_EVIDENCE_POINTS:
        return (
            (
                "equal",
                f"numerical evidence, not a symbolic proof: at {good} of {len(pts)} seeded"
                f" rational points ({q.law.scale} from {low} to {high}) the arb enclosure of the"
                f" difference lies within {EVIDENCE_RADIUS:g} of 0 (none excludes 0)",
            ),
            None,
            good,
        )
    return (
        (
            "undecided",
            f"not reduced to 0, no witness found, and only {good} of {len(pts)} points gave a"
            " tight enclosure of 0",
        ),
        None,
        good,
    )


#: what a quantity without a closed form is shown as
_NUMERIC = sp.Symbol("(no closed form: its certified value at each point)")

__all__ = ["LAW_QUANTITIES", "LawQuantity", "check_law_formula", "law_quantity", "points"]
