"""Statistical corroboration of Liu (2019) §3.1: the rejection and clamp procedures.

The symbolic verdicts of liu2019.def2.rejection_law and liu2019.def2.clamp_law
decide those claims; this is the sampling half beside them: the procedures
as the paper describes them (redraw until inside; clamp) are run with numpy
and their draws tested against the exact laws (:func:`goodness.check_law`,
false-alarm probability <= ALPHA per point) and, for the clamp, the count at
c1 against the mass that eq (5) prints there.  Sampling can contradict a law
but never proves one; a disagreement with the derived law means a bug in one
of the two routes.
"""

from __future__ import annotations

import math

import numpy as np

from dpcheck.sampling import goodness, samplers
from dpcheck.sampling.binomial import two_sided_p_value

#: (s, c0, c1, λ): s at a bound, inside and at the midpoint; λ/R from 0.05 to 1.5
POINTS: tuple[tuple[float, float, float, float], ...] = (
    (0.0, 0.0, 1.0, 0.1),
    (0.3, 0.0, 1.0, 1.0),
    (0.0, -1.0, 1.0, 0.1),
    (2.0, 0.0, 2.0, 3.0),
)
DRAWS = 200_000
SEED = 2019
ALPHA = 1e-6

_SAMPLERS = {
    "rejection": ("truncated", samplers.truncated_rejection),
    "clamp": ("bit", samplers.bit),
}


def _point_text(point: tuple[float, ...]) -> str:
    s, c0, c1, lam = point
    return f"s={s:g}, [c0, c1]=[{c0:g}, {c1:g}], lambda={lam:g}"


def corroborate(procedure: str, draws: int = DRAWS, seed: int = SEED) -> dict[str, object]:
    """Run ``procedure`` ('rejection' or 'clamp') at POINTS; test against the exact law.

    Returns JSON-ready evidence with ``consistent`` (every point passes every
    check) and, for 'clamp', ``printed_eq5_upper_mass_rejected`` (the count at
    c1 rejects eq (5)'s printed 1 - e^{-(c1-s)/λ}/2 at every point where it
    differs from the derived mass, p <= ALPHA).
    """
    mechanism, sampler = _SAMPLERS[procedure]
    rng = np.random.default_rng(seed)
    per_point: dict[str, object] = {}
    consistent = True
    rejected_everywhere = True
    for point in POINTS:
        x = sampler(rng, *point, size=draws)
        checks = goodness.check_law(x, mechanism, *point, alpha=ALPHA)
        consistent &= all(c.passed for c in checks)
        row: dict[str, object] = {c.name: f"{c.statistic:.4g} <= {c.threshold:.4g}: "
                                  + ("ok" if c.passed else "FAILED") for c in checks}
        if procedure == "clamp":
            s, _, c1, lam = point
            printed = 1 - 0.5 * math.exp(-(c1 - s) / lam)
            derived = 0.5 * math.exp(-(c1 - s) / lam)
            count = int(np.count_nonzero(x == c1))
            p_value = two_sided_p_value(count, draws, printed)
            shown = f"{p_value:.3g}" if p_value > 0 else "< 1e-300"
            text = (
                f"{count}/{draws} draws at c1 vs printed mass {printed:.6g}:"
                f" binomial p = {shown}"
            )
            if abs(printed - derived) > 1e-12:
                rejected_everywhere &= p_value <= ALPHA
            else:
                text += " (s = c1: the printed and derived masses coincide, 1/2)"
            row["vs eq (5) as printed"] = text
        per_point[_point_text(point)] = row
    out: dict[str, object] = {
        "procedure": "redraw Lap(s, lambda) until inside [c0, c1]"
        if procedure == "rejection"
        else "clamp Lap(s, lambda) to [c0, c1]",
        "draws per point": draws,
        "seed": seed,
        "false alarm per point": f"<= {ALPHA:g} (Bernstein, DKW, exact binomial)",
        "exact law": f"derived {mechanism} law (dpcheck.numeric.fast, checked against mpmath)",
        "points": per_point,
        "consistent": consistent,
    }
    if procedure == "clamp":
        out["printed_eq5_upper_mass_rejected"] = rejected_everywhere
    return out


__all__ = ["DRAWS", "POINTS", "corroborate"]
