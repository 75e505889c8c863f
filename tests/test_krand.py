"""K-randomization (Zhilyaev and Zeber 2016): exact laws, privacy ratios, profiles, CLI."""

from __future__ import annotations

import json
import math
from fractions import Fraction as F

import pytest

from dpcheck.cli import main
from dpcheck.enumeration import krand
from dpcheck.enumeration import krand_profile as kp
from dpcheck.errors import InputError

QS = (F(1, 4), F(1, 3), F(2, 7), F(1, 10))


@pytest.mark.parametrize(
    "L, collection",
    [
        (1, [0, 1, 1]),
        (1, [1, 1, 0, 0, 1]),
        (2, [0, 3]),
        (2, [0, 1, 2, 3]),
        (2, [1, 1, 2]),
        (3, [0, 7]),
    ],
)
@pytest.mark.parametrize("q", [F(1, 4), F(2, 7)])
def test_law_matches_brute_force(L, collection, q):
    law = krand.histogram_law(krand.types_of(collection, L), L, q)
    bf = krand.brute_force_law(collection, L, q)
    assert law.num == bf.num and law.den == bf.den
    assert law.total() == 1
    assert len(law) == krand.outcome_count(len(collection), L)


@pytest.mark.parametrize("q", QS)
def test_l1_pmf_rows_recursions_and_histogram(q):
    n = 9
    rows, den = krand.pmf_rows(n, q)
    prev, pden = krand.pmf_rows(n - 1, q)
    for m in range(n + 1):
        row = [F(c, den) for c in rows[m]]
        assert sum(row) == 1
        assert row == krand.pmf(n, m, q)
        prow = [F(c, pden) for c in prev[m - 1]] if m >= 1 else None
        if m >= 1:  # (4.1): the added user holds a 1
            assert row == krand.recursion_step(prow, True, q)
        if m <= n - 1:  # (4.2): the added user holds a 0
            assert row == krand.recursion_step([F(c, pden) for c in prev[m]], False, q)
        law = krand.histogram_law((n - m, m), 1, q)  # reports (0, 1): s ones is (n - s, s)
        assert all(law.prob((n - s, s)) == row[s] for s in range(n + 1))


@pytest.mark.parametrize("q", QS)
def test_max_ratio_l1_is_p_over_q(q):
    for n in range(1, 21):
        r = krand.max_ratio_L1(n, q)
        assert r.ratio == (1 - q) / q
    assert krand.max_ratio(6, 1, q).ratio == (1 - q) / q


@pytest.mark.parametrize("n, L", [(1, 2), (3, 2), (5, 2), (2, 3)])
def test_max_ratio_general_l(n, L):
    q = F(1, 4)
    r = krand.max_ratio(n, L, q)
    assert r.ratio == ((1 - q) / q) ** L
    assert krand.privacy_ratio(r.s, r.x, r.x_prime, L, q) == r.ratio


@pytest.mark.parametrize("q", [F(1, 4), F(1, 10)])
def test_hockey_stick_zero_at_pure_epsilon(q):
    n = 15
    r = (1 - q) / q
    assert krand.delta_exact_L1(n, q, r) == 0
    assert krand.delta_exact_L1(n, q, r * F(9, 10)) > 0
    # float route agrees with the exact one at a rational e^eps
    eps = math.log(F(3, 2))
    exact = krand.delta_exact_L1(n, q, F(3, 2))
    assert math.isclose(kp.delta_at_epsilon(n, float(q), eps), float(exact), rel_tol=1e-9)
    assert kp.delta_at_epsilon(n, float(q), math.log(float(r))) < 1e-15


def test_epsilon_of_delta_decreasing_and_consistent():
    q = 0.1
    eps = [kp.epsilon_at_delta(200, q, d).epsilon for d in (1e-9, 1e-6, 1e-3, 1e-1)]
    assert all(a > b for a, b in zip(eps, eps[1:], strict=False))
    pr = kp.epsilon_at_delta(200, q, 1e-6)
    assert pr.exhaustive and kp.delta_at_epsilon(200, q, pr.epsilon) <= 1e-6 * (1 + 1e-9)
    assert kp.delta_at_epsilon(200, q, pr.epsilon * (1 - 1e-6)) > 1e-6
    prob = [kp.probabilistic_epsilon(200, q, d).epsilon for d in (1e-9, 1e-6, 1e-3)]
    assert all(a >= b for a, b in zip(prob, prob[1:], strict=False))
    assert prob[1] <= kp.pure_epsilon(q)


def test_float_profile_vs_exact_small_n():
    """delta(eps) from the float windows = the exact rational hockey-stick (n = 30)."""
    q = F(1, 5)
    for r in (F(5, 4), F(2), F(3)):
        exact = krand.delta_exact_L1(30, q, r)
        assert math.isclose(kp.delta_at_epsilon(30, 0.2, math.log(r)), float(exact), rel_tol=1e-9)


