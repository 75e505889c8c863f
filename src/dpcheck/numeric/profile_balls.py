"""Certified privacy numbers in ball arithmetic (python-flint arb), issues 19 and 40.

Every privacy number :mod:`dpcheck.numeric.profile` prints comes from here: an
upper bound on δ(ε) or on the pure ε that holds whatever the budget, and a value
*attained* by an actual pair of neighbours and an actual event, both from exact
rational inputs (ε, Δ, the bounds and the scale are Fractions; nothing is rounded
to float64).  Ends of balls are returned as exact binary numbers
(:func:`end`: an mpf with the ball's own mantissa and an unbounded exponent, so a
δ of 1e-216937 is represented, compared and printed as it is).

* **One pair** (s < s').  By step 1 of profile.py (monotone likelihood ratio) the
  supremum over events is over half-lines, sup_t φ(t), φ(t) = F_s(t) - e^ε F_s'(t),
  and φ rises while the likelihood ratio exceeds e^ε and falls after: its supremum
  is at the crossing t*.  Continuous bases: t* has a closed form (Gaussian
  (s + s')/2 - σ²k/(s' - s); Laplace (s + s')/2 - λk/2 clipped to [s, s'];
  k = ε - log(Z_s'/Z_s) for truncation, ε otherwise), enclosed as a ball T; φ over T
  bounds the supremum, φ at T's midpoint (an exact rational) is attained.  The
  lattice (two-sided geometric): log LR(t) = (|t - s'| - |t - s|)/θ + log(Z_s'/Z_s)
  exceeds ε exactly for the integers t < τ = (s + s')/2 - θk/2 (for t in [s, s'];
  outside that interval it is constant, and τ < s, τ > s' mean "no t", "every t"),
  so t* = ⌈τ⌉ - 1 lies among the integers of [⌊τ⁻⌋ - 1, ⌈τ⁺⌉] for the ball
  [τ⁻, τ⁺]: φ is evaluated at each of those exact integers (:meth:`Balls.pair`).
* **A cell of pairs.**  Stochastic order (step 2): F_u(t) is non-increasing in u.
  For s in [u, v], pointwise in t, F_s(t) - e^ε F_{s+Δ}(t) <= F_u(t) - e^ε F_{v+Δ}(t),
  so H_ε(s, s + Δ) is at most the supremum of the pseudo-pair (u, v + Δ), which has
  the same monotone likelihood ratio (:func:`cell_bound`; the mirror direction
  s > s' in the reflected coordinates y -> -y).  For narrow continuous cells the
  mean-value form of Φ(s, t) over the box (s, t) is tighter (quadratic at a smooth
  maximum).  Integer cells (the lattice) are halved down to single pairs, where the
  bound is the pair's own value.
* **Branch-and-bound** (:func:`maximise`): cells with the largest bound are split;
  each cell also evaluates an actual pair, so the best attained value rises while
  the bounds fall.  It stops when every bound is within ``rtol`` of the attained
  value (the bracket is closed), or, asked a question δ(ε) <= δ?, as soon as it is
  answered either way, or when the budget is spent; the largest bound over the
  final partition is an upper bound on δ(ε) whatever happened.

Precision starts at :data:`PREC` bits; a pair or cell whose ball is too wide for
the question is re-evaluated at four times the precision, up to :data:`PREC_MAX`.
The base CDFs here are written in arb (Laplace: e^{x/λ}/2 and 1 - e^{-x/λ}/2;
Gaussian: erfc(-x/(σ√2))/2; two-sided geometric: α^{-k}/(1+α) and
1 - α^{k+1}/(1+α), α = e^{-1/θ}) with the bounding's transformation as in
:func:`dpcheck.symbolic.mechanisms.cdf_branches`; tests/test_profile_balls.py checks
them against the *derived* CDF evaluated by :func:`profile.pair_ball`, and profile.py
recomputes the printed attained value from the derived CDF.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import flint
import mpmath
from mpmath.libmp import from_man_exp, from_rational, round_ceiling, round_floor

#: starting working precision (bits) of every ball here
PREC = 128
#: the largest precision a ball is re-evaluated at
PREC_MAX = 1 << 14
#: cells evaluated by :func:`maximise` at most
CELL_BUDGET = 2000
#: a pair's ball counts as precise when its radius is below 2^-TIGHT of its value
TIGHT = 60
#: at most this many lattice candidates per pair (a wider crossing ball is bounded by 1)
MAX_CANDIDATES = 64


@contextmanager
def _precision(bits: int = PREC) -> Iterator[None]:
    old = flint.ctx.prec
    flint.ctx.prec = bits
    try:
        yield
    finally:
        flint.ctx.prec = old


def _ball(q: Fraction | int) -> flint.arb:
    q = Fraction(q)
    return flint.arb(q.numerator) / q.denominator


# ------------------------------------------------------------------ exact numbers


def exact(value: Fraction | int) -> mpmath.mpf:
    """A dyadic rational as an exact mpf (no rounding to the working precision)."""
    q = Fraction(value)
    exp = q.denominator.bit_length() - 1
    if q.denominator != 1 << exp:
        raise ValueError(f"{q} is not dyadic")
    return mpmath.mp.make_mpf(from_man_exp(q.numerator, -exp))


def rounded(value: Fraction | int, up: bool, bits: int = 256) -> mpmath.mpf:
    """A rational rounded up (or down) to ``bits`` bits, as an exact mpf: a safe stand-in
    for the rational in comparisons (x <= rounded(q, down) implies x <= q)."""
    q = Fraction(value)
    raw = from_rational(q.numerator, q.denominator, bits, round_ceiling if up else round_floor)
    return mpmath.mp.make_mpf(raw)


def end(ball: flint.arb, upper: bool) -> mpmath.mpf:
    """An end of a ball as an exact mpf, rounded outward; ±inf for a non-finite ball."""
    if not ball.is_finite():
        return mpmath.inf if upper else mpmath.ninf
    with _precision(PREC_MAX + 64):  # the end at (at least) the ball's own precision
        man, exp = (ball.upper() if upper else ball.lower()).man_exp()
    return mpmath.mp.make_mpf(from_man_exp(int(man), int(exp)))


def to_fraction(value: mpmath.mpf) -> Fraction:
    """An exact (finite) mpf as a Fraction."""
    sign, man, exp, _ = value._mpf_  # mpf's own man_exp drops the sign
    q = Fraction(int(man)) * Fraction(2) ** int(exp)
    return -q if sign else q


def to_fraction_below(value: mpmath.mpf, bits: int) -> Fraction:
    """The largest multiple of 2^-bits that is <= ``value`` (an exact finite mpf): a lower
    bound with a denominator of at most 2^bits (an mpf of 2^-10^11 as an exact Fraction
    would not fit in memory)."""
    sign, man, exp, _ = value._mpf_
    man = int(man)
    if exp >= -bits:
        return to_fraction(value)
    shift = -exp - bits  # value = ±man 2^exp = ±(man >> shift + rest) 2^-bits
    if shift >= man.bit_length():  # |value| < 2^-bits (no mask of 2^shift bits built)
        whole, rest = 0, man
    else:
        whole, rest = man >> shift, man & ((1 << shift) - 1)
    if sign:
        return -Fraction(whole + (1 if rest else 0), 1 << bits)
    return Fraction(whole, 1 << bits)


def precise(ball: flint.arb) -> bool:
    """Whether the ball's radius is below 2^-TIGHT of its magnitude (or it is exact)."""
    if not ball.is_finite():
        return False
    if ball.rad() == 0:
        return True
    mid = abs(ball.mid())
    return mid > 0 and ball.rad() <= mid * flint.arb(2) ** (-TIGHT)


