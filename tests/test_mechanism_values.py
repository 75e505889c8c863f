"""Every quantity of every mechanism against an independent route (issue 18, "Tests").

The derived closed forms, compiled to mpmath (:mod:`dpcheck.numeric.mechanism_mp`),
against quadrature of the densities and summation of the pmf written plainly in
tests/reference_laws.py (no SymPy), to 25 significant digits, on a grid of
scale/R from 1e-6 to 1e6 with s at, near and between the bounds, one-sided
variants, and hypothesis points; the tidy forms proved equal to the raw
integrals; the CDF against quadrature up to y, the quantile against the CDF.
"""

from __future__ import annotations

import subprocess
import sys
from fractions import Fraction

import mpmath
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, __file__.rsplit("/", 1)[0])
import reference_laws as ref  # noqa: E402

from dpcheck.errors import InputError  # noqa: E402
from dpcheck.numeric import mechanism_mp, mechanism_params  # noqa: E402
from dpcheck.numeric.names import BASES, MECHANISM_NAMES, parts  # noqa: E402

F = Fraction
MOMENTS = ("normaliser", "mean", "bias", "second_moment", "var", "mse")
DIGITS = 25


def _scale_key(mechanism: str) -> str:
    return BASES[parts(mechanism)[1]]


def _values(mechanism, s, c0, c1, theta) -> dict[str, object]:
    out: dict[str, object] = {"s": s, _scale_key(mechanism): theta}
    if parts(mechanism)[0] != "none":
        out["c0"] = "-inf" if c0 is None else c0
        out["c1"] = "inf" if c1 is None else c1
    return out


def _agree(mechanism, name, s, c0, c1, theta) -> None:
    expected = ref.quantity(mechanism, name, s, c0, c1, theta, dps=45)
    got = mechanism_mp.evaluate(f"{mechanism}.{name}", _values(mechanism, s, c0, c1, theta), 30)
    power = 0 if name == "normaliser" else (1 if name in ("mean", "bias") else 2)
    lo = c0 if c0 is not None else s
    hi = c1 if c1 is not None else s
    magnitude = (abs(ref._mpf(s)) + abs(ref._mpf(hi - lo)) + ref._mpf(theta)) ** power
    tol = mpmath.mpf(10) ** -DIGITS * abs(expected) + mpmath.mpf(10) ** -35 * magnitude
    assert abs(got - expected) <= tol, (mechanism, name, s, c0, c1, theta, got, expected)


CONTINUOUS = [m for m in MECHANISM_NAMES if not m.endswith("geometric")]
GEOMETRIC = [m for m in MECHANISM_NAMES if m.endswith("geometric")]


def _grid(scales, positions):
    for ratio in scales:
        for frac in positions:
            yield F(0) + F(frac), F(0), F(1), F(ratio)


FAST_CONTINUOUS = [
    pytest.param(m, marks=pytest.mark.slow) if m == "folded-laplace" else m for m in CONTINUOUS
]


@pytest.mark.parametrize("mechanism", FAST_CONTINUOUS)
@pytest.mark.parametrize("name", MOMENTS)
def test_continuous_against_quadrature(mechanism: str, name: str) -> None:
    for s, c0, c1, theta in _grid(("1e-6", "1/3", "1e6"), ("0", "3/10")):
        if mechanism == "folded-laplace" and theta > 10:
            continue  # image sums too long for quadrature; the slow grid stops at 10 too
        _agree(mechanism, name, s, c0, c1, theta)


@pytest.mark.parametrize("mechanism", GEOMETRIC)
@pytest.mark.parametrize("name", MOMENTS)
def test_geometric_against_summation(mechanism: str, name: str) -> None:
    for s, c0, c1, b in (
        (0, -3, 7, F(1, 50)),
        (0, 0, 10, F(3)),
        (4, 0, 10, F(1)),
        (2, -5, 5, F(20)),
    ):
        _agree(mechanism, name, s, c0, c1, b)


@pytest.mark.parametrize(
    "mechanism", ["truncated-gaussian", "clamped-gaussian", "truncated-laplace", "clamped-laplace"]
)
@pytest.mark.parametrize("name", MOMENTS)
def test_one_sided_against_quadrature(mechanism: str, name: str) -> None:
    _agree(mechanism, name, F(3, 10), F(0), None, F(7, 10))
    _agree(mechanism, name, F(3, 10), None, F(1), F(2))


@pytest.mark.parametrize("mechanism", ["truncated-geometric", "clamped-geometric"])
@pytest.mark.parametrize("name", MOMENTS)
def test_one_sided_geometric(mechanism: str, name: str) -> None:
    _agree(mechanism, name, 2, 0, None, F(3, 2))
    _agree(mechanism, name, 2, None, 5, F(3, 2))


