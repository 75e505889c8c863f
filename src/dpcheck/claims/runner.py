"""Selecting and running claims (``dpcheck verify``)."""

from __future__ import annotations

import fnmatch
import time
import traceback
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from dpcheck.claims.model import SETTLED, Claim, Status, Verdict
from dpcheck.claims.rules import enforce
from dpcheck.errors import InputError


@dataclass
class Result:
    """A claim with its verdict."""

    claim: Claim
    verdict: Verdict


#: characters that make a pattern a glob (:func:`fnmatch.fnmatchcase`); claim ids have none
GLOB_CHARS = frozenset("*?[")


def select(claims: list[Claim], patterns: Iterable[str]) -> list[Claim]:
    """The claims any pattern selects, in registry order (README, "Usage"; issue 20).

    * an exact claim id selects that claim alone (``zz2016.prop4.1``, not
      ``zz2016.prop4.1.proof_identities``);
    * a glob selects the ids it matches (``'liu2019.prop1.*'``, ``'zz2016.prop4.1*'``);
    * a pattern ending in a dot selects the ids that start with it (``liu2019.appB.``,
      ``liu2019.``);
    * a bare document name, without a dot (``liu2019``), selects the document's
      claims: a claim id always has a dot (:data:`dpcheck.claims.registry._ID`), so
      it is never an id itself.

    Anything else (e.g. ``liu2019.appB``, which is no id) is an InputError that
    names the pattern and how to select the claims below it.
    """
    patterns = list(patterns)
    if not patterns:
        return list(claims)
    chosen: list[Claim] = []
    for pattern in patterns:
        hits = [c for c in claims if _matches(c.id, pattern)]
        if not hits:
            below = [c for c in claims if c.id.startswith(pattern + ".")]
            hint = (
                f"; for the {len(below)} claims below it use '{pattern}.' or '{pattern}*'"
                if below
                else ""
            )
            raise InputError(f"no claim matches {pattern!r}{hint} (see: dpcheck verify --list)")
        chosen += [c for c in hits if c not in chosen]
    order = {c.id: i for i, c in enumerate(claims)}
    return sorted(chosen, key=lambda c: order[c.id])


def _matches(claim_id: str, pattern: str) -> bool:
    """Whether ``pattern`` selects ``claim_id`` (the rules of :func:`select`)."""
    if GLOB_CHARS & set(pattern):
        return fnmatch.fnmatchcase(claim_id, pattern)
    if pattern.endswith("."):
        return claim_id.startswith(pattern)
    if "." not in pattern:
        return claim_id.startswith(pattern + ".")
    return claim_id == pattern


def run_one(claim: Claim) -> Result:
    """Run a claim's check; a crash becomes an inconclusive verdict with the error.

    The verdict table is enforced here, on every verdict (:func:`dpcheck.claims.rules.enforce`).
    """
    start = time.perf_counter()
    try:
        verdict = claim.check()
    except Exception as exc:  # noqa: BLE001 - a crashing check must not stop the run
        verdict = Verdict(
            Status.INCONCLUSIVE,
            "crashed",
            {
                "crashed": True,
                "error": f"{type(exc).__name__}: {exc}",
                "traceback": traceback.format_exc(limit=4),
            },
        )
    if not isinstance(verdict, Verdict):
        verdict = Verdict(
            Status.INCONCLUSIVE,
            "crashed",
            {
                "crashed": True,
                "error": f"the check returned {type(verdict).__name__}, not a Verdict",
            },
        )
    enforce(verdict)
    verdict.seconds = round(time.perf_counter() - start, 3)
    if not verdict.reproduce:
        verdict.reproduce = f"dpcheck verify {claim.id}"
    return Result(claim, verdict)


def run(claims: list[Claim], progress: Callable[[Claim], None] | None = None) -> list[Result]:
    """Run the claims in order; ``progress`` is called before each one."""
    results = []
    for claim in claims:
        if progress:
            progress(claim)
        results.append(run_one(claim))
    return results


def summary(results: list[Result]) -> dict[str, Any]:
    """Count of each status over the deductive verdicts (all four always present), and
    under ``"empirical"`` the same counts for the empirical (Monte Carlo) verdicts."""
    counts: dict[str, Any] = {s.value: 0 for s in Status}
    empirical = {s.value: 0 for s in Status}
    for r in results:
        (empirical if r.verdict.empirical else counts)[r.verdict.status.value] += 1
    counts["empirical"] = empirical
    return counts


def summary_line(results: list[Result]) -> str:
    """The summary as one line: deductive counts, then the empirical ones apart."""
    return summary_text(summary(results))


def summary_text(counts: dict[str, Any]) -> str:
    """:func:`summary`'s counts as one line."""
    counts = dict(counts)
    emp = counts.pop("empirical", {})
    line = ", ".join(f"{k}: {v}" for k, v in counts.items())
    if any(emp.values()):
        line += "; empirical (Monte Carlo): " + ", ".join(f"{k}: {v}" for k, v in emp.items() if v)
    return line


def exit_code(results: list[Result]) -> int:
    """0 when every verdict settles its claim, 1 otherwise (DESIGN.md)."""
    return 0 if all(r.verdict.status in SETTLED for r in results) else 1
