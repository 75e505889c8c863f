"""The checks can come out refuted: perturbed formulas must be caught."""

from __future__ import annotations

from fractions import Fraction

import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from dpcheck.claims import checks as ck
from dpcheck.claims.model import Status
from dpcheck.papers import liu2019 as P
from dpcheck.symbolic import laplace_family as lf
from dpcheck.symbolic.symbols import c0, c1, lam, s

MU1 = lf.quantity("truncated", "mean")
MU2 = lf.quantity("bit", "mean")
E0 = sp.exp((c0 - s) / lam)
E1 = sp.exp((s - c1) / lam)


def test_correct_transcriptions_are_proved():
    assert ck.identity(P.EQ6_MU1.expr, MU1).status is Status.PROVED
    assert ck.identity(P.EQ7_MU2.expr, MU2).status is Status.PROVED


def test_named_perturbations_are_refuted():
    perturbed = {
        "swap c0 and c1": P.EQ6_MU1.expr.subs({c0: c1, c1: c0}, simultaneous=True),
        "drop a factor 1/2": s + (lam - c0 + s) * E0 / (1 - E0 / 2 - E1 / 2),
        "flip a sign": s + lam / 2 * (E0 + E1),
        "bit with swapped bounds": P.EQ7_MU2.expr.subs({c0: c1, c1: c0}, simultaneous=True),
    }
    for name, expr in perturbed.items():
        for ref in (MU1, MU2):
            v = ck.identity(expr, ref)
            assert v.status is Status.REFUTED, name
            assert v.evidence["witness"]["difference"] not in ("0", "0.0")


@settings(max_examples=25, deadline=None, derandomize=True)
@given(
    k=st.fractions(min_value=Fraction(-5), max_value=Fraction(5), max_denominator=50).filter(
        lambda q: q != 0
    ),
    term=st.sampled_from(["E0", "E1", "lam", "s*E0", "lam*E1**2"]),
)
def test_random_perturbations_are_refuted(k, term):
    extra = {"E0": E0, "E1": E1, "lam": lam, "s*E0": s * E0, "lam*E1**2": lam * E1**2}[term]
    v = ck.identity(P.EQ6_MU1.expr + sp.Rational(k.numerator, k.denominator) * extra, MU1)
    assert v.status is Status.REFUTED


def test_chain_finds_the_inserted_error():
    good = [(f"line {i}", e) for i, e in enumerate([P.EQ6_MU1.expr, MU1, P.EQ6_MU1.expr])]
    assert ck.chain(good, MU1).status is Status.PROVED
    bad = good[:2] + [("line 2 (wrong)", MU1 + lam * E0 / 3)] + good[2:]
    v = ck.chain(bad, MU1)
    assert v.status is Status.REFUTED
    assert v.evidence["first_broken_line"] == "line 2 (wrong)"


def test_separable_argument_rejects_a_wrong_shape():
    t = sp.Symbol("t", positive=True)
    ok, _ = ck.separable_argument(
        lf.normalised("truncated", "bias"), t * sp.exp(-t), "difference", 1 - sp.exp(-t)
    )
    assert not ok
    ok, _ = ck.separable_argument(lf.normalised("bit", "bias"), -sp.exp(-t) / 2, "difference")
    assert not ok  # decomposition exact would need G = e^-t/2, and -e^-t/2 is increasing


def test_sign_prover_does_not_prove_false_statements():
    from dpcheck.symbolic.signs import prove_positive

    t = sp.Symbol("t", positive=True)
    assert prove_positive(sp.exp(-t) - 1, t) is None
    assert prove_positive(1 - t, t) is None
    assert prove_positive(t - sp.Rational(1, 10), t) is None
    assert prove_positive(1 - sp.exp(-t), t) is not None
