"""Second, independent transcription of Liu (2019) against ``dpcheck.papers.liu2019``.

Every printed formula is re-typed below as a plain mpmath function, read again
from the paper text (000 = arXiv LaTeX, 002 = journal Markdown), not copied from
the SymPy module.  Both transcriptions are evaluated at two parameter points at
40 significant digits and must agree to 1e-30.

Lines with non-elementary pieces are evaluated as follows:

* the Laplace CDF ``F`` of App. A is replaced, on both sides, by the same
  numeric Lap(s, λ) CDF;
* an unevaluated ``sympy.Integral`` is evaluated with ``.doit()`` (exact
  antiderivative) on the SymPy side and with ``mpmath.quad`` (split at s) on
  the mpmath side;
* ``E_trunc`` ("E(x | x in [c0, c1])") is given the same arbitrary number on
  both sides (it is a free quantity of the printed line).
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import mpmath
import pytest
import sympy as sp
from sympy.core.function import AppliedUndef

from dpcheck.papers import liu2019 as liu
from dpcheck.papers.equation import Equation
from dpcheck.symbolic import symbols as sym

DPS = 40
TOL = mpmath.mpf("1e-30")

# Two parameter points (exact rationals).  c0 < s < c1 in both; x differs in sign.
POINTS: list[dict[str, str]] = [
    {
        "s": "3/10", "c0": "-1/5", "c1": "11/10", "lam": "7/10", "x": "9/20",
        "mu": "1/10", "b": "4/5", "p": "3", "epsilon": "9/10", "delta1": "3/2",
        "delta_j": "2/5", "delta_1j": "1/4", "delta": "7/5", "c": "1",
        "c01": "-1/10", "c11": "3/5", "c02": "1/5", "c12": "9/10",
        "n": "7", "R": "5/2", "E_trunc": "37/100",
    },
    {
        "s": "-2/5", "c0": "-13/10", "c1": "1/5", "lam": "19/10", "x": "-4/5",
        "mu": "1/2", "b": "3/2", "p": "5/2", "epsilon": "1/3", "delta1": "2",
        "delta_j": "3/4", "delta_1j": "5/4", "delta": "9/4", "c": "7/10",
        "c01": "0", "c11": "1/2", "c02": "-1/5", "c12": "4/5",
        "n": "12", "R": "3", "E_trunc": "-1/8",
    },
]  # fmt: skip

SYMBOLS: dict[str, sp.Symbol] = {
    "s": sym.s, "c0": sym.c0, "c1": sym.c1, "lam": sym.lam, "x": sym.x, "mu": sym.mu, "b": sym.b,
    "p": sym.p, "epsilon": sym.epsilon, "delta1": sym.delta1, "delta_j": liu.delta_j,
    "delta_1j": liu.delta_1j, "delta": liu.delta, "c": liu.c, "c01": liu.c01, "c11": liu.c11,
    "c02": liu.c02, "c12": liu.c12, "n": liu.n, "R": liu.R, "E_trunc": liu.E_trunc,
}  # fmt: skip


# --------------------------------------------------------------------------
# numeric evaluation of the SymPy transcriptions
# --------------------------------------------------------------------------


def _rational(text: str) -> sp.Rational:
    q = Fraction(text)
    return sp.Rational(q.numerator, q.denominator)


def _mpf(text: str) -> mpmath.mpf:
    q = Fraction(text)
    return mpmath.mpf(q.numerator) / q.denominator


def _sympy_value(expr: sp.Basic, point: dict[str, str]) -> mpmath.mpf:
    """Evaluate a transcription at ``point`` (F -> Laplace CDF, Integral -> doit)."""
    subs = {sym: _rational(point[name]) for name, sym in SYMBOLS.items()}
    s_val, lam_val = subs[sym.s], subs[sym.lam]

    def laplace_cdf(arg: sp.Basic) -> sp.Expr:
        a = arg.xreplace(subs)
        if a < s_val:
            return sp.exp((a - s_val) / lam_val) / 2
        return 1 - sp.exp((s_val - a) / lam_val) / 2

    expr = expr.replace(
        lambda e: isinstance(e, AppliedUndef) and e.func == liu.F,
        lambda e: laplace_cdf(e.args[0]),
    )

    def integral(e: sp.Integral) -> sp.Expr:
        (var,) = e.variables
        inner = {k: v for k, v in subs.items() if k != var}
        result = e.xreplace(inner).doit()
        assert not result.has(sp.Integral), e
        return result

    expr = expr.replace(lambda e: isinstance(e, sp.Integral), integral)
    value = sp.N(expr.xreplace(subs), DPS + 10)
    assert value.is_number and value.is_real, value
    return mpmath.mpf(str(value))


# --------------------------------------------------------------------------
# the independent mpmath transcription (re-typed from the paper)
# --------------------------------------------------------------------------

exp = mpmath.exp
half = mpmath.mpf(1) / 2


def cdf(v: SimpleNamespace, a: mpmath.mpf) -> mpmath.mpf:
    """Lap(v.s, v.lam) CDF, the value given to the paper's F on both sides."""
    if a < v.s:
        return exp((a - v.s) / v.lam) / 2
    return 1 - exp(-(a - v.s) / v.lam) / 2


