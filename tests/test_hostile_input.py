"""Hostile input (issue 17): every verb answers correctly or refuses in one line.

The refusal contract (see ``cli_subprocess.assert_refused``): exit 2, exactly one
stderr line starting ``dpcheck: error: `` of at most 400 characters, no traceback,
within a few seconds and under a memory ceiling.

* ``test_<verb>_hostile`` (slow, CI runs ``pytest -m slow``): for each verb,
  hypothesis places one bad value (non-ASCII digits, underscores, nan/inf
  spellings, Python/hex syntax, empty or blank strings, 50 000-100 000 character
  strings, exponents beyond any ceiling, counts beyond the work ceilings,
  unusable output paths) into one argument of an otherwise valid, cheap command.
* ``test_explicit_case`` and the two pipe/order tests (fast): the cases named
  in the issue.
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from cli_subprocess import (
    CEILING_WORDS,
    assert_answered_or_refused,
    assert_no_traceback,
    assert_refused,
    kill_group,
    last_number,
    popen,
    run_cli,
    shorten,
)
from hypothesis import HealthCheck, Phase, given, note, settings
from hypothesis import strategies as st

ASCII_DIGITS = "0123456789"
# a refusal must come this quickly (the child's imports alone take about 1 s)
REFUSE_WITHIN = 10.0
# the largest single argument exec accepts is 131 072 bytes (MAX_ARG_STRLEN)
LONG_LENGTHS = (50_000, 100_000)

# --------------------------------------------------------------------------- values


@dataclass(frozen=True)
class Bad:
    """One hostile value; ``category`` decides what the refusal must say."""

    category: str  # syntax | huge_exponent | long | ceiling | text | path | latex
    value: str

    def __repr__(self) -> str:  # keep hypothesis' reports short (values may be 100 kB)
        return f"Bad({self.category}, {shorten(self.value)})"


def _bad(category: str, values: st.SearchStrategy[str]) -> st.SearchStrategy[Bad]:
    return values.map(lambda v: Bad(category, v))


non_ascii_digit = st.characters(categories=["Nd"]).filter(lambda c: c not in ASCII_DIGITS)
ascii_digits = st.text(ASCII_DIGITS, max_size=3)

non_ascii_numbers = st.one_of(
    # e.g. '١', '1٥.5', '１/4': at least one Nd digit that is not 0-9
    st.builds(
        lambda a, b, c: a + b + c,
        ascii_digits,
        st.text(non_ascii_digit, min_size=1, max_size=3),
        st.sampled_from(["", ".5", "/4", "e1", "0"]),
    ),
    st.sampled_from(
        [
            "²",  # superscript two (category No)
            "1²",
            "½",
            "\u2212" + "1",  # minus sign
            "0.5\u200b",  # zero-width space
            "1\u00a0",  # no-break space
            "٫5",  # Arabic decimal separator
            "1e\u2212" + "3",
        ]
    ),
)
underscored = st.one_of(
    st.builds(
        lambda a, b: f"{a}_{b}",
        st.text(ASCII_DIGITS, min_size=1, max_size=3),
        st.text(ASCII_DIGITS, min_size=1, max_size=3),
    ),
    st.sampled_from(["1_000.5", "1e1_0", "_1", "1_", "0._5", "1/2_0"]),
)
nan_inf = st.sampled_from(
    ["inf", "-inf", "+inf", "Inf", "INF", "infinity", "Infinity", "-Infinity",
     "nan", "NaN", "-nan", "+nan", "NAN", "nan(0x1)", "snan"]
)  # fmt: skip
python_syntax = st.sampled_from(
    ["10**400", "2**3", "1e3**2", "0x10", "0X1F", "0x1p-3", "0b101", "0o17", "1j", "1+2j",
     "1e", "e5", "-", "+", ".", "1..2", "1.2.3", "1,5", "1/0", "0/0", "1//2", "1/2/3",
     "1/2.5", "--1", "+-1", "1 2", "one", "None", "True", "1e1.5", "1.5.", "1 e5", "(1)",
     "1/", "/2", "pi", "e", "Decimal('1')", "1L", "0d1"]
)  # fmt: skip
blank = st.text(st.sampled_from([" ", "\t", "\n", "\r", "\u00a0", "\u2003", "\u3000"]), max_size=4)
long_numbers = st.builds(
    lambda stem, ch, n: (stem + ch * n)[:n],
    st.sampled_from(["", "0.", "1e", "-"]),
    st.sampled_from(["1", "9", "0", "x"]),
    st.sampled_from(LONG_LENGTHS),
) | st.sampled_from(LONG_LENGTHS).map(lambda n: "١" * (n // 2))  # 2 bytes a digit
huge_exponents = st.builds(
    lambda m, e_char, sign, e: f"{m}{e_char}{sign}{e}",
    st.sampled_from(["1", "2.5", "9", "0.1", "-1"]),
    st.sampled_from(["e", "E"]),
    st.sampled_from(["", "+", "-"]),
    st.integers(min_value=999_999_999, max_value=10**40),
)
# syntactically fine counts far above any documented work ceiling
over_ceiling = st.one_of(
    st.integers(min_value=10**10, max_value=10**40).map(str),
    st.sampled_from(["1e10", "1e12", "1e20", "1e100", "1e400", "9e99"]),
)

bad_number = st.one_of(
    _bad("syntax", non_ascii_numbers),
    _bad("syntax", underscored),
    _bad("syntax", nan_inf),
    _bad("syntax", python_syntax),
    _bad("syntax", blank),
    _bad("long", long_numbers),
    _bad("huge_exponent", huge_exponents),
)
bad_count = st.one_of(bad_number, _bad("ceiling", over_ceiling))

# names that match no claim, study, quantity, statistic or derivation (no glob
# characters, no leading '-' that argparse would take for an option)
bad_name = st.one_of(
    st.text(
        st.characters(exclude_categories=["Cs", "Cc"], exclude_characters="*?[]"),
        min_size=1,
        max_size=20,
    ).map(lambda t: "nosuch" + t),
    st.text(non_ascii_digit, min_size=1, max_size=5),
    st.text(st.sampled_from([" ", "\t", "\u00a0"]), min_size=1, max_size=3),
    st.sampled_from(LONG_LENGTHS).map(lambda n: "q" * n),
)
bad_text = _bad("text", bad_name)

# output paths: a kind, materialised in the example's own folder
FILE_PATH_KINDS = [
    "empty",
    "existing_dir",
    "missing_parent",
    "parent_is_file",
    "sys",
    "proc",
    "dev_full",
]
DIR_PATH_KINDS = [
    "empty",
    "existing_file",
    "missing_parent",
    "parent_is_file",
    "sys",
    "proc",
    "dev_full",
]
PLOT_PATH_KINDS = [*FILE_PATH_KINDS, "txt_suffix", "no_suffix"]
leaf = st.text("abcdefghijklmnopqrstuvwxyz0123456789", min_size=1, max_size=8)


def _paths(kinds: list[str]) -> st.SearchStrategy[Bad]:
    return st.builds(lambda k, n: Bad("path", f"{k}:{n}"), st.sampled_from(kinds), leaf)


def materialise(bad: Bad, work: Path, suffix: str) -> str:
    """The path a path-kind stands for, created (if needed) inside ``work``."""
    kind, name = bad.value.split(":", 1)
    if kind == "empty":
        return ""
    if kind == "existing_dir":
        d = work / f"{name}{suffix}"
        d.mkdir()
        return str(d)
    if kind == "existing_file":
        f = work / f"{name}.txt"
        f.write_text("not a folder\n")
        return str(f)
    if kind == "missing_parent":
        return str(work / f"no-such-{name}" / f"x{suffix}")
    if kind == "parent_is_file":
        f = work / "somefile.txt"
        f.write_text("a regular file\n")
        return str(f / f"{name}{suffix}")
    if kind == "sys":
        return f"/sys/{name}{suffix}"
    if kind == "proc":
        return f"/proc/{name}{suffix or '.png'}"
    if kind == "dev_full":
        return "/dev/full"
    if kind == "txt_suffix":
        return str(work / f"{name}.txt")
    if kind == "no_suffix":
        return str(work / name)
    raise AssertionError(kind)


hostile_latex = st.one_of(
    st.sampled_from(
        [
            "s+e^{e^{e^{100}}}",
            "10^{10^{10^{10}}}",
            "s^{999999999999}",
            "s+\\frac{1}{0}",
            "s+\\frac{0}{0}",
            "{" * 500 + "s" + "}" * 500,
            "(" * 1000 + "s" + ")" * 1000,
            "\\frac{",
            "}",
            "\\",
            "",
            "   ",
            "s+\\sqrt{-1}",
            "s+\\log(0)",
            "s+\\infty",
            "(10^{100})!",
            "\\Gamma(10^{100})",
            "\\binom{10^{100}}{10^{50}}",
            "\\sum_{i=1}^{10^{100}} i",
            "\\prod_{i=1}^{10^{9}} i",
            "\\lambda^{\\lambda^{\\lambda^{\\lambda^{\\lambda}}}}",
            "s" + "+s" * 20_000,
            "\\frac{" * 300 + "s" + "}{2}" * 300,
            "e^{1e999999999}",
            "s+\\lambda\\,\\mathrm{erf}(10^{100})",
        ]
    ),
    bad_number.map(lambda b: "s+" + b.value),
).map(lambda t: Bad("latex", t))


# --------------------------------------------------------------------------- verbs


@dataclass(frozen=True)
class Slot:
    """One argument of a valid command line that receives the hostile value."""

    name: str
    values: st.SearchStrategy[Bad]
    build: Callable[[str, Path], list[str]]
    suffix: str = ""  # for path kinds: the file suffix the slot expects

    def __repr__(self) -> str:
        return f"Slot({self.name})"


def _opt(base: list[str], option: str) -> Callable[[str, Path], list[str]]:
    """``base`` with ``--option=VALUE`` appended ('=' keeps argparse off '-inf')."""
    return lambda v, work: [*base, f"{option}={v}"]


def _replace(base: list[str], option: str) -> Callable[[str, Path], list[str]]:
    """``base`` with the ``--option=...`` item replaced by ``--option=VALUE``."""

    def build(v: str, work: Path) -> list[str]:
        out = [a for a in base if not a.startswith(option + "=")]
        return [*out, f"{option}={v}"]

    return build


VERIFY = ["verify", "zz2016.prop1.1", "--quiet"]
SIMULATE = ["simulate", "study1", "--reps=2", "--quiet"]
EVAL = ["eval", "truncated.mean", "s=0.5", "c0=0", "c1=1", "lam=1"]
PRIVACY = ["privacy", "bit", "--epsilon=1", "--sensitivity=1", "--lower=0", "--upper=1"]
AUDIT = [
    "audit",
    "bit",
    "--epsilon=1",
    "--sensitivity=1",
    "--lower=0",
    "--upper=1",
    "--samples=1000",
]
KRAND = ["krand", "profile", "--n=10", "--L=1", "--q=0.25"]
DERIVE = ["derive", "truncated-normaliser", "--quiet"]
COMPARE = [
    "compare",
    "diffprivlib",
    "--mechanism=LaplaceTruncated",
    "--quantity=bias",
    "--epsilon=1",
    "--delta=0",
    "--sensitivity=1",
    "--lower=0",
    "--upper=1",
    "--value=0.5",
]
COMPARE_LAW = [
    *[a for a in COMPARE if not a.startswith("--quantity")],
    "--quantity=law",
    "--samples=200",
]


def _eval_assign(key: str) -> Callable[[str, Path], list[str]]:
    return lambda v, work: [a if not a.startswith(key + "=") else f"{key}={v}" for a in EVAL]


def _groups(position: int) -> Callable[[str, Path], list[str]]:
    """pooled_variance with group sizes 2,2 and one of them hostile (n kept consistent)."""

    def build(v: str, work: Path) -> list[str]:
        sizes = ["2", "2"]
        sizes[position] = v
        n = int(v) + 2 if v.isascii() and v.isdigit() and len(v) < 100 else 4
        return [
            "sensitivity",
            "pooled_variance",
            "--neighbours=substitute",
            f"--n={n}",
            f"--groups={','.join(sizes)}",
        ]

    return build


VERBS: dict[str, list[Slot]] = {
    "verify": [
        Slot("ids", bad_text, lambda v, w: [*VERIFY[:1], v, "--quiet"]),
        Slot(
            "--output",
            _paths(FILE_PATH_KINDS),
            lambda v, w: [*VERIFY, "--format=json", f"--output={v}"],
            suffix=".json",
        ),
        Slot(
            "--proofs",
            _paths(["existing_dir", "existing_file", "missing_parent", "dev_full", "proc"]),
            lambda v, w: [*VERIFY, f"--proofs={v}"],
        ),
    ],
    "simulate": [
        Slot(
            "--reps",
            bad_count,
            lambda v, w: [*SIMULATE[:2], f"--reps={v}", "--quiet", f"--out={w / 'sim'}"],
        ),
        Slot("--seed", bad_number, lambda v, w: [*SIMULATE, f"--seed={v}", f"--out={w / 'sim'}"]),
        Slot("--out", _paths(DIR_PATH_KINDS), lambda v, w: [*SIMULATE, f"--out={v}"]),
        Slot(
            "study",
            bad_text,
            lambda v, w: ["simulate", v, "--reps=2", "--quiet", f"--out={w / 'sim'}"],
        ),
    ],
    "eval": [
        *[Slot(k, bad_number, _eval_assign(k)) for k in ("s", "c0", "c1", "lam")],
        Slot("epsilon", bad_number, lambda v, w: [*EVAL[:5], f"epsilon={v}", "sensitivity=1"]),
        Slot("sensitivity", bad_number, lambda v, w: [*EVAL[:5], "epsilon=1", f"sensitivity={v}"]),
        Slot("--dps", bad_count, _opt(EVAL, "--dps")),
        Slot("quantity", bad_text, lambda v, w: ["eval", v, *EVAL[2:]]),
    ],
    "privacy": [
        *[
            Slot(o, bad_number, _replace(PRIVACY, o))
            for o in ("--epsilon", "--sensitivity", "--lower", "--upper")
        ],
        Slot("--scale", bad_number, _opt(PRIVACY, "--scale")),
        Slot("--dps", bad_count, _opt(PRIVACY, "--dps")),
        Slot("--plot", _paths(PLOT_PATH_KINDS), _opt(PRIVACY, "--plot"), suffix=".png"),
    ],
    "audit": [
        *[
            Slot(o, bad_number, _replace(AUDIT, o))
            for o in ("--epsilon", "--sensitivity", "--lower", "--upper")
        ],
        Slot("--scale", bad_number, _opt(AUDIT, "--scale")),
        Slot("--confidence", bad_number, _opt(AUDIT, "--confidence")),
        Slot("--samples", bad_count, _replace(AUDIT, "--samples")),
        Slot("--seed", bad_number, _opt(AUDIT, "--seed")),
    ],
    "sensitivity": [
        Slot(
            "--n",
            bad_count,
            lambda v, w: ["sensitivity", "mean", "--neighbours=substitute", f"--n={v}"],
        ),
        Slot(
            "--categories",
            bad_count,
            lambda v, w: [
                "sensitivity",
                "histogram",
                "--neighbours=substitute",
                "--n=3",
                f"--categories={v}",
            ],
        ),
        Slot(
            "--bounds c0",
            bad_number,
            lambda v, w: [
                "sensitivity",
                "mean",
                "--neighbours=substitute",
                "--n=3",
                f"--bounds={v},1",
            ],
        ),
        Slot(
            "--bounds c1",
            bad_number,
            lambda v, w: [
                "sensitivity",
                "mean",
                "--neighbours=substitute",
                "--n=3",
                f"--bounds=0,{v}",
            ],
        ),
        Slot("--groups n1", bad_count, _groups(0)),
        Slot("--groups n2", bad_count, _groups(1)),
        Slot("stat", bad_text, lambda v, w: ["sensitivity", v, "--neighbours=substitute", "--n=3"]),
    ],
    "krand profile": [
        Slot("--n", bad_count, _replace(KRAND, "--n")),
        Slot("--L", bad_count, _replace(KRAND, "--L")),
        Slot("--q", bad_number, _replace(KRAND, "--q")),
        Slot("--eps0", bad_number, lambda v, w: [*KRAND[:4], f"--eps0={v}"]),
        Slot("--delta", bad_number, _opt(KRAND, "--delta")),
        Slot("--plot", _paths(PLOT_PATH_KINDS), _opt(KRAND, "--plot"), suffix=".png"),
    ],
    "derive": [
        Slot("--out", _paths(DIR_PATH_KINDS), lambda v, w: [*DERIVE, f"--out={v}"]),
        Slot("names", bad_text, lambda v, w: ["derive", v, "--quiet", f"--out={w / 'd'}"]),
    ],
    "check-formula": [
        Slot("latex", hostile_latex, lambda v, w: ["check-formula", "truncated.mean", v]),
        Slot(
            "--against-latex",
            hostile_latex,
            lambda v, w: ["check-formula", "truncated.mean", "s", f"--against-latex={v}"],
        ),
        Slot("quantity", bad_text, lambda v, w: ["check-formula", v, "s"]),
    ],
    "compare diffprivlib": [
        *[
            Slot(o, bad_number, _replace(COMPARE, o))
            for o in ("--epsilon", "--delta", "--sensitivity", "--lower", "--upper", "--value")
        ],
        Slot("--samples", bad_count, _replace(COMPARE_LAW, "--samples")),
        Slot("--seed", bad_number, _opt(COMPARE_LAW, "--seed")),
        Slot("--top", bad_number, _opt(COMPARE, "--top")),
    ],
}


def cases(verb: str) -> st.SearchStrategy[tuple[Slot, Bad]]:
    return st.sampled_from(VERBS[verb]).flatmap(lambda s: s.values.map(lambda b: (s, b)))


def tree(folder: Path) -> list[tuple[str, int]]:
    """Every path under ``folder`` with its size (-1 for folders)."""
    return sorted(
        (str(p.relative_to(folder)), -1 if p.is_dir() else p.stat().st_size)
        for p in folder.rglob("*")
    )


def check(slot: Slot, bad: Bad, work: Path) -> None:
    """Run the command with the hostile value in ``slot`` and check the contract."""
    value = materialise(bad, work, slot.suffix) if bad.category == "path" else bad.value
    args = slot.build(value, work)
    note(f"slot {slot.name}: {bad!r}")
    before = tree(work)
    if bad.category == "latex":
        # a formula is either compared (0: equal, 1: differs) or refused, within 10 s
        result = run_cli(args, timeout=15)
        assert_answered_or_refused(result, ok_codes=(0, 1))
        assert result.seconds <= 10, result.describe()
        return
    result = run_cli(args, timeout=30)
    mentions = CEILING_WORDS if bad.category in ("huge_exponent", "ceiling") else None
    assert_refused(result, mentions=mentions, within=REFUSE_WITHIN)
    if bad.category == "path":
        # refused before any work: nothing created, no partial or temporary file left
        assert tree(work) == before, result.describe()


HOSTILE = settings(
    max_examples=32,
    deadline=None,
    derandomize=True,
    database=None,
    # a failing example is reported as drawn: shrinking would cost a subprocess a step
    phases=[Phase.explicit, Phase.generate],
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def _hostile_test(verb: str):
    @pytest.mark.slow
    @pytest.mark.filterwarnings("ignore:Generating overly large repr")
    @HOSTILE
    @given(case=cases(verb))
    def test(tmp_path_factory, case):
        slot, bad = case
        check(slot, bad, tmp_path_factory.mktemp("hostile"))

    test.__name__ = f"test_{verb.replace(' ', '_').replace('-', '_')}_hostile"
    test.__doc__ = f"{verb}: one hostile value in one argument is refused in one line."
    return test


test_verify_hostile = _hostile_test("verify")
test_simulate_hostile = _hostile_test("simulate")
test_eval_hostile = _hostile_test("eval")
test_privacy_hostile = _hostile_test("privacy")
test_audit_hostile = _hostile_test("audit")
test_sensitivity_hostile = _hostile_test("sensitivity")
test_krand_profile_hostile = _hostile_test("krand profile")
test_derive_hostile = _hostile_test("derive")
test_check_formula_hostile = _hostile_test("check-formula")
test_compare_diffprivlib_hostile = _hostile_test("compare diffprivlib")


@pytest.mark.slow
def test_every_verb_has_a_hostile_suite():
    """The suites above cover every verb ``dpcheck --help`` lists."""
    result = run_cli(["--help"])
    assert result.code == 0, result.describe()
    listed = result.stdout.split("{", 1)[1].split("}", 1)[0].split(",")
    covered = {v.split()[0] for v in VERBS}
    assert set(listed) == covered


# --------------------------------------------------------------------------- explicit cases

TRUNCATED_MEAN = ["eval", "truncated.mean", "s=0.5", "c0=0", "c1=1"]
PRIV = ["privacy", "bit", "--epsilon=1", "--sensitivity=1", "--lower=0", "--upper=1"]
KR = ["krand", "profile", "--n=10", "--L=1", "--q=0.25"]


@pytest.mark.parametrize("lam", ["1e300", "1e100"])
def test_eval_huge_scale_gives_the_midpoint(lam):
    """The issue: the truncated mean at s = midpoint is 0.5 for any scale."""
    result = run_cli([*TRUNCATED_MEAN, f"lam={lam}"])
    assert_no_traceback(result)
    assert result.code == 0, result.describe()
    assert abs(last_number(result.stdout) - 0.5) <= 1e-12, result.stdout


def test_eval_scale_beyond_double_is_right_or_refused():
    result = run_cli([*TRUNCATED_MEAN, "lam=1e309"])
    if result.code == 2:
        assert_refused(result)
    else:
        assert_no_traceback(result)
        assert result.code == 0, result.describe()
        assert abs(last_number(result.stdout) - 0.5) <= 1e-12, result.stdout


def test_check_formula_tower_of_exponentials_finishes():
    result = run_cli(["check-formula", "truncated.mean", "s+e^{e^{e^{100}}}"], timeout=15)
    assert_answered_or_refused(result, ok_codes=(0, 1))
    assert result.seconds <= 10, result.describe()


def _closed_pipe_run(read_first_line: bool) -> tuple[int, str]:
    """``dpcheck verify --list`` whose reader goes away (after one line, or at once)."""
    if read_first_line:
        proc = popen(["verify", "--list"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            proc.stdout.readline()
            proc.stdout.close()
            err = proc.stderr.read().decode("utf-8", "replace")
            return proc.wait(timeout=30), err
        finally:
            if proc.poll() is None:
                kill_group(proc)
    read_end, write_end = os.pipe()
    os.close(read_end)  # like `dpcheck verify --list | true`
    try:
        proc = popen(["verify", "--list"], stdout=write_end, stderr=subprocess.PIPE)
    finally:
        os.close(write_end)
    try:
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            kill_group(proc)
    return proc.returncode, err.decode("utf-8", "replace")


@pytest.mark.parametrize("read_first_line", [True, False], ids=["head-1", "closed-at-once"])
def test_verify_list_into_a_closed_pipe(read_first_line):
    """``dpcheck verify --list | head -1``: no traceback, no 'Exception ignored'."""
    code, err = _closed_pipe_run(read_first_line)
    assert "Traceback" not in err, err[-800:]
    assert "Exception ignored" not in err, err[-800:]
    assert code >= 0, f"killed by signal {-code}: {err[-400:]}"


@pytest.mark.parametrize(
    "args",
    [
        ["verify", "--format=json", "--output=/dev/full"],  # all claims: minutes if not refused
        ["derive", "--quiet", "--out=/dev/full"],  # all derivations: ~25 s if not refused
    ],
    ids=["verify-all", "derive-all"],
)
def test_unusable_output_is_refused_before_the_work(args):
    start = time.monotonic()
    result = run_cli(args, timeout=15)
    assert_refused(result)
    assert time.monotonic() - start < 5, result.describe()


EXPLICIT = {
    # work ceilings: the ceiling is named
    "simulate-reps-1e7": (["simulate", "study1", "--reps", "1e7", "--quiet"], CEILING_WORDS),
    "simulate-reps-1e9": (["simulate", "study2", "--reps", "1e9", "--quiet"], CEILING_WORDS),
    "histogram-categories-1e9": (
        [
            "sensitivity",
            "histogram",
            "--neighbours",
            "substitute",
            "--n",
            "3",
            "--categories",
            "1000000000",
        ],
        CEILING_WORDS,
    ),
    "krand-n-1e7": (
        ["krand", "profile", "--n", "10000000", "--L", "1", "--q", "0.25"],
        CEILING_WORDS,
    ),
    "audit-samples-1e400": (
        [
            "audit",
            "truncated",
            "--epsilon",
            "1",
            "--sensitivity",
            "1",
            "--lower",
            "0",
            "--upper",
            "1",
            "--samples",
            "1e400",
        ],
        CEILING_WORDS,
    ),
    # huge exponents: refused quickly, the ceiling named
    "eval-lam-1e999999999": ([*TRUNCATED_MEAN, "lam=1e999999999"], CEILING_WORDS),
    "privacy-epsilon-1e-999999999": (
        [*PRIV[:2], "--epsilon=1e-999999999", *PRIV[3:]],
        CEILING_WORDS,
    ),
    # number syntax
    "eval-arabic-indic": ([*TRUNCATED_MEAN[:2], "s=١", *TRUNCATED_MEAN[3:], "lam=1"], None),
    "krand-fullwidth": ([*KR[:4], "--q=１/4"], None),
    "eval-superscript": ([*TRUNCATED_MEAN[:4], "c1=²", "lam=1"], None),
    "sensitivity-underscore": (["sensitivity", "mean", "--neighbours=substitute", "--n=1_0"], None),
    "audit-inf": (
        [
            "audit",
            "bit",
            "--epsilon=inf",
            "--sensitivity=1",
            "--lower=0",
            "--upper=1",
            "--samples=1000",
        ],
        None,
    ),
    "eval-power": ([*TRUNCATED_MEAN, "lam=10**400"], None),
    "eval-empty": ([*TRUNCATED_MEAN[:2], "s=", *TRUNCATED_MEAN[3:], "lam=1"], None),
    "krand-blank": ([*KR, "--delta=   "], None),
    "eval-100k-digits": (
        [*TRUNCATED_MEAN[:2], "s=" + "1" * 100_000, *TRUNCATED_MEAN[3:], "lam=1"],
        None,
    ),
    # output paths
    "privacy-plot-txt": ([*PRIV, "--plot", "{tmp}/x.txt"], None),
    "krand-plot-proc": ([*KR, "--plot=/proc/x.png"], None),
}


@pytest.mark.parametrize("name", list(EXPLICIT))
def test_explicit_case(name, tmp_path):
    args, mentions = EXPLICIT[name]
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    result = run_cli(args, timeout=20)
    assert_refused(result, mentions=mentions, within=REFUSE_WITHIN)
