"""`dpcheck derive`: golden files, determinism, the PDF, the display helpers, bad input."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import sympy as sp

from dpcheck.cli import main
from dpcheck.derivations import build, mechanisms, noise_laws
from dpcheck.derivations.document import Derivation, Printed, Step, escape, render
from dpcheck.derivations.notation import E0, E1, abbreviate, display, expand_abbreviations
from dpcheck.symbolic import laplace_family as lf
from dpcheck.symbolic.rational import is_identically_zero
from dpcheck.symbolic.symbols import c0, c1, s

ROOT = Path(__file__).resolve().parents[1]
CHECKED_IN = ROOT / "derivations"


@pytest.fixture(scope="module")
def fresh(tmp_path_factory) -> Path:
    """A fresh `dpcheck derive` in a subprocess, with a hash seed unlike the checked-in run;
    with ``--pdf`` (the master document compiled for real) where a TeX engine is present,
    as in CI, which therefore needs no separate `derive --pdf` step."""
    out = tmp_path_factory.mktemp("derivations")
    env = {**os.environ, "PYTHONHASHSEED": "2718"}
    pdf = ["--pdf"] if build.tex_engine() is not None else []
    done = subprocess.run(
        [sys.executable, "-m", "dpcheck.cli", "derive", "--quiet", *pdf, "--out", str(out)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    return out


def test_checked_in_derivations_equal_a_fresh_derive(fresh: Path) -> None:
    """Golden test: regenerate with `dpcheck derive` when the derivations change."""
    made = sorted(p.name for p in fresh.glob("*.tex"))
    kept = sorted(p.name for p in CHECKED_IN.glob("*.tex"))
    assert made == kept, "derivations/ holds other files than `dpcheck derive` writes"
    drift = [n for n in made if (fresh / n).read_bytes() != (CHECKED_IN / n).read_bytes()]
    assert not drift, f"derivations drifted (run `dpcheck derive`): {drift}"


def test_every_derivation_is_in_the_master_and_ends_with_a_verdict(fresh: Path) -> None:
    """Paper derivations end with the printed equations and their verdicts; those of the
    mechanism algebra (no paper prints them) with the checks performed."""
    master = (fresh / "dpcheck.tex").read_text()
    # the mechanism algebra's, and dpcheck's own results (no paper prints them)
    algebra = set(mechanisms.builders()) | set(noise_laws.builders()) | {"krand-shuffle-bound"}
    for name in build.NAMES:
        assert f"\\input{{{name}}}" in master
        text = (fresh / f"{name}.tex").read_text()
        if name in algebra:
            assert "\\paragraph{Step 1.}" in text and "\\paragraph{Checks performed.}" in text
            if name in mechanisms.builders():
                assert "displayed equalities proved exact" in text
            assert text.isascii(), f"{name}: raw Unicode in the LaTeX"
            assert f"Reproduce: \\texttt{{dpcheck derive {name}}}" in text
        else:
            assert "\\paragraph{Step 1.}" in text and "\\paragraph{As printed.}" in text
        assert text.rstrip().splitlines()[-1].startswith("Reproduce: \\texttt{dpcheck ")
        assert "[U+" not in text, "a character of a finding has no LaTeX in document._UNICODE"
        assert "\\textbf{inconclusive}" not in text


def test_verdicts_in_the_derivations_are_those_of_verify(fresh: Path) -> None:
    """The derivations end with the runner's verdicts: e.g. eq (5) refuted, eq (6) proved."""
    expected = {
        "bit-law.tex": "\\texttt{liu2019.eq5.bit\\_law}: \\textbf{refuted}",
        "truncated-mean.tex": "\\texttt{liu2019.eq6.mu1}: \\textbf{proved}",
        "truncated-mse.tex": "\\texttt{liu2019.appB.truncated\\_mse\\_chain}: \\textbf{refuted}",
        "privacy-truncated.tex": "\\texttt{liu2019.def2.privacy\\_truncated}: \\textbf{refuted}",
        "privacy-bit.tex": "\\texttt{liu2019.def2.privacy\\_bit}: \\textbf{proved}",
        "gs-variance.tex": "\\texttt{liu2019.gs.variance}: \\textbf{verified}",
        "krand-lemma4-1.tex": "\\texttt{zz2016.lemma4.1}: \\textbf{proved}",
    }
    for name, line in expected.items():
        assert line in (fresh / name).read_text(), name


