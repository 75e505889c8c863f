"""Certified upper bounds on δ(ε) in ball arithmetic (python-flint arb), issue 19.

:mod:`dpcheck.numeric.profile` finds the worst pair with a float64 search; this
module makes the printed ``delta`` a *certified* upper bound, every operation
in ball arithmetic from exact rational inputs.

* **One pair.**  For s < s' the supremum over half-line events (step 1 of
  profile.py) is sup_t φ(t), φ(t) = F_s(t) - e^ε F_s'(t).  φ increases while the
  likelihood ratio exceeds e^ε and decreases after, so its supremum is at the
  crossing t* (closed form: Gaussian (s + s')/2 - σ²k/(s' - s), Laplace
  (s + s')/2 - λk/2 clipped to [s, s'], k = ε - log(Z_s'/Z_s) for truncation,
  ε otherwise), or at an end of the support, c0 (the clamped atom) or c1⁻.
  :func:`pair_sup` encloses φ at each of these candidates; the largest upper
  end bounds the supremum.
* **A cell of pairs.**  Stochastic order (step 2): F_u(t) is non-increasing in u.
  For s in [u, v], pointwise in t,
  F_s(t) - e^ε F_{s+Δ}(t) <= F_u(t) - e^ε F_{v+Δ}(t),
  so H_ε(s, s + Δ) <= sup_t of the pair (u, v + Δ): one pair bounds the whole
  cell, with no Lipschitz constant (:func:`cell_bound`; the mirror direction
  s > s' likewise, in the reflected coordinates y -> -y).
* **Branch-and-bound** (:func:`certified_sup`): cells with the largest bound are
  halved until every bound is within ``rtol`` of the attained value or the
  budget is spent; the result, the largest bound over a partition of the edge,
  is an upper bound on δ(ε) whatever the budget.

The base CDFs here are written in arb (Laplace: e^{x/λ}/2 and 1 - e^{-x/λ}/2;
Gaussian: erfc(-x/(σ√2))/2) and the bounding's transformation as in
:func:`dpcheck.symbolic.mechanisms.cdf_branches`; tests/test_profile_routes.py
checks them against the derived CDF evaluated by :func:`profile.pair_ball`.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Iterator
from contextlib import contextmanager
from fractions import Fraction

import flint

#: working precision (bits) of every ball here
PREC = 128
#: cells evaluated by :func:`certified_sup` at most
CELL_BUDGET = 2000
#: binary exponents beyond which an end of a ball is unbounded (or tiny)
_EXP = 4000
#: stands for an unbounded end of a ball (larger than any finite bound here)
HUGE = Fraction(2) ** _EXP


def _priority(b: Fraction) -> float:
    """Heap key: the larger bound first (bounds beyond float range compared as ±2^1000)."""
    cap = Fraction(2) ** 1000
    return -math.inf if b >= HUGE else -float(max(min(b, cap), -cap))


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


def _base_cdf(base: str, x: flint.arb, scale: flint.arb) -> flint.arb:
    """P(X <= x) for the centred base law, x a ball (monotone: a ball straddling 0 is
    enclosed by the values at its two ends)."""
    if base == "gaussian":
        return _erfc(-x / (scale * flint.arb(2).sqrt())) / 2
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
    """The mechanism's CDF in ball arithmetic for one setting (bounds may be reflected)."""

    def __init__(
        self, bounding: str, base: str, scale: Fraction, eps: Fraction,
        lo: Fraction | None, hi: Fraction | None, step: Fraction = Fraction(0),
    ) -> None:
        self.bounding, self.base = bounding, base
        self.step = _ball(step)
        self.scale = _ball(scale)
        self.eps = _ball(eps)
        self.e = self.eps.exp()
        self.lo = None if lo is None else _ball(lo)
        self.hi = None if hi is None else _ball(hi)

    def _z(self, u: flint.arb) -> flint.arb:
        assert self.lo is not None and self.hi is not None
        return _base_cdf(self.base, self.hi - u, self.scale) - _base_cdf(
            self.base, self.lo - u, self.scale
        )

    def cdf(self, t: flint.arb, u: flint.arb) -> flint.arb:
        """F_u(t) on the support [c0, c1⁻] (the clamped atom at c0 included)."""
        f = _base_cdf(self.base, t - u, self.scale)
        if self.bounding != "truncated":
            return f
        assert self.lo is not None
        return (f - _base_cdf(self.base, self.lo - u, self.scale)) / self._z(u)

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
        """A ball whose upper end bounds sup_t Φ(s, t) for every s in [u, v] (a < b pairs):
        t ranges over the crossings of the cell (an interval enclosure) and the ends of
        the support; Φ is bounded by its mean-value form, so the bound tightens
        quadratically at a smooth maximum."""
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
        """t* with log p_a(t)/p_b(t) = ε (the base's closed form; Laplace clipped)."""
        k = self.eps
        if self.bounding == "truncated":
            k = k - (self._z(b) / self._z(a)).log()
        mid, d = (a + b) / 2, b - a
        if self.base == "gaussian":
            return mid - self.scale * self.scale * k / d
        return (mid - self.scale * k / 2).max(a).min(b)

    def pair_sup(self, a: flint.arb, b: flint.arb) -> flint.arb:
        """A ball containing max(0, sup_t F_a(t) - e^ε F_b(t)) for a < b."""
        best = flint.arb(0)
        candidates = []
        t = self.crossing(a, b)
        if self.lo is None or self.hi is None:
            candidates.append(t)
        else:
            candidates.append(self.lo)
            if not (t.upper() <= self.lo.lower() or t.lower() >= self.hi.upper()):
                candidates.append(t.max(self.lo).min(self.hi))
        for c in candidates:
            best = best.max(self.cdf(c, a) - self.e * self.cdf(c, b))
        if self.hi is not None:  # c1⁻: 1 - (the clamped atom at c1)
            best = best.max(self.cdf(self.hi, a) - self.e * self.cdf(self.hi, b))
        return best


