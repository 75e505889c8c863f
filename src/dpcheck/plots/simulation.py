"""Figures of the two simulation studies of Liu (2019) §4: matplotlib, Agg backend.

:func:`plot_study1` — Figure 1 (§4.1): the sanitised S11, S22, S12 and r of a 2x2
covariance matrix against n, truncated against BIT, with their 25-75% and
2.5-97.5% bands and the original value.
:func:`plot_study2` — Figures 2-5 (§4.2): bias, RMSE and coverage of the 4
sanitised proportions (blue) beside the original ones (red), per epsilon and
mechanism, for one way of meeting the sum-to-one constraint.
:func:`plot_pairwise_sums` — Figures S1-S2 (supplement): the same for the pairwise
sums p1+p2, p2+p3, p2+p4 under the re-scaling and the universal-histogram approach.

Each function writes one file at ``path`` (format from its suffix: .png, .pdf,
.svg), closes its figure and returns the path.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from dpcheck.errors import InputError
from dpcheck.simulation.covariance import STATISTICS, Study1Result
from dpcheck.simulation.proportions import APPROACH_WORDS, APPROACHES, TARGETS, Study2Result
from dpcheck.simulation.summaries import ErrorSummary

APPROACH_FIGURE = {"rescaling": 2, "ms": 3, "all_but_one": 4, "uh": 5}
MECHANISM_WORDS = {"truncated": "truncated", "bit": "BIT"}
#: study 1: one colour per mechanism
MECHANISM_COLOURS = {"truncated": "#1f5fa8", "bit": "#d9620b"}
#: study 2: the 4 proportions (and the 3 pairwise sums) told apart by marker and shade
MARKERS = ("o", "s", "^", "D")
DPI = 120
_STYLE = {
    "font.size": 8,
    "axes.titlesize": 8.5,
    "axes.labelsize": 8,
    "xtick.labelsize": 7,
    "ytick.labelsize": 7,
    "legend.fontsize": 8,
    "figure.titlesize": 11,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "grid.linewidth": 0.5,
}
_ROWS = (("bias", "bias"), ("rmse", "RMSE"), ("cp", "CP of the 95% CI"))


def _pyplot():  # type: ignore[no-untyped-def]
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


@contextmanager
def _figure(path: str | Path, **kwargs: Any) -> Iterator[tuple[Any, Path]]:
    """A constrained-layout figure in the module's style, saved to ``path`` and closed."""
    plt = _pyplot()
    out = Path(path)
    if not out.parent.exists():
        raise InputError(f"--plot {str(path)!r}: folder {str(out.parent)!r} does not exist")
    with plt.rc_context(_STYLE):
        fig = plt.figure(layout="constrained", **kwargs)
        try:
            yield fig, out
            fig.savefig(out, dpi=DPI)
        except OSError as err:
            raise InputError(f"--plot {str(path)!r}: cannot write ({err.strerror})") from None
        finally:
            plt.close(fig)


def _check_approach(approach: str) -> None:
    if approach not in APPROACHES:
        raise InputError(f"approach {approach!r}: expected one of {', '.join(APPROACHES)}")


def _size_ticks(ax: Any, sizes: Sequence[int]) -> None:
    """x limits a little beyond the sizes, about 5 integer ticks."""
    from matplotlib.ticker import MaxNLocator

    lo, hi = min(sizes), max(sizes)
    pad = 0.03 * (hi - lo) if hi > lo else 1
    ax.set_xlim(lo - pad, hi + pad)
    ax.xaxis.set_major_locator(MaxNLocator(nbins=5, integer=True))


# --------------------------------------------------------------------------- study 1


_STAT_LABELS = {"S11": r"$S_{11}^*$", "S22": r"$S_{22}^*$", "S12": r"$S_{12}^*$", "r": r"$r^*$"}


