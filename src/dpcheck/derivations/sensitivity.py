"""Derivations of the global sensitivity of the mean and the variance (Liu 2019, §2.2).

The difference between a statistic on neighbouring data sets is derived from
the statistic's definition (:mod:`dpcheck.symbolic.sensitivity`, the model of
Liu's supplement); its maximum over the data box comes from the exact engine
(:func:`dpcheck.claims.sensitivity.compare_cases`, the same rows the verdicts
are computed from), shown as a table of exact against printed values.
"""

from __future__ import annotations

import sympy as sp

from dpcheck.claims import sensitivity as gs
from dpcheck.derivations.document import Derivation, Printed, Step
from dpcheck.derivations.notation import display
from dpcheck.symbolic import sensitivity as se

#: sizes shown in the tables (the verdicts check n up to 30)
SHOWN = {"substitute": range(2, 9), "remove": range(3, 9)}
_WORDS = {"substitute": "Def 1 (substitute one record)", "remove": "Def 2 (remove one record)"}


def _table(stat: str, scale: str) -> Step:
    rows = []
    for nb in ("substitute", "remove"):
        low = 2 if stat == "mean" else SHOWN[nb].start
        cases = gs.sizes(low, SHOWN[nb].stop - 1)
        for r in gs.compare_cases(stat, nb, cases):
            rows.append(f"{_WORDS[nb]} & {r.case.n} & ${r.exact}$ & ${r.printed}$ & {r.outcome}")
    table = (
        "\\begin{center}\\begin{tabular}{lrrrl}\n"
        f"neighbours & $n$ & exact GS$/{scale}$ & printed$/{scale}$ & \\\\ \\hline\n"
        + " \\\\\n".join(rows)
        + "\n\\end{tabular}\\end{center}"
    )
    words = (
        "The maximum of $|\\text{difference}|$ over all data in $[c_0, c_1]^n$ is found exactly "
        "by the enumeration engine (KKT enumeration over symmetry-reduced configurations, in "
        f"rationals, with bounds $[0, 1]$ so that $R = 1$; the statistic scales as ${scale}$). "
        "The first sizes, beside the printed value:"
    )
    return Step(words, (table,))


def mean() -> Derivation:
    """δ1(x̄) = R/n: the difference x̄ - x̄' and its exact maximum."""
    diff = sp.factor(se.VARIANCE_DEF1.interpret(se.XBAR - se.XBARP))
    steps = (
        Step(
            "Under Def 1 the data sets share records $2, \\dots, n$; the difference of the "
            "means, from their definition:",
            (display(r"\bar{x} - \bar{x}'", diff),),
        ),
        Step(
            "So $|\\bar{x} - \\bar{x}'| \\le (c_1 - c_0)/n$, with equality at $x_1 = c_1$, "
            "$x'_1 = c_0$. Under Def 2 the difference is $(x_1 - \\bar{x}_-)/n$ "
            "($\\bar{x}_-$ the mean of the other records), with the same bound."
        ),
        _table("mean", "R"),
    )
    return Derivation(
        "gs-mean",
        "Global sensitivity of the sample mean",
        "Liu (2019), §2.2; supplement §1",
        "The $\\ell_1$ global sensitivity of $\\bar{x}$ for data in $[c_0, c_1]$, $R = c_1 - c_0$.",
        steps,
        (Printed("§2.2", "liu2019.gs.mean"),),
    )


def variance() -> Derivation:
    """δ1(s²) = R²/n: the difference s² - s'² under both definitions, its exact maximum."""
    steps = (
        Step(
            "Write $S = \\sum_{i \\ge 2} x_i$, $Q = \\sum_{i \\ge 2} x_i^2$ for the shared "
            "records. Under Def 1 ($x'_1$ replaces $x_1$), from the definition of $s^2$:",
            (display(r"s^2 - s'^2", se.variance_difference(1)),),
        ),
        Step(
            "Under Def 2 ($x_1$ removed; $s'^2$ is the variance of the $n - 1$ others):",
            (display(r"s^2 - s'^2", se.variance_difference(2)),),
        ),
        _table("variance", "R^2"),
    )
    return Derivation(
        "gs-variance",
        "Global sensitivity of the sample variance",
        "Liu (2019), §2.2; supplement §2",
        "The $\\ell_1$ global sensitivity of $s^2$ for data in $[c_0, c_1]$, $R = c_1 - c_0$.",
        steps,
        (Printed("§2.2", "liu2019.gs.variance"),),
    )


__all__ = ["mean", "variance"]