# ------------------------------------------------------------------ base laws


def _hull(a: flint.arb, b: flint.arb) -> flint.arb:
    """A ball containing both balls (a's lower end to b's upper end)."""
    low, high = a.lower(), b.upper()
    mid = ((low + high) / 2).mid()
    return flint.arb(mid, (abs(high - mid).max(abs(mid - low))).upper())


def _erfc(z: flint.arb) -> flint.arb:
    """erfc of a ball from its two exact ends (erfc is decreasing): arb's own erfc of
    a ball far in the tail (z ~ 1e7) loses every digit, of an exact point it does not."""
    if z.rad() == 0:
        return z.erfc()
    return _hull(z.upper().erfc(), z.lower().erfc())


def _alpha(scale: flint.arb) -> flint.arb:
    return (-1 / scale).exp()


def _base_cdf(base: str, x: flint.arb, scale: flint.arb) -> flint.arb:
    """P(X <= x) for the centred base law (monotone: a ball straddling 0 is enclosed by
    the values at its two ends).  The lattice law takes integer x only."""
    if base == "gaussian":
        return _erfc(-x / (scale * flint.arb(2).sqrt())) / 2
    if base == "geometric":  # α^{-x}/(1+α) below 0, 1 - α^{x+1}/(1+α) from 0
        one_plus = 1 + _alpha(scale)
        if x < 0:
            return (x / scale).exp() / one_plus
        if x >= 0:
            return 1 - (-(x + 1) / scale).exp() / one_plus
        return _hull(_base_cdf(base, x.lower(), scale), _base_cdf(base, x.upper(), scale))
    if x < 0:
        return (x / scale).exp() / 2
    if x >= 0:
        return 1 - (-x / scale).exp() / 2
    return _hull(_base_cdf(base, x.lower(), scale), _base_cdf(base, x.upper(), scale))


