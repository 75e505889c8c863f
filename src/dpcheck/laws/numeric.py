"""Every derived quantity of a noise law at one parameter point, in ball arithmetic.

:class:`Evaluator` answers the normaliser, tails P(±Z >= u), the CDF, moments
and the probability of an interval of one :class:`dpcheck.laws.noise.NoiseLaw`
at exact parameter values, as python-flint ``arb`` balls that contain the
true value (a verdict or a privacy number may rest on them), with a label
saying how the ball was obtained:

* ``closed form``: SymPy derived (or the law overrides) the quantity; the
  expression is evaluated in ball arithmetic (:mod:`dpcheck.laws.arb_eval`);
* ``lattice sum``: the terms are summed in ball arithmetic until the tail is
  below the working precision; the tail is bounded by a geometric series, valid
  because the summand is log-concave (its ratio of consecutive terms only
  decreases, :meth:`NoiseLaw.log_concave`), and added to the radius;
* a law's own certified form: a law may override the normaliser or a moment
  with ``_normaliser_ball(args)`` / ``_moment_ball(order, args)`` returning an
  ``arb`` that contains the value (or None to fall back), labelled by its
  ``_ball_label`` (the discrete Gaussian's Jacobi theta functions, which need no
  lattice sum at any scale);
* ``quadrature (estimate)``: a real-line law with no closed form: mpmath's
  quadrature, split at the law's breakpoints, with its own error estimate
  widened 100 times.  This ball is *not* certified (``certified`` is False)
  and the privacy engine refuses to print a bound from it.

The precision is given in decimal digits, like mpmath's ``mp.dps``; the work
is bounded (:data:`MAX_TERMS` lattice terms per sum).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property

import flint
import mpmath
import sympy as sp

from dpcheck.errors import InputError
from dpcheck.laws.arb_eval import compile_arb
from dpcheck.laws.noise import NoiseLaw, t, u

#: at most this many lattice terms per sum (bounded work on hostile parameters)
MAX_TERMS = 1_000_000


@dataclass(frozen=True)
class Ball:
    """A value, a ball that contains it, and how the ball was obtained."""

    ball: flint.arb
    how: str
    certified: bool = True

    def mpf(self) -> mpmath.mpf:
        return to_mpf(self.ball.mid())

    def lower(self) -> mpmath.mpf:
        return to_mpf(self.ball.lower())

    def upper(self) -> mpmath.mpf:
        return to_mpf(self.ball.upper())


def to_mpf(value: flint.arb) -> mpmath.mpf:
    """The exact binary value of an exact arb (a midpoint or an end) as an mpf."""
    man, exp = value.mid().man_exp()
    man = int(man)
    with mpmath.workprec(max(53, man.bit_length() + 2)):  # exact: no rounding to mp.prec
        return mpmath.mpf((man, int(exp)))


def arb_of(value: Fraction | int) -> flint.arb:
    value = Fraction(value)
    return flint.arb(value.numerator) / value.denominator


@contextmanager
def precision(dps: int) -> Iterator[int]:
    """Work at ``dps`` digits plus guard bits; restore flint's precision after."""
    bits = int(dps * 3.33) + 40
    with flint.ctx.workprec(bits):
        yield bits