Fn = Callable[[SimpleNamespace], Any]


def _mu1_line1(v: SimpleNamespace) -> mpmath.mpf:
    # (F(c1)-F(c0))^{-1} ∫_{c0}^{c1} x/(2λ) exp(-|x-s|/λ) dx
    integrand = lambda t: t / (2 * v.lam) * exp(-abs(t - v.s) / v.lam)  # noqa: E731
    return mpmath.quad(integrand, [v.c0, v.s, v.c1]) / (cdf(v, v.c1) - cdf(v, v.c0))


def _mu1_line2(v: SimpleNamespace) -> mpmath.mpf:
    left = mpmath.quad(lambda t: t / (2 * v.lam) * exp((t - v.s) / v.lam), [v.c0, v.s])
    right = mpmath.quad(lambda t: t / (2 * v.lam) * exp((v.s - t) / v.lam), [v.s, v.c1])
    return (left + right) / (cdf(v, v.c1) - cdf(v, v.c0))


def _inner_line3(v: SimpleNamespace) -> mpmath.mpf:
    # s + ½((λ - c0) exp((c0-s)/λ) - (c1 + λ) exp((s-c1)/λ))
    return v.s + half * (
        (v.lam - v.c0) * exp((v.c0 - v.s) / v.lam) - (v.c1 + v.lam) * exp((v.s - v.c1) / v.lam)
    )


def _den_sc1_first(v: SimpleNamespace) -> mpmath.mpf:
    # 1 - ½exp((s-c1)/λ) - ½exp((c0-s)/λ)  (App. A order)
    return 1 - exp((v.s - v.c1) / v.lam) / 2 - exp((v.c0 - v.s) / v.lam) / 2


def _den_c0s_first(v: SimpleNamespace) -> mpmath.mpf:
    # 1 - ½exp((c0-s)/λ) - ½exp((s-c1)/λ)  (eq (6) / App. B order)
    return 1 - exp((v.c0 - v.s) / v.lam) / 2 - exp((v.s - v.c1) / v.lam) / 2


def _q1(v: SimpleNamespace) -> mpmath.mpf:  # App. B p1
    return exp((v.c0 - v.s) / v.lam) / 2


def _q2(v: SimpleNamespace) -> mpmath.mpf:  # App. B p2
    return exp((v.s - v.c1) / v.lam) / 2


def _trunc_a(v: SimpleNamespace) -> mpmath.mpf:
    return (v.lam - v.c0 + v.s) / 2 * exp((v.c0 - v.s) / v.lam) - (v.lam + v.c1 - v.s) / 2 * exp(
        (v.s - v.c1) / v.lam
    )


