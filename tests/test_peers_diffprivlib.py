"""``dpcheck compare diffprivlib`` against the real diffprivlib 0.6.6 (no mocks).

Where diffprivlib is known to be right (δ = 0, moderate parameters) the exact
side must agree with it to ~1e-12; a known discrepancy must be reported with a
reproduce command that works through ``dpcheck.cli.main``; the law test must
pass diffprivlib's samplers at a fixed seed and flag a wrong law.  Every
statistical check is seeded and has false-alarm probability <= 1e-6.
"""

from __future__ import annotations

import json
import math
import os
import shlex
from fractions import Fraction as F

import mpmath
import pytest

if os.environ.get("DPCHECK_REQUIRE_PEERS"):  # CI: the real library must be there
    import diffprivlib  # noqa: F401
else:
    pytest.importorskip(
        "diffprivlib",
        reason="diffprivlib 0.6.6 is not installed: pip install 'dpcheck[peers]' "
        "(needs scikit-learn < 1.6)",
    )

from dpcheck import cli  # noqa: E402
from dpcheck.numeric import privacy  # noqa: E402
from dpcheck.peers import diffprivlib_compare as dc  # noqa: E402

MODERATE = [
    (0.5, 0.25, 0.0, 1.0, 0.2),
    (1.0, 0.5, 0.0, 1.0, 0.5),
    (2.0, 1.0, -1.0, 2.0, 1.7),
    (1.0, 0.1, 10.0, 11.0, 10.0),
]


def point(mech, eps, sens, lower, upper, value, delta=0.0):
    return dc.Point(mech, eps, delta, sens, lower, upper, value)


def run_cli(capsys, command: str, *extra: str) -> tuple[int, str, str]:
    argv = shlex.split(command)
    assert argv[:3] == ["dpcheck", "compare", "diffprivlib"]
    capsys.readouterr()
    code = cli.main(argv[1:] + list(extra))
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize("params", MODERATE)
def test_truncated_bias_and_variance_agree_at_delta_zero(params):
    """LaplaceTruncated's closed forms are right at δ = 0: the exact side must match them."""
    p = point("LaplaceTruncated", *params)
    bias, var = dc.moment_row(p, "bias"), dc.moment_row(p, "variance")
    assert bias.error <= mpmath.mpf("1e-12"), bias.as_dict()
    assert var.error <= mpmath.mpf("1e-10"), var.as_dict()


@pytest.mark.parametrize("params", MODERATE)
def test_bounded_domain_agrees_and_scale_is_calibrated(params):
    p = point("LaplaceBoundedDomain", *params)
    assert dc.moment_row(p, "bias").error <= mpmath.mpf("1e-12")
    assert dc.moment_row(p, "variance").error <= mpmath.mpf("1e-10")
    row = dc.scale_row(p)
    assert row.cause == "agrees" and row.error <= mpmath.mpf("1e-12"), row.as_dict()


def test_folded_bias_formula_agrees_inside_the_bounds():
    for params in MODERATE:
        row = dc.moment_row(point("LaplaceFolded", *params), "bias")
        assert row.error <= mpmath.mpf("1e-12"), row.as_dict()


def test_exact_scale_bisection_matches_calibrated_scale():
    """The δ > 0 route (bisection on privacy_loss) at δ → 0 against calibrated_scale."""
    p = point("LaplaceBoundedDomain", 1.0, 0.25, 0.0, 1.0, 0.5, delta=1e-300)
    setting = privacy.Setting(F(1), F(1, 4), F(0), F(1))
    with mpmath.workdps(40):
        a = dc.exact_scale(p)
        b = privacy.calibrated_scale("truncated", setting, dps=30)
        assert abs(a - b) <= mpmath.mpf(10) ** -20 * b


def test_delta_scale_mismatch_is_reported_and_reproduces(capsys):
    """LaplaceTruncated.bias() uses Δ/ε; randomise() uses Δ/(ε - log(1-δ))."""
    p = point("LaplaceTruncated", 1.0, 1.0, 0.0, 1.0, 0.1, delta=0.5)
    (row,) = [r for r in dc.compare([p], quantities=["bias"]) if r.quantity == "bias"]
    assert row.cause == "scale" and row.error > 0.1, row.as_dict()
    assert "scale mismatch" in row.diagnosis
    code, out, _ = run_cli(capsys, row.command, "--json")
    assert code == 0
    (again,) = json.loads(out)["groups"][0]["rows"]
    assert again == row.as_dict()
    code, out, _ = run_cli(capsys, row.command)
    assert code == 0 and "scale mismatch" in out and "LaplaceTruncated" in out


