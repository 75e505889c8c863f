"""Privacy profiles (issue 19) against two more independent routes.

* **Exact rationals** for the discrete mechanisms: with α = e^{-1/b} rational the
  clamped and truncated two-sided geometric laws are rational, so each pair's
  hockey-stick divergence is A - e^ε·B with A, B exact fractions (the event
  {p_s > e^ε p_s'} decided in ball arithmetic, python-flint's arb), and the pure
  epsilon is the log of an exact rational.  Every pair of neighbours is enumerated:
  no half-line argument, no stochastic order, no SymPy.
* **Sampling**: draws of M(s) and M(s') by plain numpy (base noise, then rejection for
  truncation or np.clip for clamping; not dpcheck's samplers) estimate P_s(E) - e^ε P_s'(E)
  at the worst pair and event dpcheck prints; Clopper-Pearson bounds (four one-sided,
  2.5e-7 each: a correct implementation fails with probability <= 1e-6) must contain
  dpcheck's value, and are sized to exclude a value 10% off.
* The public API (``dpcheck.mechanism(...).delta`` etc.) is the same engine.
"""

from __future__ import annotations

import math
import re
import sys
from fractions import Fraction as F

import flint
import mpmath
import numpy as np
import pytest
from scipy import stats

import dpcheck
import dpcheck.errors
from dpcheck.numeric import profile as P

sys.path.insert(0, __file__.rsplit("/", 1)[0])
import reference_privacy as R  # noqa: E402

# ---------------------------------------------------------------------- exact rationals


def _geometric_law(mech: str, alpha: F, s: int, c0: int, c1: int) -> dict[int, F]:
    """P(Y = k) exactly: two-sided geometric (1-α)/(1+α) α^|k-s|, then bounded.

    Tails by the geometric series: P(X <= -m) = P(X >= m) = α^m / (1+α) for m >= 0."""
    norm = (1 - alpha) / (1 + alpha)
    inner = {k: norm * alpha ** abs(k - s) for k in range(c0, c1 + 1)}
    if mech == "truncated-geometric":
        z = sum(inner.values())
        return {k: v / z for k, v in inner.items()}
    inner[c0] = alpha ** (s - c0) / (1 + alpha)
    inner[c1] = alpha ** (c1 - s) / (1 + alpha)
    return inner


def _arb(q: F) -> flint.arb:
    return flint.arb(q.numerator) / q.denominator


def _exact_hockey(p: dict[int, F], q: dict[int, F], eps: F) -> tuple[F, F]:
    """(A, B) with H_ε = A - e^ε B: the event {k : p_k > e^ε q_k}, each decided in arb."""
    e = flint.arb(eps.numerator).__truediv__(eps.denominator).exp()
    a = b = F(0)
    for k in p:
        if eps == 0:
            above = p[k] > q[k]
        else:  # p/q = e^ε is impossible for rational ε != 0 (Lindemann): arb decides
            ratio = _arb(p[k] / q[k])
            above = bool(ratio > e)
            assert above or bool(ratio < e), (k, p[k], q[k])
        if above:
            a, b = a + p[k], b + q[k]
    return a, b


def _exact_profile(mech, alpha, c0, c1, sens, eps):
    """max over neighbours (both orders) of A - e^ε B, as an mpf at 50 digits, and the pair."""
    laws = {s: _geometric_law(mech, alpha, s, c0, c1) for s in range(c0, c1 + 1)}
    best, pair = mpmath.mpf(0), None
    with mpmath.workdps(50):
        e = mpmath.exp(mpmath.mpf(eps.numerator) / eps.denominator)
        for s in laws:
            for s2 in laws:
                if 0 < abs(s - s2) <= sens:
                    a, b = _exact_hockey(laws[s], laws[s2], eps)
                    v = mpmath.mpf(a.numerator) / a.denominator - e * (
                        mpmath.mpf(b.numerator) / b.denominator
                    )
                    if v > best:
                        best, pair = v, (s, s2)
    return best, pair, laws


def _engine_scale(alpha: F) -> F:
    """b with e^{-1/b} = α, to float64 precision (the engine takes the scale b)."""
    return F(-1 / math.log(alpha))


