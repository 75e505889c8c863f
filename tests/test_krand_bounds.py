"""Certified bounds of multi-bit shuffled K-randomization (issue 21).

Independent routes: the exhaustive exact epsilon(delta) over every background
(:mod:`krand_profile_general`, exact rationals) must lie between the attained lower and
the certified upper bound wherever both exist; the evaluators' certified brackets must
contain the exact delta of the same pair (exact rational laws); the generic shuffle bounds
(upper bounds for every eps0-LDP randomizer) must lie above the attained lower bound; the
derivation's exact checks must catch a broken lemma, and these tests a broken cover.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction as F

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpcheck.cli import main
from dpcheck.enumeration import krand_bounds as kb
from dpcheck.enumeration import krand_cover as kc
from dpcheck.enumeration import krand_multi as km
from dpcheck.enumeration import krand_profile as kp
from dpcheck.enumeration import krand_profile_general as kg
from dpcheck.enumeration import krand_single as ks
from dpcheck.enumeration import shuffle_generic as sg
from dpcheck.enumeration.krand_cells import orbit_system
from dpcheck.enumeration.krand_l1_exact import LieProbability


def _lie(q: str) -> LieProbability:
    """A rational lie probability (the exact routes need rational laws): 3/8, 1/4 and 1/8
    are eps0 = ln(p/q) = 0.51, 1.10 and 1.95 per bit."""
    return LieProbability(F(q))


def _exact_epsilon(L: int, n: int, q: str, delta: float) -> float:
    d = kp.summary(n, L, q=q, delta=delta)["approximate"]
    assert d["kind"] == "exact"
    return d["epsilon"]


BRACKETS = [
    (2, 5, "1/4", 1e-3),
    (2, 6, "3/8", 1e-3),
    (2, 10, "3/8", 1e-3),
    (2, 10, "3/8", 1e-6),
    (3, 3, "3/8", 1e-3),
    pytest.param(2, 14, "3/8", 1e-3, marks=pytest.mark.slow),
    pytest.param(2, 14, "3/8", 1e-6, marks=pytest.mark.slow),
    pytest.param(2, 14, "1/4", 1e-3, marks=pytest.mark.slow),
    pytest.param(3, 6, "3/8", 1e-3, marks=pytest.mark.slow),
    pytest.param(3, 6, "1/4", 1e-2, marks=pytest.mark.slow),
]


@pytest.mark.parametrize("L, n, q, delta", BRACKETS)
def test_bounds_bracket_the_exhaustive_exact_value(L, n, q, delta):
    exact = _exact_epsilon(L, n, q, delta)
    lo, up = kb.bounds(L, n, _lie(q), delta, max_seconds=120)
    assert lo.epsilon <= exact <= up.epsilon, (lo.epsilon, exact, up.epsilon)
    assert up.epsilon <= kb.pure_epsilon_bound(L, _lie(q)) * (1 + 1e-12)
    # the cover itself never settles an epsilon below the exact one (the ratio ladder
    # above starts at 1.005 x lower, so this is the sharper test)
    ok, _, why = kb.certify_at(L, n, _lie(q), delta, 0.995 * exact)
    assert not ok and "not settled" in why


def test_an_understated_cover_is_caught(monkeypatch):
    """Mutation: a cover that settles a box against 5 delta instead of delta certifies an
    epsilon below the exact one, and the bracket test above fails."""
    L, n, q, delta = 2, 10, "3/8", 1e-3
    exact = _exact_epsilon(L, n, q, delta)
    original = kc.Cover.__init__

    def loose(self, L, h, lie, n, d, eps, *a, **k):  # type: ignore[no-untyped-def]
        original(self, L, h, lie, n, 5 * d, eps, *a, **k)

    monkeypatch.setattr(kc.Cover, "__init__", loose)
    ok, _, _ = kb.certify_at(L, n, _lie(q), delta, 0.995 * exact)
    assert ok


def _skipped_mirrors_are_covered(cov: kc.Cover, n: int) -> bool:
    """Every composition of every box the cover skips as a mirror has its mirror in a box
    it does not skip (every box with corners on a grid, n - 1 users)."""
    import itertools

    K, S = len(cov.classes), n - 1
    for lo in itertools.product(range(0, S + 1, 2), repeat=K):
        for hi in itertools.product(*(range(a, S + 1, 3) for a in lo)):
            if sum(lo) > S or sum(hi) < S or not cov._mirrored(lo, hi):
                continue
            for m in itertools.product(*(range(a, b + 1) for a, b in zip(lo, hi, strict=True))):
                if sum(m) == S and cov._mirrored(*(kc.mirror(cov.classes, cov.h, m),) * 2):
                    return False
    return True


@pytest.mark.parametrize("L, h", [(2, 2), (2, 1), (3, 2)])
def test_skipped_mirrors_are_covered_and_a_wrong_skip_is_caught(L, h, monkeypatch):
    """The boxes skipped as mirror images hold only compositions whose mirrors the cover
    does not skip; mutation: skipping the other side too is caught."""
    cov = kc.Cover(L, h, _lie("1/4"), 6, 1e-6, 0.5)
    assert _skipped_mirrors_are_covered(cov, 6)
    original = kc.Cover._mirrored

    def both(self, lo, hi):  # type: ignore[no-untyped-def]
        i0, ih = self.classes.index((0, 0)), self.classes.index((self.h, 0))
        return original(self, lo, hi) or hi[ih] < lo[i0]

    monkeypatch.setattr(kc.Cover, "_mirrored", both)
    assert not _skipped_mirrors_are_covered(cov, 6)


@pytest.mark.parametrize("L, n, q, eps", [(2, 6, "3/8", 0.4), (3, 4, "1/4", 0.9)])
def test_the_mirror_keeps_the_exact_delta(L, n, q, eps):
    """delta of the canonical pair (0 -> 1^h 0^(L-h)) at a background and at the background
    XORed with 1^h 0^(L-h) (:func:`krand_cover.mirror` of its composition), exactly, for
    every h and every background; the cover skips the boxes of mirrors."""
    import itertools

    vecs = [format(v, f"0{L}b") for v in range(2**L)]
    checked = 0
    for h in range(1, L + 1):
        flip = "1" * h + "0" * (L - h)
        classes = kc.Cover(L, h, _lie(q), n, 1e-6, eps).classes
        for combo in itertools.combinations_with_replacement(vecs, n - 1):
            flipped = [
                "".join("1" if a != b else "0" for a, b in zip(v, flip, strict=True)) for v in combo
            ]
            deltas, comps = [], []
            for back in (combo, flipped):
                bg: dict[str, int] = {}
                comp = [0] * len(classes)
                for v in back:
                    bg[v] = bg.get(v, 0) + 1
                    comp[classes.index((v[:h].count("1"), v[h:].count("1")))] += 1
                deltas.append(_exact_delta(_pair_for(L, n, h, bg), q, eps))
                comps.append(tuple(comp))
            assert kc.mirror(classes, h, comps[0]) == comps[1]
            assert kc.mirror(classes, h, comps[1]) == comps[0]
            assert deltas[0] == pytest.approx(deltas[1], rel=1e-12, abs=1e-15), (h, combo)
            checked += 1
    assert checked > 20


def _pair_for(L: int, n: int, h: int, background: dict[str, int]) -> kg.Pair:
    index = {kg.bits(v, L): v for v in range(2**L)}
    bg = [0] * 2**L
    for vec, count in background.items():
        bg[index[vec]] += count
    return kg.Pair(L, tuple(bg), index["1" * h + "0" * (L - h)])


def _exact_delta(pair: kg.Pair, q: str, eps: float) -> float:
    """max over the two orders of sum (P - e^eps Q)^+ from the exact rational laws."""
    lie = _lie(q)
    _, P, Q, den = kg.exact_pair_laws(pair, lie.value)
    with mpmath.workdps(60):
        r = mpmath.exp(mpmath.mpf(eps))
        one = sum(max(mpmath.mpf(a) - r * b, 0) for a, b in zip(P, Q, strict=False))
        two = sum(max(mpmath.mpf(b) - r * a, 0) for a, b in zip(P, Q, strict=False))
        return float(max(one, two) / den)


@pytest.mark.parametrize(
    "L, h, vec, q, n, eps",
    [
        (2, 2, "00", "3/8", 12, 0.4),
        (2, 2, "00", "1/4", 12, 1.0),
        (2, 1, "00", "1/4", 12, 0.5),
        (2, 1, "01", "1/4", 12, 0.5),
        (3, 3, "000", "3/8", 7, 0.8),
        (3, 2, "000", "1/4", 6, 0.9),
        (3, 1, "011", "1/4", 6, 0.6),
    ],
)
def test_single_law_evaluator_brackets_the_exact_delta(L, h, vec, q, n, eps):
    """A pure background on an extreme vector: the N-experiment is the exact experiment,
    so the certified upper and lower bounds of delta_single bracket the exact delta."""
    exact = _exact_delta(_pair_for(L, n, h, {vec: n - 1}), q, eps)
    cells = orbit_system(L, h, _lie(q))
    u, v = vec[:h].count("1"), vec[h:].count("1")
    g = cells.clone_law((u, v))
    if L - h:
        g2 = g.reshape(h + 1, L - h + 1)
        law = ks.ProductLaw(ks.CloneLaw.of(g2.sum(axis=1)), ks.CloneLaw.of(g2.sum(axis=0)))
    else:
        law = ks.CloneLaw.of(g)
    upper = ks.delta_single(cells, law, n - 1, eps)
    lower = ks.delta_single(cells, law, n - 1, eps, lower=True)
    assert exact > 1e-12
    assert lower <= exact <= upper
    assert upper - lower <= 1e-9 * exact + 1e-15


@pytest.mark.parametrize("L, n, j, eps", [(2, 12, 2, 0.5), (2, 12, 5, 0.3), (3, 6, 1, 0.7)])
def test_two_law_evaluator_brackets_the_exact_delta(L, n, j, eps):
    """The flip-every-bit pair with j background users on 1^L and the rest on 0^L."""
    q = "1/4"
    exact = _exact_delta(_pair_for(L, n, L, {"0" * L: n - 1 - j, "1" * L: j}), q, eps)
    cells = orbit_system(L, L, _lie(q))
    la = km.natural_law(cells.clone_law((0, 0)))
    lb = km.natural_law(cells.clone_law((L, 0)))
    pa = km.pair_arrays(cells, ((n - 1 - j, la), (j, lb)))
    assert pa.delta_lower(eps) <= exact <= pa.delta(eps)
    assert pa.delta(eps) - pa.delta_lower(eps) <= 1e-8 * exact + 1e-15


@pytest.mark.parametrize("L, eps0", [(2, "1/2"), (2, "1"), (2, "2"), (3, "1")])
def test_generic_bounds_lie_above_the_attained_lower_bound(L, eps0):
    """Every generic bound holds for K-randomization at eps0 = L log(p/q): each must be at
    least the epsilon an explicit pair attains (independent formulas and code)."""
    n, delta = 1000, 1e-6
    lie = LieProbability(F(eps0), from_eps0=True)
    lo = kb.lower_bound(L, n, lie, delta)
    local = kb.pure_epsilon_bound(L, lie)
    gen = sg.generic_bounds(n, local, delta)
    assert gen["Wang et al."] is not None
    for name, value in gen.items():
        if value is not None:
            assert value >= lo.epsilon, name
    assert lo.epsilon < gen["Wang et al."] < local


def test_fmt_numerical_matches_their_readme():
    """Feldman, McMillan and Talwar's README: n = 1e5, eps0 = 4, delta = 1e-6, numerical
    bound in [0.1675, 0.1728] (their code brackets it by steps of C; summed exactly here)."""
    ref = kp.FMT_README
    value = sg.fmt_numerical(ref["n"], ref["eps0"], ref["delta"])
    assert ref["lower"] <= value <= ref["upper"]


def test_a_broken_lemma_is_caught_by_the_derivation_checks(monkeypatch):
    from dpcheck.derivations import krand_shuffle as ksh

    assert ksh.check_lemma(2, 2, F(1, 4))[0] > 0
    original = ksh._n_experiment_bound
    monkeypatch.setattr(ksh, "_n_experiment_bound", lambda *a: original(*a) / 2)
    with pytest.raises(AssertionError):
        ksh.check_lemma(2, 2, F(1, 4))


def test_a_misplaced_fill_is_caught_by_the_derivation_checks(monkeypatch):
    """Placing the free users where the clone probability is largest is caught."""
    from dpcheck.derivations import krand_shuffle as ksh

    assert ksh.check_least_fill() > 0 and ksh.check_chain_blocks() > 0
    original = kc.least_fill
    monkeypatch.setattr(
        kc, "least_fill", lambda th, lo, hi, free: original([-t for t in th], lo, hi, free)
    )
    with pytest.raises(AssertionError):
        ksh.check_least_fill()


def test_cli_json_reports_upper_and_lower(capsys):
    args = ["krand", "profile", "--L", "2", "--n", "60", "--eps0", "1/2", "--delta", "1e-3"]
    assert main([*args, "--json", "--budget", "60"]) == 0
    d = json.loads(capsys.readouterr().out)
    up, lo = d["upper"], d["lower"]
    assert up["kind"] == "upper bound" and lo["kind"] == "lower bound"
    assert lo["epsilon"] <= up["epsilon"] <= 1.1 * lo["epsilon"]
    assert "x: changed user holds 00" in lo["attained by"]
    assert "clone lemma" in up["established"]
    assert d["upper / lower"] == pytest.approx(up["epsilon"] / lo["epsilon"])
    gen = d["generic shuffle bounds"]
    assert gen["best / upper"] > 1
    assert math.isclose(gen["local epsilon eps0 = L log(p/q)"], 1.0)
    assert main(args) == 0
    text = capsys.readouterr().out
    assert "<= epsilon <=" in text and "generic shuffle bounds" in text


@pytest.mark.parametrize(
    "args, word",
    [
        (["--n", "200000", "--L", "2", "--q", "0.2"], "certified-bound limit n <= 100000"),
        (["--n", "30000", "--L", "3", "--q", "0.2"], "certified-bound limit n <= 20000"),
        (["--n", "100", "--L", "2", "--q", "0.2", "--budget", "0"], "--budget"),
        (["--n", "100", "--L", "2", "--q", "0.2", "--budget", "x"], "--budget"),
    ],
)
def test_cli_bad_input(capsys, args, word):
    assert main(["krand", "profile", *args]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("dpcheck: error:") and word in err and "\n" not in err


def test_plot(tmp_path, capsys):
    out = tmp_path / "b.png"
    args = ["krand", "profile", "--L", "2", "--n", "40", "--q", "1/4", "--delta", "1e-3"]
    assert main([*args, "--plot", str(out), "--budget", "30"]) == 0
    assert out.stat().st_size > 10_000


def test_the_readme_statements_hold_in_the_committed_table():
    """README, zz2016 findings: at n = 1000, delta = 1e-6 the approximate epsilon is below
    the local epsilon, bracketed by lower <= upper, and the §3.1 probabilistic epsilon at
    the attained pair exceeds the attained lower bound in every row, and the certified
    upper one in every row but L = 3, eps0 = 2 (inside the bracket there); the worst pair
    found flips every bit among a background on the changed user's vector."""
    from pathlib import Path

    report = Path(__file__).resolve().parent.parent / "docs" / "krand_bounds.json"
    rows = json.loads(report.read_text(encoding="utf-8"))["settings"]
    assert {(d["L"], round(d["eps0"], 6)) for d in rows if d["n"] == 1000} >= {
        (L, e) for L in (2, 3) for e in (0.5, 1.0, 2.0)
    }
    inside = []  # the rows where the probabilistic epsilon is not above the upper bound
    for d in rows:
        lo, up = d["lower"]["epsilon"], d["upper"]["epsilon"]
        local = d["generic shuffle bounds"]["local epsilon eps0 = L log(p/q)"]
        assert 0 < lo <= up <= local * (1 + 1e-12)
        assert lo < local / 2
        L = d["L"]
        assert d["lower"]["attained by"].startswith(
            f"x: changed user holds {'0' * L}, x': holds {'1' * L}; background of"
        )
        assert d["lower"]["attained by"].endswith(f"x {'0' * L}")
        prob = d["probabilistic"]["epsilon"]
        if prob is not None:
            assert prob > lo
            if prob <= up:
                inside.append((L, round(d["eps0"], 6)))
    assert inside == [(3, 2.0)], inside