def _base_density(base: str, x: flint.arb, scale: flint.arb) -> flint.arb:
    """The centred base density at a ball x (Laplace's kink at 0 handled by abs)."""
    if base == "gaussian":
        z = x / scale
        return (-(z * z) / 2).exp() / (scale * (2 * flint.arb.pi()).sqrt())
    return (-abs(x) / scale).exp() / (2 * scale)


class Balls:
    """The mechanism's CDF in ball arithmetic for one setting (bounds may be reflected).

    Call its methods inside ``_precision(self.prec)``."""

    def __init__(
        self, bounding: str, base: str, scale: Fraction, eps: Fraction,
        lo: Fraction | None, hi: Fraction | None, step: Fraction = Fraction(0),
        prec: int = PREC,
    ) -> None:
        self.bounding, self.base, self.prec = bounding, base, prec
        self.lattice = base == "geometric"
        self.lo_q, self.hi_q, self.step_q = lo, hi, Fraction(step)
        with _precision(prec):
            self.step = _ball(step)
            self.scale = _ball(scale)
            self.eps = _ball(eps)
            self.e = self.eps.exp()
            self.lo = None if lo is None else _ball(lo)
            self.hi = None if hi is None else _ball(hi)

    def _below_lo(self, u: flint.arb) -> flint.arb:
        """P(u + X < c0): the base CDF just below the lower bound."""
        assert self.lo is not None
        edge = self.lo - 1 if self.lattice else self.lo
        return _base_cdf(self.base, edge - u, self.scale)

    def _z(self, u: flint.arb) -> flint.arb:
        assert self.lo is not None and self.hi is not None
        return _base_cdf(self.base, self.hi - u, self.scale) - self._below_lo(u)

    def cdf(self, t: flint.arb, u: flint.arb) -> flint.arb:
        """F_u(t) on the support [c0, c1⁻] (the clamped atom at c0 included)."""
        f = _base_cdf(self.base, t - u, self.scale)
        if self.bounding != "truncated":
            return f
        return (f - self._below_lo(u)) / self._z(u)

    def density(self, t: flint.arb, u: flint.arb) -> flint.arb:
        """∂F_u(t)/∂t on the continuous part."""
        f = _base_density(self.base, t - u, self.scale)
        return f / self._z(u) if self.bounding == "truncated" else f

    def cdf_du(self, t: flint.arb, u: flint.arb) -> flint.arb:
        """∂F_u(t)/∂u (the quotient rule for truncation: F = N/Z)."""
        g = _base_density(self.base, t - u, self.scale)
        if self.bounding != "truncated":
            return -g
        assert self.lo is not None and self.hi is not None
        g0 = _base_density(self.base, self.lo - u, self.scale)
        g1 = _base_density(self.base, self.hi - u, self.scale)
        z = self._z(u)
        n = _base_cdf(self.base, t - u, self.scale) - _base_cdf(self.base, self.lo - u, self.scale)
        return ((g0 - g) * z - n * (g0 - g1)) / (z * z)

    def phi(self, s: flint.arb, t: flint.arb) -> flint.arb:
        """Φ(s, t) = F_s(t) - e^ε F_{s+Δ}(t)."""
        return self.cdf(t, s) - self.e * self.cdf(t, s + self.step)

    def _centred(self, s0: flint.arb, sbox: flint.arb, t0: flint.arb, tbox: flint.arb,
                 moving_t: bool) -> flint.arb:
        """Φ over the box by the mean-value form: Φ(s0, t0) + ∇Φ(box)·(box - centre)."""
        b = sbox + self.step
        ds = self.cdf_du(tbox, sbox) - self.e * self.cdf_du(tbox, b)
        out = self.phi(s0, t0) + ds * (sbox - s0)
        if moving_t:
            dt = self.density(tbox, sbox) - self.e * self.density(tbox, b)
            out += dt * (tbox - t0)
        return out

    def box_sup(self, u: Fraction, v: Fraction) -> flint.arb:
        """A ball whose upper end bounds sup_t Φ(s, t) for every s in [u, v] (s < s' pairs,
        continuous bases): t ranges over the crossings of the cell (an interval enclosure)
        and the ends of the support; Φ is bounded by its mean-value form, so the bound
        tightens quadratically at a smooth maximum."""
        s0 = _ball((u + v) / 2)
        sbox = flint.arb(s0.mid(), _ball((v - u) / 2).upper())
        best = flint.arb(0)
        tbox = self.crossing(sbox, sbox + self.step)
        if self.lo is not None and self.hi is not None:
            # truncation: Φ(s, c0) = 0 and Φ(s, c1⁻) = 1 - e^ε <= 0, below the start value
            ends = [] if self.bounding == "truncated" else [(self.lo, False), (self.hi, False)]
            if not (tbox.upper() <= self.lo.lower() or tbox.lower() >= self.hi.upper()):
                tbox = tbox.max(self.lo).min(self.hi)
                ends.append((tbox, True))
        else:
            ends = [(tbox, True)]
        for t, moving in ends:
            t0 = flint.arb(t.mid()) if moving else t
            best = best.max(self._centred(s0, sbox, t0, t, moving))
        return best

    def crossing(self, a: flint.arb, b: flint.arb) -> flint.arb:
        """t* with log p_a(t)/p_b(t) = ε (the base's closed form; Laplace clipped; the
        lattice's τ unclipped, see the module docstring)."""
        k = self.eps
        if self.bounding == "truncated":
            k = k - (self._z(b) / self._z(a)).log()
        mid, d = (a + b) / 2, b - a
        if self.base == "gaussian":
            return mid - self.scale * self.scale * k / d
        if self.lattice:
            return mid - self.scale * k / 2
        return (mid - self.scale * k / 2).max(a).min(b)

    def pair(self, a: Fraction, b: Fraction) -> tuple[flint.arb, flint.arb, Fraction | None]:
        """(U, L, t) for the pair (or pseudo-pair) a < b: U's upper end bounds
        max(0, sup_t F_a(t) - e^ε F_b(t)); L's lower end is attained by the event
        {Y <= t} (t None: the empty event, value 0)."""
        with _precision(self.prec):
            return self._lattice_pair(a, b) if self.lattice else self._continuous_pair(a, b)

    def _continuous_pair(self, a: Fraction, b: Fraction):  # type: ignore[no-untyped-def]
        A, B = _ball(a), _ball(b)
        upper, lower, where = flint.arb(0), flint.arb(0), None
        t = self.crossing(A, B)
        if not t.is_finite():
            return flint.arb(1), lower, None  # only the trivial bound δ <= 1
        points: list[tuple[flint.arb, Fraction | None]] = []
        bounded = self.lo is not None and self.hi is not None
        if not bounded or not (t.upper() <= self.lo.lower() or t.lower() >= self.hi.upper()):
            if bounded:
                t = t.max(self.lo).min(self.hi)
            upper = upper.max(self.cdf(t, A) - self.e * self.cdf(t, B))
            man, exp = t.mid().man_exp()
            tm = Fraction(int(man)) * Fraction(2) ** int(exp)
            if bounded:
                tm = min(max(tm, self.lo_q), self.hi_q)  # type: ignore[type-var]
            points.append((_ball(tm), tm))
        if not bounded:
            upper = upper.max(1 - self.e)  # t -> +inf: only positive when ε < 0
        if bounded and self.bounding != "truncated":
            points.append((self.lo, self.lo_q))  # the clamped atom at c0
            # c1⁻: 1 - the atom at c1 (never above 1 - e^ε <= 0 for ε >= 0; bounded anyway)
            upper = upper.max(self.cdf(self.hi, A) - self.e * self.cdf(self.hi, B))
        for ball, q in points:
            v = self.cdf(ball, A) - self.e * self.cdf(ball, B)
            upper = upper.max(v)
            if v.lower() > lower.lower() or (where is None and v.lower() >= lower.lower()):
                lower, where = v, q
        return upper, lower, where

    def _lattice_pair(self, a: Fraction, b: Fraction):  # type: ignore[no-untyped-def]
        A, B = _ball(a), _ball(b)
        tau = self.crossing(A, B)
        upper, lower, where = flint.arb(0), flint.arb(0), None
        if not tau.is_finite():
            return flint.arb(1), lower, None
        first = int(tau.lower().floor().unique_fmpz()) - 1
        last = int(tau.upper().ceil().unique_fmpz())
        if self.lo_q is not None and self.hi_q is not None:
            first = max(first, int(self.lo_q))
            last = min(last, int(self.hi_q) - 1)  # φ(c1) = 1 - e^ε <= 0
        else:
            upper = upper.max(1 - self.e)  # t -> +inf: only positive when ε < 0
        if last - first + 1 > MAX_CANDIDATES:
            return flint.arb(1), lower, None
        for k in range(first, last + 1):
            t = flint.arb(k)
            v = self.cdf(t, A) - self.e * self.cdf(t, B)
            upper = upper.max(v)
            if v.lower() > lower.lower():
                lower, where = v, Fraction(k)
        return upper, lower, where

    def log_ratio_at_lo(self, a: Fraction, b: Fraction) -> flint.arb:
        """log F_a(c0) - log F_b(c0): for a < b the pair's largest log likelihood ratio
        (step 1: monotone likelihood ratio puts it at the lowest output); for a pseudo-pair
        (u, v + Δ) an upper bound over the cell (stochastic order)."""
        assert self.lo is not None
        with _precision(self.prec):
            return (self.cdf(self.lo, _ball(a)) / self.cdf(self.lo, _ball(b))).log()


