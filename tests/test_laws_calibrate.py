"""Calibration of any law-object mechanism (dpcheck.laws.calibrate, issue 35).

Routes: the closed-form calibrations (Laplace: Δ/ε; the analytic Gaussian of Balle and
Wang 2018 solved by mpmath at 50 digits), direct summation of a user-defined discrete
Gaussian's pmf, and the old profile engine's calibration for the mechanisms it has."""

from __future__ import annotations

import json
from fractions import Fraction as F

import mpmath
import pytest

import dpcheck
from dpcheck.cli import main
from dpcheck.errors import InputError
from dpcheck.laws import registry
from dpcheck.laws.additive import Additive
from dpcheck.laws.bounded_privacy import BoundedMechanism
from dpcheck.laws.calibrate import calibrate, satisfies
from dpcheck.numeric import profile


def additive(name: str, d: F = F(1)):
    law = registry.get(name)
    return lambda b: Additive(law, {law.scale: b}, d)


def mp(x: F) -> mpmath.mpf:
    with mpmath.workdps(60):
        return mpmath.mpf(x.numerator) / x.denominator


def rounded_up(x: mpmath.mpf) -> F:
    """x rounded up to the 13 printed digits, as the CLI prints it."""
    return F(profile._round_up(x))


def test_laplace_pure_calibration_is_sensitivity_over_epsilon():
    for d, eps in ((F(1), F(1)), (F(3), F(1, 7)), (F(1, 3), F(5, 2))):
        got = calibrate(additive("laplace", d), eps, F(0))
        assert got.scale == F(profile._round_up(d / eps))  # exact rounding of Δ/ε
        assert got.minimal


def _gaussian_delta(sigma: mpmath.mpf, eps: mpmath.mpf) -> mpmath.mpf:
    """Balle and Wang (2018), Theorem 8, Δ = 1."""
    return mpmath.ncdf(1 / (2 * sigma) - eps * sigma) - mpmath.exp(eps) * mpmath.ncdf(
        -1 / (2 * sigma) - eps * sigma)


@pytest.mark.parametrize("eps, delta", [(F(1), F(1, 10**5)), (F(1, 10), F(1, 10**3))])
def test_gaussian_calibration_matches_the_analytic_gaussian(eps, delta):
    with mpmath.workdps(50):
        e, dl = mp(eps), mp(delta)
        lo, hi = mpmath.mpf("0.01"), mpmath.mpf(1000)  # δ decreases in σ: bisection
        for _ in range(200):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if _gaussian_delta(mid, e) > dl else (lo, mid)
        sigma = hi
        want = rounded_up(sigma)
    got = calibrate(additive("gaussian"), eps, delta)
    assert got.scale == want, (float(got.scale), float(sigma))
    assert got.minimal


def test_the_printed_scale_is_the_smallest_decimal_shown_to_satisfy():
    """Laplace, ε = 1, δ = 1e-6: λ* = 1/(1 - 2 log(1 - 1e-6)) = 0.99999800000299999533..., just
    below a rounding boundary: the upper end of the bisection lies above it, and rounding
    it up would print 0.9999980000031."""
    got = calibrate(additive("laplace"), F(1), F(1, 10**6))
    assert got.as_dict()["calibrated scale"] == "0.999998000003"
    assert satisfies(Additive(registry.get("laplace"), {"lam": got.scale}, F(1)), F(1),
                     F(1, 10**6)) is True


def _dg_delta(sigma: F, eps: F, terms: int = 400) -> mpmath.mpf:
    """δ(ε) of x + Z, Z discrete Gaussian, Δ = 1, summed directly over the lattice:
    Σ_y max(0, p(y) - e^ε p(y - 1))."""
    with mpmath.workdps(50):
        s2 = (mpmath.mpf(sigma.numerator) / sigma.denominator) ** 2
        ker = [mpmath.exp(-mpmath.mpf(y) ** 2 / (2 * s2)) for y in range(-terms, terms + 1)]
        norm = mpmath.fsum(ker)
        e = mpmath.exp(mpmath.mpf(eps.numerator) / eps.denominator)
        total = mpmath.fsum(max(0, ker[i] - e * ker[i - 1]) for i in range(1, len(ker)))
        return total / norm


def test_a_user_defined_discrete_gaussian_calibrates_against_direct_summation():
    dg = dpcheck.law(r"e^{-\frac{z^2}{2w^2}}", support="integers", params=["w>0"])
    eps, delta = F(1), F(1, 10**4)
    got = calibrate(lambda b: Additive(dg, {"w": b}, F(1)), eps, delta, "dg")
    assert _dg_delta(got.scale, eps) <= mp(delta)
    assert _dg_delta(got.scale * (1 - F(1, 10**8)), eps) > mp(delta)
    assert got.minimal


@pytest.mark.parametrize("name, old, eps, delta", [
    ("discrete-laplace", "geometric", F(1, 2), F(0)),
    ("gaussian", "gaussian", F(1), F(1, 10**5)),
])
def test_additive_calibration_matches_the_old_engine(name, old, eps, delta):
    before = profile.calibrate(profile.neighbours(old, 1, None, None, None), eps, delta)
    after = calibrate(additive(name), eps, delta)
    assert after.as_dict()["calibrated scale"] == before.as_dict()["calibrated scale"]


