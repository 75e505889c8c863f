"""The shared input and output layer of issue 17: numbers, ceilings, paths, atomic writes.

In-process and fast; the subprocess suite over every verb is tests/test_hostile_input.py.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from fractions import Fraction
from pathlib import Path

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpcheck.errors import InputError
from dpcheck.inputs import limits
from dpcheck.inputs.numbers import MAX_CHARS, MAX_EXPONENT, parse_count, parse_number, shown
from dpcheck.numeric import mp
from dpcheck.numeric.params import MechanismParams
from dpcheck.outputs import atomic, interrupts
from dpcheck.outputs.paths import PLOT_SUFFIXES, output_file, output_folder

# ------------------------------------------------------------------ numbers


@pytest.mark.parametrize(
    "text,value",
    [
        ("0.25", Fraction(1, 4)),
        ("-3", Fraction(-3)),
        ("1e-6", Fraction(1, 10**6)),
        (".5", Fraction(1, 2)),
        ("+.5e+3", Fraction(500)),
        ("3/7", Fraction(3, 7)),
        ("-1/3", Fraction(-1, 3)),
        (" 2 ", Fraction(2)),
        ("1e1000", Fraction(10**1000)),
        ("0e99999999999", Fraction(0)),
    ],
)
def test_ascii_decimal_notation_is_read_exactly(text, value):
    assert parse_number("x", text) == value


@pytest.mark.parametrize(
    "text",
    [
        "١",
        "١/2",
        "１",
        "²",
        "1_0",
        "inf",
        "-inf",
        "nan",
        "Infinity",
        "",
        "   ",
        "0x10",
        "10**400",
        "1e",
        "e5",
        "1.2.3",
        "5/0",
        "1/2e3",
        "--1",
        "1,5",
        "½",
    ],
)
def test_everything_else_is_refused_in_one_line(text):
    with pytest.raises(InputError) as info:
        parse_number("x", text)
    message = str(info.value)
    assert "\n" not in message and message.startswith("x=")


@pytest.mark.parametrize("text", ["1e999999999", "1e-999999999", "9" * 300 + "e800", "1e1001"])
def test_huge_exponents_are_refused_at_once_with_the_ceiling_named(text):
    start = time.perf_counter()
    with pytest.raises(InputError, match="ceiling of magnitudes"):
        parse_number("lam", text)
    assert time.perf_counter() - start < 0.1


def test_long_values_are_cut_in_the_message():
    with pytest.raises(InputError) as info:
        parse_number("s", "1" * 100_000)
    assert len(str(info.value)) < 200 and str(MAX_CHARS) in str(info.value)
    assert len(shown("x" * 10**6)) < 80


@settings(max_examples=200, deadline=None)
@given(
    st.integers(min_value=-(10**40), max_value=10**40),
    st.integers(min_value=-MAX_EXPONENT + 45, max_value=MAX_EXPONENT - 45),
)
def test_round_trip_of_generated_decimals(mantissa, exponent):
    assert parse_number("x", f"{mantissa}e{exponent}") == mantissa * Fraction(10) ** exponent


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(categories=["Nd", "No"]), min_size=1, max_size=5))
def test_no_unicode_digit_is_a_number_unless_ascii(text):
    if all("0" <= ch <= "9" for ch in text):
        assert parse_number("x", text) == int(text)
    else:
        with pytest.raises(InputError, match="non-ASCII"):
            parse_number("x", text)


def test_counts_name_option_and_ceiling():
    with pytest.raises(InputError, match=r"--reps 1000000000 is above the ceiling of 100 000"):
        limits.count("simulate", "--reps", "1e9", 2)
    with pytest.raises(InputError, match="is not an integer"):
        parse_count("n", "2.5")
    assert limits.count("simulate", "--reps", "1e3", 2) == 1000
    with pytest.raises(InputError, match="about 10"):
        parse_count("n", "1e900", 0, 10)


# ------------------------------------------------------------------ huge and tiny scales


@pytest.mark.parametrize("lam", ["1e100", "1e300", "1e309", "1e1000"])
def test_eval_at_huge_scale_gives_the_uniform_limit(lam):
    """λ → ∞: the truncated law tends to the uniform law on [c0, c1] (mean 1/2, var 1/12,
    MSE at s = 0: 1/3) and the BIT law to ½ at each bound (mean 1/2, var 1/4)."""
    at = MechanismParams.from_mapping({"s": "0", "c0": "0", "c1": "1", "lam": lam})
    expected = {
        "truncated.mean": Fraction(1, 2),
        "truncated.var": Fraction(1, 12),
        "truncated.mse": Fraction(1, 3),
        "bit.mean": Fraction(1, 2),
        "bit.var": Fraction(1, 4),
        "bit.mse": Fraction(1, 2),
    }
    for name, limit in expected.items():
        value = mp.evaluate(name, at, 30)
        assert abs(value - mpmath.mpf(limit.numerator) / limit.denominator) < 1e-12, name


@pytest.mark.parametrize("lam", ["1e-300", "1e-1000"])
def test_eval_at_tiny_scale_gives_the_laplace_limit(lam):
    """λ → 0 at the midpoint: no truncation is felt, variance 2λ^2 (Laplace)."""
    at = MechanismParams.from_mapping({"s": "0", "c0": "-1", "c1": "1", "lam": lam})
    value = mp.evaluate("truncated.var", at, 30)
    with mpmath.workdps(40):
        lam_ = mpmath.mpf(10) ** int(lam[2:])
        assert abs(value / (2 * lam_**2) - 1) < 1e-25


# ------------------------------------------------------------------ output paths


def test_output_file_refusals(tmp_path):
    afile = tmp_path / "afile.txt"
    afile.write_text("x")
    cases = {
        "": "empty",
        "  ": "empty",
        str(tmp_path): "is a folder",
        str(tmp_path) + "/": "is a folder",
        "/dev/full": "not a regular file",
        str(tmp_path / "missing" / "x.json"): "does not exist",
        str(afile / "x.json"): "is a file, not a folder",
        "/sys/x.json": "cannot write",
        "x\x00y": "control characters",
    }
    for text, words in cases.items():
        with pytest.raises(InputError, match=words):
            output_file("--output", text)
    for name in ("x.txt", "x", "x.PNG.gz"):
        with pytest.raises(InputError, match="expected a file name ending in"):
            output_file("--plot", str(tmp_path / name), PLOT_SUFFIXES)
    assert output_file("--plot", str(tmp_path / "x.PDF"), PLOT_SUFFIXES).name == "x.PDF"
    assert list(tmp_path.iterdir()) == [afile], "the checks leave no probe file"


def test_output_folder(tmp_path):
    afile = tmp_path / "f"
    afile.write_text("x")
    with pytest.raises(InputError, match="is a file"):
        output_folder("--out", str(afile))
    with pytest.raises(InputError, match="is a file, not a folder"):
        output_folder("--out", str(afile / "sub"))
    with pytest.raises(InputError, match="empty"):
        output_folder("--out", "")
    with pytest.raises(InputError, match="does not exist"):
        output_folder("--out", str(tmp_path / "a" / "b"))
    new = output_folder("--out", str(tmp_path / "a"))
    assert not new.exists(), "nothing is created before the run commits"


# ------------------------------------------------------------------ atomic writes


def test_transaction_commits_all_files_together(tmp_path):
    with atomic.transaction() as out:
        out.write_text(tmp_path / "sub" / "a.txt", "A")
        with out.writing(tmp_path / "sub" / "b.png") as tmp:
            assert tmp.suffix == ".png" and tmp.parent == tmp_path
            tmp.write_bytes(b"B")
        assert not (tmp_path / "sub").exists()
    assert (tmp_path / "sub" / "a.txt").read_text() == "A"
    assert (tmp_path / "sub" / "b.png").read_bytes() == b"B"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sub"]


def test_transaction_leaves_nothing_on_error(tmp_path):
    (tmp_path / "a.txt").write_text("old")
    with pytest.raises(RuntimeError):
        with atomic.transaction() as out:
            out.write_text(tmp_path / "a.txt", "new")
            out.write_text(tmp_path / "b.txt", "new")
            raise RuntimeError("boom")
    assert [p.name for p in tmp_path.iterdir()] == ["a.txt"]
    assert (tmp_path / "a.txt").read_text() == "old"


def test_a_swallowed_interrupt_still_prevents_the_commit(tmp_path):
    """An interrupt Python swallowed ("Exception ignored in ...") is recorded; commit refuses."""
    previous = interrupts.install()
    try:
        with pytest.raises(KeyboardInterrupt):
            with atomic.transaction() as out:
                out.write_text(tmp_path / "a.txt", "new")
                try:
                    os.kill(os.getpid(), signal.SIGINT)
                    time.sleep(0.5)
                except KeyboardInterrupt:
                    pass  # swallowed, as a destructor would
        assert interrupts.interrupted()
        assert list(tmp_path.iterdir()) == []
    finally:
        interrupts.restore(previous)


def _sigint_default() -> None:
    """In the child before exec: SIGINT back to its default action.  A shell without job
    control starts background commands with SIGINT ignored, and a Python started with SIGINT
    ignored installs no KeyboardInterrupt handler, so these tests would run a different
    program (``pytest ... &`` from a script, ``nohup``, some CI runners)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


