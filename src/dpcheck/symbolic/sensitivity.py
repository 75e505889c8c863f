"""Sample statistics of neighbouring data sets, through summary statistics (Liu 2019 supplement).

This is the symbolic layer (DESIGN layer 1) behind the supplement's derivations
of global sensitivity (``001_*.txt`` §§2-5, ``000_*.txt`` Appendices E-H): the
sample variance (§2), covariance (§3), pooled variance (§4) and pooled
covariance (§5) of a data set ``x`` and of a neighbour ``x'``, which either
substitutes record 1 ("Def 1", same size) or removes it ("Def 2").

How n stays symbolic
--------------------
The records 2, 3, ... that ``x`` and ``x'`` share are summarised by their power
sums (univariate: ``S = Σ_{i≥2} x_i``, ``Q = Σ_{i≥2} x_i²``; bivariate: ``S1``,
``S2``, ``Q1``, ``Q2``, ``P = Σ_{i≥2} x_i1 x_i2``); the other cells of a pooled
statistic by their within-cell sums of squares ``W`` (or cross products
``W_xy``).  Record 1 (and its replacement) stays explicit.  Every statistic is
then a rational function of these, of ``n`` (and ``n_1``, ``J``), so an
identity that holds for symbolic ``n`` is an identity in rational functions,
proved by cancelling the difference to 0.

A :class:`Scenario` says what the printed notation means in one section: the
definitions of the means and statistics (written with :class:`sympy.Sum`, as
the paper defines them), which records the two data sets share, and which
summary symbol each power sum becomes.  :func:`interpret` turns any printed
formula (built from the notation below, with unevaluated sums) into that
summary-statistic form; the derived differences come out of the same
definitions, never from a printed result.

Independent route
-----------------
:class:`Concrete` is a concrete pair of neighbouring data sets in exact
rationals; :func:`evaluate_on` evaluates a printed formula on it literally
(every sum expanded, every symbol its value on the data), and the ``truth``
of a pair is the difference of the statistic computed directly from its
definition with :class:`fractions.Fraction`.  Counterexamples are found and
confirmed this way, so a witness is a small data set, not a point of the
summary-statistic space.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import product
from typing import Any

import sympy as sp

F = Fraction

# ---------------------------------------------------------------------------
# Notation of the supplement (shared with dpcheck.papers.liu2019s)
# ---------------------------------------------------------------------------

#: total sample size; number of cells (§§4-5); summation indices
n = sp.Symbol("n", integer=True, positive=True)
J = sp.Symbol("J", integer=True, positive=True)
i = sp.Symbol("i", integer=True, positive=True)
j = sp.Symbol("j", integer=True, positive=True)

#: data: x_i (§2), x_{ik} record i variable k (§3), x_{ij} record i of cell j (§4); y (§5)
x = sp.IndexedBase("x")
xp = sp.IndexedBase("x'")
y = sp.IndexedBase("y")
yp = sp.IndexedBase("y'")
#: cell sizes n_j (§§4-5)
nc = sp.IndexedBase("n")

#: §2 means: \bar{x}, \bar{x'} (whole data sets), \bar{x}_- (records 2..n)
XBAR = sp.Symbol(r"\bar{x}")
XBARP = sp.Symbol(r"\bar{x'}")
XBARM = sp.Symbol(r"\bar{x}_-")
#: §2 sample variances s^2 (of x) and s'^2 (of x')
S2 = sp.Symbol("s^2")
S2P = sp.Symbol("s'^2")

#: §3/§4/§5 indexed means: \bar{x}_k (variable k, or cell k), \bar{x}'_k, \bar{x}_{k-}
xbar = sp.IndexedBase(r"\bar{x}")
xbarp = sp.IndexedBase(r"\bar{x}'")
xbarm = sp.IndexedBase(r"\bar{x}_-")
ybar = sp.IndexedBase(r"\bar{y}")
ybarp = sp.IndexedBase(r"\bar{y}'")
ybarm = sp.IndexedBase(r"\bar{y}_-")
#: §3 sample covariances s_12 (of x) and s'_12 (of x')
S12 = sp.Symbol("s_12")
S12P = sp.Symbol("s'_12")
#: §4 pooled variances s_p^2, s_p'^2 (Def 1), s_{p-}^2 (Def 2)
SP2 = sp.Symbol("s_p^2")
SP2P = sp.Symbol("s_p'^2")
SP2M = sp.Symbol("s_p-^2")
#: §5 pooled covariances cov_p, cov_p' (Def 1), cov_{p-} (Def 2)
COVP = sp.Symbol("cov_p")
COVPP = sp.Symbol("cov_p'")
COVPM = sp.Symbol("cov_p-")
#: §3/§5 counts on the [0, 1] scale: k1 = #{x_i1 = 1}, k2 = #{x_i2 = 1}, k3 = Σ x_i1 x_i2 (i ≥ 2)
k1, k2, k3 = sp.symbols("k_1 k_2 k_3", integer=True, nonnegative=True)

# ---------------------------------------------------------------------------
# Summary statistics of the shared records (the model's own symbols)
# ---------------------------------------------------------------------------

#: §2: Σ_{i≥2} x_i, Σ_{i≥2} x_i²
S = sp.Symbol("S")
Q = sp.Symbol("Q")
#: §3: Σ_{i≥2} x_i1, Σ x_i2, Σ x_i1², Σ x_i2², Σ x_i1 x_i2;
#: §4/§5 (cell 1, i = 2..n_1): S1 = Σ x_i1, Q1 = Σ x_i1², and for §5
#: S2 = Σ y_i1, Q2 = Σ y_i1², P = Σ x_i1 y_i1
S1, S2_, Q1, Q2, P = sp.symbols("S_1 S_2 Q_1 Q_2 P")
#: §4/§5: within-cell sums over the cells j >= 2: Σ_j Σ_i (x_ij - x̄_j)², and the cross products
W = sp.Symbol("W")
WXY = sp.Symbol("W_xy")


_MEANINGS: dict[str, dict[sp.Expr, sp.Expr]] = {}


class NotExpressible(ValueError):
    """A printed formula uses something the scenario has no meaning for (e.g. a
    record index that only a typo introduced); only a concrete data set can
    evaluate it."""


def _swap_bases(expr: sp.Expr, swap: Mapping[sp.IndexedBase, sp.IndexedBase], var: sp.Symbol):
    """Rename the bases of the indexed symbols whose indices involve ``var``."""
    return expr.replace(
        lambda e: (
            isinstance(e, sp.Indexed)
            and e.base in swap
            and any(var in sp.sympify(ix).free_symbols for ix in e.indices)
        ),
        lambda e: swap[e.base][e.indices],
    )


def _strip_data_primes(expr: sp.Expr) -> sp.Expr:
    """x'_{i..} -> x_{i..}, y'_{i..} -> y_{i..} for the summation index i: the records
    i >= 2 that the two data sets share (Def 1).  Record 1 (x'_1 inside a mean) is kept."""
    return _swap_bases(expr, {xp: x, yp: y}, i)


def _strip_all_primes(expr: sp.Expr) -> sp.Expr:
    """Data and cell means of the cells j >= 2, which are the same in x and x'."""
    return _swap_bases(expr, {xp: x, yp: y, xbarp: xbar, ybarp: ybar}, j)


@dataclass(frozen=True)
class Scenario:
    """What the printed notation of one section means, in summary statistics.

    ``group`` is the size of the group holding record 1 (``n``, or ``n_1`` for
    the pooled statistics); ``rest`` the variables of a shared record i >= 2
    (as functions of :data:`i`); ``rest_sums`` maps a monomial's exponents in
    ``rest`` to its summary symbol (the constant monomial counts the records,
    ``group - 1``); ``other_cells`` maps a summand over the cells j >= 2 to its
    symbol; ``definitions`` are (printed symbol, defining expression) in
    dependency order; ``atoms`` the symbols a fully interpreted formula may
    contain; ``shared`` says whether x' has records 2.. of x under the primed
    name (Def 1) or x' is just records 2.. of x (Def 2).
    """

    name: str
    group: sp.Expr
    rest: tuple[sp.Expr, ...]
    rest_sums: Mapping[tuple[int, ...], sp.Expr]
    definitions: tuple[tuple[sp.Expr, sp.Expr], ...]
    atoms: frozenset
    shared: bool
    other_cells: Mapping[sp.Expr, sp.Expr] = field(default_factory=dict)

    # -- sums -------------------------------------------------------------
    def _rest_sum(self, f: sp.Expr, upper: sp.Expr) -> sp.Expr:
        if sp.simplify(upper - self.group) != 0:
            raise NotExpressible(f"a sum up to {upper} in {self.name} (group {self.group})")
        if self.shared:
            f = _strip_data_primes(f)
        dummies = sp.symbols(f"_r0:{len(self.rest)}")
        g = f.xreplace(dict(zip(self.rest, dummies, strict=True)))
        if i in g.free_symbols or any(
            isinstance(a, sp.Indexed) and i in a.free_symbols for a in g.atoms(sp.Indexed)
        ):
            raise NotExpressible(f"summand {f} is not a polynomial in {self.rest}")
        poly = sp.Poly(sp.expand(g), *dummies)
        out = sp.Integer(0)
        for monom, coeff in poly.terms():
            if all(e == 0 for e in monom):
                out += coeff * (self.group - 1)
            elif monom in self.rest_sums:
                out += coeff * self.rest_sums[monom]
            else:
                raise NotExpressible(f"no summary statistic for the power sum {monom}")
        return out

    def _sum(self, s: sp.Sum) -> sp.Expr:
        f, limits = s.function, s.limits
        if len(limits) == 1:
            (var, lo, hi) = limits[0]
            if var != i:
                raise NotExpressible(f"sum over {var}")
            if lo == 1:
                return f.subs(i, 1) + self._sum(sp.Sum(f, (i, 2, hi)))
            if lo == 2:
                return self._rest_sum(f, hi)
            raise NotExpressible(f"sum from {lo}")
        if len(limits) == 2:
            (vi, li, hi_i), (vj, lj, hj) = limits
            if vi != i or vj != j or li != 1 or hi_i != nc[j] or hj != J:
                raise NotExpressible(f"double sum {limits}")
            if lj == 1:
                cell1 = sp.Sum(f.subs(j, 1), (i, 1, nc[1]))
                return self._sum(cell1) + self._sum(sp.Sum(f, (i, 1, nc[j]), (j, 2, J)))
            if lj == 2:
                key = sp.expand(_strip_all_primes(f))
                for summand, symbol in self.other_cells.items():
                    if sp.expand(summand) == key:
                        return symbol
                raise NotExpressible(f"no summary statistic for the cells j >= 2 of {f}")
        raise NotExpressible(f"sum with limits {limits}")

    def evaluate_sums(self, expr: sp.Expr) -> sp.Expr:
        return expr.replace(lambda e: isinstance(e, sp.Sum), self._sum)

    # -- interpretation ---------------------------------------------------
    def meanings(self) -> dict[sp.Expr, sp.Expr]:
        """Each defined symbol (means, statistics) in summary statistics."""
        if self.name in _MEANINGS:
            return _MEANINGS[self.name]
        done: dict[sp.Expr, sp.Expr] = {}
        for symbol, definition in self.definitions:
            done[symbol] = self._settle(definition, done)
        _MEANINGS[self.name] = done
        return done

    def _settle(self, expr: sp.Expr, known: Mapping[sp.Expr, sp.Expr]) -> sp.Expr:
        for _ in range(6):
            before = expr
            expr = self.evaluate_sums(expr.xreplace(dict(known)))
            if expr == before:
                break
        return expr

    def interpret(self, expr: sp.Expr) -> sp.Expr:
        """The printed ``expr`` in summary statistics; NotExpressible if it uses
        a symbol the scenario gives no meaning to."""
        out = self._settle(expr, self.meanings())
        foreign = foreign_atoms(out, self.atoms)
        if foreign:
            raise NotExpressible(
                "no meaning in scenario "
                + self.name
                + " for "
                + ", ".join(sorted(str(a) for a in foreign))
            )
        return out


def foreign_atoms(expr: sp.Expr, allowed: Iterable[sp.Expr]) -> set[sp.Expr]:
    allowed = set(allowed)
    indexed = expr.atoms(sp.Indexed)
    labels = {a.base.label for a in indexed}
    out = {a for a in indexed if a not in allowed}
    for s in expr.free_symbols:
        if isinstance(s, sp.Indexed) or s in allowed or s in labels:
            continue
        out.add(s)
    return out


def is_zero(expr: sp.Expr) -> bool:
    """Exact test: the rational function is 0 (a proof for every value of its symbols
    where no denominator vanishes).  Combined over one denominator, the numerator is
    expanded; if it is not a polynomial the whole is cancelled instead."""
    num, _ = sp.fraction(sp.together(expr))
    num = sp.expand(num)
    if num == 0:
        return True
    if num.is_polynomial(*num.free_symbols):
        return False
    return sp.cancel(sp.together(expr)) == 0


# ---------------------------------------------------------------------------
# The scenarios of §§2-5
# ---------------------------------------------------------------------------

_UNI_SUMS = {(1,): S, (2,): Q}
_BI_SUMS = {(1, 0): S1, (0, 1): S2_, (2, 0): Q1, (0, 2): Q2, (1, 1): P}


def _var(expr_i: sp.Expr, lo: int, hi: sp.Expr, size: sp.Expr) -> sp.Expr:
    return sp.Sum(expr_i, (i, lo, hi)) / (size - 1)


#: §2 Def 1: x = (x_1, x_2, ..., x_n), x' = (x'_1, x_2, ..., x_n)
VARIANCE_DEF1 = Scenario(
    name="§2 Def 1",
    group=n,
    rest=(x[i],),
    rest_sums=_UNI_SUMS,
    definitions=(
        (XBAR, sp.Sum(x[i], (i, 1, n)) / n),
        (XBARP, sp.Sum(xp[i], (i, 1, n)) / n),
        (XBARM, sp.Sum(x[i], (i, 2, n)) / (n - 1)),
        (S2, _var((x[i] - XBAR) ** 2, 1, n, n)),
        (S2P, _var((xp[i] - XBARP) ** 2, 1, n, n)),
    ),
    atoms=frozenset({n, x[1], xp[1], S, Q}),
    shared=True,
)

#: §2 Def 2: x = (x_1, ..., x_n), x' = (x_2, ..., x_n)
VARIANCE_DEF2 = Scenario(
    name="§2 Def 2",
    group=n,
    rest=(x[i],),
    rest_sums=_UNI_SUMS,
    definitions=(
        (XBAR, sp.Sum(x[i], (i, 1, n)) / n),
        (XBARM, sp.Sum(x[i], (i, 2, n)) / (n - 1)),
        (S2, _var((x[i] - XBAR) ** 2, 1, n, n)),
        (S2P, _var((x[i] - XBARM) ** 2, 2, n, n - 1)),
    ),
    atoms=frozenset({n, x[1], S, Q}),
    shared=False,
)

#: §3 Def 1: records (x_i1, x_i2); x' replaces record 1 by (x'_11, x'_12)
COVARIANCE_DEF1 = Scenario(
    name="§3 Def 1",
    group=n,
    rest=(x[i, 1], x[i, 2]),
    rest_sums=_BI_SUMS,
    definitions=(
        (xbar[1], sp.Sum(x[i, 1], (i, 1, n)) / n),
        (xbar[2], sp.Sum(x[i, 2], (i, 1, n)) / n),
        (xbarp[1], sp.Sum(xp[i, 1], (i, 1, n)) / n),
        (xbarp[2], sp.Sum(xp[i, 2], (i, 1, n)) / n),
        (xbarm[1], sp.Sum(x[i, 1], (i, 2, n)) / (n - 1)),
        (xbarm[2], sp.Sum(x[i, 2], (i, 2, n)) / (n - 1)),
        (S12, _var((x[i, 1] - xbar[1]) * (x[i, 2] - xbar[2]), 1, n, n)),
        (S12P, _var((xp[i, 1] - xbarp[1]) * (xp[i, 2] - xbarp[2]), 1, n, n)),
    ),
    atoms=frozenset({n, x[1, 1], x[1, 2], xp[1, 1], xp[1, 2], S1, S2_, Q1, Q2, P}),
    shared=True,
)

#: §3 Def 2: x' = records 2..n of x
COVARIANCE_DEF2 = Scenario(
    name="§3 Def 2",
    group=n,
    rest=(x[i, 1], x[i, 2]),
    rest_sums=_BI_SUMS,
    definitions=(
        (xbar[1], sp.Sum(x[i, 1], (i, 1, n)) / n),
        (xbar[2], sp.Sum(x[i, 2], (i, 1, n)) / n),
        (xbarm[1], sp.Sum(x[i, 1], (i, 2, n)) / (n - 1)),
        (xbarm[2], sp.Sum(x[i, 2], (i, 2, n)) / (n - 1)),
        (S12, _var((x[i, 1] - xbar[1]) * (x[i, 2] - xbar[2]), 1, n, n)),
        (S12P, _var((x[i, 1] - xbarm[1]) * (x[i, 2] - xbarm[2]), 2, n, n - 1)),
    ),
    atoms=frozenset({n, x[1, 1], x[1, 2], S1, S2_, Q1, Q2, P}),
    shared=False,
)

_SS_CELLS = sp.Sum((x[i, j] - xbar[j]) ** 2, (i, 1, nc[j]), (j, 1, J))
_SS_CELLS_P = sp.Sum((xp[i, j] - xbarp[j]) ** 2, (i, 1, nc[j]), (j, 1, J))
_SS_OTHER = sp.Sum((x[i, j] - xbar[j]) ** 2, (i, 1, nc[j]), (j, 2, J))
_CP_CELLS = sp.Sum((x[i, j] - xbar[j]) * (y[i, j] - ybar[j]), (i, 1, nc[j]), (j, 1, J))
_CP_CELLS_P = sp.Sum((xp[i, j] - xbarp[j]) * (yp[i, j] - ybarp[j]), (i, 1, nc[j]), (j, 1, J))
_CP_OTHER = sp.Sum((x[i, j] - xbar[j]) * (y[i, j] - ybar[j]), (i, 1, nc[j]), (j, 2, J))

#: §4 Def 1: J cells, n = Σ n_j; x' replaces record 1 of cell 1 by x'_11
POOLED_VARIANCE_DEF1 = Scenario(
    name="§4 Def 1",
    group=nc[1],
    rest=(x[i, 1],),
    rest_sums={(1,): S1, (2,): Q1},
    definitions=(
        (xbar[1], sp.Sum(x[i, 1], (i, 1, nc[1])) / nc[1]),
        (xbarp[1], sp.Sum(xp[i, 1], (i, 1, nc[1])) / nc[1]),
        (xbarm[1], sp.Sum(x[i, 1], (i, 2, nc[1])) / (nc[1] - 1)),
        (SP2, _SS_CELLS / (n - J)),
        (SP2P, _SS_CELLS_P / (n - J)),
    ),
    atoms=frozenset({n, J, nc[1], x[1, 1], xp[1, 1], S1, Q1, W}),
    shared=True,
    other_cells={(x[i, j] - xbar[j]) ** 2: W},
)

#: §4 Def 2: x' drops record 1 of cell 1 (total n - 1, still J cells)
POOLED_VARIANCE_DEF2 = Scenario(
    name="§4 Def 2",
    group=nc[1],
    rest=(x[i, 1],),
    rest_sums={(1,): S1, (2,): Q1},
    definitions=(
        (xbar[1], sp.Sum(x[i, 1], (i, 1, nc[1])) / nc[1]),
        (xbarm[1], sp.Sum(x[i, 1], (i, 2, nc[1])) / (nc[1] - 1)),
        (SP2, _SS_CELLS / (n - J)),
        (SP2M, (_SS_OTHER + sp.Sum((x[i, 1] - xbarm[1]) ** 2, (i, 2, nc[1]))) / ((n - 1) - J)),
    ),
    atoms=frozenset({n, J, nc[1], x[1, 1], S1, Q1, W}),
    shared=False,
    other_cells={(x[i, j] - xbar[j]) ** 2: W},
)

#: §5 Def 1: pooled covariance of (x, y); x' replaces record 1 of cell 1
POOLED_COVARIANCE_DEF1 = Scenario(
    name="§5 Def 1",
    group=nc[1],
    rest=(x[i, 1], y[i, 1]),
    rest_sums=_BI_SUMS,
    definitions=(
        (xbar[1], sp.Sum(x[i, 1], (i, 1, nc[1])) / nc[1]),
        (ybar[1], sp.Sum(y[i, 1], (i, 1, nc[1])) / nc[1]),
        (xbarp[1], sp.Sum(xp[i, 1], (i, 1, nc[1])) / nc[1]),
        (ybarp[1], sp.Sum(yp[i, 1], (i, 1, nc[1])) / nc[1]),
        (xbarm[1], sp.Sum(x[i, 1], (i, 2, nc[1])) / (nc[1] - 1)),
        (ybarm[1], sp.Sum(y[i, 1], (i, 2, nc[1])) / (nc[1] - 1)),
        (COVP, _CP_CELLS / (n - J)),
        (COVPP, _CP_CELLS_P / (n - J)),
    ),
    atoms=frozenset({n, J, nc[1], x[1, 1], y[1, 1], xp[1, 1], yp[1, 1], S1, S2_, Q1, Q2, P, WXY}),
    shared=True,
    other_cells={(x[i, j] - xbar[j]) * (y[i, j] - ybar[j]): WXY},
)

#: §5 Def 2: x' drops record 1 of cell 1
POOLED_COVARIANCE_DEF2 = Scenario(
    name="§5 Def 2",
    group=nc[1],
    rest=(x[i, 1], y[i, 1]),
    rest_sums=_BI_SUMS,
    definitions=(
        (xbar[1], sp.Sum(x[i, 1], (i, 1, nc[1])) / nc[1]),
        (ybar[1], sp.Sum(y[i, 1], (i, 1, nc[1])) / nc[1]),
        (xbarm[1], sp.Sum(x[i, 1], (i, 2, nc[1])) / (nc[1] - 1)),
        (ybarm[1], sp.Sum(y[i, 1], (i, 2, nc[1])) / (nc[1] - 1)),
        (COVP, _CP_CELLS / (n - J)),
        (
            COVPM,
            (_CP_OTHER + sp.Sum((x[i, 1] - xbarm[1]) * (y[i, 1] - ybarm[1]), (i, 2, nc[1])))
            / ((n - 1) - J),
        ),
    ),
    atoms=frozenset({n, J, nc[1], x[1, 1], y[1, 1], S1, S2_, Q1, Q2, P, WXY}),
    shared=False,
    other_cells={(x[i, j] - xbar[j]) * (y[i, j] - ybar[j]): WXY},
)


# ---------------------------------------------------------------------------
# Derived differences (from the definitions, through the scenarios)
# ---------------------------------------------------------------------------


def variance_difference(definition: int) -> sp.Expr:
    """s² - s'² (§2) in x_1 (and x'_1), S, Q, n: Def 1 substitutes, Def 2 removes record 1."""
    sc = VARIANCE_DEF1 if definition == 1 else VARIANCE_DEF2
    return sp.factor(sc.interpret(S2 - S2P))


def covariance_difference(definition: int) -> sp.Expr:
    """s_12 - s'_12 (§3) in record 1, S1, S2, P, n."""
    sc = COVARIANCE_DEF1 if definition == 1 else COVARIANCE_DEF2
    return sp.factor(sc.interpret(S12 - S12P))


def pooled_variance_difference(definition: int) -> sp.Expr:
    """s_p² - s_p'² (§4 Def 1) or s_p² - s_{p-}² (§4 Def 2) in x_11, S1, Q1, W, n_1, n, J."""
    if definition == 1:
        return sp.factor(POOLED_VARIANCE_DEF1.interpret(SP2 - SP2P))
    return sp.factor(POOLED_VARIANCE_DEF2.interpret(SP2 - SP2M))


def pooled_covariance_difference(definition: int) -> sp.Expr:
    """cov_p - cov_p' (§5 Def 1) or cov_p - cov_{p-} (§5 Def 2)."""
    if definition == 1:
        return sp.factor(POOLED_COVARIANCE_DEF1.interpret(COVP - COVPP))
    return sp.factor(POOLED_COVARIANCE_DEF2.interpret(COVP - COVPM))


def covariance_def2_on_unit_corner(a: int, b: int) -> sp.Expr:
    """§3 Def 2 on the [0, 1] scale: s_12 - s'_12 with (x_11, x_12) = (a, b) and the other
    records 0/1, so that S1 = k1, S2 = k2, P = k3."""
    d = covariance_difference(2)
    return sp.factor(d.subs({x[1, 1]: a, x[1, 2]: b, S1: k1, S2_: k2, P: k3}))


def pooled_covariance_term1_on_unit_corner(a: int, b: int) -> sp.Expr:
    """§5 Def 2, 'term 1': the part of cov_p - cov_{p-} that depends on cell 1 only (Δ at
    W_xy = 0), with (x_11, y_11) = (a, b) and cell 1's other records 0/1 (k1, k2, k3)."""
    d = pooled_covariance_difference(2).subs(WXY, 0)
    return sp.factor(d.subs({x[1, 1]: a, y[1, 1]: b, S1: k1, S2_: k2, P: k3}))


def is_multi_affine_covariance_def2() -> tuple[bool, dict[str, str]]:
    """§3 eq (3), 'rewrite': is Δ of degree <= 1 in every single coordinate x_11, x_12, x_k1,
    x_k2 (k >= 2)?  Record k is split off the summaries: S1 = a + S1, S2 = b + S2, P = a b + P."""
    d = sp.expand(covariance_difference(2))
    a, b = sp.symbols("a b")
    split = sp.expand(d.subs({S1: a + S1, S2_: b + S2_, P: a * b + P}, simultaneous=True))
    degrees = {
        "x_11": sp.degree(sp.numer(sp.together(d)), x[1, 1]),
        "x_12": sp.degree(sp.numer(sp.together(d)), x[1, 2]),
        "x_k1 (k >= 2)": sp.degree(sp.numer(sp.together(split)), a),
        "x_k2 (k >= 2)": sp.degree(sp.numer(sp.together(split)), b),
    }
    total = sp.Poly(sp.numer(sp.together(split)), x[1, 1], x[1, 2], a, b).total_degree()
    ok = all(v <= 1 for v in degrees.values())
    ev = {k: str(v) for k, v in degrees.items()}
    ev["total degree in (x_11, x_12, x_k1, x_k2)"] = str(total)
    return ok, ev


def unit_counts_feasible(m: int) -> set[tuple[int, int, int]]:
    """All (k1, k2, k3) that m records in {0,1}² realise: k1 = #{x_i1 = 1}, k2 = #{x_i2 = 1},
    k3 = #{both} (counts of the four record types (0,0), (0,1), (1,0), (1,1))."""
    out = set()
    for d in range(m + 1):  # (1,1)
        for c in range(m + 1 - d):  # (1,0)
            for b in range(m + 1 - d - c):  # (0,1)
                out.add((c + d, b + d, d))
    return out


# ---------------------------------------------------------------------------
# Direct statistics on concrete data (exact rationals)
# ---------------------------------------------------------------------------


def mean(v: Sequence[Fraction]) -> Fraction:
    return sum(v, F(0)) / len(v)


def variance(v: Sequence[Fraction]) -> Fraction:
    """Sample variance, divisor len - 1 (§2)."""
    m = mean(v)
    return sum(((a - m) ** 2 for a in v), F(0)) / (len(v) - 1)


def covariance(pairs: Sequence[tuple[Fraction, Fraction]]) -> Fraction:
    """Sample covariance, divisor len - 1 (§3)."""
    mx = mean([p[0] for p in pairs])
    my = mean([p[1] for p in pairs])
    return sum(((a - mx) * (b - my) for a, b in pairs), F(0)) / (len(pairs) - 1)


def pooled_variance(cells: Sequence[Sequence[Fraction]]) -> Fraction:
    """Σ_j Σ_i (x_ij - x̄_j)² / (n - J) (§4)."""
    total = sum(len(c) for c in cells)
    ss = sum((variance(c) * (len(c) - 1) if len(c) > 1 else F(0) for c in cells), F(0))
    return ss / (total - len(cells))


def pooled_covariance(cells: Sequence[Sequence[tuple[Fraction, Fraction]]]) -> Fraction:
    """Σ_j Σ_i (x_ij - x̄_j)(y_ij - ȳ_j) / (n - J) (§5)."""
    total = sum(len(c) for c in cells)
    cp = sum((covariance(c) * (len(c) - 1) if len(c) > 1 else F(0) for c in cells), F(0))
    return cp / (total - len(cells))


# ---------------------------------------------------------------------------
# Concrete neighbouring pairs and literal evaluation of printed formulas
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Concrete:
    """A concrete pair (x, x') with the value of every printed symbol on it and
    the directly computed difference of the statistic (``truth``)."""

    description: dict[str, Any]
    values: dict[sp.Expr, Fraction]
    truth: Fraction

    def describe(self) -> dict[str, Any]:
        return dict(self.description)


def _fmt(v: Any) -> Any:
    if isinstance(v, tuple):
        return "(" + ", ".join(str(_fmt(a)) for a in v) + ")"
    if isinstance(v, list):
        return "(" + ", ".join(str(_fmt(a)) for a in v) + ")"
    return str(v)


def _unroll(expr: sp.Expr, sizes: Mapping[sp.Expr, Any]) -> sp.Expr:
    """Expand every Sum with concrete limits into its terms (outer limit first)."""

    def expand(s: sp.Sum) -> sp.Expr:
        f, limits = s.function, list(s.limits)
        var, lo, hi = limits[-1]
        lo_v = int(sp.sympify(lo).xreplace(dict(sizes)))
        hi_v = int(sp.sympify(hi).xreplace(dict(sizes)))
        inner = limits[:-1]
        terms = []
        for v in range(lo_v, hi_v + 1):
            body = f.subs(var, v)
            if inner:
                lims = [(iv, il.subs(var, v), ih.subs(var, v)) for iv, il, ih in inner]
                terms.append(_unroll(sp.Sum(body, *lims), sizes))
            else:
                terms.append(_unroll(body, sizes))
        return sp.Add(*terms)

    return expr.replace(lambda e: isinstance(e, sp.Sum), expand)


def evaluate_on(expr: sp.Expr, pair: Concrete) -> Fraction:
    """The printed ``expr`` evaluated literally on a concrete pair, exactly."""
    sizes = {k: v for k, v in pair.values.items() if k in (n, J) or _is_size(k)}
    e = _unroll(expr, sizes)
    e = e.xreplace({k: sp.Rational(v.numerator, v.denominator) for k, v in pair.values.items()})
    if not e.is_Rational:
        raise NotExpressible(f"not a number on the data set: {e}")
    return F(int(e.p), int(e.q))


def _is_size(k: sp.Expr) -> bool:
    return isinstance(k, sp.Indexed) and k.base == nc


def _values_univariate(xs: Sequence[Fraction], xps: Sequence[Fraction] | None) -> dict:
    vals: dict[sp.Expr, Fraction] = {n: F(len(xs))}
    for k, v in enumerate(xs, 1):
        vals[x[k]] = v
    vals[XBAR] = mean(xs)
    vals[XBARM] = mean(xs[1:])
    vals[S2] = variance(xs)
    if xps is not None and len(xps) == len(xs):  # Def 1
        for k, v in enumerate(xps, 1):
            vals[xp[k]] = v
        vals[XBARP] = mean(xps)
        vals[S2P] = variance(xps)
    else:  # Def 2: x' = records 2..n
        vals[S2P] = variance(xs[1:])
    return vals


def univariate_pair(xs: Sequence[Any], x1p: Any | None = None) -> Concrete:
    """§2: Def 1 when x1p (the replacement of x_1) is given, else Def 2."""
    xs = [F(v) for v in xs]
    if x1p is not None:
        xps = [F(x1p)] + xs[1:]
        desc = {"definition": "Def 1", "n": len(xs), "x": _fmt(xs), "x'": _fmt(xps)}
        return Concrete(desc, _values_univariate(xs, xps), variance(xs) - variance(xps))
    desc = {"definition": "Def 2", "n": len(xs), "x": _fmt(xs), "x'": _fmt(xs[1:])}
    return Concrete(desc, _values_univariate(xs, None), variance(xs) - variance(xs[1:]))


def bivariate_pair(
    records: Sequence[tuple[Any, Any]], first_p: tuple[Any, Any] | None = None
) -> Concrete:
    """§3: records (x_i1, x_i2); Def 1 when first_p replaces record 1, else Def 2."""
    recs = [(F(a), F(b)) for a, b in records]
    size = len(recs)
    vals: dict[sp.Expr, Fraction] = {n: F(size)}
    for k, (a, b) in enumerate(recs, 1):
        vals[x[k, 1]], vals[x[k, 2]] = a, b
    for v in (1, 2):
        vals[xbar[v]] = mean([r[v - 1] for r in recs])
        vals[xbarm[v]] = mean([r[v - 1] for r in recs[1:]])
    vals[S12] = covariance(recs)
    vals[k1] = sum((r[0] for r in recs[1:]), F(0))
    vals[k2] = sum((r[1] for r in recs[1:]), F(0))
    vals[k3] = sum((r[0] * r[1] for r in recs[1:]), F(0))
    if first_p is not None:
        recs_p = [(F(first_p[0]), F(first_p[1]))] + recs[1:]
        for k, (a, b) in enumerate(recs_p, 1):
            vals[xp[k, 1]], vals[xp[k, 2]] = a, b
        for v in (1, 2):
            vals[xbarp[v]] = mean([r[v - 1] for r in recs_p])
        vals[S12P] = covariance(recs_p)
        desc = {"definition": "Def 1", "n": size, "x": _fmt(recs), "x'": _fmt(recs_p)}
    else:
        recs_p = recs[1:]
        vals[S12P] = covariance(recs_p)
        desc = {"definition": "Def 2", "n": size, "x": _fmt(recs), "x'": _fmt(recs_p)}
    return Concrete(desc, vals, vals[S12] - vals[S12P])


def pooled_pair(cells: Sequence[Sequence[Any]], x11p: Any | None = None) -> Concrete:
    """§4: cells of values (cell 1 first); Def 1 when x11p replaces x_11, else Def 2
    (record 1 of cell 1 removed)."""
    cs = [[F(v) for v in c] for c in cells]
    vals: dict[sp.Expr, Fraction] = {n: F(sum(len(c) for c in cs)), J: F(len(cs))}
    for jj, c in enumerate(cs, 1):
        vals[nc[jj]] = F(len(c))
        vals[xbar[jj]] = mean(c)
        for ii, v in enumerate(c, 1):
            vals[x[ii, jj]] = v
    vals[xbarm[1]] = mean(cs[0][1:])
    vals[SP2] = pooled_variance(cs)
    if x11p is not None:
        cs_p = [[F(x11p)] + cs[0][1:]] + cs[1:]
        for jj, c in enumerate(cs_p, 1):
            vals[xbarp[jj]] = mean(c)
            for ii, v in enumerate(c, 1):
                vals[xp[ii, jj]] = v
        vals[SP2P] = pooled_variance(cs_p)
        desc = {"definition": "Def 1", "cells of x": _fmt(cs), "cells of x'": _fmt(cs_p)}
        return Concrete(desc, vals, vals[SP2] - vals[SP2P])
    cs_p = [cs[0][1:]] + cs[1:]
    vals[SP2M] = pooled_variance(cs_p)
    desc = {"definition": "Def 2", "cells of x": _fmt(cs), "cells of x'": _fmt(cs_p)}
    return Concrete(desc, vals, vals[SP2] - vals[SP2M])


def pooled_bivariate_pair(
    cells: Sequence[Sequence[tuple[Any, Any]]], first_p: tuple[Any, Any] | None = None
) -> Concrete:
    """§5: cells of (x, y) records (cell 1 first); Def 1 with first_p, else Def 2."""
    cs = [[(F(a), F(b)) for a, b in c] for c in cells]
    vals: dict[sp.Expr, Fraction] = {n: F(sum(len(c) for c in cs)), J: F(len(cs))}
    for jj, c in enumerate(cs, 1):
        vals[nc[jj]] = F(len(c))
        vals[xbar[jj]] = mean([r[0] for r in c])
        vals[ybar[jj]] = mean([r[1] for r in c])
        for ii, (a, b) in enumerate(c, 1):
            vals[x[ii, jj]], vals[y[ii, jj]] = a, b
    vals[xbarm[1]] = mean([r[0] for r in cs[0][1:]])
    vals[ybarm[1]] = mean([r[1] for r in cs[0][1:]])
    vals[k1] = sum((r[0] for r in cs[0][1:]), F(0))
    vals[k2] = sum((r[1] for r in cs[0][1:]), F(0))
    vals[k3] = sum((r[0] * r[1] for r in cs[0][1:]), F(0))
    vals[COVP] = pooled_covariance(cs)
    if first_p is not None:
        cs_p = [[(F(first_p[0]), F(first_p[1]))] + cs[0][1:]] + cs[1:]
        for jj, c in enumerate(cs_p, 1):
            vals[xbarp[jj]] = mean([r[0] for r in c])
            vals[ybarp[jj]] = mean([r[1] for r in c])
            for ii, (a, b) in enumerate(c, 1):
                vals[xp[ii, jj]], vals[yp[ii, jj]] = a, b
        vals[COVPP] = pooled_covariance(cs_p)
        desc = {"definition": "Def 1", "cells of x": _fmt(cs), "cells of x'": _fmt(cs_p)}
        return Concrete(desc, vals, vals[COVP] - vals[COVPP])
    cs_p = [cs[0][1:]] + cs[1:]
    vals[COVPM] = pooled_covariance(cs_p)
    desc = {"definition": "Def 2", "cells of x": _fmt(cs), "cells of x'": _fmt(cs_p)}
    return Concrete(desc, vals, vals[COVP] - vals[COVPM])


def summary_values(sc: Scenario, pair: Concrete) -> dict[sp.Expr, Fraction]:
    """The values of the scenario's summary symbols on a concrete pair."""
    v = pair.values
    out: dict[sp.Expr, Fraction] = {}
    for a in sc.atoms:
        if a in v:
            out[a] = v[a]
    size = int(v[sc.group])
    if sc.rest == (x[i],):
        rest = [v[x[k]] for k in range(2, size + 1)]
        out[S], out[Q] = sum(rest, F(0)), sum((r * r for r in rest), F(0))
    elif sc.rest == (x[i, 1], x[i, 2]):
        rest2 = [(v[x[k, 1]], v[x[k, 2]]) for k in range(2, size + 1)]
        out.update(_bi_sums(rest2))
    elif sc.rest == (x[i, 1],):
        rest = [v[x[k, 1]] for k in range(2, size + 1)]
        out[S1], out[Q1] = sum(rest, F(0)), sum((r * r for r in rest), F(0))
        out[W] = _other_cells(v, lambda kk, jj: (v[x[kk, jj]] - v[xbar[jj]]) ** 2)
    elif sc.rest == (x[i, 1], y[i, 1]):
        rest2 = [(v[x[k, 1]], v[y[k, 1]]) for k in range(2, size + 1)]
        out.update(_bi_sums(rest2))
        out[WXY] = _other_cells(
            v, lambda kk, jj: (v[x[kk, jj]] - v[xbar[jj]]) * (v[y[kk, jj]] - v[ybar[jj]])
        )
    return out


def _bi_sums(rest2: Sequence[tuple[Fraction, Fraction]]) -> dict[sp.Expr, Fraction]:
    return {
        S1: sum((a for a, _ in rest2), F(0)),
        S2_: sum((b for _, b in rest2), F(0)),
        Q1: sum((a * a for a, _ in rest2), F(0)),
        Q2: sum((b * b for _, b in rest2), F(0)),
        P: sum((a * b for a, b in rest2), F(0)),
    }


def _other_cells(v: Mapping[sp.Expr, Fraction], term: Callable[[int, int], Fraction]) -> Fraction:
    total = F(0)
    for jj in range(2, int(v[J]) + 1):
        for kk in range(1, int(v[nc[jj]]) + 1):
            total += term(kk, jj)
    return total


def at_summary(expr: sp.Expr, values: Mapping[sp.Expr, Fraction]) -> Fraction:
    """A summary-statistic expression at exact values."""
    e = sp.sympify(expr).xreplace(
        {k: sp.Rational(v.numerator, v.denominator) for k, v in values.items()}
    )
    if not e.is_Rational:
        raise ValueError(f"not a number: {e}")
    return F(int(e.p), int(e.q))


# ---------------------------------------------------------------------------
# Candidate witnesses: small data sets, smallest first (deterministic)
# ---------------------------------------------------------------------------


def _ints(rng: random.Random, k: int) -> list[int]:
    return [rng.randint(-3, 3) for _ in range(k)]


def candidates(kind: str, count: int = 8) -> Iterator[Concrete]:
    """Small neighbouring pairs of integers, smallest n first, for witness search.

    kind: 'variance1', 'variance2', 'covariance1', 'covariance2', 'pooled1',
    'pooled2', 'pooledcov1', 'pooledcov2'.
    """
    rng = random.Random(20190808)
    if kind.startswith("variance"):
        for size in range(3, 8):
            for _ in range(count):
                xs = _ints(rng, size)
                yield univariate_pair(xs, rng.randint(-3, 3) if kind.endswith("1") else None)
    elif kind.startswith("covariance"):
        for size in range(3, 8):
            for _ in range(count):
                recs = list(zip(_ints(rng, size), _ints(rng, size), strict=True))
                first = (rng.randint(-3, 3), rng.randint(-3, 3)) if kind.endswith("1") else None
                yield bivariate_pair(recs, first)
    elif kind.startswith("pooledcov"):
        for sizes in ((3, 2), (3, 3), (4, 2, 3), (4, 3, 2, 2)):
            for _ in range(count):
                cells = [list(zip(_ints(rng, m), _ints(rng, m), strict=True)) for m in sizes]
                first = (rng.randint(-3, 3), rng.randint(-3, 3)) if kind.endswith("1") else None
                yield pooled_bivariate_pair(cells, first)
    elif kind.startswith("pooled"):
        for sizes in ((3, 2), (3, 3), (4, 2, 3), (4, 3, 2, 2)):
            for _ in range(count):
                cells = [_ints(rng, m) for m in sizes]
                yield pooled_pair(cells, rng.randint(-3, 3) if kind.endswith("1") else None)
    else:
        raise ValueError(f"unknown kind {kind!r}")


def unit_pair(a: int, b: int, size: int, kk1: int, kk2: int, kk3: int) -> Concrete:
    """§3 Def 2 on [0, 1]: record 1 = (a, b) and n - 1 records in {0,1}² with counts
    k1, k2, k3 (k3 records (1,1), k1 - k3 records (1,0), k2 - k3 records (0,1))."""
    m = size - 1
    recs = [(1, 1)] * kk3 + [(1, 0)] * (kk1 - kk3) + [(0, 1)] * (kk2 - kk3)
    recs += [(0, 0)] * (m - len(recs))
    return bivariate_pair([(a, b)] + recs)


def unit_pooled_pair(
    a: int, b: int, n1: int, kk1: int, kk2: int, kk3: int, other: Sequence[int] = (2,)
) -> Concrete:
    """§5 Def 2 on [0, 1]: cell 1 = (a, b) then n1 - 1 records with counts k1, k2, k3; the
    other cells (sizes ``other``) hold (0, 0) records, so their cross products vanish."""
    m = n1 - 1
    recs = [(1, 1)] * kk3 + [(1, 0)] * (kk1 - kk3) + [(0, 1)] * (kk2 - kk3)
    recs += [(0, 0)] * (m - len(recs))
    cells = [[(a, b)] + recs] + [[(0, 0)] * s for s in other]
    return pooled_bivariate_pair(cells)


def unit_corners() -> Iterator[tuple[int, int]]:
    yield from product((0, 1), repeat=2)
