"""Shared fixtures: the liu2019 verdicts are computed once per test session."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# The longest tests first (the CI-time budget, measured in CI's --durations list): with
# xdist's work stealing (``--dist worksteal`` in pyproject.toml) an idle worker takes the
# tests queued behind a long one, so a run no longer ends with one worker finishing a
# 17-minute test that happened to be collected last while the other waits.
LONGEST_FIRST = (
    "tests/test_mutation.py::test_kill_rate_of_every_document",  # slow: 1031 s
    "tests/test_privacy_extremes.py::test_bounded_epsilon_down_to_1e_1000",  # slow: to 211 s
    "tests/test_mechanism_values.py::test_continuous_full_grid",  # slow: to 142 s
    "tests/test_formula_hostile.py::test_generated_hostile_formulas_every_route",  # slow
    "tests/test_hostile_input.py",  # slow: 10 verbs, 32 subprocesses each
    "tests/test_api_hostile.py",
    "tests/test_readme.py::test_the_worked_example_runs_and_matches_the_readme",  # 91 s
    "tests/test_krand_bounds.py::test_common_n",  # 58 s and 40 s
    "tests/test_bounded_privacy.py::test_no_pair_on_a_grid_exceeds_the_certified_bound",
    "tests/test_profile.py::test_supremum_against_a_grid_of_pairs",
    "tests/test_cli_contracts.py",
    "tests/test_interrupts.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Run the known-long tests first (stable otherwise: collection order)."""

    def rank(item: pytest.Item) -> int:
        for i, prefix in enumerate(LONGEST_FIRST):
            if item.nodeid.startswith(prefix):
                return i
        return len(LONGEST_FIRST)

    items.sort(key=rank)


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
