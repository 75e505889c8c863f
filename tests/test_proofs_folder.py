"""The proofs folder is code that runs (issue 40): which folder, and hostile folders.

``dpcheck verify`` imports ``<folder>/<document>/*.py`` like pytest imports tests.

* Which folder: ``--proofs``, ``$DPCHECK_PROOFS``, the ``proofs`` folder of a (trusted)
  dpcheck project root, else the shipped claims; a ``proofs`` folder above the working
  directory that is not that is never imported (its file would write a marker).
* Hostile values and broken folders (:data:`CASES`, generated below: odd paths, broken
  proof files of each kind, each given as ``--proofs`` and as ``$DPCHECK_PROOFS``) end
  with an answer (exit 0/1) or the refusal contract (one ``dpcheck: error:`` line naming
  the file and the problem, exit 2), never a traceback or a signal.  Every case runs
  in-process (fast, and one after another in one process, which also checks that a
  failed collection leaves nothing behind); a few run as ``python -m dpcheck`` children
  (fast), all of them do under ``-m slow``.
* A failed collection is atomic (:func:`dpcheck.claims.registry.collect`).
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from cli_subprocess import (
    ROOT,
    Result,
    assert_answered_or_refused,
    assert_refused,
    run_cli,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dpcheck import cli
from dpcheck.claims import registry
from dpcheck.errors import InputError

IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
NOTE = "(code that runs)"


def claim_file(claim_id: str = "tiny.eq1.one", fn: str = "one", body: str = "") -> str:
    """A proof file with one trivial claim (proved), and ``body`` after it."""
    return (
        "from dpcheck.claims.model import Kind, Status, Verdict, step\n"
        "from dpcheck.claims.registry import claim\n"
        "\n"
        "\n"
        f"@claim({claim_id!r}, source='eq (1)', statement='1 = 1')\n"
        f"def {fn}() -> Verdict:\n"
        "    return Verdict(\n"
        "        Status.PROVED, 'arithmetic', {'finding': '1 - 1 = 0'}, domain='every case',\n"
        "        basis=[step(Kind.SYMBOLIC, '1 - 1 reduced to 0')],\n"
        "    )\n" + body
    )


def make_folder(base: Path, files: dict[str, str | bytes], name: str = "proofs") -> Path:
    """``base/name`` with ``files`` (relative path -> text or bytes)."""
    root = base / name
    root.mkdir(parents=True, exist_ok=True)
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return root


def good_folder(base: Path, name: str = "proofs") -> Path:
    return make_folder(base, {"tiny/10_one.py": claim_file()}, name)


def with_bad_file(content: str | bytes, *, name: str = "20_bad.py") -> Callable[[Path], str]:
    """A builder: a good file and ``tiny/<name>`` holding ``content``."""

    def build(base: Path) -> str:
        return str(make_folder(base, {"tiny/10_one.py": claim_file(), f"tiny/{name}": content}))

    return build


def with_entry(make: Callable[[Path], None]) -> Callable[[Path], str]:
    """A builder: a good file, and ``make(path of tiny/20_bad.py)`` creates an odd entry."""

    def build(base: Path) -> str:
        root = good_folder(base)
        make(root / "tiny" / "20_bad.py")
        return str(root)

    return build


def _symlink_loop(path: Path) -> None:
    path.symlink_to(path.name)


def _fifo(path: Path) -> None:
    os.mkfifo(path)


def _sparse(path: Path) -> None:
    with open(path, "wb") as handle:
        handle.truncate(registry.MAX_PROOF_BYTES + 1)


def _unreadable(path: Path) -> None:
    path.write_text(claim_file("tiny.eq1.two", "two"))
    path.chmod(0)


def _loop_dir(base: Path) -> str:
    (base / "loop").symlink_to("loop")
    return str(base / "loop")


def _loop_inside(base: Path) -> str:
    root = base / "proofs"
    root.mkdir()
    (root / "tiny").symlink_to("tiny")
    return str(root)


def _cycle_inside(base: Path) -> str:
    root = base / "proofs"
    root.mkdir()
    (root / "up").symlink_to("..")
    return str(root)


def _a_file(base: Path) -> str:
    (base / "claims.py").write_text(claim_file())
    return str(base / "claims.py")


def _empty_dir(base: Path) -> str:
    (base / "proofs").mkdir()
    return str(base / "proofs")


def _symlinked_good(base: Path) -> str:
    good_folder(base)
    (base / "link").symlink_to("proofs")
    return str(base / "link")


def _unicode_good(base: Path) -> str:
    return str(make_folder(base, {"tíny/10_ü∑.py": claim_file("tiny.eq1.one")}, "prüfungen-∑😀"))


def _helpers_skipped(base: Path) -> str:
    return str(
        make_folder(base, {"tiny/10_one.py": claim_file(), "tiny/_helper.py": "raise ValueError\n"})
    )


@dataclass(frozen=True)
class Case:
    """One generated case: ``make(base)`` builds it and gives the folder value.

    ``outcome`` is "refused" (``mentions``: texts the one line must all hold) or
    "answer" (exit code in ``codes``; ``ids``: the claim ids listed, when given).
    ``env_outcome`` overrides ``outcome`` when the value comes from $DPCHECK_PROOFS;
    ``in_process`` False: only in a child (a FIFO would block the test run if the
    check that refuses it regressed).
    """

    name: str
    make: Callable[[Path], str]
    outcome: str
    mentions: tuple[str, ...] = ()
    args: tuple[str, ...] = ("--list",)
    codes: tuple[int, ...] = (0,)
    ids: tuple[str, ...] = ()
    env_outcome: str | None = None
    in_process: bool = True
    skip: str | None = None


def _value(text: str) -> Callable[[Path], str]:
    return lambda base: text


def _under(*parts: str) -> Callable[[Path], str]:
    return lambda base: str(base.joinpath(*parts))


REFUSED, ANSWER = "refused", "answer"
TINY = ("tiny.eq1.one",)
EXPECTED_FOLDER = "expected a folder"

CASES: list[Case] = [
    # ---------------------------------------------------------------- odd paths
    Case(
        "empty",
        _value(""),
        REFUSED,
        ("--proofs=''", "is empty", EXPECTED_FOLDER),
        env_outcome=ANSWER,
    ),
    Case("blank", _value(" "), REFUSED, ("' '", "blank", EXPECTED_FOLDER)),
    Case("tab-newline", _value("\t\n"), REFUSED, ("'\\t\\n'", "blank")),
    Case("ideographic-space", _value("\u3000"), REFUSED, ("'\\u3000'", "blank")),
    Case("missing", _under("no-such"), REFUSED, ("no-such", "does not exist")),
    Case("missing-unicode", _under("nó-such-∑-😀"), REFUSED, ("does not exist",)),
    Case("very-long", _value("a" * 5000), REFUSED, ("5000 characters", "cannot be opened")),
    Case("deep-long", _under(*["b" * 200] * 30), REFUSED, ("cannot be opened",)),
    Case("control-chars", _under("a\x1b[31mred\rx"), REFUSED, ("\\x1b", "does not exist")),
    Case("undecodable-bytes", _under("\udcff\udcfe"), REFUSED, ("\\udcff", "does not exist")),
    Case("dash", _value("-rf"), REFUSED, ("'-rf'", "does not exist")),
    Case("a-file", _a_file, REFUSED, ("claims.py", "is not a folder")),
    Case("dev-null", _value("/dev/null"), REFUSED, ("/dev/null", "is not a folder")),
    Case("empty-folder", _empty_dir, REFUSED, ("has no proof files",)),
    Case(
        "a-document-folder",
        lambda base: str(good_folder(base) / "tiny"),
        REFUSED,
        ("has no proof files", "the folder above"),
    ),
    Case("symlink-loop", _loop_dir, REFUSED, ("cannot be opened", "symbolic links")),
    Case("symlink-loop-inside", _loop_inside, REFUSED, ("has no proof files",)),
    Case("symlink-cycle-inside", _cycle_inside, REFUSED, ("has no proof files",)),
    Case("good", lambda base: str(good_folder(base)), ANSWER, ids=TINY),
    Case("good-relative", lambda base: (good_folder(base), "proofs")[1], ANSWER, ids=TINY),
    Case("good-symlinked", _symlinked_good, ANSWER, ids=TINY),
    Case("good-unicode", _unicode_good, ANSWER, ids=TINY),
    Case("underscore-files-skipped", _helpers_skipped, ANSWER, ids=TINY),
    # ---------------------------------------------------------------- broken proof files
    Case(
        "syntax-error",
        with_bad_file("x = 1\n\ndef f(:\n"),
        REFUSED,
        ("20_bad.py: SyntaxError at line 3",),
    ),
    Case("indentation-error", with_bad_file("if True:\nx = 1\n"), REFUSED, ("IndentationError",)),
    Case(
        "raises-at-import",
        with_bad_file("x = 1\ny = 1 / 0\n"),
        REFUSED,
        ("20_bad.py: raised ZeroDivisionError at import (line 2): division by zero",),
    ),
    Case(
        "missing-import",
        with_bad_file("import dpcheck_no_such_module\n"),
        REFUSED,
        ("ModuleNotFoundError", "dpcheck_no_such_module"),
    ),
    Case("sys-exit", with_bad_file("import sys\nsys.exit(3)\n"), REFUSED, ("SystemExit",)),
    Case("recursion", with_bad_file("def f():\n    f()\nf()\n"), REFUSED, ("RecursionError",)),
    Case(
        "hostile-str",
        with_bad_file(
            "class E(Exception):\n    def __str__(self):\n        raise RuntimeError\nraise E()\n"
        ),
        REFUSED,
        ("raised E at import", "cannot be shown"),
    ),
    Case(
        "huge-message", with_bad_file("raise ValueError('x' * 100_000)\n"), REFUSED, ("ValueError",)
    ),
    Case(
        "multiline-message",
        with_bad_file("raise ValueError('a\\nb\\r\\nc\\x1b[2J')\n"),
        REFUSED,
        ("ValueError", "a b c"),
    ),
    Case(
        "id-registered-twice",
        with_bad_file(claim_file("tiny.eq1.one", "two")),
        REFUSED,
        ("20_bad.py", "'tiny.eq1.one' registered twice", "10_one.py"),
    ),
    Case(
        "id-twice-in-one-file",
        with_bad_file(claim_file("tiny.eq1.x", "a") + claim_file("tiny.eq1.x", "b")),
        REFUSED,
        ("'tiny.eq1.x' registered twice", "20_bad.py, line"),
    ),
    Case(
        "malformed-id",
        with_bad_file(claim_file("Bad Id", "bad")),
        REFUSED,
        ("20_bad.py: claim id 'Bad Id' is not of the form <document>.<place>.<name>",),
    ),
    Case(
        "id-not-a-string",
        with_bad_file(claim_file("x", "bad").replace("'x'", "3")),
        REFUSED,
        ("claim id 3",),
    ),
    Case(
        "decorates-a-number",
        with_bad_file(
            "from dpcheck.claims.registry import claim\n"
            "claim('tiny.eq1.n', source='', statement='')(42)\n"
        ),
        REFUSED,
        ("not a function",),
    ),
    Case(
        "broken-symlink",
        with_entry(lambda p: p.symlink_to("nowhere")),
        REFUSED,
        ("20_bad.py: cannot be read",),
    ),
    Case("symlink-loop-file", with_entry(_symlink_loop), REFUSED, ("20_bad.py: cannot be read",)),
    Case(
        "fifo", with_entry(_fifo), REFUSED, ("20_bad.py: is not a regular file",), in_process=False
    ),
    Case("folder-named-py", with_entry(lambda p: p.mkdir()), REFUSED, ("is not a regular file",)),
    Case("huge-file", with_entry(_sparse), REFUSED, ("20_bad.py: is", "bytes, above")),
    Case(
        "unreadable",
        with_entry(_unreadable),
        REFUSED,
        ("20_bad.py: cannot be read (Permission denied)",),
        skip="root reads a chmod 000 file (the FIFO, broken-symlink and loop cases stand in)"
        if IS_ROOT
        else None,
    ),
    Case("not-utf8", with_bad_file(b"x = '\xff\xfe'\n"), REFUSED, ("SyntaxError", "20_bad.py")),
    Case("nul-bytes", with_bad_file(b"x = 1\x00\n"), REFUSED, ("20_bad.py",)),
    Case(
        "registers-no-claim",
        lambda base: str(make_folder(base, {"tiny/10_one.py": "x = 1\n"})),
        REFUSED,
        ("register no claim",),
    ),
    # ---------------------------------------------------------------- answers from odd checks
    Case(
        "check-raises",
        with_bad_file(
            claim_file("tiny.eq1.boom", "boom").replace(
                "return Verdict(", "1 / 0\n    return Verdict("
            )
        ),
        ANSWER,
        args=("--quiet", "--format=json"),
        codes=(1,),
    ),
    Case(
        "check-returns-junk",
        with_bad_file(
            "from dpcheck.claims.registry import claim\n"
            "claim('tiny.eq1.junk', source='', statement='')(lambda: 42)\n"
        ),
        ANSWER,
        args=("--quiet",),
        codes=(1,),
    ),
]
assert len({c.name for c in CASES}) == len(CASES)

#: a few cases that also run as ``python -m dpcheck`` children in the fast suite
FAST_CHILDREN = ("empty", "blank", "missing", "syntax-error", "raises-at-import", "fifo", "good")


def shipped_ids() -> list[str]:
    """The ids of the shipped claims (116 when this was written)."""
    shipped = registry.shipped_proofs_dir()
    assert shipped is not None
    return [c.id for c in registry.collect(shipped)]


@pytest.fixture(autouse=True)
def _no_inherited_folder(monkeypatch):
    monkeypatch.delenv("DPCHECK_PROOFS", raising=False)


def _params(cases: list[Case], child: bool, slow: bool = False) -> list:
    out = []
    for c in cases:
        marks = []
        if c.skip:
            marks.append(pytest.mark.skip(reason=c.skip))
        if not child and not c.in_process:
            marks.append(pytest.mark.skip(reason="would block in-process if it regressed"))
        if slow:
            marks.append(pytest.mark.slow)
        out.append(pytest.param(c, id=c.name, marks=marks))
    return out


def check(case: Case, result: Result, via_env: bool) -> None:
    """The case's expectation: its refusal line, or its answer."""
    outcome = case.env_outcome if via_env and case.env_outcome else case.outcome
    if outcome == REFUSED:
        line = assert_refused(result)
        for word in case.mentions:
            word = word.replace("--proofs=", "DPCHECK_PROOFS=") if via_env else word
            assert word in line, f"{word!r} not in {line!r}"
        assert "\x1b" not in result.stderr and "\r" not in result.stderr
        return
    assert_answered_or_refused(result, ok_codes=case.codes)
    assert result.code in case.codes, result.describe()
    if case.env_outcome and via_env:  # the empty variable counts as unset: shipped claims
        assert result.stdout.split() == shipped_ids()
        assert NOTE not in result.stderr
        return
    if case.ids:
        assert result.stdout.split() == list(case.ids)
    quiet = "--quiet" in case.args and not via_env  # named on the command line: silenced
    noted = "dpcheck: using claims from " in result.stderr and NOTE in result.stderr
    assert noted != quiet, result.describe()


