"""The privacy of an additive mechanism M(x) = x + Z for any noise law (issue 35).

Neighbouring inputs are x, x' with |x - x'| <= Δ (integers on the lattice).
The mechanism is translation invariant, so the pairs are (0, d), 0 < d <= Δ,
and the hockey-stick divergence of a pair is

    H_ε(0, d) = sup_E P(Z ∈ E) - e^ε P(Z + d ∈ E),    δ(ε) = sup_d H_ε(0, d).

The argument, each step checked by a program:

1. **Log-concave law** (:meth:`NoiseLaw.log_concave`: SymPy proves
   d²/dz² log f <= 0 on each side of 0 and a concave kink, or the law states
   why).  The likelihood ratio f(y)/f(y - d) is then non-increasing in y, so
   D(y) = f(y) - e^ε f(y - d) is positive and then non-positive: the optimal
   event is a lower half-line {Y <= y*} and H = F(y*) - e^ε F(y* - d).  The
   direction (d, 0) is the same computation on the mirrored law z -> -z
   (identical when the law is symmetric, which SymPy checks).
2. **The worst shift.**  Monotone likelihood ratio in the location gives
   stochastic order, so H_ε(0, d) is non-decreasing in d: the worst pair is
   (0, Δ).
3. **The crossing, exactly.**  On the line, the log ratio L(y) = log f(y) - log f(y - d)
   is written piece by piece between the kinks of f(y) and f(y - d) (SymPy resolves
   |.|, Piecewise and the zeros of either density on each piece) and y* = sup{L > ε} is
   found exactly: a piece's end, a tie (L = ε on a piece: D = 0 there), or SymPy's root
   of L = ε (:func:`crossing`).  On the lattice, the last integer with D > 0, each sign
   decided in ball arithmetic and, for a tie, exactly by SymPy.  Then
   δ = F(y*) - e^ε F(y* - d) is evaluated in ball arithmetic (python-flint,
   :mod:`dpcheck.laws.numeric`): ``delta lower`` and ``delta`` are the ball's ends
   (rounded down and up), and ``kind`` says whether they agree to the printed digits.
4. **Pure ε** = sup_y log f(y)/f(y - Δ): the left limit of a non-increasing
   ratio (SymPy's limit of the kernel on the left side), ∞ when the support
   is bounded (:attr:`NoiseLaw.radius`); a law that is not log-concave gives
   ``_pure_epsilon_formula`` (the staircase's derivation).

A law that is not log-concave and has no formula for what is asked is
refused with one line saying so; so is a real-line law without a closed-form
CDF (the quadrature estimate is not certified).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property, lru_cache

import mpmath
import sympy as sp

from dpcheck.errors import InputError
from dpcheck.inputs.numbers import short
from dpcheck.laws.narrowing import log_gap, narrow
from dpcheck.laws.noise import NoiseLaw, mirrored, t
from dpcheck.laws.numeric import Evaluator, arb_of, precision, to_mpf
from dpcheck.numeric import profile
from dpcheck.numeric.profile import Epsilon, Profile, _le, bracket_kind

#: certification precision (decimal digits) of the privacy numbers
DPS = 40


@dataclass
class Additive:
    """The additive mechanism x + Z of one noise law at exact parameters."""

    law: NoiseLaw
    values: dict[str, Fraction]
    sensitivity: Fraction
    notes: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.sensitivity <= 0:
            raise InputError(f"sensitivity {short(self.sensitivity)}: expected > 0")
        if self.law.is_lattice and self.sensitivity.denominator != 1:
            raise InputError(
                f"sensitivity {short(self.sensitivity)}: {self.law.name} lives on the integers,"
                " expected an integer sensitivity"
            )

    # -- step 1: the law's structure ----------------------------------------
    def _log_concave(self) -> str:
        ok, why = self.law.log_concave()
        if not ok:
            raise InputError(
                f"{self.law.name} is not proved log-concave ({why}): its privacy profile needs"
                " a certified search this law does not have yet"
            )
        return why

    # -- step 4: pure epsilon -------------------------------------------------
    def pure_epsilon(self) -> sp.Expr:
        """sup_y log f(y)/f(y - Δ), exact (a SymPy number, possibly oo); derived once per
        mechanism (the bounded mechanisms ask for it in every cell of their edge search)."""
        return self._pure

    @cached_property
    def _pure(self) -> sp.Expr:
        formula = getattr(self.law, "_pure_epsilon_formula", None)
        env = self.law.symbols(self.values)
        d = sp.Rational(self.sensitivity)
        if formula is not None:
            return sp.simplify(formula(d).subs(env))
        self._log_concave()
        if self.law.radius is not None:
            return sp.oo
        worst = sp.Integer(0)
        for law in (self.law, mirrored(self.law)):
            left = law.side(-1).subs(env)
            ratio = sp.expand_log(sp.log(left) - sp.log(left.subs(t, t + d)), force=True)
            worst = sp.Max(worst, sp.limit(sp.simplify(ratio), t, sp.oo))
        return worst

    # -- steps 1-3: delta(epsilon) ------------------------------------------
    def delta(self, eps: Fraction) -> Profile:
        """δ(ε), certified: an upper bound, an attained lower bound and the worst pair."""
        why = self._log_concave()
        pure = self.pure_epsilon()
        argument = [
            f"log-concave noise ({why}): the likelihood ratio is monotone, the optimal event"
            " a half-line",
            "stochastic order in the location: the worst pair is (0, sensitivity)",
        ]
        if pure is not sp.oo and _at_least(eps, pure):
            return Profile(
                eps, mpmath.mpf(0), mpmath.mpf(0), Fraction(0), self.sensitivity,
                "none (epsilon >= the pure epsilon)", "exact (epsilon >= the pure epsilon)",
                "pure epsilon", argument,
            )
        with precision(DPS):
            best = None
            for mirror in (False, True):
                if mirror and self.law.symmetric:
                    break
                law = mirrored(self.law) if mirror else self.law
                got = _half_line(Evaluator(law, self.values), eps, self.sensitivity)
                if best is None or got[1] > best[1]:
                    best = (*got, mirror)
            assert best is not None
            lower, upper, y, mirror = best
        if mirror:
            s, s_prime, event = self.sensitivity, Fraction(0), f"Y >= {_show(-y, self.law)}"
        else:
            s, s_prime, event = Fraction(0), self.sensitivity, f"Y <= {_show(y, self.law)}"
        kind = bracket_kind(lower, upper, "ball arithmetic over the half-line event")
        return Profile(eps, upper, lower, s, s_prime, event, kind, "monotone likelihood ratio",
                       argument)


    # -- epsilon(delta) ------------------------------------------------------
    def epsilon(self, delta: Fraction, rtol: Fraction = Fraction(1, 10**14)) -> Epsilon:
        """ε(δ) = inf{ε >= 0 : δ(ε) <= δ}, certified: δ(ε) does not increase with ε, so an
        ε whose certified δ upper bound is <= δ is a safe upper value, and one whose attained
        lower value is > δ is below ε(δ).  Bisection on dyadic rationals to ``rtol``."""
        if not 0 <= delta < 1:
            raise InputError(f"delta {short(delta)}: expected 0 <= delta < 1")
        pure = self.pure_epsilon()
        if delta == 0:
            if pure is sp.oo:
                return Epsilon(delta, mpmath.inf, mpmath.inf, "exact (pure epsilon)", None)
            value = profile.rational(pure)
            if value is None:
                raise InputError(f"{self.law.name}: the pure epsilon {pure} is not rational")
            return Epsilon(delta, value, value, "exact (pure epsilon)", None)
        return epsilon_by_narrowing(self.delta, delta, self.law.name, rtol)


def _at_least(eps: Fraction, pure: sp.Expr) -> bool:
    """ε >= the exact pure ε, compared exactly (a float comparison printed δ = 0 a hair
    below it: issue 27)."""
    value = profile.rational(pure)
    if value is not None:
        return profile._le(value, eps)
    return bool(sp.Rational(eps) >= pure)


def epsilon_by_narrowing(
    delta_of: Callable[[Fraction], Profile], delta: Fraction, name: str,
    rtol: Fraction = Fraction(1, 10**14),
    decide: Callable[[Fraction], tuple[bool | None, float]] | None = None,
) -> Epsilon:
    """ε(δ) = inf{ε >= 0 : δ(ε) <= δ} for 0 < δ < 1 from a certified ``delta_of``: δ(ε)
    does not increase with ε, so an ε whose certified upper bound is <= δ is a safe upper
    value, and one whose attained lower value is > δ is below ε(δ).  The bracket is
    found by doubling and narrowed to ``rtol`` by certified decisions
    (:func:`dpcheck.laws.narrowing.narrow`: regula falsi on the estimates, bisection
    without them).  ``decide(ε)`` ((δ(ε) <= δ? True, False or None), estimate of
    log(δ(ε)/δ)), when given, takes each decision without closing δ(ε)'s bracket;
    ``delta_of`` then gives the printed worst pair at the upper value."""

    def judge(e: Fraction) -> tuple[bool | None, float]:
        return decide(e) if decide is not None else judge_profile(delta_of(e), delta)

    if judge(Fraction(0))[0] is True:
        return Epsilon(delta, Fraction(0), Fraction(0), "exact (delta(0) <= delta)",
                       delta_of(Fraction(0)))
    lo, hi = Fraction(0), Fraction(1)
    g_lo = g_hi = math.nan
    while True:
        got, g_hi = judge(hi)
        if got is True:
            break
        lo, g_lo, hi = hi, g_hi, hi * 2
        if hi > 10**4:
            raise InputError(f"{name}: epsilon(delta = {short(delta)}) is above 10000")
    lo, hi, _ = narrow(lo, hi, rtol, judge, g_lo, g_hi)
    kind = bracket_kind(lo, hi, "certified decisions on delta(epsilon), regula falsi or bisection")
    return Epsilon(delta, hi, lo, kind, delta_of(hi))


def judge_profile(prof: Profile, delta: Fraction) -> tuple[bool | None, float]:
    """δ(ε) <= δ from a certified profile (True: its upper bound is, False: its attained
    lower value is not, None: δ lies in the bracket), with the estimate log(δ(ε)/δ) that
    guides :mod:`dpcheck.laws.narrowing`."""
    gap = log_gap(prof.lower if prof.lower > 0 else prof.upper, delta)
    if _le(prof.upper, delta):
        return True, gap
    return (False if not _le(prof.lower, delta) else None), gap


def _show(y: Fraction, law: NoiseLaw) -> str:
    return short(y) if law.is_lattice else f"{float(y):.12g}"


def _kinks(expr: sp.Expr, var: sp.Symbol) -> set[sp.Expr]:
    """The real points where ``expr`` (numbers but ``var``) may not be smooth: the roots of
    the arguments of |.|, sign, Heaviside, and of the Piecewise conditions."""
    args: list[sp.Expr] = []
    for node in sp.preorder_traversal(expr):
        if isinstance(node, (sp.Abs, sp.sign, sp.Heaviside)):
            args.append(node.args[0])
        elif isinstance(node, sp.Piecewise):
            for _, cond in node.args:
                for rel in sp.preorder_traversal(cond):
                    if isinstance(rel, sp.core.relational.Relational):
                        args.append(rel.lhs - rel.rhs)
        elif isinstance(node, (sp.floor, sp.ceiling)):
            raise InputError("a kernel with floor or ceiling has no finite list of pieces")
    roots: set[sp.Expr] = set()
    for a in args:
        if not a.has(var):
            continue
        for root in sp.solve(a, var):
            if root.is_real:
                roots.add(sp.nsimplify(root) if root.is_Float else root)
    return roots


def _resolve(expr: sp.Expr, var: sp.Symbol, point: sp.Expr) -> sp.Expr:
    """``expr`` on the open piece around ``point`` (no kink inside): |a| -> ±a, the Piecewise
    branch that holds at ``point``, sign and Heaviside -> constants."""

    def sgn(a: sp.Expr) -> int:
        value = a.subs(var, point)
        if value.is_positive:
            return 1
        if value.is_negative:
            return -1
        raise InputError(f"a kink of the kernel at {point} was not found")  # pragma: no cover

    def piece(node: sp.Piecewise) -> sp.Expr:
        for value, cond in node.args:
            if bool(cond.subs(var, point)):
                return value
        return sp.nan  # pragma: no cover - a Piecewise with no branch

    expr = expr.replace(lambda e: isinstance(e, sp.Piecewise), piece)
    expr = expr.replace(lambda e: isinstance(e, sp.Abs), lambda e: sgn(e.args[0]) * e.args[0])
    expr = expr.replace(lambda e: isinstance(e, sp.sign), lambda e: sgn(e.args[0]))
    return expr.replace(
        lambda e: isinstance(e, sp.Heaviside), lambda e: (sgn(e.args[0]) + 1) // 2
    )


def _log_ratio(f: sp.Expr, g: sp.Expr) -> sp.Expr:
    """log f - log g on one piece: +oo where only g is 0, -oo where only f is, nan if both."""
    if f == 0 and g == 0:
        return sp.nan
    if g == 0:
        return sp.oo
    if f == 0:
        return -sp.oo
    return sp.simplify(sp.expand_log(sp.log(f) - sp.log(g), force=True))


@lru_cache(maxsize=256)
def _pieces(
    law: NoiseLaw, env: tuple[tuple[sp.Symbol, sp.Expr], ...], d: sp.Expr
) -> tuple[tuple[sp.Expr, sp.Expr, sp.Expr], ...]:
    """(left, right, L) for each piece between the kinks of f(y) and f(y - d): the log
    ratio L(y) = log f(y) - log f(y - d) there (±oo or nan where a density vanishes).
    It does not depend on ε, so it is derived once per law, parameters and shift."""
    y = law.variable
    f = law.kernel.subs(dict(env))
    g = f.subs(y, y - d)
    cuts = sorted(_kinks(f, y) | _kinks(g, y), key=lambda c: float(c))
    ends = [-sp.oo, *cuts, sp.oo]
    out = []
    for left, right in zip(ends, ends[1:], strict=False):
        if left == -sp.oo:
            mid = right - 1 if right != sp.oo else sp.Integer(0)
        elif right == sp.oo:
            mid = left + 1
        else:
            mid = (left + right) / 2
        out.append((left, right, _log_ratio(_resolve(f, y, mid), _resolve(g, y, mid))))
    return tuple(out)


def _end_value(gap: sp.Expr, y: sp.Symbol, at: sp.Expr, side: str) -> sp.Expr:
    """gap at a piece's end: substitution at a finite end (L is continuous on the closed
    piece), SymPy's limit at ±oo."""
    if at in (sp.oo, -sp.oo):
        return sp.limit(gap, y, at)
    return sp.simplify(gap.subs(y, at))


