"""Ball-arithmetic evaluation of SymPy expressions (dpcheck.laws.arb_eval).

The independent route is SymPy's own ``evalf`` (mpmath) at 80 digits on the exact
expression after substituting exact rationals; a ball "contains" that reference if it
overlaps the reference widened by 1e-70 relative -- far below the ball radii at
prec 200 (~1e-58), so this is containment of the exact value in all but name.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from fractions import Fraction

import flint
import mpmath
import pytest
import sympy
from flint import arb
from hypothesis import example, given, settings
from hypothesis import strategies as st

from dpcheck.errors import InputError
from dpcheck.laws import arb_eval, expr_compile, numpy_eval
from dpcheck.laws.arb_eval import compile_arb, evaluate_arb, hull

z, b, s, mu, a, eps, D, g, y = sympy.symbols("z b s mu a eps D g y", real=True)

LAPLACE = sympy.exp(-sympy.Abs(z) / b) / (2 * b)
GAUSS = sympy.exp(-((z - mu) ** 2) / (2 * s**2)) / (s * sympy.sqrt(2 * sympy.pi))
KERNEL = sympy.exp(-(z**2) / (2 * s**2))
GAUSS_CDF = (1 + sympy.erf((z - mu) / (s * sympy.sqrt(2)))) / 2
GAUSS_TAIL = sympy.erfc(z / (s * sympy.sqrt(2))) / 2 - sympy.erf(z / s) * sympy.E / 7
STAIR_ARG = sympy.Abs(z) / D + 1 - g
STAIRCASE = a * sympy.exp(-eps * sympy.floor(STAIR_ARG))
UNIFORM = sympy.Piecewise((1 / (2 * b), (z >= -b) & (z <= b)), (0, True))

SETTINGS = settings(deadline=None, max_examples=100, derandomize=True)


def precision(bits: int):  # type: ignore[no-untyped-def]
    """flint's own context manager for the working precision."""
    return flint.ctx.workprec(bits)


def rationals(lo: int | Fraction, hi: int | Fraction, den: int = 1000) -> st.SearchStrategy:
    return st.fractions(min_value=lo, max_value=hi, max_denominator=den)


positive = rationals(Fraction(1, 100), 100).filter(lambda q: q > 0)


def exact(expr: sympy.Expr, variables: Sequence[sympy.Symbol], point: Sequence[Fraction]):
    """The exact value at a rational point (Floats become their exact binary rationals)."""
    expr = expr.xreplace({f: sympy.Rational(f) for f in expr.atoms(sympy.Float)})
    return expr.subs(
        {
            v: sympy.Rational(p.numerator, p.denominator)
            for v, p in zip(variables, point, strict=True)
        }
    )


def reference(value: sympy.Expr) -> arb:
    """The 80-digit evalf of an exact value, as a ball of relative radius 1e-70."""
    ref = sympy.Float(sympy.N(value, 80), 80)
    sign, man, exp, _ = ref._mpf_
    mid = arb((-man if sign else man, exp))
    return mid + arb(0, 1e-70) * max(abs(mid), arb(1))


def encloses(ball: arb, value: sympy.Expr) -> bool:
    return ball.overlaps(reference(value))


def assert_encloses_at_points(
    f: Callable[..., arb],
    expr: sympy.Expr,
    variables: Sequence[sympy.Symbol],
    points: Sequence[Sequence[Fraction]],
) -> None:
    """The containment check: f's ball at each exact point contains the exact value."""
    with precision(200):
        for point in points:
            ball = f(*point)
            assert encloses(ball, exact(expr, variables, point)), (point, ball)


