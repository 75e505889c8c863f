"""The ``verify --format`` reports for CI and people (issue 20): junit, html, tex.

Two sets of results feed every test: *synthetic* ones (one claim per status, an
empirical verdict, a crashed check, a statement the MathML converter does not
know, a finding with every non-ASCII character of the registry) and a *real*
selection run once per module: claims covering every non-ASCII character of the
registry's ids, sources and statements (computed, a greedy cover) plus a proved,
a refuted and a verified claim.  The whole registry is run once in the slow test
at the end.

* junit: parsed with ElementTree and checked against the structure of the JUnit
  XML schema that CI dashboards read (testsuites > testsuite > testcase, failure
  children; tests/failures/errors/skipped/time attributes equal to the counts and
  sums of the children);
* html: no script, no external reference (every ``src`` a ``data:`` URI, no
  ``http``/``//`` link, no CSS ``url()``), every claim's section, MathML that is
  well-formed XML; loaded for real in headless Chromium (screenshot and DOM) --
  skipped when chromium is absent unless DPCHECK_REQUIRE_CHROMIUM is set, as
  ``.ci/run`` does;
* tex: compiled with pdflatex (skipped when absent unless DPCHECK_REQUIRE_TEX is
  set), and the characters read back from the PDF with pdftotext.
"""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
import subprocess
import unicodedata
import xml.etree.ElementTree as ET
from html import escape
from html.parser import HTMLParser
from pathlib import Path

import pytest

from dpcheck.claims import mathml, registry, report, report_figures, report_tex, runner
from dpcheck.claims.model import Claim, Kind, Status, Verdict, step
from dpcheck.cli import main

ROOT = Path(__file__).resolve().parents[1]

#: a proved, a refuted and a verified claim (cheap), beside the Unicode cover
BASE_SELECTION = ["liu2019.eq6.mu1", "liu2019.eq5.bit_law", "liu2019s.s1.mean_def1"]


# --------------------------------------------------------------------------- data


def _non_ascii(text: str) -> set[str]:
    """The non-ASCII characters of ``text``, each with the combining marks after it."""
    return {c for c in report_tex.clusters(text) if not c.isascii()}


def claim_text(c: Claim) -> str:
    return f"{c.id} {c.source} {c.statement}"


def unicode_cover(claims: list[Claim]) -> list[str]:
    """Claims (the first in registry order for each character) whose texts together hold
    every non-ASCII character of the registry's texts."""
    chosen: list[str] = []
    for ch in sorted(set().union(*(_non_ascii(claim_text(c)) for c in claims))):
        if not any(ch in claim_text(c) for c in claims if c.id in chosen):
            chosen.append(next(c.id for c in claims if ch in claim_text(c)))
    return chosen


@pytest.fixture(scope="module")
def claims() -> list[Claim]:
    return registry.collect(ROOT / "proofs")


@pytest.fixture(scope="module")
def selection(claims) -> list[str]:
    return list(dict.fromkeys(BASE_SELECTION + unicode_cover(claims)))


@pytest.fixture(scope="module")
def real(claims, selection) -> list[runner.Result]:
    return runner.run(runner.select(claims, selection))


#: the Greek alphabet, small and capital, from the Unicode names
GREEK = "".join(
    chr(i)
    for i in range(0x391, 0x3CA)
    if re.fullmatch(r"GREEK (SMALL|CAPITAL) LETTER [A-Z]+", unicodedata.name(chr(i), ""))
)


