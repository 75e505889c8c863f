"""zz2016: the machine checks can fail.

Each test mutates a printed formula of :mod:`dpcheck.papers.zz2016` in place (``Equation.expr``,
as a mutation harness would) or a hypothesis, runs the claim through the runner (so the verdict
rules apply), and shows that the step that used to be checked is no longer checked and the
verdict is no longer ``proved`` (refuted, with an exact witness, where one exists).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
import sympy as sp
from conftest import run_claims

from dpcheck.papers import zz2016 as Z
from dpcheck.papers.equation import Equation
from dpcheck.symbolic.krand import F, P, m, n, p, pi, q, rho, s


@contextmanager
def mutated(eq: Equation, expr: sp.Expr) -> Iterator[None]:
    """Replace ``eq.expr`` in place for the duration of the block."""
    old = eq.expr
    object.__setattr__(eq, "expr", expr)
    try:
        yield
    finally:
        object.__setattr__(eq, "expr", old)


def verdict(claim_id: str):  # type: ignore[no-untyped-def]
    return run_claims([claim_id])[claim_id].verdict


def unchecked(v) -> str:  # type: ignore[no-untyped-def]
    return json.dumps([s.detail for s in v.basis if not s.checked], ensure_ascii=False)


def refuted_with_witness(v) -> None:  # type: ignore[no-untyped-def]
    assert v.status.value == "refuted", v.evidence.get("finding")
    assert any(
        s.checked and s.kind.value in ("enumeration", "symbolic") and not s.whole for s in v.basis
    )
    text = json.dumps(v.evidence, default=str)
    assert "counterexample" in text or "witness" in text


# --------------------------------------------------------------------------- §1, §2, §3
def test_prop1_1_mutated_pointwise_condition():
    with mutated(Z.DP_POINT, sp.exp(Z.eps) * Z.PX[Z.k_] - Z.PXP[Z.k_]):
        v = verdict("zz2016.prop1.1")
    assert v.status.value != "proved"
    assert "additivity" in unchecked(v)


def test_bit_pmf_mutated_exponents():
    with mutated(Z.BIT_PMF, (1 - q) ** Z.d * q ** (Z.L - Z.d)):
        v = verdict("zz2016.sec2.bit_pmf")
    refuted_with_witness(v)


def test_max_ratio_mutated_value():
    with mutated(Z.MAX_RATIO, (p / q) ** (Z.L - 1)):
        v = verdict("zz2016.sec3.max_ratio")
    refuted_with_witness(v)
    assert v.evidence["counterexample"]["printed"] == "1"  # L = 1: (p/q)^0


# --------------------------------------------------------------------------- §4
def test_sum_of_binomials_mutated_law_is_refuted():
    # Bin(m, q) + Bin(n - m, p): success probabilities swapped
    with mutated(Z.SUM_OF_BINOMIALS, sp.Tuple(sp.Tuple(m, q), sp.Tuple(n - m, p))):
        v = verdict("zz2016.sec4.sum_of_binomials")
    refuted_with_witness(v)
    assert "printed law = derived law" in unchecked(v)
    ce = v.evidence["counterexample"]
    assert (ce["n"], ce["m"], ce["s"]) == (1, 0, 0)  # P[A_1(0) = 0] = p, printed q


def test_sum_of_binomials_mutated_size():
    with mutated(Z.SUM_OF_BINOMIALS, sp.Tuple(sp.Tuple(m, p), sp.Tuple(n - m + 1, q))):
        v = verdict("zz2016.sec4.sum_of_binomials")
    refuted_with_witness(v)


def test_ratio_cases_mutated_case():
    with mutated(Z.RATIO_CASES[0], pi(n, m, s)):
        v = verdict("zz2016.sec4.ratio_cases")
    refuted_with_witness(v)
    assert "case x_1 = 1" in unchecked(v)


def test_shift_bullets_mutated_bullet():
    with mutated(Z.SHIFT_BULLETS[0], P(n, m, 0) - P(n - 1, m, 0)):
        v = verdict("zz2016.sec4.1.shift_bullets")
    refuted_with_witness(v)


def test_rho_monotone_s_reversed():
    eq = Z.RHO_MONOTONE[0]
    with mutated(eq, -eq.expr):
        v = verdict("zz2016.sec4.2.rho_monotone_s")
    refuted_with_witness(v)
    assert "ρ(s) - ρ(s+1): identity" in unchecked(v)


def test_rho_monotone_s_not_proved_when_log_concavity_is_not_shown(monkeypatch):
    from dpcheck.symbolic import krand as sk

    real = sk.log_concavity_facts

    def broken():  # type: ignore[no-untyped-def]
        facts = real()
        return [
            sk.Fact(f.name, f.kind, False, f.detail) if "LC step" in f.name else f for f in facts
        ]

    monkeypatch.setattr(sk, "log_concavity_facts", broken)
    v = verdict("zz2016.sec4.2.rho_monotone_s")
    assert v.status.value == "verified"  # the printed gap on the exact-law grid, and the scans
    assert v.domain.startswith("n = 1..6")


def test_rho_monotone_m_mutated_direction():
    eq = Z.RHO_MONOTONE[1]
    with mutated(eq, rho(n, m, s) - rho(n, m + 1, s)):
        v = verdict("zz2016.sec4.2.rho_monotone_m")
    refuted_with_witness(v)


def test_pi_monotone_mutated_net_bullet():
    eq = Z.PI_MONOTONE[2]
    with mutated(eq, pi(n, m + 1, s + 1) - pi(n, m, s)):
        v = verdict("zz2016.sec4.5.pi_monotone")
    refuted_with_witness(v)


def test_r_monotone_mutated_shift_identity():
    with mutated(Z.S_M_SHIFT, sp.Max(Z.SD - 2, 1)):
        v = verdict("zz2016.sec4.3.R_monotone")
    assert v.status.value != "proved"
    assert "shift" in unchecked(v)


def test_quantile_step_mutated_inequality():
    eq = Z.QUANTILE_STEP[0]
    with mutated(eq, -eq.expr):
        v = verdict("zz2016.sec4.6.quantile_step")
    refuted_with_witness(v)


def test_quantile_iff_mutated_condition():
    eq = Z.QUANTILE_IFF[1]
    with mutated(eq, F(n, m - 1, s) - Z.alpha - q * P(n - 1, m - 1, s)):
        v = verdict("zz2016.sec4.6.quantile_iff")
    assert v.status.value != "proved"
    assert "they differ at" in v.evidence["finding"]


def test_claim5_1_mutated():
    with mutated(Z.CLAIM5_1, rho(n, m, s) - rho(n, n, s)):
        v = verdict("zz2016.claim5.1")
    refuted_with_witness(v)


def test_binomial_ratio_mutated_bound():
    with mutated(Z.BINOMIAL_RATIO_BOUND, (n - s) / (s + 1) * p / q):
        v = verdict("zz2016.claim5.1.binomial_ratio")
    refuted_with_witness(v)


def test_strictness_witness_is_computed_from_the_printed_display():
    eq = Z.FINAL_CHAIN
    v = verdict("zz2016.prop4.1.proof_identities")
    strict = v.evidence["strictness witness"]
    assert (strict["q"], strict["m"], strict["confirmed"]) == ("1/4", 2, True)
    # a display whose last '<' is true everywhere gives no strictness witness
    with mutated(eq, eq.expr / 2):
        v2 = verdict("zz2016.prop4.1.proof_identities")
    assert v2.evidence["strictness witness"]["confirmed"] is False


# --------------------------------------------------------------------------- §6
def test_lemma6_1_mutated_left_side():
    left, _ = Z.LEMMA6_1
    b, a, i, M = Z.B6, Z.A6, Z.i6, Z.M6
    with mutated(left, sp.Sum(a[i], (i, 1, M)) / sp.Sum(b[i] ** 2, (i, 1, M))):
        v = verdict("zz2016.lemma6.1")
    refuted_with_witness(v)
    assert "identity (symbolic m)" in unchecked(v)


def test_lemma6_2_mutated_hypothesis():
    _, _, h63 = Z.LEMMA6_2
    with mutated(h63, -h63.expr):  # (6.3) reversed alone: the lemma is false
        v = verdict("zz2016.lemma6.2")
    refuted_with_witness(v)
    assert "pair term >= 0 under (6.2), (6.3)" in unchecked(v)


def test_lemma6_2_mutated_conclusion():
    gap = Z.LEMMA6_2[0]
    a, ap, lam, mu, i, M = Z.A6, Z.AP6, Z.LAM6, Z.MU6, Z.i6, Z.M6
    wrong = sp.Sum(a[i] * lam[i], (i, 1, M)) / sp.Sum(a[i] * mu[i], (i, 1, M)) - sp.Sum(
        ap[i] * mu[i], (i, 1, M)
    ) / sp.Sum(ap[i] * lam[i], (i, 1, M))
    with mutated(gap, wrong):
        v = verdict("zz2016.lemma6.2")
    assert v.status.value != "proved"
    assert "key identity" in unchecked(v)


def test_cor6_1_mutated_hypothesis():
    _, hyp = Z.COR6_1
    with mutated(hyp, -hyp.expr):
        v = verdict("zz2016.cor6.1")
    refuted_with_witness(v)


@pytest.mark.parametrize("index", [1, 2])
def test_lemma6_3_mutated_hypothesis(index):
    eq = Z.LEMMA6_3[index]
    with mutated(eq, -eq.expr):
        v = verdict("zz2016.lemma6.3")
    assert v.status.value != "proved"
    assert "sign of (6.4)" in unchecked(v)


def test_mutations_are_undone():
    assert verdict("zz2016.lemma6.3").status.value == "proved"
    assert verdict("zz2016.sec4.sum_of_binomials").status.value == "proved"
