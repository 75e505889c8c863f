"""Ctrl-C: an interrupted run exits 130 and commits no output (issue 17).

:func:`install` replaces Python's SIGINT handler by one that also records the
interrupt, so an interrupt that Python swallows (raised inside a destructor or
a callback: "Exception ignored in ...") is still seen: the CLI then exits 130
and :mod:`dpcheck.outputs.atomic` refuses to commit.  :func:`deferred` holds
SIGINT back while output files are renamed into place or cleaned up, so a run
commits all of its files or none.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

_state = {"interrupted": False}


def _on_sigint(signum: int, frame: FrameType | None) -> None:
    _state["interrupted"] = True
    raise KeyboardInterrupt


def _main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


def install() -> object:
    """Record every SIGINT (main thread only; elsewhere Python's handler stays).

    Returns the handler it replaced, for :func:`restore`.
    """
    _state["interrupted"] = False
    if not _main_thread():
        return None
    return signal.signal(signal.SIGINT, _on_sigint)


def restore(previous: object) -> None:
    """Put back the handler :func:`install` replaced."""
    if previous is not None and _main_thread():
        signal.signal(signal.SIGINT, previous)  # type: ignore[arg-type]


def ignore() -> None:
    """Ignore SIGINT from now on (the run is over; only the interpreter's exit is left)."""
    if _main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)


def interrupted() -> bool:
    """Whether a SIGINT arrived since :func:`install` (even one Python swallowed)."""
    return _state["interrupted"]


@contextmanager
def deferred() -> Iterator[None]:
    """Hold SIGINT back inside the block; a pending one is delivered when it ends."""
    main = threading.current_thread() is threading.main_thread()
    if main:
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        if main:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


__all__ = ["deferred", "ignore", "install", "interrupted", "restore"]