@pytest.mark.parametrize("mech", ["clamped-geometric", "truncated-geometric"])
@pytest.mark.parametrize(
    "alpha, c0, c1, sens",
    [(F(1, 2), 0, 5, 1), (F(2, 3), -3, 9, 2), (F(9, 10), 0, 12, 3), (F(1, 3), 2, 4, 5)],
)
@pytest.mark.parametrize("eps", [F(0), F(1, 4), F(1)])
def test_geometric_profile_against_exact_rationals(mech, alpha, c0, c1, sens, eps) -> None:
    exact, pair, laws = _exact_profile(mech, alpha, c0, c1, sens, eps)
    nb = P.neighbours(mech, sens, c0, c1, _engine_scale(alpha))
    r = P.delta_for_epsilon(nb, eps)
    # the engine's α differs from the rational one by float64 rounding of b only
    assert abs(r.lower - exact) <= 1e-12 * exact + 1e-30, (r.as_dict(), exact, pair)
    assert r.upper >= exact * (1 - 1e-12)
    if exact > 0:  # the engine's pair attains the exact maximum
        a, b = _exact_hockey(laws[int(r.s)], laws[int(r.s_prime)], eps)
        with mpmath.workdps(50):
            at_pair = mpmath.mpf(a.numerator) / a.denominator - mpmath.exp(
                mpmath.mpf(eps.numerator) / eps.denominator
            ) * (mpmath.mpf(b.numerator) / b.denominator)
        assert abs(at_pair - exact) <= 1e-12 * exact


@pytest.mark.parametrize("mech", ["clamped-geometric", "truncated-geometric"])
@pytest.mark.parametrize("alpha, c0, c1, sens", [(F(1, 2), 0, 5, 1), (F(2, 3), -3, 9, 2)])
def test_geometric_pure_epsilon_is_the_log_of_an_exact_ratio(mech, alpha, c0, c1, sens) -> None:
    laws = {s: _geometric_law(mech, alpha, s, c0, c1) for s in range(c0, c1 + 1)}
    worst = max(
        laws[s][k] / laws[s2][k]
        for s in laws
        for s2 in laws
        if 0 < abs(s - s2) <= sens
        for k in laws[s]
    )
    with mpmath.workdps(50):
        exact = mpmath.log(mpmath.mpf(worst.numerator) / worst.denominator)
    pure = P.pure_epsilon(P.neighbours(mech, sens, c0, c1, _engine_scale(alpha)))
    assert abs(pure.lower - exact) <= 1e-12 * exact
    assert pure.upper >= exact * (1 - 1e-12)


def test_the_exact_route_notices_a_wrong_bound_mass() -> None:
    """Mutation: moving α^m/(1+α) off the bound changes the exact profile by far more
    than the tolerance above, so a wrong point mass in the engine would be caught."""
    alpha, c0, c1 = F(1, 2), 0, 5
    right = _geometric_law("clamped-geometric", alpha, 0, c0, c1)
    wrong = dict(right)
    wrong[c0] = right[c0] - alpha / (1 + alpha) ** 2
    wrong[c0 + 1] = right[c0 + 1] + alpha / (1 + alpha) ** 2
    q = _geometric_law("clamped-geometric", alpha, 1, c0, c1)
    a1, b1 = _exact_hockey(right, q, F(1, 4))
    a2, b2 = _exact_hockey(wrong, q, F(1, 4))
    v1 = float(a1) - math.exp(0.25) * float(b1)
    v2 = float(a2) - math.exp(0.25) * float(b2)
    assert abs(v1 - v2) > 1e-3 * v1


# ---------------------------------------------------------------------- sampling

DRAWS = 4_000_000
ALPHA_EACH = 2.5e-7  # four one-sided Clopper-Pearson bounds: <= 1e-6 in all


def _draw(mech: str, rng: np.random.Generator, s: float, c0, c1, scale: float) -> np.ndarray:
    """DRAWS outputs of M(s): numpy's base noise, then rejection (truncated) or np.clip."""
    bounding, _, base = mech.rpartition("-")

    def base_draws(n: int) -> np.ndarray:
        if base == "laplace":
            return s + rng.laplace(0.0, scale, n)
        if base == "gaussian":
            return s + rng.normal(0.0, scale, n)
        alpha = math.exp(-1 / scale)  # two-sided geometric: a difference of geometrics
        return s + (rng.geometric(1 - alpha, n) - rng.geometric(1 - alpha, n))

    if bounding == "":
        return base_draws(DRAWS)
    if bounding == "clamped":
        return np.clip(base_draws(DRAWS), c0, c1)
    kept: list[np.ndarray] = []
    total = 0
    while total < DRAWS:
        x = base_draws(DRAWS)
        x = x[(x >= c0) & (x <= c1)]
        kept.append(x)
        total += x.size
    return np.concatenate(kept)[:DRAWS]


def _clopper_pearson(k: int, n: int) -> tuple[float, float]:
    low = 0.0 if k == 0 else float(stats.beta.ppf(ALPHA_EACH, k, n - k + 1))
    high = 1.0 if k == n else float(stats.beta.ppf(1 - ALPHA_EACH, k + 1, n - k))
    return low, high


