"""Parsing and validating user parameters (CLI and API share this).

Numbers are parsed with :class:`fractions.Fraction` (exact: "0.1" is 1/10,
"1e-6", "3/7" accepted) and never with eval/sympify.  The mechanisms of Liu
(2019) Definition 2 need c0 < c1, λ > 0 (or ε > 0 and δ1 > 0, λ = δ1/ε), and
the statistic inside its bounds, c0 <= s <= c1: the paper's statistic lies in
[c0, c1], and eqs (4)-(7) are written for that case.  s outside the bounds is
rejected.
The numbers themselves are read by :mod:`dpcheck.inputs.numbers` (re-exported).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction

from dpcheck.errors import InputError
from dpcheck.inputs.numbers import parse_count, parse_number, parse_real, short, shown


@dataclass(frozen=True)
class MechanismParams:
    """(s, c0, c1, λ) of a bounded Laplace mechanism, exact and validated."""

    s: Fraction
    c0: Fraction
    c1: Fraction
    lam: Fraction

    def __post_init__(self) -> None:
        if not self.c0 < self.c1:
            raise InputError(f"c0={short(self.c0)} must be smaller than c1={short(self.c1)}")
        if not self.lam > 0:
            raise InputError(f"lam={short(self.lam)} must be positive")
        if not self.c0 <= self.s <= self.c1:
            raise InputError(
                f"s={short(self.s)} is outside [c0, c1] = [{short(self.c0)}, {short(self.c1)}];"
                " the mechanisms (Liu 2019, Definition 2) need c0 <= s <= c1"
            )

    @classmethod
    def from_mapping(cls, values: Mapping[str, object]) -> MechanismParams:
        """From {'s','c0','c1'} and either 'lam' or both 'epsilon' and 'sensitivity'."""
        allowed = {"s", "c0", "c1", "lam", "epsilon", "sensitivity"}
        unknown = sorted(set(values) - allowed)
        if unknown:
            raise InputError(
                f"unknown parameter {shown(unknown[0])} (expected s, c0, c1 and lam,"
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
                raise InputError(f"epsilon={short(nums['epsilon'])} must be positive")
            if nums["sensitivity"] <= 0:
                raise InputError(f"sensitivity={short(nums['sensitivity'])} must be positive")
            lam = nums["sensitivity"] / nums["epsilon"]
        else:
            raise InputError("missing scale: give lam, or epsilon and sensitivity (λ = δ1/ε)")
        return cls(nums["s"], nums["c0"], nums["c1"], lam)


def parse_assignments(items: list[str]) -> dict[str, str]:
    """``['s=0.3', 'lam=1']`` → {'s': '0.3', 'lam': '1'}; malformed items are errors."""
    out: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        key = key.strip(" \t")
        if not sep or not key or not value.strip(" \t"):
            raise InputError(f"{shown(item)} is not of the form name=value (e.g. s=0.3)")
        if key in out:
            raise InputError(f"parameter {key!r} given twice")
        out[key] = value.strip(" \t")
    return out


__all__ = [
    "MechanismParams",
    "parse_assignments",
    "parse_count",
    "parse_number",
    "parse_real",
]
