"""``dpcheck compare dp-accounting`` against the real dp_accounting 0.6 (issue 19, peers).

The exact values come from dpcheck.numeric.profile (and, for the Gaussian, from Balle and
Wang 2018's analytic formula computed here independently); dp_accounting's are its own
pessimistic PLDs.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from fractions import Fraction

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("dp_accounting")

from dp_accounting.pld import privacy_loss_distribution as pld  # noqa: E402

from dpcheck.errors import InputError  # noqa: E402
from dpcheck.numeric import profile as P  # noqa: E402
from dpcheck.peers import dp_accounting_compare as c  # noqa: E402

H = 1e-4  # dp_accounting's default value_discretization_interval


@pytest.fixture(scope="module")
def table() -> list[c.Row]:
    return c.rows()


def test_every_row_compared_and_safe(table: list[c.Row]) -> None:
    mechanisms = {r.mechanism for r in table}
    assert mechanisms == {"laplace", "gaussian", "discrete-laplace", "randomized-response"}
    assert len(table) == len(c.CASES) * (len(c.EPSILONS) + 1)
    assert all(r.verdict in ("safe", "skipped") for r in table), [
        (r.mechanism, r.at, r.peer, r.exact_lower) for r in table if r.verdict != "safe"
    ]
    if hasattr(P, "epsilon_for_delta"):
        assert all(r.verdict == "safe" for r in table)
    for r in table:
        assert "dp_accounting" in r.reproduce and r.reproduce.startswith("python -c")


def _balle_wang(eps: float, sigma: float, sens: float = 1.0) -> mpmath.mpf:
    """delta(eps) = Φ(Δ/2σ - εσ/Δ) - e^ε Φ(-Δ/2σ - εσ/Δ) (Balle and Wang 2018, Thm 8)."""
    with mpmath.workdps(40):
        a, b = mpmath.mpf(sens) / (2 * sigma), mpmath.mpf(eps) * sigma / sens
        return mpmath.ncdf(a - b) - mpmath.exp(eps) * mpmath.ncdf(-a - b)


def test_gaussian_eps1_sigma1_agrees_within_discretisation() -> None:
    exact = _balle_wang(1.0, 1.0)
    assert abs(exact - mpmath.mpf("0.1269367375066")) < 1e-12
    prof = P.delta_for_epsilon(P.neighbours("gaussian", 1, scale=1), Fraction(1))
    assert abs(prof.lower - exact) < 1e-14
    peer = pld.from_gaussian_mechanism(1.0).get_delta_for_epsilon(1.0)
    assert peer >= exact * (1 - 1e-12)  # pessimistic: never below the truth
    assert peer - exact <= H  # within the discretisation


def test_verdict_logic() -> None:
    lower = mpmath.mpf("0.12693673750664394")
    assert c.verdict(float(lower), lower) == "safe"
    assert c.verdict(float(lower * (1 - mpmath.mpf(10) ** -14)), lower) == "safe"
    assert c.verdict(float(lower * (1 - mpmath.mpf(10) ** -9)), lower) == "FINDING: understates"
    assert c.verdict(0.0, mpmath.mpf(0)) == "safe"


def test_mutated_peer_becomes_a_finding(monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    """A peer reporting 1e-6 (relative) less than its own value must be flagged, and the
    command must exit 1 with the findings first."""
    real = c._peer_pld

    class Understating:
        def __init__(self, inner):
            self.inner = inner

        def get_delta_for_epsilon(self, eps):
            return self.inner.get_delta_for_epsilon(eps) * (1 - 1e-6)

        def get_epsilon_for_delta(self, delta):
            return self.inner.get_epsilon_for_delta(delta) * (1 - 1e-6)

    def fake(lib, mechanism, parameter):
        pld_ = real(lib, mechanism, parameter)
        return Understating(pld_) if mechanism == "gaussian" else pld_

    monkeypatch.setattr(c, "_peer_pld", fake)
    code = c.run(argparse.Namespace(epsilons="0,1", json=True))
    data = json.loads(capsys.readouterr().out)
    assert code == 1
    flagged = [r for r in data["rows"] if r["verdict"].startswith("FINDING")]
    assert {r["mechanism"] for r in flagged} == {"gaussian"}
    assert len(flagged) == data["summary"]["findings"] >= 4
    assert data["rows"][0]["verdict"].startswith("FINDING")


def test_run_json_and_table(capsys) -> None:
    assert c.run(argparse.Namespace(epsilons="0, 1/2", json=True)) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data) == {"rows", "summary"}
    assert data["summary"]["findings"] == 0
    assert data["summary"]["rows"] == len(c.CASES) * 3
    assert c.run(argparse.Namespace(epsilons="1", json=False)) == 0
    assert "dp_accounting" in capsys.readouterr().out


@pytest.mark.parametrize("bad", ["-1", "", "1,,2", "x"])
def test_bad_epsilons(bad: str) -> None:
    with pytest.raises(InputError):
        c.run(argparse.Namespace(epsilons=bad, json=True))


def test_missing_library(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "dp_accounting.pld", None)
    with pytest.raises(InputError, match=r"dp-accounting is not installed: pip install"):
        c.run(argparse.Namespace(epsilons="1", json=True))


def test_parameter_mappings_against_the_library() -> None:
    """RR keep probability q = 1 - p/2 and discrete Laplace b = 1/a, read off the library's
    own pure epsilon (its largest finite loss): log(q/(1-q)) and a·Δ."""
    for p in (Fraction(1, 2), Fraction(1, 4)):
        q = c.keep_probability(p)
        lib_pure = pld.from_randomized_response(float(p), 2).get_epsilon_for_delta(0)
        assert abs(lib_pure - math.log(q / (1 - q))) <= H
        assert abs(c.rr_epsilon(q, Fraction(0)) - mpmath.log(q / (1 - q))) < 1e-30
    for a in (1.0, 0.5):
        lib_pure = pld.from_discrete_laplace_mechanism(a).get_epsilon_for_delta(0)
        assert abs(lib_pure - a) <= H


@settings(max_examples=60, deadline=None)
@given(
    q=st.fractions(Fraction(1, 2), Fraction(1), max_denominator=10**6).filter(lambda x: x < 1),
    eps=st.fractions(Fraction(0), Fraction(5), max_denominator=1000),
    d=st.fractions(Fraction(0), Fraction(1), max_denominator=10**6).filter(lambda x: x < 1),
)
def test_rr_profile_against_closed_form(q: Fraction, eps: Fraction, d: Fraction) -> None:
    with mpmath.workdps(40):
        e = mpmath.exp(mpmath.mpf(eps.numerator) / eps.denominator)
        closed = max(mpmath.mpf(0), mpmath.mpf(q.numerator) / q.denominator - e * (1 - q))
        assert abs(c.rr_delta(q, eps) - closed) < mpmath.mpf(10) ** -35
        # the inverse: delta(eps(d)) = d where eps(d) > 0, and delta(0) <= d otherwise
        eps_d = c.rr_epsilon(q, d)
        dm = mpmath.mpf(d.numerator) / d.denominator
        back = max(
            mpmath.mpf(0), mpmath.mpf(q.numerator) / q.denominator - mpmath.exp(eps_d) * (1 - q)
        )
        if eps_d > 0:
            assert abs(back - dm) < mpmath.mpf(10) ** -30
        else:
            assert back <= dm


@pytest.mark.parametrize(
    ("mechanism", "scale"),
    [("laplace", 1), ("laplace", Fraction(1, 2)), ("gaussian", 1), ("geometric", 2)],
)
def test_export_is_pessimistic_at_k1(mechanism: str, scale) -> None:
    exported = c.to_dp_accounting(mechanism, sensitivity=1, scale=scale)
    nb = P.neighbours(mechanism, 1, scale=scale)
    for eps in c.EPSILONS:
        exact = P.delta_for_epsilon(nb, eps).lower
        got = exported.get_delta_for_epsilon(float(eps))
        assert got >= exact * (1 - 1e-12)
        assert got - exact <= 2 * H  # and tight to the discretisation


def test_export_laplace_composed_matches_dp_accounting() -> None:
    exported = c.to_dp_accounting("laplace", sensitivity=1, scale=1).self_compose(5)
    own = pld.from_laplace_mechanism(1.0).self_compose(5)
    composed_pairwise = c.to_dp_accounting("laplace", sensitivity=1, scale=1)
    one = composed_pairwise
    for _ in range(4):
        composed_pairwise = composed_pairwise.compose(one)
    for eps in (0.5, 1.0, 2.0, 4.0):
        a, b = exported.get_delta_for_epsilon(eps), own.get_delta_for_epsilon(eps)
        assert abs(a - b) <= 1e-3 * b + 1e-12, (eps, a, b)
        assert abs(composed_pairwise.get_delta_for_epsilon(eps) - a) <= 1e-9


def test_export_refuses_bounded_and_bad_interval() -> None:
    with pytest.raises(InputError, match="unbounded"):
        c.to_dp_accounting("truncated-laplace", sensitivity=1, scale=1, lower=0, upper=1)
    with pytest.raises(InputError, match="value_discretization_interval"):
        c.to_dp_accounting("laplace", sensitivity=1, scale=1, value_discretization_interval=0)
