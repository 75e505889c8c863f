"""The supplement's displayed algebra (Liu 2019, §§2-4): verdict snapshot, and the checks can fail.

* the expected status of each identity claim (a change means a derivation, a
  transcription or a check changed behaviour);
* refutations carry an exact counterexample data set, recomputed here with
  Fractions from scratch;
* perturbed transcriptions (a flipped sign, a dropped n^{-1}, ...) are refuted
  with a witness, random perturbations too;
* a second, independent transcription of some printed lines (plain Python on
  Fractions, re-read from the paper) agrees with the SymPy transcription;
* the summary-statistic derivations agree with the statistics computed directly
  on random data.
"""

from __future__ import annotations

import json
import sys
from fractions import Fraction as F
from pathlib import Path

import pytest
import sympy as sp
from conftest import run_claims
from hypothesis import given, settings
from hypothesis import strategies as st

from dpcheck.papers import liu2019s as P
from dpcheck.papers.equation import Equation
from dpcheck.symbolic import sensitivity as se

ROOT = Path(__file__).resolve().parents[1]

EXPECTED = {
    "liu2019s.s2.variance_def1_identity": "proved",
    "liu2019s.s2.variance_def2_identity": "proved",
    "liu2019s.s3.covariance_def1_identity": "proved",
    "liu2019s.s3.covariance_def2_identity": "proved",
    "liu2019s.s3.covariance_def2_cases": "refuted",
    "liu2019s.s4.pooled_variance_def2_identity": "proved",
}


@pytest.fixture(scope="module")
def results():
    return run_claims(sorted(EXPECTED))


@pytest.fixture(scope="module")
def proof(results):
    """The proof module (collected by the registry), for its line checker."""
    return sys.modules["dpcheck_proofs.liu2019s.10_identities"]


@pytest.mark.parametrize("claim_id", sorted(EXPECTED))
def test_verdict(results, check_verdict, claim_id):
    v = results[claim_id].verdict
    check_verdict(v, EXPECTED[claim_id])
    assert v.reproduce.startswith("dpcheck verify " + claim_id)
    if v.status.value == "refuted":
        assert v.reproduce == f"dpcheck verify {claim_id} --format json"
        assert "witness" in v.evidence
    json.dumps(v.evidence)


def test_case4_sign_error_witness_is_exact(results):
    ev = results["liu2019s.s3.covariance_def2_cases"].verdict.evidence
    assert ev["first_broken_line"] == "§3 case 4, line 1"
    wit = ev["witness"]
    assert wit["data"]["n"] == 3
    assert wit["data"]["x"] == "((1, 1), (0, 0), (0, 0))"
    assert wit["printed line on the data"] == "-1/3"
    assert wit["difference from the definitions"] == "1/3"
    # from scratch: the covariance of the data minus that of the data without record 1
    full = [(F(1), F(1)), (F(0), F(0)), (F(0), F(0))]
    mx = sum(a for a, _ in full) / 3
    my = sum(b for _, b in full) / 3
    s12 = sum((a - mx) * (b - my) for a, b in full) / 2
    assert s12 - 0 == F(1, 3)
    # the printed line 1 of case 4 at n = 3, k1 = k2 = k3 = 0, typed from the paper
    nn, a, b, c = 3, 0, 0, 0
    printed = -F((nn - 1 - a) * (nn - 1 - b), nn * (nn - 1) ** 2) - (F(c) - F(a * b, nn - 1)) / (
        (nn - 1) * (nn - 2)
    )
    assert printed == F(-1, 3)
    case4 = ev["case 4, (x_11, x_12) = (1, 1)"]
    assert case4["lines"][1]["status"] == "holds as printed"
    assert "wrong sign" in case4["lines"][0]["diagnosis"]
    for c_ in range(1, 4):
        key = next(k for k in ev if k.startswith(f"case {c_},"))
        assert all(e["status"] == "holds as printed" for e in ev[key]["lines"])
        assert all(e["status"] == "holds as printed" for e in ev[key]["values"])
    assert ev["k3 range"]["equals the set of realisable (k1, k2, k3), n = 3..40"] is True


