"""Zhilyaev and Zeber (2016): the verdict of every zz2016 claim, and what the evidence says.

The identity checks can fail (tests/test_symbolic_krand.py), as can the exhaustive scans
(tests/test_krand_exhaustive.py); here the verdicts themselves are pinned.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import run_claims

ROOT = Path(__file__).resolve().parents[1]

EXPECTED = {
    "zz2016.prop1.1": "proved",
    "zz2016.sec2.bit_pmf": "proved",
    "zz2016.sec2.rr_equivalence": "proved",
    "zz2016.eq2.1": "verified",
    "zz2016.sec3.full_support": "proved",
    "zz2016.eq3.1": "verified",
    "zz2016.sec3.max_ratio": "proved",
    "zz2016.general_L.max_ratio": "verified",
    "zz2016.sec4.sum_of_binomials": "proved",
    "zz2016.sec4.ratio_cases": "proved",
    "zz2016.sec4.1.shift_bullets": "proved",
    "zz2016.eq4.1": "proved",
    "zz2016.eq4.2": "proved",
    "zz2016.lemma4.1": "proved",
    "zz2016.eq4.4": "proved",
    "zz2016.sec4.2.gamma_mean": "proved",
    "zz2016.sec4.2.pi_via_rho": "proved",
    "zz2016.sec4.4.cdf_recursions": "proved",
    "zz2016.sec4.4.cdf_differences": "proved",
    "zz2016.sec4.4.pmf_differences": "proved",
    "zz2016.sec4.5.pi_ratio_identity": "proved",
    "zz2016.sec4.8.moments": "proved",
    "zz2016.sec4.2.rho_monotone_s": "proved",
    "zz2016.sec4.2.rho_monotone_m": "proved",
    "zz2016.sec4.5.pi_monotone": "proved",
    "zz2016.sec4.3.R_monotone": "proved",
    "zz2016.prop4.1": "refuted",
    "zz2016.prop4.1.proof_identities": "refuted",
    "zz2016.sec4.6.quantile_step": "proved",
    "zz2016.sec4.6.quantile_iff": "proved",
    "zz2016.sec4.8.location_shift": "verified",
    "zz2016.claim5.1": "proved",
    "zz2016.claim5.1.binomial_ratio": "proved",
    "zz2016.sec5.x1_zero": "verified",
    "zz2016.lemma6.1": "proved",
    "zz2016.lemma6.2": "proved",
    "zz2016.cor6.1": "proved",
    "zz2016.lemma6.3": "proved",
}


@pytest.fixture(scope="module")
def results():
    return run_claims(["zz2016"])


CATALOGUE = [ROOT.parent / "shared" / "CLAIMS.md", Path("/work/shared/CLAIMS.md")]


def test_every_catalogued_zz2016_claim_is_registered(results):
    found = [p for p in CATALOGUE if p.is_file()]
    if not found:
        pytest.skip("the shared claim catalogue (../shared/CLAIMS.md) is not on this machine")
    text = found[0].read_text()
    catalogued = set(re.findall(r"^\| (zz2016\.[^ ]+) \|", text, flags=re.M))
    assert catalogued == set(EXPECTED) == set(results)


@pytest.mark.parametrize("claim_id", sorted(EXPECTED))
def test_verdict(results, check_verdict, claim_id):
    check_verdict(results[claim_id].verdict, EXPECTED[claim_id])


def test_proposition_4_1_smallest_counterexample(results):
    ev = results["zz2016.prop4.1"].verdict.evidence
    ce, m1 = ev["counterexample"], ev["smallest_m_ge_1"]
    assert (ce["n"], ce["m"], ce["R_m_delta"], ce["R_0_delta_plus_1"]) == (1, 0, "1/19", "1/19")
    # n = 1, m = 1: R_1 = p/q > R_0(delta + 1) = q/p for every delta > npq
    assert (m1["n"], m1["m"], m1["R_m_delta"], m1["R_0_delta_plus_1"]) == (1, 1, "19", "1/19")
    assert ev["proof_assumption"]["holds"] and ev["proof_assumption"]["checked"] > 0


def test_proof_ceiling_step_fails_in_the_similar_case(results):
    ev = results["zz2016.prop4.1.proof_identities"].verdict.evidence
    w = ev["witness"]
    assert w["case"] == "case_delta_m"
    assert w["s_m_minus_s_0"] == w["floor_m_p_minus_q"] != w["ceil_m_p_minus_q"]
    assert "holds (symbolic" in json.dumps(ev["items"])


def test_misprint_in_eq_3_1_is_recorded(results):
    ev = results["zz2016.eq3.1"].verdict.evidence
    lit = ev["literal reading"]
    assert lit["holds"] is False and lit["witness"]["first printed form"] == "1"


def test_x1_zero_answer(results):
    finding = results["zz2016.sec5.x1_zero"].verdict.evidence["finding"]
    assert "k = 0" in finding and "all zeros" in finding


def test_location_shift_error_scales_like_root_n(results):
    table = results["zz2016.sec4.8.location_shift"].verdict.evidence["table"]
    for per_n in table.values():
        c = [row["D_n_sqrt_n"] for row in per_n.values()]
        assert max(c) / min(c) <= 1.1 and 0.1 < min(c)
