"""k-ary randomized response (k-RR) as an exact mechanism object.

Input x in {0..k-1}; output x with probability e^ε/(e^ε + k - 1), each other value with
probability 1/(e^ε + k - 1) (Warner 1965 for k = 2; Kairouz, Oh and Viswanath 2016, "Extremal
mechanisms for local differential privacy", k-RR). Neighbours: any x != x' (replace one value).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import flint
import mpmath
import numpy as np
import sympy as sp
from mpmath.libmp import from_man_exp

from dpcheck.errors import InputError
from dpcheck.laws.arb_eval import evaluate_arb

EXHAUSTIVE_MAX_K, LIST_MAX_K, SAMPLE_MAX_N = 32, 10**4, 10**8  # exhaustive visits k^3 triples


def _rational(name: str, value: Any, *, nonnegative: bool) -> Fraction:
    """``value`` as an exact Fraction (floats at their binary value); one-line InputError."""
    want = "a finite number >= 0" if nonnegative else "a finite number"
    try:
        if isinstance(value, bool):
            raise TypeError
        if isinstance(value, sp.Rational):
            value = Fraction(int(value.p), int(value.q))
        out = Fraction(value.strip() if isinstance(value, str) else value)
    except (TypeError, ValueError, OverflowError, ZeroDivisionError):
        raise InputError(f"{name} = {value!r}: expected {want}") from None
    if nonnegative and out < 0:
        raise InputError(f"{name} = {value!r}: expected {want}")
    return out


def _mpf(ball: flint.arb, prec: int, rounding: str) -> mpmath.mpf:
    """The exact endpoint ``ball`` rounded to ``prec`` bits ('f' down, 'c' up)."""
    man, exp = ball.man_exp()
    return mpmath.mp.make_mpf(from_man_exp(int(man), int(exp), prec, rounding))


@dataclass(frozen=True)
class RandomizedResponse:
    """k-RR with k >= 2 categories at privacy level ``epsilon`` (Kairouz et al. 2016)."""

    k: int
    epsilon: Fraction

    def __post_init__(self) -> None:
        if isinstance(self.k, bool) or not isinstance(self.k, int | np.integer) or self.k < 2:
            raise InputError(f"k = {self.k!r}: expected an integer >= 2")
        object.__setattr__(self, "k", int(self.k))
        object.__setattr__(self, "epsilon", _rational("epsilon", self.epsilon, nonnegative=True))

    @property
    def _eps(self) -> sp.Rational:  # ε as a SymPy rational
        return sp.Rational(self.epsilon.numerator, self.epsilon.denominator)

    def _p(self, x: int, y: int) -> sp.Expr:
        """P_x(y), exactly."""
        return (sp.exp(self._eps) if y == x else sp.Integer(1)) / (sp.exp(self._eps) + self.k - 1)

    def _check_x(self, x: Any) -> int:
        if isinstance(x, bool) or not isinstance(x, int | np.integer) or not 0 <= x < self.k:
            raise InputError(f"x = {x!r}: expected an integer in 0..{self.k - 1}")
        return int(x)

    def probabilities(self, x: int) -> tuple[sp.Expr, ...]:
        """The exact output law (P_x(0), ..., P_x(k-1)); refused for k > 10**4."""
        x = self._check_x(x)
        if self.k > LIST_MAX_K:
            raise InputError(f"k = {self.k}: listing the law needs k <= {LIST_MAX_K}")
        return tuple(self._p(x, y) for y in range(self.k))

    def _outputs(self, x: int, x2: int, exhaustive: bool) -> list[tuple[int, int]]:
        """Outputs (y, multiplicity): all y, or the classes y = x, y = x', any other y."""
        if exhaustive:
            return [(y, 1) for y in range(self.k)]
        rest = [(min({0, 1, 2} - {x, x2}), self.k - 2)] if self.k > 2 else []
        return [(x, 1), (x2, 1), *rest]

    def _pairs(self, exhaustive: bool) -> list[tuple[int, int]]:  # neighbours (x, x')
        if not exhaustive:
            return [self.worst_pair()]
        if self.k > EXHAUSTIVE_MAX_K:
            raise InputError(f"k = {self.k}: exhaustive enumeration needs k <= {EXHAUSTIVE_MAX_K}")
        return [(a, b) for a in range(self.k) for b in range(self.k) if a != b]

    def _log_ratio(self, x: int, x2: int, y: int) -> sp.Rational:
        """log P_x(y)/P_x'(y), which is ε, 0 or -ε: a rational, compared exactly."""
        r = sp.log(self._p(x, y) / self._p(x2, y))
        if not r.is_Rational:
            raise RuntimeError(f"log-ratio {r} is not rational")
        return r

    def pure_epsilon(self, *, exhaustive: bool = False) -> sp.Expr:
        """max over x != x' and y of log P_x(y)/P_x'(y) (equals ε).

        By default only the pair (0, 1) with the output classes {x}, {x'} and the rest is
        visited: k-RR commutes with every permutation of {0..k-1}, so all pairs of distinct
        inputs give the same values. ``exhaustive=True`` visits every (x, x', y) (k <= 32).
        """
        return max(
            self._log_ratio(x, x2, y)
            for x, x2 in self._pairs(exhaustive)
            for y, _ in self._outputs(x, x2, exhaustive)
        )

    def delta(self, eps_query: Any, *, exhaustive: bool = False) -> sp.Expr:
        """Hockey-stick δ(ε') = max_{x != x'} Σ_y max(0, P_x(y) - e^{ε'} P_x'(y)), exactly.

        A term is positive iff its log-ratio (ε, 0 or -ε) exceeds ε' (a Fraction
        comparison, no floating point). ε' may be any finite number, negative included.
        Closed form for ε' >= 0: (e^ε - e^ε')/(e^ε + k - 1) if ε' < ε, else 0.
        Symmetry and ``exhaustive`` as in :meth:`pure_epsilon`.
        """
        q = _rational("eps_query", eps_query, nonnegative=False)
        eq = sp.exp(sp.Rational(q.numerator, q.denominator))
        values = set()
        for x, x2 in self._pairs(exhaustive):
            terms = [
                m * (self._p(x, y) - eq * self._p(x2, y))
                for y, m in self._outputs(x, x2, exhaustive)
                if self._log_ratio(x, x2, y) > sp.Rational(q.numerator, q.denominator)
            ]
            values.add(sp.together(sp.Add(*terms)))
        first = values.pop()
        if any(sp.simplify(v - first) != 0 for v in values):  # cannot happen for k-RR
            raise RuntimeError("pairs of inputs disagree: the symmetry argument fails")
        return first

    def delta_interval(self, eps_query: Any, digits: int = 30) -> tuple[mpmath.mpf, mpmath.mpf]:
        """Certified enclosure [lo, hi] of δ(ε') (python-flint arb balls), lo rounded down
        and hi rounded up to about ``digits`` significant digits."""
        if isinstance(digits, bool) or not isinstance(digits, int) or not 1 <= digits <= 10**5:
            raise InputError(f"digits = {digits!r}: expected an integer in 1..100000")
        exact = self.delta(eps_query)
        prec = math.ceil(digits * math.log2(10)) + 8
        with flint.ctx.workprec(prec + 32):
            ball = evaluate_arb(exact, {})
            if not ball.is_finite():
                raise RuntimeError(f"no finite enclosure of {exact}")
            return _mpf(ball.lower(), prec, "f"), _mpf(ball.upper(), prec, "c")

    def delta_float(self, eps_query: Any) -> float:
        """δ(ε') as a double: both ends of the enclosure round to it (precision raised
        until they do, up to 4000 digits; beyond, the nearest double to the lower end)."""
        digits = 30
        while True:
            lo, hi = self.delta_interval(eps_query, digits)
            if float(lo) == float(hi) or digits >= 4000:
                return float(lo)
            digits *= 2

    def worst_pair(self) -> tuple[int, int]:
        """A pair of neighbours attaining every maximum: (0, 1) (all pairs tie)."""
        return 0, 1

    def _keep_probability(self) -> float:
        """e^ε/(e^ε + k - 1) = 1/(1 + (k-1) e^{-ε}), as a double."""
        return float(1 / (1 + (self.k - 1) * mpmath.exp(-mpmath.mpf(self._eps.p) / self._eps.q)))

    def sample(self, rng: np.random.Generator, x: int, n: int) -> np.ndarray:
        """n independent outputs (int64) of k-RR on input x, vectorised."""
        x = self._check_x(x)
        if isinstance(n, bool) or not isinstance(n, int | np.integer) or not 0 <= n <= SAMPLE_MAX_N:
            raise InputError(f"n = {n!r}: expected an integer in 0..{SAMPLE_MAX_N}")
        if not isinstance(rng, np.random.Generator):
            raise InputError(f"rng = {rng!r}: expected a numpy.random.Generator")
        if self.k > 2**62:
            raise InputError(f"k = {self.k}: sampling needs k <= 2**62")
        keep = rng.random(int(n)) < self._keep_probability()
        other = rng.integers(0, self.k - 1, size=int(n), dtype=np.int64)
        other += other >= x  # uniform over {0..k-1} minus {x}
        return np.where(keep, np.int64(x), other)