def assert_encloses_on_box(
    f: Callable[..., arb],
    expr: sympy.Expr,
    variables: Sequence[sympy.Symbol],
    box: Sequence[tuple[Fraction, Fraction]],
    steps: int = 8,
) -> arb:
    """Interval semantics: one ball over the box contains the value at sampled points."""
    with precision(200):
        balls = [
            arb(float((lo + hi) / 2), float((hi - lo) / 2)) for lo, hi in box
        ]  # dyadic endpoints: exact as floats
        result = f(*balls)
        grids = [sorted({lo + (hi - lo) * k / steps for k in range(steps + 1)}) for lo, hi in box]
        for point in itertools.product(*grids):
            assert encloses(result, exact(expr, variables, point)), (point, result)
    return result


def check_point(expr, variables, point, tight: bool = True) -> None:
    f = compile_arb(expr, variables)
    with precision(200):
        ball = f(*point)
        assert encloses(ball, exact(expr, variables, point)), (point, ball)
        if tight:
            assert ball.rad() < arb(1e-30), (point, ball)


# ---------------------------------------------------------------- point values


@SETTINGS
@given(rationals(-50, 50), positive)
@example(Fraction(0), Fraction(1, 3))
def test_laplace_density(zv: Fraction, bv: Fraction) -> None:
    check_point(LAPLACE, [z, b], [zv, bv])


@SETTINGS
@given(rationals(-20, 20), rationals(-5, 5), positive)
def test_gaussian_density(zv: Fraction, mv: Fraction, sv: Fraction) -> None:
    check_point(GAUSS, [z, mu, s], [zv, mv, sv])


@SETTINGS
@given(st.integers(-1000, 1000), positive)
def test_discrete_gaussian_kernel(zv: int, sv: Fraction) -> None:
    check_point(KERNEL, [z, s], [Fraction(zv), sv])


@SETTINGS
@given(rationals(-10, 10), rationals(-3, 3), rationals(Fraction(1, 10), 10))
def test_erf_erfc(zv: Fraction, mv: Fraction, sv: Fraction) -> None:
    check_point(GAUSS_CDF, [z, mu, s], [zv, mv, sv])
    check_point(GAUSS_TAIL, [z, s], [zv, sv])


@SETTINGS
@given(
    rationals(-30, 30, 100),
    rationals(Fraction(1, 10), 10),
    rationals(Fraction(1, 10), 5, 100).filter(lambda q: q > 0),
    rationals(Fraction(1, 10), 4, 100).filter(lambda q: q > 0),
    rationals(0, 1, 100),
)
@example(Fraction(2), Fraction(1), Fraction(1, 3), Fraction(1, 2), Fraction(0))  # integer step
@example(Fraction(3, 2), Fraction(1), Fraction(1, 3), Fraction(1, 2), Fraction(1, 4))
def test_staircase(zv, av, ev, dv, gv) -> None:
    step = STAIR_ARG.subs({z: zv, D: dv, g: gv})
    point = [zv, av, ev, dv, gv]
    check_point(STAIRCASE, [z, a, eps, D, g], point, tight=not step.is_integer)


@SETTINGS
@given(rationals(-10, 10, 50), rationals(Fraction(1, 10), 5, 50).filter(lambda q: q > 0))
@example(Fraction(1, 3), Fraction(1, 3))
@example(Fraction(-7, 3), Fraction(7, 3))
@example(Fraction(5, 4), Fraction(5, 4))
def test_uniform_piecewise(zv: Fraction, bv: Fraction) -> None:
    check_point(UNIFORM, [z, b], [zv, bv], tight=abs(zv) != bv)


def test_other_nodes_and_constants() -> None:
    expr = (
        sympy.Min(z, y, 1)
        + sympy.Max(z, y) * sympy.pi
        + sympy.sign(z)
        + sympy.ceiling(z / 3)
        + sympy.Heaviside(y - 1)
        + sympy.log(1 + z**2)
        + sympy.Float("0.1") * sympy.sqrt(y**2 + 1)
        + sympy.Rational(-3, 7) ** 5
        + 2**y
        + (1 + y**2) ** z
        + (z - y) ** 3
    )
    for zv, yv in itertools.product([Fraction(-5, 3), Fraction(0), Fraction(7, 2)], repeat=2):
        check_point(expr, [z, y], [zv, yv])