def test_readings_are_reported(results):
    ev = results["liu2019s.s3.covariance_def1_identity"].verdict.evidence
    status = {e["line"]: e["status"] for e in ev["lines"]}
    assert status["§3 eq (2), line 1"] == "holds as printed"
    for k in (2, 3, 4):
        assert status[f"§3 eq (2), line {k}"] == "holds only under the reading"
    assert status["§3 eq (2), left side"] == "holds only under the reading"
    line2 = next(e for e in ev["lines"] if e["line"] == "§3 eq (2), line 2")
    assert line2["as printed"]["holds"] is False and line2["as printed"]["witness"]
    ev4 = results["liu2019s.s4.pooled_variance_def2_identity"].verdict.evidence
    status4 = {e["line"]: e["status"] for e in ev4["lines"]}
    assert status4["§4 Def 2, line 6"] == "holds only under the reading"
    assert status4["§4 Def 1, line 2"] == "holds only under the reading"
    assert sum(s == "holds as printed" for s in status4.values()) == 8


def test_literal_typo_has_no_summary_meaning():
    with pytest.raises(se.NotExpressible):
        se.COVARIANCE_DEF1.interpret(P.S3_DEF1_CHAIN[1].expr)


# --------------------------------------------------------------------------
# the checks can fail
# --------------------------------------------------------------------------

x, xp, n, XBARM = se.x, se.xp, se.n, se.XBARM


def _perturbed(eq: Equation, expr: sp.Expr) -> Equation:
    return Equation(eq.label + " (perturbed)", eq.source, eq.latex, expr)


PERTURBATIONS = [
    # (name, equation, perturbed expr, scenario, target, witness kind)
    (
        "flip a sign in eq (1)",
        P.S2_DEF1_CHAIN[6],
        n**-1 * (x[1] - XBARM) ** 2 + n**-1 * (xp[1] - XBARM) ** 2,
        se.VARIANCE_DEF1,
        se.S2 - se.S2P,
        "variance1",
    ),
    (
        "drop n^-1 in §2 Def 1 line 5",
        P.S2_DEF1_CHAIN[4],
        n**-1 * (x[1] ** 2 - xp[1] ** 2) - 2 * (x[1] - xp[1]) * XBARM,
        se.VARIANCE_DEF1,
        se.S2 - se.S2P,
        "variance1",
    ),
    (
        "(n-1)^2 for (n-1)(n-2) in §2 Def 2 line 7",
        P.S2_DEF2_CHAIN[6],
        P.S2_DEF2_CHAIN[6].expr.subs(n - 2, n - 1),
        se.VARIANCE_DEF2,
        se.S2 - se.S2P,
        "variance2",
    ),
    (
        "n^-1 s'_12 for (n-1)^-1 s'_12 in eq (3)",
        P.S3_DEF2_CHAIN[6],
        n**-1 * (x[1, 1] - se.xbarm[1]) * (x[1, 2] - se.xbarm[2]) - n**-1 * se.S12P,
        se.COVARIANCE_DEF2,
        se.S12 - se.S12P,
        "covariance2",
    ),
    (
        "drop (1 - 1/n_1) in §4 Def 2 line 7",
        P.S4_DEF2_CHAIN[6],
        ((x[1, 1] - se.xbarm[1]) ** 2 - se.SP2M) / (n - se.J),
        se.POOLED_VARIANCE_DEF2,
        se.SP2 - se.SP2M,
        "pooled2",
    ),
]


@pytest.mark.parametrize("case", PERTURBATIONS, ids=[p[0] for p in PERTURBATIONS])
def test_perturbed_line_is_refuted(proof, case):
    name, eq, expr, sc, target, kind = case
    chain = [proof.Item(e) for e in [eq, _perturbed(eq, expr)]]
    ref, lines = proof.check_lines(chain, sc, target, kind)
    assert lines[0]["status"] == "holds as printed"
    assert lines[1]["status"] == "false", name
    v = proof.verdict_of_lines("x.y.z", lines, ref, domain="d", finding_ok="ok")
    assert v.status.value == "refuted"
    assert v.evidence["first_broken_line"].endswith("(perturbed)")
    wit = v.evidence["witness"]
    assert wit["printed line on the data"] != wit["difference from the definitions"]
    assert v.reproduce == "dpcheck verify x.y.z --format json"


