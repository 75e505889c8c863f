"""δ(ε) of a truncated or clamped noise law, any log-concave law (dpcheck.laws.bounded_privacy).

Three independent routes:

* on the lattice, brute force: every neighbouring pair of inputs and, for each, the
  hockey-stick sum Σ_y max(0, p_s(y) - e^ε p_s'(y)) over every output, from the pmf
  summed directly in mpmath at 50 digits (no CDF, no crossing, no edge argument);
* on the line, the numbers of the profile engine issue 35 deleted (closed-form crossings
  per base, a float64 search and its own ball certification), recorded before its
  deletion (tests/profile_before.py) -- the before/after check of the migration;
* on the line, mpmath quadrature of max(0, p_s - e^ε p_s') (plus the clamped atoms) on a
  grid of pairs: no pair may exceed the certified upper bound, and the printed worst
  pair's quadrature value must lie in the certified bracket.
"""

from __future__ import annotations

import json
import math
import sys
from fractions import Fraction as F

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpcheck.cli import main
from dpcheck.errors import InputError
from dpcheck.laws import bounded_privacy, registry
from dpcheck.laws.bounded_privacy import BoundedMechanism, _simplest

sys.path.insert(0, __file__.rsplit("/", 1)[0])
import profile_before as before_engine  # noqa: E402

# ---------------------------------------------------------------- lattice: brute force


def _mp(x: F) -> mpmath.mpf:
    return mpmath.mpf(x.numerator) / x.denominator


def _pmf(name: str, scale: F):
    scale = _mp(scale)
    if name == "discrete-laplace":
        return lambda k: mpmath.exp(-abs(k) / scale)
    return lambda k: mpmath.exp(-mpmath.mpf(k) ** 2 / (2 * scale**2))


def output_laws(name: str, scale: F, bounding: str, c0: int, c1: int):
    """{s: {y: P(Y_s = y)}} for every integer input s in [c0, c1], summed directly."""
    kern = _pmf(name, scale)
    n = 80 + int(80 * scale)  # the tails beyond are below e^-80 of the total
    total = mpmath.fsum(kern(k) for k in range(-n, n + 1))

    def law(s: int) -> dict[int, mpmath.mpf]:
        p = {y: kern(y - s) / total for y in range(c0, c1 + 1)}
        if bounding == "truncated":
            z = mpmath.fsum(p.values())
            return {y: v / z for y, v in p.items()}
        p[c0] += mpmath.fsum(kern(y - s) for y in range(c0 - n - abs(s), c0)) / total
        p[c1] += mpmath.fsum(kern(y - s) for y in range(c1 + 1, c1 + n + abs(s) + 1)) / total
        return p

    return {s: law(s) for s in range(c0, c1 + 1)}


def brute_force(name: str, scale: F, bounding: str, c0: int, c1: int, d: int, eps: F):
    """max over integer pairs |s - s'| <= d in [c0, c1] of the hockey-stick sum."""
    with mpmath.workdps(50):
        laws = output_laws(name, scale, bounding, c0, c1)
        e = mpmath.exp(_mp(eps))
        best = mpmath.mpf(0)
        for s in laws:
            for t in laws:
                if 0 < abs(s - t) <= d:
                    best = max(best, mpmath.fsum(max(0, laws[s][y] - e * laws[t][y])
                                                 for y in laws[s]))
        return best


def _check_bracket(profile_: object, reference: mpmath.mpf) -> None:
    with mpmath.workdps(50):
        assert profile_.lower <= reference * (1 + mpmath.mpf(10) ** -30) + mpmath.mpf(10) ** -40
        assert reference <= profile_.upper * (1 + mpmath.mpf(10) ** -30) + mpmath.mpf(10) ** -40


LATTICE = [
    ("discrete-laplace", F(2), "truncated", 0, 5, 1, F(1, 2)),
    ("discrete-laplace", F(2), "clamped", 0, 5, 1, F(1, 4)),
    ("discrete-laplace", F(1, 2), "truncated", -3, 4, 2, F(1)),
    ("discrete-gaussian", F(2), "truncated", 0, 6, 1, F(1)),
    ("discrete-gaussian", F(3, 2), "clamped", -2, 5, 2, F(1, 3)),
    ("discrete-gaussian", F(5), "truncated", 0, 3, 5, F(0)),
]