_SWALLOWED = """
import os, signal, sys, time
from dpcheck.outputs import interrupts
previous = interrupts.install() if sys.argv[1] == "install" else None
if sys.argv[1] == "silence":
    interrupts.silence_swallowed()
class Destructor:
    def __del__(self):
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.3)
try:
    Destructor()
    time.sleep(1.0)
    print("finished", interrupts.interrupted())
except KeyboardInterrupt:
    print("stopped", interrupts.interrupted())
"""


@pytest.mark.parametrize("how,expected", [
    ("install", "stopped True"),
    ("silence", "finished True"),
    ("python", None),
])
def test_an_interrupt_swallowed_by_a_destructor_prints_no_traceback(how, expected):
    """CI stop 25: SIGINT landing in a weakref callback printed "Exception ignored in
    ... Traceback".  Installed, the handler stays silent and delivers the interrupt
    again, so the run stops; Python's own hook (the control) prints the traceback."""
    done = subprocess.run(
        [sys.executable, "-c", _SWALLOWED, how], capture_output=True, text=True, timeout=60,
        preexec_fn=_sigint_default,
    )
    if expected is None:
        assert "Traceback" in done.stderr and "KeyboardInterrupt" in done.stderr
        return
    assert "Traceback" not in done.stderr, done.stderr
    assert done.stdout.strip() == expected, (done.stdout, done.stderr)