class Evaluator:
    """One law at one exact parameter point; see the module docstring."""

    def __init__(self, law: NoiseLaw, values: dict[str, Fraction]) -> None:
        self.law = law
        self.values = values
        self._symbols = [p.symbol for p in law.params]
        self._args = [arb_of(values[p.name]) for p in law.params]

    def _compile(self, expr: sp.Expr, variable: sp.Symbol) -> Callable[[flint.arb], flint.arb]:
        fn = compile_arb(expr, [variable, *self._symbols])
        args = self._args
        return lambda x: fn(x, *args)

    @cached_property
    def _side(self) -> dict[int, Callable[[flint.arb], flint.arb]]:
        return {s: self._compile(self.law.side(s), t) for s in (1, -1)}

    @cached_property
    def kernel(self) -> Callable[[flint.arb], flint.arb]:
        return self._compile(self.law.kernel, self.law.variable)

    # -- lattice sums -----------------------------------------------------
    def _side_sum(self, sign: int, start: int, power: int = 0) -> flint.arb:
        """Σ_{t >= start} t^power · kernel(sign·t), start >= 1, with the tail bound.

        The summand is log-concave in t (a log-concave kernel times t^power), so
        once the ratio r of two consecutive terms is < 1 every later ratio is <= r
        and the rest is at most next·r/(1 - r).
        """
        f = self._side[sign]
        eps = flint.arb(2) ** (-flint.ctx.prec - 8)
        # the magnitude the sum is accurate against: its own value once that is known,
        # else the kernel at the centre (a term whose ball holds 0 has no ratio to decide)
        centre = self.kernel(flint.arb(0)).upper()
        total = flint.arb(0)
        weight = (lambda n: flint.arb(n) ** power) if power else (lambda n: 1)
        prev = f(flint.arb(start - 1)) * weight(start - 1)
        # the last kernel value proved positive, and its index: the anchor of the decay
        # bound for terms whose balls hold 0
        first = f(flint.arb(start - 1))
        anchor = (start - 1, first.lower()) if first > 0 else None
        j = start
        while True:
            a = f(flint.arb(j))
            if a.is_zero():  # beyond a bounded support (log-concave: an interval)
                return total
            term = a * weight(j)
            total += term
            if prev > 0:
                ratio = term / prev
                if ratio < 1:
                    bound = term * ratio / (1 - ratio)
                    ref = abs(total).lower() if total > 0 else centre
                    if bound.upper() < (eps * ref).lower():
                        return total + flint.arb(0, bound.upper())
                elif j - start > 10_000:
                    self._refuse()
            elif anchor is not None and a.upper() < (eps * centre).lower():
                # a kernel value too small for its ball to be positive: the ratios
                # a_{n+1}/a_n of a log-concave sequence do not increase, so every later ratio
                # is at most r = (a_j/a_i)^(1/(j - i)), i the anchor; with q = 2^p·r <= 1/4,
                # Σ_{n > j} n^p a_n <= a_j j^p Σ_{m >= 1} (1 + m)^p r^m <= (4/3) a_j j^p q
                i, low = anchor
                r = ((a.upper() / low) ** (flint.arb(1) / (j - i))).upper()
                q = r * 2**power
                if q <= flint.arb(1) / 4:
                    rest = 4 * a.upper() * weight(j) * q / 3
                    return total + flint.arb(0, rest.upper())
            if a > 0:
                anchor = (j, a.lower())
            if j - start > MAX_TERMS:
                self._refuse()
            prev = term
            j += 1

    def _own(self, hook: str, *extra: int) -> Ball | None:
        """The law's own certified ball for a quantity (module doc), or None."""
        method = getattr(self.law, hook, None)
        if method is None:
            return None
        ball = method(*extra, *self._args)
        if ball is None:
            return None
        return Ball(ball, getattr(self.law, "_ball_label", "the law's own form"))

    def _refuse(self) -> None:
        raise InputError(
            f"{self.law.name} at {self._shown()}: the lattice sum needs more than"
            f" {MAX_TERMS:,} terms (expected a smaller scale or fewer digits)"
        )

    def _shown(self) -> str:
        from dpcheck.inputs.numbers import short

        return ", ".join(f"{k}={short(v)}" for k, v in self.values.items())

    def _require_lattice_bound(self) -> None:
        ok, why = self.law.log_concave()
        if not ok:
            raise InputError(
                f"{self.law.name}: the lattice sums need a log-concave pmf for their tail"
                f" bound ({why}); give the law a _tail_formula"
            )

    # -- the normaliser ---------------------------------------------------
    @cached_property
    def normaliser(self) -> Ball:
        closed = self.law.normaliser
        if closed is not None:
            return Ball(self._compile(closed, t)(flint.arb(0)), "closed form")
        own = self._own("_normaliser_ball")
        if own is not None:
            return own
        if self.law.is_lattice:
            self._require_lattice_bound()
            total = self.kernel(flint.arb(0)) + self._side_sum(1, 1) + self._side_sum(-1, 1)
            return Ball(total, "lattice sum")
        return self._quad(lambda x: mpmath.mpf(1))

    # -- tails and the CDF ------------------------------------------------
    @cached_property
    def _tail_closed(self) -> dict[int, Callable[[flint.arb], flint.arb] | None]:
        out: dict[int, Callable[[flint.arb], flint.arb] | None] = {}
        for s in (1, -1):
            expr = self.law.tail(s) if self.law.normaliser is not None else None
            out[s] = None if expr is None else self._compile(expr, u)
        return out

    def tail(self, sign: int, at: Fraction | int) -> Ball:
        """P(sign·Z >= at) for at >= 0 (an integer on the lattice)."""
        at = Fraction(at)
        if at < 0:
            raise ValueError("tail(): at must be >= 0")
        closed = self._tail_closed[sign]
        if closed is not None:
            return Ball(closed(arb_of(at)), "closed form")
        if self.law.is_lattice:
            self._require_lattice_bound()
            start = int(at)
            norm = self.normaliser.ball
            if start == 0:  # Σ_{t >= 0}: kernel(0) + Σ_{t >= 1}
                mass = self.kernel(flint.arb(0)) + self._side_sum(sign, 1)
            else:
                mass = self._side_sum(sign, start)
            return Ball(mass / norm, "lattice sum")
        return self._quad_tail(sign, at)

    def cdf(self, y: Fraction | int) -> Ball:
        """F(y) = P(Z <= y); on the lattice y is an integer (use floor first)."""
        y = Fraction(y)
        if self.law.is_lattice:
            y = Fraction(y.numerator // y.denominator)
            if y <= 0:
                return self.tail(-1, -y)
            right = self.tail(1, y + 1)
            return Ball(1 - right.ball, right.how, right.certified)
        if y <= 0:
            return self.tail(-1, -y)
        right = self.tail(1, y)
        return Ball(1 - right.ball, right.how, right.certified)

    def cdf_ball(self, x: flint.arb) -> flint.arb | None:
        """F at every point of a ball x on the line, from the closed-form tails (F is
        monotone: a ball straddling 0 gets the hull of its ends); None without them."""
        left, right = self._tail_closed[-1], self._tail_closed[1]
        if self.law.is_lattice or left is None or right is None:
            return None
        if x <= 0:
            return left(-x)
        if x >= 0:
            return 1 - right(x)
        return left(-x.lower()).union(1 - right(x.upper()))

    def cdf_at(self, y: sp.Expr) -> Ball:
        """F(y) at an exact SymPy number (a root such as σ²ε/d - d/2 or a surd), real line."""
        if y.is_Rational:
            return self.cdf(Fraction(int(y.p), int(y.q)))
        sign = -1 if y.is_nonpositive else 1
        closed = self._tail_closed[sign]
        if closed is None:
            raise InputError(f"{self.law.name}: no closed-form CDF at an irrational point")
        from dpcheck.laws.arb_eval import evaluate_arb

        point = evaluate_arb(sp.Abs(y), {})
        mass = closed(point)
        return Ball(mass if sign == -1 else 1 - mass, "closed form")

    def sf(self, y: Fraction | int) -> Ball:
        """P(Z > y), computed as a tail (no 1 - cdf)."""
        y = Fraction(y)
        if self.law.is_lattice:
            y = Fraction(y.numerator // y.denominator)
            if y >= 0:
                return self.tail(1, y + 1)
            left = self.tail(-1, -y)
            return Ball(1 - left.ball, left.how, left.certified)
        if y >= 0:
            return self.tail(1, y)
        left = self.tail(-1, -y)
        return Ball(1 - left.ball, left.how, left.certified)

    def mass(self, lower: Fraction | int, upper: Fraction | int) -> Ball:
        """P(lower <= Z <= upper) (lattice: the integers in between)."""
        if self.law.is_lattice:
            lo = -((-Fraction(lower).numerator) // Fraction(lower).denominator)
            hi = Fraction(upper).numerator // Fraction(upper).denominator
            norm = self.normaliser.ball
            if hi - lo > MAX_TERMS:
                raise InputError(f"{self.law.name}: more than {MAX_TERMS:,} lattice points")
            total = flint.arb(0)
            for j in range(lo, hi + 1):
                total += self.kernel(flint.arb(j))
            return Ball(total / norm, "lattice sum")
        a, b = self.cdf(lower), self.cdf(upper)
        return Ball(b.ball - a.ball, a.how, a.certified and b.certified)

    def pmf(self, at: int) -> Ball:
        """P(Z = at) on the lattice; the density at ``at`` on the line."""
        norm = self.normaliser
        return Ball(self.kernel(arb_of(at)) / norm.ball, norm.how, norm.certified)

    # -- moments ----------------------------------------------------------
    def moment(self, order: int) -> Ball:
        """E Z^order."""
        closed = self.law.moment(order)
        if closed is not None:
            return Ball(self._compile(closed, t)(flint.arb(0)), "closed form")
        own = self._own("_moment_ball", order)
        if own is not None:
            return own
        if self.law.is_lattice:
            self._require_lattice_bound()
            total = self._side_sum(1, 1, order) + (-1) ** order * self._side_sum(-1, 1, order)
            if order == 0:
                total += self.kernel(flint.arb(0))
            return Ball(total / self.normaliser.ball, "lattice sum")
        norm = self.normaliser
        raw = self._quad(lambda x: x**order)
        return Ball(raw.ball / norm.ball, raw.how, False)

    def mean(self) -> Ball:
        return self.moment(1)

    def var(self) -> Ball:
        m1, m2 = self.moment(1), self.moment(2)
        return Ball(m2.ball - m1.ball * m1.ball, m2.how, m1.certified and m2.certified)

    # -- an independent route, for cross-checks ------------------------------
    def direct_moment(self, order: int, dps: int = 40) -> mpmath.mpf:
        """E Z^order by a route that shares nothing with the derivation but the kernel:
        mpmath quadrature split at the breakpoints (real line), or the plain sum of the
        kernel over |k| <= N with N grown until the terms are negligible (lattice).  An
        estimate: for cross-checks, never for a printed value."""
        f = self._mp_kernel()
        with mpmath.workdps(dps + 10):
            if not self.law.is_lattice:
                mass = mpmath.quad(f, [-mpmath.inf, *self._cuts(), mpmath.inf])
                raw = mpmath.quad(
                    lambda x: x**order * f(x), [-mpmath.inf, *self._cuts(), mpmath.inf]
                )
                return raw / mass
            mass, raw, j = f(mpmath.mpf(0)), mpmath.mpf(0), 1
            tiny = mpmath.mpf(10) ** (-dps - 10)
            while True:
                a, b = f(mpmath.mpf(j)), f(mpmath.mpf(-j))
                mass += a + b
                raw += mpmath.mpf(j) ** order * (a + (-1) ** order * b)
                if j > 20 and (a + b) * mpmath.mpf(j) ** (order + 2) < tiny * mass:
                    return raw / mass
                j += 1

    # -- the estimate route (real line, no closed form) --------------------
    def _mp_kernel(self) -> Callable[[mpmath.mpf], mpmath.mpf]:
        f = self.kernel

        def g(x: mpmath.mpf) -> mpmath.mpf:
            return to_mpf(f(flint.arb(mpmath.nstr(x, mpmath.mp.dps + 5, strip_zeros=False))).mid())

        return g

    def _cuts(self) -> list[mpmath.mpf]:
        points = {mpmath.mpf(0)}
        env = self.law.symbols(self.values)
        for b in self.law.breakpoints:
            v = mpmath.mpf(sp.Rational(b.subs(env)).p) / sp.Rational(b.subs(env)).q
            points |= {v, -v}
        return sorted(points)

    def _quad(self, g: Callable[[mpmath.mpf], mpmath.mpf]) -> Ball:
        f = self._mp_kernel()
        with mpmath.workdps(int(flint.ctx.prec / 3.33)):
            value, err = mpmath.quad(
                lambda x: g(x) * f(x), [-mpmath.inf, *self._cuts(), mpmath.inf], error=True
            )
        return Ball(flint.arb(mpmath.nstr(value, 40), mpmath.nstr(100 * err + 1e-30, 5)),
                    "quadrature (estimate)", False)

    def _quad_tail(self, sign: int, at: Fraction) -> Ball:
        f = self._mp_kernel()
        start = mpmath.mpf(at.numerator) / at.denominator
        cuts = [c for c in self._cuts() if c > start]
        with mpmath.workdps(int(flint.ctx.prec / 3.33)):
            value, err = mpmath.quad(
                lambda x: f(sign * x), [start, *cuts, mpmath.inf], error=True
            )
        norm = self.normaliser
        ball = flint.arb(mpmath.nstr(value, 40), mpmath.nstr(100 * err + 1e-30, 5))
        return Ball(ball / norm.ball, "quadrature (estimate)", False)
