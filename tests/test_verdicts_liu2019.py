"""Regression test of every liu2019 verdict in scope of the core issue.

The expected statuses are what the checks established (see README); a change
here means a derivation, a transcription or a check changed behaviour.
"""

from __future__ import annotations

import json

import pytest

EXPECTED = {
    "liu2019.eq3.gg_density": "proved",
    "liu2019.eq3.gg_density_journal": "refuted",
    "liu2019.eq4.normalizer": "proved",
    "liu2019.eq5.bit_law": "refuted",
    "liu2019.def2.rejection_law": "proved",
    "liu2019.def2.clamp_law": "refuted",
    "liu2019.def2.privacy_truncated": "refuted",
    "liu2019.def2.privacy_bit": "proved",
    "liu2019.sec31.limit_uniform": "proved",
    "liu2019.sec31.limit_two_point": "proved",
    "liu2019.remark1.sum_bounds": "proved",
    "liu2019.eq6.mu1": "proved",
    "liu2019.eq7.mu2": "proved",
    "liu2019.prop1.a": "proved",
    "liu2019.prop1.b": "proved",
    "liu2019.prop1.c": "proved",
    "liu2019.prop1.local_bounds": "proved",
    "liu2019.remark2.budget_split": "proved",
    "liu2019.eq9.one_sided_lower": "proved",
    "liu2019.eq10.one_sided_upper": "proved",
    "liu2019.remark3.gap_lower": "proved",
    "liu2019.remark3.range_lower": "refuted",
    "liu2019.remark3.gap_lower_sign": "proved",
    "liu2019.remark3.gap_upper": "proved",
    "liu2019.remark3.range_upper": "refuted",
    "liu2019.remark3.gap_upper_sign": "proved",
    "liu2019.prop2.bound": "proved",
    "liu2019.prop2.rate": "proved",
    "liu2019.prop3.a": "proved",
    "liu2019.prop3.b": "proved",
    "liu2019.appA.mean_chain": "proved",
    "liu2019.appA.bit_mean": "proved",
    "liu2019.appA.parta_derivatives": "refuted",
    "liu2019.appA.partc_chain": "proved",
    "liu2019.appA.partc_derivatives": "refuted",
    "liu2019.appB.truncated_moments": "proved",
    "liu2019.appB.truncated_mse_AB": "proved",
    "liu2019.appB.truncated_mse_chain": "refuted",
    "liu2019.appB.truncated_mse_sign": "refuted",
    "liu2019.appB.bit_moments": "proved",
    "liu2019.appB.bit_mse": "proved",
    "liu2019.table1.variance_range": "refuted",
    "liu2019.table1.gs": "verified",
    "liu2019.gs.mean": "verified",
    "liu2019.gs.variance": "verified",
    "liu2019.gs.sd_not_sqrt": "refuted",
    "liu2019.sim2.gs_proportions": "refuted",
    "liu2019.sim1.findings": "refuted",
    "liu2019.sim2.rescaling": "refuted",
    "liu2019.sim2.multiple_synthesis": "verified",
    "liu2019.sim2.all_but_one": "refuted",
    "liu2019.sim2.uh_vs_rescaling": "verified",
    "liu2019.sim2.uh_consistency": "proved",
    "liu2019.sim2.uh_least_squares": "proved",
}


def test_every_in_scope_claim_is_registered(liu2019_results):
    assert set(EXPECTED) <= set(liu2019_results)


@pytest.mark.parametrize("claim_id", sorted(EXPECTED))
def test_verdict(liu2019_results, check_verdict, claim_id):
    verdict = liu2019_results[claim_id].verdict
    check_verdict(verdict, EXPECTED[claim_id])
    json.dumps(verdict.evidence, default=str)


def test_refutations_carry_exact_evidence(liu2019_results):
    """Each refutation names a concrete counterexample (witness point or exact case)."""
    for claim_id, status in EXPECTED.items():
        if status != "refuted":
            continue
        text = json.dumps(liu2019_results[claim_id].verdict.evidence, default=str)
        assert any(k in text for k in ("witness", "counterexample", "fails at t")), claim_id


def test_truncated_mse_chain_reports_first_broken_line(liu2019_results):
    ev = liu2019_results["liu2019.appB.truncated_mse_chain"].verdict.evidence
    assert ev["B - 2sA lines"]["first_broken_line"] == "App. B, B - 2sA line 1"
    witness = ev["boxed closed form vs derived MSE"]["witness"]
    assert witness["point"] == {"c_0": "0", "c_1": "1", "lambda": "1", "s": "0"}


def test_eq5_total_mass(liu2019_results):
    ev = liu2019_results["liu2019.eq5.bit_law"].verdict.evidence
    assert ev["components vs the law of clamp(Lap(s, lambda))"]["mass at c1"]["status"] == "refuted"
    assert ev["components vs the law of clamp(Lap(s, lambda))"]["mass at c0"]["status"] == "proved"


def _appendix_b():  # type: ignore[no-untyped-def]
    """The App. B proof module (its derived reference for B - 2sA)."""
    from conftest import ROOT

    from dpcheck.claims import registry

    registry.collect(ROOT / "proofs")
    import sys

    return sys.modules["dpcheck_proofs.liu2019.70_appendix_b"]


def test_b_minus_2sa_reference_lets_a_correct_chain_be_proved():
    """App. B defines E(s*) = s + A/(1-p1-p2) and E(s*^2) = B/(1-p1-p2), so
    B - 2sA = (E s*^2 - 2s E s* + 2s^2)(1 - p1 - p2).  A correct chain must come out
    proved against the reference, and the old reference (without + 2s^2(1 - p1 - p2))
    must not prove it."""
    import sympy as sp

    from dpcheck.claims import checks as ck
    from dpcheck.claims.model import Status
    from dpcheck.papers import liu2019 as P
    from dpcheck.symbolic import laplace_family as lf
    from dpcheck.symbolic.symbols import p1, p2, s

    ref = _appendix_b().derived_b_minus_2sa()
    printed = P.APPB_B.expr - 2 * s * P.APPB_A.expr
    q = 1 - p1 - p2
    correct = [
        ("B - 2sA from the printed A and B", printed),
        ("expanded", sp.expand(printed)),
        ("through the moments", (lf.quantity("truncated", "mse") + s**2) * q),
    ]
    v = ck.chain(correct, ref, reference_name="derived B - 2sA")
    assert v.status is Status.PROVED, v.evidence
    old = (lf.quantity("truncated", "second_moment") - 2 * s * lf.quantity("truncated", "mean")) * q
    assert ck.chain(correct, old).status is not Status.PROVED
    # and a chain with a wrong last line is refuted at that line
    wrong = [*correct, ("dropped 2s^2", (lf.quantity("truncated", "mse") - s**2) * q)]
    bad = ck.chain(wrong, ref)
    assert bad.status is Status.REFUTED and bad.evidence["first_broken_line"] == "dropped 2s^2"
