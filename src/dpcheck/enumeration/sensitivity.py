r"""Exact l1 global sensitivity for small n (Liu's supplement, paper 001, §1-§5).

GS = sup |f(x) - f(x')| over neighbouring data sets whose variables lie in
[c0, c1] (bivariate: [c10, c11] x [c20, c21]).  Neighbours: "substitute"
(Def 1: same n, one record differs) or "remove" (Def 2: x has n records, x'
is x without one; the pooled statistics remove it from one group).  Work is
on data normalised to [0, 1]: under u -> c0 + R u the mean and sd scale by R,
variances by R^2, covariances by R1 R2 and categorical statistics not at all,
so ``value`` is for unit bounds and :meth:`SensitivityResult.scaled` gives
the value for any bounds.  All arithmetic is exact (fractions.Fraction).

Why the enumeration is complete (each step is also checked by the code on the
polynomial of the actual instance; see ``checks`` in the result):

1. *D is a symmetric quadratic.*  With the group sizes fixed, each statistic
   is a constant combination of per-group sums S_j, sums of squares Q_j (or
   cross-product sums P_j) and S_j^2 (or Sx_j Sy_j): mean S/n, variance
   (Q - S^2/n)/(n-1), pooled variance sum_j (Q_j - S_j^2/n_j)/(n-J), and the
   same with P, Sx Sy for (pooled) covariance.  Each is a polynomial of degree
   <= 2 in the coordinates, so D = f(x) - f(x') is one in the free
   coordinates (changed records and shared records), and it depends on the
   shared records of group j only through S_j, Q_j (P_j): it is symmetric
   under permuting them.  GS = max(sup D, sup -D) since |D| = max(D, -D).
   Checked: :class:`~dpcheck.enumeration.quadratic.Quad` refuses degree > 2,
   and every adjacent transposition of shared records leaves D unchanged.

2. *Exact maximisation of a quadratic over a box* by KKT enumeration: see
   :mod:`dpcheck.enumeration.quadratic` (every face, exact linear algebra;
   complete because a non-unique stationary set is a level set of P that
   reaches a lower-dimensional face).

3. *Symmetry reduction.*  Univariate: D = alpha_j Q_j + phi(S_j, other
   variables) in the shared records of group j, where alpha_j (read off as
   coef(x_i^2) - coef(x_i x_k)/2 and reported) is a constant.  At a maximiser
   of +-D each shared coordinate strictly inside (0, 1) has dD/dx_i =
   2 alpha_j x_i + dphi/dS_j = 0 with dphi/dS_j common to all: if alpha_j != 0
   they are all equal; if alpha_j = 0, D sees them only through S_j, and
   moving mass between two of them at fixed sum until one hits a bound keeps
   D, so some maximiser has at most one interior.  So a maximiser exists with
   k0 shared records at 0, k1 at 1 and r = m - k0 - k1 at a common t:
   enumerate (k0, k1) (O(m^2)) and run the KKT enumeration over x1 (and x1')
   in {lower, upper, free} and t free (t at a bound is another (k0, k1)).
   Bivariate (covariance-like): no coordinate appears squared (P = sum x_i
   y_i and Sx Sy only; checked on the polynomial), so D is multilinear,
   affine in each coordinate with the others fixed, and pushing coordinates
   one at a time to their better bound never lowers it: max and min are at
   vertices.  By symmetry only the counts of shared records at the 4 corners
   matter (C(m+3, 3) configurations) times the corners of the changed
   record(s).  Pooled: D = D_g + sum_{j != g} (1/df - 1/df2) SS_j (SP_j),
   each term a function of its own group's records (checked: no monomial
   mixes groups), so sup D is the sum of the separate sups (likewise inf);
   the changed or removed record is tried in every group it may be in.

4. *Other statistics.*  'proportion': a mean of 0/1 data, enumerated over
   x1, x1' in {0, 1} and the number of ones among the shared records.
   'histogram' (counts over K categories) and 'proportions' (counts/n), l1
   norm: relabelling categories preserves the norm, so the changed record
   goes from category 0 to 0 or 1 (substitute) or leaves category 0 (remove);
   each other category c contributes h_c |1/n - 1/n'| (h_c >= 0 shared
   records in both), which depends only on their total, so the shared counts
   are enumerated as (h_0[, h_1], total of the rest): O(n^2) cases.
   'sd': |s - s'|^2 <= |s - s'| (s + s') = |s^2 - s'^2| <= GS_var, so
   GS_sd <= sqrt(GS_var), with equality at a pair attaining GS_var with s = 0
   or s' = 0 (then |s - s'| = s + s').  The engine runs the exact variance
   enumeration; when such a pair is among its candidates, GS_sd =
   sqrt(GS_var) exactly and ``value`` is that SymPy algebraic number.  If
   not, ``value`` is the best |s - s'| among the candidates (a rigorous lower
   bound, attained by the witness), ``upper`` = sqrt(GS_var), ``exact`` =
   False, and ``method`` says so.
"""

