"""Displayed equalities that are checked when the derivation is built.

A derivation of :mod:`dpcheck.derivations.mechanisms` shows chains
``lhs = F_1 = F_2 = ...`` whose forms F_i are SymPy expressions in a display
notation (the Gaussian's a, b, Φ, φ; the geometric law's α^{s-c_0}; Liu's
E_0, E_1; the fold width R) and may hold unevaluated integrals and sums.
:class:`Checker` proves every consecutive equality F_i = F_{i+1}:

1. each side gets its *meaning* in the engine's symbols (s, c_0, c_1, λ, σ, α,
   x, z, m): the notation is expanded (Φ(u) = (1 + erf(u/√2))/2,
   φ(u) = e^{-u²/2}/√(2π), a = (c_0 - s)/σ, ...);
2. every integral and sum in it is replaced by a value that is itself proved:

   * ∫ h(x) dx of a Gaussian kernel: the change of variable x = s + σz
     (an identity for σ > 0), then as below;
   * an integrand with |x - s| over bounds on both sides of s: split at s and
     |x - s| resolved on each side (:func:`dpcheck.symbolic.laws.split_at_kink`,
     the ordering c_0 <= s <= c_1);
   * ∫_l^u (factor)·k(v) dv: an antiderivative K of k (the engine's for the
     standardised Gaussian kernels, SymPy's otherwise) *checked by
     differentiation* (dK/dv - k reduces to 0), then K(u) - K(l) (a limit at
     ±∞), the fundamental theorem of calculus;
   * Σ_{m=l}^{u} t(m) with |m| and l <= 0 <= u: split at m = 0 (|m| = ±m);
   * Σ_{j=1}^{n} t(j), n finite: the engine's closed form C(n)
     (:func:`dpcheck.symbolic.laws._sum_run`) *proved by induction on n*:
     C(0) = 0 and C(K) - C(K-1) = t(K) for a symbolic integer K;
   * Σ_{j=1}^{∞} t(j): a geometric series, t(j) = t(1)·r^{j-1} with r free of
     j and 0 < r < 1 shown (r = α^k, k >= 1, or r = e^{-w} with w > 0), equal
     to t(1)/(1 - r);

3. the difference of the two sides must reduce to 0 under
   :func:`dpcheck.symbolic.atoms.is_zero` (an exact, sound test).

A step that is not shown raises :class:`StepNotChecked` and the derivation is
not built.  Every check is counted (:attr:`Checker.tally`); the derivations end
with the counts.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise

import sympy as sp
from sympy.printing.latex import LatexPrinter

from dpcheck.derivations import notation
from dpcheck.symbolic import atoms, laws
from dpcheck.symbolic.symbols import alpha, c0, c1, s, x, z


class StepNotChecked(AssertionError):
    """A displayed step that the checker could not prove."""


class Shown(sp.Symbol):
    """A symbol with its own LaTeX (e.g. ``{\\alpha^{s - c_{0}}}``) standing for an expression.

    Names must be unique: SymPy caches symbols by name and assumptions.
    """

    _tex: str

    def __new__(cls, name: str, tex: str, **assumptions: bool) -> Shown:
        obj = super().__new__(cls, name, **assumptions)
        obj._tex = tex
        return obj

    def _latex(self, printer: object) -> str:
        return self._tex


def shown_function(name: str, tex: str) -> type:
    """An undefined function printed compactly as ``tex(arg)`` (``\\Phi(a)``, not
    ``\\Phi{\\left(a \\right)}``); its meaning is given to the :class:`Checker`."""

    def _latex(self: sp.Function, printer: LatexPrinter, exp: str | None = None) -> str:
        body = f"{tex}({printer._print(self.args[0])})"
        return f"{body}^{{{exp}}}" if exp is not None else body

    return type(name, (sp.Function,), {"_latex": _latex})


#: the kinds of checks, in the order the derivations report them
KINDS = {
    "equality": "displayed equalities proved exact (both sides reduced with "
    "\\texttt{atoms.is\\_zero} after expanding the notation)",
    "antiderivative": "antiderivatives checked by differentiation (then the fundamental "
    "theorem of calculus)",
    "change of variable": "changes of variable $x = s + \\sigma z$ in an integral",
    "split at s": "integrals split at $s$ with $|x - s|$ resolved on each side",
    "split at 0": "lattice sums split at $m = 0$ with $|m|$ resolved on each side",
    "induction": "finite sums whose closed form is proved by induction on the upper limit",
    "geometric series": "geometric series $\\sum_{j \\ge 1} t_1 r^{j-1} = t_1/(1 - r)$ with "
    "$t_{j+1}/t_j = r$ and $0 < r < 1$ shown",
    "sign": "signs of image $- s$ proved for a whole range of $k$ (vertices of the box and "
    "slope in $k$)",
}


def _positive_integer(name: str) -> sp.Symbol:
    return sp.Symbol(name, integer=True, positive=True)


#: summation index after a split at m = 0, and the induction variable
_J = _positive_integer("j")
_K = _positive_integer("K")


@dataclass
class Checker:
    """Proves displayed equalities; ``symbols`` and ``functions`` give the notation's meaning.

    ``standardise`` = (x, σ) makes integrals in x of a Gaussian kernel go
    through z = (x - s)/σ (SymPy has no antiderivative in x for them).
    """

    symbols: dict[sp.Symbol, sp.Expr]
    functions: Mapping[type, Callable[[sp.Expr], sp.Expr]]
    standardise: tuple[sp.Symbol, sp.Expr] | None = None

    def __post_init__(self) -> None:
        self.tally: Counter[str] = Counter()
        self._antiderivatives: dict[tuple[sp.Expr, sp.Symbol], sp.Expr] = {}
        self._sums: dict[tuple[sp.Expr, sp.Expr], sp.Expr] = {}
        self._closed: dict[sp.Expr, sp.Expr] = {}

    def define(self, symbol: sp.Symbol, meaning: sp.Expr) -> None:
        """Give a display symbol (m_1, ...) its meaning (which may use the notation)."""
        self.symbols[symbol] = meaning

    # ------------------------------------------------------------------ meaning
    def meaning(self, expr: sp.Expr) -> sp.Expr:
        """``expr`` in the engine's symbols (integrals and sums kept)."""
        out = sp.sympify(expr)
        for _ in range(5):
            if not out.free_symbols & set(self.symbols):
                break
            out = out.subs(self.symbols)
        else:  # pragma: no cover - a notation defined in terms of itself
            raise StepNotChecked(f"notation does not expand: {out}")
        for function, rule in self.functions.items():
            out = out.replace(function, rule)
        return out

    def evaluate(self, expr: sp.Expr) -> sp.Expr:
        """The meaning of ``expr`` with every integral and sum replaced by its proved value."""
        out = self.meaning(expr)
        return out.replace(lambda e: isinstance(e, (sp.Integral, sp.Sum)), self._value)

    def _value(self, e: sp.Expr) -> sp.Expr:
        e = e.replace(lambda t: isinstance(t, (sp.Integral, sp.Sum)) and t != e, self._value)
        if isinstance(e, sp.Integral):
            return self._integral(e)
        return self._sum(e)

    # ---------------------------------------------------------------- integrals
    def _integral(self, e: sp.Integral) -> sp.Expr:
        if len(e.limits) != 1 or len(e.limits[0]) != 3:
            raise StepNotChecked(f"not a definite integral in one variable: {e}")
        h, (v, lower, upper) = e.function, e.limits[0]
        if self.standardise is not None and v == self.standardise[0]:
            scale = self.standardise[1]
            if h.has(z):
                raise StepNotChecked(f"{h} already holds z")

            def std(bound: sp.Expr) -> sp.Expr:
                return bound if bound in (sp.oo, -sp.oo) else (bound - s) / scale

            self.tally["change of variable"] += 1
            return self._integral(
                sp.Integral(h.subs(v, s + scale * z) * scale, (z, std(lower), std(upper)))
            )
        if h.has(sp.Abs):
            if v != x:
                raise StepNotChecked(f"|.| in an integrand in {v}: {h}")
            try:
                pieces = laws.split_at_kink(lower, upper)
            except KeyError:
                raise StepNotChecked(f"bounds {lower}, {upper} not ordered with s") from None
            if len(pieces) > 1:
                self.tally["split at s"] += 1
            parts = [(a, b_, laws.resolve_abs(h, side)) for a, b_, side in pieces]
            if any(p.has(sp.Abs) for _, _, p in parts):
                raise StepNotChecked(f"|x - s| not resolved in {h}")
        else:
            parts = [(lower, upper, h)]
        total = sp.Integer(0)
        for a, b_, integrand in parts:
            for term in sp.Add.make_args(sp.expand(integrand, power_exp=False)):
                factor, kernel = term.as_independent(v, as_Add=False)
                if kernel.is_Pow and kernel.exp.is_negative and kernel.base.has(v):
                    raise StepNotChecked(f"{v} in a denominator: {term}")
                antiderivative = self.antiderivative(kernel, v)
                total += factor * (self._at(antiderivative, v, b_) - self._at(antiderivative, v, a))
        return total

    def antiderivative(self, kernel: sp.Expr, v: sp.Symbol) -> sp.Expr:
        """An antiderivative of ``kernel`` in ``v``, checked by differentiation.

        Kernel and antiderivative must be entire in ``v`` (sums and products of
        nonnegative integer powers, exp and erf), so that the fundamental theorem of
        calculus applies on every interval.
        """
        key = (kernel, v)
        if key not in self._antiderivatives:
            if not _entire(kernel, v):
                raise StepNotChecked(f"{kernel} is not an entire function of {v}")
            found = laws._antiderivative(kernel) if v == z else sp.integrate(kernel, v)
            if found.has(sp.Integral) or not _entire(found, v):
                raise StepNotChecked(f"no entire antiderivative of {kernel} in {v}: {found}")
            if not atoms.is_zero(sp.diff(found, v) - kernel):
                raise StepNotChecked(f"d/d{v} {found} is not {kernel}")
            self.tally["antiderivative"] += 1
            self._antiderivatives[key] = found
        return self._antiderivatives[key]

    @staticmethod
    def _at(antiderivative: sp.Expr, v: sp.Symbol, point: sp.Expr) -> sp.Expr:
        if point in (sp.oo, -sp.oo):
            value = sp.limit(antiderivative, v, point)
            if value.has(sp.Limit, sp.oo, -sp.oo, sp.zoo, sp.nan):
                raise StepNotChecked(f"{antiderivative} has no finite limit at {point}")
            return value
        return antiderivative.subs(v, point)

    # --------------------------------------------------------------------- sums
    def _sum(self, e: sp.Sum) -> sp.Expr:
        if len(e.limits) != 1:
            raise StepNotChecked(f"not a single sum: {e}")
        t, (v, lower, upper) = e.function, e.limits[0]
        if t.has(sp.Abs):
            if not (_nonpositive(lower) and _nonnegative(upper)):
                raise StepNotChecked(f"cannot split {e} at 0")
            self.tally["split at 0"] += 1
            value = t.subs(v, 0)
            if lower != 0:
                below = t.subs(v, -_J)
                value += self._sum(sp.Sum(below, (_J, 1, -lower)))
            if upper != 0:
                value += self._sum(sp.Sum(t.subs(v, _J), (_J, 1, upper)))
            return value
        if lower != 1:
            raise StepNotChecked(f"sums are checked from 1: {e}")
        term = t.subs(v, _J)
        if term.has(sp.Abs):
            raise StepNotChecked(f"|.| left in {term}")
        if upper is sp.oo:
            return self.geometric(term, _J)
        key = (term, upper)
        if key not in self._sums:
            self._sums[key] = self.closed_sum(term).subs(_K, upper)
        return self._sums[key]

    def closed_sum(self, term: sp.Expr) -> sp.Expr:
        """Σ_{j=1}^{K} term(j) in the engine's closed form, proved by induction on K."""
        if term in self._closed:
            return self._closed[term]
        closed = laws._sum_run(sp.expand(term.subs(_J, laws._j)), _K)
        if not atoms.is_zero(closed.subs(_K, 0)):
            raise StepNotChecked(f"the closed form of Σ {term} is not 0 at K = 0")
        step = closed - closed.subs(_K, _K - 1) - term.subs(_J, _K)
        if not atoms.is_zero(sp.expand(step, power_exp=True)):
            raise StepNotChecked(f"C(K) - C(K-1) differs from the term K of Σ {term}")
        self.tally["induction"] += 1
        self._closed[term] = closed
        return closed

    def geometric(self, term: sp.Expr, j: sp.Symbol) -> sp.Expr:
        """Σ_{j>=1} term(j) = term(1)/(1 - r) for a term with ratio r in (0, 1), both shown."""
        first = term.subs(j, 1)
        ratio = sp.simplify(sp.powsimp(sp.expand(term.subs(j, j + 1) / term, power_exp=True)))
        if ratio.has(j):
            raise StepNotChecked(f"{term} is not geometric in {j}")
        if not atoms.is_zero(sp.expand(term - first * ratio ** (j - 1), power_exp=True)):
            raise StepNotChecked(f"{term} is not {first}·({ratio})^({j}-1)")
        if not _in_unit_interval(ratio):
            raise StepNotChecked(f"the ratio {ratio} is not shown to lie in (0, 1)")
        self.tally["geometric series"] += 1
        return first / (1 - ratio)

    # ----------------------------------------------------------------- displays
    def equal(self, left: sp.Expr, right: sp.Expr) -> None:
        """Prove left = right (see the module docstring); StepNotChecked otherwise."""
        difference = self.evaluate(left) - self.evaluate(right)
        if not atoms.is_zero(difference):
            raise StepNotChecked(f"{left} = {right} is not shown")
        self.tally["equality"] += 1

    def chain(
        self, lhs: str, forms: Sequence[sp.Expr], value: sp.Expr | None = None
    ) -> tuple[str, ...]:
        """Display ``lhs = forms[0] = forms[1] = ...``, one line each, every ``=`` proved.

        ``value``: what ``lhs`` stands for, proved equal to ``forms[0]`` too.
        """
        if value is not None:
            self.equal(value, forms[0])
        for left, right in pairwise(forms):
            self.equal(left, right)
        return (typeset(lhs, forms),)

    def sign(self, check: Callable[[], bool], what: str) -> None:
        """Record a sign proved by ``check`` (a function of the engine); raise if it fails."""
        if not check():
            raise StepNotChecked(what)
        self.tally["sign"] += 1

    def resolved(
        self, left: sp.Expr, right: sp.Expr, inner: sp.Expr, side: int, proof: Callable[[], bool]
    ) -> None:
        """left = right where right is left with |inner - s| = side·(inner - s), the sign of
        inner - s being proved by ``proof`` (e.g. :func:`dpcheck.symbolic.folding.side_of_s`)."""
        self.sign(proof, f"the sign of {inner} - s")
        replaced = laws.resolve_abs(self.meaning(left), side, self.meaning(inner))
        if replaced.has(sp.Abs) or not atoms.is_zero(replaced - self.meaning(right)):
            raise StepNotChecked(f"{right} is not {left} with |{inner} - s| resolved")

    def report(self) -> str:
        """The counts, as a sentence of LaTeX text."""
        parts = [f"{self.tally[k]} {text}" for k, text in KINDS.items() if self.tally[k]]
        return "; ".join(parts)


