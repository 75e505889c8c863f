"""Ranking, summaries and rendering of the rows (rich tables or JSON).

Ranks the :class:`~dpcheck.peers.diffprivlib.rows.Row` s per (diffprivlib 0.6.6
class, quantity), largest discrepancy first; picks the rows a table shows;
summarises each group (:class:`Summary`); prints the tables (relative error
against the exact values of Liu 2019 Definition 2 and Holohan et al. 2018's
scale, or the law test's statistic/critical ratio) or renders the JSON.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass

import mpmath
from mpmath import mpf

from dpcheck.peers.diffprivlib.law_test import ALPHA
from dpcheck.peers.diffprivlib.rows import Row, _fmt


@dataclass
class Summary:
    """One (mechanism, quantity): how many points, the worst error, the causes."""

    mechanism: str
    quantity: str
    checked: int
    worst: Row | None
    causes: dict[str, int]
    not_compared: int
    not_implemented: int

    #: the largest finite discrepancy (the worst may be a crash or a nan)
    worst_finite: Row | None = None

    def line(self) -> str:
        def at(row: Row | None) -> str:
            if row is None:
                return "-"
            return f"{_fmt(row.error)} ({row.measure}, {row.cause}) at {row.point.label()}"

        causes = ", ".join(f"{k} {v}" for k, v in sorted(self.causes.items()))
        text = f"{self.mechanism} {self.quantity}: {self.checked} checked, worst {at(self.worst)}"
        if self.worst_finite is not None and self.worst_finite is not self.worst:
            text += f"; worst finite {at(self.worst_finite)}"
        text += f"; {causes}" if causes else ""
        if self.not_implemented:
            text += f"; not implemented at {self.not_implemented} points"
        if self.not_compared:
            text += f"; {self.not_compared} not compared"
        return text


def _key(row: Row) -> mpf:
    return row.error if row.error is not None else mpf(-1)


def rank(rows: Sequence[Row]) -> dict[tuple[str, str], list[Row]]:
    """Rows per (mechanism, quantity), largest discrepancy first (crashes and nans first)."""
    groups: dict[tuple[str, str], list[Row]] = {}
    for row in rows:
        groups.setdefault((row.point.mechanism, row.quantity), []).append(row)
    for group in groups.values():
        group.sort(key=lambda r: (r.status != "not implemented", r.flagged, _key(r)), reverse=True)
    return groups


def shown(group: Sequence[Row], top: int, per_cause: int = 3) -> list[Row]:
    """The rows a table shows: at most ``per_cause`` of each cause first (so that one kind
    of failure, e.g. a crash repeated at every ε = 0 point, does not hide the others),
    then the next largest; ranked as :func:`rank` ranks them."""
    ranked = [r for r in group if r.status != "not compared"]
    first: list[Row] = []
    counts: dict[str, int] = {}
    for r in ranked:
        if counts.get(r.cause, 0) < per_cause and len(first) < top:
            counts[r.cause] = counts.get(r.cause, 0) + 1
            first.append(r)
    chosen = {id(r) for r in first}
    rest = [r for r in ranked if id(r) not in chosen][: top - len(first)]
    picked = {id(r) for r in first + rest}
    return [r for r in ranked if id(r) in picked]


def summarise(rows: Sequence[Row]) -> list[Summary]:
    out = []
    for (mech, q), group in rank(rows).items():
        compared = [r for r in group if r.status in ("compared", "crash")]
        causes: dict[str, int] = {}
        for r in compared:
            causes[r.cause] = causes.get(r.cause, 0) + 1
        worst = max(compared, key=lambda r: (r.flagged, _key(r)), default=None)
        finite = [r for r in compared if r.error is not None and mpmath.isfinite(r.error)]
        out.append(
            Summary(
                mech,
                q,
                len(compared),
                worst,
                causes,
                sum(r.status == "not compared" for r in group),
                sum(r.status == "not implemented" for r in group),
                max(finite, key=_key, default=None),
            )
        )
    return out


def render_json(
    groups: dict[tuple[str, str], list[Row]], summaries: list[Summary], top: int
) -> str:
    """The ``--json`` output: the shown rows per group and the summary lines."""
    data = {
        "floor": "error = |lib - exact| / max(|exact|, 1e-12·min(λ, R)^k)",
        "alpha": ALPHA,
        "groups": [
            {"mechanism": m, "quantity": q, "rows": [r.as_dict() for r in shown(g, top)]}
            for (m, q), g in groups.items()
        ],
        "summary": [s.line() for s in summaries],
    }
    return json.dumps(data, indent=2, ensure_ascii=False)


def print_tables(
    groups: dict[tuple[str, str], list[Row]], summaries: list[Summary], top: int
) -> None:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    console = Console(width=None if sys.stdout.isatty() else 220, soft_wrap=False)
    console.print(
        "diffprivlib 0.6.6 vs dpcheck's exact values.  error = |lib - exact| /"
        " max(|exact|, 1e-12·min(λ, R)^k) (k = 1 bias, 2 variance); law: D_n / DKW threshold"
        f" and log p / log(ALPHA/4) for the bound counts, >= 1 flagged (ALPHA = {ALPHA:g}"
        " per point).",
        highlight=False,
        markup=False,
    )
    for (mech, q), group in groups.items():
        rows = shown(group, top)
        skipped = [r for r in group if r.status == "not compared"]
        if rows:
            table = Table(title=f"diffprivlib {mech}.{q}: largest discrepancies", show_lines=True)
            measures = {r.measure for r in rows}
            measure = measures.pop() if len(measures) == 1 else "statistic/critical (>= 1: flagged)"
            for col in ("parameters", "diffprivlib", "exact", measure, "diagnosis"):
                table.add_column(col, overflow="fold")
            table.add_column("reproduce", overflow="fold", no_wrap=False)
            for r in rows:
                cells = (r.point.label(), r.library, r.exact, _fmt(r.error), r.diagnosis, r.command)
                table.add_row(*(Text(c) for c in cells))
            console.print(table)
        reasons: dict[str, int] = {}
        for r in skipped:
            reasons[r.diagnosis] = reasons.get(r.diagnosis, 0) + 1
        for reason, count in reasons.items():
            console.print(
                f"  {mech}.{q}: not compared at {count} points: {reason}",
                highlight=False,
                markup=False,
            )
    console.print()
    for s in summaries:
        console.print(s.line(), highlight=False, markup=False)
