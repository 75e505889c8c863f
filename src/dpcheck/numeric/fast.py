"""float64 fast path: moments and CDFs of the truncated and BIT laws, in bulk.

The derived closed forms (:mod:`dpcheck.symbolic.laplace_family`, Liu 2019
eqs (6), (7) and Appendix B) cancel catastrophically in float64 when
λ ≫ c1 - c0 (1 - (1 + u)e^{-u} with u → 0) and overflow when λ ≪ c1 - c0.
Here they are rewritten, by hand but checked against 50-digit mpmath of the
derived forms (tests/test_fast_path.py), in terms of the regularised lower
incomplete gamma functions

    P1(x) = 1 - e^{-x},  P2(x) = 1 - (1 + x) e^{-x},  P3(x) = 1 - (1 + x + x²/2) e^{-x},

which are sums of positive terms (a series for x < 1, the direct form with
at most a 12x loss for x >= 1).  With u = (s - c0)/λ, v = (c1 - s)/λ,
u' = min(u, v), d = |c1 + c0 - 2s|/λ and σ = sign(v - u):

* truncated (Definition 2(a), normaliser Z = (P1(u) + P1(v))/2, eq (4)):
  bias = σ λ e^{-u'} (u' P1(d) + P2(d)) / (2Z),  MSE = λ² (P3(u) + P3(v)) / Z;
* BIT (Definition 2(b), eq (5)): bias = σ (λ/2) e^{-u'} P1(d),
  MSE = λ² (P2(u) + P2(v));

and var = MSE - bias², mean = s + bias, E[s*²] = mean² + var (sums of
non-negative terms, or a difference that keeps at least a quarter of the
larger term).  The difference P2(v) - P2(u) = e^{-u'}(u' P1(d) + P2(d)) has
no cancellation, so the bias keeps full relative accuracy near the bounds
and absolute accuracy ~1e-16 (c1 - c0) at the midpoint.

Domain: finite float64 parameters with c0 <= s <= c1, λ > 0 and
(c1 - c0)/λ >= 1e-300 (below that the normaliser underflows).
"""

from __future__ import annotations

from functools import cache

import mpmath
import numpy as np
from numpy.typing import ArrayLike

from dpcheck.numeric.arrays import Floats, as_floats, mechanism_params
from dpcheck.numeric.names import MECHANISMS, QUANTITIES, check_mechanism, split_name

#: elements per block: small enough for the temporaries to stay in cache
CHUNK = 32768
#: below SERIES_BELOW, P2 and P3 are e^{-x} x^m/m! phi_m(x) with phi_m a polynomial
SERIES_BELOW = 0.5
#: degree of the polynomial fitted to phi_m on [0, 1/2] (1 ulp; Taylor would need 14)
_DEGREE = 9


def gamma_p(m: int, x: Floats, e: Floats | None = None) -> Floats:
    """P(m, x) = 1 - e^{-x} sum_{j<m} x^j/j!, m in {1, 2, 3}, x >= 0, to a few ulps.

    ``e`` may pass e^{-x} when the caller has it.  For m >= 2 and x < 1/2
    the positive series e^{-x} x^m/m! sum_i x^i m!/(m+i)! is used; above,
    the direct form loses at most a factor 1/(1 - 1.625 e^{-1/2}) ~ 70 ulps.
    """
    if m == 1:
        return -np.expm1(-x)
    if m not in (2, 3):
        raise ValueError(f"m={m} is not 1, 2 or 3")
    if np.ndim(x) == 0:
        x = np.atleast_1d(x)
        return gamma_p(m, x, None if e is None else np.atleast_1d(e))[0]
    if e is None:
        e = _exp_minus(x)
    # x capped at 750 in the polynomial: (1 + x + x²/2)e^{-x} < 1e-298 there (and
    # e is capped at e^{-700}); uncapped, x > 1e154 overflowed to P3 = -inf (λ/R < 1e-154)
    xp = np.minimum(x, 750.0)
    poly = 1.0 + xp if m == 2 else 1.0 + xp * (1.0 + 0.5 * xp)
    poly *= e
    out = 1.0 - poly
    where = np.flatnonzero(x < SERIES_BELOW)
    if where.size:
        small = x[where]
        coefficients = _series(m)
        acc = small * coefficients[0]
        acc += coefficients[1]
        for c in coefficients[2:]:
            acc *= small
            acc += c
        acc *= e[where]
        acc *= small * small
        if m == 3:
            acc *= small
        out[where] = acc
    return out


