"""The float64 evaluator of SymPy expressions (dpcheck.laws.numpy_eval) against SymPy's own
30-digit evaluation, and the real-line samplers of the law objects through
dpcheck.testing (issue 35)."""

from __future__ import annotations

from fractions import Fraction as F

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from dpcheck.errors import InputError
from dpcheck.laws import numpy_eval, registry
from dpcheck.laws.float64 import sampler
from dpcheck.testing import assert_sampler_law

z, b, g = sp.symbols("z b g", real=True)
EXPRESSIONS = [
    sp.exp(-sp.Abs(z) / b) / (2 * b),
    sp.exp(-(z**2) / (2 * b**2)) / (b * sp.sqrt(2 * sp.pi)),
    sp.erfc(z / (sp.sqrt(2) * b)) / 2,
    sp.exp(-g * sp.floor(sp.Abs(z) / b + sp.Rational(1, 2))),
    sp.Piecewise((1 / (2 * b), sp.Abs(z) <= b), (0, True)),
    sp.Max(z, b) - sp.Min(z, -b) + sp.Heaviside(z),
    sp.tanh(1 / (2 * b)) * sp.uppergamma(sp.Rational(1, 4), z**4),
]


def agrees(f, expr, point) -> bool:
    """Within 1e-13 relative, widened by the expression's condition number: float64 rounds
    the inputs of each operation, and erfc(x) deep in its tail multiplies a relative error
    of its argument by about 2x^2 (e.g. x = 19.4: 750)."""
    got = float(f(*point))
    at = dict(zip((z, b, g), point, strict=True))
    ref = sp.N(expr.subs(at), 30)
    cond = 0.0
    for v in (z, b, g):
        term = sp.N((v * sp.diff(expr, v) / expr).subs(at), 15) if expr.has(v) else sp.S.Zero
        if term.is_real and term.is_finite:  # (jumps: no derivative, and no widening)
            cond += abs(float(term))
    tol = 1e-13 + 8e-16 * cond
    return abs(got - float(ref)) <= tol * max(1e-300, abs(float(ref)))


@settings(max_examples=100, deadline=None)
@given(
    st.integers(0, len(EXPRESSIONS) - 1),
    st.floats(-8, 8, allow_nan=False).filter(lambda v: abs(v) > 1e-3),
    st.floats(0.1, 5),
    st.floats(0.1, 3),
)
def test_against_sympy_at_30_digits(i, zv, bv, gv):
    expr = EXPRESSIONS[i]
    f = numpy_eval.compile_numpy(expr, [z, b, g])
    # away from jumps (floor, Piecewise, Heaviside): the value's side is not at stake here
    assert agrees(f, expr, (zv, bv, gv))


def test_broadcasting_and_jump_sides():
    f = numpy_eval.compile_numpy(EXPRESSIONS[4], [z, b])
    out = f(np.array([[-1.0], [1.0], [1.5]]), np.array([1.0, 2.0]))
    assert out.shape == (3, 2)
    assert out[0, 0] == 0.5 and out[2, 0] == 0.0 and out[2, 1] == 0.25  # |z| <= b includes b
    h = numpy_eval.compile_numpy(sp.Heaviside(z, 1), [z])
    assert h(0.0) == 1.0 and h(-0.0 - 1e-300) == 0.0


def test_a_mutated_abs_is_caught(monkeypatch):
    monkeypatch.setitem(numpy_eval._UNARY, sp.Abs, lambda x: x)
    f = numpy_eval.compile_numpy(EXPRESSIONS[0], [z, b, g])
    assert not agrees(f, EXPRESSIONS[0], (-1.5, 1.0, 1.0))


@pytest.mark.parametrize(
    ("expr", "variables", "word"),
    [(sp.besselj(0, z), [z], "besselj"), (z + b, [z], "symbol b"), (sp.sin(z), [z], "sin")],
)
def test_unsupported_is_one_line(expr, variables, word):
    with pytest.raises(InputError, match=word) as err:
        numpy_eval.compile_numpy(expr, variables)
    assert "\n" not in str(err.value)


def test_a_million_gaussian_densities_in_well_under_a_second():
    import time

    f = numpy_eval.compile_numpy(EXPRESSIONS[1], [z, b])
    x = np.linspace(-10, 10, 10**6)
    start = time.perf_counter()
    f(x, 2.0)
    assert time.perf_counter() - start < 1.0


@pytest.mark.parametrize(
    ("name", "values"), [("laplace", {"lam": 2}), ("gaussian", {"sigma": 3}), ("uniform", {"b": 2})]
)
def test_real_line_samplers_pass_and_a_wider_scale_fails(name, values):
    law = registry.get(name)
    draw = sampler(law, {k: F(v) for k, v in values.items()})
    x = draw(np.random.default_rng(20261128), 400_000)
    assert_sampler_law(x + 1.5, law, s=1.5, **values)
    with pytest.raises(AssertionError, match="do not follow"):
        assert_sampler_law(x * 1.03 + 1.5, law, s=1.5, **values)