from __future__ import annotations

import itertools
import operator
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any

from dpcheck.enumeration import engine
from dpcheck.enumeration.quadratic import Quad
from dpcheck.errors import InputError
from dpcheck.inputs.limits import ceiling
from dpcheck.numeric.params import parse_number, short, shown
from dpcheck.papers.liu2019s_sensitivity import PRINTED, Printed, compare

__all__ = [
    "MAX_N",
    "NEIGHBOURS",
    "PRINTED",
    "STATISTICS",
    "SensitivityResult",
    "describe",
    "evaluate_statistic",
    "exact_sensitivity",
    "format_text",
    "parse_bounds",
    "parse_groups",
]

STATISTICS: tuple[str, ...] = (
    "mean",
    "proportion",
    "histogram",
    "proportions",
    "variance",
    "sd",
    "covariance",
    "pooled_variance",
    "pooled_covariance",
)
NEIGHBOURS: tuple[str, ...] = ("substitute", "remove")
UNIVARIATE = ("mean", "variance", "sd", "pooled_variance")
BIVARIATE = ("covariance", "pooled_covariance")
CATEGORICAL = ("proportion", "histogram", "proportions")
POOLED = ("pooled_variance", "pooled_covariance")
#: the largest n the exact engine enumerates (bivariate cost grows like n^3)
MAX_N = ceiling("sensitivity", "--n").maximum

_SCALE_POWER = {"mean": 1, "sd": 1, "variance": 2, "pooled_variance": 2}


# ============================================================================ input
def parse_groups(text: str | Sequence[int] | None) -> tuple[int, ...] | None:
    """``"2,3,4"`` (or a sequence of ints) -> (2, 3, 4); None stays None.

    Each size is read by the one number parser (ASCII only); the count of groups
    and each size are bounded by the ceilings of ``sensitivity --groups`` and ``--n``.
    """
    if text is None:
        return None
    items = text.split(",") if isinstance(text, str) else list(text)
    most = ceiling("sensitivity", "--groups")
    if len(items) > most.maximum:
        raise InputError(f"--groups has {len(items)} groups, above {most.describe()}")
    out: list[int] = []
    for i, item in enumerate(items):
        if isinstance(item, bool):
            raise InputError(f"groups={shown(text)}: {item!r} is not a whole number")
        number = Fraction(item) if isinstance(item, int) else parse_number(f"group {i + 1}", item)
        if number.denominator != 1:
            raise InputError(
                f"groups={shown(text)}: {shown(item)} is not a whole number (expected e.g. 2,3,4)"
            )
        if number > MAX_N:
            raise InputError(
                f"group size {short(number)} is above {ceiling('sensitivity', '--n').describe()}"
            )
        out.append(int(number))
    if not out:
        raise InputError(f"groups={shown(text)} is empty (expected group sizes, e.g. 2,3,4)")
    return tuple(out)


def parse_bounds(stat: str, bounds: str | Sequence[Any] | None) -> tuple[Fraction, ...] | None:
    """User bounds -> (c0, c1) or (c10, c11, c20, c21) as exact Fractions; None = unit.

    Univariate statistics take ``c0,c1``; covariances ``c10,c11,c20,c21`` (or
    ``c0,c1`` for both variables); categorical statistics take none.
    """
    if stat not in STATISTICS:
        raise InputError(f"unknown statistic {stat!r} (expected one of: {', '.join(STATISTICS)})")
    if bounds is None:
        return None
    items = bounds.split(",") if isinstance(bounds, str) else list(bounds)
    if stat in CATEGORICAL:
        raise InputError(f"bounds={bounds!r} do not apply to {stat} (its data are categories)")
    wanted = (2, 4) if stat in BIVARIATE else (2,)
    if len(items) not in wanted:
        expected = "c10,c11,c20,c21 (or c0,c1 for both)" if stat in BIVARIATE else "c0,c1"
        raise InputError(f"bounds={bounds!r}: expected {expected} for {stat}")
    values = [parse_number(f"bound {i + 1}", item) for i, item in enumerate(items)]
    for lo, hi in zip(values[::2], values[1::2], strict=True):
        if not lo < hi:
            raise InputError(f"bounds={bounds!r}: lower {lo} must be smaller than upper {hi}")
    if stat in BIVARIATE and len(values) == 2:
        values = values * 2
    return tuple(values)


@dataclass(frozen=True)
class _Spec:
    stat: str
    neighbours: str
    n: int
    groups: tuple[int, ...]  # (n,) for single-group statistics
    pooled: bool
    eligible: tuple[int, ...]  # indices of the groups the changed record may be in
    categories: int | None
    df: int
    df2: int

    @property
    def substitute(self) -> bool:
        return self.neighbours == "substitute"


