"""Privacy profile delta(eps), its inverse eps(delta), the pure epsilon and calibration of
any mechanism of the algebra (issue 19; DESIGN.md, "Mechanisms").

Neighbouring inputs are s, s' in [c0, c1] with |s - s'| <= Δ (any s for the
unbounded mechanisms).  The hockey-stick divergence of a pair is

    H_ε(s, s') = sup_E P_s(E) - e^ε P_s'(E),        δ(ε) = sup over neighbours of H_ε.

The argument (each step is a property checked by the tests, see
tests/test_profile.py):

1. **Half-line events.**  Every base here is log-concave (Laplace, Gaussian,
   two-sided geometric), so for s < s' the likelihood ratio p_s(y)/p_s'(y) is
   non-increasing in y; truncation multiplies it by the constant Z_s'/Z_s and
   clamping is a non-decreasing map of s + X, so both keep it monotone.  The
   optimal event {p_s > e^ε p_s'} is then a lower half-line {Y <= t}, and
   H_ε(s, s') = max(0, sup_t F_s(t) - e^ε F_s'(t)) with F the mechanism's own
   CDF, *derived* by :func:`dpcheck.symbolic.mechanisms.cdf_branches` (point masses
   and lattice points included).  The crossing t* solves log LR(t) = ε
   (:func:`_crossing`); any t gives an event, so a wrong t can only *lower* the value.
   The direction s > s' is the mirror image y -> -y of the direction s < s'.
2. **Moving the pair apart.**  Monotone likelihood ratio in s implies
   stochastic order: F_u(t) is non-increasing in u.  Hence for s < s' < s'',
   F_s(t) - e^ε F_s''(t) >= F_s(t) - e^ε F_s'(t) for every t, so H_ε(s, s') is
   non-decreasing in s' and (likewise) non-increasing in s: the supremum over
   neighbours lies on the edge s' = s + Δ, s in [c0, c1 - Δ] (or at (c0, c1)
   when Δ >= R = c1 - c0).  The unbounded mechanisms are translation invariant:
   the pair (0, Δ).  The geometric base lives on the integers: its edge is a
   finite list, enumerated.
3. **Along the edge** (continuous bases, Δ < R) h(s) = max of both directions
   is Lipschitz in s with constant (1 + e^ε)·K, K a bound on |∂F_u(t)/∂u|:
   the base's largest density for clamping (post-processing of s + X), and
   sup_u E_u|ψ(Y - u)| with ψ = (log f)' for truncation (1/λ for Laplace,
   √(2/π)/σ for Gaussian: truncation to an interval containing u does not
   raise E|Y - u|).  A branch-and-bound over s with that constant brackets the
   supremum; for clamping it is also at most the unbounded mechanism's δ (the
   data-processing inequality).  This float64 search only *finds* the worst pair:
   the printed upper bound is certified in ball arithmetic by
   :mod:`dpcheck.numeric.profile_balls` (cells bounded by stochastic order or the
   mean-value form, no float64 allowance).

The folded Laplace is not covered by step 1 (its likelihood ratio is not
proved monotone): its ``delta lower`` comes from half-line events, and its
printed ``delta`` is the Laplace mechanism's (folding is post-processing).

Every number reported is the safe side: ``delta`` is an upper bound (rounded
up), ``delta lower`` is attained by the printed pair and event, and ``kind``
says whether the two agree to the printed digits ("exact") or not.  The
attained value is recomputed from the derived CDF in ball arithmetic
(:func:`pair_ball`, python-flint arb at 40 digits); ``delta lower`` is the
ball's lower end, and an mpmath value outside the ball is an error.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cache, lru_cache
from typing import TYPE_CHECKING

import mpmath
import numpy as np

from dpcheck.errors import InputError
from dpcheck.inputs.numbers import parse_number, short
from dpcheck.numeric import profile_balls
from dpcheck.numeric.names import canonical_mechanism, parts

if TYPE_CHECKING:  # laws.calibrate imports this module: the one result type, by name only
    from dpcheck.laws.calibrate import Calibration
    from dpcheck.laws.noise import NoiseLaw

#: significant digits of every printed privacy number
DIGITS = 13
#: largest number of edge points (geometric inputs, or branch-and-bound evaluations)
BUDGET = 400_000
#: float64 evaluations spent finding the attained pair (the printed upper bound is certified
#: separately, :mod:`dpcheck.numeric.profile_balls`)
SEARCH_BUDGET = 40_000


# ---------------------------------------------------------------------------- setting


@dataclass(frozen=True)
class Neighbours:
    """A mechanism, its sensitivity Δ, its bounds (None for the unbounded ones) and scale.

    The scale is the base's own (λ, σ, or b with α = e^{-1/b} for the geometric).
    """

    mechanism: str
    sensitivity: Fraction
    lower: Fraction | None
    upper: Fraction | None
    scale: Fraction

    @property
    def bounding(self) -> str:
        return parts(self.mechanism)[0]

    @property
    def base(self) -> str:
        return parts(self.mechanism)[1]

    @property
    def bounded(self) -> bool:
        return self.bounding != "none"

    @property
    def law(self) -> NoiseLaw:
        """The law object of the base (:func:`dpcheck.laws.registry.of_base`)."""
        from dpcheck.laws import registry

        return registry.of_base(self.base)

    @property
    def lattice(self) -> bool:
        """Whether the outputs are integers: the law object of the base says so."""
        return self.law.is_lattice

    @property
    def step(self) -> Fraction:
        """The largest |s - s'|: Δ, or floor(Δ) on the integers, or R when Δ >= R."""
        d = Fraction(math.floor(self.sensitivity)) if self.lattice else self.sensitivity
        if self.bounded:
            assert self.lower is not None and self.upper is not None
            d = min(d, self.upper - self.lower)
        return d

    def with_scale(self, scale: Fraction) -> Neighbours:
        return Neighbours(self.mechanism, self.sensitivity, self.lower, self.upper, scale)


def neighbours(
    mechanism: object,
    sensitivity: object,
    lower: object = None,
    upper: object = None,
    scale: object = None,
) -> Neighbours:
    """Validated :class:`Neighbours`; every mistake is one :class:`InputError` line.

    ``scale`` may be None (a placeholder of 1, for calibration).
    """
    from dpcheck.laws import registry

    mech = canonical_mechanism(mechanism)
    bounding, base = parts(mech)
    lattice = registry.of_base(base).is_lattice
    sens = parse_number("sensitivity", sensitivity)
    if not sens > 0:
        raise InputError(f"sensitivity={short(sens)} must be positive")
    if lattice and sens < 1:
        raise InputError(
            f"sensitivity={short(sens)} must be at least 1: the geometric base lives on the"
            " integers, so neighbours differ by a whole number"
        )
    lo = hi = None
    if bounding == "none":
        for key, value in (("lower", lower), ("upper", upper)):
            if value is not None:
                raise InputError(
                    f"--{key}={value}: {mech} is unbounded and takes no bounds"
                    f" (use truncated-{base} or clamped-{base})"
                )
    else:
        if lower is None or upper is None:
            raise InputError(f"{mech} needs --lower and --upper (finite bounds c0 < c1)")
        lo, hi = parse_number("lower", lower), parse_number("upper", upper)
        if not lo < hi:
            raise InputError(f"lower={short(lo)} must be smaller than upper={short(hi)}")
        if lattice and (lo.denominator != 1 or hi.denominator != 1):
            raise InputError(f"lower={short(lo)}, upper={short(hi)} must be integers for {mech}")
    sc = Fraction(1) if scale is None else parse_number("scale", scale)
    if not sc > 0:
        raise InputError(f"scale={short(sc)} must be positive")
    return Neighbours(mech, sens, lo, hi, sc)


