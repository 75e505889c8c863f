"""Privacy of the named mechanisms of the algebra (issue 19; issue 35): the profile
δ(ε), its inverse ε(δ), the pure ε and calibration, and the certified result types.

A named mechanism (``laplace``, ``truncated-gaussian``, ``folded-laplace``, ...) is parsed
into :class:`Neighbours` (its sensitivity Δ, bounds and scale) and handed to the law
engine as an object (:func:`mechanism_of`): the base's :class:`~dpcheck.laws.noise.NoiseLaw`
(:func:`dpcheck.laws.registry.of_base`) with the bounding as a transformation,

* unbounded: :class:`dpcheck.laws.additive.Additive` (half-line events by log-concavity,
  the worst pair (0, Δ), the exact crossing; δ in ball arithmetic);
* truncated / clamped: :class:`dpcheck.laws.bounded_privacy.BoundedMechanism` (monotone
  likelihood ratio, stochastic order, a certified branch-and-bound along the edge);
* folded: :class:`dpcheck.laws.folded_privacy.FoldedMechanism` (the additive mechanism's
  bound by post-processing, a lower value attained by half-line events).

The same objects answer for any law (``dpcheck privacy truncated-discrete-gaussian``):
there is one engine.  Every number reported is the safe side: ``delta`` is an upper
bound (rounded up), ``delta lower`` is attained by the printed pair and event, and
``kind`` says whether the two agree to the printed digits ("exact") or not
(:func:`bracket_kind`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from typing import TYPE_CHECKING

import mpmath
import sympy as sp
from mpmath.libmp import from_man_exp, from_rational, round_ceiling, round_floor

from dpcheck.errors import InputError
from dpcheck.inputs.numbers import parse_number, short
from dpcheck.numeric.names import canonical_mechanism, parts

if TYPE_CHECKING:  # the law engine imports this module's result types
    from dpcheck.laws.additive import Additive
    from dpcheck.laws.bounded_privacy import BoundedMechanism
    from dpcheck.laws.calibrate import Calibration
    from dpcheck.laws.folded_privacy import FoldedMechanism
    from dpcheck.laws.noise import NoiseLaw

    Mechanism = Additive | BoundedMechanism | FoldedMechanism

#: significant digits of every printed privacy number
DIGITS = 13


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
    def law(self) -> NoiseLaw:
        """The law object of the base (:func:`dpcheck.laws.registry.of_base`)."""
        from dpcheck.laws import registry

        return registry.of_base(self.base)

    @property
    def lattice(self) -> bool:
        """Whether the outputs are integers: the law object of the base says so."""
        return self.law.is_lattice

    @property
    def step(self) -> Fraction:
        """The largest |s - s'|: Δ, or floor(Δ) on the integers, or R when Δ >= R."""
        d = Fraction(math.floor(self.sensitivity)) if self.lattice else self.sensitivity
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
    from dpcheck.laws import registry

    mech = canonical_mechanism(mechanism)
    bounding, base = parts(mech)
    lattice = registry.of_base(base).is_lattice
    sens = parse_number("sensitivity", sensitivity)
    if not sens > 0:
        raise InputError(f"sensitivity={short(sens)} must be positive")
    if lattice and sens < 1:
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
        if lattice and (lo.denominator != 1 or hi.denominator != 1):
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


def _round(value: mpmath.mpf | float | Fraction, digits: int, up: bool) -> str:
    """``value`` (>= 0) rounded up (or down) to ``digits`` significant digits, exactly
    (:func:`dpcheck.numeric.privacy.round_to`), as text; ``inf`` for an infinite one."""
    from dpcheck.numeric.privacy import decimal, round_to

    if isinstance(value, mpmath.mpf) and value == mpmath.inf:
        return "inf"
    if value <= 0:
        return "0"
    rounded = round_to(value, digits, up)
    return decimal(rounded, digits) if rounded > 0 else "0"


def _round_up(value: mpmath.mpf | float | Fraction, digits: int = DIGITS) -> str:
    return _round(value, digits, True)


