"""Privacy of any mechanism (issue 19): δ(ε), ε(δ), pure ε and calibration against
independent routes.

* the unbounded Gaussian against the analytic Gaussian mechanism of Balle and Wang
  (2018, Theorem 8), transcribed here as printed;
* every mechanism's δ(ε) at a pair against quadrature (or summation) of
  (p_s - e^ε p_s')_+ written plainly from the densities in tests/reference_laws.py
  (no SymPy, no half-line argument), and the supremum over neighbours against a
  brute-force grid of pairs: the grid can only find values <= the true sup;
* calibrated scales satisfy the target and 1 - 1e-8 of them do not;
* bad input is one line, exit 2.
"""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction as F

import mpmath
import pytest

sys.path.insert(0, __file__.rsplit("/", 1)[0])
import reference_laws as ref  # noqa: E402

from dpcheck.errors import InputError  # noqa: E402
from dpcheck.numeric import profile as P  # noqa: E402


def balle_wang(eps, sens, sigma):
    """Balle and Wang (2018), Theorem 8: δ(ε) = Φ(Δ/2σ - εσ/Δ) - e^ε Φ(-Δ/2σ - εσ/Δ)."""
    a, b = sens / (2 * sigma), eps * sigma / sens
    return mpmath.ncdf(a - b) - mpmath.exp(eps) * mpmath.ncdf(-a - b)


@pytest.mark.parametrize(
    "eps, sens, sigma", [(1, 1, 1), (F(1, 2), 1, 2), (3, 2, F(1, 2)), (0, 1, 1), (F(1, 10), 1, 10)]
)
def test_gaussian_is_the_analytic_gaussian_mechanism(eps, sens, sigma) -> None:
    r = P.delta_for_epsilon(P.neighbours("gaussian", sens, scale=sigma), F(eps))
    with mpmath.workdps(80):  # the engine's ball is tighter than 1e-40: so is the reference
        expected = balle_wang(
            mpmath.mpf(F(eps).numerator) / F(eps).denominator, mpmath.mpf(sens), ref._mpf(F(sigma))
        )
    assert abs(r.lower - expected) <= 1e-25 * expected
    assert r.upper >= expected
    assert "exact" in r.kind


def test_done_when_values() -> None:
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "dpcheck",
            "privacy",
            "gaussian",
            "--sensitivity",
            "1",
            "--scale",
            "1",
            "--epsilon",
            "1",
            "--json",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert abs(float(json.loads(out.stdout)["delta"]) - 0.1269367375066) < 1e-10
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "dpcheck",
            "privacy",
            "clamped-laplace",
            "--sensitivity",
            "1",
            "--lower",
            "0",
            "--upper",
            "10",
            "--scale",
            "1",
            "--json",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert float(json.loads(out.stdout)["pure epsilon"]) == 1.0


def _density(mech, s, c0, c1, scale):
    """p_s written plainly (reference_laws), plus atoms: (density, [(point, mass)])."""
    bounding, base = mech.split("-") if "-" in mech else ("none", mech)
    dens = ref.gaussian_density if base == "gaussian" else ref.laplace_density
    if bounding == "truncated":
        z = ref.integrate(lambda t: mpmath.mpf(1), lambda t: dens(t, s, scale), c0, c1, s, scale)
        return (lambda t: dens(t, s, scale) / z), []
    if bounding == "clamped":
        below = ref.integrate(
            lambda t: mpmath.mpf(1), lambda t: dens(t, s, scale), -mpmath.inf, c0, s, scale
        )
        above = ref.integrate(
            lambda t: mpmath.mpf(1), lambda t: dens(t, s, scale), c1, mpmath.inf, s, scale
        )
        return (lambda t: dens(t, s, scale)), [(c0, below), (c1, above)]
    return (lambda t: dens(t, s, scale)), []


def _hockey_quadrature(mech, eps, s, s2, c0, c1, scale):
    """∫ (p_s - e^ε p_s')_+ + Σ atoms, by quadrature on a fine split (no crossing used)."""
    with mpmath.workdps(30):
        p, pa = _density(mech, s, c0, c1, scale)
        q, qa = _density(mech, s2, c0, c1, scale)
        e = mpmath.exp(eps)
        lo = c0 if c0 is not None else min(s, s2) - 40 * scale
        hi = c1 if c1 is not None else max(s, s2) + 40 * scale
        grid = sorted(set(mpmath.linspace(lo, hi, 401) + [v for v in (s, s2) if lo < v < hi]))

        def diff(t):
            return p(t) - e * q(t)

        pts = [grid[0]]
        for a, b in zip(grid, grid[1:], strict=False):  # split at sign changes (bisection)
            if diff(a) * diff(b) < 0:
                u, v = a, b
                for _ in range(100):
                    m = (u + v) / 2
                    u, v = (m, v) if diff(u) * diff(m) > 0 else (u, m)
                pts.append((u + v) / 2)
            pts.append(b)
        total = mpmath.quad(lambda t: max(diff(t), 0), pts)
        for (_, m1), (_, m2) in zip(pa, qa, strict=True):
            total += max(m1 - e * m2, 0)
        return total