def parse_epsilon(value: object) -> Fraction:
    eps = parse_number("epsilon", value)
    if eps < 0:
        raise InputError(f"epsilon={short(eps)} must be >= 0")
    return eps


def parse_delta(value: object) -> Fraction:
    d = parse_number("delta", value)
    if not 0 <= d < 1:
        raise InputError(f"delta={short(d)} must lie in [0, 1)")
    return d


# ---------------------------------------------------------------------------- float64 search


def _f(v: Fraction | None) -> float:
    return float("nan") if v is None else float(v)


def _fast_cdf(nb: Neighbours, t: np.ndarray, u: np.ndarray, lo: float, hi: float) -> np.ndarray:
    from dpcheck.numeric import fast_mechanisms as fm

    kw: dict[str, object] = {"s": u, "scale": float(nb.scale)}
    if nb.bounded:
        kw.update(c0=lo, c1=hi)
    return fm.cdf(nb.mechanism, t, **kw)  # type: ignore[arg-type]


def _fast_base_cdf(nb: Neighbours, t: np.ndarray | float, u: np.ndarray) -> np.ndarray:
    from dpcheck.numeric import fast_mechanisms as fm

    return fm.cdf(nb.base, np.broadcast_to(t, np.shape(u)), s=u, scale=float(nb.scale))


def _log_norm_ratio_fast(nb: Neighbours, a: np.ndarray, b: np.ndarray, lo: float, hi: float):
    """log(Z_b / Z_a) for truncation (Z_u = P(c0 <= u + X <= c1)), 0 otherwise."""
    if nb.bounding != "truncated":
        return np.zeros_like(a)
    below = lo - 1 if nb.lattice else lo

    def z(u: np.ndarray) -> np.ndarray:
        # the smaller of the two tails, to keep relative accuracy
        return _fast_base_cdf(nb, hi, u) - _fast_base_cdf(nb, below, u)

    return np.log(z(b)) - np.log(z(a))


def _crossing(base: str, a, b, k, scale):
    """t with log p_a(t)/p_b(t) = k (k = ε - log Z_b/Z_a), for a < b, elementwise.

    The base's log ratio: Gaussian (b - a)(a + b - 2t)/(2σ²), Laplace and geometric
    (|t - b| - |t - a|)/λ (constant ±(b - a)/λ outside [a, b]).  Only a search aid:
    the value at any t is a lower bound, the value at t* the supremum.
    """
    d = b - a
    mid = (a + b) / 2
    if base == "gaussian":
        return mid - scale * scale * k / d
    t = mid - scale * k / 2
    t = np.where(k * scale >= d, -np.inf, t)
    return np.where(k * scale <= -d, np.inf, t)


def _hockey_fast(nb: Neighbours, eps: float, a: np.ndarray, b: np.ndarray, lo, hi) -> tuple:
    """max(0, sup_t F_a(t) - e^ε F_b(t)) for a < b elementwise, and the maximising t."""
    scale = float(nb.scale)
    k = eps - _log_norm_ratio_fast(nb, a, b, lo, hi)
    t = _crossing(nb.base, a, b, k, scale)
    cands = []
    if nb.lattice:
        ft = np.floor(np.where(np.isfinite(t), t, 0.0))
        ft = np.where(np.isfinite(t), ft, t)
        cands = [ft - 1, ft, ft + 1]
    else:
        cands = [t]
    if nb.bounded:
        cands = [np.clip(c, lo, hi) for c in cands] + [np.full_like(a, lo)]
    e = math.exp(min(eps, 700.0))
    best = np.zeros_like(a)
    where = np.full_like(a, -np.inf)
    for c in cands:
        v = _fast_cdf(nb, c, a, lo, hi) - e * _fast_cdf(nb, c, b, lo, hi)
        better = v > best
        best = np.where(better, v, best)
        where = np.where(better, c, where)
    return best, where


def _edge_fast(nb: Neighbours, eps: float, s: np.ndarray) -> tuple:
    """h(s) = max over both directions of the pair (s, s + step), and which direction won."""
    d = float(nb.step)
    lo, hi = _f(nb.lower), _f(nb.upper)
    up, t_up = _hockey_fast(nb, eps, s, s + d, lo, hi)
    if not nb.bounded:
        return up, t_up, np.zeros(s.shape, bool)
    # the mirror image: pair (s + d, s) on [c0, c1] is pair (-s - d, -s) on [-c1, -c0]
    down, t_down = _hockey_fast(nb, eps, -s - d, -s, -hi, -lo)
    mirrored = down > up
    return np.where(mirrored, down, up), np.where(mirrored, -t_down, t_up), mirrored


def _lipschitz(nb: Neighbours, eps: float) -> float:
    """(1 + e^ε)·K of step 3 of the module docstring."""
    scale = float(nb.scale)
    if nb.base == "laplace":
        k = 1 / scale if nb.bounding == "truncated" else 1 / (2 * scale)
    else:
        k = math.sqrt(2 / math.pi) / scale
        if nb.bounding != "truncated":
            k = 1 / (scale * math.sqrt(2 * math.pi))
    return (1 + math.exp(min(eps, 700.0))) * k


@dataclass
class Search:
    """Where the supremum over neighbours was found and how well it is bracketed."""

    s: float
    lower: float
    upper: float
    method: str
    evaluations: int
    mirrored: bool = False
    t: float = 0.0


def _allowance(eps: float) -> float:
    """Float64 error allowance of one edge value: the CDFs are accurate to a few ulps."""
    return 64 * 2.0**-52 * (1 + math.exp(min(eps, 700.0)))


def search(nb: Neighbours, eps: float, rtol: float = 1e-11, budget: int = BUDGET) -> Search:
    """Step 2 and 3 of the module docstring: the worst pair, with a bracket on δ(ε)."""
    if not nb.bounded:
        v, t, _ = _edge_fast(nb, eps, np.array([0.0]))
        return Search(
            0.0,
            float(v[0]),
            float(v[0]),
            "translation invariance: the pair (0, Δ)",
            1,
            t=float(t[0]),
        )
    assert nb.lower is not None and nb.upper is not None
    lo, hi = float(nb.lower), float(nb.lower + (nb.upper - nb.lower - nb.step))
    if nb.lattice:
        count = int(hi - lo) + 1
        if count > BUDGET:
            raise InputError(
                f"{count} integer inputs on the edge: more than {BUDGET}; narrow the bounds"
            )
        s = lo + np.arange(count, dtype=float)
        v, t, m = _edge_fast(nb, eps, s)
        i = int(np.argmax(v))
        return Search(
            float(s[i]),
            float(v[i]),
            float(v[i]),
            "every integer pair on the edge",
            count,
            bool(m[i]),
            float(t[i]),
        )
    if hi <= lo:
        v, t, m = _edge_fast(nb, eps, np.array([lo]))
        return Search(
            lo, float(v[0]), float(v[0]), "Δ >= R: the pair (c0, c1)", 1, bool(m[0]), float(t[0])
        )
    if nb.bounding == "folded":
        s = np.linspace(lo, hi, 4097)
        v, t, m = _edge_fast(nb, eps, s)
        i = int(np.argmax(v))
        return Search(
            float(s[i]),
            float(v[i]),
            float("nan"),
            "grid of 4097 inputs on the edge (half-line events only)",
            s.size,
            bool(m[i]),
            float(t[i]),
        )
    return _branch_and_bound(nb, eps, lo, hi, rtol, budget)