def _settings(nb, eps: Fraction) -> tuple[Balls, Balls]:
    """The setting and its mirror image y -> -y (bounds [-c1, -c0])."""
    lo, hi = nb.lower, nb.upper
    up = Balls(nb.bounding, nb.base, nb.scale, eps, lo, hi, nb.step)
    down = Balls(
        nb.bounding, nb.base, nb.scale, eps,
        None if hi is None else -hi, None if lo is None else -lo, nb.step,
    )
    return up, down


def cell_bound(nb, eps: Fraction, u: Fraction, v: Fraction) -> flint.arb:
    """A ball whose upper end bounds H_ε over every pair (s, s + Δ) and (s + Δ, s),
    s in [u, v] (the module docstring: stochastic order)."""
    with _precision():
        up, down = _settings(nb, eps)
        step = nb.step
        second = up.box_sup(u, v).max(down.box_sup(-v - step, -u - step))
        if second.is_finite() and 16 * (v - u) < nb.scale:
            return second  # narrow: the mean-value form is the tighter one
        first = up.pair_sup(_ball(u), _ball(v + step)).max(
            down.pair_sup(_ball(-v - step), _ball(-u))
        )
        finite = [b for b in (first, second) if b.is_finite()]
        if not finite:  # a wide ball overflowed: only the trivial bound δ <= 1 is left
            return flint.arb(1)
        return min(finite, key=lambda b: b.upper())


def unbounded_sup(nb, eps: Fraction) -> flint.arb:
    """The unbounded mechanism's δ(ε) (the pair (0, Δ)) as a ball."""
    with _precision():
        up = Balls("none", nb.base, nb.scale, eps, None, None)
        return up.pair_sup(flint.arb(0), _ball(nb.step))


def _exact(ball: flint.arb, upper: bool = True) -> Fraction:
    """An end of a ball as an exact dyadic rational (outward, at :data:`PREC` bits); an
    unbounded end is ±:data:`HUGE`."""
    if not ball.is_finite():
        return HUGE if upper else -HUGE
    with _precision():
        man, exp = (ball.upper() if upper else ball.lower()).man_exp()
    man, exp = int(man), int(exp)
    if man == 0:
        return Fraction(0)
    if man.bit_length() + exp > _EXP:  # beyond ±HUGE: HUGE stands for unbounded
        return HUGE if man > 0 else -HUGE
    if exp < -_EXP:  # a tiny end, rounded outward to 0 or ±2^-_EXP
        tiny = Fraction(1, 2**_EXP)
        if upper:
            return tiny if man > 0 else Fraction(0)
        return Fraction(0) if man > 0 else -tiny
    return Fraction(man) * Fraction(2) ** exp


