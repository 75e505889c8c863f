"""One comparison result: :class:`Row`, and the number formatting rows use.

A row pairs a diffprivlib 0.6.6 value (``LaplaceTruncated`` / ``LaplaceFolded``
/ ``LaplaceBoundedDomain``) with dpcheck's exact one (Liu 2019 Definition 2;
Holohan et al. 2018 for the scale), its discrepancy, status, cause, diagnosis
and the command that reproduces it; :meth:`Row.as_dict` is its JSON form.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import mpmath
from mpmath import mpf

from dpcheck.peers.diffprivlib.points import Point, _num


@dataclass
class Row:
    """One comparison: the library's value, the exact one, and what explains the gap."""

    point: Point
    quantity: str
    library: str
    exact: str
    #: relative error (law: D_n / DKW threshold, or the bound frequency's relative error);
    #: inf for a crash or a nan; None when not compared
    error: mpf | None
    #: compared | crash | not implemented | not compared
    status: str
    #: agrees | floating point | scale | formula | nan | crash | law ok | flagged | ...
    cause: str
    diagnosis: str
    command: str
    measure: str = "relative error"
    flagged: bool = False

    def as_dict(self) -> dict[str, Any]:
        return {
            "mechanism": self.point.mechanism,
            "quantity": self.quantity,
            **{k: _num(v) for k, v in self.point.params().items()},
            "library": self.library,
            "exact": self.exact,
            "error": None if self.error is None else _fmt(self.error),
            "measure": self.measure,
            "status": self.status,
            "cause": self.cause,
            "flagged": self.flagged,
            "diagnosis": self.diagnosis,
            "command": self.command,
        }


def _fmt(x: mpf | float | None, digits: int = 3) -> str:
    if x is None:
        return "-"
    return mpmath.nstr(mpf(x), digits) if not isinstance(x, float) else f"{x:.{digits}g}"


def _show(x: mpf, digits: int = 17) -> str:
    return mpmath.nstr(x, digits)