def _trunc_b(v: SimpleNamespace) -> mpmath.mpf:
    return (
        2 * v.lam**2
        + v.s**2
        - half * (2 * v.lam**2 - 2 * v.lam * v.c0 + v.c0**2) * exp((v.c0 - v.s) / v.lam)
        - half * (2 * v.lam**2 + 2 * v.lam * v.c1 + v.c1**2) * exp((v.s - v.c1) / v.lam)
    )


def _boxed_trunc(v: SimpleNamespace) -> mpmath.mpf:
    e0, e1 = exp((v.c0 - v.s) / v.lam), exp((v.s - v.c1) / v.lam)
    num = v.lam / 2 * ((v.s - v.c0) * e0 + (v.c1 - v.s) * e1) + half * (
        (v.c0**2 / 4 + (v.c0 / 2 - v.s) ** 2) * e0 + (v.c1**2 / 4 + (v.c1 / 2 - v.s) ** 2) * e1
    )
    return num / (1 - e0 / 2 - e1 / 2)


def _boxed_bit(v: SimpleNamespace) -> mpmath.mpf:
    p1, p2 = _q1(v), _q2(v)
    return (
        -2 * v.lam**2 * p1 - 2 * v.lam**2 * p2 + 2 * v.lam * ((v.c0 - v.s) * p1 + (v.s - v.c1) * p2)
    )


def _trunc_mse_lines(v: SimpleNamespace) -> list[mpmath.mpf]:
    s, lam, c0, c1 = v.s, v.lam, v.c0, v.c1
    p1, p2 = _q1(v), _q2(v)
    d = 1 - p1 - p2
    e0, e1 = exp((c0 - s) / lam), exp((s - c1) / lam)
    de = 1 - e0 / 2 - e1 / 2
    return [
        s**2
        + 2 * lam**2
        - (s**2 + (-lam * c0 + c0**2 / 2 + s * (lam - c0)) * p1
           + (lam * c1 + c1**2 / 2 - s * (lam + c1)) * p2) / d,
        s**2
        + 2 * lam**2
        - (s**2 + lam * (s - c0) * p1 + (c0**2 / 2 - s * c0) * p1
           + lam * (c1 - s) * p2 + (c1**2 / 2 - s * c1) * p2) / d,
        s**2
        + 2 * lam**2
        - (lam * ((s - c0) * p1 + (c1 - s) * p2)
           + ((c0**2 / 2 - s * c0) * p1 + (c1**2 / 2 - s * c1) * p2) + s**2) / d,
        2 * lam**2
        - (lam * ((s - c0) * p1 + (c1 - s) * p2)
           + ((c0**2 / 2 - s * c0) * p1 + (c1**2 / 2 - s * c1) * p2)
           + s**2 * (p1 + p2)) / d,
        2 * lam**2
        - (lam * ((s - c0) * p1 + (c1 - s) * p2)
           + ((c0**2 / 2 - s * c0 + s**2) * p1 + (c1**2 / 2 - s * c1 + s**2) * p2)) / d,
        2 * lam**2
        - (lam / 2) * ((s - c0) * e0 + (c1 - s) * e1) / de
        + half * ((c0**2 / 2 - s * c0 + s**2) * e0 + (c1**2 / 2 - s * c1 + s**2) * e1) / de,
        2 * lam**2 - _boxed_trunc(v),
    ]  # fmt: skip


def _bit_mse_lines(v: SimpleNamespace) -> list[mpmath.mpf]:
    s, lam, c0, c1 = v.s, v.lam, v.c0, v.c1
    p1, p2 = _q1(v), _q2(v)
    return [
        2 * lam**2 + s**2 - 2 * (lam**2 - lam * c0) * p1 - 2 * (lam**2 + lam * c1) * p2
        - (s + lam * (p1 - p2)) ** 2 + (lam * (p1 - p2)) ** 2,
        2 * lam**2 * (1 - p1 - p2) + 2 * lam * ((c0 - s) * p1 + (s - c1) * p2),
        2 * lam**2 + _boxed_bit(v),
    ]  # fmt: skip