@pytest.mark.parametrize("case", LATTICE)
def test_the_lattice_bracket_holds_the_brute_force_value(case):
    name, scale, bounding, c0, c1, d, eps = case
    law = registry.get(name)
    got = BoundedMechanism(law, {law.scale: scale}, bounding, F(c0), F(c1), F(d)).delta(eps)
    ref = brute_force(name, scale, bounding, c0, c1, d, eps)
    _check_bracket(got, ref)
    assert got.kind.startswith("exact"), got.kind
    assert float(ref) == pytest.approx(float(got.upper), rel=1e-12, abs=1e-300)


@settings(max_examples=12, deadline=None, derandomize=True)
@given(
    name=st.sampled_from(["discrete-laplace", "discrete-gaussian"]),
    scale=st.fractions(F(1, 3), F(4), max_denominator=6),
    bounding=st.sampled_from(["truncated", "clamped"]),
    c0=st.integers(-4, 2),
    width=st.integers(1, 7),
    d=st.integers(1, 4),
    eps=st.fractions(F(0), F(3), max_denominator=8),
)
def test_hypothesis_lattice_settings_against_brute_force(name, scale, bounding, c0, width, d,
                                                         eps):
    law = registry.get(name)
    c1 = c0 + width
    got = BoundedMechanism(law, {law.scale: scale}, bounding, F(c0), F(c1), F(d)).delta(eps)
    _check_bracket(got, brute_force(name, scale, bounding, c0, c1, d, eps))


# ---------------------------------------------------------------- the line: old engine

LINE = [
    ("truncated", "laplace", "laplace", F(1), 0, 1, F(1), F(1, 2)),
    ("clamped", "laplace", "laplace", F(1), 0, 1, F(1), F(1, 2)),
    ("truncated", "gaussian", "gaussian", F(1), 0, 2, F(1), F(1, 2)),
    ("clamped", "gaussian", "gaussian", F(1), 0, 2, F(1), F(1, 2)),
    ("truncated", "laplace", "laplace", F(3, 2), -1, 2, F(1, 2), F(1)),
    ("clamped", "gaussian", "gaussian", F(1, 2), -1, 3, F(2), F(1, 5)),
]


@pytest.mark.parametrize("case", LINE)
def test_the_line_agrees_with_the_old_profile_engine(case):
    bounding, old, new, d, c0, c1, scale, eps = case
    before = before_engine.delta(f"{bounding}-{old}", d, c0, c1, scale, eps)
    law = registry.get(new)
    after = BoundedMechanism(law, {law.scale: scale}, bounding, F(c0), F(c1), d).delta(eps)
    assert after.lower <= before.upper and before.lower <= after.upper  # both certified
    if before.kind.startswith("exact") and after.kind.startswith("exact"):
        assert after.as_dict()["delta"] == before.as_dict()["delta"]


def _delta_counting_signs(case, monkeypatch, guess=None):
    """δ(ε) of a LINE case and the number of sign-of-D evaluations its pairs' crossings
    took (not the cells'); ``guess`` replaces the float64 guess of the crossing (None:
    the engine's own)."""
    bounding, _, name, d, c0, c1, scale, eps = case
    calls, counting = [0], [False]
    sign_of_D, crossing = bounded_privacy._Family.sign_of_D, bounded_privacy._Family.crossing

    def counted_sign(self, *args):
        sign = sign_of_D(self, *args)

        def wrapped(t):
            calls[0] += counting[0]
            return sign(t)
        return wrapped

    def counted_crossing(self, a, b, lo, hi, width=F(0)):
        counting[0] = width == 0
        try:
            return crossing(self, a, b, lo, hi, width)
        finally:
            counting[0] = False

    monkeypatch.setattr(bounded_privacy._Family, "sign_of_D", counted_sign)
    monkeypatch.setattr(bounded_privacy._Family, "crossing", counted_crossing)
    if guess is not None:
        monkeypatch.setattr(bounded_privacy._Family, "_float_crossing", guess)
    law = registry.get(name)
    got = BoundedMechanism(law, {law.scale: scale}, bounding, F(c0), F(c1), d).delta(eps)
    monkeypatch.undo()
    return got, calls[0]


