r"""``dpcheck check-formula``: the restricted LaTeX parser and the comparison (Liu 2019).

* the paper's correct transcriptions (eqs (6), (7), (9), (10), App. B lines)
  parse to exactly the transcriptions' ``.expr`` (an independent route) and
  are ``equal`` to the derived quantities; the App. B lines that
  ``proofs/liu2019/70_appendix_b.py`` refutes are ``differs``;
* every small perturbation (a sign, a dropped 1/2, c_0 <-> c_1, an exponent's
  sign), generated from the LaTeX strings, is ``differs`` with a witness whose
  values are re-evaluated here with mpmath at 50 digits;
* bad input -- malformed LaTeX, unknown symbols and commands, Python code --
  is one-line InputError (exit code 2 through the CLI, no traceback), and no
  code runs: eval/exec/compile/sympify/parse_expr are booby-trapped while parsing.
"""

from __future__ import annotations

import builtins
import json
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from fractions import Fraction
from pathlib import Path

import mpmath
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from dpcheck import cli
from dpcheck.errors import InputError
from dpcheck.formula import check as fc
from dpcheck.formula.latex_parser import LIU2019, parse_latex
from dpcheck.numeric.names import QUANTITY_NAMES
from dpcheck.papers import liu2019 as P
from dpcheck.symbolic.rational import is_identically_zero
from dpcheck.symbolic.symbols import c0, c1, lam, s

ROOT = Path(__file__).resolve().parents[1]

#: (quantity, transcription) for the paper's correct mean formulas
MEANS = [
    ("truncated.mean", P.EQ6_MU1),
    ("bit.mean", P.EQ7_MU2),
    ("truncated.mean.lower", P.EQ9_MU1),
    ("bit.mean.lower", P.EQ9_MU2),
    ("truncated.mean.upper", P.EQ10_MU1),
    ("bit.mean.upper", P.EQ10_MU2),
]

#: App. B lines and the expected answer (from the verdicts of proofs/liu2019/70_appendix_b.py:
#: the moments, the MSE in A and B and every BIT line are right; the truncated MSE chain
#: breaks at its first line, and 2λ² - boxed is not the MSE)
APPENDIX_B = [
    ("truncated.mean", P.APPB_TRUNC_MEAN, "equal"),
    ("truncated.second_moment", P.APPB_TRUNC_SECOND_MOMENT, "equal"),
    ("truncated.mse", P.APPB_TRUNC_MSE_DECOMPOSITION, "equal"),
    ("truncated.mse", P.APPB_TRUNC_MSE_AB, "equal"),
    ("truncated.mse", P.APPB_TRUNC_MSE_CHAIN[0], "differs"),
    ("truncated.mse", P.APPB_TRUNC_MSE_CHAIN[-1], "differs"),
    ("bit.mean", P.APPB_BIT_MEAN, "equal"),
    ("bit.second_moment", P.APPB_BIT_SECOND_MOMENT, "equal"),
    ("bit.mse", P.APPB_BIT_MSE_CHAIN[0], "equal"),
    ("bit.mse", P.APPB_BIT_MSE_CHAIN[1], "equal"),
    ("bit.mse", P.APPB_BIT_MSE_CHAIN[2], "equal"),
]

SYMS = (s, c0, c1, lam)


# ---------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------


def run_cli(argv: list[str]) -> int:
    """``dpcheck.cli.main(argv)``: the real command line."""
    return cli.main(argv)


def mp_value(expr: sp.Expr, point: dict[str, str]) -> mpmath.mpf:
    """``expr`` at the witness point with mpmath at 50 digits (independent of arb)."""
    values = {str(k): k for k in SYMS}
    env = {
        values[k]: mpmath.mpf(Fraction(v).numerator) / Fraction(v).denominator
        for k, v in point.items()
    }
    f = sp.lambdify(SYMS, expr, modules="mpmath")
    return f(*(env.get(x, mpmath.mpf(0)) for x in SYMS))


