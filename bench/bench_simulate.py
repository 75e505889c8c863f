"""Benchmark: both simulation studies of Liu (2019) §4 at full size, and what vectorising buys.

Run as ``python bench/bench_simulate.py [--reps R] [--loop-reps L]``.  In one run it times

* ``study 1`` and ``study 2`` vectorised at R repetitions (default 500, the paper's; every
  grid point), against the issue's budget of 5 minutes for both;
* study 2's re-scaling approach for one cell (eps = 0.1, n = 50, truncated) done the naive
  way, one repetition at a time with scalar sampler calls, against the same cell
  vectorised, and prints the per-repetition ratio.

The figures and CSV files (``dpcheck simulate``) are not timed here.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

try:
    import dpcheck  # noqa: F401
except ImportError:  # a checkout without an install
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

import numpy as np

from dpcheck.simulation.covariance import Study1Design, run_study1
from dpcheck.simulation.mechanisms import sanitise
from dpcheck.simulation.proportions import Study2Design, run_study2

BUDGET_S = 300.0


def timed(fn):  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def naive_cell(reps: int, seed: int = 0) -> float:
    """Re-scaling at eps = 0.1, n = 50, truncated, one repetition and one proportion at a time."""
    rng = np.random.default_rng(seed)
    p, n, lam = np.array([0.1, 0.2, 0.3, 0.4]), 50, 1 / (50 * 0.1)
    start = time.perf_counter()
    for _ in range(reps):
        phat = rng.multinomial(n, p) / n
        q = np.array([float(sanitise(rng, "truncated", v, 0.0, 1.0, lam)) for v in phat])
        _ = q / q.sum()
    return time.perf_counter() - start


def vector_cell(reps: int, seed: int = 0) -> float:
    rng = np.random.default_rng(seed)
    p, n, lam = np.array([0.1, 0.2, 0.3, 0.4]), 50, 1 / (50 * 0.1)
    start = time.perf_counter()
    phat = rng.multinomial(n, p, size=reps) / n
    q = sanitise(rng, "truncated", phat, 0.0, 1.0, lam)
    _ = q / q.sum(axis=-1, keepdims=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=500)
    parser.add_argument("--loop-reps", type=int, default=2000)
    args = parser.parse_args()
    t1 = timed(lambda: run_study1(Study1Design(reps=args.reps)))
    t2 = timed(lambda: run_study2(Study2Design(reps=args.reps)))
    cells1 = 2 * len(Study1Design().settings) * len(Study1Design().sizes)
    cells2 = 2 * 4 * len(Study2Design().epsilons) * len(Study2Design().sizes)
    print(f"study 1: {cells1} cells x {args.reps} reps in {t1:.3f} s")
    print(f"study 2: {cells2} cells x {args.reps} reps in {t2:.3f} s")
    print(f"both: {t1 + t2:.2f} s = {(t1 + t2) / BUDGET_S:.4f} x the 5-minute budget")
    loop = naive_cell(args.loop_reps) / args.loop_reps
    vec = min(vector_cell(args.loop_reps) for _ in range(5)) / args.loop_reps
    print(
        f"one cell, per repetition: naive loop {loop * 1e6:.1f} us, vectorised {vec * 1e6:.2f} us;"
        f" vectorised is {loop / vec:.0f}x faster"
    )


if __name__ == "__main__":
    main()
