r"""Hostile formulas for ``dpcheck check-formula`` (issue 40): an answer or one line, no signal.

* ``(((s^{1000})^{1000})^{1000})^{1000}`` used to die of SIGFPE inside flint's gcd
  (each exponent is within the per-exponent limit, the product is 10^12): the
  parser now bounds the *whole* formula's degree and digits
  (:class:`~dpcheck.formula.latex_parser.Size`, ``MAX_DEGREE``,
  ``MAX_CONSTANT_DIGITS``), tested here at the ceiling and one above it, and
  check.py keeps SymPy's polynomial routines away from large exponent numerators
  (``MAX_EXACT_DEGREE``).
* ``s+\sqrt{-1}`` used to be compared (UNDECIDED): a constant that SymPy shows is
  not real is refused; a non-constant one (``\sqrt{s - c_1 - 1}``) is refuted with a
  complex-ball witness.
* Generated formulas (nested powers, fractions, roots, exponential towers, long
  products, huge exponent coefficients; hypothesis) each end in an answer (exit 0
  or 1) or a one-line refusal (exit 2), without traceback or signal, within time
  and memory limits.  They run in one long-lived child process (``python -c
  DRIVER``, memory capped) that calls ``dpcheck.cli.main`` per formula, so that a
  formula costs its check and not a Python start; a child that dies is reported
  with the formula that killed it.  The named regressions run the real CLI
  (:func:`cli_subprocess.run_cli`).
"""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
from collections.abc import Iterator
from functools import reduce
from typing import Any

import pytest
import sympy as sp
from cli_subprocess import (
    ERROR_PREFIX,
    MAX_ERROR_CHARS,
    ROOT,
    assert_no_traceback,
    assert_refused,
    child_env,
    kill_group,
    limit_memory,
    run_cli,
    shorten,
)
from hypothesis import HealthCheck, Phase, example, given, note, settings
from hypothesis import strategies as st

from dpcheck.errors import InputError
from dpcheck.formula import check as fc
from dpcheck.formula import latex_parser as lp
from dpcheck.formula.latex_parser import parse_latex, size_of

#: the issue's formula: s^(10^12) in four powers of at most 1000 each
ISSUE = "((((s^{1000})^{1000})^{1000})^{1000})"
#: a refusal comes this quickly (the child's imports alone take about 1 s)
REFUSE_WITHIN = 10.0
#: the most one formula may take (check-formula's exact and simplify steps stop after 10 s
#: each; the rest is the witness search)
ANSWER_WITHIN = 60.0
#: the memory a check may use (peak resident set of the child), and the address-space
#: cap of the child (virtual memory counts shared libraries too)
MAX_RSS_GIB = 2.0
MEMORY_GIB = 3.0


# --------------------------------------------------------------------------- the ceilings


def test_the_issue_formula_is_refused_naming_the_ceiling():
    with pytest.raises(InputError) as err:
        parse_latex(ISSUE)
    message = str(err.value)
    assert "total degree 10^6" in message
    assert f"ceiling of {lp.MAX_DEGREE:_}".replace("_", " ") in message
    assert "\n" not in message


def test_degree_at_the_ceiling_is_accepted_one_above_is_refused():
    """MAX_DEGREE is exact: (s^{1000})^{100} has degree 10^5, one more s is refused."""
    assert lp.MAX_DEGREE == 100_000
    at = parse_latex("(s^{1000})^{100}").expr
    assert sp.degree(at) == size_of(at).degree == lp.MAX_DEGREE
    with pytest.raises(InputError, match="total degree 100 001, which exceeds the ceiling"):
        parse_latex("s(s^{1000})^{100}")
    # 1/s^{10^5} is at the ceiling too; adding s puts both over a common denominator
    assert size_of(parse_latex(r"\frac{1}{(s^{1000})^{100}}").expr).degree == lp.MAX_DEGREE
    with pytest.raises(InputError, match="the sum at position"):
        parse_latex(r"\frac{1}{(s^{1000})^{100}}+s")
    # e^{k s} counts k in the numerator and k in the denominator
    assert size_of(parse_latex("e^{50000 s}").expr).degree == lp.MAX_DEGREE
    with pytest.raises(InputError, match="e\\^\\{k x\\} counts 2k"):
        parse_latex("e^{50001 s}")