@pytest.mark.parametrize(
    "L, vec, n, eps, budget",
    [
        (2, "00", 40, 0.3, 1e-12),
        (2, "01", 40, 0.3, 1e-12),
        (3, "000", 12, 0.5, 1e-12),
        (2, "00", 40, 0.3, 1e-6),
    ],
)
def test_common_n_evaluator_bounds_the_exact_delta(L, vec, n, eps, budget):
    """L - h = 1, every background user on one extreme vector: the common-N evaluator's
    bound is at least the exact delta, and within its Chernoff budget of it."""
    from dpcheck.enumeration import krand_common_n as cn

    q, h = "1/4", L - 1
    exact = _exact_delta(_pair_for(L, n, h, {vec: n - 1}), q, eps)
    cv = kc.Cover(L, h, _lie(q), n, 1e-6, eps)
    u, v = vec[:h].count("1"), vec[h:].count("1")
    parts = [(n - 1, cv._natural(cv.nclone, (u, 0)))]
    bound = cn.delta_common_n(cv.orbit, cv.nclone, parts, cv._natural_n(v), eps, budget)
    assert exact <= bound <= exact + 2 * budget + 1e-8 * exact


@pytest.mark.parametrize("L, vec, n, eps", [(2, "00", 40, 0.3), (3, "000", 12, 0.5)])
@pytest.mark.parametrize("factor", [0.5, 0.999, 1.001, 2.0])
def test_common_n_with_a_target_stays_a_bound_and_decides_alike(L, vec, n, eps, factor):
    """With a target the common-N evaluator may stop refining early: its value is still at
    least the exact delta, at least the fully refined bound, and on the same side of the
    target as the fully refined bound."""
    from dpcheck.enumeration import krand_common_n as cn

    q, h = "1/4", L - 1
    exact = _exact_delta(_pair_for(L, n, h, {vec: n - 1}), q, eps)
    cv = kc.Cover(L, h, _lie(q), n, 1e-6, eps)
    u, v = vec[:h].count("1"), vec[h:].count("1")
    parts = [(n - 1, cv._natural(cv.nclone, (u, 0)))]
    args = (cv.orbit, cv.nclone, parts, cv._natural_n(v), eps, 0.0)
    full = cn.delta_common_n(*args)
    target = factor * full
    fast = cn.delta_common_n(*args, target=target)
    assert exact <= full <= fast
    assert (fast <= target) == (full <= target)