@pytest.mark.parametrize(
    "mech, c0, c1, scale, eps, seed",
    [
        ("gaussian", None, None, F(1), F(1), 1),
        ("laplace", None, None, F(1), F(1, 2), 2),
        ("truncated-laplace", 0, 10, F(1), F(1, 2), 3),
        ("clamped-laplace", 0, 10, F(1), F(1, 2), 4),
        ("truncated-gaussian", 0, 3, F(1, 2), F(1, 2), 5),
        ("clamped-gaussian", 0, 3, F(1), F(1, 2), 6),
        ("clamped-geometric", 0, 10, F(1), F(1, 2), 7),
        ("truncated-geometric", 0, 10, F(1), F(1, 2), 8),
    ],
)
def test_profile_at_the_worst_pair_against_sampling(mech, c0, c1, scale, eps, seed) -> None:
    r = P.delta_for_epsilon(P.neighbours(mech, 1, c0, c1, scale), eps)
    match = re.fullmatch(r"Y (<=|>=) (\S+)", r.event)
    assert match, r.event
    t = float(F(match.group(2)))
    rng = np.random.default_rng(seed)
    y = _draw(mech, rng, float(r.s), c0, c1, float(scale))
    y2 = _draw(mech, rng, float(r.s_prime), c0, c1, float(scale))
    inside = (lambda v: v <= t) if match.group(1) == "<=" else (lambda v: v >= t)
    lo1, hi1 = _clopper_pearson(int(np.count_nonzero(inside(y))), DRAWS)
    lo2, hi2 = _clopper_pearson(int(np.count_nonzero(inside(y2))), DRAWS)
    e = math.exp(float(eps))
    low, high = lo1 - e * hi2, hi1 - e * lo2
    value = float(r.lower)
    assert low <= value <= high, (mech, low, value, high)
    # sized so that a value 10% off would fall outside the band
    assert high - low < 0.1 * value, (high - low, value)


# ---------------------------------------------------------------------- the public API


def test_the_api_is_the_engine() -> None:
    m = dpcheck.mechanism("truncated-gaussian")
    nb = P.neighbours("truncated-gaussian", F(1, 2), 0, 1, F(7, 10))
    got = m.delta(0.25, sensitivity=0.5, lower=0, upper=1, scale=0.7)
    assert got.as_dict() == P.delta_for_epsilon(nb, F(1, 4)).as_dict()
    g = dpcheck.mechanism("gaussian")
    e = g.epsilon(1e-6, sensitivity=1, scale=1)  # a float is read as the decimal it shows
    assert e.delta == F(1, 10**6)
    nb_gauss = P.neighbours("gaussian", 1, scale=1)
    assert e.as_dict() == P.epsilon_for_delta(nb_gauss, e.delta).as_dict()
    assert str(g.pure_epsilon(sensitivity=1, scale=1).upper) == "+inf"
    bit = dpcheck.mechanism("bit").pure_epsilon(sensitivity=1, lower=0, upper=10, scale=1)
    assert bit.as_dict()["pure epsilon"] == "1.0"
    cal = dpcheck.mechanism("clamped-geometric").calibrate(1, sensitivity=1, lower=0, upper=10)
    assert cal.minimal and P.pure_epsilon(
        P.neighbours("clamped-geometric", 1, 0, 10, cal.scale)
    ).upper <= 1
    with pytest.raises(dpcheck.errors.InputError, match="delta=1 must lie in"):
        g.epsilon(1.0, sensitivity=1, scale=1)
    with pytest.raises(dpcheck.errors.InputError, match="unbounded"):
        g.delta(1, sensitivity=1, scale=1, lower=0)


def test_api_export_composes_like_dp_accounting() -> None:
    """The issue's composition test, through the public method: k-fold compositions agree
    with dp_accounting's own Laplace PLD to the discretisation (losses rounded up to
    multiples of 1e-4, so k compositions move δ by well under 1e-3 relative)."""
    pld = pytest.importorskip("dp_accounting.pld.privacy_loss_distribution")
    exported = dpcheck.mechanism("laplace").to_dp_accounting(sensitivity=1, scale=1)
    own = pld.from_laplace_mechanism(1.0)
    for k in (1, 3, 8):
        a = exported.self_compose(k) if k > 1 else exported
        b = own.self_compose(k) if k > 1 else own
        for eps in (0.5, 1.0, 2.0):
            da, db = a.get_delta_for_epsilon(eps), b.get_delta_for_epsilon(eps)
            assert abs(da - db) <= 1e-3 * db + 1e-12, (k, eps, da, db)
    truth = P.delta_for_epsilon(P.neighbours("laplace", 1, scale=1), F(1, 2)).lower
    assert exported.get_delta_for_epsilon(0.5) >= truth * (1 - 1e-12)  # the safe side
    with pytest.raises(dpcheck.errors.InputError, match="unbounded mechanisms"):
        dpcheck.mechanism("clamped-laplace").to_dp_accounting(
            sensitivity=1, scale=1, lower=0, upper=10
        )


