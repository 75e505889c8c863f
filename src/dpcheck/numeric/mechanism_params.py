"""Parameters of any mechanism of the algebra, parsed and validated once (CLI and API).

``s``, ``c0``, ``c1`` (a bound may be ``inf``/``-inf`` for the one-sided
variants: c1 = inf is [c0, ∞), c0 = -inf is (-∞, c1]); the scale under the
base's own name -- ``lam`` (Laplace), ``sigma`` (Gaussian) -- or ``scale``
for any base, or ``alpha`` = e^{-1/scale} in (0, 1) for the geometric base, or
``epsilon`` and ``sensitivity`` for the Laplace base (λ = Δ/ε); ``y`` for the
CDF and ``p`` in (0, 1) for the quantile.  The unbounded mechanisms (a bare
base name) take no bounds.  The geometric base lives on the integers: its
s, c0, c1 (and y) must be integers.  Every number is exact
(:func:`dpcheck.inputs.numbers.parse_number`); every failure is one
:class:`~dpcheck.errors.InputError` line naming the value.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from dpcheck.errors import InputError
from dpcheck.inputs.numbers import parse_number, short, shown
from dpcheck.numeric.names import BASES, GENERAL_QUANTITIES, parts

#: the words accepted for an infinite bound, with their sign
INFINITE = {
    "inf": 1,
    "+inf": 1,
    "oo": 1,
    "+oo": 1,
    "infinity": 1,
    "+infinity": 1,
    "-inf": -1,
    "-oo": -1,
    "-infinity": -1,
}
#: the sign an infinite bound may take (c0 = -inf: (-∞, c1]; c1 = inf: [c0, ∞))
_ALLOWED_SIGN = {"c0": -1, "c1": 1}


@dataclass(frozen=True)
class Params:
    """Exact, validated parameters of one mechanism.

    ``c0``/``c1`` are None when infinite; ``scale`` is λ, σ or b (the base's
    scale); ``alpha`` is set instead of ``scale`` when the geometric law was
    given by α.  ``y``/``p`` are set for the CDF/quantile.
    """

    mechanism: str
    s: Fraction
    c0: Fraction | None
    c1: Fraction | None
    scale: Fraction | None
    alpha: Fraction | None = None
    y: Fraction | None = None
    p: Fraction | None = None

    @property
    def sides(self) -> str:
        """'both', 'lower' ([c0, ∞)) or 'upper' ((-∞, c1]): which symbolic variant applies."""
        if (self.c0 is not None and self.c1 is not None) or parts(self.mechanism)[0] == "none":
            return "both"
        return "lower" if self.c0 is not None else "upper"

    def as_dict(self) -> dict[str, str]:
        """The given values as strings (JSON reports)."""
        out = {"s": str(self.s)}
        bounding, base = parts(self.mechanism)
        if bounding != "none":
            out["c0"] = "-inf" if self.c0 is None else str(self.c0)
            out["c1"] = "inf" if self.c1 is None else str(self.c1)
        if self.alpha is not None:
            out["alpha"] = str(self.alpha)
        else:
            out[BASES[base]] = str(self.scale)
        for key in ("y", "p"):
            if getattr(self, key) is not None:
                out[key] = str(getattr(self, key))
        return out


def infinite_sign(value: object) -> int:
    """+1 or -1 for an infinity (a float or numpy float ±inf, or a word of :data:`INFINITE`,
    signs kept), 0 for anything else."""
    if isinstance(value, (float, np.floating)) and not isinstance(value, bool):
        return 0 if not math.isinf(value) else (1 if value > 0 else -1)
    if isinstance(value, str):
        return INFINITE.get(value.strip().lower(), 0)
    return 0


def _bound(name: str, value: object) -> Fraction | None:
    """c0 or c1: an exact number, or None for the one infinity it may be (c0 = -inf, c1 = +inf).

    The sign of an infinity is read, never dropped: c1 = -inf (or c0 = +inf) would leave no
    room between the bounds and is refused in one line.
    """
    sign = infinite_sign(value)
    if sign == 0:
        return parse_number(name, value)
    if sign != _ALLOWED_SIGN[name]:
        if name == "c1":
            raise InputError(
                f"c1={shown(value)}: the upper bound must be greater than c0; use c1=inf"
                " (math.inf) for an unbounded upper end"
            )
        raise InputError(
            f"c0={shown(value)}: the lower bound must be smaller than c1; use c0=-inf"
            " (-math.inf) for an unbounded lower end"
        )
    return None


def allowed(bounding: str, base: str) -> tuple[str, ...]:
    """The parameter names a mechanism takes (scale spellings included)."""
    keys = ["s"]
    if bounding != "none":
        keys += ["c0", "c1"]
    keys += [BASES[base], "scale"] if BASES[base] != "scale" else ["scale"]
    if base == "geometric":
        keys.append("alpha")
    if base == "laplace":
        keys += ["epsilon", "sensitivity"]
    return tuple(keys)


def parse(mechanism: str, values: Mapping[str, object], quantity: str = "") -> Params:
    """Validated :class:`Params` of ``mechanism`` from a name → value mapping.

    ``quantity`` 'cdf' requires y, 'quantile' requires p; others take neither.
    """
    bounding, base = parts(mechanism)
    if not isinstance(quantity, str) or (quantity and quantity not in GENERAL_QUANTITIES):
        raise InputError(
            f"unknown quantity {shown(quantity)} (expected one of: {', '.join(GENERAL_QUANTITIES)})"
        )
    if not isinstance(values, Mapping):
        raise InputError(f"parameters {shown(values)} are not a mapping of names to values")
    names = [*allowed(bounding, base)]
    extra = {"cdf": "y", "quantile": "p"}.get(quantity)
    if extra:
        names.append(extra)
    unknown = [k for k in values if not isinstance(k, str) or k not in names]
    if unknown:
        raise InputError(
            f"unknown parameter {shown(unknown[0])} for {mechanism}"
            f"{'.' + quantity if quantity else ''} (expected {', '.join(names)})"
        )
    needed = ["s"] + (["c0", "c1"] if bounding != "none" else []) + ([extra] if extra else [])
    for key in needed:
        if key not in values:
            raise InputError(
                f"missing parameter {key!r} for {mechanism} (need {', '.join(needed)}"
                f" and a scale: {scale_words(base)})"
            )
    s = parse_number("s", values["s"])
    c0 = c1 = None
    if bounding != "none":
        c0, c1 = _bound("c0", values["c0"]), _bound("c1", values["c1"])
        if c0 is None and c1 is None:
            raise InputError("c0 and c1 cannot both be infinite (use the unbounded mechanism)")
        if bounding == "folded" and (c0 is None or c1 is None):
            raise InputError(f"{mechanism} needs finite c0 and c1 (folding has no one-sided form)")
        if c0 is not None and c1 is not None and not c0 < c1:
            raise InputError(f"c0={short(c0)} must be smaller than c1={short(c1)}")
        if (c0 is not None and s < c0) or (c1 is not None and s > c1):
            raise InputError(
                f"s={short(s)} is outside [c0, c1] = [{_show(c0, '-inf')}, {_show(c1, 'inf')}];"
                " the bounded mechanisms need c0 <= s <= c1"
            )
    scale, alpha = _scale(base, values)
    y = parse_number("y", values["y"]) if extra == "y" else None
    p = parse_number("p", values["p"]) if extra == "p" else None
    if p is not None and not 0 < p < 1:
        raise InputError(f"p={short(p)} must lie strictly between 0 and 1")
    if base == "geometric":
        for key, value in (("s", s), ("c0", c0), ("c1", c1), ("y", y)):
            if value is not None and value.denominator != 1:
                raise InputError(
                    f"{key}={short(value)} must be an integer: the geometric base lives on"
                    " the integers"
                )
    return Params(mechanism, s, c0, c1, scale, alpha, y, p)


def _show(value: Fraction | None, infinite: str) -> str:
    return infinite if value is None else short(value)


def scale_words(base: str) -> str:
    """How the scale of a base may be given, for messages."""
    own = BASES[base]
    words = {
        "laplace": "lam (or scale, or epsilon and sensitivity)",
        "gaussian": "sigma (or scale)",
        "geometric": "scale (or alpha)",
    }
    return words.get(base, own)


def _scale(base: str, values: Mapping[str, object]) -> tuple[Fraction | None, Fraction | None]:
    own = BASES[base]
    given = [k for k in (own, "scale", "alpha", "epsilon") if k in values]
    given = list(dict.fromkeys(given))
    if "sensitivity" in values and "epsilon" not in values:
        raise InputError("sensitivity needs epsilon too (λ = sensitivity/epsilon)")
    if len(given) != 1:
        if not given:
            raise InputError(f"missing scale: give {scale_words(base)}")
        raise InputError(f"give one scale, not {' and '.join(given)}")
    key = given[0]
    if key == "epsilon":
        if "sensitivity" not in values:
            raise InputError("epsilon needs sensitivity too (λ = sensitivity/epsilon)")
        eps = parse_number("epsilon", values["epsilon"])
        sens = parse_number("sensitivity", values["sensitivity"])
        if eps <= 0:
            raise InputError(f"epsilon={short(eps)} must be positive")
        if sens <= 0:
            raise InputError(f"sensitivity={short(sens)} must be positive")
        return sens / eps, None
    value = parse_number(key, values[key])
    if key == "alpha":
        if not 0 < value < 1:
            raise InputError(f"alpha={short(value)} must lie strictly between 0 and 1")
        return None, value
    if value <= 0:
        raise InputError(f"{key}={short(value)} must be positive")
    return value, None


__all__ = ["INFINITE", "Params", "allowed", "infinite_sign", "parse", "scale_words"]