def test_common_n_target_at_scale_decides_like_the_full_sum():
    """n = 1000, L = 3, h = 2 (thousands of mixed T): with the cover's target the value is
    at least the exhaustively summed bound, and on the same side of the target."""
    from dpcheck.enumeration import krand_common_n as cn

    cv = kc.Cover(3, 2, LieProbability(F(1), from_eps0=True), 1000, 1e-6, 0.4064)
    phi = cv._natural_n(1)
    laws = [(m, cv._natural(cv.nclone, (c // 10, c % 10))) for m, c in [(656, 20), (250, 0)]]
    full = cn.delta_common_n(cv.orbit, cv.nclone, laws, phi, 0.3403, 0.0)
    for factor in (0.8, 1.25):
        target = factor * full
        fast = cn.delta_common_n(cv.orbit, cv.nclone, laws, phi, 0.3403, 1e-11, target=target)
        assert full <= fast
        assert (fast <= target) == (full <= target)


def test_upper_bound_budget_leaves_time_for_a_looser_ratio(monkeypatch):
    """The ratio 1.1 may use only ATTEMPT_SHARE of the budget; when it runs out of time
    the search jumps to JUMP_RATIO, then comes back down through the skipped ratios while
    they certify.  (certify_at replaced by a stand-in: ratios >= 1.3 certify, tighter
    ones run out of time.)"""
    calls = []
    lower = 0.2

    def fake(L, n, lie, delta, eps, max_seconds, workers=None):
        r = eps / lower
        calls.append((round(r, 6), max_seconds))
        if r >= 1.3 - 1e-9:
            return True, {}, "settled"
        return False, {3: kc.CoverResult(False, out_of_budget=True)}, "h=3: time budget"

    monkeypatch.setattr(kb, "certify_at", fake)
    up = kb.upper_bound(3, 1000, LieProbability(F(1), from_eps0=True), 1e-6, lower, 100.0)
    ratios = [r for r, _ in calls]
    assert ratios[:2] == [1.1, kb.JUMP_RATIO]
    assert ratios[2:] == [1.3, 1.2]  # 1.2 runs out of time: 1.15 is not tried
    assert calls[0][1] <= kb.ATTEMPT_SHARE * 100.0 + 1e-9
    assert up.ratio == pytest.approx(1.3) and up.epsilon == pytest.approx(1.3 * lower)


def test_common_n_chernoff_settling_stays_above_the_exact_sum():
    """n = 1000, L = 3, h = 2: with a Chernoff budget the bound is at least the one summed
    exactly over every T (budget 0), and exceeds it by at most twice the budget."""
    from dpcheck.enumeration import krand_common_n as cn

    cv = kc.Cover(3, 2, LieProbability(F(1), from_eps0=True), 1000, 1e-6, 0.4064)
    phi = cv._natural_n(1)  # thousands of mixed T settled by Chernoff, both forms used
    for parts in ([(656, 20), (250, 0)], [(998, 20)]):
        laws = [(m, cv._natural(cv.nclone, (c // 10, c % 10))) for m, c in parts]
        full = cn.delta_common_n(cv.orbit, cv.nclone, laws, phi, 0.3403, 0.0)
        for budget in (1e-9, 1e-8):
            fast = cn.delta_common_n(cv.orbit, cv.nclone, laws, phi, 0.3403, budget)
            assert full <= fast <= full + 2 * budget + 1e-8 * full, (parts, budget)


def test_chernoff_settle_bounds_the_exact_positive_part():
    """Each point's bound is at least E[(C + sum W_k h_k)_+] summed exactly over the
    binomials (mpmath), and exceeds it by at most its slack."""
    import itertools

    import numpy as np
    from scipy.stats import binom

    from dpcheck.enumeration import krand_common_n as cn

    rng = np.random.default_rng(21)
    t0, K, N = 0.3, 3, 400
    T = [rng.integers(1, 9, N).astype(float) for _ in range(K)]
    W = [rng.normal(size=N) for _ in range(K)]
    mean0 = sum(W[k] * T[k] * t0 for k in range(K))
    C = -mean0 + rng.normal(size=N) * 2  # around zero: both forms get used
    mean = C + mean0
    bound, slack, by_mean = cn.chernoff_settle(C, W, T, mean, t0)
    assert 0 < by_mean.sum() < N
    for i in range(N):
        exact = mpmath.mpf(0)
        for hs in itertools.product(*(range(int(T[k][i]) + 1) for k in range(K))):
            x = mpmath.mpf(C[i]) + sum(mpmath.mpf(W[k][i]) * hs[k] for k in range(K))
            if x > 0:
                pr = mpmath.mpf(1)
                for k in range(K):
                    pr *= mpmath.mpf(binom.pmf(hs[k], int(T[k][i]), t0))
                exact += x * pr
        assert float(exact) <= bound[i] * (1 + 1e-9) + 1e-12, i
        assert bound[i] - float(exact) <= slack[i] * (1 + 1e-6) + 1e-12, i


def test_monotone_reuses_the_nearest_smaller_count():
    known = kc.MonotoneND()
    known.add((50,), 0.1)
    known.add((10,), 0.5)
    assert known.known == [((50,), 0.1), ((10,), 0.5)]
    # a bound at M: the least one at an evaluated count <= M (delta_N falls in M)
    assert [known.above((m,)) for m in (5, 10, 30, 50, 60)] == [1.0, 0.5, 0.5, 0.1, 0.1]
    # an estimate from below: the largest at a count >= M
    assert [known.below((m,)) for m in (5, 10, 30, 50, 60)] == [0.5, 0.5, 0.1, 0.1, 0.0]


def test_common_n_dominance():
    known = [((10, 0, 5), 1e-7), ((3, 0, 2), 2e-6)]
    target = 1e-6
    assert kc._dominated(known, (12, 0, 5), target) == 1e-7  # more clones: settled
    assert kc._dominated(known, (2, 0, 1), target) == 1.0  # fewer than a failure
    assert kc._dominated(known, (9, 0, 9), target) is None  # neither: evaluate
    assert kc._dominated(known, (4, 0, 1), target) is None


def _reuse_scenario() -> tuple[float, float, float]:
    """A single-law bound computed for a box of many clones (a large count M), then the
    bound of the whole simplex (small counts): (its bound, the same blocks with certified
    lower bounds on delta_N at each count, delta)."""
    cov = kc.Cover(2, 2, LieProbability(F(1), from_eps0=True), 200, 1e-6, 0.75)
    cells, S = cov.orbit, 199
    law = cov._single_law(cells, cov.classes[0])
    seen: dict = {}
    original = cov._by_blocks

    def spy(groups, family, rounded, evaluate, *args):  # type: ignore[no-untyped-def]
        seen.update(groups=groups, rounded=rounded)
        return original(groups, family, rounded, evaluate, *args)

    cov._by_blocks = spy  # type: ignore[method-assign]
    assert cov._single(cells, law, (150, 0, 0), (S, S - 150, S - 150)) <= cov.delta
    bound = cov._single(cells, law, (0, 0, 0), (S, S, S))
    lower = kc.chain_bound(
        [kc.block_cdf(seen["groups"])],
        lambda M: ks.delta_single(cells, law, seen["rounded"](M[0]), cov.eps, lower=True),
        math.inf,
    )
    return bound, lower, cov.delta


def test_reused_bounds_never_settle_below_the_lower_bounds():
    """Soundness of reusing bounds across boxes: a box settled from known bounds has a
    bound no smaller than the same blocks evaluated with certified lower bounds."""
    bound, lower, delta = _reuse_scenario()
    assert bound > delta or bound >= lower, (bound, lower)


def test_reusing_a_larger_count_is_caught(monkeypatch):
    """Mutation: taking the bound of the nearest *larger* count (delta_N falls in M, so
    that is no bound) settles the simplex far below its lower bound; the test above fails."""

    def wrong(self, M):  # type: ignore[no-untyped-def]
        larger = [b for k, b in self.known if all(a >= m for a, m in zip(k, M, strict=True))]
        return min(larger, default=1.0)

    monkeypatch.setattr(kc.MonotoneND, "above", wrong)
    bound, lower, delta = _reuse_scenario()
    assert bound <= delta < lower


def test_reuse_keeps_the_certificate_and_saves_evaluations(monkeypatch):
    """The same certificate (L = 2, n = 200, 1.1 x the attained lower bound) with and
    without reusing known bounds; reuse needs fewer evaluations."""
    lie = LieProbability(F(1), from_eps0=True)
    eps = 1.1 * kb.lower_bound(2, 200, lie, 1e-6).epsilon
    ok, with_reuse, _ = kb.certify_at(2, 200, lie, 1e-6, eps)
    monkeypatch.setattr(kc.MonotoneND, "above", lambda self, M: 1.0)
    monkeypatch.setattr(kc.MonotoneND, "below", lambda self, M: 0.0)
    monkeypatch.setattr(kc, "_dominated", lambda known, vec, target: None)
    ok_fresh, fresh, _ = kb.certify_at(2, 200, lie, 1e-6, eps)
    assert ok and ok_fresh
    used = sum(r.evaluations for r in with_reuse.values())
    used_fresh = sum(r.evaluations for r in fresh.values())
    assert used < used_fresh, (used, used_fresh)


def test_folded_configurations_are_the_cyclic_sums():
    """km.folded puts every count vector c at c - origin modulo the box (the input of the
    cyclic convolution): checked against a plain loop."""
    rng = np.random.default_rng(1)
    sub = rng.integers(0, 40, size=(200, 3))
    sub = np.unique(sub, axis=0)
    cf = km.Configs(sub, rng.random(len(sub)), 0.0, 0.0)
    shape, origin = (7, 11, 5), np.array([3, 30, 12])
    want = np.zeros(shape)
    for row, w in zip(sub, cf.w, strict=True):
        want[tuple((row - origin) % np.array(shape))] += w
    assert np.allclose(km.folded(cf, shape, origin), want, rtol=1e-15, atol=0)
    assert np.allclose(km.folded(cf, shape), np.roll(want, tuple(origin), axis=(0, 1, 2)))


def test_side_cache_drops_the_least_recently_used_beyond_its_bytes(monkeypatch):
    """The sorted-side cache keeps at most SIDE_CACHE_BYTES (the newest side always)."""
    def side(k: int) -> ks._Side:
        a = np.zeros(k)
        return ks._Side(a, a, a, a, a, 0.0, 0.0)

    monkeypatch.setattr(ks, "SIDE_CACHE_BYTES", 5 * 8 * 100)  # five arrays of 100 floats
    cache = ks._SideCache()
    cache.put(("a",), side(50))
    cache.put(("b",), side(50))
    assert cache.get(("a",)) is not None  # a is now the most recently used
    cache.put(("c",), side(50))  # 3 x 2000 bytes > 4000: b goes
    assert cache.get(("b",)) is None and cache.get(("a",)) is not None
    assert cache.bytes == 2 * 5 * 8 * 50
    cache.put(("d",), side(1000))  # larger than the limit alone: kept, the rest dropped
    assert cache.get(("d",)) is not None and cache.get(("a",)) is None
    assert cache.bytes == 5 * 8 * 1000


# ---------------------------------------------------------------- parallel covers
def test_affinity_runs_every_h_once():
    from dpcheck.enumeration.krand_workers import affinity

    for L in (1, 2, 3, 4, 5):
        for w in (1, 2):
            groups = affinity(L, w)
            assert len(groups) <= w
            assert sorted(h for g in groups for h in g) == list(range(1, L + 1))
    assert affinity(3, 2) == [[3, 1], [2]]


def test_parallel_covers_give_the_sequential_certificate():
    """The covers side by side on persistent workers are the sequential covers (the same
    boxes, tools and evaluations), also at a second epsilon on the same workers."""
    from dpcheck.enumeration.krand_workers import CoverWorkers

    lie = LieProbability(F(1), from_eps0=True)
    lower = kb.lower_bound(3, 100, lie, 1e-3).epsilon
    with CoverWorkers(2) as workers:
        for ratio in (1.2, 1.3):
            ok1, seq, why1 = kb.certify_at(3, 100, lie, 1e-3, ratio * lower)
            ok2, par, why2 = kb.certify_at(3, 100, lie, 1e-3, ratio * lower, workers=workers)
            assert ok1 and ok2 and why1 == why2 == "settled", (why1, why2)
            assert sorted(seq) == sorted(par) == [1, 2, 3]
            for h in seq:
                assert [(s.lo, s.hi, s.tool) for s in seq[h].settled] == [
                    (s.lo, s.hi, s.tool) for s in par[h].settled
                ]
                assert seq[h].evaluations == par[h].evaluations


def test_parallel_covers_report_a_failure_and_stop_the_others():
    """Below the attained lower bound no cover may settle: in parallel as in sequence the
    failing h is named; the workers stay usable for the next attempt."""
    from dpcheck.enumeration.krand_workers import CoverWorkers

    lie = LieProbability(F(1), from_eps0=True)
    lower = kb.lower_bound(3, 100, lie, 1e-3).epsilon
    ok_seq, _, why_seq = kb.certify_at(3, 100, lie, 1e-3, 0.9 * lower)
    with CoverWorkers(2) as workers:
        ok, res, why = kb.certify_at(3, 100, lie, 1e-3, 0.9 * lower, workers=workers)
        assert not ok_seq and not ok and "not settled" in why, (why_seq, why)
        failed = [h for h, r in res.items() if not r.ok and not r.stopped]
        assert failed and all(r.failed is not None for h, r in res.items() if h in failed)
        assert workers.stop.is_set() is False
        ok, _, why = kb.certify_at(3, 100, lie, 1e-3, 1.3 * lower, workers=workers)
        assert ok, why


def test_a_failing_worker_is_reported(monkeypatch):
    """An exception in a worker's cover reaches the caller as an error naming h (the
    workers are forked after the patch, so they run it)."""
    from dpcheck.enumeration import krand_workers as kw

    def broken(self, *a, **k):  # type: ignore[no-untyped-def]
        raise ZeroDivisionError("planted")

    monkeypatch.setattr(kw.Cover, "run", broken)
    lie = LieProbability(F(1), from_eps0=True)
    with kw.CoverWorkers(2) as workers, pytest.raises(RuntimeError, match="planted"):
        kb.certify_at(2, 50, lie, 1e-3, 1.0, workers=workers)


def test_a_stopped_cover_is_neither_settled_nor_failed():
    lie = LieProbability(F(1), from_eps0=True)
    res = kc.Cover(2, 2, lie, 50, 1e-3, 1.0).run(stop=lambda: True)
    assert res.stopped and not res.ok and res.failed is None and not res.settled


# ---------------------------------------------------------------- multi tool, free users
def _multi_box_check(
    L: int,
    n: int,
    q: str,
    eps: float,
    lo,
    hi,
    tool="_multi",
    h: int | None = None,
    primed=(),
) -> tuple[float, float]:
    """(the multi (or own) tool's bound for the box, the largest exact delta over the
    backgrounds whose class composition lies in it); h = L on the orbit cells, or h < L on
    the N-clone cells (classes (|x_B|, |x_N|) in the cover's order).  The tool is first
    run on the ``primed`` boxes (lo, hi), whose bounds the box may reuse."""
    import itertools

    h = L if h is None else h
    cov = kc.Cover(L, h, _lie(q), n, 1.0, eps)
    cells = cov.orbit if h == L else cov.nclone
    run = tool if callable(tool) else lambda cov, *box: getattr(cov, tool)(*box)
    for plo, phi in primed:
        run(cov, cells, plo, phi)
    bound = run(cov, cells, lo, hi)
    worst = 0.0
    vecs = [format(v, f"0{L}b") for v in range(2**L)]
    for combo in itertools.combinations_with_replacement(vecs, n - 1):
        comp = [0] * len(cov.classes)
        for v in combo:
            comp[cov.classes.index((v[:h].count("1"), v[h:].count("1")))] += 1
        if all(a <= m <= b for a, m, b in zip(lo, comp, hi, strict=True)):
            bg: dict[str, int] = {}
            for v in combo:
                bg[v] = bg.get(v, 0) + 1
            worst = max(worst, _exact_delta(_pair_for(L, n, h, bg), q, eps))
    return bound, worst


@pytest.mark.parametrize(
    "L, n, q, eps, lo, hi",
    [
        (2, 7, "1/4", 0.9, (1, 1, 0), (5, 5, 4)),
        (2, 7, "3/8", 0.5, (0, 2, 0), (4, 6, 4)),
        (3, 4, "3/8", 0.6, (0, 1, 0, 0), (2, 3, 2, 2)),
    ],
)
def test_multi_tool_with_free_users_bounds_every_background_in_the_box(L, n, q, eps, lo, hi):
    """The users beyond the lower corner count as mid-law clones placed where theta is
    least, up to each class's room (least_fill): the bound still lies above the exact delta
    of every background of the box (every vector, not only every class composition)."""
    bound, worst = _multi_box_check(L, n, q, eps, lo, hi)
    assert worst > 1e-6
    assert worst <= bound, (worst, bound)


@pytest.mark.parametrize(
    "L, n, q, eps, lo, hi",
    [
        (3, 4, "3/8", 0.6, (0, 1, 1, 0), (1, 2, 2, 1)),
        (3, 4, "1/4", 1.2, (0, 1, 2, 0), (0, 1, 2, 0)),
        (3, 5, "1/8", 2.5, (1, 1, 1, 0), (2, 2, 2, 1)),
    ],
)
def test_own_laws_tool_bounds_every_background_in_the_box(L, n, q, eps, lo, hi):
    """Each middle class as clones of its own law (Bin(lo_c, theta_c), a chain of corners),
    the users beyond the lower corner revealed: above the exact delta of every background
    of the box, every vector (the middle classes' vectors need not be alike)."""
    bound, worst = _multi_box_check(L, n, q, eps, lo, hi, tool="_own")
    assert worst > 1e-6
    assert worst <= bound, (worst, bound)


def test_own_laws_tool_on_the_nclone_cells_bounds_every_background_in_the_box():
    """The same at h = 2 < L = 3 on the N-clone cells (classes (0, 0), (0, 1), (1, 0),
    (1, 1), (2, 0), (2, 1); two of them not extreme there)."""
    bound, worst = _multi_box_check(
        3, 5, "1/4", 0.8, (1, 1, 1, 0, 0, 0), (2, 2, 2, 1, 1, 1), tool="_own", h=2
    )
    assert worst > 1e-6
    assert worst <= bound < 1.0, (worst, bound)


def _rest_tool(cov, cells, lo, hi):  # type: ignore[no-untyped-def]
    """The two-law tool with the class (0, 0) exact."""
    return cov._rest(cells, (0, 0), lo, hi)


@pytest.mark.parametrize("tool", ["_multi", _rest_tool])
def test_bounds_at_fewer_exact_users_are_reused(tool, monkeypatch):
    """delta_N falls in the exact (extreme-class) users' counts too, so a multi-law bound
    computed with fewer of them serves a box with more: primed by a box with fewer, the
    box's bound still lies above the exact delta of every background in it; primed by one
    with more, the box cannot reuse it.  Mutation: comparing the clone counts alone
    (reusing a bound at more exact users) settles a box below its exact delta."""
    L, n, q, eps = 2, 7, "1/4", 0.9
    lo, hi = (1, 1, 0), (5, 5, 4)
    fewer, more = ((1, 1, 0), (1, 1, 0)), ((5, 1, 0), (5, 1, 0))
    for primed in ((), (fewer,), (more,)):
        bound, worst = _multi_box_check(L, n, q, eps, lo, hi, tool=tool, primed=primed)
        assert worst > 1e-6 and worst <= bound, (primed, worst, bound)
    monkeypatch.setattr(
        kc.MonotoneND,
        "above",
        lambda self, M: min((b for k, b in self.known if k[-1] <= M[-1]), default=1.0),
    )
    bound, worst = _multi_box_check(L, n, q, eps, lo, hi, tool=tool, primed=(more,))
    assert bound < worst, (bound, worst)


@pytest.mark.parametrize(
    "groups, rates",
    [
        ([(30, 0.3)], (0.2,)),
        ([(30, 0.3), (20, 0.6)], (0.2, 0.15)),
        ([(12, 0.5), (9, 0.9), (15, 0.2)], (1.0, 0.8, 1.5)),
        ([(400, 0.66), (500, 0.66)], (0.02, 0.01)),
    ],
)
def test_chain_bound_lies_above_the_expectation(groups, rates):
    """E f(M_1, ..., M_k) for independent binomials and a decreasing f (not a product),
    summed over every count vector, against the chain of corners (k = 1: the blocks of one
    count); a bound that evaluates every block at the largest counts, or (up to two counts)
    each block at the next corner up (f decreasing: understatements), is caught."""

    def f(M):
        return 1.0 / (1.0 + sum(r * m for r, m in zip(rates, M, strict=True))) ** 2

    pm = [kc.bernoulli_sum_pmf([g]) for g in groups]
    cdfs = [np.cumsum(p) for p in pm]
    grids = np.meshgrid(*(np.arange(len(p)) for p in pm), indexing="ij", sparse=True)
    weight = np.ones(())
    for p in np.ix_(*pm):
        weight = weight * p
    denominator = 1.0 + sum(r * g for r, g in zip(rates, grids, strict=True))
    exact = float((weight / denominator**2).sum())
    bound = kc.chain_bound(cdfs, f, math.inf)
    assert exact <= bound <= 30 * exact, (exact, bound)
    corners = kc.chain_corners(cdfs, kc.LEVELS)

    def next_corner(M):
        j = corners.index(M)
        return f(corners[j + 1]) if j + 1 < len(corners) else f(top)

    top = tuple(len(p) - 1 for p in pm)
    assert kc.chain_bound(cdfs, lambda M: f(top), math.inf) < exact
    if len(groups) <= 2:  # with three counts the chain is loose enough to stay above
        assert kc.chain_bound(cdfs, next_corner, math.inf) < exact


def test_float_laws_of_the_extreme_classes_are_accounted_for():
    """The extreme classes' float laws are their exact laws only up to rounding: a tool
    counting their users as sure clones adds P(not all clones) (tiny, positive), and a
    lower bound subtracts the total variation the float laws may move delta by."""
    lie = LieProbability(F(1), from_eps0=True)
    cov = kc.Cover(3, 3, lie, 1000, 1e-6, 0.4)
    slack = cov._not_all_clones(cov.orbit, [((0, 0), 999)])
    assert 0 < slack < 1e-11
    lo, hi = (900, 50, 49, 0), (900, 50, 49, 0)
    with_slack = cov._multi(cov.orbit, lo, hi)
    cov2 = kc.Cover(3, 3, lie, 1000, 1e-6, 0.4)
    cov2._not_all_clones = lambda cells, counts: 0.0
    assert with_slack - cov2._multi(cov2.orbit, lo, hi) == pytest.approx(slack, rel=1e-3)
    gap = kb.law_gap(cov.orbit, (0, 0), km.natural_law(cov.orbit.clone_law((0, 0))))
    assert 0 <= gap < 1e-14
    assert kb._exact_laws(lambda e: 1e-6, 1e-9)(0.0) == pytest.approx(1e-6 - 2e-9, rel=1e-9)


def test_monotone_nd_uses_dominated_vectors_only():
    mono = kc.MonotoneND()
    mono.add((10, 20), 0.5)
    mono.add((30, 5), 0.2)
    assert mono.above((10, 20)) == 0.5 and mono.above((40, 25)) == 0.2
    assert mono.above((20, 10)) == 1.0  # neither is <= (20, 10)
    assert mono.below((5, 5)) == 0.5 and mono.below((40, 40)) == 0.0


def _bernoulli_sum_cdf(counts, thetas) -> np.ndarray:
    pmf = np.ones(1)
    for m, t in zip(counts, thetas, strict=True):
        for _ in range(m):
            pmf = np.convolve(pmf, [1 - t, t])
    return np.cumsum(pmf)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 3), st.integers(0, 4), st.floats(0.0, 1.0)), min_size=1,
             max_size=4),
    st.data(),
)
def test_least_fill_is_stochastically_smallest(classes, data):
    """Over every placement e of the free users in a box (0 <= e <= hi - lo, sum e =
    free), the greedy one's clone count (Bernoullis of the classes' thetas) has the
    largest cdf everywhere: it is stochastically smallest, so a bound nonincreasing in the
    count at the greedy placement holds for the box."""
    import itertools

    lo = [a for a, _, _ in classes]
    hi = [a + r for a, r, _ in classes]
    th = [t for _, _, t in classes]
    room = sum(b - a for a, b in zip(lo, hi, strict=True))
    free = data.draw(st.integers(0, room))
    extra = kc.least_fill(th, lo, hi, free)
    assert sum(extra) == free
    assert all(0 <= e <= b - a for e, a, b in zip(extra, lo, hi, strict=True))
    greedy = _bernoulli_sum_cdf(extra, th)
    for e in itertools.product(*(range(b - a + 1) for a, b in zip(lo, hi, strict=True))):
        if sum(e) == free:
            other = _bernoulli_sum_cdf(e, th)
            assert np.all(greedy >= other[: len(greedy)] - 1e-12), (e, extra)


def test_upper_bound_uses_workers_only_where_they_pay(monkeypatch):
    """Two workers for L = 2, 3 up to PARALLEL_MAX_N users; in this process for L = 1, 4
    and larger n (processes=1 forces it)."""
    seen = []
    monkeypatch.setattr(kb, "_upper_bound", lambda *a: seen.append(a[-1]) or a[-1])
    monkeypatch.setattr(kb, "PROCESSES", 2)
    lie = LieProbability(F(1), from_eps0=True)
    for L, n, processes in ((2, 1000, None), (3, 1000, None), (4, 1000, None), (2, 10**4, None),
                            (1, 1000, None), (3, 1000, 1)):
        kb.upper_bound(L, n, lie, 1e-6, 0.1, processes=processes)
    used = [w is not None for w in seen]
    assert used == [True, True, False, False, False, False]