# --------------------------------------------------------------------------- typesetting
#: a row longer than this (LaTeX source characters) is broken between terms
WIDTH = 150


def shrink(body: str) -> str:
    """Math scaled down to the line width when wider, never up."""
    return (
        "\\resizebox{\\ifdim\\width>\\linewidth\\linewidth\\else\\width\\fi}{!}"
        f"{{$\\displaystyle {body}$}}"
    )


def _tokens(expr: sp.Expr, first: bool = True) -> list[str]:
    """The terms of a sum as LaTeX, each with its sign; a long term c·(sum) opens
    ``c \\Bigl[`` and is broken inside the bracket."""
    out: list[str] = []
    terms = expr.as_ordered_terms() if isinstance(expr, sp.Add) else [expr]
    for i, term in enumerate(terms):
        text = sp.latex(term)
        inner = [f for f in sp.Mul.make_args(term) if isinstance(f, sp.Add)]
        if len(text) > WIDTH and isinstance(term, sp.Mul) and len(inner) == 1:
            coefficient = sp.Mul(*(f for f in sp.Mul.make_args(term) if f is not inner[0]))
            head = sp.latex(coefficient) if coefficient != 1 else ""
            if head == "-1":
                head = "-"
            if (i or not first) and not head.startswith("-"):
                head = "+ " + head
            rows = _tokens(inner[0])
            rows[0] = f"{head} \\Bigl[ {rows[0]}"
            rows[-1] += " \\Bigr]"
            out += rows
            continue
        if (i or not first) and not text.startswith("-"):
            text = "+ " + text
        out.append(text)
    return out


