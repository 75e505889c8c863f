"""k-ary randomized response (dpcheck.laws.krr) against independent routes."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from dpcheck.errors import InputError
from dpcheck.laws.krr import RandomizedResponse

EPSILONS = [0, Fraction(1, 2), 1, 3]


def _rat(v) -> sp.Rational:
    f = Fraction(v)
    return sp.Rational(f.numerator, f.denominator)


def closed_form_delta(k: int, eps, q) -> sp.Expr:
    """Hand-derived δ(q) for q >= 0 (Kairouz, Oh and Viswanath 2016, k-RR)."""
    e, q = _rat(eps), _rat(q)
    return (sp.exp(e) - sp.exp(q)) / (sp.exp(e) + k - 1) if q < e else sp.Integer(0)


def same(a: sp.Expr, b: sp.Expr) -> bool:
    return sp.simplify(a - b) == 0


@pytest.mark.parametrize("k", range(2, 7))
@pytest.mark.parametrize("eps", EPSILONS)
def test_probabilities_sum_to_one_exactly(k, eps):
    m = RandomizedResponse(k, eps)
    for x in range(k):
        p = m.probabilities(x)
        assert len(p) == k
        assert same(sp.Add(*p), sp.Integer(1))
        assert same(p[x], sp.exp(_rat(eps)) / (sp.exp(_rat(eps)) + k - 1))


@pytest.mark.parametrize("k", range(2, 7))
@pytest.mark.parametrize("eps", EPSILONS)
def test_pure_epsilon_exact_and_symmetry_shortcut(k, eps):
    m = RandomizedResponse(k, eps)
    assert m.pure_epsilon() == _rat(eps)
    assert m.pure_epsilon(exhaustive=True) == _rat(eps)
    for q in [0, Fraction(1, 3), eps, Fraction(-1, 2), -4]:
        assert same(m.delta(q), m.delta(q, exhaustive=True)), (k, eps, q)


@pytest.mark.parametrize(
    "k, eps, q",
    [
        (2, 1, Fraction(1, 2)),
        (3, 3, 1),
        (5, Fraction(1, 2), Fraction(1, 7)),
        (4, 2, 2),  # q = eps: 0
        (6, 1, 0),  # total variation
        (4, 1, 3),  # q > eps: 0
        (2, 0, 0),
        (7, Fraction(5, 2), "0.25"),
    ],
)
def test_delta_closed_form(k, eps, q):
    d = RandomizedResponse(k, eps).delta(q)
    assert same(d, closed_form_delta(k, eps, q))
    if Fraction(q) >= Fraction(eps):
        assert d == 0
    if Fraction(q) == 0:
        e = sp.exp(_rat(eps))
        assert same(d, (e - 1) / (e + k - 1))


def test_delta_negative_query_by_hand():
    # q = -1 < 0 < eps = 1 < -q fails: y = x and the k - 2 others count, y = x' does not
    e = sp.E
    assert same(RandomizedResponse(4, 1).delta(-1), (e - 1 / e + 2 * (1 - 1 / e)) / (e + 3))


def test_closed_form_helper_can_fail():
    assert not same(RandomizedResponse(4, 1).delta(0), closed_form_delta(3, 1, 0))
    assert not same(RandomizedResponse(4, 1).delta(0), closed_form_delta(4, 1, Fraction(1, 2)))


@pytest.mark.parametrize(
    "k, eps, q", [(4, 1, Fraction(1, 2)), (2, 3, 0), (9, Fraction(7, 3), 2), (3, 1, 5)]
)
def test_delta_interval_encloses_mpmath(k, eps, q):
    lo, hi = RandomizedResponse(k, eps).delta_interval(q, digits=30)
    with mpmath.workdps(50):
        e, qq = (mpmath.mpf(Fraction(v).numerator) / Fraction(v).denominator for v in (eps, q))
        ref = (mpmath.exp(e) - mpmath.exp(qq)) / (mpmath.exp(e) + k - 1) if qq < e else 0
        assert lo <= ref + mpmath.mpf("1e-45") and ref - mpmath.mpf("1e-45") <= hi
        assert hi - lo < mpmath.mpf("1e-25")
        assert lo <= hi
    assert abs(RandomizedResponse(k, eps).delta_float(q) - float(ref)) <= 1e-15 * float(ref)


def test_privacy_krr_acceptance_library_side():
    m = RandomizedResponse(4, 1)
    assert m.pure_epsilon() == 1
    expected = (sp.E - sp.exp(sp.Rational(1, 2))) / (sp.E + 3)
    assert m.delta(Fraction(1, 2)) == expected
    assert same(m.delta(Fraction(1, 2)), expected)
    assert m.worst_pair() == (0, 1)


def goodness_of_fit(draws: np.ndarray, probs: list[float]) -> bool:
    """Chi-square test; a correct sampler fails with probability <= 1e-6."""
    k = len(probs)
    counts = np.bincount(draws, minlength=k)
    assert counts.size == k
    expected = len(draws) * np.asarray(probs)
    statistic = float(((counts - expected) ** 2 / expected).sum())
    return statistic <= stats.chi2.isf(1e-6, k - 1)


def _float_law(m: RandomizedResponse, x: int) -> list[float]:
    return [float(p.evalf(30)) for p in m.probabilities(x)]


@pytest.mark.parametrize("x", [0, 2])
def test_sampler_goodness_of_fit(x):
    m = RandomizedResponse(4, 1)
    draws = m.sample(np.random.default_rng(20240535 + x), x, 10**5)
    assert draws.dtype == np.int64 and draws.shape == (10**5,)
    assert goodness_of_fit(draws, _float_law(m, x))


def test_goodness_check_rejects_wrong_keep_probability(monkeypatch):
    m = RandomizedResponse(4, 1)
    e = float(np.e)
    monkeypatch.setattr(RandomizedResponse, "_keep_probability", lambda self: e / (e + 4))
    draws = m.sample(np.random.default_rng(20240535), 0, 10**5)
    assert not goodness_of_fit(draws, _float_law(m, 0))


@settings(max_examples=50, deadline=None)
@given(
    k=st.integers(2, 50),
    eps=st.fractions(min_value=0, max_value=20, max_denominator=64),
    q1=st.fractions(min_value=0, max_value=25, max_denominator=64),
    q2=st.fractions(min_value=0, max_value=25, max_denominator=64),
)
def test_random_krr_properties(k, eps, q1, q2):
    m = RandomizedResponse(k, eps)
    assert m.pure_epsilon() == _rat(eps)
    q1, q2 = min(q1, q2), max(q1, q2)
    d1, d2 = m.delta(q1), m.delta(q2)
    # non-increasing: equal exactly, or certified strictly ordered
    assert same(d1, d2) or m.delta_interval(q1)[0] > m.delta_interval(q2)[1]
    assert same(d1, closed_form_delta(k, eps, q1))
    # delta(0) = total variation, by direct enumeration of the two exact laws
    p0, p1 = m.probabilities(0), m.probabilities(1)
    tv = sp.Add(*[sp.Abs(a - b) for a, b in zip(p0, p1, strict=True)]) / 2
    assert same(m.delta(0), tv)


@pytest.mark.parametrize(
    "call",
    [
        lambda: RandomizedResponse(1, 1),
        lambda: RandomizedResponse(True, 1),
        lambda: RandomizedResponse(2.5, 1),
        lambda: RandomizedResponse(3, -1),
        lambda: RandomizedResponse(3, float("nan")),
        lambda: RandomizedResponse(3, "inf"),
        lambda: RandomizedResponse(3, float("inf")),
        lambda: RandomizedResponse(3, "abc"),
        lambda: RandomizedResponse(3, True),
        lambda: RandomizedResponse(3, 1).sample(np.random.default_rng(0), 3, 10),
        lambda: RandomizedResponse(3, 1).sample(np.random.default_rng(0), 0, 10**9),
        lambda: RandomizedResponse(3, 1).probabilities(-1),
        lambda: RandomizedResponse(3, 1).delta(float("nan")),
        lambda: RandomizedResponse(40, 1).delta(0, exhaustive=True),
        lambda: RandomizedResponse(10**5, 1).probabilities(0),
    ],
)
def test_bad_inputs_one_line(call):
    with pytest.raises(InputError) as err:
        call()
    assert "\n" not in str(err.value)
    assert "expected" in str(err.value) or "needs" in str(err.value)


def test_bad_k_message_names_value():
    with pytest.raises(InputError, match=r"^k = 1: expected an integer >= 2$"):
        RandomizedResponse(1, 1)


def test_float_epsilon_taken_at_binary_value():
    assert RandomizedResponse(2, 0.1).epsilon == Fraction(0.1) != Fraction(1, 10)
    assert RandomizedResponse(2, "0.1").epsilon == Fraction(1, 10)