def _round_down(value: mpmath.mpf | float | Fraction, digits: int = DIGITS) -> str:
    return _round(value, digits, False)


# ---------------------------------------------------------------------------- labels


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


def to_fraction(value: mpmath.mpf) -> Fraction:
    """An exact (finite) mpf as a Fraction."""
    sign, man, exp, _ = value._mpf_  # mpf's own man_exp drops the sign
    q = Fraction(int(man)) * Fraction(2) ** int(exp)
    return -q if sign else q


Value = Fraction | mpmath.mpf


def rational(value: sp.Expr) -> Fraction | None:
    """A SymPy number as a Fraction when it is rational, a Float exactly (None otherwise:
    irrational, oo)."""
    if value.is_Float and value.is_finite:
        value = sp.Rational(value)
    if not value.is_Rational:
        return None
    return Fraction(int(value.p), int(value.q))


def _fraction(value: Value) -> Fraction | None:
    """An exact value as a Fraction (None for ±inf)."""
    if isinstance(value, Fraction):
        return value
    if isinstance(value, int):
        return Fraction(value)
    if not mpmath.isfinite(value):
        return None
    return to_fraction(value)


def _le(a: Value, b: Value) -> bool:
    """a <= b exactly (Fractions and exact mpf values, ±inf included)."""
    if isinstance(a, mpmath.mpf) and a == mpmath.inf:
        return isinstance(b, mpmath.mpf) and b == mpmath.inf
    if isinstance(b, mpmath.mpf) and b == mpmath.inf:
        return True
    if isinstance(a, mpmath.mpf) and isinstance(b, mpmath.mpf):
        return bool(a <= b)  # mpf comparisons are exact
    # a Fraction against an mpf: first against the Fraction's two 256-bit roundings (exact
    # mpf comparisons; an mpf such as 2^-10^11 has no Fraction that fits in memory), then,
    # only when the mpf falls between them, exactly
    if isinstance(a, mpmath.mpf) and not isinstance(b, mpmath.mpf):
        if a <= rounded(b, up=False):
            return True
        if a > rounded(b, up=True):
            return False
    elif isinstance(b, mpmath.mpf) and not isinstance(a, mpmath.mpf):
        if rounded(a, up=True) <= b:
            return True
        if rounded(a, up=False) > b:
            return False
    fa, fb = _fraction(a), _fraction(b)
    assert fa is not None and fb is not None
    return fa <= fb


def agreement(lower: Value, upper: Value, digits: int = DIGITS) -> int:
    """The largest n <= ``digits`` such that ``lower`` and ``upper`` round up to the same
    n-digit decimal: then that decimal is the true value (which lies between them) rounded
    up to n digits.  ``digits`` when they are equal; 0 when none agrees."""
    from dpcheck.numeric.privacy import below_print_floor, round_to

    if _le(upper, lower):
        return digits
    if not lower > 0 or (isinstance(upper, mpmath.mpf) and not mpmath.isfinite(upper)):
        return 0
    if below_print_floor(upper):  # printed as the floor, not as a rounding of the value
        return 0
    for n in range(digits, 0, -1):
        if round_to(lower, n, True) == round_to(upper, n, True):
            return n
    return 0


def bracket_kind(lower: Value, upper: Value, how: str) -> str:
    """The label of a certified bracket [lower, upper] of a privacy number: 'exact' only when
    the two agree exactly, 'exact to the digits shown' when the printed (rounded-up) value is
    the true one rounded up, else a certified upper bound and the bracket's relative width."""
    from dpcheck.numeric.privacy import PRINT_FLOOR_EXPONENT, below_print_floor

    if below_print_floor(upper):
        return (
            f"certified upper bound: the value lies below 1e-{PRINT_FLOOR_EXPONENT}, the"
            f" smallest printed, so the floor is printed ({how})"
        )
    if _le(upper, lower):
        return f"exact ({how})"
    if agreement(lower, upper) >= DIGITS:
        return f"exact to the digits shown (certified bracket, {how})"
    width = _relative_width(lower, upper)
    if width <= 1e-10:
        return (
            f"certified upper bound, within {width:.1g} relative of the attained lower value"
            f" (bracket [lower, upper], {how})"
        )
    shown = "inf" if width == math.inf else f"{width:.2g}"
    return f"certified upper bound (bracket [lower, upper] not closed: relative width {shown};" \
        f" {how})"


