"""Benchmark: every mechanism's float64 evaluation and its sampler, in one run.

Run as ``python bench/bench_mechanisms.py [--n N] [--mp-points K] [--draws D]``.
Issue 18 asks for one run that prints, for the mechanisms of the algebra
(<bounding>-<base>, :data:`dpcheck.numeric.names.MECHANISM_NAMES`),

1. float64 evaluations per second of every quantity, its ratio to 30-digit
   mpmath, and the worst relative error against those 30-digit values
   (:mod:`bench_mechanisms_eval`, N float64 points, K mpmath points), and
2. sampler throughput against numpy's own generator of the same base law, in
   the same process (:mod:`bench_mechanisms_sampling`, D draws per timing).

Both parts keep their own scripts for running one alone; this one runs them
back to back in one process so their figures come from one run.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_mechanisms_eval  # noqa: E402
import bench_mechanisms_sampling  # noqa: E402


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1_000_000, help="float64 points")
    parser.add_argument("--mp-points", type=int, default=200, help="mpmath points")
    parser.add_argument("--draws", type=int, default=2_000_000, help="draws per sampler timing")
    args = parser.parse_args(argv)
    print("== float64 evaluation of every quantity vs 30-digit mpmath ==", flush=True)
    bench_mechanisms_eval.main(["--n", str(args.n), "--mp-points", str(args.mp_points)])
    print("\n== sampler throughput vs numpy's generator of the same law ==", flush=True)
    bench_mechanisms_sampling.main(["--n", str(args.draws)])


if __name__ == "__main__":
    main()
