"""``dpcheck compare opendp`` against the real OpenDP 0.16 (no mocks of the library).

The exact side is checked against routes independent of the engine (density
ratios, the Balle and Wang 2018 closed form, log(p/(1-p))); the verdict logic is
checked by mutation (a claim below the exact value must be a finding); ``run``'s
exit code and JSON shape are checked on the real rows and on a planted finding.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from fractions import Fraction as F

import mpmath
import pytest

if os.environ.get("DPCHECK_REQUIRE_PEERS"):  # CI: the real library must be there
    import opendp  # noqa: F401
else:
    pytest.importorskip("opendp", reason="opendp is not installed: pip install 'dpcheck[peers]'")

from dpcheck.errors import InputError  # noqa: E402
from dpcheck.peers import opendp_compare as oc  # noqa: E402

ROW_KEYS = {
    "family",
    "parameters",
    "opendp",
    "exact",
    "relative gap",
    "ratio",
    "verdict",
    "check",
    "reproduce",
}


@pytest.fixture(scope="module")
def all_rows():
    return oc.rows()


def test_float_laplace_scale_1_is_epsilon_1():
    """make_laplace(float, scale 1) at d_in 1 claims ε = 1 (up to OpenDP's rounding slack);
    the exact ε is 1 = log f_0(y)/f_1(y) for y <= 0, the Laplace density ratio."""
    row = oc.laplace_row(1.0)
    with mpmath.workdps(40):
        y = mpmath.mpf(-3)
        ratio = mpmath.log(mpmath.exp(-abs(y)) / mpmath.exp(-abs(y - 1)))
        assert abs(row.exact - ratio) < mpmath.mpf(10) ** -35
    assert row.exact == 1
    assert abs(row.claim - 1) <= 1e-12
    assert row.verdict == oc.SAFE
    assert row.check.endswith("pure and tight")


@pytest.mark.parametrize("scale", oc.LAPLACE_SCALES)
def test_discrete_laplace_exact_is_the_pmf_ratio(scale):
    """Integer make_laplace = discrete Laplace P(k) ∝ e^{-|k|/b}: ε = log P_0(k)/P_1(k), k <= 0."""
    row = oc.laplace_row(scale, integer=True)
    with mpmath.workdps(40):
        b = mpmath.mpf(scale)
        ratio = mpmath.log(mpmath.exp(-abs(-2) / b) / mpmath.exp(-abs(-2 - 1) / b))
        assert abs(row.exact - ratio) < mpmath.mpf(10) ** -30
    assert row.claim >= row.exact and row.verdict == oc.SAFE
    assert row.check.endswith("pure and tight")


@pytest.mark.parametrize("scale,delta", [(1.0, 1e-6), (2.0, 1e-9)])
def test_gaussian_exact_epsilon_solves_balle_wang(scale, delta):
    """The exact ε(δ) solves Φ(Δ/2σ - εσ/Δ) - e^ε Φ(-Δ/2σ - εσ/Δ) = δ (Balle and Wang 2018,
    Theorem 8); OpenDP's zCDP conversion is conservative but not absurdly so."""
    row = oc.gaussian_row(scale, delta)

    def bw(eps):
        s = mpmath.mpf(scale)
        return mpmath.ncdf(1 / (2 * s) - eps * s) - mpmath.exp(eps) * mpmath.ncdf(
            -1 / (2 * s) - eps * s
        )

    with mpmath.workdps(40):
        assert abs(bw(row.exact) - delta) <= 1e-9 * delta
        assert bw(row.claim) <= delta
    assert row.verdict == oc.SAFE
    assert 1 < row.claim / row.exact < 1.2


@pytest.mark.parametrize("prob", oc.RR_PROBS)
def test_randomized_response_exact_is_log_odds(prob):
    row = oc.rr_row(prob)
    with mpmath.workdps(40):
        p = mpmath.mpf(F(prob).numerator) / F(prob).denominator
        assert abs(row.exact - mpmath.log(p / (1 - p))) < mpmath.mpf(10) ** -30
    assert row.verdict == oc.SAFE
    assert abs(row.gap) < 1e-12


def test_randomized_response_extremes():
    ratio, delta = oc.rr_exact(F(1))
    assert ratio is None  # keep always: the events {True} vs {False} are disjoint
    assert delta(mpmath.mpf(5)) == 1
    ratio, delta = oc.rr_exact(F(1, 2))
    assert ratio == 1 and delta(mpmath.mpf(0)) == 0


def test_every_default_row_is_safe_and_reproducible(all_rows):
    assert len(all_rows) == 3 + 3 + 6 + len(oc.RR_PROBS)
    for row in all_rows:
        assert row.verdict == oc.SAFE, row.as_dict()
        assert row.gap >= -oc.RTOL
        assert row.reproduce.startswith('python -c "import opendp.prelude as dp;')
        assert set(row.as_dict()) == ROW_KEYS


def test_reproduce_command_gives_the_claim():
    """The reproduce one-liner prints OpenDP's number (run in-process, not exec'd)."""
    import opendp.prelude as dp

    dp.enable_features("contrib")
    row = oc.gaussian_row(1.0, 1e-6)
    g = dp.m.make_gaussian(dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float), 1.0)
    assert "make_zCDP_to_approxDP(g)" in row.reproduce
    assert dp.c.make_zCDP_to_approxDP(g).map(1.0).epsilon(1e-6) == float(row.claim)