def _relative_width(lower: Value, upper: Value) -> float:
    """(upper - lower) / upper as a float (inf when lower <= 0 or upper is infinite)."""
    from dpcheck.numeric.privacy import below_print_floor

    if below_print_floor(lower) or below_print_floor(upper):  # no Fraction of 2^-10^9
        if not lower > 0 or not mpmath.isfinite(upper):
            return math.inf
        with mpmath.workdps(30):
            return float((mpmath.mpf(upper) - lower) / upper)
    lo, up = _fraction(lower), _fraction(upper)
    if lo is None or up is None or not lo > 0:
        return math.inf
    return float((up - lo) / up)


# ---------------------------------------------------------------------------- results


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


def _as_mpf(value: Value, up: bool) -> mpmath.mpf:
    """An exact value as an mpf: itself when it is one (or dyadic), else rounded up (down)
    at 256 bits, so that the mpf stays on the safe side of the value."""
    if isinstance(value, mpmath.mpf):
        return value
    q = Fraction(value)
    if q.denominator & (q.denominator - 1) == 0:
        return exact(q)
    return rounded(q, up)


class _ExactBracket:
    """``upper``/``lower`` as mpf, rounded outward, of the exact ``upper_value`` and
    ``lower_value`` of a privacy number (:class:`Pure`, :class:`Epsilon`)."""

    upper_value: Value
    lower_value: Value

    @property
    def upper(self) -> mpmath.mpf:
        return _as_mpf(self.upper_value, True)

    @property
    def lower(self) -> mpmath.mpf:
        return _as_mpf(self.lower_value, False)


@dataclass
class Pure(_ExactBracket):
    """The pure epsilon sup log P_s(y)/P_s'(y): upper (safe side), lower (attained), where.

    ``upper_value``/``lower_value`` are exact (a Fraction where the value is rational);
    ``upper``/``lower`` are the same as mpf, rounded outward."""

    upper_value: Value
    lower_value: Value
    kind: str
    pair: dict[str, str]
    method: str

    def as_dict(self) -> dict[str, object]:
        return {
            "pure epsilon": _round_up(self.upper_value),
            "pure epsilon lower": _round_down(self.lower_value),
            "pure epsilon kind": self.kind,
            "attained at": self.pair,
            "pure epsilon method": self.method,
        }


@dataclass
class Epsilon(_ExactBracket):
    """ε(δ): the smallest ε with δ(ε) <= δ, as a safe upper value and a lower value
    (exact ``upper_value``/``lower_value``; ``upper``/``lower`` as mpf, rounded outward)."""

    delta: Fraction
    upper_value: Value
    lower_value: Value
    kind: str
    at: Profile | None

    def as_dict(self) -> dict[str, object]:
        out: dict[str, object] = {
            "delta": short(self.delta),
            "epsilon": _round_up(self.upper_value),
            "epsilon lower": _round_down(self.lower_value),
            "epsilon kind": self.kind,
        }
        if self.at is not None:
            out["worst pair"] = self.at.as_dict()["worst pair"]
        return out


# ---------------------------------------------------------------------------- the law engine


def mechanism_of(nb: Neighbours) -> Mechanism:
    """The law engine's mechanism object of a named mechanism (issue 35): the additive
    mechanism of the base's law, or its truncated / clamped / folded version.  On the
    integers the neighbours differ by a whole number, so Δ counts as floor(Δ)."""
    from dpcheck.laws.additive import Additive
    from dpcheck.laws.bounded_privacy import BoundedMechanism
    from dpcheck.laws.folded_privacy import FoldedMechanism

    law = nb.law
    values = {law.scale: nb.scale}
    sens = Fraction(math.floor(nb.sensitivity)) if nb.lattice else nb.sensitivity
    if not nb.bounded:
        return Additive(law, values, sens)
    assert nb.lower is not None and nb.upper is not None
    if nb.bounding == "folded":
        return FoldedMechanism(law, values, nb.lower, nb.upper, sens)
    return BoundedMechanism(law, values, nb.bounding, nb.lower, nb.upper, sens)


