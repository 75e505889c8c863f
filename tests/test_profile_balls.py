"""The certified upper bound on δ(ε) (dpcheck.numeric.profile_balls, issue 19).

* The arb CDFs written there equal the *derived* CDF (SymPy, evaluated in arb by
  profile.pair_ball's route) at random points, extremes of scale included.
* A cell's bound is never below H_ε(s, s') for any s in the cell: checked against
  the attained value at the exact crossing of random pairs inside random cells;
  a mutated bound (the mean-value form without its gradient terms, or the
  stochastic-order pair not moved apart) is caught by the same check.
* The certified δ is never below the attained one nor below brute force, and closes
  to 10 digits where the edge has a single smooth or kinked maximum.
"""

from __future__ import annotations

import math
from fractions import Fraction as F

import flint
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dpcheck.numeric import profile as P
from dpcheck.numeric import profile_balls as B

CONTINUOUS = ["truncated-laplace", "clamped-laplace", "truncated-gaussian", "clamped-gaussian"]
SCALES = st.sampled_from(
    [F(1, 10**8), F(1, 1000), F(1, 10), F(1, 2), F(1), F(3), F(10**3), F(10**8)]
)


def _derived_cdf(nb: P.Neighbours, t: F, u: F) -> flint.arb:
    """F_u(t) by the derived CDF in arb (profile.pair_ball's route with ε = 0, s' = +∞ side)."""
    from dpcheck.numeric.mechanism_mp import _THETA, _Y
    from dpcheck.numeric.rigorous import arb_eval
    from dpcheck.symbolic.symbols import c0, c1
    from dpcheck.symbolic.symbols import s as s_sym

    below, above = P._cdf_exprs(nb.mechanism)
    env = {_Y: t, s_sym: u, c0: nb.lower, c1: nb.upper, _THETA: nb.scale}
    return arb_eval(below if t < u else above, env, 40)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    mech=st.sampled_from(CONTINUOUS),
    scale=SCALES,
    u=st.fractions(F(0), F(10), max_denominator=64),
    t=st.fractions(F(0), F(10), max_denominator=64),
)
def test_the_arb_cdf_is_the_derived_cdf(mech, scale, u, t) -> None:
    if t >= 10:
        t = F(99, 10)
    nb = P.neighbours(mech, 1, 0, 10, scale)
    with B._precision():
        mine = B.Balls(nb.bounding, nb.base, scale, F(0), F(0), F(10)).cdf(B._ball(t), B._ball(u))
        derived = _derived_cdf(nb, t, u)
        assert mine.overlaps(derived), (mine, derived)
        if derived.rad() < 1e-20 and abs(derived) > 1e-30:  # and tight, where the ball is
            assert mine.rad() < 1e-18 * abs(derived).upper() + 1e-300, (mine, derived)


def _h_at(nb: P.Neighbours, eps: F, s: F) -> float:
    """max over both directions of H_ε at (s, s + Δ): the attained value at the exact
    crossing (profile.pair_ball, with the crossing from the closed form)."""
    from dpcheck.numeric.profile_balls import Balls, _ball

    best = 0.0
    for a, b, mirrored in ((s, s + nb.step, False), (-s - nb.step, -s, True)):
        lo, hi = (nb.lower, nb.upper) if not mirrored else (-nb.upper, -nb.lower)
        with B._precision():
            balls = Balls(nb.bounding, nb.base, nb.scale, eps, lo, hi, nb.step)
            t = balls.crossing(_ball(a), _ball(b)).mid()
        man, ex = t.man_exp()
        tq = F(int(man)) * F(2) ** int(ex)
        tq = min(max(tq, lo), hi - F(1, 10**12))
        for cand in (tq, lo):
            if mirrored:
                v = P.pair_ball(nb, eps, -a, -b, -cand)
            else:
                v = P.pair_ball(nb, eps, a, b, cand)
            best = max(best, float(v.mid()))
    return best


def _cells_are_sound(mech, scale, eps, u, w, frac) -> bool:
    nb = P.neighbours(mech, 1, 0, 4, scale)
    v = min(u + w, F(3))
    s = u + (v - u) * frac
    bound = float(B.cell_bound(nb, eps, u, v))
    return bound >= _h_at(nb, eps, s) * (1 - 1e-12)


CELL_CASES = [
    (m, sc, e, F(i, 4), w, fr)
    for m in CONTINUOUS
    for sc, e in ((F(1, 2), F(1, 2)), (F(1), F(1, 4)), (F(1, 5), F(1)))
    for i in (0, 3, 6, 11)
    for w in (F(1, 2), F(1, 64))
    for fr in (F(1, 3), F(1))
]


@pytest.mark.parametrize("mech, scale, eps, u, w, frac", CELL_CASES[::3])
def test_a_cell_bound_covers_every_pair_in_the_cell(mech, scale, eps, u, w, frac) -> None:
    assert _cells_are_sound(mech, scale, eps, u, w, frac)


