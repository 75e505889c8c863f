"""Liu (2019) §4: the two simulation studies, reproduced and judged (Figures 1-5, S1-S2).

The empirical claims are judged by :mod:`dpcheck.claims.empirical` on the
paper-size runs of :mod:`dpcheck.simulation.runs` (500 repetitions), every
contradiction confirmed on an independent, larger run.  The two claims on
the universal histogram (§4.2 steps 1-5) are mathematical and are proved
with the very code that runs the study (:mod:`dpcheck.simulation.universal_histogram`).

Where the paper leaves a choice open, the reading is stated in the evidence:
the n grids (50..800 and 50..500 in steps of 50), the 95% Wald interval built
on the sanitised proportion, r* undefined when a BIT variance is released at
0, and the thresholds that turn "minimal", "around 95%" or "similar" into tests.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np
import sympy as sp

from dpcheck.claims import empirical as emp
from dpcheck.claims.model import Kind, Status, Verdict, step
from dpcheck.claims.registry import claim
from dpcheck.numeric import fast
from dpcheck.simulation import runs
from dpcheck.simulation import universal_histogram as uh
from dpcheck.simulation.covariance import STATISTICS, Study1Result
from dpcheck.simulation.proportions import TARGETS, Study2Result

MECHS = ("truncated", "bit")
SMALL_N = 100  # "when n was relatively small": the first two grid points
S1 = "dpcheck simulate study1 --reps 500"
S2 = "dpcheck simulate study2 --reps 500"


def _domain(study: int) -> str:
    grid = (
        "n = 50..800 step 50, 3 settings"
        if study == 1
        else "n = 50..500 step 50, eps in {0.1, 0.5, 1}"
    )
    return (
        f"study {study} as described in §4 ({grid}, truncated and BIT), reproduced with "
        f"{runs.PAPER_REPS} repetitions and confirmed with {runs.CONFIRM_REPS[study]}; "
        "a Monte Carlo judgement, not a proof"
    )


# --- study 1 ---------------------------------------------------------------------------


def _tolerance(result: Study1Result, stat: str, k: int) -> float:
    """'Noticeable': 5% of |original| (of sqrt(S11 S22) for S12 when r = 0), 0.05 for r."""
    if stat == "r":
        return 0.05
    s11, s22, _ = result.design.settings[k]
    return 0.05 * max(
        abs(float(result.truth(stat)[k])), float(np.sqrt(s11 * s22)) * (stat == "S12")
    )


def _sd(values: np.ndarray) -> tuple[float, float]:
    """SD of the defined values and its delta-method SE."""
    v = values[np.isfinite(values)]
    c = v - v.mean()
    m2, m4 = (c**2).mean(), (c**4).mean()
    sd = float(np.sqrt(m2))
    return sd, float(np.sqrt(max(m4 - m2**2, 0.0) / v.size) / (2 * sd)) if sd > 0 else 0.0


def _study1_parts(r: Study1Result) -> list[emp.Part]:
    settings = [f"r={s[2]:g}" for s in r.design.settings]
    sizes = r.design.sizes
    small = [j for j, n in enumerate(sizes) if n <= SMALL_N]
    bias_part = emp.Part(
        "when n was relatively small there was noticeable bias, except for S12 and r when r = 0",
        f"n <= {SMALL_N}: |bias| beyond 5% of |original| (0.05 for r) for every statistic, and "
        "within it for S12 and r when r = 0",
    )
    order = emp.Part(
        "the truncated mechanism was more biased than BIT (Proposition 1(b))",
        f"n <= {SMALL_N}, r != 0 (r = 0 is unbiased for both): |bias_T| - |bias_BIT| > 0 "
        "(independent runs, SE combined)",
    )
    shrink = emp.Part(
        "as n increased, both the bias and the dispersion approached 0",
        f"at n = {sizes[-1]}: |bias| within the 'noticeable' tolerance, and SD at n = "
        f"{sizes[-1]} below SD at n = {sizes[0]}",
    )
    piles = emp.Part(
        "when n was small, more sanitised values were set at the bounds under BIT",
        f"BIT S11*, S22*: the fraction at a bound at n = {sizes[0]} exceeds that at n = "
        f"{sizes[-1]} (exact Clopper-Pearson bounds)",
    )
    for mech in MECHS:
        for k, setting in enumerate(settings):
            for stat in STATISTICS:
                sp_ = r.spread(mech, stat)
                truth = float(r.truth(stat)[k])
                tol = _tolerance(r, stat, k)
                exempt = r.design.settings[k][2] == 0 and stat in ("S12", "r")
                for j in small:
                    b, se = float(sp_.mean[k, j] - truth), float(sp_.mean_se[k, j])
                    label = f"{mech} {setting} n={sizes[j]} {stat}: bias {emp.fmt(b, se)}"
                    ok, bad = emp.within(b, se, tol)
                    bias_part.add(label, ok, bad) if exempt else bias_part.add(label, bad, ok)
                b, se = float(sp_.mean[k, -1] - truth), float(sp_.mean_se[k, -1])
                sd0, se0 = _sd(r.draws[mech][stat][k, 0])
                sd1, se1 = _sd(r.draws[mech][stat][k, -1])
                ok_b, bad_b = emp.within(b, se, tol)
                ok_s, bad_s = emp.above(sd0 - sd1, float(np.hypot(se0, se1)), 0.0)
                shrink.add(
                    f"{mech} {setting} {stat}: bias at n={sizes[-1]} {emp.fmt(b, se)}, "
                    f"SD {sd0:.3f} -> {sd1:.3f}",
                    ok_b and ok_s,
                    bad_b or bad_s,
                )
    for k, setting in enumerate(settings):
        if r.design.settings[k][2] == 0:
            continue
        for stat in STATISTICS:
            t, b = r.spread("truncated", stat), r.spread("bit", stat)
            truth = float(r.truth(stat)[k])
            for j in small:
                bt, bb = abs(float(t.mean[k, j]) - truth), abs(float(b.mean[k, j]) - truth)
                se = float(np.hypot(t.mean_se[k, j], b.mean_se[k, j]))
                order.add(
                    f"{setting} n={sizes[j]} {stat}: |bias| T {bt:.4f} vs BIT {bb:.4f} "
                    f"(difference SE {se:.4f})",
                    *emp.above(bt - bb, se, 0.0),
                )
    for k, setting in enumerate(settings):
        for stat in ("S11", "S22"):
            frac = r.at_bound["bit"][stat][k]
            reps = r.design.reps
            lo0, _ = emp.cp_bounds(frac[0] * reps, reps)
            _, hi1 = emp.cp_bounds(frac[-1] * reps, reps)
            piles.add(
                f"BIT {setting} {stat}: at a bound {frac[0]:.3f} (>= {lo0:.3f}) at n={sizes[0]}"
                f" vs {frac[-1]:.3f} (<= {hi1:.3f}) at n={sizes[-1]}",
                lo0 > hi1,
                False,
            )
    return [bias_part, order, shrink, piles]


def _study1_exact(r: Study1Result) -> dict[str, Any]:
    """Independent routes: exact means of S11*, S22* and the BIT masses at 0 (eqs (6), (7), (5))."""
    d = r.design
    n = np.array(d.sizes[:1], dtype=float)
    lam, upper = d.scales(n), d.variance_upper(n)
    rows = {}
    for stat, s in (("S11", d.settings[0][0]), ("S22", d.settings[0][1])):
        args = (s, 0.0, upper[stat], lam[stat])
        mc = {m: float(r.spread(m, stat).mean[0, 0]) for m in MECHS}
        rows[f"{stat}, n = {d.sizes[0]}"] = {
            "exact E[S*] truncated (eq 6)": float(fast.evaluate("truncated.mean", *args)[0]),
            "Monte Carlo truncated": round(mc["truncated"], 4),
            "exact E[S*] BIT (eq 7)": float(fast.evaluate("bit.mean", *args)[0]),
            "Monte Carlo BIT": round(mc["bit"], 4),
            "exact P(S* = 0) BIT (eq 5)": float(fast.point_masses("bit", *args)[0][0]),
        }
    undefined = 1 - r.spread("bit", "r").defined[:, 0] / d.reps
    rows["BIT r* undefined at n = 50 (a variance released at 0)"] = [
        round(float(u), 3) for u in undefined
    ]
    rows["r = 0: S12 and r unbiased exactly"] = (
        "given S11*, S22*, S12* is sanitised from s = 0 in the symmetric interval [-b, b], so "
        "its law is symmetric about 0 for both mechanisms (Proposition 1(a)): E[S12*] = 0 and "
        "E[r*] = 0"
    )
    return rows


@claim(
    "liu2019.sim1.findings",
    source="§4.1, Figure 1",
    statement=r"\text{small-}n\text{ bias (not }S_{12},r\text{ at }r=0\text{); truncated more "
    r"biased than BIT; bias, spread}\to0;\text{ BIT mass on the bounds}",
)
def sim1_findings() -> Verdict:
    main = runs.study1()
    return emp.judge(
        _study1_parts,
        main,
        runs.confirmation1(),
        method="study 1 reproduced (§4.1: Table 1 bounds and sensitivities, eps/3 each), "
        "judged with Monte Carlo error; exact means and point masses as an independent route",
        domain=_domain(1),
        reproduce=f"{S1} && dpcheck verify liu2019.sim1.findings",
        extra={"independent exact values": _study1_exact(main)},
    )


# --- study 2 ---------------------------------------------------------------------------


def _index(r: Study2Result, eps: float) -> int:
    return r.design.epsilons.index(eps)


def _label(r: Study2Result, mech: str, e: int, j: int, t: int) -> str:
    return f"{mech} eps={r.design.epsilons[e]:g} n={r.design.sizes[j]} {TARGETS[t]}"


def _cells(r: Study2Result, eps=None, max_n=None, min_n=None, targets=range(4), mechs=MECHS):  # type: ignore[no-untyped-def]
    for mech in mechs:
        for e, value in enumerate(r.design.epsilons):
            if eps is not None and value not in eps:
                continue
            for j, n in enumerate(r.design.sizes):
                if (max_n is not None and n > max_n) or (min_n is not None and n < min_n):
                    continue
                for t in targets:
                    yield mech, e, j, t


def _cp_band(r: Study2Result, part: emp.Part, approach: str, lo: float, hi: float, **where) -> None:  # type: ignore[no-untyped-def]
    for mech, e, j, t in _cells(r, **where):
        s = r.summary[(approach, mech)]
        ok, bad, shown = emp.cp_in(float(s.covered[e, j, t]), s.reps, lo, hi)
        part.add(f"{_label(r, mech, e, j, t)}: {shown}", ok, bad)


def _source(r: Study2Result, name: str, mech: str, e: int, j: int, t: int):  # type: ignore[no-untyped-def]
    """(errors, covered) of one cell for 'orig', an approach, or 'approach/mechanism'."""
    if name == "orig":
        return r.original_errors[j, :, t], r.original_covered[j, :, t].astype(float)
    approach, _, fixed = name.partition("/")
    key = (approach, fixed or mech)
    return r.errors[key][e, j, :, t], r.covered[key][e, j, :, t].astype(float)


def _paired_cell(r: Study2Result, a: str, b: str, kind: str, factor: float, cell):  # type: ignore[no-untyped-def]
    """(value, se, shown) of a paired comparison of sources a and b in one cell.

    kind 'mse': MSE_a - factor MSE_b; 'abs_bias': |bias_a| - |bias_b|;
    'cp': CP_a - CP_b - (factor - 1) (factor 1: the plain difference).
    """
    (ea, ca), (eb, cb) = _source(r, a, *cell), _source(r, b, *cell)
    if kind == "mse":
        value, se = emp.paired(ea**2 - factor * eb**2)
        return value, se, f"RMSE {np.sqrt((ea**2).mean()):.4f} vs {np.sqrt((eb**2).mean()):.4f}"
    if kind == "abs_bias":
        value, se = emp.abs_bias_difference(ea, eb)
        return value, se, f"bias {ea.mean():+.4f} vs {eb.mean():+.4f}"
    value, se = emp.paired(ca - cb)
    return value - (factor - 1.0), se, f"CP {ca.mean():.3f} vs {cb.mean():.3f}"


def _compare(
    r: Study2Result,
    part: emp.Part,
    a: str,
    b: str,
    kind: str,
    factor: float = 1.0,
    sign: float = 1.0,
    **where,
) -> None:  # type: ignore[no-untyped-def]
    """File every cell under ``part`` by the paired test sign * :func:`_paired_cell` > 0.

    ``a`` and ``b`` are approaches compared within each mechanism, 'orig' (the
    sample proportion), or 'approach/mechanism' to compare across mechanisms.
    """
    for cell in _cells(r, **where):
        value, se, shown = _paired_cell(r, a, b, kind, factor, cell)
        part.add(f"{_label(r, *cell)}: {shown}", *emp.above(sign * value, se, 0.0))


def _bias_sign(
    r: Study2Result, part: emp.Part, approach: str, target: int, sign: float, **where
) -> None:  # type: ignore[no-untyped-def]
    for mech, e, j, t in _cells(r, targets=(target,), **where):
        s = r.summary[(approach, mech)]
        b, se = float(s.bias[e, j, t]), float(s.bias_se[e, j, t])
        part.add(
            f"{_label(r, mech, e, j, t)}: bias {emp.fmt(b, se)}", *emp.above(sign * b, se, 0.0)
        )


def _rescaling_parts(r: Study2Result) -> list[emp.Part]:
    small = dict(eps=(0.1,), max_n=SMALL_N)
    minimal = emp.Part(
        "minimal bias at eps = 1 and 0.5, across all n and both mechanisms",
        "|bias| <= 0.01 (one percentage point) for p1..p4",
    )
    for mech, e, j, t in _cells(r, eps=(0.5, 1.0)):
        s = r.summary[("rescaling", mech)]
        b, se = float(s.bias[e, j, t]), float(s.bias_se[e, j, t])
        minimal.add(f"{_label(r, mech, e, j, t)}: bias {emp.fmt(b, se)}", *emp.within(b, se, 0.01))
    signs = emp.Part(
        "some bias at small n at eps = 0.1: p1 positive, p4 negative",
        f"eps = 0.1, n <= {SMALL_N}: bias(p1) > 0 and bias(p4) < 0",
    )
    _bias_sign(r, signs, "rescaling", 0, 1.0, **small)
    _bias_sign(r, signs, "rescaling", 3, -1.0, **small)
    less_bias = emp.Part(
        "BIT yielded less bias than the truncated mechanism",
        f"eps = 0.1, n <= {SMALL_N}, p1 and p4 (the biased ones): |bias_BIT| < |bias_T| (paired; "
        "cells show T vs BIT)",
    )
    more_rmse = emp.Part(
        "BIT had larger RMSE than truncation for small n at eps = 0.1",
        f"eps = 0.1, n <= {SMALL_N}, p1..p4: MSE_BIT > MSE_T (paired; cells show BIT vs T)",
    )
    worse_cp = emp.Part(
        "BIT had worse under-coverage than truncation at small n for eps = 0.1",
        f"eps = 0.1, n <= {SMALL_N}, p1..p4: CP_BIT < CP_T (paired; cells show T vs BIT)",
    )
    one = dict(mechs=("truncated",), **small)  # the mechanisms are fixed in the sources
    T, B = "rescaling/truncated", "rescaling/bit"
    _compare(r, less_bias, T, B, "abs_bias", targets=(0, 3), **one)
    _compare(r, more_rmse, B, T, "mse", **one)
    _compare(r, worse_cp, T, B, "cp", **one)
    around = emp.Part(
        "CP was around 95% at all n when eps = 1",
        "CP in [0.92, 0.98] for p1..p4, both mechanisms (95% Wald interval on p*)",
    )
    _cp_band(r, around, "rescaling", 0.92, 0.98, eps=(1.0,))
    mid = emp.Part(
        "CP decreased to 85%-92% for n in [50, 300] when eps = 0.5",
        "CP in [0.85, 0.92] for n <= 300, p1..p4, both mechanisms",
    )
    _cp_band(r, mid, "rescaling", 0.85, 0.92, eps=(0.5,), max_n=300)
    low = emp.Part(
        "CP down to 50%-80% for all n in [50, 500] when eps = 0.1",
        "CP in [0.50, 0.80] for p1..p4 under truncation (BIT is said to be worse "
        "at small n, judged in its own part)",
    )
    _cp_band(r, low, "rescaling", 0.50, 0.80, eps=(0.1,), mechs=("truncated",))
    return [minimal, signs, less_bias, more_rmse, around, mid, low, worse_cp]


def _original_cp(r: Study2Result) -> dict[str, Any]:
    o = r.original
    return {
        "the same Wald interval on the unsanitised p-hat (n = 50, p1..p4)": [
            round(float(c), 3) for c in o.cp[0, :4]
        ],
        "note": "the Wald interval itself under-covers p1 = 0.1 at n = 50; for any interval "
        "sized by the sampling variance alone, Laplace noise of scale 1/(n eps) caps the "
        "coverage near P(|Z| < 1.96 / sqrt(1 + 2 lambda^2 n / (p(1-p)))), about 0.90 at "
        "eps = 1 and 0.76 at eps = 0.5 for p1 at n = 50",
    }


def _at_smallest_n(r: Study2Result, diagnostic: str) -> dict[str, list[float]]:
    """A diagnostic frequency (``{}`` = the mechanism) at the smallest n, per epsilon."""
    return {
        m: [round(float(v), 3) for v in r.diagnostics[diagnostic.format(m)][:, 0]] for m in MECHS
    }


def _study2_verdict(parts, name: str, method: str, extra: dict | None = None) -> Verdict:  # type: ignore[no-untyped-def]
    return emp.judge(
        parts,
        runs.study2(),
        runs.confirmation2(),
        method=method,
        domain=_domain(2),
        reproduce=f"{S2} && dpcheck verify {name}",
        extra=extra,
    )


@claim(
    "liu2019.sim2.rescaling",
    source="§4.2, Figure 2",
    statement=r"\text{re-scaling: little bias at }\epsilon=1,0.5;\ CP\approx95\%,\ 85\text{-}92\%,"
    r"\ 50\text{-}80\%;\ \text{BIT less biased, larger RMSE at }\epsilon=0.1",
)
def sim2_rescaling() -> Verdict:
    return _study2_verdict(
        _rescaling_parts,
        "liu2019.sim2.rescaling",
        "study 2 reproduced (§4.2, re-scaling), judged with Monte Carlo error",
        {"reference": _original_cp(runs.study2())},
    )


def _ms_parts(r: Study2Result) -> list[emp.Part]:
    cp = emp.Part(
        "releasing 5 sets at eps/5 improved the CP",
        "eps = 0.1 (all n) and eps = 0.5 (n <= 300), p1..p4: CP_MS > CP_rescaling (paired)",
    )
    _compare(r, cp, "ms", "rescaling", "cp", eps=(0.1,))
    _compare(r, cp, "ms", "rescaling", "cp", eps=(0.5,), max_n=300)
    bias = emp.Part(
        "the biases were noticeably larger, even after averaging the 5 sets",
        f"eps in {{0.1, 0.5}}, n <= {SMALL_N}, p1 and p4: |bias_MS| > |bias_rescaling|",
    )
    _compare(r, bias, "ms", "rescaling", "abs_bias", eps=(0.1, 0.5), max_n=SMALL_N, targets=(0, 3))
    rmse = emp.Part(
        "at eps = 0.1 the RMSE did not approach the original RMSE within the n range",
        "eps = 0.1, largest n, p1..p4: RMSE_MS > 1.5 x RMSE of p-hat (paired)",
    )
    _compare(r, rmse, "ms", "orig", "mse", factor=2.25, eps=(0.1,), min_n=r.design.sizes[-1])
    return [cp, bias, rmse]


@claim(
    "liu2019.sim2.multiple_synthesis",
    source="§4.2, Figure 3",
    statement=r"\text{5 sets at }\epsilon/5\text{ improve CP, with more bias}",
)
def sim2_multiple_synthesis() -> Verdict:
    return _study2_verdict(
        _ms_parts,
        "liu2019.sim2.multiple_synthesis",
        "study 2 reproduced (§4.2, multiple synthesis combined by Liu's rule, arXiv 1606.08052: "
        "T = W + B/m, t with (m-1)(1 + mW/B)^2 df), judged with Monte Carlo error",
    )


def _abo_parts(r: Study2Result) -> list[emp.Part]:
    similar = emp.Part(
        "similar performance (bias and RMSE) to re-scaling for eps = 0.5 and 1",
        "eps in {0.5, 1}, all n, p1..p4: RMSE ratio in [0.8, 1.25] (paired MSE "
        "tests at 0.64 and 1.5625)",
    )
    for cell in _cells(r, eps=(0.5, 1.0)):
        high, se_h, shown = _paired_cell(r, "all_but_one", "rescaling", "mse", 1.5625, cell)
        low, se_l, _ = _paired_cell(r, "all_but_one", "rescaling", "mse", 0.64, cell)
        below_high, above_high = emp.above(-high, se_h, 0.0)
        above_low, below_low = emp.above(low, se_l, 0.0)
        similar.add(
            f"{_label(r, *cell)}: {shown}", below_high and above_low, above_high or below_low
        )
    less_bias = emp.Part(
        "at eps = 0.1 the bias was smaller at small n",
        f"eps = 0.1, n <= {SMALL_N}, p1..p4: |bias_abo| < |bias_rescaling|",
    )
    _compare(
        r, less_bias, "all_but_one", "rescaling", "abs_bias", sign=-1.0, eps=(0.1,), max_n=SMALL_N
    )
    more_rmse = emp.Part(
        "at eps = 0.1 the RMSE was noticeably larger",
        f"eps = 0.1, n <= {SMALL_N}, p1..p4: RMSE_abo > 1.1 x RMSE_rescaling",
    )
    _compare(
        r, more_rmse, "all_but_one", "rescaling", "mse", factor=1.21, eps=(0.1,), max_n=SMALL_N
    )
    cp_p1 = emp.Part(
        "CP much worse for p1, the proportion computed from the other 3",
        f"n <= {SMALL_N}, every eps: CP_abo(p1) < CP_rescaling(p1) - 0.05",
    )
    _compare(
        r,
        cp_p1,
        "all_but_one",
        "rescaling",
        "cp",
        factor=1.05,
        sign=-1.0,
        max_n=SMALL_N,
        targets=(0,),
    )
    return [similar, less_bias, more_rmse, cp_p1]


@claim(
    "liu2019.sim2.all_but_one",
    source="§4.2, Figure 4",
    statement=r"\text{all-but-one vs re-scaling: similar at }\epsilon=0.5,1;\ \epsilon=0.1:"
    r"\text{ less bias, more RMSE; CP much worse for the derived }p_1",
)
def sim2_all_but_one() -> Verdict:
    r = runs.study2()
    return _study2_verdict(
        _abo_parts,
        "liu2019.sim2.all_but_one",
        "study 2 reproduced (§4.2, all-but-one: p2, p3, p4 sanitised in [0, 1], p1 = 1 - sum), "
        "judged with Monte Carlo error",
        {
            "p1 outside [0, 1] (eps = 0.1, 0.5, 1 at n = 50)": _at_smallest_n(
                r, "all_but_one/{}: p1 outside [0, 1]"
            )
        },
    )


def _uh_parts(r: Study2Result) -> list[emp.Part]:
    leaves = emp.Part(
        "UH was worse than re-scaling for all proportions at all eps when n was small",
        f"n <= {SMALL_N}, every eps, p1..p4: RMSE_UH > RMSE_rescaling and "
        "CP_UH < CP_rescaling (paired); the biases are near 0 for both at eps >= 0.5",
    )
    _compare(r, leaves, "uh", "rescaling", "mse", max_n=SMALL_N)
    _compare(r, leaves, "uh", "rescaling", "cp", sign=-1.0, max_n=SMALL_N)
    pair = emp.Part(
        "for p1 + p2 (node h1) UH was not better than re-scaling",
        "every cell: RMSE_UH(p1+p2) >= 0.95 x RMSE_rescaling(p1+p2) (paired MSE test)",
    )
    _compare(r, pair, "uh", "rescaling", "mse", factor=0.9025, targets=(4,))
    within = emp.Part(
        "within UH, p1 + p2 was better than p2 + p3 and p2 + p4",
        f"n <= {SMALL_N}: RMSE(p1+p2) < RMSE(p2+p3), RMSE(p2+p4) under UH (paired)",
    )
    for mech, e, j, _ in _cells(r, max_n=SMALL_N, targets=(0,)):
        err = r.errors[("uh", mech)][e, j]
        for other in (5, 6):
            value, se = emp.paired(err[:, other] ** 2 - err[:, 4] ** 2)
            within.add(
                f"{_label(r, mech, e, j, other)}: RMSE {np.sqrt((err[:, other] ** 2).mean()):.4f}"
                f" vs p1+p2 {np.sqrt((err[:, 4] ** 2).mean()):.4f}",
                *emp.above(value, se, 0.0),
            )
    worse = emp.Part(
        "p2 + p3 and p2 + p4 were worse under UH than under re-scaling",
        f"n <= {SMALL_N}: RMSE_UH > RMSE_rescaling for p2+p3 and p2+p4 (paired)",
    )
    _compare(r, worse, "uh", "rescaling", "mse", max_n=SMALL_N, targets=(5, 6))
    return [leaves, pair, within, worse]


@claim(
    "liu2019.sim2.uh_vs_rescaling",
    source="§4.2, Figures 5, S1-S2",
    statement=r"\text{UH worse than re-scaling for the leaves at small }n,\ "
    r"\text{not better for }p_1+p_2",
)
def sim2_uh_vs_rescaling() -> Verdict:
    r = runs.study2()
    return _study2_verdict(
        _uh_parts,
        "liu2019.sim2.uh_vs_rescaling",
        "study 2 reproduced (§4.2, universal histogram steps 1-5 with footnote 3), judged with "
        "Monte Carlo error",
        {
            "footnote 3 fired (eps = 0.1, 0.5, 1 at n = 50)": _at_smallest_n(
                r, "uh/{}: footnote 3 fired"
            )
        },
    )


# --- the universal histogram: exact -------------------------------------------------------

Y = sp.symbols("y_1 y_2 y_11 y_12 y_21 y_22", real=True)


@claim(
    "liu2019.sim2.uh_consistency",
    source="§4.2 steps 1-5",
    statement=r"\bar h_1+\bar h_2=1,\ \bar h_{11}+\bar h_{12}=\bar h_1,\ \bar h_{21}+\bar h_{22}=\bar h_2",
)
def sim2_uh_consistency() -> Verdict:
    g = uh.correct(list(Y))
    sums = {
        "hbar1 + hbar2 - 1": sp.simplify(g[0] + g[1] - 1),
        "hbar11 + hbar12 - hbar1": sp.simplify(g[2] + g[3] - g[0]),
        "hbar21 + hbar22 - hbar2": sp.simplify(g[4] + g[5] - g[1]),
    }
    layer3_ok, cases, exhaustive = _footnote3_code_path()
    # the printed step 4 read literally: the unsanitised parent h(u) in layer 3
    y = [
        Fraction(3, 10),
        Fraction(7, 10),
        Fraction(1, 5),
        Fraction(1, 5),
        Fraction(1, 2),
        Fraction(1, 10),
    ]
    true_h1 = Fraction(1, 5)
    g2 = uh.correct(y)
    literal = [y[2] + (true_h1 - y[2] - y[3]) / 2, y[3] + (true_h1 - y[2] - y[3]) / 2]
    rng = np.random.default_rng(7)
    x = rng.laplace(0.25, 0.5, size=(6, 100_000))
    released = uh.release(list(x))
    gaps = max(
        float(np.max(np.abs(released[0] + released[1] - 1))),
        float(np.max(np.abs(released[2] + released[3] - released[0]))),
        float(np.max(np.abs(released[4] + released[5] - released[1]))),
    )
    steps_ok = all(v == 0 for v in sums.values())
    clip_ok = all(c == "sums to P, both >= 0" for c in cases.values())
    ok = steps_ok and layer3_ok and clip_ok and exhaustive
    evidence = {
        "steps 3-4 (symbolic h* = y)": {k: str(v) for k, v in sums.items()},
        "release(): layer 3 corrected towards symbolic clipped parents G1, G2 sums to them": (
            layer3_ok
        ),
        "footnote 3 (the study's _clip_siblings run on symbols), per sign pattern of a sibling "
        "pair a + b = P >= 0": cases,
        "the sign patterns cover every pair with a + b >= 0": exhaustive,
        "reading of step 4": "h(u) is read as the corrected parent hbar(u) (Hay et al. 2010, "
        "Theorem 3). Read literally as the unsanitised h(u), layer 3 uses private data and does "
        "not sum to its corrected parent",
        "literal reading, exact example": {
            "h*": [str(v) for v in y],
            "true h1": str(true_h1),
            "hbar1 (step 4)": str(g2[0]),
            "hbar11 + hbar12 with h(u) = true h1": str(sum(literal)),
        },
        "float check of the released tree (footnote 3 on), 100000 random trees": f"max |gap| {gaps:.1e}",
    }
    basis = [
        step(
            Kind.SYMBOLIC,
            "uh.correct (steps 3-4) run on symbols h* = y: the three consistency sums reduce to 0",
            checked=steps_ok,
        ),
        step(
            Kind.SYMBOLIC,
            "uh._layer3 run on symbolic clipped parents G1, G2: each sibling pair sums to its "
            "parent",
            checked=layer3_ok,
        ),
        step(
            Kind.SIGN,
            "uh._clip_siblings (footnote 3) run on symbols with sign assumptions, one run per "
            "sign pattern: the pair sums to its parent and is >= 0; the patterns are exhaustive "
            "for a + b >= 0 (a < 0 with b <= 0 gives a + b < 0, decided by SymPy)",
            checked=clip_ok and exhaustive,
        ),
        step(
            Kind.SAMPLING,
            "float run of uh.release on 100000 random trees: max consistency gap "
            f"{gaps:.1e} (corroboration)",
            checked=gaps < 1e-12,
            domain="100000 random trees",
        ),
    ]
    if ok:
        evidence["finding"] = (
            "steps 3-4 return a consistent tree for every sanitised h*, and "
            "footnote 3 keeps it consistent (each sign pattern)"
        )
        return Verdict(
            Status.PROVED,
            "symbolic reduction to 0 of the code that runs the study",
            evidence,
            reproduce="dpcheck verify liu2019.sim2.uh_consistency",
            domain="every h* in R^6, root fixed at 1; footnote 3 on sibling pairs with P >= 0",
            basis=basis,
        )
    evidence["finding"] = "a consistency sum does not reduce to 0"
    return Verdict(
        Status.INCONCLUSIVE,
        "symbolic reduction",
        evidence,
        reproduce="dpcheck verify liu2019.sim2.uh_consistency",
        basis=basis,
    )


def _footnote3_code_path() -> tuple[bool, dict[str, str], bool]:
    """Footnote 3 through the study's own code (uh._layer3, uh._clip_siblings) on SymPy symbols.

    Returns (layer 3 sums to symbolic parents, outcome per sign pattern, patterns exhaustive).
    A sibling pair (a, b) with a + b = P >= 0 (step 4 makes the pair sum to its parent) has one
    of the patterns below; each runs through the code with SymPy deciding every comparison.
    """
    g1, g2 = sp.symbols("G1 G2", real=True)
    l3 = uh._layer3(g1, g2, list(Y))
    layer3_ok = sp.simplify(l3[0] + l3[1] - g1) == 0 and sp.simplify(l3[2] + l3[3] - g2) == 0
    pos, nonneg, neg = ({"positive": True}, {"nonnegative": True}, {"negative": True})
    big_p = sp.Symbol("P", nonnegative=True)
    u, w = sp.Symbol("u", **pos), sp.Symbol("w", **nonneg)
    v = sp.Symbol("v", **neg)
    patterns = {  # (a, b) with a + b = P >= 0
        "a > 0, b >= 0": (u, w),
        "a >= 0, b > 0": (w, u),
        "a < 0 (so b = P - a > 0)": (v, big_p - v),
        "b < 0 (so a = P - b > 0)": (big_p - v, v),
    }
    cases = {}
    for name, (a, b) in patterns.items():
        parent = np.array([a + b], dtype=object)
        x, y = uh._clip_siblings(np.array([a], dtype=object), np.array([b], dtype=object), parent)
        sums = sp.simplify(x[0] + y[0] - (a + b)) == 0
        nonneg_out = all(sp.simplify(v).is_nonnegative for v in (x[0], y[0]))
        cases[name] = "sums to P, both >= 0" if sums and nonneg_out else f"gives ({x[0]}, {y[0]})"
    zero = np.array([sp.Integer(0)], dtype=object)
    x, y = uh._clip_siblings(zero, zero, zero)
    cases["a = b = 0"] = "sums to P, both >= 0" if x[0] == 0 and y[0] == 0 else "differs"
    # what the patterns leave out: a < 0 with b <= 0 (or the mirror) has a + b < 0, so P < 0
    a, b = sp.Symbol("a", negative=True), sp.Symbol("b", nonpositive=True)
    exhaustive = bool((a + b).is_negative) and bool((b + a).is_negative)
    return layer3_ok, cases, exhaustive


def _footnote_counterexample() -> dict[str, Any] | None:
    """A rational h* where the footnote-3 tree is not the nonnegative least-squares tree."""
    rng = np.random.default_rng(11)
    for _ in range(400):
        y = [Fraction(int(v), 20) for v in rng.integers(-8, 24, size=6)]
        released = [Fraction(v[0]) for v in uh.release([np.array([v], dtype=object) for v in y])]
        if all(uh.correct(y)[i] >= 0 for i in range(6)):
            continue
        best, objective = uh.nonnegative_least_squares(y)
        mine = sum((a - b) ** 2 for a, b in zip(released, y, strict=True))
        if mine > objective:
            return {
                "h*": [str(v) for v in y],
                "footnote-3 tree": [str(v) for v in released],
                "its squared distance": str(mine),
                "nonnegative least-squares tree": [str(v) for v in best],
                "least squared distance": str(objective),
            }
    return None


@claim(
    "liu2019.sim2.uh_least_squares",
    source="§4.2 steps 3-4, Hay et al. (2010)",
    statement=r"\bar h=\arg\min_{h\text{ consistent},\,h_{root}=1}\|h-h^*\|_2^2",
)
def sim2_uh_least_squares() -> Verdict:
    g = uh.correct(list(Y))
    direct = uh.least_squares(list(Y))
    diffs = [sp.simplify(a - b) for a, b in zip(g, direct, strict=True)]
    r = runs.study2()
    evidence: dict[str, Any] = {
        "least squares, solved directly (KKT system, SymPy)": [str(v) for v in direct],
        "steps 3-4 minus the direct solution": [str(d) for d in diffs],
        "footnote 3": "outside the numbered steps: when it fires the released tree is no longer "
        "the least-squares consistent tree (a nonnegative tree can be closer to h*)",
        "footnote 3 fired in the study (eps = 0.1, 0.5, 1 at n = 50)": _at_smallest_n(
            r, "uh/{}: footnote 3 fired"
        ),
    }
    counter = _footnote_counterexample()
    if counter:
        evidence["footnote 3 is not the nonnegative least squares (exact)"] = counter
    basis = [
        step(
            Kind.SYMBOLIC,
            "uh.correct (steps 3-4) on symbols minus the KKT solution of the equality-"
            "constrained least squares (unique: the objective is strictly convex) reduces to 0",
            checked=all(d == 0 for d in diffs),
        )
    ]
    if all(d == 0 for d in diffs):
        evidence["finding"] = (
            "steps 3-4 give exactly the least-squares consistent tree with the "
            "root fixed at 1, for every h*; the footnote-3 clipping departs from it"
        )
        return Verdict(
            Status.PROVED,
            "symbolic: steps 3-4 equal the KKT solution identically",
            evidence,
            reproduce="dpcheck verify liu2019.sim2.uh_least_squares",
            domain="every h* in R^6 (steps 3-4, before footnote 3)",
            basis=basis,
        )
    evidence["finding"] = "steps 3-4 differ from the least-squares solution"
    return Verdict(
        Status.INCONCLUSIVE,
        "symbolic comparison with the KKT solution",
        evidence,
        reproduce="dpcheck verify liu2019.sim2.uh_least_squares",
        basis=basis,
    )
