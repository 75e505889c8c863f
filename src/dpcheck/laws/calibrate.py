"""The smallest scale giving (ε, δ)-DP, for any mechanism of the law objects (issue 35).

Holohan et al. (2018, §4) calibrate the bounded Laplace by bisection on the scale;
this is the same bisection for any mechanism whose privacy the law objects certify
(:class:`~dpcheck.laws.additive.Additive`, :class:`~dpcheck.laws.bounded_privacy.
BoundedMechanism`), with every decision taken on a certified bracket:

* "(ε, δ)-DP at scale b" is **yes** when the certified upper bound of δ(ε) (δ = 0: of
  the pure ε) is <= the target, **no** when the attained lower value exceeds it, and
  undecided otherwise (counted as "no": the upper end of the bisection is always a
  scale *shown* to satisfy the target);
* the bisection assumes, as Holohan et al. do, that privacy improves with the scale,
  but nothing printed rests on it: the printed scale (rounded up to the printed
  digits) is decided again, and ``minimal`` says whether (1 - 1e-8) times it is
  *shown* to violate the target by an attained pair and event.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Protocol

import sympy as sp

from dpcheck.errors import InputError
from dpcheck.inputs.numbers import short
from dpcheck.laws.narrowing import log_gap, narrow
from dpcheck.numeric.profile import DIGITS, _le, _round_up

#: bisection stops at this relative width of the scale bracket
RTOL = Fraction(1, 10**(DIGITS + 4))
#: a scale below 2^-LIMIT or above 2^UPPER_LIMIT is refused (a target of ε = δ = 1e-300
#: on a unit interval needs a scale near 1e300)
LIMIT = 200
UPPER_LIMIT = 4096


class Certified(Protocol):
    """What calibration needs of a mechanism: its certified δ(ε) and pure ε."""

    def delta(self, eps: Fraction) -> Any: ...

    def pure_epsilon(self) -> Any: ...


@dataclass
class Calibration:
    """The smallest scale giving (ε, δ)-DP, rounded up and confirmed there."""

    epsilon: Fraction
    delta: Fraction
    scale: Fraction
    minimal: bool
    kind: str
    at: dict[str, object]
    #: bias and MSE at the calibrated scale (:mod:`dpcheck.laws.cost`)
    cost: list[dict[str, str]] | None = None

    def as_dict(self) -> dict[str, object]:
        out: dict[str, object] = {
            "epsilon": short(self.epsilon),
            "delta": short(self.delta),
            "calibrated scale": _round_up(self.scale),
            "calibrated scale kind": self.kind,
            "0.99999999 x scale violates": self.minimal,
            "at calibrated scale": self.at,
        }
        if self.cost is not None:
            out["cost"] = self.cost
        return out


def _pure_bracket(mech: Certified) -> tuple[Any, Any]:
    """(upper, lower) of the pure ε: a SymPy number (additive) or a certified bracket."""
    pure = mech.pure_epsilon()
    if isinstance(pure, sp.Expr):
        if pure is sp.oo:
            return sp.oo, sp.oo
        value = sp.Rational(pure) if pure.is_Rational else None
        if value is not None:
            exact = Fraction(int(value.p), int(value.q))
            return exact, exact
        from dpcheck.laws.arb_eval import evaluate_arb
        from dpcheck.laws.numeric import precision, to_mpf

        with precision(40):
            ball = evaluate_arb(pure, {})
        return to_mpf(ball.upper()), to_mpf(ball.lower())
    return pure.upper_value, pure.lower_value


def satisfies(mech: Certified, eps: Fraction, delta: Fraction) -> bool | None:
    """Whether the mechanism is (ε, δ)-DP: True/False when the certified bracket decides
    it, None when the target lies inside the bracket."""
    return judge(mech, eps, delta)[0]


def judge(mech: Certified, eps: Fraction, delta: Fraction) -> tuple[bool | None, float]:
    """:func:`satisfies`, and an estimate of log(δ(ε)/δ) (δ = 0: of log(pure ε/ε)) that
    guides the bisection (:mod:`dpcheck.laws.narrowing`; NaN without one)."""
    if delta == 0:
        upper, lower = _pure_bracket(mech)
        if upper is sp.oo:
            return False, math.nan
        gap = log_gap(lower if lower > 0 else upper, eps)
        if _le(upper, eps):
            return True, gap
        return (False if not _le(lower, eps) else None), gap
    own = getattr(mech, "judge", None)
    if own is not None:  # the edge search stopped as soon as it decides
        return own(eps, delta)  # type: ignore[no-any-return]
    from dpcheck.laws.additive import judge_profile

    return judge_profile(mech.delta(eps), delta)


def calibrate(
    at_scale: Callable[[Fraction], Certified], eps: Fraction, delta: Fraction = Fraction(0),
    name: str = "the mechanism", progress: Callable[[int], None] | None = None,
) -> Calibration:
    """The smallest scale b with ``at_scale(b)`` (ε, δ)-DP: bisection on certified
    decisions (module docstring); ``progress`` is told each decision's count."""
    if eps <= 0:
        raise InputError(f"epsilon={short(eps)} must be positive to calibrate")
    if not 0 <= delta < 1:
        raise InputError(f"delta {short(delta)}: expected 0 <= delta < 1")
    count = 0

    def ok(scale: Fraction) -> bool:
        nonlocal count
        count += 1
        if progress is not None:
            progress(count)
        return satisfies(at_scale(scale), eps, delta) is True

    if delta == 0 and _pure_bracket(at_scale(Fraction(1)))[0] is sp.oo:
        raise InputError(f"{name} is never pure-DP (its pure epsilon is infinite): give"
                         " --delta > 0")
    lo = hi = Fraction(1)
    if ok(hi):
        lo = hi / 2
        while ok(lo):
            hi, lo = lo, lo / 2
            if lo < Fraction(1, 2**LIMIT):
                raise InputError(f"{name}: every scale down to 2^-{LIMIT} satisfies the target")
    else:
        bits = 1  # hi = 2^bits, the exponent doubled: 2^3400 within a dozen decisions
        while not ok(hi):
            lo, bits = hi, 2 * bits
            hi = Fraction(2) ** bits
            if bits > UPPER_LIMIT:
                raise InputError(f"{name}: no scale up to 2^{UPPER_LIMIT} satisfies the target")
        while hi > 4 * lo:  # bisection on the exponent, then on the scale
            mid = Fraction(2) ** ((lo.numerator.bit_length() + hi.numerator.bit_length()) // 2)
            if not lo < mid < hi:
                break
            if ok(mid):
                hi = mid
            else:
                lo = mid
    def probe(scale: Fraction) -> tuple[bool, float]:
        nonlocal count
        count += 1
        if progress is not None:
            progress(count)
        got, gap = judge(at_scale(scale), eps, delta)
        return got is True, gap

    lo, hi, _ = narrow(lo, hi, RTOL, probe)  # regula falsi on the estimates, else bisection
    # the smallest printed decimal shown to satisfy the target: lo's rounding up when it is
    # (the bracket straddles a rounding boundary), else hi's (which is >= hi: it does
    # when privacy improves with the scale; else the unrounded hi, shown to, is printed)
    scale, rounded = Fraction(_round_up(lo)), True
    if not ok(scale):
        scale = Fraction(_round_up(hi))
        if not ok(scale):
            scale, rounded = hi, False
    mech = at_scale(scale)
    minimal = satisfies(at_scale(scale * (1 - Fraction(1, 10**8))), eps, delta) is False
    at = mech.delta(eps).as_dict() if delta > 0 else _pure_dict(mech)
    kind = (
        f"upper bound on the smallest scale: rounded up to {DIGITS} digits and confirmed there"
        " (certified)" if rounded else
        "upper bound on the smallest scale: the bisection's upper end, confirmed there"
        f" (certified; its {DIGITS}-digit rounding was not: privacy is not monotone here)"
    ) + ("; 0.99999999 x scale violates the target (attained pair)" if minimal else "")
    return Calibration(eps, delta, scale, minimal, kind, at)


def _pure_dict(mech: Certified) -> dict[str, object]:
    pure = mech.pure_epsilon()
    if isinstance(pure, sp.Expr):
        return {"pure epsilon": sp.sstr(pure), "pure epsilon kind": "exact (SymPy)"}
    return dict(pure.as_dict())


__all__ = ["Calibration", "calibrate", "satisfies"]
