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
    assert 0.05 < eps < kp.FMT_README["upper"] and d["exact <= FMT upper bounds"]
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
    assert "L = 1 only" in capsys.readouterr().out


@pytest.mark.parametrize(
    "args, word",
    [
        (["--n", "0", "--L", "1", "--q", "0.2"], "n = 0"),
        (["--n", "5", "--L", "0", "--q", "0.2"], "L = 0"),
        (["--n", "5", "--L", "1", "--q", "0.5"], "q = 0.5"),
        (["--n", "5", "--L", "1", "--q", "0"], "q = 0"),
        (["--n", "5", "--L", "1", "--q", "abc"], "abc"),
        (["--n", "5", "--L", "1", "--eps0", "-1"], "eps0"),
        (["--n", "100000000", "--L", "1", "--q", "0.2"], "MAX_N"),
        (["--n", "5", "--L", "40", "--q", "0.2"], "MAX_L"),
        (["--n", "5", "--L", "1", "--q", "0.2", "--delta", "2"], "delta"),
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
