"""Two numeric routes to the same quantities must agree (Liu 2019, eqs (4)-(7)).

Route 1: the SymPy closed forms compiled to mpmath (:func:`dpcheck.numeric.mp.evaluate`).
Route 2: tanh-sinh quadrature straight over the laws
(:mod:`dpcheck.numeric.quadrature`), which never touches SymPy.

Tolerance.  The routes must agree to D significant digits:
``|a - b| <= 10^-D · max(|a|, floor)``.  The floor is 0 for the quantities
whose integrand has one sign (second moment, variance, MSE): those are
compared purely relatively, however small.  The bias and the mean can cancel
(the bias is exactly 0 at the midpoint, and ~e^{-(c1-c0)/(2λ)} for s inside
when λ ≪ c1 - c0, e.g. 2.5e-144766 at λ = 1e-6); quadrature finds E g(s*) to
D digits of E|g(s*)|, never better, so for them the floor is a rigorous
upper bound of E|g(s*)|: E|s* - s| <= min(λ, c1 - c0) for both mechanisms
(|s* - s| <= c1 - c0; truncation keeps each side an exponential truncated
to a finite range, mean <= λ; clamping only shortens |X - s|, and E|X - s|
= λ), and E|s*| <= |s| + min(λ, c1 - c0).
"""

from __future__ import annotations

import math
from fractions import Fraction as Fr

import mpmath
import pytest
import sympy as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dpcheck.errors import InputError
from dpcheck.numeric import quadrature as qd
from dpcheck.numeric.mp import QUANTITY_NAMES, compiled, evaluate
from dpcheck.numeric.params import MechanismParams, parse_assignments, parse_number
from dpcheck.numeric.quadrature import law_masses, quad_expectation, quad_quantity
from dpcheck.numeric.rigorous import NotRigorous, arb_eval, digits, sign

# --------------------------------------------------------------------------- helpers

BOXES = [(Fr(0), Fr(1)), (Fr(-3), Fr(7, 2))]
#: log10(λ / (c1 - c0))
SCALES = [-6, -3, -1, 0, 1, 3, 6]
SCALES_DENSE = [-5, -4, -2, Fr(-1, 2), Fr(1, 2), 2, 4, 5]


def _mpf(q: Fr) -> mpmath.mpf:
    return mpmath.mpf(q.numerator) / q.denominator


def s_values(c0: Fr, c1: Fr) -> list[Fr]:
    """s at, near (1e-9·R) and between the bounds."""
    r = c1 - c0
    return [c0, c0 + r / 10**9, c0 + r / 3, (c0 + c1) / 2, c1 - r / 10**9, c1]


def lam_for(c0: Fr, c1: Fr, log10_ratio: int | Fr) -> Fr:
    r = c1 - c0
    if isinstance(log10_ratio, int):
        return r * Fr(10) ** log10_ratio
    # a non-integer power of 10, rounded to an exact rational
    return r * Fr(mpmath.nstr(mpmath.power(10, _mpf(log10_ratio)), 30))


def floor(name: str, p: MechanismParams) -> Fr:
    """A bound on E|g(s*)| for the quantities that can cancel; 0 for the others."""
    quantity = name.partition(".")[2]
    spread = min(p.lam, p.c1 - p.c0)
    if quantity == "bias":
        return spread
    if quantity == "mean":
        return abs(p.s) + spread
    return Fr(0)


def assert_agree(name: str, p: MechanismParams, closed, quad, digits_: int) -> None:
    with mpmath.workdps(digits_ + 20):
        tol = mpmath.mpf(10) ** (-digits_) * max(abs(closed), _mpf(floor(name, p)))
        diff = abs(closed - quad)
        assert diff <= tol, (
            f"{name} at s={p.s}, c0={p.c0}, c1={p.c1}, lam={p.lam}: closed form"
            f" {mpmath.nstr(closed, digits_ + 5)} vs quadrature {mpmath.nstr(quad, digits_ + 5)}"
            f" (|diff| = {mpmath.nstr(diff, 5)}, tolerance {mpmath.nstr(tol, 5)})"
        )


@pytest.fixture(scope="module", autouse=True)
def _compiled() -> None:
    """Compile the closed forms once (SymPy derivation, a few seconds)."""
    for name in QUANTITY_NAMES:
        compiled(name)


def _check_point(p: MechanismParams, digits_: int) -> None:
    for name in QUANTITY_NAMES:
        assert_agree(name, p, evaluate(name, p, dps=50), quad_quantity(name, p, dps=50), digits_)


