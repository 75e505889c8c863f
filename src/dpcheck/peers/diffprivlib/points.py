"""The parameter space of ``dpcheck compare diffprivlib``: one call and the default grids.

:class:`Point` holds the constructor arguments of a diffprivlib 0.6.6 bounded
Laplace class (``LaplaceTruncated``, ``LaplaceFolded``, ``LaplaceBoundedDomain``,
``diffprivlib/mechanisms/laplace.py``) and the value passed to it, with its
exact binary values, its label and the command that reproduces it.
:func:`grid` and :func:`law_points` are the default points (Δ < R, Δ = R,
Δ > R, a large offset, ε = 0 with δ > 0, and the degenerate inputs the API
accepts); the mechanisms, quantities and which quantity applies to which class
live here too.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

MECHANISMS = ("LaplaceTruncated", "LaplaceFolded", "LaplaceBoundedDomain")
QUANTITIES = ("bias", "variance", "scale", "effective_epsilon", "law")
APPLIES = {
    "LaplaceTruncated": ("bias", "variance", "law"),
    "LaplaceFolded": ("bias", "variance", "law"),
    "LaplaceBoundedDomain": QUANTITIES,
}


@dataclass(frozen=True)
class Point:
    """One call of a diffprivlib class: constructor arguments and the value."""

    mechanism: str
    epsilon: float
    delta: float
    sensitivity: float
    lower: float
    upper: float
    value: float

    @property
    def exact(self) -> tuple[Fraction, Fraction, Fraction, Fraction]:
        """(Δ, lower, upper, value) at their exact binary values."""
        return (
            Fraction(self.sensitivity),
            Fraction(self.lower),
            Fraction(self.upper),
            Fraction(self.value),
        )

    @property
    def width(self) -> Fraction:
        return Fraction(self.upper) - Fraction(self.lower)

    @property
    def setting(self) -> tuple[str, float, float, float, float, float]:
        """Everything but the value: what the scale depends on."""
        return (self.mechanism, self.epsilon, self.delta, self.sensitivity, self.lower, self.upper)

    def params(self) -> dict[str, float]:
        return {
            "epsilon": self.epsilon,
            "delta": self.delta,
            "sensitivity": self.sensitivity,
            "lower": self.lower,
            "upper": self.upper,
            "value": self.value,
        }

    def label(self) -> str:
        return (
            f"ε={_num(self.epsilon)} δ={_num(self.delta)} Δ={_num(self.sensitivity)}"
            f" [{_num(self.lower)}, {_num(self.upper)}] value={_num(self.value)}"
        )

    def command(self, quantity: str, samples: int | None = None, seed: int | None = None) -> str:
        """The ``dpcheck compare diffprivlib`` command that reproduces this row exactly."""
        parts = ["dpcheck compare diffprivlib", f"--mechanism={self.mechanism}"]
        parts.append(f"--quantity={quantity}")
        parts += [f"--{k}={_num(v)}" for k, v in self.params().items()]
        if quantity == "law":
            parts += [f"--samples={samples}", f"--seed={seed}"]
        return " ".join(parts)


def _num(value: float) -> str:
    """repr of the float: round-trips exactly through parse_number → float."""
    return repr(float(value))


EPSILONS = (1e-3, 0.1, 1.0, 10.0, 100.0)
DELTAS = (0.0, 1e-6, 0.1, 0.5)
#: ε = 0 is accepted with δ > 0
ZERO_EPSILON_DELTAS = (1e-6, 0.5)
#: (lower, upper, Δ): Δ < R, Δ = R, Δ > R, a large offset, wide bounds
SETTINGS = (
    (0.0, 1.0, 0.1),
    (0.0, 1.0, 1.0),
    (0.0, 1.0, 3.0),
    (1e6, 1e6 + 1, 0.5),
    (-1e3, 1e3, 1.0),
)
#: (ε, δ, Δ, lower, upper, value): inputs the API accepts where the law is a point mass
DEGENERATE = (
    (math.inf, 0.0, 1.0, 0.0, 1.0, 0.5),
    (math.inf, 0.0, 1.0, 0.0, 1.0, 0.0),
    (1.0, 0.0, 0.0, 0.0, 1.0, 0.5),
    (1.0, 1.0, 1.0, 0.0, 1.0, 0.5),
    (1.0, 0.0, 1.0, 0.0, 0.0, 0.0),
)
#: (ε, δ, Δ, lower, upper, value) where randomise() is sampled (a subset of the grid)
LAW_POINTS = (
    (1.0, 0.0, 0.1, 0.0, 1.0, 0.5005),
    (0.1, 0.0, 0.1, 0.0, 1.0, 0.0),
    (1.0, 0.5, 1.0, 0.0, 1.0, 0.999),
    (1.0, 0.0, 0.5, 1e6, 1e6 + 1, 1e6),
    (1e-3, 0.0, 1.0, 0.0, 1.0, 0.5),
    (10.0, 0.0, 1.0, -1e3, 1e3, 998.0),
)


def _values(lower: float, upper: float) -> tuple[float, ...]:
    """At the bounds, near them, the middle, and one outside (below lower)."""
    r = upper - lower
    return (lower, lower + r / 1000, lower + r / 2, upper - r / 1000, upper, lower - r / 4)


def grid(mechanisms: Sequence[str] = MECHANISMS) -> list[Point]:
    """The default grid of bias/variance/scale points (see the module docstring)."""
    pairs = [(e, d) for e in EPSILONS for d in DELTAS]
    pairs += [(0.0, d) for d in ZERO_EPSILON_DELTAS]
    out = []
    for mech in mechanisms:
        for eps, delta in pairs:
            for lower, upper, sens in SETTINGS:
                for value in _values(lower, upper):
                    out.append(Point(mech, eps, delta, sens, lower, upper, value))
        out += [Point(mech, *p) for p in DEGENERATE]
    return out


def law_points(mechanisms: Sequence[str] = MECHANISMS) -> list[Point]:
    """The points where randomise() is sampled by default."""
    return [Point(m, *p) for m in mechanisms for p in LAW_POINTS]
