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
    v = chain_verdict("zz2016.test", [chain], domain="test", finding_ok="should not hold")
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
        g = sp.Poly(sk.G.subs({n: nv, m: mv, q: sp.Rational(qq), p: 1 - sp.Rational(qq)}), sk.z)
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


# --------------------------------------------------------------------------- checked steps
def test_nonneg_rational_decides_by_coefficients():
    a, b = sp.Symbol("a", positive=True), sp.Symbol("b", positive=True)
    u = sp.Symbol("u", nonnegative=True)
    assert sk.nonneg_rational(a * u / (a + b), (a, b), (u,))[0]
    assert sk.nonneg_rational((a + u) / b, (a, b), (u,), strict=True)[0]
    # u alone may vanish: >= 0 but not shown > 0
    assert not sk.nonneg_rational(u / b, (b,), (u,), strict=True)[0]
    # a negative coefficient, or an unconstrained symbol, is never "shown"
    ok, why = sk.nonneg_rational(a - b, (a, b))
    assert not ok and "negative coefficient" in why
    assert not sk.nonneg_rational(a * sp.Symbol("c"), (a,))[0]
    # the denominator must be shown positive too
    assert not sk.nonneg_rational(a / u, (a,), (u,))[0]


def test_lie_range_signs():
    assert sk.positive_on_lie_range(p - q)[0]
    assert sk.positive_on_lie_range(p**2 - q**2)[0]
    assert not sk.positive_on_lie_range(q - p)[0]
    assert not sk.positive_on_lie_range(q - sp.Rational(1, 4))[0]  # not > 0 on all of (0, 1/2)


def test_induction_lemmas_hold():
    for fact in (*sk.finite_sum_facts(), *sk.power_facts(), *sk.binomial_gf_facts()):
        assert fact.holds, fact
    assert all(f.holds for f in sk.count_law_facts())
    facts = sk.log_concavity_facts()
    assert len(facts) == 7 and all(f.holds for f in facts), [f.name for f in facts if not f.holds]


def test_peel_and_split_are_checked():
    i, k = sp.symbols("i k", integer=True)
    a = sp.IndexedBase("a")
    ok, out = sk.peel(a[i] ** 2, i, 1, k)
    assert ok and out == sp.Sum(a[i] ** 2, (i, 1, k)) + a[k + 1] ** 2
    c = sp.Symbol("c")
    ok, out = sk.split_sum(sp.Sum((c + 1) * a[i] + c * a[i] ** 2, (i, 1, k)))
    assert ok and sp.expand(out - (c + 1) * sp.Sum(a[i], (i, 1, k))) == c * sp.Sum(
        a[i] ** 2, (i, 1, k)
    )


def test_certify_accepts_a_true_certificate_and_rejects_false_ones():
    gap = sk.rho(n, m, s) - sk.rho(n, m, s + 1)
    mult = P(n, m, s - 1) * P(n, m, s)
    good = sk.certify(gap, mult, [(1, sk.lc(n, m, s))], "rho")
    assert all(f.holds for f in good)
    # the reversed gap: the identity fails
    assert not sk.certify(-gap, mult, [(1, sk.lc(n, m, s))], "rho")[0].holds
    # a coefficient negative on 0 < q < 1/2: the sign step fails
    bad = sk.certify(
        sk.rho(n, m + 1, s) - sk.rho(n, m, s),
        P(n, m + 1, s - 1) * P(n, m, s - 1),
        [(q**2 - p**2, sk.lc(n - 1, m, s - 1))],
        "rho m",
    )
    assert not bad[1].holds
    # a term not known to be >= 0 (a bare difference): the sign step fails
    odd = sk.certify(gap, mult, [(1, P(n, m, s) - P(n, m, s + 1))], "odd")
    assert not odd[1].holds


def test_log_concavity_fails_when_the_recursion_is_broken(monkeypatch):
    monkeypatch.setattr(sk, "prove", lambda lhs, rhs: sk.Proof(False, "broken", False, sp.S.One))
    facts = {f.name: f.holds for f in sk.log_concavity_facts()}
    assert facts["log-concavity: one record more"] is False


def test_same_power_product():
    z = sk.z
    assert sk.same_power_product((1 - p + p * z) ** m * (1 - q + q * z) ** (n - m), sk.G)
    assert not sk.same_power_product((1 - q + q * z) ** m * (1 - p + p * z) ** (n - m), sk.G)
    assert sk.same_power_product((p / q) ** n, p**n * q ** (-n))
    assert not sk.same_power_product((p / q) ** (n - 1), p**n * q ** (-n))


def test_negative_point_finds_the_smallest_failure():
    grid = sk.grid(4, 0, 0, 1, -1)  # 1 <= s <= n - 1
    assert sk.negative_point(sk.rho(n, m, s) - sk.rho(n, m, s + 1), grid, [Fraction(1, 4)]) is None
    hit = sk.negative_point(sk.rho(n, m, s + 1) - sk.rho(n, m, s), grid, [Fraction(1, 4)])
    assert hit is not None and (hit["n"], hit["s"]) == ("2", "1")
    assert Fraction(hit["value"]) < 0