# --------------------------------------------------------------------------- (a) grid


def test_names_match() -> None:
    assert qd.QUAD_NAMES == QUANTITY_NAMES


@pytest.mark.parametrize("box", BOXES, ids=["unit", "shifted"])
@pytest.mark.parametrize("log10_ratio", SCALES, ids=[f"lam=R*1e{k}" for k in SCALES])
def test_grid_closed_form_vs_quadrature(box: tuple[Fr, Fr], log10_ratio: int) -> None:
    c0, c1 = box
    lam = lam_for(c0, c1, log10_ratio)
    for s in s_values(c0, c1):
        _check_point(MechanismParams(s, c0, c1, lam), 30)


@pytest.mark.slow
@pytest.mark.parametrize(
    "box", BOXES + [(Fr(-(10**6)), Fr(-(10**6) + 1))], ids=["unit", "shifted", "far"]
)
@pytest.mark.parametrize("log10_ratio", SCALES_DENSE, ids=[f"lam=R*10^{k}" for k in SCALES_DENSE])
def test_dense_grid_closed_form_vs_quadrature(box: tuple[Fr, Fr], log10_ratio: int | Fr) -> None:
    c0, c1 = box
    r = c1 - c0
    lam = lam_for(c0, c1, log10_ratio)
    extra = [c0 + r / 10**6, c0 + r * Fr(1, 7), c1 - r * Fr(2, 9), c1 - r / 10**6]
    for s in s_values(c0, c1) + extra:
        _check_point(MechanismParams(s, c0, c1, lam), 30)


def test_bias_cancellation_is_reported_absolutely() -> None:
    """The documented limit: a bias of 2.5e-144766 is 0 to quadrature."""
    p = MechanismParams(Fr(1, 3), Fr(0), Fr(1), Fr(1, 10**6))
    closed = evaluate("truncated.bias", p, dps=50)
    quad = quad_quantity("truncated.bias", p, dps=50)
    assert 0 < closed < mpmath.mpf(10) ** -144000
    assert abs(quad) < mpmath.mpf(10) ** -60 * _mpf(p.lam)
    # the exact value is e^{-t0}·(...) + e^{-t1}·(...): same sign, the closed form
    # sees it; at the midpoint it is exactly 0 by symmetry
    mid = MechanismParams(Fr(1, 2), Fr(0), Fr(1), Fr(1, 10))
    assert evaluate("bit.bias", mid, dps=50) == 0
    assert abs(quad_quantity("bit.bias", mid, dps=50)) < mpmath.mpf(10) ** -60


# --------------------------------------------------------------------------- (b) hypothesis


@st.composite
def params_strategy(draw: st.DrawFn) -> MechanismParams:
    c0 = Fr(draw(st.integers(-50, 50)), draw(st.integers(1, 8)))
    width = Fr(draw(st.integers(1, 400)), draw(st.integers(1, 40)))
    c1 = c0 + width
    # log10(λ/R) in [-6, 6]: 10^k · m with k in [-6, 5] and m in [1, 10]
    k = draw(st.integers(-6, 5))
    mantissa = Fr(draw(st.integers(100, 1000)), 100)
    lam = width * Fr(10) ** k * mantissa
    where = draw(st.sampled_from(["c0", "c1", "near c0", "near c1", "inside", "inside"]))
    if where == "c0":
        s = c0
    elif where == "c1":
        s = c1
    elif where == "near c0":
        s = c0 + width / 10 ** draw(st.integers(3, 12))
    elif where == "near c1":
        s = c1 - width / 10 ** draw(st.integers(3, 12))
    else:
        s = c0 + width * Fr(draw(st.integers(0, 1000)), 1000)
    return MechanismParams(s, c0, c1, lam)


@settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(params_strategy())
def test_random_params_closed_form_vs_quadrature(p: MechanismParams) -> None:
    _check_point(p, 25)


# --------------------------------------------------------------------------- (c) masses