def test_required_content_is_derived() -> None:
    """The issue's list: normaliser, mean, second moment, variance, MSE, limits, loss, GS, krand."""
    for needed in (
        "truncated-normaliser", "bit-law", "truncated-mean", "bit-mean",
        "truncated-second-moment", "bit-second-moment", "truncated-variance", "bit-variance",
        "truncated-mse", "bit-mse", "one-sided-limits", "privacy-truncated", "privacy-bit",
        "gs-mean", "gs-variance", "krand-recursions", "krand-lemma4-1",
        # the mechanism algebra (issue 18): Liu's truncated/BIT Laplace are the two above
        "truncated-gaussian-mean", "truncated-gaussian-variance", "clamped-gaussian-mean",
        "clamped-gaussian-variance", "truncated-geometric-mean", "truncated-geometric-variance",
        "clamped-geometric-mean", "clamped-geometric-variance", "folded-laplace-law",
        "folded-laplace-mean", "folded-laplace-variance",
    ):  # fmt: skip
        assert needed in build.NAMES
        assert (CHECKED_IN / f"{needed}.tex").is_file(), needed


@pytest.mark.parametrize("mechanism", ["truncated", "bit"])
@pytest.mark.parametrize("name", ["mean", "second_moment", "var", "mse", "bias"])
def test_abbreviated_display_is_the_same_expression(mechanism: str, name: str) -> None:
    q = lf.quantity(mechanism, name)
    short = abbreviate(q)
    assert not short.has(sp.exp), short
    assert is_identically_zero(expand_abbreviations(short) - q)


def test_abbreviation_check_can_fail() -> None:
    """expand_abbreviations really maps back: a wrong exponent is caught."""
    q = lf.quantity("bit", "mean")
    wrong = abbreviate(q).subs(E0, E1)
    assert not is_identically_zero(expand_abbreviations(wrong) - q)


def test_display_breaks_long_sums_and_keeps_short_ones() -> None:
    assert display("x", s + c0) == "\\[ x = c_{0} + s \\]"
    long = sum(sp.Symbol(f"a_{k}") * s**k * c1 ** (20 - k) for k in range(1, 20))
    text = display("y", long)
    assert text.startswith("\\begin{multline*}") and text.count("\\\\") >= 2
    frac = display("z", abbreviate(lf.quantity("truncated", "var")))
    assert "\\Bigl[" in frac and "\\Bigr]" in frac


def test_escape_handles_findings() -> None:
    assert escape("s_0 ≥ 1 & 50% μ→∞ {x}") == (
        "s\\_0 $\\ge$ 1 \\& 50\\% $\\mu$$\\to$$\\infty$ \\{x\\}"
    )
    assert escape("\u2603") == "[U+2603]"


def test_render_is_deterministic_and_states_the_verdict() -> None:
    from dpcheck.claims.model import Status, Verdict

    d = Derivation(
        "demo", "Demo", "nowhere", "A demo.", (Step("Do $x$.", ("\\[ x \\]",)),),
        (Printed("eq (0)", "demo.claim", "x = 1"),),
    )  # fmt: skip
    v = Verdict(Status.REFUTED, "witness", {"finding": "x = 2 at λ = 1"}, reproduce="dpcheck x")
    a = render(d, {"demo.claim": v}, {})
    assert a == render(d, {"demo.claim": v}, {})
    assert "\\textbf{refuted}" in a and "$\\lambda$" in a and "\\[ x = 1 \\]" in a


def _engine_or_skip() -> None:
    if build.tex_engine() is None:
        if os.environ.get("DPCHECK_REQUIRE_TEX"):
            pytest.fail("DPCHECK_REQUIRE_TEX is set but neither latexmk nor pdflatex is on PATH")
        pytest.skip("no TeX engine (latexmk or pdflatex) on PATH: the PDF is not compiled here")


def test_master_document_compiles_to_pdf(fresh: Path) -> None:
    """`dpcheck derive --pdf` of the fixture: the fresh derivations (equal to the checked-in
    ones, test above) compiled by the real TeX engine, its first pages looked at."""
    _engine_or_skip()
    pdf = fresh / "dpcheck.pdf"
    assert pdf.exists(), sorted(p.name for p in fresh.iterdir())
    data = pdf.read_bytes()
    assert data.startswith(b"%PDF") and len(data) > 50_000
    if shutil.which("pdfinfo"):
        info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True).stdout
        pages = int(next(ln for ln in info.splitlines() if ln.startswith("Pages:")).split()[1])
        assert pages >= len(build.NAMES) // 2, info
    assert not (fresh / "dpcheck.log").exists()


def test_unknown_derivation_is_one_line_exit_2(capsys) -> None:
    assert main(["derive", "no-such-thing"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("dpcheck: error: unknown derivation 'no-such-thing'")
    assert "\n" not in err


def test_out_that_is_a_file_is_exit_2(tmp_path: Path, capsys) -> None:
    f = tmp_path / "file"
    f.write_text("x")
    assert main(["derive", "bit-mean", "--out", str(f)]) == 2
    assert "is a file" in capsys.readouterr().err


def test_list_names(capsys) -> None:
    assert main(["derive", "--list"]) == 0
    assert capsys.readouterr().out.split() == list(build.NAMES)


def test_nothing_written_when_a_name_is_bad(tmp_path: Path) -> None:
    out = tmp_path / "d"
    assert main(["derive", "bit-mean", "nope", "--out", str(out)]) == 2
    assert not out.exists()
