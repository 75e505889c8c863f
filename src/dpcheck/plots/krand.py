"""K-randomization figures (Zhilyaev and Zeber 2016, §4): matplotlib, Agg backend.

:func:`plot_log_ratio_heatmap` — log pi_n(s; m) = log P_{n,m}(s)/P_{n,m+1}(s) over
(m, s) for L = 1 (§4.2, §4.5), from the exact laws.
:func:`plot_epsilon_curves` — approximate epsilon(delta) for several n (worst
background, :func:`dpcheck.enumeration.krand_profile.epsilon_at_delta`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from pathlib import Path

import numpy as np

from dpcheck.enumeration import krand, krand_profile
from dpcheck.errors import InputError


def _target(path: str | Path) -> Path:
    out = Path(path)
    if not out.parent.exists():
        raise InputError(f"--plot {str(path)!r}: folder {str(out.parent)!r} does not exist")
    return out


def log_ratio_grid(n: int, q: object) -> np.ndarray:
    """G[m, s] = log pi_n(s; m) for m = 0..n-1, s = 0..n (§4), from exact rationals."""
    rows, _ = krand.pmf_rows(n, q)
    grid = np.empty((n, n + 1))
    for m in range(n):
        for s in range(n + 1):
            grid[m, s] = math.log(Fraction(rows[m][s], rows[m + 1][s]))
    return grid


def plot_log_ratio_heatmap(path: str | Path, n: int, q: object) -> Path:
    """Heatmap of log pi_n(s; m) over (m, s), L = 1; bounded by ±log(p/q)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out = _target(path)
    qq = krand.as_q(q)
    grid = log_ratio_grid(n, qq)
    bound = math.log((1 - qq) / qq)
    fig, ax = plt.subplots(figsize=(6, 4.5))
    im = ax.imshow(grid, origin="lower", aspect="auto", cmap="RdBu_r", vmin=-bound, vmax=bound)
    ax.set_xlabel("s (reported ones)")
    ax.set_ylabel("m (ones in x)")
    ax.set_title(f"log pi_n(s; m), n = {n}, q = {qq}  (|.| <= log(p/q) = {bound:.3g})")
    fig.colorbar(im, ax=ax)
    fig.tight_layout()
    fig.savefig(out)
    plt.close(fig)
    return out


def plot_epsilon_curves(
    path: str | Path, ns: Sequence[int], q: float, deltas: Sequence[float] | None = None
) -> Path:
    """epsilon(delta) curves (approximate DP, L = 1) for each n, log-scaled delta axis."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out = _target(path)
    ds = np.logspace(-12, -1, 23) if deltas is None else np.asarray(deltas, dtype=float)
    fig, ax = plt.subplots(figsize=(6, 4.5))
    for n in ns:
        ax.plot(ds, krand_profile.curve(int(n), q, ds), marker=".", label=f"n = {n}")
    ax.axhline(math.log((1 - q) / q), color="grey", ls="--", label="local RR log(p/q)")
    ax.set_xscale("log")
    ax.set_xlabel("delta")
    ax.set_ylabel("epsilon(delta)")
    ax.set_title(f"K-randomization, L = 1, q = {q:.4g}: exact epsilon(delta)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(out)
    plt.close(fig)
    return out