@pytest.mark.parametrize("log10_ratio", [-6, -1, 0, 6])
@pytest.mark.parametrize("where", ["c0", "third", "c1"])
def test_masses_sum_to_one(log10_ratio: int, where: str) -> None:
    c0, c1 = Fr(-3), Fr(7, 2)
    lam = lam_for(c0, c1, log10_ratio)
    s = {"c0": c0, "third": c0 + (c1 - c0) / 3, "c1": c1}[where]
    p = MechanismParams(s, c0, c1, lam)
    bit = law_masses("bit", p, dps=50)
    with mpmath.workdps(70):
        total = bit["below"] + bit["inside"] + bit["above"]
        assert abs(total - 1) < mpmath.mpf(10) ** -45
        # the tail masses to full relative precision, even at 10^-144764:
        # P(X <= c0) = e^{-t0}/2, P(X >= c1) = e^{-t1}/2 (Liu 2019, Appendix B p1, p2)
        t0 = (_mpf(s) - _mpf(c0)) / _mpf(lam)
        t1 = (_mpf(c1) - _mpf(s)) / _mpf(lam)
        for key, t in (("below", t0), ("above", t1)):
            expected = mpmath.exp(-t) / 2
            assert abs(bit[key] - expected) <= mpmath.mpf(10) ** -45 * expected, key
        truncated = law_masses("truncated", p, dps=50)
        assert abs(truncated["renormalised"] - 1) < mpmath.mpf(10) ** -45
        assert abs(quad_expectation("truncated", lambda x: mpmath.mpf(1), p) - 1) < 1e-45
        assert abs(quad_expectation("bit", lambda x: mpmath.mpf(1), p) - 1) < 1e-45


def test_quad_expectation_of_other_functions() -> None:
    """E[e^{s*}] for the BIT law against its closed form, built here by hand."""
    p = MechanismParams(Fr(1, 4), Fr(0), Fr(1), Fr(1, 3))
    got = quad_expectation("bit", mpmath.exp, p, dps=40)
    with mpmath.workdps(60):
        s, lam = mpmath.mpf(1) / 4, mpmath.mpf(1) / 3
        below = mpmath.exp(-s / lam) / 2
        above = mpmath.exp(-(1 - s) / lam) / 2
        # ∫ e^x e^{-|x-s|/λ}/(2λ) dx over [0, s] and [s, 1]
        left = mpmath.exp(s) / (2 * lam) * (1 - mpmath.exp(-s * (1 + 1 / lam))) / (1 + 1 / lam)
        right = (
            mpmath.exp(s) / (2 * lam) * (1 - mpmath.exp(-(1 - s) * (1 / lam - 1))) / (1 / lam - 1)
        )
        expected = below + left + right + above * mpmath.e
        assert abs(got - expected) < mpmath.mpf(10) ** -40 * expected


def test_split_points_surround_the_spike() -> None:
    with mpmath.workdps(50):
        s, lam = mpmath.mpf(1) / 3, mpmath.mpf(10) ** -6
        pts = qd.split_points(mpmath.mpf(0), mpmath.mpf(1), s, lam, 70)
        assert pts[0] == 0 and pts[-1] == 1 and s in pts
        for k in range(3):
            assert any(abs(q - (s + lam * 10**k)) < 1e-40 for q in pts)
            assert any(abs(q - (s - lam * 10**k)) < 1e-40 for q in pts)
        assert pts == sorted(pts)
        tail = qd.split_points(mpmath.ninf, mpmath.mpf(0), s, lam, 70)
        assert tail[0] == mpmath.ninf and tail[-1] == 0 and -lam in tail


def test_quadrature_input_errors() -> None:
    p = MechanismParams(Fr(0), Fr(0), Fr(1), Fr(1))
    with pytest.raises(InputError, match="truncated.median"):
        quad_quantity("truncated.median", p)
    with pytest.raises(InputError, match="gaussian"):
        quad_expectation("gaussian", lambda x: x, p)
    with pytest.raises(InputError, match="dps=0"):
        quad_quantity("bit.mean", p, dps=0)


# --------------------------------------------------------------------------- (d) rigorous

x, y = sp.symbols("x y", real=True)


@pytest.mark.parametrize(
    ("expr", "env"),
    [
        (sp.exp(x / 3) + sp.log(y) ** 2, {x: 1, y: Fr(7, 2)}),
        (sp.Abs(x - y) * sp.pi - sp.E / y, {x: Fr(-2, 3), y: Fr(5, 7)}),
        ((x + 1) ** -3 + y ** Fr(1, 2) + sp.Max(x, y), {x: Fr(1, 10**6), y: 2}),
        (sp.gamma(x) - sp.Min(x, y), {x: Fr(9, 2), y: Fr(1, 3)}),
    ],
)
def test_arb_eval_matches_mpmath(expr: sp.Expr, env: dict) -> None:
    ball = arb_eval(expr, env, dps=40)
    with mpmath.workdps(60):
        value = sp.lambdify(list(env), expr, modules="mpmath")(*(_mpf(Fr(v)) for v in env.values()))
        mid = mpmath.mpf(ball.mid().str(60, radius=False))
        rad = mpmath.mpf(ball.rad().str(10, radius=False))
        assert rad < mpmath.mpf(10) ** -35 * max(1, abs(value))
        assert abs(mid - value) <= rad + mpmath.mpf(10) ** -55
    assert digits(ball, 20)[:15] == mpmath.nstr(value, 20)[:15]


