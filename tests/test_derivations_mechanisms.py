"""The derivations of the mechanism algebra (issue 18): a wrong displayed step is caught by
the step checker, and the derived results agree with independent routes.

The golden test (the checked-in derivations/*.tex equal a fresh `dpcheck derive`) is in
tests/test_derivations.py; this file checks the checker itself and the values.
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache

import mpmath
import pytest
import sympy as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dpcheck.derivations import mechanisms as X
from dpcheck.derivations import stepcheck
from dpcheck.derivations.notation import E0, E1
from dpcheck.derivations.stepcheck import StepNotChecked
from dpcheck.symbolic import atoms, laws
from dpcheck.symbolic import mechanisms as M
from dpcheck.symbolic.symbols import alpha, c0, c1, lam, m, s, sigma, x, z

a, b, N, Phi, phi, f = X.a, X.b, X.N, X.Phi, X.phi, X.f
J = X.J


@cache
def built(name: str) -> X.Checked:
    return X.builders()[name]()


# --------------------------------------------------------------------------- the checker
def test_correct_steps_pass_and_are_counted() -> None:
    checker = X._checker("truncated-gaussian")
    checker.equal(M.quantity("truncated-gaussian", "mean"), s + sigma * (phi(a) - phi(b)) / N)
    checker.equal(N, Phi(b) - Phi(a))
    checker.equal(
        sp.Integral(x * f(x), (x, c0, c1)),
        sp.Integral((s + sigma * z) * sp.exp(-(z**2) / 2) / sp.sqrt(2 * sp.pi), (z, a, b)),
    )
    assert checker.tally["equality"] == 3
    assert checker.tally["change of variable"] >= 1
    assert checker.tally["antiderivative"] == 2  # e^{-z^2/2} and z e^{-z^2/2}


@pytest.mark.parametrize(
    "wrong",
    [
        s + sigma * (phi(a) + phi(b)) / N,  # a sign
        s + sigma * (phi(b) - phi(a)) / N,  # a and b swapped
        s + sigma * (phi(a) - phi(b)) / (Phi(b) + Phi(a)),  # the normaliser
        s + (phi(a) - phi(b)) / N,  # sigma dropped
        s + sigma * (phi(a) - phi(b)),  # not divided by N
    ],
)
def test_a_wrong_final_form_is_caught(wrong: sp.Expr) -> None:
    checker = X._checker("truncated-gaussian")
    with pytest.raises(StepNotChecked):
        checker.equal(M.quantity("truncated-gaussian", "mean"), wrong)
    assert checker.tally["equality"] == 0


@pytest.mark.parametrize(
    "wrong",
    [
        sp.Integral(sp.exp(-(z**2) / 2) / sp.sqrt(2 * sp.pi), (z, a, b + 1)),  # a bound
        sp.Integral(sp.exp(-(z**2) / 2), (z, a, b)),  # the 1/sqrt(2 pi)
        sp.Integral(sp.exp(-(z**2)) / sp.sqrt(2 * sp.pi), (z, a, b)),  # the kernel
    ],
)
def test_a_wrong_change_of_variable_is_caught(wrong: sp.Expr) -> None:
    checker = X._checker("truncated-gaussian")
    right = sp.Integral(sp.exp(-(z**2) / 2) / sp.sqrt(2 * sp.pi), (z, a, b))
    checker.equal(sp.Integral(f(x), (x, c0, c1)), right)
    with pytest.raises(StepNotChecked):
        checker.equal(sp.Integral(f(x), (x, c0, c1)), wrong)


def test_a_wrong_antiderivative_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """The engine's antiderivative is differentiated back: a sign slip is seen."""
    real = laws._antiderivative

    def wrong(kernel: sp.Expr) -> sp.Expr:
        return -real(kernel) if kernel == z * sp.exp(-(z**2) / 2) else real(kernel)

    monkeypatch.setattr(laws, "_antiderivative", wrong)
    checker = X._checker("clamped-gaussian")
    checker.antiderivative(sp.exp(-(z**2) / 2), z)
    with pytest.raises(StepNotChecked, match="is not"):
        checker.antiderivative(z * sp.exp(-(z**2) / 2), z)


def _run(kernel: sp.Expr) -> sp.Expr:
    return laws.resolve_abs(kernel, 1, m, 0).subs(m, J)