def test_the_float_guess_of_the_crossing_only_saves_steps(monkeypatch):
    """The float64 guess of t* is a hint: without it, or with a wrong one (a tenth of the
    support off), the certified bracket holds the same value; and over these cases the
    guess saves at least half of the pairs' sign evaluations (measured: 8,323 against
    20,402)."""
    right = bounded_privacy._Family._float_crossing

    def wrong(self, a, b, ratio, lo, hi):
        return [t + (hi - lo) / 10 for t in right(self, a, b, ratio, lo, hi)]

    n_fast = n_slow = 0
    for case in (LINE[2], LINE[4], LINE[5]):
        fast, n = _delta_counting_signs(case, monkeypatch)
        n_fast += n
        slow, n = _delta_counting_signs(case, monkeypatch, lambda self, *args: [])
        n_slow += n
        wrong_, _ = _delta_counting_signs(case, monkeypatch, wrong)
        for other in (slow, wrong_):
            assert fast.lower <= other.upper and other.lower <= fast.upper
            if fast.kind.startswith("exact") and other.kind.startswith("exact"):
                assert fast.as_dict()["delta"] == other.as_dict()["delta"]
    assert n_fast <= n_slow / 2, (n_fast, n_slow)


def quadrature_pair(law_name: str, scale: F, bounding: str, c0: F, c1: F, s: F, t: F, eps: F):
    """H_ε(s, t) by mpmath quadrature of max(0, p_s - e^ε p_t) on [c0, c1] (+ atoms)."""
    with mpmath.workdps(30):
        sc = mpmath.mpf(scale.numerator) / scale.denominator
        if law_name == "laplace":
            dens = lambda z: mpmath.exp(-abs(z) / sc) / (2 * sc)  # noqa: E731
            cdf = lambda z: mpmath.exp(z / sc) / 2 if z < 0 else 1 - mpmath.exp(-z / sc) / 2  # noqa: E731
        else:
            dens = lambda z: mpmath.npdf(z, 0, sc)  # noqa: E731
            cdf = lambda z: mpmath.ncdf(z, 0, sc)  # noqa: E731
        a, b, u, v = (mpmath.mpf(x.numerator) / x.denominator for x in (c0, c1, s, t))
        e = mpmath.exp(mpmath.mpf(eps.numerator) / eps.denominator)
        zu = cdf(b - u) - cdf(a - u) if bounding == "truncated" else 1
        zv = cdf(b - v) - cdf(a - v) if bounding == "truncated" else 1
        g = lambda y: dens(y - u) / zu - e * dens(y - v) / zv  # noqa: E731
        # 400 pieces, and the kink of max(0, g) (a root of g) as a cut of its own
        cuts = sorted(set(mpmath.linspace(a, b, 401)) | {min(max(x, a), b) for x in (u, v)})
        roots = [mpmath.findroot(g, (x0, x1), solver="anderson")
                 for x0, x1 in zip(cuts, cuts[1:], strict=False) if g(x0) * g(x1) < 0]
        inner = mpmath.quad(lambda y: max(0, g(y)), sorted(set(cuts) | set(roots)))
        if bounding == "clamped":
            inner += max(0, cdf(a - u) - e * cdf(a - v))
            inner += max(0, (1 - cdf(b - u)) - e * (1 - cdf(b - v)))
        return inner


@pytest.mark.parametrize("case", LINE[:4])
def test_no_pair_on_a_grid_exceeds_the_certified_bound(case):
    bounding, _, name, d, c0, c1, scale, eps = case
    law = registry.get(name)
    got = BoundedMechanism(law, {law.scale: scale}, bounding, F(c0), F(c1), d).delta(eps)
    step = min(d, F(c1 - c0))
    worst = mpmath.mpf(0)
    for i in range(9):
        s = F(c0) + (F(c1 - c0) - step) * F(i, 8)
        for a, b in ((s, s + step), (s + step, s)):
            worst = max(worst, quadrature_pair(name, scale, bounding, F(c0), F(c1), a, b, eps))
    tol = mpmath.mpf(10) ** -12
    assert worst <= got.upper * (1 + tol)
    at = quadrature_pair(name, scale, bounding, F(c0), F(c1), got.s, got.s_prime, eps)
    assert got.lower * (1 - tol) <= at <= got.upper * (1 + tol)


# ---------------------------------------------------------------- the argument's parts


