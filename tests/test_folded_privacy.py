"""The folded mechanism's privacy for any law on the line (dpcheck.laws.folded_privacy,
issue 35): the printed δ (the additive mechanism's, by post-processing) is never below the
hockey-stick divergence of any pair on a grid (every event, by quadrature of the folded
density summed over its reflections), and the printed lower value is attained (at most
its own pair's divergence)."""

from __future__ import annotations

import json
from fractions import Fraction as F

import mpmath
import pytest

from dpcheck.errors import InputError
from dpcheck.laws import folded_privacy, registry
from dpcheck.laws.folded_privacy import FoldedMechanism
from dpcheck.numeric import profile as P


def _density(base: str, y, s, scale, c0, width):  # type: ignore[no-untyped-def]
    total = mpmath.mpf(0)
    for k in range(-8, 9):  # further reflections weigh below e^-48 (scale <= 1), e^-288 (2)
        for x in (y + 2 * k * width, 2 * c0 - y + 2 * k * width):
            z = (x - s) / scale
            total += (mpmath.npdf(z) if base == "gaussian" else mpmath.exp(-abs(z)) / 2) / scale
    return total


def _hockey(base: str, eps: F, a: F, b: F, c0: int, c1: int, scale: F):  # type: ignore[no-untyped-def]
    """∫ (p_a - e^ε p_b)_+ over [c0, c1], split at the kinks and the sign changes."""
    with mpmath.workdps(20):
        e = mpmath.exp(mpmath.mpf(eps.numerator) / eps.denominator)
        am, bm = (mpmath.mpf(x.numerator) / x.denominator for x in (a, b))
        sc = mpmath.mpf(scale.numerator) / scale.denominator

        def diff(y):  # type: ignore[no-untyped-def]
            return (_density(base, y, am, sc, c0, c1 - c0)
                    - e * _density(base, y, bm, sc, c0, c1 - c0))

        cuts = mpmath.linspace(c0, c1, 61)
        roots = {mpmath.findroot(diff, (u, v), solver="anderson")
                 for u, v in zip(cuts, cuts[1:], strict=False) if diff(u) * diff(v) < 0}
        pts = sorted({*cuts, *(x for x in (am, bm) if c0 < x < c1)} | roots)
        return sum((mpmath.quad(diff, [u, v]) for u, v in zip(pts, pts[1:], strict=False)
                    if diff((u + v) / 2) > 0), mpmath.mpf(0))


@pytest.mark.parametrize("base, law, scale, eps", [
    ("gaussian", "gaussian", F(1), F(1, 2)),
    ("gaussian", "gaussian", F(2), F(1)),
    ("laplace", "laplace", F(1), F(1, 4)),
])
def test_the_folded_delta_brackets_every_edge_pair(base, law, scale, eps) -> None:
    c0, c1 = 0, 3
    mech = FoldedMechanism(registry.get(law), {registry.get(law).scale: scale}, F(c0), F(c1),
                           F(1))
    r = mech.delta(eps)
    edge = [F(i, 2) for i in range(5)]  # the pairs at the largest shift, both directions
    best = max(max(_hockey(base, eps, a, a + 1, c0, c1, scale),
                   _hockey(base, eps, a + 1, a, c0, c1, scale)) for a in edge)
    own = _hockey(base, eps, r.s, r.s_prime, c0, c1, scale)
    assert best <= r.upper * (1 + 1e-20)
    assert r.lower <= own * (1 + mpmath.mpf(10) ** -20)
    assert r.lower >= own * (1 - 1e-3)  # the grid of half-lines nearly attains its pair's
    assert r.kind.startswith("upper bound by post-processing")


def test_mutating_the_post_processing_shift_is_noticed(monkeypatch) -> None:
    """The additive bound taken at half the shift is below the grid's best pair."""
    law = registry.get("gaussian")
    mech = FoldedMechanism(law, {law.scale: F(1)}, F(0), F(3), F(1))
    monkeypatch.setattr(FoldedMechanism, "step", property(lambda self: F(1, 2)))
    r = mech.delta(F(1, 2))
    best = max(_hockey("gaussian", F(1, 2), a, a + 1, 0, 3, F(1)) for a in (F(0), F(1), F(2)))
    assert best > r.upper


def test_epsilon_of_delta_brackets_the_lower_and_upper_values() -> None:
    law = registry.get("laplace")
    mech = FoldedMechanism(law, {law.scale: F(2)}, F(0), F(5), F(1))
    e = mech.epsilon(F(1, 1000))
    assert 0 < e.lower_value < e.upper_value
    assert F(e.upper_value) == F(P._round_up(mech.additive.epsilon(F(1, 1000)).upper_value))
    # the lower value is violated by an attained event; the upper one is the additive bound
    assert not P._le(mech._attained(F(e.lower_value))[0], F(1, 1000))


def test_a_lattice_law_is_refused_in_one_line() -> None:
    law = registry.get("discrete-laplace")
    with pytest.raises(InputError, match="folding is defined for laws on the real line"):
        FoldedMechanism(law, {law.scale: F(1)}, F(0), F(5), F(1))


def test_the_cli_gives_a_folded_gaussian(capsys) -> None:
    from dpcheck.cli import main

    code = main(["privacy", "folded-gaussian", "--sensitivity", "1", "--lower", "0",
                 "--upper", "5", "--scale", "1", "--epsilon", "1", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0
    # the additive Gaussian's δ(1) at σ = 1 (Balle and Wang): its printed upper bound
    assert data["delta"] == "0.1269367375067"
    assert F(data["delta lower"]) <= F(data["delta"])


def test_the_named_folded_laplace_is_this_engine() -> None:
    nb = P.neighbours("folded-laplace", 1, 0, 5, 2)
    assert isinstance(P.mechanism_of(nb), FoldedMechanism)
    assert folded_privacy.FoldedMechanism is FoldedMechanism


@pytest.mark.parametrize("base, scale, c1, shift", [
    ("laplace", F(1, 10), 1, F(1, 2)),
    ("laplace", F(2), 5, F(1)),
    ("gaussian", F(1), 3, F(1)),
])
def test_the_pure_epsilon_lower_value_is_attained(base, scale, c1, shift) -> None:
    """The printed lower value of the pure ε is the log probability ratio of the printed
    pair and half-line event: recomputed by quadrature of the folded density over the
    event, it is at least the printed (rounded-down) value; it was 0 before (issue 35)."""
    law = registry.get(base)
    pure = FoldedMechanism(law, {law.scale: scale}, F(0), F(c1), shift).pure_epsilon()
    d = pure.as_dict()
    lower = F(d["pure epsilon lower"])
    assert 0 < lower and (pure.upper_value == mpmath.inf or lower <= pure.upper_value)
    where = d["attained at"]
    a, b = F(where["s"]), F(where["s'"])
    side, t = where["event"].split()[1:]
    t = F(t)
    with mpmath.workdps(30):
        def mass(s):  # type: ignore[no-untyped-def]
            sm = mpmath.mpf(s.numerator) / s.denominator
            ends = [0, t] if side == "<=" else [t, c1]
            ends = [mpmath.mpf(x.numerator) / x.denominator if isinstance(x, F) else x
                    for x in ends]
            return mpmath.quad(lambda y: _density(base, y, sm, scale, 0, c1), ends)

        ratio = mpmath.log(mass(a) / mass(b))
    assert ratio >= mpmath.mpf(lower.numerator) / lower.denominator * (1 - mpmath.mpf(10) ** -20)
    if base == "laplace" and scale == F(1, 10):
        assert lower > F(49, 10)  # the additive bound 5 is nearly attained at c0
