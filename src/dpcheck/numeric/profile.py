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
from functools import cache

import mpmath
import numpy as np

from dpcheck.errors import InputError
from dpcheck.inputs.numbers import parse_number, short
from dpcheck.numeric.names import canonical_mechanism, parts

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
    def step(self) -> Fraction:
        """The largest |s - s'|: Δ, or floor(Δ) on the integers, or R when Δ >= R."""
        d = Fraction(math.floor(self.sensitivity)) if self.base == "geometric" else self.sensitivity
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
    mech = canonical_mechanism(mechanism)
    bounding, base = parts(mech)
    sens = parse_number("sensitivity", sensitivity)
    if not sens > 0:
        raise InputError(f"sensitivity={short(sens)} must be positive")
    if base == "geometric" and sens < 1:
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
        if base == "geometric" and (lo.denominator != 1 or hi.denominator != 1):
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
    below = lo - 1 if nb.base == "geometric" else lo

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
    if nb.base == "geometric":
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
    if nb.base == "geometric":
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
    if nb.base == "geometric":
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
    if nb.base == "geometric":
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


def _arb_end(ball, upper: bool) -> mpmath.mpf:
    """An endpoint of a ball as an exact mpf (:func:`profile_balls._exact`, unrounded)."""
    from dpcheck.numeric.profile_balls import _exact

    return _mpf_exact(_exact(ball, upper))


def _mirror_event(nb: Neighbours, t: Fraction, mirrored: bool) -> str:
    if nb.base == "geometric":
        return f"Y >= {short(t)}" if mirrored else f"Y <= {short(t)}"
    return f"Y >= {float(t):.12g}" if mirrored else f"Y <= {float(t):.12g}"


def _round(value: mpmath.mpf | float | Fraction, digits: int, up: bool) -> str:
    """``value`` (>= 0) rounded up (or down) to ``digits`` significant digits, exactly
    (:func:`dpcheck.numeric.privacy.round_to`), as text."""
    from dpcheck.numeric.privacy import decimal, round_to

    if value <= 0:
        return "0"
    return decimal(round_to(value, digits, up), digits)


def _round_up(value: mpmath.mpf | float | Fraction, digits: int = DIGITS) -> str:
    return _round(value, digits, True)


def _round_down(value: mpmath.mpf | float | Fraction, digits: int = DIGITS) -> str:
    return _round(value, digits, False)


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
    """δ(ε) = sup over neighbours of H_ε (the module docstring's three steps).

    0 exactly when the pure epsilon is known in closed form (or by enumeration) and is
    at most ε."""
    if nb.base != "gaussian" or nb.bounded:
        pure = pure_epsilon(nb)
        if pure.upper <= _mpf(eps):
            return Profile(
                eps,
                mpmath.mpf(0),
                mpmath.mpf(0),
                Fraction(0),
                nb.step,
                "none needed",
                f"exact: 0 (pure epsilon {pure.as_dict()['pure epsilon']} <= epsilon, {pure.kind})",
                pure.method,
                [],
            )
    found = search(nb, float(eps), budget=SEARCH_BUDGET)
    s = Fraction(found.s)
    s2 = s + nb.step
    if found.mirrored:
        s, s2 = s2, s
    t = Fraction(found.t) if math.isfinite(found.t) else Fraction(0)
    ball_note = ""
    if math.isfinite(found.t):
        lower = max(mpmath.mpf(0), pair_value(nb, eps, s, s2, t, dps))
        lower, ball_note = _confirm_in_ball(nb, eps, s, s2, t, lower)
    else:
        lower = mpmath.mpf(0)
    if not found.lower > 0:
        t_text = "empty event"
    else:
        t_text = _mirror_event(nb, t, found.mirrored)
    monotone = nb.bounding != "folded"
    method = found.method + ball_note
    if not monotone:
        upper = max(_folded_upper(nb, eps), lower)
        kind = (
            "upper bound by post-processing (folding is a function of the Laplace"
            " mechanism's output: its delta, certified in arb); delta lower is attained by a"
            " half-line event (the folded likelihood ratio is not proved monotone)"
        )
    elif nb.base == "geometric":
        kind = "exact (every pair on the edge enumerated; value at the crossing)"
        upper = lower * (1 + mpmath.mpf(10) ** (-DIGITS - 2))
    else:
        upper, how = _certified_upper(nb, eps, lower)
        upper = min(upper, mpmath.mpf(1))  # H = P(E) - e^ε P'(E) <= 1, trivially
        method += "; " + how
        if not nb.bounded:
            kind = (
                "exact (the worst pair (0, Δ) is known; value at the exact crossing,"
                " certified in ball arithmetic)"
            )
        elif upper <= lower * (1 + mpmath.mpf(10) ** -10):
            kind = (
                "exact to 10 significant digits (certified bracket [lower, upper],"
                " ball arithmetic)"
            )
        else:
            kind = "certified upper bound (ball arithmetic; bracket [lower, upper] not closed)"
    argument = [*ARGUMENT] if monotone else []
    return Profile(eps, upper, lower, s, s2, t_text, kind, method, argument)


