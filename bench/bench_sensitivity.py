"""Benchmark: the exact sensitivity engine vs naive vertex enumeration.

Run as ``python bench/bench_sensitivity.py [--n-max 12] [--naive-max 4]``.  For
the variance and the covariance under both neighbour definitions (Def 1
substitute, Def 2 remove) and n = 4..n-max it times, in the same run,

* ``exact``: :func:`dpcheck.enumeration.sensitivity.exact_sensitivity`
  (best of 3), with the configurations x faces it examined;
* ``naive``: the number of vertices 2^(coordinates) a naive enumeration would
  visit, and for the covariance (multilinear, so vertices are the right
  method) with n <= naive-max the time of actually enumerating them all in
  exact arithmetic, and the ratio of the two times.

Target: every case at n = 12 within 30 s on a 2-core machine.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from fractions import Fraction
from pathlib import Path

try:
    import dpcheck  # noqa: F401
except ImportError:  # a checkout without an install
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from dpcheck.enumeration.sensitivity import exact_sensitivity


def best_of(fn, repeats: int = 3) -> tuple[float, object]:
    best, out = float("inf"), None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - start)
    return best, out


def _cov(recs: list[tuple[int, int]]) -> Fraction:
    m = len(recs)
    sx = sum(r[0] for r in recs)
    sy = sum(r[1] for r in recs)
    return (sum(r[0] * r[1] for r in recs) - Fraction(sx * sy, m)) / (m - 1)


def naive_covariance(neighbours: str, n: int) -> Fraction:
    """max |s12 - s12'| over every vertex of all coordinates (exact)."""
    corners = list(itertools.product((0, 1), repeat=2))
    extra = 1 if neighbours == "substitute" else 0
    best = Fraction(0)
    for combo in itertools.product(corners, repeat=n + extra):
        x = list(combo[:n])
        y = [combo[n], *x[1:]] if extra else x[1:]
        best = max(best, abs(_cov(x) - _cov(y)))
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-min", type=int, default=4)
    parser.add_argument("--n-max", type=int, default=12)
    parser.add_argument("--naive-max", type=int, default=6, help="time naive covariance up to n")
    args = parser.parse_args(argv)
    header = (
        f"{'stat':<10} {'neighbours':<10} {'n':>3} {'GS (unit)':>10} {'exact s':>9}"
        f" {'cases':>7} {'naive vertices':>15} {'cases/naive':>11} {'naive s':>9}"
        f" {'time ratio':>10}"
    )
    print(header)
    print("-" * len(header))
    worst = 0.0
    for stat in ("variance", "covariance"):
        for neighbours in ("substitute", "remove"):
            for n in range(args.n_min, args.n_max + 1):
                seconds, r = best_of(lambda s=stat, nb=neighbours, k=n: exact_sensitivity(s, nb, k))
                worst = max(worst, seconds)
                naive_s, ratio = "", ""
                if stat == "covariance" and n <= args.naive_max:
                    t_naive, v = best_of(lambda nb=neighbours, k=n: naive_covariance(nb, k), 1)
                    assert v == r.value, (v, r.value)
                    naive_s, ratio = f"{t_naive:.3f}", f"{t_naive / seconds:.1f}x"
                print(
                    f"{stat:<10} {neighbours:<10} {n:>3} {str(r.value):>10} {seconds:>9.4f}"
                    f" {r.cases:>7} {r.naive_vertices:>15.4g} {r.cases / r.naive_vertices:>11.3g}"
                    f" {naive_s:>9} {ratio:>10}"
                )
    print(f"slowest exact case: {worst:.3f} s (target: every n = {args.n_max} case within 30 s)")
    return 0 if worst < 30 else 1


if __name__ == "__main__":
    sys.exit(main())
