"""Benchmark: throughput of every mechanism's sampler against numpy's own generators.

Run as ``python bench/bench_mechanisms_sampling.py [--n N]``.  In one process
and one run (best of 5 timings each) it measures draws per second of

* numpy's ``Generator.laplace``, ``Generator.normal`` and ``Generator.geometric``
  (the baselines; the two-sided geometric law's baseline is the difference of
  two ``Generator.geometric`` draws, the textbook construction of the same law,
  and the one-sided ``Generator.geometric`` is shown for reference), and
* :func:`dpcheck.sampling.mechanisms.sample` for each mechanism of
  :data:`dpcheck.numeric.names.MECHANISM_NAMES`,

and prints each sampler's ratio to the numpy generator of its base law, with
scalar parameters (one (s, c0, c1, scale) for all draws) and with an array of s
(one draw per s), at scale/R = 1 and at scale/R = 1e6 (the nearly-uniform
regime, where a naive inverse CDF cancels).
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

try:
    import dpcheck  # noqa: F401
except ImportError:  # a checkout without an install
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

import numpy as np

from dpcheck.numeric.names import BASES, MECHANISM_NAMES, parts
from dpcheck.sampling import mechanisms

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_samplers import rate as _rate  # noqa: E402  (the one timing helper of bench/)


def rate(fn, n: int, repeats: int = 5) -> float:
    """Draws per second, best of ``repeats`` (:func:`bench_samplers.rate`)."""
    return _rate(fn, n, repeats)


def numpy_rates(rng: np.random.Generator, s, scale: float, size, n: int) -> dict[str, float]:
    """The baselines: numpy's generators of the three base laws at the same parameters."""
    # success probability of the geometric with α = e^{-1/b}, b = 10·scale (R = 10)
    p = -math.expm1(-1.0 / (10.0 * scale))
    return {
        "laplace": rate(lambda: rng.laplace(s, scale, size), n),
        "gaussian": rate(lambda: rng.normal(s, scale, size), n),
        "geometric": rate(lambda: rng.geometric(p, size if size else np.shape(s)), n),
        "geometric (difference of two)": rate(
            lambda: s + rng.geometric(p, n) - rng.geometric(p, n), n
        ),
    }


def mechanism_rates(
    rng: np.random.Generator, base: str, s, scale: float, size, n: int
) -> dict[str, float]:
    """Draws per second of each mechanism of ``base`` (bounds [0, 1], or [0, 10] for geometric)."""
    out = {}
    for name in MECHANISM_NAMES:
        bounding, own = parts(name)
        if own != base:
            continue
        params = {"s": s, BASES[base]: scale}
        if bounding != "none":
            params.update(c0=0.0, c1=10.0 if base == "geometric" else 1.0)
        out[name] = rate(
            lambda name=name, params=params: mechanisms.sample(name, rng, size, **params), n
        )
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=2_000_000, help="draws per timing")
    args = parser.parse_args(argv)
    n = args.n
    rng = np.random.default_rng(7)
    s_unit = rng.random(n)
    s_int = np.floor(rng.random(n) * 11.0)
    for ratio in (1.0, 1e6):
        for shape in ("scalar s", "array of s"):
            size = n if shape == "scalar s" else None
            base_rates = numpy_rates(rng, 0.3 if size else s_unit, ratio, size, n)
            rates = {}
            for base in BASES:
                # geometric laws live on the integers: an integer s in [0, 10]
                s = (3.0 if size else s_int) if base == "geometric" else (0.3 if size else s_unit)
                scale = ratio * (10.0 if base == "geometric" else 1.0)
                rates.update(mechanism_rates(rng, base, s, scale, size, n))
            print(f"\nscale/R = {ratio:g}, {shape}, n = {n}")
            print(f"  {'sampler':<36}{'draws/s':>12}{'vs numpy':>12}  (numpy: the same law)")
            for label, r in base_rates.items():
                print(f"  {'numpy ' + label:<36}{r:>12.3g}")
            for name, r in rates.items():
                base = parts(name)[1]
                ref = base_rates["geometric (difference of two)" if base == "geometric" else base]
                print(f"  {'dpcheck ' + name:<36}{r:>12.3g}{r / ref:>11.2f}x  ({base})")
            one = base_rates["geometric"]
            print(
                f"  dpcheck geometric (two-sided) / numpy one-sided Generator.geometric:"
                f" {rates['geometric'] / one:.2f}x"
            )


if __name__ == "__main__":
    main()
