"""Parsing and validating user parameters (CLI and API share this).

Numbers are parsed with :class:`fractions.Fraction` (exact: "0.1" is 1/10,
"1e-6", "3/7" accepted) and never with eval/sympify.  The mechanisms of Liu
(2019) Definition 2 need c0 < c1, λ > 0 (or ε > 0 and δ1 > 0, λ = δ1/ε), and
the statistic inside its bounds, c0 <= s <= c1: the paper's statistic lies in
[c0, c1], and eqs (4)-(7) are written for that case.  s outside the bounds is
rejected.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from dpcheck.errors import InputError


def parse_number(name: str, text: str | int | float | Fraction) -> Fraction:
    """An exact rational from a user value; one-line InputError otherwise."""
    if isinstance(text, Fraction):
        return text
    if isinstance(text, bool):
        raise InputError(f"{name}={text!r} is not a number")
    if isinstance(text, int):
        return Fraction(text)
    if isinstance(text, float):
        if text != text or text in (float("inf"), float("-inf")):
            raise InputError(f"{name}={text!r} is not a finite number")
        return Fraction(text)
    try:
        return Fraction(str(text).strip())
    except (ValueError, ZeroDivisionError):
        raise InputError(
            f"{name}={text!r} is not a finite number (expected e.g. 0.25, 1e-6 or 3/7)"
        ) from None


def parse_count(
    name: str, value: object, minimum: int = 0, maximum: int | None = None, limit: str = ""
) -> int:
    """An integer in [minimum, maximum] from an int or text such as '1000000' or '1e6'.

    Shared by every size, count and seed a user gives (CLI and API); a value
    above ``maximum`` is refused with ``limit`` naming the limit.
    """
    if isinstance(value, (bool, np.bool_)):
        raise InputError(f"{name}={value!r} is not an integer")
    if isinstance(value, (int, np.integer)):
        number = Fraction(int(value))
    elif isinstance(value, (str, float, Fraction)):
        number = parse_number(name, value)
    else:
        raise InputError(f"{name}={value!r} is not an integer")
    if number.denominator != 1:
        raise InputError(f"{name}={value!r} is not an integer")
    count = int(number)
    if count < minimum:
        raise InputError(f"{name} = {count} must be an integer >= {minimum}")
    if maximum is not None and count > maximum:
        raise InputError(f"{name} = {count} is beyond {limit or f'the limit of {maximum}'}")
    return count


def parse_real(name: str, value: object, ok: Callable[[float], bool], expected: str) -> float:
    """A float from a number or text, with a one-line error unless ``ok(value)``."""
    if isinstance(value, bool):
        raise InputError(f"{name}={value!r} is not a number")
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise InputError(f"{name}={value!r} is not a number ({expected})") from None
    if not ok(number):  # NaN fails every comparison
        raise InputError(f"{name}={value!r} must be {expected}")
    return number


@dataclass(frozen=True)
class MechanismParams:
    """(s, c0, c1, λ) of a bounded Laplace mechanism, exact and validated."""

    s: Fraction
    c0: Fraction
    c1: Fraction
    lam: Fraction

    def __post_init__(self) -> None:
        if not self.c0 < self.c1:
            raise InputError(f"c0={self.c0} must be smaller than c1={self.c1}")
        if not self.lam > 0:
            raise InputError(f"lam={self.lam} must be positive")
        if not self.c0 <= self.s <= self.c1:
            raise InputError(
                f"s={self.s} is outside [c0, c1] = [{self.c0}, {self.c1}];"
                " the mechanisms (Liu 2019, Definition 2) need c0 <= s <= c1"
            )

    @classmethod
    def from_mapping(cls, values: Mapping[str, object]) -> MechanismParams:
        """From {'s','c0','c1'} and either 'lam' or both 'epsilon' and 'sensitivity'."""
        allowed = {"s", "c0", "c1", "lam", "epsilon", "sensitivity"}
        unknown = sorted(set(values) - allowed)
        if unknown:
            raise InputError(
                f"unknown parameter {unknown[0]!r} (expected s, c0, c1 and lam,"
                " or epsilon and sensitivity)"
            )
        missing = [k for k in ("s", "c0", "c1") if k not in values]
        if missing:
            raise InputError(f"missing parameter {missing[0]!r} (need s, c0, c1)")
        nums = {k: parse_number(k, v) for k, v in values.items()}  # type: ignore[arg-type]
        if "lam" in nums:
            if "epsilon" in nums or "sensitivity" in nums:
                raise InputError("give either lam or epsilon+sensitivity, not both")
            lam = nums["lam"]
        elif "epsilon" in nums and "sensitivity" in nums:
            if nums["epsilon"] <= 0:
                raise InputError(f"epsilon={nums['epsilon']} must be positive")
            if nums["sensitivity"] <= 0:
                raise InputError(f"sensitivity={nums['sensitivity']} must be positive")
            lam = nums["sensitivity"] / nums["epsilon"]
        else:
            raise InputError("missing scale: give lam, or epsilon and sensitivity (λ = δ1/ε)")
        return cls(nums["s"], nums["c0"], nums["c1"], lam)


def parse_assignments(items: list[str]) -> dict[str, str]:
    """``['s=0.3', 'lam=1']`` → {'s': '0.3', 'lam': '1'}; malformed items are errors."""
    out: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not key or not value.strip():
            raise InputError(f"{item!r} is not of the form name=value (e.g. s=0.3)")
        if key in out:
            raise InputError(f"parameter {key!r} given twice")
        out[key] = value.strip()
    return out