def _partc_lines(v: SimpleNamespace) -> list[tuple[mpmath.mpf, mpmath.mpf]]:
    s, lam, c0, c1 = v.s, v.lam, v.c0, v.c1
    e0, e1 = exp((c0 - s) / lam), exp((s - c1) / lam)
    den = _den_sc1_first(v)
    return [
        (((s - c0 + lam) / 2 * e0 - (c1 - s + lam) / 2 * e1) / den, lam / 2 * (e0 - e1)),
        (((s - c0) * e0 - (c1 - s) * e1 + lam / 2 * (e0 - e1) * (e1 + e0)) / den, 0),
        (((s - c0) * e0 - (c1 - s) * e1
          + lam / 2 * (exp(2 * (c0 - s) / lam) - exp(2 * (s - c1) / lam))) / den, 0),
        ((s - c0) * e0 + lam / 2 * exp(2 * (c0 - s) / lam)
         - ((c1 - s) * e1 + lam / 2 * exp(2 * (s - c1) / lam)), 0),
    ]  # fmt: skip


def _e(v: SimpleNamespace, top: mpmath.mpf) -> mpmath.mpf:
    return exp(top / v.lam)


EXPECTED: dict[str, Fn | list[Fn] | dict[str, Fn]] = {
    "INTRO_VARIANCE_BOUNDS": lambda v: (0, v.n * v.R**2 / (4 * (v.n - 1))),
    "SEC22_SD_SQRT": lambda v: mpmath.sqrt((v.R**2) * v.n**-1),
    "EQ2_SCALE": lambda v: v.delta1 / v.epsilon,
    "EQ2_SCALE_JOURNAL": lambda v: v.delta_j / v.epsilon,
    # 000: Γ(p^{-1}), exponent printed without a minus sign
    "EQ3_GG_DENSITY": lambda v: (
        v.p / (2 * v.b * mpmath.gamma(1 / v.p)) * exp((abs(v.x - v.mu) / v.b) ** v.p)
    ),
    "EQ3_GG_DENSITY_JOURNAL": lambda v: (
        v.p / (2 * v.b * mpmath.gamma(v.p / 2)) * exp(-((abs(v.x - v.mu) / v.b) ** v.p))
    ),
    "EQ4_TRUNCATED_DENSITY": lambda v: (
        exp(-abs(v.x - v.s) / v.lam)
        / (2 * v.lam * (1 - _e(v, -(v.c1 - v.s)) / 2 - _e(v, v.c0 - v.s) / 2))
    ),
    "EQ4_NORMALISER": lambda v: 2 * v.lam * (1 - _e(v, -(v.c1 - v.s)) / 2 - _e(v, v.c0 - v.s) / 2),
    "EQ5_BIT_MASS_LOWER": lambda v: _e(v, -(v.s - v.c0)) / 2,
    "EQ5_BIT_DENSITY": lambda v: exp(-abs(v.x - v.s) / v.lam) / (2 * v.lam),
    "EQ5_BIT_MASS_UPPER": lambda v: 1 - _e(v, -(v.c1 - v.s)) / 2,
    "REMARK1_S1_BOUNDS": lambda v: (max(v.c - v.c12, v.c01), min(v.c - v.c02, v.c11)),
    "REMARK1_S2_BOUNDS": lambda v: (max(v.c - v.c11, v.c02), min(v.c - v.c01, v.c12)),
    "EQ6_MU1": lambda v: (
        v.s
        + (
            (v.lam - v.c0 + v.s) / 2 * _e(v, v.c0 - v.s)
            - (v.lam + v.c1 - v.s) / 2 * _e(v, v.s - v.c1)
        )
        / _den_c0s_first(v)
    ),
    "EQ7_MU2": lambda v: v.s + v.lam / 2 * (_e(v, v.c0 - v.s) - _e(v, v.s - v.c1)),
    "EQ8_SCALE_LHS": lambda v: v.delta_1j / (v.epsilon * v.delta_1j / v.delta1),
    "EQ8_SCALE_RHS": lambda v: v.delta_1j / ((v.delta_1j / v.delta) * v.epsilon),
    "EQ8_WEIGHT": lambda v: v.delta_1j / v.delta,
    "EQ8_SCALE": lambda v: v.delta_j / ((v.delta_1j / v.delta) * v.epsilon),
    "EQ9_MU1": lambda v: (
        v.s + (v.lam - v.c0 + v.s) / 2 * _e(v, v.c0 - v.s) / (1 - _e(v, v.c0 - v.s) / 2)
    ),
    "EQ9_MU2": lambda v: v.s + v.lam / 2 * _e(v, v.c0 - v.s),
    "EQ10_MU1": lambda v: (
        v.s - (v.lam + v.c1 - v.s) / 2 * _e(v, v.s - v.c1) / (1 - _e(v, v.s - v.c1) / 2)
    ),
    "EQ10_MU2": lambda v: v.s - v.lam / 2 * _e(v, v.s - v.c1),
    "REMARK3_GAP_LOWER": lambda v: (
        ((1 - (v.c0 - v.s) / v.lam) / (1 - _e(v, v.c0 - v.s) / 2) - 1)
        * v.lam
        / 2
        * _e(v, v.c0 - v.s)
    ),
    "REMARK3_LOWER_DENOMINATOR": lambda v: 1 - _e(v, v.c0 - v.s) / 2,
    "REMARK3_LOWER_FACTOR": lambda v: 1 - (v.c0 - v.s) / v.lam,
    "REMARK3_GAP_UPPER": lambda v: (
        (1 - (1 + (v.c1 - v.s) / v.lam) / (1 - _e(v, v.s - v.c1) / 2))
        * v.lam
        / 2
        * _e(v, v.s - v.c1)
    ),
    # 000 prints exp((c1-s)/λ) here, 002 exp((s-c1)/λ)
    "REMARK3_UPPER_DENOMINATOR": lambda v: 1 - _e(v, v.c1 - v.s) / 2,
    "REMARK3_UPPER_DENOMINATOR_JOURNAL": lambda v: 1 - _e(v, v.s - v.c1) / 2,
    "REMARK3_UPPER_FACTOR": lambda v: 1 + (v.c1 - v.s) / v.lam,
    "TABLE1_VARIANCE_BOUNDS": lambda v: (0, v.n * v.R**2 / (4 * (v.n - 1))),
    "TABLE1_VARIANCE_BOUNDS_JOURNAL": lambda v: (0, v.n * v.R**2 / (4 * (v.n - 1))),
    "TABLE1_VARIANCE_SENSITIVITY": lambda v: v.R**2 / v.n,
    "APPA_MEAN_CHAIN": [
        _mu1_line1,
        _mu1_line2,
        lambda v: _inner_line3(v) / (cdf(v, v.c1) - cdf(v, v.c0)),
        lambda v: _inner_line3(v) / _den_sc1_first(v),
        lambda v: (
            v.s
            + (
                half * (v.lam - v.c0 + v.s) * _e(v, v.c0 - v.s)
                - half * (v.c1 + v.lam - v.s) * _e(v, v.s - v.c1)
            )
            / _den_sc1_first(v)
        ),
    ],
    "APPA_BIT_MEAN_CHAIN": [
        # p0 = ½exp((c0-s)/λ) (lower), p1 = ½exp((s-c1)/λ) (upper) in App. A
        lambda v: _q1(v) * v.c0 + _q2(v) * v.c1 + (1 - _q1(v) - _q2(v)) * v.E_trunc,
        lambda v: (
            v.c0 / 2 * _e(v, v.c0 - v.s)
            + v.c1 / 2 * _e(v, v.s - v.c1)
            + v.s
            + (v.lam - v.c0) / 2 * _e(v, v.c0 - v.s)
            - (v.c1 + v.lam) / 2 * _e(v, v.s - v.c1)
        ),
        lambda v: v.s + v.lam / 2 * (_e(v, v.c0 - v.s) - _e(v, v.s - v.c1)),
    ],
    "APPA_P0": lambda v: _e(v, v.c0 - v.s) / 2,
    "APPA_P1": lambda v: _e(v, v.s - v.c1) / 2,
    "APPA_PARTA_UNBIASED_MU1": lambda v: (
        (v.lam - v.c0 + v.s) * _e(v, v.c0 - v.s),
        (v.c1 + v.lam - v.s) * _e(v, v.s - v.c1),
    ),
    "APPA_PARTA_UNBIASED_MU2": lambda v: (_e(v, v.c0 - v.s), _e(v, v.s - v.c1)),
    "APPA_PARTA": {
        "f1": lambda v: (v.lam + abs(v.x)) * exp(-abs(v.x) / v.lam),
        "f1_prime": lambda v: -abs(v.x) / v.lam * exp(-abs(v.x) / v.lam),
        "f2": lambda v: exp(-abs(v.x) / v.lam),
        "f2_prime": lambda v: -mpmath.sign(v.x) * exp(-abs(v.x) / v.lam),
    },
    "APPA_PARTC_CHAIN": [lambda v, i=i: _partc_lines(v)[i] for i in range(4)],
    "APPA_PARTC": {
        "f": lambda v: v.x * exp(-v.x / v.lam) + v.lam * exp(-2 * v.x / v.lam) / 2,
        "f_prime": lambda v: (
            -exp(-2 * v.x / v.lam) + exp(-v.x / v.lam) - v.x * exp(-v.x / v.lam) / v.lam
        ),
        "f_prime_factored": lambda v: exp(-v.x / v.lam) * (1 - v.x / v.lam - exp(-v.x / v.lam)),
        "g": lambda v: 1 - v.x / v.lam - exp(-v.x / v.lam),
        "g_prime": lambda v: v.lam * (exp(-v.x / v.lam) - 1),
        # 000 prints e^{-x/b}; 002 prints e^{-x/λ}
        "f_prime_via_g": lambda v: exp(-v.x / v.b) * (1 - v.x / v.lam - exp(-v.x / v.lam)),
        "f_prime_via_g_journal": lambda v: (
            exp(-v.x / v.lam) * (1 - v.x / v.lam - exp(-v.x / v.lam))
        ),
    },
    "APPB_A": _trunc_a,
    "APPB_P1": _q1,
    "APPB_P2": _q2,
    "APPB_B": _trunc_b,
    "APPB_TRUNC_BIAS2": lambda v: (_trunc_a(v) / (1 - _q1(v) - _q2(v))) ** 2,
    "APPB_TRUNC_MEAN": lambda v: v.s + _trunc_a(v) / (1 - _q1(v) - _q2(v)),
    "APPB_TRUNC_SECOND_MOMENT": lambda v: _trunc_b(v) / (1 - _q1(v) - _q2(v)),
    "APPB_TRUNC_MSE_DECOMPOSITION": lambda v: (
        _trunc_b(v) / (1 - _q1(v) - _q2(v))
        - (v.s + _trunc_a(v) / (1 - _q1(v) - _q2(v))) ** 2
        + (_trunc_a(v) / (1 - _q1(v) - _q2(v))) ** 2
    ),
    "APPB_TRUNC_MSE_AB": lambda v: (
        (_trunc_b(v) - 2 * v.s * _trunc_a(v)) / (1 - _q1(v) - _q2(v)) - v.s**2
    ),
    "APPB_B_MINUS_2SA_CHAIN": [
        lambda v: (
            2 * v.lam**2
            + v.s**2
            - half * (2 * v.lam**2 - 2 * v.lam * v.c0 + v.c0**2) * _q1(v)
            - half * (2 * v.lam**2 + 2 * v.lam * v.c1 + v.c1**2) * _q2(v)
            - v.s * (v.lam - v.c0 + v.s) * _q1(v)
            + v.s * (v.lam + v.c1 - v.s) * _q2(v)
        ),
        lambda v: (
            -(v.s**2)
            + 2 * (v.s**2 + v.lam**2) * (1 - _q1(v) - _q2(v))
            - (-v.lam * v.c0 + v.c0**2 / 2 + v.s * (v.lam - v.c0)) * _q1(v)
            - (v.lam * v.c1 + v.c1**2 / 2 - v.s * (v.lam + v.c1)) * _q2(v)
        ),
    ],
    "APPB_TRUNC_MSE_CHAIN": [lambda v, i=i: _trunc_mse_lines(v)[i] for i in range(7)],
    "APPB_TRUNC_BOXED": _boxed_trunc,
    "APPB_BIT_BIAS2": lambda v: (v.lam * (_q1(v) - _q2(v))) ** 2,
    "APPB_BIT_MEAN": lambda v: v.s + v.lam * (_q1(v) - _q2(v)),
    "APPB_BIT_SECOND_MOMENT": lambda v: (
        2 * v.lam**2
        + v.s**2
        - 2 * (v.lam**2 - v.lam * v.c0) * _q1(v)
        - 2 * (v.lam**2 + v.lam * v.c1) * _q2(v)
    ),
    "APPB_BIT_MSE_CHAIN": [lambda v, i=i: _bit_mse_lines(v)[i] for i in range(3)],
    "APPB_BIT_BOXED": _boxed_bit,
}


