"""The law objects of issue 35 (dpcheck.laws) against independent routes.

Every value is compared with a route that shares no code with the engine:
direct mpmath summation over the integers, mpmath quadrature over the steps,
the Gaussian mechanism's analytic δ (Balle and Wang 2018, Theorem 8), the
discrete Gaussian's δ of Canonne, Kamath and Steinke (2020, Theorem 7), and
the mechanism algebra's own closed forms (dpcheck.numeric.profile).
"""

from __future__ import annotations

from fractions import Fraction as F

import flint
import mpmath
import pytest
import sympy as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dpcheck.errors import InputError
from dpcheck.laws import registry
from dpcheck.laws.additive import Additive
from dpcheck.laws.numeric import Evaluator, arb_of, precision
from dpcheck.laws.transforms import truncate_noise

DG = registry.get("discrete-gaussian")


# ---------------------------------------------------------------- independent routes


def dg_terms(sigma: mpmath.mpf):
    n = int(40 * sigma) + 60
    return {k: mpmath.exp(-mpmath.mpf(k) ** 2 / (2 * sigma**2)) for k in range(-n, n + 1)}


def dg_direct(sigma, eps, d):
    """(var, δ(ε)) of the discrete Gaussian by direct summation at 60 digits."""
    with mpmath.workdps(60):
        sigma = mpmath.mpf(sigma.numerator) / sigma.denominator
        w = dg_terms(sigma)
        z = mpmath.fsum(w.values())
        var = mpmath.fsum(k * k * v for k, v in w.items()) / z
        e = mpmath.exp(mpmath.mpf(eps.numerator) / eps.denominator)
        delta = mpmath.fsum(max(0, w[k] - e * w.get(k - d, 0)) for k in w) / z
        return var, delta


def cks_theorem7(sigma, eps, d):
    """CKS 2020 Theorem 7: δ = P[Y > εσ²/Δ - Δ/2] - e^ε P[Y > εσ²/Δ + Δ/2], Y ~ N_Z(0, σ²)."""
    with mpmath.workdps(60):
        s = mpmath.mpf(sigma.numerator) / sigma.denominator
        e = mpmath.mpf(eps.numerator) / eps.denominator
        w = dg_terms(s)
        z = mpmath.fsum(w.values())

        def above(x):
            return mpmath.fsum(v for k, v in w.items() if k > x) / z

        return above(e * s**2 / d - mpmath.mpf(d) / 2) - mpmath.exp(e) * above(
            e * s**2 / d + mpmath.mpf(d) / 2
        )


def gaussian_delta(sigma, eps, d):
    """Balle and Wang 2018, Theorem 8: Φ(Δ/2σ - εσ/Δ) - e^ε Φ(-Δ/2σ - εσ/Δ)."""
    with mpmath.workdps(60):
        s, e, d = (mpmath.mpf(v.numerator) / v.denominator for v in (sigma, eps, F(d)))
        return mpmath.ncdf(d / (2 * s) - e * s / d) - mpmath.exp(e) * mpmath.ncdf(
            -d / (2 * s) - e * s / d
        )


def close(a, b, digits=35):
    with mpmath.workdps(60):
        return abs(mpmath.mpf(a) - b) <= mpmath.mpf(10) ** (-digits) * max(1, abs(b))


def within(profile, exact):
    """lower <= exact <= upper (the certified bracket holds the independent value)."""
    with mpmath.workdps(60):
        slack = mpmath.mpf(10) ** -45 * max(abs(exact), mpmath.mpf(10) ** -300)
        return profile.lower - slack <= exact <= profile.upper + slack


# ---------------------------------------------------------------- the discrete Gaussian


@pytest.mark.parametrize("sigma", [F(1, 2), F(1), F(2), F(7, 3)])
def test_discrete_gaussian_variance_against_direct_summation(sigma):
    with precision(45):
        var = Evaluator(DG, {"sigma": sigma}).var()
    assert var.how == "Jacobi theta function (arb)" and var.certified
    assert close(var.mpf(), dg_direct(sigma, F(1), 1)[0], 40)


@pytest.mark.parametrize(("sigma", "eps", "d"), [(F(2), F(1), 1), (F(1), F(1, 2), 1),
                                                 (F(3), F(2), 2), (F(1, 2), F(1, 10), 1)])
