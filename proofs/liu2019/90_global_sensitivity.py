"""Liu (2019) §2.2, Table 1 and §4.2: the global sensitivities the paper uses.

The values are compared, exactly, with :func:`exact_sensitivity` under both
definitions of neighbouring data sets (the paper's main text does not fix
one: "the global sensitivity is the same on most of the examined statistics
regardless of which definition is used").
"""

from __future__ import annotations

import sympy as sp

from dpcheck.claims import sensitivity as gs
from dpcheck.claims.model import Kind, Status, Verdict, step
from dpcheck.claims.registry import claim
from dpcheck.enumeration.sensitivity import exact_sensitivity
from dpcheck.papers import liu2019 as P
from dpcheck.papers.liu2019s_sensitivity import Printed

N_UNIVARIATE = 30
N_BIVARIATE = 12
LOW = {"substitute": 2, "remove": 3}


def _both(
    stat: str,
    high: int,
    scale: str,
    low: dict[str, int] | None = None,
    printed: Printed | None = None,
) -> Verdict:
    low = low or LOW
    return gs.combine(
        {
            nb: gs.gs_verdict(
                stat,
                nb,
                gs.sizes(low[nb], high),
                f"n = {low[nb]}..{high}",
                scale=scale,
                printed=printed,
            )
            for nb in ("substitute", "remove")
        }
    )


def _table1_variance(n: int, groups: object, eligible: object) -> sp.Expr:
    """Table 1's printed delta_1 of S_jj, R^2/n, at unit bounds (read at check time)."""
    return P.TABLE1_VARIANCE_SENSITIVITY.expr.subs({P.R: 1, P.n: n})


TABLE1_VARIANCE = Printed("Table 1, row S_jj", "R_j^2/n", _table1_variance)


@claim("liu2019.gs.mean", source="§2.2", statement=r"\delta_1(\bar x)=(c_1-c_0)/n")
def gs_mean() -> Verdict:
    return _both("mean", N_UNIVARIATE, "R", {"substitute": 2, "remove": 2})


@claim("liu2019.gs.variance", source="§2.2", statement=r"\delta_1(s^2)=(c_1-c_0)^2/n")
def gs_variance() -> Verdict:
    return _both("variance", N_UNIVARIATE, "R^2")