def _folded_upper(nb: Neighbours, eps: Fraction) -> mpmath.mpf:
    """δ(ε) of the unbounded Laplace mechanism with the folded one's step, certified: an
    upper bound for the folded Laplace (data-processing inequality)."""
    from dpcheck.numeric import profile_balls

    return _arb_end(profile_balls.unbounded_sup(nb, eps), True)


def _certified_upper(nb: Neighbours, eps: Fraction, lower: mpmath.mpf) -> tuple:
    """The printed δ for a continuous base: an upper bound certified in ball arithmetic
    (:mod:`dpcheck.numeric.profile_balls`), and how it was established."""
    from dpcheck.numeric import profile_balls

    unbounded = _arb_end(profile_balls.unbounded_sup(nb, eps), True)
    if not nb.bounded:
        return unbounded, "upper end of the ball at the exact crossing (arb)"
    capped = "capped by the unbounded mechanism's δ (post-processing), certified in arb"
    if nb.bounding == "clamped" and unbounded <= lower * (1 + mpmath.mpf(10) ** -12):
        return max(unbounded, lower), capped
    bound, cells, _ = profile_balls.certified_sup(nb, eps, float(lower))
    upper = _mpf(bound)
    how = (
        f"certified by a ball-arithmetic branch-and-bound over {cells} cells of the edge"
        " (stochastic order and the mean-value form)"
    )
    if nb.bounding == "clamped" and unbounded < upper:
        upper = unbounded
        how += "; " + capped
    return max(upper, lower), how


def _confirm_in_ball(
    nb: Neighbours, eps: Fraction, s: Fraction, s2: Fraction, t: Fraction, value: mpmath.mpf
) -> tuple[mpmath.mpf, str]:
    """The attained value at (s, s', t) recomputed in ball arithmetic: the ball's lower
    end replaces the mpmath value (so ``delta lower`` is certified), and a value outside
    the ball is an error, never printed."""
    from dpcheck.numeric.rigorous import NotRigorous

    try:
        ball = pair_ball(nb, eps, s, s2, t)
    except NotRigorous:  # pragma: no cover - every derived CDF is enclosable today
        return value, "; attained value by mpmath (no ball enclosure)"
    low, high = _arb_end(ball, False), _arb_end(ball, True)
    with mpmath.workdps(40):
        slack = mpmath.mpf(10) ** -25 * (1 + abs(value))
        if not low - slack <= value <= high + slack:
            raise ArithmeticError(
                f"{nb.mechanism}: mpmath value {value} outside its ball [{low}, {high}]"
            )
    return max(mpmath.mpf(0), low), "; attained value confirmed in ball arithmetic (arb)"


# ---------------------------------------------------------------------------- pure epsilon

LIU = {"truncated-laplace": "truncated", "clamped-laplace": "bit"}