# ------------------------------------------------------------------ settings


@dataclass(frozen=True)
class Setting:
    """What the engine needs of :class:`profile.Neighbours` (kept free of that module)."""

    bounding: str
    base: str
    scale: Fraction
    lower: Fraction | None
    upper: Fraction | None
    step: Fraction

    @classmethod
    def of(cls, nb: Any) -> Setting:
        return cls(nb.bounding, nb.base, nb.scale, nb.lower, nb.upper, nb.step)

    @property
    def lattice(self) -> bool:
        return self.base == "geometric"

    def balls(self, eps: Fraction, mirrored: bool, prec: int) -> Balls:
        """The setting (or its mirror image y -> -y, bounds [-c1, -c0]) at precision ``prec``."""
        lo, hi = self.lower, self.upper
        if mirrored:
            lo, hi = (None if hi is None else -hi), (None if lo is None else -lo)
        return Balls(self.bounding, self.base, self.scale, eps, lo, hi, self.step, prec)


@dataclass
class Attained:
    """An actual pair (s, s') and event {Y <= t} (mirrored: {Y >= t}) with its value."""

    value: mpmath.mpf
    s: Fraction
    s_prime: Fraction
    t: Fraction | None
    mirrored: bool


def pair_delta(st: Setting, eps: Fraction, s: Fraction, prec: int = PREC) -> tuple:
    """max over both directions of the actual pair (s, s + step): (upper ball end,
    :class:`Attained`)."""
    best: Attained | None = None
    top = mpmath.mpf(0)
    for mirrored in (False, True) if st.lower is not None else (False,):
        balls = st.balls(eps, mirrored, prec)
        a, b = (-s - st.step, -s) if mirrored else (s, s + st.step)
        upper, lower, t = balls.pair(a, b)
        top = max(top, end(upper, True))
        value = max(end(lower, False), mpmath.mpf(0))
        if best is None or value > best.value:
            pair = (s + st.step, s) if mirrored else (s, s + st.step)
            best = Attained(value, pair[0], pair[1], None if t is None else
                            (-t if mirrored else t), mirrored)
    assert best is not None
    return top, best