def test_discrete_gaussian_delta_against_summation_and_cks_theorem_7(sigma, eps, d):
    prof = Additive(DG, {"sigma": sigma}, F(d)).delta(eps)
    direct = dg_direct(sigma, eps, d)[1]
    assert within(prof, direct)
    assert close(prof.upper, direct, 30) and close(prof.lower, direct, 30)
    assert close(cks_theorem7(sigma, eps, d), direct, 40)
    assert prof.s == 0 and prof.s_prime == d


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.fractions(F(3, 10), F(6), max_denominator=20),
    st.fractions(F(1, 50), F(4), max_denominator=50),
    st.integers(1, 3),
)
def test_discrete_gaussian_delta_brackets_the_direct_sum(sigma, eps, d):
    prof = Additive(DG, {"sigma": sigma}, F(d)).delta(eps)
    assert within(prof, dg_direct(sigma, eps, d)[1])


def test_a_wrong_kernel_is_caught_by_the_direct_sum():
    """Mutation: the pmf with 2σ² replaced by σ² is not the discrete Gaussian's δ."""
    from dpcheck.laws.noise import NoiseLaw, k

    s = DG.params[0]
    wrong = NoiseLaw("wrong", sp.exp(-(k**2) / s.symbol**2), "integers", (s,), "sigma")
    prof = Additive(wrong, {"sigma": F(2)}, F(1)).delta(F(1))
    assert not within(prof, dg_direct(F(2), F(1), 1)[1])


# ---------------------------------------------------------------- the continuous bases


@pytest.mark.parametrize(("sigma", "eps", "d"), [(F(1), F(1), 1), (F(3), F(1, 2), 2),
                                                 (F(1, 2), F(5), 1)])
def test_gaussian_delta_against_balle_wang(sigma, eps, d):
    prof = Additive(registry.get("gaussian"), {"sigma": sigma}, F(d)).delta(eps)
    exact = gaussian_delta(sigma, eps, d)
    assert within(prof, exact) and close(prof.upper, exact, 30)
    assert prof.kind.startswith("exact")


@pytest.mark.parametrize(
    ("name", "scale", "eps", "d"),
    [("laplace", F(1), F(1, 2), F(1)), ("laplace", F(3), F(1, 10), F(2)),
     ("gaussian", F(1), F(1), F(1)), ("gaussian", F(2), F(1, 3), F(1, 2))],
)
def test_laplace_and_gaussian_agree_with_the_mechanism_algebra(name, scale, eps, d):
    """The same δ from the old closed-form engine (numeric.profile) and the law objects."""
    from dpcheck.numeric import profile as P

    law = registry.get(name)
    new = Additive(law, {law.scale: scale}, d).delta(eps).as_dict()
    old = P.delta_for_epsilon(P.neighbours(name, str(d), None, None, str(scale)), eps).as_dict()
    assert new["delta"] == old["delta"]


def test_laplace_pure_epsilon_and_delta_zero_above_it():
    mech = Additive(registry.get("laplace"), {"lam": F(2)}, F(1))
    assert mech.pure_epsilon() == sp.Rational(1, 2)
    prof = mech.delta(F(1, 2))
    assert prof.upper == 0 and prof.kind.startswith("exact")
    assert Additive(registry.get("gaussian"), {"sigma": F(1)}, F(1)).pure_epsilon() == sp.oo


def test_log_concavity_is_checked_not_assumed():
    for name in ("laplace", "gaussian", "discrete-laplace", "discrete-gaussian"):
        assert registry.get(name).log_concave()[0], name
    assert not registry.get("staircase").log_concave()[0]
    from dpcheck.laws.noise import NoiseLaw, Param, z

    b = Param("b")
    bimodal = NoiseLaw("bimodal", sp.exp(-((z**2 - 1) ** 2) / b.symbol), "real", (b,), "b")
    assert not bimodal.log_concave()[0]
    with pytest.raises(InputError, match="not proved log-concave"):
        Additive(bimodal, {"b": F(1)}, F(1)).delta(F(1))


# ---------------------------------------------------------------- staircase, uniform


def staircase_quadrature(eps, gamma, width, power):
    """Σ over steps j of the integral of z^power·f on each step (mpmath, both sides)."""
    with mpmath.workdps(50):
        e, g, w = (mpmath.mpf(v.numerator) / v.denominator for v in (eps, gamma, width))
        total = 0
        for j in range(0, 400):
            lo, mid, hi = j * w, (j + g) * w, (j + 1) * w
            total += mpmath.exp(-j * e) * mpmath.quad(lambda x: x**power, [lo, mid])
            total += mpmath.exp(-(j + 1) * e) * mpmath.quad(lambda x: x**power, [mid, hi])
        return 2 * total


