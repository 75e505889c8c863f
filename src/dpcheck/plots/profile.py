"""The privacy profile δ(ε) of a mechanism (issue 19): the certified upper value at each ε
and the attained lower one (:func:`dpcheck.numeric.profile.delta_for_epsilon`, the law
engine), on a log scale, with the unbounded base's profile for reference."""

from __future__ import annotations

from pathlib import Path

import numpy as np


def plot_profile(path: Path, nb, epsilons: np.ndarray | None = None) -> None:  # type: ignore[no-untyped-def]
    """Write δ(ε) for ``nb`` (a :class:`dpcheck.numeric.profile.Neighbours`) to ``path``."""
    import matplotlib

    matplotlib.use("Agg")
    from fractions import Fraction

    import matplotlib.pyplot as plt

    from dpcheck.numeric import profile as P

    if epsilons is None:
        epsilons = np.linspace(0.0, 3.0, 16)
    upper, lower = [], []
    for e in epsilons:
        got = P.delta_for_epsilon(nb, Fraction(float(e)))
        upper.append(float(got.upper))
        lower.append(float(got.lower))
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.semilogy(epsilons, np.maximum(upper, 1e-300), label=f"{nb.mechanism}: delta (upper)")
    ax.semilogy(epsilons, np.maximum(lower, 1e-300), "--", label="attained (lower)")
    if nb.bounded:
        unb = P.Neighbours(nb.base, nb.sensitivity, None, None, nb.scale)
        ref = [float(P.delta_for_epsilon(unb, Fraction(float(e))).upper) for e in epsilons]
        ax.semilogy(epsilons, np.maximum(ref, 1e-300), ":", label=f"unbounded {nb.base}")
    ax.set_xlabel("epsilon")
    ax.set_ylabel("delta(epsilon)")
    ax.set_title(
        f"privacy profile, sensitivity {float(nb.sensitivity):g}, scale {float(nb.scale):g}"
    )
    ax.legend()
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