def test_unperturbed_chain_is_proved(proof):
    items = [proof.Item(e) for e in P.S2_DEF1_CHAIN]
    ref, lines = proof.check_lines(items, se.VARIANCE_DEF1, se.S2 - se.S2P, "variance1")
    v = proof.verdict_of_lines("x.y.z", lines, ref, domain="d", finding_ok="ok")
    assert v.status.value == "proved" and v.domain == "d"


def test_perturbed_case_formula_is_refuted():
    """A coefficient 3 for 2 in case 1, line 2: not equal to the derived corner formula."""
    ref = se.covariance_def2_on_unit_corner(0, 0)
    k1, k2 = se.k1, se.k2
    good = P.S3_CASES[0]["lines"][1].expr
    bad = good.subs(2 * k1 * k2, 3 * k1 * k2)
    assert se.is_zero(good - ref)
    assert not se.is_zero(bad - ref)
    pair = se.unit_pair(0, 0, 4, 3, 3, 3)
    assert se.evaluate_on(good, pair) == pair.truth == F(1, 4)
    assert se.evaluate_on(bad, pair) != pair.truth


@settings(max_examples=12, deadline=None, derandomize=True)
@given(
    k=st.fractions(min_value=F(-3), max_value=F(3), max_denominator=7).filter(lambda q: q != 0),
    term=st.sampled_from(["x1^2/n", "xbar", "x1 x1'/(n-1)", "x1'/n^2"]),
)
def test_random_perturbations_are_refuted(proof, k, term):
    extra = {
        "x1^2/n": x[1] ** 2 / n,
        "xbar": XBARM,
        "x1 x1'/(n-1)": x[1] * xp[1] / (n - 1),
        "x1'/n^2": xp[1] / n**2,
    }[term]
    eq = P.S2_DEF1_CHAIN[6]
    bad = _perturbed(eq, eq.expr + sp.Rational(k.numerator, k.denominator) * extra)
    _, lines = proof.check_lines([proof.Item(bad)], se.VARIANCE_DEF1, se.S2 - se.S2P, "variance1")
    assert lines[0]["status"] == "false"
    assert lines[0]["as printed"]["witness"]


# --------------------------------------------------------------------------
# an independent transcription of some printed lines (plain Python on Fractions)
# --------------------------------------------------------------------------


def _mean(v):
    return sum(v, F(0)) / len(v)