@pytest.mark.parametrize(("eps", "gamma", "width"), [(F(1), F(1, 2), F(1)), (F(2), F(1, 5), F(3)),
                                                     (F(1, 2), F(0), F(1)), (F(1), F(1), F(2))])
def test_staircase_variance_is_the_quadrature_of_its_density(eps, gamma, width):
    law = registry.get("staircase")
    with precision(40):
        var = Evaluator(law, {"epsilon": eps, "gamma": gamma, "width": width}).var()
    with mpmath.workdps(50):
        exact = staircase_quadrature(eps, gamma, width, 2) / staircase_quadrature(
            eps, gamma, width, 0
        )
    assert var.how == "closed form" and close(var.mpf(), exact, 30)


@pytest.mark.parametrize(("eps", "gamma", "width", "d"),
                         [(F(1), F(1, 2), F(1), F(1)), (F(2), F(1, 5), F(3), F(3)),
                          (F(1), F(1, 3), F(1), F(5, 2)), (F(1, 2), F(0), F(2), F(1))])
def test_staircase_pure_epsilon_is_the_design_epsilon(eps, gamma, width, d):
    """The formula ε⌈d/Δ⌉ against the exact log ratio at the midpoints of every cell
    between the kinks of f(y) and f(y - d) on [-6Δ - d, 6Δ + d]."""
    law = registry.get("staircase")
    values = {"epsilon": eps, "gamma": gamma, "width": width}
    pure = Additive(law, values, d).pure_epsilon()
    env = law.symbols(values)
    f = law.kernel.subs(env)
    y = law.variable
    kinks = sorted({j * width + s * gamma * width + shift
                    for j in range(-8, 9) for s in (0, 1) for shift in (0, d)}
                   | {-(j * width + s * gamma * width) + shift
                      for j in range(-8, 9) for s in (0, 1) for shift in (0, d)})
    best = max(
        sp.log(f.subs(y, (a + b) / 2)) - sp.log(f.subs(y, (a + b) / 2 - d))
        for a, b in zip(kinks, kinks[1:], strict=False) if b > a
    )
    assert sp.simplify(pure - best) == 0
    if d == width:
        assert pure == sp.Rational(eps)


def test_uniform_noise_delta_is_the_mass_outside_the_overlap():
    mech = Additive(registry.get("uniform"), {"b": F(2)}, F(1))
    assert mech.pure_epsilon() == sp.oo
    for eps in (F(0), F(1), F(10)):
        prof = mech.delta(eps)
        assert prof.upper == prof.lower == mpmath.mpf(1) / 4, eps  # Δ/(2b)


# ---------------------------------------------------------------- truncate_noise


def truncated_delta_quadrature(kernel, radius, eps, d, cross):
    """∫ (f(y) - e^ε f(y - d))_+ dy of the truncated law, mpmath over the kinks and the
    crossing ``cross`` of the untruncated log ratio (worked out by hand for the test)."""
    with mpmath.workdps(40):
        r, e = mpmath.mpf(radius), mpmath.exp(eps)
        z = mpmath.quad(kernel, [-r, 0, r])

        def f(y):
            return kernel(y) / z if abs(y) <= r else 0

        points = sorted({-r, -r + d, 0, d, r, r + d, mpmath.mpf(cross)})
        return mpmath.quad(lambda y: max(0, f(y) - e * f(y - d)), [-r - 1, *points, r + d + 1])


@pytest.mark.parametrize(("base", "radius", "eps"), [("laplace", 5, F(1)), ("laplace", 3, F(1, 2)),
                                                      ("gaussian", 3, F(1)), ("gaussian", 2, F(3))])
def test_truncate_noise_delta_is_the_exact_hockey_stick(base, radius, eps):
    law = truncate_noise(registry.get(base))
    scale_name = registry.get(base).scale
    mech = Additive(law, {scale_name: F(1), "radius": F(radius)}, F(1))
    assert mech.pure_epsilon() == sp.oo
    prof = mech.delta(eps)
    if base == "laplace":  # log ratio 1 - 2y on (0, 1)
        kernel, cross = (lambda y: mpmath.exp(-abs(y))), (1 - eps) / 2
    else:  # log ratio (1 - 2y)/2: y* = 1/2 - eps
        kernel, cross = (lambda y: mpmath.exp(-y * y / 2)), F(1, 2) - eps
    exact = truncated_delta_quadrature(kernel, radius, float(eps), 1, float(cross))
    assert abs(prof.upper - exact) < 1e-12 and prof.lower <= prof.upper
    assert prof.kind.startswith("exact")


