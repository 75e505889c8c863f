"""Step 2, selection: at most N non-equivalent mutants per transcription, round-robin
over the kinds."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from dpcheck.claims.mutation.equivalents import equivalence
from dpcheck.claims.mutation.mutants import KINDS, Mutant


def spread(n: int) -> list[int]:
    """0..n-1 in a deterministic order that spreads over the range (golden-ratio steps)."""
    return sorted(range(n), key=lambda i: ((i * 0.6180339887498949) % 1.0, i))


@dataclass
class Selection:
    """The outcome of :func:`select` for one transcription."""

    generated: int
    chosen: list[Mutant] = field(default_factory=list)
    equivalent: list[tuple[Mutant, str]] = field(default_factory=list)
    undecided: list[Mutant] = field(default_factory=list)

    @property
    def examined(self) -> int:
        return len(self.chosen) + len(self.equivalent) + len(self.undecided)


def _by_kind(mutants: Sequence[Mutant]) -> list[list[Mutant]]:
    groups = {k: [m for m in mutants if m.kind == k] for k in KINDS}
    return [[g[i] for i in spread(len(g))] for g in groups.values() if g]


def select(
    mutants: Sequence[Mutant],
    limit: int,
    test: Callable[[Mutant], str | None] = equivalence,
) -> Selection:
    """Up to ``limit`` non-equivalent mutants, round-robin over the kinds (see the module
    docstring); each candidate examined is tested with ``test``."""
    sel = Selection(len(mutants))
    queues = _by_kind(mutants)
    while len(sel.chosen) < limit and any(queues):
        for queue in queues:
            if not queue or len(sel.chosen) >= limit:
                continue
            m = queue.pop(0)
            how = test(m)
            if how is None:
                sel.chosen.append(m)
            elif how == "undecided":
                sel.undecided.append(m)
            else:
                sel.equivalent.append((m, how))
    return sel
