"""Benchmark: the float64 fast path vs the 50-digit mpmath path, and its accuracy.

Run as ``python bench/bench_fast.py [--n N]``.  For each of the ten quantities
(truncated and BIT: mean, bias, second moment, variance, MSE; Liu 2019 eqs
(6), (7), Appendix B) it times, in the same run:

* ``float64``: :func:`dpcheck.numeric.fast.evaluate` on N random points
  (s uniform in [0, 1], λ/R log-uniform in [1e-8, 1e8]);
* ``mpmath``: :func:`dpcheck.numeric.mp.adaptive` of the compiled derived form
  at 50 digits, on a few hundred of the same points;

and prints evaluations per second, the ratio (target: float64 >= 1e7/s), and
the largest error on the accuracy grid of :mod:`dpcheck.numeric.fast_check`
(target: <= 1e-12 relative or 1e-15 R absolute; 'score' is error/allowed).
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

import numpy as np

from dpcheck.numeric import fast, fast_check, mp

NAMES = [f"{m}.{q}" for m in fast.MECHANISMS for q in fast.QUANTITIES]


def best_of(fn, repeats: int = 3) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=2_000_000, help="float64 points")
    parser.add_argument("--mp-points", type=int, default=300, help="mpmath points")
    args = parser.parse_args()
    rng = np.random.default_rng(2019)
    s = rng.random(args.n)
    lam = 10.0 ** rng.uniform(-8, 8, args.n)
    c0, c1 = np.zeros(args.n), np.ones(args.n)
    k = args.mp_points
    exact = [tuple(Fraction(float(v)) for v in (s[i], 0.0, 1.0, lam[i])) for i in range(k)]
    print(f"{'quantity':<24}{'float64 /s':>14}{'mpmath /s':>12}{'ratio':>10}"
          f"{'worst score':>13}{'max rel err':>13}")
    for name in NAMES:
        t_fast = best_of(lambda name=name: fast.evaluate(name, s, c0, c1, lam))
        f = mp.compiled(name)
        start = time.perf_counter()
        for a in exact:
            mp.adaptive(f, a, 50)
        t_mp = time.perf_counter() - start
        rate_fast, rate_mp = args.n / t_fast, k / t_mp
        worst = max((fast_check.worst_error(name, b) for b in fast_check.BOUNDS),
                    key=lambda w: w.score)
        print(f"{name:<24}{rate_fast:>14.3g}{rate_mp:>12.3g}{rate_fast / rate_mp:>10.3g}"
              f"{worst.score:>13.2g}{worst.relative:>13.2g}")
    print("target: float64 >= 1e7 evaluations/s; score <= 1 "
          "(error <= max(1e-12 |value|, 1e-15 R))")


if __name__ == "__main__":
    main()