@pytest.mark.parametrize("ceiling", [10, 999, 5000])
def test_the_degree_ceiling_is_the_one_enforced(monkeypatch, ceiling):
    """Mutating MAX_DEGREE moves the boundary with it: s^{c} passes, s^{c} s does not."""
    monkeypatch.setattr(lp, "MAX_DEGREE", ceiling)
    high, low = divmod(ceiling, 1000)
    at = f"(s^{{1000}})^{{{high}}} s^{{{low}}}" if high else f"s^{{{low}}}"
    assert size_of(parse_latex(at).expr).degree == ceiling
    with pytest.raises(InputError, match=f"ceiling of {ceiling:_}".replace("_", " ")):
        parse_latex(at + " s")


def test_digits_at_the_ceiling_are_accepted_one_more_digit_is_refused():
    assert lp.MAX_CONSTANT_DIGITS == 4000
    four = r"\cdot".join(["10^{1000}"] * 4)
    assert size_of(parse_latex(four).expr).digits == lp.MAX_CONSTANT_DIGITS
    with pytest.raises(InputError, match="4 001 digits, which exceeds the ceiling of 4 000"):
        parse_latex(four + r"\cdot 10")


@pytest.mark.parametrize(
    ("formula", "where"),
    [
        ("10^{999}10^{999}10^{999}10^{999}10^{999}", "the product at position"),
        ("(10^{999} s)^{5}", "the power at position 12"),
        (r"\frac{s}{2^{999}3^{999}5^{999}6^{999}7^{999}9^{999}}", "the product at position"),
        (
            r"\frac{1}{2^{999}}+\frac{1}{3^{999}}+\frac{1}{5^{999}}+\frac{1}{7^{999}}"
            r"+\frac{1}{11^{900}}+\frac{1}{13^{890}}+\frac{1}{17^{800}}",
            "the sum at position",
        ),
    ],
)
def test_huge_constants_are_refused_before_python_cannot_print_them(formula, where):
    """Before issue 40 these ended in 'Exceeds the limit (4300 digits) for integer string
    conversion' (a traceback) when the answer was printed."""
    with pytest.raises(InputError, match="digits, which exceeds the ceiling of 4 000") as err:
        parse_latex(formula)
    assert where in str(err.value)


@pytest.mark.parametrize(
    "formula",
    [
        "((((s^{1000})^{1000})^{1000})^{1000})",
        "(" * 40 + "s" + ")^{2}" * 40,  # repeated squaring: s^(2^40)
        "(" * 20 + "s+c_0" + ")^{2}" * 20,
        "e^{" * 5 + "1000000 s" + "}" * 5,
        r"e^{1000000000000 (c_0 - s)/\lambda}",  # SIGFPE before issue 40
        r"\exp\left(999999999999999999999999999999 s\right)",
        r"(e^{s})^{1000}(e^{s})^{1000}(e^{c_0})^{1000}" + r"\cdot(e^{\lambda})^{1000}" * 100,
        r"\frac{1}{\frac{1}{\frac{1}{(s^{1000})^{1000}}}}",
        r"\phi\left(1000000 s\right)",
        r"(s^{999/1000})^{1000} (c_0^{1000})^{1000}",
    ],
)
def test_runaway_shapes_are_refused(formula):
    with pytest.raises(InputError, match="exceeds the ceiling of"):
        parse_latex(formula)


@pytest.mark.parametrize(
    "formula",
    [
        "(s+c_0+c_1+\\lambda)^{900}",
        "e^{e^{e^{e^{e^{s}}}}}",
        "\\lambda^{\\lambda^{\\lambda^{\\lambda^{\\lambda}}}}",
        "(7s+3)^{1000}",
        "s^{1/997}s^{1/991}s^{1/983}s^{1/977}",
        "s+e^{\\frac{999999999999}{1000000000000}(c_0-s)/\\lambda}",
        "e^{-\\frac{(s-c_0)^2}{2\\lambda^2}}",
    ],
)
def test_large_but_bounded_shapes_are_accepted(formula):
    size = size_of(parse_latex(formula).expr)
    assert size.degree <= lp.MAX_DEGREE
    assert size.digits <= lp.MAX_CONSTANT_DIGITS