def test_arb_eval_of_a_derived_quantity_matches_evaluate() -> None:
    from dpcheck.symbolic import laplace_family as lf
    from dpcheck.symbolic.symbols import c0, c1, lam, s

    p = MechanismParams(Fr(1, 5), Fr(-1), Fr(2), Fr(3, 4))
    env = {s: p.s, c0: p.c0, c1: p.c1, lam: p.lam}
    for mechanism in ("truncated", "bit"):
        ball = arb_eval(lf.quantity(mechanism, "mse"), env, dps=60)
        with mpmath.workdps(70):
            value = evaluate(f"{mechanism}.mse", p, dps=50)
            assert abs(mpmath.mpf(ball.mid().str(60, radius=False)) - value) < 1e-45


def test_sign_decides_and_reports_undecidable() -> None:
    assert sign(sp.exp(x / 3) - 1, {x: Fr(1, 10**30)}) == 1
    assert sign(sp.exp(x) - 1, {x: Fr(-1, 10**30)}) == -1
    # exp(0) is an exact ball 1, so exp(x) - 1 at x = 0 is an exact zero ball: 0
    assert sign(sp.exp(x) - 1, {x: 0}) == 0
    # an exact zero ball needs exact (dyadic) inputs: 1/4 - 1/4 is 0, but 1/3 is
    # a ball of nonzero radius in binary, so 1/3 - 1/3 straddles 0 and is None
    assert sign(x - y, {x: Fr(1, 4), y: Fr(1, 4)}) == 0
    assert sign(x - y, {x: Fr(1, 3), y: Fr(1, 3)}) is None
    # a true zero built from inexact balls straddles 0 at every precision: None
    assert sign(sp.log(x) + sp.log(y) - sp.log(x * y), {x: 2, y: 3}) is None
    # a nonzero difference below the first precision is found by raising it (<= 8x)
    assert sign(sp.exp(x) - sp.exp(y), {x: Fr(1, 3), y: Fr(1, 3) + Fr(1, 10**80)}) == -1
    # ... but not beyond
    assert sign(sp.exp(x) - sp.exp(y), {x: Fr(1, 3), y: Fr(1, 3) + Fr(1, 10**400)}) is None


def test_arb_eval_refuses_what_it_cannot_enclose() -> None:
    with pytest.raises(NotRigorous, match="sin"):
        arb_eval(sp.sin(x), {x: 1})
    with pytest.raises(NotRigorous, match="floating"):
        arb_eval(x + sp.Float(0.5), {x: 1})
    with pytest.raises(NotRigorous, match="y"):
        arb_eval(x + y, {x: 1})


# --------------------------------------------------------------------------- (e) params


def test_from_mapping_with_lam_and_with_epsilon() -> None:
    p = MechanismParams.from_mapping({"s": "0.3", "c0": "0", "c1": "1", "lam": "1e-6"})
    assert p == MechanismParams(Fr(3, 10), Fr(0), Fr(1), Fr(1, 10**6))
    q = MechanismParams.from_mapping(
        {"s": "1/3", "c0": -1, "c1": 2.5, "epsilon": "0.5", "sensitivity": "3/2"}
    )
    assert q.lam == Fr(3) and q.s == Fr(1, 3) and q.c1 == Fr(5, 2)
    assert MechanismParams.from_mapping({"s": Fr(1), "c0": 0, "c1": 1, "lam": 2}).s == 1