@pytest.mark.slow
@pytest.mark.parametrize("mechanism", [m for m in CONTINUOUS if parts(m)[0] != "none"])
def test_continuous_full_grid(mechanism: str) -> None:
    scales = ("1e-6", "1e-3", "1", "1e3", "1e6")
    positions = ("0", "1/1000", "1/2", "1")
    for s, c0, c1, theta in _grid(scales, positions):
        if mechanism == "folded-laplace" and theta > 1:
            continue
        for name in MOMENTS:
            _agree(mechanism, name, s, c0, c1, theta)


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    mechanism=st.sampled_from([m for m in CONTINUOUS if m != "folded-laplace"]),
    name=st.sampled_from(MOMENTS),
    log_ratio=st.integers(-6, 6),
    frac=st.fractions(0, 1, max_denominator=1000),
    c0=st.fractions(-50, 50, max_denominator=7),
)
def test_continuous_hypothesis(mechanism, name, log_ratio, frac, c0) -> None:
    width = F(3, 2)
    _agree(mechanism, name, c0 + frac * width, c0, c0 + width, width * F(10) ** log_ratio)


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    mechanism=st.sampled_from(GEOMETRIC),
    name=st.sampled_from(MOMENTS),
    b=st.fractions(F(1, 100), 30, max_denominator=100),
    c0=st.integers(-20, 20),
    width=st.integers(1, 30),
    data=st.data(),
)
def test_geometric_hypothesis(mechanism, name, b, c0, width, data) -> None:
    s = data.draw(st.integers(c0, c0 + width))
    if parts(mechanism)[0] == "none":
        _agree(mechanism, name, s, None, None, b)
    else:
        _agree(mechanism, name, s, c0, c0 + width, b)


def test_geometric_tail_past_zero() -> None:
    """Found by hypothesis: the reference's tail used to stop at the zero term k = 0."""
    _agree("geometric", "mean", 11, None, None, F(11, 50))
    _agree("geometric", "second_moment", 11, None, None, F(11, 50))


# ---------------------------------------------------------------------------- CDF, quantile


@pytest.mark.parametrize(
    "mechanism, values, ys",
    [
        (
            "truncated-gaussian",
            {"s": "0.3", "c0": 0, "c1": 1, "sigma": "0.7"},
            ["0.1", "0.3", "0.9"],
        ),
        ("clamped-gaussian", {"s": "0.3", "c0": 0, "c1": 1, "sigma": "0.7"}, ["0", "0.5", "0.99"]),
        ("truncated-laplace", {"s": "0.3", "c0": 0, "c1": 1, "lam": "0.2"}, ["0.1", "0.6"]),
        ("gaussian", {"s": "0", "sigma": "2"}, ["-1", "3"]),
        ("clamped-geometric", {"s": 3, "c0": 0, "c1": 10, "scale": 2}, [0, 2, 3, 7, 9]),
        ("truncated-geometric", {"s": 3, "c0": 0, "c1": 10, "scale": 2}, [0, 4, 9]),
    ],
)
def test_cdf_against_quadrature(mechanism, values, ys) -> None:
    bounding, base = parts(mechanism)
    params = mechanism_params.parse(mechanism, values, "")
    for y in ys:
        got = mechanism_mp.evaluate(f"{mechanism}.cdf", {**values, "y": y}, 30)
        yq = F(y) if not isinstance(y, str) else mechanism_params.parse_number("y", y)

        def below(t, yq=yq):
            return mpmath.mpf(1) if t <= ref._mpf(yq) else mpmath.mpf(0)

        if base == "geometric":
            expected = ref.geometric_expectation(
                below, bounding, int(params.s), int(params.c0), int(params.c1), params.scale, 45
            )
        elif bounding == "none":
            with mpmath.workdps(45):
                s_, th = ref._mpf(params.s), ref._mpf(params.scale)
                expected = ref.integrate(
                    lambda t: mpmath.mpf(1),
                    lambda t, s_=s_, th=th: ref.gaussian_density(t, s_, th),
                    -mpmath.inf,
                    mpmath.mpf(yq.numerator) / yq.denominator,
                    s_,
                    th,
                )
        else:
            expected = _continuous_cdf(base, bounding, params, yq)
        assert abs(got - expected) <= mpmath.mpf(10) ** -DIGITS, (mechanism, y, got, expected)


def _continuous_cdf(base, bounding, params, yq):
    with mpmath.workdps(45):
        s_, th = ref._mpf(params.s), ref._mpf(params.scale)
        a, b = ref._mpf(params.c0), ref._mpf(params.c1)
        y_ = mpmath.mpf(yq.numerator) / yq.denominator
        dens = ref.laplace_density if base == "laplace" else ref.gaussian_density

        def f(t):
            return dens(t, s_, th)

        one = lambda t: mpmath.mpf(1)  # noqa: E731
        inside = ref.integrate(one, f, a, y_, s_, th) if y_ > a else mpmath.mpf(0)
        if bounding == "truncated":
            return inside / ref.integrate(one, f, a, b, s_, th)
        return inside + ref.integrate(one, f, -mpmath.inf, a, s_, th)


