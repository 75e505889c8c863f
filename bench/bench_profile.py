"""Time of a privacy profile δ(ε) and of a calibration for each mechanism (issue 19).

Prints, per mechanism (sensitivity 1, bounds [0, 10], scale 1, ε = 1, δ = 1e-6), the
seconds of :func:`delta_for_epsilon`, of :func:`epsilon_for_delta` and of
:func:`calibrate`, and the ratio calibration / profile measured in the same run.
A second table, for the bounded continuous mechanisms at ε = 1/2: the float64 search
for the worst pair (a guide, used by the plots) against the ball-arithmetic
branch-and-bound that certifies δ(ε) (:func:`profile_balls.certified_delta`: an upper
bound over every cell of the edge and an attained pair in each), with their ratio, the
cells it took and whether the bracket closed to 1e-14.
"""

from __future__ import annotations

import argparse
import time
from fractions import Fraction

from dpcheck.numeric import profile as P
from dpcheck.numeric import profile_balls as B
from dpcheck.numeric.names import MECHANISM_NAMES


def _time(fn) -> float:  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--mechanisms", nargs="+", default=list(MECHANISM_NAMES), metavar="NAME",
        help="the mechanisms of both tables (default: all; CI runs a few, to keep it running)",
    )
    chosen = parser.parse_args().mechanisms
    unknown = sorted(set(chosen) - set(MECHANISM_NAMES))
    if unknown:
        parser.error(f"unknown mechanism {unknown[0]!r} (expected: {', '.join(MECHANISM_NAMES)})")
    eps, delta = Fraction(1), Fraction(1, 10**6)
    print(
        f"{'mechanism':<20}{'delta(eps) s':>14}{'eps(delta) s':>14}{'calibrate s':>13}"
        f"{'cal/profile':>13}  kind of delta"
    )
    for mech in (m for m in MECHANISM_NAMES if m in chosen):
        bounded = "-" in mech
        nb = P.neighbours(mech, 1, 0 if bounded else None, 10 if bounded else None, 1)
        if mech == "folded-laplace":
            continue  # lower bounds only; no calibration
        out: dict[str, object] = {}
        t_prof = _time(lambda nb=nb, out=out: out.update(p=P.delta_for_epsilon(nb, eps)))
        t_inv = _time(lambda nb=nb: P.epsilon_for_delta(nb, delta))
        t_cal = _time(lambda nb=nb: P.calibrate(nb, eps, delta))
        kind = str(out["p"].kind).split(" (")[0]  # type: ignore[attr-defined]
        print(
            f"{mech:<20}{t_prof:>14.3f}{t_inv:>14.3f}{t_cal:>13.3f}{t_cal / t_prof:>13.1f}  {kind}"
        )
    print()
    print(f"{'mechanism':<20}{'search s':>10}{'certify s':>11}{'ratio':>8}{'cells':>7}  closed")
    half = Fraction(1, 2)
    continuous = ("truncated-laplace", "clamped-laplace", "truncated-gaussian", "clamped-gaussian")
    for mech in (m for m in continuous if m in chosen):
        nb = P.neighbours(mech, 1, 0, 10, 1)
        got: dict[str, object] = {}
        t_search = _time(
            lambda nb=nb, got=got: got.update(f=P.search(nb, 0.5, budget=P.SEARCH_BUDGET))
        )
        t_cert = _time(
            lambda nb=nb, got=got: got.update(c=B.certified_delta(nb, half))
        )
        found = got["c"]
        print(
            f"{mech:<20}{t_search:>10.3f}{t_cert:>11.3f}{t_cert / t_search:>8.2f}"
            f"{found.cells:>7}  {found.closed}"  # type: ignore[attr-defined]
        )


if __name__ == "__main__":
    main()