def _branch_and_bound(
    nb: Neighbours, eps: float, lo: float, hi: float, rtol: float, budget: int
) -> Search:
    L = _lipschitz(nb, eps)
    err = _allowance(eps)
    cap = None
    if nb.bounding == "clamped":
        unb = Neighbours(nb.base, nb.sensitivity, None, None, nb.scale)
        cap = float(_edge_fast(unb, eps, np.array([0.0]))[0][0]) + err
    x, v, upper, evaluations, (t, m) = maximise(
        lambda s: _edge_fast(nb, eps, s), lo, hi, L, err, rtol, cap, budget
    )
    method = (
        f"branch-and-bound over s in [c0, c1 - Δ], Lipschitz constant {L:.6g}"
        f" (float64, allowance {err:.2g} per value)"
        + ("; capped by the unbounded mechanism's δ (post-processing)" if cap is not None else "")
    )
    return Search(x, v, upper, method, evaluations, bool(m), float(t))


def maximise(
    f: Callable[[np.ndarray], tuple],
    lo: float,
    hi: float,
    lipschitz: float,
    err: float,
    rtol: float,
    cap: float | None = None,
    budget: int = BUDGET,
) -> tuple[float, float, float, int, tuple]:
    """Branch-and-bound for max of an L-Lipschitz f on [lo, hi] (f vectorised, its value
    first, then extra arrays).  A cell [u, v] is bounded by (f(u) + f(v))/2 + L(v - u)/2
    + err; cells whose bound exceeds the best value by more than ``rtol`` are halved
    until none is left or :data:`BUDGET` evaluations are spent.  ``cap`` is a known
    upper bound.  Returns (x, f(x), upper bound on the max, evaluations, extras at x)."""
    xs = np.linspace(lo, hi, 257)
    out = f(xs)
    points = [(xs, *out)]
    left, right, vl, vr = xs[:-1], xs[1:], out[0][:-1], out[0][1:]
    evaluations = xs.size
    while True:
        best = max(float(p[1].max()) for p in points if p[1].size)
        ub = (vl + vr) / 2 + lipschitz * (right - left) / 2 + err
        tol = max(rtol * abs(best), 1e-300)
        keep = ub > best + tol
        if cap is not None and cap <= best + tol:
            keep[:] = False
        if not keep.any() or evaluations >= budget:
            upper = max(float(ub[keep].max()) if keep.any() else best + tol, best)
            if cap is not None:
                upper = min(upper, cap)
            break
        left, right, vl, vr = left[keep], right[keep], vl[keep], vr[keep]
        mid = (left + right) / 2
        got = f(mid)
        evaluations += mid.size
        points.append((mid, *got))
        left, right = np.concatenate([left, mid]), np.concatenate([mid, right])
        vl, vr = np.concatenate([vl, got[0]]), np.concatenate([got[0], vr])
    cols = [np.concatenate([p[k] for p in points]) for k in range(len(points[0]))]
    i = int(np.argmax(cols[1]))
    return float(cols[0][i]), float(cols[1][i]), upper, evaluations, tuple(c[i] for c in cols[2:])


# ---------------------------------------------------------------------------- exact values


@cache
def _cdf_branches(mechanism: str):
    """mpmath (t, s, c0, c1, θ) → F for t < s and t >= s, compiled from the derived CDF."""
    from dpcheck.numeric.mechanism_mp import compiled

    return compiled(mechanism, "cdf:below", "both"), compiled(mechanism, "cdf:above", "both")


def _cdf_mp(nb: Neighbours, t, u, lo, hi):
    """F_u(t) at the working precision (t, u, lo, hi mpf; lo/hi None when unbounded)."""
    if t == -mpmath.inf or (lo is not None and t < lo):
        return mpmath.mpf(0)
    if t == mpmath.inf or (hi is not None and t >= hi):
        return mpmath.mpf(1)
    if nb.lattice:
        t = mpmath.floor(t)
    below, above = _cdf_branches(nb.mechanism)
    f = below if t < u else above
    theta = mpmath.mpf(nb.scale.numerator) / nb.scale.denominator
    return f(t, u, lo if lo is not None else 0, hi if hi is not None else 0, theta)


def _mpf(v: Fraction | float) -> mpmath.mpf:
    if isinstance(v, Fraction):
        return mpmath.mpf(v.numerator) / v.denominator
    return mpmath.mpf(v)


def pair_value(
    nb: Neighbours, eps: Fraction, s: Fraction, s2: Fraction, t: Fraction, dps: int = 30
) -> mpmath.mpf:
    """P_s(E) - e^ε P_s'(E) for E = {Y <= t} (s < s') or {Y >= t} (s > s'), to ``dps``
    significant digits (precision doubled until two evaluations agree).

    A lower bound on H_ε(s, s') for any t, equal to it at the crossing (step 1)."""
    lo, hi = nb.lower, nb.upper
    if s > s2:  # the mirror image
        s, s2, t = -s, -s2, -t
        lo, hi = (None if hi is None else -hi), (None if lo is None else -lo)

    def at(w: int) -> mpmath.mpf:
        with mpmath.workdps(w):
            lo_, hi_ = (None if lo is None else _mpf(lo)), (None if hi is None else _mpf(hi))
            tt = _mpf(t)
            return _cdf_mp(nb, tt, _mpf(s), lo_, hi_) - mpmath.exp(_mpf(eps)) * _cdf_mp(
                nb, tt, _mpf(s2), lo_, hi_
            )

    w = dps + 20
    while True:
        a, b = at(w), at(2 * w)
        with mpmath.workdps(dps + 5):
            if abs(a - b) <= mpmath.mpf(10) ** (-dps) * abs(b) or w > 4000:
                return +b
        w *= 2


@cache
def _cdf_exprs(mechanism: str):
    """The derived CDF branches (y < s, y >= s) over (y, s, c0, c1, θ) as SymPy, with the
    geometric's α written e^{-1/θ} (for :func:`pair_ball`)."""
    import sympy as sp

    from dpcheck.numeric.mechanism_mp import _THETA, _Y, _native
    from dpcheck.symbolic import mechanisms as sym

    base = parts(mechanism)[1]
    native = _native(base)
    theta = sp.exp(-1 / _THETA) if base == "geometric" else _THETA
    branches = sym.cdf_branches(mechanism, "both")
    return tuple(branches[b].subs({native: theta, sym.y: _Y}) for b in ("below", "above"))


