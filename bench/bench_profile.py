"""Time of a privacy profile δ(ε) and of a calibration for each mechanism (issue 19).

Prints, per mechanism (sensitivity 1, bounds [0, 10], scale 1, ε = 1, δ = 1e-6), the
seconds of :func:`delta_for_epsilon`, of :func:`epsilon_for_delta` and of
:func:`calibrate`, and the ratio calibration / profile measured in the same run.
Every mechanism goes through the law engine (:func:`dpcheck.numeric.profile.mechanism_of`,
issue 35); the folded one's calibration included.
"""

from __future__ import annotations

import argparse
import time
from fractions import Fraction

from dpcheck.numeric import profile as P
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
        out: dict[str, object] = {}
        t_prof = _time(lambda nb=nb, out=out: out.update(p=P.delta_for_epsilon(nb, eps)))
        t_inv = _time(lambda nb=nb: P.epsilon_for_delta(nb, delta))
        t_cal = _time(lambda nb=nb: P.calibrate(nb, eps, delta))
        kind = str(out["p"].kind).split(" (")[0]  # type: ignore[attr-defined]
        print(
            f"{mech:<20}{t_prof:>14.3f}{t_inv:>14.3f}{t_cal:>13.3f}{t_cal / t_prof:>13.1f}  {kind}"
        )


if __name__ == "__main__":
    main()