def plot_study1(result: Study1Result, path: str | Path) -> Path:
    """Liu (2019) Figure 1: the sanitised components of S against n, truncated against BIT.

    Rows are S11*, S22*, S12*, r*; columns the settings (S11, S22, r), panels
    sharing y per row.  Each mechanism shows its mean (line with markers), its
    25-75% band (shaded) and its 2.5% and 97.5% percentiles (thin lines); the
    original value is the black dashed line.
    Under BIT r* is undefined when a sanitised variance is released at 0: the
    r* panels summarise the defined values only and state the share undefined
    at the smallest n.
    """
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    design = result.design
    sizes = np.array(design.sizes, dtype=float)
    n_set = len(design.settings)
    with _figure(path, figsize=(4.2 * n_set + 0.6, 9.6)) as (fig, out):
        axes = fig.subplots(len(STATISTICS), n_set, sharex=True, sharey="row", squeeze=False)
        for i, stat in enumerate(STATISTICS):
            truth = result.truth(stat)
            for mechanism, colour in MECHANISM_COLOURS.items():
                spread = result.spread(mechanism, stat)
                pct = spread.percentiles
                for j in range(n_set):
                    ax = axes[i, j]
                    ax.fill_between(
                        sizes, pct[j, :, 1], pct[j, :, 2], color=colour, alpha=0.28, lw=0
                    )
                    for q in (0, 3):
                        ax.plot(sizes, pct[j, :, q], color=colour, lw=0.7, ls="-", alpha=0.85)
                    ax.plot(sizes, spread.mean[j], color=colour, marker="o", ms=2.8, lw=1.3)
            for j in range(n_set):
                axes[i, j].axhline(truth[j], color="black", ls="--", lw=1.1, zorder=5)
            axes[i, 0].set_ylabel(_STAT_LABELS[stat], fontsize=10)
        # r* under BIT: how often it is undefined at the smallest n
        bit_r = result.spread("bit", "r")
        for j in range(n_set):
            undefined = 1 - bit_r.defined[j, 0] / design.reps
            axes[-1, j].text(
                0.98,
                0.04,
                f"BIT r* undefined in {undefined:.0%} at n = {design.sizes[0]}",
                transform=axes[-1, j].transAxes,
                ha="right",
                va="bottom",
                fontsize=7,
                color=MECHANISM_COLOURS["bit"],
                bbox={"boxstyle": "round,pad=0.2", "fc": "white", "ec": "none", "alpha": 0.8},
            )
            axes[-1, j].set_ylim(-1.05, 1.05)
        for j, (s11, s22, r) in enumerate(design.settings):
            axes[0, j].set_title(f"S11 = {s11:g}, S22 = {s22:g}, r = {r:g}", fontsize=9.5)
            axes[-1, j].set_xlabel("n")
            _size_ticks(axes[-1, j], design.sizes)
        handles: list[Any] = []
        for mechanism, colour in MECHANISM_COLOURS.items():
            name = MECHANISM_WORDS[mechanism]
            handles += [
                Line2D([], [], color=colour, marker="o", ms=3, lw=1.3, label=f"{name}: mean"),
                Patch(color=colour, alpha=0.4, label=f"{name}: 25–75%"),
                Line2D(
                    [], [], color=colour, lw=0.7, ls="-", alpha=0.85, label=f"{name}: 2.5%, 97.5%"
                ),
            ]
        handles.append(Line2D([], [], color="black", ls="--", lw=1.1, label="original value"))
        fig.legend(handles=handles, loc="outside lower center", ncol=7, frameon=False)
        fig.suptitle(
            f"Liu (2019) Figure 1: sanitised components of S (ε = {design.epsilon:g}, "
            f"{design.reps} sanitisations per n)\n"
            "BIT r* panels use only the defined values: r* is undefined when a sanitised "
            "variance is released at 0",
        )
    return out


# --------------------------------------------------------------------------- study 2


def _shade(cmap: str, k: int, count: int) -> Any:
    """The k-th of ``count`` shades of a sequential colour map, from mid to dark."""
    plt = _pyplot()
    return plt.get_cmap(cmap)(0.5 + 0.45 * k / max(count - 1, 1))