def assert_witness(
    result: fc.FormulaCheck, formula: sp.Expr, reference: sp.Expr, dps: int = 50
) -> None:
    """The witness is real: mpmath at ``dps`` digits reproduces both values and their
    difference, and the difference is not 0."""
    assert result.verdict == "differs", result.to_dict()
    w = result.witness
    assert w is not None and "arb" in result.method
    with mpmath.workdps(dps):
        a = mp_value(formula, w["point"])
        b = mp_value(reference, w["point"])
        diff = a - b
        assert abs(diff) > mpmath.mpf(10) ** (5 - dps) * (1 + abs(a) + abs(b))
        assert mpmath.sign(diff) == w["sign"]
        names = [k for k in w if k in ("formula", "derived", "against")]
        for name, value in zip(names, (a, b), strict=True):
            assert abs(mpmath.mpf(w[name]) - value) <= mpmath.mpf(10) ** -25 * (1 + abs(value))
        assert abs(mpmath.mpf(w["difference"]) - diff) <= mpmath.mpf(10) ** -25 * (1 + abs(diff))


def _occurrences(text: str, sub: str) -> list[int]:
    return [m.start() for m in re.finditer(re.escape(sub), text)]


def _rhs_start(latex: str) -> int:
    return latex.index("=") + 1 if "=" in latex else 0


def perturbations(latex: str) -> list[tuple[str, str]]:
    """(description, perturbed LaTeX): each sign flipped, each \\frac{1}{2} dropped,
    each \\frac{\\lambda}{2} -> \\lambda, c_{0} <-> c_{1} (all and one at a time), each
    exponential's argument negated -- one edit at a time, right of the '='."""
    start = _rhs_start(latex)
    out = []
    for i, ch in enumerate(latex):
        if i >= start and ch in "+-":
            out.append((f"sign at {i}", latex[:i] + ("-" if ch == "+" else "+") + latex[i + 1 :]))
    edits = [
        (r"\frac{1}{2}", ""),
        (r"\frac{\lambda}{2}", r"\lambda"),
        ("c_{0}", "c_{1}"),
        ("c_{1}", "c_{0}"),
        (r"\exp\left(", r"\exp\left(-"),
        (r"\exp(", r"\exp(-"),
    ]
    for old, new in edits:
        for i in _occurrences(latex, old):
            if i >= start:
                out.append((f"{old} -> {new} at {i}", latex[:i] + new + latex[i + len(old) :]))
    swapped = latex[start:].replace("c_{0}", "@").replace("c_{1}", "c_{0}").replace("@", "c_{1}")
    out.append(("swap c_0, c_1", latex[:start] + swapped))
    return out


def same_function(a: sp.Expr, b: sp.Expr) -> bool:
    """Independent oracle: mpmath at 50 digits agrees at a few points of the domain."""
    points = [
        {"s": "1/3", "c_0": "0", "c_1": "1", "lambda": "1/2"},
        {"s": "2", "c_0": "-1", "c_1": "7/2", "lambda": "3"},
        {"s": "-1/5", "c_0": "-2", "c_1": "0", "lambda": "1/7"},
    ]
    with mpmath.workdps(50):
        return all(abs(mp_value(a, p) - mp_value(b, p)) < mpmath.mpf(10) ** -40 for p in points)


# ---------------------------------------------------------------------------
# the paper's formulas: parsed exactly, equal to the derivations
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("quantity,eq", MEANS, ids=[e.label for _, e in MEANS])
def test_parser_matches_transcription(quantity, eq):
    parsed = parse_latex(eq.latex)
    assert is_identically_zero(parsed.expr - eq.expr, normalise=False)
    assert parsed.lhs in (r"\mu_{1}", r"\mu_{2}")


def test_paper_means_are_equal_and_fast():
    start = time.perf_counter()
    for quantity, eq in MEANS:
        result = fc.check_formula(quantity, eq.latex)
        assert result.verdict == "equal", (eq.label, result.to_dict())
        assert result.method.startswith("exact symbolic reduction"), result.method
        assert result.witness is None and not result.notes
    assert time.perf_counter() - start < 20  # a few seconds; derivations included


