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

from collections.abc import Sequence
from fractions import Fraction

import mpmath
import numpy as np
from mpmath import mpf

from dpcheck.peers.diffprivlib.exact import ExactLaw, _mp, sampled_law
from dpcheck.peers.diffprivlib.library import _call, _make
from dpcheck.peers.diffprivlib.points import Point
from dpcheck.peers.diffprivlib.rows import Row, _fmt, _show
from dpcheck.sampling import binomial, goodness
from dpcheck.sampling.goodness import dkw_threshold

#: false-alarm probability of one law test (all its parts together)
ALPHA = 1e-6


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
    """sup_y |F_n(y) - F(y)| against the exact law (:func:`goodness.ks_distance`).

    The CDF is the mpmath one of :mod:`dpcheck.numeric.laws_at` (exact
    rational arguments), so that the folded law is covered too.
    """

    def cdf(points: np.ndarray) -> np.ndarray:
        return np.array([float(_law_cdf(law, Fraction(float(y)))) for y in points])

    atoms = [(float(y), float(p)) for y, p in _atoms(law).items()]
    return mpf(goodness.ks_distance(draws, cdf, atoms))


def binomial_p_value(k: int, n: int, p: mpf) -> mpf:
    """Exact two-sided binomial p-value (:func:`dpcheck.sampling.binomial.two_sided_p_value`)."""
    return mpf(binomial.two_sided_p_value(k, n, float(p)))


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