def _leaves() -> list[tuple[str, Equation, Fn]]:
    """(id, Equation, independent function) for every transcribed formula."""
    out: list[tuple[str, Equation, Fn]] = []
    for name, obj in liu.ALL.items():
        ref = EXPECTED[name]
        if isinstance(obj, Equation):
            assert callable(ref), name
            out.append((name, obj, ref))
        elif isinstance(obj, list):
            assert isinstance(ref, list) and len(ref) == len(obj), name
            out.extend(
                (f"{name}[{i}]", eq, f) for i, (eq, f) in enumerate(zip(obj, ref, strict=True))
            )
        else:
            assert isinstance(ref, dict) and set(ref) == set(obj), name
            out.extend((f"{name}[{k}]", obj[k], ref[k]) for k in obj)
    return out


LEAVES = _leaves()


def _close(a: Any, b: Any) -> bool:
    a, b = mpmath.mpf(a), mpmath.mpf(b)
    return abs(a - b) <= TOL * max(1, abs(b))


@pytest.mark.parametrize("point", range(len(POINTS)))
@pytest.mark.parametrize(("ident", "eq", "ref"), LEAVES, ids=[t[0] for t in LEAVES])
def test_transcription_matches_independent_retyping(
    ident: str, eq: Equation, ref: Fn, point: int
) -> None:
    pt = POINTS[point]
    with mpmath.workdps(DPS):
        v = SimpleNamespace(**{k: _mpf(t) for k, t in pt.items()})
        expected = ref(v)
        if isinstance(eq.expr, sp.Tuple):
            assert isinstance(expected, tuple) and len(expected) == len(eq.expr), ident
            got = [_sympy_value(e, pt) for e in eq.expr]
            for g, want in zip(got, expected, strict=True):
                assert _close(g, want), (ident, g, want)
        else:
            got = _sympy_value(eq.expr, pt)
            assert _close(got, expected), (ident, got, expected)