def crossing(law: NoiseLaw, env: dict, eps: sp.Expr, d: sp.Expr) -> tuple[sp.Expr, str]:
    """y* = sup{y : f(y) > e^ε f(y - d)} of a log-concave real law, exactly (SymPy), and
    how it was found: the log ratio L(y) is written piece by piece between the kinks of
    f(y) and f(y - d) (:func:`_pieces`); L is non-increasing, so y* is the first place
    where L <= ε: the left end of the first piece where L <= ε throughout (a tie L = ε
    included: D = 0 there, any point of the piece gives the same δ), or the root of
    L = ε in a piece."""
    y = law.variable
    seen_positive = False
    for left, right, L in _pieces(law, tuple(sorted(env.items(), key=str)), d):
        if L is sp.nan:
            if seen_positive:
                return left, "both densities vanish beyond"
            continue
        if L == sp.oo:
            seen_positive = True
            continue
        if L == -sp.oo:
            return left, "the shifted density alone is positive beyond"
        gap = sp.simplify(L - eps)
        if not gap.has(y):
            if gap > 0:
                seen_positive = True
                continue
            return left, "tie: the log ratio equals epsilon on a piece" if gap == 0 else "jump"
        if _end_value(gap, y, right, "-") > 0:
            seen_positive = True
            continue
        if _end_value(gap, y, left, "+") <= 0:
            return left, "the log ratio is below epsilon from this kink on"
        roots = [r for r in sp.solve(gap, y) if r.is_real and left < r < right]
        if len(roots) != 1:
            raise InputError(f"{law.name}: the log ratio crosses epsilon {len(roots)} times"
                             f" on ({left}, {right})")  # pragma: no cover - not monotone
        return roots[0], "the root of log f(y) - log f(y - d) = epsilon"
    raise InputError(f"{law.name}: the likelihood ratio never falls to e^epsilon")


