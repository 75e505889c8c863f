"""Zhilyaev and Zeber (2016): the verdict of every zz2016 claim, and what the evidence says.

The identity checks can fail (tests/test_symbolic_krand.py), as can the exhaustive scans
(tests/test_krand_exhaustive.py) and the machine-checked proofs of the claims
(tests/test_zz2016_mutations.py); here the verdicts themselves, and their bases, are pinned.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import run_claims

from dpcheck.claims.model import EXACT, RIGOROUS, Kind

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


@pytest.mark.parametrize("claim_id", sorted(EXPECTED))
def test_basis_allows_the_status_the_check_asked_for(results, claim_id):
    """Every check states an honest basis: the verdict rules never had to change its status."""
    v = results[claim_id].verdict
    assert v.basis, "every verdict carries a basis"
    assert "verdict rules" not in v.evidence, v.evidence.get("verdict rules")
    if v.status.value == "proved":
        assert all(s.checked for s in v.basis), [s.detail for s in v.basis if not s.checked]
        assert any(s.kind in RIGOROUS and s.whole for s in v.basis)
        assert not {s.kind for s in v.basis} <= {Kind.ENUMERATION, Kind.SAMPLING, Kind.ARGUMENT}
    elif v.status.value in ("verified", "refuted"):
        assert any(s.checked and s.kind in EXACT for s in v.basis)
    assert not any(s.kind is Kind.ARGUMENT for s in v.basis), "no prose step in zz2016"


def _details(results, claim_id: str) -> str:
    return json.dumps([s.detail for s in results[claim_id].verdict.basis], ensure_ascii=False)


@pytest.mark.parametrize(
    "claim_id, needle",
    [
        ("zz2016.prop1.1", "symbolic number K of outcomes"),
        ("zz2016.lemma6.1", "symbolic number of terms m"),
        ("zz2016.lemma6.2", "induction on m"),
        ("zz2016.lemma6.2", "pair term >= 0 under (6.2), (6.3)"),
        ("zz2016.cor6.1", "slack u >= 0"),
        ("zz2016.lemma6.3", "slacks u_1, u_2 >= 0"),
        ("zz2016.sec4.2.rho_monotone_s", "(4.1) for all n, m, t"),
        ("zz2016.sec4.2.rho_monotone_s", "LC step identity"),
        ("zz2016.sec4.6.quantile_step", "F_{n,m}(τ) <= F_{n,m-1}(τ): identity"),
        ("zz2016.sec4.6.quantile_iff", "the printed condition"),
        ("zz2016.sec4.sum_of_binomials", "SymPy Product with symbolic m, n"),
        ("zz2016.sec4.sum_of_binomials", "printed law = derived law"),
        ("zz2016.sec4.ratio_cases", "case x_1 = 0"),
        ("zz2016.sec2.bit_pmf", "step L -> L + 1"),
        ("zz2016.sec3.max_ratio", "attained"),
    ],
)
def test_general_step_is_machine_checked(results, claim_id, needle):
    """The general step of each former overclaim is a checked symbolic or sign step over the
    whole stated domain."""
    v = results[claim_id].verdict
    hits = [s for s in v.basis if needle in s.detail]
    assert hits, _details(results, claim_id)
    assert all(s.checked and s.kind in RIGOROUS and s.whole for s in hits)


def test_rho_monotone_s_covers_m_equal_n(results):
    v = results["zz2016.sec4.2.rho_monotone_s"].verdict
    assert "0 <= m <= n," in v.domain
    assert "m = n is included" in v.evidence["finding"]


def test_enumerations_are_recorded_as_partial(results):
    """A finite check is an enumeration step on its own domain, never the whole one."""
    for claim_id in ("zz2016.sec2.bit_pmf", "zz2016.sec4.ratio_cases", "zz2016.lemma6.1"):
        finite = [
            s
            for s in results[claim_id].verdict.basis
            if s.kind in (Kind.ENUMERATION, Kind.SAMPLING)
        ]
        assert finite and not any(s.whole for s in finite)