_SECOND_INTERRUPT = """
import _thread, signal, sys
from dpcheck import cli
def verb(argv):
    _thread.interrupt_main(signal.SIGINT)  # pending: delivered at the next call
    if sys.argv[1] == "interrupted":
        raise KeyboardInterrupt  # the verb stops; the pending one lands in the handler
    return 0
class Stderr:  # each message brings one more interrupt, as a second Ctrl-C would
    def __init__(self, stream):
        self.stream = stream
    def write(self, text):
        _thread.interrupt_main(signal.SIGINT)
        return self.stream.write(text)
    def flush(self):
        self.stream.flush()
cli._main = verb
sys.stderr = Stderr(sys.stderr)
cli.run()
"""


@pytest.mark.parametrize("how", ["interrupted", "finished"])
def test_a_second_interrupt_during_the_exit_is_not_a_death_by_signal(how):
    """CI stop 24: a second SIGINT (one delivered again after a destructor swallowed it)
    landed in ``run()``'s handler after the message and escaped: exit -2 instead of 130.
    The old ``run()`` (mutation) exits -2 here."""
    done = subprocess.run(
        [sys.executable, "-c", _SECOND_INTERRUPT, how], capture_output=True, text=True,
        timeout=60, preexec_fn=_sigint_default,
    )
    assert done.returncode == 130, (done.returncode, done.stderr)
    assert "Traceback" not in done.stderr, done.stderr
    assert done.stderr.count("interrupted; no output written") == 1, done.stderr


