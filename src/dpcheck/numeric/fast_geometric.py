"""float64 kernels of the two-sided geometric (discrete Laplace) base on s + Z.

P(X = s + m) = (1 - α)/(1 + α) α^|m|, α = e^{-L}, L = 1/b (b the scale);
s, c0, c1 are integers, u = s - c0 and v = c1 - s (either may be inf: the
one-sided variants).  The derived references are
:func:`dpcheck.symbolic.mechanisms.quantity` ('truncated-geometric.*',
'clamped-geometric.*', 'geometric.*'), closed forms in α that cancel
catastrophically when α → 1 (b ≫ R) and lose α^n to underflow when α → 0.
Here every quantity is written with the partial sums (ω = 1 - α)

    Q1(n) = Σ_{j<n} α^j,   Q2(n) = Σ_{j<n} j α^j,   Q3(n) = Σ_{j<n} j² α^j,

themselves computed without cancellation from binomial tail probabilities
(Σ_{j<n} C(j, k) α^j = α^k/ω^{k+1} P(Bin(n, ω) > k)), which in turn are
written with the regularised gamma functions P1, P2, P3 of
:func:`dpcheck.numeric.fast.gamma_p` at x = nL and L (each a sum of positive
terms; the differences below lose at most a factor 4.5):

    ω Q1(n)        = P1(x),
    ω²/α Q2(n)     = B2 = P2(x) - n e^{-(n-1)L} P2(L),
    ω³/α² Σ C(j,2) = B3 = P3(x) - n e^{-(n-1)L} P3(L)
                          - C(n,2) e^{-(n-2)L} P2(L) (P1(L) + L e^{-L}),
    Q3 = 2α²B3/ω³ + Q2.

(B3 is P(Poisson(x) >= 3) minus the probability that the >= 3 points of a
rate-one Poisson process on n cells of length L fall in at most two cells.)
For L < 1 the same forms are divided by L^k (P_m(x)/x^m = p_m(x),
ω = L p1(L)), so b = 1e300 gives the uniform law's moments.  Then:

* truncated: W0 = 1 + α(Q1(u) + Q1(v)), W1 = ±α^{u'+1}((u'+1)Q1(d) + Q2(d))
  (u' = min(u, v), d = |v - u|), W2 = α Σ_{n=u,v} (Q3 + 2Q2 + Q1)(n);
  bias = W1/W0, mse = W2/W0, normaliser = (P1((u+1)L) + α P1(vL))/(1 + α);
* clamped: bias = ±α^{u'+1} Q1(d)/(1 + α) (= E(M - u)^+ - E(M - v)^+),
  mse = α Σ_{n=u,v} (2Q2 + Q1)(n)/(1 + α) (E min(W, n)² = Σ_{k<=n} (2k-1) P(W >= k));
* unbounded: var = mse = 2α/ω².

With n = inf: Q1 = 1/ω, Q2 = α/ω², Q3 + 2Q2 + Q1 = (1 + α)/ω³ ... (the sums
to infinity); one-sided laws with L < 1 are computed in units of 1/L.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from dpcheck.numeric.arrays import Floats
from dpcheck.numeric.fast_laplace import gamma_p, p_over

#: below this L (b > 1) the forms are taken in units of 1/L
SMALL_L = 1.0


@dataclass(frozen=True)
class Geo:
    """L = -log α, α and ω = 1 - α (flat arrays of one length), each to a few ulps;
    the functions of L used by every partial sum are computed once, on first use."""

    L: Floats
    alpha: Floats
    omega: Floats

    def take(self, idx) -> Geo:
        return Geo(self.L[idx], self.alpha[idx], self.omega[idx])

    @cached_property
    def gammas(self) -> tuple[Floats, Floats, Floats, Floats]:
        """(P1(L), P2(L), P3(L), L e^{-L})."""
        lc = np.minimum(self.L, 800.0)
        return gamma_p(1, self.L), gamma_p(2, self.L), gamma_p(3, self.L), lc * np.exp(-lc)

    @cached_property
    def scaled(self) -> tuple[Floats, Floats, Floats, Floats]:
        """(p1(L), p2(L), p3(L), e^{-L}) with p_m(x) = P_m(x)/x^m."""
        L = self.L
        return p_over(1, L), p_over(2, L), p_over(3, L), np.exp(-L)


def from_scale(scale: Floats) -> Geo:
    """α = e^{-1/b}, ω = -expm1(-1/b)."""
    L = 1.0 / scale
    return Geo(L, np.exp(-L), -np.expm1(-L))


def from_alpha(alpha: Floats) -> Geo:
    """ω = 1 - α (exact for α >= 1/2), L = -log1p(-ω) near 1, -log α below."""
    omega = 1.0 - alpha
    L = np.where(alpha > 0.5, -np.log1p(-np.minimum(omega, 0.5)), -np.log(alpha))
    return Geo(L, alpha, omega)


def _binom_terms(n: Floats, L: Floats) -> tuple[Floats, Floats]:
    """(n e^{-(n-1)L}, C(n,2) e^{-(n-2)L}), 0 where n < 1 (resp. n < 2) or n = inf."""
    finite = np.isfinite(n)
    nf = np.where(finite, n, 0.0)
    c1 = np.where(nf >= 1, nf * np.exp(-np.maximum(nf - 1.0, 0.0) * L), 0.0)
    c2 = np.where(nf >= 2, 0.5 * nf * (nf - 1.0) * np.exp(-np.maximum(nf - 2.0, 0.0) * L), 0.0)
    return c1, c2


def q_large(n: Floats, g: Geo, third: bool = True) -> tuple[Floats, Floats, Floats | None]:
    """(Q1, Q2, Q3)(n) for L >= 1 (n may be inf); Q3 only when ``third``."""
    P1L, P2L, P3L, LeL = g.gammas
    x = n * g.L
    c1, c2 = _binom_terms(n, g.L)
    w = g.omega
    q1 = gamma_p(1, x) / w
    q2 = g.alpha / (w * w) * (gamma_p(2, x) - c1 * P2L)
    if not third:
        return q1, q2, None
    b3 = gamma_p(3, x) - c1 * P3L - c2 * P2L * (P1L + LeL)
    return q1, q2, 2.0 * g.alpha * g.alpha / (w * w * w) * b3 + q2


def q_small(n: Floats, g: Geo, third: bool = True) -> tuple[Floats, Floats, Floats | None]:
    """(Q1, Q2, Q3)(n) for L < 1 and finite n, in counts (~ n, n²/2, n³/3 as L → 0)."""
    p1L, p2L, p3L, eL = g.scaled
    x = n * g.L
    c1, c2 = _binom_terms(n, g.L)
    q1 = n * p_over(1, x) / p1L
    q2 = g.alpha * (n * n * p_over(2, x) - c1 * p2L) / (p1L * p1L)
    if not third:
        return q1, q2, None
    b3 = n**3 * p_over(3, x) - c1 * p3L - c2 * p2L * (p1L + eL)
    return q1, q2, 2.0 * g.alpha * g.alpha * b3 / (p1L * p1L * p1L) + q2


def q_scaled(n: Floats, g: Geo) -> tuple[Floats, Floats, Floats]:
    """(L Q1, L² Q2, L³ Q3)(n) for L < 1 and finite n (the one-sided laws' finite side)."""
    L = g.L
    P1L, P2L, P3L, LeL = g.gammas
    p1L = g.scaled[0]
    x = n * L
    c1, c2 = _binom_terms(n, L)
    b2 = gamma_p(2, x) - c1 * P2L
    b3 = gamma_p(3, x) - c1 * P3L - c2 * P2L * (P1L + LeL)
    q1 = gamma_p(1, x) / p1L
    q2 = g.alpha * b2 / (p1L * p1L)
    q3 = 2.0 * g.alpha * g.alpha * b3 / p1L**3 + L * q2
    return q1, q2, q3


def _split_l(mask, f_large, f_small, arrays: tuple[Floats, ...], g: Geo) -> tuple[Floats, ...]:
    """Apply ``f_small`` where ``mask`` (L < 1), ``f_large`` elsewhere; arrays flat."""
    idx_s = np.flatnonzero(mask)
    if idx_s.size == 0:
        return f_large(*arrays, g)
    if idx_s.size == mask.size:
        return f_small(*arrays, g)
    idx_l = np.flatnonzero(~mask)
    big = f_large(*(a[idx_l] for a in arrays), g.take(idx_l))
    small = f_small(*(a[idx_s] for a in arrays), g.take(idx_s))
    outs = []
    for pl, ps in zip(big, small, strict=True):
        out = np.empty(mask.size)
        out[idx_l] = pl
        out[idx_s] = ps
        outs.append(out)
    return tuple(outs)


def moments(bounding: str, u: Floats, v: Floats, g: Geo) -> tuple[Floats, Floats, Floats]:
    """(normaliser, bias, mse) for integer distances u, v >= 0 (either may be inf)."""
    small = g.L < SMALL_L
    one_sided = ~(np.isfinite(u) & np.isfinite(v))
    out = [np.empty(u.size) for _ in range(3)]
    for part, f_large, f_small in (
        (~one_sided, _both_large, _both_small),
        (one_sided, _one_large, _one_small),
    ):
        idx = np.flatnonzero(part)
        if idx.size == 0:
            continue
        sub = g.take(idx)
        bias, mse = _split_l(
            small[idx],
            lambda u, v, g, f=f_large: f(bounding, u, v, g),
            lambda u, v, g, f=f_small: f(bounding, u, v, g),
            (u[idx], v[idx]),
            sub,
        )
        out[1][idx] = bias
        out[2][idx] = mse
    out[0] = normaliser(u, v, g)
    return out[0], out[1], out[2]


def normaliser(u: Floats, v: Floats, g: Geo) -> Floats:
    """P(c0 <= X <= c1) = (P1((u+1)L) + α P1(vL))/(1 + α); in units of L for L < 1."""
    small = g.L < SMALL_L

    def large(u, v, g):
        return ((gamma_p(1, (u + 1.0) * g.L) + g.alpha * gamma_p(1, v * g.L)) / (1.0 + g.alpha),)

    def small_form(u, v, g):
        return (g.L * (p1_over_l(u + 1.0, g.L) + g.alpha * p1_over_l(v, g.L)) / (1.0 + g.alpha),)

    return _split_l(small, large, small_form, (u, v), g)[0]


def p1_over_l(n: Floats, L: Floats) -> Floats:
    """P1(nL)/L = n p1(nL) (1/L at n = inf)."""
    finite = np.isfinite(n)
    nf = np.where(finite, n, 0.0)
    return np.where(finite, nf * p_over(1, nf * L), 1.0 / L)


def _near(u: Floats, v: Floats) -> tuple[Floats, Floats, Floats]:
    lo = np.minimum(u, v)
    return lo, np.abs(v - u), np.sign(v - u)


def _both_large(bounding, u, v, g):
    lo, d, sign = _near(u, v)
    near = sign * np.exp(-(lo + 1.0) * g.L)
    third = bounding == "truncated"
    q1d, q2d, _ = q_large(d, g, False)
    qu, qv = q_large(u, g, third), q_large(v, g, third)
    return _both(bounding, near, lo, q1d, q2d, qu, qv, g)


def _both_small(bounding, u, v, g):
    lo, d, sign = _near(u, v)
    near = sign * np.exp(-(lo + 1.0) * g.L)
    third = bounding == "truncated"
    q1d, q2d, _ = q_small(d, g, False)
    qu, qv = q_small(u, g, third), q_small(v, g, third)
    return _both(bounding, near, lo, q1d, q2d, qu, qv, g)


def _both(bounding, near, lo, q1d, q2d, qu, qv, g):
    a = g.alpha
    if bounding == "truncated":
        w0 = 1.0 + a * (qu[0] + qv[0])
        w1 = near * ((lo + 1.0) * q1d + q2d)
        w2 = a * ((qu[2] + 2.0 * qu[1] + qu[0]) + (qv[2] + 2.0 * qv[1] + qv[0]))
        return w1 / w0, w2 / w0
    bias = near * q1d / (1.0 + a)
    mse = a * ((2.0 * qu[1] + qu[0]) + (2.0 * qv[1] + qv[0])) / (1.0 + a)
    return bias, mse


def _one_parts(u, v):
    lower = np.isfinite(u)  # [c0, ∞): v = inf
    n = np.where(lower, u, v)
    sign = np.where(lower, 1.0, -1.0)
    return n, sign


def _one_large(bounding, u, v, g):
    n, sign = _one_parts(u, v)
    a, w = g.alpha, g.omega
    q1, q2, q3 = q_large(n, g, bounding == "truncated")
    near = np.exp(-(n + 1.0) * g.L)
    if bounding == "truncated":
        w0 = 1.0 + a * (q1 + 1.0 / w)
        w1 = near * ((n + 1.0) / w + a / (w * w))
        w2 = a * (q3 + 2.0 * q2 + q1) + a * (1.0 + a) / (w * w * w)
        return sign * w1 / w0, w2 / w0
    bias = sign * near / (w * (1.0 + a))
    mse = a * (2.0 * q2 + q1) / (1.0 + a) + a / (w * w)
    return bias, mse


def _one_small(bounding, u, v, g):
    n, sign = _one_parts(u, v)
    a, L = g.alpha, g.L
    p1L = p_over(1, L)
    q1, q2, q3 = q_scaled(n, g)  # L Q1, L² Q2, L³ Q3
    near = np.exp(-(n + 1.0) * L)
    if bounding == "truncated":
        w0 = L + a * (q1 + 1.0 / p1L)  # L W0
        w1 = near * ((n + 1.0) * L / p1L + a / (p1L * p1L))  # L² W1
        w2 = a * (q3 + 2.0 * L * q2 + L * L * q1) + a * (1.0 + a) / p1L**3  # L³ W2
        return sign * (w1 / w0) / L, (w2 / w0) / L / L
    bias = sign * (near / (p1L * (1.0 + a))) / L
    mse = (a * (2.0 * q2 + L * q1) / (1.0 + a) + a / (p1L * p1L)) / L / L
    return bias, mse


def unbounded_var(g: Geo) -> Floats:
    """2α/ω² (= 2α/(L p1(L))² for L < 1)."""
    p1L = p_over(1, g.L)
    return np.where(
        g.L < SMALL_L,
        2.0 * g.alpha / (p1L * p1L) / g.L / g.L,
        2.0 * g.alpha / (g.omega * g.omega),
    )


def cdf(bounding: str, k: Floats, s: Floats, c0: Floats, c1: Floats, g: Geo) -> Floats:
    """P(Y <= y) at k = floor(y), for c0 <= k < c1 (bounded) or any k (unbounded).

    Base law: α^{|m|}/(1 + α) for m = k - s < 0, 1 - α^{m+1}/(1 + α) from 0 on;
    clamped: the base law's; truncated: P(c0 <= X <= k)/P(c0 <= X <= c1) with
    P(-u <= M <= m) = α^{|m|} P1((k - c0 + 1)L)/(1+α) for m < 0 and
    (P1((u+1)L) + α P1(mL))/(1 + α) for m >= 0 (divided by L when L < 1).
    """
    m = k - s
    a = g.alpha
    if bounding != "truncated":
        tail = np.exp(-np.abs(m) * g.L) / (1.0 + a)
        return np.where(m < 0, tail, 1.0 - a * tail)
    u, v = s - c0, c1 - s
    small = g.L < SMALL_L
    am = np.abs(m)
    neg = m < 0

    def large(u, v, am, kc, neg, g):
        den = gamma_p(1, (u + 1.0) * g.L) + g.alpha * gamma_p(1, v * g.L)
        low = np.exp(-am * g.L) * gamma_p(1, kc * g.L)
        high = gamma_p(1, (u + 1.0) * g.L) + g.alpha * gamma_p(1, am * g.L)
        return (np.where(neg, low, high) / den,)

    def small_form(u, v, am, kc, neg, g):
        den = p1_over_l(u + 1.0, g.L) + g.alpha * p1_over_l(v, g.L)
        low = np.exp(-am * g.L) * p1_over_l(kc, g.L)
        high = p1_over_l(u + 1.0, g.L) + g.alpha * p1_over_l(am, g.L)
        return (np.where(neg, low, high) / den,)

    kc = k - c0 + 1.0  # inf for c0 = -inf
    (out,) = _split_l(small, large, small_form, (u, v, am, kc, neg.astype(float)), g)
    return np.clip(out, 0.0, 1.0)


def q1(n: Floats, g: Geo) -> Floats:
    """Q1(n) = P1(nL)/ω (1/ω at n = inf); as P1(nL)/L / p1(L) for L < 1."""
    return np.where(
        g.L < SMALL_L, p1_over_l(n, g.L) / p_over(1, g.L), gamma_p(1, n * g.L) / g.omega
    )


def pmf(bounding: str, k: Floats, s: Floats, c0: Floats, c1: Floats, g: Geo) -> Floats:
    """P(Y = k) for integer k (0 outside [c0, c1]).

    Base: ω/(1 + α) α^{|k-s|}; truncated: α^{|k-s|}/W0 with
    W0 = 1 + α(Q1(u) + Q1(v)); clamped: the base pmf inside (c0, c1), and
    P(X <= c0) = α^u/(1 + α) at c0, α^v/(1 + α) at c1.
    """
    decay = np.exp(-np.abs(k - s) * g.L)
    base = g.omega / (1.0 + g.alpha) * decay
    if bounding == "none":
        return base
    u, v = s - c0, c1 - s
    inside = (k >= c0) & (k <= c1)
    if bounding == "truncated":
        w0 = 1.0 + g.alpha * (q1(u, g) + q1(v, g))
        return np.where(inside, decay / w0, 0.0)
    at_c0, at_c1 = point_masses(u, v, g)
    out = np.where(k == c0, at_c0, np.where(k == c1, at_c1, base))
    return np.where(inside, out, 0.0)


def point_masses(u: Floats, v: Floats, g: Geo) -> tuple[Floats, Floats]:
    """(P(Y = c0), P(Y = c1)) = (α^u, α^v)/(1 + α) (0 at an infinite bound)."""
    return np.exp(-u * g.L) / (1.0 + g.alpha), np.exp(-v * g.L) / (1.0 + g.alpha)


__all__ = [
    "Geo",
    "cdf",
    "from_alpha",
    "from_scale",
    "moments",
    "normaliser",
    "pmf",
    "point_masses",
    "unbounded_var",
]