@pytest.mark.slow
@pytest.mark.parametrize("bounding, name, old, eps, delta", [
    ("truncated", "laplace", "laplace", F(1), F(0)),
    ("clamped", "gaussian", "gaussian", F(1), F(1, 10**3)),
])
def test_bounded_calibration_matches_the_old_engine(bounding, name, old, eps, delta):
    law = registry.get(name)
    before = profile.calibrate(profile.neighbours(f"{bounding}-{old}", 1, 0, 2, None), eps, delta)
    after = calibrate(
        lambda b: BoundedMechanism(law, {law.scale: b}, bounding, F(0), F(2), F(1)), eps, delta)
    assert after.as_dict()["calibrated scale"] == before.as_dict()["calibrated scale"]
    assert after.minimal


def test_a_bounded_lattice_law_calibrates_on_its_brute_force_pure_epsilon():
    law = registry.get("discrete-laplace")
    at = lambda b: BoundedMechanism(law, {law.scale: b}, "truncated", F(0), F(6), F(1))  # noqa: E731
    got = calibrate(at, F(1), F(0))
    assert got.minimal
    # the pure epsilon at the printed scale is <= 1 and at 0.99999999 x it is > 1
    assert profile._le(at(got.scale).pure_epsilon().upper_value, F(1))
    below = at(got.scale * (1 - F(1, 10**8))).pure_epsilon()
    assert not profile._le(below.lower_value, F(1))


def test_refusals():
    with pytest.raises(InputError, match="never pure-DP"):
        calibrate(additive("gaussian"), F(1), F(0), "gaussian")
    with pytest.raises(InputError, match="positive"):
        calibrate(additive("laplace"), F(0), F(0))
    with pytest.raises(InputError, match="delta"):
        calibrate(additive("laplace"), F(1), F(1))


def test_a_mutated_rounding_is_noticed(monkeypatch):
    """Printing the bisection's upper end rounded up (no lower candidate) changes the
    Laplace δ = 1e-6 scale to ...031: the test above would notice."""
    import dpcheck.laws.calibrate as C

    real = C._round_up
    calls = []

    def only_upper(x, *a):
        calls.append(x)
        return real(x * (1 + F(1, 10**15)) if len(calls) == 1 else x, *a)

    monkeypatch.setattr(C, "_round_up", only_upper)
    got = C.calibrate(additive("laplace"), F(1), F(1, 10**6))
    assert got.as_dict()["calibrated scale"] != "0.999998000003"