@dataclass
class Pure:
    """The pure epsilon sup log P_s(y)/P_s'(y): upper (safe side), lower (attained), where."""

    upper: mpmath.mpf
    lower: mpmath.mpf
    kind: str
    pair: dict[str, str]
    method: str

    def as_dict(self) -> dict[str, object]:
        up = "inf" if self.upper == mpmath.inf else _round_up(self.upper)
        low = "inf" if self.lower == mpmath.inf else _round_down(self.lower)
        return {
            "pure epsilon": up,
            "pure epsilon lower": low,
            "pure epsilon kind": self.kind,
            "attained at": self.pair,
            "pure epsilon method": self.method,
        }


def _log_ratio_low_fast(nb: Neighbours, a: np.ndarray) -> tuple:
    """log of the likelihood ratio of (a, a + step) at the lowest output c0, and its
    mirror at c1: the largest log ratio of the pair (monotone likelihood ratio, step 1);
    for the lattice laws (point masses at c0 and c1)."""
    d = float(nb.step)
    lo, hi = float(nb.lower), float(nb.upper)  # type: ignore[arg-type]

    def low(a, b, lo, hi):
        return np.log(_fast_cdf(nb, np.full_like(a, lo), a, lo, hi)) - np.log(
            _fast_cdf(nb, np.full_like(a, lo), b, lo, hi)
        )

    up = low(a, a + d, lo, hi)
    down = low(-a - d, -a, -hi, -lo)
    mirrored = down > up
    return np.where(mirrored, down, up), mirrored


def pure_epsilon(nb: Neighbours) -> Pure:
    """sup over neighbours and outputs of log P_s(y)/P_s'(y) (issue 19, "Pure epsilon").

    Unbounded Laplace and geometric: Δ/λ, floor(Δ)/b (the log ratio is constant
    below s); the Gaussian: infinite.  Liu's two Laplace mechanisms: the derived
    closed form of :mod:`dpcheck.symbolic.privacy` (arb enclosure).  The others:
    by step 1 the largest log ratio of a pair is at the lowest (or highest) output,
    and by step 2 on the edge; the geometric edge is enumerated; the Gaussian ones
    are certified in ball arithmetic (:func:`profile_balls.certified_pure`: a closed
    form at one pair when clamped, a branch-and-bound of the log ratio when
    truncated).  The folded Laplace: at most Δ/λ (post-processing)."""
    d = nb.step
    if nb.bounding == "none":
        if nb.base == "gaussian":
            return Pure(
                mpmath.inf,
                mpmath.inf,
                "exact: infinite (the Gaussian log ratio is unbounded in y)",
                {"s": "0", "s'": _num(d), "y": "-inf"},
                "closed form",
            )
        value = mpmath.mpf(d.numerator) / d.denominator / _mpf(nb.scale)
        return Pure(
            value,
            value,
            "exact (closed form sensitivity/scale)",
            {"s": "0", "s'": _num(d), "y": "any y <= 0"},
            "closed form",
        )
    assert nb.lower is not None and nb.upper is not None
    if nb.mechanism in LIU:
        from dpcheck.numeric import privacy as liu

        args = (LIU[nb.mechanism], nb.sensitivity, nb.lower, nb.upper, nb.scale)
        up = liu.loss_upper(*args, digits=DIGITS + 5)
        value = liu.privacy_loss(*args, dps=DIGITS + 10)
        setting = liu.Setting(Fraction(1), nb.sensitivity, nb.lower, nb.upper)
        place = liu.attained(LIU[nb.mechanism], setting)[0]
        return Pure(
            _mpf(up),
            value,
            "exact (derived closed form, Liu 2019 Def. 2; arb enclosure)",
            place,
            "symbolic (dpcheck.symbolic.privacy)",
        )
    if nb.bounding == "folded":
        value = _mpf(d) / _mpf(nb.scale)
        return Pure(
            value,
            mpmath.mpf(0),
            "upper bound (post-processing of the Laplace mechanism)",
            {},
            "data-processing inequality",
        )
    lo, hi = float(nb.lower), float(nb.upper - d)
    if nb.base == "geometric":
        s = lo + np.arange(int(hi - lo) + 1, dtype=float)
        v, m = _log_ratio_low_fast(nb, s)
        i = int(np.argmax(v))
        x, found, upper, method = float(s[i]), float(v[i]), float(v[i]), "every integer pair"
        mirrored = bool(m[i])
    else:  # the truncated or clamped Gaussian: certified in ball arithmetic
        from dpcheck.numeric import profile_balls

        up, low, a, cells, closed = profile_balls.certified_pure(nb)
        if closed and up <= low * (1 + Fraction(1, 10**11)):
            kind = "exact to the digits shown (certified bracket, ball arithmetic)"
        else:
            kind = "certified upper bound (ball arithmetic; bracket not closed)"
        method = (
            "closed form at the pair (c1 - Δ, c1), y = c0 (log-concavity of Φ), arb"
            if nb.bounding == "clamped"
            else f"ball-arithmetic branch-and-bound over the edge ({cells} cells, mean-value form)"
        )
        pair = {"s": _num(a), "s'": _num(a + d), "y": _num(nb.lower)}
        return Pure(_mpf_exact(up), _mpf_exact(low), kind, pair, method)
    a = Fraction(x)
    s, s2 = (a + d, a) if mirrored else (a, a + d)
    y = nb.upper if mirrored else nb.lower
    value = _pair_log_ratio(nb, s, s2, y)
    upper_mp = max(mpmath.mpf(upper), value) * (1 + mpmath.mpf(10) ** (-DIGITS - 2))
    exact = upper <= found * (1 + 1e-11) + 1e-300
    kind = "exact to the digits shown" if exact else "upper bound (bracket not closed)"
    return Pure(upper_mp, value, kind, {"s": _num(s), "s'": _num(s2), "y": _num(y)}, method)