# ---------------------------------------------------------------------------- mutations


def test_verdict_rule():
    one = mpmath.mpf(1)
    assert oc.verdict(one, one) == oc.SAFE
    assert oc.verdict(one * (1 - mpmath.mpf("1e-14")), one) == oc.SAFE  # float slack
    assert oc.verdict(one * (1 - mpmath.mpf("1e-9")), one) == oc.FINDING


@pytest.mark.parametrize("integer", [False, True])
def test_understated_laplace_claim_is_a_finding(integer):
    row = oc.laplace_row(1.0, integer=integer, claim=0.99)
    assert row.verdict == oc.FINDING and row.gap < 0
    assert "NOT pure-and-tight" in row.check


def test_understated_gaussian_claim_is_a_finding():
    exact = oc.gaussian_row(1.0, 1e-6).exact
    row = oc.gaussian_row(1.0, 1e-6, claim=float(exact) * 0.99)
    assert row.verdict == oc.FINDING
    assert "(<= 1e-06: False" in row.check


def test_gaussian_delta_route_alone_flags_an_understated_claim(monkeypatch):
    """With the ε comparison disabled, the exact δ at the claimed ε still exceeds δ."""
    exact = oc.gaussian_row(1.0, 1e-6).exact
    monkeypatch.setattr(oc, "verdict", lambda *a, **k: oc.SAFE)
    assert oc.gaussian_row(1.0, 1e-6, claim=float(exact) * 0.99).verdict == oc.FINDING


def test_understated_randomized_response_claim_is_a_finding():
    row = oc.rr_row(0.75, claim=float(mpmath.log(3)) * 0.999)
    assert row.verdict == oc.FINDING


# ---------------------------------------------------------------------------- run


def test_run_json_exit_0(capsys):
    assert oc.run(argparse.Namespace(json=True)) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data) == {"rows", "summary"}
    assert all(set(r) == ROW_KEYS for r in data["rows"])
    assert data["summary"]["findings"] == 0
    assert data["summary"]["rows"] == len(data["rows"])
    assert data["summary"]["opendp"].startswith("0.16")


def test_run_exit_1_and_findings_first(monkeypatch, capsys, all_rows):
    bad = oc.rr_row(0.9, claim=1.0)
    monkeypatch.setattr(oc, "rows", lambda: [*all_rows, bad])
    assert oc.run(argparse.Namespace(json=True)) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["rows"][0]["verdict"] == oc.FINDING
    assert data["summary"]["findings"] == 1
    assert oc.run(argparse.Namespace(json=False)) == 1
    out = capsys.readouterr().out
    assert out.index(oc.FINDING) < out.index("safe")


def test_missing_opendp_is_an_input_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "opendp.prelude", None)
    with pytest.raises(
        InputError, match=r"opendp is not installed: pip install 'dpcheck\[peers\]'"
    ):
        oc.run(argparse.Namespace(json=True))