def _exp_minus(x: Floats) -> Floats:
    """e^{-x} for x >= 0, with x capped at 700 (e^{-700} ~ 1e-304).

    numpy's SIMD exp takes a slow path for arguments that underflow; every
    use below multiplies e^{-x} into a term that is then negligible, so the
    cap changes no result by more than 1e-300 relative to the terms kept.
    """
    return np.exp(-np.minimum(x, 700.0))


@cache
def _series(m: int) -> tuple[float, ...]:
    """Coefficients (highest power first) of a degree-9 polynomial for phi_m on [0, 1/2].

    phi_m(x) = sum_i x^i m!/(m+i)! / m! (so that P(m, x) = e^{-x} x^m phi_m(x)) is
    fitted by least squares at 60 Chebyshev nodes in 40-digit mpmath; the fit is
    within 1 ulp on [0, 1/2] (tests/test_fast_path.py checks P(m, x) against
    mpmath.gammainc).  Computed once, on first use.
    """
    with mpmath.workdps(40):
        nodes = [
            mpmath.mpf(1) / 4 + mpmath.cos(mpmath.pi * (k + mpmath.mpf(1) / 2) / 60) / 4
            for k in range(60)
        ]

        def phi(x: mpmath.mpf) -> mpmath.mpf:
            return mpmath.fsum(x**i / mpmath.factorial(m + i) for i in range(40))

        design = mpmath.matrix([[x**j for j in range(_DEGREE + 1)] for x in nodes])
        values = mpmath.matrix([phi(x) for x in nodes])
        fit = mpmath.lu_solve(design.T * design, design.T * values)
        return tuple(float(fit[j]) for j in range(_DEGREE, -1, -1))


#: above this scale (in units of R), λ^m P(m, x) is evaluated as a^m e^{-x} phi_m(x)
HUGE_SCALE = 1e100


def scaled_gamma_p(m: int, a: Floats, lam: Floats, e: Floats | None = None) -> Floats:
    """L_m(a) = λ^m P(m, a/λ) for lengths 0 <= a <= 1 (in units of R), without overflow.

    Up to λ = HUGE_SCALE it is λ^m P(m, x) directly (x = a/λ; :func:`gamma_p` keeps
    full accuracy for small x).  Above, λ^m would overflow and P(m, x) underflow,
    so it is a^m e^{-x} phi_m(x) with phi_1(x) = P1(x)/x and phi_m of
    :func:`_series` (x < 1e-100 there): λ = 1e300 against a = 0.3 gives
    0.3^m phi_m(~0).  ``e`` may pass e^{-a/λ} when the caller has it.
    """
    a, lam = np.broadcast_arrays(np.atleast_1d(a), np.atleast_1d(lam))
    huge = lam > HUGE_SCALE
    if not np.any(huge):
        return lam**m * gamma_p(m, a / lam, None if e is None else np.atleast_1d(e))
    out = np.empty(a.shape)
    rest = np.flatnonzero(~huge)
    if rest.size:
        out[rest] = lam[rest] ** m * gamma_p(m, a[rest] / lam[rest])
    idx = np.flatnonzero(huge)
    xs = a[idx] / lam[idx]
    if m == 1:
        phi = np.ones_like(xs)
        nonzero = xs > 0
        phi[nonzero] = -np.expm1(-xs[nonzero]) / xs[nonzero]
    else:
        coefficients = _series(m)
        phi = np.full_like(xs, coefficients[0])
        for c in coefficients[1:]:
            phi *= xs
            phi += c
        phi *= _exp_minus(xs)
    out[idx] = a[idx] ** m * phi
    return out