def _validate(
    stat: str,
    neighbours: str,
    n: int,
    groups: tuple[int, ...] | Sequence[int] | str | None,
    categories: int | None,
    allow_singleton: bool,
) -> _Spec:
    if stat not in STATISTICS:
        raise InputError(f"unknown statistic {stat!r} (expected one of: {', '.join(STATISTICS)})")
    if neighbours not in NEIGHBOURS:
        raise InputError(f"unknown neighbours {neighbours!r} (expected 'substitute' or 'remove')")
    if isinstance(n, bool) or not hasattr(n, "__index__"):
        raise InputError(f"n={n!r} is not a whole number (expected n >= 2)")
    n = operator.index(n)
    remove = neighbours == "remove"
    need = 3 if remove and stat in ("variance", "sd", "covariance") else 2
    if n < need:
        why = " with remove neighbours (x' must keep >= 2 records)" if need == 3 else ""
        raise InputError(f"n={n} is too small for {stat}{why}: expected n >= {need}")
    if n > MAX_N:
        raise InputError(f"n={n} is above {MAX_N}, the largest n the exact engine enumerates")
    k: int | None = None
    if stat in ("histogram", "proportions"):
        if isinstance(categories, bool) or not isinstance(categories, int) or categories < 2:
            raise InputError(f"categories={categories!r}: expected a whole number K >= 2")
        k = categories
    sizes = parse_groups(groups) if not isinstance(groups, tuple) else groups
    if stat in POOLED:
        if sizes is None:
            raise InputError(f"{stat} needs groups (their sizes n_1,...,n_J, e.g. 3,4,5)")
        for size in sizes:
            if isinstance(size, bool) or not isinstance(size, int) or size < 2:
                raise InputError(
                    f"group size {size!r} in groups={sizes}: expected a whole number >= 2"
                    " (each group needs >= 2 records)"
                )
        if sum(sizes) != n:
            raise InputError(f"groups={sizes} sum to {sum(sizes)}, expected n={n}")
        j = len(sizes)
        if remove:
            floor = 2 if allow_singleton else 3
            eligible = tuple(i for i, s in enumerate(sizes) if s >= floor)
            if not eligible:
                raise InputError(
                    f"groups={sizes}: removing a record from any group leaves it with < 2"
                    " records (expected a group of size >= 3, or --allow-singleton)"
                )
            if n - 1 - j < 1:
                raise InputError(
                    f"groups={sizes}: x' would have n - 1 - J = {n - 1 - j} degrees of freedom"
                    " (expected >= 1)"
                )
        else:
            eligible = tuple(range(j))
        return _Spec(stat, neighbours, n, sizes, True, eligible, k, n - j, n - j - int(remove))
    if sizes is not None:
        raise InputError(f"groups={sizes} apply only to pooled statistics, not {stat!r}")
    return _Spec(stat, neighbours, n, (n,), False, (0,), k, n - 1, n - 1 - int(remove))


# ============================================================================ result
@dataclass(frozen=True)
class SensitivityResult:
    """The exact sensitivity and how it was found.

    ``value``: GS for unit bounds, a Fraction (for 'sd' a SymPy algebraic
    number such as ``sqrt(5)/5``; if ``exact`` is False it is a rigorous lower
    bound and ``upper`` a rigorous upper bound).  ``witness`` = (x, x'), a
    pair of normalised data sets attaining it: tuples of Fractions
    (univariate), of (Fraction, Fraction) records (covariances), of category
    indices 0..K-1 (histogram, proportions), and for pooled statistics a tuple
    of groups in the order given.  The changed record comes first (in its
    group); for 'remove', x' is x without it.  ``difference`` = f(x) - f(x')
    (= +-value).  ``cases``: configurations x faces examined; ``naive_vertices``:
    what enumerating every vertex of all coordinates (and every group the
    record may be in) would examine.  ``changed_groups``: indices of the groups
    the changed or removed record was tried in (pooled statistics).
    """

    stat: str
    neighbours: str
    n: int
    groups: tuple[int, ...] | None
    value: Any
    witness: tuple[Any, Any]
    cases: int
    naive_vertices: int
    method: str
    seconds: float
    categories: int | None = None
    difference: Any = None
    exact: bool = True
    upper: Any = None
    checks: dict[str, Any] = field(default_factory=dict)
    changed_groups: tuple[int, ...] | None = None

    def scale(self, bounds: str | Sequence[Any] | None = None) -> Fraction:
        """The factor from unit to user bounds: R, R^2, R1*R2 or 1."""
        b = parse_bounds(self.stat, bounds)
        if b is None or self.stat in CATEGORICAL:
            return Fraction(1)
        if self.stat in BIVARIATE:
            return (b[1] - b[0]) * (b[3] - b[2])
        return (b[1] - b[0]) ** _SCALE_POWER[self.stat]

    def scaled(self, bounds: str | Sequence[Any] | None = None) -> Any:
        """GS for user bounds (c0, c1) or (c10, c11, c20, c21)."""
        return self.value * self.scale(bounds)

    def scaled_upper(self, bounds: str | Sequence[Any] | None = None) -> Any:
        return self.upper * self.scale(bounds)

    def scaled_witness(self, bounds: str | Sequence[Any] | None = None) -> tuple[Any, Any]:
        """The witness pair mapped from [0, 1] to the user bounds."""
        b = parse_bounds(self.stat, bounds)
        if b is None or self.stat in CATEGORICAL:
            return self.witness

        def rec(r: Any) -> Any:
            if self.stat in BIVARIATE:
                return (b[0] + (b[1] - b[0]) * r[0], b[2] + (b[3] - b[2]) * r[1])
            return b[0] + (b[1] - b[0]) * r

        def data(d: tuple[Any, ...]) -> tuple[Any, ...]:
            if self.stat in POOLED:
                return tuple(tuple(rec(r) for r in grp) for grp in d)
            return tuple(rec(r) for r in d)

        return data(self.witness[0]), data(self.witness[1])