def test_second_transcription_agrees():
    # §2 Def 2 line 3 (000 line 400), x = (3, -1, 2, 0)
    xs = [F(3), F(-1), F(2), F(0)]
    nn, x1, rest = len(xs), xs[0], xs[1:]
    xm = _mean(rest)
    q = sum(r * r for r in rest)
    line3 = (
        -q
        + (nn - 2) * (1 - F(1, nn)) * x1**2
        + 2 * F(1, nn) * (nn - 1) ** 2 * xm**2
        - 2 * F(1, nn) * (nn - 1) * (nn - 2) * xm * x1
    ) / ((nn - 1) * (nn - 2))
    pair = se.univariate_pair(xs)
    assert se.evaluate_on(P.S2_DEF2_CHAIN[2].expr, pair) == line3 == pair.truth

    # §3 eq (3) line 2 (000 line 428), records ((2, 1), (0, 3), (-1, 1), (1, -2))
    recs = [(F(2), F(1)), (F(0), F(3)), (F(-1), F(1)), (F(1), F(-2))]
    nn = len(recs)
    (a, b), rest2 = recs[0], recs[1:]
    m1, m2 = _mean([r[0] for r in rest2]), _mean([r[1] for r in rest2])
    p = sum(r[0] * r[1] for r in rest2)
    line2 = F(1, (nn - 1) * (nn - 2)) * (
        (nn - 2) * p
        + (nn - 2) * a * b
        - (nn - 1) * p
        + (nn - 1) ** 2 * m1 * m2
        - (nn - 2)
        * F(1, nn)
        * ((nn - 1) ** 2 * m1 * m2 + (nn - 1) * m1 * b + (nn - 1) * a * m2 + a * b)
    )
    pair = se.bivariate_pair(recs)
    assert se.evaluate_on(P.S3_DEF2_CHAIN[1].expr, pair) == line2 == pair.truth

    # §3 eq (2) line 3 read literally (x'_{21} is record 2, variable 1 of x')
    recs_p = [(F(-1), F(2))] + recs[1:]
    pair = se.bivariate_pair(recs, recs_p[0])
    a_, b_ = recs_p[0]
    x21p = recs_p[1][0]
    literal = F(1, nn) * (a * b - a_ * x21p - a * m2 - m1 * b + a_ * m2 + m1 * x21p)
    meant = F(1, nn) * (a * b - a_ * b_ - a * m2 - m1 * b + a_ * m2 + m1 * b_)
    assert se.evaluate_on(P.S3_DEF1_CHAIN[2].expr, pair) == literal
    assert meant == pair.truth != literal

    # §4 Def 2 line 5 (000 line 533), cells ((1, 4, 0), (2, 2, 5))
    cells = [[F(1), F(4), F(0)], [F(2), F(2), F(5)]]
    pair = se.pooled_pair(cells)
    n1, x11, rest1 = 3, cells[0][0], cells[0][1:]
    xm1 = _mean(rest1)
    spm = pair.values[se.SP2M]
    line5 = (
        sum(v * v for v in cells[0])
        - ((n1 - 1) * xm1 + x11) ** 2 / n1
        - sum(v * v for v in rest1)
        + (n1 - 1) * xm1**2
        - spm
    ) / (6 - 2)
    assert se.evaluate_on(P.S4_DEF2_CHAIN[4].expr, pair) == line5 == pair.truth

    # §3 case 2 line 1 (000 line 462) at n = 5, k1 = 3, k2 = 1, k3 = 1
    nn, a1, a2, a3 = 5, 3, 1, 1
    printed = -F(a1 * (nn - 1 - a2), nn * (nn - 1) ** 2) - (a3 - F(a1 * a2, nn - 1)) / (
        (nn - 1) * (nn - 2)
    )
    pair = se.unit_pair(0, 1, nn, a1, a2, a3)
    assert se.evaluate_on(P.S3_CASES[1]["lines"][0].expr, pair) == printed == pair.truth


# --------------------------------------------------------------------------
# the derivations in summary statistics agree with direct computation
# --------------------------------------------------------------------------

small = st.integers(min_value=-4, max_value=4)


@settings(max_examples=20, deadline=None, derandomize=True)
@given(xs=st.lists(small, min_size=3, max_size=7), x1p=small)
def test_variance_model_matches_data(xs, x1p):
    for sc, pair in (
        (se.VARIANCE_DEF1, se.univariate_pair(xs, x1p)),
        (se.VARIANCE_DEF2, se.univariate_pair(xs)),
    ):
        ref = se.variance_difference(1 if pair.description["definition"] == "Def 1" else 2)
        assert se.at_summary(ref, se.summary_values(sc, pair)) == pair.truth


@settings(max_examples=20, deadline=None, derandomize=True)
@given(
    recs=st.lists(st.tuples(small, small), min_size=3, max_size=6),
    first=st.tuples(small, small),
)
def test_covariance_model_matches_data(recs, first):
    for d, sc, pair in (
        (1, se.COVARIANCE_DEF1, se.bivariate_pair(recs, first)),
        (2, se.COVARIANCE_DEF2, se.bivariate_pair(recs)),
    ):
        ref = se.covariance_difference(d)
        assert se.at_summary(ref, se.summary_values(sc, pair)) == pair.truth


@settings(max_examples=15, deadline=None, derandomize=True)
@given(
    cells=st.lists(st.lists(small, min_size=2, max_size=4), min_size=1, max_size=3),
    head=st.lists(small, min_size=3, max_size=4),
    x11p=small,
)
def test_pooled_model_matches_data(cells, head, x11p):
    cs = [head] + cells
    for d, sc, pair in (
        (1, se.POOLED_VARIANCE_DEF1, se.pooled_pair(cs, x11p)),
        (2, se.POOLED_VARIANCE_DEF2, se.pooled_pair(cs)),
    ):
        ref = se.pooled_variance_difference(d)
        assert se.at_summary(ref, se.summary_values(sc, pair)) == pair.truth
