"""K-randomization figures (Zhilyaev and Zeber 2016, §3.1, §4): matplotlib, Agg backend.

:func:`plot_log_ratio_heatmap` — log pi_n(s; m) = log P_{n,m}(s)/P_{n,m+1}(s) over
(m, s) for L = 1 (§4.2, §4.5), from the exact laws.
:func:`plot_epsilon_curves` — approximate epsilon(delta) for several n, L = 1 (worst
background, :func:`dpcheck.enumeration.krand_profile.curve`: every background in floats
within its work limit, else a grid search marked as a lower bound), beside the pure
epsilon log(p/q) of one bit.
:func:`plot_general_curves` — L >= 2: approximate and probabilistic epsilon(delta) for
n/4, n/2 and n (:mod:`dpcheck.enumeration.krand_profile_general`), beside L log(p/q).
:func:`plot_bounds` — L >= 2 at large n: the certified upper and attained lower bound of
:mod:`dpcheck.enumeration.krand_bounds` per setting, beside the generic shuffle bounds of
:mod:`dpcheck.enumeration.shuffle_generic` (README's figure, from docs/krand_bounds.json).
:func:`write_readme_figures` — the figures of docs/figures.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from pathlib import Path

import numpy as np

from dpcheck.enumeration import krand, krand_profile
from dpcheck.errors import InputError

#: The deltas of the epsilon(delta) curves (log-spaced, 1e-12 .. 1e-1).
CURVE_DELTAS = tuple(float(d) for d in np.logspace(-12, -1, 23))


def _target(path: str | Path) -> Path:
    out = Path(path)
    if not out.parent.exists():
        raise InputError(f"--plot {str(path)!r}: folder {str(out.parent)!r} does not exist")
    return out


def _pyplot():  # type: ignore[no-untyped-def]
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def log_ratio_grid(n: int, q: object) -> np.ndarray:
    """G[m, s] = log pi_n(s; m) for m = 0..n-1, s = 0..n (§4), from exact rationals."""
    rows, _ = krand.pmf_rows(n, q)
    grid = np.empty((n, n + 1))
    for m in range(n):
        for s in range(n + 1):
            grid[m, s] = math.log(Fraction(rows[m][s], rows[m + 1][s]))
    return grid


def plot_log_ratio_heatmap(path: str | Path, n: int, q: object) -> Path:
    """Heatmap of log pi_n(s; m) over (m, s), L = 1; bounded by ±log(p/q) (§4.5)."""
    plt = _pyplot()
    out = _target(path)
    qq = krand.as_q(q)
    grid = log_ratio_grid(n, qq)
    bound = math.log((1 - qq) / qq)
    fig, ax = plt.subplots(figsize=(7, 5))
    im = ax.imshow(
        grid,
        origin="lower",
        aspect="auto",
        cmap="RdBu_r",
        vmin=-bound,
        vmax=bound,
        extent=(-0.5, n + 0.5, -0.5, n - 0.5),
        interpolation="nearest",
    )
    levels = [-0.9 * bound, -0.5 * bound, 0.0, 0.5 * bound, 0.9 * bound]
    cs = ax.contour(np.arange(n + 1), np.arange(n), grid, levels=levels, colors="k", linewidths=0.6)
    ax.clabel(cs, fmt="%+.2f", fontsize=7)
    ax.set_xlabel("s = number of reported ones (outcome)")
    ax.set_ylabel("m = number of ones in x")
    ax.set_title(
        f"L = 1, n = {n}, q = {qq}: log privacy ratio\n"
        r"$\log \pi_n(s; m) = \log P[A_n(m) = s] \,/\, P[A_n(m+1) = s]$"
    )
    cb = fig.colorbar(im, ax=ax)
    cb.set_label(
        f"log pi_n(s; m), within ±log(p/q) = ±{bound:.4g}\n"
        "> 0: s likelier from m ones than from m + 1"
    )
    fig.tight_layout()
    fig.savefig(out, dpi=130)
    plt.close(fig)
    return out


def plot_epsilon_curves(
    path: str | Path, ns: Sequence[int], q: float, deltas: Sequence[float] | None = None
) -> Path:
    """epsilon(delta) curves (approximate DP, L = 1) for each n, log-scaled delta axis."""
    plt = _pyplot()
    out = _target(path)
    ds = np.asarray(CURVE_DELTAS if deltas is None else deltas, dtype=float)
    eps0 = math.log((1 - q) / q)
    fig, ax = plt.subplots(figsize=(7, 5))
    for n in ns:
        ax.plot(ds, krand_profile.curve(int(n), q, ds), marker=".", label=_curve_label(n, q, ds))
    ax.axhline(eps0, color="grey", ls="--", label=f"pure = local RR: log(p/q) = {eps0:.3g}")
    ax.set_xscale("log")
    ax.set_ylim(bottom=0)
    ax.set_xlabel("delta")
    ax.set_ylabel("epsilon(delta)  (nats)")
    ax.set_title(
        f"K-randomization, L = 1, q = {q:.4g} (eps0 = {eps0:.3g}):\n"
        "worst-case approximate epsilon(delta) over every background (hockey-stick divergence)"
    )
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=130)
    plt.close(fig)
    return out


def _curve_label(n: int, q: float, ds: Sequence[float]) -> str:
    """Legend entry of an L = 1 curve: a lower bound where the grid search ran."""
    every = krand_profile.curve_is_every_background(int(n), q, ds)
    return f"n = {n}" + ("" if every else " (grid over backgrounds: lower bound)")


def general_curve(n: int, L: int, q: object, deltas: Sequence[float]) -> dict:  # type: ignore[type-arg]
    """{'mode', 'approximate', 'probabilistic'} at each delta for L >= 2 (one search)."""
    from dpcheck.enumeration import krand_profile_general as kg

    prof = kg.profile(n, L, q, list(deltas))
    return {
        "mode": prof.mode,
        "approximate": [w.epsilon for w in prof.approximate],
        "probabilistic": [w.epsilon for w in prof.probabilistic],
    }


def plot_general_curves(
    path: str | Path,
    n: int,
    L: int,
    q: object,
    at_n: dict | None = None,  # type: ignore[type-arg]
    deltas: Sequence[float] = CURVE_DELTAS,
) -> Path:
    """L >= 2: approximate (solid) and probabilistic (dotted) epsilon(delta) for n/4, n/2, n.

    ``at_n`` ({'delta', 'mode', 'approximate', 'probabilistic'}: summary()['curve']) spares
    the search at n itself.  Pure epsilon L log(p/q) and one bit's log(p/q) for reference.
    """
    plt = _pyplot()
    out = _target(path)
    qf = float(krand.as_q(q)) if not isinstance(q, float) else q
    eps0 = math.log((1 - qf) / qf)
    ds = list(deltas if at_n is None else at_n["delta"])
    ns = sorted({m for m in (n // 4, n // 2, n) if m >= 1})
    fig, ax = plt.subplots(figsize=(7, 5))
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for i, m in enumerate(ns):
        cur = at_n if (m == n and at_n is not None) else general_curve(m, L, q, ds)
        mode = "exhaustive" if cur["mode"] == "exhaustive" else "family H"
        c = colors[i % len(colors)]
        ax.plot(ds, cur["approximate"], color=c, marker=".", label=f"n = {m}: approximate ({mode})")
        low = "" if cur["mode"] == "exhaustive" else ", lower bound"
        ax.plot(
            ds, cur["probabilistic"], color=c, ls=":", label=f"n = {m}: probabilistic §3.1{low}"
        )
    ax.axhline(L * eps0, color="grey", ls="--", label=f"pure: L log(p/q) = {L * eps0:.3g}")
    ax.axhline(eps0, color="grey", ls="-.", label=f"one bit: log(p/q) = {eps0:.3g}")
    ax.set_xscale("log")
    ax.set_ylim(bottom=0)
    ax.set_xlabel("delta")
    ax.set_ylabel("epsilon(delta)  (nats)")
    ax.set_title(
        f"K-randomization, L = {L} bits, q = {qf:.4g} (eps0 = {eps0:.3g}):"
        " worst-case epsilon(delta)"
    )
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out, dpi=130)
    plt.close(fig)
    return out


def plot_bounds_file(path: str | Path, report: str | Path = "docs/krand_bounds.json") -> Path:
    """:func:`plot_bounds` of every setting of a ``bench/bench_krand_bounds.py --json`` file."""
    import json

    try:
        settings = json.loads(Path(report).read_text(encoding="utf-8"))["settings"]
    except (OSError, ValueError, KeyError, TypeError):
        raise InputError(f"bounds report {str(report)!r}: missing or not a bounds JSON") from None
    return plot_bounds(path, settings)


def write_readme_figures(folder: str | Path = "docs/figures") -> list[Path]:
    """docs/figures/krand_heatmap.png (n = 40, q = 1/4), krand_epsilon_curves.png
    (L = 1, eps0 = 1, n = 10 .. 1e5, with the L = 2, n = 100 curve) and krand_bounds.png
    (from docs/krand_bounds.json)."""
    base = Path(folder)
    heat = plot_log_ratio_heatmap(base / "krand_heatmap.png", 40, "1/4")
    curves = plot_readme_curves(base / "krand_epsilon_curves.png")
    bounds = plot_bounds_file(base / "krand_bounds.png", base.parent / "krand_bounds.json")
    return [heat, curves, bounds]


def plot_readme_curves(
    path: str | Path,
    eps0: float = 1.0,
    ns: Sequence[int] = (10, 100, 1000, 10_000, 100_000),
    L2_n: int = 100,
) -> Path:
    """L = 1 epsilon(delta) for several n at eps0, the pure/local line, and L = 2 at L2_n."""
    plt = _pyplot()
    out = _target(path)
    q = 1.0 / (1.0 + math.exp(eps0))
    ds = np.asarray(CURVE_DELTAS)
    fig, ax = plt.subplots(figsize=(7.5, 5.2))
    for n in ns:
        label = "L = 1, " + _curve_label(n, q, ds)
        ax.plot(ds, krand_profile.curve(int(n), q, ds), marker=".", label=label)
    if L2_n:
        cur = general_curve(L2_n, 2, q, ds)
        ax.plot(
            ds,
            cur["approximate"],
            color="k",
            marker="x",
            ms=4,
            label=f"L = 2, n = {L2_n} (family H)",
        )
        ax.axhline(
            2 * eps0,
            color="k",
            ls=":",
            lw=1,
            label=f"L = 2 pure / local RR: 2 eps0 = {2 * eps0:.3g}",
        )
    ax.axhline(eps0, color="grey", ls="--", label=f"L = 1 pure / local RR: eps0 = {eps0:.3g}")
    ax.set_xscale("log")
    ax.set_ylim(0, 2.45 * eps0 if L2_n else 1.25 * eps0)
    ax.set_xlabel("delta (log scale)")
    ax.set_ylabel("worst-case epsilon(delta)  (nats)")
    ax.set_title(
        f"K-randomization, eps0 = ln(p/q) = {eps0:g} (q = {q:.4f}):\n"
        "exact approximate-DP epsilon(delta) of the released histogram"
    )
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=7.5, loc="upper right", ncol=2)
    fig.tight_layout()
    fig.savefig(out, dpi=130)
    plt.close(fig)
    return out


GENERIC_MARKERS = {
    "FMT numerical": "v",
    "FMT closed form": "^",
    "blanket (Bennett)": "s",
    "Wang et al.": "D",
}


def plot_bounds(path: str | Path, settings: Sequence[dict]) -> Path:  # type: ignore[type-arg]
    """One column per setting (``dpcheck krand profile --json`` outputs with "upper"): the
    interval [lower, upper] on epsilon(delta), and each generic bound at eps0 = L log(p/q)
    as a marker (those above the local epsilon are clipped to it: vacuous)."""
    if not settings:
        raise InputError("plot_bounds: no settings to draw")
    plt = _pyplot()
    out = _target(path)
    fig, ax = plt.subplots(figsize=(max(5.0, 0.9 * len(settings) + 2.5), 4.8))
    xs = np.arange(len(settings))
    for x, d in zip(xs, settings, strict=True):
        lo, up = d["lower"]["epsilon"], d["upper"]["epsilon"]
        ax.plot(
            [x, x],
            [lo, up],
            color="k",
            lw=6,
            solid_capstyle="butt",
            label="dpcheck: [lower, certified upper]" if x == 0 else None,
        )
        # ticks at both ends: a tight bracket is thinner than the bar's width
        ax.plot([x, x], [lo, up], ls="none", marker="_", ms=14, mew=2, color="k")
        gen = d["generic shuffle bounds"]
        local = gen["local epsilon eps0 = L log(p/q)"]
        for i, (name, marker) in enumerate(GENERIC_MARKERS.items()):
            value = gen.get(name)
            if value is None:
                continue
            ax.plot(
                x + 0.12 * (i - 1.5),
                min(value, local),
                marker=marker,
                ls="none",
                color=f"C{i}",
                ms=6,
                label=name if x == 0 else None,
            )
    ax.set_xticks(xs)
    ax.set_xticklabels(
        [f"L={d['L']}\nn={d['n']}\neps0={d['eps0']:.3g}\ndelta={d['delta']:.0e}" for d in settings],
        fontsize=7,
    )
    ax.set_yscale("log")
    ax.set_ylabel("epsilon(delta) of the shuffled histogram (nats, log scale)")
    ax.set_title(
        "Multi-bit K-randomization: certified bounds vs generic shuffle bounds\n"
        "(generic bounds at the local epsilon L ln(p/q); markers clipped to it)",
        fontsize=9,
    )
    ax.grid(True, which="both", axis="y", alpha=0.3)
    ax.legend(fontsize=7, loc="upper left")
    fig.tight_layout()
    fig.savefig(out, dpi=130)
    plt.close(fig)
    return out


if __name__ == "__main__":  # pragma: no cover
    for p in write_readme_figures():
        print(p)