# ---------------------------------------------------------------------- ball arithmetic


@pytest.mark.parametrize(
    "mech, c0, c1",
    [("truncated-gaussian", 0, 3), ("clamped-gaussian", 0, 3), ("truncated-laplace", 0, 3),
     ("clamped-geometric", 0, 6), ("truncated-geometric", 0, 6)],
)
def test_the_attained_value_is_the_pairs_divergence(mech, c0, c1) -> None:
    """The printed ``delta lower`` is attained: it is at most the hockey-stick divergence of
    the printed pair (every event, by quadrature split at its sign changes or by summation,
    at 40 digits: tests/reference_privacy.py) and, the half-line being that pair's optimal
    event, within 1e-12 of it."""
    nb = P.neighbours(mech, 1, c0, c1, F(1))
    r = P.delta_for_epsilon(nb, F(1, 2))
    with mpmath.workdps(40):
        h = R.hockey(mech, F(1, 2), r.s, r.s_prime, c0, c1, 1)
        assert r.lower <= h * (1 + mpmath.mpf(10) ** -30)
    assert r.lower >= h * (1 - 1e-12)
    assert r.upper >= r.lower


# ---------------------------------------------------------------------- the folded Laplace


def test_folded_delta_is_never_below_the_best_event_of_any_pair() -> None:
    """The folded Laplace's printed δ (post-processing: the Laplace mechanism's) is never
    below sup over every event (not only half-lines) of a grid of pairs, by quadrature of
    (p_s - e^ε p_s')_+ with the folded density summed over reflections; its ``delta
    lower`` is at most that supremum at its own pair."""
    c0, c1, eps = 0, 3, F(1, 2)
    nb = P.neighbours("folded-laplace", 1, c0, c1, 1)
    r = P.delta_for_epsilon(nb, eps)
    with mpmath.workdps(15):
        width = mpmath.mpf(c1 - c0)
        e = mpmath.exp(mpmath.mpf(eps.numerator) / eps.denominator)

        def density(y, s):
            total = mpmath.mpf(0)
            for k in range(-4, 5):  # further reflections weigh below e^-24
                for x in (y + 2 * k * width, 2 * c0 - y + 2 * k * width):
                    total += mpmath.exp(-abs(x - s)) / 2
            return total

        def hockey(s: F, s2: F):
            a = mpmath.mpf(s.numerator) / s.denominator
            b = mpmath.mpf(s2.numerator) / s2.denominator
            return mpmath.quad(
                lambda y: max(density(y, a) - e * density(y, b), 0),
                [0, min(a, b), max(a, b), 3],
            )

        grid = [F(i, 2) for i in range(7)]
        pairs = [(s, s2) for s in grid for s2 in grid if 0 < abs(s - s2) <= 1]
        best = max(hockey(s, s2) for s, s2 in pairs)
    with mpmath.workdps(30):  # the printed pair's own, split at the sign changes
        a = mpmath.mpf(r.s.numerator) / r.s.denominator
        b = mpmath.mpf(r.s_prime.numerator) / r.s_prime.denominator
        e = mpmath.exp(mpmath.mpf(eps.numerator) / eps.denominator)

        def diff(y):
            return density(y, a) - e * density(y, b)

        cuts = mpmath.linspace(0, 3, 301)
        roots = {mpmath.findroot(diff, (u, v), solver="anderson")
                 for u, v in zip(cuts, cuts[1:], strict=False) if diff(u) * diff(v) < 0}
        pts = sorted({*cuts, a, b} | roots)
        own = sum((mpmath.quad(diff, [u, v]) for u, v in zip(pts, pts[1:], strict=False)
                   if diff((u + v) / 2) > 0), mpmath.mpf(0))
    assert float(max(best, own)) <= float(r.upper) * (1 + 1e-9)
    assert r.lower <= own * (1 + mpmath.mpf(10) ** -20)
    assert r.lower >= own * (1 - 1e-3)  # the grid of half-lines nearly attains it
    assert r.kind.startswith("upper bound by post-processing")