def test_every_export_is_checked_and_listed() -> None:
    assert set(EXPECTED) == set(liu.ALL)
    exported = {name for name in liu.__all__ if not isinstance(getattr(liu, name), sp.Basic)}
    assert exported - {"F", "ALL"} == set(liu.ALL)
    for name in liu.ALL:
        assert getattr(liu, name) is liu.ALL[name]


@pytest.mark.parametrize(("ident", "eq", "ref"), LEAVES, ids=[t[0] for t in LEAVES])
def test_metadata(ident: str, eq: Equation, ref: Fn) -> None:
    assert eq.label.strip(), ident
    assert "000_4ce1202a26cb1c23.txt" in eq.source or "002_7e7dc3d80a31d40e.txt" in eq.source
    assert eq.latex.strip(), ident
    assert eq.latex.count("{") == eq.latex.count("}"), ident


def test_labels_are_unique() -> None:
    labels = [t[1].label for t in LEAVES]
    assert len(labels) == len(set(labels))


def test_appendix_b_expressions_depend_on_s_c0_c1_lam_only() -> None:
    allowed = {sym.s, sym.c0, sym.c1, sym.lam}
    for ident, eq, _ in LEAVES:
        if ident.startswith("APPB_"):
            assert eq.expr.free_symbols <= allowed, ident


