"""The enumerations behind :func:`dpcheck.enumeration.sensitivity.exact_sensitivity`.

Everything here works on data normalised to [0, 1] per variable and in exact
rational arithmetic.  The mathematics (why these enumerations are complete) is
in the docstring of :mod:`dpcheck.enumeration.sensitivity`; the KKT step is in
:mod:`dpcheck.enumeration.quadratic`.

Terms.  A *group* is the set of records that share one mean (the whole data
set for mean/variance/covariance; one cell for the pooled statistics).  The
*changed group* g holds the record that differs (substitute) or is removed
(remove); its other records and all records of the other groups are *shared*
by x and x'.  With ``df = n - J`` and ``df2`` the same for x' (``n - J`` for
substitute, ``n - 1 - J`` for remove), every statistic here is

    f = sum_j term(group j)          term = SS_j/df   (variance-like)
                                     term = SP_j/df   (covariance-like)
                                     term = S/n       (mean, J = 1)

so D = f(x) - f(x') = D_g + sum_{j != g} (1/df - 1/df2) * SS_j (or SP_j).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from fractions import Fraction

from dpcheck.enumeration.quadratic import ALL_CHOICES, FREE, Quad, box_candidates, face_count

_ZERO = Fraction(0)
_ONE = Fraction(1)
CORNERS: tuple[tuple[int, int], ...] = ((0, 0), (0, 1), (1, 0), (1, 1))


# --------------------------------------------------------------------------- terms
def uni_term(kind: str, cnt: int, s, q, df: int):  # type: ignore[no-untyped-def]
    """One group's contribution: S/cnt (mean) or (Q - S^2/cnt)/df (SS/df).

    ``s`` and ``q`` are the group's sum and sum of squares, as Fractions or as
    :class:`Quad` polynomials (the same code builds values and polynomials).
    """
    if kind == "mean":
        return s * Fraction(1, cnt)
    return (q - s * s * Fraction(1, cnt)) * Fraction(1, df)


def biv_term(cnt: int, sx, sy, p, df: int):  # type: ignore[no-untyped-def]
    """One group's contribution to a (pooled) covariance: (P - Sx Sy/cnt)/df."""
    return (p - sx * sy * Fraction(1, cnt)) * Fraction(1, df)


# --------------------------------------------------------------------------- extremes
@dataclass
class Extremes:
    """Largest and smallest value found, with a record of where (and ties if kept)."""

    cases: int = 0
    hi: Fraction | None = None
    hi_at: object = None
    lo: Fraction | None = None
    lo_at: object = None
    keep_all: bool = False
    seen: list[tuple[Fraction, object]] = field(default_factory=list)

    def offer(self, value: Fraction, at: object) -> None:
        if self.hi is None or value > self.hi:
            self.hi, self.hi_at = value, at
        if self.lo is None or value < self.lo:
            self.lo, self.lo_at = value, at
        if self.keep_all:
            self.seen.append((value, at))


@dataclass(frozen=True)
class UniChanged:
    """Where a changed-group candidate lies: x1, x1' (None for remove), shared records."""

    x1: Fraction
    x1p: Fraction | None
    shared: tuple[Fraction, ...]


def uni_changed(
    kind: str, ng: int, df: int, df2: int, substitute: bool, keep_all: bool = False
) -> Extremes:
    """Extremes of D_g over the changed record(s) and the ng - 1 shared records of group g.

    Configurations: k0 shared records at 0, k1 at 1, r = ng - 1 - k0 - k1 at a
    common value t (fact 3).  Continuous variables: x1 (index 0), x1'
    (index 1, substitute only) over {lower, upper, free}, and t over {free}
    only: t at a bound is the configuration with r - 1 more records at 0 or 1.
    """
    out = Extremes(keep_all=keep_all)
    m = ng - 1
    x1 = Quad.var(0)
    x1p = Quad.var(1) if substitute else None
    base = 2 if substitute else 1
    for k0 in range(m + 1):
        for k1 in range(m - k0 + 1):
            r = m - k0 - k1
            if r:
                t = Quad.var(base)
                s_sh = k1 + r * t
                q_sh = k1 + r * (t * t)
            else:
                s_sh = Quad.const(k1)
                q_sh = Quad.const(k1)
            poly = uni_term(kind, ng, x1 + s_sh, x1 * x1 + q_sh, df)
            if x1p is not None:
                poly = poly - uni_term(kind, ng, x1p + s_sh, x1p * x1p + q_sh, df2)
            else:
                poly = poly - uni_term(kind, ng - 1, s_sh, q_sh, df2)
            choices = [ALL_CHOICES] * base + ([(FREE,)] if r else [])
            out.cases += face_count(choices)
            for value, point in box_candidates(poly, len(choices), choices):
                t_value = point[base] if r else _ZERO
                shared = (_ZERO,) * k0 + (_ONE,) * k1 + (t_value,) * r
                out.offer(value, UniChanged(point[0], point[1] if substitute else None, shared))
    return out


def uni_other(nj: int, coef: Fraction) -> Extremes:
    """Extremes of coef * SS_j over the nj records of an unchanged group j (fact 3)."""
    out = Extremes()
    if coef == 0:
        out.cases = 1
        out.offer(_ZERO, (_ZERO,) * nj)
        return out
    t = Quad.var(0)
    for k0 in range(nj + 1):
        for k1 in range(nj - k0 + 1):
            r = nj - k0 - k1
            s = k1 + r * t if r else Quad.const(k1)
            q = k1 + r * (t * t) if r else Quad.const(k1)
            poly = (q - s * s * Fraction(1, nj)) * coef
            choices = [(FREE,)] if r else []
            out.cases += face_count(choices)
            for value, point in box_candidates(poly, len(choices), choices):
                t_value = point[0] if r else _ZERO
                out.offer(value, (_ZERO,) * k0 + (_ONE,) * k1 + (t_value,) * r)
    return out