def test_mutating_the_pair_bound_is_noticed(monkeypatch):
    """Dropping the rise between the crossing's bracket ends (keeping only Ψ(lo)) with a
    coarse bracket must give an upper bound below the old engine's attained value."""
    bounding, old, new, d, c0, c1, scale, eps = LINE[2]
    before = before_engine.delta(f"{bounding}-{old}", d, c0, c1, scale, eps)
    original = bounded_privacy._Family.pair

    def lower_only(self, a, b):
        _, lower, t = original(self, a, b)
        return lower, lower, t

    monkeypatch.setattr(bounded_privacy._Family, "pair", lower_only)
    monkeypatch.setattr(bounded_privacy, "STEPS", 3)
    # no float64 guess either: it would start the search from a fine bracket
    monkeypatch.setattr(bounded_privacy._Family, "_float_crossing", lambda self, *args: [])
    law = registry.get(new)
    after = BoundedMechanism(law, {law.scale: scale}, bounding, F(c0), F(c1), d).delta(eps)
    assert after.upper < before.lower


def test_mutating_away_the_mirror_direction_is_noticed(monkeypatch):
    law = registry.law(r"e^{-\frac{|z|}{b} - \frac{z}{2b}}", support="integers", params=["b>0"])
    full = BoundedMechanism(law, {"b": F(1)}, "truncated", F(0), F(4), F(1))
    monkeypatch.setattr(BoundedMechanism, "_families",
                        lambda self, e: bounded_privacy.BoundedMechanism.__dict__["_families"]
                        .__wrapped__(self, e) if False else [bounded_privacy._Family(
                            self.law, self.values, self.bounding, self.c0, self.c1, e)])
    one_side = full.delta(F(1, 4))
    monkeypatch.undo()
    assert one_side.upper < full.delta(F(1, 4)).lower


def test_the_mirror_direction_counts_for_an_asymmetric_law():
    """A law with a heavier left side: the pair (s', s) with s' > s gives the larger value,
    and the answer must equal the brute force over both directions."""
    law = registry.law(r"e^{-\frac{|z|}{b} - \frac{z}{2b}}", support="integers", params=["b>0"])
    assert not law.symmetric
    got = BoundedMechanism(law, {"b": F(1)}, "truncated", F(0), F(4), F(1)).delta(F(1, 4))
    with mpmath.workdps(50):
        kern = lambda k: mpmath.exp(-abs(k) - mpmath.mpf(k) / 2)  # noqa: E731
        e = mpmath.exp(mpmath.mpf(1) / 4)

        def p(s):
            raw = {y: kern(y - s) for y in range(0, 5)}
            z = mpmath.fsum(raw.values())
            return {y: v / z for y, v in raw.items()}

        ref = max(mpmath.fsum(max(0, p(s)[y] - e * p(t)[y]) for y in range(5))
                  for s in range(5) for t in range(5) if abs(s - t) == 1)
    _check_bracket(got, ref)


def test_simplest_rational_in_an_interval():
    assert _simplest(F(1, 5), F(3, 10)) == F(1, 4)
    assert _simplest(F(576460752303423487, 2**61), F(1, 4)) == F(1, 4)
    assert _simplest(F(-7, 3), F(-2)) == F(-2)
    assert _simplest(F(5, 2), F(5, 2)) == F(5, 2)
    for lo, hi in ((F(1, 7), F(1, 6)), (F(22, 7), F(355, 113)), (F(-3, 2), F(-4, 3))):
        got = _simplest(min(lo, hi), max(lo, hi))
        assert min(lo, hi) <= got <= max(lo, hi)


@settings(max_examples=300, deadline=None)
@given(st.fractions(min_value=-10**6, max_value=10**6), st.integers(0, 200),
       st.integers(0, 2**64))
def test_simplest_rational_against_its_recursive_definition(lo, bits, num):
    """The loop over integers gives the recursion's value (brute force: no smaller
    denominator in [lo, hi] either, for small denominators), widths down to 2^-200."""
    def recursive(a: F, b: F) -> F:
        if a.denominator == 1 or a == b:
            return a
        whole = a.numerator // a.denominator
        if whole + 1 <= b:
            return F(whole + 1)
        return whole + 1 / recursive(1 / (b - whole), 1 / (a - whole))

    hi = lo + F(num, 2**64) / 2**bits
    got = _simplest(lo, hi)
    assert got == recursive(lo, hi) and lo <= got <= hi
    for q in range(1, min(got.denominator, 200)):
        assert math.ceil(lo * q) > hi * q  # no k/q in [lo, hi]