def pair_ball(
    nb: Neighbours, eps: Fraction, s: Fraction, s2: Fraction, t: Fraction, dps: int = 40
):
    """:func:`pair_value` as a ball (python-flint arb), every input an exact rational:
    P_s(E) - e^ε P_s'(E) evaluated from the derived CDF in ball arithmetic
    (:func:`dpcheck.numeric.rigorous.arb_eval`)."""
    import flint

    from dpcheck.numeric.mechanism_mp import _THETA, _Y
    from dpcheck.numeric.rigorous import arb_eval
    from dpcheck.symbolic.symbols import c0, c1
    from dpcheck.symbolic.symbols import s as s_sym

    lo, hi = nb.lower, nb.upper
    if s > s2:  # the mirror image
        s, s2, t = -s, -s2, -t
        lo, hi = (None if hi is None else -hi), (None if lo is None else -lo)
    if nb.lattice:
        t = Fraction(math.floor(t))
    below, above = _cdf_exprs(nb.mechanism)

    def cdf(u: Fraction):
        if lo is not None and t < lo:
            return flint.arb(0)
        if hi is not None and t >= hi:
            return flint.arb(1)
        env = {_Y: t, s_sym: u, c0: lo or 0, c1: hi or 0, _THETA: nb.scale}
        return arb_eval(below if t < u else above, env, dps)

    old = flint.ctx.dps
    flint.ctx.dps = dps
    try:
        e = (flint.arb(eps.numerator) / eps.denominator).exp()
        return cdf(s) - e * cdf(s2)
    finally:
        flint.ctx.dps = old


def _mirror_event(nb: Neighbours, t: Fraction, mirrored: bool) -> str:
    if nb.lattice:
        return f"Y >= {short(t)}" if mirrored else f"Y <= {short(t)}"
    return f"Y >= {float(t):.12g}" if mirrored else f"Y <= {float(t):.12g}"


def _round(value: mpmath.mpf | float | Fraction, digits: int, up: bool) -> str:
    """``value`` (>= 0) rounded up (or down) to ``digits`` significant digits, exactly
    (:func:`dpcheck.numeric.privacy.round_to`), as text; ``inf`` for an infinite one."""
    from dpcheck.numeric.privacy import decimal, round_to

    if isinstance(value, mpmath.mpf) and value == mpmath.inf:
        return "inf"
    if value <= 0:
        return "0"
    rounded = round_to(value, digits, up)
    return decimal(rounded, digits) if rounded > 0 else "0"


def _round_up(value: mpmath.mpf | float | Fraction, digits: int = DIGITS) -> str:
    return _round(value, digits, True)


def _round_down(value: mpmath.mpf | float | Fraction, digits: int = DIGITS) -> str:
    return _round(value, digits, False)


# ---------------------------------------------------------------------------- labels


Value = Fraction | mpmath.mpf


def _fraction(value: Value) -> Fraction | None:
    """An exact value as a Fraction (None for ±inf)."""
    if isinstance(value, Fraction):
        return value
    if isinstance(value, int):
        return Fraction(value)
    if not mpmath.isfinite(value):
        return None
    return profile_balls.to_fraction(value)


def _le(a: Value, b: Value) -> bool:
    """a <= b exactly (Fractions and exact mpf values, ±inf included)."""
    if isinstance(a, mpmath.mpf) and a == mpmath.inf:
        return isinstance(b, mpmath.mpf) and b == mpmath.inf
    if isinstance(b, mpmath.mpf) and b == mpmath.inf:
        return True
    if isinstance(a, mpmath.mpf) and isinstance(b, mpmath.mpf):
        return bool(a <= b)  # mpf comparisons are exact
    # a Fraction against an mpf: first against the Fraction's two 256-bit roundings (exact
    # mpf comparisons; an mpf such as 2^-10^11 has no Fraction that fits in memory), then,
    # only when the mpf falls between them, exactly
    if isinstance(a, mpmath.mpf) and not isinstance(b, mpmath.mpf):
        if a <= profile_balls.rounded(b, up=False):
            return True
        if a > profile_balls.rounded(b, up=True):
            return False
    elif isinstance(b, mpmath.mpf) and not isinstance(a, mpmath.mpf):
        if profile_balls.rounded(a, up=True) <= b:
            return True
        if profile_balls.rounded(a, up=False) > b:
            return False
    fa, fb = _fraction(a), _fraction(b)
    assert fa is not None and fb is not None
    return fa <= fb


def agreement(lower: Value, upper: Value, digits: int = DIGITS) -> int:
    """The largest n <= ``digits`` such that ``lower`` and ``upper`` round up to the same
    n-digit decimal: then that decimal is the true value (which lies between them) rounded
    up to n digits.  ``digits`` when they are equal; 0 when none agrees."""
    from dpcheck.numeric.privacy import below_print_floor, round_to

    if _le(upper, lower):
        return digits
    if not lower > 0 or (isinstance(upper, mpmath.mpf) and not mpmath.isfinite(upper)):
        return 0
    if below_print_floor(upper):  # printed as the floor, not as a rounding of the value
        return 0
    for n in range(digits, 0, -1):
        if round_to(lower, n, True) == round_to(upper, n, True):
            return n
    return 0


def bracket_kind(lower: Value, upper: Value, how: str) -> str:
    """The label of a certified bracket [lower, upper] of a privacy number: 'exact' only when
    the two agree exactly, 'exact to the digits shown' when the printed (rounded-up) value is
    the true one rounded up, else a certified upper bound and the bracket's relative width."""
    from dpcheck.numeric.privacy import PRINT_FLOOR_EXPONENT, below_print_floor

    if below_print_floor(upper):
        return (
            f"certified upper bound: the value lies below 1e-{PRINT_FLOOR_EXPONENT}, the"
            f" smallest printed, so the floor is printed ({how})"
        )
    if _le(upper, lower):
        return f"exact ({how})"
    if agreement(lower, upper) >= DIGITS:
        return f"exact to the digits shown (certified bracket, {how})"
    width = _relative_width(lower, upper)
    if width <= 1e-10:
        return (
            f"certified upper bound, within {width:.1g} relative of the attained lower value"
            f" (bracket [lower, upper], {how})"
        )
    shown = "inf" if width == math.inf else f"{width:.2g}"
    return f"certified upper bound (bracket [lower, upper] not closed: relative width {shown};" \
        f" {how})"


def _relative_width(lower: Value, upper: Value) -> float:
    """(upper - lower) / upper as a float (inf when lower <= 0 or upper is infinite)."""
    from dpcheck.numeric.privacy import below_print_floor

    if below_print_floor(lower) or below_print_floor(upper):  # no Fraction of 2^-10^9
        if not lower > 0 or not mpmath.isfinite(upper):
            return math.inf
        with mpmath.workdps(30):
            return float((mpmath.mpf(upper) - lower) / upper)
    lo, up = _fraction(lower), _fraction(upper)
    if lo is None or up is None or not lo > 0:
        return math.inf
    return float((up - lo) / up)


# ---------------------------------------------------------------------------- delta(epsilon)