def test_exponent_numerators_count_in_the_exact_degree():
    """SymPy writes s^{p/q} as (s^{1/q})^p: s^{1/997} s^{1/991} = s^{1988/988027} is of
    degree 1988 for cancel and gcd (Size.exact), though of degree 1 for the parser."""
    size = size_of(parse_latex("s^{1/997}s^{1/991}").expr)
    assert (size.degree, size.exact) == (1, 1988)
    exp = size_of(parse_latex("e^{\\frac{999999999999}{1000000000000}(c_0-s)/\\lambda}").expr)
    assert exp.exact > fc.MAX_EXACT_DEGREE


# --------------------------------------------------------------------------- reality


@pytest.mark.parametrize(
    ("formula", "shown"),
    [
        ("s+\\sqrt{-1}", "'\\sqrt{-1}' at position 2"),
        ("s+\\log(-2)", "'\\log(-2)' at position 2"),
        ("\\ln\\left(-e\\right)+s", "'\\ln\\left(-e\\right)' at position 0"),
        ("(-8)^{1/3}", "'(-8)^{1/3}' at position 0"),
        ("\\sqrt[3]{-8} s", "'\\sqrt[3]{-8}' at position 0"),
        ("s(-2)^{0.5}", "'(-2)^{0.5}' at position 1"),
        ("(-1)^{\\pi}+s", "'(-1)^{\\pi}' at position 0"),
        ("\\sqrt{1-e}", "'\\sqrt{1-e}' at position 0"),
        ("\\sqrt{\\log(0.5)}", "'\\sqrt{\\log(0.5)}' at position 0"),
        ("s+\\frac{1}{\\sqrt{-4}}", "'\\sqrt{-4}' at position 11"),
    ],
)
def test_a_constant_that_is_not_real_is_refused(formula, shown):
    with pytest.raises(InputError) as err:
        parse_latex(formula)
    message = str(err.value)
    assert shown in message
    assert message.endswith("is not real: formulas must be real-valued") or (
        "is not real (" in message and message.endswith("formulas must be real-valued")
    )


@pytest.mark.parametrize(
    ("formula", "value"),
    [
        ("\\sqrt{4}", 2),
        ("(-8)^{2}", 64),
        ("\\sqrt{(-2)^2}", 2),
        ("(-1)^{3}", -1),
        ("\\sqrt[3]{8}", 2),
        ("-\\sqrt[3]{8}", -2),
        ("\\log(e)", 1),
    ],
)
def test_real_constants_are_accepted(formula, value):
    assert parse_latex(formula).expr == value


def test_a_non_constant_root_of_a_negative_value_is_refuted_in_complex_balls():
    """sqrt(s - c1 - 1) is not real anywhere on the domain: real balls are nan, the
    complex-ball enclosure of the difference excludes 0 -> differs, with the witness."""
    result = fc.check_formula("truncated.mean", "\\sqrt{s-c_1-1}")
    assert result.verdict == "differs"
    assert "complex ball arithmetic" in result.method
    assert "not real" in result.method
    assert result.witness is not None and result.witness["formula"].endswith("i")
    assert "not real there" in result.witness["confirmed"]


def test_an_odd_root_of_a_negative_value_is_not_taken_as_a_witness():
    """The author of \\sqrt[3]{s - c_1 - 1} may mean the real cube root: no witness from
    SymPy's complex principal value; the note says so."""
    result = fc.check_formula("truncated.mean", "\\sqrt[3]{s-c_1-1}")
    assert result.verdict == "undecided"
    assert any("odd root of a negative number" in n for n in result.notes)


@pytest.mark.parametrize(
    "formula",
    [
        "s+e^{\\frac{999999999999}{1000000000000}(c_0-s)/\\lambda}",  # SIGFPE before
        "s^{1000}+s^{1/997}s^{1/991}s^{1/983}s^{1/977}",
    ],
)
def test_high_exact_degree_skips_the_polynomial_routines_with_a_note(formula):
    result = fc.check_formula("truncated.mean", formula)
    assert result.verdict == "differs"
    assert any("polynomial reduction and simplify skipped" in n for n in result.notes)


def test_a_log_of_a_negative_value_is_refuted_in_complex_balls():
    result = fc.check_formula("truncated.mean", "s+\\log(s-c_1-1)")
    assert result.verdict == "differs"
    assert "not real" in result.method
    assert "3.14159265358979" in result.witness["formula"]  # log(-x) = log(x) + i pi