def _draw(path: Path) -> None:
    """A small figure, as report_figures.FIGURES entries draw theirs."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(3, 2))
    ax.plot([0, 1, 2], [0, 1, 4])
    fig.savefig(path, dpi=40)
    plt.close(fig)


@pytest.fixture(scope="module")
def synthetic(claims):  # type: ignore[no-untyped-def]
    """One result per status, an empirical one, a crash and an unknown-LaTeX statement;
    the refuted finding holds every non-ASCII character of the registry's texts; the
    proved one has a figure (report_figures.FIGURES, for the module's duration)."""
    report_figures.FIGURES["syn.a.proved"] = (("a test figure", _draw),)
    yield _synthetic(claims)
    del report_figures.FIGURES["syn.a.proved"]


def _synthetic(claims: list[Claim]) -> list[runner.Result]:
    every = "".join(sorted(set().union(*(_non_ascii(claim_text(c)) for c in claims))))
    every += GREEK + " ε⁻² x₀₁ n²"  # scripts after a symbol: one ^{-2}, not ^{-}^{2}
    sym = step(Kind.SYMBOLIC, "reduced to 0")
    enc = step(Kind.ENCLOSURE, "arb excludes 0", domain="the point x=1")
    enum = step(Kind.ENUMERATION, "n = 1..5 exactly", domain="n = 1..5")
    mc = step(Kind.MONTE_CARLO, "reproduced", domain="the paper's cells")

    def crash() -> Verdict:
        raise ZeroDivisionError("boom <&> \x01")

    cases = [
        ("syn.a.proved", r"\mu_1=s+\frac{\lambda}{2}", Verdict(Status.PROVED, "m", {"finding": "holds λ→∞"}, domain="all", basis=[sym])),  # noqa: E501
        ("syn.a.refuted", r"\text{§2: }x\ge0", Verdict(Status.REFUTED, "m", {"finding": f"fails: {every} x̄ <&> e^-t 50% $1 #_{{}}~\\ \x01", "witness": {"x": "1"}}, basis=[enc])),  # noqa: E501
        ("syn.a.verified", r"\delta_1(\mathbf p)=1/n", Verdict(Status.VERIFIED, "m", {"finding": "on n ≤ 5"}, domain="n = 1..5", basis=[enum])),  # noqa: E501
        ("syn.a.inconclusive", r"\begin{cases}a&b\end{cases}", Verdict(Status.INCONCLUSIVE, "not settled", {"finding": "open"}, basis=[])),  # noqa: E501
        ("syn.b.empirical", r"\text{small-}n\text{ bias}", Verdict(Status.REFUTED, "mc", {"finding": "contradicted"}, basis=[mc])),  # noqa: E501
        ("syn.b.crash", "x", None),
    ]  # fmt: skip
    out = []
    for cid, statement, verdict in cases:
        check = crash if verdict is None else (lambda v=verdict: v)
        out.append(runner.run_one(Claim(cid, "§9.9 <test>", statement, check, "test", 0)))
    return out


def _status_of(results, cid):  # type: ignore[no-untyped-def]
    return next(r for r in results if r.claim.id == cid).verdict


def test_synthetic_results_cover_what_the_reports_must_show(synthetic):
    statuses = {r.verdict.status for r in synthetic}
    assert statuses == set(Status)
    assert any(r.verdict.empirical for r in synthetic)
    assert _status_of(synthetic, "syn.b.crash").evidence["crashed"]


# --------------------------------------------------------------------------- junit


def check_junit(text: str, results: list[runner.Result]) -> ET.Element:
    """The structure of the JUnit XML schema (Ant/Jenkins) that dashboards read, and
    the counts: returns the root."""
    assert text.startswith('<?xml version="1.0" encoding="UTF-8"?>')
    root = ET.fromstring(text.encode("utf-8"))
    assert root.tag == "testsuites"
    expected = {r.claim.id: r for r in results}
    data = {c["id"]: c for c in report.as_json_data(results)["claims"]}
    seen = []
    totals = {"tests": 0, "failures": 0, "time": 0.0}
    for suite in root:
        assert suite.tag == "testsuite", suite.tag
        children = [c.tag for c in suite]
        # schema order: properties?, testcase*, system-out?, system-err?
        assert children == sorted(children, key=lambda t: ["properties", "testcase"].index(t))
        cases = suite.findall("testcase")
        failures = [c for c in cases if c.find("failure") is not None]
        assert int(suite.get("tests")) == len(cases)
        assert int(suite.get("failures")) == len(failures)
        assert suite.get("errors") == "0" and suite.get("skipped") == "0"
        seconds = sum(float(c.get("time")) for c in cases)
        assert abs(float(suite.get("time")) - seconds) <= 1e-3 * len(cases) + 1e-9
        for case in cases:
            cid = case.get("name")
            r = expected[cid]
            assert case.get("classname") == suite.get("name") == r.claim.document
            assert float(case.get("time")) == pytest.approx(r.verdict.seconds, abs=5e-4)
            assert [c.tag for c in case][-1] == "system-out"
            failure = case.find("failure")
            failing = r.verdict.status in (Status.REFUTED, Status.INCONCLUSIVE)
            assert (failure is not None) == failing, cid
            if failing:
                assert failure.get("message") == _xml_clean(report.headline(r))
                assert failure.get("type") == report.status_text(r)
                body = failure.text or ""
                assert f"reproduce: {r.verdict.reproduce}" in body
                evidence = json.loads(body.split("evidence:\n", 1)[1])
                raw = json.dumps(data[cid]["evidence"], default=str, ensure_ascii=False)
                assert evidence == json.loads(_xml_clean(raw))
            seen.append(cid)
        totals["tests"] += len(cases)
        totals["failures"] += len(failures)
        totals["time"] += seconds
    assert sorted(seen) == sorted(expected) and len(seen) == len(set(seen))
    assert int(root.get("tests")) == totals["tests"] == len(results)
    assert int(root.get("failures")) == totals["failures"]
    assert abs(float(root.get("time")) - totals["time"]) <= 1e-3 * len(results) + 1e-9
    return root


def _xml_clean(text: str) -> str:
    return re.sub("[\x00-\x08\x0b\x0c\x0e-\x1f]", "\ufffd", text)


def test_junit_synthetic(synthetic):
    root = check_junit(report.render(synthetic, "junit"), synthetic)
    failing = {c.get("name") for c in root.iter("testcase") if c.find("failure") is not None}
    assert failing == {
        "syn.a.refuted",
        "syn.a.inconclusive",
        "syn.b.empirical",
        "syn.b.crash",
    }


def test_junit_real(real):
    root = check_junit(report.render(real, "junit"), real)
    assert root.get("failures") == str(
        sum(r.verdict.status in (Status.REFUTED, Status.INCONCLUSIVE) for r in real)
    )


def test_junit_through_the_cli(tmp_path):
    out = tmp_path / "v.xml"
    argv = ["verify", "liu2019.eq5.bit_law", "--format", "junit", "--output", str(out)]
    assert main([*argv, "--quiet", "--proofs", str(ROOT / "proofs")]) == 0
    root = ET.parse(out).getroot()
    assert root.get("tests") == "1" and root.get("failures") == "1"


# --------------------------------------------------------------------------- mathml

MATHML_CORE = {
    "math", "semantics", "annotation", "mrow", "mi", "mn", "mo", "mtext", "mspace", "msub",
    "msup", "msubsup", "munder", "mover", "munderover", "mfrac", "msqrt", "mroot",
}  # fmt: skip
NS = "{http://www.w3.org/1998/Math/MathML}"


def _tex_alnum(latex: str) -> str:
    """The letters and digits a reader sees in the TeX: command names dropped, except
    operator names (``\\max``), whose letters are shown."""
    kept = re.sub(
        r"\\([A-Za-z]+)",
        lambda m: m.group(1) if m.group(1) in mathml.FUNCTIONS else " ",
        latex,
    )
    return re.sub(r"[^A-Za-z0-9]", "", kept)


def _math_alnum(element: ET.Element) -> str:
    text = "".join(t for e in element.iter() if e.tag != NS + "annotation" for t in [e.text or ""])
    return re.sub(r"[^A-Za-z0-9]", "", unicodedata.normalize("NFKC", text))


def test_every_statement_converts_to_mathml_core(claims):
    for c in claims:
        element = ET.fromstring(mathml.to_mathml(c.statement))
        tags = {e.tag.removeprefix(NS) for e in element.iter()}
        assert tags <= MATHML_CORE, (c.id, tags - MATHML_CORE)
        assert element.find(f".//{NS}annotation").text == c.statement
        # nothing dropped, nothing invented: the same letters and digits (as multisets:
        # MathML puts a subscript before a superscript whatever the TeX order)
        assert sorted(_math_alnum(element)) == sorted(_tex_alnum(c.statement)), c.id


@pytest.mark.parametrize(
    "latex, path",
    [
        (r"\frac{a}{b+1}", "mfrac/mi"),
        (r"x^{2}_{i}", "msubsup/mi"),
        (r"\sqrt{x}", "msqrt/mi"),
        (r"\sqrt[3]{x}", "mroot/mn"),
        (r"\bar{x}_{1}", "msub/mover/mi"),
        (r"\tfrac12", "mfrac/mn"),
        (r"\sum_{i=1}^{n} x_i", "munderover/mo"),
        (r"\text{a $x$ b}", "mtext"),
    ],
)
def test_mathml_structure(latex, path):
    element = ET.fromstring(mathml.to_mathml(latex))
    body = element.find(f"{NS}semantics/{NS}mrow")
    assert body.find("/".join(NS + p for p in path.split("/"))) is not None, mathml.to_mathml(latex)


@pytest.mark.parametrize(
    "latex",
    [r"\begin{cases}a\end{cases}", r"a & b", r"\frac{a", r"a}", r"\unknowncommand", "\\"],
)
def test_mathml_unsupported_is_said(latex):
    with pytest.raises(mathml.Unsupported):
        mathml.to_mathml(latex)


# --------------------------------------------------------------------------- html


class _Collect(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag, attrs):  # type: ignore[no-untyped-def]
        self.tags.append((tag, dict(attrs)))


def check_html(text: str, results: list[runner.Result]) -> None:
    """Self-contained: no script, every resource a data: URI; every claim present."""
    parsed = _Collect()
    parsed.feed(text)
    tags = parsed.tags
    names = {t for t, _ in tags}
    assert not names & {"script", "link", "iframe", "object", "embed", "base"}, names
    for tag, attrs in tags:
        for key, value in attrs.items():
            value = value or ""
            if key == "xmlns":  # a namespace name, never fetched
                continue
            assert not re.match(r"\s*(https?:|//|ftp:|file:)", value, re.I), (tag, key, value)
            if key == "src":
                assert value.startswith("data:image/png;base64,"), (tag, value[:40])
                assert base64.b64decode(value.split(",", 1)[1]).startswith(b"\x89PNG\r\n")
    for style in re.findall(r"<style>(.*?)</style>", text, re.S):
        assert "url(" not in style and "@import" not in style
    meta = [a for t, a in tags if t == "meta" and a.get("http-equiv")]
    assert meta and "default-src 'none'" in meta[0]["content"]
    sections = {a.get("id") for t, a in tags if t == "section"}
    assert sections == {f"claim-{r.claim.id}" for r in results}
    rows = text.split("<tbody>", 1)[1].split("</tbody>", 1)[0].count("<tr>")
    assert rows == len(results)
    maths = re.findall(r"<math .*?</math>", text, re.S)
    for m in maths:
        ET.fromstring(m)
    fallbacks = re.findall(r'<code class="tex">(.*?)</code>', text, re.S)
    assert len(maths) + len(fallbacks) == len(results)
    for r in results:
        assert escape(r.verdict.reproduce) in text


def test_html_synthetic(synthetic):
    text = report.render(synthetic, "html")
    check_html(text, synthetic)
    assert text.count('<img src="data:image/png;base64,') == 1
    # the converter does not know cases: the TeX is shown instead
    assert '<code class="tex">\\begin{cases}a&amp;b\\end{cases}</code>' in text


def test_html_real(real):
    check_html(report.render(real, "html"), real)


# --------------------------------------------------------------------------- chromium


def chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    if os.environ.get("DPCHECK_REQUIRE_CHROMIUM"):
        pytest.fail("DPCHECK_REQUIRE_CHROMIUM is set but chromium is not on PATH")
    pytest.skip("no chromium on PATH: the HTML report is not loaded in a browser here")


def load_in_chromium(html: Path, work: Path) -> tuple[bytes, str]:
    """(screenshot PNG, DOM after loading) of ``html`` in headless Chromium."""
    browser = chromium()
    common = [
        browser,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        f"--user-data-dir={work / 'profile'}",
    ]
    shot = work / "shot.png"
    subprocess.run(
        [*common, f"--screenshot={shot}", "--window-size=1280,2000", html.as_uri()],
        capture_output=True,
        timeout=180,
        check=False,
    )
    dom = subprocess.run(
        [*common, "--dump-dom", html.as_uri()],
        capture_output=True,
        timeout=180,
        check=False,
    )
    assert shot.exists(), dom.stderr.decode(errors="replace")[-800:]
    return shot.read_bytes(), dom.stdout.decode("utf-8", errors="replace")


def check_in_browser(results: list[runner.Result], work: Path) -> None:
    html = work / "report.html"
    html.write_text(report.render(results, "html"), encoding="utf-8")
    png, dom = load_in_chromium(html, work)
    assert png.startswith(b"\x89PNG\r\n") and len(png) > 10_000
    for r in results:
        assert f'id="claim-{r.claim.id}"' in dom, r.claim.id
        assert r.claim.id in dom
    assert "<math" in dom and "<mfrac" in dom  # the statements reached the DOM as MathML


def test_html_loads_in_chromium(synthetic, real, tmp_path):
    check_in_browser(synthetic + real, tmp_path)


# --------------------------------------------------------------------------- tex


def _engine() -> str:
    found = shutil.which("pdflatex")
    if found:
        return found
    if os.environ.get("DPCHECK_REQUIRE_TEX"):
        pytest.fail("DPCHECK_REQUIRE_TEX is set but pdflatex is not on PATH")
    pytest.skip("no pdflatex on PATH: the tex report is not compiled here")


def compile_tex(source: str, work: Path) -> Path:
    work.mkdir(parents=True, exist_ok=True)
    (work / "report.tex").write_text(source, encoding="utf-8")
    done = subprocess.run(
        [_engine(), "-interaction=nonstopmode", "-halt-on-error", "report.tex"],
        cwd=work,
        capture_output=True,
        text=True,
        errors="replace",
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-2500:]
    pdf = work / "report.pdf"
    assert pdf.read_bytes().startswith(b"%PDF")
    return pdf


def test_every_registry_character_has_a_macro(claims):
    for ch in set().union(*(_non_ascii(claim_text(c)) for c in claims)):
        kind, latex = report_tex.unit(ch)
        assert kind != "unknown", (ch, latex)


def test_tex_escapes_text_and_keeps_math():
    assert report_tex.text("μ→∞ & 50% e^-t x̄ é §2") == (
        r"$\mu \to \infty$ \& 50\% e\textasciicircum{}-t $\bar{x}$ \'{e} \S{}2"
    )
    assert report_tex.math(r"\text{§4 }\mu") == r"\text{\text{\S{}}4 }\mu"
    assert report_tex.text("\u2603") == "[U+2603]"
    assert report_tex.text("ε⁻²") == r"$\varepsilon ^{-2}$"
    assert report_tex.math("s²₀ ε⁻²") == r"s\ensuremath{^{2} _{0}} \ensuremath{\varepsilon ^{-2}}"


#: glyphs pdftotext reads back as another code point that means the same
_SAME_GLYPH = {"∆": "Δ", "◦": "∘", "∥": "‖"}
#: built of two glyphs (≠ is = with a slash) or drawn from cmex/cmsy without a
#: Unicode name pdftotext knows: not comparable this way
_NOT_READABLE = {"≠", "√", "↦", "∉", "∑", "∏", "∫"}


def check_pdf_characters(chars: set[str], work: Path) -> None:
    """Each character, typeset by the escaper and read back from the PDF by pdftotext,
    is itself (an independent route: TeX's fonts and their glyph names)."""
    if not shutil.which("pdftotext"):
        if os.environ.get("DPCHECK_REQUIRE_TEX"):
            pytest.fail("DPCHECK_REQUIRE_TEX is set but pdftotext is not on PATH")
        pytest.skip("no pdftotext on PATH")
    order = sorted(chars)
    body = "\n\n".join(f"{i}: [{report_tex.text(c)}]" for i, c in enumerate(order))
    pdf = compile_tex(report_tex.PREAMBLE + body + "\n\\end{document}\n", work)
    out = subprocess.run(
        ["pdftotext", "-enc", "UTF-8", str(pdf), "-"], capture_output=True, text=True, check=True
    ).stdout
    read = {int(m[1]): m[2] for m in re.finditer(r"(\d+): \[(.*?)\]", out, re.S)}

    def norm(s: str) -> str:
        s = "".join(_SAME_GLYPH.get(c, c) for c in s)
        return re.sub(r"\s", "", unicodedata.normalize("NFKC", s))

    wrong = [
        (c, read.get(i))
        for i, c in enumerate(order)
        if c not in _NOT_READABLE
        and not re.fullmatch(r"[A-Za-z]|\\mathrm\{[A-Z]\}", report_tex.unit(c)[1])  # Latin-drawn
        and norm(read.get(i, "")) != norm(c)
    ]
    assert not wrong, wrong


def report_chars(results: list[runner.Result]) -> set[str]:
    """The non-ASCII characters of every text a report shows."""
    return set().union(
        *(
            _non_ascii(claim_text(r.claim) + report.headline(r) + r.verdict.reproduce)
            for r in results
        )
    )


def test_tex_of_a_selection_compiles(selection, claims, real, tmp_path):
    """``verify --format tex`` of the real selection (every registry character) and the
    synthetic findings: pdflatex compiles it; no character falls back to [U+...]."""
    out = tmp_path / "v.tex"
    argv = ["verify", *selection, "--format", "tex", "--output", str(out), "--quiet"]
    assert main([*argv, "--proofs", str(ROOT / "proofs")]) == 0
    source = out.read_text(encoding="utf-8")
    assert source.isascii() and "[U+" not in source
    assert source.startswith("% generated by dpcheck verify --format tex")
    compile_tex(source, tmp_path / "real")
    registry_chars = set().union(*(_non_ascii(claim_text(c)) for c in claims))
    check_pdf_characters(registry_chars | report_chars(real), tmp_path / "chars")


def test_tex_synthetic_compiles(synthetic, tmp_path):
    source = report.render(synthetic, "tex")
    # the only character without a macro is the control character the finding holds
    assert source.isascii() and re.findall(r"\[U\+([0-9A-F]+)\]", source) == ["0001"]
    compile_tex(source, tmp_path)
    check_pdf_characters(report_chars(synthetic), tmp_path / "chars")


# --------------------------------------------------------------------------- the whole registry


@pytest.fixture(scope="module")
def everything(claims) -> list[runner.Result]:
    return runner.run(claims)


@pytest.mark.slow
def test_full_run_reports(everything, tmp_path):
    """Every claim: junit counts, tex compiles with every character of every text
    (findings included) typeset, html in Chromium."""
    check_junit(report.render(everything, "junit"), everything)
    source = report.render(everything, "tex")
    assert source.isascii() and "[U+" not in source
    compile_tex(source, tmp_path / "tex")
    check_pdf_characters(report_chars(everything), tmp_path / "chars")
    check_html(report.render(everything, "html"), everything)
    check_in_browser(everything, tmp_path)