def in_process(args: list[str], capsys) -> Result:
    code = cli.main(args)
    out, err = capsys.readouterr()
    return Result(args, code, out, err, 0.0)


# --------------------------------------------------------------------------- the cases
@pytest.mark.parametrize("case", _params(CASES, child=False))
@pytest.mark.parametrize("via", ["--proofs", "DPCHECK_PROOFS"])
def test_case_in_process(case: Case, via: str, tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.chdir(tmp_path)
    value = case.make(tmp_path)
    if via == "--proofs":
        args = ["verify", *case.args, f"--proofs={value}"]
    else:
        monkeypatch.setenv("DPCHECK_PROOFS", value)
        args = ["verify", *case.args]
    check(case, in_process(args, capsys), via_env=via != "--proofs")


@pytest.mark.parametrize("case", _params([c for c in CASES if c.name in FAST_CHILDREN], child=True))
def test_case_as_child(case: Case, tmp_path) -> None:
    value = case.make(tmp_path)
    check(case, run_cli(["verify", *case.args, f"--proofs={value}"], cwd=tmp_path), False)


@pytest.mark.parametrize("case", _params(CASES, child=True, slow=True))
@pytest.mark.parametrize("via", ["--proofs", "DPCHECK_PROOFS"])
def test_case_as_child_all(case: Case, via: str, tmp_path, monkeypatch) -> None:
    value = case.make(tmp_path)
    if via == "--proofs":
        args = ["verify", *case.args, f"--proofs={value}"]
    else:
        monkeypatch.setenv("DPCHECK_PROOFS", value)
        args = ["verify", *case.args]
    check(case, run_cli(args, cwd=tmp_path), via_env=via != "--proofs")


def test_the_generated_cases_are_many_and_varied() -> None:
    assert len(CASES) >= 30
    assert {c.outcome for c in CASES} == {REFUSED, ANSWER}


def test_empty_proofs_as_a_separate_argument_is_refused(capsys) -> None:
    line = assert_refused(in_process(["verify", "--list", "--proofs", ""], capsys))
    assert "--proofs='' is empty: expected a folder" in line


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(text=st.text(st.characters(blacklist_characters="/\x00", blacklist_categories=("Cs",))))
def test_any_text_is_refused_in_one_line(text: str, tmp_path, monkeypatch, capsys) -> None:
    """Any value without a slash, from an empty working directory (nothing to find)."""
    cwd = tmp_path / "cwd"
    cwd.mkdir(exist_ok=True)
    monkeypatch.chdir(cwd)
    line = assert_refused(in_process(["verify", "--list", f"--proofs={text}"], capsys))
    assert "--proofs=" in line


@pytest.mark.parametrize("value", ["a\x00b", "\ud800"])
def test_library_values_argv_cannot_hold_are_refused(value: str) -> None:
    with pytest.raises(InputError, match="NUL|no valid file name"):
        registry.locate(value)


# --------------------------------------------------------------------------- the notice
@pytest.mark.parametrize(
    ("via", "quiet", "noted"),
    [
        ("--proofs", False, True),
        ("--proofs", True, False),  # named on this very command line
        ("DPCHECK_PROOFS", False, True),
        ("DPCHECK_PROOFS", True, True),  # from the environment: never silent
    ],
)
def test_a_folder_other_than_the_shipped_one_is_announced(
    via: str, quiet: bool, noted: bool, tmp_path, monkeypatch, capsys
) -> None:
    root = good_folder(tmp_path)
    args = ["verify", "--list", *(["--quiet"] if quiet else [])]
    if via == "--proofs":
        args.append(f"--proofs={root}")
    else:
        monkeypatch.setenv("DPCHECK_PROOFS", str(root))
    result = in_process(args, capsys)
    assert result.code == 0 and result.stdout.split() == list(TINY)
    expected = f"dpcheck: using claims from {root} {NOTE}\n" if noted else ""
    assert result.stderr == expected


def test_the_shipped_folder_is_not_announced(capsys) -> None:
    result = in_process(["verify", "--list", f"--proofs={ROOT / 'proofs'}"], capsys)
    assert result.code == 0 and result.stderr == ""
    assert result.stdout.split() == shipped_ids()


def test_a_refusal_after_collection_stays_one_line(tmp_path, capsys) -> None:
    root = good_folder(tmp_path)
    line = assert_refused(in_process(["verify", "nosuchdoc", f"--proofs={root}"], capsys))
    assert "no claim matches" in line


# --------------------------------------------------------------------------- the upward search
MALICIOUS = "from pathlib import Path\nPath({marker!r}).write_text('ran')\n"


def _plant(folder: Path, marker: Path, claim_id: str = "evil.eq1.x") -> None:
    """A ``proofs`` folder in ``folder`` whose file writes ``marker`` when imported."""
    body = MALICIOUS.format(marker=str(marker))
    make_folder(folder, {"evil/10_evil.py": claim_file(claim_id, "x", body)})


def _project(folder: Path, name: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "pyproject.toml").write_text(f'[project]\nname = "{name}"\nversion = "0"\n')


def _above_cwd(base: Path) -> Path:
    _plant(base, base / "marker")
    return base / "work" / "sub"


def _in_cwd(base: Path) -> Path:
    _plant(base, base / "marker")
    return base


def _other_project(base: Path) -> Path:
    _project(base / "proj", "someone-else")
    _plant(base / "proj", base / "marker")
    return base / "proj" / "sub"


def _world_writable_dpcheck(base: Path) -> Path:
    _project(base / "proj", "dpcheck")
    _plant(base / "proj", base / "marker")
    (base / "proj").chmod(0o777)  # a shared /tmp with a planted pyproject.toml
    return base / "proj" / "sub"


def _writable_document(base: Path) -> Path:
    _project(base / "proj", "dpcheck")
    _plant(base / "proj", base / "marker")
    (base / "proj" / "proofs" / "evil").chmod(0o777)
    return base / "proj"


def _above_project_root(base: Path) -> Path:
    _plant(base, base / "marker")
    (base / "proj" / ".git").mkdir(parents=True)
    return base / "proj" / "sub"


UPWARD: dict[str, Callable[[Path], Path]] = {
    "proofs-above-cwd-no-project": _above_cwd,
    "proofs-in-cwd-no-project": _in_cwd,
    "project-is-not-dpcheck": _other_project,
    "world-writable-dpcheck-project": _world_writable_dpcheck,
    "world-writable-document-folder": _writable_document,
    "proofs-above-the-project-root": _above_project_root,
}


def _upward_cwd(base: Path, make: Callable[[Path], Path]) -> Path:
    base = base / "shared"  # tmp_path is private (0700): plant in a folder of our own
    base.mkdir()
    cwd = make(base)
    cwd.mkdir(parents=True, exist_ok=True)
    return cwd


@pytest.mark.parametrize("name", list(UPWARD))
def test_an_upward_proofs_folder_is_never_run(name: str, tmp_path, monkeypatch, capsys) -> None:
    cwd = _upward_cwd(tmp_path, UPWARD[name])
    monkeypatch.chdir(cwd)
    result = in_process(["verify", "--list"], capsys)
    assert not (tmp_path / "shared" / "marker").exists(), "the planted proof file ran"
    assert result.code == 0, result.describe()
    assert result.stdout.split() == shipped_ids()
    assert result.stderr == ""
    assert registry.locate().origin in ("shipped", "project")
    assert registry.locate().shipped


@pytest.mark.parametrize(
    "name",
    [
        "proofs-above-cwd-no-project",
        pytest.param("world-writable-dpcheck-project", marks=pytest.mark.slow),
        pytest.param("proofs-above-the-project-root", marks=pytest.mark.slow),
    ],
)
def test_an_upward_proofs_folder_is_never_run_as_child(name: str, tmp_path) -> None:
    cwd = _upward_cwd(tmp_path, UPWARD[name])
    result = run_cli(["verify", "--list"], cwd=cwd)
    assert not (tmp_path / "shared" / "marker").exists(), "the planted proof file ran"
    assert_answered_or_refused(result)
    assert result.code == 0 and result.stderr == "", result.describe()
    assert len(result.stdout.split()) == len(shipped_ids())


def test_a_trusted_dpcheck_project_uses_its_proofs_and_says_so(
    tmp_path, monkeypatch, capsys
) -> None:
    """The positive control: the search does find a checkout's own proofs."""
    project = tmp_path / "checkout"
    _project(project, "dpcheck")
    _plant(project, tmp_path / "marker", "mine.eq1.x")
    (project / "docs").mkdir()
    monkeypatch.chdir(project / "docs")
    result = in_process(["verify", "--list", "--quiet"], capsys)
    assert (tmp_path / "marker").exists()
    assert result.code == 0 and result.stdout.split() == ["mine.eq1.x"]
    assert result.stderr == f"dpcheck: using claims from {project / 'proofs'} {NOTE}\n"


def test_the_search_stops_at_the_first_project_root(tmp_path) -> None:
    (tmp_path / "outer" / ".git").mkdir(parents=True)
    _project(tmp_path / "outer" / "inner", "dpcheck")
    assert registry.project_root(tmp_path / "outer" / "inner" / "a") == (
        tmp_path / "outer" / "inner"
    )
    assert registry.project_root(tmp_path / "outer" / "b") == tmp_path / "outer"


@pytest.mark.parametrize("where", ["outside", "subfolder", "root"])
def test_the_shipped_claims_are_found_from_anywhere(where: str, tmp_path, monkeypatch) -> None:
    cwd = {"outside": tmp_path, "subfolder": ROOT / "tests", "root": ROOT}[where]
    monkeypatch.chdir(cwd)
    proofs = registry.locate()
    assert proofs.shipped and proofs.path.resolve() == (ROOT / "proofs").resolve()


def test_verify_list_outside_any_project_lists_the_shipped_claims(tmp_path) -> None:
    result = run_cli(["verify", "--list"], cwd=tmp_path)
    assert result.code == 0 and result.stderr == "", result.describe()
    assert result.stdout.split() == shipped_ids()


# --------------------------------------------------------------------------- atomic collection
def test_a_failed_collection_leaves_nothing_behind(tmp_path) -> None:
    root = make_folder(
        tmp_path,
        {
            "tiny/10_one.py": claim_file(),
            "tiny/20_two.py": claim_file("tiny.eq1.two", "two"),
            "tiny/30_bad.py": "raise RuntimeError('no')\n",
        },
    )
    key = registry._folder_key(root)
    with pytest.raises(InputError, match=r"30_bad\.py: raised RuntimeError at import"):
        registry.collect(root)
    assert not registry.REGISTRY.get(key)
    assert not [m for m in sys.modules if m.startswith(key + ".")]
    (root / "tiny" / "30_bad.py").unlink()  # fixed: the folder collects, nothing "twice"
    assert [c.id for c in registry.collect(root)] == ["tiny.eq1.one", "tiny.eq1.two"]
    assert [c.id for c in registry.collect(root)] == ["tiny.eq1.one", "tiny.eq1.two"]


def test_a_failed_folder_does_not_disturb_another(tmp_path) -> None:
    good = good_folder(tmp_path / "a")
    assert [c.id for c in registry.collect(good)] == list(TINY)
    bad = make_folder(
        tmp_path / "b",
        {"tiny/10_one.py": claim_file(), "tiny/20_bad.py": claim_file("Bad Id", "bad")},
    )
    with pytest.raises(InputError, match="not of the form"):
        registry.collect(bad)
    assert [c.id for c in registry.collect(good)] == list(TINY)
    assert len(registry.collect(ROOT / "proofs")) == len(shipped_ids())


def test_one_id_in_two_folders_is_no_clash(tmp_path) -> None:
    """A copy of a folder, edited, collects in the same process as the original."""
    first = good_folder(tmp_path / "first")
    second = make_folder(tmp_path / "second", {"tiny/10_one.py": claim_file(fn="other")})
    assert [c.id for c in registry.collect(first)] == list(TINY)
    assert [c.id for c in registry.collect(second)] == list(TINY)
    assert registry.collect(second)[0].check.__name__ == "other"


def test_collect_error_lines_are_short(tmp_path) -> None:
    root = make_folder(tmp_path / ("d" * 250), {"tiny/10_one.py": "raise ValueError('v' * 9999)\n"})
    with pytest.raises(InputError) as info:
        registry.collect(root)
    assert len(str(info.value)) <= cli.MESSAGE_CHARS and "\n" not in str(info.value)
    assert str(info.value).startswith("...") and "10_one.py: raised ValueError" in str(info.value)


def test_stat_mode_of_world_writable_is_untrusted(tmp_path) -> None:
    folder = tmp_path / "w"
    folder.mkdir()
    assert registry.untrusted([folder]) is None
    folder.chmod(folder.stat().st_mode | stat.S_IWOTH)
    assert registry.untrusted([folder]) == folder