@dataclass
class Profile:
    """δ(ε) of a mechanism: an upper bound (safe side), an attained lower bound, the pair."""

    epsilon: Fraction
    upper: mpmath.mpf
    lower: mpmath.mpf
    s: Fraction
    s_prime: Fraction
    event: str
    kind: str
    method: str
    argument: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, object]:
        return {
            "epsilon": short(self.epsilon),
            "delta": _round_up(self.upper),
            "delta lower": _round_down(self.lower),
            "delta kind": self.kind,
            "worst pair": {"s": _num(self.s), "s'": _num(self.s_prime), "event": self.event},
            "method": self.method,
            "argument": self.argument,
        }


def _num(v: Fraction) -> str:
    return short(v) if v.denominator == 1 or len(str(v)) < 30 else f"{float(v):.15g}"


ARGUMENT = [
    "log-concave base: the likelihood ratio of s < s' is monotone in y, so the optimal event"
    " is a half-line {Y <= t} (mirror: {Y >= t})",
    "monotone likelihood ratio in s gives stochastic order, so H_eps(s, s') grows as the pair"
    " moves apart: the supremum lies on the edge |s - s'| = min(sensitivity, R)",
]


def delta_for_epsilon(nb: Neighbours, eps: Fraction, dps: int = 30) -> Profile:
    """δ(ε) = sup over neighbours of H_ε (the module docstring's three steps), certified.

    0 exactly when the pure epsilon's certified upper bound is at most ε (compared exactly).
    Unbounded: the pair (0, Δ) at its exact crossing.  Bounded: the ball-arithmetic
    branch-and-bound of :func:`profile_balls.certified_delta` over the edge (capped, for
    clamping, by the unbounded mechanism's δ: post-processing).  The printed ``delta lower``
    is recomputed at the attained pair and event from the *derived* CDF in arb
    (:func:`pair_ball`) and checked against mpmath (:func:`pair_value`)."""
    if nb.base != "gaussian" or nb.bounded:
        pure = pure_epsilon(nb)
        if _le(pure.upper_value, eps):
            return Profile(
                eps,
                mpmath.mpf(0),
                mpmath.mpf(0),
                Fraction(0),
                nb.step,
                "none needed",
                f"exact: 0 (pure epsilon {pure.as_dict()['pure epsilon']} <= epsilon,"
                f" compared exactly; {pure.kind})",
                pure.method,
                [],
            )
    if nb.bounding == "folded":
        return _folded_profile(nb, eps, dps)
    if not nb.bounded:
        upper, got = profile_balls.unbounded_delta(nb, eps)
        method = "translation invariance: the pair (0, Δ) at its exact crossing (arb)"
        how = "ball arithmetic at the exact crossing of the pair (0, Δ)"
    else:
        cap = None
        if nb.bounding == "clamped":
            cap = profile_balls.unbounded_delta(nb, eps)[0]
        found = profile_balls.certified_delta(nb, eps, cap=cap)
        edge = min(found.attained.s, found.attained.s_prime)
        top, got = profile_balls.precise_pair(profile_balls.Setting.of(nb), eps, edge)
        upper = max(found.upper, top)
        how = "ball-arithmetic branch-and-bound over the edge"
        method = (
            f"{how} ({found.cells} cells; stochastic order and the mean-value form)"
            + ("; capped by the unbounded mechanism's δ (post-processing)" if cap is not None
               else "")
        )
    lower, note = _attained(nb, eps, got, dps)
    upper = min(max(upper, lower), mpmath.mpf(1))  # H = P(E) - e^ε P'(E) <= 1, trivially
    kind = bracket_kind(lower, upper, how)
    event = "empty event" if got.t is None or not lower > 0 else _mirror_event(
        nb, got.t, got.mirrored
    )
    return Profile(eps, upper, lower, got.s, got.s_prime, event, kind, method + note, ARGUMENT)


def _attained(nb: Neighbours, eps: Fraction, got, dps: int) -> tuple[mpmath.mpf, str]:  # type: ignore[no-untyped-def]
    """The attained value at (s, s', t): the engine's ball-arithmetic value, checked against
    the *derived* CDF at the same pair and event, in arb (:func:`pair_ball`) and in mpmath
    (:func:`pair_value`): a disagreement is an error, never printed.  Where the derived
    closed form cancels (its ball stays wide, e.g. 1 + erf(x) far in a tail) the check is
    skipped and the method says so."""
    from dpcheck.numeric.rigorous import NotRigorous

    if got.t is None or not got.value > 0:
        return mpmath.mpf(0), ""
    try:
        ball = pair_ball(nb, eps, got.s, got.s_prime, got.t, 40)
    except NotRigorous:  # pragma: no cover - every derived CDF is enclosable today
        return got.value, "; attained value in ball arithmetic (arb)"
    low, high = profile_balls.end(ball, False), profile_balls.end(ball, True)
    if high < got.value:  # the two balls are disjoint
        raise ArithmeticError(
            f"{nb.mechanism}: the derived CDF's ball [{low}, {high}] misses the engine's"
            f" attained value {got.value}"
        )
    if not profile_balls.precise(ball):
        return got.value, (
            "; attained value in ball arithmetic (arb; the derived CDF's closed form cancels"
            " here, so it encloses but does not pin it)"
        )
    value = pair_value(nb, eps, got.s, got.s_prime, got.t, dps)
    with mpmath.workdps(40):
        slack = mpmath.mpf(10) ** -25 * max(abs(value), abs(low), abs(high))
        if not low - slack <= value <= high + slack:
            raise ArithmeticError(
                f"{nb.mechanism}: mpmath value {value} outside its ball [{low}, {high}]"
            )
    return got.value, "; attained value confirmed in ball arithmetic (arb)"


def _folded_profile(nb: Neighbours, eps: Fraction, dps: int) -> Profile:
    """The folded Laplace: δ at most the Laplace mechanism's with the same step (folding is
    a function of its output: the data-processing inequality), certified in arb; ``delta
    lower`` attained by a half-line event on a grid of the edge (its likelihood ratio is
    not proved monotone, so half-lines may miss the best event)."""
    upper, _ = profile_balls.unbounded_delta(nb, eps)
    found = search(nb, float(eps), budget=SEARCH_BUDGET)
    s = Fraction(found.s)
    got = profile_balls.Attained(mpmath.mpf(0), s, s + nb.step, None, False)
    if found.mirrored:
        got.s, got.s_prime = s + nb.step, s
    note = ""
    if found.lower > 0 and math.isfinite(found.t):
        got.t, got.mirrored = Fraction(found.t), found.mirrored
        # no engine of its own here: the derived CDF's ball is the attained value
        got.value = max(mpmath.mpf(0), profile_balls.end(
            pair_ball(nb, eps, got.s, got.s_prime, got.t, 40), False))
    lower, note = _attained(nb, eps, got, dps)
    upper = max(upper, lower)
    kind = (
        "upper bound by post-processing (folding is a function of the Laplace"
        " mechanism's output: its delta, certified in arb); delta lower is attained by a"
        " half-line event (the folded likelihood ratio is not proved monotone)"
    )
    event = "empty event" if not lower > 0 else _mirror_event(nb, got.t, got.mirrored)  # type: ignore[arg-type]
    return Profile(
        eps, upper, lower, got.s, got.s_prime, event, kind, found.method + note, []
    )


# ---------------------------------------------------------------------------- pure epsilon

LIU = {"truncated-laplace": "truncated", "clamped-laplace": "bit"}