def test_cancellation_is_diagnosed_as_floating_point(capsys):
    """LaplaceTruncated.variance() at a large offset: v² - (bias + v)² cancels in doubles."""
    p = point("LaplaceTruncated", 100.0, 0.5, 1e6, 1e6 + 1, 1e6 + 1)
    row = dc.moment_row(p, "variance")
    assert row.cause == "floating point" and row.error > 1, row.as_dict()
    code, out, _ = run_cli(capsys, row.command, "--json")
    assert code == 0 and json.loads(out)["groups"][0]["rows"][0]["error"] == dc._fmt(row.error)


def test_crash_and_not_implemented_are_reported():
    crash = dc.moment_row(point("LaplaceTruncated", 0.0, 1.0, 0.0, 1.0, 0.5, delta=0.5), "bias")
    assert crash.status == "crash" and "ZeroDivisionError" in crash.library
    missing = dc.moment_row(point("LaplaceFolded", 1.0, 1.0, 0.0, 1.0, 0.5), "variance")
    assert missing.status == "not implemented" and missing.error is None
    assert mpmath.mpf(missing.exact) > 0


def test_scale_for_sensitivity_above_the_range():
    """Δ > R: _find_scale() solves an equation written for Δ < R."""
    row = dc.scale_row(point("LaplaceBoundedDomain", 1.0, 3.0, 0.0, 1.0, 0.5))
    assert row.cause == "nan" and row.error == mpmath.inf
    row = dc.scale_row(point("LaplaceBoundedDomain", 0.001, 3.0, 0.0, 1.0, 0.5))
    assert row.cause == "formula" and row.error > 0.5


@pytest.mark.parametrize("mech", dc.MECHANISMS)
@pytest.mark.parametrize("params", [(1.0, 0.1, 0.0, 1.0, 0.3), (0.5, 1.0, 10.0, 11.0, 10.0)])
def test_law_test_passes_correct_samplers(mech, params):
    rows = dc.law_rows(point(mech, *params), samples=1000, seed=7)
    assert rows and not any(r.flagged for r in rows), [r.as_dict() for r in rows]
    assert all(r.status == "compared" for r in rows)


def test_law_test_flags_a_wrong_law():
    """LaplaceTruncated at δ = 0.5 sampled, compared with the law at λ = Δ/ε (bias()'s scale)."""
    p = point("LaplaceTruncated", 1.0, 1.0, 0.0, 1.0, 0.3, delta=0.5)
    n = 4000
    mech = dc._make(p, seed=11)
    draws = [float(mech.randomise(p.value)) for _ in range(n)]
    wrong = dc.ExactLaw("bit", F(p.value), F(0), F(1), F(1))  # λ = Δ/ε = 1, not 1/(1 + log 2)
    right = dc.sampled_law(p)
    assert abs(float(right.lam) - 1 / (1 + math.log(2))) < 1e-15
    t = dc.dkw_threshold(n, dc.ALPHA / 2)
    with mpmath.workdps(30):
        assert dc.ks_distance(draws, right) <= t
        assert dc.ks_distance(draws, wrong) > t
        k = sum(d == 0.0 for d in draws)
        p0_wrong = mpmath.exp(-mpmath.mpf(3) / 10) / 2
        assert dc.binomial_p_value(k, n, p0_wrong) <= dc.ALPHA / 4


def test_single_point_input_errors(capsys):
    base = ["compare", "diffprivlib", "--mechanism=LaplaceTruncated", "--quantity=bias"]
    good = {
        "epsilon": "1",
        "delta": "0",
        "sensitivity": "1",
        "lower": "0",
        "upper": "1",
        "value": "0.5",
    }
    cases = {
        ("epsilon", "nan"): "epsilon",
        ("sensitivity", "-1"): "sensitivity",
        ("lower", "2"): "lower",
        ("delta", "1.5"): "delta",
        ("value", "abc"): "value",
    }
    for (name, bad), needle in cases.items():
        args = {**good, name: bad}
        code = cli.main(base + [f"--{k}={v}" for k, v in args.items()])
        err = capsys.readouterr().err
        assert code == 2 and needle in err and err.count("\n") == 1, (name, err)
    code = cli.main(base + ["--epsilon=1", "--delta=0"])
    assert code == 2 and "--sensitivity" in capsys.readouterr().err
    code = cli.main(["compare", "diffprivlib", "--mechanism=Gaussian"])
    assert code == 2
    capsys.readouterr()
    code = cli.main(["compare", "diffprivlib", "--mechanism=LaplaceFolded", "--quantity=scale"])
    assert code == 2 and "does not apply" in capsys.readouterr().err