@pytest.mark.parametrize(
    ("args", "mentions"),
    [
        (("staircase", "truncated", 0, 1, 1), "log-concave"),
        (("discrete-laplace", "truncated", F(1, 2), 3, 1), "integer"),
        (("laplace", "truncated", 1, 1, 1), "c0 < c1"),
        (("laplace", "folded", 0, 1, 1), "truncated, clamped"),
        (("laplace", "clamped", 0, 1, 0), "sensitivity"),
    ],
)
def test_refusals_are_one_line(args, mentions):
    name, bounding, c0, c1, d = args
    law = registry.get(name)
    values = {p.name: F(1, 2) for p in law.params}
    with pytest.raises(InputError, match=mentions) as info:
        BoundedMechanism(law, values, bounding, F(c0), F(c1), F(d))
    assert "\n" not in str(info.value)


def test_the_cli_prints_a_certified_delta(capsys):
    code = main(["privacy", "truncated-discrete-gaussian", "--scale", "2", "--sensitivity", "1",
                 "--lower", "0", "--upper", "6", "--epsilon", "1", "--json"])
    assert code == 0
    data = json.loads(capsys.readouterr().out)
    ref = brute_force("discrete-gaussian", F(2), "truncated", 0, 6, 1, F(1))
    assert mpmath.mpf(data["delta lower"]) <= ref <= mpmath.mpf(data["delta"])
    assert data["delta kind"].startswith("exact to the digits shown")
    assert data["lower"] == "0" and data["upper"] == "6"


@pytest.mark.parametrize(
    ("extra", "mentions"),
    [
        ((), "--lower"),
        (("--lower", "0", "--upper", "6", "--radius", "2"), "--radius"),
        (("--lower", "0", "--upper", "6", "--epsilon", "x"), "epsilon"),
    ],
)
def test_cli_refusals(extra, mentions, capsys):
    args = ["privacy", "truncated-discrete-gaussian", "--scale", "2", "--sensitivity", "1"]
    if "--epsilon" not in extra:
        extra = (*extra, "--epsilon", "1")
    assert main([*args, *extra]) == 2
    err = capsys.readouterr().err
    assert mentions in err and err.count("\n") == 1


def test_cli_folded_lattice_and_missing_epsilon_are_refused(capsys):
    """A folded law answers since issue 35 (dpcheck.laws.folded_privacy, tested in
    tests/test_folded_privacy.py); a folded lattice law and a bad epsilon are refused."""
    base = ["privacy", "--scale", "2", "--sensitivity", "1", "--lower", "0", "--upper", "3"]
    assert main([base[0], "folded-gaussian", *base[1:], "--epsilon", "1"]) == 0
    assert "upper bound by post-processing" in capsys.readouterr().out
    assert main([base[0], "folded-discrete-laplace", *base[1:], "--epsilon", "1"]) == 2
    assert "real line" in capsys.readouterr().err
    assert main([base[0], "truncated-discrete-gaussian", *base[1:], "--epsilon", "-1"]) == 2
    assert "epsilon" in capsys.readouterr().err


def test_epsilon_of_delta_inverts_delta_of_epsilon():
    """ε(δ(ε0)) brackets ε0: δ(ε0)'s certified bracket maps to an ε bracket around ε0."""
    law = registry.get("discrete-gaussian")
    mech = BoundedMechanism(law, {"sigma": F(2)}, "clamped", F(-2), F(4), F(1))
    at = mech.delta(F(1, 2))
    eps_up = mech.epsilon(F(str(at.as_dict()["delta"])))  # δ rounded up: ε at or below 1/2
    eps_down = mech.epsilon(F(str(at.as_dict()["delta lower"])))  # rounded down: at or above
    assert eps_up.lower_value <= F(1, 2) <= eps_down.upper_value
    assert F(1, 2) - eps_up.lower_value < F(1, 10**10)
    with pytest.raises(InputError, match="0 <= delta < 1"):
        mech.epsilon(F(1))
    pure = mech.pure_epsilon()
    assert mech.epsilon(F(0)).upper_value == pure.upper_value