def _as_mpf(value: Value, up: bool) -> mpmath.mpf:
    """An exact value as an mpf: itself when it is one (or dyadic), else rounded up (down)
    at 256 bits, so that the mpf stays on the safe side of the value."""
    if isinstance(value, mpmath.mpf):
        return value
    q = Fraction(value)
    if q.denominator & (q.denominator - 1) == 0:
        return profile_balls.exact(q)
    return profile_balls.rounded(q, up)


class _ExactBracket:
    """``upper``/``lower`` as mpf, rounded outward, of the exact ``upper_value`` and
    ``lower_value`` of a privacy number (:class:`Pure`, :class:`Epsilon`)."""

    upper_value: Value
    lower_value: Value

    @property
    def upper(self) -> mpmath.mpf:
        return _as_mpf(self.upper_value, True)

    @property
    def lower(self) -> mpmath.mpf:
        return _as_mpf(self.lower_value, False)


@dataclass
class Pure(_ExactBracket):
    """The pure epsilon sup log P_s(y)/P_s'(y): upper (safe side), lower (attained), where.

    ``upper_value``/``lower_value`` are exact (a Fraction where the value is rational);
    ``upper``/``lower`` are the same as mpf, rounded outward."""

    upper_value: Value
    lower_value: Value
    kind: str
    pair: dict[str, str]
    method: str

    def as_dict(self) -> dict[str, object]:
        return {
            "pure epsilon": _round_up(self.upper_value),
            "pure epsilon lower": _round_down(self.lower_value),
            "pure epsilon kind": self.kind,
            "attained at": self.pair,
            "pure epsilon method": self.method,
        }


@lru_cache(maxsize=512)
def pure_epsilon(nb: Neighbours) -> Pure:
    """sup over neighbours and outputs of log P_s(y)/P_s'(y) (issue 19, "Pure epsilon").

    Exact (a Fraction) where it is a closed form: the unbounded Laplace and geometric,
    step/θ (the log ratio is constant below s), and their clamped versions, which are
    post-processing of them and attain the same ratio at y = c0 for the pair
    (c1 - step, c1); the Gaussian: infinite.  Liu's truncated Laplace: the derived closed
    form of :mod:`dpcheck.symbolic.privacy` enclosed in arb (precision raised until tight).
    The others, certified in ball arithmetic (:func:`profile_balls.certified_pure`): by
    step 1 the largest log ratio of a pair is at the lowest (or highest) output, and by
    step 2 on the edge.  The folded Laplace: at most step/λ (post-processing)."""
    d = nb.step
    if not nb.bounded and nb.base == "gaussian":
        return Pure(
            mpmath.inf,
            mpmath.inf,
            "exact: infinite (the Gaussian log ratio is unbounded in y)",
            {"s": "0", "s'": _num(d), "y": "-inf"},
            "closed form",
        )
    value = d / nb.scale
    if nb.bounding == "none" and nb.base in ("laplace", "geometric"):
        pair = {"s": "0", "s'": _num(d), "y": "any y <= 0"}
        return Pure(value, value, "exact (closed form sensitivity/scale)", pair, "closed form")
    if nb.bounding == "clamped" and nb.lattice:
        return _clamped_lattice_pure(nb)
    if nb.bounding == "folded":
        return Pure(
            value,
            Fraction(0),
            "upper bound (post-processing of the Laplace mechanism)",
            {},
            "data-processing inequality",
        )
    assert nb.lower is not None and nb.upper is not None
    if nb.mechanism in LIU:
        return _liu_pure(nb)
    up, low, a, cells, closed = profile_balls.certified_pure(nb)
    how = (
        "closed form at the pair (c1 - Δ, c1), y = c0 (log-concavity of Φ), arb"
        if nb.bounding == "clamped"
        else f"ball-arithmetic branch-and-bound over the edge ({cells} cells)"
    )
    pair = {"s": _num(a), "s'": _num(a + d), "y": _num(nb.lower)}
    return Pure(up, low, bracket_kind(low, up, how), pair, how)


def _clamped_ratio_is(nb: Neighbours, value: Fraction) -> bool:
    """Whether log P_{c0}(c0)/P_{c0 + step}(c0) is ``value`` = step/θ, exactly: the derived
    lattice CDF at integer points is a rational function of α = e^{-1/θ}; written in a
    symbol x = α, the ratio must cancel to x^(-step)."""
    import sympy as sp

    from dpcheck.numeric.mechanism_mp import _THETA, _Y
    from dpcheck.symbolic.symbols import c0, c1
    from dpcheck.symbolic.symbols import s as s_sym

    assert nb.lower is not None and nb.upper is not None
    if value != nb.step / nb.scale or nb.step.denominator != 1:
        return False
    below, above = _cdf_exprs(nb.mechanism)
    x = sp.Symbol("x", positive=True)

    def at(u: Fraction) -> sp.Expr:
        expr = above if nb.lower >= u else below  # y = c0: the branch y >= s only at s = c0
        env = {_Y: nb.lower, s_sym: u, c0: nb.lower, c1: nb.upper}
        expr = expr.subs({k: sp.Integer(int(v)) for k, v in env.items()})
        return expr.subs(_THETA, -1 / sp.log(x))

    try:
        ratio = sp.cancel(at(nb.lower) / at(nb.lower + nb.step))
    except Exception:  # pragma: no cover - SymPy could not reduce it: the bracket stands
        return False
    return bool(ratio == x ** (-int(nb.step)))


def _clamped_lattice_pure(nb: Neighbours) -> Pure:
    """The clamped two-sided geometric: at most step/θ (clamping is post-processing of the
    unbounded mechanism, whose pure ε at distance step is step/θ), attained by the point
    mass at c0 for the pair (c0, c0 + step): exact when the derived CDF's ratio cancels to
    α^(-step) (:func:`_clamped_ratio_is`), else the attained ratio in arb is the lower end."""
    assert nb.lower is not None
    d = nb.step
    value = d / nb.scale
    pair = {"s": _num(nb.lower), "s'": _num(nb.lower + d), "y": _num(nb.lower)}
    how = "closed form step/scale: clamping is post-processing of the unbounded mechanism"
    if _clamped_ratio_is(nb, value):
        how += ", and the point mass at c0 attains its ratio (derived CDF, exact)"
        return Pure(value, value, f"exact ({how})", pair, "closed form")
    balls = profile_balls.Setting.of(nb).balls(Fraction(0), False, profile_balls.PREC_MAX)
    low = profile_balls.end(balls.log_ratio_at_lo(nb.lower, nb.lower + d), False)
    how += "; attained ratio at the point mass at c0 in arb"
    return Pure(value, low, bracket_kind(low, value, how), pair, "closed form")


