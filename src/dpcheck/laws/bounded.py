"""A bounding of the output into [c0, c1] as a transformation of any noise law (issue 35).

The output of the mechanism at input s is X = s + Z; a bounding maps it into
[c0, c1] (Liu 2019, Definition 2; Holohan et al. 2018):

* ``truncated``: X conditioned on c0 <= X <= c1 (Definition 2(a), eq (4));
* ``clamped``: min(max(X, c0), c1), point masses at the bounds (Definition 2(b), eq (5));
* ``folded``: X reflected into [c0, c1] at both bounds (period 2R, R = c1 - c0): the
  preimages of y are y + 2nR and 2c0 - y + 2nR for every integer n.

Every quantity is written with two things of the law only: its CDF and its partial
moments ∫_a^b z^k f(z) dz (:meth:`partial_moment`: SymPy's antiderivative on each side
of 0, evaluated in ball arithmetic; on the lattice, a finite sum or a certified tail).
The fold's sum over images stops when the mass left beyond them, bounded by the law's
certified tails, is below the working precision, and that mass times max(|c0|, |c1|)^k
is added to the radius.  So the folded Gaussian, which has no closed form, gets
certified enclosures like every other combination.
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache
from math import comb

import flint
import sympy as sp

from dpcheck.errors import InputError
from dpcheck.laws.noise import NoiseLaw, t
from dpcheck.laws.numeric import Ball, Evaluator, arb_of

BOUNDINGS = ("truncated", "clamped", "folded")
#: at most this many images of the fold on each side
MAX_IMAGES = 100_000


@cache
def _antiderivative(law: NoiseLaw, sign: int, power: int) -> sp.Expr | None:
    """G(t) with G' = t^power·kernel(sign·t) on t > 0 (closed form, or None)."""
    if law.breakpoints:
        return None
    g = sp.integrate(t**power * law.side(sign), t, conds="none")
    if g.has(sp.Integral):
        return None
    return sp.simplify(g)