def test_finite_sums_are_proved_by_induction_and_an_off_by_one_is_caught() -> None:
    checker = X._checker("truncated-geometric")
    term = _run(x.subs(x, s + m) * laws.geometric_pmf())
    closed = checker.closed_sum(term).subs(stepcheck._K, c1 - s)
    checker.equal(sp.Sum(term, (J, 1, X.L1)), closed)
    assert checker.tally["induction"] == 1
    with pytest.raises(StepNotChecked):
        checker.equal(sp.Sum(term, (J, 1, X.L1)), closed.subs(c1, c1 + 1))
    with pytest.raises(StepNotChecked):
        checker.equal(sp.Sum(term, (J, 1, X.L1)), closed * alpha)


def test_a_wrong_engine_closed_form_fails_the_induction(monkeypatch: pytest.MonkeyPatch) -> None:
    real = laws._sum_run
    monkeypatch.setattr(laws, "_sum_run", lambda term, count: real(term, count + 1))
    checker = X._checker("clamped-geometric")
    with pytest.raises(StepNotChecked, match="K"):
        checker.closed_sum(_run(laws.geometric_pmf()))


def test_geometric_series_and_a_wrong_tail_mass() -> None:
    checker = X._checker("clamped-geometric")
    term = laws.resolve_abs(laws.geometric_pmf(), -1, m, 0).subs(m, -(X.L0 + J))
    series = sp.Sum(term, (J, 1, sp.oo))
    checker.equal(series, X.A0 * alpha / (1 + alpha))
    assert checker.tally["geometric series"] == 1
    with pytest.raises(StepNotChecked):
        checker.equal(series, X.A0 / (1 + alpha))
    with pytest.raises(StepNotChecked, match="not geometric"):
        checker.equal(sp.Sum(J * alpha**J, (J, 1, sp.oo)), alpha / (1 - alpha) ** 2)


def test_a_ratio_not_shown_below_one_is_refused() -> None:
    checker = X._checker("clamped-geometric")
    with pytest.raises(StepNotChecked, match="not shown"):
        checker.equal(sp.Sum(sp.exp(J * s), (J, 1, sp.oo)), sp.exp(s) / (1 - sp.exp(s)))


def test_splitting_at_s_and_a_wrong_resolution_of_the_absolute_value() -> None:
    checker = X._checker("folded-laplace")
    mass = sp.Integral(f(x), (x, c0, c1))
    checker.equal(mass, 1 - E0 / 2 - E1 / 2)
    assert checker.tally["split at s"] == 1
    with pytest.raises(StepNotChecked):
        checker.equal(mass, 1 - E0 / 2 + E1 / 2)
    with pytest.raises(StepNotChecked):
        checker.equal(mass, sp.Integral(sp.exp((x - s) / lam) / (2 * lam), (x, c0, c1)))


def test_a_wrong_resolution_of_an_image_is_caught() -> None:
    """f(2c_0 - x): the image lies below s (proved), so |2c_0 - x - s| = s + x - 2c_0."""
    from dpcheck.symbolic import folding

    checker = X._checker("folded-laplace")
    image = 2 * c0 - x
    right = sp.exp(-(s + x - 2 * c0) / lam) / (2 * lam)
    proof = lambda: folding.side_of_s(image + 2 * folding.k * folding.width, "k=0") == -1  # noqa: E731
    checker.resolved(f(image), right, image, -1, proof)
    assert checker.tally["sign"] == 1
    with pytest.raises(StepNotChecked, match="resolved"):
        checker.resolved(f(image), sp.exp((s + x - 2 * c0) / lam) / (2 * lam), image, -1, proof)
    with pytest.raises(StepNotChecked, match="sign"):
        checker.resolved(f(image), right, image, -1, lambda: False)


def test_an_antiderivative_with_a_pole_is_refused() -> None:
    checker = X._checker("folded-laplace")
    with pytest.raises(StepNotChecked, match="entire"):
        checker.antiderivative(1 / x, x)


def test_a_sign_that_does_not_hold_is_refused() -> None:
    checker = X._checker("folded-laplace")
    with pytest.raises(StepNotChecked, match="side"):
        checker.sign(lambda: False, "side of s of x")
    assert checker.tally["sign"] == 0