def compositions4(m: int) -> Iterator[tuple[int, int, int, int]]:
    """All (c00, c01, c10, c11) >= 0 with sum m: shared bivariate records at the 4 corners."""
    for c11 in range(m + 1):
        for c10 in range(m - c11 + 1):
            for c01 in range(m - c11 - c10 + 1):
                yield m - c11 - c10 - c01, c01, c10, c11


def corner_records(counts: tuple[int, int, int, int]) -> tuple[tuple[Fraction, Fraction], ...]:
    out: list[tuple[Fraction, Fraction]] = []
    for (a, b), c in zip(CORNERS, counts, strict=True):
        out.extend([(Fraction(a), Fraction(b))] * c)
    return tuple(out)


@dataclass(frozen=True)
class BivChanged:
    x1: tuple[Fraction, Fraction]
    x1p: tuple[Fraction, Fraction] | None
    counts: tuple[int, int, int, int]


def biv_changed(ng: int, df: int, df2: int, substitute: bool) -> Extremes:
    """Extremes of D_g (covariance-like) over vertices: corners of the changed record(s)
    and counts of the ng - 1 shared records at the 4 corners (fact 3, multilinear case)."""
    out = Extremes()
    m = ng - 1
    partners: tuple[tuple[int, int] | None, ...] = CORNERS if substitute else (None,)
    for counts in compositions4(m):
        _, c01, c10, c11 = counts
        sx, sy, p = c10 + c11, c01 + c11, c11
        if substitute:
            after = {b: biv_term(ng, sx + b[0], sy + b[1], p + b[0] * b[1], df2) for b in CORNERS}
        else:
            after = {None: biv_term(ng - 1, sx, sy, p, df2)}
        for a in CORNERS:
            before = biv_term(ng, sx + a[0], sy + a[1], p + a[0] * a[1], df)
            for b in partners:
                after_value = after[b]
                out.cases += 1
                out.offer(
                    before - after_value,
                    BivChanged(
                        (Fraction(a[0]), Fraction(a[1])),
                        None if b is None else (Fraction(b[0]), Fraction(b[1])),
                        counts,
                    ),
                )
    return out


def biv_other(nj: int, coef: Fraction) -> Extremes:
    """Extremes of coef * SP_j over the nj records of an unchanged group (vertices)."""
    out = Extremes()
    if coef == 0:
        out.cases = 1
        out.offer(_ZERO, (0, 0, 0, nj))
        return out
    for counts in compositions4(nj):
        _, c01, c10, c11 = counts
        sx, sy = c10 + c11, c01 + c11
        out.cases += 1
        out.offer(coef * (c11 - Fraction(sx * sy, nj)), counts)
    return out


# --------------------------------------------------------------------------- categorical
def categorical(stat: str, n: int, k: int, substitute: bool) -> Extremes:
    """Exact enumeration for 'histogram' and 'proportions' (l1 norm of the difference).

    Relabelling categories preserves the l1 norm, so the changed record moves
    from category 0 to 0 or 1 (substitute) or is removed from category 0.
    Every other category c has h_c shared records in both data sets and
    difference h_c (1/n - 1/n'), of absolute value h_c |1/n - 1/n'|: the sum
    over those categories depends only on their total, so the shared counts
    are enumerated as (h_0[, h_1], rest), with the rest put in category 2
    (substitute) or 1 (remove) for the witness; when no such category exists
    (K = 2 under substitute) the rest is 0.
    """
    out = Extremes()
    m = n - 1
    pairs = ((0, 0), (0, 1)) if substitute else ((0, None),)
    distinguished = 2 if substitute else 1
    n2 = n if substitute else n - 1
    for a, b in pairs:
        for lead in _lead_counts(m, distinguished):
            rest = m - sum(lead)
            if rest and k == distinguished:
                continue
            counts = list(lead) + [0] * (k - distinguished)
            if rest:
                counts[distinguished] = rest
            hx = list(counts)
            hx[a] += 1
            hy = list(counts)
            if b is not None:
                hy[b] += 1
            if stat == "histogram":
                diff = [Fraction(u - v) for u, v in zip(hx, hy, strict=True)]
            else:
                diff = [Fraction(u, n) - Fraction(v, n2) for u, v in zip(hx, hy, strict=True)]
            out.cases += 1
            out.offer(sum(abs(d) for d in diff), (a, b, tuple(counts)))
    return out


def _lead_counts(m: int, size: int) -> Iterator[tuple[int, ...]]:
    if size == 1:
        for h in range(m + 1):
            yield (h,)
    else:
        for h0 in range(m + 1):
            for h1 in range(m - h0 + 1):
                yield (h0, h1)


def proportion(n: int, substitute: bool) -> Extremes:
    """Exact enumeration of a single proportion (mean of 0/1 data)."""
    out = Extremes()
    m = n - 1
    for ones in range(m + 1):
        for a in (0, 1):
            for b in (0, 1) if substitute else (None,):
                before = Fraction(a + ones, n)
                after = Fraction(b + ones, n) if b is not None else Fraction(ones, m)
                out.cases += 1
                out.offer(before - after, (a, b, ones))
    return out
