"""The exact privacy loss (Liu 2019, Def. 2) against brute force, and its calibration."""

from __future__ import annotations

import json
from fractions import Fraction

import mpmath
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from dpcheck.cli import main
from dpcheck.numeric import privacy as num
from dpcheck.symbolic import privacy as pv
from dpcheck.symbolic.signs_poly import prove_sign
from dpcheck.symbolic.symbols import c0, c1, delta1, epsilon, lam

F = Fraction

#: (mechanism, sensitivity, lower, upper, scale): Δ < R, Δ = R, Δ > R, small and large λ
SETTINGS = [
    ("truncated", F(1), F(0), F(2), F(1)),
    ("truncated", F(1, 3), F(-1), F(1), F(1, 10)),
    ("truncated", F(2), F(0), F(1), F(1)),
    ("truncated", F(1), F(0), F(1), F(1, 2)),
    ("truncated", F(1, 100), F(0), F(1), F(1, 50)),
    ("truncated", F(1), F(5), F(105), F(7)),
    ("bit", F(1), F(0), F(2), F(1)),
    ("bit", F(3), F(0), F(2), F(1, 2)),
    ("bit", F(1, 4), F(-2), F(3), F(2)),
]


@pytest.mark.parametrize(("mechanism", "delta", "lo", "hi", "scale"), SETTINGS)
def test_closed_form_matches_brute_force(mechanism, delta, lo, hi, scale):
    exact = num.privacy_loss(mechanism, delta, lo, hi, scale, dps=30)
    brute = num.brute_force_loss(mechanism, delta, lo, hi, scale, n_inputs=13, n_outputs=17)
    # the grid holds the worst case (c0, c0 + Δ, y = c0), so brute force must hit it,
    # and it can never exceed the sup (brute force runs at 25 digits)
    with mpmath.workdps(30):
        assert brute.loss <= exact * (1 + mpmath.mpf(10) ** -20)
        assert abs(brute.loss - exact) <= mpmath.mpf(10) ** -20 * abs(exact)


@settings(max_examples=25, deadline=None)
@given(
    mechanism=st.sampled_from(["truncated", "bit"]),
    delta=st.fractions(F(1, 20), F(3)),
    width=st.fractions(F(1, 10), F(5)),
    scale=st.fractions(F(1, 20), F(5)),
    lo=st.fractions(F(-3), F(3)),
)
def test_brute_force_never_beats_closed_form(mechanism, delta, width, scale, lo):
    exact = num.privacy_loss(mechanism, delta, lo, lo + width, scale, dps=25)
    brute = num.brute_force_loss(
        mechanism, delta, lo, lo + width, scale, n_inputs=7, n_outputs=9, dps=20
    )
    with mpmath.workdps(30):
        assert brute.loss <= exact * (1 + mpmath.mpf(10) ** -15)
        assert abs(brute.loss - exact) <= mpmath.mpf(10) ** -15 * abs(exact)


def test_truncated_loss_exceeds_epsilon_by_log_delta_c():
    # ε = 1, Δ = 1, [0, 2]: loss = 1 + log((2 - e^-1 - e^-1)/(1 - e^-2))
    with mpmath.workdps(40):
        expected = 1 + mpmath.log((2 - 2 * mpmath.exp(-1)) / (1 - mpmath.exp(-2)))
        got = num.privacy_loss("truncated", F(1), F(0), F(2), F(1), dps=35)
        assert abs(got - expected) < mpmath.mpf(10) ** -33


def test_bit_loss_is_min_delta_range_over_scale():
    for delta, width in ((F(1), F(2)), (F(3), F(2))):
        got = num.privacy_loss("bit", delta, F(0), width, F(1, 2))
        assert abs(got - 2 * min(delta, width)) < mpmath.mpf(10) ** -25


def test_worst_case_is_machine_checked():
    worst = pv.worst_case("truncated")
    assert len(worst.kept) == 2  # the two mirror-image worst cases
    assert {str(a["s"]) for a in worst.attained} == {"c_0", "c_1 - delta_1"}
    assert pv.matches_holohan()
    assert pv.excess_positive().sign == 1
    assert pv.loss_decreasing_in_scale().sign == -1
    assert sp.simplify(pv.limit_wide_range() - sp.log(2 * sp.exp(epsilon) - 1)) == 0
    bit = pv.worst_case("bit")
    assert sp.simplify(bit.loss - delta1 / lam) == 0
    assert sp.simplify(bit.loss_wide - (c1 - c0) / lam) == 0


def test_loss_tends_to_epsilon_as_range_shrinks_to_sensitivity():
    expr = pv.worst_case("truncated").loss_in_epsilon()
    assert sp.simplify(sp.limit(expr, pv.ratio, 1, "+") - epsilon) == 0