def test_a_mutated_cell_bound_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without its gradient terms the mean-value form is no bound; without moving the pair
    apart the stochastic-order bound is none either: the soundness check notices both."""

    def centre_only(self, s0, sbox, t0, tbox, moving_t):
        return self.phi(s0, t0)

    def not_apart(self, a, b):
        return original(self, a, a + self.step_q)

    original = B.Balls.pair
    for patch in (("_centred", centre_only), ("pair", not_apart)):
        with monkeypatch.context() as m:
            m.setattr(B.Balls, *patch)
            failures = sum(not _cells_are_sound(*case) for case in CELL_CASES)
        assert failures > 0, patch[0]


@pytest.mark.parametrize(
    "mech, c0, c1, scale, eps",
    [
        ("truncated-laplace", 0, 10, F(1), F(1, 2)),
        ("truncated-gaussian", 0, 3, F(1, 2), F(1, 2)),
        ("clamped-gaussian", 0, 3, F(1), F(1, 2)),
        ("clamped-laplace", 0, 10, F(2), F(1, 4)),
        ("truncated-laplace", 0, F(1, 2), F(1), F(1, 10)),
    ],
)
def test_certified_delta_closes(mech, c0, c1, scale, eps) -> None:
    r = P.delta_for_epsilon(P.neighbours(mech, 1, c0, c1, scale), eps)
    assert r.lower <= r.upper <= r.lower * (1 + 1e-10)
    # the label says what was established: the printed digits, or the bracket's width
    assert r.kind.startswith(
        ("exact to the digits shown (certified", "certified upper bound, within"))
    if r.kind.startswith("exact to the digits shown"):
        assert P._round_up(r.upper) == P._round_up(r.lower)


def test_a_plateau_is_reported_as_an_open_bracket() -> None:
    """Truncated Gaussian on [0, 10], σ = 1: δ along the edge is flat to ~1e-5 in the
    middle; the certified bracket does not close within the budget and says so."""
    r = P.delta_for_epsilon(P.neighbours("truncated-gaussian", 1, 0, 10, 1), F(1))
    assert r.upper > r.lower * (1 + 1e-10)
    assert r.upper < r.lower * (1 + 1e-3)
    assert "not closed" in r.kind
    # never below the analytic value at the middle pair (s = 4.5, s' = 5.5)
    assert float(r.upper) >= _h_at(P.neighbours("truncated-gaussian", 1, 0, 10, 1), F(1), F(9, 2))


@pytest.mark.parametrize("mech", CONTINUOUS)
def test_extreme_scales_stay_certified(mech) -> None:
    for scale in (F(1, 10**8), F(10**8)):
        nb = P.neighbours(mech, F(1, 2), 0, 1, scale)
        r = P.delta_for_epsilon(nb, F(1, 2))
        assert r.lower <= r.upper and math.isfinite(float(r.upper))
        assert r.upper <= 1


# ---------------------------------------------------------------------- pure epsilon


def _truncated_gaussian_log_ratio(a, d, c0, c1, sigma):
    """log p_a(c0)/p_{a+d}(c0), written plainly (mpmath, 60 digits)."""
    import mpmath

    with mpmath.workdps(60):
        a, d, c0, c1, sigma = (
            mpmath.mpf(x.numerator) / x.denominator for x in (a, d, c0, c1, sigma)
        )

        def log_z(u):
            return mpmath.log(mpmath.ncdf((c1 - u) / sigma) - mpmath.ncdf((c0 - u) / sigma))

        b = a + d
        return ((c0 - b) ** 2 - (c0 - a) ** 2) / (2 * sigma**2) + log_z(b) - log_z(a)


@settings(max_examples=25, deadline=None)
@given(
    scale=st.sampled_from([F(1, 10**8), F(1, 100), F(1, 3), F(1), F(7), F(10**4)]),
    width=st.sampled_from([F(1, 2), F(1), F(3), F(40)]),
    sens=st.sampled_from([F(1, 4), F(1), F(5)]),
)
def test_truncated_gaussian_pure_epsilon_against_a_grid(scale, width, sens) -> None:
    """The certified pure ε is never below the plain log ratio at any grid pair on the edge
    (both bounds held by the engine), and the attained value is that log ratio."""
    nb = P.neighbours("truncated-gaussian", sens, 0, width, scale)
    pure = P.pure_epsilon(nb)
    d = nb.step
    grid = [F(0) + (width - d) * F(i, 16) for i in range(17)]
    best = max(_truncated_gaussian_log_ratio(a, d, F(0), width, scale) for a in grid)
    assert float(pure.upper) >= float(best) * (1 - 1e-12) - 1e-300
    at = F(pure.pair["s"])
    assert abs(pure.lower - _truncated_gaussian_log_ratio(at, d, F(0), width, scale)) <= (
        1e-12 * abs(pure.lower) + 1e-300
    )
    assert pure.lower <= pure.upper
