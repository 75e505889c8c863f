"""Verdicts on printed global sensitivities (Liu 2019 §2.2, Table 1, §4.2; supplement §1-§5).

A printed sensitivity is compared with the exact one of
:func:`dpcheck.enumeration.sensitivity.exact_sensitivity` on every case of a
stated finite domain (sizes n, group layouts): ``verified`` on that domain
when they are equal everywhere, ``refuted`` at the first case where they
differ, with the classification ("loose": printed > exact, a valid but
wasteful calibration; "wrong": printed < exact, too little noise), a
maximising pair of data sets, and the ``dpcheck sensitivity`` command that
reproduces it.  Comparisons are exact (:func:`compare`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import combinations_with_replacement
from typing import Any

from dpcheck.claims.model import Kind, Status, Step, Verdict, merged_basis, step
from dpcheck.enumeration.sensitivity import SensitivityResult, exact_sensitivity
from dpcheck.papers.liu2019s_sensitivity import PRINTED, Printed, compare


@dataclass(frozen=True)
class Case:
    """One size (and group layout) at which a printed sensitivity is checked."""

    n: int
    groups: tuple[int, ...] | None = None
    categories: int = 2
    allow_singleton: bool = False

    def describe(self) -> str:
        text = f"n = {self.n}"
        if self.groups:
            text += f", groups {self.groups}"
        return text


def sizes(low: int, high: int, categories: int = 2) -> list[Case]:
    """Every n from ``low`` to ``high``."""
    return [Case(n, categories=categories) for n in range(low, high + 1)]


def layouts(groups: Iterable[int], sizes_: Sequence[int]) -> list[Case]:
    """Group layouts with J groups (J in ``groups``) of sizes in ``sizes_`` (up to order)."""
    return [
        Case(sum(layout), tuple(layout))
        for j in groups
        for layout in combinations_with_replacement(sizes_, j)
    ]


def command(stat: str, neighbours: str, case: Case) -> str:
    """The CLI command that reproduces one comparison."""
    parts = ["dpcheck sensitivity", stat, "--neighbours", neighbours, "--n", str(case.n)]
    if case.groups:
        parts += ["--groups", ",".join(map(str, case.groups))]
    if stat in ("histogram", "proportions"):
        parts += ["--categories", str(case.categories)]
    if case.allow_singleton:
        parts.append("--allow-singleton")
    return " ".join(parts)


@cache
def _exact(stat: str, neighbours: str, case: Case) -> SensitivityResult:
    return exact_sensitivity(
        stat,
        neighbours,
        case.n,
        case.groups,
        case.categories,
        allow_singleton=case.allow_singleton,
    )


def _eligible(result: SensitivityResult, case: Case) -> tuple[int, ...] | None:
    if not case.groups or result.changed_groups is None:
        return None
    return tuple(case.groups[i] for i in result.changed_groups)


def _witness_text(result: SensitivityResult) -> dict[str, str]:
    x, x_prime = result.witness

    def show(d: Any) -> str:
        return str(tuple(str(v) if not isinstance(v, tuple) else _tuple(v) for v in d))

    return {"x (unit bounds)": show(x), "x' (unit bounds)": show(x_prime)}


def _tuple(v: tuple) -> str:
    return "(" + ", ".join(str(e) if not isinstance(e, tuple) else _tuple(e) for e in v) + ")"


def _positive(value: Any) -> bool:
    """A sensitivity must be > 0 (exact: Fractions, or SymPy's sign of a closed form)."""
    import sympy

    if isinstance(value, sympy.Basic):
        return bool(value.is_positive)
    return bool(value > 0)


@dataclass(frozen=True)
class Row:
    case: Case
    exact: Any
    printed: Any
    outcome: str  # equal / loose / wrong / undecided
    result: SensitivityResult


def compare_cases(
    stat: str,
    neighbours: str,
    cases: Iterable[Case],
    printed_index: int = 0,
    printed: Printed | None = None,
) -> list[Row]:
    """Exact vs printed at every case (``printed``: a formula other than the supplement's
    ``PRINTED[(stat, neighbours)][printed_index]``, e.g. the main text's own)."""
    printed = printed or PRINTED[(stat, neighbours)][printed_index]
    rows = []
    for case in cases:
        result = _exact(stat, neighbours, case)
        value = printed.normalised(case.n, case.groups, _eligible(result, case))
        rows.append(Row(case, result.value, value, compare(value, result.value), result))
    return rows


def gs_verdict(
    stat: str,
    neighbours: str,
    cases: Sequence[Case],
    domain: str,
    printed_index: int = 0,
    scale: str = "",
    printed: Printed | None = None,
) -> Verdict:
    """Verified on ``domain`` if the printed formula is exact at every case, else refuted.

    ``printed`` replaces the supplement's formula (see :func:`compare_cases`)."""
    printed = printed or PRINTED[(stat, neighbours)][printed_index]
    rows = compare_cases(stat, neighbours, cases, printed_index, printed)
    outcomes = {o: sum(1 for r in rows if r.outcome == o) for o in ("equal", "loose", "wrong")}
    positive = all(_positive(r.printed) for r in rows)
    evidence: dict[str, Any] = {
        "printed": f"{printed.text}  ({printed.where})",
        "exact method": rows[0].result.method if rows else "",
        "cases checked": len(rows),
        "domain": domain,
        "outcomes": outcomes,
        "printed > 0 at every case": positive,
        "table (unit bounds; times " + (scale or "1") + ")": [
            f"{r.case.describe()}: exact {r.exact}, printed {r.printed} -> {r.outcome}"
            for r in rows[:40]
        ],
    }
    undecided = [r for r in rows if r.outcome == "undecided"]
    bad = [r for r in rows if r.outcome in ("loose", "wrong")]
    if bad:
        first = bad[0]
        kinds = sorted({r.outcome for r in bad})
        evidence["counterexample"] = {
            "case": first.case.describe(),
            "exact GS (unit bounds)": str(first.exact),
            "printed (unit bounds)": str(first.printed),
            "printed is": "an upper bound that is not attained (loose)"
            if first.outcome == "loose"
            else "below the true sensitivity (too little noise)",
            **_witness_text(first.result),
        }
        evidence["finding"] = (
            f"the printed formula is not the global sensitivity at {len(bad)} of {len(rows)} "
            f"cases ({', '.join(kinds)}); exact at {outcomes['equal']}"
        )
        return Verdict(
            Status.REFUTED,
            "exact sensitivity (rationals) at every case of the domain, compared exactly "
            "with the printed formula",
            evidence,
            reproduce=command(stat, neighbours, first.case),
            basis=[
                step(
                    Kind.ENUMERATION,
                    f"exact {stat} sensitivity ({neighbours}) in rationals differs from the "
                    f"printed formula ({first.outcome})",
                    domain=first.case.describe(),
                )
            ],
        )
    if undecided:
        evidence["undecided"] = [r.case.describe() for r in undecided]
        return Verdict(Status.INCONCLUSIVE, "exact comparison undecided at some cases", evidence)
    evidence["finding"] = "the printed formula is the exact sensitivity at every case: " + domain
    return Verdict(
        Status.VERIFIED,
        "exact sensitivity (rationals) at every case of the domain, equal to the printed formula",
        evidence,
        reproduce=command(stat, neighbours, cases[-1]),
        domain=domain,
        basis=[
            step(
                Kind.ENUMERATION,
                f"exact {stat} sensitivity ({neighbours}) in rationals equals the printed "
                f"formula at each of {len(rows)} cases",
                domain=domain,
            )
        ],
    )


def vertex_steps(what: str, domain: str) -> list[Step]:
    """The basis of an exact maximum of a sample variance over a box by vertex counts: the
    convexity step (checked symbolically) and the exact enumeration of vertex counts."""
    from dpcheck.enumeration.variance_range import hessian_is_projection

    return [
        step(
            Kind.SYMBOLIC,
            "the sample variance's Hessian 2/(m-1)(I - J/m) is a scaled projection "
            "((I - J/m)² = I - J/m with J² = mJ, symbolic m): convex, so a box maximum is at a "
            "vertex, fixed by the count of values at the upper end",
            checked=hessian_is_projection(),
        ),
        step(Kind.ENUMERATION, what, domain=domain),
    ]


def combine(parts: dict[str, Verdict], finding: str = "") -> Verdict:
    """One verdict from several (e.g. both neighbour definitions): refuted if any part is."""
    evidence: dict[str, Any] = {
        k: {"status": v.status.value, **v.evidence} for k, v in parts.items()
    }
    refuted = [k for k, v in parts.items() if v.status is Status.REFUTED]
    basis = merged_basis(parts)
    evidence["finding"] = finding or "; ".join(
        f"{k}: {v.evidence.get('finding', v.status.value)}" for k, v in parts.items()
    )
    if refuted:
        first = parts[refuted[0]]
        return Verdict(
            Status.REFUTED,
            f"refuted for {', '.join(refuted)}: " + first.method,
            evidence,
            reproduce=first.reproduce,
            basis=merged_basis({refuted[0]: first}),
        )
    if all(v.status is Status.VERIFIED for v in parts.values()):
        domain = "; ".join(f"{k}: {v.domain}" for k, v in parts.items())
        last = list(parts.values())[-1]
        return Verdict(Status.VERIFIED, last.method, evidence, last.reproduce, domain, basis=basis)
    return Verdict(Status.INCONCLUSIVE, "some part undecided", evidence, basis=basis)


__all__ = [
    "PRINTED",
    "Case",
    "combine",
    "command",
    "compare_cases",
    "gs_verdict",
    "layouts",
    "sizes",
]
