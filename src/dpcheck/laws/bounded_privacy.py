"""The privacy of a bounded mechanism for any log-concave noise law (issue 35).

The mechanism releases s + Z truncated or clamped into [c0, c1] (Liu 2019,
Definition 2; :mod:`dpcheck.laws.bounded`), for inputs s in [c0, c1];
neighbours are s, s' with |s - s'| <= Δ.  δ(ε) is the supremum over neighbours of
the hockey-stick divergence H_ε(s, s') = sup_E P_s(E) - e^ε P_s'(E).  This is the
generic route: it needs of the law only its kernel and a certified CDF
(:class:`dpcheck.laws.numeric.Evaluator`), and it certifies every printed number
in ball arithmetic (python-flint).  Each step is a property the tests check:

1. **Half-line events.**  The law is log-concave (:meth:`NoiseLaw.log_concave`),
   so for a < b the likelihood ratio p_a(y)/p_b(y) is non-increasing in y:
   truncation multiplies it by the constant Z_b/Z_a, and clamping is a
   non-decreasing map of the output, whose atoms at c0 and c1 are the ratio's
   extreme values.  The optimal event is {Y <= t}, and
   H = sup_t Ψ(t), Ψ(t) = F_a(t) - e^ε F_b(t).  Ψ rises while the density
   difference D(t) = p_a(t) - e^ε p_b(t) is positive and falls after, so the
   supremum is Ψ(t*) at t* = sup{D > 0}.  :meth:`_Family.pair` brackets t* by
   bisection on the sign of D, each sign decided in ball arithmetic, and bounds
   Ψ(t*) <= Ψ(lo) + P_a(lo < Y <= hi): the rise between the bracket's ends is at
   most a's mass there.  Ψ(lo) is attained by the event {Y <= lo}.
2. **The edge.**  Monotone likelihood ratio in the location gives stochastic
   order (F_u(t) is non-increasing in u), so H grows as the pair moves apart:
   the supremum lies on the edge s' = s + m, m = min(Δ, c1 - c0), s in
   [c0, c1 - m].  The direction s > s' is the same computation on the mirrored
   law (y -> -y, bounds -c1, -c0), skipped when the law is symmetric.
3. **Along the edge**, a branch-and-bound over cells [u, v] of s.  On the
   lattice a cell's bound is the pseudo-pair (u, v + m) (stochastic order:
   F_s(t) <= F_u(t) and F_{s+m}(t) >= F_{v+m}(t) for s in [u, v]), exact on a
   one-point cell.  On the line it is the mean-value form
   Φ(s0, t0) + ∂_sΦ(S, T)·(S - s0) + ∂_tΦ(S, T)·(T - t0) over the box of the
   cell S and an enclosure T of the crossings of its pairs (T from the sign of
   D over the whole cell), and at the fixed candidates t = c0 and t = c1⁻.  Both
   derivatives vanish at a smooth maximum, so the bound closes quadratically.

``delta`` is the largest cell bound left (rounded up), ``delta lower`` the best
attained pair and event (rounded down), and ``kind`` says whether they agree to
the printed digits (:func:`dpcheck.numeric.profile.bracket_kind`).
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property
from typing import TYPE_CHECKING

import flint
import mpmath
import sympy as sp
from scipy.optimize import brentq

from dpcheck.errors import InputError
from dpcheck.inputs.numbers import short
from dpcheck.laws.arb_eval import hull
from dpcheck.laws.noise import NoiseLaw, mirrored
from dpcheck.laws.noise import u as u_symbol
from dpcheck.laws.numeric import Evaluator, arb_of, precision, to_mpf
from dpcheck.laws.numpy_eval import compile_numpy
from dpcheck.numeric.profile import (
    DIGITS,
    Epsilon,
    Profile,
    Pure,
    _le,
    agreement,
    bracket_kind,
    rational,
)

if TYPE_CHECKING:
    from dpcheck.laws.additive import Additive

#: certification precision (decimal digits)
DPS = 40
#: cells examined along the edge before the bracket is reported as it stands
BUDGET = 1000
#: relative width at which a bracket counts as closed even where its two ends round
#: differently (a value on a rounding boundary, such as a pure epsilon of exactly 1)
CLOSE = flint.arb("1e-30")
#: bisection steps for a crossing (bits below the support's width)
STEPS = 120
BOUNDINGS = ("truncated", "clamped")

ARGUMENT = [
    "log-concave noise: the likelihood ratio of s < s' is monotone in y (truncation scales it,"
    " clamping keeps its order), so the optimal event is a half-line {Y <= t}",
    "stochastic order in the location: the supremum lies on the edge s' = s + min(sensitivity,"
    " c1 - c0); the direction s > s' is the mirrored law's",
    "branch-and-bound along the edge in ball arithmetic: pseudo-pair bounds on the lattice, the"
    " mean-value form on the line; the lower value is attained by the printed pair and event",
]


def _exact(x: flint.arb) -> Fraction:
    """The exact value of an exact arb (an end or a midpoint)."""
    man, exp = x.mid().man_exp()
    return Fraction(int(man)) * Fraction(2) ** int(exp)


def _simplest(lo: Fraction, hi: Fraction) -> Fraction:
    """The rational with the smallest denominator in [lo, hi] (continued fractions), for
    a readable event: any t gives an event, and this one lies in the crossing's bracket.

    At each level: lo itself if it is an integer or lo = hi, else floor(lo) + 1 if that
    is <= hi, else floor(lo) + 1/(the simplest in [1/(hi - w), 1/(lo - w)]), w =
    floor(lo); run as a loop over integer numerators and denominators, the terms w
    folded into the convergents (a recursion over Fractions cost 2.6 ms a pair)."""
    a, b, c, d = lo.numerator, lo.denominator, hi.numerator, hi.denominator  # a/b, c/d
    h0, h1, k0, k1 = 0, 1, 1, 0  # the convergents before the first term
    while True:
        if a % b == 0 or a * d == c * b:
            p, q = a, b
            break
        whole = a // b
        if (whole + 1) * d <= c:
            p, q = whole + 1, 1
            break
        h0, h1, k0, k1 = h1, whole * h1 + h0, k1, whole * k1 + k0
        a, b, c, d = d, c - whole * d, b, a - whole * b
    return Fraction(p * h1 + q * h0, p * k1 + q * k0)


def _arb_of_mpf(x: mpmath.mpf) -> flint.arb:
    """An mpf as an exact arb (inf stays inf)."""
    if not mpmath.isfinite(x):
        return flint.arb("inf")
    sign, man, exp, _ = x._mpf_  # (mpf.man_exp drops the sign)
    old = flint.ctx.prec
    flint.ctx.prec = max(old, int(man).bit_length() + 16)  # the tuple is rounded to prec
    try:
        return flint.arb((-int(man) if sign else int(man), int(exp)))
    finally:
        flint.ctx.prec = old


def _key(x: flint.arb) -> mpmath.mpf:
    """A heap key: the ball's upper end, exactly (a float would tie ends closer than its
    resolution, and the loop's stopping test reads the heap's top as the largest)."""
    return to_mpf(x.upper()) if x.upper().is_finite() else mpmath.inf


def _box(lo: Fraction, hi: Fraction) -> flint.arb:
    """A ball containing [lo, hi]."""
    return hull(arb_of(lo), arb_of(hi))


class _Family:
    """The outputs u + Z bounded into [c0, c1], u ranging over [c0, c1], in balls.

    F(t, u) is P(Y_u <= t) for t in [c0, c1) (the clamped atom at c0 included; on
    the lattice t is an integer); arguments may be balls on the line."""

    def __init__(self, law: NoiseLaw, values: dict[str, Fraction], bounding: str,
                 c0: Fraction, c1: Fraction, e: flint.arb) -> None:
        self.law, self.bounding, self.c0, self.c1, self.e = law, bounding, c0, c1, e
        self.ev = Evaluator(law, values)
        self.lattice = law.is_lattice
        self.norm = self.ev.normaliser.ball
        self.kernel = self.ev.kernel
        self.top = c1 - 1 if self.lattice else c1  # the last t of a half-line event
        self._g: dict[Fraction, flint.arb] = {}
        self._pairs: dict[tuple[Fraction, Fraction], tuple] = {}
        self._by_location: dict[tuple, flint.arb] = {}  # below(u) and Z(u), by u's ball

    # -- log-derivatives, compiled once from the law's SymPy forms (None: not compiled) --
    @cached_property
    def _log_kernel_slope(self) -> Callable[[flint.arb], flint.arb] | None:
        """(log k)'(z), k the law's density kernel (truncation's density at c0)."""
        z = self.law.variable
        return self._compiled(sp.diff(sp.log(self.law.kernel), z), z)

    @cached_property
    def _left_tail_log_slope(self) -> tuple[sp.Expr, sp.Symbol] | None:
        """(T'/T)(w) in SymPy, T(w) = G(-w) the law's closed-form left tail (w >= 0), and
        the symbol w; None without a closed-form tail."""
        tail = self.law.tail(-1) if self.law.normaliser is not None else None
        if tail is None:
            return None
        w = sp.Symbol("w", nonnegative=True)
        tail = tail.subs(u_symbol, w)
        return sp.diff(tail, w) / tail, w

    @cached_property
    def _log_left_tail_slope(self) -> Callable[[flint.arb], flint.arb] | None:
        """(log G)'(x) for x <= 0 from the closed-form left tail: -(T'/T)(-x).
        SymPy cancels the exponentials here (Laplace: exactly 1/λ), which arb cannot do
        over a ball: this is what lets a flat log likelihood ratio close."""
        if self._left_tail_log_slope is None:
            return None
        ratio, w = self._left_tail_log_slope
        slope = self._compiled(-ratio, w)
        return None if slope is None else (lambda x: slope(-x))

    @cached_property
    def flat_log_ratio(self) -> bool:
        """True when h(s) = log p_s(c0)/p_{s+m}(c0) is constant along the edge, proved in
        SymPy: clamped on the line, where p_u(c0) = G(c0 - u) with c0 - u <= 0, and the
        left tail's log-derivative (T'/T)(w) does not depend on w (Laplace: 1/λ), so
        h' = (log G)'(c0 - s - m) - (log G)'(c0 - s) = 0 on the whole edge."""
        if self.bounding != "clamped" or self.lattice or self._left_tail_log_slope is None:
            return False
        ratio, w = self._left_tail_log_slope
        try:
            return bool(sp.simplify(sp.diff(ratio.subs(self.law.symbols(self.ev.values)), w))
                        == 0)
        except (TypeError, ValueError, NotImplementedError):  # pragma: no cover - SymPy gave up
            return False

    def _compiled(self, expr: sp.Expr, var: sp.Symbol) -> Callable[[flint.arb], flint.arb] | None:
        try:
            return self.ev._compile(expr, var)
        except (InputError, TypeError, ValueError, NotImplementedError):
            return None

    # -- the law's CDF, at exact points and over balls (monotone: the ends' hull) ---
    def _cdf(self, x: Fraction) -> flint.arb:
        if x not in self._g:
            ball = self.ev.cdf(x)
            if not ball.certified:
                raise InputError(
                    f"{self.law.name} has no certified CDF ({ball.how}): the privacy of its"
                    " bounded versions needs one"
                )
            self._g[x] = ball.ball
        return self._g[x]

    def G(self, x: flint.arb) -> flint.arb:
        """P(Z <= x) for every point of the ball x."""
        closed = self.ev.cdf_ball(x)
        if closed is not None:
            return closed
        if x.rad() == 0:
            return self._cdf(_exact(x))
        return hull(self._cdf(_exact(x.lower())), self._cdf(_exact(x.upper())))

    def g(self, x: flint.arb) -> flint.arb:
        """The law's density (pmf) at x."""
        return self.kernel(x) / self.norm

    def _kept(self, what: str, u: flint.arb, compute: Callable[[], flint.arb]) -> flint.arb:
        """``compute()`` once per quantity and ball u (the same pairs' u recur in every
        step of the search)."""
        key = (what, u.mid().man_exp(), u.rad().man_exp())
        if key not in self._by_location:
            self._by_location[key] = compute()
        return self._by_location[key]

    def below(self, u: flint.arb) -> flint.arb:
        """P(u + Z < c0)."""
        edge = self.c0 - 1 if self.lattice else self.c0
        return self._kept("below", u, lambda: self.G(arb_of(edge) - u))

    def Z(self, u: flint.arb) -> flint.arb:
        """P(c0 <= u + Z <= c1), the truncation's normaliser."""
        return self._kept("Z", u, lambda: self.G(arb_of(self.c1) - u) - self.below(u))

    def F(self, t: flint.arb, u: flint.arb) -> flint.arb:
        f = self.G(t - u)
        return f if self.bounding == "clamped" else (f - self.below(u)) / self.Z(u)

    def density(self, t: flint.arb, u: flint.arb) -> flint.arb:
        """∂F/∂t inside (c0, c1) (the pmf on the lattice)."""
        f = self.g(t - u)
        return f if self.bounding == "clamped" else f / self.Z(u)

    def dF_du(self, t: flint.arb, u: flint.arb) -> flint.arb:
        """∂F/∂u on the line (the quotient rule for truncation)."""
        g = self.g(t - u)
        if self.bounding == "clamped":
            return -g
        g0, g1 = self.g(arb_of(self.c0) - u), self.g(arb_of(self.c1) - u)
        z = self.Z(u)
        n = self.G(t - u) - self.below(u)
        return ((g0 - g) * z - n * (g0 - g1)) / (z * z)

    def D(self, t: flint.arb, a: flint.arb, b: flint.arb) -> flint.arb:
        """p_a(t) - e^ε p_b(t) inside (c0, c1)."""
        return self.density(t, a) - self.e * self.density(t, b)

    def psi(self, t: Fraction, a: Fraction, b: Fraction) -> flint.arb:
        return self.F(arb_of(t), arb_of(a)) - self.e * self.F(arb_of(t), arb_of(b))

    # -- step 1: one pair -------------------------------------------------------
    def sign_of_D(self, a: flint.arb, b: flint.arb,
                  ratio: flint.arb) -> Callable[[Fraction], flint.arb]:
        """t -> a positive multiple of D(t), for every pair in the balls (a, b):
        k(t - a) - ratio k(t - b), ratio = e^ε Z(a)/Z(b), the normaliser and Z(a) > 0
        divided out (clamped: Z = 1).  Its sign is D's; it costs two kernel calls, not
        six CDFs."""
        k = self.kernel
        return lambda t: k(arb_of(t) - a) - ratio * k(arb_of(t) - b)

    @cached_property
    def _float_log_kernel(self) -> Callable[[float], float] | None:
        """log k(z) in float64, compiled once (None where it does not compile): only
        :meth:`_float_crossing`'s guess reads it, never a certified value."""
        z = self.law.variable
        try:
            log_k = sp.expand_log(sp.log(self.law.kernel), force=True)
            fn = compile_numpy(log_k, [z, *(p.symbol for p in self.law.params)])
        except (InputError, TypeError, ValueError, NotImplementedError):
            return None
        args = [float(self.ev.values[p.name]) for p in self.law.params]
        return lambda x: float(fn(x, *args))

    def _float_crossing(self, a: flint.arb, b: flint.arb, ratio: flint.arb, lo: Fraction,
                        hi: Fraction) -> list[Fraction]:
        """Two points around the float64 root of log k(t - a) - log k(t - b) - log ratio
        (the sign of D for the pair a < b), or none: the first points the crossing search
        tests, so that it starts from a bracket about 2^-40 of the support wide instead of
        the whole support.  The certified signs still decide every step.  (For the balls
        of a cell the search keeps bisecting from the whole support: a bracket seeded
        here ends elsewhere, and the cell bounds came out looser.)"""
        log_k = self._float_log_kernel
        if log_k is None or not ratio.is_finite() or not ratio > 0:
            return []
        am, bm, lr = float(a.mid()), float(b.mid()), float(ratio.log().mid())

        def phi(t: float) -> float:
            return log_k(t - am) - log_k(t - bm) - lr

        x0, x1 = float(lo), float(hi)
        try:
            f0, f1 = phi(x0), phi(x1)
            if not (math.isfinite(f0) and math.isfinite(f1) and f0 > 0 > f1):
                return []
            # to a quarter of the bracket's half-width below (2^-40 of the support)
            xtol = max(abs(x0), abs(x1), x1 - x0) / 2**42
            root = brentq(phi, x0, x1, xtol=xtol)
        except (ValueError, RuntimeError, OverflowError, ZeroDivisionError):
            return []
        if self.lattice:
            k = math.floor(root)
            return [Fraction(k), Fraction(k + 1)]
        t = Fraction(root)
        w = max(abs(t), hi - lo) / 2**40
        return [t - w, t + w]

    def crossing(self, a: flint.arb, b: flint.arb, lo: Fraction, hi: Fraction,
                 width: Fraction = Fraction(0)) -> tuple[Fraction, Fraction, Fraction | None]:
        """[lo, hi] containing t* = sup{t in (c0, top]: D(t) > 0} (c0 if none) for every
        pair in the balls (a, b), narrowed on the sign of D, each sign decided in arb.
        Asked for the finest bracket (width 0: one pair), the first two points tested
        come from a float64 guess of t* (:meth:`_float_crossing`).  Then the next point
        is the Illinois (modified regula falsi) guess from the balls' midpoints, a
        bisection where that guess is unusable or has not halved the bracket in two
        steps: only the certified signs decide, the guesses only save steps.  Where the
        sign is undecided (a tie, or balls too wide), the two ends are narrowed
        separately towards the undecided zone [p, q] (for one pair, first tried right
        beside it); the first undecided point p is returned too."""
        floor = max(width, Fraction(1) if self.lattice else Fraction(0))
        finest = (hi - lo) / 2**STEPS
        ratio = self.e if self.bounding == "clamped" else self.e * self.Z(a) / self.Z(b)
        sign = self.sign_of_D(a, b, ratio)
        guesses = self._float_crossing(a, b, ratio, lo, hi) if width == 0 else []
        p = q = None
        f_lo = f_hi = None  # the midpoints of sign() at lo and hi, once evaluated
        kept, stale, last_width = 0, 0, hi - lo
        for _ in range(STEPS):
            if hi - lo <= floor or hi - lo <= finest:
                break
            if p is None:
                left, right = lo, hi
            elif p - lo >= hi - q:
                left, right = lo, p
            else:
                left, right = q, hi
            if right - left <= floor:
                break
            mid = None
            while guesses and mid is None:
                guess = guesses.pop(0)
                mid = guess if lo < guess < hi else None
            if mid is None and p is None and f_lo is not None and f_hi is not None \
                    and stale < 2:
                mid = self._illinois(lo, hi, f_lo, f_hi)
            if mid is None:
                mid = Fraction((left + right) // 2) if self.lattice else (left + right) / 2
            if not lo < mid < hi:
                break
            d = sign(mid)
            value = to_mpf(d.mid()) if d.is_finite() else None
            if d > 0:
                lo, f_lo = mid, value
                kept = kept + 1 if kept > 0 else 1
                if kept >= 2 and f_hi is not None and f_lo is not None:
                    f_hi /= 2  # Illinois: the same end kept twice
            elif d < 0:
                hi, f_hi = mid, value
                kept = kept - 1 if kept < 0 else -1
                if kept <= -2 and f_lo is not None and f_hi is not None:
                    f_lo /= 2
            else:
                if p is None and width == 0:
                    # undecided at the finest pair: most often t* itself to within the
                    # balls' precision, so the bracket's ends are tried right beside it
                    # before the two sides are bisected towards it (about 90 steps)
                    near = Fraction(1) if self.lattice else finest / 2
                    guesses = [mid - near, mid + near]
                p, q = (mid, mid) if p is None else (min(p, mid), max(q, mid))
            stale = 0 if hi - lo <= last_width / 2 else stale + 1
            if stale == 0:
                last_width = hi - lo
        return lo, hi, p

    def _illinois(self, lo: Fraction, hi: Fraction, f_lo: mpmath.mpf,
                  f_hi: mpmath.mpf) -> Fraction | None:
        """The regula falsi point between (lo, f_lo > 0) and (hi, f_hi < 0), or None."""
        if f_lo is None or f_hi is None or not (f_lo > 0 > f_hi):
            return None
        w = float(f_lo / (f_lo - f_hi))
        if not 0 < w < 1:
            return None
        # dyadic with 32 significant bits of the distance to the nearer end: the bracket's
        # denominators stay small, and a root next to one end is still reached (a fixed
        # 2^-32 grid rounded such a w to 0, and the search fell back to bisection)
        bits = 32 - math.frexp(min(w, 1 - w))[1]
        w_ = Fraction(round(Fraction(w) * 2**bits), 2**bits)  # exact: w may be subnormal
        if not 0 < w_ < 1:
            return None
        if self.lattice:
            mid = lo + int((hi - lo) * w_)
            return min(max(mid, lo + 1), hi - 1)
        return lo + (hi - lo) * w_

    def pair(self, a: Fraction, b: Fraction) -> tuple[flint.arb, flint.arb, Fraction | None]:
        """(U, L, t): U's upper end bounds max(0, sup_t Ψ(t)); L's lower end is attained by
        {Y <= t} (t None: the empty event).

        Two bounds of Ψ(t*) for t* in [lo, hi], the smaller kept: Ψ(lo) plus a's mass in
        (lo, hi] (on the lattice with hi = lo + 1, max(Ψ(lo), Ψ(hi))); and, at a point p
        where the sign of D is undecided (a tie), Ψ(p) + 2|r(p)| with r = p_a/p_b - e^ε:
        r does not increase, so beyond p the rise is at most r(p)·P_b and before p the
        fall at least that."""
        A, B = arb_of(a), arb_of(b)
        lo, hi, tie = self.crossing(A, B, self.c0, self.top)
        points = {lo: self.psi(lo, a, b)}
        if lo == self.c0 and self.D(_box(lo, hi), A, B) < 0:
            upper = points[lo].upper()  # D < 0 right of c0 throughout: t* = c0 exactly
        elif self.lattice and hi - lo <= 1:
            points[hi] = self.psi(hi, a, b)
            upper = max(points.values(), key=lambda v: v.upper()).upper()
        else:
            upper = (points[lo] + self.F(arb_of(hi), A) - self.F(arb_of(lo), A)).upper()
        simple = _simplest(lo, hi) if not self.lattice else None
        if simple is not None and simple not in points:
            points[simple] = self.psi(simple, a, b)
        if tie is not None and lo <= tie <= hi:
            dens_b = self.density(arb_of(tie), B)
            if dens_b > 0:
                r = self.D(arb_of(tie), A, B) / dens_b
                at_tie = points.setdefault(tie, self.psi(tie, a, b))
                upper = upper.min((at_tie + 2 * abs(r)).upper())
        lower, where = flint.arb(0), None
        for t, v in sorted(points.items(), key=lambda kv: kv[0] != simple):
            if v.lower() > lower.lower():
                lower, where = v, t
        return flint.arb(0).max(upper), lower, where

    def log_ratio_at_c0(self, a: Fraction, b: Fraction) -> flint.arb:
        """log p_a(c0)/p_b(c0), a < b: the pair's largest log likelihood ratio (the ratio
        does not increase in y; clamped: the atoms at c0).  For a pseudo-pair (u, v + m)
        an upper bound over the cell: LR_{u,v+m} = LR_{u,s} LR_{s,s+m} LR_{s+m,v+m} at the
        lowest output, and each factor there is >= 1."""
        A, B, c = arb_of(a), arb_of(b), arb_of(self.c0)
        if self.bounding == "clamped":
            num, den = self.G(c - A), self.G(c - B)
        else:
            num, den = self.density(c, A), self.density(c, B)
        if not den > 0:
            return flint.arb("inf")  # the shifted law puts no mass at c0: unbounded ratio
        return (num / den).log()

    def location_slope(self, U: flint.arb) -> flint.arb | None:
        """d/du log p_u(c0) for every u in the ball U, which lies right of c0 (a cell of the
        edge or its shift by m; clamped: the atom P(u + Z <= c0));
        None where the law's forms do not compile."""
        c = arb_of(self.c0)
        if self.bounding == "clamped":
            psi = self._log_left_tail_slope
            X = c - U
            if psi is None or not X.lower() <= 0:
                return -self.g(X) / self.G(X)
            if not X <= 0:  # U lies right of c0 (a cell of the edge): clip the rounding
                X = flint.arb(X.lower()).union(flint.arb(0))
            return -psi(X)
        ell = self._log_kernel_slope
        if ell is None:
            return None
        z = self.Z(U)
        return -ell(c - U) - (self.g(c - U) - self.g(arb_of(self.c1) - U)) / z

    def log_ratio_cell(self, u: Fraction, v: Fraction, m: Fraction) -> flint.arb:
        """An upper bound of h(s) = log p_s(c0)/p_{s+m}(c0) for every s in [u, v]: the
        pseudo-pair (u, v + m); on the line also, where h' has one sign over the cell, h at
        the cell's upper end (exact: this closes a flat or monotone h), else the mean-value
        form h(s0) + h'(S)(S - s0)."""
        pseudo = self.log_ratio_at_c0(u, v + m)
        if self.lattice or u == v:
            return pseudo
        S, M = _box(u, v), arb_of(m)
        top, low = self.location_slope(S), self.location_slope(S + M)
        if top is None or low is None or not pseudo.is_finite():
            return pseudo
        slope = top - low
        if slope >= 0:
            return self.log_ratio_at_c0(v, v + m)
        if slope <= 0:
            return self.log_ratio_at_c0(u, u + m)
        s0 = (u + v) / 2
        mean_value = self.log_ratio_at_c0(s0, s0 + m) + slope * (S - arb_of(s0))
        return mean_value if mean_value.upper() < pseudo.upper() else pseudo

    def cached_pair(self, a: Fraction, b: Fraction) -> tuple:
        if (a, b) not in self._pairs:
            self._pairs[(a, b)] = self.pair(a, b)
        return self._pairs[(a, b)]

    def exact_log_ratio_at_c0(self, a: Fraction, b: Fraction) -> sp.Expr | None:
        """log p_a(c0)/p_b(c0) in SymPy from the law's closed-form tails (None without
        them): an exact number where SymPy simplifies it (Laplace: a rational)."""
        law, env = self.law, self.law.symbols(self.ev.values)
        left, right = law.tail(-1), law.tail(1)
        if left is None or right is None:
            return None

        def G(x: sp.Expr) -> sp.Expr:  # P(Z <= x), x a rational
            if x <= 0:
                return left.subs(u_symbol, -x)
            return 1 - right.subs(u_symbol, x + 1 if self.lattice else x)

        c0, c1 = sp.Rational(self.c0), sp.Rational(self.c1)
        A, B = sp.Rational(a), sp.Rational(b)
        if self.bounding == "clamped":
            ratio = G(c0 - A) / G(c0 - B)
        else:
            below = (lambda w: G(c0 - 1 - w)) if self.lattice else (lambda w: G(c0 - w))
            z = law.variable
            ratio = (law.kernel.subs(z, c0 - A) * (G(c1 - B) - below(B))
                     / (law.kernel.subs(z, c0 - B) * (G(c1 - A) - below(A))))
        value = sp.simplify(sp.expand_log(sp.log(sp.simplify(ratio.subs(env))), force=True))
        return value if value.is_number and value.is_finite else None

    def exact_log_normaliser_slope_at_c0(self) -> sp.Expr | None:
        """(log Z)'(c0) in SymPy, Z(σ) = P(c0 <= σ + Z <= c1) the truncation's normaliser on
        the line: (g(0) - g(c1 - c0))/Z(c0), from the law's closed-form tails and
        normaliser; an exact number where SymPy simplifies it (Laplace: 1/λ), else None."""
        law, env = self.law, self.law.symbols(self.ev.values)
        left, right, norm = law.tail(-1), law.tail(1), law.normaliser
        if self.lattice or self.bounding != "truncated" or None in (left, right, norm):
            return None
        width = sp.Rational(self.c1 - self.c0)
        z = law.variable
        mass = 1 - left.subs(u_symbol, 0) - right.subs(u_symbol, width)  # P(0 <= Z <= width)
        slope = (law.kernel.subs(z, 0) - law.kernel.subs(z, width)) / (norm * mass)
        value = sp.simplify(slope.subs(env))
        return value if value.is_number and value.is_finite else None

    # -- step 3: one cell of the edge -------------------------------------------
    def cell_upper(self, u: Fraction, v: Fraction, m: Fraction) -> flint.arb:
        """An upper bound of H(s, s + m) for every s in [u, v].

        On the line, where ∂_sΦ has one sign over the cell box S x T (T holding every
        pair's crossing), H is monotone on the cell: for s1 < s2, H(s2) - H(s1) >=
        Φ(s2, t1*) - Φ(s1, t1*) = ∫ ∂_sΦ(σ, t1*) dσ, and likewise the other way; the
        bound is then the end pair's own (this closes a maximum at a kink of H)."""
        if self.lattice or u == v:
            return self.cached_pair(u, v + m)[0]
        S, M = _box(u, v), arb_of(m)
        near = (v - u) / 4
        if self.D(_box(self.c0, self.c0 + near), S, S + M) < 0:
            lo = hi = self.c0  # D < 0 right of c0 for every pair: t* = c0
        elif self.D(_box(self.top - near, self.top), S, S + M) > 0:
            lo = hi = self.top  # D > 0 up to c1 for every pair: t* = c1⁻
        else:
            lo, hi, _ = self.crossing(S, S + M, self.c0, self.top, near)
        s0, t0, T = (u + v) / 2, (lo + hi) / 2, _box(lo, hi)
        ds = self.dF_du(T, S) - self.e * self.dF_du(T, S + M)
        if ds >= 0:
            return self.cached_pair(v, v + m)[0]
        if ds <= 0:
            return self.cached_pair(u, u + m)[0]
        value = self.psi(t0, s0, s0 + m) + ds * (S - arb_of(s0))
        if hi > lo:
            value += self.D(T, S, S + M) * (T - arb_of(t0))
        # the pseudo-pair bound is first-order only, but it does not suffer from the
        # width of D over a whole cell where the crossing is far from the cell
        top = self.cached_pair(u, v + m)[0].upper()
        if value.is_finite():  # the smaller upper end (the min of two balls is their hull)
            top = top.min(value.upper())
        return top.max(flint.arb(0))


@dataclass(order=True)
class _Cell:
    key: mpmath.mpf
    u: Fraction = field(compare=False)
    v: Fraction = field(compare=False)
    side: int = field(compare=False)
    upper: flint.arb = field(compare=False)


def _digits_of_exp(eps: Fraction) -> int:
    """Digits that e^ε takes from a difference P_s(E) - e^ε P_s'(E): P_s'(E) must be
    known to e^-ε of its size, or the product's radius swamps the difference."""
    return math.ceil(float(eps) / math.log(10)) if eps < 10**6 else 10**6


def _least_upper(a: flint.arb, b: flint.arb) -> flint.arb:
    """The smaller of two upper bounds, as an exact ball: the min of the balls themselves
    would widen to cover both, and a bound of 2e-1000 beside one of ±1e-12 would be lost
    in the radius of their hull."""
    return a.upper().min(b.upper())


def _point(t: Fraction) -> str:
    """An event's end: exact when short, else to 12 significant digits (as printed before
    issue 35; the attained value is the one at the exact end)."""
    text = short(t)
    return f"{float(t):.12g}" if text.startswith("about") else text


@dataclass
class BoundedMechanism:
    """s + Z truncated or clamped into [c0, c1], s in [c0, c1], neighbours |s - s'| <= Δ."""

    law: NoiseLaw
    values: dict[str, Fraction]
    bounding: str
    c0: Fraction
    c1: Fraction
    sensitivity: Fraction
    budget: int = BUDGET

    def __post_init__(self) -> None:
        self._conditioned: dict[Fraction, flint.arb] = {}
        if self.bounding not in BOUNDINGS:
            raise InputError(
                f"bounding {self.bounding!r}: the privacy of a bounded law is derived for"
                f" {', '.join(BOUNDINGS)}"
            )
        if not self.c0 < self.c1:
            raise InputError(f"c0 = {short(self.c0)}, c1 = {short(self.c1)}: expected c0 < c1")
        if self.sensitivity <= 0:
            raise InputError(f"sensitivity {short(self.sensitivity)}: expected > 0")
        if self.law.is_lattice and any(
            x.denominator != 1 for x in (self.c0, self.c1, self.sensitivity)
        ):
            raise InputError(
                f"{self.law.name} lives on the integers: expected integer c0, c1 and sensitivity"
            )
        ok, why = self.law.log_concave()
        if not ok:
            raise InputError(
                f"{self.law.name} is not proved log-concave ({why}): the privacy of its bounded"
                " versions rests on a monotone likelihood ratio"
            )

    @property
    def step(self) -> Fraction:
        return min(self.sensitivity, self.c1 - self.c0)

    @property
    def digits(self) -> int:
        """Working digits: :data:`DPS`, plus as many as the shift is below the width (a
        pair at distance 1e-1000 differs in its thousandth digit)."""
        ratio = self.step / (self.c1 - self.c0)
        below = ratio.denominator.bit_length() - ratio.numerator.bit_length()
        return DPS + max(0, math.ceil(below * math.log10(2)))

    def _families(self, e: flint.arb) -> list[_Family]:
        out = [_Family(self.law, self.values, self.bounding, self.c0, self.c1, e)]
        if not self.law.symmetric:
            out.append(_Family(mirrored(self.law), self.values, self.bounding, -self.c1,
                               -self.c0, e))
        return out

    def _edge_search(
        self,
        fams: list[_Family],
        pair: Callable[[_Family, Fraction], tuple[flint.arb, flint.arb, Fraction | None]],
        bound: Callable[[_Family, Fraction, Fraction], flint.arb],
        cap: flint.arb | None = None,
        infinite_stops: bool = False,
        target: flint.arb | None = None,
    ) -> tuple[tuple[flint.arb, Fraction, int, Fraction | None], flint.arb, int]:
        """The branch-and-bound of step 3 over the edge s in [c0, c1 - m] of each family:
        ``pair(fam, s)`` gives (upper, attained, event) of the pair (s, s + m), ``bound(fam,
        u, v)`` an upper bound over the cell [u, v]; ``cap`` a bound of the whole supremum.
        Returns the best attained (ball, s, side, event), the certified upper end and the
        number of cells split.  Call inside ``precision(DPS)``."""
        best: tuple[flint.arb, Fraction, int, Fraction | None] | None = None
        heap: list[_Cell] = []

        def attain(side: int, s: Fraction, lower: flint.arb, t: Fraction | None) -> None:
            nonlocal best
            if best is None or lower.lower() > best[0].lower():
                best = (lower, s, side, t)

        def push(side: int, u: Fraction, v: Fraction) -> None:
            if u == v:  # one pair: its bound and its attained value at once
                upper, lower, t = pair(fams[side], u)
                attain(side, u, lower, t)
            else:
                upper = bound(fams[side], u, v)
            if best is not None and upper.upper() <= best[0].lower():
                return  # below a value attained: the cell cannot hold the supremum
            heapq.heappush(heap, _Cell(-_key(upper), u, v, side, upper))

        for side, fam in enumerate(fams):
            first, last = fam.c0, fam.c1 - self.step
            for s in {first, last, self._middle(first, last)}:
                attain(side, s, *pair(fam, s)[1:])
            push(side, first, last)
        cells = 0
        while heap and cells < self.budget:
            assert best is not None
            top = heap[0].upper.upper()
            if cap is not None:
                top = top.min(cap.upper())  # the data-processing bound, when it is the better one
            if target is not None and (top <= target or best[0].lower() > target):
                break  # a decision "delta(eps) <= target?" needs no closed bracket
            if not top.is_finite():
                if infinite_stops:
                    break
            elif agreement(to_mpf(best[0].lower()), to_mpf(top)) >= DIGITS:
                break
            elif top - best[0].lower() <= top * CLOSE:
                break  # a value at a rounding boundary: closed far below the digits shown
            cell = heapq.heappop(heap)
            if cell.u == cell.v:
                heapq.heappush(heap, cell)  # exact already: nothing left to split
                break
            mid = self._middle(cell.u, cell.v)
            attain(cell.side, mid, *pair(fams[cell.side], mid)[1:])
            cells += 1
            push(cell.side, cell.u, mid)
            push(cell.side, mid + 1 if self.law.is_lattice else mid, cell.v)
        assert best is not None
        upper = best[0].upper()
        for cell in heap:
            upper = upper.max(cell.upper.upper())
        if cap is not None:
            upper = upper.min(cap.upper())
        return best, upper, cells

    def delta(self, eps: Fraction) -> Profile:
        """δ(ε), certified: an upper bound, an attained lower bound and the worst pair."""
        m = self.step
        pure = self.pure_epsilon()
        if _le(pure.upper_value, eps):
            return Profile(
                eps, mpmath.mpf(0), mpmath.mpf(0), self.c0, self.c0 + m,
                "none (epsilon >= the pure epsilon)", "exact (epsilon >= the pure epsilon)",
                f"{self.bounding} {self.law.name}: pure epsilon", list(ARGUMENT),
            )
        with precision(self.digits + _digits_of_exp(eps)):
            best, upper, cells = self._delta_search(eps)
            lower_ball, s, side, t = best
            low_end = lower_ball.lower()
            lower = to_mpf(low_end.max(flint.arb(0))) if low_end.is_finite() else mpmath.mpf(0)
            # a divergence is at most 1: a ball that lost every digit says no more than that
            up = to_mpf(upper) if upper.is_finite() and upper < 1 else mpmath.mpf(1)
        return self._profile(eps, lower, up, s, side, t, cells)

    def _delta_search(self, eps: Fraction, target: flint.arb | None = None) -> tuple:
        """The edge search of δ(ε) (:meth:`_edge_search`; call inside ``precision``): pairs
        at their crossings, cells bounded by the pseudo-pair / mean-value bound and, for
        truncation, by conditioning; capped by 1 (a hockey-stick divergence is at most 1, so
        nearly disjoint laws stop at once) and, for clamping, by the additive δ."""
        m = self.step
        cap = self._post_processing_cap(eps)
        cap = flint.arb(1) if cap is None else cap.upper().min(flint.arb(1))
        return self._edge_search(
            self._families(arb_of(eps).exp()),
            lambda fam, s: fam.cached_pair(s, s + m),
            lambda fam, u, v: _least_upper(fam.cell_upper(u, v, m),
                                           self._conditioning_delta(fam, eps, u, v)),
            cap, target=target,
        )

    def decide(self, eps: Fraction, delta: Fraction) -> bool | None:
        """Whether δ(ε) <= δ: True when the certified upper bound is, False when an attained
        pair exceeds it, None when the search's budget ends between them.  The edge search
        of :meth:`delta`, stopped as soon as it decides (no bracket to close)."""
        return self.judge(eps, delta)[0]

    def judge(self, eps: Fraction, delta: Fraction) -> tuple[bool | None, float]:
        """:meth:`decide`, and an estimate of log(δ(ε)/δ) from the best attained pair (a
        guide for the searches of :mod:`dpcheck.laws.narrowing`; NaN without one).  Its
        sign is the decision's: a "no" has attained more than δ, a "yes" has bounded
        everything by δ."""
        if _le(self.pure_epsilon().upper_value, eps):
            return True, math.nan
        with precision(self.digits + _digits_of_exp(eps)):
            target = flint.arb(delta.numerator) / delta.denominator
            best, upper, _ = self._delta_search(eps, target)
            attained = best[0].mid()
            gap = float(to_mpf((attained / target).log())) if attained > 0 else math.nan
            if upper <= target:
                return True, min(gap, 0.0) if math.isfinite(gap) else gap
            if best[0].lower() > target:
                return False, gap
        return None, gap

    def pure_epsilon(self) -> Pure:
        """sup over the edge of log p_s(c0)/p_{s+m}(c0) (and the mirrored direction): the
        same branch-and-bound with pseudo-pair bounds (:meth:`_Family.log_ratio_at_c0`),
        exact on the lattice's one-point cells; a certified bracket otherwise.  Searched
        once per mechanism: δ(ε) and every decision of ε(δ) start from it."""
        return self._pure

    @cached_property
    def _pure(self) -> Pure:
        m = self.step

        def pair(fam: _Family, s: Fraction) -> tuple[flint.arb, flint.arb, None]:
            value = fam.log_ratio_at_c0(s, s + m)
            return value, value, None

        if self.c1 - self.c0 == m:
            exact = self._exact_pure(self.c1, "the edge is the one pair (c0, c1)")
            if exact is not None:
                return exact
        elif all(fam.flat_log_ratio for fam in self._families(flint.arb(1))):
            exact = self._exact_pure(self.c0 + m, "the log ratio is constant along the edge")
            if exact is not None:
                return exact
        if self.bounding == "clamped":
            exact = self._clamped_pure()
            if exact is not None:
                return exact
        concave = self._concavity_pure()
        with precision(self.digits):
            best, upper, cells = self._edge_search(
                self._families(flint.arb(1)), pair,
                lambda fam, u, v: _least_upper(fam.log_ratio_cell(u, v, m),
                                               self._conditioning_pure(fam, u, v)),
                None if concave is None else arb_of(concave),
                infinite_stops=True,
            )
            lower = best[0].lower().max(flint.arb(0))
            if not lower.is_finite():
                lower = flint.arb(0)
        s, side = best[1], best[2]
        inputs = (s, s + m) if side == 0 else (-s, -s - m)
        where = {"s": short(inputs[0]), "s'": short(inputs[1]),
                 "y": short(self.c0 if side == 0 else self.c1)}
        how = f"ball arithmetic, branch-and-bound over {cells} cells of the edge"
        if not upper.is_finite():
            return Pure(mpmath.inf, _exact(lower), f"certified upper bound: infinite ({how})",
                        where, "log likelihood ratio at the lowest output")
        up, low = _exact(upper), _exact(lower)
        if concave is not None and concave < up:
            up = concave
            how += "; upper bound exact by the concavity of log Z"
        return Pure(up, low, bracket_kind(low, up, how), where,
                    "log likelihood ratio at the lowest output, edge search")

    # -- truncation is conditioning ------------------------------------------------
    @staticmethod
    def _least_normaliser(fam: _Family, u: Fraction, v: Fraction) -> flint.arb:
        """A lower bound of min_{s in [u, v]} Z_s: Z_s, the mass the truncation keeps, is
        log-concave in s (a log-concave law convolved with an interval's indicator), so its
        minimum over [u, v] is at an end."""
        return fam.Z(arb_of(u)).lower().min(fam.Z(arb_of(v)).lower())

    def _log_normaliser_bound(self, z: flint.arb) -> Fraction | None:
        """A power of two L >= -log z, z = :meth:`_least_normaliser` (None: no finite
        bound)."""
        if not z > 0:
            return None
        low = -z.log()
        if not low.is_finite():
            return None
        top = low.upper()
        if top <= 0:
            return Fraction(0)
        exponent = max(math.frexp(float(top.mid() + top.rad()))[1] if top > 2**-1000 else -1000,
                       -1000)
        return Fraction(2) ** exponent  # >= top: frexp's exponent is one above its log2

    @cached_property
    def additive(self) -> Additive:
        """The additive mechanism s + Z at the shift ``step`` (truncation conditions it,
        clamping post-processes it)."""
        from dpcheck.laws.additive import Additive

        return Additive(self.law, self.values, self.step)

    def _conditioning_delta(self, fam: _Family, eps: Fraction, u: Fraction,
                            v: Fraction) -> flint.arb:
        """Truncation conditions s + Z on [c0, c1], so for s in [u, v]
        H_ε(s, s + m) <= δ_add(ε - L) / min Z (δ_add: the additive mechanism's at the shift
        m, :class:`~dpcheck.laws.additive.Additive`; L >= -log min Z): the truncated
        densities are the additive ones over Z_s and Z_{s+m} <= 1.  It closes the middle
        of a wide range, where Z is 1 to many digits and the pseudo-pairs are far apart."""
        inf = flint.arb("inf")
        if self.bounding != "truncated":
            return inf
        z = self._least_normaliser(fam, u, v)
        bound = self._log_normaliser_bound(z)
        if bound is None or bound >= eps:
            return inf
        key = eps - bound
        if key not in self._conditioned:
            self._conditioned[key] = _arb_of_mpf(self.additive.delta(key).upper)
        return (self._conditioned[key] / z).upper()

    def _conditioning_pure(self, fam: _Family, u: Fraction, v: Fraction) -> flint.arb:
        """The same argument for the pure ε: for s in [u, v], log p_s(y)/p_{s+m}(y) is the
        additive log ratio (at most the additive pure ε at the shift m) plus
        log Z_{s+m} - log Z_s, which is at most L (Z_{s+m} <= 1) and, on the line, at most
        m sup (log Z)' over [u, v + m], with (log Z)'(σ) = (f(c0 - σ) - f(c1 - σ))/Z_σ in
        ball arithmetic: this resolves a tiny sensitivity (the pure ε of Liu's truncated
        Laplace at Δ = 1e-1000 is 2.0e-1000)."""
        inf = flint.arb("inf")
        if self.bounding != "truncated":
            return inf
        pure = self.additive.pure_epsilon()
        if not pure.is_Rational:
            return inf
        extra = inf
        bound = self._log_normaliser_bound(self._least_normaliser(fam, u, v))
        if bound is not None:
            extra = flint.arb(bound.numerator) / bound.denominator
        if not self.law.is_lattice:
            box = _box(u, v + self.step)
            slope = (fam.g(arb_of(fam.c0) - box) - fam.g(arb_of(fam.c1) - box)) / fam.Z(box)
            if slope.is_finite():
                extra = extra.upper().min((arb_of(self.step) * slope).upper())
        return (flint.arb(pure.p) / pure.q + extra).upper()

    def _concavity_pure(self) -> Fraction | None:
        """An exact upper bound of the truncated pure ε on the line: the log ratio at c0 of
        the pair (s, s + m) is the additive one (at most the additive pure ε at the shift
        m, exact in SymPy) plus log Z(s + m) - log Z(s), and log Z is concave (Z is
        log-concave: :meth:`_least_normaliser`), so that difference is at most
        m (log Z)'(s) <= m (log Z)'(c0) (:meth:`_Family.exact_log_normaliser_slope_at_c0`;
        the mirrored law's too).  None unless every term is a rational.  It resolves a
        sensitivity far below the width, where the ball bracket straddles a rounding
        boundary: Liu's truncated Laplace at Δ = 1e-1000 has pure ε just below 2.0e-1000."""
        if self.bounding != "truncated" or self.law.is_lattice:
            return None
        additive = rational(self.additive.pure_epsilon())
        if additive is None:
            return None
        worst = Fraction(0)
        for fam in self._families(flint.arb(1)):
            slope = fam.exact_log_normaliser_slope_at_c0()
            value = None if slope is None else rational(slope)
            if value is None:
                return None
            worst = max(worst, value)
        return additive + self.step * worst

    def _clamped_pure(self) -> Pure | None:
        """Clamping is post-processing of the additive mechanism s + Z, so the pure ε is at
        most that mechanism's at the shift ``step`` (exact, SymPy); it is exactly that when
        the point mass at c0 of the pair (c0, c0 + step) attains it (SymPy), as for the
        Laplace and the two-sided geometric.  None when either is not a rational."""
        bound = rational(self.additive.pure_epsilon())
        if bound is None:
            return None
        got = self._exact_pure(self.c0 + self.step, "clamping is post-processing of the"
                               " additive mechanism, whose pure epsilon the point mass at"
                               " c0 attains")
        if got is None or got.upper_value != bound:
            return None
        return got

    def _exact_pure(self, b: Fraction, why: str) -> Pure | None:
        """The pure ε as the pair (c0, b)'s log ratio at the lowest output (the mirrored
        law's too) when that pair is the whole answer (``why``: Liu's one-pair edge,
        c1 - c0 <= Δ, or a log ratio constant along the edge); exact when SymPy gives it
        as a rational (None otherwise: the ball route decides)."""
        best: tuple[sp.Expr, int] | None = None
        for side, fam in enumerate(self._families(flint.arb(1))):
            value = fam.exact_log_ratio_at_c0(fam.c0, fam.c0 + (b - self.c0))
            if value is None or not value.is_Rational:
                return None
            if best is None or value > best[0]:
                best = (value, side)
        assert best is not None
        value = Fraction(int(best[0].p), int(best[0].q))
        inputs = (self.c0, b) if best[1] == 0 else (self.c1, self.c1 - (b - self.c0))
        y = self.c0 if best[1] == 0 else self.c1
        where = {"s": short(inputs[0]), "s'": short(inputs[1]), "y": short(y)}
        return Pure(value, value, f"exact (SymPy: {why})", where,
                    "log likelihood ratio at the lowest output")

    def epsilon(self, delta: Fraction, rtol: Fraction = Fraction(1, 10**14)) -> Epsilon:
        """ε(δ): the pure ε for δ = 0, else certified decisions on δ(ε)
        (:func:`dpcheck.laws.additive.epsilon_by_narrowing`)."""
        from dpcheck.laws.additive import epsilon_by_narrowing

        if not 0 <= delta < 1:
            raise InputError(f"delta {short(delta)}: expected 0 <= delta < 1")
        if delta == 0:
            pure = self.pure_epsilon()
            return Epsilon(delta, pure.upper_value, pure.lower_value, pure.kind, None)
        return epsilon_by_narrowing(self.delta, delta, f"{self.bounding} {self.law.name}", rtol,
                                    lambda e: self.judge(e, delta))

    def _post_processing_cap(self, eps: Fraction) -> flint.arb | None:
        """Clamping is post-processing of the additive mechanism s + Z, so its δ(ε) is at
        most that mechanism's certified upper bound (the data-processing inequality)."""
        if self.bounding != "clamped":
            return None
        from dpcheck.laws.additive import Additive

        upper = Additive(self.law, self.values, self.sensitivity).delta(eps).upper
        return _arb_of_mpf(upper)

    def _middle(self, u: Fraction, v: Fraction) -> Fraction:
        if self.law.is_lattice:
            return Fraction((u + v) // 2)
        return (u + v) / 2

    def _profile(self, eps: Fraction, lower: mpmath.mpf, upper: mpmath.mpf, s: Fraction,
                 side: int, t: Fraction | None, cells: int) -> Profile:
        m = self.step
        below = "<" if t == self.c1 and not self.law.is_lattice else "<="  # clamped: c1⁻
        if side == 0:
            pair, event = (s, s + m), "none" if t is None else f"Y {below} {_point(t)}"
        else:  # the mirrored law's pair (s, s + m) is the pair (-s, -s - m) here
            above = ">" if t == -self.c0 and not self.law.is_lattice else ">="
            pair, event = (-s, -s - m), "none" if t is None else f"Y {above} {_point(-t)}"
        how = f"ball arithmetic, branch-and-bound over {cells} cells of the edge"
        kind = bracket_kind(lower, upper, how)
        return Profile(eps, upper, lower, pair[0], pair[1], event, kind,
                       f"{self.bounding} {self.law.name}: monotone likelihood ratio, edge search",
                       list(ARGUMENT))


__all__ = ["BoundedMechanism"]
