"""The ``verify --format html`` report: one self-contained HTML file (issue 20).

Nothing is fetched when the file is opened: the style is inline, the statements
are MathML (:mod:`dpcheck.claims.mathml`; a statement the converter does not
know is shown as TeX in ``<code>``), the summary figure is inline SVG and the
reproduced figures are PNG ``data:`` URIs (:mod:`dpcheck.claims.report_figures`);
there is no script.  A Content-Security-Policy ``<meta>`` forbids any other
source, so a browser would refuse a network load even if one crept in.

The file holds the summary line and figure, the verdict table (each id links to
its section) and a section per claim: source, status, statement, finding,
method, domain, basis, the evidence (JSON), the reproduce command and figures.
"""

from __future__ import annotations

import json
import re
from html import escape as _escape

from dpcheck.claims import mathml
from dpcheck.claims.report import as_json_data, headline, status_text
from dpcheck.claims.report_figures import COLOURS, claim_figures, summary_svg
from dpcheck.claims.runner import Result, summary_line

# characters HTML forbids in text (control characters other than whitespace)
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def escape(text: str) -> str:
    """HTML-escaped text, control characters replaced by U+FFFD."""
    return _escape(_CONTROL.sub("\ufffd", text))


#: no source but the file itself and data: URIs
CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"

STYLE = """
body { font-family: sans-serif; margin: 2em auto; max-width: 70em; padding: 0 1em;
       color: #222; line-height: 1.4; }
table { border-collapse: collapse; width: 100%; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.5em; text-align: left;
         vertical-align: top; }
th { background: #f0f0f0; }
td.seconds { text-align: right; font-variant-numeric: tabular-nums; }
.status { font-weight: bold; white-space: nowrap; }
section.claim { border-top: 2px solid #ddd; margin-top: 1.5em; padding-top: 0.5em; }
section.claim h2 { font-size: 1.1em; font-family: monospace; }
.statement { overflow-x: auto; overflow-y: hidden; margin: 0.5em 0; font-size: 1.1em; }
math { font-size: 1.1em; }
pre { background: #f7f7f7; padding: 0.5em; overflow-x: auto; font-size: 0.85em; }
code { background: #f2f2f2; padding: 0 0.2em; }
figure { margin: 1em 0; }
figure img { max-width: 100%; height: auto; border: 1px solid #eee; }
dt { font-weight: bold; }
"""


def _anchor(claim_id: str) -> str:
    return "claim-" + claim_id


def _status(r: Result) -> str:
    colour = COLOURS[r.verdict.status]
    return f'<span class="status" style="color:{colour}">{escape(status_text(r))}</span>'


def statement_html(latex: str) -> str:
    """The statement as MathML, or as TeX in ``<code>`` when the converter cannot."""
    try:
        return mathml.to_mathml(latex)
    except mathml.Unsupported:
        return f'<code class="tex">{escape(latex)}</code>'


def _table(results: list[Result]) -> str:
    rows = [
        '<table class="verdicts"><thead><tr><th>id</th><th>source</th><th>status</th>'
        "<th>finding</th><th>s</th></tr></thead><tbody>"
    ]
    for r in results:
        rows.append(
            f'<tr><td><a href="#{escape(_anchor(r.claim.id))}">{escape(r.claim.id)}</a></td>'
            f"<td>{escape(r.claim.source)}</td><td>{_status(r)}</td>"
            f"<td>{escape(headline(r))}</td>"
            f'<td class="seconds">{r.verdict.seconds:.1f}</td></tr>'
        )
    rows.append("</tbody></table>")
    return "\n".join(rows)


def _section(r: Result, data: dict) -> str:  # type: ignore[type-arg]
    v = r.verdict
    basis = "".join(
        f"<li><b>{escape(s['kind'])}</b> ({'checked' if s['checked'] else 'not checked'};"
        f" {escape(s['domain'])}): {escape(s['detail'])}</li>"
        for s in data["basis"]
    )
    evidence = json.dumps(data["evidence"], indent=2, default=str, ensure_ascii=False)
    parts = [
        f'<section class="claim" id="{escape(_anchor(r.claim.id))}">',
        f"<h2>{escape(r.claim.id)} {_status(r)}</h2>",
        f"<p>Source: {escape(r.claim.source)}</p>",
        f'<div class="statement">{statement_html(r.claim.statement)}</div>',
        f'<p class="finding">{escape(headline(r))}</p>',
        "<dl>",
        f"<dt>method</dt><dd>{escape(v.method)}</dd>",
    ]
    if v.domain:
        parts.append(f"<dt>domain</dt><dd>{escape(v.domain)}</dd>")
    parts += [
        f"<dt>basis</dt><dd><ul>{basis}</ul></dd>",
        f"<dt>reproduce</dt><dd><code>{escape(v.reproduce)}</code></dd>",
        "</dl>",
        f"<details><summary>evidence</summary><pre>{escape(evidence)}</pre></details>",
    ]
    for caption, uri in claim_figures(r.claim.id):
        parts.append(
            f'<figure><img src="{uri}" alt="{escape(caption)}">'
            f"<figcaption>{escape(caption)}</figcaption></figure>"
        )
    parts.append("</section>")
    return "\n".join(parts)


def render_html(results: list[Result]) -> str:
    """The report as one HTML document (UTF-8), with no external resource."""
    data = {c["id"]: c for c in as_json_data(results)["claims"]}
    head = (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        "<title>dpcheck verify</title>\n"
        f"<style>{STYLE}</style>\n</head>\n<body>\n"
    )
    body = [
        "<h1>dpcheck verify</h1>",
        f'<p class="summary">{escape(summary_line(results))}</p>',
        f"<figure>{summary_svg(results)}<figcaption>Verdicts per document</figcaption></figure>",
        _table(results),
    ]
    body += [_section(r, data[r.claim.id]) for r in results]
    return head + "\n".join(body) + "\n</body>\n</html>\n"
