"""Ctrl-C: an interrupted run exits 130 and commits no output (issue 17).

:func:`install` replaces Python's SIGINT handler by one that also records the
interrupt, so an interrupt that Python swallows (raised inside a destructor or
a callback: "Exception ignored in ...") is still seen: the CLI then exits 130
and :mod:`dpcheck.outputs.atomic` refuses to commit.  Such a swallowed
interrupt prints no traceback: :func:`install` also replaces
``sys.unraisablehook`` by one that stays silent about ``KeyboardInterrupt`` and
delivers the interrupt again to the main thread, so the run stops promptly
instead of finishing its work only to discard it.  :func:`deferred` holds
SIGINT back while output files are renamed into place or cleaned up, so a run
commits all of its files or none.
"""

from __future__ import annotations

import _thread
import atexit
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import NoReturn

STATE = {"interrupted": False, "quiet": False}
"""``interrupted``: a SIGINT arrived; ``quiet``: the run is over, SIGINT only records.

The console script sets ``STATE["quiet"]`` with a plain store, not a call: a call's
first instruction is where CPython delivers a pending interrupt, so a call could
raise before it took effect (``dpcheck.cli.run``).
"""
_state = STATE


def _on_sigint(signum: int, frame: FrameType | None) -> None:
    _state["interrupted"] = True
    if not _state["quiet"]:
        raise KeyboardInterrupt


def _on_unraisable(unraisable: sys.UnraisableHookArgs) -> None:
    """Silence an interrupt Python swallowed, and deliver it again; pass on the rest."""
    if unraisable.exc_type is not None and issubclass(unraisable.exc_type, KeyboardInterrupt):
        _state["interrupted"] = True
        if signal.getsignal(signal.SIGINT) is _on_sigint:
            _redeliver_later()
        return
    sys.__unraisablehook__(unraisable)


def _redeliver_later(delay: float = 0.05) -> None:
    """SIGINT to the main thread again once this hook has returned.

    Delivered from inside the hook, the handler would raise in the hook itself;
    a short-lived thread delivers it ``delay`` seconds later instead.
    """

    def deliver() -> None:
        time.sleep(delay)
        if signal.getsignal(signal.SIGINT) is _on_sigint and not _state["quiet"]:
            _thread.interrupt_main(signal.SIGINT)

    try:
        threading.Thread(target=deliver, name="dpcheck-sigint", daemon=True).start()
    except RuntimeError:  # interpreter shutting down: the recorded flag is enough
        pass


def silence_swallowed() -> None:
    """From now on, an interrupt swallowed by a destructor or callback prints nothing."""
    sys.unraisablehook = _on_unraisable


def _main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


def install() -> object:
    """Record every SIGINT (main thread only; elsewhere Python's handler stays).

    Returns the handlers it replaced (SIGINT's and ``sys.unraisablehook``), for
    :func:`restore`.
    """
    _state["interrupted"] = False
    _state["quiet"] = False
    if not _main_thread():
        return None
    hook = sys.unraisablehook
    sys.unraisablehook = _on_unraisable
    return signal.signal(signal.SIGINT, _on_sigint), hook


def restore(previous: object) -> None:
    """Put back the handlers :func:`install` replaced."""
    if previous is not None and _main_thread():
        handler, hook = previous  # type: ignore[misc]
        signal.signal(signal.SIGINT, handler)
        sys.unraisablehook = hook


def ignore() -> None:
    """Ignore SIGINT from now on (the run is over; only the interpreter's exit is left)."""
    if _main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)


def exit_now(code: int) -> NoReturn:
    """End the process with ``code`` now: flush stdout and stderr, run the atexit hooks, exit.

    For an interrupted run.  CPython 3.11 marks a KeyboardInterrupt that escaped code run
    by ``exec`` or ``eval`` of a string (dataclasses and namedtuple build their methods
    that way) as unhandled even when it was caught further up (the flag
    ``_Py_UnhandledKeyboardInterrupt``, set in ``run_eval_code_obj``, which ``exec`` and
    ``eval`` of a string go through; see CPython gh-128130 on that flag); a
    ``python -m dpcheck`` run then ends by SIGINT (exit -2) after it returned 130.
    ``os._exit`` skips that last check; the interpreter's own teardown does nothing else
    an interrupted run needs (its outputs were already discarded).
    """
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe or stream: nothing more to say
            pass
    atexit._run_exitfuncs()
    os._exit(code)


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


__all__ = [
    "STATE",
    "deferred",
    "exit_now",
    "ignore",
    "install",
    "interrupted",
    "restore",
    "silence_swallowed",
]