def _liu_pure(nb: Neighbours) -> Pure:
    """Liu's truncated Laplace: the derived worst-case loss (Liu 2019, Def. 2;
    :func:`dpcheck.symbolic.privacy.worst_case`) in arb, precision raised until tight."""
    from dpcheck.numeric import privacy as liu
    from dpcheck.numeric.rigorous import arb_eval
    from dpcheck.symbolic.symbols import c0, c1, delta1, lam

    assert nb.lower is not None and nb.upper is not None
    expr = liu._loss_expr(LIU[nb.mechanism], nb.sensitivity, nb.lower, nb.upper)
    env = {delta1: nb.sensitivity, c0: nb.lower, c1: nb.upper, lam: nb.scale}
    setting = liu.Setting(Fraction(1), nb.sensitivity, nb.lower, nb.upper)
    place = liu.attained(LIU[nb.mechanism], setting)[0]
    method = "symbolic (dpcheck.symbolic.privacy)"
    rational = _rational_value(expr, env)
    if rational is not None:  # BIT: min(Δ, R)/λ
        how = "derived closed form, Liu 2019 Def. 2, evaluated in exact rationals"
        return Pure(rational, rational, f"exact ({how})", place, method)
    digits = DIGITS + 25
    while True:
        ball = arb_eval(expr, env, dps=digits)
        if profile_balls.precise(ball) or digits >= 5000:
            break
        digits *= 4
    low, up = profile_balls.end(ball, False), profile_balls.end(ball, True)
    how = "derived closed form, Liu 2019 Def. 2; arb enclosure"
    return Pure(up, max(low, mpmath.mpf(0)), bracket_kind(low, up, how), place, method)


def _rational_value(expr, env) -> Fraction | None:  # type: ignore[no-untyped-def]
    """``expr`` at exact rationals, when SymPy reduces it to a rational number."""
    import sympy as sp

    value = expr.subs({k: sp.Rational(v.numerator, v.denominator) for k, v in env.items()})
    if isinstance(value, sp.Rational):
        return Fraction(int(value.p), int(value.q))
    return None


# ---------------------------------------------------------------------------- decisions


def decide(
    nb: Neighbours, eps: Fraction, delta: Fraction, budget: int = profile_balls.CELL_BUDGET
) -> bool | None:
    """Whether δ(ε) <= δ, certified: True (the certified upper bound is at most δ), False
    (an attained value exceeds δ), None (not settled within the budget and precision).
    δ = 0 asks about the pure ε."""
    pure = pure_epsilon(nb)
    if _le(pure.upper_value, eps):
        return True
    if delta == 0:
        return False if not _le(pure.lower_value, eps) else None
    below, above = profile_balls.rounded(delta, False), profile_balls.rounded(delta, True)
    if not nb.bounded or nb.bounding == "folded":
        upper, got = profile_balls.unbounded_delta(nb, eps)
        if upper <= below:
            return True
        if nb.bounding == "folded":
            lower = delta_for_epsilon(nb, eps).lower
            return False if lower > above else None
        return False if got.value > above else None
    cap = profile_balls.unbounded_delta(nb, eps)[0] if nb.bounding == "clamped" else None
    found = profile_balls.certified_delta(nb, eps, threshold=below, cap=cap, budget=budget)
    if found.decided:
        return True
    if found.attained.value > above:
        return False
    return None


#: certified decisions spent by one search for ε(δ) or a calibrated scale, at most
DECISIONS = 120
#: cells of one decision while a bracket is being found (the bisection then uses the full budget)
QUICK = 300


def _certified_edge(
    holds: Callable[[Fraction, int], bool | None],
    lo: Fraction,
    hi: Fraction,
    cap: Fraction | None,
    floor: Fraction,
) -> tuple[Fraction | None, Fraction, int]:
    """A certified bracket of the edge x* of a monotone property (false below x*, true
    above), from a guess lo <= hi: returns (x_low: the property certified false there,
    or None if not found; x_high: certified true there; decisions spent).

    ``hi`` grows by factors (1 + r), r = 1e-12, 4e-12, ... until certified true (``cap``,
    where it is known true, ends the growth); ``lo`` shrinks likewise towards ``floor``
    until certified false; then certified bisection narrows [x_low, x_high] while
    decisions settle.  Every printed end is thus certified, whatever the guess was."""
    spent = 0
    r = Fraction(1, 10**12)
    while True:
        if cap is not None and hi >= cap:
            hi = cap
            break
        spent += 1
        if holds(hi, QUICK) is True:
            break
        lo, hi, r = max(lo, hi), hi * (1 + r), r * 4  # what failed is a lower start
        if spent > DECISIONS:
            raise ArithmeticError("the upper end could not be certified")
    low: Fraction | None = None
    if cap is not None and hi == cap and spent <= DECISIONS:
        # next to the cap (a tiny δ: ε(δ) is within a hair of the pure ε): one decision
        x = cap * (1 - Fraction(1, 10**15))
        spent += 1
        if holds(x, QUICK) is False:
            low = x
    r = Fraction(1, 10**12)
    x = min(lo, hi) if lo > floor else hi / 2
    while low is None and x > floor and spent <= DECISIONS:
        spent += 1
        answer = holds(x, QUICK)
        if answer is False:
            low = x
            break
        if answer is True:
            hi = min(hi, x)
        x, r = max(floor, x / (1 + r)), r * 4
    if low is None:
        return None, hi, spent
    for _ in range(80):
        if spent > DECISIONS or _round_up(low) == _round_up(hi):
            break
        mid = (low + hi) / 2
        spent += 1
        answer = holds(mid, profile_balls.CELL_BUDGET)
        if answer is None:
            break
        if answer:
            hi = mid
        else:
            low = mid
    return low, hi, spent


# ---------------------------------------------------------------------------- inverse, calibration


def _delta_upper_fast(nb: Neighbours, eps: float) -> float | None:
    """A float64 guide to δ(ε)'s upper bound, for bisections (confirmed afterwards), or None
    where float64 cannot be trusted (ε beyond 700, values near underflow, too many inputs);
    the folded Laplace's is the Laplace mechanism's (post-processing)."""
    if nb.bounding == "folded":
        nb = Neighbours(nb.base, nb.sensitivity, None, None, nb.scale)
    if eps > 700:
        return None
    try:
        with np.errstate(all="ignore"):
            found = search(nb, eps, rtol=1e-9, budget=20_000)
    except InputError:
        return None
    value = found.upper
    if not math.isfinite(value) or 0 < value < 1e-280:
        return None
    return value


def _float_bisect(above: Callable[[float], bool | None], lo: float, hi: float) -> tuple:
    """Bisection of a float guide (None: no guide there) between lo (above) and hi."""
    for _ in range(200):
        if hi - lo <= 1e-14 * hi:
            break
        mid = (lo + hi) / 2
        got = above(mid)
        if got is None:
            return None
        if got:
            lo = mid
        else:
            hi = mid
    return lo, hi


@dataclass
class Epsilon(_ExactBracket):
    """ε(δ): the smallest ε with δ(ε) <= δ, as a safe upper value and a lower value
    (exact ``upper_value``/``lower_value``; ``upper``/``lower`` as mpf, rounded outward)."""

    delta: Fraction
    upper_value: Value
    lower_value: Value
    kind: str
    at: Profile | None

    def as_dict(self) -> dict[str, object]:
        out: dict[str, object] = {
            "delta": short(self.delta),
            "epsilon": _round_up(self.upper_value),
            "epsilon lower": _round_down(self.lower_value),
            "epsilon kind": self.kind,
        }
        if self.at is not None:
            out["worst pair"] = self.at.as_dict()["worst pair"]
        return out


