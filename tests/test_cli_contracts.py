"""CLI contracts for CI (issue 20): exit codes, closed pipes, claim selection.

* ``check-formula``: 0 equal, 1 differs or undecided, 2 bad input.
* Every verb of :func:`dpcheck.cli.build_parser` (enumerated from the parser, so a
  new verb is covered, or this file fails until it is given cheap arguments),
  run as the real console script with its stdout a pipe whose read end is closed
  before the process starts: no traceback, no "Exception ignored", exit 2.  The
  close is reliable because nothing can ever read: the first write (or the flush
  at the end) fails, so exit 0 is impossible.  ``| head -1`` (one line read, then
  closed) is racy by nature, so there 0 (all written before the close) is allowed.
* ``verify ID`` selects that claim alone; a prefix needs a glob or a trailing dot;
  a bare document name (never a claim id) selects the document.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cli_subprocess import child_env, kill_group

from dpcheck import cli
from dpcheck.claims import registry, runner
from dpcheck.errors import InputError
from dpcheck.formula import cli as formula_cli
from dpcheck.papers import liu2019 as P

ROOT = Path(__file__).resolve().parents[1]


# --------------------------------------------------------------------------- check-formula


def test_check_formula_equal_is_0_differs_is_1(capsys):
    assert cli.main(["check-formula", "bit.mean", P.EQ7_MU2.latex]) == 0
    assert capsys.readouterr().out.startswith("bit.mean: EQUAL")
    perturbed = P.EQ7_MU2.latex.replace(r"\frac{\lambda}{2}", r"\lambda")
    assert cli.main(["check-formula", "bit.mean", perturbed]) == 1
    assert "DIFFERS" in capsys.readouterr().out
    assert cli.main(["check-formula", "bit.mean", perturbed, "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["verdict"] == "differs"


def test_check_formula_undecided_is_1(monkeypatch, capsys):
    """No real formula is known to stay undecided, so the comparison is replaced by one
    that answers 'undecided' (the exit code is the CLI's mapping, tested here)."""

    class Undecided:
        verdict = "undecided"

        def to_dict(self) -> dict:
            return {"verdict": "undecided"}

    monkeypatch.setattr(formula_cli, "check_formula", lambda *a: Undecided())
    assert cli.main(["check-formula", "bit.mean", "s", "--json"]) == 1
    assert json.loads(capsys.readouterr().out) == {"verdict": "undecided"}
    assert formula_cli.EXIT == {"equal": 0, "differs": 1, "undecided": 1}


def test_check_formula_bad_input_is_2(capsys):
    assert cli.main(["check-formula", "bit.mean", "exec('1')"]) == 2
    assert capsys.readouterr().err.startswith("dpcheck: error: ")


def test_check_formula_differs_through_the_console_script():
    perturbed = P.EQ7_MU2.latex.replace(r"\frac{\lambda}{2}", r"\lambda")
    done = subprocess.run(
        [*console_script(), "check-formula", "bit.mean", perturbed],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=child_env(),
        timeout=120,
    )
    assert done.returncode == 1, done.stderr
    assert "DIFFERS" in done.stdout and "Traceback" not in done.stderr


# --------------------------------------------------------------------------- closed pipes


def console_script() -> list[str]:
    """The installed ``dpcheck`` console script beside this Python (else ``-m dpcheck``,
    which calls the same :func:`dpcheck.cli.run`)."""
    script = Path(sys.executable).with_name("dpcheck")
    return [str(script)] if script.exists() else [sys.executable, "-m", "dpcheck"]


def verbs(parser: argparse.ArgumentParser | None = None, prefix: tuple[str, ...] = ()):
    """Every leaf command of the parser: ('verify',), ('krand', 'profile'), ..."""
    parser = parser or cli.build_parser()
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subs:
        yield prefix
        return
    for action in subs:
        for name, sub in action.choices.items():
            yield from verbs(sub, (*prefix, name))


SLOW = pytest.mark.slow
#: cheap arguments of each verb (after the verb's words); OUT is a fresh folder.  Each
#: verb writes at least one byte to stdout when it succeeds.
CHEAP: dict[tuple[str, ...], list] = {
    ("verify",): [
        pytest.param(["--list"], id="list"),
        pytest.param(["liu2019.eq6.mu1", "--quiet"], id="one-claim", marks=SLOW),
        *(
            pytest.param(["liu2019.eq7.mu2", "--format", f, "--quiet"], id=f, marks=SLOW)
            for f in ("json", "md", "tex", "junit", "html")
        ),
    ],
    ("simulate",): [pytest.param(["study1", "--reps", "2", "--out", "OUT", "--quiet"], marks=SLOW)],
    ("eval",): [pytest.param(["truncated.mean", "s=0.3", "c0=0", "c1=1", "lam=1"])],
    ("privacy",): [
        pytest.param(
            ["truncated", "--epsilon=1", "--sensitivity=1", "--lower=0", "--upper=2"], marks=SLOW
        )
    ],
    ("audit",): [
        pytest.param(
            ["truncated", "--epsilon=1", "--sensitivity=1", "--lower=0", "--upper=2"]
            + ["--samples=1000"],
            marks=SLOW,
        )
    ],
    ("sensitivity",): [
        pytest.param(["mean", "--neighbours", "substitute", "--n", "3"], marks=SLOW)
    ],
    ("krand", "profile"): [pytest.param(["--n", "10", "--L", "1", "--q", "0.25"], marks=SLOW)],
    ("derive",): [
        pytest.param(["--list"], id="list", marks=SLOW),
        pytest.param(["bit-mean", "--out", "OUT", "--quiet"], marks=SLOW),
    ],
    ("check-formula",): [pytest.param(["bit.mean", "s"])],
    ("compare", "diffprivlib"): [
        pytest.param(
            ["--mechanism=LaplaceTruncated", "--quantity=bias", "--epsilon=1", "--delta=0"]
            + ["--sensitivity=1", "--lower=0", "--upper=1", "--value=0.5", "--top=1"],
            id="one-point",
            marks=SLOW,
        ),
        pytest.param(["--top", "1"], id="top-1", marks=SLOW),
    ],
    ("compare", "dp-accounting"): [pytest.param([], marks=SLOW)],
    ("compare", "opendp"): [pytest.param([], marks=SLOW)],
}


def _cases():
    for verb, params in CHEAP.items():
        for p in params:
            name = " ".join(verb) + (f"-{p.id}" if p.id else "")
            yield pytest.param(verb, p.values[0], marks=p.marks, id=name)


def run_into_closed_pipe(argv: list[str], timeout: float = 600) -> tuple[int, str]:
    """Run the console script with stdout a pipe nobody will ever read (the read end is
    closed before the process starts, like ``dpcheck ... | true``): (exit code, stderr)."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        proc = subprocess.Popen(
            [*console_script(), *argv],
            stdout=write_end,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            cwd=ROOT,
            env=child_env(),
            start_new_session=True,
        )
    finally:
        os.close(write_end)
    try:
        _, err = proc.communicate(timeout=timeout)
    finally:
        if proc.poll() is None:
            kill_group(proc)
            proc.wait()
    return proc.returncode, err.decode("utf-8", "replace")


def _assert_clean(code: int, err: str, allowed: tuple[int, ...]) -> None:
    assert "Traceback" not in err, err[-1500:]
    assert "Exception ignored" not in err, err[-1500:]
    assert "dpcheck: error" not in err, err[-600:]  # a refusal would be exit 2 too
    assert code in allowed, f"exit {code}, expected {allowed}; stderr tail:\n{err[-600:]}"


def test_every_verb_has_cheap_arguments():
    """A verb added to the parser must be added to CHEAP (and so is tested)."""
    assert set(verbs()) == set(CHEAP)


@pytest.mark.parametrize("verb, args", list(_cases()))
def test_verb_into_a_closed_pipe_exits_2(verb, args, tmp_path):
    argv = [*verb, *(str(tmp_path / "out") if a == "OUT" else a for a in args)]
    code, err = run_into_closed_pipe(argv)
    _assert_clean(code, err, (2,))


@pytest.mark.parametrize(
    "verb",
    [pytest.param((), id="dpcheck")]
    + [pytest.param(v, id=" ".join(v), marks=SLOW) for v in sorted(CHEAP)],
)
def test_help_into_a_closed_pipe_exits_2(verb):
    """argparse swallows the write error of --help; the CLI does not (exit 2)."""
    code, err = run_into_closed_pipe([*verb, "--help"])
    _assert_clean(code, err, (2,))


def _head_1(argv: list[str], timeout: float) -> tuple[int, str, bytes]:
    """``dpcheck ARGV | head -1``: one line read, then the read end closed."""
    proc = subprocess.Popen(
        [*console_script(), *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        cwd=ROOT,
        env=child_env(),
        start_new_session=True,
    )
    try:
        line = proc.stdout.readline()
        proc.stdout.close()
        err = proc.stderr.read().decode("utf-8", "replace")
        return proc.wait(timeout=timeout), err, line
    finally:
        if proc.poll() is None:
            kill_group(proc)
            proc.wait()


def test_verify_list_head_1():
    code, err, line = _head_1(["verify", "--list"], 60)
    assert line.decode().strip() == runner_ids()[0]
    _assert_clean(code, err, (0, 2))


@pytest.mark.slow
def test_verify_head_1():
    """``dpcheck verify zz2016 | head -1``: a whole run of one document, then a closed pipe
    (the pipe is the same for any selection; the full registry runs in CI's verify step)."""
    start = time.monotonic()
    code, err, line = _head_1(["verify", "zz2016"], 900)
    assert line, err[-600:]
    _assert_clean(code, err, (0, 1, 2))  # 1: an inconclusive verdict, if the table fitted
    assert time.monotonic() - start < 900


# --------------------------------------------------------------------------- selection


def runner_ids() -> list[str]:
    return [c.id for c in registry.collect(ROOT / "proofs")]


@pytest.fixture(scope="module")
def claims():
    return registry.collect(ROOT / "proofs")


def _ids(claims, *patterns: str) -> list[str]:
    return [c.id for c in runner.select(claims, patterns)]


def test_an_exact_id_selects_that_claim_alone(claims):
    """Every registered id, including those that are also the start of other ids
    (zz2016.prop4.1 and zz2016.prop4.1.proof_identities)."""
    ids = [c.id for c in claims]
    assert any(b.startswith(a + ".") for a in ids for b in ids)  # the case exists
    for cid in ids:
        assert _ids(claims, cid) == [cid]


def _dotted_prefixes(ids: list[str]) -> set[str]:
    """Every proper prefix of an id that ends before a dot and has a dot itself."""
    out = set()
    for cid in ids:
        parts = cid.split(".")
        out |= {".".join(parts[:k]) for k in range(2, len(parts))}
    return out


def test_prefixes_need_a_trailing_dot_or_a_glob(claims):
    ids = [c.id for c in claims]
    for prefix in sorted(_dotted_prefixes(ids)):
        below = [i for i in ids if i.startswith(prefix + ".")]
        assert _ids(claims, prefix + ".") == below
        star = _ids(claims, prefix + "*")
        assert set(below) <= set(star)
        assert all(i.startswith(prefix) for i in star)
        if prefix not in ids:
            with pytest.raises(InputError) as info:
                runner.select(claims, [prefix])
            message = str(info.value)
            assert repr(prefix) in message and f"'{prefix}.'" in message, message
        else:
            assert _ids(claims, prefix) == [prefix]


def test_a_document_name_selects_the_document(claims):
    ids = [c.id for c in claims]
    for document in {c.document for c in claims}:
        assert "." not in document and document not in ids
        expected = [i for i in ids if i.split(".")[0] == document]
        assert _ids(claims, document) == expected == _ids(claims, document + ".")


def test_selection_keeps_registry_order_and_has_no_duplicates(claims):
    ids = [c.id for c in claims]
    got = _ids(claims, ids[-1], ids[0], ids[0] + "*", ids[0])
    assert got == sorted(set(got), key=ids.index) and got[0] == ids[0]


@pytest.mark.parametrize("pattern", ["nope", "liu2019.nope", "liu2019.eq6.mu1.", "*.zzz"])
def test_a_pattern_matching_nothing_is_refused(claims, pattern):
    with pytest.raises(InputError, match="no claim matches"):
        runner.select(claims, [pattern])


def test_verify_list_shows_the_selection(capsys):
    proofs = ["--proofs", str(ROOT / "proofs")]
    assert cli.main(["verify", "--list", "zz2016.prop4.1", *proofs]) == 0
    assert capsys.readouterr().out.split() == ["zz2016.prop4.1"]
    assert cli.main(["verify", "--list", "zz2016.prop4.1*", *proofs]) == 0
    assert capsys.readouterr().out.split() == [
        "zz2016.prop4.1",
        "zz2016.prop4.1.proof_identities",
    ]
    assert cli.main(["verify", "--list", "liu2019.appB", *proofs]) == 2
    err = capsys.readouterr().err
    assert "liu2019.appB." in err and len(err.strip().splitlines()) == 1