def test_appendix_a_keeps_f_integral_and_e_trunc_literal() -> None:
    first = liu.APPA_MEAN_CHAIN[0].expr
    assert first.has(sp.Integral) and first.has(liu.F(sym.c1) - liu.F(sym.c0))
    assert liu.APPA_MEAN_CHAIN[1].expr.has(sp.Integral)
    assert liu.APPA_BIT_MEAN_CHAIN[0].expr.has(liu.E_trunc)


def test_printed_typos_are_kept() -> None:
    # eq (3), 000: no minus sign in the exponent, Γ(1/p); 002: minus sign, Γ(p/2)
    assert liu.EQ3_GG_DENSITY.expr.has(sp.gamma(1 / sym.p))
    assert liu.EQ3_GG_DENSITY_JOURNAL.expr.has(sp.gamma(sym.p / 2))
    # eq (5): the printed upper "mass" is 1 - ½exp(-(c1-s)/λ), which exceeds ½
    with mpmath.workdps(DPS):
        assert _sympy_value(liu.EQ5_BIT_MASS_UPPER.expr, POINTS[0]) > half
    # App. A(a): f2' printed without the 1/λ factor; App. A(c): g' = λ(...)
    assert liu.APPA_PARTA["f2_prime"].expr == -sp.sign(sym.x) * sp.exp(-sp.Abs(sym.x) / sym.lam)
    assert liu.APPA_PARTC["g_prime"].expr == sym.lam * (sp.exp(-sym.x / sym.lam) - 1)
    assert liu.APPA_PARTC["f_prime_via_g"].expr.has(sym.b)


def test_extra_ranges() -> None:
    half_r = sp.Rational(1, 2)
    for eq in (
        liu.REMARK3_LOWER_DENOMINATOR,
        liu.REMARK3_UPPER_DENOMINATOR,
        liu.REMARK3_UPPER_DENOMINATOR_JOURNAL,
    ):
        assert eq.extra == {"lower": 0, "upper": half_r, "strict": True}
    for eq in (liu.REMARK3_LOWER_FACTOR, liu.REMARK3_UPPER_FACTOR):
        assert eq.extra == {"lower": 1, "upper": sp.oo, "strict": True}
    assert liu.TABLE1_VARIANCE_BOUNDS_JOURNAL.extra["open"] is True
    assert liu.TABLE1_VARIANCE_BOUNDS.extra["right_open"] is False


def test_module_never_parses_strings() -> None:
    text = Path(liu.__file__).read_text(encoding="utf-8")
    assert "sympify" not in text and "parse_expr" not in text
