"""The supplement's global sensitivities (Liu 2019, supplement §1-§5): verdict snapshot,
and the comparison with the printed formulas can fail.

The identity claims have their own snapshot (tests/test_liu2019s_identities.py).
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest
from conftest import run_claims

from dpcheck.claims import sensitivity as gs
from dpcheck.papers import liu2019s_sensitivity as printed

ROOT = Path(__file__).resolve().parents[1]

EXPECTED = {
    "liu2019s.s1.mean_def1": "verified",
    "liu2019s.s1.mean_def2": "verified",
    "liu2019s.s1.proportion": "verified",
    "liu2019s.s1.histogram_def1": "verified",
    "liu2019s.s1.histogram_def2": "verified",
    "liu2019s.s1.proportions_def1": "verified",
    "liu2019s.s1.proportions_def2": "refuted",
    "liu2019s.s2.variance_def1": "verified",
    "liu2019s.s2.variance_def2_case1": "refuted",
    "liu2019s.s2.variance_def2": "verified",
    "liu2019s.s3.covariance_def1": "verified",
    "liu2019s.s3.covariance_def2": "verified",
    "liu2019s.s4.pooled_variance_def1": "verified",
    "liu2019s.s4.pooled_variance_def2": "refuted",
    "liu2019s.s5.pooled_covariance_def1": "verified",
    "liu2019s.s5.pooled_covariance_def2": "refuted",
    "liu2019s.s5.pooled_covariance_def2_cases": "verified",
    "liu2019s.shiffler_harsha": "refuted",
}


@pytest.fixture(scope="module")
def results():
    return run_claims(list(EXPECTED))


@pytest.mark.parametrize("claim_id", sorted(EXPECTED))
def test_verdict(results, check_verdict, claim_id):
    check_verdict(results[claim_id].verdict, EXPECTED[claim_id])


def test_proportions_remove_is_two_over_n(results):
    ev = json.dumps(results["liu2019s.s1.proportions_def2"].verdict.evidence)
    assert "exact 2/5, printed 1/5 -> wrong" in ev


def test_pooled_covariance_eq5_never_below_exact(results):
    ev = results["liu2019s.s5.pooled_covariance_def2"].verdict.evidence
    assert ev["eq (5)"]["outcomes"]["wrong"] == 0
    assert ev["eq (5)"]["outcomes"]["loose"] > 0 and ev["eq (5)"]["outcomes"]["equal"] > 0
    steps = ev["displayed steps of §5 Def 2"]
    assert [s["status"] for s in steps].count("false") == 1  # line 4 (x/y means swapped)


@pytest.mark.parametrize(
    ("formula", "outcome"),
    [
        (lambda n, g, e: Fraction(2, n), "loose"),  # twice the true R^2/n
        (lambda n, g, e: Fraction(1, n + 1), "wrong"),  # a little too small
        (lambda n, g, e: Fraction(1, n) if n < 9 else Fraction(1, n - 1), "loose"),
    ],
)
def test_a_wrong_printed_formula_is_refuted(monkeypatch, formula, outcome):
    entry = printed.PRINTED[("variance", "substitute")][0]
    fake = printed.Printed(entry.where, "fake", formula)
    monkeypatch.setitem(printed.PRINTED, ("variance", "substitute"), (fake,))
    v = gs.gs_verdict("variance", "substitute", gs.sizes(2, 10), "n = 2..10")
    assert v.status.value == "refuted"
    assert v.evidence["outcomes"][outcome] >= 1
    assert v.reproduce.startswith("dpcheck sensitivity variance --neighbours substitute --n ")


def test_layouts_and_commands():
    cases = gs.layouts([2], [2, 3])
    assert [c.groups for c in cases] == [(2, 2), (2, 3), (3, 3)]
    case = gs.Case(6, (2, 2, 2), allow_singleton=True)
    assert gs.command("pooled_variance", "remove", case) == (
        "dpcheck sensitivity pooled_variance --neighbours remove --n 6 --groups 2,2,2"
        " --allow-singleton"
    )