def test_the_cli_gives_epsilon_of_delta(capsys):
    code = main(["privacy", "clamped-discrete-laplace", "--scale", "2", "--sensitivity", "1",
                 "--lower", "0", "--upper", "5", "--delta", "1/100", "--json"])
    assert code == 0
    data = json.loads(capsys.readouterr().out)
    law = registry.get("discrete-laplace")
    mech = BoundedMechanism(law, {"scale": F(2)}, "clamped", F(0), F(5), F(1))
    # δ at the printed ε is at most 1/100, and just below it, above
    assert mech.delta(F(data["epsilon"])).upper <= mpmath.mpf(1) / 100
    assert mech.delta(F(data["epsilon lower"]) * (1 - F(1, 10**9))).lower > mpmath.mpf(1) / 100


PURE = [  # (bounding, old name, law, d, c0, c1, scale)
    ("truncated", "laplace", "laplace", 1, 0, 1, F(1)),
    ("clamped", "laplace", "laplace", 1, 0, 3, F(1)),
    ("truncated", "gaussian", "gaussian", F(1, 2), -3, 3, F(1)),
    ("clamped", "gaussian", "gaussian", 1, 0, 2, F(1)),
    ("truncated", "geometric", "discrete-laplace", 1, 0, 5, F(2)),
    ("clamped", "geometric", "discrete-laplace", 1, 0, 5, F(2)),
]


@pytest.mark.parametrize("case", PURE)
def test_pure_epsilon_brackets_the_old_engines(case):
    bounding, old, new, d, c0, c1, scale = case
    before = before_engine.pure(f"{bounding}-{old}", d, c0, c1, scale)
    law = registry.get(new)
    after = BoundedMechanism(law, {law.scale: scale}, bounding, F(c0), F(c1), F(d)).pure_epsilon()
    assert after.lower <= before.upper and before.lower <= after.upper
    if after.kind.startswith("exact"):
        assert after.as_dict()["pure epsilon"] == before.as_dict()["pure epsilon"]


@pytest.mark.parametrize("case", [c for c in LATTICE if c[-1] > 0])
def test_lattice_pure_epsilon_against_brute_force(case):
    """The largest log ratio over every pair and output, summed directly; and δ(ε) = 0
    exactly at an ε just above it."""
    name, scale, bounding, c0, c1, d, _ = case
    law = registry.get(name)
    mech = BoundedMechanism(law, {law.scale: scale}, bounding, F(c0), F(c1), F(d))
    pure = mech.pure_epsilon()
    with mpmath.workdps(50):
        big = brute_force_ratio(name, scale, bounding, c0, c1, d)
        assert pure.lower <= big * (1 + mpmath.mpf(10) ** -30)
        assert big <= pure.upper * (1 + mpmath.mpf(10) ** -30)
    above = pure.upper_value + F(1, 10**6)
    zero = mech.delta(above)
    assert zero.upper == 0 and zero.kind.startswith("exact")
    assert mech.delta(pure.lower_value * (1 - F(1, 10**6))).lower > 0


def brute_force_ratio(name, scale, bounding, c0, c1, d):
    laws = output_laws(name, scale, bounding, c0, c1)
    return max(mpmath.log(laws[s][y] / laws[t][y]) for s in laws for t in laws
               if 0 < abs(s - t) <= d for y in laws[s])


def test_the_cli_prints_the_pure_epsilon(capsys):
    code = main(["privacy", "clamped-discrete-laplace", "--scale", "2", "--sensitivity", "1",
                 "--lower", "0", "--upper", "5", "--json"])
    assert code == 0
    data = json.loads(capsys.readouterr().out)
    # the atoms at c0 give P(Z <= -s)/P(Z <= -s - 1) = e^{1/2} for every s >= 0: ε = 1/2
    assert F(data["pure epsilon lower"]) <= F(1, 2) <= F(data["pure epsilon"])
    assert F(data["pure epsilon"]) - F(data["pure epsilon lower"]) < F(1, 10**12)
    assert data["attained at"]["y"] == "0"


# ------------------------------------------- closing where the maximum is flat or at an end


def _bounded(name, bounding, c0, c1, d, scale):
    law = registry.get(name)
    return BoundedMechanism(law, {law.scale: F(scale)}, bounding, F(c0), F(c1), F(d))