@pytest.mark.parametrize(
    "quantity,eq,expected", APPENDIX_B, ids=[e.label for _, e, _ in APPENDIX_B]
)
def test_appendix_b_lines(quantity, eq, expected):
    parsed = parse_latex(eq.latex)
    assert is_identically_zero(parsed.expr - eq.expr, normalise=False)
    result = fc.check_formula(quantity, eq.latex)
    assert result.verdict == expected, result.to_dict()
    if expected == "differs":
        assert_witness(result, parsed.expr, fc.derived(quantity))


def test_boxed_truncated_mse_is_not_the_mse_but_the_right_closed_form_is():
    boxed = P.APPB_TRUNC_BOXED.latex
    wrong = fc.check_formula("truncated.mse", r"2\lambda^{2}-\boxed{" + boxed + "}")
    assert_witness(wrong, 2 * lam**2 - P.APPB_TRUNC_BOXED.expr, fc.derived("truncated.mse"))
    right = (
        r"\mbox{MSE}=2\lambda^2-\frac{p_1\left((s-c_0)^2+2\lambda(s-c_0)\right)"
        r"+p_2\left((c_1-s)^2+2\lambda(c_1-s)\right)}{1-p_1-p_2}"
    )
    result = fc.check_formula("truncated.mse", right)
    assert result.verdict == "equal" and result.formula.lhs == r"\mbox{MSE}"


def test_every_parseable_transcription_matches_its_expr():
    """Whatever of the whole paper parses in Liu notation parses to its transcription."""
    from dpcheck.papers.equation import Equation

    parsed = 0
    for value in P.ALL.values():
        items = value.values() if isinstance(value, dict) else value
        for eq in [value] if isinstance(value, Equation) else items:
            try:
                expr = parse_latex(eq.latex).expr
            except InputError as exc:
                assert "\n" not in str(exc)
                continue
            parsed += 1
            assert is_identically_zero(expr - eq.expr, normalise=False), eq.label
    assert parsed >= 35


def test_normaliser_of_eq4():
    """eq (4)'s printed denominator over 2λ is the derived normaliser (c_{j1} -> c_1 ...)."""
    den = P.EQ4_NORMALISER.latex.replace("c_{j1}", "c_{1}").replace("c_{j0}", "c_{0}")
    den = den.replace("s_{j}", "s")
    assert fc.check_formula("truncated.normaliser", r"\frac{" + den + r"}{2\lambda}").verdict == (
        "equal"
    )
    result = fc.check_formula("truncated.normaliser", den)
    assert_witness(result, parse_latex(den).expr, fc.derived("truncated.normaliser"))


def test_one_sided_and_moment_quantities():
    cases = {
        "truncated.bias.lower": r"\frac{\lambda-c_0+s}{2e^{(s-c_0)/\lambda}-1}",
        "bit.bias.upper": r"-\frac{\lambda}{2}e^{(s-c_1)/\lambda}",
        "bit.second_moment": r"2\lambda^{2}+s^{2}-2(\lambda^{2}-\lambda c_{0})p_{1}"
        r"-2(\lambda^{2}+\lambda c_{1})p_{2}",
        "bit.var": r"2\lambda^2(1-p_1-p_2)+2\lambda((c_0-s)p_1+(s-c_1)p_2)"
        r"-\lambda^2(p_1-p_2)^2",
        "bit.mse.lower": r"2\lambda^2(1-p_1)+2\lambda(c_0-s)p_1",
    }
    for quantity, latex in cases.items():
        assert fc.check_formula(quantity, latex).verdict == "equal", quantity


def test_registry():
    assert set(QUANTITY_NAMES) <= set(fc.REGISTRY)
    for name in ("truncated.mean.lower", "bit.mse.upper", "truncated.normaliser"):
        assert name in fc.REGISTRY
    with pytest.raises(InputError, match=r"unknown quantity 'truncated\.foo' \(known: trunc"):
        fc.check_formula("truncated.foo", "s")
    # mean.lower = s + bias.lower; second_moment = s^2 + 2 s bias + mse (one-sided)
    for m in ("truncated", "bit"):
        for side in ("lower", "upper"):
            bias = fc.derived(f"{m}.bias.{side}")
            assert is_identically_zero(fc.derived(f"{m}.mean.{side}") - s - bias)
            var = fc.derived(f"{m}.var.{side}")
            assert is_identically_zero(fc.derived(f"{m}.mse.{side}") - bias**2 - var)