def test_float_is_its_exact_binary_value() -> None:
    ball = evaluate_arb(sympy.Float("0.1"), {})
    assert ball.is_exact() and ball == arb(3602879701896397) / arb(2**55)


def test_precision_is_read_at_call_time() -> None:
    f = compile_arb(sympy.pi * z / 3, [z])
    with precision(53):
        low = f(1)
    with precision(200):
        high = f(1)
    assert low.rad() > arb(1e-20) and high.rad() < arb(1e-55) and low.overlaps(high)


def test_inputs_accepted() -> None:
    f = compile_arb(z + y, [z, y])
    assert f(1, Fraction(1, 2)).contains(arb(1.5)) and f(arb(1), 0.5) == arb(1.5)
    with pytest.raises(TypeError):
        f(1)
    with pytest.raises(TypeError):
        f("1", 2)


def test_hull() -> None:
    h = hull(arb(1), arb(3))
    assert h.contains(1) and h.contains(3) and h.contains(2)
    assert h.lower() > arb(0.99) and h.upper() < arb(3.01)


# ---------------------------------------------------------------- interval semantics

F = Fraction


@pytest.mark.parametrize(
    ("expr", "variables", "box"),
    [
        (sympy.floor(z), [z], [(F(7, 8), F(9, 8))]),
        (sympy.ceiling(z), [z], [(F(-1, 8), F(1, 8))]),
        (sympy.Abs(z), [z], [(F(-1, 8), F(1, 4))]),
        (LAPLACE, [z, b], [(F(-1, 4), F(1, 4)), (F(1, 2), F(3, 4))]),
        (UNIFORM, [z, b], [(F(7, 8), F(9, 8)), (F(1), F(1))]),
        (UNIFORM, [z, b], [(F(1, 2), F(1, 2)), (F(3, 8), F(5, 8))]),
        (
            STAIRCASE,
            [z, a, eps, D, g],
            [(F(3, 4), F(5, 4)), (F(1),) * 2, (F(1, 2),) * 2, (F(1),) * 2, (F(0),) * 2],
        ),
        (sympy.sign(z), [z], [(F(-1, 2), F(1, 2))]),
        (sympy.Heaviside(z), [z], [(F(-1, 2), F(1, 2))]),
        (sympy.Heaviside(z, 1), [z], [(F(0), F(0))]),
        (sympy.Min(z, 1 - z), [z], [(F(1, 4), F(3, 4))]),
        (sympy.Piecewise((z, sympy.Eq(z, 0) | (z > 1)), (-z - 1, True)), [z], [(F(-1), F(2))]),
        (sympy.Piecewise((1, sympy.Ne(z, 1) & ~(z < 0)), (0, True)), [z], [(F(-1), F(1))]),
    ],
)
def test_interval_semantics(expr, variables, box) -> None:
    assert assert_encloses_on_box(compile_arb(expr, variables), expr, variables, box).is_finite()


@pytest.mark.parametrize("rel", [sympy.Lt, sympy.Le, sympy.Gt, sympy.Ge, sympy.Eq, sympy.Ne])
def test_relations_at_and_across_the_boundary(rel) -> None:
    expr = sympy.Piecewise((2, rel(z, 1)), (3, True))
    assert type(expr.args[0].cond) is rel  # not canonicalised away
    f = compile_arb(expr, [z])
    for point in (F(1, 2), F(1), F(3, 2)):  # exact points: the condition is decided
        assert f(point) == arb(int(exact(expr, [z], [point])))
    across = assert_encloses_on_box(f, expr, [z], [(F(3, 4), F(5, 4))])
    assert across.contains(2) and across.contains(3)


