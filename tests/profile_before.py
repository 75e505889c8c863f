"""The privacy numbers of the profile engine that issue 35 deleted (dpcheck.numeric.profile's
own float64 search and ball certification, commit 09e45e4), recorded before its deletion
in tests/data/profile_engine_before_issue35.json: the *before* side of the before/after
checks of tests/test_bounded_privacy.py.  A record keeps the exact upper and lower ends
(Fractions, or inf), the kind and the printed dict."""

from __future__ import annotations

import json
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import mpmath

_DATA = json.loads((Path(__file__).parent / "data" / "profile_engine_before_issue35.json")
                   .read_text())["records"]


def _value(text: str) -> mpmath.mpf | Fraction:
    return mpmath.inf if text == "inf" else Fraction(text)


@dataclass
class Recorded:
    upper_value: mpmath.mpf | Fraction
    lower_value: mpmath.mpf | Fraction
    kind: str
    printed: dict

    @property
    def upper(self) -> mpmath.mpf:
        return _mpf(self.upper_value)

    @property
    def lower(self) -> mpmath.mpf:
        return _mpf(self.lower_value)

    def as_dict(self) -> dict:
        return self.printed


def _mpf(v: mpmath.mpf | Fraction) -> mpmath.mpf:
    if isinstance(v, Fraction):
        with mpmath.workdps(60):
            return mpmath.mpf(v.numerator) / v.denominator
    return v


def _get(kind: str, name: str, d, c0, c1, scale, eps=None) -> Recorded:  # type: ignore[no-untyped-def]
    key = "|".join([kind, name, str(Fraction(d)), str(Fraction(c0)), str(Fraction(c1)),
                     str(Fraction(scale)), "" if eps is None else str(Fraction(eps))])
    rec = _DATA[key]
    return Recorded(_value(rec["upper"]), _value(rec["lower"]), rec["kind"], rec["dict"])


def delta(name: str, d, c0, c1, scale, eps) -> Recorded:  # type: ignore[no-untyped-def]
    """The deleted engine's δ(ε) of ``name`` (sensitivity d, bounds [c0, c1], scale)."""
    return _get("delta", name, d, c0, c1, scale, eps)


def pure(name: str, d, c0, c1, scale) -> Recorded:  # type: ignore[no-untyped-def]
    """The deleted engine's pure ε."""
    return _get("pure", name, d, c0, c1, scale)
