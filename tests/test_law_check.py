r"""check-formula for law objects (issue 35: "every verb works on it"): a pasted formula
against a quantity derived from a law's density or pmf, shipped or the user's own.

Each verdict is checked against an independent route: a ``differs`` witness against
direct mpmath summation or closed forms typed here from the literature, ``equal``
against a formula from the literature, and mutations of a correct formula (a factor,
a tiny relative change of 1e-25) must be caught.
"""

from __future__ import annotations

import json
from fractions import Fraction as F

import mpmath
import pytest
from cli_subprocess import assert_refused, run_cli
from test_laws import dg_direct

from dpcheck.cli import main
from dpcheck.errors import InputError
from dpcheck.formula.law_check import check_law_formula, law_quantity, points
from dpcheck.laws import registry

#: the discrete Laplace variance as usually printed: 2α/(1-α)², α = e^{-1/b}
DLAP_VAR = r"\frac{2e^{-1/b}}{(1-e^{-1/b})^2}"


def my_discrete_gaussian():
    """The discrete Gaussian defined here, outside src/, from its pmf in LaTeX."""
    return registry.law(r"e^{-\frac{z^2}{2w^2}}", "integers", ["w>0"], name="my dg")


def test_sigma_squared_is_not_the_discrete_gaussian_variance_and_the_witness_is_right():
    """CKS 2020 (Prop. 19): Var < σ²; the witness's values agree with direct summation."""
    r = check_law_formula(my_discrete_gaussian(), "var", "w^2")
    assert r.verdict == "differs"
    w = F(r.witness["point"]["w"])
    direct, _ = dg_direct(w, F(1), 1)
    with mpmath.workdps(60):
        assert abs(mpmath.mpf(r.witness["derived"]) - direct) < mpmath.mpf(10) ** -15 * direct
        exact_gap = mpmath.mpf(w.numerator) ** 2 / w.denominator**2 - direct
        assert exact_gap > 0 and r.witness["sign"] == 1
        assert abs(mpmath.mpf(r.witness["difference"]) / exact_gap - 1) < mpmath.mpf(10) ** -15


def test_the_discrete_laplace_variance_from_the_literature_is_proved():
    r = check_law_formula(registry.get("discrete-laplace"), "var", DLAP_VAR, notation="b=scale")
    assert r.verdict == "equal" and r.method.startswith("exact symbolic reduction")
    assert r.domain == "b > 0" and r.notation == {"b": "scale"}


@pytest.mark.parametrize(
    "mutant",
    [
        r"\frac{2e^{-1/b}}{(1-e^{-1/b})}",  # a lost square
        r"\frac{e^{-1/b}}{(1-e^{-1/b})^2}",  # a lost factor 2
        r"\frac{2e^{-1/b}}{(1-e^{-1/b})^2}(1 + 10^{-25})",  # a relative change of 1e-25
        r"\frac{2e^{-2/b}}{(1-e^{-1/b})^2}",  # α² for α
    ],
)
def test_mutants_of_the_discrete_laplace_variance_are_refuted(mutant):
    r = check_law_formula(registry.get("discrete-laplace"), "var", mutant, notation="b=scale")
    assert r.verdict == "differs", mutant
    b = F(r.witness["point"]["b"])
    with mpmath.workdps(60):
        a = mpmath.exp(-mpmath.mpf(b.denominator) / b.numerator)
        exact = 2 * a / (1 - a) ** 2
        assert abs(mpmath.mpf(r.witness["derived"]) / exact - 1) < mpmath.mpf(10) ** -18


def test_a_closed_form_without_closed_form_reference_is_numerical_evidence_only():
    """The discrete Gaussian's mean has no closed form here (its normaliser is a theta
    function): '0' is equal on evidence, and the method says it is not a proof."""
    r = check_law_formula(registry.get("discrete-gaussian"), "mean", "0")
    assert r.verdict == "equal" and "not a symbolic proof" in r.method
    assert r.points_checked >= 200 and any("no closed form" in n for n in r.notes)