def test_sign_prover_does_not_prove_false_or_unshown_statements():
    a = sp.Symbol("a", positive=True)
    assert prove_sign(sp.exp(a) - 1 - 2 * a, {}) is None  # negative near 0, positive later
    assert prove_sign(a - 1, {}) is None
    assert prove_sign(sp.exp(a) - 1, {}).sign == 1
    assert prove_sign(1 - sp.exp(a), {}).sign == -1


CALIBRATION_SETTINGS = [
    (F(1), F(1), F(0), F(2)),
    (F(1, 10), F(1), F(0), F(100)),
    (F(5), F(1, 2), F(-1), F(1)),
    (F(2), F(1), F(0), F(1)),  # Δ = R
    (F(1), F(3), F(0), F(1)),  # Δ > R: λ* = R/ε
    (F(1, 1000), F(1), F(0), F(3)),
    (F(20), F(1), F(0), F(1000)),
]


@pytest.mark.parametrize(("eps", "delta", "lo", "hi"), CALIBRATION_SETTINGS)
@pytest.mark.parametrize("mechanism", ["truncated", "bit"])
def test_loss_at_calibrated_scale_is_epsilon(mechanism, eps, delta, lo, hi):
    setting = num.Setting(eps, delta, lo, hi)
    scale = num.calibrated_scale(mechanism, setting, dps=30)
    loss = num.privacy_loss(mechanism, delta, lo, hi, scale, dps=30)
    assert abs(loss - mpmath.mpf(eps.numerator) / eps.denominator) <= 1e-10 * float(eps)
    # and it is the smallest such scale: slightly smaller is not ε-DP
    smaller = num.privacy_loss(mechanism, delta, lo, hi, scale * (1 - mpmath.mpf(10) ** -8))
    assert smaller > mpmath.mpf(eps.numerator) / eps.denominator


def _holohan_fixed_point(eps_q: Fraction, delta_q: Fraction, diam_q: Fraction) -> mpmath.mpf:
    """Holohan et al. (2018) b = Δ/(ε - log ΔC(b)), bisected as diffprivlib does, in mpmath."""
    with mpmath.workdps(40):
        eps, delta, diam = (
            mpmath.mpf(q.numerator) / q.denominator for q in (eps_q, delta_q, diam_q)
        )

        def f(b):
            dc = (2 - mpmath.exp(-delta / b) - mpmath.exp(-(diam - delta) / b)) / (
                1 - mpmath.exp(-diam / b)
            )
            return delta / (eps - mpmath.log(dc))

        left = mpmath.mpf(delta) / eps
        right = f(left)
        for _ in range(200):
            mid = (left + right) / 2
            if f(mid) >= mid:
                left = mid
            else:
                right = mid
        return (left + right) / 2


def test_calibration_equals_holohan_fixed_point():
    for eps, delta, lo, hi in CALIBRATION_SETTINGS:
        if delta >= hi - lo:
            continue
        ours = num.calibrated_scale("truncated", num.Setting(eps, delta, lo, hi), dps=30)
        theirs = _holohan_fixed_point(eps, delta, hi - lo)
        with mpmath.workdps(40):
            assert abs(ours - theirs) <= mpmath.mpf(10) ** -25 * ours


def test_calibrated_scale_exceeds_naive_only_for_truncated():
    setting = num.Setting(F(1), F(1), F(0), F(10))
    naive = mpmath.mpf(setting.naive_scale.numerator) / setting.naive_scale.denominator
    assert num.calibrated_scale("truncated", setting) > naive * 1.1
    assert num.calibrated_scale("bit", setting) == naive


def test_cli_privacy_json(capsys):
    code = main(
        [
            "privacy",
            "truncated",
            "--epsilon",
            "1",
            "--sensitivity",
            "1",
            "--lower",
            "0",
            "--upper",
            "2",
            "--json",
        ]
    )
    assert code == 0
    data = json.loads(capsys.readouterr().out)
    assert data["epsilon-DP at this scale"] is False
    assert data["loss"].startswith("1.379885493041722475")
    assert data["calibrated scale"].startswith("1.413342697737872")
    assert data["attained at"][0] == {"s": "0", "s'": "1", "y": "0"}
    assert float(data["cost"][0]["mse ratio calibrated/scale"]) > 1


