"""The figures of the HTML report (issue 20), embedded so that the file needs no network.

* :func:`summary_svg`: the verdict counts of each document as stacked bars, an
  inline SVG drawn here (no plotting library, deterministic);
* :func:`claim_figures`: for the empirical claims of Liu (2019) §4, the paper's
  figures reproduced from the same runs the verdicts judge
  (:mod:`dpcheck.simulation.runs`, cached and seeded) by
  :mod:`dpcheck.plots.simulation`, as PNG ``data:`` URIs.  :data:`FIGURES` says
  which claim shows which figure; a claim without an entry shows none.
"""

from __future__ import annotations

import base64
import tempfile
from collections.abc import Callable
from html import escape
from pathlib import Path

from dpcheck.claims.model import Status
from dpcheck.claims.runner import Result

#: resolution of the embedded figures (the plots' own 120 dpi would make the file ~4 MB)
DPI = 60

#: colour of each status in the figures and the table
COLOURS = {
    Status.PROVED: "#2e7d32",
    Status.VERIFIED: "#00838f",
    Status.REFUTED: "#c62828",
    Status.INCONCLUSIVE: "#ef8f00",
}


def _study1(path: Path) -> None:
    from dpcheck.plots.simulation import plot_study1
    from dpcheck.simulation import runs

    plot_study1(runs.study1(), path)


def _study2(approach: str) -> Callable[[Path], None]:
    def draw(path: Path) -> None:
        from dpcheck.plots.simulation import plot_study2
        from dpcheck.simulation import runs

        plot_study2(runs.study2(), approach, path)

    return draw


def _sums(path: Path) -> None:
    from dpcheck.plots.simulation import plot_pairwise_sums
    from dpcheck.simulation import runs

    plot_pairwise_sums(runs.study2(), path)


#: claim id -> (caption, drawing function writing a PNG to the path it is given)
FIGURES: dict[str, tuple[tuple[str, Callable[[Path], None]], ...]] = {
    "liu2019.sim1.findings": (("Figure 1, reproduced (500 repetitions)", _study1),),
    "liu2019.sim2.rescaling": (("Figure 2, reproduced", _study2("rescaling")),),
    "liu2019.sim2.multiple_synthesis": (("Figure 3, reproduced", _study2("ms")),),
    "liu2019.sim2.all_but_one": (("Figure 4, reproduced", _study2("all_but_one")),),
    "liu2019.sim2.uh_vs_rescaling": (
        ("Figure 5, reproduced", _study2("uh")),
        ("Figures S1-S2, reproduced", _sums),
    ),
}


def png_data_uri(data: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(data).decode("ascii")


def claim_figures(claim_id: str) -> list[tuple[str, str]]:
    """(caption, PNG data URI) of each figure :data:`FIGURES` lists for the claim."""
    entries = FIGURES.get(claim_id, ())
    if not entries:
        return []
    from dpcheck.plots import simulation as plots

    out = []
    saved = plots.DPI
    plots.DPI = DPI
    try:
        with tempfile.TemporaryDirectory(prefix="dpcheck-figure-") as work:
            for i, (caption, draw) in enumerate(entries):
                path = Path(work) / f"figure{i}.png"
                draw(path)
                out.append((caption, png_data_uri(path.read_bytes())))
    finally:
        plots.DPI = saved
    return out


def summary_svg(results: list[Result]) -> str:
    """Stacked bars of the verdict counts per document, as an inline ``<svg>``."""
    documents: dict[str, dict[Status, int]] = {}
    for r in results:
        counts = documents.setdefault(r.claim.document, {s: 0 for s in Status})
        counts[r.verdict.status] += 1
    bar, gap, label, width = 22, 10, 90, 420
    most = max((sum(c.values()) for c in documents.values()), default=1) or 1
    height = len(documents) * (bar + gap) + 40
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" role="img" width="{label + width + 60}"'
        f' height="{height}" viewBox="0 0 {label + width + 60} {height}"'
        ' font-family="sans-serif" font-size="12">',
        "<title>verdicts per document</title>",
    ]
    for row, (document, counts) in enumerate(documents.items()):
        y = row * (bar + gap) + 4
        parts.append(
            f'<text x="{label - 6}" y="{y + bar * 0.7:.1f}" text-anchor="end">'
            f"{escape(document)}</text>"
        )
        x = float(label)
        for status, count in counts.items():
            if not count:
                continue
            w = width * count / most
            parts.append(
                f'<rect x="{x:.1f}" y="{y}" width="{w:.1f}" height="{bar}"'
                f' fill="{COLOURS[status]}"><title>{status.value}: {count}</title></rect>'
            )
            if w >= 18:
                parts.append(
                    f'<text x="{x + w / 2:.1f}" y="{y + bar * 0.7:.1f}" fill="#fff"'
                    f' text-anchor="middle">{count}</text>'
                )
            x += w
        total = sum(counts.values())
        parts.append(f'<text x="{x + 6:.1f}" y="{y + bar * 0.7:.1f}">{total}</text>')
    y = len(documents) * (bar + gap) + 14
    x = float(label)
    for status in Status:
        parts.append(
            f'<rect x="{x:.1f}" y="{y}" width="12" height="12" fill="{COLOURS[status]}"/>'
            f'<text x="{x + 16:.1f}" y="{y + 10}">{status.value}</text>'
        )
        x += 100
    parts.append("</svg>")
    return "".join(parts)