# ============================================================================ statistics
def evaluate_statistic(stat: str, data: Sequence[Any], categories: int = 2) -> Any:
    """f(data) exactly: the statistic of §1-§5 of one data set (format as in the witness)."""
    if stat in ("mean", "proportion"):
        return sum(data, Fraction(0)) / len(data)
    if stat in ("variance", "sd"):
        m = len(data)
        s = sum(data, Fraction(0))
        var = (sum((v * v for v in data), Fraction(0)) - s * s / m) / (m - 1)
        if stat == "variance":
            return var
        import sympy

        return sympy.sqrt(sympy.Rational(var.numerator, var.denominator))
    if stat == "covariance":
        return _sp(data) / (len(data) - 1)
    if stat == "pooled_variance":
        df = sum(len(g) - 1 for g in data)
        return sum((_sp([(v, v) for v in g]) for g in data), Fraction(0)) / df
    if stat == "pooled_covariance":
        df = sum(len(g) - 1 for g in data)
        return sum((_sp(g) for g in data), Fraction(0)) / df
    if stat in ("histogram", "proportions"):
        tally = Counter(data)  # O(n + K), not O(n K): K may be 10 000
        counts = [tally.get(c, 0) for c in range(categories)]
        if stat == "histogram":
            return tuple(Fraction(c) for c in counts)
        return tuple(Fraction(c, len(data)) for c in counts)
    raise InputError(f"unknown statistic {stat!r} (expected one of: {', '.join(STATISTICS)})")


def _sp(records: Sequence[tuple[Fraction, Fraction]]) -> Fraction:
    m = len(records)
    sx = sum((r[0] for r in records), Fraction(0))
    sy = sum((r[1] for r in records), Fraction(0))
    return sum((r[0] * r[1] for r in records), Fraction(0)) - sx * sy / m


def _difference(stat: str, x: Any, y: Any, categories: int | None) -> Any:
    fx = evaluate_statistic(stat, x, categories or 2)
    fy = evaluate_statistic(stat, y, categories or 2)
    if isinstance(fx, tuple):
        return sum((abs(a - b) for a, b in zip(fx, fy, strict=True)), Fraction(0))
    return fx - fy


# ============================================================================ engine
def exact_sensitivity(
    stat: str,
    neighbours: str,
    n: int,
    groups: tuple[int, ...] | None = None,
    categories: int = 2,
    *,
    allow_singleton: bool = False,
) -> SensitivityResult:
    """Exact l1 global sensitivity of ``stat`` for unit bounds (supplement §1-§5).

    ``groups``: the group sizes n_1..n_J of the pooled statistics (sum n, each
    >= 2).  Under 'remove' the record may leave any group that keeps >= 2
    records (``allow_singleton=True`` also lets a 2-record group drop to 1
    record, contributing nothing to the pooled sums and degrees of freedom:
    the supplement's n = 2J case).  ``categories``: K for 'histogram' and
    'proportions'.  Bad input raises :class:`~dpcheck.errors.InputError`.
    """
    start = time.perf_counter()
    spec = _validate(stat, neighbours, n, groups, categories, allow_singleton)
    if stat in ("histogram", "proportions"):
        result = _categorical(spec)
    elif stat == "proportion":
        result = _proportion(spec)
    elif stat == "sd":
        result = _sd(spec)
    else:
        result, _ = _continuous(spec)
    diff = _difference(stat, *result.witness, spec.categories)
    if stat == "sd":
        import sympy

        mismatch = sympy.expand(sympy.Abs(diff) - result.value) != 0
    else:
        mismatch = abs(diff) != result.value
    if mismatch:  # the witness is recomputed from the data sets, independently of the engine
        raise RuntimeError(f"internal: witness gives {diff}, engine {result.value}")
    return replace(result, difference=diff, seconds=time.perf_counter() - start)