# --------------------------------------------------------------------------- the CLI


@pytest.mark.parametrize(
    ("formula", "mentions"),
    [
        (ISSUE, "exceeds the ceiling of 100 000"),  # SIGFPE (exit 136) before issue 40
        ("s+\\sqrt{-1}", "\\sqrt{-1}' at position 2 is not real"),  # UNDECIDED before
        ("10^{999}10^{999}10^{999}10^{999}10^{999}", "ceiling of 4 000"),  # a traceback
        ("e^{1000000000000 (c_0 - s)/\\lambda}", "ceiling of 100 000"),  # SIGFPE
    ],
)
def test_cli_refuses_in_one_line(formula, mentions):
    result = run_cli(["check-formula", "truncated.mean", formula], timeout=30, memory_gib=2)
    assert_refused(result, mentions=mentions, within=REFUSE_WITHIN)


@pytest.mark.parametrize(
    ("formula", "method", "note"),
    [
        # SIGFPE before issue 40 (a generator of degree about 10^12 in flint's gcd)
        (
            "s+e^{\\frac{999999999999}{1000000000000}(c_0-s)/\\lambda}",
            "ball arithmetic",
            "polynomial reduction and simplify skipped",
        ),
        # UNDECIDED before issue 40: nan in real balls at every point
        ("\\sqrt{s-c_1-1}", "the formula is not real at this point", None),
    ],
)
def test_cli_answers_with_a_confirmed_witness(formula, method, note):
    result = run_cli(["check-formula", "truncated.mean", formula], timeout=60, memory_gib=2)
    assert_no_traceback(result)
    assert result.code == 1, result.describe()
    assert "truncated.mean: DIFFERS" in result.stdout
    assert method in result.stdout
    if note is not None:
        assert note in result.stdout
    assert result.seconds <= ANSWER_WITHIN, result.describe()


# --------------------------------------------------------------------------- generated


DRIVER = r"""
import contextlib, io, json, resource, sys, time
from dpcheck import cli
for line in sys.stdin:
    args = json.loads(line)
    out, err = io.StringIO(), io.StringIO()
    start = time.monotonic()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = cli.main(args)
    except BaseException as exc:  # the real CLI would print a traceback
        code = None
        err.write(f"Traceback (in the driver): {type(exc).__name__}: {exc}"[:2000])
    print(json.dumps({
        "code": code,
        "stdout": out.getvalue()[-2000:],
        "stderr": err.getvalue(),
        "seconds": time.monotonic() - start,
        "rss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
    }), flush=True)
"""


class Driver:
    """A child ``python -c DRIVER`` (memory capped, its own session) that runs
    ``dpcheck.cli.main`` on one argument list per line; restarted after a death."""

    def __init__(self, memory_gib: float = MEMORY_GIB) -> None:
        self.memory_gib = memory_gib
        self.proc: subprocess.Popen[str] | None = None
        self.lines: queue.Queue[str | None] = queue.Queue()

    def _start(self) -> subprocess.Popen[str]:
        proc = subprocess.Popen(
            [sys.executable, "-c", DRIVER],
            cwd=str(ROOT),
            env=child_env(),
            preexec_fn=limit_memory(self.memory_gib),
            start_new_session=True,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            errors="replace",
        )
        self.lines = queue.Queue()
        lines = self.lines

        def pump() -> None:
            for line in proc.stdout:
                lines.put(line)
            lines.put(None)

        threading.Thread(target=pump, daemon=True).start()
        return proc

    def run(self, args: list[str], timeout: float) -> dict[str, Any]:
        """The driver's record for ``args``; ``{"died": code, "stderr": ...}`` if the child
        died (a signal: code < 0), ``{"timeout": ...}`` if it did not answer in time."""
        if self.proc is None or self.proc.poll() is not None:
            self.proc = self._start()
        proc = self.proc
        proc.stdin.write(json.dumps(args) + "\n")
        proc.stdin.flush()
        try:
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            self.close()
            return {"timeout": timeout}
        if line is None:
            code = proc.wait()
            err = proc.stderr.read()
            self.proc = None
            return {"died": code, "stderr": err[-1000:]}
        return json.loads(line)

    def close(self) -> None:
        if self.proc is not None:
            kill_group(self.proc)
            self.proc.wait()
            self.proc = None