def test_truncate_noise_delta_is_not_the_removed_tail_mass_in_general():
    """The removed mass e^{-r/λ} is not the hockey-stick δ of the truncated Laplace (at ε =
    Δ/λ the δ is the mass of [-r, -r + Δ] under the truncated law)."""
    law = truncate_noise(registry.get("laplace"))
    prof = Additive(law, {"lam": F(1), "radius": F(5)}, F(1)).delta(F(1))
    with mpmath.workdps(40):
        removed = mpmath.exp(-5)
        band = (mpmath.exp(-4) - mpmath.exp(-5)) / (2 * (1 - mpmath.exp(-5)))
    assert abs(prof.upper - band) < 1e-14 and abs(prof.upper - removed) > 1e-4


# ---------------------------------------------------------------- a user's own law


def test_a_user_defined_discrete_gaussian_from_its_pmf_matches_the_shipped_one():
    """The discrete Gaussian defined here, outside src/, from LaTeX: same var and δ."""
    mine = registry.law(r"e^{-\frac{z^2}{2w^2}}", "integers", ["w>0"], name="my dg")
    with precision(40):
        var = Evaluator(mine, {"w": F(3, 2)}).var()
    assert close(var.mpf(), dg_direct(F(3, 2), F(1), 1)[0], 35)
    prof = Additive(mine, {"w": F(3, 2)}, F(1)).delta(F(1, 2))
    assert within(prof, dg_direct(F(3, 2), F(1, 2), 1)[1])


@pytest.mark.parametrize(
    ("density", "support", "params", "message"),
    [
        (r"e^{-|z|/b}", "reals", ["b>0"], "support"),
        (r"e^{-|z|/c}", "real", ["b>0"], "unknown symbol"),
        (r"e^{-|z|/b}", "real", ["b<0"], "NAME>0"),
        (r"e^{-|z|/b}", "real", [], "at least one parameter"),
        (r"e^{-|z|/s}", "real", ["s>0"], "reserved"),
        (r"\import os", "real", ["b>0"], "unknown command"),
        ("z", "real", ["b>0"], "not proved >= 0"),
        (r"-e^{-|z|/b}", "real", ["b>0"], "not proved >= 0"),
    ],
)
def test_bad_user_laws_are_one_line_errors(density, support, params, message):
    with pytest.raises(InputError, match=message) as err:
        registry.law(density, support, params)
    assert "\n" not in str(err.value)


@pytest.mark.parametrize(
    ("density", "message"),
    [(r"e^{|z|/b}", "total mass oo"), ("0", "total mass 0"), (r"\frac{1}{|z|}", "total mass"),
     (r"\frac{b}{1+z^2}", "not finite")],
)
def test_laws_without_a_finite_variance_are_refused(density, message):
    law = registry.law(density, "real", ["b>0"])
    with pytest.raises(InputError, match=message):
        with precision(20):
            Evaluator(law, {"b": F(1)}).var()


def test_a_density_with_gamma_function_moments():
    """exp(-z^4): Var = Γ(3/4)/Γ(1/4) (SymPy's integral, evaluated in ball arithmetic)."""
    law = registry.law(r"e^{-z^4/b}", "real", ["b>0"])
    with precision(30):
        var = Evaluator(law, {"b": F(1)}).var()
    with mpmath.workdps(40):
        assert close(var.mpf(), mpmath.gamma(0.75) / mpmath.gamma(0.25), 28)


def test_bad_parameters_are_one_line_errors():
    with pytest.raises(InputError, match="sigma"):
        DG.parse({"sigma": "-1"})
    with pytest.raises(InputError, match="needs sigma"):
        DG.parse({})
    with pytest.raises(InputError, match="no parameter"):
        DG.parse({"sigma": "1", "lam": "2"})
    with pytest.raises(InputError, match="integer sensitivity"):
        Additive(DG, {"sigma": F(1)}, F(1, 2))
    with pytest.raises(InputError, match="unknown noise law"):
        registry.get("discrete-cauchy")


# ---------------------------------------------------------------- epsilon(delta)


def test_epsilon_of_delta_brackets_the_direct_sum_and_is_monotone():
    """ε(δ) of the discrete Gaussian: δ(ε) by direct summation is > δ just below the printed
    lower value and <= δ at the upper one (the independent route decides both)."""
    mech = Additive(DG, {"sigma": F(2)}, F(1))
    for delta in (F(1, 10**6), F(1, 1000)):
        got = mech.epsilon(delta)
        assert got.kind.startswith("exact")
        with mpmath.workdps(60):
            target = mpmath.mpf(delta.numerator) / delta.denominator
            assert dg_direct(F(2), got.upper_value, 1)[1] <= target
            assert dg_direct(F(2), got.lower_value * (1 - F(1, 10**9)), 1)[1] > target