def _study2_grid(fig: Any, result: Study2Result) -> list[tuple[int, str, np.ndarray]]:
    """(epsilon index, mechanism, column of 3 axes): one sub-figure per epsilon, 2 columns each.

    Rows are bias, RMSE and CP; the two mechanisms of one epsilon share y per row.
    """
    design = result.design
    subfigs = np.atleast_1d(fig.subfigures(1, len(design.epsilons), wspace=0.02))
    grid = []
    for e, (sub, eps) in enumerate(zip(subfigs, design.epsilons, strict=True)):
        axes = sub.subplots(len(_ROWS), 2, sharex=True, sharey="row", squeeze=False)
        sub.suptitle(f"ε = {eps:g}", fontsize=10, fontweight="bold")
        for c, mechanism in enumerate(MECHANISM_WORDS):
            axes[0, c].set_title(MECHANISM_WORDS[mechanism])
            axes[-1, c].set_xlabel("n")
            _size_ticks(axes[-1, c], design.sizes)
            axes[0, c].axhline(0.0, color="black", lw=0.8, zorder=1)
            axes[2, c].axhline(0.95, color="black", ls="--", lw=0.8, zorder=1)
            grid.append((e, mechanism, axes[:, c]))
        for r, (_, label) in enumerate(_ROWS):
            axes[r, 0].set_ylabel(label)
    return grid


def _lines(
    axes: np.ndarray,
    sizes: np.ndarray,
    summary: ErrorSummary,
    index: tuple[Any, ...],
    targets: Sequence[int],
    colours: Sequence[Any],
    mc_se: bool,
    **style: Any,
) -> None:
    """Bias, RMSE and CP of the given targets, one row each, from summary[index][:, t]."""
    for r, (field, _) in enumerate(_ROWS):
        values = getattr(summary, field)[index]
        errors = getattr(summary, f"{field}_se")[index]
        for k, t in enumerate(targets):
            kwargs = {"color": colours[k], "marker": MARKERS[k % len(MARKERS)], **style}
            if mc_se:
                bars = {"yerr": 2 * errors[:, t], "capsize": 1.5, "elinewidth": 0.6}
                axes[r].errorbar(sizes, values[:, t], **bars, **kwargs)
            else:
                axes[r].plot(sizes, values[:, t], **kwargs)


def _style(name: str) -> dict[str, Any]:
    """Line style of a series: the original (unsanitised) estimates dashed, open markers."""
    line = {"ms": 3.4, "lw": 1.2}
    return {**line, "ls": "--", "mfc": "white"} if name == "original" else line


def _study2_figure(
    result: Study2Result,
    path: str | Path,
    targets: Sequence[str],
    approaches: dict[str, str],
    labels: dict[str, str],
    title: str,
    mc_se: bool,
) -> Path:
    """The grid of Figures 2-5 and S1-S2: ``targets`` per approach (colour map) and the original.

    ``approaches`` maps an approach to its colour map ("Blues", ...); the
    original is drawn in "Reds", dashed with open markers.  Shade and marker
    tell the targets apart; the legend has one entry per (approach, target).
    """
    from matplotlib.lines import Line2D

    design = result.design
    sizes = np.array(design.sizes, dtype=float)
    index = [TARGETS.index(t) for t in targets]
    series = {**approaches, "original": "Reds"}
    shades = {
        name: [_shade(cmap, k, len(index)) for k in range(len(index))]
        for name, cmap in series.items()
    }

    def draw(axes: np.ndarray, summary: ErrorSummary, where: tuple[Any, ...], name: str) -> None:
        _lines(axes, sizes, summary, where, index, shades[name], mc_se, **_style(name))

    with _figure(path, figsize=(5.2 * len(design.epsilons) + 0.4, 8.6)) as (fig, out):
        for e_index, mechanism, axes in _study2_grid(fig, result):
            if result.original is not None:
                draw(axes, result.original, (slice(None),), "original")
            for approach in approaches:
                draw(axes, result.summary[(approach, mechanism)], (e_index,), approach)
        handles = []  # target-major: with one column per target, one legend row per series
        for k, (t, i) in enumerate(zip(targets, index, strict=True)):
            for name in series:
                label = labels[name].format(target=t, p=design.truth[i])
                colour, marker = shades[name][k], MARKERS[k]
                handles.append(
                    Line2D([], [], color=colour, marker=marker, label=label, **_style(name))
                )
        # all in one row where it fits (3 blocks of columns), else one row per series
        ncol = len(handles) if len(design.epsilons) >= 3 else len(targets)
        fig.legend(handles=handles, loc="outside lower center", ncol=ncol, frameon=False)
        fig.suptitle(
            f"{title}\np = {tuple(float(p) for p in design.p)}, {design.reps} data sets per n; "
            "95% Wald intervals; dashed black: 0.95"
        )
    return out


