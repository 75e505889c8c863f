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
#: Rows of the Wang et al. grid built at a time: the construction's temporaries stay at
#: WANG_ROWS rows (they were eight arrays of the whole grid: 1.7 GB at n = 10^5).
WANG_ROWS = 256


def wang_laws(n: int, eps0: float) -> tuple[np.ndarray, np.ndarray]:
    """(P, Q): the two component-count laws of the variation-ratio reduction with generic
    eps0-LDP parameters on the windows of the counts (eps-independent, so built once per
    bisection); built by blocks of rows, each entry as by the whole-grid formula."""
    r = 1.0 / (math.exp(eps0) + 1)
    own = math.exp(eps0) / (math.exp(eps0) + 1)
    if not 0 < 2 * r < 1:
        raise ValueError(f"eps0 = {eps0!r}: the clone probabilities leave (0, 1/2) in floats")
    N = n - 1
    i = _binom_window(N, r)
    j = _binom_window(N, r)
    # changed user: component 0 (x) w.p. own, component 1 w.p. 1 - own; the other world swapped
    shape = (len(i) + 1, len(j) + 1)
    P = np.zeros(shape)
    Q = np.zeros(shape)
    for a in range(0, len(i), WANG_ROWS):
        ii, jj = np.meshgrid(i[a : a + WANG_ROWS], j, indexing="ij")
        b = ii.shape[0]
        rest = N - ii - jj
        ok = rest >= 0
        lp = gammaln(N + 1) - gammaln(ii + 1) - gammaln(jj + 1) - gammaln(np.maximum(rest, 0) + 1)
        lp = lp + (ii + jj) * math.log(r) + np.where(ok, rest, 0) * math.log1p(-2 * r)
        B = np.where(ok, np.exp(np.where(ok, lp, -np.inf)), 0.0)
        # P[1:, :-1] += own B and then P[:-1, 1:] += (1 - own) B, block by block: every
        # entry receives its two terms in that order, as over the whole grid
        P[a + 1 : a + 1 + b, :-1] += own * B
        P[a : a + b, 1:] += (1 - own) * B
        Q[a + 1 : a + 1 + b, :-1] += (1 - own) * B
        Q[a : a + b, 1:] += own * B
    return P, Q


def _hockey_both(P: np.ndarray, Q: np.ndarray, eps: float, buf: np.ndarray) -> float:
    """max(sum (P - e^eps Q)_+, sum (Q - e^eps P)_+), in one buffer (the same roundings
    as ``np.maximum(P - E * Q, 0).sum()``: -E Q is E Q negated exactly)."""
    E = math.exp(eps)
    out = []
    for a, b in ((P, Q), (Q, P)):
        np.multiply(b, -E, out=buf)
        buf += a
        np.maximum(buf, 0, out=buf)
        out.append(float(buf.sum()))
    return max(out)


def wang_delta(n: int, eps0: float, eps: float) -> float:
    """delta(eps) of the variation-ratio reduction with generic eps0-LDP parameters."""
    P, Q = wang_laws(n, eps0)
    return _hockey_both(P, Q, eps, np.empty_like(P))


def wang(n: int, eps0: float, delta: float) -> float:
    """epsilon(delta) of :func:`wang_delta`, the laws built once for the bisection."""
    P, Q = wang_laws(n, eps0)
    buf = np.empty_like(P)
    return _solve(lambda e: _hockey_both(P, Q, e, buf), delta, eps0)


# --------------------------------------------------------------------------- all
def generic_bounds(n: int, eps0: float, delta: float) -> dict[str, float | None]:
    """Every generic bound at (n, eps0, delta); None where a bound does not apply, or where
    its formula leaves the floating-point range (an eps0 so small that e^eps0 rounds to
    1, or so large that e^eps0 overflows: issue 40's hostile inputs)."""
    bounds: dict[str, Callable[[int, float, float], float | None]] = {
        "FMT numerical": fmt_numerical,
        "FMT closed form": fmt_closed_form,
        "blanket (Hoeffding)": blanket_hoeffding,
        "blanket (Bennett)": blanket_bennett,
        "Wang et al.": wang,
    }
    out: dict[str, float | None] = {}
    for name, bound in bounds.items():
        try:
            with np.errstate(all="ignore"):
                value = bound(n, eps0, delta)
        except (ArithmeticError, ValueError):
            value = None
        out[name] = value if value is None or math.isfinite(value) else None
    return out


def best_generic(bounds: dict[str, float | None]) -> tuple[str, float]:
    """The tightest (smallest) applicable generic bound."""
    name, value = min(((k, v) for k, v in bounds.items() if v is not None), key=lambda kv: kv[1])
    return name, value