def _result(
    spec: _Spec, value: Any, witness: Any, cases: int, naive: int, method: str, **extra: Any
) -> SensitivityResult:
    return SensitivityResult(
        stat=spec.stat,
        neighbours=spec.neighbours,
        n=spec.n,
        groups=spec.groups if spec.pooled else None,
        value=value,
        witness=witness,
        cases=cases,
        naive_vertices=naive,
        method=method,
        seconds=0.0,
        categories=spec.categories,
        upper=extra.pop("upper", value),
        changed_groups=spec.eligible if spec.pooled else None,
        **extra,
    )


def _naive(spec: _Spec, width: int, base: int = 2) -> int:
    coords = width * (spec.n + (1 if spec.substitute else 0))
    return len(spec.eligible) * base**coords


def _continuous(
    spec: _Spec, keep_all: bool = False
) -> tuple[SensitivityResult, dict[int, engine.Extremes]]:
    """mean, variance, covariance and the pooled statistics (facts 1-3).

    Also returns the changed-group enumeration of each group tried (used by 'sd').
    """
    bivariate = spec.stat in BIVARIATE
    kind = "mean" if spec.stat == "mean" else "ss"
    # the unchanged groups' weight (pooled only; a single group has no other groups)
    coef = Fraction(1, spec.df) - Fraction(1, spec.df2) if spec.pooled else Fraction(0)
    checks = _structure_checks(spec)
    others: dict[int, engine.Extremes] = {}
    cases = 0
    best: tuple[Fraction, int, Any, dict[int, Any]] | None = None
    changed_by_group: dict[int, engine.Extremes] = {}
    for g in spec.eligible:
        ng = spec.groups[g]
        if bivariate:
            ch = engine.biv_changed(ng, spec.df, spec.df2, spec.substitute)
        else:
            ch = engine.uni_changed(kind, ng, spec.df, spec.df2, spec.substitute, keep_all)
        changed_by_group[g] = ch
        cases += ch.cases
        assert ch.hi is not None and ch.lo is not None
        hi, lo = ch.hi, ch.lo
        hi_at: dict[int, Any] = {}
        lo_at: dict[int, Any] = {}
        for j, nj in enumerate(spec.groups):
            if j == g:
                continue
            if nj not in others:
                others[nj] = engine.biv_other(nj, coef) if bivariate else engine.uni_other(nj, coef)
                cases += others[nj].cases
            o = others[nj]
            assert o.hi is not None and o.lo is not None
            hi, lo = hi + o.hi, lo + o.lo
            hi_at[j], lo_at[j] = o.hi_at, o.lo_at
        for value, at, rest in ((hi, ch.hi_at, hi_at), (-lo, ch.lo_at, lo_at)):
            if best is None or value > best[0]:
                best = (value, g, at, rest)
    assert best is not None
    value, g, at, rest = best
    witness = _assemble(spec, g, at, rest)
    method = _method_text(spec, checks)
    result = _result(
        spec, value, witness, cases, _naive(spec, 2 if bivariate else 1), method, checks=checks
    )
    return result, changed_by_group


def _assemble(spec: _Spec, g: int, at: Any, rest: dict[int, Any]) -> tuple[Any, Any]:
    bivariate = spec.stat in BIVARIATE
    xs: list[tuple[Any, ...]] = []
    ys: list[tuple[Any, ...]] = []
    for j in range(len(spec.groups)):
        if j == g:
            shared = engine.corner_records(at.counts) if bivariate else at.shared
            xs.append((at.x1, *shared))
            ys.append((at.x1p, *shared) if spec.substitute else tuple(shared))
        else:
            recs = engine.corner_records(rest[j]) if bivariate else rest[j]
            xs.append(tuple(recs))
            ys.append(tuple(recs))
    if spec.pooled:
        return tuple(xs), tuple(ys)
    return xs[0], ys[0]