# ---------------------------------------------------------------------------
# perturbations: differs, with a witness that mpmath confirms
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("quantity,eq", MEANS, ids=[e.label for _, e in MEANS])
def test_perturbations_differ(quantity, eq):
    cases = perturbations(eq.latex)
    assert len(cases) >= 6
    reference = fc.derived(quantity)
    differs = 0
    for what, latex in cases:
        parsed = parse_latex(latex).expr
        result = fc.check_formula(quantity, latex)
        if same_function(parsed, eq.expr):
            assert result.verdict == "equal", (what, latex)
            continue
        assert result.verdict == "differs", (what, latex, result.to_dict())
        assert_witness(result, parsed, reference)
        differs += 1
    assert differs >= len(cases) - 1


def test_perturbation_count():
    assert sum(len(perturbations(eq.latex)) for _, eq in MEANS) >= 60


def test_tiny_perturbation_is_found_rigorously():
    latex = P.EQ7_MU2.latex + r"+10^{-100}"
    result = fc.check_formula("bit.mean", latex)
    assert_witness(result, parse_latex(latex).expr, fc.derived("bit.mean"), dps=150)
    assert abs(mpmath.mpf(result.witness["difference"]) - mpmath.mpf("1e-100")) < 1e-120
    assert result.witness["digits"] >= 40


_EDITS = st.sampled_from(["sign", "half", "swap", "constant", "scale"])


@settings(max_examples=30, deadline=None, derandomize=True)
@given(
    which=st.integers(0, len(MEANS) - 1),
    kind=_EDITS,
    index=st.integers(0, 50),
    q=st.integers(2, 10**6),
)
def test_random_perturbations_differ(which, kind, index, q):
    quantity, eq = MEANS[which]
    latex, start = eq.latex, _rhs_start(eq.latex)
    if kind == "sign":
        spots = [i for i, ch in enumerate(latex) if i >= start and ch in "+-"]
        i = spots[index % len(spots)]
        latex = latex[:i] + ("-" if latex[i] == "+" else "+") + latex[i + 1 :]
    elif kind == "half":
        spots = _occurrences(latex, r"\lambda")
        i = spots[index % len(spots)]
        latex = latex[:i] + r"\frac{1}{2}" + latex[i:]
    elif kind == "swap":
        spots = [i for i in _occurrences(latex, "c_{") if i >= start]
        i = spots[index % len(spots)] + 3
        latex = latex[:i] + ("1" if latex[i] == "0" else "0") + latex[i + 1 :]
    elif kind == "constant":
        latex = latex + rf"+\frac{{1}}{{{q}}}"
    else:
        spots = _occurrences(latex, r"\lambda")
        i = spots[index % len(spots)]
        latex = latex[:i] + rf"\left(1+\frac{{1}}{{{q}}}\right)" + latex[i:]
    parsed = parse_latex(latex).expr
    result = fc.check_formula(quantity, latex)
    if same_function(parsed, eq.expr):
        assert result.verdict == "equal"
    else:
        assert_witness(result, parsed, fc.derived(quantity))


# ---------------------------------------------------------------------------
# --against-latex and symbols a quantity does not depend on
# ---------------------------------------------------------------------------

_EQ6_REARRANGED = (
    r"s+\frac{(\lambda-c_0+s)\,e^{(c_0-s)/\lambda}-(\lambda+c_1-s)\,e^{(s-c_1)/\lambda}}"
    r"{2-e^{(c_0-s)/\lambda}-e^{(s-c_1)/\lambda}}"
)


def test_against_latex_equal_and_differs():
    result = fc.check_formula("truncated.mean", P.EQ6_MU1.latex, against_latex=_EQ6_REARRANGED)
    assert result.verdict == "equal" and result.against is not None
    assert result.reference_name == "the --against-latex formula"
    perturbed = _EQ6_REARRANGED.replace("{2-", "{3-")
    result = fc.check_formula("truncated.mean", P.EQ6_MU1.latex, against_latex=perturbed)
    assert_witness(result, P.EQ6_MU1.expr, parse_latex(perturbed).expr)
    assert "against" in result.witness and "reproduce" not in result.witness