def maximise(
    bound, lo: Fraction, hi: Fraction, goal: Fraction | float, budget: int = CELL_BUDGET,
    pieces: int = 16,
) -> tuple[Fraction, int, bool, tuple[Fraction, Fraction]]:
    """Branch-and-bound in ball arithmetic: ``bound(u, v)`` is an exact upper bound over
    the cell [u, v].  The cells with the largest bound are halved until every bound is
    at most ``goal`` or ``budget`` cells are spent.  Returns (the largest bound over the
    final partition: an upper bound on the maximum whatever the budget, cells, whether
    it reached ``goal``, the cell holding it)."""
    if hi <= lo:
        return bound(lo, lo), 1, True, (lo, lo)
    width = (hi - lo) / pieces
    heap: list[tuple[float, int, Fraction, Fraction, Fraction]] = []
    for i in range(pieces):
        u, v = lo + i * width, (lo + (i + 1) * width if i < pieces - 1 else hi)
        b = bound(u, v)
        heapq.heappush(heap, (_priority(b), len(heap), u, v, b))
    cells = pieces
    while cells < budget and heap[0][4] > goal:
        _, _, u, v, _ = heapq.heappop(heap)
        m = (u + v) / 2
        for a, c in ((u, m), (m, v)):
            b = bound(a, c)
            heapq.heappush(heap, (_priority(b), cells, a, c, b))
            cells += 1
    top = max(heap, key=lambda entry: entry[4])
    return top[4], cells, top[4] <= goal, (top[2], top[3])


def certified_sup(
    nb, eps: Fraction, attained: float, rtol: float = 1e-10, budget: int = CELL_BUDGET
) -> tuple[Fraction, int, bool]:
    """An upper bound on δ(ε) over the edge s in [c0, c1 - Δ] (bounded, continuous base):
    :func:`maximise` of :func:`cell_bound`.  Returns (bound, cells, whether every cell
    came within ``rtol`` of ``attained``)."""
    assert nb.lower is not None and nb.upper is not None
    top, cells, closed, _ = maximise(
        lambda u, v: min(_exact(cell_bound(nb, eps, u, v)), Fraction(1)),
        nb.lower, nb.upper - nb.step, Fraction(attained) * (1 + Fraction(rtol)), budget,
    )
    return top, cells, closed


# ---------------------------------------------------------------- pure epsilon, Gaussian


class _LogRatio:
    """f(a) = log p_a(c0) / p_{a+d}(c0) for the truncated Gaussian: the pair (a, a + d)'s
    largest log ratio (at the lowest output, step 1 of profile.py):
    f(a) = d(2(a - c0) + d)/(2σ²) + log Z(a + d) - log Z(a),
    f'(a) = d/σ² + Z'(a + d)/Z(a + d) - Z'(a)/Z(a), Z'(u) = g(c0 - u) - g(c1 - u)."""

    def __init__(self, nb) -> None:
        self.balls = Balls("truncated", "gaussian", nb.scale, Fraction(0), nb.lower, nb.upper)
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


def certified_pure(nb, rtol: float = 1e-12, budget: int = CELL_BUDGET) -> tuple:
    """The pure ε of the truncated or clamped Gaussian in ball arithmetic.

    Clamped: log Φ is concave, so log Φ((c0 - a)/σ) / Φ((c0 - a - d)/σ) grows with a and
    the worst pair is (c1 - d, c1) at y = c0 (the mirror (c0 + d, c0) at y = c1 is its
    reflection): one ball.  Truncated: :func:`maximise` of :class:`_LogRatio`'s
    mean-value form over a in [c0, c1 - d] (the mirror direction is the reflection of a
    translate of the setting, so the same maximum).

    Returns (upper: Fraction, lower: Fraction, attaining a, cells, closed)."""
    assert nb.lower is not None and nb.upper is not None
    with _precision():
        if nb.bounding == "clamped":
            a = nb.upper - nb.step
            balls = Balls("clamped", "gaussian", nb.scale, Fraction(0), nb.lower, nb.upper)
            x = balls.lo
            value = (balls.cdf(x, _ball(a)) / balls.cdf(x, _ball(nb.upper))).log()
            return _exact(value), _exact(value, upper=False), a, 1, True
        f = _LogRatio(nb)
        lo, hi = nb.lower, nb.upper - nb.step
        best: list[tuple[Fraction, Fraction]] = []

        def bound(u: Fraction, v: Fraction) -> Fraction:
            with _precision():
                m = (u + v) / 2
                best.append((_exact(f.value(_ball(m)), upper=False), m))
                return _exact(f.box(u, v))

        # the end points are candidates too (a monotone f peaks there)
        for a in (lo, hi):
            with _precision():
                best.append((_exact(f.value(_ball(a)), upper=False), a))
        attained = max(best)[0]
        top, cells, _, _ = maximise(
            bound, lo, hi, attained + abs(attained) * Fraction(rtol), budget
        )
        low, at = max(best)
        closed = top <= low + abs(low) * Fraction(rtol) * 2
        return max(top, low), low, at, cells, closed


__all__ = [
    "Balls", "CELL_BUDGET", "PREC", "cell_bound", "certified_pure", "certified_sup", "maximise",
    "unbounded_sup",
]