def dyadic_box(lo: int, hi: int) -> st.SearchStrategy:
    ends = st.integers(lo * 16, hi * 16).map(lambda k: Fraction(k, 16))
    return st.tuples(ends, ends).map(lambda pair: tuple(sorted(pair)))


@settings(deadline=None, max_examples=25, derandomize=True)
@given(dyadic_box(-4, 4), dyadic_box(1, 3), dyadic_box(0, 1), dyadic_box(1, 2))
def test_random_boxes(zb, bb, gb, eb) -> None:
    """Random boxes (often across a kink or jump): every sampled value is enclosed."""
    for expr, variables, box, steps in [
        (LAPLACE, [z, b], [zb, bb], 4),
        (UNIFORM, [z, b], [zb, bb], 4),
        (STAIRCASE, [z, a, eps, D, g], [zb, (F(3, 2),) * 2, eb, bb, gb], 2),
        (GAUSS_CDF, [z, mu, s], [zb, gb, bb], 2),
    ]:
        f = compile_arb(expr, variables)
        assert assert_encloses_on_box(f, expr, variables, box, steps).is_finite()


def test_floor_hull_is_tight() -> None:
    ball = compile_arb(sympy.floor(z), [z])(arb(1, 0.1))
    assert ball.contains(0) and ball.contains(1)
    assert ball.lower() > arb(-1e-6) and ball.upper() < arb(1 + 1e-6)


def test_exact_point_on_a_jump_is_exact() -> None:
    assert evaluate_arb(sympy.floor(z), {z: 1}) == arb(1)
    assert evaluate_arb(UNIFORM, {z: 1, b: 1}) == arb(0.5)
    assert evaluate_arb(sympy.Heaviside(z), {z: 0}) == arb(0.5)


# ---------------------------------------------------------------- the checks can fail


def test_mutated_abs_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(arb_eval._UNARY, sympy.Abs, lambda ball: ball)  # wrong: identity
    wrong = compile_arb(LAPLACE, [z, b])
    with pytest.raises(AssertionError):
        assert_encloses_at_points(wrong, LAPLACE, [z, b], [[F(-3, 2), F(1, 3)]])
    with pytest.raises(AssertionError):
        assert_encloses_on_box(wrong, LAPLACE, [z, b], [(F(-3, 4), F(-1, 4)), (F(1), F(1))])
    monkeypatch.undo()
    right = compile_arb(LAPLACE, [z, b])
    assert_encloses_at_points(right, LAPLACE, [z, b], [[F(-3, 2), F(1, 3)]])


def test_mutated_floor_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """A floor of the midpoint is right at every point but not on a ball across a step."""
    monkeypatch.setitem(arb_eval._UNARY, sympy.floor, lambda ball: ball.mid().floor())
    wrong = compile_arb(STAIRCASE, [z, a, eps, D, g])
    box = [(F(3, 4), F(5, 4)), (F(1),) * 2, (F(1, 2),) * 2, (F(1),) * 2, (F(1, 4),) * 2]
    with pytest.raises(AssertionError):
        assert_encloses_on_box(wrong, STAIRCASE, [z, a, eps, D, g], box)


# ---------------------------------------------------------------- refusals


@pytest.mark.parametrize(
    ("expr", "variables", "name"),
    [
        (sympy.besselj(0, z), [z], "besselj"),
        (sympy.zeta(z), [z], "zeta"),
        (z + y, [z], "symbol y"),
        (sympy.exp(z) * sympy.sin(z), [z], "sin"),
        (z < 1, [z], "StrictLessThan"),
        (sympy.Piecewise((1, sympy.Contains(z, sympy.Interval(0, 1))), (0, True)), [z], "Contains"),
        (sympy.oo * z, [z], "Infinity"),
    ],
)
def test_unsupported_raises_one_line(expr, variables, name) -> None:
    with pytest.raises(InputError) as err:
        compile_arb(expr, variables)
    message = str(err.value)
    assert name in message and "\n" not in message and "ball arithmetic" in message


