"""Run the ``dpcheck`` CLI in a child process with a memory ceiling and a time limit.

Shared by the hostile-input and interrupt tests (issue 17).  The child is
``python -m dpcheck ARGS`` so the tests exercise the installed entry point's code
path without depending on the console script being on PATH.
"""

from __future__ import annotations

import os
import re
import resource
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import pytest

ROOT = Path(__file__).resolve().parents[1]
ERROR_PREFIX = "dpcheck: error: "
MAX_ERROR_CHARS = 400
# words that name a work ceiling in a refusal (case-insensitive)
CEILING_WORDS = ("ceiling", "at most", "limit")


@dataclass
class Result:
    args: list[str]
    code: int
    stdout: str
    stderr: str
    seconds: float

    def describe(self) -> str:
        """The command, exit code, time and the tail of stderr, for failure messages."""
        tail = self.stderr[-600:]
        return (
            f"dpcheck {shorten_args(self.args)}\n"
            f"exit {self.code} after {self.seconds:.2f} s\nstderr tail:\n{tail}"
        )


def shorten(text: str, limit: int = 80) -> str:
    """``text`` as a repr, cut in the middle when long (arguments may be 100 000 chars)."""
    r = repr(text)
    if len(r) <= limit:
        return r
    return f"{r[: limit // 2]}...<{len(text)} chars>...{r[-limit // 2 :]}"


def shorten_args(args: list[str]) -> str:
    return " ".join(shorten(a) for a in args)


def command(args: list[str]) -> list[str]:
    return [sys.executable, "-m", "dpcheck", *args]


def limit_memory(memory_gib: float):
    """A preexec_fn that caps the child's address space (RLIMIT_AS)."""
    limit = int(memory_gib * 2**30)

    def preexec() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    return preexec


def child_env() -> dict[str, str]:
    env = dict(os.environ)
    env.setdefault("MPLBACKEND", "Agg")
    # one BLAS thread: each thread reserves address space counted by RLIMIT_AS
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        env.setdefault(var, "1")
    env["PYTHONIOENCODING"] = "utf-8"
    env.pop("PYTHONWARNINGS", None)
    return env


def popen(args: list[str], *, memory_gib: float = 4, cwd: Path | str = ROOT, **kwargs):
    """Start ``python -m dpcheck ARGS`` (in its own session, memory capped)."""
    return subprocess.Popen(
        command(args),
        cwd=str(cwd),
        env=child_env(),
        preexec_fn=limit_memory(memory_gib),
        start_new_session=True,
        **kwargs,
    )


def kill_group(proc: subprocess.Popen) -> None:
    """Kill the child and anything it started (it leads its own session)."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    proc.kill()


def run_cli(
    args: list[str],
    timeout: float = 30,
    memory_gib: float = 4,
    input: str | None = None,
    cwd: Path | str = ROOT,
) -> Result:
    """Run ``dpcheck ARGS``; a hang past ``timeout`` kills the child and fails the test."""
    args = [str(a) for a in args]
    start = time.monotonic()
    proc = popen(
        args,
        memory_gib=memory_gib,
        cwd=cwd,
        stdin=subprocess.PIPE if input is not None else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        encoding="utf-8",
        errors="replace",
    )
    timed_out = False
    try:
        out, err = proc.communicate(input=input, timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        kill_group(proc)
        out, err = proc.communicate()
    finally:
        if proc.poll() is None:
            kill_group(proc)
            proc.wait()
    if timed_out:
        pytest.fail(
            f"dpcheck {shorten_args(args)} did not finish within {timeout} s (killed)\n"
            f"stderr tail:\n{(err or '')[-600:]}",
            pytrace=False,
        )
    return Result(args, proc.returncode, out, err, time.monotonic() - start)


def assert_no_traceback(result: Result) -> None:
    """No Python traceback and no 'Exception ignored' noise on stderr, no death by signal."""
    assert "Traceback" not in result.stderr, result.describe()
    assert "Exception ignored" not in result.stderr, result.describe()
    assert result.code >= 0, f"killed by signal {-result.code}\n{result.describe()}"


def assert_refused(
    result: Result,
    *,
    mentions: str | tuple[str, ...] | None = None,
    within: float | None = None,
) -> str:
    """The refusal contract: exit 2, one stderr line ``dpcheck: error: ...`` (<= 400 chars).

    ``mentions``: a substring (or any of several, case-insensitive) the line must contain.
    ``within``: the refusal must come within this many seconds.  Returns the line.
    """
    assert_no_traceback(result)
    assert result.code == 2, f"expected exit 2 (refusal)\n{result.describe()}"
    # a line ends at \n or \r (a raw \r echoed from the input would overwrite the line)
    lines = re.split(r"\r\n|\r|\n", result.stderr.removesuffix("\n"))
    lines = [] if lines == [""] else lines
    assert len(lines) == 1, (
        f"expected exactly one stderr line, got {len(lines)}\n{result.describe()}"
    )
    line = lines[0]
    assert line.startswith(ERROR_PREFIX), f"stderr line lacks {ERROR_PREFIX!r}\n{result.describe()}"
    assert len(line) <= MAX_ERROR_CHARS, (
        f"error line has {len(line)} chars (> {MAX_ERROR_CHARS})\n{result.describe()}"
    )
    if mentions is not None:
        words = (mentions,) if isinstance(mentions, str) else mentions
        assert any(w.lower() in line.lower() for w in words), (
            f"error line mentions none of {words}\n{result.describe()}"
        )
    if within is not None:
        assert result.seconds <= within, (
            f"refusal took {result.seconds:.1f} s (> {within} s)\n{result.describe()}"
        )
    return line


def assert_answered_or_refused(result: Result, *, ok_codes: tuple[int, ...] = (0,)) -> None:
    """Either an answer (an exit code in ``ok_codes``, no traceback) or a proper refusal."""
    if result.code == 2:
        assert_refused(result)
        return
    assert_no_traceback(result)
    assert result.code in ok_codes, f"expected exit {ok_codes} or a refusal\n{result.describe()}"


_NUMBER = re.compile(r"[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?")


def last_number(stdout: str) -> float:
    """The first number on the last non-empty stdout line (eval prints the value alone)."""
    lines = [ln for ln in stdout.splitlines() if ln.strip()]
    assert lines, "no output"
    m = _NUMBER.search(lines[-1])
    assert m, f"no number in {lines[-1]!r}"
    return float(m.group(0))


@dataclass(frozen=True)
class VerbCase:
    """One generated command of a hostile suite: ``VERB mechanism --json options...``;
    ``hostile`` names the option given a hostile value (None: every value is valid)."""

    VERB: ClassVar[str] = ""

    mechanism: str
    options: tuple[tuple[str, str], ...]
    hostile: str | None

    @property
    def args(self) -> list[str]:
        out = [self.VERB, self.mechanism, "--json"]
        for option, value in self.options:
            out += [option, value]
        return out

    def value(self, option: str) -> str | None:
        return dict(self.options).get(option)

    def __str__(self) -> str:  # the test id
        return " ".join(self.args[1:])
