"""Benchmark: the float64 fast path of every mechanism vs mechanism_mp, and its accuracy.

Run as ``python bench/bench_mechanisms_eval.py [--n N] [--mp-points K] [--only NAME...]``.
For each mechanism of :data:`dpcheck.numeric.names.MECHANISM_NAMES` (and the
one-sided variants [c0, ∞) of the truncated and clamped ones) and each quantity
(normaliser, mean, bias, second_moment, var, mse) it measures, in the same run:

* ``float64``: :func:`dpcheck.numeric.fast_mechanisms.evaluate` on N random
  points (s uniform in [c0, c1], scale/R log-uniform in [1e-8, 1e8]; the
  geometric base on c0 = 0, c1 = 100 with integer s; one-sided: s - c0 uniform
  in [0, 1], scale log-uniform in [1e-8, 1e8]), best of 3;
* ``mpmath``: :func:`dpcheck.numeric.mechanism_mp.evaluate` at 30 digits on the
  first K of the same points (compilation excluded: one warm-up call first);

and prints evaluations per second, the ratio float64/mpmath, the largest
relative error of the float64 values at the K points against the 30-digit ones
(where |value| > 1e-15 L; L = R, or the scale for one-sided laws) and the
worst score = error / max(1e-12 |value|, 1e-15 L for mean and bias, 1e-300)
(target <= 1).  Liu's two-sided truncated and clamped Laplace go through
:mod:`dpcheck.numeric.fast` (marked ``*``).
"""

from __future__ import annotations

import argparse
import sys
import time
from fractions import Fraction
from pathlib import Path

try:
    import dpcheck  # noqa: F401
except ImportError:  # a checkout without an install
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

import mpmath
import numpy as np

from dpcheck.numeric import fast_mechanisms, mechanism_mp
from dpcheck.numeric.names import LIU_NAMES, MECHANISM_NAMES, parts

QUANTITIES = fast_mechanisms.QUANTITIES


def best_of(fn, repeats: int = 3) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def points(mechanism: str, side: str, n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Random parameters (see the module docstring)."""
    bounding, base = parts(mechanism)
    ratio = 10.0 ** rng.uniform(-8, 8, n)
    if base == "geometric":
        c0, c1 = 0.0, 100.0
        s = rng.integers(0, 101, n).astype(float)
        if side == "lower":
            s = rng.integers(0, 2, n).astype(float)
    else:
        c0, c1 = 0.0, 1.0
        s = rng.random(n)
    out = {"s": s, "scale": ratio * (c1 - c0)}
    if bounding != "none":
        out["c0"] = np.full(n, c0)
        out["c1"] = np.full(n, np.inf if side == "lower" else c1)
    return out


def exact(value: float) -> str:
    return "inf" if value == np.inf else str(Fraction(float(value)))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1_000_000, help="float64 points")
    parser.add_argument("--mp-points", type=int, default=200, help="mpmath points")
    parser.add_argument("--only", nargs="*", default=None, help="mechanisms to run")
    args = parser.parse_args(argv)
    cases = [(m, "both") for m in MECHANISM_NAMES]
    cases += [(m, "lower") for m in MECHANISM_NAMES if parts(m)[0] in ("truncated", "clamped")]
    if args.only:
        cases = [c for c in cases if c[0] in args.only]
    print(
        f"{'quantity':<44}{'float64 /s':>12}{'mpmath /s':>11}{'ratio':>10}"
        f"{'max rel err':>13}{'worst score':>13}"
    )
    overall = 0.0
    for mechanism, side in cases:
        rng = np.random.default_rng(2019)
        params = points(mechanism, side, args.n, rng)
        k = args.mp_points
        few = {key: value[:k] for key, value in params.items()}
        for quantity in QUANTITIES:
            name = f"{mechanism}.{quantity}"
            t_fast = best_of(lambda name=name, p=params: fast_mechanisms.evaluate(name, **p))
            got = fast_mechanisms.evaluate(name, **few)
            rows = [{key: exact(value[i]) for key, value in few.items()} for i in range(k)]
            mechanism_mp.evaluate(name, rows[0], 30)  # compile outside the timing
            start = time.perf_counter()
            refs = [mechanism_mp.evaluate(name, row, 30) for row in rows]
            t_mp = time.perf_counter() - start
            worst_rel, worst_score = 0.0, 0.0
            for i, ref in enumerate(refs):
                length = (
                    few["scale"][i]
                    if side == "lower" or parts(mechanism)[0] == "none"
                    else few["c1"][i] - few["c0"][i]
                )
                err = abs(mpmath.mpf(float(got[i])) - ref)
                allowed = max(mpmath.mpf(1e-12) * abs(ref), mpmath.mpf(1e-300))
                if quantity in ("mean", "bias"):
                    allowed = max(allowed, mpmath.mpf(1e-15) * length)
                worst_score = max(worst_score, float(err / allowed))
                if abs(ref) > 1e-15 * length and abs(ref) > 1e-300:
                    worst_rel = max(worst_rel, float(err / abs(ref)))
            overall = max(overall, worst_score)
            rate_fast, rate_mp = args.n / t_fast, k / t_mp
            liu = "*" if mechanism in LIU_NAMES and side == "both" else " "
            label = f"{name}{'' if side == 'both' else ' [c0,inf)'}{liu}"
            print(
                f"{label:<44}{rate_fast:>12.3g}{rate_mp:>11.3g}{rate_fast / rate_mp:>10.3g}"
                f"{worst_rel:>13.2g}{worst_score:>13.2g}",
                flush=True,
            )
    print(
        f"worst score over all rows: {overall:.2g} (target <= 1: error <= 1e-12 relative,"
        " or 1e-15 L for mean and bias near 0)"
    )
    print("* Liu's two-sided laws, through dpcheck.numeric.fast")


if __name__ == "__main__":
    main()