@claim(
    "liu2019.gs.sd_not_sqrt",
    source="§2.2",
    statement=r"\delta_1(s)\neq\sqrt{(c_1-c_0)^2n^{-1}}",
)
def gs_sd_not_sqrt() -> Verdict:
    """|s - s'| <= sqrt|s² - s'²| <= sqrt(δ(s²)) = R/√n for every pair, and a pair attains it.

    The inequality |√a - √b| <= √|a - b| (a, b >= 0) holds because
    (√a - √b)² = a + b - 2√(ab) <= |a - b|, i.e. min(a, b) <= √(ab).  The pair
    x = (c1, c0, ..., c0), x' = (c0, ..., c0) (substitute) has s'² = 0 and
    s² = R²/n; removing c1 from x likewise.  So δ(s) = R/√n = √(R²/n) for
    every n: the paper's remark is a fair warning in general but does not hold
    for the standard deviation itself.
    """
    a, b = sp.symbols("a b", nonnegative=True)
    lemma = sp.simplify(sp.expand((sp.sqrt(a) - sp.sqrt(b)) ** 2 - (a - b)).subs(a, b + a))
    rows = {}
    for nb in ("substitute", "remove"):
        found = []
        for n in range(LOW[nb], N_UNIVARIATE + 1):
            r = exact_sensitivity("sd", nb, n)
            printed = P.SEC22_SD_SQRT.expr.subs({P.R: 1, P.n: n})  # unit bounds
            equal = sp.simplify(r.value - printed) == 0
            found.append((n, str(r.value), bool(equal), r.witness))
        rows[nb] = found
    all_equal = all(e for found in rows.values() for _, _, e, _ in found)
    # the sensitivity table of `dpcheck sensitivity` prints the same formula: do they agree?
    table = all(
        sp.simplify(
            sp.sympify(gs.PRINTED[("sd", nb)][0].normalised(n, None, None))
            - P.SEC22_SD_SQRT.expr.subs({P.R: 1, P.n: n})
        )
        == 0
        for nb in ("substitute", "remove")
        for n in range(LOW[nb], N_UNIVARIATE + 1)
    )
    n0, value, _, witness = rows["substitute"][0]
    evidence = {
        "exact GS of s (unit bounds)": {
            nb: [f"n = {n}: {v}" for n, v, _, _ in found[:6]] for nb, found in rows.items()
        },
        "equals sqrt(R^2/n) at every n checked": all_equal,
        "the sensitivity table (dpcheck sensitivity sd) prints the same sqrt(R^2/n)": table,
        "checked": f"n = 2..{N_UNIVARIATE} (substitute), 3..{N_UNIVARIATE} (remove), exact",
        "argument for every n": "|s - s'| <= sqrt|s^2 - s'^2| <= sqrt(R^2/n) (since "
        f"(sqrt(a) - sqrt(b))^2 - (a - b) at a -> a + b is {lemma} <= 0 for b <= a), and "
        "x = (c1, c0, ..., c0), x' = (c0, ..., c0) attains it",
        "counterexample": {
            "n": n0,
            "GS of s": f"{value} R = sqrt(R^2/{n0})",
            "x (unit bounds)": str(tuple(str(v) for v in witness[0])),
            "x' (unit bounds)": str(tuple(str(v) for v in witness[1])),
        },
    }
    if all_equal:
        evidence["finding"] = (
            "the GS of the standard deviation is exactly sqrt(R^2/n) under both definitions; "
            "the paper's general caution (the GS of f(s) is not f(GS of s)) is fair, but its "
            "example is one where they coincide"
        )
        return Verdict(
            Status.REFUTED,
            "exact sensitivity of s at every n of the range, and an inequality that holds "
            "for every n",
            evidence,
            reproduce="dpcheck sensitivity sd --neighbours substitute --n 5",
            basis=[
                step(
                    Kind.ENUMERATION,
                    "the exact GS of s (maximising pair of data sets, exact arithmetic) equals "
                    f"sqrt(R^2/n) at every n checked, e.g. n = {n0}",
                    domain=f"n = 2..{N_UNIVARIATE} (substitute), 3..{N_UNIVARIATE} (remove)",
                )
            ],
        )
    evidence["finding"] = "the GS of s differs from sqrt(R^2/n) at some n"
    return Verdict(Status.INCONCLUSIVE, "exact sensitivity of s", evidence)


@claim(
    "liu2019.table1.gs",
    source="Table 1",
    statement=r"\delta(S_{jj})=R_j^2/n,\ \delta(S_{jj'})=R_jR_{j'}/n",
)
def table1_gs() -> Verdict:
    v = gs.combine(
        {
            "S_jj (variance)": _both("variance", N_UNIVARIATE, "R_j^2", printed=TABLE1_VARIANCE),
            "S_jj' (covariance)": _both("covariance", N_BIVARIATE, "R_j R_j'"),
        }
    )
    # the comparison is at unit bounds; the printed value must carry the scale R_j^2
    per_unit = sp.simplify(P.TABLE1_VARIANCE_SENSITIVITY.expr / P.R**2)
    v.evidence["printed delta_1(S_jj) = R_j^2 x (a function of n)"] = per_unit.free_symbols <= {P.n}
    return v


@claim(
    "liu2019.sim2.gs_proportions",
    source="§4.2",
    statement=r"\delta_1(\mathbf p)=n^{-1}\text{ or }2n^{-1}\text{ by the neighbour definition}",
)
def sim2_gs_proportions() -> Verdict:
    """Exact GS of the proportion vector (K = 4 as in the study) under both definitions."""
    parts = {
        nb: gs.gs_verdict(
            "proportions",
            nb,
            gs.sizes(2, N_UNIVARIATE, categories=4),
            f"n = 2..{N_UNIVARIATE}, K = 4",
        )
        for nb in ("substitute", "remove")
    }
    finding = (
        "the exact GS of p is 2/n under both definitions (substitute moves a record between "
        "two cells; removal changes the denominator of every cell, 2(n - h)/(n(n-1)) <= 2/n). "
        "n^{-1} is not the GS under either, so the study's delta_1 = 1/n calibrates Laplace noise "
        "for 2 epsilon, not epsilon"
    )
    return gs.combine(parts, finding)