class Bounded:
    """The law ``law`` at ``values``, shifted to s and bounded into [c0, c1]."""

    def __init__(
        self,
        law: NoiseLaw,
        values: dict[str, Fraction],
        bounding: str,
        s: Fraction,
        c0: Fraction,
        c1: Fraction,
    ) -> None:
        if bounding not in BOUNDINGS:
            raise InputError(f"bounding {bounding!r} (expected one of: {', '.join(BOUNDINGS)})")
        if not c0 < c1:
            raise InputError(f"c0 = {c0}, c1 = {c1}: expected c0 < c1")
        if not c0 <= s <= c1:
            raise InputError(f"s = {s}: expected c0 <= s <= c1")
        if law.is_lattice and bounding == "folded":
            raise InputError(f"folded {law.name}: folding is defined for laws on the real line")
        self.law, self.values, self.bounding = law, values, bounding
        self.s, self.c0, self.c1 = s, c0, c1
        self.ev = Evaluator(law, values)

    # -- the two primitives of the law ----------------------------------------------
    def cdf(self, z: Fraction) -> flint.arb:
        ball = self.ev.cdf(z)
        self._certified(ball)
        return ball.ball

    def _certified(self, ball: Ball) -> None:
        if not ball.certified:
            raise InputError(
                f"{self.law.name} has no closed-form CDF: its bounded versions need one"
            )

    def partial_moment(self, k: int, a: Fraction, b: Fraction) -> flint.arb:
        """∫_a^b z^k f(z) dz (f normalised; on the lattice, the sum over a <= z <= b, which
        holds the atom at a = b)."""
        if a > b or (a == b and not self.law.is_lattice):
            return flint.arb(0)
        norm = self.ev.normaliser.ball
        if self.law.is_lattice:
            lo = -((-a.numerator) // a.denominator)
            hi = b.numerator // b.denominator
            if hi - lo > 10**6:
                raise InputError(f"{self.law.name}: more than 10^6 lattice points in [{a}, {b}]")
            total = flint.arb(0)
            for j in range(lo, hi + 1):
                total += self.ev.kernel(flint.arb(j)) * flint.arb(j) ** k
            return total / norm
        total = flint.arb(0)
        for sign in (1, -1):
            # the side z = sign·t: t in [max(0, a), b] or [max(0, -b), -a]
            lo = max(Fraction(0), a) if sign == 1 else max(Fraction(0), -b)
            hi = b if sign == 1 else -a
            if hi <= lo:
                continue
            g = _antiderivative(self.law, sign, k)
            if g is None:
                raise InputError(
                    f"{self.law.name}: no closed-form partial moment of order {k} (SymPy)"
                )
            fn = self.ev._compile(g, t)
            total += sign**k * (fn(arb_of(hi)) - fn(arb_of(lo)))
        return total / norm

    # -- the bounded law ------------------------------------------------------------
    def normaliser(self) -> flint.arb:
        """P(c0 <= X <= c1) = P(c0 - s <= Z <= c1 - s)."""
        return self._mass(self.c0 - self.s, self.c1 - self.s)

    def _mass(self, a: Fraction, b: Fraction) -> flint.arb:
        if self.law.is_lattice:
            return self.partial_moment(0, a, b)
        return self.cdf(b) - self.cdf(a)

    def raw_moment(self, k: int) -> flint.arb:
        """E Y^k."""
        s, c0, c1 = self.s, self.c0, self.c1
        if self.bounding == "folded":
            return self._folded_moment(k)
        inside = self._shifted_moment(k, c0 - s, c1 - s, s, 1)
        if self.bounding == "truncated":
            return inside / self.normaliser()
        below = self.cdf(c0 - s) - (self._point(c0 - s) if self.law.is_lattice else 0)
        above = 1 - self.cdf(c1 - s)
        return inside + arb_of(c0) ** k * below + arb_of(c1) ** k * above

    def _point(self, z: Fraction) -> flint.arb:
        return self.ev.pmf(z).ball if z.denominator == 1 else flint.arb(0)

    def _shifted_moment(
        self, k: int, a: Fraction, b: Fraction, shift: Fraction, sign: int
    ) -> flint.arb:
        """∫_a^b (shift + sign·z)^k f(z) dz by the binomial expansion."""
        total = flint.arb(0)
        for i in range(k + 1):
            total += comb(k, i) * arb_of(shift) ** (k - i) * sign**i * self.partial_moment(
                i, a, b
            )
        return total

    def _folded_moment(self, k: int) -> flint.arb:
        s, c0, c1 = self.s, self.c0, self.c1
        width = c1 - c0
        eps = flint.arb(2) ** (-flint.ctx.prec - 8)
        top = max(abs(c0), abs(c1))
        total = flint.arb(0)
        n = 0
        while True:
            for m in ((n,) if n == 0 else (n, -n)):
                shift = 2 * m * width
                # y = z + s - 2mR for z in [c0 - s + 2mR, c1 - s + 2mR]
                total += self._shifted_moment(k, c0 - s + shift, c1 - s + shift, s - shift, 1)
                # y = 2c0 - s + 2mR - z for z in [2c0 - c1 - s + 2mR, c0 - s + 2mR]
                total += self._shifted_moment(
                    k, 2 * c0 - c1 - s + shift, c0 - s + shift, 2 * c0 - s + shift, -1
                )
            bound = self._rest(n) * arb_of(top) ** k
            if bound.upper() < (eps * max(abs(total).lower(), eps)).lower():
                return total + flint.arb(0, bound.upper())
            if n > MAX_IMAGES:
                raise InputError(f"folded {self.law.name}: more than {MAX_IMAGES} images")
            n += 1

    def _rest(self, n: int) -> flint.arb:
        """P(Z outside the preimages of the images |m| <= n): they cover
        [c0 - s - R - 2nR, c1 - s + 2nR]."""
        width = self.c1 - self.c0
        hi = self.c1 - self.s + 2 * n * width
        lo = self.s - self.c0 + width + 2 * n * width
        return self.ev.tail(1, hi).ball + self.ev.tail(-1, lo).ball

    def folded_cdf(self, y: Fraction) -> flint.arb:
        """P(Y <= y) of the fold: the mass of the preimages of [c0, y]."""
        s, c0, c1 = self.s, self.c0, self.c1
        width = c1 - c0
        eps = flint.arb(2) ** (-flint.ctx.prec - 8)
        total = flint.arb(0)
        n = 0
        while True:
            for m in ((n,) if n == 0 else (n, -n)):
                shift = 2 * m * width
                total += self._mass(c0 - s + shift, y - s + shift)
                total += self._mass(2 * c0 - y - s + shift, c0 - s + shift)
            rest = self._rest(n)
            if rest.upper() < (eps * max(abs(total).lower(), eps)).lower():
                return total + flint.arb(0, rest.upper())
            n += 1
            if n > MAX_IMAGES:
                raise InputError(f"folded {self.law.name}: more than {MAX_IMAGES} images")

    def output_cdf(self, y: Fraction) -> flint.arb:
        """P(Y <= y)."""
        s, c0, c1 = self.s, self.c0, self.c1
        if y < c0:
            return flint.arb(0)
        if y >= c1:
            return flint.arb(1)
        if self.bounding == "folded":
            return self.folded_cdf(y)
        if self.bounding == "truncated":
            return self._mass(c0 - s, y - s) / self.normaliser()
        return self.cdf(y - s)

    def quantity(self, name: str) -> flint.arb:
        """normaliser, mean, bias, second_moment, var, mse (Liu 2019 §3)."""
        if name == "normaliser":
            return self.normaliser()
        m1 = self.raw_moment(1)
        if name == "mean":
            return m1
        if name == "bias":
            return m1 - arb_of(self.s)
        m2 = self.raw_moment(2)
        if name == "second_moment":
            return m2
        if name == "var":
            return m2 - m1 * m1
        if name == "mse":
            return m2 - 2 * arb_of(self.s) * m1 + arb_of(self.s) ** 2
        raise InputError(f"unknown quantity {name!r}")
