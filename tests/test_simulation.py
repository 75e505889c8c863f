"""The simulation studies of Liu (2019) §4: each piece against an independent route.

Statistical assertions use 6 standard errors or exact binomial tails at 1e-9,
so that a correct implementation fails with probability far below 1e-6.
"""

from __future__ import annotations

import subprocess
import sys
from fractions import Fraction
from math import comb

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from dpcheck.claims import empirical as emp
from dpcheck.errors import InputError
from dpcheck.numeric import fast
from dpcheck.sampling import binomial
from dpcheck.simulation import combining, summaries
from dpcheck.simulation import universal_histogram as uh
from dpcheck.simulation.covariance import Study1Design, run_study1
from dpcheck.simulation.mechanisms import sanitise
from dpcheck.simulation.proportions import TARGETS, Study2Design, run_study2

Z = 6.0


# --- mechanisms ------------------------------------------------------------------------


def test_truncated_law_outside_the_bounds_is_the_law_at_the_nearer_bound():
    """exp(-|x - s|/λ) / exp(-|x - c1|/λ) is constant on [c0, c1] when s > c1 (symbolic)."""
    x, s, c1, lam = sp.symbols("x s c1 lam", positive=True)
    ratio = sp.exp(-(s - x) / lam) / sp.exp(-(c1 - x) / lam)
    assert sp.diff(sp.simplify(ratio), x) == 0


def test_truncated_draws_outside_match_the_exact_mean_at_the_bound():
    rng = np.random.default_rng(1)
    k = 200_000
    draws = sanitise(rng, "truncated", np.full(k, 3.0), 0.0, 1.0, 0.7)
    mean = float(fast.evaluate("truncated.mean", 1.0, 0.0, 1.0, 0.7))
    assert abs(draws.mean() - mean) < Z * draws.std() / np.sqrt(k)


def test_bit_draws_outside_put_the_exact_mass_on_the_bound():
    """s > c1: P(s* = c1) = P(Lap(s) >= c1) = 1 - exp(-(s - c1)/λ)/2 (exact binomial test)."""
    rng = np.random.default_rng(2)
    k = 100_000
    draws = sanitise(rng, "bit", np.full(k, 1.5), 0.0, 1.0, 0.8)
    p = 1 - 0.5 * np.exp(-0.5 / 0.8)
    assert binomial.two_sided_p_value(int((draws == 1.0).sum()), k, p) > 1e-9


def test_one_point_interval_returns_the_point_and_bad_bounds_are_rejected():
    rng = np.random.default_rng(3)
    for mech in ("truncated", "bit"):
        assert np.all(sanitise(rng, mech, [0.3, -2.0], 0.0, 0.0, 1.0) == 0.0)
    with pytest.raises(InputError, match="c1"):
        sanitise(rng, "bit", 0.5, 1.0, 0.0, 1.0)
    with pytest.raises(InputError, match="laplace"):
        sanitise(rng, "laplace", 0.5, 0.0, 1.0, 1.0)


# --- summaries and the combining rule ----------------------------------------------------


def test_error_summary_by_hand():
    est = np.array([[0.1, 0.3, 0.2, 0.4]])
    s = summaries.errors(est, np.array([0.2]), est - 0.15, est + 0.15)
    assert s.bias[0] == pytest.approx(0.05)
    assert s.rmse[0] == pytest.approx(np.sqrt((0.01 + 0.01 + 0 + 0.04) / 4))
    assert s.cp[0] == 0.75 and s.covered[0] == 3


@pytest.mark.parametrize(
    "nu, t",
    [
        (4, 2.7764451051977987),
        (10, 2.2281388519649385),
        (30, 2.0422724563012373),
        (np.inf, 1.959963984540054),
    ],
)
def test_t_quantile_against_tables(nu, t):
    assert combining.t_quantile(np.array([nu]), nu_min=4)[0] == pytest.approx(t, abs=1e-9)


@settings(max_examples=40, deadline=None)
@given(st.floats(min_value=4.0, max_value=1e7))
def test_t_quantile_fit_against_mpmath(nu):
    fit = combining.t_quantile(np.array([nu]), nu_min=4)[0]
    assert abs(fit - combining.t_quantile_exact(nu, dps=25)) < 1e-12


def test_combine_by_hand_and_zero_between_variance():
    q = np.array([0.1, 0.2, 0.3, 0.2, 0.2])
    w = np.full(5, 0.01)
    qbar, lo, hi = combining.combine(q, w)
    b = q.var(ddof=1)
    nu = 4 * (1 + 5 * 0.01 / b) ** 2
    half = combining.t_quantile_exact(nu) * np.sqrt(0.01 + b / 5)
    assert qbar == pytest.approx(0.2) and hi - qbar == pytest.approx(half, rel=1e-10)
    _, lo, hi = combining.combine(np.full(5, 0.3), w)
    assert hi - 0.3 == pytest.approx(1.959963984540054 * 0.1)