def _full_polynomial(
    spec: _Spec, g: int
) -> tuple[Quad, list[list[tuple[int, ...]]], dict[int, int]]:
    """D on the full (unreduced) coordinates, with the changed record in group g.

    Returns D, the variable indices of each group's shared records, and a map
    variable -> group.
    """
    width = 2 if spec.stat in BIVARIATE else 1
    counter = itertools.count()
    owner: dict[int, int] = {}

    def record(j: int) -> tuple[int, ...]:
        idx = tuple(next(counter) for _ in range(width))
        for i in idx:
            owner[i] = j
        return idx

    changed = record(g)
    changed2 = record(g) if spec.substitute else None
    shared = [[record(j) for _ in range(nj - (j == g))] for j, nj in enumerate(spec.groups)]
    xs = [([changed] if j == g else []) + shared[j] for j in range(len(spec.groups))]
    ys = [([changed2] if j == g and changed2 else []) + shared[j] for j in range(len(spec.groups))]

    def f(groups: list[list[tuple[int, ...]]], df: int) -> Quad:
        total = Quad()
        for recs in groups:
            vs = [tuple(Quad.var(i) for i in r) for r in recs]
            cnt = len(vs)
            if width == 2:
                sx = sum((v[0] for v in vs), Quad())
                sy = sum((v[1] for v in vs), Quad())
                p = sum((v[0] * v[1] for v in vs), Quad())
                total = total + engine.biv_term(cnt, sx, sy, p, df)
            else:
                s = sum((v[0] for v in vs), Quad())
                q = sum((v[0] * v[0] for v in vs), Quad())
                kind = "mean" if spec.stat == "mean" else "ss"
                total = total + engine.uni_term(kind, cnt, s, q, df)
        return total

    return f(xs, spec.df) - f(ys, spec.df2), shared, owner


def _structure_checks(spec: _Spec) -> dict[str, Any]:
    """Facts 1 and 3 checked on the polynomial D of this very instance (every group g)."""
    bivariate = spec.stat in BIVARIATE
    alphas: dict[str, str] = {}
    for g in spec.eligible:
        poly, shared, owner = _full_polynomial(spec, g)
        for j, recs in enumerate(shared):
            for r1, r2 in itertools.pairwise(recs):
                swap = {a: b for a, b in zip(r1, r2, strict=True)}
                swap.update({b: a for a, b in zip(r1, r2, strict=True)})
                if poly.renamed(swap) != poly:
                    raise RuntimeError(f"internal: D not symmetric in group {j} (g={g})")
            if not bivariate and len(recs) >= 2:
                i, k = recs[0][0], recs[1][0]
                alpha = poly.coefficient(i, i) - poly.coefficient(i, k) / 2
                alphas[f"g{g}:j{j}"] = str(alpha)
        if any(len({owner[i] for i in m}) > 1 for m in poly.c):
            raise RuntimeError("internal: D mixes groups")
        if bivariate and any(len(m) == 2 and m[0] == m[1] for m in poly.c):
            raise RuntimeError("internal: covariance D is not multilinear")
    out: dict[str, Any] = {"quadratic": True, "symmetric": True, "separable": True}
    if bivariate:
        out["multilinear"] = True
    else:
        out["alpha"] = alphas
    return out


def _method_text(spec: _Spec, checks: dict[str, Any]) -> str:
    where = (
        f"; changed record tried in groups {[spec.groups[g] for g in spec.eligible]},"
        " other groups' terms optimised separately (D separable, checked)"
        if spec.pooled
        else ""
    )
    if spec.stat in BIVARIATE:
        return (
            "exact vertex enumeration: D multilinear (checked: no squared coordinate) and"
            " symmetric in shared records (checked), so counts of shared records at the 4"
            " corners x corners of the changed record(s)" + where
        )
    alphas = sorted(set(checks.get("alpha", {}).values()))
    return (
        "exact KKT enumeration (rational linear algebra) over configurations k0 shared records"
        " at 0, k1 at 1, the rest at a common t; D quadratic and symmetric in shared records"
        f" (checked; coefficient of sum x_i^2: {', '.join(alphas) or 'n/a'})" + where
    )


def _sd(spec: _Spec, tight: bool = True) -> SensitivityResult:
    """Fact 4 for 'sd': sqrt(GS_var) when a variance maximiser has a constant side.

    ``tight=False`` skips that test and returns the lower-bound form (for tests).
    """
    import mpmath
    import sympy

    var_spec = replace(spec, stat="variance")
    var, changed = _continuous(var_spec, keep_all=True)
    gs_var = var.value
    ch = changed[0]

    def pair(at: Any) -> tuple[Any, Any]:
        return _assemble(var_spec, 0, at, {})

    root = sympy.sqrt(sympy.Rational(gs_var.numerator, gs_var.denominator))
    for value, at in ch.seen if tight else ():
        if abs(value) != gs_var:
            continue
        x, y = pair(at)
        if evaluate_statistic("variance", x) == 0 or evaluate_statistic("variance", y) == 0:
            method = (
                f"exact: |s - s'| <= sqrt(|s^2 - s'^2|) <= sqrt(GS_var) = sqrt({gs_var}), attained"
                " by a variance maximiser with one constant side (s' = 0 or s = 0); GS_var by "
                + var.method
            )
            return _result(
                spec, root, (x, y), var.cases, var.naive_vertices, method, checks=var.checks
            )
    # not tight: the best candidate is a rigorous lower bound
    with mpmath.workdps(60):

        def sd_gap(at: Any) -> Any:
            x, y = pair(at)
            a, b = evaluate_statistic("variance", x), evaluate_statistic("variance", y)
            return abs(
                mpmath.sqrt(mpmath.mpf(a.numerator) / a.denominator)
                - mpmath.sqrt(mpmath.mpf(b.numerator) / b.denominator)
            )

        _, at = max(ch.seen, key=lambda c: sd_gap(c[1]))
    x, y = pair(at)
    lower = abs(evaluate_statistic("sd", x) - evaluate_statistic("sd", y))
    method = (
        "NOT exact: lower bound = best |s - s'| among the variance KKT candidates (attained by"
        f" the witness); upper bound sqrt(GS_var) = sqrt({gs_var}); no variance maximiser has a"
        " constant side"
    )
    return _result(
        spec,
        lower,
        (x, y),
        var.cases,
        var.naive_vertices,
        method,
        exact=False,
        upper=root,
        checks=var.checks,
    )