@pytest.mark.parametrize(
    "mechanism, values",
    [
        ("truncated-gaussian", {"s": "0.3", "c0": 0, "c1": 1, "sigma": "0.7"}),
        ("truncated-laplace", {"s": "0.3", "c0": 0, "c1": 1, "lam": "0.2"}),
        ("gaussian", {"s": "0", "sigma": "1"}),
        ("truncated-gaussian", {"s": "0.3", "c0": 0, "c1": "inf", "sigma": "0.7"}),
    ],
)
def test_quantile_inverts_cdf(mechanism, values) -> None:
    for p in ("0.01", "0.5", "0.975"):
        q = mechanism_mp.evaluate(f"{mechanism}.quantile", {**values, "p": p}, 30)
        back = mechanism_mp.evaluate(f"{mechanism}.cdf", {**values, "y": _frac(q)}, 30)
        with mpmath.workdps(40):
            assert (
                abs(back - ref._mpf(mechanism_params.parse_number("p", p))) < mpmath.mpf(10) ** -25
            )


def _frac(q: mpmath.mpf) -> Fraction:
    sign, man, exp, _ = q._mpf_
    return (-1) ** sign * F(man) * F(2) ** exp


def test_standard_normal_quantile() -> None:
    q = mechanism_mp.evaluate("gaussian.quantile", {"s": 0, "sigma": 1, "p": "0.975"}, 30)
    with mpmath.workdps(40):
        expected = mpmath.sqrt(2) * mpmath.erfinv(mpmath.mpf(95) / 100)
        assert abs(q - expected) < mpmath.mpf(10) ** -25


def test_geometric_quantile_is_the_generalised_inverse() -> None:
    values = {"s": 3, "c0": 0, "c1": 10, "scale": 2}
    for p in ("0.05", "0.5", "0.95"):
        q = int(mechanism_mp.evaluate("clamped-geometric.quantile", {**values, "p": p}, 20))
        at = mechanism_mp.evaluate("clamped-geometric.cdf", {**values, "y": q}, 20)
        before = mechanism_mp.evaluate("clamped-geometric.cdf", {**values, "y": q - 1}, 20)
        assert before < mpmath.mpf(p) <= at


# ---------------------------------------------------------------------------- symbolic


@pytest.mark.parametrize(
    "mechanism", ["clamped-geometric", "truncated-gaussian", "clamped-gaussian"]
)
@pytest.mark.parametrize("name", ["mean", "bias", "mse"])
def test_tidy_forms_are_the_derived_ones(mechanism, name) -> None:
    from dpcheck.symbolic import atoms
    from dpcheck.symbolic import mechanisms as sym

    assert atoms.is_zero(sym.quantity(mechanism, name) - sym.raw(mechanism, name))


def test_zero_test_is_not_fooled() -> None:
    """A one-place change of a derived form is not declared zero (the test can fail)."""
    from dpcheck.symbolic import atoms
    from dpcheck.symbolic import mechanisms as sym
    from dpcheck.symbolic.symbols import sigma

    mean = sym.quantity("truncated-gaussian", "mean")
    assert not atoms.is_zero(mean - mean.subs(sigma, 2 * sigma))
    assert not atoms.is_zero(
        sym.quantity("clamped-geometric", "mean") - sym.raw("truncated-geometric", "mean")
    )


def test_total_mass_is_one() -> None:
    from dpcheck.symbolic import atoms, laws
    from dpcheck.symbolic import mechanisms as sym

    for mechanism in MECHANISM_NAMES:
        if mechanism == "folded-laplace":
            continue  # proved in tests/test_folding.py
        assert atoms.is_zero(laws.total_mass(sym.law(mechanism)) - 1), mechanism


# ---------------------------------------------------------------------------- done-when, CLI


DONE_WHEN = [
    ("truncated-gaussian.mean", "truncated-gaussian", "mean", "sigma", F(3, 10), 0, 1, F(7, 10)),
    ("clamped-gaussian.mean", "clamped-gaussian", "mean", "sigma", F(3, 10), 0, 1, F(7, 10)),
    ("truncated-gaussian.var", "truncated-gaussian", "var", "sigma", F(3, 10), 0, 1, F(7, 10)),
    ("clamped-geometric.mean", "clamped-geometric", "mean", "scale", 3, 0, 10, F(2)),
]