def cell_bound(st: Setting, eps: Fraction, u: Fraction, v: Fraction, prec: int = PREC):
    """An upper bound (exact mpf) on H_ε over every pair (s, s + Δ) and (s + Δ, s),
    s in [u, v]: the least of the stochastic-order bound, the mean-value form (narrow
    continuous cells) and, for truncation, the conditioning bound (the module docstring).
    ``st`` a :class:`Setting` or a :class:`profile.Neighbours`."""
    st = st if isinstance(st, Setting) else Setting.of(st)
    d = st.step
    best = mpmath.mpf(0)
    for mirrored in (False, True) if st.lower is not None else (False,):
        balls = st.balls(eps, mirrored, prec)
        lo, hi = (-v - d, -u - d) if mirrored else (u, v)
        candidates = [end(balls.pair(lo, hi + d)[0], True)]
        if not st.lattice and st.lower is not None and 16 * (v - u) < st.scale:
            with _precision(prec):
                box = balls.box_sup(lo, hi)
            if box.is_finite():  # narrow: the mean-value form is usually the tighter one
                candidates.append(end(box, True))
        best = max(best, min(candidates))
    if st.bounding == "truncated":
        best = min(best, conditioning_bound(st, eps, u, v, prec))
    return min(best, mpmath.mpf(1))