def _pieces(expr: sp.Expr) -> list[str]:
    """One form as rows: a long sum broken between terms (and inside the brackets of a
    long term c·(sum), e.g. (1/D)·N); a row that stays too long is shrunk to the line."""
    body = sp.latex(expr)
    if len(body) <= WIDTH:
        return [body]
    rows = notation._lines(_tokens(expr), WIDTH)
    return [shrink(r) if len(r) > 2 * WIDTH else r for r in rows]


def typeset(lhs: str, forms: Sequence[sp.Expr]) -> str:
    """``lhs = F_1 = F_2 ...`` as one align* block, one form per row (or several)."""
    if len(forms) == 1 and len(pieces := _pieces(forms[0])) == 1:
        text = f"{lhs} = {pieces[0]}"
        return f"\\[ {shrink(text) if len(text) > 1.3 * WIDTH else text} \\]"
    rows: list[str] = []
    for i, form in enumerate(forms):
        pieces = _pieces(form)
        rows.append(f"{lhs} &= {pieces[0]}" if i == 0 else f"&= {pieces[0]}")
        rows += [f"&\\quad {piece}" for piece in pieces[1:]]
    return "\\begin{align*}\n" + " \\\\\n".join(rows) + "\n\\end{align*}"


def _entire(expr: sp.Expr, v: sp.Symbol) -> bool:
    """Built from v by +, ×, nonnegative integer powers, exp and erf (entire in v)."""
    if not expr.has(v):
        return True
    if expr == v:
        return True
    if isinstance(expr, (sp.Add, sp.Mul, sp.exp, sp.erf)):
        return all(_entire(arg, v) for arg in expr.args)
    if isinstance(expr, sp.Pow):
        return bool(expr.exp.is_Integer and expr.exp >= 0) and _entire(expr.base, v)
    return False


