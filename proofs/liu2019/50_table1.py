"""Liu (2019) §4.1, Table 1: the range of a sample variance of bounded data."""

from __future__ import annotations

from fractions import Fraction

import sympy as sp

from dpcheck.claims.model import Kind, Status, Verdict, step
from dpcheck.claims.registry import claim
from dpcheck.claims.sensitivity import vertex_steps
from dpcheck.enumeration.variance_range import variance_at_vertex
from dpcheck.papers import liu2019 as P

N_MAX = 60


#: the printed intervals for S^2: §1 (closed), Table 1 in 000 (half-open), Table 1 in 002 (open)
_VERSIONS = {
    "§1, [0, nR^2/(4(n-1))]": P.INTRO_VARIANCE_BOUNDS,
    "Table 1, 000, (0, nR^2/(4(n-1))]": P.TABLE1_VARIANCE_BOUNDS,
    "Table 1, 002, (0, nR^2/(4(n-1)))": P.TABLE1_VARIANCE_BOUNDS_JOURNAL,
}


def _contains_range(eq: P.Equation, rows: list[tuple[int, Fraction, Fraction]]) -> bool:
    """Does the printed interval contain every attainable S^2 (0 and the vertex maximum,
    hence everything between: S^2 is continuous on the connected box) for each n?"""
    lo, hi = (e / P.R**2 for e in eq.expr)
    for n, best, _ in rows:
        low, high = Fraction(str(lo.subs(P.n, n))), Fraction(str(hi.subs(P.n, n)))
        zero_in = low < 0 or (low == 0 and not eq.extra["left_open"])
        top_in = best < high or (best == high and not eq.extra["right_open"])
        if not (zero_in and top_in):
            return False
    return True


def _upper_exact_for_even_n(eq: P.Equation, rows: list[tuple[int, Fraction, Fraction]]) -> bool:
    hi = eq.expr[1] / P.R**2
    return all(best == Fraction(str(hi.subs(P.n, n))) for n, best, _ in rows if n % 2 == 0)


@claim("liu2019.table1.variance_range", source="Table 1", statement=r"S^2\in(0,\ nR^2/(4(n-1)))")
def variance_range() -> Verdict:
    """The sample variance is a convex quadratic in the data (its Hessian 2/(n-1)·(I - J/n) is a
    scaled projection, PSD), so its maximum over the box [c0, c1]^n is at a vertex; by symmetry a
    vertex is described by the count k of values at c1.  The minimum 0 is attained by constant data.
    """
    k_sym, n_sym = sp.symbols("k n", positive=True)
    vertex = sp.simplify(
        (k_sym * (1 - k_sym / n_sym) ** 2 + (n_sym - k_sym) * (k_sym / n_sym) ** 2) / (n_sym - 1)
    )
    upper = P.TABLE1_VARIANCE_BOUNDS.expr[1] / P.R**2
    rows = []
    attained_upper = []
    for n in range(2, N_MAX + 1):
        best = max(variance_at_vertex(n, k) for k in range(n + 1))
        printed = Fraction(str(upper.subs(P.n, n)))
        rows.append((n, best, printed))
        if best == printed:
            attained_upper.append(n)
    below = all(best <= printed for _, best, printed in rows)
    even = all(best == printed for n, best, printed in rows if n % 2 == 0)
    odd_loose = all(best < printed for n, best, printed in rows if n % 2 == 1)
    ev = {
        "vertex value": f"S^2 = {vertex} * R^2 with k values at c1",
        "exact maximum": "n R^2/(4(n-1)) for even n (k = n/2); (n+1) R^2/(4n) for odd n",
        "checked": f"every n from 2 to {N_MAX}, exact rationals",
        "max <= printed upper end": below,
        "printed upper end attained for every even n": even,
        "printed upper end loose for every odd n": odd_loose,
        "printed upper end attained (closed) for n": f"{attained_upper[:5]}...",
        "printed lower end = 0 (the minimum, constant data)": P.TABLE1_VARIANCE_BOUNDS.expr[0] == 0,
        "printed": {
            "002 (journal)": "(0, nR^2/(4(n-1)))  open",
            "000 (arXiv)": "(0, nR^2/(4(n-1))]",
        },
        "every attainable S^2 in the printed interval": {
            label: _contains_range(eq, rows) for label, eq in _VERSIONS.items()
        },
        "printed upper end = the exact maximum for every even n": {
            label: _upper_exact_for_even_n(eq, rows) for label, eq in _VERSIONS.items()
        },
        "counterexample": {"n": 2, "data": "(c0, c0)", "S^2": "0", "why": "0 is not in (0, ...)"},
        "counterexample_upper": {
            "n": 2,
            "data": "(c0, c1)",
            "S^2": "R^2/2 = nR^2/(4(n-1))",
            "why": "attained, so not in the open interval of 002",
        },
        "finding": (
            "the printed interval excludes values that occur: S^2 = 0 (constant data) and, for even n, "
            "S^2 = nR^2/(4(n-1)); the exact range is [0, nR^2/(4(n-1))] for even n and "
            "[0, (n+1)R^2/(4n)] for odd n (the printed upper end is then loose)"
        ),
    }
    if not (below and even and odd_loose):
        ev["finding"] = (
            "the printed interval excludes S^2 = 0 (constant data); its upper end is not the "
            "exact maximum nR^2/(4(n-1)) (even n) / (n+1)R^2/(4n) (odd n)"
        )
    # the counterexamples, computed: constant data (k = 0) and, at n = 2, one value at each end
    lower, printed_lower = variance_at_vertex(2, 0), P.TABLE1_VARIANCE_BOUNDS.expr[0]
    upper2 = variance_at_vertex(2, 1)
    left_open = P.TABLE1_VARIANCE_BOUNDS.extra["left_open"]
    zero_outside = lower < printed_lower or (lower == printed_lower and left_open)
    upper_attained = upper2 == Fraction(str(upper.subs(P.n, 2)))
    return Verdict(
        Status.REFUTED if zero_outside else Status.INCONCLUSIVE,
        "exact enumeration of vertex counts (convexity reduces the box to "
        "its vertices); counterexample in exact rationals",
        ev,
        reproduce="dpcheck verify liu2019.table1.variance_range --format json",
        basis=[
            *vertex_steps(
                "max over vertex counts <= printed upper end for every n, exact rationals"
                if below
                else "max over vertex counts exceeds the printed upper end at some n",
                f"n = 2..{N_MAX}",
            ),
            step(
                Kind.ENUMERATION,
                f"S² of constant data is {lower} exactly, outside the printed interval, "
                f"which is open at {printed_lower}",
                checked=zero_outside,
                domain="n = 2, data (c0, c0)",
            ),
            step(
                Kind.ENUMERATION,
                f"S² of (c0, c1) is {upper2} R² = the printed upper end (attained; outside "
                "the journal's open interval)",
                checked=upper_attained,
                domain="n = 2, data (c0, c1)",
            ),
        ],
    )
