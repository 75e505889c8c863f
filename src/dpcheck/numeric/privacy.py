"""Privacy loss, calibration and brute force for the bounded mechanisms (Liu 2019, Def. 2).

* :func:`privacy_loss` evaluates the derived worst-case loss
  (:func:`dpcheck.symbolic.privacy.worst_case`) at any precision;
* :func:`calibrated_scale` is the smallest λ at which a mechanism is ε-DP.
  For the truncated mechanism it is the root of loss(λ) = ε, the fixed point
  of Holohan et al. (2018) b = Δ/(ε - log ΔC(b)); the loss is proved strictly
  decreasing in λ (:func:`dpcheck.symbolic.privacy.loss_decreasing_in_scale`),
  so the root is unique and bisection finds it;
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
from dpcheck.numeric.params import parse_number
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
            raise InputError(f"epsilon={self.epsilon} must be positive")
        if not self.sensitivity > 0:
            raise InputError(f"sensitivity={self.sensitivity} must be positive")
        if not self.lower < self.upper:
            raise InputError(f"lower={self.lower} must be smaller than upper={self.upper}")

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


def calibrated_scale(mechanism: str, setting: Setting, dps: int = 30) -> mpf:
    """The smallest λ with worst-case loss <= ε (Holohan et al. 2018 for 'truncated')."""
    with mpmath.workdps(dps + 20):
        target = mp._mpf(setting.epsilon)
    return scale_for_loss(
        mechanism, setting.sensitivity, setting.lower, setting.upper, target, dps
    )


def scale_for_loss(
    mechanism: str, sensitivity: Number, lower: Number, upper: Number, target: Number, dps: int = 30
) -> mpf:
    """The smallest λ with worst-case loss <= ``target`` (> 0).

    BIT, or Δ >= R: min(Δ, R)/target.  Truncated with Δ < R: bisection of the
    derived loss, which is proved strictly decreasing in λ; the bracket starts
    at Δ/target, where the loss is Δ/λ + log ΔC >= target.
    """
    check_mechanism(mechanism)
    with mpmath.workdps(dps + 20):
        delta, lo_bound, up_bound = (mp._mpf(v) for v in (sensitivity, lower, upper))
        target = mp._mpf(target)
        width = up_bound - lo_bound
        if mechanism == "bit" or delta >= width:
            return min(delta, width) / target
        f = _compiled(mechanism, False)
        lo = delta / target
        hi = 2 * lo
        while f(delta, lo_bound, up_bound, hi) > target:
            lo, hi = hi, 2 * hi
        tol = mpf(10) ** (-(dps + 5))
        while hi - lo > tol * hi:
            mid = (lo + hi) / 2
            if f(delta, lo_bound, up_bound, mid) > target:
                lo = mid
            else:
                hi = mid
        return +hi


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
    loss = privacy_loss(mechanism, setting.sensitivity, setting.lower, setting.upper, used, dps)
    calibrated = calibrated_scale(mechanism, setting, dps)
    eps = mp._mpf(setting.epsilon)
    at_calibrated = privacy_loss(
        mechanism, setting.sensitivity, setting.lower, setting.upper, calibrated, dps
    )
    cost = []
    midpoint = (setting.lower + setting.upper) / 2
    for label, s in (("s = c0", setting.lower), ("s = midpoint", midpoint)):
        b0, m0 = _bias_mse(mechanism, s, setting, used, dps)
        b1, m1 = _bias_mse(mechanism, s, setting, calibrated, dps)
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
        "epsilon": str(setting.epsilon),
        "sensitivity": str(setting.sensitivity),
        "lower": str(setting.lower),
        "upper": str(setting.upper),
        "R/sensitivity": str(setting.width / setting.sensitivity),
        "scale": str(used),
        "scale source": "naive delta1/epsilon (Definition 2)" if scale is None else "given",
        "loss": _s(loss, dps),
        "loss/epsilon": _s(loss / eps),
        "epsilon-DP at this scale": bool(loss <= eps * (1 + mpmath.mpf(10) ** (5 - dps))),
        "attained at": attained(mechanism, setting),
        "calibrated scale": _s(calibrated, dps),
        "calibrated/scale": _s(calibrated / mp._mpf(used)),
        "loss at calibrated scale": _s(at_calibrated, dps),
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