@pytest.mark.parametrize(
    "mech, c0, c1, scale, eps",
    [
        ("laplace", None, None, F(1), F(1, 2)),
        ("gaussian", None, None, F(3, 2), F(1)),
        ("truncated-gaussian", 0, 3, F(1), F(1, 2)),
        ("clamped-gaussian", 0, 3, F(1), F(1, 2)),
        ("truncated-laplace", 0, 3, F(1), F(1, 2)),
        ("clamped-laplace", 0, 3, F(2), F(1, 4)),
    ],
)
def test_pair_value_against_quadrature(mech, c0, c1, scale, eps) -> None:
    """The worst pair's value equals quadrature of (p - e^ε q)_+ at that pair."""
    nb = P.neighbours(mech, 1, c0, c1, scale)
    r = P.delta_for_epsilon(nb, eps)
    c0m = None if c0 is None else mpmath.mpf(c0)
    c1m = None if c1 is None else mpmath.mpf(c1)
    expected = _hockey_quadrature(
        mech, ref._mpf(eps), ref._mpf(r.s), ref._mpf(r.s_prime), c0m, c1m, ref._mpf(scale)
    )
    assert abs(r.lower - expected) <= 1e-9 * expected + 1e-20
    assert r.upper >= expected * (1 - 1e-9)


@pytest.mark.slow
@pytest.mark.parametrize(
    "mech, scale, eps",
    [
        ("truncated-gaussian", F(1), F(1, 2)),
        ("clamped-gaussian", F(1, 2), F(1, 2)),
        ("truncated-laplace", F(1), F(1, 2)),
    ],
)
def test_supremum_against_a_grid_of_pairs(mech, scale, eps) -> None:
    """Brute force over a grid of neighbours (|s - s'| <= Δ, both orders) by quadrature:
    never above δ's upper value, and its best within the grid's resolution of it."""
    c0, c1, sens = 0, 2, F(1, 2)
    nb = P.neighbours(mech, sens, c0, c1, scale)
    r = P.delta_for_epsilon(nb, eps)
    best = mpmath.mpf(0)
    grid = [F(i, 4) for i in range(0, 9)]
    for s in grid:
        for s2 in grid:
            if s == s2 or abs(s - s2) > sens:
                continue
            v = _hockey_quadrature(
                mech,
                ref._mpf(eps),
                ref._mpf(s),
                ref._mpf(s2),
                mpmath.mpf(c0),
                mpmath.mpf(c1),
                ref._mpf(scale),
            )
            best = max(best, v)
    assert best <= r.upper * (1 + 1e-9)
    assert best >= r.lower * (1 - 0.1)  # the grid's spacing: 1/8 of the range


def _geometric_hockey(mech, eps, s, s2, c0, c1, b):
    """Σ_y (P_s(y) - e^ε P_s'(y))_+ by summation of the pmf (reference_laws)."""
    with mpmath.workdps(80):
        alpha = mpmath.exp(-1 / ref._mpf(b))
        norm = (1 - alpha) / (1 + alpha)

        def law(u):
            pmf = {k: norm * alpha ** abs(k - u) for k in range(c0 - 200, c1 + 201)}
            if mech == "truncated-geometric":
                z = sum(pmf[k] for k in range(c0, c1 + 1))
                return {k: pmf[k] / z for k in range(c0, c1 + 1)}
            out = {k: pmf[k] for k in range(c0 + 1, c1)}
            out[c0] = sum(v for k, v in pmf.items() if k <= c0)
            out[c1] = sum(v for k, v in pmf.items() if k >= c1)
            return out

        p, q = law(s), law(s2)
        e = mpmath.exp(ref._mpf(eps))
        return sum(max(p[k] - e * q[k], 0) for k in p)


@pytest.mark.parametrize("mech", ["clamped-geometric", "truncated-geometric"])
@pytest.mark.parametrize("eps", [F(0), F(1, 3), F(1)])
def test_geometric_against_enumeration(mech, eps) -> None:
    c0, c1, b, sens = 0, 6, F(3, 2), 2
    nb = P.neighbours(mech, sens, c0, c1, b)
    r = P.delta_for_epsilon(nb, eps)
    best = max(
        _geometric_hockey(mech, eps, s, s2, c0, c1, b)
        for s in range(c0, c1 + 1)
        for s2 in range(c0, c1 + 1)
        if 0 < abs(s - s2) <= sens
    )
    assert abs(r.lower - best) <= 1e-20 + 1e-12 * best
    assert r.upper >= best


