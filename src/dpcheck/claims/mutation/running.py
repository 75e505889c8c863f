"""Step 4, run: the baseline, and each mutant swapped in place while the claims that read
it run under a time budget (optionally in forked workers)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from dpcheck.claims.model import Claim
from dpcheck.claims.mutation.mutants import Mutant
from dpcheck.claims.mutation.signatures import Signature, first_change, signature
from dpcheck.claims.mutation.timeouts import MutantTimeout, budget
from dpcheck.claims.mutation.transcription import Transcription, _text
from dpcheck.claims.mutation.usage import Usage, clear


@contextmanager
def swapped(obj: Any, attr: str, value: Any) -> Iterator[None]:
    """Set ``obj.<attr> = value`` in place on a frozen dataclass; restored on exit, always."""
    old = obj.__dict__[attr]
    object.__setattr__(obj, attr, value)
    try:
        yield
    finally:
        object.__setattr__(obj, attr, old)


@dataclass
class MutantResult:
    """What happened to one mutant."""

    document: str
    key: str
    label: str
    kind: str
    description: str
    claims: list[str]
    outcome: str  # "status", "outcome", "survived", "unreached", "timeout"
    changes: list[str] = field(default_factory=list)
    reason: str = ""
    seconds: float = 0.0

    @property
    def killed(self) -> bool:
        return self.outcome in ("status", "outcome")


@dataclass
class Context:
    """Everything a (possibly forked) worker needs to run a mutant."""

    claims: dict[str, Claim]
    usage: Usage
    baseline: dict[str, Signature]
    masks: dict[str, list[str]]
    unstable: set[str]
    mutants: list[Mutant]
    seconds: float


def run_claims_for(
    m: Mutant | None,
    claim_ids: Sequence[str],
    ctx: Context,
    extra_masks: Sequence[str] = (),
) -> dict[str, Signature]:
    """Run the claims (mutant swapped in, if any), clearing dependent caches around it."""
    from dpcheck.claims.runner import run_one

    out = {}
    clear(ctx.usage.caches)
    try:
        with _maybe_swapped(m):
            for cid in claim_ids:
                v = run_one(ctx.claims[cid]).verdict
                out[cid] = signature(v, [*ctx.masks.get(cid, []), *extra_masks])
    finally:
        clear(ctx.usage.caches)
    return out


@contextmanager
def _maybe_swapped(m: Mutant | None) -> Iterator[None]:
    if m is None:
        yield
        return
    with swapped(m.transcription.obj, m.transcription.attr, m.value):
        yield


def compare(
    baseline: Mapping[str, Signature], got: Mapping[str, Signature], unstable: set[str]
) -> tuple[str, list[str]]:
    """("status" | "outcome" | "survived", the changes) of a mutant's signatures."""
    status = [
        f"{cid}: {baseline[cid][0]} -> {sig[0]}"
        for cid, sig in got.items()
        if sig[0] != baseline[cid][0]
    ]
    if status:
        return "status", status
    outcome = [
        f"{cid}: {first_change(baseline[cid][1], sig[1])}"
        for cid, sig in got.items()
        if cid not in unstable and sig[1] != baseline[cid][1]
    ]
    return ("outcome", outcome) if outcome else ("survived", [])


def run_mutant(index: int, ctx: Context) -> MutantResult:
    """Swap mutant ``index`` in, run its claims, compare with the baseline."""
    m = ctx.mutants[index]
    t = m.transcription
    claim_ids = ctx.usage.readers.get(t.key, [])
    res = MutantResult(t.document, t.key, t.label, m.kind, m.description, list(claim_ids), "")
    if not claim_ids:
        res.outcome = "unreached"
        res.reason = "no claim reads it" + (
            " (read only at import time)" if t.key in ctx.usage.import_reads else ""
        )
        return res
    start = time.perf_counter()
    try:
        with budget(ctx.seconds):
            got = run_claims_for(m, claim_ids, ctx, [_text(m.value)])
    except MutantTimeout:
        res.outcome, res.reason = "timeout", f"over {ctx.seconds:g} s"
    else:
        res.outcome, res.changes = compare(ctx.baseline, got, ctx.unstable)
        if res.outcome == "survived":
            res.reason = _why(claim_ids, ctx)
    res.seconds = round(time.perf_counter() - start, 2)
    return res


def _why(claim_ids: Sequence[str], ctx: Context) -> str:
    statuses = sorted({ctx.baseline[c][0] for c in claim_ids})
    text = "verdicts and outcome values unchanged (baseline " + "/".join(statuses) + ")"
    if any(c in ctx.unstable for c in claim_ids):
        text += "; some claim is unstable (outcomes not compared)"
    return text


_CTX: Context | None = None


def _work(index: int) -> MutantResult:
    assert _CTX is not None
    return run_mutant(index, _CTX)


def run_all(
    ctx: Context, jobs: int = 1, progress: Callable[[MutantResult], None] | None = None
) -> list[MutantResult]:
    """Run every mutant of ``ctx`` (forked workers when ``jobs`` > 1), in mutant order."""
    global _CTX
    _CTX = ctx
    results: dict[int, MutantResult] = {}
    indices = list(range(len(ctx.mutants)))
    if jobs > 1 and len(indices) > 1:
        import multiprocessing as mp

        with mp.get_context("fork").Pool(jobs) as pool:
            for i, r in zip(indices, pool.imap(_work, indices, chunksize=1), strict=True):
                results[i] = r
                if progress:
                    progress(r)
    else:
        for i in indices:
            results[i] = run_mutant(i, ctx)
            if progress:
                progress(results[i])
    _CTX = None
    return [results[i] for i in indices]


def baseline_context(
    claims: Sequence[Claim],
    usage: Usage,
    items: Sequence[Transcription],
    mutants: list[Mutant],
    seconds: float,
) -> Context:
    """Run the baseline (claims that read a transcription, unmutated) and build the context."""
    by_id = {c.id: c for c in claims}
    masks: dict[str, list[str]] = {}
    for t in items:
        for cid in usage.readers.get(t.key, []):
            masks.setdefault(cid, []).append(t.text)
    ctx = Context(by_id, usage, {}, masks, set(), mutants, seconds)
    used = [c.id for c in claims if c.id in masks]
    ctx.baseline = run_claims_for(None, used, ctx)
    recorded = {cid: signature(usage.verdicts[cid], masks[cid]) for cid in used}
    ctx.unstable = {cid for cid in used if recorded[cid] != ctx.baseline[cid]}
    return ctx
