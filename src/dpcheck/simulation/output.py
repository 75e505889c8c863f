"""CSV tables and the printed summary of ``dpcheck simulate`` (Liu 2019 §4.1, §4.2).

One row per cell: study 1 gives mean, MC SE and the Figure 1 percentiles of
each sanitised statistic; study 2 gives bias, RMSE and CP (each with its MC
SE) of each target under each approach and mechanism, plus the original.
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

from dpcheck.simulation.covariance import STATISTICS, Study1Result
from dpcheck.simulation.mechanisms import MECHANISMS
from dpcheck.simulation.proportions import APPROACH_WORDS, APPROACHES, TARGETS, Study2Result
from dpcheck.simulation.summaries import PERCENTILES, ErrorSummary


def study1_rows(result: Study1Result) -> list[dict[str, Any]]:
    """One row per (mechanism, setting, n, statistic)."""
    rows = []
    d = result.design
    for mech in MECHANISMS:
        for stat in STATISTICS:
            sp = result.spread(mech, stat)
            truth = result.truth(stat)
            for k, (s11, s22, r) in enumerate(d.settings):
                for j, n in enumerate(d.sizes):
                    row = {
                        "mechanism": mech,
                        "S11": s11,
                        "S22": s22,
                        "r": r,
                        "n": n,
                        "statistic": stat,
                        "original": float(truth[k]),
                        "mean": float(sp.mean[k, j]),
                        "mean_se": float(sp.mean_se[k, j]),
                        "bias": float(sp.mean[k, j] - truth[k]),
                    }
                    for q, v in zip(PERCENTILES, sp.percentiles[k, j], strict=True):
                        row[f"p{q:g}"] = float(v)
                    row["at_bound"] = float(result.at_bound[mech][stat][k, j])
                    row["defined"] = int(sp.defined[k, j])
                    rows.append(row)
    return rows


def _error_row(s: ErrorSummary, index: tuple[int, ...]) -> dict[str, float]:
    return {
        name: float(getattr(s, name)[index])
        for name in ("bias", "bias_se", "rmse", "rmse_se", "cp", "cp_se")
    }


def study2_rows(result: Study2Result) -> list[dict[str, Any]]:
    """One row per (approach, mechanism, epsilon, n, target); the original has epsilon ''."""
    rows = []
    d = result.design
    truth = d.truth
    assert result.original is not None
    for j, n in enumerate(d.sizes):
        for t, target in enumerate(TARGETS):
            row = {"approach": "original", "mechanism": "none", "epsilon": "", "n": n}
            row |= {"target": target, "truth": float(truth[t])}
            rows.append(row | _error_row(result.original, (j, t)))
    for approach in APPROACHES:
        for mech in MECHANISMS:
            s = result.summary[(approach, mech)]
            for e, eps in enumerate(d.epsilons):
                for j, n in enumerate(d.sizes):
                    for t, target in enumerate(TARGETS):
                        row = {"approach": approach, "mechanism": mech, "epsilon": eps, "n": n}
                        row |= {"target": target, "truth": float(truth[t])}
                        rows.append(row | _error_row(s, (e, j, t)))
    return rows


def write_csv(rows: list[dict[str, Any]], path: Path) -> Path:
    """Write rows (dicts with the same keys) as CSV, floats with 6 significant digits."""
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        for row in rows:
            writer.writerow({k: f"{v:.6g}" if isinstance(v, float) else v for k, v in row.items()})
    return path


def study1_summary(result: Study1Result) -> list[str]:
    """Lines: bias at the smallest and largest n, per mechanism, setting and statistic."""
    d = result.design
    lines = [f"study 1 (§4.1): {d.reps} sanitisations per cell, epsilon = {d.epsilon:g}"]
    lines.append(f"bias at n = {d.sizes[0]} -> n = {d.sizes[-1]}:")
    for mech in MECHANISMS:
        for k, (_, _, r) in enumerate(d.settings):
            parts = []
            for stat in STATISTICS:
                sp = result.spread(mech, stat)
                t = float(result.truth(stat)[k])
                parts.append(f"{stat} {sp.mean[k, 0] - t:+.3f} -> {sp.mean[k, -1] - t:+.3f}")
            lines.append(f"  {mech:<9} r={r:<4g}  " + "   ".join(parts))
    return lines


def study2_summary(result: Study2Result) -> list[str]:
    """Lines: worst |bias|, RMSE and the CP range of p1..p4 at the smallest n, per cell."""
    d = result.design
    lines = [f"study 2 (§4.2): {d.reps} data sets per cell, p = {d.p}"]
    lines.append(f"at n = {d.sizes[0]}: max |bias|, max RMSE, CP range over p1..p4")
    assert result.original is not None
    o = result.original
    lines.append(
        f"  {'original':<20} {'':<9}          max|bias| {abs(o.bias[0, :4]).max():.4f}  "
        f"RMSE {o.rmse[0, :4].max():.4f}  CP {o.cp[0, :4].min():.3f}-{o.cp[0, :4].max():.3f}"
    )
    for approach in APPROACHES:
        for mech in MECHANISMS:
            s = result.summary[(approach, mech)]
            for e, eps in enumerate(d.epsilons):
                lines.append(
                    f"  {APPROACH_WORDS[approach].split(' (')[0]:<20} {mech:<9} eps={eps:<4g} "
                    f"max|bias| {abs(s.bias[e, 0, :4]).max():.4f}  "
                    f"RMSE {s.rmse[e, 0, :4].max():.4f}  "
                    f"CP {s.cp[e, 0, :4].min():.3f}-{s.cp[e, 0, :4].max():.3f}"
                )
    return lines