def epsilon_for_delta(nb: Neighbours, delta: Fraction) -> Epsilon:
    """ε(δ) = inf{ε >= 0 : δ(ε) <= δ}, δ(ε) being non-increasing in ε.

    A float64 bisection guides where it can be trusted; the printed ε is then certified
    (δ(ε) <= δ in ball arithmetic, :func:`decide`) and the printed lower value violates
    it (an attained pair), by :func:`_certified_edge`, which corrects any guess: geometric
    growth up to the pure ε (where δ = 0), then certified bisection."""
    pure = pure_epsilon(nb)
    if delta == 0:
        return Epsilon(delta, pure.upper_value, pure.lower_value, pure.kind, None)
    cap = _fraction(pure.upper_value)
    guess = _epsilon_guess(nb, delta, cap)
    lo, hi = guess if guess is not None else (Fraction(0), Fraction(1))
    if hi == 0 and decide(nb, Fraction(0), delta) is True:
        return Epsilon(delta, mpmath.mpf(0), mpmath.mpf(0),
                       "exact: delta(0) <= delta already (certified)",
                       delta_for_epsilon(nb, Fraction(0)))
    hi = max(hi, Fraction(1, 10**30))
    low, high, spent = _certified_edge(
        lambda e, b: decide(nb, e, delta, b), lo, hi, cap, Fraction(0)
    )
    eps_up = Fraction(_round_up(high)) if high > 0 else Fraction(0)
    at = delta_for_epsilon(nb, eps_up)
    eps_low = Fraction(_round_down(low)) if low is not None and low > 0 else Fraction(0)
    kind = (
        "certified upper bound: delta(epsilon) <= delta confirmed at this epsilon (ball"
        " arithmetic)"
        + ("; the lower value violates it (attained pair), so the true epsilon(delta) lies"
           " between them" if low is not None and low > 0 else "")
    )
    if low is not None and low > 0 and Fraction(_round_up(low)) == eps_up:
        kind = "exact to the digits shown: " + kind
    return Epsilon(delta, eps_up, eps_low, kind, at)


def _epsilon_guess(nb: Neighbours, delta: Fraction, cap: Fraction | None):  # type: ignore[no-untyped-def]
    """A float64 bracket (lo, hi) of ε(δ), or None where float64 cannot be trusted; the
    unbounded mechanisms need none (a certified decision is one ball)."""
    if not nb.bounded or float(delta) < 1e-280:
        return None
    target = float(delta)
    pure = float(cap) if cap is not None else math.inf

    def above(e: float) -> bool | None:  # δ(e) > δ by the float64 guide
        if e >= pure:
            return False
        value = _delta_upper_fast(nb, e)
        return None if value is None else value > target

    if above(0.0) is False:
        return Fraction(0), Fraction(0)
    lo, hi = 0.0, 1.0
    while True:
        got = above(hi)
        if got is None:
            return None
        if not got:
            break
        lo, hi = hi, 2 * hi
    found = _float_bisect(above, lo, min(hi, pure))
    if found is None:
        return None
    return Fraction(found[0]), Fraction(found[1])


def _satisfied_fast(nb: Neighbours, eps: Fraction, delta: Fraction) -> bool | None:
    """The float64 guide's answer to "(ε, δ)-DP at this scale?" (None: no guide)."""
    pure = pure_epsilon(nb)
    if delta == 0:
        value = float(pure.upper_value)
        return None if not math.isfinite(value) and nb.bounded else value <= float(eps)
    if nb.bounded and _le(pure.upper_value, eps):
        return True
    if not nb.bounded:
        return decide(nb, eps, delta)  # one ball: as cheap as a guide
    value = _delta_upper_fast(nb, float(eps))
    return None if value is None or float(delta) < 1e-280 else value <= float(delta)


def calibrate(nb: Neighbours, eps: Fraction, delta: Fraction = Fraction(0)) -> Calibration:
    """The smallest scale at which the mechanism is (ε, δ)-DP (Holohan et al. 2018's
    bisection, generalised to any mechanism and δ >= 0).

    Bisection on the scale with the float64 guide (assuming, as Holohan et al. do, that
    privacy improves with the scale), then :func:`_certified_edge` with certified
    decisions: the printed scale (rounded up to :data:`DIGITS` digits) is confirmed to
    give (ε, δ)-DP in ball arithmetic; ``minimal`` says whether (1 - 1e-8) of it is shown
    to violate the target by an attained pair."""
    if eps <= 0:
        raise InputError(f"epsilon={short(eps)} must be positive to calibrate")
    if delta == 0 and nb.base == "gaussian" and nb.bounding == "none":
        raise InputError("the Gaussian mechanism is never pure-DP: give --delta > 0")

    def guide(scale: Fraction) -> bool | None:
        return _satisfied_fast(nb.with_scale(scale), eps, delta)

    lo, hi = Fraction(1), Fraction(1)
    guided = True
    while guided and guide(lo):
        lo /= 2
        if lo < Fraction(1, 2**200):
            raise InputError("every scale down to 2^-200 satisfies the target")
    while guided and guide(hi) is False:
        hi *= 2
        if hi > 2**3400:
            raise InputError("no scale up to 2^3400 satisfies the target")
    for _ in range(80):
        if hi - lo <= hi / 10**12:
            break
        mid = Fraction(float((lo + hi) / 2)) if (lo + hi) / 2 < 2**1000 else (lo + hi) / 2
        got = guide(mid)
        if got is None:
            break
        if got:
            hi = mid
        else:
            lo = mid
    low, high, _ = _certified_edge(
        lambda sc, b: decide(nb.with_scale(sc), eps, delta, b), lo, hi, None, Fraction(0)
    )
    scale = Fraction(_round_up(high))
    minimal = decide(nb.with_scale(scale * (1 - Fraction(1, 10**8))), eps, delta) is False
    here = nb.with_scale(scale)
    at = pure_epsilon(here).as_dict() if delta == 0 else delta_for_epsilon(here, eps).as_dict()
    agreed = low is not None and _round_up(low) == _round_up(high)
    kind = (
        f"upper bound on the smallest scale: rounded up to {DIGITS} digits and confirmed"
        " there" if agreed or low is None else
        "upper bound on the smallest scale, confirmed there; a scale within"
        f" {float((high - low) / high):.1e} relative below it violates the"
        " target (certified)"
    ) + ("; 0.99999999 x scale violates the target (attained pair)" if minimal else "")
    from dpcheck.laws.calibrate import Calibration  # the one result type (laws imports this)

    return Calibration(eps, delta, scale, minimal, kind, at, cost(here))


def cost(nb: Neighbours) -> list[dict[str, str]]:
    """Bias and MSE at s = c0 and at the midpoint (bounded), or the variance (unbounded):
    :func:`dpcheck.laws.cost.rows` of the base's law object."""
    from dpcheck.laws.cost import rows

    law = nb.law
    values = {law.scale: nb.scale}
    if not nb.bounded:
        return rows(law, values)
    assert nb.lower is not None and nb.upper is not None
    return rows(law, values, nb.bounding, nb.lower, nb.upper)


def _exact_leq(text: object, bound: Fraction) -> bool:
    """Whether a printed decimal (or 'inf') is <= ``bound``, exactly."""
    if text == "inf":
        return False
    return Fraction(str(text)) <= bound