def test_the_gaussian_cdf_with_erf_is_proved_and_its_mirror_refuted():
    law = registry.get("gaussian")
    cdf = r"\frac{1}{2}\left(1+\operatorname{erf}\left(\frac{y}{\sigma\sqrt{2}}\right)\right)"
    assert check_law_formula(law, "cdf", cdf).verdict == "equal"
    assert check_law_formula(law, "sf", cdf.replace("1+", "1-")).verdict == "equal"
    r = check_law_formula(law, "cdf", cdf.replace("1+", "1-"))
    assert r.verdict == "differs" and set(r.witness["point"]) == {"\\sigma", "y"}
    sigma, y = (F(r.witness["point"][k]) for k in ("\\sigma", "y"))
    with mpmath.workdps(40):
        exact = mpmath.ncdf(mpmath.mpf(y.numerator) / y.denominator,
                            sigma=mpmath.mpf(sigma.numerator) / sigma.denominator)
        assert abs(mpmath.mpf(r.witness["derived"]) - exact) < mpmath.mpf(10) ** -18


def test_a_pmf_on_the_lattice_is_read_in_k_and_a_kernel_is_not_a_pmf():
    law = registry.get("discrete-laplace")
    pmf = r"\frac{1-e^{-1/b}}{1+e^{-1/b}} e^{-|k|/b}"
    r = check_law_formula(law, "pmf", pmf, notation="b=scale")
    assert r.verdict == "equal"
    r = check_law_formula(law, "pmf", r"e^{-|k|/b}", notation="b=scale")  # not normalised
    assert r.verdict == "differs" and "k" in r.witness["point"]


def test_the_staircase_parameters_are_read_in_their_greek_and_upright_names():
    r = check_law_formula(registry.get("staircase"), "var", r"\mathrm{width}^2\varepsilon")
    assert r.verdict == "differs"
    assert set(r.witness["point"]) == {"\\varepsilon", "\\gamma", "width"}
    assert r.witness["reproduce"].startswith("dpcheck eval staircase.var epsilon=")


def test_against_a_second_formula_uses_the_law_s_domain():
    r = check_law_formula(registry.get("uniform"), "var", "b^2/3", against_latex="b^2 b/(3b)")
    assert r.verdict == "equal" and r.reference_name == "the --against formula"


def test_the_points_lie_in_each_domain():
    for name in registry.LAWS:
        law = registry.LAWS[name]
        q = law_quantity(law, "cdf")
        for point in points(q, count=300):
            for p in law.params:
                p.parse(point[p.name])  # raises when outside the domain
            if law.is_lattice:
                assert point["y"].denominator == 1


# ------------------------------------------------------------------------- the CLI


