"""Judging empirical claims by reproduction with Monte Carlo error (DESIGN.md, "Verdicts").

An empirical claim (a finding of a simulation study) is split into *parts*,
each a universal statement over cells of the study ("at every n <= 300 and
every proportion, CP is in [0.85, 0.92]").  Each cell is tested with its
Monte Carlo error:

* means, biases and RMSE differences: normal intervals value ± Z·SE;
* coverage probabilities: exact one-sided Clopper-Pearson bounds at level ALPHA
  (the coverage indicators of the repetitions are i.i.d. Bernoulli).

A cell *supports* the part when the whole interval agrees with it, and
*contradicts* it when the whole interval disagrees; otherwise it is
undecided.  With Z = 6 (two-sided tail 2e-9) and ALPHA = 1e-9, fewer than 500
cells per claim keep the chance that a true statement is contradicted by Monte
Carlo noise below 1e-6.

A part is contradicted when any cell contradicts it.  It is supported when
no cell contradicts it and most cells support it: the paper's sentences sum
up figures, and where two procedures converge (large n, large epsilon) a
difference is simply too small to show, which is no evidence against them.
The evidence gives the counts of each kind of cell.

:func:`judge` evaluates the parts on the run of the paper's size and, as the
confirmation that DESIGN.md asks of every counterexample, on an independent
run 20 to 100 times larger: a contradiction counts only if that run
contradicts the part too, and a part left undecided by the paper-size run is
settled by the larger one (the evidence says so).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dpcheck.claims.model import Kind, Status, Verdict, step
from dpcheck.sampling import clopper_pearson

Z = 6.0
ALPHA = 1e-9
#: how many cells of each kind the evidence lists
SHOWN = 6


@dataclass
class Part:
    """One part of an empirical claim: the paper's words, the rule, and the cells' outcomes."""

    paper: str
    rule: str
    supported: list[str] = field(default_factory=list)
    contradicted: list[str] = field(default_factory=list)
    undecided: list[str] = field(default_factory=list)

    @property
    def outcome(self) -> str:
        if self.contradicted:
            return "contradicted"
        if 2 * len(self.supported) > len(self.supported) + len(self.undecided):
            return "supported"
        return "undecided"

    def add(self, label: str, supports: bool, contradicts: bool) -> None:
        """File one cell under supported, contradicted or undecided."""
        if contradicts:
            self.contradicted.append(label)
        elif supports:
            self.supported.append(label)
        else:
            self.undecided.append(label)

    def evidence(self) -> dict[str, Any]:
        data: dict[str, Any] = {"paper": self.paper, "rule": self.rule, "outcome": self.outcome}
        data["cells"] = (
            f"{len(self.supported)} support, {len(self.contradicted)} contradict, "
            f"{len(self.undecided)} undecided"
        )
        for name in ("contradicted", "undecided", "supported"):
            cells = getattr(self, name)
            if cells:
                data[f"{name} ({len(cells)} cells)"] = cells[:SHOWN]
        return data


def above(value: float, se: float, threshold: float) -> tuple[bool, bool]:
    """(supports, contradicts) the statement value > threshold, at Z standard errors."""
    return value - Z * se > threshold, value + Z * se < threshold


def within(value: float, se: float, tolerance: float) -> tuple[bool, bool]:
    """(supports, contradicts) |value| <= tolerance, at Z standard errors."""
    return abs(value) + Z * se <= tolerance, abs(value) - Z * se > tolerance


def cp_bounds(covered: float, reps: int) -> tuple[float, float]:
    """Exact one-sided Clopper-Pearson bounds (ALPHA each) on a coverage probability."""
    k = int(round(covered))
    return clopper_pearson.lower(k, reps, ALPHA), clopper_pearson.upper(k, reps, ALPHA)


def cp_in(covered: float, reps: int, lo: float, hi: float) -> tuple[bool, bool, str]:
    """(supports, contradicts, shown) the statement lo <= CP <= hi."""
    low, high = cp_bounds(covered, reps)
    shown = f"CP {covered / reps:.3f} [{low:.3f}, {high:.3f}]"
    return lo <= low and high <= hi, high < lo or low > hi, shown


def paired(diff: np.ndarray) -> tuple[float, float]:
    """Mean and MC SE of per-repetition differences (paired comparisons, common data sets)."""
    return float(diff.mean()), float(diff.std(ddof=1) / np.sqrt(diff.size))


def abs_bias_difference(err_a: np.ndarray, err_b: np.ndarray) -> tuple[float, float]:
    """|bias_a| - |bias_b| and its SE, from paired per-repetition errors (first-order)."""
    sa, sb = np.sign(err_a.mean()) or 1.0, np.sign(err_b.mean()) or 1.0
    return paired(sa * err_a - sb * err_b)


def mse_difference(err_a: np.ndarray, err_b: np.ndarray) -> tuple[float, float]:
    """MSE_a - MSE_b and its SE, from paired per-repetition errors (sign of RMSE_a - RMSE_b)."""
    return paired(err_a**2 - err_b**2)


def fmt(value: float, se: float) -> str:
    return f"{value:+.4f} (SE {se:.4f})"


def judge(
    parts: Callable[[Any], list[Part]],
    main: Any,
    confirm: Any,
    *,
    method: str,
    domain: str,
    reproduce: str,
    extra: dict[str, Any] | None = None,
) -> Verdict:
    """The verdict of an empirical claim from its parts on the two runs (module docstring)."""
    first, second = parts(main), parts(confirm)
    evidence: dict[str, Any] = {}
    contradicted, open_ = [], []
    counterexamples: dict[str, list[str]] = {}
    for a, b in zip(first, second, strict=True):
        entry = a.evidence()
        if a.outcome != "supported" or b.outcome == "contradicted":
            entry["confirmation run"] = b.evidence()
        if b.outcome == "contradicted" and a.outcome != "supported":
            contradicted.append(a.paper)
            counterexamples[a.paper] = b.contradicted[:3]
        elif not (a.outcome == "supported" and b.outcome != "contradicted") and not (
            a.outcome == "undecided" and b.outcome == "supported"
        ):
            open_.append(a.paper)
        evidence[f"part {len(evidence) + 1}"] = entry
    evidence.update(extra or {})
    evidence["Monte Carlo rule"] = (
        f"cells judged at {Z:g} standard errors (normal) or exact Clopper-Pearson bounds at "
        f"alpha = {ALPHA:g} (coverage); a contradiction at the paper's size counts only when "
        "an independent run 20-100x larger contradicts the part too"
    )
    basis = [
        step(
            Kind.MONTE_CARLO,
            f"{len(first)} part(s) judged on the paper's run and a 20-100x larger "
            f"confirmation run ({Z:g} MC standard errors; Clopper-Pearson at alpha = {ALPHA:g})",
            domain=domain,
        )
    ]
    if contradicted:
        evidence["counterexample (confirmation run)"] = counterexamples
        evidence["finding"] = "contradicted, and confirmed on the larger run: " + "; ".join(
            f"{part} (e.g. {counterexamples[part][0]})" for part in contradicted
        )
        return Verdict(Status.REFUTED, method, evidence, reproduce=reproduce, basis=basis)
    if open_:
        evidence["finding"] = "not settled by either run: " + "; ".join(open_)
        return Verdict(Status.INCONCLUSIVE, method, evidence, reproduce=reproduce, basis=basis)
    evidence["finding"] = "every part supported by the reproduced numbers"
    return Verdict(
        Status.VERIFIED, method, evidence, reproduce=reproduce, domain=domain, basis=basis
    )
