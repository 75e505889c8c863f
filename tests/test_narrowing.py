"""The guided narrowing of a certified bracket (:mod:`dpcheck.laws.narrowing`), which ε(δ)
and calibration share: the bracket always holds the root (every end is a decision), the
estimates only save probes."""

from __future__ import annotations

import math
from fractions import Fraction as F

from hypothesis import given, settings
from hypothesis import strategies as st

from dpcheck.laws.narrowing import narrow

RTOL = F(1, 10**14)


def _judge(root: F, noise: float = 1.0, gaps: bool = True, seed: int = 0):  # type: ignore[no-untyped-def]
    """A decision "x >= root" with the gap log-like estimate -(x - root), its magnitude
    scaled by a factor in [1/noise, noise] (signs always right, as a certified search's)."""
    import random

    rng = random.Random(seed)
    calls: list[F] = []

    def judge(x: F) -> tuple[bool | None, float]:
        calls.append(x)
        gap = float(root - x) * (noise ** rng.uniform(-1, 1)) if gaps else math.nan
        return x >= root, gap

    return judge, calls


@settings(max_examples=200, deadline=None)
@given(st.fractions(min_value=F(1, 1000), max_value=F(999, 1000)),
       st.floats(min_value=1.0, max_value=100.0), st.integers(0, 2**32), st.booleans())
def test_the_bracket_holds_the_root_and_closes(root, noise, seed, gaps) -> None:
    judge, calls = _judge(root, noise, gaps, seed)
    lo, hi, probes = narrow(F(0), F(1), RTOL, judge, 1.0 if gaps else math.nan,
                            -1.0 if gaps else math.nan)
    assert lo < root <= hi
    assert hi - lo <= RTOL * hi
    assert probes == len(calls) <= 200


def test_good_estimates_take_a_few_probes_and_none_take_bisections() -> None:
    """Mutation of the guide: exact gaps close a 1e-14 bracket in a handful of probes,
    without gaps it is bisection (47 probes); a guide that ignored the gaps would not."""
    root = F(1, 3)
    judge, _ = _judge(root)
    _, _, guided = narrow(F(0), F(1), RTOL, judge, 1 / 3, -2 / 3)
    judge, _ = _judge(root, gaps=False)
    _, _, plain = narrow(F(0), F(1), RTOL, judge)
    assert guided <= 8
    assert plain >= math.log2(1 / (3 * RTOL))  # one bit per probe


def test_an_undecided_probe_stops_the_narrowing() -> None:
    def judge(x: F) -> tuple[bool | None, float]:
        return None, math.nan

    lo, hi, probes = narrow(F(0), F(1), RTOL, judge)
    assert (lo, hi, probes) == (F(0), F(1), 1)