# --- the universal histogram ---------------------------------------------------------------


def _projection(y: np.ndarray) -> np.ndarray:
    """Least squares over consistent trees by a null-space parametrisation (numpy)."""
    # x = x0 + N t: free parameters (h1, h11, h21); h2 = 1 - h1, h12 = h1 - h11, h22 = h2 - h21
    basis = np.array(
        [[1, 0, 0], [-1, 0, 0], [0, 1, 0], [1, -1, 0], [0, 0, 1], [-1, 0, -1]], dtype=float
    )
    x0 = np.array([0, 1, 0, 0, 0, 1], dtype=float)
    t, *_ = np.linalg.lstsq(basis, y - x0, rcond=None)
    return x0 + basis @ t


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(-2, 3, allow_nan=False), min_size=6, max_size=6))
def test_steps_3_4_are_the_projection(y):
    y = np.array(y)
    got = np.array(uh.correct([np.array(v) for v in y]), dtype=float)
    assert np.allclose(got, _projection(y), atol=1e-12)


def test_release_is_consistent_nonnegative_and_untouched_without_negatives():
    rng = np.random.default_rng(4)
    y = list(rng.uniform(-0.5, 1.5, size=(6, 50_000)))
    g = uh.release(y)
    assert np.allclose(g[0] + g[1], 1) and np.allclose(g[2] + g[3], g[0])
    assert np.allclose(g[4] + g[5], g[1]) and min(float(v.min()) for v in g) >= 0
    plain = uh.correct(y)
    fine = np.all(np.stack(plain) >= 0, axis=0)
    assert fine.any() and all(
        np.array_equal(a[fine], b[fine]) for a, b in zip(g, plain, strict=True)
    )


def test_nonnegative_least_squares_beats_every_released_tree():
    rng = np.random.default_rng(5)
    for _ in range(15):
        y = [Fraction(int(v), 10) for v in rng.integers(-4, 12, size=6)]
        best, obj = uh.nonnegative_least_squares(y)
        released = [v[0] for v in uh.release([np.array([v], dtype=object) for v in y])]
        assert obj <= sum((a - b) ** 2 for a, b in zip(released, y, strict=True))
        assert min(best) >= 0 and best[0] + best[1] == 1


# --- the studies --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def study1():
    return run_study1(Study1Design(reps=20_000, sizes=(50, 800)))


def test_study1_variance_means_match_the_exact_means(study1):
    d = study1.design
    n = np.array(d.sizes, dtype=float)
    lam, upper = d.scales(n), d.variance_upper(n)
    for mech in ("truncated", "bit"):
        for stat, s in (("S11", 1.0), ("S22", 2.0)):
            exact = fast.evaluate(f"{mech}.mean", s, 0.0, upper[stat], lam[stat])
            sp_ = study1.spread(mech, stat)
            assert np.all(np.abs(sp_.mean - exact) < Z * sp_.mean_se), (mech, stat)


def test_study1_bit_mass_at_zero_is_exact(study1):
    d = study1.design
    n = np.array(d.sizes, dtype=float)
    lam, upper = d.scales(n), d.variance_upper(n)
    low, _ = fast.point_masses("bit", 1.0, 0.0, upper["S11"], lam["S11"])
    hits = (study1.draws["bit"]["S11"] == 0).sum(axis=-1)
    for k in range(3):
        for j in range(2):
            assert binomial.two_sided_p_value(int(hits[k, j]), d.reps, float(low[j])) > 1e-9


def test_study1_truncated_never_on_a_bound_and_r_within_unit(study1):
    assert np.all(study1.at_bound["truncated"]["S11"] == 0)
    r = study1.draws["truncated"]["r"]
    assert np.all(np.abs(r) <= 1) and np.isnan(study1.draws["bit"]["r"]).any()


@pytest.fixture(scope="module")
def study2():
    return run_study2(Study2Design(reps=4000, sizes=(50, 200), epsilons=(0.5, 1e9)))