@pytest.mark.parametrize("name, mechanism, quantity, key, s, c0, c1, theta", DONE_WHEN)
def test_done_when_commands(name, mechanism, quantity, key, s, c0, c1, theta) -> None:
    argv = ["eval", name, f"s={s}", f"c0={c0}", f"c1={c1}", f"{key}={theta}", "--dps", "30"]
    out = subprocess.run(
        [sys.executable, "-m", "dpcheck", *argv], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    with mpmath.workdps(40):
        printed = mpmath.mpf(out.stdout.strip())
        expected = ref.quantity(mechanism, quantity, s, c0, c1, theta, dps=45)
        assert abs(printed - expected) <= mpmath.mpf(10) ** -25 * abs(expected)


@pytest.mark.parametrize(
    "mechanism, values, message",
    [
        ("truncated-gaussian", {"s": 0, "c0": 0, "c1": 1, "lam": 1}, "unknown parameter 'lam'"),
        (
            "clamped-geometric",
            {"s": "0.5", "c0": 0, "c1": 3, "scale": 1},
            "s=1/2 must be an integer",
        ),
        ("clamped-geometric", {"s": 0, "c0": 0, "c1": 3, "alpha": 1}, "alpha=1"),
        ("clamped-geometric", {"s": 0, "c0": 0, "c1": 3, "alpha": "0.5", "scale": 1}, "one scale"),
        ("truncated-gaussian", {"s": 0, "c0": "-inf", "c1": "inf", "sigma": 1}, "both be infinite"),
        ("folded-laplace", {"s": 0, "c0": 0, "c1": "inf", "lam": 1}, "finite c0 and c1"),
        ("truncated-gaussian", {"s": 2, "c0": 0, "c1": 1, "sigma": 1}, "s=2 is outside"),
        ("truncated-gaussian", {"s": 0, "c0": 0, "c1": 1, "sigma": 0}, "sigma=0 must be positive"),
        ("gaussian", {"s": 0, "c0": 0, "sigma": 1}, "unknown parameter 'c0'"),
        ("truncated-gaussian", {"s": 0, "c0": 0, "sigma": 1}, "missing parameter 'c1'"),
    ],
)
def test_bad_parameters(mechanism, values, message) -> None:
    with pytest.raises(InputError, match=message.replace("(", r"\(")):
        mechanism_params.parse(mechanism, values, "mean")


def test_unknown_names() -> None:
    with pytest.raises(InputError, match="not available"):
        mechanism_mp.evaluate("folded-gaussian.mean", {}, 10)
    with pytest.raises(InputError, match="unknown quantity 'median'"):
        mechanism_mp.evaluate("truncated-gaussian.median", {}, 10)


def test_api_face() -> None:
    import dpcheck

    m = dpcheck.mechanism("truncated-gaussian")
    assert repr(m) == "mechanism('truncated-gaussian')"
    mean = m.mean(s="0.3", c0=0, c1=1, sigma="0.7")
    expected = ref.quantity("truncated-gaussian", "mean", F(3, 10), 0, 1, F(7, 10))
    assert abs(mean - expected) < mpmath.mpf(10) ** -28
    assert m.quantity("var").has(__import__("sympy").erf)
    assert dpcheck.mechanism("bit").name == "clamped-laplace"


# ---------------------------------------------------------------------------- limits


LIMIT_CASES = [
    ("truncated-gaussian", "sigma"),
    ("clamped-gaussian", "sigma"),
    ("truncated-laplace", "lam"),
    ("clamped-geometric", "scale"),
    ("truncated-geometric", "scale"),
]


@pytest.mark.slow
@pytest.mark.parametrize("mechanism, key", LIMIT_CASES)
def test_scale_limits_against_evaluation(mechanism, key) -> None:
    """The derived limits against the evaluated quantity at a tiny and a huge scale."""
    import sympy as sp

    import dpcheck
    from dpcheck.symbolic.symbols import c0, c1, s

    m = dpcheck.mechanism(mechanism)
    point = {"s": 3, "c0": 0, "c1": 10}
    env = {s: 3, c0: 0, c1: 10}
    for to, scale_value, tol in (("zero", "1e-12", "1e-20"), ("infinity", "1e7", "1e-5")):
        for name in ("mean", "var", "normaliser"):
            limit = sp.nsimplify(m.limit(name, to).subs(env))
            value = m.evaluate(name, dps=30, **point, **{key: scale_value})
            assert abs(value - mpmath.mpf(sp.Rational(limit).p) / sp.Rational(limit).q) <= (
                mpmath.mpf(tol) * max(1, abs(value))
            ), (mechanism, name, to, limit, value)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["mean", "bias", "mse", "var"])
def test_truncated_geometric_tidy_forms_are_the_derived_ones(name) -> None:
    from dpcheck.symbolic import atoms
    from dpcheck.symbolic import mechanisms as sym

    assert atoms.is_zero(
        sym.quantity("truncated-geometric", name) - sym.raw("truncated-geometric", name)
    )