def categories_enumerated(k: int, substitute: bool) -> int:
    """The number of categories the categorical enumeration needs for K = ``k``.

    The changed record's categories (0, and 1 under substitute) are the distinguished
    ones; every other category c has the same h_c >= 0 shared records in x and x', so
    (statistic 'histogram' or 'proportions', l1 norm) contributes h_c |1/n - 1/n'| with
    n' = n (substitute) or n - 1 (remove), a term that depends on the h_c only through
    their total (:func:`engine.categorical`).  Every configuration the enumeration
    examines therefore puts that total in one category (the first non-distinguished one)
    and leaves the others at 0 in both data sets, where they add |0 - 0| = 0.  So for
    K >= distinguished + 1 the enumeration examines the same configurations (the same
    count), with the same values, as at K = distinguished + 1, padded with empty
    categories: the sensitivity does not depend on K beyond that, and the work drops
    from O(n^2 K) exact fractions to O(n^2) (n = 60, K = 10 000: 558 s -> well under a
    second).  Tested against the enumeration over all K categories."""
    distinguished = 2 if substitute else 1
    return min(k, distinguished + 1)


def _categorical(spec: _Spec) -> SensitivityResult:
    k = spec.categories or 2
    enumerated = categories_enumerated(k, spec.substitute)
    ext = engine.categorical(spec.stat, spec.n, enumerated, spec.substitute)
    assert ext.hi is not None
    a, b, counts = ext.hi_at
    counts = (*counts, *(0,) * (k - enumerated))  # the empty categories (see above)
    shared = tuple(c for c, h in enumerate(counts) for _ in range(h))
    x = (a, *shared)
    y = (b, *shared) if b is not None else shared
    method = (
        "exact enumeration: changed record from category 0 to 0 or 1 (remove: out of 0), up to"
        " relabelling; shared counts (h0[, h1], total of the other categories)"
    )
    naive = k ** (spec.n + (1 if spec.substitute else 0))
    return _result(spec, ext.hi, (x, y), ext.cases, naive, method)


def _proportion(spec: _Spec) -> SensitivityResult:
    ext = engine.proportion(spec.n, spec.substitute)
    assert ext.hi is not None and ext.lo is not None
    value, at = (ext.hi, ext.hi_at) if ext.hi >= -ext.lo else (-ext.lo, ext.lo_at)
    a, b, ones = at
    m = spec.n - 1
    shared = (Fraction(1),) * ones + (Fraction(0),) * (m - ones)
    x = (Fraction(a), *shared)
    y = (Fraction(b), *shared) if b is not None else shared
    method = "exact enumeration of 0/1 data: x1 (and x1') in {0, 1} x number of shared ones"
    return _result(spec, value, (x, y), ext.cases, _naive(spec, 1), method)


# ============================================================================ reporting
def _num(v: Any) -> str:
    text = str(v)
    return text if len(text) <= 40 else f"about {_dec(v) if isinstance(v, Fraction) else text[:40]}"


def _dec(v: Any) -> str:
    if isinstance(v, Fraction):  # mpmath: a float64 would overflow beyond 1e308
        import mpmath

        with mpmath.workdps(20):
            return mpmath.nstr(mpmath.mpf(v.numerator) / v.denominator, 12, strip_zeros=True)
    import sympy

    return str(sympy.N(v, 12))


def _record_text(r: Any) -> str:
    if isinstance(r, tuple):
        return "(" + ", ".join(_num(v) for v in r) + ")"
    return _num(r)


def _data_text(stat: str, d: Any) -> str:
    if stat in POOLED:
        return "; ".join("(" + ", ".join(_record_text(r) for r in grp) + ")" for grp in d)
    return "(" + ", ".join(_record_text(r) for r in d) + ")"