def test_cli_calibrates_a_law_and_a_bounded_law(capsys):
    assert main(["privacy", "discrete-gaussian", "--sensitivity", "1", "--epsilon", "1",
                 "--delta", "1e-5", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["0.99999999 x scale violates"] is True
    sigma = F(got["calibrated scale"])
    assert _dg_delta(sigma, F(1)) <= mp(F(1, 10**5))
    # the cost at the printed σ: E Z² by direct summation of the pmf (mpmath, 40 digits)
    with mpmath.workdps(40):
        s2 = mp(sigma) ** 2
        weight = lambda k: mpmath.exp(-k**2 / (2 * s2))  # noqa: E731
        second = mpmath.nsum(lambda k: 2 * k**2 * weight(k), [1, mpmath.inf]) / (
            1 + 2 * mpmath.nsum(weight, [1, mpmath.inf]))
        assert got["cost"] == [{"at": "any s", "bias": "0", "mse": mpmath.nstr(second, 12)}]
    assert main(["privacy", "truncated-discrete-laplace", "--lower", "0", "--upper", "6",
                 "--sensitivity", "1", "--epsilon", "1", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["calibrated scale kind"].startswith("upper bound on the smallest scale")
    assert got["at calibrated scale"]["pure epsilon kind"].startswith("exact")


def test_cli_refuses_an_uncalibratable_request(capsys):
    assert main(["privacy", "discrete-gaussian", "--sensitivity", "1", "--epsilon", "1"]) == 2
    err = capsys.readouterr().err
    assert "never pure-DP" in err and "Traceback" not in err
    assert main(["privacy", "discrete-gaussian", "--sensitivity", "1"]) == 2
    assert "--epsilon" in capsys.readouterr().err


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=10, deadline=None, derandomize=True)
@given(d=st.fractions(F(1, 50), F(50), max_denominator=60),
       eps=st.fractions(F(1, 50), F(20), max_denominator=60))
def test_laplace_pure_calibration_over_a_parameter_box(d, eps):
    got = calibrate(additive("laplace", d), eps, F(0))
    assert got.scale == F(profile._round_up(d / eps))  # exact rounding of the exact Δ/ε


def test_the_audit_never_calibrates_a_missing_scale(capsys):
    """Only ``privacy`` reads a missing --scale as a calibration; the audit refuses it
    (a placeholder scale must never be audited)."""
    assert main(["audit", "discrete-gaussian", "--epsilon", "1", "--sensitivity", "1"]) == 2
    err = capsys.readouterr().err
    assert "give --scale" in err and "calibrate" not in err and "Traceback" not in err


# --------------------------------------------------------------------------- the cost rows
def _closed_form_rows(old: str, bounding: str | None, c0, c1, scale: F) -> list[dict]:
    """The rows from the mechanism algebra's SymPy closed forms at 20 digits (what
    ``profile.cost`` printed before it moved onto :func:`dpcheck.laws.cost.rows`)."""
    from dpcheck.numeric import mechanism_mp
    from dpcheck.numeric.names import BASES

    key = BASES[old]
    if bounding is None:
        v = mechanism_mp.evaluate(f"{old}.var", {"s": 0, key: scale}, 20)
        return [{"at": "any s", "bias": "0", "mse": mpmath.nstr(v, 12)}]
    mid = (F(c0) + F(c1)) / 2
    if old == "geometric":
        mid = F(mid.numerator // mid.denominator)
    rows = []
    for label, s in (("s = c0", F(c0)), ("s = midpoint", mid)):
        values = {"s": s, "c0": F(c0), "c1": F(c1), key: scale}
        b = mechanism_mp.evaluate(f"{bounding}-{old}.bias", values, 20)
        m = mechanism_mp.evaluate(f"{bounding}-{old}.mse", values, 20)
        rows.append({"at": label, "bias": mpmath.nstr(b, 12), "mse": mpmath.nstr(m, 12)})
    return rows


@pytest.mark.parametrize("name, old, bounding, sens, c0, c1, scale", [
    ("laplace", "laplace", "truncated", 1, 0, 2, F(7, 5)),
    ("laplace", "laplace", "clamped", 1, 0, 2, F(7, 5)),
    ("gaussian", "gaussian", "truncated", 1, -1, 3, F(3, 2)),
    ("gaussian", "gaussian", "clamped", F(1, 2), 0, 1, F(1, 3)),
    ("discrete-laplace", "geometric", "truncated", 1, 0, 8, F(2)),
    ("discrete-laplace", "geometric", "clamped", 1, -2, 5, F(3)),  # midpoint floor: 1
    ("laplace", "laplace", "folded", 1, -1, 2, F(3, 4)),
    # a calibration's extreme (ε = δ = 1e-300: σ = 2.9e149), 300 digits cancelled
    ("gaussian", "gaussian", "truncated", 1, 0, 1, F(2928932188135, 10**12) * 10**149),
    ("laplace", "laplace", "clamped", 1, 0, 1, F(10**200)),
    ("laplace", "laplace", None, 1, None, None, F(5, 2)),
    ("gaussian", "gaussian", None, 1, None, None, F(5, 2)),
    ("discrete-laplace", "geometric", None, 1, None, None, F(3)),
])
def test_the_cost_rows_are_the_closed_forms(name, old, bounding, sens, c0, c1, scale):
    """Bias and MSE from the law objects (certified balls) print as the mechanism
    algebra's SymPy closed forms at 20 digits: an independent route for each value; and
    the named mechanisms' calibration (``profile.cost``) prints the same rows."""
    from dpcheck.laws.cost import cost, rows

    law = registry.get(name)
    want = _closed_form_rows(old, bounding, c0, c1, scale)
    if bounding is None:
        got = cost(Additive(law, {law.scale: scale}, F(sens)))
        nb = profile.neighbours(old, sens, None, None, scale)
    elif bounding == "folded":  # no privacy engine: the rows alone
        got = rows(law, {law.scale: scale}, bounding, F(c0), F(c1))
        nb = profile.neighbours(f"{bounding}-{old}", sens, c0, c1, scale)
    else:
        got = cost(BoundedMechanism(law, {law.scale: scale}, bounding, F(c0), F(c1), F(sens)))
        nb = profile.neighbours(f"{bounding}-{old}", sens, c0, c1, scale)
    assert got == want
    assert profile.cost(nb) == want


def test_an_asymmetric_law_has_its_bias_printed():
    """No symmetry, no 0: noise with density ∝ e^{-z/b} (z >= 0), e^{2z/b} (z < 0) has
    mean b/2 and second moment 3b²/2 (by hand: normaliser 3b/2, ∫ z e^{-z/b} = b²,
    ∫ z e^{2z/b} = -b²/4, ∫ z² ... = 2b³ and b³/4), so at b = 2 bias 1 and MSE 6."""
    import sympy as sp

    from dpcheck.laws.cost import cost
    from dpcheck.laws.noise import z

    b = sp.Symbol("b", positive=True)
    law = dpcheck.law(sp.Piecewise((sp.exp(-z / b), z >= 0), (sp.exp(2 * z / b), True)),
                      params=["b>0"], name="two-rate")
    assert not law.symmetric
    assert cost(Additive(law, {"b": F(2)}, F(1))) == [{"at": "any s", "bias": "1.0",
                                                       "mse": "6.0"}]
