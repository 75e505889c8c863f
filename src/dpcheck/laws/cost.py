"""What a mechanism's noise costs in accuracy: its bias and MSE (Liu 2019, §3).

Printed beside a calibrated scale (``dpcheck privacy MECH --epsilon E`` without
``--scale``), for any mechanism of the law objects and for the ten named mechanisms
(:func:`dpcheck.numeric.profile.calibrate`, through :func:`rows`):

* the additive mechanism s + Z: bias E Z and MSE E Z², the same at every input s;
* a bounded one (truncated or clamped into [c0, c1]): at s = c0 (where bounding
  biases most) and at the midpoint (its floor on the lattice), from
  :meth:`dpcheck.laws.bounded.Bounded.quantity`.

Each value is a certified ball printed to 12 significant digits; a ball too wide for
them is refused rather than printed.  A bias that is 0 by symmetry (a symmetric law at
the exact midpoint of [c0, c1], or unbounded) is printed 0.0 without its ball, which
only brackets it (printed 0 for the additive mechanism, as the old engine did).
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING

import flint
import mpmath

from dpcheck.errors import InputError
from dpcheck.laws.numeric import Evaluator, precision, to_mpf

if TYPE_CHECKING:
    from dpcheck.laws.additive import Additive
    from dpcheck.laws.bounded_privacy import BoundedMechanism
    from dpcheck.laws.noise import NoiseLaw

#: the digits printed, and the working precision of the balls behind them (at first, and
#: at most: doubled while a ball is too wide for the digits)
SHOWN, DPS, MAX_DPS = 12, 30, 960


def _shown(ball: flint.arb, what: str) -> str:
    if not (ball.is_zero() or ball.rel_accuracy_bits() >= (SHOWN + 2) * 3.33):
        raise InputError(f"{what}: the certified ball {ball} is too wide for {SHOWN} digits")
    return mpmath.nstr(to_mpf(ball.mid()), SHOWN)


def cost(mech: Additive | BoundedMechanism) -> list[dict[str, str]]:
    """Rows {"at", "bias", "mse"}: one for the additive mechanism, two (s = c0, midpoint)
    for a bounded one."""
    from dpcheck.laws.bounded_privacy import BoundedMechanism

    if isinstance(mech, BoundedMechanism):
        return rows(mech.law, mech.values, mech.bounding, mech.c0, mech.c1)
    return rows(mech.law, mech.values)


def rows(law: NoiseLaw, values: dict[str, Fraction], bounding: str | None = None,
         c0: Fraction | None = None, c1: Fraction | None = None) -> list[dict[str, str]]:
    """The rows of :func:`cost` for ``law`` at ``values``, bounded into [c0, c1] by
    ``bounding`` (truncated, clamped or folded: any bounding of
    :class:`dpcheck.laws.bounded.Bounded`, with or without a privacy engine), or
    additive (None)."""
    with precision(DPS):
        if bounding is None:
            ev = Evaluator(law, values)
            mean, second = ev.mean(), ev.moment(2)
            for ball in (mean, second):
                if not ball.certified:
                    raise InputError(f"{law.name}: no certified moments ({ball.how})")
            bias = "0" if law.symmetric else _shown(mean.ball, f"{law.name} bias")
            return [{"at": "any s", "bias": bias, "mse": _shown(second.ball, f"{law.name} mse")}]
        assert c0 is not None and c1 is not None
        mid = (c0 + c1) / 2
        if law.is_lattice:
            mid = Fraction(mid.numerator // mid.denominator)
        out = []
        for label, s in (("s = c0", c0), ("s = midpoint", mid)):
            name = f"{bounding}-{law.name} at {label}"
            centre = law.symmetric and s == (c0 + c1) / 2  # the bias is 0 by symmetry
            at = (law, values, bounding, s, c0, c1)
            bias = "0.0" if centre else _bounded_shown(at, "bias", f"{name}: bias")
            mse = _bounded_shown(at, "mse", f"{name}: mse")
            out.append({"at": label, "bias": bias, "mse": mse})
        return out


def _bounded_shown(at: tuple, quantity: str, what: str) -> str:
    """A bounded law's ``quantity`` to :data:`SHOWN` digits, the working precision
    doubled from :data:`DPS` up to :data:`MAX_DPS` while the ball is too wide (a scale
    of 1e149 on [0, 1] cancels about 300 digits: the calibration's extremes)."""
    from dpcheck.laws.bounded import Bounded

    dps = DPS
    while True:
        with precision(dps):
            ball = Bounded(*at).quantity(quantity)
            try:
                return _shown(ball, what)
            except InputError:
                if dps >= MAX_DPS:
                    raise
        dps *= 2