def _nonpositive(e: sp.Expr) -> bool:
    """e <= 0 on the domain c_0 <= s <= c_1 (the lower end of a lattice run)."""
    return e == -sp.oo or e == 0 or sp.expand(e) == sp.expand(c0 - s)


def _nonnegative(e: sp.Expr) -> bool:
    return e == sp.oo or e == 0 or sp.expand(e) == sp.expand(c1 - s)


def _in_unit_interval(r: sp.Expr) -> bool:
    """0 < r < 1 shown: r = α^k (k a positive integer; 0 < α = e^{-1/b} < 1) or r = e^{-w},
    w > 0 by the symbols' assumptions once c_1 = c_0 + W (W > 0: c_0 < c_1)."""
    if r == alpha:
        return True
    if isinstance(r, sp.Pow) and r.base == alpha:
        return bool(r.exp.is_integer and r.exp.is_positive)
    if isinstance(r, sp.exp):
        # on the domain c_0 < c_1 (width W > 0) and c_0 <= s <= c_1
        width = sp.Symbol("W", positive=True)
        for domain in ({}, {c1: c0 + width}, {c0: s - width}, {c1: s + width}):
            if sp.expand(r.args[0].subs(domain)).is_negative:
                return True
    return False


__all__ = ["KINDS", "Checker", "Shown", "StepNotChecked"]