def test_extra_symbols_are_compared_not_ignored():
    # eq (6) (two bounds) against the one-sided limit of eq (9): c_1 matters
    result = fc.check_formula("truncated.mean.lower", P.EQ6_MU1.latex)
    assert result.verdict == "differs" and "c_1" in result.witness["point"]
    assert any("c_1" in note and "does not depend" in note for note in result.notes)
    assert_witness(result, P.EQ6_MU1.expr, fc.derived("truncated.mean.lower"))
    # a c_1 that drops out is fine: equal, with the note
    latex = P.EQ9_MU1.latex + r"+(c_1+1)^2-c_1^2-2c_1-1"
    result = fc.check_formula("truncated.mean.lower", latex)
    assert result.verdict == "equal" and result.notes


# ---------------------------------------------------------------------------
# the later steps of the route
# ---------------------------------------------------------------------------


def test_numerical_evidence_route(monkeypatch):
    monkeypatch.setattr(fc, "_exactly_zero", lambda diff: False)
    monkeypatch.setattr(fc, "simplifies_to_zero", lambda diff: False)
    result = fc.check_formula("bit.mean", P.EQ7_MU2.latex)
    assert result.verdict == "equal"
    assert result.method.startswith("numerical evidence, not a symbolic proof")
    assert result.points_checked >= fc.MIN_EVIDENCE_POINTS


def test_simplify_route(monkeypatch):
    monkeypatch.setattr(fc, "_exactly_zero", lambda diff: False)
    result = fc.check_formula("bit.mean", P.EQ7_MU2.latex)
    assert result.verdict == "equal" and "simplify" in result.method


def test_within_stops_a_long_computation():
    def spin() -> None:
        while True:
            pass

    start = time.perf_counter()
    assert fc.within(0.2, spin) == (False, None)
    assert time.perf_counter() - start < 5
    assert fc.within(5, lambda: 7) == (True, 7)


def test_points():
    points = fc.domain_points()
    assert len(points) >= fc.MIN_EVIDENCE_POINTS
    assert points[: len(fc.ck.mechanism_points())] == fc.ck.mechanism_points()
    for p in points:
        assert p[c0] < p[c1] and p[c0] <= p[s] <= p[c1] and p[lam] > 0
    assert any(p[s] == p[c0] for p in points) and any(p[s] == p[c1] for p in points)
    lams = {p[lam] for p in points}
    assert min(lams) <= Fraction(1, 100) and max(lams) >= 100
    assert fc.random_points() == fc.random_points()  # seeded


def test_huge_expansion_skips_exact_reduction_and_still_answers():
    start = time.perf_counter()
    result = fc.check_formula("truncated.mean", r"(s+c_0+c_1+\lambda)^{900}")
    assert result.verdict == "differs" and any("skipped" in n for n in result.notes)
    assert time.perf_counter() - start < 10


# ---------------------------------------------------------------------------
# the grammar
# ---------------------------------------------------------------------------