def delta_for_epsilon(nb: Neighbours, eps: Fraction) -> Profile:
    """δ(ε) = sup over neighbours of H_ε, certified (the module docstring)."""
    return mechanism_of(nb).delta(eps)


@lru_cache(maxsize=512)
def pure_epsilon(nb: Neighbours) -> Pure:
    """sup over neighbours and outputs of log P_s(y)/P_s'(y) (issue 19, "Pure epsilon").

    The additive mechanisms' is exact (SymPy's limit of the log ratio, or infinite); the
    bounded ones' a certified bracket of :mod:`dpcheck.laws.bounded_privacy`, the folded
    ones' the additive bound of :mod:`dpcheck.laws.folded_privacy`."""
    mech = mechanism_of(nb)
    if nb.bounded:
        return mech.pure_epsilon()
    return _additive_pure(nb, mech.pure_epsilon())


def _additive_pure(nb: Neighbours, value: sp.Expr) -> Pure:
    """The exact pure ε of s + Z as a :class:`Pure`: the log ratio of (0, step) is
    non-increasing in y (log-concavity), so its supremum is its limit as y -> -inf."""
    d = _num(nb.step)
    if value is sp.oo:
        return Pure(mpmath.inf, mpmath.inf,
                    f"exact: infinite (the {nb.law.name} log ratio is unbounded in y)",
                    {"s": "0", "s'": d, "y": "-inf"}, "closed form")
    v = rational(value)
    if v is None:
        raise InputError(f"{nb.mechanism}: the pure epsilon {value} is not rational")
    return Pure(v, v, "exact (SymPy: the limit of the log likelihood ratio as y -> -inf)",
                {"s": "0", "s'": d, "y": "-inf"}, "closed form")


def epsilon_for_delta(nb: Neighbours, delta: Fraction) -> Epsilon:
    """ε(δ) = inf{ε >= 0 : δ(ε) <= δ}, certified: a safe upper value and an attained
    lower value (δ = 0: the pure ε)."""
    if delta == 0:
        pure = pure_epsilon(nb)
        return Epsilon(delta, pure.upper_value, pure.lower_value, pure.kind, None)
    return mechanism_of(nb).epsilon(delta)


def calibrate(nb: Neighbours, eps: Fraction, delta: Fraction = Fraction(0),
              progress: Callable[[int], None] | None = None) -> Calibration:
    """The smallest scale at which the mechanism is (ε, δ)-DP: the certified bisection of
    :func:`dpcheck.laws.calibrate.calibrate` on the law engine's mechanism."""
    from dpcheck.laws.calibrate import calibrate as certified_bisection

    cal = certified_bisection(lambda b: mechanism_of(nb.with_scale(b)), eps, delta,
                              nb.mechanism, progress)
    cal.cost = cost(nb.with_scale(cal.scale))
    return cal


def cost(nb: Neighbours) -> list[dict[str, str]]:
    """Bias and MSE at s = c0 and at the midpoint (bounded), or the variance (unbounded):
    :func:`dpcheck.laws.cost.rows` of the base's law object."""
    from dpcheck.laws.cost import rows

    law = nb.law
    values = {law.scale: nb.scale}
    if not nb.bounded:
        return rows(law, values)
    assert nb.lower is not None and nb.upper is not None
    return rows(law, values, nb.bounding, nb.lower, nb.upper)


def _exact_leq(text: object, bound: Fraction) -> bool:
    """Whether a printed decimal (or 'inf') is <= ``bound``, exactly."""
    if text == "inf":
        return False
    return Fraction(str(text)) <= bound