def describe(
    result: SensitivityResult, bounds: str | Sequence[Any] | None = None
) -> dict[str, Any]:
    """Everything the CLI prints, JSON-ready (exact values as strings)."""
    b = parse_bounds(result.stat, bounds)
    scale = result.scale(b)
    x, y = result.scaled_witness(b)
    exact_at = result.value * scale
    groups = result.groups
    eligible = None
    if groups is not None:
        eligible = tuple(sorted({groups[i] for i in result.changed_groups or ()}))
    printed = []
    for p in PRINTED.get((result.stat, result.neighbours), ()):
        printed.append(_printed_row(p, result, groups, eligible, scale))
    ratio = result.cases / result.naive_vertices if result.naive_vertices else None
    return {
        "stat": result.stat,
        "neighbours": result.neighbours,
        "n": result.n,
        "groups": list(groups) if groups is not None else None,
        "categories": result.categories,
        "bounds": [_num(v) for v in b] if b is not None else None,
        "exact": result.exact,
        "value": _num(result.value),
        "value_decimal": _dec(result.value),
        "value_at_bounds": _num(exact_at),
        "value_at_bounds_decimal": _dec(exact_at),
        "upper_at_bounds": None if result.exact else _num(result.upper * scale),
        "witness": {
            "x": _data_text(result.stat, x),
            "x_prime": _data_text(result.stat, y),
            "difference_normalised": _num(result.difference),
        },
        "cases": result.cases,
        "naive_vertices": result.naive_vertices,
        "cases_over_naive": ratio,
        "method": result.method,
        "seconds": round(result.seconds, 6),
        "checks": result.checks,
        "printed": printed,
    }


def _printed_row(
    p: Printed, result: SensitivityResult, groups: Any, eligible: Any, scale: Fraction
) -> dict[str, Any]:
    try:
        normalised = p.normalised(result.n, groups, eligible)
    except (ZeroDivisionError, ValueError, AssertionError):
        return {
            "where": p.where,
            "formula": p.text,
            "kind": p.kind,
            "value": None,
            "verdict": "not applicable at this n",
        }
    if result.exact:
        verdict = compare(normalised, result.value)
    else:
        low, high = compare(normalised, result.value), compare(normalised, result.upper)
        verdict = "wrong" if low == "wrong" else ("loose" if high == "loose" else "undecided")
    return {
        "where": p.where,
        "formula": p.text,
        "kind": p.kind,
        "value": _num(normalised),
        "value_at_bounds": _num(normalised * scale),
        "value_at_bounds_decimal": _dec(normalised * scale),
        "verdict": verdict,
        "verdict_text": _verdict_text(p, verdict),
    }


def _verdict_text(p: Printed, verdict: str) -> str:
    if p.kind == "not":
        if verdict == "equal":
            return "the paper says the GS is not this, yet it equals the exact GS here"
        return "differs from the exact GS, as the paper says"
    return {
        "equal": "printed == exact",
        "loose": "printed > exact (a loose upper bound)",
        "wrong": "printed < exact (wrong: the true sensitivity is larger)",
    }.get(verdict, "undecided")


def format_text(d: dict[str, Any]) -> str:
    """The human-readable report of :func:`describe`."""
    at = f"groups {d['groups']}, " if d["groups"] else ""
    at += f"K = {d['categories']}, " if d["categories"] else ""
    bounds = d["bounds"] or None
    lines = [
        f"l1 global sensitivity of the {d['stat']}, neighbours = {d['neighbours']}"
        f" ({'Def 1' if d['neighbours'] == 'substitute' else 'Def 2'}), {at}n = {d['n']}",
    ]
    kind = "exact" if d["exact"] else "lower bound"
    lines.append(f"{kind} GS, unit bounds:  {d['value']} = {d['value_decimal']}")
    if bounds:
        box = " x ".join(f"[{lo}, {hi}]" for lo, hi in zip(bounds[::2], bounds[1::2], strict=True))
        lines.append(
            f"{kind} GS, bounds {box}:  {d['value_at_bounds']} = {d['value_at_bounds_decimal']}"
        )
    if not d["exact"]:
        lines.append(f"upper bound: {d['upper_at_bounds']}")
    w = d["witness"]
    lines.append(f"attained by x  = {w['x']}")
    lines.append(f"            x' = {w['x_prime']}")
    ratio = d["cases_over_naive"]
    naive = d["naive_vertices"]
    naive_text = str(naive) if naive < 10**15 else f"{float(naive):.3e}"
    lines.append(
        f"configurations examined: {d['cases']} (naive vertex enumeration: {naive_text};"
        f" ratio {ratio:.3g})"
    )
    lines.append(f"method: {d['method']}")
    for p in d["printed"]:
        if p["value"] is None:
            lines.append(f"printed ({p['where']}): {p['formula']}: {p['verdict']}")
            continue
        value = p["value_at_bounds"] if bounds else p["value"]
        dec = p["value_at_bounds_decimal"]
        unit = f" (unit bounds: {p['value']})" if bounds else ""
        lines.append(
            f"printed ({p['where']}): {p['formula']} = {value} = {dec}{unit} -> {p['verdict_text']}"
        )
    return "\n".join(lines)
