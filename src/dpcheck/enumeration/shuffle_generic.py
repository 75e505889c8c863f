"""Generic privacy-amplification-by-shuffling bounds for an eps0-LDP randomizer (for comparison).

Each bound holds for *every* eps0-LDP local randomizer shuffled among n users, so it is
an upper bound on the epsilon(delta) of K-randomization with eps0 = L log(p/q) (its pure
local epsilon, :func:`dpcheck.enumeration.krand_profile.pure_epsilon`).  They are
computed here from the papers' formulas (floats; they are comparisons, not certificates):

* **FMT numerical** (Feldman, McMillan and Talwar, FOCS 2021, Thm 3.2 and their public
  code's ``numericalanalysis``): C ~ Bin(n - 1, e^-eps0), A ~ Bin(C, 1/2), and the pair
  P = a A + (1 - a)(A + 1), Q = a (A + 1) + (1 - a) A with a = e^eps0/(e^eps0 + 1), C
  known; delta(eps) is the hockey-stick divergence of that pair, here summed exactly over
  every C (their code bounds it by steps of C).
* **FMT closed form**: :func:`dpcheck.enumeration.krand_profile.fmt_closed_form`.
* **Privacy blanket** (Balle, Bell, Gascon and Nissim, CRYPTO 2019, Thms 3.1, 3.3 and 3.5 with
  the generic-randomizer parameters of their public code: blanket mass gamma = e^-eps0,
  the privacy-amplification variable's range, maximum and variance bounds): the Hoeffding
  and the Bennett forms.
* **Wang et al.** (VLDB 2024, the variation-ratio reduction, with the generic parameters
  p = q = e^eps0, beta = (e^eps0 - 1)/(e^eps0 + 1) of their table): each of the other
  users is a clone of either changed-user component with probability r = 1/(e^eps0 + 1)
  each; the changed user picks its own component with probability e^eps0/(e^eps0 + 1);
  delta is the hockey-stick divergence of the two component-count laws (exact here).

epsilon(delta) is found by bisection on the bound's delta(eps) (nonincreasing), to 1e-9.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from scipy.special import gammaln
from scipy.stats import binom

from dpcheck.enumeration.krand_profile import fmt_closed_form


def _solve(delta_of: Callable[[float], float], delta: float, hi: float) -> float:
    """Smallest eps in [0, hi] with delta_of(eps) <= delta (bisection; hi if none below)."""
    if delta_of(0.0) <= delta:
        return 0.0
    if delta_of(hi) > delta:
        return hi
    lo = 0.0
    while hi - lo > 1e-9 * max(hi, 1e-9):
        mid = (lo + hi) / 2
        if delta_of(mid) <= delta:
            hi = mid
        else:
            lo = mid
    return hi


def _binom_window(N: int, t: float, z: float = 15.0) -> np.ndarray:
    sd = math.sqrt(max(N * t * (1 - t), 1.0))
    lo = max(0, int(N * t - z * sd) - 2)
    hi = min(N, int(N * t + z * sd) + 2)
    return np.arange(lo, hi + 1)


# --------------------------------------------------------------------------- FMT numerical
def fmt_numerical_delta(n: int, eps0: float, eps: float) -> float:
    """delta(eps) of FMT's reduced pair, summed over every C (module doc).

    Given C = c, with b = Bin(c, 1/2): P(t) = a b(t) + (1 - a) b(t - 1) and Q(t) = P(c + 1 - t),
    so both orders give the same delta; P/Q falls in t (a > 1/2), so the best event is
    {t <= s}: delta_c = (a - E(1 - a)) B(s) + (1 - a - E a) B(s - 1), B the cdf, with s the
    last t below x* (c + 1)/(1 + x*), x* = (E(1 - a) - a)/(1 - a - E a)."""
    a = math.exp(eps0) / (math.exp(eps0) + 1)
    E = math.exp(eps)
    if E >= math.exp(eps0):
        return 0.0
    cs = _binom_window(n - 1, math.exp(-eps0))
    pc = binom.pmf(cs, n - 1, math.exp(-eps0))
    xs = (E * (1 - a) - a) / (1 - a - E * a)
    star = np.ceil(xs * (cs + 1) / (1 + xs)) - 1
    best = np.zeros(len(cs))
    for dv in (-1, 0, 1):
        s_ = np.clip(star + dv, -1, cs + 1)
        val = (a - E * (1 - a)) * binom.cdf(s_, cs, 0.5) + (1 - a - E * a) * binom.cdf(
            s_ - 1, cs, 0.5
        )
        best = np.maximum(best, val)
    return float((pc * best).sum())


def fmt_numerical(n: int, eps0: float, delta: float) -> float:
    return _solve(lambda e: fmt_numerical_delta(n, eps0, e), delta, eps0)


# --------------------------------------------------------------------------- blanket
def _blanket_generic(eps0: float, eps: float) -> dict[str, float]:
    """The generic-LDP parameters of the blanket bounds (gamma, and the privacy
    amplification variable's range, maximum and variance bounds)."""
    gamma_lb, gamma_ub = math.exp(-eps0), 1.0
    return {
        "gamma": gamma_lb,
        "range": gamma_ub * (math.exp(eps) + 1) * (math.exp(eps0) - math.exp(-eps0)),
        "max": gamma_ub * math.exp(eps0) * (1 - math.exp(eps - 2 * eps0)),
        "var": gamma_ub
        * (math.exp(eps0) * (math.exp(2 * eps) + 1) - 2 * gamma_lb * math.exp(eps - 2 * eps0)),
    }


def blanket_hoeffding_delta(n: int, eps0: float, eps: float) -> float:
    if eps >= eps0:
        return 0.0
    g = _blanket_generic(eps0, eps)
    a = math.exp(eps) - 1
    b = g["range"]
    if a <= 0:
        return 1.0
    log_d = (
        -math.log(g["gamma"] * n)
        + math.log(b * b / (4 * a))
        + n * math.log1p(-g["gamma"] * (1 - math.exp(-2 * a * a / (b * b))))
    )
    return min(1.0, math.exp(log_d))


def blanket_bennett_delta(n: int, eps0: float, eps: float) -> float:
    if eps >= eps0:
        return 0.0
    g = _blanket_generic(eps0, eps)
    a = math.exp(eps) - 1
    bp, c = g["max"], g["var"]
    if a <= 0 or bp <= 0:
        return 1.0
    al, be = c / bp**2, a * bp / c
    eta = 1.0 / bp
    phi = (1 + be) * math.log1p(be) - be
    exp_coef = al * phi
    div_coef = eta * math.log1p(be)
    ms = np.arange(1, n + 1)
    pm = binom.pmf(ms, n, g["gamma"])
    expectation = float((pm * np.exp(-ms * exp_coef) / div_coef).sum())
    return min(1.0, expectation / (g["gamma"] * n))


def blanket_hoeffding(n: int, eps0: float, delta: float) -> float:
    return _solve(lambda e: blanket_hoeffding_delta(n, eps0, e), delta, eps0)


def blanket_bennett(n: int, eps0: float, delta: float) -> float:
    return _solve(lambda e: blanket_bennett_delta(n, eps0, e), delta, eps0)


# --------------------------------------------------------------------------- Wang et al.
def wang_delta(n: int, eps0: float, eps: float) -> float:
    """delta(eps) of the variation-ratio reduction with generic eps0-LDP parameters."""
    r = 1.0 / (math.exp(eps0) + 1)
    own = math.exp(eps0) / (math.exp(eps0) + 1)
    N = n - 1
    i = _binom_window(N, r)
    j = _binom_window(N, r)
    ii, jj = np.meshgrid(i, j, indexing="ij")
    rest = N - ii - jj
    ok = rest >= 0
    lp = gammaln(N + 1) - gammaln(ii + 1) - gammaln(jj + 1) - gammaln(np.maximum(rest, 0) + 1)
    lp = lp + (ii + jj) * math.log(r) + np.where(ok, rest, 0) * math.log1p(-2 * r)
    B = np.where(ok, np.exp(np.where(ok, lp, -np.inf)), 0.0)
    # changed user: component 0 (x) w.p. own, component 1 w.p. 1 - own; the other world swapped
    shape = (B.shape[0] + 1, B.shape[1] + 1)
    P = np.zeros(shape)
    Q = np.zeros(shape)
    P[1:, :-1] += own * B
    P[:-1, 1:] += (1 - own) * B
    Q[1:, :-1] += (1 - own) * B
    Q[:-1, 1:] += own * B
    E = math.exp(eps)
    return max(float(np.maximum(P - E * Q, 0).sum()), float(np.maximum(Q - E * P, 0).sum()))


def wang(n: int, eps0: float, delta: float) -> float:
    return _solve(lambda e: wang_delta(n, eps0, e), delta, eps0)


# --------------------------------------------------------------------------- all
def generic_bounds(n: int, eps0: float, delta: float) -> dict[str, float | None]:
    """Every generic bound at (n, eps0, delta); None where a bound does not apply."""
    out: dict[str, float | None] = {
        "FMT numerical": fmt_numerical(n, eps0, delta),
        "FMT closed form": fmt_closed_form(n, eps0, delta),
        "blanket (Hoeffding)": blanket_hoeffding(n, eps0, delta),
        "blanket (Bennett)": blanket_bennett(n, eps0, delta),
        "Wang et al.": wang(n, eps0, delta),
    }
    return out


def best_generic(bounds: dict[str, float | None]) -> tuple[str, float]:
    """The tightest (smallest) applicable generic bound."""
    name, value = min(((k, v) for k, v in bounds.items() if v is not None), key=lambda kv: kv[1])
    return name, value