_E = sp.exp
GRAMMAR = [
    (r"\frac12", sp.Rational(1, 2)),
    (r"\tfrac{1}{2}s", s / 2),
    (r"\dfrac s2", s / 2),
    ("0.25", sp.Rational(1, 4)),
    ("1.5s", sp.Rational(3, 2) * s),
    (r"2\lambda", 2 * lam),
    (r"s(\lambda-c_0)", s * (lam - c0)),
    (r"s\left(\lambda-c_{0}\right)", s * (lam - c0)),
    (r"\frac{1}{2}\exp(s)", _E(s) / 2),
    (r"\exp\left(\frac{c_0-s}{\lambda}\right)", _E((c0 - s) / lam)),
    (r"\exp{s}", _E(s)),
    (r"\exp\{s\}", _E(s)),
    (r"\exp\bigl[s\bigr]", _E(s)),
    (r"\exp\frac{s}{\lambda}", _E(s / lam)),
    (r"\exp s^2", _E(s**2)),
    (r"e^{-s}", _E(-s)),
    (r"e^s", _E(s)),
    (r"e^\lambda", _E(lam)),
    (r"\mathrm{e}^{s}", _E(s)),
    ("s^23", 3 * s**2),
    (r"s^{c_1}", s**c1),
    (r"\sqrt{\lambda^2}", lam),
    (r"\sqrt[3]{8}", sp.Integer(2)),
    (r"\ln e", sp.Integer(1)),
    (r"\log(\lambda)", sp.log(lam)),
    ("-+-s", s),
    (r"2\cdot -3", sp.Integer(-6)),
    (r"s\times 2", 2 * s),
    (r"s \div 2", s / 2),
    (r"(c_0-s)/\lambda", (c0 - s) / lam),
    (r"s/2\lambda", s * lam / 2),
    (r"\, s \; \! \quad ~ s", s**2),
    (r"\Big(s\Big)\big[s\big]", s**2),
    (r"\boxed{s}", s),
    ("p_1", LIU2019["p_1"]),
    ("p_{2}", LIU2019["p_2"]),
    ("A", P.APPB_A.expr),
    ("B", P.APPB_B.expr),
    ("10^{1000}", sp.Integer(10) ** 1000),
    ("2^{-3}", sp.Rational(1, 8)),
]


@pytest.mark.parametrize("latex,expected", GRAMMAR, ids=[g[0] for g in GRAMMAR])
def test_grammar(latex, expected):
    assert sp.simplify(parse_latex(latex).expr - expected) == 0


@pytest.mark.parametrize(
    "latex,lhs",
    [
        (r"\mu_{1}=s", r"\mu_{1}"),
        (r"\mu_2 = s", r"\mu_2"),
        (r"\mbox{MSE}=s", r"\mbox{MSE}"),
        (r"E(s^*)=s", r"E(s^*)"),
        (r"\mbox{E}(s^{*2})=s", r"\mbox{E}(s^{*2})"),
        ("s", None),
    ],
)
def test_lhs_label(latex, lhs):
    parsed = parse_latex(latex)
    assert parsed.lhs == lhs and parsed.expr == s and parsed.source == latex


# ---------------------------------------------------------------------------
# bad input: one-line InputError
# ---------------------------------------------------------------------------

BAD = [
    ("", "empty formula"),
    ("   ", "empty formula"),
    (r"{s+1", r"unbalanced '\{' at position 0"),
    (r"s+1}", r"unbalanced '\}' at position 3"),
    (r"\left( s \right]", "unbalanced ']' at position 15"),
    (r"\frac{1}", r"expected the denominator of \\frac at position 0.*end of input"),
    ("s+", "expected an operand, found end of input at position 2"),
    (r"s\cdot", "expected an operand"),
    ("y", r"unknown symbol 'y' at position 0 \(known: s, c_0, c_1, \\lambda, p_1, p_2"),
    (r"s+\alpha", r"unknown symbol '\\alpha' at position 2"),
    ("c_{j1}", "unknown symbol 'c_j1'"),
    (r"\mu_1=\mu", r"unknown symbol '\\mu' at position 6"),
    (r"\input{/etc/passwd}", r"unknown command '\\input' at position 0"),
    (r"\def\x{1}", r"unknown command '\\def' at position 0"),
    (r"\write18{touch /tmp/x}", r"unknown command '\\write' at position 0"),
    ("__import__('os').system('touch /tmp/pwned')", "unexpected character"),
    ("lambda: 1", "unexpected character ':' at position 6"),
    ('exec("1")', "unexpected character '\"' at position 5"),
    ("s.__class__", "unexpected character '.' at position 1"),
    ("2*s", r"'\*' at position 1 is not multiplication"),
    ("a=b=c", "more than one '='"),
    ("s=", "empty formula after '='"),
    (r"\exp(s)=s", r"'\\exp' at position 0 is not allowed in the left-hand-side label"),
    (r"\text{hello}", "only allowed in a left-hand-side label"),
    ("s^2^3", "double superscript"),
    (r"\frac{1}{0}", "division by zero"),
    (r"\log 0", "log of 0"),
    ("2^{10^{10}}", "exponent '10000000000' at position 1 is too large"),
    ("10^{10^{10}}", "exponent '10000000000' at position 2 is too large"),
    ("(s+c_0)^{1001}", "exponent '1001'"),
    ("((10^{300})^{3})^{2}", "about 1800 digits"),
    ("1" * 31, "more than 30 digits"),
    ("s+" * 2600 + "s", "formula too long: 5201 characters"),
    ("(" * 51 + "s" + ")" * 51, "nesting deeper than 50"),
    (r"\exp" * 120 + " s", "nesting deeper than 50"),
    (r"\left", r"expected a delimiter after '\\left'"),
    ("s\x00", r"unexpected character '\\x00' at position 1"),
]