def test_epsilon_of_delta_agrees_with_the_mechanism_algebra_for_the_gaussian():
    from dpcheck.numeric import profile as P

    law = registry.get("gaussian")
    new = Additive(law, {"sigma": F(1)}, F(1)).epsilon(F(1, 1000)).as_dict()
    old = P.epsilon_for_delta(P.neighbours("gaussian", "1", None, None, "1"), F(1, 1000))
    assert new["epsilon"] == old.as_dict()["epsilon"]


def test_epsilon_of_delta_zero_is_the_pure_epsilon():
    assert Additive(registry.get("laplace"), {"lam": F(2)}, F(1)).epsilon(F(0)).upper_value == F(
        1, 2
    )
    assert Additive(DG, {"sigma": F(2)}, F(1)).epsilon(F(0)).upper == mpmath.inf


# ------------------------------------------- the discrete Gaussian's theta functions


def _lattice_twin():
    """The same pmf as a user's law: no theta forms, so every value is a lattice sum."""
    return registry.law(r"e^{-\frac{z^2}{2w^2}}", "integers", ["w>0"], name="twin")


@settings(max_examples=40, deadline=None)
@given(st.fractions(min_value=F(1, 4), max_value=F(300)).filter(lambda v: v.denominator < 10**6))
def test_theta_forms_agree_with_the_lattice_sums(sigma):
    """Two certified routes (theta functions, summation with a tail bound) must overlap."""
    law = registry.get("discrete-gaussian")
    with precision(40):
        theta = Evaluator(law, {"sigma": sigma})
        plain = Evaluator(_lattice_twin(), {"w": sigma})
        assert theta.var().how == "Jacobi theta function (arb)"
        assert plain.var().how == "lattice sum"
        for a, b in ((theta.var(), plain.var()), (theta.normaliser, plain.normaliser)):
            assert a.ball.overlaps(b.ball)
            assert a.ball.rel_accuracy_bits() > 120


def test_theta_forms_at_scales_no_lattice_sum_reaches():
    """At σ = 10^6 (a lattice sum of ~8·10^7 terms is refused) Var = σ² to every digit
    (Poisson summation: the correction is about σ⁴·e^{-2π²σ²}), and the normaliser is
    √(2π)·σ likewise."""
    law = registry.get("discrete-gaussian")
    for sigma in (F(10**6), F(10**9, 7)):
        with precision(40):
            ev = Evaluator(law, {"sigma": sigma})
            s2 = arb_of(sigma) ** 2
            assert abs(ev.var().ball / s2 - 1) < flint.arb(10) ** -38
            root = (2 * flint.arb.pi()).sqrt() * arb_of(sigma)
            assert abs(ev.normaliser.ball / root - 1) < flint.arb(10) ** -38
    with pytest.raises(InputError, match="1,000,000 terms"):
        with precision(40):
            Evaluator(_lattice_twin(), {"w": F(10**6)}).var()


def test_theta_forms_hand_over_to_the_sum_at_tiny_scales():
    """At σ = 1/1000, θ₃'' cancels: the lattice sum answers, 2·e^{-500000} to 30 digits."""
    with precision(30):
        ball = Evaluator(registry.get("discrete-gaussian"), {"sigma": F(1, 1000)}).var()
    assert ball.how == "lattice sum"
    with mpmath.workdps(40):
        q = mpmath.exp(-500000)
        exact = 2 * q / (1 + 2 * q + 2 * q**4)
        assert abs(ball.mpf() / exact - 1) < mpmath.mpf(10) ** -28


def test_the_shipped_laws_are_built_on_first_use():
    """Each shipped name maps to its module's law; building the CLI's parser (what every
    command and every refusal pays, 3.5 s when the registry built all six laws at import)
    imports none of the law modules."""
    import subprocess
    import sys

    from dpcheck.laws import registry

    assert [law.name for law in registry.LAWS.values()] == list(registry.SHIPPED)
    code = (
        "import sys; from dpcheck.cli import build_parser; build_parser();"
        "from dpcheck.laws.registry import SHIPPED;"
        "print([m for m in SHIPPED.values() if f'dpcheck.laws.{m}' in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "[]", out
