"""The statistical test of ``randomise()``: seeded draws against the exact law.

:func:`law_rows` draws N values from diffprivlib 0.6.6's ``randomise()``
(``LaplaceTruncated``, ``LaplaceFolded``, ``LaplaceBoundedDomain``) and tests
them against the exact CDF of the law it should sample (Liu 2019
Definition 2) by the DKW inequality with Massart's constant
(:func:`dkw_threshold`, :func:`ks_distance`, at ALPHA/2), and for
``LaplaceTruncated`` the counts at each bound (the BIT law's point masses) by
an exact two-sided binomial test (:func:`binomial_p_value`, ALPHA/4 each).
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from fractions import Fraction

import mpmath
from mpmath import mpf

from dpcheck.peers.diffprivlib.exact import ExactLaw, _mp, sampled_law
from dpcheck.peers.diffprivlib.library import _call, _make
from dpcheck.peers.diffprivlib.points import Point
from dpcheck.peers.diffprivlib.rows import Row, _fmt, _show

#: false-alarm probability of one law test (all its parts together)
ALPHA = 1e-6


def dkw_threshold(n: int, alpha: float) -> float:
    """t with 2 exp(-2 n t²) = alpha: P(sup|F_n - F| > t) <= alpha (DKW, Massart 1990)."""
    return math.sqrt(math.log(2 / alpha) / (2 * n))


def _law_cdf(law: ExactLaw, y: Fraction) -> mpf:
    from dpcheck.numeric import laws_at

    if law.kind == "point":
        return mpf(1) if y >= law.s else mpf(0)
    return laws_at.cdf(law.kind, y, law.s, law.c0, law.c1, law.lam, dps=12)


def _atoms(law: ExactLaw) -> dict[Fraction, mpf]:
    from dpcheck.numeric import laws_at

    if law.kind == "point":
        return {law.s: mpf(1)}
    if law.kind != "bit":
        return {}
    p0, p1 = laws_at.point_masses("bit", law.s, law.c0, law.c1, law.lam, dps=12)
    return {law.c0: p0, law.c1: p1}


def ks_distance(draws: Sequence[float], law: ExactLaw) -> mpf:
    """sup_y |F_n(y) - F(y)|, exactly over the jumps of both (point masses included).

    Between consecutive jumps F_n is constant and F continuous and nondecreasing,
    so the sup is approached at the jumps: compare F_n(y), F(y) and the left
    limits F_n(y-), F(y-) = F(y) - P(Y = y) at every draw and every atom.
    """
    xs = sorted(Fraction(float(d)) for d in draws)
    n = len(xs)
    atoms = _atoms(law)
    best = mpf(0)
    for y in sorted(set(xs) | set(atoms)):
        below, upto = bisect_left(xs, y), bisect_right(xs, y)
        f_y = _law_cdf(law, y)
        f_left = f_y - atoms.get(y, 0)
        best = max(best, abs(mpf(upto) / n - f_y), abs(mpf(below) / n - f_left))
    return best


def binomial_p_value(k: int, n: int, p: mpf) -> mpf:
    """Exact two-sided binomial p-value 2·min(P(K <= k), P(K >= k)), K ~ Bin(n, p)."""
    with mpmath.workdps(30):
        upper = mpf(1) if k == 0 else mpmath.betainc(k, n - k + 1, 0, p, regularized=True)
        lower = mpf(1) if k == n else mpmath.betainc(n - k, k + 1, 0, 1 - p, regularized=True)
        return min(mpf(1), 2 * min(upper, lower))


def law_rows(point: Point, samples: int, seed: int) -> list[Row]:
    """N seeded draws of randomise(value) against the exact law (DKW; bound counts)."""
    command = point.command("law", samples, seed)
    law = sampled_law(point)
    if isinstance(law, str):
        return [
            Row(
                point,
                "law",
                "-",
                "-",
                None,
                "not compared",
                "not compared",
                law,
                command,
                measure="D_n / DKW threshold",
            )
        ]
    mech = _make(point, seed)
    draws: list[float] = []
    failures: dict[str, int] = {}
    for _ in range(samples):
        out, exc = _call(lambda: mech.randomise(point.value))
        if exc is not None:
            failures[type(exc).__name__] = failures.get(type(exc).__name__, 0) + 1
        else:
            draws.append(float(out))
    if failures:
        what = ", ".join(f"{k} in {v}" for k, v in failures.items())
        hint = ""
        if "RecursionError" in failures and point.mechanism == "LaplaceFolded":
            if point.lower == point.upper:
                hint = " (_fold reflects about lower == upper forever)"
            else:
                ratio = _fmt(_mp(law.lam / (law.c1 - law.c0)))
                hint = f" (_fold recurses once per reflection, ~|noise|/R times; λ/R = {ratio})"
            hint += "; the count depends on the caller's stack depth (Python's recursion limit)"
        return [
            Row(
                point,
                "law",
                f"{what} of {samples} calls",
                law.describe(),
                mpf("inf"),
                "crash",
                "crash",
                f"randomise() raised {what} of {samples} calls{hint}",
                command,
                measure="D_n / DKW threshold",
                flagged=True,
            )
        ]
    t = dkw_threshold(samples, ALPHA / 2)
    with mpmath.workdps(30):
        dist = ks_distance(draws, law)
        ratio = dist / t
    flagged = bool(ratio > 1)
    text = (
        f"sup|F_n - F| = {_fmt(dist)} vs DKW threshold {t:.4g} (n = {samples},"
        f" false alarm <= {ALPHA / 2:g}) for the {law.describe()}: "
        + ("FLAGGED, the draws do not follow the exact law" if flagged else "consistent")
    )
    rows = [
        Row(
            point,
            "law",
            f"D_n = {_fmt(dist, 4)}",
            f"t = {t:.4g}",
            ratio,
            "compared",
            "flagged" if flagged else "law ok",
            text,
            command,
            measure="D_n / DKW threshold",
            flagged=flagged,
        )
    ]
    if law.kind == "bit":
        for where, atom in zip(("lower", "upper"), (law.c0, law.c1), strict=True):
            p = _atoms(law)[atom]
            count = sum(1 for d in draws if Fraction(d) == atom)
            p_value = binomial_p_value(count, samples, p)
            with mpmath.workdps(30):
                evidence = mpmath.log(p_value) / mpmath.log(ALPHA / 4)
            hit = bool(evidence >= 1)
            rows.append(
                Row(
                    point,
                    "law",
                    f"{count}/{samples} at {where}",
                    _show(p, 6),
                    evidence,
                    "compared",
                    "flagged" if hit else "law ok",
                    f"frequency of the {where} bound {count}/{samples} vs exact point mass"
                    f" {_fmt(p, 6)}: two-sided binomial p = {_fmt(p_value)}"
                    f" (flagged at <= {ALPHA / 4:g})" + (": FLAGGED" if hit else ""),
                    command,
                    measure="log p / log(ALPHA/4)",
                    flagged=hit,
                )
            )
    return rows
