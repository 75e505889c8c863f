"""Benchmark: sampler throughput, each ratio measured in one run.

Run as ``python bench/bench_samplers.py [--n N]``.  Times, on the same
machine and in the same process (best of 3):

* numpy's own ``Generator.laplace`` (the baseline; target: the truncated and
  BIT samplers at >= 1.0x its throughput);
* :func:`dpcheck.sampling.samplers.truncated` (exact inversion, Liu 2019
  Definition 2(a)), :func:`~dpcheck.sampling.samplers.bit` (clamp, 2(b)),
  :func:`~dpcheck.sampling.samplers.laplace`;
* :func:`~dpcheck.sampling.samplers.truncated_rejection` (the paper's
  redraw-until-inside procedure, §3.1);
* diffprivlib 0.6.6's per-call ``randomise`` (``LaplaceBoundedDomain`` is its
  truncated mechanism, ``LaplaceTruncated`` its BIT) when the ``[peers]``
  extra is installed;

with scalar parameters (one (s, c0, c1, λ) for all draws) and with an array
of s (one draw per s), at λ/R = 1 and λ/R = 10.
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

from dpcheck.sampling import samplers


def rate(fn, n: int, repeats: int = 3) -> float:
    """Draws per second, best of ``repeats``."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return n / best


def diffprivlib_rates(ratio: float, calls: int) -> dict[str, float]:
    try:
        from diffprivlib.mechanisms import LaplaceBoundedDomain, LaplaceTruncated
    except ImportError:
        return {}
    out = {}
    for label, cls in (("diffprivlib truncated", LaplaceBoundedDomain),
                       ("diffprivlib BIT", LaplaceTruncated)):
        mech = cls(epsilon=1.0 / ratio, sensitivity=1.0, lower=0.0, upper=1.0, random_state=1)

        def run(mech=mech) -> None:
            for _ in range(calls):
                mech.randomise(0.3)

        out[label] = rate(run, calls, repeats=1)
    return out


def sampler_rates(rng: np.random.Generator, s, lam: float, size: int | None, n: int) -> dict:
    """Draws per second of each sampler at one setting (same rng, same run)."""
    return {
        "numpy Generator.laplace": rate(lambda: rng.laplace(s, lam, size), n),
        "dpcheck laplace": rate(lambda: samplers.laplace(rng, s, lam, size), n),
        "dpcheck truncated (inverse CDF)": rate(
            lambda: samplers.truncated(rng, s, 0.0, 1.0, lam, size), n
        ),
        "dpcheck BIT (clamp)": rate(lambda: samplers.bit(rng, s, 0.0, 1.0, lam, size), n),
        "dpcheck truncated (rejection)": rate(
            lambda: samplers.truncated_rejection(rng, s, 0.0, 1.0, lam, size), n
        ),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=2_000_000, help="draws per timing")
    parser.add_argument("--calls", type=int, default=20_000, help="diffprivlib calls")
    args = parser.parse_args()
    n = args.n
    rng = np.random.default_rng(7)
    s_array = rng.random(n)
    for ratio in (1.0, 10.0):
        for shape, s, size in (("scalar s", 0.3, n), ("array of s", s_array, None)):
            rates = sampler_rates(rng, s, ratio, size, n)
            if shape == "scalar s":
                rates.update(diffprivlib_rates(ratio, args.calls))
            base = rates["numpy Generator.laplace"]
            print(f"\nlambda/R = {ratio:g}, {shape}, n = {n}")
            print(f"  {'sampler':<34}{'draws/s':>12}{'vs numpy laplace':>18}")
            for label, r in rates.items():
                print(f"  {label:<34}{r:>12.3g}{r / base:>17.2f}x")
            inv = rates["dpcheck truncated (inverse CDF)"]
            rejection = rates["dpcheck truncated (rejection)"]
            print(f"  truncated inverse CDF / rejection: {inv / rejection:.2f}x")
            if "diffprivlib truncated" in rates:
                print(
                    f"  truncated inverse CDF / diffprivlib randomise: "
                    f"{inv / rates['diffprivlib truncated']:.0f}x;  BIT / diffprivlib: "
                    f"{rates['dpcheck BIT (clamp)'] / rates['diffprivlib BIT']:.0f}x"
                )


if __name__ == "__main__":
    main()
