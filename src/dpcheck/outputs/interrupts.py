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


def install() -> None:
    """Record every SIGINT (main thread only; elsewhere Python's handler stays)."""
    _state["interrupted"] = False
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, _on_sigint)


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


__all__ = ["deferred", "install", "interrupted"]
