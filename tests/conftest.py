"""Shared fixtures: the liu2019 verdicts are computed once per test session."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def run_claims(patterns: list[str]) -> dict:
    """Run the claims matching ``patterns`` (ids, globs, prefixes); results by claim id."""
    from dpcheck.claims import registry, runner

    claims = registry.collect(ROOT / "proofs")
    chosen = runner.select(claims, patterns)
    return {r.claim.id: r for r in runner.run(chosen)}


@pytest.fixture(scope="session")
def liu2019_results():
    return run_claims(["liu2019"])


def _check_verdict(verdict, expected: str) -> None:
    """The contract every claim's verdict keeps (DESIGN.md, "Verdicts")."""
    import json

    assert verdict.status.value == expected, verdict.evidence
    assert verdict.reproduce.startswith("dpcheck ")
    assert verdict.evidence.get("finding")
    if verdict.status.value in ("proved", "verified"):
        assert verdict.domain, "a proved or verified verdict states its domain"
    from dpcheck.claims.rules import proved_problem

    assert verdict.basis, "every verdict states its basis"
    if verdict.status.value == "proved":
        assert proved_problem(verdict) is None
    if verdict.status.value in ("verified", "refuted") and not verdict.empirical:
        assert any(
            s.checked and s.kind.value != "sampling" and s.kind.value != "argument"
            for s in verdict.basis
        )
    text = json.dumps(verdict.evidence, default=str)
    if verdict.status.value == "refuted":
        assert any(k in text for k in ("witness", "counterexample", "fails at t")), text[:300]


@pytest.fixture(scope="session")
def check_verdict():
    """assert that a verdict has the expected status and keeps the verdict contract."""
    return _check_verdict