def test_pure_epsilon_values() -> None:
    assert P.pure_epsilon(P.neighbours("gaussian", 1, scale=1)).upper == mpmath.inf
    assert P.pure_epsilon(P.neighbours("laplace", 2, scale=4)).lower == mpmath.mpf("0.5")
    liu = P.pure_epsilon(P.neighbours("truncated-laplace", 1, 0, 10, 1))
    assert abs(liu.lower - mpmath.mpf("1.48984991057947986191870924772")) < 1e-12
    # clamped Gaussian: log-concavity of Φ puts the worst pair at (c1 - Δ, c1), y = c0
    cg = P.pure_epsilon(P.neighbours("clamped-gaussian", 1, 0, 3, 1))
    with mpmath.workdps(30):
        expected = mpmath.log(mpmath.ncdf(-2) / mpmath.ncdf(-3))
    assert abs(cg.lower - expected) < 1e-12 and cg.upper >= expected


def test_delta_is_zero_beyond_the_pure_epsilon() -> None:
    nb = P.neighbours("clamped-laplace", 1, 0, 10, 1)
    assert P.delta_for_epsilon(nb, F(1)).upper == 0
    assert P.delta_for_epsilon(nb, F(99, 100)).lower > 0


def test_epsilon_for_delta_inverts() -> None:
    nb = P.neighbours("gaussian", 1, scale=1)
    e = P.epsilon_for_delta(nb, F(1, 10**6))
    with mpmath.workdps(30):
        at_upper = balle_wang(e.upper, 1, 1)
        at_lower = balle_wang(e.lower, 1, 1)
    assert at_upper <= mpmath.mpf(10) ** -6 < at_lower


@pytest.mark.parametrize(
    "mech, c0, c1, delta",
    [
        ("gaussian", None, None, F(1, 10**6)),
        ("laplace", None, None, F(0)),
        ("truncated-laplace", 0, 10, F(0)),
        ("clamped-geometric", 0, 10, F(1, 10**6)),
    ],
)
def test_calibration_is_tight(mech, c0, c1, delta) -> None:
    nb = P.neighbours(mech, 1, c0, c1)
    cal = P.calibrate(nb, F(1), delta)
    here = nb.with_scale(cal.scale)
    below = nb.with_scale(cal.scale * (1 - F(1, 10**8)))
    if delta == 0:
        assert P.pure_epsilon(here).upper <= 1 < P.pure_epsilon(below).lower
    else:
        assert P.delta_for_epsilon(here, F(1)).upper <= ref._mpf(delta)
        assert P.delta_for_epsilon(below, F(1)).lower > ref._mpf(delta)
    assert cal.minimal


def test_gaussian_calibration_against_balle_wang() -> None:
    cal = P.calibrate(P.neighbours("gaussian", 1), F(1), F(1, 10**5))
    with mpmath.workdps(30):
        sigma = ref._mpf(cal.scale)
        assert balle_wang(1, 1, sigma) <= mpmath.mpf(10) ** -5
        assert balle_wang(1, 1, sigma * (1 - mpmath.mpf(10) ** -8)) > mpmath.mpf(10) ** -5


@pytest.mark.parametrize(
    "argv, needle",
    [
        (["gaussian", "--sensitivity", "1", "--scale", "1", "--delta", "1"], "delta=1"),
        (["gaussian", "--sensitivity", "-1", "--scale", "1"], "sensitivity=-1"),
        (["gaussiann", "--sensitivity", "1", "--scale", "1"], "gaussiann"),
        (["laplace", "--sensitivity", "1", "--lower", "0", "--scale", "1"], "--lower=0"),
        (["truncated-gaussian", "--sensitivity", "1", "--scale", "1"], "--lower and --upper"),
        (["gaussian", "--sensitivity", "1", "--epsilon", "1"], "never pure-DP"),
        (["gaussian", "--sensitivity", "1", "--scale", "0"], "scale=0"),
    ],
)
def test_bad_input_is_one_line(argv, needle) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "dpcheck", "privacy", *argv], capture_output=True, text=True
    )
    assert out.returncode == 2
    assert needle in out.stderr and "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


def test_api_errors() -> None:
    with pytest.raises(InputError, match="must be at least 1"):
        P.neighbours("geometric", F(1, 2), scale=1)
    with pytest.raises(InputError, match="integers"):
        P.neighbours("clamped-geometric", 1, 0, F(21, 2), 1)
