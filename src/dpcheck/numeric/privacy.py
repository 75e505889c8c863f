"""Privacy loss, calibration and brute force for the bounded mechanisms (Liu 2019, Def. 2).

* :func:`privacy_loss` evaluates the derived worst-case loss
  (:func:`dpcheck.symbolic.privacy.worst_case`) at any precision;
* :func:`calibrated_scale` is the smallest λ at which a mechanism is ε-DP.
  For the truncated mechanism it is the root of loss(λ) = ε, the fixed point
  of Holohan et al. (2018) b = Δ/(ε - log ΔC(b)); the loss is proved strictly
  decreasing in λ (:func:`dpcheck.symbolic.privacy.loss_decreasing_in_scale`),
  so the root is unique and bisection finds it;
* :func:`certify_loss` decides loss(λ) <= ε rigorously (arb enclosure, exact symbolic
  equality when the enclosure touches ε); :func:`round_up` prints a scale or a loss
  rounded towards the safe side, so a printed privacy number is never understated;
* :func:`brute_force_loss` is an independent route: it never uses the
  derivation, only the Laplace density, with the truncated normaliser and the
  BIT point masses computed by quadrature, and maximises the log ratio over a
  grid of (s, s', y).  On any grid it can only find values <= the true sup.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from functools import cache

import mpmath
import sympy as sp
from mpmath import mpf

from dpcheck.errors import InputError
from dpcheck.numeric import mp
from dpcheck.numeric.names import check_mechanism
from dpcheck.numeric.params import parse_number, short
from dpcheck.numeric.quadrature import laplace_density, laplace_mass
from dpcheck.symbolic import privacy as sym
from dpcheck.symbolic.symbols import c0, c1, delta1, lam

Number = Fraction | mpf | int


@dataclass(frozen=True)
class Setting:
    """ε, Δ (the sensitivity δ1), and the bounds [c0, c1], exact and validated."""

    epsilon: Fraction
    sensitivity: Fraction
    lower: Fraction
    upper: Fraction

    def __post_init__(self) -> None:
        if not self.epsilon > 0:
            raise InputError(f"epsilon={short(self.epsilon)} must be positive")
        if not self.sensitivity > 0:
            raise InputError(f"sensitivity={short(self.sensitivity)} must be positive")
        if not self.lower < self.upper:
            raise InputError(
                f"lower={short(self.lower)} must be smaller than upper={short(self.upper)}"
            )

    @classmethod
    def parse(cls, epsilon: object, sensitivity: object, lower: object, upper: object) -> Setting:
        """From strings or numbers; NaN, inf and malformed text are InputErrors."""
        return cls(
            parse_number("epsilon", epsilon),  # type: ignore[arg-type]
            parse_number("sensitivity", sensitivity),  # type: ignore[arg-type]
            parse_number("lower", lower),  # type: ignore[arg-type]
            parse_number("upper", upper),  # type: ignore[arg-type]
        )

    @property
    def width(self) -> Fraction:
        return self.upper - self.lower

    @property
    def naive_scale(self) -> Fraction:
        """λ = δ1/ε of Definition 2."""
        return self.sensitivity / self.epsilon


@cache
def _compiled(mechanism: str, wide: bool) -> Callable[..., mpf]:
    worst = sym.worst_case(mechanism)
    expr = worst.loss_wide if wide else worst.loss
    return sp.lambdify((delta1, c0, c1, lam), expr, modules="mpmath")


def privacy_loss(
    mechanism: str, sensitivity: Number, lower: Number, upper: Number, scale: Number, dps: int = 30
) -> mpf:
    """The exact worst-case privacy loss at scale λ (derived; see the module docstring)."""
    check_mechanism(mechanism)
    wide = mpf(mp._mpf(sensitivity)) >= mp._mpf(upper) - mp._mpf(lower)
    args = (sensitivity, lower, upper, scale)
    return mp.adaptive(_compiled(mechanism, bool(wide)), args, dps, what="privacy loss")


def round_up(value: mpf | Fraction, digits: int) -> Fraction:
    """The smallest decimal with ``digits`` significant digits that is >= ``value`` (> 0)."""
    return round_to(value, digits, up=True)


#: the smallest decimal exponent printed exactly: a value below 10^-PRINT_FLOOR_EXPONENT
#: (δ of a Gaussian at ε·σ/Δ = 50000 is about 10^-(5.4e8)) rounds up to 10^-PRINT_FLOOR_EXPONENT
#: and down to 0, both on the safe side; an exact rounding would need a Fraction with
#: hundreds of megabytes of digits.  δ = 2.8e-216937 (Gaussian, ε = 1000) is above it.
PRINT_FLOOR_EXPONENT = 300_000


def below_print_floor(value: mpf | float | Fraction) -> bool:
    """Whether ``value`` (> 0) is certainly below 10^-PRINT_FLOOR_EXPONENT, decided from its
    binary exponent alone (no big numbers are built); values just above or near the floor
    answer False and are rounded exactly."""
    if isinstance(value, mpf):
        if not mpmath.isfinite(value) or value <= 0:
            return False
        bits = int(value.exp) + int(value.man).bit_length()  # value < 2^bits
    elif isinstance(value, Fraction):
        if value <= 0:
            return False
        bits = value.numerator.bit_length() - value.denominator.bit_length() + 1
    else:
        return False
    return bits < -3.3219280948873623 * PRINT_FLOOR_EXPONENT - 2


def round_to(value: mpf | float | Fraction, digits: int, up: bool) -> Fraction:
    """``value`` (> 0) rounded up (or down) to a decimal with ``digits`` significant digits,
    exactly (mpf and float values are read as the exact binary numbers they are).

    Below the print floor (:func:`below_print_floor`) the answer is 10^-PRINT_FLOOR_EXPONENT
    rounding up and 0 rounding down: still bounds on the right side, not roundings."""
    if below_print_floor(value):
        return Fraction(1, 10**PRINT_FLOOR_EXPONENT) if up else Fraction(0)
    if isinstance(value, float):
        value = Fraction(value)  # exact
    elif isinstance(value, mpf):  # exact too: no rounding to the working precision
        if not mpmath.isfinite(value) or value <= 0:
            raise ValueError(f"round_to needs a finite positive value, got {value}")
        value = Fraction(int(value.man)) * Fraction(2) ** int(value.exp)  # .man is unsigned
    if value <= 0:
        raise ValueError(f"round_up needs a positive value, got {value}")
    e = _decimal_exponent(value)
    unit = Fraction(10) ** (e - digits + 1)
    return (-((-value) // unit) if up else value // unit) * unit


def _decimal_exponent(value: Fraction) -> int:
    """floor(log10(value)) for value > 0, exactly (an estimate from the bit lengths,
    then corrected by exact comparisons: fast for values like 1e-216937 too)."""
    bits = value.numerator.bit_length() - value.denominator.bit_length()
    e = int(bits * 0.30102999566398120) - 1
    while Fraction(10) ** (e + 1) <= value:
        e += 1
    while Fraction(10) ** e > value:
        e -= 1
    return e


def decimal(value: Fraction, digits: int) -> str:
    """A decimal (exactly representable, as :func:`round_up` returns) as a plain string."""
    with mpmath.workdps(digits + 10):
        return mpmath.nstr(mpmath.mpf(value.numerator) / value.denominator, digits)


def _loss_expr(mechanism: str, sensitivity: Fraction, lower: Fraction, upper: Fraction) -> sp.Expr:
    worst = sym.worst_case(mechanism)
    return worst.loss_wide if sensitivity >= upper - lower else worst.loss


#: the largest working precision (digits) of an enclosure of the loss: closed forms with
#: exponents up to R/λ ~ 10^2000 (the number parser's ceilings) are enclosed below it
MAX_DPS = 20_000


def loss_ball(
    mechanism: str, sensitivity: Fraction, lower: Fraction, upper: Fraction, scale: Fraction,
    digits: int = 30, target: Fraction | None = None,
):  # type: ignore[no-untyped-def]
    """An arb enclosure of the worst-case loss at ``scale`` (minus ``target`` if given),
    the precision raised (x4, up to :data:`MAX_DPS` digits) until the ball is finite and
    tight to ``digits`` significant digits, or excludes 0 when ``target`` is given (the
    closed form cancels, and exp(R/λ) needs about log2(R/λ) bits before any digit is right).
    """
    import flint

    from dpcheck.numeric.rigorous import arb_eval

    expr = _loss_expr(mechanism, sensitivity, lower, upper)
    if target is not None:
        expr = expr - sp.Rational(target.numerator, target.denominator)
    env = {delta1: sensitivity, c0: lower, c1: upper, lam: scale}
    dps = digits + 15
    while True:
        ball = arb_eval(expr, env, dps=dps)
        if ball.is_finite():
            if target is not None and (ball > 0 or ball < 0):
                return ball
            if target is None and (
                ball.rad() == 0 or ball.rad() < abs(ball.mid()) * flint.arb(10) ** (-digits - 3)
            ):
                return ball
        if dps >= MAX_DPS:
            return ball
        dps = min(4 * dps, MAX_DPS)


def _upper_end(ball) -> Fraction:  # type: ignore[no-untyped-def]
    """The upper end of a finite ball as an exact Fraction (rounded outward)."""
    import flint

    old = flint.ctx.prec
    flint.ctx.prec = 4 * MAX_DPS  # the end at (at least) the ball's own precision
    try:
        man, exp = ball.upper().man_exp()
    finally:
        flint.ctx.prec = old
    return Fraction(int(man)) * Fraction(2) ** int(exp)


def loss_upper(
    mechanism: str,
    sensitivity: Fraction,
    lower: Fraction,
    upper: Fraction,
    scale: Fraction,
    digits: int = 30,
) -> Fraction:
    """A certified upper bound on the worst-case loss at ``scale``: the arb enclosure's upper
    end, rounded up to ``digits`` significant digits."""
    ball = loss_ball(mechanism, sensitivity, lower, upper, scale, digits)
    if not ball.is_finite():
        raise InputError(
            f"the worst-case loss at scale={short(scale)} could not be enclosed within"
            f" {MAX_DPS} digits (exponents (c1 - c0)/scale beyond about 10^{MAX_DPS // 4})"
        )
    return round_up(_upper_end(ball), digits)


def certify_loss(
    mechanism: str, setting: Setting, scale: Fraction, target: Fraction | None = None
) -> bool | None:
    """Whether loss(``scale``) <= ``target`` (default ε), decided rigorously: True or False
    from an arb enclosure that excludes ``target`` (precision raised as needed), else by
    exact symbolic equality (BIT's loss min(Δ, R)/λ equals ε at λ = Δ/ε exactly); None
    when neither settles it."""
    target = setting.epsilon if target is None else target
    args = (mechanism, setting.sensitivity, setting.lower, setting.upper, scale)
    diff = loss_ball(*args, digits=45, target=target)
    if diff < 0:
        return True
    if diff > 0:
        return False
    expr = _loss_expr(mechanism, setting.sensitivity, setting.lower, setting.upper)
    env = {delta1: setting.sensitivity, c0: setting.lower, c1: setting.upper, lam: scale}
    exact = sp.simplify(
        expr.subs({k: sp.Rational(v.numerator, v.denominator) for k, v in env.items()})
        - sp.Rational(target.numerator, target.denominator)
    )
    return True if exact == 0 else None


def certified_calibration(mechanism: str, setting: Setting, dps: int = 30) -> Fraction:
    """:func:`calibrated_scale` rounded up to ``dps`` digits and confirmed in arb to give
    loss <= ε: a scale that is safe.  It is nudged up by one unit in the last digit, then by
    growing steps (4x each time) until confirmed, so a calibration that float or mpmath
    rounding put on the wrong side is corrected, never printed unconfirmed."""
    scale = round_up(calibrated_scale(mechanism, setting, dps), dps)
    step = Fraction(1, 10**dps)
    for _ in range(200):
        if certify_loss(mechanism, setting, scale):
            # the guide may sit a hair above the root (its bisection stops at a relative
            # width): step down while one unit less is still confirmed (at most 3 units)
            for _ in range(3):
                unit = Fraction(10) ** (_decimal_exponent(scale) - dps + 1)
                if scale - unit <= 0 or not certify_loss(mechanism, setting, scale - unit):
                    break
                scale -= unit
            return scale
        scale = round_up(scale * (1 + step), dps)
        step *= 4
    raise ArithmeticError("the calibrated scale could not be confirmed in arb")  # pragma: no cover


def calibration_is_tight(mechanism: str, setting: Setting, scale: Fraction, dps: int) -> bool:
    """Whether one unit in the ``dps``-th digit below ``scale`` the loss exceeds ε, confirmed
    in arb: then ``scale`` is the smallest ε-DP scale rounded up to ``dps`` digits."""
    unit = Fraction(10) ** (_decimal_exponent(scale) - dps + 1)
    return scale - unit > 0 and certify_loss(mechanism, setting, scale - unit) is False


def calibrated_scale(mechanism: str, setting: Setting, dps: int = 30) -> mpf:
    """The smallest λ with worst-case loss <= ε (Holohan et al. 2018 for 'truncated')."""
    with mpmath.workdps(dps + 20):
        target = mp._mpf(setting.epsilon)
    return scale_for_loss(mechanism, setting.sensitivity, setting.lower, setting.upper, target, dps)


#: digits of the bisection of :func:`scale_for_loss` (the secant finishes the rest)
GUIDE_DPS = 30


def scale_for_loss(
    mechanism: str, sensitivity: Number, lower: Number, upper: Number, target: Number, dps: int = 30
) -> mpf:
    """The smallest λ with worst-case loss <= ``target`` (> 0).

    BIT, or Δ >= R: min(Δ, R)/target.  Truncated with Δ < R: bisection of the
    derived loss, which is proved strictly decreasing in λ; the bracket starts
    at Δ/target, where the loss is Δ/λ + log ΔC >= target.  The bisection runs at
    :data:`GUIDE_DPS` digits; the last digits come from secant steps at ``dps`` digits
    (an evaluation at 200 digits with exponents R/λ near 10^400 costs 100 times one at 50,
    and bisection needs 3.3 evaluations per digit, the secant a handful in all).  The
    result is a guide: :func:`certified_calibration` confirms it in arb.
    """
    check_mechanism(mechanism)
    with mpmath.workdps(dps + 20):
        delta, lo_bound, up_bound = (mp._mpf(v) for v in (sensitivity, lower, upper))
        target = mp._mpf(target)
        width = up_bound - lo_bound
        if mechanism == "bit" or delta >= width:
            return min(delta, width) / target
    f = _compiled(mechanism, False)
    coarse = min(dps, GUIDE_DPS)
    # a small target means a scale far above R: the normalisers 1 - e^x/2 - e^y/2 cancel
    # in about log10(1/target) digits, which the working precision must carry on top
    # (twice: 1 - e^{-R/λ} and the second logarithm lose them, then the difference of the
    # two logarithms, about log(R/λ) each, loses them again)
    with mpmath.workdps(30):
        extra = 2 * max(0, int(-mpmath.floor(mpmath.log10(mp._mpf(target))))) + 10
    with mpmath.workdps(coarse + 20 + extra):
        args = (mp._mpf(delta), mp._mpf(lo_bound), mp._mpf(up_bound))
        goal = mp._mpf(target)
        lo = args[0] / goal
        hi = 2 * lo
        while f(*args, hi) > goal:
            lo, hi = hi, 2 * hi
        tol = mpf(10) ** (-(coarse + 5))
        while hi - lo > tol * hi:
            mid = (lo + hi) / 2
            if f(*args, mid) > goal:
                lo = mid
            else:
                hi = mid
        if dps <= coarse:
            return +hi
    with mpmath.workdps(dps + 20 + extra):
        def g(x: mpf) -> mpf:
            return f(delta, lo_bound, up_bound, x) - target

        a, b = +lo, +hi
        ga, gb = g(a), g(b)
        tol = mpf(10) ** (-(dps + 5))
        for _ in range(4 * dps):  # Illinois regula falsi: the bracket [a, b] is kept
            c = b - gb * (b - a) / (gb - ga)
            gc = g(c)
            if gc == 0:
                return c
            if (gc > 0) == (gb > 0):
                ga /= 2
            else:
                a, ga = b, gb
            b, gb = c, gc
            if abs(b - a) <= tol * abs(b):
                break
        return max(a, b)  # the larger end: the loss is decreasing, so the safer one


@dataclass(frozen=True)
class BruteForce:
    """The largest log ratio found on a grid, and where."""

    loss: mpf
    s: mpf
    s_prime: mpf
    output: str
    pairs: int
    outputs: int


def _laws_on_grid(
    mechanism: str, inputs: list[mpf], ys: list[mpf], lower: mpf, upper: mpf, scale: mpf
) -> list[list[mpf]]:
    """P_s(y) for each input s (rows) and output (columns: ys, then atoms for BIT)."""
    rows = []
    for s in inputs:
        dens = [laplace_density(y, s, scale) for y in ys]
        work = mpmath.mp.dps
        if mechanism == "truncated":
            mass = laplace_mass(lower, upper, s, scale, work)
            rows.append([d / mass for d in dens])
        else:
            below = laplace_mass(-mpmath.inf, lower, s, scale, work)
            above = laplace_mass(upper, mpmath.inf, s, scale, work)
            rows.append(dens + [below, above])
    return rows


def brute_force_loss(
    mechanism: str,
    sensitivity: Number,
    lower: Number,
    upper: Number,
    scale: Number,
    n_inputs: int = 25,
    n_outputs: int = 41,
    dps: int = 25,
) -> BruteForce:
    """Max of log P_s(y)/P_s'(y) over a grid of inputs, neighbours and outputs.

    Inputs: n_inputs equally spaced points of [c0, c1] plus c0 + Δ and c1 - Δ;
    pairs with |s - s'| <= Δ, both orders; outputs: n_outputs equally spaced
    points of [c0, c1] (and the two point masses for BIT).
    """
    check_mechanism(mechanism)
    with mpmath.workdps(dps):
        lo, hi = mp._mpf(lower), mp._mpf(upper)
        delta, b = mp._mpf(sensitivity), mp._mpf(scale)
        grid = [lo + (hi - lo) * i / (n_inputs - 1) for i in range(n_inputs)]
        extra = [v for v in (lo + delta, hi - delta) if lo < v < hi]
        inputs = sorted(set(grid + extra))
        ys = [lo + (hi - lo) * i / (n_outputs - 1) for i in range(n_outputs)]
        names = [mpmath.nstr(y, 8) for y in ys] + ["point mass at c0", "point mass at c1"]
        rows = _laws_on_grid(mechanism, inputs, ys, lo, hi, b)
        best = (mpf("-inf"), inputs[0], inputs[0], "")
        pairs = 0
        for i, s in enumerate(inputs):
            for j, t in enumerate(inputs):
                if i == j or abs(s - t) > delta * (1 + mpf(10) ** (5 - dps)):
                    continue
                pairs += 1
                for k, (p, q) in enumerate(zip(rows[i], rows[j], strict=True)):
                    value = mpmath.log(p / q)
                    if value > best[0]:
                        best = (value, s, t, names[k])
        return BruteForce(best[0], best[1], best[2], best[3], pairs, len(rows[0]))


def attained(mechanism: str, setting: Setting) -> list[dict[str, str]]:
    """Where the sup of log P_s(y)/P_s'(y) is attained (s, s', y), as numbers for this setting."""
    if setting.sensitivity >= setting.width:
        return [{"s": str(setting.lower), "s'": str(setting.upper), "y": str(setting.lower)}]
    values = {c0: setting.lower, c1: setting.upper, delta1: setting.sensitivity}
    out = []
    for place in sym.worst_case(mechanism).attained:
        row = {k: str(sp.Expr.subs(place[k], values)) for k in ("s", "s'", "y")}  # type: ignore[arg-type]
        if place["direction"] == "P_s'/P_s":  # report every pair as the ratio P_s(y)/P_s'(y)
            row["s"], row["s'"] = row["s'"], row["s"]
        out.append(row)
    return out


def _bias_mse(mechanism: str, s: Number, setting: Setting, scale: Number, dps: int) -> tuple:
    args = (s, setting.lower, setting.upper, scale)
    return tuple(
        mp.adaptive(mp.compiled(f"{mechanism}.{q}"), args, dps, what=q) for q in ("bias", "mse")
    )


def summary(
    mechanism: str,
    setting: Setting,
    scale: Fraction | None = None,
    dps: int = 30,
    brute_force: bool = False,
) -> dict[str, object]:
    """Everything ``dpcheck privacy`` reports, JSON-ready (numbers as strings).

    The worst-case loss at ``scale`` (default the naive δ1/ε of Definition 2),
    where it is attained, the calibrated scale, and the bias and MSE at s = c0
    and at the midpoint under both scales.
    """
    check_mechanism(mechanism)
    if scale is not None and not scale > 0:
        raise InputError(f"scale={scale} must be positive")
    used = setting.naive_scale if scale is None else scale
    args = (mechanism, setting.sensitivity, setting.lower, setting.upper)
    loss = privacy_loss(*args, used, dps)
    loss_up = loss_upper(*args, used, dps)
    calibrated = certified_calibration(mechanism, setting, dps)
    eps = mp._mpf(setting.epsilon)
    at_calibrated = privacy_loss(*args, calibrated, dps)
    dp_here = certify_loss(mechanism, setting, used)
    cost = []
    midpoint = (setting.lower + setting.upper) / 2
    for label, s in (("s = c0", setting.lower), ("s = midpoint", midpoint)):
        b0, m0 = _bias_mse(mechanism, s, setting, used, dps)
        b1, m1 = _bias_mse(mechanism, s, setting, mp._mpf(calibrated), dps)
        cost.append(
            {
                "at": label,
                "bias at scale": _s(b0),
                "bias at calibrated scale": _s(b1),
                "mse at scale": _s(m0),
                "mse at calibrated scale": _s(m1),
                "mse ratio calibrated/scale": _s(m1 / m0) if m0 else "nan",
            }
        )
    out: dict[str, object] = {
        "mechanism": mechanism,
        "epsilon": short(setting.epsilon),
        "sensitivity": short(setting.sensitivity),
        "lower": short(setting.lower),
        "upper": short(setting.upper),
        "R/sensitivity": short(setting.width / setting.sensitivity),
        "scale": short(used),
        "scale source": "naive delta1/epsilon (Definition 2)" if scale is None else "given",
        "loss": decimal(loss_up, dps),
        "loss kind": f"exact worst-case loss (derived closed form), rounded up to {dps} digits"
        " from its arb enclosure",
        "loss/epsilon": _s(loss / eps),
        "epsilon-DP at this scale": "undecided" if dp_here is None else dp_here,
        "epsilon-DP decided by": "arb enclosure of loss - epsilon (exact equality if it touches 0)",
        "attained at": attained(mechanism, setting),
        "calibrated scale": decimal(calibrated, dps),
        "calibrated scale kind": (
            f"upper bound on the smallest epsilon-DP scale: rounded up to {dps} digits, loss"
            " <= epsilon there confirmed in arb"
            if calibration_is_tight(mechanism, setting, calibrated, dps)
            else "upper bound on the smallest epsilon-DP scale: loss <= epsilon there confirmed"
            f" in arb; not shown to be within one unit in the {dps}th digit of the smallest"
        ),
        "calibrated/scale": _s(mp._mpf(calibrated) / mp._mpf(used)),
        "loss at calibrated scale": _s(at_calibrated, dps - 5),
        "loss <= epsilon at calibrated scale (arb)": True,
        "cost": cost,
    }
    if brute_force:
        bf = brute_force_loss(mechanism, setting.sensitivity, setting.lower, setting.upper, used)
        out["brute force"] = {
            "loss": _s(bf.loss),
            "s": _s(bf.s),
            "s'": _s(bf.s_prime),
            "y": bf.output,
            "pairs": bf.pairs,
            "outputs": bf.outputs,
        }
    return out


def _s(value: object, n: int = 12) -> str:
    return mpmath.nstr(value, n)


__all__ = [
    "BruteForce",
    "Setting",
    "attained",
    "brute_force_loss",
    "calibrated_scale",
    "privacy_loss",
    "scale_for_loss",
    "summary",
]
