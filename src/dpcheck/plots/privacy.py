"""Privacy loss of the naive truncated mechanism and its calibrated scale (Liu 2019, Def. 2).

Left: the worst-case loss over ε at λ = Δ/ε against R/Δ, for several ε, with
its limit log(2e^ε - 1)/ε as R/Δ → ∞.  Right: the calibrated scale (the
smallest λ with loss <= ε; Holohan et al. 2018) over the naive Δ/ε.

The curves use Δ/λ + log ΔC(λ) of Holohan et al., which
:func:`dpcheck.symbolic.privacy.matches_holohan` proves equal to the derived
loss, written with negative exponents only so float64 does not overflow.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import sympy as sp

from dpcheck.errors import InputError
from dpcheck.symbolic import privacy as pv
from dpcheck.symbolic.symbols import c0, c1, delta1, lam

DEFAULT_EPSILONS = (0.1, 0.5, 1.0, 2.0, 5.0)


def _loss_function():  # type: ignore[no-untyped-def]
    """(a, r) → loss at λ = Δ/a with R = rΔ (vectorised, float64)."""
    a, r = sp.symbols("a r", positive=True)
    expr = (delta1 / lam + sp.log(pv.holohan_delta_c())).subs(
        {delta1: 1, c0: 0, c1: r, lam: 1 / a}
    )
    return sp.lambdify((a, r), expr, modules="numpy")


def calibrated_ratio(epsilon: float, ratios: np.ndarray, iterations: int = 200) -> np.ndarray:
    """λ*/(Δ/ε) for each R/Δ > 1, by vectorised bisection on a = Δ/λ in (0, ε]."""
    loss = _loss_function()
    lo = np.zeros_like(ratios)  # loss(0+) = 0 < ε
    hi = np.full_like(ratios, epsilon)  # loss(ε) >= ε
    for _ in range(iterations):
        mid = (lo + hi) / 2
        over = loss(mid, ratios) > epsilon
        hi = np.where(over, mid, hi)
        lo = np.where(over, lo, mid)
    return epsilon / ((lo + hi) / 2)


def plot_privacy(path: str | Path, epsilons: Sequence[float] = DEFAULT_EPSILONS) -> Path:
    """Write the two-panel figure to ``path`` (format from its suffix: .png, .pdf, .svg)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out = Path(path)
    if not out.parent.exists():
        raise InputError(f"--plot {str(path)!r}: folder {str(out.parent)!r} does not exist")
    ratios = np.logspace(0, 3, 300)[1:]
    loss = _loss_function()
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2), constrained_layout=True)
    for eps in sorted(set(epsilons)):
        (line,) = left.plot(ratios, loss(eps, ratios) / eps, label=f"ε = {eps:g}")
        left.axhline(np.log(2 * np.exp(eps) - 1) / eps, color=line.get_color(), ls=":", lw=0.8)
        right.plot(ratios, calibrated_ratio(eps, ratios), label=f"ε = {eps:g}")
    left.axhline(1.0, color="black", lw=0.8)
    left.set_xscale("log")
    left.set_xlabel("R / Δ  (range of the bounds over the sensitivity)")
    left.set_ylabel("worst-case privacy loss / ε")
    left.set_title("Truncated mechanism at λ = Δ/ε (Liu 2019, Def. 2(a))")
    left.legend(title="dotted: R/Δ → ∞", fontsize=8, loc="lower right")
    right.set_xscale("log")
    right.set_xlabel("R / Δ")
    right.set_ylabel("calibrated λ / (Δ/ε)")
    right.set_title("Smallest ε-DP scale (Holohan et al. 2018)")
    right.legend(fontsize=8)
    for ax in (left, right):
        ax.grid(True, which="both", alpha=0.3)
    try:
        fig.savefig(out, dpi=120)
    except OSError as err:
        raise InputError(f"--plot {str(path)!r}: cannot write ({err.strerror})") from None
    finally:
        plt.close(fig)
    return out


__all__ = ["DEFAULT_EPSILONS", "calibrated_ratio", "plot_privacy"]
