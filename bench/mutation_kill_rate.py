"""Mutation kill rate of the claim checks, per document (dpcheck.claims.mutation).

Generates one-place mutants of every transcription, drops the equivalent ones,
swaps each remaining mutant into its Equation in place, re-runs the claims that
read it and counts the mutants whose verdict changes (status, or the outcome
signature of the evidence; see the docstring of dpcheck.claims.mutation).
Prints the per-document table, the survivors and the elapsed time.  Target:
a kill rate of at least 95 % of the non-equivalent mutants in every document.

    python bench/mutation_kill_rate.py
    python bench/mutation_kill_rate.py --documents liu2019 liu2019s --per-transcription 4 \\
        --jobs 2 --json /tmp/mutation.json
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from dpcheck.claims import mutation  # noqa: E402

TARGET = 0.95


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--documents", nargs="+", default=list(mutation.DOCUMENTS))
    ap.add_argument("--per-transcription", type=int, default=6, metavar="N")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--seconds", type=float, default=120.0, help="time budget per mutant")
    ap.add_argument("--json", type=Path, metavar="FILE", help="write everything as JSON")
    ap.add_argument(
        "--summary",
        type=Path,
        metavar="FILE",
        help="write the per-document table and the survivors as JSON (the README's source: "
        "docs/mutation_kill_rate.json, python -m dpcheck.readme)",
    )
    return ap.parse_args(argv)


def run_with_progress(args: argparse.Namespace, console: Console) -> list[Any]:
    columns = [
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.fields[what]}"),
    ]
    with Progress(*columns, console=console, transient=False) as bar:
        state: dict[str, Any] = {"task": None}

        def on_phase(name: str, total: int | None) -> None:
            if state["task"] is not None:
                bar.update(state["task"], what="done")
                bar.stop_task(state["task"])
            state["task"] = bar.add_task(name, total=total, what="")

        def on_step(what: str) -> None:
            bar.update(state["task"], advance=1, what=escape(what[:50]))

        def on_result(r: mutation.MutantResult) -> None:
            bar.update(state["task"], advance=1, what=escape(f"{r.key[:30]}: {r.outcome}"))

        reports = mutation.run(
            args.documents,
            args.per_transcription,
            args.jobs,
            args.seconds,
            on_phase=on_phase,
            on_step=on_step,
            on_result=on_result,
        )
        bar.update(state["task"], what="done")
        bar.stop_task(state["task"])
    return reports


def table(reports: list[mutation.DocumentReport]) -> Table:
    t = Table(title="mutation kill rate per document")
    rows = [r.row() for r in reports]
    for col in rows[0]:
        t.add_column(col, justify="left" if col == "document" else "right")
    for row in rows:
        cells = [f"{v:.1%}" if k == "kill rate" else str(v) for k, v in row.items()]
        t.add_row(*cells)
    return t


def survivors(reports: list[mutation.DocumentReport]) -> Table:
    t = Table(title="survivors", show_lines=False)
    for col in ("document", "transcription", "label", "mutation", "claims", "why"):
        t.add_column(col, overflow="fold")
    for r in reports:
        for s in r.survivors:
            cells = (
                r.document,
                s.key,
                s.label[:40],
                f"{s.kind}: {s.description}",
                ", ".join(s.claims) or "-",
                s.reason,
            )
            t.add_row(*map(escape, cells))
    return t


def as_json(
    reports: list[mutation.DocumentReport], seconds: float, args: argparse.Namespace, full: bool
) -> dict[str, Any]:
    """Everything (``full``), or the table and the survivors (the README's source)."""
    command = (
        f"python bench/mutation_kill_rate.py --documents {' '.join(args.documents)} "
        f"--per-transcription {args.per_transcription} --jobs {args.jobs}"
    )
    docs = []
    for r in reports:
        row: dict[str, Any] = {
            **r.row(),
            "unread transcriptions list": r.unread_transcriptions,
            "unstable claims (status compared only)": r.unstable_claims,
        }
        if full:
            row["equivalent mutants"] = r.equivalents
            row["results"] = [vars(x) for x in r.results]
        else:
            row["survivors"] = [
                {
                    "key": s.key,
                    "mutation": f"{s.kind}: {s.description}",
                    "claims": s.claims,
                    "reason": s.reason,
                }
                for s in r.survivors
            ]
        docs.append(row)
    return {
        "seconds": round(seconds, 1),
        "per transcription": args.per_transcription,
        "jobs": args.jobs,
        "command": command,
        "documents": docs,
    }


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    console = Console(width=None if sys.stdout.isatty() else 200)
    start = time.perf_counter()
    reports = run_with_progress(args, console)
    elapsed = time.perf_counter() - start
    console.print(table(reports))
    if any(r.survivors for r in reports):
        console.print(survivors(reports))
    for r in reports:
        if r.unstable_claims:
            console.print(escape(f"{r.document}: unstable claims {r.unstable_claims}"))
    timed = [x for r in reports for x in r.results if x.outcome == "timeout"]
    for x in timed:
        console.print(escape(f"timed out: {x.document} {x.key} {x.description} ({x.reason})"))
    console.print(f"elapsed: {elapsed:.1f} s (jobs = {args.jobs})")
    if args.json:
        args.json.write_text(json.dumps(as_json(reports, elapsed, args, True), default=str))
    if args.summary:
        text = json.dumps(as_json(reports, elapsed, args, False), indent=1, default=str)
        args.summary.write_text(text + "\n")
    missed = [r.document for r in reports if r.kill_rate < TARGET]
    console.print(
        f"target kill rate >= {TARGET:.0%}: "
        + ("met in every document" if not missed else f"NOT met in {', '.join(missed)}")
    )
    return 0 if not missed else 1


if __name__ == "__main__":
    raise SystemExit(main())