@pytest.fixture(scope="module")
def driver() -> Iterator[Driver]:
    d = Driver()
    try:
        yield d
    finally:
        d.close()


def check_contract(record: dict[str, Any], args: list[str]) -> None:
    """An answer (0 equal, 1 differs or undecided) or one refusal line (2); no traceback,
    no signal; within ANSWER_WITHIN seconds and MAX_RSS_GIB of memory."""
    where = f"dpcheck {' '.join(shorten(a) for a in args)}"
    assert "died" not in record, f"{where}: the child died (exit {record['died']})\n{record}"
    assert "timeout" not in record, f"{where}: no answer within {record['timeout']} s"
    code, err = record["code"], record["stderr"]
    assert code in (0, 1, 2), f"{where}: exit {code}\n{err[-1000:]}"
    assert "Traceback" not in err, f"{where}:\n{err[-1000:]}"
    if code == 2:
        lines = err.splitlines()
        assert len(lines) == 1, f"{where}: expected one stderr line\n{err[-1000:]}"
        assert lines[0].startswith(ERROR_PREFIX), lines[0]
        assert len(lines[0]) <= MAX_ERROR_CHARS, lines[0]
    else:
        assert err == "", f"{where}: stderr on an answer\n{err[-1000:]}"
    assert record["seconds"] <= ANSWER_WITHIN, f"{where}: {record['seconds']:.1f} s"
    assert record["rss_kib"] <= MAX_RSS_GIB * 2**20, f"{where}: {record['rss_kib']} KiB"


_LEAVES = st.sampled_from(
    ["s", "c_0", "c_1", "\\lambda", "2", "0.5", "7", "1000", "999999999999", "-1", "-8",
     "e", "\\pi", "10^{999}", "(s-c_1-1)", "(c_0-s)", "\\frac{s}{3}"]
)  # fmt: skip
_EXPONENTS = st.sampled_from(
    ["2", "3", "-1", "1000", "999", "-1000", "1/2", "1/3", "999/1000", "0.5", "s", "-s",
     "\\lambda", "10^{3}", "\\frac{1}{997}"]
)  # fmt: skip
_BASES = st.sampled_from(["s", "s+c_0", "2s", "e^{s}", "10", "\\frac{s}{3}", "s-c_1-1", "-8"])


