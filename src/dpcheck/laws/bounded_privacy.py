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
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction

import flint
import mpmath

from dpcheck.errors import InputError
from dpcheck.inputs.numbers import short
from dpcheck.laws.arb_eval import hull
from dpcheck.laws.noise import NoiseLaw, mirrored
from dpcheck.laws.numeric import Evaluator, arb_of, precision, to_mpf
from dpcheck.numeric.profile import (
    DIGITS,
    Epsilon,
    Profile,
    Pure,
    _le,
    agreement,
    bracket_kind,
)

#: certification precision (decimal digits)
DPS = 40
#: cells examined along the edge before the bracket is reported as it stands
BUDGET = 400
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
    a readable event: any t gives an event, and this one lies in the crossing's bracket."""
    if lo.denominator == 1 or lo == hi:
        return lo
    whole = lo.numerator // lo.denominator
    if whole + 1 <= hi:
        return Fraction(whole + 1)
    if lo == whole:
        return lo
    # lo, hi in (whole, whole + 1): recurse on the reciprocals of the fractional parts
    return whole + 1 / _simplest(1 / (hi - whole), 1 / (lo - whole))


def _arb_of_mpf(x: mpmath.mpf) -> flint.arb:
    """An mpf as an exact arb (inf stays inf)."""
    if not mpmath.isfinite(x):
        return flint.arb("inf")
    sign, man, exp, _ = x._mpf_  # (mpf.man_exp drops the sign; as in profile_balls)
    return flint.arb((-int(man) if sign else int(man), int(exp)))  # exact at any precision


