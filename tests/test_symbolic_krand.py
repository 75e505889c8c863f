"""The generating-function prover of zz2016's identities, and checks that can fail."""

from __future__ import annotations

from fractions import Fraction

import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from dpcheck.claims.krand import chain_verdict, check_chain
from dpcheck.claims.model import Status
from dpcheck.enumeration import krand as ek
from dpcheck.papers import zz2016 as Z
from dpcheck.papers.equation import Equation
from dpcheck.symbolic import krand as sk
from dpcheck.symbolic.krand import F, P, m, n, p, q, s


def _line(expr: sp.Expr, label: str = "perturbed") -> Equation:
    return Equation(label, Z.SOURCE, label, expr)


TRUE = {
    "4.1": (P(n, m, s), p * P(n - 1, m - 1, s - 1) + q * P(n - 1, m - 1, s)),
    "4.3": Z.LEMMA4_1[0].expr,
    "cdf": (F(n, m, s) - F(n, m - 1, s), -(p - q) * P(n - 1, m - 1, s)),
}


@pytest.mark.parametrize(
    "lhs, rhs",
    [
        (P(n, m, s), p * P(n - 1, m - 1, s - 1) + q * P(n - 1, m - 1, s)),
        (P(n, m, s), q * P(n - 1, m, s - 1) + p * P(n - 1, m, s)),
        (Z.LEMMA4_1[0].expr, Z.LEMMA4_1[1].expr),
        (F(n, m, s) - F(n, m - 1, s), -(p - q) * P(n - 1, m - 1, s)),
        (sk.pi(n, m, s), Z.PI_VIA_RHO[2].expr),
        (sk.pi(n, m, 0), p / q),
    ],
)
def test_true_identities_are_proved(lhs, rhs):
    assert sk.prove(lhs, rhs).holds


@pytest.mark.parametrize(
    "lhs, rhs",
    [
        # p and q swapped in (4.1)
        (P(n, m, s), q * P(n - 1, m - 1, s - 1) + p * P(n - 1, m - 1, s)),
        # (n - s) for (n - s + 1) in (4.3)
        (
            (s + 1) * P(n, m, s + 1),
            Z.GAMMA_BRACE * P(n, m, s) + (n - s) * P(n, m, s - 1),
        ),
        # a dropped factor (p - q)
        (F(n, m, s) - F(n, m - 1, s), -P(n - 1, m - 1, s)),
        # wrong shift
        (F(n, m, s + 1) - F(n, m - 1, s), q * (P(n - 1, m - 1, s - 1) + P(n - 1, m - 1, s))),
        # ratio identity with g inverted
        (sk.pi(n, m, s), Z.PI_VIA_RHO[2].expr ** -1),
        (sk.pi(n, m, 0), q / p),
    ],
)
def test_false_identities_are_refuted_with_an_exact_witness(lhs, rhs):
    proof = sk.prove(lhs, rhs)
    assert not proof.holds
    hits = list(sk.exact_residuals(lhs, rhs, sk.grid(4, 0, 0, -1, 1), [Fraction(1, 4)]))
    assert hits, "the exact route must find the difference too"


def test_chain_verdict_refutes_at_the_smallest_witness():
    chain = [Z.EQ4_1[0], _line(q * P(n - 1, m - 1, s - 1) + p * P(n - 1, m - 1, s))]
    v = chain_verdict(
        "zz2016.test", [chain], domain="test", finding_ok="should not hold"
    )
    assert v.status is Status.REFUTED
    wit = v.evidence["witness"]
    # smallest n, then m, then s: n = 1, m = 1 (m >= 1 for A_{n-1}(m-1)), s = 0
    assert wit["data"] == {"n": 1, "m": 1, "s": 0, "q": wit["data"]["q"]}
    qq = Fraction(wit["data"]["q"])
    assert Fraction(wit["value of the law"]) == qq  # P[A_1(1) = 0] = q
    assert Fraction(wit["printed line on the data"]) == 1 - qq


def test_every_printed_chain_line_is_checked_on_both_routes():
    _, entries = check_chain(Z.CDF_DIFFERENCE_1)
    assert len(entries) == 3
    assert all(e["status"] == "holds as printed" for e in entries)
    assert all("exact check" in e for e in entries)


def test_prover_and_exact_route_disagree_is_never_settled(monkeypatch):
    # a broken prover (says everything holds) must not turn a false line into "holds"
    monkeypatch.setattr(
        sk, "prove", lambda lhs, rhs: sk.Proof(True, "broken", False, sp.Integer(0))
    )
    chain = [Z.EQ4_1[0], _line(q * P(n - 1, m - 1, s - 1) + p * P(n - 1, m - 1, s))]
    _, entries = check_chain(chain)
    assert entries[0]["status"] == "undecided"


def test_generating_function_is_the_law():
    """G_{n,m} expanded equals the exact pmf (independent of the prover)."""
    for nv, mv, qq in [(5, 2, Fraction(1, 4)), (7, 7, Fraction(1, 3)), (6, 0, Fraction(1, 10))]:
        g = sp.Poly(
            sk.G.subs({n: nv, m: mv, q: sp.Rational(qq), p: 1 - sp.Rational(qq)}), sk.z
        )
        coeffs = [Fraction(str(c)) for c in reversed(g.all_coeffs())]
        assert coeffs == ek.pmf(nv, mv, qq)


@settings(max_examples=40, deadline=None)
@given(
    nv=st.integers(1, 9),
    data=st.data(),
    qq=st.fractions(Fraction(1, 1000), Fraction(499, 1000)),
)
def test_evaluate_matches_the_law(nv, data, qq):
    mv = data.draw(st.integers(0, nv))
    sv = data.draw(st.integers(-2, nv + 2))
    law = ek.pmf(nv, mv, qq)
    expect_p = law[sv] if 0 <= sv <= nv else Fraction(0)
    expect_f = sum(law[: max(0, min(sv, nv) + 1)], Fraction(0)) if sv >= 0 else Fraction(0)
    assert sk.evaluate(P(n, m, s), nv, mv, sv, qq) == expect_p
    assert sk.evaluate(F(n, m, s), nv, mv, sv, qq) == expect_f


def test_atoms_need_integer_offsets():
    with pytest.raises(ValueError, match="not n minus an integer"):
        sk.atom_of(P(2 * n, m, s))