def test_probabilistic_vs_exact_small_n():
    q = F(1, 4)
    n, delta = 12, 1e-3
    rows, den = krand.pmf_rows(n, q)
    best = 0.0
    for m in range(1, n + 1):
        for a, b in ((rows[m], rows[m - 1]), (rows[m - 1], rows[m])):
            items = sorted(((F(x, y), F(x, den)) for x, y in zip(a, b, strict=True)), reverse=True)
            mass = F(0)
            for ratio, pm in items:
                mass += pm
                if mass > F(delta):
                    best = max(best, math.log(ratio))
                    break
    assert math.isclose(kp.probabilistic_epsilon(n, 0.25, delta).epsilon, best, rel_tol=1e-9)


def test_n_1e5_below_fmt_and_confirmed():
    q = kp.q_from(eps0=4)
    d = kp.summary(100000, 1, eps0=4, delta=1e-6)
    eps = d["approximate"]["epsilon"]
    # key renamed from "exact <= FMT upper bounds" (the comparison is now worded by kind)
    assert 0.05 < eps < kp.FMT_README["upper"] and d["epsilon <= FMT upper bounds"]
    assert d["approximate"]["kind"] == "exact" and "exact epsilon" in d["FMT comparison"]
    assert float(d["approximate"]["mpmath delta at epsilon"]) <= 1e-6
    c = kp.confirm(100000, d["approximate"]["worst background m"], q, eps * 0.999)
    assert float(c["delta"]) > 1e-6


def test_confirm_matches_exact_small_n():
    q = F(1, 4)
    exact = max(
        krand.hockey_stick_exact(krand.pmf(40, m, q), krand.pmf(40, m - 1, q), F(3, 2))
        for m in (40,)
    )
    c = kp.confirm(40, 40, "0.25", math.log(1.5))
    assert math.isclose(float(c["delta"]), float(exact), rel_tol=1e-12)


