"""The time budget of one mutant run (or of one equivalence test): SIGALRM on the main thread."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


class MutantTimeout(BaseException):
    """A mutant run exceeded its budget (a BaseException, so run_one does not catch it)."""


@contextmanager
def budget(seconds: float) -> Iterator[None]:
    """Raise :class:`MutantTimeout` after ``seconds`` (SIGALRM; main thread only)."""
    if seconds <= 0 or not hasattr(signal, "SIGALRM"):
        yield
        return

    def fire(signum: int, frame: Any) -> None:
        raise MutantTimeout

    old = signal.signal(signal.SIGALRM, fire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
