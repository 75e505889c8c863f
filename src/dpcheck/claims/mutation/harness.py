"""The whole harness over documents: plan, usage map, baseline, mutant runs, and the
per-document reports."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from dpcheck.claims.mutation.mutants import Mutant, generate
from dpcheck.claims.mutation.running import MutantResult, baseline_context, run_all
from dpcheck.claims.mutation.selection import Selection, select
from dpcheck.claims.mutation.transcription import DOCUMENTS, PAPERS, Transcription, transcriptions
from dpcheck.claims.mutation.usage import Usage, record_usage


@dataclass
class DocumentReport:
    """Counts and survivors of one document."""

    document: str
    transcriptions: int = 0
    generated: int = 0
    examined: int = 0
    equivalent: int = 0
    undecided: int = 0
    unread_transcriptions: list[str] = field(default_factory=list)
    unstable_claims: list[str] = field(default_factory=list)
    results: list[MutantResult] = field(default_factory=list)
    equivalents: list[dict[str, str]] = field(default_factory=list)

    def count(self, outcome: str) -> int:
        return sum(1 for r in self.results if r.outcome == outcome)

    @property
    def run(self) -> int:
        return sum(1 for r in self.results if r.outcome != "unreached")

    @property
    def killed(self) -> int:
        return self.count("status") + self.count("outcome")

    @property
    def kill_rate(self) -> float:
        """killed / every selected non-equivalent mutant (unreached and timed out included)."""
        return self.killed / len(self.results) if self.results else 1.0

    @property
    def survivors(self) -> list[MutantResult]:
        return [r for r in self.results if r.outcome in ("survived", "unreached")]

    def row(self) -> dict[str, Any]:
        """The table row (JSON-ready)."""
        return {
            "document": self.document,
            "transcriptions": self.transcriptions,
            "unread transcriptions": len(self.unread_transcriptions),
            "mutants generated": self.generated,
            "examined": self.examined,
            "equivalent dropped": self.equivalent,
            "undecided (not run)": self.undecided,
            "mutants run": self.run,
            "unreached": self.count("unreached"),
            "killed (status)": self.count("status"),
            "killed (outcome)": self.count("outcome"),
            "survived": self.count("survived"),
            "timed out": self.count("timeout"),
            "kill rate": round(self.kill_rate, 4),
        }


@dataclass
class Plan:
    """Transcriptions and selected mutants of the documents, before running."""

    items: list[Transcription]
    selections: dict[str, Selection]
    mutants: list[Mutant]


def plan(
    documents: Sequence[str],
    per_transcription: int,
    progress: Callable[[str], None] | None = None,
) -> Plan:
    """Generate, filter and select the mutants of ``documents``."""
    items = [t for d in documents for t in transcriptions(d)]
    selections = {}
    for t in items:
        if progress:
            progress(t.key)
        selections[t.key] = select(generate(t), per_transcription)
    mutants = [m for t in items for m in selections[t.key].chosen]
    return Plan(items, selections, mutants)


def reports(
    p: Plan, usage: Usage, results: Sequence[MutantResult], unstable: Iterable[str] = ()
) -> list[DocumentReport]:
    """Per-document counts from a plan and its results (``unstable``: claims whose outcome
    signature differed between two unmutated runs; only their status is compared)."""
    unstable = set(unstable)
    out: dict[str, DocumentReport] = {}
    for t in p.items:
        r = out.setdefault(t.document, DocumentReport(t.document))
        sel = p.selections[t.key]
        r.transcriptions += 1
        r.generated += sel.generated
        r.examined += sel.examined
        r.equivalent += len(sel.equivalent)
        r.undecided += len(sel.undecided)
        r.equivalents += [
            {"key": t.key, "mutation": m.description, "shown by": how} for m, how in sel.equivalent
        ]
        if not usage.readers.get(t.key):
            r.unread_transcriptions.append(t.key)
        for cid in usage.readers.get(t.key, []):
            if cid in unstable and cid not in r.unstable_claims:
                r.unstable_claims.append(cid)
    for res in results:
        out[res.document].results.append(res)
    return list(out.values())


def run(
    documents: Sequence[str] = DOCUMENTS,
    per_transcription: int = 6,
    jobs: int = 1,
    seconds: float = 120.0,
    on_phase: Callable[[str, int | None], None] | None = None,
    on_step: Callable[[str], None] | None = None,
    on_result: Callable[[MutantResult], None] | None = None,
) -> list[DocumentReport]:
    """The whole harness: plan, usage map, baseline, mutant runs, per-document reports.

    ``on_phase(name, total)`` announces a phase and its number of steps (None: not known
    yet, announced again when it is); ``on_step`` and ``on_result`` are called per step
    (for a progress bar).
    """
    from dpcheck.claims import registry

    unknown = [d for d in documents if d not in PAPERS]
    if unknown:
        raise ValueError(f"unknown document(s) {unknown} (known: {', '.join(PAPERS)})")
    if on_phase:
        on_phase("generate mutants", sum(len(transcriptions(d)) for d in documents))
    p = plan(documents, per_transcription, on_step)

    def announce(total: int) -> None:
        if on_phase:
            on_phase("record usage and baseline verdicts", total)

    claims, usage = record_usage(registry.collect, p.items, announce, on_step)
    if on_phase:
        on_phase("baseline (warm) run", None)
    ctx = baseline_context(claims, usage, p.items, p.mutants, seconds)
    if on_phase:
        on_phase("run mutants", len(p.mutants))
    results = run_all(ctx, jobs, on_result)
    return reports(p, usage, results, ctx.unstable)