def conditioning_bound(st: Setting, eps: Fraction, u: Fraction, v: Fraction,
                       prec: int = PREC) -> mpmath.mpf:
    """Truncation is conditioning on I = [c0, c1]: P^T_s(E) = P_s(E ∩ I)/Z_s, so

        H^T_ε(s, s') = sup_{E ⊆ I} [P_s(E) - e^{ε + log(Z_s/Z_s')} P_s'(E)] / Z_s
                     <= H_ε'(s, s') / Z_s,   ε' = ε + log(Z_s/Z_s'),

    with H the *unbounded* mechanism's hockey-stick divergence, which depends on s' - s only
    (translation invariance) and does not increase with ε'.  Over a cell s in [u, v] the
    least ε' and the least Z_s give one bound for both directions: tight far from the
    bounds, where Z -> 1 and ε' -> ε, exactly where the stochastic-order bound of a wide
    cell is loose."""
    d = st.step
    with _precision(prec):
        balls = st.balls(eps, False, prec)
        sbox = flint.arb(_ball((u + v) / 2).mid(), _ball((v - u) / 2).upper())
        z_s, z_t = balls._z(sbox), balls._z(sbox + _ball(d))
        top = flint.arb(0)
        for za, zb in ((z_s, z_t), (z_t, z_s)):  # the pairs (s, s + Δ) and (s + Δ, s)
            if not za.lower() > 0 or not zb.lower() > 0:
                return mpmath.mpf(1)
            kappa = end((za / zb).log(), False)
            if not mpmath.isfinite(kappa):
                return mpmath.mpf(1)
            # κ rounded down (a smaller ε' only raises the bound): a short denominator
            kappa_q = to_fraction_below(kappa, prec + 64)
            unbounded = Balls("none", st.base, st.scale, eps + kappa_q, None, None, d, prec)
            h = unbounded.pair(Fraction(0), d)[0]
            with _precision(prec):
                top = top.max(h / za)
    return end(top, True)


# ------------------------------------------------------------------ branch-and-bound


@dataclass
class Found:
    """The result of :func:`maximise`."""

    upper: mpmath.mpf  # over the final partition: an upper bound whatever happened
    attained: Any  # the best attained payload (its ``value`` an exact lower bound)
    cells: int
    closed: bool  # every bound within rtol of the attained value
    decided: bool | None  # the answer to "max <= threshold?", when one was asked


def maximise(
    bound: Callable[[Fraction, Fraction, int], mpmath.mpf],
    attain: Callable[[Fraction, Fraction, int], Any],
    lo: Fraction,
    hi: Fraction,
    *,
    lattice: bool,
    rtol: Fraction = Fraction(1, 10**14),
    budget: int = CELL_BUDGET,
    threshold: mpmath.mpf | None = None,
    pieces: int = 16,
) -> Found:
    """Branch-and-bound in ball arithmetic over s in [lo, hi] (integers when ``lattice``).

    ``bound(u, v, prec)`` is an upper bound over the cell [u, v]; ``attain(u, v, prec)``
    the value (``.value``) of an actual point of the cell.  Cells with the largest bound
    are split (a single integer, or a continuous cell narrower than 2^-80 of the range,
    is re-evaluated at four times the precision instead) until every bound is within
    ``rtol`` of the best attained value, or, with a ``threshold``, until either the
    attained value exceeds it or every bound is at most it, or ``budget`` cells are spent.
    """
    if lattice:
        lo, hi = Fraction(int(lo)), Fraction(int(hi))
    heap: list[tuple[Any, ...]] = []
    best: Any = None
    cells = 0

    def push(u: Fraction, v: Fraction, prec: int) -> None:
        nonlocal best, cells
        b = bound(u, v, prec)
        got = attain(u, v, prec)
        if best is None or got.value > best.value:
            best = got
        b = max(b, got.value)
        heapq.heappush(heap, (-b, cells, u, v, prec, b))
        cells += 1

    for u, v in _pieces(lo, hi, pieces, lattice):
        push(u, v, PREC)
    closed, decided = False, None
    tiny = (hi - lo) / 2**80
    while True:
        top = heap[0][5]
        if threshold is not None:
            if best.value > threshold:
                decided = False
                break
            if top <= threshold:
                decided = True
                break
        if _within(top, best.value, rtol):
            closed = True
            if threshold is None:
                break
        if cells >= budget:
            break
        _, _, u, v, prec, _ = heapq.heappop(heap)
        if (v == u if lattice else v - u <= tiny):
            if prec >= PREC_MAX:
                heapq.heappush(heap, (-top, cells, u, v, prec, top))
                break
            push(u, v, prec * 4)
            continue
        if lattice:
            m = (u + v) // 2
            push(u, Fraction(m), prec)
            push(Fraction(m + 1), v, prec)
        else:
            m = (u + v) / 2
            push(u, m, prec)
            push(m, v, prec)
    top = heap[0][5]
    return Found(top, best, cells, closed or _within(top, best.value, rtol), decided)