def test_a_flat_maximum_along_the_edge_closes_as_the_old_engine_does():
    """Truncated Laplace, Δ = 1/3 on [-1, 4], λ = 2, ε = 1/10: δ varies by 1e-6 over a fifth
    of the edge.  Monotone cells (∂_sΦ of one sign) are bounded by their end pair, so only
    the cells at the maximum are split; the old engine's exact value is reproduced."""
    before = before_engine.delta("truncated-laplace", F(1, 3), -1, 4, 2, F(1, 10))
    after = _bounded("laplace", "truncated", -1, 4, F(1, 3), 2).delta(F(1, 10))
    assert before.kind.startswith("exact") and after.kind.startswith("exact"), after.kind
    assert after.as_dict()["delta"] == before.as_dict()["delta"] == "0.03818553948991"


def test_a_flat_pure_epsilon_closes(monkeypatch):
    """Clamped Laplace: log P(s + Z <= c0)/P(s + m + Z <= c0) = m/λ for every s of the edge
    (flat); its slope is 0 exactly once SymPy cancels the tail's exponentials.  The
    branch-and-bound closes it (forced here) and the SymPy shortcut makes it exact."""
    monkeypatch.setattr(bounded_privacy._Family, "flat_log_ratio", property(lambda self: False))
    got = _bounded("laplace", "clamped", -3, 3, F(1, 2), 1).pure_epsilon()
    low, up = F(got.lower_value), F(got.upper_value)
    assert low <= F(1, 2) <= up and (up - low) / up < F(1, 10**16), got.kind
    assert "over 1000 cells" not in got.kind


@pytest.mark.parametrize("c0, c1, sens, scale", [
    (0, 5, 1, 1), (0, 5, 1, 50), (0, 5, 1, F(1, 200)), (-3, 3, F(1, 2), 1), (0, 2, 1, 1),
])
def test_a_flat_pure_epsilon_is_exact_as_in_the_old_engine(c0, c1, sens, scale):
    """The clamped Laplace's log ratio is constant along the edge (SymPy: the left tail's
    log-derivative is 1/λ): the pure ε is m/λ exactly, the old engine's printed value."""
    got = _bounded("laplace", "clamped", c0, c1, sens, scale).pure_epsilon()
    assert got.kind == "exact (SymPy: the log ratio is constant along the edge)"
    assert F(got.upper_value) == F(got.lower_value) == F(sens) / F(scale)
    before = before_engine.pure("clamped-laplace", sens, c0, c1, scale)
    assert got.as_dict()["pure epsilon"] == before.as_dict()["pure epsilon"]
    assert before.as_dict()["pure epsilon kind"].startswith("exact")


def test_a_gaussian_log_ratio_is_not_taken_as_flat():
    """The Gaussian's left tail has no constant log-derivative: no shortcut (a mutation
    that declared every clamped law flat would print m/λ-like nonsense as exact)."""
    mech = _bounded("gaussian", "clamped", 0, 5, 1, 1)
    assert not any(fam.flat_log_ratio for fam in mech._families(bounded_privacy.flint.arb(1)))
    assert not mech.pure_epsilon().kind.startswith("exact (SymPy")


@pytest.mark.parametrize("name, old, bounding, c0, c1, scale, want", [
    ("laplace", "laplace", "truncated", 0, 1, F(1, 100), "100.0"),
    ("laplace", "laplace", "clamped", 0, 1, 100, "0.01"),
    ("laplace", "laplace", "truncated", -1, 4, 3, "1.666666666667"),
    ("discrete-laplace", "geometric", "clamped", 0, 3, 2, "1.5"),
])
def test_the_one_pair_edge_gives_the_exact_pure_epsilon(name, old, bounding, c0, c1, scale, want):
    """c1 - c0 <= Δ (Liu's setting): the edge is the pair (c0, c1), whose log ratio SymPy
    simplifies to a rational; the old engine prints the same exact value."""
    got = _bounded(name, bounding, c0, c1, c1 - c0, scale).pure_epsilon()
    before = before_engine.pure(f"{bounding}-{old}", c1 - c0, c0, c1, scale)
    assert got.kind.startswith("exact (SymPy")
    assert got.as_dict()["pure epsilon"] == before.as_dict()["pure epsilon"] == want


