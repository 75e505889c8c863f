"""Shared fixtures: the liu2019 verdicts are computed once per test session."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def liu2019_results():
    from dpcheck.claims import registry, runner

    claims = registry.collect(ROOT / "proofs")
    chosen = runner.select(claims, ["liu2019"])
    return {r.claim.id: r for r in runner.run(chosen)}