def plot_study2(result: Study2Result, approach: str, path: str | Path, mc_se: bool = False) -> Path:
    """Liu (2019) Figures 2-5: bias, RMSE and CP of the sanitised proportions for one approach.

    ``approach`` is "rescaling" (Figure 2), "ms" (Figure 3), "all_but_one"
    (Figure 4) or "uh" (Figure 5).  Rows are bias, RMSE and CP; one block of
    columns per epsilon, within it truncated and BIT (sharing y per row).  Blue
    lines are the 4 sanitised proportions, red dashed the 4 original sample
    proportions (the same in every block); marker and shade tell p1..p4 apart.
    ``mc_se`` adds ±2 Monte Carlo SE bars.
    """
    _check_approach(approach)
    words = APPROACH_WORDS[approach]
    if approach == "ms":
        words = (
            f"multiple synthesis ({result.design.sets} sets at ε/{result.design.sets}, re-scaled)"
        )
    extra = {
        "all_but_one": "; p1 = 1 − (p2* + p3* + p4*)",
        "uh": "; tree ((p1, p2), (p3, p4)), scale 2/(nε)",
        "ms": "; Liu's combining rule",
    }.get(approach, "")
    title = (
        f"Liu (2019) Figure {APPROACH_FIGURE[approach]}: bias, RMSE and CP of sanitised "
        f"proportions — {words}{extra}"
    )
    props = [f"p{k}" for k in range(1, len(MARKERS) + 1)]
    labels = {approach: "{target} = {p:g} sanitised", "original": "{target} original"}
    return _study2_figure(result, path, props, {approach: "Blues"}, labels, title, mc_se)


def plot_pairwise_sums(result: Study2Result, path: str | Path, mc_se: bool = False) -> Path:
    """Liu (2019) Figures S1-S2: bias, RMSE and CP of p1+p2, p2+p3, p2+p4, re-scaling against UH.

    Rows are bias, RMSE and CP; one block of columns per epsilon, within it
    truncated and BIT.  Colour tells the approach (blue: re-scaling, green:
    universal histogram, red dashed: the original sample sums), marker and
    shade the sum.  In the UH tree p1+p2 is the node h1, so it is the sum the
    UH should favour.  ``mc_se`` adds ±2 Monte Carlo SE bars.
    """
    sums = [t for t in TARGETS if "+" in t]
    labels = {
        "rescaling": "{target} re-scaling",
        "uh": "{target} universal histogram",
        "original": "{target} original",
    }
    title = (
        "Liu (2019) Figures S1–S2: bias, RMSE and CP of sanitised pairwise sums — "
        "re-scaling against universal histogram"
    )
    approaches = {"rescaling": "Blues", "uh": "Greens"}
    return _study2_figure(result, path, sums, approaches, labels, title, mc_se)


__all__ = [
    "APPROACH_WORDS",
    "plot_pairwise_sums",
    "plot_study1",
    "plot_study2",
]