def _log_density_at_c0(name, bounding, c0, c1, scale, u):
    """log p_u(c0) from mpmath's own CDFs (independent of the law objects)."""
    sc = mpmath.mpf(scale.numerator) / scale.denominator
    if name == "laplace":
        def cdf(z):
            return mpmath.exp(z / sc) / 2 if z < 0 else 1 - mpmath.exp(-z / sc) / 2

        def dens(z):
            return mpmath.exp(-abs(z) / sc) / (2 * sc)
    else:
        cdf, dens = (lambda z: mpmath.ncdf(z, 0, sc)), (lambda z: mpmath.npdf(z, 0, sc))
    if bounding == "clamped":
        return mpmath.log(cdf(c0 - u))
    return mpmath.log(dens(c0 - u) / (cdf(c1 - u) - cdf(c0 - u)))


@pytest.mark.parametrize("name, bounding", [("laplace", "truncated"), ("laplace", "clamped"),
                                            ("gaussian", "truncated"), ("gaussian", "clamped")])
def test_the_location_slope_is_the_derivative_of_the_log_density_at_c0(name, bounding):
    """The slope behind the monotone cells of the pure epsilon, against mpmath's numerical
    derivative of log p_u(c0) (mpmath's own CDFs); the ball holds it at every u tried."""
    import flint

    from dpcheck.laws.numeric import precision

    c0, c1, scale = F(-1), F(3), F(3, 2)
    mech = _bounded(name, bounding, c0, c1, 1, scale)
    with precision(40), mpmath.workdps(40):
        fam = mech._families(flint.arb(1))[0]
        for u in (F(-1, 2), F(1, 3), F(2), F(11, 4)):
            want = mpmath.diff(lambda x: _log_density_at_c0(name, bounding, -1, 3, scale, x),
                               mpmath.mpf(u.numerator) / u.denominator)
            got = fam.location_slope(flint.arb(u.numerator) / u.denominator)
            mid = mpmath.mpf(got.mid().str(40, radius=False))
            rad = mpmath.mpf(got.rad().str(5, radius=False))
            assert abs(mid - want) < mpmath.mpf(10) ** -25 + 2 * rad, (u, got, want)


def test_a_wrong_derivative_in_the_location_is_noticed(monkeypatch):
    """Mutation: with ∂F/∂u taken as 0, every cell counts as monotone and is bounded by
    its end pair, the interior maximum is missed, and the certified bound falls below the
    old engine's attained value."""
    before = before_engine.delta("truncated-laplace", F(1, 3), -1, 4, 2, F(1, 10))
    import flint

    monkeypatch.setattr(bounded_privacy._Family, "dF_du", lambda self, t, u: flint.arb(0))
    got = _bounded("laplace", "truncated", -1, 4, F(1, 3), 2).delta(F(1, 10))
    assert got.upper < before.lower


@pytest.mark.parametrize("c0, c1, sens, eps", [(-3, 3, F(1, 2), 0), (-1, 4, F(1, 3), 2)])
def test_nearly_disjoint_laws_stop_at_one(c0, c1, sens, eps):
    """σ = 1/100: the two truncated Gaussians of an edge pair are disjoint to within
    e^-300, so δ agrees with its cap 1 to the digits shown from the first pair on (it took
    the whole 1000-cell budget, 50 s, when the cap was applied only after the search)."""
    got = _bounded("gaussian", "truncated", c0, c1, sens, F(1, 100)).delta(F(eps))
    before = before_engine.delta("truncated-gaussian", sens, c0, c1, F(1, 100), F(eps))
    assert got.as_dict()["delta"] == before.as_dict()["delta"] == "1.0"
    assert got.as_dict()["delta kind"].startswith("exact to the digits shown"), got.as_dict()
    assert "over 0 cells" in got.as_dict()["delta kind"]


def test_the_pure_epsilon_is_searched_once_per_mechanism() -> None:
    """Every decision of ε(δ) starts from the pure ε; it re-ran the edge search, and the
    additive bound in every cell re-derived its SymPy limit (434 s for one ε(δ))."""
    from dpcheck.laws import additive

    mech = BoundedMechanism(registry.get("gaussian"), {"sigma": F(100)}, "truncated", F(0),
                            F(1), F(1, 2))
    calls = []
    real = additive.Additive._pure.func

    def counted(self):  # type: ignore[no-untyped-def]
        calls.append(1)
        return real(self)

    additive.Additive._pure.func = counted
    try:
        first = mech.pure_epsilon()
        assert mech.decide(F(1), F(1, 10**10)) is True
        assert mech.pure_epsilon() is first
    finally:
        additive.Additive._pure.func = real
    assert len(calls) <= 1