def test_cli_privacy_given_scale_and_plot(tmp_path, capsys):
    out = tmp_path / "loss.png"
    code = main(
        [
            "privacy",
            "truncated",
            "--epsilon",
            "1/2",
            "--sensitivity",
            "1",
            "--lower",
            "0",
            "--upper",
            "4",
            "--scale",
            "3",
            "--plot",
            str(out),
        ]
    )
    assert code == 0
    text = capsys.readouterr().out
    assert "scale lambda = 3  (given)" in text
    assert out.stat().st_size > 10_000 and out.read_bytes()[:4] == b"\x89PNG"


BAD = [
    ["--epsilon", "0"],
    ["--epsilon", "-1"],
    ["--epsilon", "nan"],
    ["--epsilon", "inf"],
    ["--sensitivity", "0"],
    ["--sensitivity", "-2"],
    ["--sensitivity", "NaN"],
    ["--lower", "3"],
    ["--lower", "1"],
    ["--upper", "nan"],
    ["--scale", "0"],
    ["--scale", "-1"],
    ["--dps", "0"],
    ["--plot", "/nonexistent-folder/x.png"],
]


@pytest.mark.parametrize("change", BAD, ids=lambda c: " ".join(c))
def test_cli_privacy_bad_input_exits_2(change, capsys):
    args = {"--epsilon": "1", "--sensitivity": "1", "--lower": "0", "--upper": "1"}
    args.update(dict(zip(change[::2], change[1::2], strict=True)))
    argv = ["privacy", "truncated"] + [x for kv in args.items() for x in kv]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("dpcheck: error: ") and err.count("\n") == 1
    assert "Traceback" not in err


def test_cli_privacy_unknown_mechanism_exits_2(capsys):
    assert (
        main(
            [
                "privacy",
                "cauchy",
                "--epsilon",
                "1",
                "--sensitivity",
                "1",
                "--lower",
                "0",
                "--upper",
                "1",
            ]
        )
        == 2
    )
    assert "unknown mechanism 'cauchy'" in capsys.readouterr().err


# --------------------------------------------------------------------------- safe-side numbers
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=300, deadline=None)
@given(
    st.fractions(min_value=Fraction(1, 10**12), max_value=Fraction(10**12)),
    st.integers(min_value=1, max_value=40),
)
def test_round_up_is_the_next_decimal_at_or_above(value, digits):
    from dpcheck.numeric.privacy import round_up

    up = round_up(value, digits)
    assert up >= value
    # `digits` significant digits: scaled by a power of ten it is an integer below 10^digits
    e = 0
    while up * Fraction(10) ** e >= 10**digits:
        e -= 1
    while up * Fraction(10) ** (e + 1) < 10**digits:
        e += 1
    scaled = up * Fraction(10) ** e
    assert scaled.denominator == 1 and 10 ** (digits - 1) <= scaled < 10**digits
    # and it is the smallest such: one unit less is below the value
    assert up - Fraction(1) / Fraction(10) ** e < value


@pytest.mark.parametrize(
    "mechanism, eps, delta, lo, hi",
    [
        ("truncated", "1", "1", "0", "2"),
        ("truncated", "0.37", "3", "-1", "20"),
        ("truncated", "5", "1", "0", "1000"),
        ("bit", "1", "1", "0", "2"),
    ],
)
def test_printed_calibrated_scale_is_safe_and_tight(mechanism, eps, delta, lo, hi):
    """The printed calibrated scale gives loss <= eps (arb), and a scale 1e-25 smaller
    (relative) does not: it is an upper bound on the smallest safe scale, and a tight one."""
    from dpcheck.numeric import privacy as pr

    setting = pr.Setting.parse(eps, delta, lo, hi)
    data = pr.summary(mechanism, setting)
    printed = Fraction(data["calibrated scale"])
    assert pr.certify_loss(mechanism, setting, printed) is True
    below = printed * (1 - Fraction(1, 10**25))
    assert pr.certify_loss(mechanism, setting, below) is False
    assert data["loss <= epsilon at calibrated scale (arb)"] is True


def test_printed_loss_is_never_below_the_exact_loss():
    from dpcheck.numeric import privacy as pr

    setting = pr.Setting.parse("1", "1", "0", "2")
    data = pr.summary("truncated", setting)
    with mpmath.workdps(60):
        exact = pr.privacy_loss("truncated", Fraction(1), Fraction(0), Fraction(2), Fraction(1), 60)
        printed = mpmath.mpf(data["loss"])
        assert printed >= exact and printed - exact < mpmath.mpf(10) ** -28
    # BIT at lambda = Delta/eps: loss = eps exactly, decided by exact equality, not a tolerance
    bit = pr.summary("bit", setting)
    assert bit["epsilon-DP at this scale"] is True and bit["loss"] == "1.0"
    # just below the safe scale BIT is not eps-DP, however close
    assert pr.certify_loss("bit", setting, Fraction(1) - Fraction(1, 10**40)) is False