def _mpf_exact(q: Fraction) -> mpmath.mpf:
    """A dyadic rational as an mpf, without rounding (the bounds of profile_balls)."""
    exp = q.denominator.bit_length() - 1
    assert q.denominator == 1 << exp, q
    with mpmath.workdps(max(30, q.numerator.bit_length() // 3 + 10)):
        return mpmath.ldexp(mpmath.mpf(q.numerator), -exp)


def _pair_log_ratio(nb: Neighbours, s: Fraction, s2: Fraction, y: Fraction) -> mpmath.mpf:
    """log P_s(y)/P_s'(y) at a bound y in mpmath: the point mass (clamped, lattice) or,
    for a truncated continuous law, the density ratio, as the limit of F ratios."""
    with mpmath.workdps(60):
        lo, hi = _mpf(nb.lower), _mpf(nb.upper)  # type: ignore[arg-type]
        mirrored = y == nb.upper
        a, b, lo_, hi_ = (_mpf(s), _mpf(s2), lo, hi)
        if mirrored:
            a, b, lo_, hi_ = -a, -b, -hi, -lo
        if nb.bounding == "truncated" and nb.base != "geometric":
            h = mpmath.mpf(10) ** -40 * (hi_ - lo_)
            return mpmath.log(_cdf_mp(nb, lo_ + h, a, lo_, hi_) / _cdf_mp(nb, lo_ + h, b, lo_, hi_))
        return mpmath.log(_cdf_mp(nb, lo_, a, lo_, hi_) / _cdf_mp(nb, lo_, b, lo_, hi_))


# ---------------------------------------------------------------------------- inverse, calibration


def _delta_upper_fast(nb: Neighbours, eps: float) -> float:
    """A float64 guide to δ(ε)'s upper bound, for bisections (confirmed afterwards); the
    folded Laplace's is the Laplace mechanism's (post-processing)."""
    if nb.bounding == "folded":
        nb = Neighbours(nb.base, nb.sensitivity, None, None, nb.scale)
    found = search(nb, eps, rtol=1e-9, budget=20_000)
    return found.upper


@dataclass
class Epsilon:
    """ε(δ): the smallest ε with δ(ε) <= δ, as a safe upper value and a lower value."""

    delta: Fraction
    upper: mpmath.mpf
    lower: mpmath.mpf
    kind: str
    at: Profile | None

    def as_dict(self) -> dict[str, object]:
        out: dict[str, object] = {
            "delta": short(self.delta),
            "epsilon": "inf" if self.upper == mpmath.inf else _round_up(self.upper),
            "epsilon lower": _round_down(self.lower),
            "epsilon kind": self.kind,
        }
        if self.at is not None:
            out["worst pair"] = self.at.as_dict()["worst pair"]
        return out


def epsilon_for_delta(nb: Neighbours, delta: Fraction) -> Epsilon:
    """ε(δ) = inf{ε >= 0 : δ(ε) <= δ}, δ(ε) being non-increasing in ε.

    Bisection on ε with the float64 search's upper bound, then the printed ε (rounded up)
    is confirmed with :func:`delta_for_epsilon` (δ upper <= δ), and ε lower is
    checked to violate it (δ lower > δ)."""
    if delta == 0:
        pure = pure_epsilon(nb)
        return Epsilon(delta, pure.upper, pure.lower, pure.kind, None)
    target = float(delta)
    pure = float(pure_epsilon(nb).upper)

    def above(e: float) -> bool:  # δ(e) > δ by the float64 bound (δ = 0 beyond the pure ε)
        return e < pure and _delta_upper_fast(nb, e) > target

    lo, hi = 0.0, 1.0
    while above(hi):
        lo, hi = hi, 2 * hi
        if hi > 700:
            raise InputError(f"delta={short(delta)} needs epsilon above 700")
    hi = min(hi, pure)
    if not above(0.0):
        hi = 0.0
    for _ in range(200):
        if hi - lo <= 1e-14 * hi:
            break
        mid = (lo + hi) / 2
        if above(mid):
            lo = mid
        else:
            hi = mid
    eps_up = Fraction(_round_up(hi)) if hi > 0 else Fraction(0)
    at = delta_for_epsilon(nb, eps_up)
    for _ in range(30):
        if at.upper <= _mpf(delta):
            break
        eps_up = Fraction(_round_up(eps_up * (1 + Fraction(1, 10**10))))
        at = delta_for_epsilon(nb, eps_up)
    eps_low = Fraction(_round_down(lo)) if lo > 0 else Fraction(0)
    below = delta_for_epsilon(nb, eps_low) if eps_low > 0 else None
    confirmed = below is not None and below.lower > _mpf(delta)
    kind = "upper bound: delta(epsilon) <= delta confirmed at this epsilon" + (
        "; the lower value violates it (attained pair)" if confirmed else ""
    )
    return Epsilon(delta, _mpf(eps_up), _mpf(eps_low) if confirmed else mpmath.mpf(0), kind, at)


@dataclass
class Calibration:
    """The smallest scale giving (ε, δ)-DP, rounded up and confirmed there."""

    epsilon: Fraction
    delta: Fraction
    scale: Fraction
    minimal: bool
    kind: str
    at: dict[str, object]
    cost: list[dict[str, str]]

    def as_dict(self) -> dict[str, object]:
        return {
            "epsilon": short(self.epsilon),
            "delta": short(self.delta),
            "calibrated scale": _round_up(self.scale),
            "calibrated scale kind": self.kind,
            "0.99999999 x scale violates": self.minimal,
            "at calibrated scale": self.at,
            "cost": self.cost,
        }


def _satisfied(nb: Neighbours, eps: Fraction, delta: Fraction, fast: bool) -> bool:
    if delta == 0:
        if fast:
            return float(pure_epsilon(nb).upper) <= float(eps)
        return pure_epsilon(nb).upper <= _mpf(eps)
    if nb.bounded and pure_epsilon(nb).upper <= _mpf(eps):
        return True  # δ(ε) = 0
    if fast:
        return _delta_upper_fast(nb, float(eps)) <= float(delta)
    return delta_for_epsilon(nb, eps).upper <= _mpf(delta)


def _violated(nb: Neighbours, eps: Fraction, delta: Fraction) -> bool:
    """Whether (ε, δ) fails at this scale, shown by an attained (lower) value."""
    if delta == 0:
        return pure_epsilon(nb).lower > _mpf(eps)
    return delta_for_epsilon(nb, eps).lower > _mpf(delta)


def calibrate(nb: Neighbours, eps: Fraction, delta: Fraction = Fraction(0)) -> Calibration:
    """The smallest scale at which the mechanism is (ε, δ)-DP (Holohan et al. 2018's
    bisection, generalised to any mechanism and δ >= 0).

    Bisection on log(scale) with the float64 bounds (assuming, as Holohan et al. do,
    that privacy improves with the scale); the result is rounded up to
    :data:`DIGITS` digits and *confirmed* at that scale (δ upper <= δ, or pure ε
    upper <= ε), nudged up until it is; ``minimal`` says whether (1 - 1e-8) of it
    is shown to violate the target by an attained pair."""
    if eps <= 0:
        raise InputError(f"epsilon={short(eps)} must be positive to calibrate")
    if delta == 0 and nb.base == "gaussian" and nb.bounding == "none":
        raise InputError("the Gaussian mechanism is never pure-DP: give --delta > 0")
    lo, hi = Fraction(1), Fraction(1)
    while _satisfied(nb.with_scale(lo), eps, delta, True):
        lo /= 2
        if lo < Fraction(1, 2**200):
            raise InputError("every scale down to 2^-200 satisfies the target")
    while not _satisfied(nb.with_scale(hi), eps, delta, True):
        hi *= 2
        if hi > 2**200:
            raise InputError("no scale up to 2^200 satisfies the target")
    for _ in range(80):
        if hi - lo <= hi / 10**12:
            break
        mid = (lo + hi) / 2
        mid = Fraction(float(mid))
        if _satisfied(nb.with_scale(mid), eps, delta, True):
            hi = mid
        else:
            lo = mid
    scale = Fraction(_round_up(hi))
    for _ in range(40):
        if _satisfied(nb.with_scale(scale), eps, delta, False):
            break
        scale = Fraction(_round_up(scale * (1 + Fraction(1, 10**10))))
    else:  # pragma: no cover
        raise ArithmeticError("the calibrated scale could not be confirmed")
    minimal = _violated(nb.with_scale(scale * (1 - Fraction(1, 10**8))), eps, delta)
    here = nb.with_scale(scale)
    at = pure_epsilon(here).as_dict() if delta == 0 else delta_for_epsilon(here, eps).as_dict()
    kind = (
        f"upper bound on the smallest scale: rounded up to {DIGITS} digits and confirmed"
        " there" + ("; 0.99999999 x scale violates the target (attained pair)" if minimal else "")
    )
    return Calibration(eps, delta, scale, minimal, kind, at, cost(here))


def cost(nb: Neighbours, dps: int = 20) -> list[dict[str, str]]:
    """Bias and MSE at s = c0 and at the midpoint (bounded), or the variance (unbounded)."""
    from dpcheck.numeric import mechanism_mp
    from dpcheck.numeric.names import BASES

    key = BASES[nb.base]
    if not nb.bounded:
        v = mechanism_mp.evaluate(f"{nb.mechanism}.var", {"s": 0, key: nb.scale}, dps)
        return [{"at": "any s", "bias": "0", "mse": mpmath.nstr(v, 12)}]
    assert nb.lower is not None and nb.upper is not None
    rows = []
    mid = (nb.lower + nb.upper) / 2
    if nb.base == "geometric":
        mid = Fraction(math.floor(mid))
    for label, s in (("s = c0", nb.lower), ("s = midpoint", mid)):
        values = {"s": s, "c0": nb.lower, "c1": nb.upper, key: nb.scale}
        b = mechanism_mp.evaluate(f"{nb.mechanism}.bias", values, dps)
        m = mechanism_mp.evaluate(f"{nb.mechanism}.mse", values, dps)
        rows.append({"at": label, "bias": mpmath.nstr(b, 12), "mse": mpmath.nstr(m, 12)})
    return rows


def _exact_leq(text: object, bound: Fraction) -> bool:
    """Whether a printed decimal (or 'inf') is <= ``bound``, exactly."""
    if text == "inf":
        return False
    return Fraction(str(text)) <= bound