def test_cli_exit_codes_and_the_witness_reproduces_with_eval(capsys):
    code = main(["check-formula", "discrete-gaussian.var", r"\sigma^2", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 1 and data["verdict"] == "differs"
    words = data["witness"]["reproduce"].split()[1:]
    assert main(words) == 0
    value = capsys.readouterr().out.strip()
    with mpmath.workdps(40):
        assert abs(mpmath.mpf(value) - mpmath.mpf(data["witness"]["derived"])) < 1e-15
    assert main(["check-formula", "discrete-laplace.var", DLAP_VAR, "--notation",
                 "b=scale"]) == 0


def test_cli_user_law_from_its_density(capsys):
    args = ["--density", r"\frac{1}{2b}e^{-|z|/b}", "--param", "b>0"]
    assert main(["check-formula", "var", "2b^2", *args]) == 0
    assert "EQUAL" in capsys.readouterr().out
    assert main(["check-formula", "var", "3b^2", *args, "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert "--density" in data["witness"]["reproduce"]


@pytest.mark.parametrize(
    ("args", "mentions"),
    [
        (["discrete-gaussian.kurtosis", "1"], "expected one of"),
        (["discrete-gaussian.var", "x^2"], "unknown symbol"),
        (["discrete-gaussian.var", "1", "--notation", "b=scale"], "no parameter"),
        (["folded-gaussian.var", "x"], "unknown symbol"),
        (["folded-gaussian.var", "1", "--notation", "b=sigma,d=sigma"], "twice"),
        (["discrete-gaussian.pdf", "1"], "expected one of"),
        (["var", "1", "--density", r"e^{-|z|/c}", "--param", "b>0"], "unknown symbol"),
        (["staircase.var", r"\mathrm{height}"], "height"),
    ],
)
def test_cli_refusals_are_one_line(args, mentions):
    assert_refused(run_cli(["check-formula", *args]), mentions=mentions)


def test_api_refuses_a_quantity_that_does_not_exist():
    with pytest.raises(InputError, match="pmf"):
        law_quantity(registry.get("gaussian"), "pmf")


# ------------------------------------------------------------------ bounded laws


def _old_engine_latex(mechanism: str, quantity: str) -> str:
    """The mechanism algebra's own derivation (SymPy summation), as LaTeX in b = scale."""
    import sympy as sp

    from dpcheck.symbolic import mechanisms
    from dpcheck.symbolic.symbols import alpha

    b = sp.Symbol("b", positive=True)
    expr = mechanisms.quantity(mechanism, quantity, "both").subs(alpha, sp.exp(-1 / b))
    return sp.latex(expr)


def test_the_bounded_route_agrees_with_the_algebra_s_closed_form_and_catches_a_mutant():
    """Two engines that share nothing but the pmf: the truncated two-sided geometric's
    mean summed by SymPy (dpcheck.symbolic.mechanisms) against the generic bounding of
    the discrete Laplace law in balls (dpcheck.laws.bounded)."""
    law = registry.get("discrete-laplace")
    tex = _old_engine_latex("truncated-geometric", "mean")
    r = check_law_formula(law, "mean", tex, notation="b=scale", bounding="truncated")
    assert r.verdict == "equal" and "not a symbolic proof" in r.method
    assert r.domain.startswith("b > 0; integers c_0 < c_1")
    mutant = check_law_formula(law, "mean", tex + r" + 10^{-25}", notation="b=scale",
                               bounding="truncated")
    assert mutant.verdict == "differs"
    assert mutant.witness["reproduce"].startswith("dpcheck eval truncated-discrete-laplace.mean")


def test_folded_gaussian_normaliser_is_not_one_and_the_witness_is_the_normal_mass():
    r = check_law_formula(registry.get("gaussian"), "normaliser", "1", bounding="folded")
    assert r.verdict == "differs"
    p = {k: F(v) for k, v in r.witness["point"].items()}
    with mpmath.workdps(40):
        sigma, s, c0, c1 = (mpmath.mpf(p[k].numerator) / p[k].denominator
                            for k in ("\\sigma", "s", "c_0", "c_1"))
        mass = mpmath.ncdf((c1 - s) / sigma) - mpmath.ncdf((c0 - s) / sigma)
        assert abs(mpmath.mpf(r.witness["derived"]) - mass) < mpmath.mpf(10) ** -18


def test_bounded_points_respect_the_bounds():
    for name in ("gaussian", "discrete-gaussian"):
        law = registry.get(name)
        q = law_quantity(law, "cdf", "clamped")
        for point in points(q, count=300):
            assert point["c0"] < point["c1"] and point["c0"] <= point["s"] <= point["c1"]
            if law.is_lattice:
                assert all(point[k].denominator == 1 for k in ("s", "c0", "c1", "y"))


def test_a_bounded_formula_in_the_reviewer_s_notation():
    law = registry.get("discrete-laplace")
    tex = _old_engine_latex("truncated-geometric", "normaliser").replace("c_{0}", "l")
    tex = tex.replace("c_{1}", "u").replace("s", r"\theta")
    r = check_law_formula(law, "normaliser", tex, notation=r"b=scale,l=c_0,u=c1,\theta=s",
                          bounding="truncated")
    assert r.verdict == "equal", r.method
    assert r.domain == r"b > 0; integers l < u, \theta in [l, u]"


def test_cli_bounded_law(capsys):
    assert main(["check-formula", "folded-gaussian.normaliser", "1", "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["witness"]["reproduce"].startswith("dpcheck eval folded-gaussian.normaliser")
    assert main(data["witness"]["reproduce"].split()[1:]) == 0
    assert_refused(run_cli(["check-formula", "folded-gaussian.pdf", "1"]), mentions="expected")
