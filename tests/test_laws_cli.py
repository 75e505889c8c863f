"""The law objects through the CLI and dpcheck.testing (issue 35, "What users must be able
to do"), each answer against an independent route, and hostile input."""

from __future__ import annotations

import json
from fractions import Fraction as F

import mpmath
import numpy as np
import pytest
from cli_subprocess import assert_refused, run_cli
from hypothesis import given, settings
from hypothesis import strategies as st
from test_laws import dg_direct

from dpcheck.cli import main
from dpcheck.errors import InputError
from dpcheck.laws import registry
from dpcheck.laws.float64 import LawAt, additive_sampler, sampler
from dpcheck.testing import assert_private, assert_sampler_law


def cli_json(capsys, *args: str) -> dict:
    assert main([*args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_eval_discrete_gaussian_var_at_40_digits(capsys):
    data = cli_json(capsys, "eval", "discrete-gaussian.var", "sigma=1", "--dps", "40")
    with mpmath.workdps(60):
        exact = dg_direct(F(1), F(1), 1)[0]
        assert abs(mpmath.mpf(data["value"]) - exact) < mpmath.mpf(10) ** -39
    assert data["certified"] and data["method"] == "Jacobi theta function (arb)"


def test_privacy_discrete_gaussian_agrees_with_direct_summation(capsys):
    data = cli_json(capsys, "privacy", "discrete-gaussian", "--sensitivity", "1", "--scale",
                    "2", "--epsilon", "1")
    exact = dg_direct(F(2), F(1), 1)[1]
    assert mpmath.mpf(data["delta lower"]) <= exact <= mpmath.mpf(data["delta"])
    assert data["delta kind"].startswith("exact")
    assert data["worst pair"]["event"] == "Y <= -4"


def test_privacy_krr_pure_epsilon_and_exact_delta(capsys):
    data = cli_json(capsys, "privacy", "krr", "--k", "4", "--epsilon", "1", "--delta-at", "1/2")
    assert data["pure epsilon"] == "1"
    assert data["delta at"]["delta"] == "(E - exp(1/2))/(E + 3)"
    with mpmath.workdps(30):
        exact = (mpmath.e - mpmath.exp(0.5)) / (mpmath.e + 3)
    assert abs(float(data["delta at"]["value"]) - float(exact)) < 1e-12


def test_staircase_pure_epsilon_is_its_design_epsilon_from_the_cli(capsys):
    data = cli_json(capsys, "privacy", "staircase", "--sensitivity", "2", "--scale", "2",
                    "--set", "epsilon=3/2", "--set", "gamma=0.3")
    assert data["pure epsilon"] == "3/2"


def test_noise_truncated_laplace_states_infinite_pure_epsilon(capsys):
    data = cli_json(capsys, "privacy", "laplace", "--radius", "5", "--scale", "1",
                    "--sensitivity", "1")
    assert data["pure epsilon"] == "inf"
    data = cli_json(capsys, "privacy", "laplace", "--radius", "5", "--scale", "1",
                    "--sensitivity", "1", "--epsilon", "1")
    with mpmath.workdps(30):
        band = (mpmath.exp(-4) - mpmath.exp(-5)) / (2 * (1 - mpmath.exp(-5)))
    assert abs(float(data["delta"]) - float(band)) < 1e-14


def test_a_user_density_from_the_cli(capsys):
    """The Laplace density typed as LaTeX: its variance 2b² and its δ(ε) = 1 - e^{(ε-Δ/b)/2}."""
    data = cli_json(capsys, "eval", "var", "b=3", "--density", r"\frac{1}{2b} e^{-|z|/b}",
                    "--param", "b>0")
    assert float(data["value"]) == 18.0
    data = cli_json(capsys, "privacy", "user", "--density", r"\frac{1}{2b} e^{-|z|/b}",
                    "--param", "b>0", "--scale", "1", "--sensitivity", "1", "--epsilon", "1/2")
    assert abs(float(data["delta"]) - (1 - float(mpmath.exp(-0.25)))) < 1e-12


@pytest.mark.parametrize(
    ("args", "mentions"),
    [
        (["eval", "discrete-gaussian.var"], "sigma"),
        (["eval", "discrete-gaussian.var", "sigma=-1"], "sigma"),
        (["eval", "discrete-gaussian.kurtosis", "sigma=1"], "unknown quantity"),
        (["eval", "discrete-gaussian.cdf", "sigma=1"], "y="),
        (["eval", "staircase.quantile", "epsilon=1", "gamma=2", "width=1", "p=0.5"], "gamma"),
        (["privacy", "discrete-gaussian", "--scale", "2", "--epsilon", "1"], "sensitivity"),
        (["privacy", "discrete-gaussian", "--sensitivity", "0.5", "--scale", "2",
          "--epsilon", "1"], "integer"),
        (["privacy", "krr", "--k", "1", "--epsilon", "1"], "--k"),
        (["privacy", "krr", "--k", "4"], "--epsilon"),
        (["privacy", "staircase", "--sensitivity", "1", "--scale", "1", "--set", "epsilon=1",
          "--set", "gamma=0.5", "--epsilon", "1/2"], "log-concave"),
        (["eval", "var", "b=1", "--density", r"e^{-|z|/c}", "--param", "b>0"], "unknown symbol"),
        (["eval", "var", "b=1", "--density", r"\input{x}", "--param", "b>0"], "unknown command"),
        (["eval", "var", "b=1", "--density", "e^{-|z|/b}", "--param", "b<0"], "NAME>0"),
        (["eval", "discrete-gaussian.var", "sigma=1e-300"], ("narrow", "terms")),
        (["privacy", "laplace", "--radius", "-1", "--scale", "1", "--sensitivity", "1"],
         "radius"),
        (["privacy", "laplace", "--radius", "abc", "--scale", "1", "--sensitivity", "1"],
         "radius"),
        (["privacy", "staircase", "--set", "epsilon", "--scale", "1", "--sensitivity", "1"],
         "NAME=VALUE"),
        (["privacy", "staircase", "--set", "foo=1", "--scale", "1", "--sensitivity", "1"],
         "no parameter"),
        (["privacy", "krr", "--k", "1e9", "--epsilon", "1"], "--k"),
        (["privacy", "krr", "--k", "4", "--epsilon", "1", "--delta-at", "nan"], "delta-at"),
        (["privacy", "krr", "--k", "4", "--epsilon", "-1"], "epsilon"),
        (["eval", "var", "b=1", "--density", "z" * 6000, "--param", "b>0"], "5000"),
        (["eval", "var", "b=1", "--density", "e^{-|z|/b}", "--param", "b>0", "--param", "b>0"],
         "distinct"),
        (["eval", "pmf", "b=1", "z=1/2", "--density", "e^{-|z|/b}", "--param", "b>0",
          "--support", "integers"], "integer"),
        (["privacy", "uniform", "--scale", "0", "--sensitivity", "1"], "b"),
        (["privacy", "discrete-gaussian", "--scale", "1", "--sensitivity", "1", "--lower", "0",
          "--upper", "5"], "--lower"),
        (["privacy", "discrete-gaussian", "--scale", "1", "--sensitivity", "1", "--plot",
          "x.png"], "--plot"),
        (["audit", "discrete-gaussian", "--scale", "1", "--sensitivity", "1", "--epsilon", "1",
          "--upper", "5"], "--upper"),
        (["privacy", "krr", "--k", "3", "--epsilon", "1", "--brute-force"], "--brute-force"),
        (["eval", "discrete-gaussian.cdf", "sigma=1e300", "y=1"], ("terms", "expected")),
    ],
    ids=lambda v: " ".join(v) if isinstance(v, list) else None,
)
def test_hostile_input_is_one_line_exit_2(args, mentions):
    assert_refused(run_cli(args, timeout=60), mentions=mentions, within=60)


# ---------------------------------------------------------------- dpcheck.testing


def test_assert_sampler_law_accepts_a_law_and_rejects_a_wrong_sampler():
    dg = registry.get("discrete-gaussian")
    draw = sampler(dg, {"sigma": F(2)})
    rng = np.random.default_rng(20261128)
    assert_sampler_law(draw(rng, 400_000) + 3, dg, sigma=2, s=3)
    assert_sampler_law(draw(rng, 400_000), "discrete-gaussian", sigma=2)
    wrong = np.round(rng.normal(0, 2.05, 400_000))  # a rounded Gaussian with a 2.5% wider scale
    with pytest.raises(AssertionError, match="do not follow its exact law"):
        assert_sampler_law(wrong, dg, sigma=2)
    with pytest.raises(InputError, match="integer s"):
        assert_sampler_law(draw(rng, 10), dg, sigma=2, s=0.5)


def test_a_user_law_from_a_test_file_goes_through_assert_sampler_law():
    """The discrete Gaussian defined here from its pmf (no edit under src/)."""
    mine = registry.law(r"e^{-\frac{z^2}{2w^2}}", "integers", ["w>0"], name="my dg")
    draw = sampler(mine, {"w": F(3, 2)})
    rng = np.random.default_rng(7)
    x = draw(rng, 300_000)
    assert_sampler_law(x, mine, w=1.5)
    var = dg_direct(F(3, 2), F(1), 1)[0]
    assert abs(x.var() - float(var)) < 0.05


def test_assert_private_on_the_discrete_gaussian_mechanism():
    dg = registry.get("discrete-gaussian")
    mech = additive_sampler(dg, {"sigma": F(2)})
    # true: delta(1) = 0.00725 at sensitivity 1
    assert_private(mech, epsilon=1.0, delta=0.0073, neighbours=[(0, 1)], samples=200_000)
    with pytest.raises(AssertionError):
        assert_private(mech, epsilon=0.2, delta=0.0, neighbours=[(0, 1)], samples=200_000)


def test_audit_a_noise_law_as_a_black_box():
    """Exit 0 at the true (1, 0.0073) of the discrete Gaussian (δ(1) = 0.00725); exit 1 when
    pure ε = 0.2 is claimed (the pure ε is infinite)."""
    ok = run_cli(["audit", "discrete-gaussian", "--scale", "2", "--sensitivity", "1",
                  "--epsilon", "1", "--delta", "0.0073", "--samples", "200000", "--json"],
                 timeout=120)
    assert ok.code == 0, ok.describe()
    assert json.loads(ok.stdout)["neighbours"] == [[0, 1]]
    bad = run_cli(["audit", "discrete-gaussian", "--scale", "2", "--sensitivity", "1",
                   "--epsilon", "0.2", "--samples", "200000"], timeout=120)
    assert bad.code == 1 and "VIOLATION" in bad.stdout, bad.describe()


# ------------------------------------------------- the lattice CDF in float64


@settings(max_examples=30, deadline=None)
@given(
    st.sampled_from(["discrete-gaussian", "discrete-laplace"]),
    st.fractions(min_value=F(1, 3), max_value=F(40)).filter(lambda v: v.denominator < 1000),
    st.lists(st.integers(-400, 400), min_size=1, max_size=12),
    st.integers(-5, 5),
)
def test_the_float64_lattice_cdf_equals_the_certified_one_at_every_draw(name, scale, ks, s):
    """One pmf pass between two certified tails (float64.LawAt._lattice_cdf) against a
    certified lattice sum at each point, relative to the smaller of F and 1 - F."""
    law = registry.get(name)
    at = LawAt(law, {law.scale: scale}, s=float(s))
    ys = np.array(ks, dtype=np.float64) + s + 0.25  # between the atoms: F(floor)
    fast = at.cdf(ys)
    slow = at._at_distinct(np.floor(ys - s), "cdf")
    tail = np.minimum(slow, 1 - slow)
    # relative to the tail, down to float64's smallest normal number (a subnormal has fewer
    # bits than 1e-12 asks for)
    ok = np.abs(fast - slow) <= 1e-12 * tail + np.finfo(np.float64).tiny
    assert ok.all(), (fast, slow)


def test_a_discrete_gaussian_sampler_at_sigma_1000_is_tested_in_seconds():
    """~9000 distinct draws: one pmf pass, not 9000 lattice sums of 40 000 terms."""
    import time

    law = registry.get("discrete-gaussian")
    rng = np.random.default_rng(20261129)
    draws = sampler(law, {"sigma": F(1000)})(rng, 1_000_000)
    start = time.perf_counter()
    assert_sampler_law(draws, law, sigma=1000)
    assert time.perf_counter() - start < 60
    with pytest.raises(AssertionError, match="second moment"):
        assert_sampler_law(np.round(rng.normal(0, 1030, 1_000_000)), law, sigma=1000)
