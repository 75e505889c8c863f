"""Liu (2019) §4.1, Table 1: the range of a sample variance of bounded data."""

from __future__ import annotations

from fractions import Fraction

import sympy as sp

from dpcheck.claims.model import Status, Verdict
from dpcheck.claims.registry import claim
from dpcheck.enumeration.variance_range import variance_at_vertex
from dpcheck.papers import liu2019 as P

N_MAX = 60


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
        assert best <= printed
    ev = {
        "vertex value": f"S^2 = {vertex} * R^2 with k values at c1",
        "exact maximum": "n R^2/(4(n-1)) for even n (k = n/2); (n+1) R^2/(4n) for odd n",
        "checked": f"every n from 2 to {N_MAX}, exact rationals",
        "max <= printed upper end": True,
        "printed upper end attained (closed) for n": f"{attained_upper[:5]}... (every even n)",
        "printed": {
            "002 (journal)": "(0, nR^2/(4(n-1)))  open",
            "000 (arXiv)": "(0, nR^2/(4(n-1))]",
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
    return Verdict(
        Status.REFUTED,
        "exact enumeration of vertex counts (convexity reduces the box to "
        "its vertices); counterexample in exact rationals",
        ev,
        reproduce="dpcheck verify liu2019.table1.variance_range --format json",
    )