def _moments(mechanism: str, s, c0, c1, lam, bias: bool, mse: bool):
    """(bias, MSE) about s, each computed only when asked.

    Up to λ/R = HUGE_SCALE the module docstring's forms in units of λ.  Above,
    λ^k P(m, x) would underflow (λ = 1e300 against R = 1: a mean of s instead of
    about (c0 + c1)/2, a variance of nan), so those elements take the same forms
    multiplied through by λ^k and written in units of R = c1 - c0: lengths
    a = (s - c0)/R, b = (c1 - s)/R, D = |b - a| and L_m = λ^m P(m, ·/λ)
    (:func:`scaled_gamma_p`).
    """
    huge = lam > HUGE_SCALE * (c1 - c0)
    if not np.any(huge):
        return _moments_in_units_of_scale(mechanism, s, c0, c1, lam, bias, mse)
    if np.all(huge):
        return _moments_in_lengths(mechanism, s, c0, c1, lam, bias, mse)
    s, c0, c1, lam, huge = np.broadcast_arrays(s, c0, c1, lam, huge)
    out = [np.empty(s.shape) if asked else None for asked in (bias, mse)]
    for side, form in ((~huge, _moments_in_units_of_scale), (huge, _moments_in_lengths)):
        idx = np.flatnonzero(side)
        parts = form(mechanism, s.flat[idx], c0.flat[idx], c1.flat[idx], lam.flat[idx], bias, mse)
        for whole, part in zip(out, parts, strict=True):
            if whole is not None:
                whole.flat[idx] = part
    return tuple(out)


def _moments_in_units_of_scale(mechanism: str, s, c0, c1, lam, bias: bool, mse: bool):
    u = (s - c0) / lam
    v = (c1 - s) / lam
    z2 = gamma_p(1, u) + gamma_p(1, v) if mechanism == "truncated" else None
    e_u, e_v = _exp_minus(u), _exp_minus(v)
    out_bias = out_mse = None
    if bias:
        sign = np.copysign(lam, v - u)
        near = np.maximum(e_u, e_v)  # e^{-min(u, v)}
        d = np.abs(v - u)
        p1_d = gamma_p(1, d)
        if z2 is not None:
            out_bias = sign * near * (np.minimum(u, v) * p1_d + gamma_p(2, d)) / z2
        else:
            out_bias = 0.5 * sign * near * p1_d
    if mse:
        if z2 is not None:
            out_mse = 2.0 * lam * lam * (gamma_p(3, u, e_u) + gamma_p(3, v, e_v)) / z2
        else:
            out_mse = lam * lam * (gamma_p(2, u, e_u) + gamma_p(2, v, e_v))
    return out_bias, out_mse


def _moments_in_lengths(mechanism: str, s, c0, c1, lam, bias: bool, mse: bool):
    r = c1 - c0
    a = (s - c0) / r
    b = (c1 - s) / r
    scale = lam / r
    e_a, e_b = _exp_minus(a / scale), _exp_minus(b / scale)
    l1 = (
        scaled_gamma_p(1, a, scale, e_a) + scaled_gamma_p(1, b, scale, e_b)
        if mechanism == "truncated"
        else None
    )
    out_bias = out_mse = None
    if bias:
        sign = np.sign(b - a)
        near = np.maximum(e_a, e_b)  # e^{-min(u, v)}
        d = np.abs(b - a)
        l1_d = scaled_gamma_p(1, d, scale)
        if l1 is not None:
            out_bias = sign * near * (np.minimum(a, b) * l1_d + scaled_gamma_p(2, d, scale)) / l1
        else:
            out_bias = 0.5 * sign * near * l1_d
        out_bias = out_bias * r
    if mse:
        if l1 is not None:
            out_mse = (
                2.0 * (scaled_gamma_p(3, a, scale, e_a) + scaled_gamma_p(3, b, scale, e_b)) / l1
            )
        else:
            out_mse = scaled_gamma_p(2, a, scale, e_a) + scaled_gamma_p(2, b, scale, e_b)
        out_mse = out_mse * (r * r)
    return out_bias, out_mse


def _quantity(mechanism: str, quantity: str, s, c0, c1, lam) -> Floats:
    bias, mse = _moments(mechanism, s, c0, c1, lam, quantity != "mse", quantity != "bias"
                         and quantity != "mean")
    if quantity == "mse":
        return mse
    if quantity == "bias":
        return bias
    if quantity == "mean":
        return s + bias
    var = np.maximum(mse - bias * bias, 0.0)
    if quantity == "var":
        return var
    mean = s + bias
    return mean * mean + var  # second_moment