def test_write_errors_are_one_line(tmp_path):
    with pytest.raises(InputError, match="cannot write"):
        with atomic.transaction() as out:
            with out.writing(tmp_path / "x.txt"):
                raise OSError(28, "No space left on device")
    assert list(tmp_path.iterdir()) == []


def test_readme_documents_every_ceiling():
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    assert limits.markdown_table() in readme
    for c in limits.CEILINGS.values():
        assert f"`{c.option}`" in readme

_INTERRUPT_IN_EXEC = """
import sys
from dpcheck import cli
def verb(argv):
    if sys.argv[1] == "exec":
        exec("raise KeyboardInterrupt")  # dataclasses and namedtuple build methods by exec
    raise KeyboardInterrupt
cli._main = verb
cli.run()
"""


@pytest.mark.parametrize("how", ["exec", "plain"])
def test_an_interrupt_through_exec_of_a_string_still_exits_130(tmp_path, how):
    """CI stop 26: ``python -m dpcheck derive`` interrupted exited -2 in about 1 trial in
    100 after printing its message.  CPython 3.11 marks a KeyboardInterrupt that escaped an
    ``exec`` of a string as unhandled although ``run()`` caught it, and a ``python -m`` run
    then kills itself by SIGINT.  The old ``run()`` (``sys.exit``; mutation) exits -2 on
    "exec" here."""
    (tmp_path / "interrupted_in_exec.py").write_text(_INTERRUPT_IN_EXEC, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "interrupted_in_exec", how], capture_output=True, text=True,
        timeout=60, cwd=tmp_path, preexec_fn=_sigint_default,
    )
    assert done.returncode == 130, (done.returncode, done.stderr)
    assert "Traceback" not in done.stderr, done.stderr
    assert done.stderr.count("interrupted; no output written") == 1, done.stderr


_INTERRUPT_TURNED_INTO_AN_ERROR = """
import sys
from dpcheck import cli
from dpcheck.outputs import interrupts
def verb(argv):
    interrupts.STATE["interrupted"] = sys.argv[1] == "after"
    raise ValueError("Invalid bounding box")  # what matplotlib's Agg made of a SIGINT
cli._main = verb
cli.run()
"""


@pytest.mark.parametrize("how", ["after", "none"])
def test_an_error_raised_by_the_interrupt_exits_130_quietly(tmp_path, how):
    """CI (issue 21's stop): a SIGINT during matplotlib's Agg drawing surfaced as
    "ValueError: Invalid bounding box" with a traceback and exit 1.  After a SIGINT, any
    escaping exception is the interrupt's: exit 130, no traceback; without one, the error
    still propagates (the "none" case, which is also what the old run() did to "after")."""
    (tmp_path / "interrupt_error.py").write_text(_INTERRUPT_TURNED_INTO_AN_ERROR, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "interrupt_error", how], capture_output=True, text=True,
        timeout=60, cwd=tmp_path, preexec_fn=_sigint_default,
    )
    if how == "after":
        assert done.returncode == 130, (done.returncode, done.stderr)
        assert "Traceback" not in done.stderr, done.stderr
        assert done.stderr.count("interrupted; no output written") == 1, done.stderr
    else:
        assert done.returncode == 1 and "ValueError: Invalid bounding box" in done.stderr


def test_main_returns_130_for_an_error_after_an_interrupt(monkeypatch):
    from dpcheck import cli
    from dpcheck.outputs import interrupts

    def verb(argv):
        interrupts.STATE["interrupted"] = True
        raise ValueError("Invalid bounding box")

    monkeypatch.setitem(interrupts.STATE, "interrupted", False)  # restored afterwards
    monkeypatch.setattr(cli, "_main", verb)
    assert cli.main([]) == 130