def test_integrals_the_checker_does_not_do_are_refused() -> None:
    checker = X._checker("folded-laplace")
    with pytest.raises(StepNotChecked, match="denominator"):
        checker.equal(sp.Integral(1 / (1 + sp.exp(x)), (x, c0, c1)), 0)
    with pytest.raises(StepNotChecked, match="in z"):
        checker.equal(sp.Integral(sp.Abs(z), (z, 0, 1)), sp.Rational(1, 2))
    with pytest.raises(StepNotChecked, match="one variable"):
        checker.equal(sp.Integral(x * z, (x, 0, 1), (z, 0, 1)), sp.Rational(1, 4))


# --------------------------------------------------------------------------- the builders
def _mutated(monkeypatch: pytest.MonkeyPatch, name: str, change) -> None:
    real = getattr(X, name)
    monkeypatch.setattr(X, name, lambda *args, **kw: change(real(*args, **kw)))


def test_a_builder_with_a_wrong_displayed_form_raises(monkeypatch: pytest.MonkeyPatch) -> None:
    """Mutate what the builders display (the final Phi form, the erf form of an
    integral): the derivation is refused, not written."""
    X.gaussian("clamped-gaussian", "mean")  # builds as it is
    _mutated(monkeypatch, "gaussian_form", lambda e: e.subs(Phi(a), Phi(a) + phi(a) / 10))
    with pytest.raises(StepNotChecked):
        X.gaussian("clamped-gaussian", "mean")
    monkeypatch.undo()
    _mutated(monkeypatch, "in_ab", lambda e: e.subs(sp.erf(sp.sqrt(2) * b / 2), sp.erf(b)))
    with pytest.raises(StepNotChecked):
        X.gaussian("clamped-gaussian", "mean")


def test_a_geometric_builder_with_swapped_powers_raises(monkeypatch: pytest.MonkeyPatch) -> None:
    swap = {X.A0: X.A1, X.A1: X.A0}
    _mutated(monkeypatch, "geometric_form", lambda e: e.xreplace(swap))
    with pytest.raises(StepNotChecked):
        X.geometric("clamped-geometric", "mean")


def test_the_folded_law_with_a_wrong_series_raises(monkeypatch: pytest.MonkeyPatch) -> None:
    _mutated(monkeypatch, "_with_q", lambda e: e.subs(X.Q, X.Q**2))
    with pytest.raises(StepNotChecked):
        X.folded_law()


def test_a_disagreeing_independent_route_raises(monkeypatch: pytest.MonkeyPatch) -> None:
    _mutated(monkeypatch, "independent", lambda v: v + mpmath.mpf(10) ** -20)
    with pytest.raises(StepNotChecked):
        X.gaussian("clamped-gaussian", "mean")


# --------------------------------------------------------------------------- the results
def test_the_truncated_normal_results_are_the_textbook_ones() -> None:
    """Johnson, Kotz and Balakrishnan (1994), eqs (13.134)-(13.135), as an independent
    route: mean s + sigma (phi(a) - phi(b))/Z, variance
    sigma^2 [1 + (a phi(a) - b phi(b))/Z - ((phi(a) - phi(b))/Z)^2], Z = Phi(b) - Phi(a)."""
    pdf = {u: sp.exp(-(u**2) / 2) / sp.sqrt(2 * sp.pi) for u in (a, b)}
    cdf = {u: (1 + sp.erf(u / sp.sqrt(2))) / 2 for u in (a, b)}
    mass = cdf[b] - cdf[a]
    mean = s + sigma * (pdf[a] - pdf[b]) / mass
    var = sigma**2 * (1 + (a * pdf[a] - b * pdf[b]) / mass - ((pdf[a] - pdf[b]) / mass) ** 2)
    std = {a: (c0 - s) / sigma, b: (c1 - s) / sigma}
    for name, book in (("truncated-gaussian-mean", mean), ("truncated-gaussian-variance", var)):
        result = built(name).result
        assert atoms.is_zero(result - book.subs(std)), name
        assert not atoms.is_zero(result - book.subs(std) + sigma / 1000)