def _blocks(fn, arrays: list[Floats]) -> Floats:
    """Apply ``fn`` to broadcast ``arrays`` in CHUNK-sized blocks (cache-friendly).

    Parameters that are the same for every element stay 0-d (numpy then
    broadcasts a scalar, with no memory traffic).
    """
    shape = np.broadcast_shapes(*(a.shape for a in arrays))
    total = int(np.prod(shape, dtype=np.int64))
    flat = [a if a.ndim == 0 else np.broadcast_to(a, shape).reshape(-1) for a in arrays]
    out = np.empty(total)
    for start in range(0, total, CHUNK):
        stop = min(start + CHUNK, total)
        out[start:stop] = fn(*(f if f.ndim == 0 else f[start:stop] for f in flat))
    return out.reshape(shape)


def evaluate(name: str, s: ArrayLike, c0: ArrayLike, c1: ArrayLike, lam: ArrayLike) -> Floats:
    """The quantity ``name`` ('truncated.mse', 'bit.bias', ...) in float64, elementwise.

    Same names and meanings as :func:`dpcheck.numeric.mp.compiled` (mean,
    bias = E[s*] - s, second_moment = E[s*²], var, mse = E[(s* - s)²]);
    parameters broadcast like numpy arrays and are validated (one-line
    InputError for NaN, λ <= 0, c0 >= c1, s outside [c0, c1]).
    """
    mechanism, quantity = split_name(name)
    arrays = list(mechanism_params(s, c0, c1, lam))
    return _blocks(lambda *a: _quantity(mechanism, quantity, *a), arrays)


def _cdf(mechanism: str, y, s, c0, c1, lam) -> Floats:
    below = y <= s
    r = np.abs(s - y) / lam  # distance of y from s, in units of λ
    if mechanism == "truncated":
        u = (s - c0) / lam
        z2 = gamma_p(1, u) + gamma_p(1, (c1 - s) / lam)
        w = np.maximum(y - c0, 0.0) / lam
        low = _exp_minus(r) * gamma_p(1, w) / z2
        high = (gamma_p(1, u) + gamma_p(1, r)) / z2
        inside = np.where(below, low, np.minimum(high, 1.0))
    else:
        half = 0.5 * _exp_minus(r)
        inside = np.where(below, half, 1.0 - half)
    return np.where(y < c0, 0.0, np.where(y >= c1, 1.0, inside))


def cdf(
    mechanism: str, y: ArrayLike, s: ArrayLike, c0: ArrayLike, c1: ArrayLike, lam: ArrayLike
) -> Floats:
    """P(s* <= y) in float64 (point masses included), elementwise, absolute error ~1e-16.

    Truncated (eq (4)): e^{-(s-y)/λ} P1((y-c0)/λ)/(2Z) for y <= s and
    (P1(u) + P1((y-s)/λ))/(2Z) above; BIT (eq (5)): the Laplace CDF on
    [c0, c1), 1 from c1 on.
    """
    check_mechanism(mechanism)
    arrays = list(mechanism_params(s, c0, c1, lam))
    y_ = as_floats("y", y)
    return _blocks(lambda yy, *a: _cdf(mechanism, yy, *a), [y_, *arrays])


def point_masses(
    mechanism: str, s: ArrayLike, c0: ArrayLike, c1: ArrayLike, lam: ArrayLike
) -> tuple[Floats, Floats]:
    """(P(s* = c0), P(s* = c1)): e^{-(s-c0)/λ}/2 and e^{-(c1-s)/λ}/2 for BIT (eq (5)), else 0."""
    check_mechanism(mechanism)
    s_, c0_, c1_, lam_ = mechanism_params(s, c0, c1, lam)
    if mechanism == "truncated":
        zero = np.zeros_like(s_)
        return zero, zero.copy()
    return 0.5 * np.exp(-(s_ - c0_) / lam_), 0.5 * np.exp(-(c1_ - s_) / lam_)


__all__ = [
    "MECHANISMS",
    "QUANTITIES",
    "cdf",
    "evaluate",
    "gamma_p",
    "point_masses",
    "scaled_gamma_p",
    "split_name",
]