def test_cli_profile(capsys, tmp_path):
    assert main(["krand", "profile", "--n", "50", "--L", "1", "--q", "1/4", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert (
        math.isclose(d["pure epsilon"], math.log(3)) and d["local RR epsilon"] == d["pure epsilon"]
    )
    assert 0 < d["approximate"]["epsilon"] < d["pure epsilon"]
    out = tmp_path / "c.png"
    assert (
        main(["krand", "profile", "--n", "20", "--L", "1", "--eps0", "1", "--plot", str(out)]) == 0
    )
    text = capsys.readouterr().out
    assert "approximate (eps, delta)" in text and "probabilistic" in text and out.stat().st_size > 0
    assert main(["krand", "profile", "--n", "4", "--L", "3", "--q", "0.1"]) == 0
    text = capsys.readouterr().out
    assert "exhaustive over every background" in text and "probabilistic" in text


@pytest.mark.parametrize(
    "args, word",
    [
        (["--n", "0", "--L", "1", "--q", "0.2"], "--n 0"),
        (["--n", "5", "--L", "0", "--q", "0.2"], "--L 0"),
        (["--n", "5", "--L", "1", "--q", "0.5"], "q = 0.5"),
        (["--n", "5", "--L", "1", "--q", "0"], "q = 0"),
        (["--n", "5", "--L", "1", "--q", "abc"], "abc"),
        (["--n", "5", "--L", "1", "--eps0", "-1"], "eps0"),
        (["--n", "100000000", "--L", "1", "--q", "0.2"], "ceiling of 1 000 000 for krand"),
        (["--n", "5", "--L", "40", "--q", "0.2"], "ceiling of 20 for krand profile --L"),
        (["--n", "5", "--L", "1", "--q", "0.2", "--delta", "2"], "delta"),
        (["--n", "5", "--L", "2", "--q", "0.2", "--delta", "0"], "delta"),
        (["--n", "5", "--L", "2", "--q", "0.2", "--delta", "1"], "delta"),
        (["--n", "5", "--L", "2", "--q", "0.7"], "q = 0.7"),
        (["--n", "5", "--L", "2", "--q", "-0.1"], "q = -0.1"),
        (["--n", "200000", "--L", "2", "--q", "0.2"], "certified-bound limit n <= 100000"),
        (["--n", "6", "--L", "14", "--q", "0.2"], "profile limit n <= 3 for L = 14"),
        (["--n", "5", "--L", "21", "--q", "0.2"], "ceiling of 20 for krand profile --L"),
    ],
)
def test_cli_bad_input(capsys, args, word):
    assert main(["krand", "profile", *args]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("dpcheck: error:") and word in err and "\n" not in err


def test_api_bad_input():
    with pytest.raises(InputError, match="MAX_OUTCOMES"):
        krand.histogram_law((40, 0, 0, 0, 0, 0, 0, 0), 3, F(1, 4))
    with pytest.raises(InputError):
        krand.pmf(5, 6, F(1, 4))


def test_plots(tmp_path):
    from dpcheck.plots import krand as pk

    g = pk.log_ratio_grid(12, F(1, 4))
    assert abs(g).max() == pytest.approx(math.log(3))
    assert g[:, 0] == pytest.approx(math.log(3))
    assert pk.plot_log_ratio_heatmap(tmp_path / "h.png", 12, "1/4").stat().st_size > 0
    assert pk.plot_epsilon_curves(tmp_path / "e.png", [10, 100], 0.1, [1e-6, 1e-3]).exists()


def test_fmt_closed_form_matches_their_code_at_the_readme_example():
    """closedformanalysis(1e5, 4, 1e-6) of apple/ml-shuffling-amplification, by hand: 0.5379."""
    from dpcheck.enumeration import krand_profile as kp

    assert abs(kp.fmt_closed_form(100_000, 4.0, 1e-6) - 0.53788) < 5e-4
    assert kp.fmt_closed_form(1000, 4.0, 1e-6) is None  # outside eps0 <= log(n/(16 log(4/delta)))


# --------------------------------------------------------------------------- L >= 2 profiles
from dpcheck.enumeration import krand_profile_general as kg  # noqa: E402


def test_simplex_ranks_and_add_user():
    import numpy as np

    for N, K in ((5, 3), (4, 4), (7, 2), (3, 6)):
        S = kg.simplex(N, K)
        assert len(S) == kg.simplex_size(N, K) and (S.sum(axis=1) == N).all()
        assert len({tuple(r) for r in S}) == len(S)
        S1, R = kg.simplex(N + 1, K), kg._shift_ranks(N, K)
        for c in range(K):
            assert (S1[R[c]] == S + np.eye(K, dtype=int)[c]).all()
    probs = [0.2, 0.5, 0.3]
    assert np.allclose(
        kg.add_user(kg.multinomial_law(3, probs), 3, probs), kg.multinomial_law(4, probs)
    )


def test_loss_curve_matches_bisection_and_quantile():
    """The closed form on loss intervals = the L = 1 bisection and quantile routines."""
    import numpy as np

    rng = np.random.default_rng(1)
    for _ in range(60):
        P, Q = rng.random(25) ** 3, rng.random(25) ** 3
        P, Q = P / P.sum(), Q / Q.sum()
        lc = kg.LossCurve.of(P, Q)
        for d in (0.3, 1e-1, 1e-3, 1e-6):
            a = lc.eps_approx(d)
            assert a == pytest.approx(kp._eps_of_delta(P, Q, d, 50.0), rel=1e-9, abs=1e-12)
            assert lc.eps_prob(d) == kp._eps_prob(P, Q, d)
            assert a <= lc.eps_prob(d) + 1e-12  # delta(eps) <= P[loss > eps]


def _exact_values(pair, q, deltas):
    import numpy as np

    _, pn, qn, den = kg.exact_pair_laws(pair, q)
    lc = kg.LossCurve.of(np.array([c / den for c in pn]), np.array([c / den for c in qn]))
    return [(lc.eps_approx(d), lc.eps_prob(d)) for d in deltas]


@pytest.mark.parametrize(
    "pair",
    [
        kg.family_pair(5, 2, 3),
        kg.family_pair(4, 3, 0),
        kg.g_pair(6, 2, 2),
        kg.g_pair(4, 3, 1),
        kg.g_pair(3, 4, 2),
        kg.Pair(2, (1, 2, 0, 1), 1),
        kg.Pair(3, (1, 0, 1, 0, 0, 0, 1, 0), 6),
    ],
)
def test_class_histograms_are_sufficient(pair):
    """Profiles on the class histograms = profiles on the report histograms (exact laws)."""
    import numpy as np

    deltas = (0.2, 1e-2, 1e-5)
    P, Q = kg.reduced_laws(pair, 0.25)
    lc = kg.LossCurve.of(P, Q)
    for (a, b), d in zip(_exact_values(pair, F(1, 4), deltas), deltas, strict=True):
        assert lc.eps_approx(d) == pytest.approx(a, rel=1e-9)
        assert lc.eps_prob(d) == pytest.approx(b, rel=1e-9)
    assert (
        float(np.sum(P)) == pytest.approx(1.0) and len(P) < krand.outcome_count(pair.n, pair.L) + 1
    )


@pytest.mark.parametrize("n", [5, 12])
def test_general_code_at_l1_equals_l1_code(n):
    deltas = [0.2, 1e-2, 1e-4, 1e-8]
    ex = kg.exhaustive_profile(n, 1, F(1, 4), deltas)
    fam = kg.family_profile(n, 1, 0.25, deltas)
    for i, d in enumerate(deltas):
        want = kp.epsilon_at_delta(n, 0.25, d).epsilon
        assert ex.approximate[i].epsilon == pytest.approx(want, rel=1e-9, abs=1e-12)
        assert fam.approximate[i].epsilon == pytest.approx(want, rel=1e-9, abs=1e-12)
        wantp = kp.probabilistic_epsilon(n, 0.25, d).epsilon
        assert ex.probabilistic[i].epsilon == pytest.approx(wantp, rel=1e-9)
        assert fam.probabilistic[i].epsilon == pytest.approx(wantp, rel=1e-9)


def _brute_force_profile(n, L, q, r, delta):
    """Every collection x, every neighbour x' (one row changed), laws by brute force (2.1)."""
    import itertools

    k = 2**L
    laws = {}

    def law(coll):
        key = tuple(sorted(coll))
        if key not in laws:
            laws[key] = krand.brute_force_law(list(key), L, q)
        return laws[key]

    worst_delta, worst_prob = F(0), 0.0
    for x in itertools.product(range(k), repeat=n):
        for i, v in itertools.product(range(n), range(k)):
            if v == x[i]:
                continue
            xp = list(x)
            xp[i] = v
            P, Q = law(x), law(xp)
            cells = [(F(P.num[s], P.den), F(Q.num[s], Q.den)) for s in P.num]
            worst_delta = max(worst_delta, sum(max(F(0), a - r * b) for a, b in cells))
            mass = F(0)
            for a, b in sorted(cells, key=lambda ab: ab[0] / ab[1], reverse=True):
                mass += a
                if mass > F(delta):
                    worst_prob = max(worst_prob, math.log(a / b))
                    break
    return worst_delta, worst_prob


@pytest.mark.parametrize("n, L", [(3, 2), (2, 3)])
def test_profile_vs_brute_force_over_all_neighbours(n, L):
    """Exhaustive profile (orbits only) = max over every ordered neighbour pair, in Fractions."""
    q, delta = F(1, 4), 1e-2
    prof = kg.exhaustive_profile(n, L, q, [delta])
    for r in (F(3, 2), F(4), F(8)):
        bf, _ = _brute_force_profile(n, L, q, r, delta)
        ours = max(
            kg.exact_delta(p, q, r)
            for bg, bs in kg.background_orbits(n - 1, L)
            for b in bs
            for p in (kg.Pair(L, bg, b), kg.Pair(L, bg, b).reversed())
        )
        assert ours == bf
    eps = prof.approximate[0].epsilon
    bf_hi, bf_prob = _brute_force_profile(n, L, q, kg._rational_below_exp(eps * (1 + 1e-9)), delta)
    bf_lo, _ = _brute_force_profile(n, L, q, kg._rational_below_exp(eps * (1 - 1e-9)), delta)
    assert bf_hi <= F(delta) < bf_lo
    assert prof.probabilistic[0].epsilon == pytest.approx(bf_prob, rel=1e-12)


@pytest.mark.parametrize(
    "n, L, q, delta, w_short",
    [
        (6, 2, F(1, 4), 0.0183, 1),  # worst background: 4 x 00, 1 x 10 (H_1)
        (9, 2, F(1, 4), 0.0025, 1),
        (4, 3, F(1, 3), 0.00332, 1),
        (2, 4, F(9, 20), 0.00188, 2),  # worst background: 1 x 1100 (H_2)
        (2, 5, F(9, 20), 0.000602, 2),
        (8, 2, F(1, 10), 1e-6, None),  # H_L (background all on a) is the worst
        (3, 4, F(1, 4), 1e-3, None),
    ],
)
def test_family_h_holds_the_exhaustive_worst_case(n, L, q, delta, w_short):
    """Approximate DP: the exhaustive worst case = the worst over H, and where marked the
    expected family H_L (background on a and ā only) falls short of it."""
    ex = kg.exhaustive_profile(n, L, q, [delta])
    fam = kg.family_profile(n, L, float(q), [delta])
    worst = ex.approximate[0]
    assert fam.approximate[0].epsilon == pytest.approx(worst.epsilon, rel=1e-12)
    assert kg.in_families(worst.pair)
    only_hl = max(
        lc.eps_approx(delta)
        for j in range(n)
        for lc in kg.LossCurve.both(*kg.reduced_laws(kg.family_pair(n, L, j), float(q)))
    )
    if w_short is None:
        assert only_hl == pytest.approx(worst.epsilon, rel=1e-12)
    else:
        assert only_hl < worst.epsilon - 1e-4
        assert kg.h_weight(worst.pair) == w_short or kg.h_weight(worst.pair.reversed()) in (
            w_short,
            L - w_short,
        )
    assert fam.probabilistic[0].epsilon <= ex.probabilistic[0].epsilon + 1e-12  # a lower bound


def test_sanity_relations_l2():
    """eps_approx <= eps_prob <= L log(p/q); decreasing in delta; -> pure as delta -> 0;
    at least the L = 1 value (post-processing); n = 1 is local RR in closed form."""
    q = 0.25
    pure = kp.pure_epsilon(q, 2)
    deltas = [0.3, 1e-2, 1e-4, 1e-8, 1e-25]
    for n in (1, 3, 10, 40):
        prof = kg.profile(n, 2, F(1, 4), deltas)
        ap = [w.epsilon for w in prof.approximate]
        pb = [w.epsilon for w in prof.probabilistic]
        assert all(a <= b + 1e-12 <= pure + 2e-12 for a, b in zip(ap, pb, strict=True))
        assert all(a <= b for a, b in zip(ap, ap[1:], strict=False))  # deltas decrease
        assert ap[-1] == pytest.approx(pure, rel=1e-6) if n <= 10 else ap[-1] > 0.9 * pure
        for d, a in zip(deltas, ap, strict=True):
            assert a >= kp.epsilon_at_delta(n, q, d).epsilon - 1e-12
    p = 1 - q
    for L in (2, 3, 5):  # n = 1: delta(eps) = sum_h C(L,h) (p^(L-h) q^h - e^eps p^h q^(L-h))_+
        eps = kg.profile(1, L, F(1, 4), [1e-3]).approximate[0].epsilon
        d = sum(
            math.comb(L, h) * max(0.0, p ** (L - h) * q**h - math.exp(eps) * p**h * q ** (L - h))
            for h in range(L + 1)
        )
        assert d == pytest.approx(1e-3, rel=1e-9)


def test_confirmations_exact_and_arb():
    q = F(1, 4)
    pair = kg.g_pair(7, 2, 1)
    r = F(5, 2)
    exact = kg.exact_delta(pair, q, r)
    ball = kg.arb_delta(pair, q, math.log(2.5))
    assert ball.lower() <= float(exact) * (1 + 1e-12) and float(ball.upper()) >= float(exact) * (
        1 - 1e-12
    )
    assert float(ball.rad()) < 1e-30
    c = kg.confirm(
        "family",
        kg.family_pair(30, 2, 29),
        q,
        1e-4,
        kg.family_profile(30, 2, 0.25, [1e-4]).approximate[0].epsilon,
    )
    assert float(c["delta at epsilon"]) <= 1e-4 and c["epsilon"] >= c["float epsilon"]
    eps, ratio = kg.exact_probabilistic(kg.family_pair(4, 2, 3), q, 1e-2)
    assert eps == pytest.approx(math.log(ratio)) and ratio.denominator >= 1


def test_summary_and_cli_l2(capsys, tmp_path):
    d = kp.summary(8, 2, q="1/4", delta=1e-3)
    ap = d["approximate"]
    assert ap["worst pair in family H"] and "exhaustive" in ap["assumption"]
    assert float(ap["delta at epsilon"]) <= 1e-3 and ap["epsilon"] < d["pure epsilon"]
    assert d["probabilistic"]["exact epsilon"] == pytest.approx(d["probabilistic"]["epsilon"])
    assert d["L = 1 epsilon at the same n, q"] <= ap["epsilon"]
    out = tmp_path / "l2.png"
    assert (
        main(
            [
                "krand",
                "profile",
                "--n",
                "3",
                "--L",
                "5",
                "--eps0",
                "1",
                "--delta",
                "1e-4",
                "--json",
                "--plot",
                str(out),
            ]
        )
        == 0
    )
    # L = 5 above its exhaustive range (n = 2) runs the family H search (L = 2..4 there
    # have certified bounds instead: tests/test_krand_bounds.py)
    j = json.loads(capsys.readouterr().out)
    assert j["search"]["mode"] == "family" and "ASSUMPTION" in j["approximate"]["assumption"]
    assert (
        "exhaustive search" in j["family evidence"] and "lower bound" in j["probabilistic"]["note"]
    )
    assert 0 < j["approximate"]["epsilon"] <= j["probabilistic"]["epsilon"] <= j["pure epsilon"]
    assert out.stat().st_size > 0 and "curve" not in j
    assert main(["krand", "profile", "--n", "3", "--L", "5", "--q", "0.25"]) == 0
    text = capsys.readouterr().out
    assert "ASSUMPTION" in text and "evidence:" in text and "arb" in text
    args = ["krand", "profile", "--n", "30", "--L", "2", "--q", "0.25", "--delta", "1e-2"]
    assert main([*args, "--json"]) == 0
    j = json.loads(capsys.readouterr().out)
    assert j["lower"]["epsilon"] <= j["approximate"]["epsilon"] == j["upper"]["epsilon"]
    assert j["approximate"]["certified by"] == "clone-lemma cover"


def test_plot_bad_folder_fails_before_search(capsys):
    assert (
        main(
            [
                "krand",
                "profile",
                "--n",
                "5",
                "--L",
                "2",
                "--q",
                "0.25",
                "--plot",
                "/no/such/dir/x.png",
            ]
        )
        == 2
    )
    err = capsys.readouterr().err
    assert "does not exist" in err and "\n" not in err.strip()


@pytest.mark.slow
@pytest.mark.parametrize("q", [F(1, 4), F(1, 10), F(1, 3), F(9, 20)])
def test_family_h_holds_the_worst_case_sweep(q):
    """FAMILY_EVIDENCE, re-run: every n of the exhaustive range, 47 deltas."""
    import numpy as np

    deltas = list(np.logspace(-12, -0.5, 47))
    for L, top in ((2, 12), (3, 5), (4, 3), (5, 2)):
        for n in range(2, top + 1):
            ex = kg.exhaustive_profile(n, L, q, deltas)
            fam = kg.family_profile(n, L, float(q), deltas, every=True)
            for a, b in zip(ex.approximate, fam.approximate, strict=True):
                assert b.epsilon == pytest.approx(a.epsilon, rel=1e-12, abs=1e-14)


# --------------------------------------------------------------------------- L = 1, every m
import numpy as np  # noqa: E402
from hypothesis import example, given, seed, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from dpcheck.enumeration import krand_l1_exact as kx  # noqa: E402


def _exact_bracket_holds(n, q, delta, lo, hi):
    """Exact rationals over every background and both orders (krand.delta_exact_L1):
    delta(e^hi) <= delta (nothing exceeds hi) and delta(e^lo') > delta for lo' just below
    lo (the value is attained)."""
    above = krand.delta_exact_L1(n, q, kg._rational_below_exp(hi))  # >= delta(e^hi)
    below = krand.delta_exact_L1(n, q, kp._rational_above_exp(lo * (1 - 1e-9)))
    return above <= F(delta), below > F(delta)


def _exact_probabilistic(n, q, delta):
    rows, den = krand.pmf_rows(n, q)
    best = 0.0
    for m in range(1, n + 1):
        for a, b in ((rows[m], rows[m - 1]), (rows[m - 1], rows[m])):
            cells = sorted(((F(x, y), x) for x, y in zip(a, b, strict=True)), reverse=True)
            mass = F(0)
            for ratio, x in cells:
                mass += F(x, den)
                if mass > F(delta):
                    best = max(best, math.log(ratio))
                    break
    return best


@pytest.mark.parametrize(
    "n, q, delta",
    [
        (1, F(1, 4), 1e-2),
        (2, F(1, 3), 1e-3),
        (7, F(1, 10), 1e-6),
        (25, F(2, 7), 1e-4),
        (60, F(1, 4), 1e-6),
        (40, F(9, 20), 0.3),
        (33, F(1, 50), 1e-9),
    ],
)
def test_l1_every_background_equals_exact_rationals(n, q, delta):
    """The certified L = 1 values = the exhaustive exact computation (every m, both orders)."""
    d = kp.summary(n, 1, q=str(q), delta=delta)
    ap, pb = d["approximate"], d["probabilistic"]
    assert ap["kind"] == pb["kind"] == "exact"
    lo, hi = ap["bracket"]
    assert lo <= hi == ap["epsilon"] and hi - lo <= 1e-12 * max(hi, 1e-300)
    if hi > 0:
        assert _exact_bracket_holds(n, q, delta, lo, hi) == (True, True)
    else:
        assert krand.delta_exact_L1(n, q, F(1)) <= F(delta)
    want = _exact_probabilistic(n, q, delta)
    assert pb["bracket"][0] - 1e-15 <= want <= pb["epsilon"] + 1e-15
    assert pb["epsilon"] == pytest.approx(want, rel=1e-12, abs=1e-15)


def _brute_deltas(n, q, eps_list):
    """delta_m(eps) = sum_s max(0, P - e^eps Q) at every m (old window code, direct sums)."""
    out = []
    for m in range(1, n + 1):
        pr = kp.pair(n, m, q)
        out.append([kp._hockey(pr.P, pr.Q, e) for e in eps_list])
    return np.array(out)


@pytest.mark.parametrize(
    "n, eps0, delta",
    [
        (2500, 2.5, 1e-3),
        pytest.param(5000, 2.0, 1e-6, marks=pytest.mark.slow),
        pytest.param(5000, 1.0, 1e-6, marks=pytest.mark.slow),
    ],
)
def test_l1_beyond_the_old_grid_vs_brute_force(n, eps0, delta):
    """n > 2000, where the old 65-point grid missed the worst background: the new value
    bounds the hockey-stick at every m (direct float sums), is attained, and mpmath
    confirms it at the top backgrounds."""
    q = kp.q_from(eps0=eps0)
    d = kp.summary(n, 1, eps0=eps0, delta=delta)
    ap = d["approximate"]
    eps, m = ap["epsilon"], ap["worst background m"]
    assert ap["kind"] == "exact"
    D = _brute_deltas(n, q, [eps, eps * (1 - 1e-7)])
    assert D[:, 0].max() <= delta * (1 + 1e-9) + 1e-15  # no background exceeds delta at eps
    assert D[m - 1, 1] > delta  # and the worst one is attained just below
    for top in np.argsort(-D[:, 0])[:3] + 1:  # mpmath at the top few backgrounds
        assert float(kp.confirm(n, int(top), q, eps)["delta"]) <= delta * (1 + 1e-12)
    assert float(kp.confirm(n, m, q, eps * (1 - 1e-9))["delta"]) > delta
    old = kp.grid_epsilon_at_delta(n, q, delta)
    assert old.epsilon < eps - 1e-7  # the grid missed it


def test_l1_target_n10000():
    """n = 10000, eps0 = 2, delta = 1e-6: 0.08701971978 (background: 3 zeros among the
    others); the old grid printed 0.0870156315."""
    d = kp.summary(10000, 1, eps0=2, delta=1e-6)
    ap = d["approximate"]
    assert abs(ap["epsilon"] - 0.08701971978) < 1e-9 and ap["worst background m"] == 9997
    assert ap["kind"] == "exact" and "every background m = 1..10000" in ap["established"]
    assert float(ap["arb delta at epsilon"]) <= 1e-6
    assert kp.grid_epsilon_at_delta(10000, kp.q_from(eps0=2), 1e-6).epsilon < 0.0870157


def test_l1_cli_json_labels(capsys):
    args = ["krand", "profile", "--n", "10000", "--L", "1", "--eps0", "2", "--delta", "1e-6"]
    assert main([*args, "--json"]) == 0
    j = json.loads(capsys.readouterr().out)
    assert abs(j["approximate"]["epsilon"] - 0.08701971978) < 1e-9
    for key in ("approximate", "probabilistic"):
        assert j[key]["kind"] == "exact" and "arb" in j[key]["established"]
    assert j["epsilon <= FMT upper bounds"] and "exact epsilon" in j["FMT comparison"]
    assert main(args) == 0
    text = capsys.readouterr().out
    assert "[exact: the worst case over every neighbouring pair]" in text
    assert "how: every background m = 1..10000" in text


def test_l1_n1e5_value():
    """n = 1e5, eps0 = 4, delta = 1e-6: 0.0847161764 to 9 digits (the old grid: 0.0847145237)."""
    d = kp.summary(100000, 1, eps0=4, delta=1e-6)
    eps = d["approximate"]["epsilon"]
    assert f"{eps:.9g}" == "0.0847161764" and d["approximate"]["kind"] == "exact"
    assert d["probabilistic"]["kind"] == "exact"
    assert d["probabilistic"]["epsilon"] >= d["approximate"]["epsilon"]


@seed(20240521)
@settings(max_examples=10, deadline=None)
@given(
    n=st.integers(2, 400),
    eps0=st.floats(0.1, 5.0),
    log_delta=st.floats(-9.0, -2.0),
)
@example(n=400, eps0=0.1, log_delta=-9.0)
@example(n=397, eps0=5.0, log_delta=-2.0)
def test_l1_never_below_brute_force(n, eps0, log_delta):
    """Over every background and both orders, in exact rationals: nothing exceeds the
    printed epsilon, and its certified lower end is attained (q: 1/(1 + e^eps0) rounded
    to 4 decimals, exactly)."""
    q = F(round(10_000 / (1 + math.exp(eps0))), 10_000)
    delta = 10.0**log_delta
    d = kp.summary(n, 1, q=str(q), delta=delta)
    lo, hi = d["approximate"]["bracket"]
    if hi > 0:
        above, below = _exact_bracket_holds(n, q, delta, lo, hi)
        assert above and below
    else:
        assert krand.delta_exact_L1(n, q, F(1)) <= F(delta)
    # float brute force over every m (direct sums): never above the printed value
    D = _brute_deltas(n, float(q), [hi])
    assert D.max() <= delta * (1 + 1e-9) + 1e-15  # float sums: cancellation ~1e-16


def test_l1_mutation_skipping_a_background_is_noticed(monkeypatch):
    """If the pass drops one background, the run refuses (coverage check), and with that
    check disabled too, the exact comparison sees a value below the true supremum."""
    n, q, delta = 60, F(1, 4), 1e-6
    worst = kp.summary(n, 1, q="1/4", delta=delta)["approximate"]["worst background m"]
    real = kx._block

    def skipping(g, a, hb, small):
        blk = real(g, a, hb, small)
        keep = blk.ms != worst
        return kx.Block(
            blk.ms[keep], blk.s1[keep], blk.b[keep], blk.S[keep], blk.cols, blk.eta,
            blk.a_b, blk.a_S,
        )  # fmt: skip

    monkeypatch.setattr(kx, "_block", skipping)
    with pytest.raises(RuntimeError, match="missed backgrounds"):
        kp.summary(n, 1, q="1/4", delta=delta)
    monkeypatch.setattr(kx, "_every", lambda fp: None)
    d = kp.summary(n, 1, q="1/4", delta=delta)
    lo, hi = d["approximate"]["bracket"]
    assert d["approximate"]["worst background m"] != worst
    assert _exact_bracket_holds(n, q, delta, lo, hi)[0] is False  # noticed: delta > delta


def test_l1_float_bounds_dominate_arb():
    """The float pass's per-background upper bounds lie above the arb brackets (and its
    estimates inside them, to the stated error)."""
    n, lie, delta = 3000, kx.LieProbability(F(3, 2), True), 1e-5
    fp = kx.float_pass(n, lie.float, [delta])
    for m in (1, 2, 17, 1500, 2999, 3000, int(np.argmax(fp.ratio_hi[0])) + 1):
        lo, hi = kx.arb_eps_at(n, m, lie, delta)
        assert fp.eps_hi(0)[m - 1] >= hi - 1e-15 and fp.eps(0)[m - 1] == pytest.approx(hi, 1e-10)
        plo, phi = kx.arb_quantile_at(n, m, lie, delta)
        assert fp.loss_hi[0][m - 1] >= phi - 1e-15
        assert fp.loss[0][m - 1] == pytest.approx(phi, rel=1e-10)


def test_l1_lower_bound_above_the_work_limit(monkeypatch, capsys):
    """Above both work limits the grid runs and both epsilons are labelled lower bounds,
    certified in arb at the pair found."""
    exact = kp.summary(3000, 1, eps0=2, delta=1e-6)
    monkeypatch.setattr(kp, "EVERY_BACKGROUND_WORK", 0)
    monkeypatch.setattr(kp, "PRUNED_WORK", 0)
    d = kp.summary(3000, 1, eps0=2, delta=1e-6)
    for key in ("approximate", "probabilistic"):
        assert d[key]["kind"] == "lower bound" and "grid" in d[key]["established"]
        assert d[key]["epsilon"] <= min(exact[key]["epsilon"], d[key]["bracket"][1])
    assert float(d["approximate"]["arb delta at epsilon"]) > 1e-6  # attained: delta(eps) > delta
    assert "lower bound" in d["FMT comparison"]
    assert main(["krand", "profile", "--n", "3000", "--L", "1", "--eps0", "2"]) == 0
    assert "LOWER BOUND" in capsys.readouterr().out


def test_l2_labels():
    """L >= 2: exhaustive values are exact (bracketed in exact rationals); the family-H
    values are lower bounds attained by an explicit pair (arb: delta > delta there)."""
    d = kp.summary(8, 2, q="1/4", delta=1e-3)
    ap, pb = d["approximate"], d["probabilistic"]
    assert ap["kind"] == pb["kind"] == "exact"
    lo, hi = ap["bracket"]
    assert lo <= hi == ap["epsilon"] and hi - lo < 1e-9
    pair = kg.family_pair(8, 2, 7)  # the worst pair: background all on a
    assert kg.exact_delta(pair, F(1, 4), kp._rational_above_exp(lo)) > F(1, 1000)
    d = kp.summary(3, 5, q="1/4", delta=1e-4)  # family H (L = 2..4: certified bounds)
    ap, pb = d["approximate"], d["probabilistic"]
    assert ap["kind"] == pb["kind"] == "lower bound"
    lo, hi = ap["bracket"]
    assert ap["epsilon"] == lo <= hi and float(ap["delta at epsilon"]) > 1e-4
    assert float(ap["delta at the pair's upper end"]) <= 1e-4
    assert "lower bound" in d["FMT comparison"] or "no FMT bound" in d["FMT comparison"]
    assert kp.fmt_words("lower bound", True, True).startswith("our lower bound")
    assert "EXCEEDS" in kp.fmt_words("exact", False, True)


@pytest.mark.parametrize("n, eps0, delta", [(3000, 2.0, 1e-6), (20000, 1.0, 1e-4)])
def test_l1_pruned_search_matches_the_full_pass(monkeypatch, n, eps0, delta):
    """The pruned search (block bounds, for large n) gives the full pass's approximate
    epsilon, over every background; its probabilistic value is a lower bound."""
    full = kp.summary(n, 1, eps0=eps0, delta=delta)
    monkeypatch.setattr(kp, "EVERY_BACKGROUND_WORK", 0)
    d = kp.summary(n, 1, eps0=eps0, delta=delta)
    ap, pb = d["approximate"], d["probabilistic"]
    assert ap["kind"] == "exact" and "cleared in" in ap["established"]
    assert ap["epsilon"] == full["approximate"]["epsilon"]
    assert ap["worst background m"] == full["approximate"]["worst background m"]
    assert pb["kind"] == "lower bound" and pb["epsilon"] <= full["probabilistic"]["epsilon"]
    assert pb["bracket"][1] >= pb["epsilon"]


def test_l1_block_bound_dominates_its_backgrounds():
    """block_hockey_bound >= delta_m(eps) at every m of the block (an average <= a max)."""
    n, q = 2000, kp.q_from(eps0=1.5)
    fp = kx.float_pass(n, q, [], [0.05, 0.1])
    for a, h in ((1, 64), (500, 300), (1937, 64), (1990, 11)):
        for j, eps in enumerate((0.05, 0.1)):
            bound = kx.block_hockey_bound(n, q, a, h, eps, 1e-6)
            assert bound >= fp.hockey[j][a - 1 : a - 1 + h].max() * (1 - 1e-9)