def _gaussian_point(data: st.DataObject) -> dict[str, Fraction]:
    lo = data.draw(st.fractions(-5, 5, max_denominator=50))
    width = data.draw(st.sampled_from([Fraction(1, 100), Fraction(1, 3), Fraction(1), Fraction(7)]))
    where = data.draw(st.sampled_from([Fraction(0), Fraction(1, 4), Fraction(1, 2), Fraction(1)]))
    scale = data.draw(st.sampled_from([Fraction(1, 50), Fraction(1, 2), Fraction(3), Fraction(40)]))
    return {"s": lo + where * width, "c0": lo, "c1": lo + width, "sigma": scale * width}


def _value(result: sp.Expr, point: dict[str, Fraction]) -> mpmath.mpf:
    values = {X._NATIVE[k]: sp.Rational(v.numerator, v.denominator) for k, v in point.items()}
    return mpmath.mpf(str(sp.N(result.subs(values), 40)))


@pytest.mark.slow
@pytest.mark.parametrize(
    "name",
    [
        "truncated-gaussian-mean",
        "truncated-gaussian-variance",
        "clamped-gaussian-mean",
        "clamped-gaussian-variance",
    ],
)
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_gaussian_results_agree_with_quadrature(name: str, data: st.DataObject) -> None:
    point = _gaussian_point(data)
    mechanism, quantity = name.rsplit("-", 1)
    quantity = "mean" if quantity == "mean" else "var"
    reference = X.independent(mechanism, quantity, point, dps=30)
    value = _value(built(name).result, point)
    assert abs(value - reference) <= mpmath.mpf(10) ** -15 * max(1, abs(reference)), point


@pytest.mark.parametrize(
    "name",
    [
        pytest.param("truncated-geometric-mean", marks=pytest.mark.slow),
        pytest.param("truncated-geometric-variance", marks=pytest.mark.slow),
        "clamped-geometric-mean",
        pytest.param("clamped-geometric-variance", marks=pytest.mark.slow),
    ],
)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    lo=st.integers(-6, 6),
    d0=st.integers(0, 5),
    d1=st.integers(0, 5),
    q=st.sampled_from([Fraction(1, 1000), Fraction(1, 3), Fraction(5, 7), Fraction(999, 1000)]),
)
def test_geometric_results_are_exactly_the_direct_sums(
    name: str, lo: int, d0: int, d1: int, q: Fraction
) -> None:
    """Exact rational arithmetic: the derived result at integer s, c0, c1 and rational
    alpha equals the sum of the pmf over the run (tails by symmetry)."""
    if d0 + d1 == 0:
        return  # c0 < c1
    point = {"s": Fraction(lo + d0), "c0": Fraction(lo), "c1": Fraction(lo + d0 + d1), "alpha": q}
    mechanism, quantity = name.rsplit("-", 1)
    reference = X.independent(mechanism, "mean" if quantity == "mean" else "var", point)
    values = {X._NATIVE[k]: sp.Rational(v.numerator, v.denominator) for k, v in point.items()}
    assert sp.cancel(built(name).result.subs(values)) == sp.Rational(
        reference.numerator, reference.denominator
    )


@pytest.mark.slow
@pytest.mark.parametrize("name", ["folded-laplace-mean", "folded-laplace-variance"])
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    where=st.sampled_from([Fraction(0), Fraction(1, 3), Fraction(1)]),
    ratio=st.sampled_from([Fraction(1, 20), Fraction(1, 2), Fraction(2)]),
)
def test_folded_results_agree_with_quadrature_of_the_fold(
    name: str, where: Fraction, ratio: Fraction
) -> None:
    point = {"s": where * 3 - 1, "c0": Fraction(-1), "c1": Fraction(2), "lam": ratio * 3}
    quantity = "mean" if name.endswith("mean") else "var"
    reference = X.independent("folded-laplace", quantity, point, dps=20)
    value = _value(built(name).result, point)
    assert abs(value - reference) <= mpmath.mpf(10) ** -15 * max(1, abs(reference)), point


def test_every_new_mechanism_has_a_mean_and_a_variance_and_liu_is_not_repeated() -> None:
    from dpcheck.numeric.names import MECHANISM_NAMES, parts

    names = X.builders()
    for mechanism in MECHANISM_NAMES:
        bounding, _ = parts(mechanism)
        if bounding == "none" or mechanism in ("truncated-laplace", "clamped-laplace"):
            assert not any(n.startswith(mechanism + "-") for n in names), mechanism
            continue
        assert f"{mechanism}-mean" in names and f"{mechanism}-variance" in names, mechanism