@pytest.mark.parametrize("latex,message", BAD, ids=[repr(b[0][:25]) for b in BAD])
def test_bad_input(latex, message):
    start = time.perf_counter()
    with pytest.raises(InputError) as info:
        parse_latex(latex)
    text = str(info.value)
    assert "\n" not in text and len(text) < 400
    assert re.search(message, text), text
    assert time.perf_counter() - start < 2


def test_many_signs_do_not_recurse():
    assert parse_latex("-" * 4000 + "s").expr == s


@pytest.mark.parametrize(
    "latex",
    [
        "s^{" * 49 + "2" + "}" * 49,
        r"\sqrt{" * 49 + "s" + "}" * 49,
        r"\frac{1}{" * 48 + "s" + "}" * 48,
        "(" * 50 + "s" + ")" * 50,
    ],
    ids=["tower", "sqrt", "frac", "parentheses"],
)
def test_deepest_allowed_nesting_is_checked_without_crashing(latex):
    result = fc.check_formula("truncated.mean", latex)
    assert result.verdict == "differs"


@pytest.mark.parametrize(
    "argv",
    [
        ["check-formula", "truncated.mean", "__import__('os').system('ls')"],
        ["check-formula", "truncated.mean", r"\input{/etc/passwd}"],
        ["check-formula", "truncated.mean", r"\frac{1}"],
        ["check-formula", "truncated.mean", "y"],
        ["check-formula", "truncated.nope", "s"],
        ["check-formula", "truncated.mean"],
        ["check-formula", "truncated.mean", "s", "--against-latex", "s+"],
    ],
)
def test_cli_bad_input(argv, capsys):
    assert run_cli(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("dpcheck: error: ")
    assert "Traceback" not in captured.err


def test_cli_text_and_json(capsys):
    assert run_cli(["check-formula", "bit.mean", P.EQ7_MU2.latex]) == 0
    out = capsys.readouterr().out
    assert out.startswith("bit.mean: EQUAL") and "LaTeX:" in out and "exact symbolic" in out
    perturbed = P.EQ7_MU2.latex.replace(r"\frac{\lambda}{2}", r"\lambda")
    assert run_cli(["check-formula", "bit.mean", perturbed, "--json"]) == 1  # differs: exit 1
    data = json.loads(capsys.readouterr().out)
    assert data["verdict"] == "differs" and data["formula"]["lhs"] == r"\mu_{2}"
    w = data["witness"]
    assert set(w["point"]) == {"s", "c_0", "c_1", "lambda"}
    assert w["reproduce"].startswith("dpcheck eval bit.mean ")
    derived = mpmath.mpf(w["derived"])
    assert abs(mp_value(fc.derived("bit.mean"), w["point"]) - derived) < 1e-25
    assert run_cli(["check-formula", "bit.mean", perturbed]) == 1
    out = capsys.readouterr().out
    assert "DIFFERS" in out and "witness:" in out and "enclosure" in out
    against = ["check-formula", "truncated.mean", P.EQ6_MU1.latex]
    assert run_cli(against + ["--against-latex", _EQ6_REARRANGED, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["verdict"] == "equal"


def test_subprocess_no_traceback():
    proc = subprocess.run(
        [sys.executable, "-m", "dpcheck", "check-formula", "truncated.mean", "exec('1')"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


# ---------------------------------------------------------------------------
# no code runs
# ---------------------------------------------------------------------------

MALICIOUS = [
    "__import__('os').system('touch /tmp/pwned')",
    "lambda: 1",
    'exec("1")',
    "eval('1')",
    "s.__class__",
    "s.__class__.__mro__",
    "().__class__.__bases__[0].__subclasses__()",
    r"\input{/etc/passwd}",
    r"\def\x{1}",
    r"\write18{touch /tmp/pwned}",
    "Symbol('x')",
    "S('1')",
    "{s}.__init__",
    "s; import os",
    "s\n__import__('os')",
]


@contextmanager
def booby_traps() -> Iterator[list[str]]:
    """eval, exec, compile raise on any call; sympify (sympy.sympify, sympy.core.sympify,
    sympy.S), parse_expr on a string argument.  Restored on exit, so that a failure can
    still be reported (pytest compiles source to show it)."""
    calls: list[str] = []

    def trap(name: str, original=None):
        def guard(*args, **kwargs):
            if original is None or (args and isinstance(args[0], str)):
                calls.append(f"{name}({args[:1]!r})")
                raise AssertionError(f"{name} called on {args[:1]!r}")
            return original(*args, **kwargs)

        return guard

    import sympy.parsing.sympy_parser as parser_module

    sympify_module = sys.modules["sympy.core.sympify"]
    patches = [
        (builtins, "eval", trap("eval")),
        (builtins, "exec", trap("exec")),
        (builtins, "compile", trap("compile")),
        (sp, "sympify", trap("sympy.sympify", sp.sympify)),
        (sympify_module, "sympify", trap("sympy.core.sympify", sympify_module.sympify)),
        (parser_module, "parse_expr", trap("parse_expr")),
        (sp, "parse_expr", trap("sympy.parse_expr")),
        (type(sp.S), "__call__", staticmethod(trap("sympy.S", sympify_module.sympify))),
    ]
    saved = [(obj, name, obj.__dict__[name]) for obj, name, _ in patches]
    try:
        for obj, name, value in patches:
            setattr(obj, name, value)
        yield calls
    finally:
        for obj, name, value in saved:
            setattr(obj, name, value)


def test_no_eval_exec_sympify_while_parsing():
    """Parse malicious and valid input, and run a whole check, with every route from a
    string to code booby-trapped.  (The derivation is done before: SymPy's integrator
    itself calls sympify on its own strings, never on ours.)"""
    fc.check_formula("bit.mean", P.EQ7_MU2.latex)
    errors, results = [], []
    with booby_traps() as calls:
        for latex in MALICIOUS:
            try:
                parse_latex(latex)
            except InputError as exc:
                errors.append(str(exc))
        for _, eq in MEANS + [(q, e) for q, e, _ in APPENDIX_B]:
            parse_latex(eq.latex)
        for latex, _ in GRAMMAR:
            parse_latex(latex)
        results.append(fc.check_formula("bit.mean", P.EQ7_MU2.latex).verdict)
        results.append(fc.check_formula("bit.mean", P.EQ7_MU2.latex + "+s").verdict)
    assert calls == []
    assert len(errors) == len(MALICIOUS)
    assert results == ["equal", "differs"]


def test_booby_traps_fire():
    """The traps are live: the forbidden routes raise inside the context."""
    with booby_traps() as calls:
        for route in (lambda: sp.sympify("1"), lambda: sp.S("1"), lambda: eval("1")):
            with pytest.raises(AssertionError):
                route()
        assert sp.sympify(1) == 1  # non-strings pass through (SymPy uses this itself)
    assert len(calls) == 3
    assert eval("1") == 1  # restored


def test_injected_command_does_not_run(tmp_path, capsys):
    marker = tmp_path / "pwned"
    payloads = [
        f"__import__('os').system('touch {marker}')",
        f'__import__("os").system("touch {marker}")',
        rf"\write18{{touch {marker}}}",
        rf"\immediate\write18{{touch {marker}}}",
        f"exec(\"open('{marker}', 'w')\")",
    ]
    for payload in payloads:
        assert run_cli(["check-formula", "truncated.mean", payload]) == 2
        assert run_cli(["check-formula", "truncated.mean", "s", "--against-latex", payload]) == 2
    capsys.readouterr()
    assert not marker.exists()