def test_original_coverage_matches_exact_binomial_enumeration(study2):
    """CP of the Wald interval on p-hat, exactly: sum over k of Binom(n, p)(k) [p in CI(k/n)]."""
    o = study2.original
    for j, n in enumerate(study2.design.sizes):
        for t, p in enumerate(study2.design.p):
            ks = np.arange(n + 1)
            lo, hi = summaries.wald(ks / n, n)
            exact = sum(
                comb(n, int(k)) * p**k * (1 - p) ** (n - k) for k in ks[(lo <= p) & (p <= hi)]
            )
            k = int(o.covered[j, t])
            assert binomial.two_sided_p_value(k, o.reps, float(exact)) > 1e-9, (n, p)


def test_original_mse_is_the_binomial_variance(study2):
    o = study2.original
    for j, n in enumerate(study2.design.sizes):
        var = np.array(study2.design.p) * (1 - np.array(study2.design.p)) / n
        assert np.all(np.abs(o.rmse[j, :4] ** 2 - var) < Z * 2 * o.rmse[j, :4] * o.rmse_se[j, :4])


def test_huge_epsilon_reproduces_the_sample_proportions(study2):
    for approach in ("rescaling", "all_but_one", "uh"):
        for mech in ("truncated", "bit"):
            err = study2.errors[(approach, mech)][1]
            assert np.allclose(err, study2.original_errors, atol=1e-6), (approach, mech)


def test_released_proportions_sum_to_one(study2):
    for key, err in study2.errors.items():
        p = err[..., :4] + np.array(study2.design.p)
        assert np.allclose(p.sum(axis=-1), 1), key
    assert TARGETS[4] == "p1+p2"


# --- the judging machinery can fail ------------------------------------------------------


def _parts(outcomes):
    def make(which):
        part = emp.Part("a statement", "a rule")
        for label, (ok, bad) in enumerate(outcomes[which]):
            part.add(str(label), ok, bad)
        return [part]

    return make


@pytest.mark.parametrize(
    "main, confirm, status",
    [
        ([(True, False)] * 3, [(True, False)] * 3, "verified"),
        ([(False, True)], [(False, True)], "refuted"),
        ([(False, True)], [(True, False)], "inconclusive"),
        ([(False, False)] * 3, [(False, True)], "refuted"),
        ([(False, False)] * 3, [(False, False)] * 3, "inconclusive"),
        ([(True, False), (False, False), (False, False)], [(True, False)] * 3, "verified"),
    ],
)
def test_judge_outcomes(main, confirm, status):
    verdict = emp.judge(
        _parts({"m": main, "c": confirm}),
        "m",
        "c",
        method="m",
        domain="d",
        reproduce="dpcheck verify x",
    )
    assert verdict.status.value == status


def test_cp_bounds_are_exact_clopper_pearson():
    lo, hi = emp.cp_bounds(450, 500)
    assert binomial.sf(450, 500, lo) == pytest.approx(emp.ALPHA, rel=1e-6)
    assert binomial.cdf(450, 500, hi) == pytest.approx(emp.ALPHA, rel=1e-6)


# --- the command line ----------------------------------------------------------------------


@pytest.mark.parametrize("study", ["study1", "study2"])
def test_simulate_reps_50_writes_csv_and_figures(tmp_path, study):
    out = tmp_path / "out"
    proc = subprocess.run(
        [sys.executable, "-m", "dpcheck", "simulate", study, "--reps", "50", "--out", str(out)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    csv = (out / f"{study}.csv").read_text().splitlines()
    rows = 2 * 4 * 3 * 16 if study == "study1" else 10 * 7 + 4 * 2 * 3 * 10 * 7
    assert len(csv) == 1 + rows
    pngs = sorted(out.glob("*.png"))
    assert len(pngs) == (1 if study == "study1" else 5)
    assert all(p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for p in pngs)
    assert "simulated in" in proc.stdout


@pytest.mark.parametrize(
    "args, message",
    [
        (["study3"], "study3"),
        (["study1", "--reps", "0"], "--reps 0"),
        (["study1", "--reps", "x"], "'x'"),
        (["study2", "--seed", "-1"], "--seed -1"),
        (["study1", "--out", "/proc/no/such"], "/proc/no/such"),
    ],
)
def test_simulate_bad_input(tmp_path, args, message):
    proc = subprocess.run(
        [sys.executable, "-m", "dpcheck", "simulate", *args],
        capture_output=True,
        text=True,
        check=False,
        cwd=tmp_path,
    )
    assert proc.returncode == 2
    assert (
        proc.stderr.count("\n") == 1 and message in proc.stderr and "Traceback" not in proc.stderr
    )


def test_simulate_out_is_a_file(tmp_path):
    target = tmp_path / "file"
    target.write_text("x")
    proc = subprocess.run(
        [sys.executable, "-m", "dpcheck", "simulate", "study1", "--out", str(target)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2 and "is a file" in proc.stderr