@pytest.mark.parametrize(
    ("values", "named"),
    [
        ({"s": "0", "c0": "0", "c1": "1", "lam": "0"}, "lam=0"),
        ({"s": "0", "c0": "0", "c1": "1", "lam": "-2"}, "lam=-2"),
        ({"s": "1", "c0": "1", "c1": "1", "lam": "1"}, "c0=1"),
        ({"s": "1", "c0": "2", "c1": "1", "lam": "1"}, "c0=2"),
        ({"s": "3/2", "c0": "0", "c1": "1", "lam": "1"}, "s=3/2"),
        ({"s": "-0.1", "c0": "0", "c1": "1", "lam": "1"}, "s=-1/10"),
        ({"s": "nan", "c0": "0", "c1": "1", "lam": "1"}, "'nan'"),
        ({"s": "0", "c0": "0", "c1": "1", "lam": "inf"}, "'inf'"),
        ({"s": "0", "c0": "0", "c1": "1", "lam": "1/0"}, "'1/0'"),
        ({"s": "0", "c0": "0", "c1": "1", "lam": float("nan")}, "nan"),
        ({"s": "0", "c0": "0", "c1": "1", "lam": True}, "True"),
        ({"s": "0", "c0": "0x", "c1": "1", "lam": "1"}, "'0x'"),
        ({"c0": "0", "c1": "1", "lam": "1"}, "'s'"),
        ({"s": "0", "c1": "1", "lam": "1"}, "'c0'"),
        ({"s": "0", "c0": "0", "c1": "1"}, "lam"),
        ({"s": "0", "c0": "0", "c1": "1", "epsilon": "1"}, "sensitivity"),
        ({"s": "0", "c0": "0", "c1": "1", "lam": "1", "mu": "2"}, "'mu'"),
        ({"s": "0", "c0": "0", "c1": "1", "lam": "1", "epsilon": "1"}, "not both"),
        ({"s": "0", "c0": "0", "c1": "1", "epsilon": "0", "sensitivity": "1"}, "epsilon=0"),
        ({"s": "0", "c0": "0", "c1": "1", "epsilon": "1", "sensitivity": "-1"}, "sensitivity=-1"),
    ],
)
def test_from_mapping_errors_name_the_bad_value(values: dict, named: str) -> None:
    with pytest.raises(InputError) as info:
        MechanismParams.from_mapping(values)
    assert named in str(info.value)
    assert "\n" not in str(info.value)


def test_parse_number_is_exact() -> None:
    assert parse_number("x", "0.1") == Fr(1, 10)
    assert parse_number("x", " 3/7 ") == Fr(3, 7)
    assert parse_number("x", "1e-6") == Fr(1, 10**6)
    assert parse_number("x", 0.5) == Fr(1, 2)
    with pytest.raises(InputError, match="x=inf"):
        parse_number("x", math.inf)


def test_parse_assignments() -> None:
    assert parse_assignments(["s=0.3", " lam = 1 "]) == {"s": "0.3", "lam": "1"}
    for bad in (["s"], ["=1"], ["s="], ["s=  "]):
        with pytest.raises(InputError) as info:
            parse_assignments(bad)
        assert repr(bad[0]) in str(info.value)
    with pytest.raises(InputError, match="'s' given twice"):
        parse_assignments(["s=1", "s=2"])


@pytest.mark.slow
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    name=st.sampled_from(QUANTITY_NAMES),
    scale_exp=st.one_of(
        st.sampled_from([-8, 0, 8, 100, 300, 308, 309, 400]),
        st.floats(min_value=-8, max_value=400, allow_nan=False),
    ),
    at=st.sampled_from([0, 1, 2, 3, 4]),
    offset_exp=st.sampled_from([0, 3, 40]),
)
def test_adaptive_precision_agrees_with_quadrature_at_every_scale(name, scale_exp, at, offset_exp):
    """issue 17: eval at λ/R from 1e-8 to 1e400 (where float64 has long overflowed) agrees
    with the independent quadrature route, also with [c0, c1] far from 0."""
    whole = math.floor(scale_exp)
    lam = Fr(10) ** whole * Fr(10 ** (scale_exp - whole))
    c0 = Fr(10) ** offset_exp if offset_exp else Fr(0)
    params = MechanismParams(c0 + Fr(at, 4), c0, c0 + 1, lam)
    with mpmath.workdps(40):
        exact = evaluate(name, params, 20)
        route = quad_quantity(name, params, 20)
        size = abs(exact)
        scale = {"bias": 1, "mean": 1}.get(name.split(".")[1], 0)
        lam_ = mpmath.mpf(lam.numerator) / lam.denominator
        floor = mpmath.mpf(10) ** -18 * (scale or min(1, lam_**2))
        assert abs(exact - route) <= mpmath.mpf(10) ** -15 * size + floor, (exact, route)