def _key(x: flint.arb) -> float:
    """A heap key (the ball's upper end as a float; inf stays inf)."""
    return float(x.upper()) if x.upper().is_finite() else float("inf")


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

    def below(self, u: flint.arb) -> flint.arb:
        """P(u + Z < c0)."""
        return self.G(arb_of(self.c0 - 1) - u if self.lattice else arb_of(self.c0) - u)

    def Z(self, u: flint.arb) -> flint.arb:
        """P(c0 <= u + Z <= c1), the truncation's normaliser."""
        return self.G(arb_of(self.c1) - u) - self.below(u)

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
    def crossing(self, a: flint.arb, b: flint.arb, lo: Fraction, hi: Fraction,
                 width: Fraction = Fraction(0)) -> tuple[Fraction, Fraction, Fraction | None]:
        """[lo, hi] containing t* = sup{t in (c0, top]: D(t) > 0} (c0 if none) for every
        pair in the balls (a, b), narrowed by bisection on the sign of D.  Where the sign
        is undecided (a tie, or balls too wide), the two ends are narrowed separately
        towards the undecided zone [p, q]; the first undecided point p is returned too."""
        floor = max(width, Fraction(1) if self.lattice else Fraction(0))
        p = q = None
        for _ in range(STEPS):
            if hi - lo <= floor:
                break
            if p is None:
                left, right = lo, hi
            elif p - lo >= hi - q:
                left, right = lo, p
            else:
                left, right = q, hi
            if right - left <= floor:
                break
            mid = Fraction((left + right) // 2) if self.lattice else (left + right) / 2
            if not lo < mid < hi:
                break
            d = self.D(arb_of(mid), a, b)
            if d > 0:
                lo = mid
            elif d < 0:
                hi = mid
            else:
                p, q = (mid, mid) if p is None else (min(p, mid), max(q, mid))
        return lo, hi, p

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

    # -- step 3: one cell of the edge -------------------------------------------
    def cell_upper(self, u: Fraction, v: Fraction, m: Fraction) -> flint.arb:
        """An upper bound of H(s, s + m) for every s in [u, v]."""
        if self.lattice or u == v:
            return self.pair(u, v + m)[0]
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
        value = self.psi(t0, s0, s0 + m) + ds * (S - arb_of(s0))
        if hi > lo:
            value += self.D(T, S, S + M) * (T - arb_of(t0))
        # the pseudo-pair bound is first-order only, but it does not suffer from the
        # width of D over a whole cell where the crossing is far from the cell
        return flint.arb(0).max(value).min(self.pair(u, v + m)[0])


@dataclass(order=True)
class _Cell:
    key: float
    u: Fraction = field(compare=False)
    v: Fraction = field(compare=False)
    side: int = field(compare=False)
    upper: flint.arb = field(compare=False)


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
                top = top.min(cap)  # the data-processing bound, when it is the better one
            if not top.is_finite():
                if infinite_stops:
                    break
            elif agreement(to_mpf(best[0].lower()), to_mpf(top)) >= DIGITS:
                break
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
            upper = upper.min(cap)
        return best, upper, cells

    def delta(self, eps: Fraction) -> Profile:
        """δ(ε), certified: an upper bound, an attained lower bound and the worst pair."""
        m = self.step
        pure = self.pure_epsilon()
        if _le(pure.upper_value, eps):
            return Profile(
                eps, mpmath.mpf(0), mpmath.mpf(0), Fraction(0), Fraction(0),
                "none (epsilon >= the pure epsilon)", "exact (epsilon >= the pure epsilon)",
                f"{self.bounding} {self.law.name}: pure epsilon", list(ARGUMENT),
            )
        cap = self._post_processing_cap(eps)
        with precision(DPS):
            best, upper, cells = self._edge_search(
                self._families(arb_of(eps).exp()),
                lambda fam, s: fam.pair(s, s + m),
                lambda fam, u, v: fam.cell_upper(u, v, m),
                cap,
            )
            lower_ball, s, side, t = best
            upper = upper.min(flint.arb(1))  # a hockey-stick divergence is at most 1
            lower, up = to_mpf(lower_ball.lower().max(flint.arb(0))), to_mpf(upper)
        return self._profile(eps, lower, up, s, side, t, cells)

    def pure_epsilon(self) -> Pure:
        """sup over the edge of log p_s(c0)/p_{s+m}(c0) (and the mirrored direction): the
        same branch-and-bound with pseudo-pair bounds (:meth:`_Family.log_ratio_at_c0`),
        exact on the lattice's one-point cells; a certified bracket otherwise."""
        m = self.step

        def pair(fam: _Family, s: Fraction) -> tuple[flint.arb, flint.arb, None]:
            value = fam.log_ratio_at_c0(s, s + m)
            return value, value, None

        with precision(DPS):
            best, upper, cells = self._edge_search(
                self._families(flint.arb(1)), pair,
                lambda fam, u, v: fam.log_ratio_at_c0(u, v + m), infinite_stops=True,
            )
            lower = best[0].lower().max(flint.arb(0))
        s, side = best[1], best[2]
        inputs = (s, s + m) if side == 0 else (-s, -s - m)
        where = {"s": short(inputs[0]), "s'": short(inputs[1]),
                 "y": short(self.c0 if side == 0 else self.c1)}
        how = f"ball arithmetic, branch-and-bound over {cells} cells of the edge"
        if not upper.is_finite():
            return Pure(mpmath.inf, _exact(lower), f"certified upper bound: infinite ({how})",
                        where, "log likelihood ratio at the lowest output")
        up, low = _exact(upper), _exact(lower)
        return Pure(up, low, bracket_kind(low, up, how), where,
                    "log likelihood ratio at the lowest output, edge search")

    def epsilon(self, delta: Fraction, rtol: Fraction = Fraction(1, 10**14)) -> Epsilon:
        """ε(δ): the pure ε for δ = 0, else bisection on the certified δ(ε)
        (:func:`dpcheck.laws.additive.epsilon_by_bisection`)."""
        from dpcheck.laws.additive import epsilon_by_bisection

        if not 0 <= delta < 1:
            raise InputError(f"delta {short(delta)}: expected 0 <= delta < 1")
        if delta == 0:
            pure = self.pure_epsilon()
            return Epsilon(delta, pure.upper_value, pure.lower_value, pure.kind, None)
        return epsilon_by_bisection(self.delta, delta, f"{self.bounding} {self.law.name}", rtol)

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
            pair, event = (s, s + m), "none" if t is None else f"Y {below} {short(t)}"
        else:  # the mirrored law's pair (s, s + m) is the pair (-s, -s - m) here
            above = ">" if t == -self.c0 and not self.law.is_lattice else ">="
            pair, event = (-s, -s - m), "none" if t is None else f"Y {above} {short(-t)}"
        how = f"ball arithmetic, branch-and-bound over {cells} cells of the edge"
        kind = bracket_kind(lower, upper, how)
        return Profile(eps, upper, lower, pair[0], pair[1], event, kind,
                       f"{self.bounding} {self.law.name}: monotone likelihood ratio, edge search",
                       list(ARGUMENT))


__all__ = ["BoundedMechanism"]