def test_bad_variables() -> None:
    with pytest.raises(InputError):
        compile_arb(z, [z, z])
    with pytest.raises(InputError):
        compile_arb("z", [z])


# ---------------------------------------------------------------- undefined somewhere in the ball


@pytest.mark.parametrize(
    ("expr", "value"),
    [
        (z ** sympy.Rational(1, 3), -8),
        (z ** sympy.Rational(1, 3), arb(0, 0.5)),
        (z ** sympy.Rational(3, 2), arb(0, 0.125)),
        (sympy.sqrt(z), -1),
        (z ** sympy.Float("0.7"), 0),
        (sympy.log(z), arb(0, 1)),
        (1 / z, arb(0, 1)),
        (sympy.Heaviside(sympy.log(z)), -1),
        (sympy.sign(sympy.log(z)), arb(0, 1)),
        (sympy.Piecewise((1, sympy.log(z) > 0), (0, True)), -1),
        (sympy.Piecewise((1, (z > 2) | (sympy.sqrt(z) < 1)), (0, True)), arb(0, 1)),
    ],
)
def test_undefined_somewhere_in_the_ball_is_not_finite(expr, value) -> None:
    assert not compile_arb(expr, [z])(value).is_finite()


def test_powers_of_positive_balls() -> None:
    assert evaluate_arb(z ** sympy.Rational(1, 3), {z: 8}).contains(2)
    assert evaluate_arb(z ** sympy.Rational(3, 2), {z: 4}).contains(8)
    assert evaluate_arb(z**-3, {z: -2}) == arb(-0.125)
    assert evaluate_arb(sympy.sqrt(z), {z: 0}) == arb(0)


# ---------------------------------------------------------------- tanh, sinh, cosh; one walker


def mp_ball(value: mpmath.mpf) -> arb:
    """An mpmath value as an exact arb point."""
    sign, man, exp, _ = value._mpf_
    return arb((-man if sign else man, exp))


@pytest.mark.parametrize(
    ("fn", "ref"), [(sympy.tanh, mpmath.tanh), (sympy.sinh, mpmath.sinh), (sympy.cosh, mpmath.cosh)]
)
def test_hyperbolic_against_mpmath_at_50_digits(fn, ref) -> None:
    f = compile_arb(fn(z), [z])
    for point in (F(-41, 2), F(-1, 3), F(0), F(1, 7), F(5, 2), F(30)):
        with mpmath.workdps(50):
            want = ref(mpmath.mpf(point.numerator) / point.denominator)
        with precision(200):  # agrees to 50 digits
            assert (f(point) - mp_ball(want)).abs_upper() <= arb(10) ** -48 * max(
                mp_ball(abs(want)), arb(1)
            ), (point, f(point), want)
        with precision(53):  # a wider ball that encloses the 50-digit value
            ball = f(point)
            assert ball.contains(mp_ball(want)), (point, ball, want)
    box = assert_encloses_on_box(f, fn(z), [z], [(F(-1, 2), F(3, 4))])
    assert box.is_finite()


def test_both_backends_share_one_walker_and_whitelist(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[object] = []
    walk = expr_compile.compile_tree
    monkeypatch.setattr(
        expr_compile, "compile_tree", lambda e, i, be: seen.append(be) or walk(e, i, be)
    )
    compile_arb(sympy.tanh(z), [z])
    numpy_eval.compile_numpy(sympy.tanh(z), [z])
    assert seen == [arb_eval._BACKEND, numpy_eval._BACKEND]
    assert all(expr_compile.Backend in type(be).__mro__ for be in seen)
    for table in ("_UNARY", "_BINARY", "_NARY", "_REL"):
        assert getattr(arb_eval, table).keys() == getattr(numpy_eval, table).keys(), table
    assert not hasattr(arb_eval, "_compile") and not hasattr(numpy_eval, "_compile")