def _half_line(
    ev: Evaluator, eps: Fraction, d: Fraction
) -> tuple[mpmath.mpf, mpmath.mpf, Fraction]:
    """(lower, upper, y) of sup_y F(y) - e^ε F(y - d) for a log-concave law (step 3)."""
    e = arb_of(eps).exp()
    f = ev.kernel
    env = ev.law.symbols(ev.values)

    def positive(y: Fraction) -> bool:
        """D(y) = f(y) - e^ε f(y - d) > 0, decided exactly (a tie is not positive)."""
        diff = f(arb_of(y)) - e * f(arb_of(y - d))
        if diff > 0:
            return True
        if diff < 0:
            return False
        gap = _log_ratio(ev.law.kernel.subs(env).subs(ev.law.variable, y),
                         ev.law.kernel.subs(env).subs(ev.law.variable, y - d))
        return bool(sp.simplify(gap - sp.Rational(eps)) > 0) if gap is not sp.nan else False

    if ev.law.is_lattice:
        scale = max(Fraction(1), ev.values[ev.law.scale])
        a, b = -scale - d, scale + d
        if ev.law.radius is not None:
            r = sp.Rational(ev.law.radius.subs(env))
            a = -Fraction(int(r.p) // int(r.q))
        steps = 0
        while not positive(a):
            a *= 2
            steps += 1
            if steps > 200:
                raise InputError(f"{ev.law.name}: no output where the ratio exceeds e^{eps}")
        while positive(b):
            b *= 2
        a, b = Fraction(math.floor(a)), Fraction(math.ceil(b))
        while b - a > 1:
            mid = Fraction((a + b) // 2)
            if positive(mid):
                a = mid
            else:
                b = mid
        value = ev.cdf(a).ball - e * ev.cdf(a - d).ball
        return to_mpf(value.lower()), to_mpf(value.upper()), a
    y_star, _ = crossing(ev.law, env, sp.Rational(eps), sp.Rational(d))
    left, right = ev.cdf_at(y_star), ev.cdf_at(y_star - sp.Rational(d))
    if not (left.certified and right.certified):
        raise InputError(
            f"{ev.law.name} has no closed-form CDF: its privacy numbers would rest on a"
            " quadrature estimate, which dpcheck does not print as a bound"
        )
    value = left.ball - e * right.ball
    shown = sp.Rational(y_star) if y_star.is_Rational else sp.nsimplify(sp.N(y_star, 30))
    return to_mpf(value.lower()), to_mpf(value.upper()), Fraction(int(shown.p), int(shown.q))
