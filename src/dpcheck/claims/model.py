"""Claims, verdicts and the basis of a verdict (DESIGN.md, "Verdicts").

A :class:`Claim` is a statement of a document with a check; running the check
gives a :class:`Verdict`: one of four statuses, the method, evidence (plain
JSON data), a command that reproduces it, and its **basis**: the steps it
rests on (:class:`Step`), each with a kind, whether a program established it,
and the domain it covers.  The runner decides from the basis whether the
status the check asked for is allowed (:mod:`dpcheck.claims.rules`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
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


class Kind(str, Enum):
    """What a step of a verdict's basis is (DESIGN.md, "Verdicts")."""

    SYMBOLIC = "symbolic"  # an exact reduction (to 0, to a known form)
    SIGN = "sign"  # a sign argument checked by machine
    ENCLOSURE = "enclosure"  # rigorous ball / interval arithmetic
    LIMIT = "limit"  # a limit computed symbolically
    ENUMERATION = "enumeration"  # exhaustive exact evaluation of a finite domain
    MONTE_CARLO = "monte-carlo"  # reproduction of a simulation study, with MC error
    SAMPLING = "sampling"  # statistical corroboration by random draws
    ARGUMENT = "argument"  # prose


#: kinds that can carry a claim over a whole (infinite) domain
RIGOROUS = frozenset({Kind.SYMBOLIC, Kind.SIGN, Kind.ENCLOSURE, Kind.LIMIT})
#: kinds whose arithmetic is exact or rigorous: they may verify a finite or bounded
#: domain and confirm a counterexample
EXACT = RIGOROUS | {Kind.ENUMERATION}

#: the domain of a step that covers the whole domain the verdict states
WHOLE = "the stated domain"


@dataclass(frozen=True)
class Step:
    """One step of a verdict's basis.

    ``checked`` is True only when a program established the step (a prose
    argument is ``checked=False``); ``domain`` is :data:`WHOLE` when the step
    covers everything the verdict states, else the part it covers (e.g.
    ``"n = 1..30"``, or the witness point of a counterexample).
    """

    kind: Kind
    checked: bool
    detail: str
    domain: str = WHOLE

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", Kind(self.kind))
        if not isinstance(self.checked, bool):
            raise TypeError(f"Step.checked must be a bool, got {self.checked!r}")

    @property
    def whole(self) -> bool:
        return self.domain == WHOLE

    def as_dict(self, stated_domain: str = "") -> dict[str, Any]:
        """The JSON form ``{"kind", "checked", "domain", "detail"}``."""
        domain = (stated_domain or "the stated domain") if self.whole else self.domain
        return {
            "kind": self.kind.value,
            "checked": self.checked,
            "domain": domain,
            "detail": self.detail,
        }


def step(kind: Kind | str, detail: str, *, checked: bool = True, domain: str = WHOLE) -> Step:
    """A basis step; ``checked`` defaults to True because most steps are run by the check
    that records them.  Prose is :func:`argument`."""
    return Step(Kind(kind), checked, detail, domain)


def merged_basis(parts: Mapping[str, Verdict]) -> list[Step]:
    """The steps of several sub-verdicts, each detail prefixed by its part's name."""
    return [replace(s, detail=f"{name}: {s.detail}") for name, v in parts.items() for s in v.basis]


def argument(detail: str, domain: str = WHOLE) -> Step:
    """A prose step: never checked by a program."""
    return Step(Kind.ARGUMENT, False, detail, domain)


@dataclass
class Verdict:
    """The outcome of checking one claim.

    ``evidence`` holds JSON-ready values (strings for exact numbers and
    formulas); ``reproduce`` is a shell command that re-runs the check or
    shows the counterexample; ``domain`` states what a proved/verified
    verdict covers; ``basis`` lists the steps the status rests on (the runner
    enforces the verdict table from it, :mod:`dpcheck.claims.rules`).
    """

    status: Status
    method: str
    evidence: dict[str, Any] = field(default_factory=dict)
    reproduce: str = ""
    domain: str = ""
    seconds: float = 0.0
    basis: list[Step] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.status = Status(self.status)
        self.basis = list(self.basis)

    @property
    def empirical(self) -> bool:
        """Judged by reproduction with Monte Carlo error: a monte-carlo step and no step
        in exact or rigorous arithmetic."""
        kinds = {s.kind for s in self.basis if s.checked}
        return Kind.MONTE_CARLO in kinds and not kinds & EXACT

    def with_steps(self, *steps: Step) -> Verdict:
        """Add steps to the basis (returns self, for chaining)."""
        self.basis.extend(steps)
        return self


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
