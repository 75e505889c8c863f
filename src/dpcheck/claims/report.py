"""Verdict reports: table, json (the contract of DESIGN.md), md, tex, junit, html.

Every format shows each claim's status; empirical verdicts (judged by Monte
Carlo reproduction, :attr:`dpcheck.claims.model.Verdict.empirical`) are marked
as such, and the summary line counts them apart from the deductive ones.  The
tex (:mod:`dpcheck.claims.report_tex`), junit (:mod:`dpcheck.claims.report_junit`)
and html (:mod:`dpcheck.claims.report_html`) formats live in their own modules.
"""

from __future__ import annotations

import json
from io import StringIO
from typing import Any

from dpcheck.claims.runner import Result, summary, summary_line, summary_text

FORMATS = ("table", "json", "md", "tex", "junit", "html")


def as_json_data(results: list[Result]) -> dict[str, Any]:
    """The JSON contract: {"claims": [...], "summary": {status: count}}."""
    claims = []
    for r in results:
        v = r.verdict
        evidence = dict(v.evidence)
        if v.domain:
            evidence.setdefault("domain", v.domain)
        claims.append(
            {
                "id": r.claim.id,
                "source": r.claim.source,
                "statement": r.claim.statement,
                "status": v.status.value,
                "empirical": v.empirical,
                "method": v.method,
                "basis": [st.as_dict(v.domain) for st in v.basis],
                "evidence": evidence,
                "reproduce": v.reproduce,
                "seconds": v.seconds,
            }
        )
    return {"claims": claims, "summary": summary(results)}


def render_json(results: list[Result]) -> str:
    return json.dumps(as_json_data(results), indent=2, default=str) + "\n"


def headline(r: Result) -> str:
    """The one-line finding: the evidence's 'finding' entry, else the method."""
    return str(r.verdict.evidence.get("finding", r.verdict.method))


def status_text(r: Result) -> str:
    """The status, with '(empirical)' for a verdict judged by Monte Carlo reproduction."""
    return r.verdict.status.value + (" (empirical)" if r.verdict.empirical else "")


def render_md(results: list[Result]) -> str:
    return md_from_data(as_json_data(results))


def md_from_data(data: dict[str, Any]) -> str:
    """The markdown table and summary line from the JSON contract's data (also used to
    regenerate the README's tables from a saved report, :mod:`dpcheck.readme`)."""
    out = StringIO()
    out.write("| id | source | status | finding | reproduce |\n| --- | --- | --- | --- | --- |\n")
    for c in data["claims"]:
        cells = [
            c["id"],
            c["source"],
            f"**{c['status']}**" + (" (empirical)" if c.get("empirical") else ""),
            str(c["evidence"].get("finding", c["method"])),
            f"`{c['reproduce']}`",
        ]
        out.write(
            "| " + " | ".join(x.replace("|", "\\|").replace("\n", " ") for x in cells) + " |\n"
        )
    out.write("\n" + summary_text(data["summary"]) + "\n")
    return out.getvalue()


def render_table(results: list[Result], width: int | None = None) -> str:
    """A rich table (plain text when written to a file)."""
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    style = {"proved": "green", "verified": "cyan", "refuted": "red", "inconclusive": "yellow"}
    table = Table(show_lines=False)
    for col in ("id", "status", "finding", "s"):
        table.add_column(col, overflow="fold")
    for r in results:
        st = r.verdict.status.value
        table.add_row(
            r.claim.id,
            f"[{style[st]}]{status_text(r)}[/]",
            escape(headline(r)),
            f"{r.verdict.seconds:.1f}",
        )
    buf = StringIO()
    console = Console(file=buf, width=width or 160, force_terminal=False, color_system=None)
    console.print(table)
    console.print(summary_line(results))
    return buf.getvalue()


def render_tex(results: list[Result]) -> str:
    """A LaTeX document that pdflatex compiles (:mod:`dpcheck.claims.report_tex`)."""
    from dpcheck.claims.report_tex import render_tex as tex

    return tex(results)


def render_junit(results: list[Result]) -> str:
    """JUnit XML, one testcase per claim (:mod:`dpcheck.claims.report_junit`)."""
    from dpcheck.claims.report_junit import render_junit as junit

    return junit(results)


def render_html(results: list[Result]) -> str:
    """One self-contained HTML file (:mod:`dpcheck.claims.report_html`)."""
    from dpcheck.claims.report_html import render_html as html

    return html(results)


def render(results: list[Result], fmt: str) -> str:
    """The report of ``results`` in format ``fmt`` (one of :data:`FORMATS`)."""
    renderers = {
        "json": render_json,
        "md": render_md,
        "tex": render_tex,
        "table": render_table,
        "junit": render_junit,
        "html": render_html,
    }
    return renderers[fmt](results)
