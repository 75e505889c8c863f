"""Claims and verdicts (DESIGN.md, "Verdicts").

A :class:`Claim` is a statement of a document with a check; running the check
gives a :class:`Verdict`: one of four statuses, the method, evidence (plain
JSON data), and a command that reproduces it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from typing import Any


class Status(str, Enum):
    """The verdict vocabulary of DESIGN.md."""

    PROVED = "proved"
    VERIFIED = "verified"
    REFUTED = "refuted"
    INCONCLUSIVE = "inconclusive"


#: statuses that settle a claim (exit code 0)
SETTLED = (Status.PROVED, Status.VERIFIED, Status.REFUTED)


@dataclass
class Verdict:
    """The outcome of checking one claim.

    ``evidence`` holds JSON-ready values (strings for exact numbers and
    formulas); ``reproduce`` is a shell command that re-runs the check or
    shows the counterexample; ``domain`` states what a proved/verified
    verdict covers.
    """

    status: Status
    method: str
    evidence: dict[str, Any] = field(default_factory=dict)
    reproduce: str = ""
    domain: str = ""
    seconds: float = 0.0

    def __post_init__(self) -> None:
        self.status = Status(self.status)


@dataclass(frozen=True)
class Claim:
    """A checkable statement: ``id`` as in CLAIMS.md, ``source`` the place in
    the document, ``statement`` in LaTeX, ``check`` the function producing
    the verdict; ``module`` and ``order`` fix the report order."""

    id: str
    source: str
    statement: str
    check: Callable[[], Verdict]
    module: str = ""
    order: int = 0

    @property
    def document(self) -> str:
        """The document part of the id: 'liu2019' for 'liu2019.eq6.mu1'."""
        return self.id.split(".", 1)[0]