def _within(top: mpmath.mpf, value: mpmath.mpf, rtol: Fraction) -> bool:
    """top <= value (1 + rtol), for closing a bracket (a stopping rule, not a certificate)."""
    if not (mpmath.isfinite(top) and mpmath.isfinite(value)):
        return bool(top <= value)
    return top <= value or top - value <= abs(value) * (float(rtol))


def _pieces(lo: Fraction, hi: Fraction, pieces: int, lattice: bool):  # type: ignore[no-untyped-def]
    if hi <= lo:
        return [(lo, lo)]
    if lattice:
        count = int(hi - lo) + 1
        n = min(pieces, count)
        edges = [lo + (count * i) // n for i in range(n + 1)]
        return [(Fraction(edges[i]), Fraction(edges[i + 1] - 1)) for i in range(n)]
    width = (hi - lo) / pieces
    return [(lo + i * width, lo + (i + 1) * width if i < pieces - 1 else hi) for i in range(pieces)]


def certified_delta(
    nb: Any, eps: Fraction, *, rtol: Fraction = Fraction(1, 10**14),
    budget: int = CELL_BUDGET, threshold: mpmath.mpf | None = None, cap: mpmath.mpf | None = None,
) -> Found:
    """δ(ε) of a bounded mechanism over the edge s in [c0, c1 - Δ]: :func:`maximise` of
    :func:`cell_bound`, each cell attaining at an actual pair (its midpoint, or its first
    integer).  ``cap``: a known upper bound (post-processing) that closes the search once the
    attained value reaches it."""
    st = Setting.of(nb)
    assert st.lower is not None and st.upper is not None

    def bound(u: Fraction, v: Fraction, prec: int) -> mpmath.mpf:
        b = cell_bound(st, eps, u, v, prec)
        return b if cap is None else min(b, cap)

    def attain(u: Fraction, v: Fraction, prec: int) -> Attained:
        s = u if st.lattice else (u + v) / 2
        return pair_delta(st, eps, s, prec)[1]

    return maximise(
        bound, attain, st.lower, st.upper - st.step, lattice=st.lattice, rtol=rtol,
        budget=budget, threshold=threshold,
    )


def precise_pair(st: Setting, eps: Fraction, s: Fraction, prec: int = PREC) -> tuple:
    """:func:`pair_delta` at ``prec``, raised until the attained value and the pair's
    upper end agree to 2^-TIGHT (or :data:`PREC_MAX`)."""
    while True:
        top, got = pair_delta(st, eps, s, prec)
        if got.value > 0 and top - got.value <= got.value * mpmath.mpf(2) ** (-TIGHT):
            return top, got
        if got.value == 0 and top == 0:
            return top, got
        if prec >= PREC_MAX:
            return top, got
        prec *= 4


def unbounded_delta(nb: Any, eps: Fraction) -> tuple[mpmath.mpf, Attained]:
    """The unbounded mechanism's δ(ε) at the pair (0, Δ) (translation invariance), with the
    base of ``nb`` and its step: (upper end, attained)."""
    st = Setting("none", nb.base, nb.scale, None, None, unbounded_step(nb))
    return precise_pair(st, eps, Fraction(0))


def unbounded_step(nb: Any) -> Fraction:
    """The unbounded base's largest |s - s'| at this sensitivity (floor on the lattice)."""
    d = nb.sensitivity
    return Fraction(int(d)) if nb.base == "geometric" else d


# ---------------------------------------------------------------- pure epsilon


class _LogRatio:
    """f(a) = log p_a(c0) / p_{a+d}(c0) for the truncated Gaussian: the pair (a, a + d)'s
    largest log ratio (at the lowest output, step 1 of profile.py):
    f(a) = d(2(a - c0) + d)/(2σ²) + log Z(a + d) - log Z(a),
    f'(a) = d/σ² + Z'(a + d)/Z(a + d) - Z'(a)/Z(a), Z'(u) = g(c0 - u) - g(c1 - u)."""

    def __init__(self, nb: Any, prec: int = PREC) -> None:
        self.balls = Balls(
            "truncated", "gaussian", nb.scale, Fraction(0), nb.lower, nb.upper, prec=prec
        )
        with _precision(prec):
            self.d = _ball(nb.step)
            self.c0 = _ball(nb.lower)

    def _l(self, u: flint.arb) -> flint.arb:
        b = self.balls
        assert b.lo is not None and b.hi is not None
        dz = _base_density("gaussian", b.lo - u, b.scale) - _base_density(
            "gaussian", b.hi - u, b.scale
        )
        return dz / b._z(u)

    def value(self, a: flint.arb) -> flint.arb:
        sc2 = self.balls.scale * self.balls.scale
        b = a + self.d
        return self.d * (2 * (a - self.c0) + self.d) / (2 * sc2) + (
            self.balls._z(b) / self.balls._z(a)
        ).log()

    def box(self, u: Fraction, v: Fraction) -> flint.arb:
        """f over [u, v]: its value at the end it increases towards when the slope has one
        sign on the cell, else the mean-value form."""
        a0 = _ball((u + v) / 2)
        abox = flint.arb(a0.mid(), _ball((v - u) / 2).upper())
        slope = self.d / (self.balls.scale * self.balls.scale) + self._l(abox + self.d) - self._l(
            abox
        )
        if slope > 0:
            return self.value(_ball(v))
        if slope < 0:
            return self.value(_ball(u))
        return self.value(a0) + slope * (abox - a0)


@dataclass
class Point:
    """An attained value (exact mpf lower end) at input ``a``."""

    value: mpmath.mpf
    a: Fraction


def certified_pure(nb: Any, rtol: Fraction = Fraction(1, 10**14),
                   budget: int = CELL_BUDGET) -> tuple:
    """The pure ε of the truncated or clamped Gaussian, or of the truncated geometric, in
    ball arithmetic.

    Clamped Gaussian: log Φ is concave, so log Φ((c0 - a)/σ) / Φ((c0 - a - d)/σ) grows
    with a and the worst pair is (c1 - d, c1) at y = c0 (the mirror (c0 + d, c0) at y = c1
    is its reflection): one ball.  Truncated Gaussian: :func:`maximise` of
    :class:`_LogRatio`'s mean-value form over a in [c0, c1 - d] (the mirror direction is
    the reflection of a translate of the setting, so the same maximum).  Truncated
    geometric: :func:`maximise` over integer cells of log F_u(c0) - log F_{v+d}(c0) (a bound
    by stochastic order; both directions).

    Returns (upper: mpf, lower: mpf, attaining a, cells, closed)."""
    assert nb.lower is not None and nb.upper is not None
    assert nb.base == "gaussian" or (nb.base == "geometric" and nb.bounding == "truncated")
    if nb.bounding == "clamped":
        a = nb.upper - nb.step
        prec = PREC
        while True:
            balls = Balls("clamped", "gaussian", nb.scale, Fraction(0), nb.lower, nb.upper,
                          prec=prec)
            with _precision(prec):
                value = (balls.cdf(balls.lo, _ball(a)) / balls.cdf(balls.lo, _ball(nb.upper)))
                value = value.log()
            if precise(value) or prec >= PREC_MAX:
                return end(value, True), end(value, False), a, 1, True
            prec *= 4
    lo, hi = nb.lower, nb.upper - nb.step
    if nb.base == "geometric":
        st = Setting.of(nb)

        def bound(u: Fraction, v: Fraction, prec: int) -> mpmath.mpf:
            top = mpmath.ninf
            for mirrored in (False, True):
                balls = st.balls(Fraction(0), mirrored, prec)
                a, b = (-v - st.step, -u) if mirrored else (u, v + st.step)
                top = max(top, end(balls.log_ratio_at_lo(a, b), True))
            return top

        def attain(u: Fraction, v: Fraction, prec: int) -> Point:
            balls = st.balls(Fraction(0), False, prec)
            got = end(balls.log_ratio_at_lo(u, u + st.step), False)
            mirror = st.balls(Fraction(0), True, prec)
            other = end(mirror.log_ratio_at_lo(-u - st.step, -u), False)
            return Point(max(got, other), u)

        found = maximise(bound, attain, lo, hi, lattice=True, rtol=rtol, budget=budget)
    else:
        def bound(u: Fraction, v: Fraction, prec: int) -> mpmath.mpf:
            f = _LogRatio(nb, prec)
            with _precision(prec):
                return end(f.box(u, v), True)

        def attain(u: Fraction, v: Fraction, prec: int) -> Point:
            f = _LogRatio(nb, prec)
            m = (u + v) / 2
            with _precision(prec):
                return max(
                    Point(end(f.value(_ball(m)), False), m),
                    Point(end(f.value(_ball(u)), False), u),
                    Point(end(f.value(_ball(v)), False), v),
                    key=lambda p: p.value,
                )

        found = maximise(bound, attain, lo, hi, lattice=False, rtol=rtol, budget=budget)
    got = found.attained
    return max(found.upper, got.value), got.value, got.a, found.cells, found.closed


__all__ = [
    "Balls", "CELL_BUDGET", "PREC", "PREC_MAX", "Attained", "Found", "Setting", "cell_bound",
    "certified_delta", "certified_pure", "end", "exact", "maximise", "pair_delta", "rounded",
    "unbounded_delta",
]