def _extend(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.one_of(
        st.builds(lambda a, k: f"({a})^{{{k}}}", children, _EXPONENTS),
        st.builds(lambda a, b: f"\\frac{{{a}}}{{{b}}}", children, children),
        st.builds(
            lambda i, a: f"\\sqrt{i}{{{a}}}", st.sampled_from(["", "[3]", "[4]", "[999]"]), children
        ),
        st.builds(lambda a: f"e^{{{a}}}", children),
        st.builds(lambda a: f"\\log\\left({a}\\right)", children),
        st.builds(lambda a, b: f"{a}+{b}", children, children),
        st.builds(lambda a, b: f"({a})\\cdot({b})", children, children),
    )


#: random trees of powers, fractions, roots, exponentials, logs, sums and products
random_trees = st.recursive(_LEAVES, _extend, max_leaves=10)
#: (((b^{k1})^{k2})...)^{kn}: the issue's shape
nested_powers = st.builds(
    lambda base, ks: reduce(lambda acc, k: f"({acc})^{{{k}}}", ks, base),
    _BASES,
    st.lists(st.integers(2, 1000), min_size=3, max_size=6),
)
#: ((((b)^{2})^{2})...)^{2}: repeated squaring through nested parentheses
repeated_squaring = st.builds(
    lambda base, n: "(" * n + base + ")^{2}" * n, _BASES, st.integers(2, 49)
)
#: e^{e^{...}} towers
towers = st.builds(
    lambda top, n: "e^{" * n + top + "}" * n,
    st.sampled_from(["s", "1000 s", "-s^2", "\\lambda", "s-c_1", "10"]),
    st.integers(2, 12),
)
#: long products of large powers or constants
products = st.builds(
    lambda factor, n: "\\cdot ".join([factor] * n),
    st.sampled_from(
        [
            "10^{999}",
            "s^{1000}",
            "e^{1000 s}",
            "(7s+3)^{1000}",
            "\\frac{1}{3^{600}}",
            "(s+c_0)^{999}",
            "\\sqrt[997]{s}",
            "s^{1/991}",
        ]
    ),
    st.integers(2, 40),
)
#: \frac{1}{\frac{1}{...}} with powers inside
fraction_towers = st.builds(
    lambda k, n: "\\frac{1}{" * n + f"(s+c_0)^{{{k}}}" + "}" * n,
    st.integers(2, 1000),
    st.integers(1, 40),
)
#: roots of (possibly) negative values, nested
roots = st.builds(
    lambda index, a, n: f"\\sqrt{index}{{" * n + a + "}" * n,
    st.sampled_from(["", "[3]", "[4]"]),
    st.sampled_from(["-1", "s-c_1-1", "-s^2", "e-3", "c_0-s", "\\lambda"]),
    st.integers(1, 10),
)
#: e^{(p/q)(c_0 - s)/\lambda}: exponent coefficients with large numerators
exp_coefficients = st.builds(
    lambda p, q: f"s+e^{{\\frac{{{p}}}{{{q}}}(c_0-s)/\\lambda}}",
    st.integers(1, 10**15),
    st.integers(1, 10**15),
)
hostile_formulas = st.one_of(
    random_trees,
    nested_powers,
    repeated_squaring,
    towers,
    products,
    fraction_towers,
    roots,
    exp_coefficients,
)

HOSTILE = settings(
    deadline=None,
    derandomize=True,
    database=None,
    phases=[Phase.explicit, Phase.generate],
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@settings(HOSTILE, max_examples=30)
@given(formula=hostile_formulas)
@example(formula=ISSUE)  # SIGFPE before issue 40
@example(formula="s+\\sqrt{-1}")  # UNDECIDED before
@example(formula="\\cdot ".join(["10^{999}"] * 5))  # a traceback before
@example(formula="s+e^{\\frac{184}{106993573762492}(c_0-s)/\\lambda}")  # SIGFPE before
def test_generated_hostile_formulas(driver, formula):
    """30 generated formulas (and the explicit examples) against truncated.mean (Liu's
    route: the exact reduction with cancel and gcd, where the SIGFPE was)."""
    args = ["check-formula", "truncated.mean", formula]
    note(f"formula: {formula}")
    check_contract(driver.run(args, timeout=2 * ANSWER_WITHIN), args)


@pytest.mark.slow
@settings(HOSTILE, max_examples=200)
@given(
    formula=hostile_formulas,
    quantity=st.sampled_from(
        [
            "truncated.mean",
            "bit.mse",
            "truncated-gaussian.mean",
            "clamped-geometric.var",
            "truncated-laplace.var.lower",
        ]
    ),
    against=st.booleans(),
)
def test_generated_hostile_formulas_every_route(driver, formula, quantity, against):
    """200 more, on the general routes too, and as the --against formula."""
    if against:
        args = ["check-formula", quantity, "s", f"--against={formula}"]
    else:
        args = ["check-formula", quantity, formula]
    note(f"args: {args}")
    check_contract(driver.run(args, timeout=2 * ANSWER_WITHIN), args)


@pytest.mark.slow
@pytest.mark.parametrize(
    "formula",
    [
        "(s^{1000}+c_0)^{99}",
        "\\frac{(s^{1000})^{50}+c_0}{(s^{999})^{50}+c_0^{7}}",
        "(7s+3)^{1000}",
        "(e^{(c_0-s)/\\lambda}+e^{(s-c_1)/\\lambda})^{1000}s^{1000}",
        "e^{e^{e^{e^{e^{e^{e^{e^{s}}}}}}}}",
    ],
)
def test_the_worst_accepted_formulas_finish_in_the_real_cli(formula):
    """Formulas at the ceilings, found by hand to be the slowest: answered within
    ANSWER_WITHIN seconds under a 3 GiB address-space cap (about 15 s and 0.2 GB each
    measured)."""
    result = run_cli(
        ["check-formula", "truncated.mean", formula], timeout=2 * ANSWER_WITHIN, memory_gib=3
    )
    assert_no_traceback(result)
    assert result.code in (0, 1), result.describe()
    assert result.seconds <= ANSWER_WITHIN, result.describe()
